/* test_series.c -- sbw_series (sbw-series' verdicts) against brute force on
 * random series with many ties: the trend from its definition over every
 * pair of neighbours, the order as a stable permutation checked pair by
 * pair against the input positions, the counts against a bound; the reader
 * on good and bad lines; --scale's parser. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_series.h"

#include <gsl/gsl_randist.h>
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

/* The textbook formulas of least squares in long double: slope Sxy / Sxx,
 * intercept ybar - slope ubar, s^2 = sum r^2 / (n - 2), se(slope) =
 * s / sqrt(Sxx), se(intercept) = s sqrt(1/n + ubar^2 / Sxx), and the fitted
 * mean's error at u, s sqrt(1/n + (u - ubar)^2 / Sxx). */
static void line_twin(const double *u, const double *y, size_t n, double at, double out[6])
{
    long double ub = 0, yb = 0, sxx = 0, sxy = 0, rr = 0;
    for (size_t i = 0; i < n; i++)
        ub += u[i], yb += y[i];
    ub /= n, yb /= n;
    for (size_t i = 0; i < n; i++)
        sxx += (u[i] - ub) * (u[i] - ub), sxy += (u[i] - ub) * (y[i] - yb);
    long double b = sxy / sxx, a = yb - b * ub;
    for (size_t i = 0; i < n; i++)
        rr += (y[i] - a - b * u[i]) * (y[i] - a - b * u[i]);
    long double s2 = rr / (n - 2);
    out[0] = (double)a, out[1] = (double)b;
    out[2] = (double)sqrtl(s2 * (1.0L / n + ub * ub / sxx));
    out[3] = (double)sqrtl(s2 / sxx);
    out[4] = (double)sqrtl(rr / n);
    out[5] = (double)sqrtl(s2 * (1.0L / n + (at - ub) * (at - ub) / sxx));
}

/* The fit against the twin on random points, and its value at a point
 * beyond them. */
static void test_line_twin(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 5, 1));
    for (size_t n = 3; n < 40; n += 5) {
        double u[40], y[40], tw[6], ya, se;
        for (size_t i = 0; i < n; i++)
            u[i] = log(50 + 300 * gsl_rng_uniform(r)), y[i] = 9 - 1.2 * u[i] + gsl_rng_uniform(r);
        sbw_series_line l;
        SBW_ASSERT_OK(sbw_series_fit_line(u, y, n, &l));
        line_twin(u, y, n, log(56), tw);
        SBW_ASSERT_NEAR(l.intercept, tw[0], 1e-11 * fabs(tw[0]));
        SBW_ASSERT_NEAR(l.slope, tw[1], 1e-11 * fabs(tw[1]));
        SBW_ASSERT_NEAR(l.se_intercept, tw[2], 1e-9 * tw[2]);
        SBW_ASSERT_NEAR(l.se_slope, tw[3], 1e-9 * tw[3]);
        SBW_ASSERT_NEAR(l.rms, tw[4], 1e-9 * tw[4]);
        sbw_series_line_at(&l, log(56), &ya, &se);
        SBW_ASSERT_NEAR(ya, tw[0] + tw[1] * log(56), 1e-10 * fabs(ya));
        SBW_ASSERT_NEAR(se, tw[5], 1e-9 * tw[5]);
        SBW_ASSERT_GT(l.max_abs, l.rms * (1 - 1e-12)); /* the largest is at least the mean */
    }
    sbw_rng_free(r);
}

/* Points on a line give it back with zero residual; two points give no
 * error estimate; one point, a non-finite value or one abscissa fail. */
static void test_line_exact_and_errors(void **state)
{
    (void)state;
    double u[] = {1, 2, 4, 8}, y[] = {3, 5, 9, 17}, ya, se;
    sbw_series_line l;
    SBW_ASSERT_OK(sbw_series_fit_line(u, y, 4, &l));
    SBW_ASSERT_NEAR(l.slope, 2, 1e-14);
    SBW_ASSERT_NEAR(l.intercept, 1, 1e-13);
    SBW_ASSERT_LE(l.max_abs, 1e-13);
    assert_true(l.umin == 1 && l.umax == 8);
    SBW_ASSERT_OK(sbw_series_fit_line(u, y, 2, &l));
    assert_true(isnan(l.se_slope) && isnan(l.se_intercept));
    sbw_series_line_at(&l, 3, &ya, &se);
    SBW_ASSERT_NEAR(ya, 7, 1e-13);
    assert_true(isnan(se));
    double same[] = {2, 2, 2}, bad[] = {1, NAN, 3};
    assert_int_equal(sbw_series_fit_line(u, y, 1, &l), SBW_EINVAL);
    assert_int_equal(sbw_series_fit_line(same, y, 3, &l), SBW_EDATA);
    assert_int_equal(sbw_series_fit_line(u, bad, 3, &l), SBW_EDATA);
}

/* The standard error means what it says: over 2000 noisy lines of 8
 * points, the true slope lies within 2 se of the fitted one in at least
 * 85 % (Student's t with 6 degrees of freedom puts 90.8 % inside). */
static void test_line_se_covers(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 6, 2));
    size_t in = 0, trials = 2000;
    for (size_t t = 0; t < trials; t++) {
        double u[8], y[8];
        for (size_t i = 0; i < 8; i++)
            u[i] = (double)i, y[i] = 1 + 0.5 * u[i] + 0.3 * gsl_ran_gaussian(r, 1);
        sbw_series_line l;
        SBW_ASSERT_OK(sbw_series_fit_line(u, y, 8, &l));
        in += fabs(l.slope - 0.5) <= 2 * l.se_slope;
    }
    SBW_ASSERT_GE((double)in, 0.85 * (double)trials);
    SBW_ASSERT_LE((double)in, 0.97 * (double)trials);
    sbw_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_brute),  cmocka_unit_test(test_order_brute),
        cmocka_unit_test(test_against),        cmocka_unit_test(test_summary_errors),
        cmocka_unit_test(test_read),           cmocka_unit_test(test_scale),
        cmocka_unit_test(test_line_twin),      cmocka_unit_test(test_line_exact_and_errors),
        cmocka_unit_test(test_line_se_covers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
