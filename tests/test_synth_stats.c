/* test_synth_stats.c -- the laws of the Dirichlet sampler under fixed seeds:
 * finiteness and normalisation over the alpha x M grid, per-coordinate
 * moments of p_i and of log p_i, and a Kolmogorov-Smirnov test of the
 * marginal log p_i against log Beta(alpha, (M-1) alpha) evaluated in log
 * space.  Each statistical test has a stated bound (5 standard errors, or
 * a KS p-value >= 1e-3), and a negative control shows the same test
 * rejecting a wrong sampler (lgamma(alpha+1) in place of a Gamma(alpha+1)
 * draw). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_synth.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double EPS = DBL_EPSILON;
static const double NSIGMA = 5.0;   /* bound for moment tests, in standard errors */
static const double KS_PMIN = 1e-3; /* bound for KS p-values */

static double lse_accurate(const double *x, size_t n)
{
    long double mx = -INFINITY, s = 0;
    for (size_t j = 0; j < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    for (size_t j = 0; j < n; j++)
        s += expl((long double)x[j] - mx);
    return (double)(mx + logl(s));
}

static sbw_mat dirichlet(size_t n, size_t m, double alpha, uint64_t seed)
{
    sbw_mat a;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_synth_dirichlet(&a, alpha, seed));
    return a;
}

/* The wrong sampler of the negative controls: log G = lgamma(alpha + 1) +
 * log(U)/alpha (a constant where a Gamma(alpha + 1) draw belongs). */
static sbw_mat wrong_dirichlet(size_t n, size_t m, double alpha, uint64_t seed)
{
    sbw_mat a;
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 0));
    for (size_t i = 0; i < n; i++) {
        double *x = a.data + i * m;
        for (size_t j = 0; j < m; j++)
            x[j] = lgamma(alpha + 1) + log(gsl_rng_uniform_pos(r)) / alpha;
        double l = lse_accurate(x, m);
        for (size_t j = 0; j < m; j++)
            x[j] -= l;
    }
    sbw_rng_free(r);
    return a;
}

/* ---- finiteness and normalisation ----------------------------------------- */

static void test_finite_and_normalised(void **state)
{
    (void)state;
    const double alphas[] = {1e-4, 1e-3, 0.01, 0.1, 0.5, 1, 10, 100};
    const size_t ms[] = {2, 10, 1000, 100000}, ns[] = {2000, 500, 20, 3};
    double worst = 0;
    for (size_t a = 0; a < 8; a++)
        for (size_t b = 0; b < 4; b++) {
            sbw_mat x = dirichlet(ns[b], ms[b], alphas[a], 1000 + a);
            for (size_t i = 0; i < x.rows; i++) {
                const double *row = x.data + i * x.ld;
                double big = 0;
                for (size_t j = 0; j < x.cols; j++) {
                    if (!isfinite(row[j]) || row[j] > 0)
                        fail_msg("alpha %g, M %zu: row %zu col %zu = %g", alphas[a], ms[b], i, j,
                                 row[j]);
                    big = fabs(row[j]) > big ? fabs(row[j]) : big;
                }
                /* |logsumexp| <= 4 eps max(1, max_j |log p_j|) */
                double lse = fabs(lse_accurate(row, x.cols)), tol = 4 * EPS * fmax(1, big);
                if (!(lse <= tol))
                    fail_msg("alpha %g, M %zu, row %zu: |logsumexp| = %.3g > %.3g", alphas[a],
                             ms[b], i, lse, tol);
                worst = fmax(worst, lse / tol);
            }
            sbw_mat_free(&x);
        }
    print_message("largest |logsumexp| / bound over the grid: %.3f\n", worst);
}

/* ---- moments per coordinate ------------------------------------------------- */

/* Raw moments E[p^k], k = 1..4, of Beta(a, b). */
static void beta_raw_moments(double a, double b, double mom[5])
{
    mom[0] = 1;
    for (int k = 1; k <= 4; k++)
        mom[k] = mom[k - 1] * (a + k - 1) / (a + b + k - 1);
}

/* Sample mean and variance of column j of p = exp(log p). */
static void column_moments(const sbw_mat *x, size_t j, bool exp_it, double *mean, double *var)
{
    double s = 0, s2 = 0;
    size_t n = x->rows;
    for (size_t i = 0; i < n; i++) {
        double v = exp_it ? exp(SBW_MAT_AT(x, i, j)) : SBW_MAT_AT(x, i, j);
        s += v;
    }
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++) {
        double v = (exp_it ? exp(SBW_MAT_AT(x, i, j)) : SBW_MAT_AT(x, i, j)) - *mean;
        s2 += v * v;
    }
    *var = s2 / (double)(n - 1);
}

