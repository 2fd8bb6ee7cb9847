/* test_series.c -- sbw_series (sbw-series' verdicts) against brute force on
 * random series with many ties: the trend from its definition over every
 * pair of neighbours, the order as a stable permutation checked pair by
 * pair against the input positions, the counts against a bound; the reader
 * on good and bad lines; --scale's parser. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_series.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NMAX ((size_t)12)

/* x[0..n) drawn from {0, 1, 2} (ties everywhere) or, when wide, from
 * 1 + U(0, 1). */
static void draw(gsl_rng *r, double *x, size_t n, bool wide)
{
    for (size_t i = 0; i < n; i++)
        x[i] = wide ? 1 + gsl_rng_uniform(r) : (double)gsl_rng_uniform_int(r, 3);
}

/* The trend from its definition: which of the statements "every step is
 * up / not down / flat / not up / down" hold. */
static const char *brute_trend(const double *x, size_t n)
{
    if (n < 2)
        return "none";
    bool all_up = true, none_down = true, all_flat = true, none_up = true, all_down = true;
    for (size_t i = 1; i < n; i++) {
        all_up = all_up && x[i] > x[i - 1];
        all_down = all_down && x[i] < x[i - 1];
        all_flat = all_flat && x[i] == x[i - 1];
        none_down = none_down && !(x[i] < x[i - 1]);
        none_up = none_up && !(x[i] > x[i - 1]);
    }
    if (all_up)
        return "rising";
    if (all_down)
        return "falling";
    if (all_flat)
        return "constant";
    if (none_down)
        return "nondecreasing";
    if (none_up)
        return "nonincreasing";
    return "mixed";
}

static void test_summary_brute(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 5, 1));
    for (int rep = 0; rep < 2000; rep++) {
        size_t n = 1 + gsl_rng_uniform_int(r, NMAX);
        double x[NMAX];
        draw(r, x, n, rep % 2);
        sbw_series_summary s;
        SBW_ASSERT_OK(sbw_series_summarise(x, n, &s));
        assert_string_equal(sbw_series_trend_name(s.trend), brute_trend(x, n));
        double sum = 0;
        size_t amin = 0, amax = 0;
        for (size_t i = 0; i < n; i++) {
            sum += x[i];
            if (x[i] < x[amin])
                amin = i;
            if (x[i] > x[amax])
                amax = i;
        }
        assert_true(s.sum == sum);
        assert_int_equal(s.argmin, amin);
        assert_int_equal(s.argmax, amax);
        assert_true(s.min == x[amin] && s.max == x[amax]);
        assert_true(s.first == x[0] && s.last == x[n - 1]);
        assert_true(s.change == x[n - 1] - x[0]);
        if (x[0] != 0) /* last = first (1 + pct/100), to rounding */
            assert_true(fabs(x[0] * (1 + s.change_pct / 100) - x[n - 1]) <= 1e-14 * (1 + sum));
        else
            assert_true(isnan(s.change_pct));
        if (x[amin] > 0)
            assert_true(fabs(s.max_over_min * x[amin] - x[amax]) <= 1e-15 * x[amax]);
        else
            assert_true(isnan(s.max_over_min));
    }
    sbw_rng_free(r);
}

static void test_order_brute(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 6, 1));
    for (int rep = 0; rep < 2000; rep++) {
        size_t n = 1 + gsl_rng_uniform_int(r, NMAX), idx[NMAX], work[NMAX];
        double x[NMAX];
        draw(r, x, n, rep % 3 == 0);
        bool desc = rep % 2;
        sbw_series_order(x, n, desc, idx, work);
        bool seen[NMAX] = {false};
        for (size_t i = 0; i < n; i++) {
            assert_true(idx[i] < n && !seen[idx[i]]); /* a permutation */
            seen[idx[i]] = true;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n; j++) {
                double a = x[idx[i]], b = x[idx[j]];
                assert_true(desc ? a >= b : a <= b);    /* ordered */
                assert_true(a != b || idx[i] < idx[j]); /* ties in input order */
            }
    }
    sbw_rng_free(r);
}

static void test_against(void **state)
{
    (void)state;
    const double x[] = {30, 42, 42, 41, 43};
    size_t b, e, a, f;
    sbw_series_against(x, 5, 42, &b, &e, &a, &f);
    assert_int_equal(b, 2);
    assert_int_equal(e, 2);
    assert_int_equal(a, 1);
    assert_int_equal(f, 1);
    sbw_series_against(x, 5, 1000, &b, &e, &a, &f);
    assert_int_equal(b, 5);
    assert_int_equal(f, 5); /* none equal: n */
}

static void test_summary_errors(void **state)
{
    (void)state;
    sbw_series_summary s;
    double x[] = {1, NAN};
    assert_int_equal(sbw_series_summarise(x, 0, &s), SBW_EINVAL);
    assert_int_equal(sbw_series_summarise(x, 2, &s), SBW_EINVAL);
}

/* Reads text as a series named "in"; the status. */
static int read_text(const char *text, sbw_series *s)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    int st = sbw_series_read(s, f, "in");
    fclose(f);
    return st;
}

static void test_read(void **state)
{
    (void)state;
    sbw_series s;
    SBW_ASSERT_OK(read_text("# a comment\nK=3\t6467\r\n\n7.5e3\nK 10\t-1\n", &s));
    assert_int_equal(s.n, 3);
    assert_string_equal(s.label[0], "K=3");
    assert_string_equal(s.label[1], "2"); /* a bare value: its count */
    assert_string_equal(s.label[2], "K 10");
    assert_true(s.value[0] == 6467 && s.value[1] == 7500 && s.value[2] == -1);
    sbw_series_free(&s);
    const char *bad[] = {"a\t1\t2\n", "\t1\n",   "a\tx\n",   "1\nnan\n", "inf\n",
                         "a\t\n",     "1e999\n", "# only\n", ""};
    const int code[] = {SBW_EFORMAT, SBW_EFORMAT, SBW_EDATA, SBW_EDATA, SBW_EDATA,
                        SBW_EDATA,   SBW_EDATA,   SBW_EDATA, SBW_EDATA};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(read_text(bad[i], &s), code[i]);
        assert_int_equal(s.n, 0);
        assert_true(strncmp(sbw_error_reason(), "in: ", 4) == 0);
    }
    assert_int_equal(read_text("1\nnan\n", &s), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "line 2"));
}

static void test_scale(void **state)
{
    (void)state;
    double a, b;
    SBW_ASSERT_OK(sbw_series_scale_parse("1/3600", &a, &b));
    assert_true(a == 1 && b == 3600);
    SBW_ASSERT_OK(sbw_series_scale_parse("2.5", &a, &b));
    assert_true(a == 2.5 && b == 1);
    const char *bad[] = {"", "0", "1/0", "x", "1/", "/2", "1/2/3", "nan", "1/inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(sbw_series_scale_parse(bad[i], &a, &b), SBW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_brute), cmocka_unit_test(test_order_brute),
        cmocka_unit_test(test_against),       cmocka_unit_test(test_summary_errors),
        cmocka_unit_test(test_read),          cmocka_unit_test(test_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
