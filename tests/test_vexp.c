/* test_vexp.c -- the inline exps of core/sbw_vexp.h against glibc: the
 * double one within 2 ulp wherever the result is at least DBL_MIN, 0 (an
 * absolute error below DBL_MIN) under it, clamped above 709, exact at 0;
 * the float one likewise against the correctly rounded float of exp().  The
 * same code runs vectorised inside the KL, compare and fit kernels, whose
 * tests hold it to their naive twins there too. */
#include "sbw_test.h"

#include "sbw_rng.h"
#include "sbw_vexp.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Distance in units in the last place between two positive doubles. */
static double ulps(double a, double b)
{
    int64_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    return fabs((double)(ia - ib));
}

/* The largest ulp distance from glibc's exp over x[0..n). */
static double worst_ulps(const double *x, size_t n, double *at)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double u = ulps(sbw_vexp(x[i]), exp(x[i]));
        if (u > worst) {
            worst = u;
            *at = x[i];
        }
    }
    return worst;
}

static void assert_within_2ulp(const double *x, size_t n)
{
    double at = 0.0, worst = worst_ulps(x, n, &at);
    if (worst > 2.0)
        fail_msg("sbw_vexp(%.17g) is %.0f ulp from exp", at, worst);
}

enum { NRAND = 1000000 };
static const double LN2 = 0x1.62e42fefa39efp-1; /* ln 2 */

static void test_random_arguments(void **state)
{
    (void)state;
    /* uniform over the normal range, and log-uniform in |x| near 0 */
    gsl_rng *rng;
    SBW_ASSERT_OK(sbw_rng_alloc(&rng, 11, 0));
    double *x = malloc(NRAND * sizeof *x);
    const double lo = -708.39, hi = 709.0;
    for (size_t i = 0; i < NRAND; i++)
        x[i] = lo + (hi - lo) * gsl_rng_uniform(rng);
    assert_within_2ulp(x, NRAND);
    for (size_t i = 0; i < NRAND; i++) {
        double mag = pow(10.0, -300.0 + 300.0 * gsl_rng_uniform(rng));
        x[i] = i % 2 ? mag : -mag;
    }
    assert_within_2ulp(x, NRAND);
    free(x);
    sbw_rng_free(rng);
}

/* Around every boundary of the argument reduction, x = (k + 1/2) ln 2, where
 * r is largest and the chosen k flips. */
static void test_reduction_boundaries(void **state)
{
    (void)state;
    double x[4 * 2046];
    size_t n = 0;
    for (int k = -1022; k < 1023; k++) {
        double b = (k + 0.5) * LN2;
        if (b > 709.0 || b < -708.39)
            continue;
        x[n++] = b;
        x[n++] = nextafter(b, -INFINITY);
        x[n++] = nextafter(b, INFINITY);
        x[n++] = k * LN2;
    }
    assert_within_2ulp(x, n);
}

static void test_special_values(void **state)
{
    (void)state;
    SBW_ASSERT_EQ(sbw_vexp(0.0), 1.0);
    SBW_ASSERT_EQ(sbw_vexp(-0.0), 1.0);
    SBW_ASSERT_LE(ulps(sbw_vexp(1.0), 0x1.5bf0a8b145769p+1), 1.0);
    /* the top of the subnormal range still comes out (k = -1022) */
    double x = -708.5;
    SBW_ASSERT_ABS_LE(sbw_vexp(x) - exp(x), 2 * 0x1p-1074 + 2 * DBL_EPSILON * exp(x));
    /* below: 0, never further than DBL_MIN from the truth */
    /* the sample points are the accumulated steps themselves: a float
     * counter is intended */
    // NOLINTNEXTLINE(clang-analyzer-security.FloatLoopCounter)
    for (double y = -708.8; y > -760.0; y -= 0.37) {
        double v = sbw_vexp(y);
        SBW_ASSERT_GE(v, 0.0);
        SBW_ASSERT_ABS_LT(v - exp(y), DBL_MIN);
    }
    const double under[] = {-746.0, -1e4, -1e300, -DBL_MAX, -INFINITY};
    for (size_t i = 0; i < sizeof under / sizeof *under; i++)
        SBW_ASSERT_EQ(sbw_vexp(under[i]), 0.0);
    /* above 709: exp(709), finite */
    const double over[] = {709.0, 709.5, 1e4, DBL_MAX, INFINITY};
    for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
        assert_true(isfinite(sbw_vexp(over[i])));
        SBW_ASSERT_LE(ulps(sbw_vexp(over[i]), exp(709.0)), 2.0);
    }
}

/* Distance in float ulps between two positive floats. */
static double ulps_f(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    return fabs((double)ia - (double)ib);
}

static void assert_f_within_2ulp(float x)
{
    float want = (float)exp((double)x), got = sbw_vexpf(x);
    if (ulps_f(got, want) > 2.0)
        fail_msg("sbw_vexpf(%.9g) = %.9g is %.0f ulp from %.9g", (double)x, (double)got,
                 ulps_f(got, want), (double)want);
}

static void test_float_version(void **state)
{
    (void)state;
    gsl_rng *rng;
    SBW_ASSERT_OK(sbw_rng_alloc(&rng, 12, 0));
    for (size_t i = 0; i < NRAND; i++) /* exp(x) >= FLT_MIN up to the clamp */
        assert_f_within_2ulp((float)(-87.3 + (88.0 + 87.3) * gsl_rng_uniform(rng)));
    for (size_t i = 0; i < NRAND; i++) {
        float mag = (float)pow(10.0, -40.0 + 40.0 * gsl_rng_uniform(rng));
        assert_f_within_2ulp(i % 2 ? mag : -mag);
    }
    for (int k = -125; k < 127; k++) { /* the reduction boundaries */
        float b = (float)((k + 0.5) * LN2);
        if (b > -87.3f && b < 88.0f) {
            assert_f_within_2ulp(b);
            assert_f_within_2ulp(nextafterf(b, -INFINITY));
            assert_f_within_2ulp(nextafterf(b, INFINITY));
        }
    }
    SBW_ASSERT_EQ(sbw_vexpf(0.0f), 1.0f);
    /* flushed: 0, or near the truth (a float counter, as above) */
    // NOLINTNEXTLINE(clang-analyzer-security.FloatLoopCounter)
    for (float y = -87.4f; y > -120.0f; y -= 0.37f) {
        float v = sbw_vexpf(y);
        SBW_ASSERT_GE(v, 0.0f);
        SBW_ASSERT_ABS_LT((double)v - exp((double)y), FLT_MIN);
    }
    const float under[] = {-104.0f, -1e4f, -FLT_MAX, -INFINITY};
    for (size_t i = 0; i < sizeof under / sizeof *under; i++)
        SBW_ASSERT_EQ(sbw_vexpf(under[i]), 0.0f);
    const float over[] = {88.0f, 88.5f, 1e4f, FLT_MAX, INFINITY};
    for (size_t i = 0; i < sizeof over / sizeof *over; i++)
        SBW_ASSERT_LE(ulps_f(sbw_vexpf(over[i]), (float)exp(88.0)), 2.0);
    sbw_rng_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_arguments),
        cmocka_unit_test(test_reduction_boundaries),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_float_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
