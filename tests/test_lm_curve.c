/* test_lm_curve.c -- models at equal perplexity (lm/sbw_lm_curve): the
 * interpolation in log perplexity against hand-worked values and against
 * a brute force written another way, the grid rule, nan outside a curve's
 * range, one-point, unsorted and duplicate curves, disjoint ranges, the
 * pairwise comparison and its words, and the refusals. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_lm_curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A curve.tsv of n points (ppl[i], kld[i]) in that order; returns its path. */
static const char *write_curve(const char *name, const double *ppl, const double *kld, size_t n)
{
    const char *path = sbw_test_path(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# command=test\ntokens\tvalid_ppl\texpected_pairwise_kl\tother\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%zu\t%.17g\t%.17g\tx\n", i, ppl[i], kld[i]);
    assert_int_equal(fclose(f), 0);
    return path;
}

static sbw_lm_curve read_curve(const char *name, const double *ppl, const double *kld, size_t n)
{
    sbw_lm_curve c;
    SBW_ASSERT_OK(sbw_lm_curve_read(&c, write_curve(name, ppl, kld, n)));
    return c;
}

/* test_ptb_report.sh's curve a: kld 1 at 100, 3 at 400, listed late to
 * early.  In log perplexity 200 is halfway; 300 is log 3 / log 4 along. */
static void test_hand_worked(void **state)
{
    (void)state;
    sbw_lm_curve c = read_curve("a.tsv", (double[]){400, 100}, (double[]){3, 1}, 2);
    assert_int_equal(c.n, 2);
    assert_true(c.ppl[0] == 100 && c.kld[0] == 1);
    SBW_ASSERT_NEAR(sbw_lm_curve_at(&c, 200), 2.0, 1e-15);
    SBW_ASSERT_NEAR(sbw_lm_curve_at(&c, 300), 1 + 2 * log(3) / log(4), 1e-15);
    assert_true(sbw_lm_curve_at(&c, 100) == 1 && sbw_lm_curve_at(&c, 400) == 3);
    assert_true(isnan(sbw_lm_curve_at(&c, 99.999)) && isnan(sbw_lm_curve_at(&c, 400.001)));
    sbw_lm_curve_free(&c);
}

/* Brute force: sorted by a selection of the smallest remaining point, the
 * value as the log-perplexity weights of both ends (another formula). */
static double brute_at(const double *ppl, const double *kld, size_t n, double p)
{
    double lo = -INFINITY, klo = NAN, hi = INFINITY, khi = NAN;
    for (size_t i = 0; i < n; i++) {
        if (ppl[i] <= p && ppl[i] > lo)
            lo = ppl[i], klo = kld[i];
        if (ppl[i] >= p && ppl[i] < hi)
            hi = ppl[i], khi = kld[i];
    }
    if (isinf(lo) || isinf(hi))
        return NAN;
    if (lo == hi)
        return klo;
    double w = log(hi) - log(lo);
    return klo * (log(hi) - log(p)) / w + khi * (log(p) - log(lo)) / w;
}

/* A curve falling in perplexity but not monotonically (distinct points),
 * at many perplexities inside and outside it. */
static void test_brute_unsorted(void **state)
{
    (void)state;
    enum { N = 40 };
    double ppl[N], kld[N];
    for (size_t i = 0; i < N; i++) {
        ppl[i] = 600.0 / (1 + 0.1 * (double)i) + 7.0 * sin(3.0 * (double)i);
        kld[i] = 2.0 + 0.5 * cos((double)i);
    }
    sbw_lm_curve c = read_curve("u.tsv", ppl, kld, N);
    for (size_t i = 1; i < c.n; i++)
        assert_true(c.ppl[i - 1] <= c.ppl[i]);
    for (int k = 0; k <= 1760; k++) {
        double p = 50 + 0.37 * k;
        double got = sbw_lm_curve_at(&c, p), want = brute_at(ppl, kld, N, p);
        assert_int_equal(isnan(got), isnan(want));
        if (!isnan(want))
            SBW_ASSERT_NEAR(got, want, 1e-14 * 8);
    }
    sbw_lm_curve_free(&c);
}

/* One point: its value there, nan anywhere else; equal perplexities keep
 * file order and the first segment holding p decides (as the awk did). */
static void test_single_and_duplicates(void **state)
{
    (void)state;
    sbw_lm_curve c = read_curve("one.tsv", (double[]){200}, (double[]){0.5}, 1);
    assert_true(sbw_lm_curve_at(&c, 200) == 0.5);
    assert_true(isnan(sbw_lm_curve_at(&c, 199.9)) && isnan(sbw_lm_curve_at(&c, 200.1)));
    sbw_lm_curve_free(&c);
    c = read_curve("dup.tsv", (double[]){200, 100, 200}, (double[]){1, 0, 5}, 3);
    assert_true(c.kld[1] == 1 && c.kld[2] == 5);
    assert_true(sbw_lm_curve_at(&c, 200) == 1);
    sbw_lm_curve_free(&c);
}

/* Disjoint ranges: the grid spans both, each curve nan outside its own. */
static void test_grid_disjoint(void **state)
{
    (void)state;
    sbw_lm_curve c[2] = {read_curve("d1.tsv", (double[]){118, 103}, (double[]){1, 2}, 2),
                         read_curve("d2.tsv", (double[]){251, 262}, (double[]){3, 4}, 2)};
    double *g;
    size_t n;
    SBW_ASSERT_OK(sbw_lm_curve_grid(c, 2, 10, &g, &n));
    assert_int_equal(n, 16); /* 110, 120, ..., 260 */
    assert_true(g[0] == 110 && g[n - 1] == 260);
    assert_true(!isnan(sbw_lm_curve_at(&c[0], g[0])) && isnan(sbw_lm_curve_at(&c[0], g[1])));
    for (size_t i = 0; i < n; i++)
        assert_int_equal(isnan(sbw_lm_curve_at(&c[1], g[i])), g[i] < 251 || g[i] > 262);
    free(g);
    /* a smallest perplexity on the grid starts it */
    SBW_ASSERT_OK(sbw_lm_curve_grid(&c[0], 1, 103, &g, &n));
    assert_int_equal(n, 1);
    assert_true(g[0] == 103);
    free(g);
    assert_int_equal(sbw_lm_curve_grid(c, 2, 0, &g, &n), SBW_EINVAL);
    assert_int_equal(sbw_lm_curve_grid(c, 2, 1e-6, &g, &n), SBW_EINVAL); /* > 10^7 points */
    sbw_lm_curve_free(&c[0]);
    sbw_lm_curve_free(&c[1]);
}

/* Worked by hand: d = a - b = -1 at 100, unmeasured at 150, 0 at 200
 * (not above), 1 at 250: one sign change, between 200 and 250. */
static void test_compare(void **state)
{
    (void)state;
    double ppl[] = {100, 150, 200, 250}, a[] = {1, NAN, 2, 3}, b[] = {2, 2, 2, 2};
    size_t cross[8];
    sbw_lm_curve_pair r = {.cross = cross};
    sbw_lm_curve_compare(ppl, a, b, 4, &r);
    assert_int_equal(r.common, 3);
    assert_int_equal(r.above, 1);
    assert_true(r.plo == 100 && r.phi == 250 && r.dmin == -1 && r.dmax == 1);
    assert_int_equal(r.ncross, 1);
    assert_true(cross[0] == 2 && cross[1] == 3);
    sbw_lm_curve_compare(ppl, a, (double[]){NAN, NAN, NAN, NAN}, 4, &r);
    assert_int_equal(r.common, 0);
}

/* The words from a grid table on disk, whole, for a pair above at all,
 * a pair with a missing column, and the chain. */
static void test_order_words(void **state)
{
    (void)state;
    const char *path = sbw_test_path("grid.tsv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# command=x\nppl\ta\tb\n100\t2.5000\t2.0000\n110\tnan\t1.0000\n120\t1.5000\t1.2500\n",
          f);
    assert_int_equal(fclose(f), 0);
    sbw_lm_curve_table t;
    SBW_ASSERT_OK(sbw_lm_curve_table_read(&t, path));
    assert_true(t.n == 3 && t.m == 2 && isnan(t.kld[2]));
    char buf[1024] = {0};
    FILE *o = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(o);
    SBW_ASSERT_OK(sbw_lm_curve_order_print(o, &t, (char *[]){"a:b", "a:z"}, 2,
                                           (char *[]){"a=A", "b=Bee"}, 2));
    fclose(o);
    assert_string_equal(buf,
                        "- **A above Bee** at all 2 common perplexities (the grid points from 100 "
                        "to 120, where both curves were measured), by 0.250 to 0.500 nats.\n"
                        "- A against z: no perplexity measured for both yet.\n\n"
                        "The ordering of all three cannot be read yet: a curve is missing.\n");
    assert_int_equal(sbw_lm_curve_order_print(stdout, &t, (char *[]){"ab"}, 1, NULL, 0),
                     SBW_EINVAL);
    sbw_lm_curve_table_free(&t);
}

/* Bad data: refused naming the file and the line. */
static void test_refusals(void **state)
{
    (void)state;
    sbw_lm_curve c;
    const char *p = write_curve("bad.tsv", (double[]){100, 90}, (double[]){1, NAN}, 2);
    assert_int_equal(sbw_lm_curve_read(&c, p), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "bad.tsv: line 4"));
    assert_true(c.n == 0 && c.ppl == NULL);
    p = write_curve("neg.tsv", (double[]){-1}, (double[]){1}, 1);
    assert_int_equal(sbw_lm_curve_read(&c, p), SBW_EDATA);
    assert_int_equal(sbw_lm_curve_read(&c, sbw_test_path("absent.tsv")), SBW_EIO);
    FILE *f = fopen(sbw_test_path("short.tsv"), "w");
    assert_non_null(f);
    fputs("valid_ppl\texpected_pairwise_kl\n100\n", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(sbw_lm_curve_read(&c, sbw_test_path("short.tsv")), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "short.tsv: line 2"));
}

