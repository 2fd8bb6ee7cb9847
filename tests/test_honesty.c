/* test_honesty.c -- the checks behind the tables' warnings (issue 16): a
 * rank cut within 1% of the spectrum (sbw_rank_near_cut / _near_tail
 * against brute force, sbw_rank_warn_near on spectra built to sit on a
 * cut and off it), an SVD LAPACK did not converge on (the
 * SBW_TEST_SVD_INFO hook), a fit stopped by its step limit while still
 * improving (sbw_fit_still_improving on hand-made logs). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_fit.h"
#include "sbw_mat.h"
#include "sbw_rank.h"
#include "sbw_svd.h"
#include "sbw_table.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* True when some recorded warning contains needle. */
static bool warned(const char *needle)
{
    for (size_t i = 0; i < sbw_table_warn_count(); i++)
        if (strstr(sbw_table_warning(i), needle))
            return true;
    return false;
}

static double urand(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* near_cut and near_tail against the definitions evaluated directly (the
 * tail in long double from the largest down, a different order). */
static void test_near_brute(void **state)
{
    (void)state;
    unsigned long long seed = 16;
    double s[12] = {0};
    for (int trial = 0; trial < 2000; trial++) {
        size_t k = 1 + (size_t)(urand(&seed) * 12);
        s[0] = 1.0;
        for (size_t j = 1; j < k; j++)
            s[j] = s[j - 1] * (0.3 + 0.7 * urand(&seed));
        double thr = s[(size_t)(urand(&seed) * (double)k)] * (0.97 + 0.06 * urand(&seed));
        bool want = false;
        for (size_t j = 0; j < k; j++)
            want = want || fabs(s[j] - thr) <= 0.01 * thr;
        size_t jj = 99;
        SBW_ASSERT_EQ(sbw_rank_near_cut(s, k, thr, 0.01, &jj), want);
        if (want)
            SBW_ASSERT_LE(fabs(s[jj] - thr), 0.01 * thr);
        long double total = 0;
        for (size_t j = 0; j < k; j++)
            total += (long double)s[j] * s[j];
        double e =
            (double)((long double)s[k - 1] * s[k - 1] / total) * (0.97 + 0.06 * urand(&seed));
        bool want_t = false;
        for (size_t r = 0; r < k; r++) {
            long double tail = 0;
            for (size_t j = r; j < k; j++)
                tail += (long double)s[j] * s[j];
            want_t = want_t || fabsl(tail / total - e) <= 0.01L * e * (1 + 1e-12L);
        }
        size_t r = 0;
        double frac = 0;
        bool got_t = sbw_rank_near_tail(s, k, e, 0.01, &r, &frac);
        if (got_t != want_t) /* only a case on the band's edge may disagree */
            SBW_ASSERT_NEAR(fabs(frac - e) / e, 0.01, 1e-12);
        if (got_t)
            SBW_ASSERT_LE(fabs(frac - e), 0.01 * e * (1 + 1e-12));
    }
    size_t j;
    assert_false(sbw_rank_near_cut(s, 3, 0.0, 0.01, &j)); /* a zero matrix has no cut */
}

/* A 4 x 4 spectrum 1, 1/2, 1/4, 1/8 with eps chosen so that the Numerical
 * Recipes threshold 0.5 sqrt(9) eps = 1.5 eps lands 0.4% above 1/4: only
 * nr is flagged; eps 8% further, nothing; NumPy's 4 eps 0.3% above 1/2:
 * only numpy; PyTorch's atol 0.2% above 1/4: only pytorch. */
static void test_warn_sigma(void **state)
{
    (void)state;
    const double s[] = {1.0, 0.5, 0.25, 0.125};
    sbw_rank_measure ms[SBW_RANK_NMEASURES];
    sbw_table_warn_clear();
    SBW_ASSERT_OK(sbw_rank_measures(s, 4, 4, 4, 0.25 * 1.004 / 1.5, 0, ms));
    SBW_ASSERT_EQ(sbw_rank_warn_near(s, 4, ms, SBW_RANK_NMEASURES), 1);
    assert_true(warned("rank_near_threshold: nr rank 2: "));
    assert_true(warned("singular value 3 (0.25)"));
    sbw_table_warn_clear();
    SBW_ASSERT_OK(sbw_rank_measures(s, 4, 4, 4, 0.25 * 1.08 / 1.5, 0, ms));
    SBW_ASSERT_EQ(sbw_rank_warn_near(s, 4, ms, SBW_RANK_NMEASURES), 0);
    SBW_ASSERT_EQ(sbw_table_warn_count(), 0);
    SBW_ASSERT_OK(sbw_rank_measures(s, 4, 4, 4, 0.5 * 1.003 / 4, 0, ms));
    SBW_ASSERT_EQ(sbw_rank_warn_near(s, 4, ms, SBW_RANK_NMEASURES), 3); /* numpy, pytorch, julia */
    assert_true(warned("rank_near_threshold: numpy rank 1: "));
    assert_false(warned(": nr rank"));
    sbw_table_warn_clear();
    SBW_ASSERT_OK(sbw_rank_measures(s, 4, 4, 4, 0.18, 0.2505, ms));
    SBW_ASSERT_EQ(sbw_rank_warn_near(s, 4, ms, SBW_RANK_NMEASURES), 1);
    assert_true(warned("rank_near_threshold: pytorch rank 2: "));
    /* only the measures handed over are looked at */
    sbw_table_warn_clear();
    SBW_ASSERT_EQ(sbw_rank_warn_near(s, 4, ms, 2), 0);
    sbw_table_warn_clear();
}

/* Nine values whose last holds 2^-10 / (0.96875 + 2^-10) = 1.0068e-3 of
 * the energy: within 1% of eps_eff_1e-3's e, and 10^-4, 10^-5 far away. */
static void test_warn_tail(void **state)
{
    (void)state;
    const double s[] = {0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.03125};
    sbw_rank_measure ms[SBW_RANK_NMEASURES];
    sbw_table_warn_clear();
    SBW_ASSERT_OK(sbw_rank_measures(s, 9, 9, 9, DBL_EPSILON, 0, ms));
    SBW_ASSERT_EQ(sbw_rank_warn_near(s, 9, ms, SBW_RANK_NMEASURES), 1);
    assert_true(warned("rank_near_threshold: eps_eff_1e-3 rank "));
    size_t r;
    double frac;
    assert_true(sbw_rank_near_tail(s, 9, 1e-3, 0.01, &r, &frac));
    SBW_ASSERT_EQ(r, 8);
    SBW_ASSERT_NEAR(frac, 0.0009765625 / (0.96875 + 0.0009765625), 1e-18);
    assert_false(sbw_rank_near_tail(s, 9, 1e-3, 0.005, &r, &frac)); /* 0.68% off */
    sbw_table_warn_clear();
}

/* The hook makes a converged SVD report info N: the values stay those of
 * the same call without it (bit for bit) and the warning names the
 * routine and N; without the hook nothing is recorded. */
static void test_svd_not_converged(void **state)
{
    (void)state;
    unsigned long long seed = 7;
    sbw_mat a, b;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 7, 5));
    SBW_ASSERT_OK(sbw_mat_alloc(&b, 7, 5));
    for (size_t i = 0; i < 35; i++)
        a.data[i] = b.data[i] = urand(&seed) - 0.5;
    double s0[5], s1[5];
    sbw_table_warn_clear();
    unsetenv("SBW_TEST_SVD_INFO");
    SBW_ASSERT_OK(sbw_svd_values(&a, s0));
    SBW_ASSERT_EQ(sbw_table_warn_count(), 0);
    setenv("SBW_TEST_SVD_INFO", "3", 1);
    SBW_ASSERT_OK(sbw_svd_values(&b, s1));
    unsetenv("SBW_TEST_SVD_INFO");
    for (size_t j = 0; j < 5; j++)
        SBW_ASSERT_EQ(s1[j], s0[j]);
    assert_true(warned("svd_not_converged: dgesdd did not converge (LAPACK info 3)"));
    sbw_table_warn_clear();
    sbw_mat_f32 f;
    float sf[5];
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, 7, 5));
    for (size_t i = 0; i < 35; i++)
        f.data[i] = (float)(urand(&seed) - 0.5);
    setenv("SBW_TEST_SVD_INFO", "1", 1);
    SBW_ASSERT_OK(sbw_svd_values_f32(&f, sf));
    unsetenv("SBW_TEST_SVD_INFO");
    assert_true(warned("svd_not_converged: sgesdd did not converge (LAPACK info 1)"));
    for (size_t j = 1; j < 5; j++)
        SBW_ASSERT_LE(sf[j], sf[j - 1]);
    sbw_table_warn_clear();
    sbw_mat_free(&a);
    sbw_mat_free(&b);
    sbw_mat_f32_free(&f);
}

