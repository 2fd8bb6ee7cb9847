/* test_vexp.c -- the inline exp of core/sbw_vexp.h against glibc's exp:
 * within 2 ulp wherever the result is at least DBL_MIN, 0 (an absolute
 * error below DBL_MIN) under it, clamped above 709, exact at 0.  The same
 * code runs vectorised inside the KL kernels; tests/test_kl.c checks it
 * there too. */
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
    assert_true(sbw_vexp(0.0) == 1.0);
    assert_true(sbw_vexp(-0.0) == 1.0);
    assert_true(ulps(sbw_vexp(1.0), 0x1.5bf0a8b145769p+1) <= 1.0);
    /* the top of the subnormal range still comes out (k = -1022) */
    double x = -708.5;
    assert_true(fabs(sbw_vexp(x) - exp(x)) <= 2 * 0x1p-1074 + 2 * DBL_EPSILON * exp(x));
    /* below: 0, never further than DBL_MIN from the truth */
    for (double y = -708.8; y > -760.0; y -= 0.37) {
        double v = sbw_vexp(y);
        assert_true(v >= 0.0);
        assert_true(fabs(v - exp(y)) < DBL_MIN);
    }
    const double under[] = {-746.0, -1e4, -1e300, -DBL_MAX, -INFINITY};
    for (size_t i = 0; i < sizeof under / sizeof *under; i++)
        assert_true(sbw_vexp(under[i]) == 0.0);
    /* above 709: exp(709), finite */
    const double over[] = {709.0, 709.5, 1e4, DBL_MAX, INFINITY};
    for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
        assert_true(isfinite(sbw_vexp(over[i])));
        assert_true(ulps(sbw_vexp(over[i]), exp(709.0)) <= 2.0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_arguments),
        cmocka_unit_test(test_reduction_boundaries),
        cmocka_unit_test(test_special_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
