/* test_logp.c -- checked reading of log-probability rows
 * (analysis/sbw_logp.c): selections, probabilities, renormalisation, and
 * every refusal naming the file, row, column and value. */
#include "sbw_test.h"

#include "logp_rand.h"
#include "sbw_error.h"
#include "sbw_logp.h"
#include "sbw_npy.h"
#include "sbw_num.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char saved[512];

static const char *save(const sbw_mat *l, const char *name)
{
    snprintf(saved, sizeof saved, "%s", sbw_test_path(name));
    SBW_ASSERT_OK(sbw_npy_save(saved, l, SBW_F64));
    return saved;
}

static sbw_logp_reader *open_opts(const char *path, bool probs, bool normalize, double tol)
{
    sbw_logp_opts o = {.probs = probs, .normalize = normalize, .tol = tol};
    sbw_logp_reader *r = NULL;
    SBW_ASSERT_OK(sbw_logp_open(&r, path, &o));
    return r;
}

static void assert_reason(const char *part)
{
    if (!strstr(sbw_error_reason(), part))
        fail_msg("reason '%s' lacks '%s'", sbw_error_reason(), part);
}

/* Reads selected rows k0.. and checks their sums, as the analyses do. */
static int read_checked(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                        double *dst)
{
    size_t m = sbw_logp_info(r)->cols;
    int st = sbw_logp_read(r, s, k0, nr, dst);
    double *sums = malloc(nr * sizeof *sums);
    for (size_t i = 0; i < nr && !st; i++) {
        sums[i] = 0.0;
        for (size_t j = 0; j < m; j++)
            sums[i] += exp(dst[i * m + j]);
    }
    if (!st)
        st = sbw_logp_check_sums(r, s, k0, nr, dst, sums);
    free(sums);
    return st;
}

static void test_read_range_and_list(void **state)
{
    (void)state;
    sbw_mat l = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&l, 11, 5));
    rand_logp_dirichlet(&l, 0.5, 1);
    sbw_logp_reader *r = open_opts(save(&l, "a.npy"), false, false, 1e-9);
    assert_int_equal(sbw_logp_info(r)->rows, 11);
    assert_true(sbw_logp_seekable(r));
    double buf[11 * 5];
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 2, 9);
    SBW_ASSERT_OK(read_checked(r, &s, 3, 4, buf)); /* rows 5..8 */
    SBW_ASSERT_CLOSE(buf, l.data + (size_t)5 * 5, 20, 0, 0);
    SBW_ASSERT_OK(read_checked(r, &s, 0, 2, buf)); /* backwards: seeks */
    SBW_ASSERT_CLOSE(buf, l.data + (size_t)2 * 5, 10, 0, 0);
    assert_int_equal(sbw_logp_read(r, &s, 5, 3, buf), SBW_EINVAL);
    size_t list[] = {0, 1, 2, 6, 10};
    sbw_logp_sel ls = {.begin = 0, .end = 11, .n = 5, .list = list};
    SBW_ASSERT_OK(read_checked(r, &ls, 1, 4, buf));
    for (size_t i = 0; i < 4; i++)
        SBW_ASSERT_CLOSE(buf + i * 5, l.data + list[i + 1] * 5, 5, 0, 0);
    assert_int_equal(sbw_logp_sel_row(&ls, 3), 6);
    assert_int_equal(sbw_logp_sel_row(&s, 3), 5);
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

static void test_probabilities(void **state)
{
    (void)state;
    /* tests/fixtures/probs.npy is softmax of logp.npy (NumPy-made). */
    sbw_logp_reader *r = open_opts(sbw_test_fixture("probs.npy"), true, false, 1e-9);
    sbw_mat want;
    SBW_ASSERT_OK(sbw_npy_load(sbw_test_fixture("logp.npy"), &want, NULL));
    double buf[12];
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, 3);
    SBW_ASSERT_OK(read_checked(r, &s, 0, 3, buf));
    SBW_ASSERT_CLOSE(buf, want.data, 12, 4 * DBL_EPSILON, 4 * DBL_EPSILON);
    sbw_logp_close(r);
    sbw_mat_free(&want);
    /* a negative entry and a zero, each named */
    double bad[] = {0.5, 0.25, 0.25, -0.25, 1.0, 0.25, 0.0, 1.0, 0.0};
    sbw_mat b = sbw_mat_view(bad, 3, 3, 3);
    r = open_opts(save(&b, "p.npy"), true, false, 1e-9);
    assert_int_equal(sbw_logp_read(r, &s, 0, 3, bad), SBW_EDATA);
    assert_reason("row 1, column 0 (0-based) is -0.25, not a probability");
    sbw_logp_close(r);
    double again[] = {0.5, 0.25, 0.25, 0.25, 0.5, 0.25, 0.0, 1.0, 0.0};
    b = sbw_mat_view(again, 3, 3, 3);
    r = open_opts(save(&b, "p.npy"), true, false, 1e-9);
    assert_int_equal(sbw_logp_read(r, &s, 0, 3, again), SBW_EDATA);
    assert_reason("row 2, column 0 (0-based) is 0, a zero probability");
    sbw_logp_close(r);
}