/* E[p_i] = 1/M and Var[p_i] = (M-1)/(M^2 (M alpha + 1)) per coordinate,
 * each within NSIGMA standard errors (the variance's from the exact fourth
 * central moment of Beta(alpha, (M-1) alpha)). */
static void check_moments(size_t m, double alpha, size_t n, uint64_t seed)
{
    sbw_mat x = dirichlet(n, m, alpha, seed);
    double mom[5], md = (double)m;
    beta_raw_moments(alpha, (md - 1) * alpha, mom);
    double mu = 1 / md, var = (md - 1) / (md * md * (md * alpha + 1));
    double mu4 = mom[4] - 4 * mu * mom[3] + 6 * mu * mu * mom[2] - 3 * mu * mu * mu * mu;
    SBW_ASSERT_NEAR(mom[2] - mu * mu, var, 1e-14); /* the formula itself */
    for (size_t j = 0; j < m; j++) {
        double mean, v;
        column_moments(&x, j, true, &mean, &v);
        SBW_ASSERT_NEAR(mean, mu, NSIGMA * sqrt(var / (double)n));
        SBW_ASSERT_NEAR(v, var, NSIGMA * sqrt((mu4 - var * var) / (double)n));
    }
    sbw_mat_free(&x);
}

static void test_moments_per_coordinate(void **state)
{
    (void)state;
    const double alphas[] = {0.01, 0.1, 1, 10};
    for (size_t a = 0; a < 4; a++) {
        check_moments(5, alphas[a], 40000, 2000 + a);
        check_moments(50, alphas[a], 10000, 3000 + a);
    }
}

/* E[log p_i] = psi(alpha) - psi(M alpha) and Var[log p_i] = psi1(alpha) -
 * psi1(M alpha) per coordinate (log of a Beta(alpha, (M-1) alpha) variable),
 * each within NSIGMA standard errors (the variance's from the fourth
 * cumulant psi3(alpha) - psi3(M alpha)).  Returns the largest |z| seen. */
static double log_moments_z(const sbw_mat *x, double alpha)
{
    double m = (double)x->cols, n = (double)x->rows;
    double mu = gsl_sf_psi(alpha) - gsl_sf_psi(m * alpha);
    double k2 = gsl_sf_psi_1(alpha) - gsl_sf_psi_1(m * alpha);
    double k4 = gsl_sf_psi_n(3, alpha) - gsl_sf_psi_n(3, m * alpha);
    double zmax = 0;
    for (size_t j = 0; j < x->cols; j++) {
        double mean, v;
        column_moments(x, j, false, &mean, &v);
        double z1 = (mean - mu) / sqrt(k2 / n), z2 = (v - k2) / sqrt((k4 + 2 * k2 * k2) / n);
        zmax = fmax(zmax, fmax(fabs(z1), fabs(z2)));
    }
    return zmax;
}

static void test_log_moments_digamma(void **state)
{
    (void)state;
    const double alphas[] = {1e-3, 0.1, 0.5};
    for (size_t a = 0; a < 3; a++) {
        sbw_mat x = dirichlet(20000, 10, alphas[a], 4000 + a);
        double z = log_moments_z(&x, alphas[a]);
        print_message("alpha %g: largest |z| of mean and variance of log p_i: %.2f\n", alphas[a],
                      z);
        assert_true(z <= NSIGMA);
        sbw_mat_free(&x);
    }
    /* negative control: the lgamma sampler is rejected at alpha = 0.5 */
    sbw_mat w = wrong_dirichlet(20000, 10, 0.5, 4100);
    double z = log_moments_z(&w, 0.5);
    print_message("wrong sampler, alpha 0.5: largest |z| %.1f (must exceed %.0f)\n", z, NSIGMA);
    assert_true(z > NSIGMA);
    sbw_mat_free(&w);
}

/* ---- Kolmogorov-Smirnov against the exact marginal ------------------------ */

/* P(log p <= y) for p ~ Beta(a, b), evaluated in log space: for x = e^y
 * below 1e-30 (where e^y may underflow), I_x(a, b) = x^a / (a B(a, b)) *
 * (1 + O(x)) gives exp(a y - log a - log B(a, b)); near 1, the upper tail
 * I_{1-x}(b, a) with 1 - x = -expm1(y); between, GSL's regularised
 * incomplete beta. */
static double log_beta_cdf(double y, double a, double b)
{
    if (y > -0.6931)
        return gsl_cdf_beta_Q(-expm1(y), b, a);
    if (y > -69.0)
        return gsl_cdf_beta_P(exp(y), a, b);
    return exp(a * y - log(a) - gsl_sf_lnbeta(a, b));
}

