/* test_num.c -- row numerics: the fast kernels (sbw_kern, built with
 * -ffast-math) against their naive twins (sbw_num), identities, and the
 * IEEE corner cases the naive twins must get right. */
#include "sbw_test.h"

#include "sbw_kern.h"
#include "sbw_num.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Deterministic pseudo-random values in [-1, 1) (LCG; no RNG dependency). */
static double uniform(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static void fill(double *x, size_t n, double scale, unsigned long long seed)
{
    for (size_t j = 0; j < n; j++)
        x[j] = scale * uniform(&seed);
}

static double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t j = 0; j < n; j++)
        m = fmax(m, fabs(x[j]));
    return m;
}

static const size_t lengths[] = {1, 2, 3, 7, 33, 1001, 4099};
static const double scales[] = {1e-3, 1.0, 30.0, 700.0, 1e4};

/* logsumexp: kernel vs twin within a few eps times the magnitudes. */
static void test_logsumexp_kernel_vs_twin(void **state)
{
    (void)state;
    double *x = malloc(4099 * sizeof *x);
    for (size_t a = 0; a < sizeof lengths / sizeof *lengths; a++)
        for (size_t b = 0; b < sizeof scales / sizeof *scales; b++) {
            size_t n = lengths[a];
            fill(x, n, scales[b], 17 + a * 5 + b);
            double want = sbw_num_logsumexp(x, n);
            double tol = 8 * DBL_EPSILON * (max_abs(x, n) + log((double)n) + 1);
            SBW_ASSERT_NEAR(sbw_kern_logsumexp(x, n), want, tol);
        }
    free(x);
}

/* Closed forms: lse(c,...,c) = c + log n, even where exp(c) overflows. */
static void test_logsumexp_closed_forms(void **state)
{
    (void)state;
    const double cs[] = {0.0, 1000.0, -1000.0, 1e300, -745.5};
    double x[9];
    for (size_t k = 0; k < 5; k++)
        for (size_t n = 1; n <= 9; n += 4) {
            for (size_t j = 0; j < n; j++)
                x[j] = cs[k];
            double want = cs[k] + log((double)n);
            double tol = 4 * DBL_EPSILON * fabs(want) + 4 * DBL_EPSILON;
            SBW_ASSERT_NEAR(sbw_num_logsumexp(x, n), want, tol);
            SBW_ASSERT_NEAR(sbw_kern_logsumexp(x, n), want, tol);
        }
}

/* The twin's IEEE cases: -inf entries, all -inf, +inf, NaN, empty. */
static void test_twin_ieee_cases(void **state)
{
    (void)state;
    double a[3] = {-INFINITY, 0.0, -INFINITY};
    SBW_ASSERT_EQ(sbw_num_logsumexp(a, 3), 0.0);
    double b[2] = {-INFINITY, -INFINITY};
    SBW_ASSERT_EQ(sbw_num_logsumexp(b, 2), -INFINITY);
    double c[2] = {1.0, INFINITY};
    SBW_ASSERT_EQ(sbw_num_logsumexp(c, 2), INFINITY);
    double d[3] = {1.0, NAN, INFINITY};
    assert_true(isnan(sbw_num_logsumexp(d, 3)));
    SBW_ASSERT_EQ(sbw_num_logsumexp(a, 0), -INFINITY);
    SBW_ASSERT_EQ(sbw_num_entropy(a, 0), 0.0);
    /* zero probabilities contribute nothing */
    double lp[3] = {log(0.25), -INFINITY, log(0.75)};
    double want = -(0.25 * log(0.25) + 0.75 * log(0.75));
    SBW_ASSERT_NEAR(sbw_num_entropy(lp, 3), want, 4 * DBL_EPSILON);
    double lq[3] = {log(0.5), log(0.25), log(0.25)};
    SBW_ASSERT_NEAR(sbw_num_kl(lp, lq, 3), 0.25 * log(0.5) + 0.75 * log(3.0), 8 * DBL_EPSILON);
}