/* The readers' layout is core/sbw_tsv's: blank lines skipped, a row of
 * another width than the header refused (it was read when longer), an
 * empty or repeated column name refused (the last one was taken), a grid
 * table of 300 models read whole (the hand-written reader kept 255 of
 * them, silently), a curve whose columns stand past the 256th found. */
static void test_layout_is_sbw_tsv(void **state)
{
    (void)state;
    sbw_lm_curve c;
    const char *p = sbw_test_path("blank.tsv");
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("# command=x\n\nvalid_ppl\texpected_pairwise_kl\n200\t1\n\n100\t2\n\n", f);
    assert_int_equal(fclose(f), 0);
    SBW_ASSERT_OK(sbw_lm_curve_read(&c, p));
    assert_true(c.n == 2 && c.ppl[0] == 100 && c.kld[0] == 2 && c.kld[1] == 1);
    sbw_lm_curve_free(&c);
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"valid_ppl\texpected_pairwise_kl\n200\t1\t9\n", "line 2 has 3 cells, the header line 2"},
        {"valid_ppl\texpected_pairwise_kl\tvalid_ppl\n200\t1\t9\n",
         "column 'valid_ppl' appears twice"},
        {"valid_ppl\t\texpected_pairwise_kl\n200\t1\t9\n",
         "column 2 of the header line has no name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f = fopen(p, "w");
        assert_non_null(f);
        fputs(bad[i].text, f);
        assert_int_equal(fclose(f), 0);
        SBW_ASSERT_EQ(sbw_lm_curve_read(&c, p), SBW_EFORMAT);
        assert_non_null(strstr(sbw_error_reason(), bad[i].why));
        assert_true(c.n == 0 && c.ppl == NULL);
    }

    size_t m = 300;
    p = sbw_test_path("wide.tsv");
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("ppl", f);
    for (size_t j = 0; j < m; j++)
        fprintf(f, "\tm%zu", j);
    for (size_t r = 0; r < 2; r++) {
        fprintf(f, "\n%zu", 100 + r);
        for (size_t j = 0; j < m; j++)
            fprintf(f, "\t%zu.5", j + r);
    }
    fputc('\n', f);
    assert_int_equal(fclose(f), 0);
    sbw_lm_curve_table t;
    SBW_ASSERT_OK(sbw_lm_curve_table_read(&t, p));
    SBW_ASSERT_EQ(t.m, m);
    SBW_ASSERT_EQ(t.n, (size_t)2);
    assert_string_equal(t.names[m - 1], "m299");
    SBW_ASSERT_EQ(t.kld[1 * m + m - 1], 300.5);
    sbw_lm_curve_table_free(&t);

    p = sbw_test_path("late.tsv");
    f = fopen(p, "w");
    assert_non_null(f);
    for (size_t j = 0; j < 299; j++)
        fprintf(f, "x%zu\t", j);
    fputs("valid_ppl\texpected_pairwise_kl\n", f);
    for (size_t j = 0; j < 299; j++)
        fputs("0\t", f);
    fputs("150\t0.25\n", f);
    assert_int_equal(fclose(f), 0);
    SBW_ASSERT_OK(sbw_lm_curve_read(&c, p));
    assert_true(c.n == 1 && c.ppl[0] == 150 && c.kld[0] == 0.25);
    sbw_lm_curve_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked),
        cmocka_unit_test(test_brute_unsorted),
        cmocka_unit_test(test_single_and_duplicates),
        cmocka_unit_test(test_grid_disjoint),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_order_words),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_layout_is_sbw_tsv),
    };
    return cmocka_run_group_tests_name("lm_curve", tests, NULL, NULL);
}