static void test_nonfinite_named(void **state)
{
    (void)state;
    /* fixtures/nonfinite.npy: NaN at (1,2), +inf at (2,0), -inf at (2,3) */
    sbw_logp_reader *r = open_opts(sbw_test_fixture("nonfinite.npy"), false, true, 1e-6);
    double buf[12];
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, 3);
    SBW_ASSERT_OK(sbw_logp_read(r, &s, 0, 1, buf)); /* row 0 is fine */
    assert_int_equal(sbw_logp_read(r, &s, 1, 2, buf), SBW_EDATA);
    assert_reason("nonfinite.npy: row 1, column 2 (0-based) is NaN");
    assert_int_equal(sbw_logp_read(r, &s, 2, 1, buf), SBW_EDATA);
    assert_reason("row 2, column 0 (0-based) is +inf");
    sbw_logp_close(r);
    /* -inf: a zero probability, refused with the reason */
    r = open_opts(sbw_test_fixture("logp_zero.npy"), false, false, 1e-6);
    assert_int_equal(sbw_logp_read(r, &s, 0, 3, buf), SBW_EDATA);
    assert_reason("row 1, column 2 (0-based) is -inf, a zero probability");
    sbw_logp_close(r);
}

static void test_unnormalised_named(void **state)
{
    (void)state;
    sbw_mat l = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&l, 6, 7));
    rand_logp_dirichlet(&l, 1.0, 3);
    for (size_t j = 0; j < 7; j++)
        l.data[(size_t)4 * 7 + j] -= 2e-6; /* logsumexp = -2e-6 */
    const char *path = save(&l, "u.npy");
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, 6);
    double buf[42];
    sbw_logp_reader *r = open_opts(path, false, false, 1e-6);
    assert_int_equal(read_checked(r, &s, 0, 6, buf), SBW_EDATA);
    assert_reason("u.npy: row 4 (0-based) is not normalised: logsumexp = -2e-06");
    assert_reason("--normalize");
    sbw_logp_close(r);
    /* a looser tolerance accepts it and reports the worst row */
    r = open_opts(path, false, false, 1e-5);
    SBW_ASSERT_OK(read_checked(r, &s, 0, 6, buf));
    double worst;
    size_t row;
    sbw_logp_stats(r, &worst, &row);
    assert_int_equal(row, 4);
    SBW_ASSERT_NEAR(worst, 2e-6, 1e-14);
    sbw_logp_close(r);
    /* --normalize repairs it and records the correction */
    r = open_opts(path, false, true, 1e-12);
    SBW_ASSERT_OK(read_checked(r, &s, 0, 6, buf));
    sbw_logp_stats(r, &worst, &row);
    assert_int_equal(row, 4);
    SBW_ASSERT_NEAR(worst, 2e-6, 1e-14);
    for (size_t i = 0; i < 6; i++)
        SBW_ASSERT_NEAR(sbw_num_logsumexp(buf + i * 7, 7), 0.0, 8 * DBL_EPSILON);
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

static void test_probs_sum_named(void **state)
{
    (void)state;
    double p[] = {0.5, 0.5, 0.25, 0.75, 0.5, 0.6};
    sbw_mat b = sbw_mat_view(p, 3, 2, 2);
    sbw_logp_reader *r = open_opts(save(&b, "ps.npy"), true, false, 1e-6);
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, 3);
    double buf[6];
    assert_int_equal(read_checked(r, &s, 0, 3, buf), SBW_EDATA);
    assert_reason("row 2 (0-based) sums to 1.1");
    sbw_logp_close(r);
}