static void test_softmax_rows_vs_twin(void **state)
{
    (void)state;
    const size_t rows = 13, cols = 37, ld = 41;
    double *a = malloc(rows * ld * sizeof *a), *y = malloc(rows * ld * sizeof *y);
    double *want = malloc(cols * sizeof *want), *lse = malloc(rows * sizeof *lse);
    fill(a, rows * ld, 50.0, 99);
    sbw_kern_log_softmax_rows(a, rows, cols, ld, y, ld);
    sbw_kern_logsumexp_rows(a, rows, cols, ld, lse);
    for (size_t i = 0; i < rows; i++) {
        sbw_num_log_softmax(a + i * ld, want, cols);
        double tol = 8 * DBL_EPSILON * (max_abs(a + i * ld, cols) + log((double)cols));
        SBW_ASSERT_CLOSE(y + i * ld, want, cols, tol, 0.0);
        SBW_ASSERT_NEAR(lse[i], sbw_num_logsumexp(a + i * ld, cols), tol);
        /* a normalised row has logsumexp 0 */
        SBW_ASSERT_NEAR(sbw_num_logsumexp(y + i * ld, cols), 0.0, tol);
    }
    sbw_kern_softmax_rows(a, rows, cols, ld, y, ld);
    for (size_t i = 0; i < rows; i++) {
        sbw_num_softmax(a + i * ld, want, cols);
        SBW_ASSERT_CLOSE(y + i * ld, want, cols, 0.0, 16 * DBL_EPSILON * 50);
        double s = 0;
        for (size_t j = 0; j < cols; j++)
            s += y[i * ld + j];
        SBW_ASSERT_NEAR(s, 1.0, 4 * (double)cols * DBL_EPSILON);
    }
    /* in place (y aliases a) */
    sbw_kern_log_softmax_rows(a, rows, cols, ld, a, ld);
    for (size_t i = 0; i < rows; i++)
        SBW_ASSERT_NEAR(sbw_num_logsumexp(a + i * ld, cols), 0.0, 1e3 * DBL_EPSILON);
    free(a);
    free(y);
    free(want);
    free(lse);
}

/* Logits around +-1000, where an unshifted exp overflows (e^1000) or
 * underflows to 0 (e^-1000, so log 0): row i is base_i + off_i[j % 4], and
 * the exact logsumexp is base_i + log sum_j exp(off_ij), the offsets in
 * [-3, 0] or so far below (-1000, -2000) that their terms are 0 to well
 * under eps.  Errors scale with the logits: eps |base| for every output. */
static void test_softmax_large_logits(void **state)
{
    (void)state;
    enum { R = 6, C = 11, LD = 13 };
    const double base[R] = {1000, -1000, 1000, 1001, -999, 1000};
    const double off[R][4] = {
        {0, 0, 0, 0},             /* all equal: p = 1/C */
        {0, 0, 0, 0},             /* all equal, exp(-1000) = 0 unshifted */
        {0, -2000, -1, -1},       /* mixed [1000, -1000, 999, 999] */
        {0, -1, -2, -3},          /* [1001, 1000, 999, 998] */
        {0, -1, -2, -1.5},        /* [-999, -1000, -1001, -1000.5] */
        {0, -1000, -2000, -2000}, /* [1000, 0, -1000, -1000]: p = (1, 0, 0, 0) */
    };
    double a[R * LD], y[R * LD], lse[R], got[C];
    double want[R], want_l[R][C], want_p[R][C], tol[R];
    for (size_t i = 0; i < R; i++) {
        double sum = 0; /* exact terms: exp of small offsets, or 0 */
        for (size_t j = 0; j < C; j++) {
            a[i * LD + j] = base[i] + off[i][j % 4];
            sum += exp(off[i][j % 4]);
        }
        want[i] = base[i] + log(sum);
        for (size_t j = 0; j < C; j++) {
            want_l[i][j] = off[i][j % 4] - log(sum);
            want_p[i][j] = exp(off[i][j % 4]) / sum;
        }
        tol[i] = 4 * DBL_EPSILON * (fabs(base[i]) + 1);
    }
    for (size_t i = 0; i < R; i++) {
        const double *x = a + i * LD;
        SBW_ASSERT_NEAR(sbw_num_logsumexp(x, C), want[i], tol[i]);
        SBW_ASSERT_NEAR(sbw_kern_logsumexp(x, C), want[i], tol[i]);
        sbw_num_log_softmax(x, got, C);
        SBW_ASSERT_CLOSE(got, want_l[i], C, tol[i], 0.0);
        /* a relative error eps |base| in the exponent: rtol eps |base| */
        sbw_num_softmax(x, got, C);
        SBW_ASSERT_CLOSE(got, want_p[i], C, 0.0, tol[i]);
    }
    sbw_kern_logsumexp_rows(a, R, C, LD, lse);
    sbw_kern_log_softmax_rows(a, R, C, LD, y, LD);
    for (size_t i = 0; i < R; i++) {
        SBW_ASSERT_NEAR(lse[i], want[i], tol[i]);
        SBW_ASSERT_CLOSE(y + i * LD, want_l[i], C, tol[i], 0.0);
    }
    sbw_kern_softmax_rows(a, R, C, LD, y, LD);
    for (size_t i = 0; i < R; i++)
        SBW_ASSERT_CLOSE(y + i * LD, want_p[i], C, 0.0, tol[i]);
}

/* A random log-probability row of length n at logit scale s. */
static void random_logp(double *lp, size_t n, double s, unsigned long long seed)
{
    fill(lp, n, s, seed);
    sbw_num_log_softmax(lp, lp, n);
}