/* A fit state with a log of kl(step) at the given steps. */
static void fake_fit(sbw_fit *f, sbw_fit_logrow *rows, const double *steps, size_t n,
                     double (*kl)(double), size_t limit)
{
    *f = (sbw_fit){0};
    for (size_t i = 0; i < n; i++)
        rows[i] = (sbw_fit_logrow){.step = steps[i], .kl = kl(steps[i])};
    f->log = rows;
    f->nlog = n;
    f->opt.steps = limit;
    f->stop = SBW_FIT_STEPS;
}

static double kl_hyper(double t) { return 1.0 / (1.0 + t); }   /* 9% lower over 90..100 */
static double kl_flat(double t) { return t < 50 ? 1.0 : 0.5; } /* no change after 50 */
static double kl_slow(double t) { return 1.0 - 5e-4 * t; }     /* 1% lower over 90..100 */

/* The rule as documented: the final row against the latest row at or
 * before S - ceil(S/10) (and not before S - 2 ceil(S/10)), by more than tol
 * (or 0.1%) of the final value. */
static void test_still_improving(void **state)
{
    (void)state;
    sbw_fit f;
    sbw_fit_logrow rows[16], a, b;
    const double every10[] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    fake_fit(&f, rows, every10, 11, kl_hyper, 100);
    assert_true(sbw_fit_still_improving(&f, &a, &b));
    SBW_ASSERT_EQ(a.step, 90);
    SBW_ASSERT_EQ(b.step, 100);
    fake_fit(&f, rows, every10, 11, kl_flat, 100);
    assert_false(sbw_fit_still_improving(&f, NULL, NULL));
    fake_fit(&f, rows, every10, 11, kl_slow, 100);
    assert_true(sbw_fit_still_improving(&f, NULL, NULL)); /* 1.1% > 0.1% */
    f.opt.tol = 0.02;
    assert_false(sbw_fit_still_improving(&f, NULL, NULL)); /* 1.1% <= --tol 2% */
    f.opt.tol = 0;
    f.stop = SBW_FIT_TOL;
    assert_false(sbw_fit_still_improving(&f, NULL, NULL)); /* stopped otherwise */
    /* a sparse log: the latest row at or before step 90 is step 50, further
     * back than 100 - 2 x 10: no verdict, even though the KL fell since */
    const double sparse[] = {0, 50, 100};
    fake_fit(&f, rows, sparse, 3, kl_flat, 100);
    assert_false(sbw_fit_still_improving(&f, &a, &b));
    fake_fit(&f, rows, sparse, 3, kl_hyper, 100);
    assert_false(sbw_fit_still_improving(&f, &a, &b));
    /* the row at 80 is the oldest baseline still inside twice the window */
    const double at80[] = {0, 80, 100};
    fake_fit(&f, rows, at80, 3, kl_hyper, 100);
    assert_true(sbw_fit_still_improving(&f, &a, &b));
    SBW_ASSERT_EQ(a.step, 80);
    const double at79[] = {0, 79, 100};
    fake_fit(&f, rows, at79, 3, kl_hyper, 100);
    assert_false(sbw_fit_still_improving(&f, &a, &b));
    /* S = 95: the window starts at 95 - 10 = 85, so the row at 80 */
    const double odd[] = {0, 80, 90, 95};
    fake_fit(&f, rows, odd, 4, kl_hyper, 95);
    assert_true(sbw_fit_still_improving(&f, &a, &b));
    SBW_ASSERT_EQ(a.step, 80);
    /* fewer than 10 steps: too short to judge */
    const double short_run[] = {0, 5, 9};
    fake_fit(&f, rows, short_run, 3, kl_hyper, 9);
    assert_false(sbw_fit_still_improving(&f, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_near_brute),      cmocka_unit_test(test_warn_sigma),
        cmocka_unit_test(test_warn_tail),       cmocka_unit_test(test_svd_not_converged),
        cmocka_unit_test(test_still_improving),
    };
    return cmocka_run_group_tests_name("honesty", tests, NULL, NULL);
}
