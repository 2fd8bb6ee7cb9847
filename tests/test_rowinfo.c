/* test_rowinfo.c -- sbw-info's per-row values: each row's entropy and one
 * row's sorted probabilities, against brute force. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rowinfo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 1100 /* two of sbw_scan's 8 MB blocks at COLS columns */
#define COLS 1024

/* Logits z of row i (a fixed pattern with repeats: ties in every row). */
static double logit(size_t i, size_t j) { return (double)((i * 31 + j * 17) % 97) / 10.0; }

/* Brute force from the logits, another path than the code's: with
 * Z = sum e^z, H = log Z - sum_j e^{z_j} z_j / Z; *lz gets log Z. */
static double brute_entropy(size_t i, double *lz)
{
    long double z = 0, s = 0;
    for (size_t j = 0; j < COLS; j++) {
        z += expl((long double)logit(i, j));
        s += expl((long double)logit(i, j)) * (long double)logit(i, j);
    }
    *lz = (double)logl(z);
    return (double)(logl(z) - s / z);
}

/* The file: row i is log_softmax(z_i). */
static const char *write_language(void)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s", sbw_test_path("lang.npy"));
    sbw_npy_writer *w;
    double row[COLS];
    SBW_ASSERT_OK(sbw_npy_create(&w, path, ROWS, COLS, 2, SBW_F64));
    for (size_t i = 0; i < ROWS; i++) {
        double lz;
        brute_entropy(i, &lz);
        for (size_t j = 0; j < COLS; j++)
            row[j] = logit(i, j) - lz;
        SBW_ASSERT_OK(sbw_npy_write_rows(w, row, 1, COLS));
    }
    SBW_ASSERT_OK(sbw_npy_finish(w));
    return path;
}

/* Every row's entropy, and a row of the second block kept as read. */
static void test_entropy_and_row(void **state)
{
    (void)state;
    const char *path = write_language();
    double *h = malloc(ROWS * sizeof *h), row[COLS];
    sbw_rowinfo ri = {.entropy = h, .pick = 1050, .row = row};
    sbw_npy_reader *r;
    sbw_scan s;
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    sbw_scan_init(&s, 1e-6);
    SBW_ASSERT_OK(sbw_rowinfo_reader(r, &s, NULL, &ri));
    sbw_npy_close(r);
    assert_int_equal(s.rows, ROWS);
    for (size_t i = 0; i < ROWS; i++) {
        double lz, want = brute_entropy(i, &lz);
        SBW_ASSERT_NEAR(h[i], want, 64 * COLS * 1e-16 * fmax(1, lz)); /* sum of COLS terms */
    }
    double lz;
    brute_entropy(1050, &lz);
    for (size_t j = 0; j < COLS; j++)
        SBW_ASSERT_EQ(row[j], logit(1050, j) - lz); /* the row as written */
    free(h);
}

/* Sorted probabilities against rank by counting: the entry at column j
 * has rank #{larger} + #{equal at a lower column}. */
static void test_sorted_brute(void **state)
{
    (void)state;
    double x[40];
    for (size_t j = 0; j < 40; j++)
        x[j] = j % 7 == 3 ? -INFINITY : -(double)((j * 13) % 11) / 3.0; /* ties and zeros */
    size_t word[40];
    double prob[40];
    SBW_ASSERT_OK(sbw_rowinfo_sorted(x, 40, word, prob));
    for (size_t j = 0; j < 40; j++) {
        size_t rank = 0;
        for (size_t i = 0; i < 40; i++)
            rank += x[i] > x[j] || (i < j && x[i] == x[j]);
        assert_int_equal(word[rank], j);
        SBW_ASSERT_EQ(prob[rank], exp(x[j]));
    }
    for (size_t k = 1; k < 40; k++)
        SBW_ASSERT_LE(prob[k], prob[k - 1]);
    SBW_ASSERT_OK(sbw_rowinfo_sorted(x, 0, word, prob)); /* an empty row */
}

/* Files whose rows are not distributions, and a row that is not there. */
static void test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *fixture, *reason;
        int status;
    } cases[] = {
        {"probs.npy", "probs.npy: 3 of 3 rows are not normalised", SBW_EDATA},
        {"nonfinite.npy", "non-finite entries (1 NaN, 1 +Inf, 1 -Inf)", SBW_EDATA},
        {"logp.npy", "logp.npy: row 99 asked for, but it has", SBW_EINVAL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double h[16], row[16];
        sbw_rowinfo ri = {.entropy = h, .pick = 99, .row = k == 2 ? row : NULL};
        sbw_npy_reader *r;
        sbw_scan s;
        SBW_ASSERT_OK(sbw_npy_open(&r, sbw_test_fixture(cases[k].fixture)));
        assert_true(sbw_npy_reader_info(r)->rows <= 16 && sbw_npy_reader_info(r)->cols <= 16);
        sbw_scan_init(&s, 1e-8);
        assert_int_equal(sbw_rowinfo_reader(r, &s, NULL, &ri), cases[k].status);
        assert_non_null(strstr(sbw_error_reason(), cases[k].reason));
        sbw_npy_close(r);
    }
    /* a zero probability (-inf) is a distribution: entropy of the rest */
    double h[16] = {0};
    sbw_rowinfo ri = {.entropy = h};
    sbw_npy_reader *r;
    sbw_scan s;
    sbw_mat m;
    SBW_ASSERT_OK(sbw_npy_load(sbw_test_fixture("logp_zero.npy"), &m, NULL));
    SBW_ASSERT_OK(sbw_npy_open(&r, sbw_test_fixture("logp_zero.npy")));
    sbw_scan_init(&s, 1e-8);
    SBW_ASSERT_OK(sbw_rowinfo_reader(r, &s, NULL, &ri));
    sbw_npy_close(r);
    for (size_t i = 0; i < m.rows; i++) {
        double want = 0;
        for (size_t j = 0; j < m.cols; j++) {
            double x = m.data[i * m.ld + j];
            want -= isinf(x) ? 0 : exp(x) * x;
        }
        SBW_ASSERT_NEAR(h[i], want, 1e-15 * (double)m.cols);
    }
    sbw_mat_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entropy_and_row),
        cmocka_unit_test(test_sorted_brute),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests_name("rowinfo", tests, NULL, NULL);
}