static void test_divergences_vs_twin_and_identities(void **state)
{
    (void)state;
    double *p = malloc(4099 * sizeof *p), *q = malloc(4099 * sizeof *q);
    for (size_t a = 0; a < sizeof lengths / sizeof *lengths; a++)
        for (size_t b = 0; b < 4; b++) {
            size_t n = lengths[a];
            random_logp(p, n, scales[b], 3 + a + 7 * b);
            random_logp(q, n, scales[b], 5 + a + 11 * b);
            double mag = max_abs(p, n) + max_abs(q, n) + 1;
            double tol = 16 * DBL_EPSILON * mag;
            double h = sbw_num_entropy(p, n), kl = sbw_num_kl(p, q, n);
            double ce = sbw_num_cross_entropy(p, q, n);
            SBW_ASSERT_NEAR(sbw_kern_entropy(p, n), h, tol);
            SBW_ASSERT_NEAR(sbw_kern_kl(p, q, n), kl, tol);
            SBW_ASSERT_NEAR(sbw_kern_cross_entropy(p, q, n), ce, tol);
            SBW_ASSERT_NEAR(ce, h + kl, tol);       /* H(p,q) = H(p) + KL */
            SBW_ASSERT_GE(kl, -tol);                /* Gibbs */
            SBW_ASSERT_LE(h, log((double)n) + tol); /* max entropy */
            SBW_ASSERT_ABS_LE(sbw_kern_kl(p, p, n), tol);
        }
    free(p);
    free(q);
}

static void test_uniform_entropy(void **state)
{
    (void)state;
    double x[1000];
    for (size_t n = 1; n <= 1000; n *= 10) {
        for (size_t j = 0; j < n; j++)
            x[j] = -log((double)n);
        SBW_ASSERT_NEAR(sbw_num_entropy(x, n), log((double)n), 8 * DBL_EPSILON * (double)n);
        SBW_ASSERT_NEAR(sbw_kern_entropy(x, n), log((double)n), 8 * DBL_EPSILON * (double)n);
    }
}

static void test_count_nonfinite(void **state)
{
    (void)state;
    double x[7] = {1, 2, NAN, -INFINITY, 5, INFINITY, NAN};
    size_t nan, pos, neg, first;
    sbw_num_count_nonfinite(x, 7, &nan, &pos, &neg, &first);
    assert_int_equal(nan, 2);
    assert_int_equal(pos, 1);
    assert_int_equal(neg, 1);
    assert_int_equal(first, 2);
    sbw_num_count_nonfinite(x, 2, NULL, NULL, NULL, &first);
    assert_int_equal(first, 2); /* none: first == n */
}

/* sbw_kern_sum_exp_shift against a brute-force sum in long double, within
 * a few eps of the sum (every term is in (0, e^(2*scale)]). */
static void test_sum_exp_shift_vs_naive(void **state)
{
    (void)state;
    double x[4099];
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++)
        for (size_t si = 0; si < 3; si++) {
            size_t n = lengths[li];
            fill(x, n, scales[si], 7 + li);
            double shift = sbw_kern_max(x, n);
            long double want = 0;
            for (size_t j = 0; j < n; j++)
                want += expl((long double)x[j] - (long double)shift);
            double got = sbw_kern_sum_exp_shift(x, n, shift);
            SBW_ASSERT_ABS_LE(got - (double)want, 8 * (double)n * DBL_EPSILON * (double)want);
        }
}

/* The shared size helpers. */
static void test_min_max_sz(void **state)
{
    (void)state;
    SBW_ASSERT_EQ(sbw_num_min_sz(3, 5), 3);
    SBW_ASSERT_EQ(sbw_num_min_sz(5, 3), 3);
    SBW_ASSERT_EQ(sbw_num_max_sz(3, 5), 5);
    SBW_ASSERT_EQ(sbw_num_min_sz(0, SIZE_MAX), 0);
    SBW_ASSERT_EQ(sbw_num_max_sz(SIZE_MAX, 1), SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_logsumexp_kernel_vs_twin),
        cmocka_unit_test(test_logsumexp_closed_forms),
        cmocka_unit_test(test_twin_ieee_cases),
        cmocka_unit_test(test_softmax_rows_vs_twin),
        cmocka_unit_test(test_softmax_large_logits),
        cmocka_unit_test(test_divergences_vs_twin_and_identities),
        cmocka_unit_test(test_uniform_entropy),
        cmocka_unit_test(test_count_nonfinite),
        cmocka_unit_test(test_sum_exp_shift_vs_naive),
        cmocka_unit_test(test_min_max_sz),
    };
    return cmocka_run_group_tests_name("num", tests, NULL, NULL);
}