/* Kolmogorov's Q_KS(lambda) = 2 sum_k (-1)^(k-1) exp(-2 k^2 lambda^2)
 * (Numerical Recipes 2nd ed., probks). */
static double q_ks(double lambda)
{
    double fac = 2, sum = 0, prev = 0, a2 = -2 * lambda * lambda;
    for (int k = 1; k <= 100; k++) {
        double term = fac * exp(a2 * k * k);
        sum += term;
        if (fabs(term) <= 1e-3 * prev || fabs(term) <= 1e-8 * sum)
            return sum;
        fac = -fac;
        prev = fabs(term);
    }
    return 1.0;
}

/* KS p-value of column j of x against log Beta(alpha, (M-1) alpha).  A
 * computed log p stands for the true values within its rounding, r =
 * 2 eps max(1, |y|), so the law is evaluated at y + r for the empirical CDF
 * after a sample and at y - r before it.  This matters only where the law
 * puts visible mass inside one rounding interval: at alpha = 1e-4 and M = 10,
 * about 10% of p_0 lies within 1e-16 of 1 and is stored as log p = 0. */
static double ks_pvalue(const sbw_mat *x, size_t j, double alpha)
{
    size_t n = x->rows;
    double *y = malloc(n * sizeof *y), a = alpha, b = ((double)x->cols - 1) * alpha, d = 0;
    for (size_t i = 0; i < n; i++)
        y[i] = SBW_MAT_AT(x, i, j);
    gsl_sort(y, 1, n);
    for (size_t i = 0; i < n; i++) {
        double r = 2 * EPS * fmax(1, fabs(y[i]));
        double hi = log_beta_cdf(y[i] + r, a, b), lo = log_beta_cdf(y[i] - r, a, b);
        d = fmax(d, fmax((double)(i + 1) / (double)n - hi, lo - (double)i / (double)n));
    }
    free(y);
    double sn = sqrt((double)n);
    return q_ks((sn + 0.12 + 0.11 / sn) * d);
}

/* The branches of the log-space CDF agree where they meet. */
static void test_log_beta_cdf_branches(void **state)
{
    (void)state;
    const double as[] = {1e-4, 0.01, 0.5, 3};
    for (size_t i = 0; i < 4; i++) {
        double a = as[i], b = 9 * a, y = -69.0;
        double mid = gsl_cdf_beta_P(exp(y), a, b);
        double series = exp(a * y - log(a) - gsl_sf_lnbeta(a, b));
        SBW_ASSERT_NEAR(series, mid, 1e-9 * mid);
        y = -0.6931;
        SBW_ASSERT_NEAR(gsl_cdf_beta_Q(-expm1(y), b, a), gsl_cdf_beta_P(exp(y), a, b), 1e-12);
    }
}

static void test_ks_marginal(void **state)
{
    (void)state;
    const double alphas[] = {1e-4, 1e-3, 0.01, 0.1, 0.5, 1, 10};
    for (size_t a = 0; a < 7; a++) {
        sbw_mat x = dirichlet(20000, 10, alphas[a], 5000 + a);
        double p0 = ks_pvalue(&x, 0, alphas[a]), p9 = ks_pvalue(&x, 9, alphas[a]);
        print_message("alpha %g, M 10: KS p-values %.3f (word 0), %.3f (word 9)\n", alphas[a], p0,
                      p9);
        assert_true(p0 >= KS_PMIN && p9 >= KS_PMIN);
        sbw_mat_free(&x);
    }
    sbw_mat x = dirichlet(5000, 1000, 0.01, 5100);
    double p = ks_pvalue(&x, 0, 0.01);
    print_message("alpha 0.01, M 1000: KS p-value %.3f\n", p);
    assert_true(p >= KS_PMIN);
    sbw_mat_free(&x);
    /* negative control: the lgamma sampler is rejected */
    sbw_mat w = wrong_dirichlet(20000, 10, 0.5, 5200);
    p = ks_pvalue(&w, 0, 0.5);
    print_message("wrong sampler, alpha 0.5: KS p-value %.3g (must be < 1e-6)\n", p);
    assert_true(p < 1e-6);
    sbw_mat_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finite_and_normalised), cmocka_unit_test(test_moments_per_coordinate),
        cmocka_unit_test(test_log_moments_digamma),   cmocka_unit_test(test_log_beta_cdf_branches),
        cmocka_unit_test(test_ks_marginal),
    };
    sbw_error_gsl_quiet();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
