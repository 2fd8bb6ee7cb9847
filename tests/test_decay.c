/* test_decay.c -- sbw-rank --decay (analysis/sbw_decay): sigma_i ~ C
 * i^-alpha fitted in log-log.  Against a brute-force fit here (the normal
 * equations summed in long double, the standard error from its residuals),
 * on exact power laws (alpha recovered to roundoff), on power laws with
 * independent log-normal noise (alpha within its standard error: the
 * interval +-1.96 se covers the truth in about 95% of 400 draws), and
 * through the whole reading: a matrix whose singular values are a power
 * law (a diagonal matrix, written and read back). */
#include "sbw_decay.h"
#include "sbw_spectra.h"
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>

/* The OLS fit of ln s_i on ln i over [lo, hi], brute force. */
static void brute_fit(const double *s, size_t lo, size_t hi, double *alpha, double *se)
{
    long double n = (long double)(hi - lo + 1), sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = lo; i <= hi; i++) {
        long double x = logl((long double)i), y = logl((long double)s[i - 1]);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    long double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n, ssr = 0;
    for (size_t i = lo; i <= hi; i++) {
        long double r = logl((long double)s[i - 1]) - a - b * logl((long double)i);
        ssr += r * r;
    }
    *alpha = (double)-b;
    *se = (double)sqrtl(ssr / (n - 2) / (sxx - sx * sx / n));
}

static void test_parse(void **state)
{
    (void)state;
    size_t lo = 7, hi = 7;
    SBW_ASSERT_OK(sbw_decay_parse("2:40", &lo, &hi));
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 40);
    SBW_ASSERT_OK(sbw_decay_parse(":40", &lo, &hi));
    assert_int_equal(lo, 0);
    SBW_ASSERT_OK(sbw_decay_parse("5:", &lo, &hi));
    assert_int_equal(hi, 0);
    SBW_ASSERT_OK(sbw_decay_parse("auto", &lo, &hi));
    assert_int_equal(lo + hi, 0);
    const char *bad[] = {"", "3", "0:5", "5:6", "a:9", "3:9x", "-1:5", "3::9"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(sbw_decay_parse(bad[i], &lo, &hi), SBW_EINVAL);
}

/* Exact power laws: alpha to roundoff, se about 0; errors named. */
static void test_exact(void **state)
{
    (void)state;
    double s[200];
    sbw_decay d;
    const double alphas[] = {0.3, 1.0, 2.5};
    for (size_t a = 0; a < 3; a++) {
        for (size_t i = 0; i < 200; i++)
            s[i] = 7.0 * pow((double)(i + 1), -alphas[a]);
        SBW_ASSERT_OK(sbw_decay_fit(s, 200, 3, 150, &d));
        SBW_ASSERT_NEAR(d.alpha, alphas[a], 1e-12);
        SBW_ASSERT_ABS_LE(d.alpha_se, 1e-12);
        SBW_ASSERT_NEAR(d.log_c, log(7.0), 1e-10);
        assert_int_equal(d.points, 148);
    }
    s[10] = 0;
    assert_int_equal(sbw_decay_fit(s, 200, 1, 20, &d), SBW_EDATA);
    SBW_ASSERT_OK(sbw_decay_fit(s, 200, 12, 20, &d));
    assert_int_equal(sbw_decay_fit(s, 200, 1, 201, &d), SBW_EINVAL);
    assert_int_equal(sbw_decay_fit(s, 200, 5, 6, &d), SBW_EINVAL);
}

/* Noisy power laws: the module's alpha and se equal the brute-force fit's,
 * and +-1.96 se covers the true alpha in 90-98% of 400 draws (the OLS
 * interval is exact for independent Gaussian log-residuals; t(58) puts
 * the coverage at 94.5%). */
static void test_noisy_coverage(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 2025, 0));
    const size_t k = 80, lo = 11, hi = 70;
    double s[80];
    int covered = 0, trials = 400;
    for (int t = 0; t < trials; t++) {
        double alpha = 0.5 + 1.5 * gsl_rng_uniform(r), tau = 0.05 + 0.2 * gsl_rng_uniform(r);
        for (size_t i = 0; i < k; i++)
            s[i] = 3.0 * pow((double)(i + 1), -alpha) * exp(gsl_ran_gaussian(r, tau));
        sbw_decay d;
        double ba, bse;
        SBW_ASSERT_OK(sbw_decay_fit(s, k, lo, hi, &d));
        brute_fit(s, lo, hi, &ba, &bse);
        SBW_ASSERT_NEAR(d.alpha, ba, 1e-10);
        SBW_ASSERT_NEAR(d.alpha_se, bse, 1e-10 * bse + 1e-14);
        covered += fabs(d.alpha - alpha) <= 1.96 * d.alpha_se;
    }
    print_message("coverage %d / %d\n", covered, trials);
    assert_true(covered >= 360 && covered <= 392);
    gsl_rng_free(r);
}

/* Through the reading: a 120 x 90 matrix with sigma_i = 5 i^-1.3 on its
 * diagonal, written as float64 and decomposed: alpha to 1e-9. */
static void test_through_spectra(void **state)
{
    (void)state;
    sbw_mat a = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 120, 90));
    for (size_t i = 0; i < 90; i++)
        a.data[i * 90 + (i * 7) % 90] = 5.0 * pow((double)(i + 1), -1.3); /* a permutation */
    const char *path = sbw_test_path("decay.npy");
    sbw_npy_reader *rd = NULL;
    sbw_spectra sp;
    sbw_reduce_opts o = {0};
    sbw_decay d;
    SBW_ASSERT_OK(sbw_npy_save(path, &a, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_open(&rd, path));
    SBW_ASSERT_OK(sbw_spectra_compute(rd, &o, 1u << SBW_VAR_PLAIN, &sp));
    SBW_ASSERT_OK(sbw_decay_fit(sp.s[SBW_VAR_PLAIN], sp.k, 1, 90, &d));
    SBW_ASSERT_NEAR(d.alpha, 1.3, 1e-9);
    sbw_spectra_free(&sp);
    sbw_npy_close(rd);
    sbw_mat_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_noisy_coverage),
        cmocka_unit_test(test_through_spectra),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