static void test_sample_selection(void **state)
{
    (void)state;
    sbw_logp_sel s;
    SBW_ASSERT_OK(sbw_logp_sel_sample(&s, 10, 50, 12, 9));
    assert_int_equal(s.n, 12);
    for (size_t i = 0; i < 12; i++) {
        SBW_ASSERT_GE(s.list[i], 10);
        SBW_ASSERT_LT(s.list[i], 50);
        if (i)
            SBW_ASSERT_GT(s.list[i], s.list[i - 1]); /* sorted, distinct */
    }
    sbw_logp_sel t;
    SBW_ASSERT_OK(sbw_logp_sel_sample(&t, 10, 50, 12, 9));
    assert_memory_equal(s.list, t.list, 12 * sizeof *s.list);
    sbw_logp_sel_free(&t);
    sbw_logp_sel_free(&s);
    assert_null(s.list);
    assert_int_equal(sbw_logp_sel_sample(&s, 0, 5, 6, 1), SBW_EINVAL);
    /* each of 20 rows is chosen with probability 5/20 in 2000 draws:
     * counts within 5 binomial sigmas of 500 */
    size_t count[20] = {0};
    for (uint64_t seed = 0; seed < 2000; seed++) {
        SBW_ASSERT_OK(sbw_logp_sel_sample(&s, 0, 20, 5, seed));
        for (size_t i = 0; i < 5; i++)
            count[s.list[i]]++;
        sbw_logp_sel_free(&s);
    }
    for (size_t i = 0; i < 20; i++)
        SBW_ASSERT_ABS_LT((double)count[i] - 500.0, 5 * sqrt(2000 * 0.25 * 0.75));
}

static void test_open_errors_and_team(void **state)
{
    (void)state;
    sbw_logp_opts o = {.tol = 0.0};
    sbw_logp_reader *r = (sbw_logp_reader *)1;
    assert_int_equal(sbw_logp_open(&r, sbw_test_fixture("logp.npy"), &o), SBW_EINVAL);
    assert_null(r);
    o.tol = 1e-6;
    /* a 1-D file is bad data, as in every tool (sbw_check_shape) */
    assert_int_equal(sbw_logp_open(&r, sbw_test_fixture("vec_f8.npy"), &o), SBW_ESHAPE);
    assert_int_equal(sbw_logp_open(&r, sbw_test_fixture("i8.npy"), &o), SBW_EDTYPE);
    assert_int_equal(sbw_logp_open(&r, sbw_test_path("missing.npy"), &o), SBW_EIO);
    SBW_ASSERT_OK(sbw_logp_open(&r, sbw_test_fixture("logp.npy"), &o));
    sbw_logp_reader **team;
    int n;
    SBW_ASSERT_OK(sbw_logp_team_open(r, 3, &team, &n));
    assert_int_equal(n, 3);
    assert_ptr_equal(team[0], r);
    assert_string_equal(sbw_logp_path(team[2]), sbw_logp_path(r));
    sbw_logp_team_close(team, n);
    sbw_logp_close(r);
}

static void test_fail_keeps_earliest(void **state)
{
    (void)state;
    sbw_logp_fail f;
    sbw_logp_fail_init(&f);
    SBW_ASSERT_OK(sbw_logp_fail_raise(&f));
    assert_false(sbw_logp_fail_skip(&f, 100));
    SBW_ERROR(SBW_EDATA, "late");
    sbw_logp_fail_note(&f, SBW_EDATA, 7);
    SBW_ERROR(SBW_EIO, "early");
    sbw_logp_fail_note(&f, SBW_EIO, 3);
    SBW_ERROR(SBW_EDATA, "later still");
    sbw_logp_fail_note(&f, SBW_EDATA, 5);
    assert_true(sbw_logp_fail_skip(&f, 4));
    assert_false(sbw_logp_fail_skip(&f, 3));
    sbw_error_clear();
    assert_int_equal(sbw_logp_fail_raise(&f), SBW_EIO);
    assert_string_equal(sbw_error_reason(), "early");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_range_and_list),  cmocka_unit_test(test_probabilities),
        cmocka_unit_test(test_nonfinite_named),      cmocka_unit_test(test_unnormalised_named),
        cmocka_unit_test(test_probs_sum_named),      cmocka_unit_test(test_sample_selection),
        cmocka_unit_test(test_open_errors_and_team), cmocka_unit_test(test_fail_keeps_earliest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
