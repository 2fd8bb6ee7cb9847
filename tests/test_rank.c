/* test_rank.c -- rank estimators and the facts sbw-rank must get right:
 * Gaussian products of known rank in every shape and every rank; log-
 * softmax of rank-r logits (r + 1, centred r), with a ones column (r,
 * r - 1); a tall Dirichlet language (M, centred M - 1); the float32 trap;
 * the normalised spectrum of MoS Figure 1; eps selection. */
#include "sbw_rank.h"
#include "sbw_spectra.h"
#include "sbw_svd.h"
#include "sbw_svd_ref.h"
#include "sbw_test.h"
#include "sbw_test_mats.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 2007, stream));
    return r;
}

/* The estimate for variant v of a, written as dtype t and read back
 * through the whole pipeline (direct or TSQR as the shape decides, unless
 * method says otherwise).  eps_arg as for --eps. */
static sbw_rank_est rank_of(const sbw_mat *a, sbw_npy_dtype t, sbw_reduce_variant v,
                            sbw_reduce_method method, bool single, const char *eps_arg)
{
    const char *path = sbw_test_path("rank.npy");
    sbw_npy_reader *r = NULL;
    sbw_spectra sp;
    sbw_reduce_opts o = {.method = method, .single = single, .block_rows = 16};
    sbw_rank_est e;
    double eps;
    const char *src;
    SBW_ASSERT_OK(sbw_npy_save(path, a, t));
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    SBW_ASSERT_OK(sbw_spectra_compute(r, &o, 1u << v, &sp));
    SBW_ASSERT_OK(sbw_rank_eps(eps_arg, sp.red.dtype, sp.red.prec, &eps, &src));
    SBW_ASSERT_OK(sbw_rank_estimate(sp.s[v], sp.k, a->rows, a->cols, eps, &e));
    sbw_spectra_free(&sp);
    sbw_npy_close(r);
    return e;
}

static sbw_rank_est rank64(const sbw_mat *a, sbw_reduce_variant v)
{
    return rank_of(a, SBW_F64, v, SBW_METHOD_AUTO, false, NULL);
}

/* ---- the estimators on spectra with known answers ------------------------ */

static void test_estimators_closed_form(void **state)
{
    (void)state;
    const double e = DBL_EPSILON;
    sbw_rank_est r;
    /* m = 4, n = 6: tsh = 0.5 sqrt(11) w0 eps, NumPy tol = w0 6 eps */
    const double s1[] = {10, 5, 1e-3, 3e-15}; /* tsh = 3.7e-15 */
    SBW_ASSERT_OK(sbw_rank_estimate(s1, 4, 4, 6, e, &r));
    SBW_ASSERT_NEAR(r.tsh, 0.5 * sqrt(11.0) * 10 * e, 1e-30);
    SBW_ASSERT_NEAR(r.numpy_tol, 60 * e, 1e-30);
    assert_int_equal(r.rank, 3);
    assert_int_equal(r.rank_numpy, 3);
    assert_int_equal(r.rank_gap, 3); /* 1e-3 -> 3e-15: 11.5 decades */
    SBW_ASSERT_NEAR(r.gap_log10, log10(1e-3 / 3e-15), 1e-12);
    SBW_ASSERT_EQ(r.w0, 10);
    SBW_ASSERT_EQ(r.wmin, 3e-15);
    /* 1e-14 lies between the NR threshold and NumPy's */
    const double s2[] = {10, 1e-14, 0};
    SBW_ASSERT_OK(sbw_rank_estimate(s2, 3, 3, 30, e, &r));
    assert_int_equal(r.rank, 2);       /* tsh = 0.5 sqrt(34) 10 eps = 6.5e-15 */
    assert_int_equal(r.rank_numpy, 1); /* tol = 300 eps = 6.7e-14 */
    assert_int_equal(r.rank_gap, 1);   /* zeros are floored at w0 eps: no inf gap */
    /* strictness: w_j == tsh does not count */
    double tsh = 0.5 * sqrt(5.0) * 1.0 * e;
    const double s3[] = {1.0, tsh};
    SBW_ASSERT_OK(sbw_rank_estimate(s3, 2, 2, 2, e, &r));
    assert_int_equal(r.rank, 1);
    /* a clean full-rank spectrum: the floor makes the gap rank k */
    const double s4[] = {3, 2, 1};
    SBW_ASSERT_OK(sbw_rank_estimate(s4, 3, 3, 3, e, &r));
    assert_int_equal(r.rank_gap, 3);
    /* the zero matrix */
    const double s5[] = {0, 0};
    SBW_ASSERT_OK(sbw_rank_estimate(s5, 2, 2, 5, e, &r));
    SBW_ASSERT_EQ(r.rank, 0);
    SBW_ASSERT_EQ(r.rank_numpy, 0);
    SBW_ASSERT_EQ(r.rank_gap, 0);
}

static void test_estimator_errors(void **state)
{
    (void)state;
    const double s[] = {1, 2};
    sbw_rank_est r;
    assert_int_equal(sbw_rank_estimate(s, 2, 2, 2, DBL_EPSILON, &r), SBW_EINVAL); /* ascending */
    assert_int_equal(sbw_rank_estimate(s + 1, 1, 2, 2, DBL_EPSILON, &r), SBW_EINVAL); /* k */
    assert_int_equal(sbw_rank_estimate(s, 1, 1, 1, 0.0, &r), SBW_EINVAL);
    assert_int_equal(sbw_rank_estimate(s, 1, 1, 1, 1.0, &r), SBW_EINVAL);
    const double neg[] = {-1.0};
    assert_int_equal(sbw_rank_estimate(neg, 1, 1, 1, DBL_EPSILON, &r), SBW_EINVAL);
    assert_int_equal(sbw_rank_estimate(s, 0, 0, 3, DBL_EPSILON, &r), SBW_EINVAL);
}

static void test_eps_choice(void **state)
{
    (void)state;
    double eps;
    const char *src;
    SBW_ASSERT_OK(sbw_rank_eps(NULL, SBW_F64, SBW_F64, &eps, &src));
    SBW_ASSERT_EQ(eps, DBL_EPSILON);
    assert_string_equal(src, "float64 data");
    SBW_ASSERT_OK(sbw_rank_eps("auto", SBW_F32, SBW_F64, &eps, &src));
    SBW_ASSERT_EQ(eps, FLT_EPSILON);
    assert_string_equal(src, "float32 data");
    SBW_ASSERT_OK(sbw_rank_eps("auto", SBW_F64, SBW_F32, &eps, &src));
    SBW_ASSERT_EQ(eps, FLT_EPSILON);
    assert_string_equal(src, "float32 computation");
    SBW_ASSERT_OK(sbw_rank_eps("double", SBW_F32, SBW_F32, &eps, &src));
    SBW_ASSERT_EQ(eps, DBL_EPSILON);
    assert_string_equal(src, "--eps");
    SBW_ASSERT_OK(sbw_rank_eps("single", SBW_F64, SBW_F64, &eps, &src));
    SBW_ASSERT_EQ(eps, FLT_EPSILON);
    SBW_ASSERT_OK(sbw_rank_eps("1e-10", SBW_F64, SBW_F64, &eps, &src));
    SBW_ASSERT_EQ(eps, 1e-10);
    const char *bad[] = {"0", "1", "-1e-3", "half", "", "1e-3x"};
    for (int i = 0; i < 6; i++)
        assert_int_equal(sbw_rank_eps(bad[i], SBW_F64, SBW_F64, &eps, &src), SBW_EINVAL);
}

/* ---- ranks by construction -------------------------------------------------- */

/* Products of Gaussian factors: rank r exactly, for every r, in square,
 * tall (TSQR), wide and odd shapes; all three estimators agree. */
static void test_gaussian_products(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(1);
    const size_t sh[][2] = {{24, 24}, {90, 20}, {16, 45}, {61, 17}, {1, 9}, {9, 1}};
    for (size_t i = 0; i < 6; i++) {
        size_t k = sh[i][0] < sh[i][1] ? sh[i][0] : sh[i][1];
        for (size_t r = 1; r <= k; r++) {
            sbw_mat a = {0};
            SBW_ASSERT_OK(tm_product(&a, sh[i][0], sh[i][1], r, rng));
            sbw_rank_est e = rank64(&a, SBW_VAR_PLAIN);
            if (e.rank != r || e.rank_numpy != r || e.rank_gap != r)
                fail_msg("%zu x %zu rank %zu: NR %zu, NumPy %zu, gap %zu", sh[i][0], sh[i][1], r,
                         e.rank, e.rank_numpy, e.rank_gap);
            sbw_mat_free(&a);
        }
    }
    sbw_rng_free(rng);
}

/* log-softmax adds the row shift -log Z 1^T: rank r + 1; centring removes
 * it (MoS Prop. 1): r.  With a ones column in W the shift is already in
 * the row space: r, and r - 1 centred. */
static void test_log_softmax_ranks(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(2);
    const size_t sh[][2] = {{50, 30}, {30, 50}, {120, 20}, {33, 33}};
    const size_t ranks[] = {1, 3, 7};
    for (size_t i = 0; i < 4; i++)
        for (size_t ri = 0; ri < 3; ri++)
            for (int ones = 0; ones <= 1; ones++) {
                size_t r = ranks[ri] + (size_t)ones; /* ones needs r >= 2 */
                sbw_mat a = {0};
                SBW_ASSERT_OK(tm_lowrank_logp(&a, sh[i][0], sh[i][1], r, 2.0, ones, rng));
                size_t want = ones ? r : r + 1, want_c = ones ? r - 1 : r;
                sbw_rank_est e = rank64(&a, SBW_VAR_PLAIN), ec = rank64(&a, SBW_VAR_ROWS);
                if (e.rank != want || ec.rank != want_c)
                    fail_msg("%zu x %zu, r %zu, ones %d: rank %zu (want %zu), centred %zu "
                             "(want %zu)",
                             sh[i][0], sh[i][1], r, ones, e.rank, want, ec.rank, want_c);
                sbw_mat_free(&a);
            }
    sbw_rng_free(rng);
}

/* A tall Dirichlet language has full column rank M, and M - 1 centred:
 * the centring kills exactly the constant direction. */
static void test_dirichlet_tall(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(3);
    const double alphas[] = {1.0, 0.1, 0.01};
    for (int i = 0; i < 3; i++) {
        sbw_mat a = {0};
        SBW_ASSERT_OK(tm_dirichlet_logp(&a, 90, 25, alphas[i], rng));
        assert_int_equal(rank64(&a, SBW_VAR_PLAIN).rank, 25);
        assert_int_equal(rank64(&a, SBW_VAR_ROWS).rank, 24);
        assert_int_equal(rank64(&a, SBW_VAR_BOTH).rank, 24);
        /* and the same through the direct path */
        assert_int_equal(rank_of(&a, SBW_F64, SBW_VAR_ROWS, SBW_METHOD_DIRECT, false, NULL).rank,
                         24);
        sbw_mat_free(&a);
    }
    sbw_rng_free(rng);
}

/* Row means far larger than the spread (log-probabilities: means near
 * -log M, spread of a few nats) must not leak into the centred spectrum:
 * centring rounds at the scale of the means, so it is done before any
 * factorisation and in two passes.  A = G + c 1^T with G = G1 G2 of rank 3
 * and c_i ~ -1e4: small integers throughout, so the stored matrix is
 * exactly that (no data rounding at the scale of c) and only the
 * computation can add noise.  Rank 4, centred rank 3, on every path. */
static void test_large_row_means(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(5);
    const size_t sh[][2] = {{200, 30}, {40, 60}};
    for (int i = 0; i < 2; i++) {
        sbw_mat g1 = {0}, g2 = {0}, a = {0};
        SBW_ASSERT_OK(sbw_mat_alloc(&g1, sh[i][0], 3));
        SBW_ASSERT_OK(sbw_mat_alloc(&g2, 3, sh[i][1]));
        for (size_t j = 0; j < 3 * sh[i][0]; j++)
            g1.data[j] = (double)gsl_rng_uniform_int(rng, 7) - 3.0;
        for (size_t j = 0; j < 3 * sh[i][1]; j++)
            g2.data[j] = (double)gsl_rng_uniform_int(rng, 7) - 3.0;
        SBW_ASSERT_OK(tm_mul(&a, &g1, &g2));
        for (size_t r = 0; r < a.rows; r++) {
            double c = -1e4 - (double)gsl_rng_uniform_int(rng, 10000);
            for (size_t j = 0; j < a.cols; j++)
                SBW_MAT_AT(&a, r, j) += c;
        }
        for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++) {
            sbw_reduce_method me = (sbw_reduce_method)m;
            assert_int_equal(rank_of(&a, SBW_F64, SBW_VAR_PLAIN, me, false, NULL).rank, 4);
            assert_int_equal(rank_of(&a, SBW_F64, SBW_VAR_ROWS, me, false, NULL).rank, 3);
            assert_int_equal(rank_of(&a, SBW_F64, SBW_VAR_BOTH, me, false, NULL).rank, 3);
        }
        sbw_mat_free(&a);
        sbw_mat_free(&g1);
        sbw_mat_free(&g2);
    }
    sbw_rng_free(rng);
}

/* The float32 trap.  Storing a rank-(r+1) log-softmax matrix in float32
 * rounds every entry by up to 2^-24 |a_ij|: a dense noise matrix E with
 * ||E||_2 ~ 1e-7 |A| (sqrt(N) + sqrt(M)) / sqrt(NM) -- far above
 * DBL_EPSILON sigma_0, far below FLT_EPSILON sigma_0 sqrt(N+M+1) / 2.  So
 * with the float32 eps (the default for a float32 file) the rank is r + 1,
 * as it is for the float64 original, while --eps double counts the noise
 * and calls the matrix (nearly) full rank.  Computing in float32 (sgesdd)
 * gives r + 1 too. */
static void test_float32_trap(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(4);
    const size_t sh[][2] = {{150, 60}, {60, 80}};
    const size_t r = 4;
    for (int i = 0; i < 2; i++) {
        sbw_mat a = {0};
        size_t k = sh[i][0] < sh[i][1] ? sh[i][0] : sh[i][1];
        SBW_ASSERT_OK(tm_lowrank_logp(&a, sh[i][0], sh[i][1], r, 2.0, false, rng));
        assert_int_equal(rank64(&a, SBW_VAR_PLAIN).rank, r + 1);
        sbw_rank_est e32 = rank_of(&a, SBW_F32, SBW_VAR_PLAIN, SBW_METHOD_AUTO, false, NULL);
        SBW_ASSERT_EQ(e32.eps, FLT_EPSILON);
        assert_int_equal(e32.rank, r + 1);
        sbw_rank_est ed = rank_of(&a, SBW_F32, SBW_VAR_PLAIN, SBW_METHOD_AUTO, false, "double");
        if (ed.rank < k - 1)
            fail_msg("float32 data with --eps double: rank %zu, expected about %zu", ed.rank, k);
        sbw_rank_est es = rank_of(&a, SBW_F32, SBW_VAR_PLAIN, SBW_METHOD_AUTO, true, NULL);
        assert_int_equal(es.rank, r + 1);
        assert_int_equal(rank_of(&a, SBW_F32, SBW_VAR_ROWS, SBW_METHOD_AUTO, true, NULL).rank, r);
        sbw_mat_free(&a);
    }
    sbw_rng_free(rng);
}

/* ---- the normalised spectrum --------------------------------------------- */

static void test_normalise(void **state)
{
    (void)state;
    double v[4], cum[4];
    const double s[] = {4, 2, 2, 0};
    SBW_ASSERT_OK(sbw_rank_normalise(s, 4, SBW_NORM_MAX, v, cum));
    const double v1[] = {1, 0.5, 0.5, 0}, c1[] = {100, 75, 75, 25};
    SBW_ASSERT_CLOSE(v, v1, 4, 0, 0);
    SBW_ASSERT_CLOSE(cum, c1, 4, 0, 0);
    const double t[] = {5, 3, 1};
    SBW_ASSERT_OK(sbw_rank_normalise(t, 3, SBW_NORM_MINMAX, v, cum));
    const double v2[] = {1, 0.5, 0}, c2[] = {100, 200.0 / 3, 100.0 / 3};
    SBW_ASSERT_CLOSE(v, v2, 3, 0, 0);
    SBW_ASSERT_CLOSE(cum, c2, 3, 1e-13, 0);
    SBW_ASSERT_OK(sbw_rank_normalise(t, 3, SBW_NORM_MAX, v, cum));
    const double v3[] = {1, 0.6, 0.2};
    SBW_ASSERT_CLOSE(v, v3, 3, 1e-16, 0);
    const double flat[] = {2, 2}, zero[] = {0, 0}, one[] = {1}, c4[] = {100, 100};
    SBW_ASSERT_OK(sbw_rank_normalise(flat, 2, SBW_NORM_MINMAX, v, cum));
    SBW_ASSERT_CLOSE(v, one, 1, 0, 0);
    SBW_ASSERT_CLOSE(cum, c4, 2, 0, 0);
    SBW_ASSERT_OK(sbw_rank_normalise(zero, 2, SBW_NORM_MAX, v, cum));
    SBW_ASSERT_CLOSE(v, zero, 2, 0, 0);
    assert_int_equal(sbw_rank_normalise(s, 0, SBW_NORM_MAX, v, cum), SBW_EINVAL);
    sbw_rank_norm n;
    SBW_ASSERT_OK(sbw_rank_norm_parse("minmax", &n));
    assert_int_equal(n, SBW_NORM_MINMAX);
    assert_int_equal(sbw_rank_norm_parse("l2", &n), SBW_EINVAL);
    assert_string_equal(sbw_rank_norm_label(SBW_NORM_MAX), "sigma/sigma0");
}

/* ---- every named measure (sbw_rank_measures) ----------------------------- */

static const sbw_rank_measure *measure(const sbw_rank_measure *ms, const char *name)
{
    for (size_t i = 0; i < SBW_RANK_NMEASURES; i++)
        if (strcmp(ms[i].name, name) == 0)
            return &ms[i];
    fail_msg("no measure %s", name);
    return NULL;
}

/* A 4 x 3 spectrum {1, 0.035, 0.02} at eps 0.01: NR's threshold 0.5 sqrt(8)
 * 0.01 = 0.0141 keeps all 3, Julia's 3 x 0.01 = 0.03 keeps 2, NumPy's and
 * PyTorch's 4 x 0.01 = 0.04 keep 1; PyTorch with atol 0.025 (rtol then 0)
 * keeps 2.  Stable and entropy ranks from their definitions. */
static void test_measures_closed_form(void **state)
{
    (void)state;
    const double s[3] = {1, 0.035, 0.02};
    sbw_rank_measure ms[SBW_RANK_NMEASURES];
    SBW_ASSERT_OK(sbw_rank_measures(s, 3, 4, 3, 0.01, 0, ms));
    SBW_ASSERT_EQ(measure(ms, "nr")->rank, 3.0);
    SBW_ASSERT_NEAR(measure(ms, "nr")->threshold, 0.5 * sqrt(8.0) * 0.01, 1e-15);
    SBW_ASSERT_EQ(measure(ms, "julia")->rank, 2.0);
    SBW_ASSERT_NEAR(measure(ms, "julia")->threshold, 0.03, 1e-15);
    SBW_ASSERT_EQ(measure(ms, "numpy")->rank, 1.0);
    SBW_ASSERT_NEAR(measure(ms, "numpy")->threshold, 0.04, 1e-15);
    SBW_ASSERT_EQ(measure(ms, "pytorch")->rank, 1.0);
    SBW_ASSERT_NEAR(measure(ms, "pytorch")->threshold, 0.04, 1e-15);
    SBW_ASSERT_NEAR(measure(ms, "stable")->rank, 1 + 0.035 * 0.035 + 0.02 * 0.02, 1e-15);
    double l1 = 1.055, h = 0;
    for (int j = 0; j < 3; j++)
        h -= s[j] / l1 * log(s[j] / l1);
    SBW_ASSERT_NEAR(measure(ms, "entropy")->rank, exp(h), 1e-14);
    SBW_ASSERT_OK(sbw_rank_measures(s, 3, 4, 3, 0.01, 0.025, ms));
    SBW_ASSERT_EQ(measure(ms, "pytorch")->rank, 2.0);
    SBW_ASSERT_NEAR(measure(ms, "pytorch")->threshold, 0.025, 0);
    SBW_ASSERT_EQ(sbw_rank_measures(s, 3, 4, 3, 0.01, -1, ms), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_rank_measures(s, 3, 2, 3, 0.01, 0, ms), SBW_EINVAL);
    /* equal values: every effective rank is the count */
    const double flat[4] = {2, 2, 2, 2};
    SBW_ASSERT_NEAR(sbw_rank_stable(flat, 4), 4.0, 1e-15);
    SBW_ASSERT_NEAR(sbw_rank_entropy(flat, 4), 4.0, 1e-14);
    SBW_ASSERT_EQ(sbw_rank_eps_effective(flat, 4, 1e-3), 4);
    /* the zero matrix: every measure 0 */
    const double zero[2] = {0, 0};
    SBW_ASSERT_OK(sbw_rank_measures(zero, 2, 2, 2, DBL_EPSILON, 0, ms));
    for (size_t i = 0; i < SBW_RANK_NMEASURES; i++)
        SBW_ASSERT_EQ(ms[i].rank, 0.0);
}

/* Energies {1, 1e-4, 1e-6} (total 1.000101): the tail after 1 value is
 * 1.01e-4, after 2 it is 1e-6.  e = 1e-3: 1; e = 1e-4: 2 (1.01e-4 >
 * 1.000101e-4); e = 1e-5: 2; e = 1e-7: 3.  The boundary is inclusive. */
static void test_eps_effective(void **state)
{
    (void)state;
    const double s[3] = {1, 1e-2, 1e-3};
    SBW_ASSERT_EQ(sbw_rank_eps_effective(s, 3, 1e-3), 1);
    SBW_ASSERT_EQ(sbw_rank_eps_effective(s, 3, 1e-4), 2);
    SBW_ASSERT_EQ(sbw_rank_eps_effective(s, 3, 1e-5), 2);
    SBW_ASSERT_EQ(sbw_rank_eps_effective(s, 3, 1e-7), 3);
    const double half[2] = {1, 1}; /* tail after 1 is exactly half */
    SBW_ASSERT_EQ(sbw_rank_eps_effective(half, 2, 0.5), 1);
    SBW_ASSERT_EQ(sbw_rank_eps_effective(half, 2, 0.4999), 2);
}

/* Parthiban et al. 2021's point: a rank-10 matrix plus Gaussian noise far
 * below every entry reads full rank by NR (and NumPy, PyTorch, Julia) while
 * the eps-effective ranks stay at 10.  200 x 100, noise sd 1e-9 against
 * entries of sd sqrt(10): the noise's singular values (~1e-9 (sqrt 200 +
 * sqrt 100) ~ 2.4e-8) stand far above NR's threshold (~8.7 w0 eps ~ 1e-12
 * for w0 ~ 600) and far below the signal's smallest (~ 10). */
static void test_measures_noise(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(21);
    sbw_mat a = {0};
    double s[100];
    sbw_rank_measure ms[SBW_RANK_NMEASURES];
    SBW_ASSERT_OK(tm_product(&a, 200, 100, 10, rng));
    for (size_t i = 0; i < 200; i++)
        for (size_t j = 0; j < 100; j++)
            a.data[i * a.ld + j] += 1e-9 * gsl_ran_gaussian(rng, 1.0);
    SBW_ASSERT_OK(sbw_svd_values(&a, s));
    SBW_ASSERT_OK(sbw_rank_measures(s, 100, 200, 100, DBL_EPSILON, 0, ms));
    const char *full[] = {"nr", "numpy", "pytorch", "julia"};
    for (int i = 0; i < 4; i++)
        SBW_ASSERT_EQ(measure(ms, full[i])->rank, 100.0);
    const char *eff[] = {"eps_eff_1e-3", "eps_eff_1e-4", "eps_eff_1e-5"};
    for (int i = 0; i < 3; i++)
        SBW_ASSERT_EQ(measure(ms, eff[i])->rank, 10.0);
    SBW_ASSERT_EQ(measure(ms, "gap")->rank, 10.0);
    SBW_ASSERT_LE(measure(ms, "stable")->rank, 10.0);
    SBW_ASSERT_LE(measure(ms, "entropy")->rank, 10.0 + 1e-3);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* ---- centred ranks against the stored matrix's roundoff ------------------ */

/* The spectra of variants want (a bit set) of a through the file path as
 * sbw-rank reads it; the caller frees *sp. */
static void spectra_file(const sbw_mat *a, sbw_npy_dtype t, const sbw_reduce_opts *o, unsigned want,
                         sbw_spectra *sp)
{
    const char *path = sbw_test_path("centred.npy");
    sbw_npy_reader *r = NULL;
    SBW_ASSERT_OK(sbw_npy_save(path, a, t));
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    SBW_ASSERT_OK(sbw_spectra_compute(r, o, want, sp));
    sbw_npy_close(r);
}

/* Issue 25: a D = 16 head whose context part is 1e-1 ... 1e-4 of its word
 * bias, exported as float64 log-softmax.  Double centring removes the
 * bias and leaves sigma_1 ~ ratio sqrt(NM), while the entries' roundoff
 * stays at eps |a_ij| ~ eps log M; measured against eps sigma_1 of the
 * centred matrix alone, NR's rank read 16 plus noise (300 x 200: 180 at
 * 1e-2, full from 1e-3; 1500 x 150 TSQR: 17 already at 1e-1).  Against the
 * uncentred scale: exactly D double-centred and D + 1 row-centred, for
 * every ratio, seed and reading plan (wide direct, tall TSQR with two
 * workers), by NR, NumPy's rule and the largest gap alike. */
static void test_centred_rank_stored_roundoff(void **state)
{
    (void)state;
    const size_t d = 16, shapes[3][2] = {{300, 200}, {1500, 150}, {200, 450}};
    const double ratios[4] = {1e-1, 1e-2, 1e-3, 1e-4};
    const unsigned want = (1u << SBW_VAR_ROWS) | (1u << SBW_VAR_BOTH);
    for (int sh = 0; sh < 3; sh++)
        for (int ri = 0; ri < 4; ri++)
            for (uint64_t seed = 0; seed < 5; seed++) {
                gsl_rng *rng = rng_for(100 + seed);
                sbw_mat a = {0};
                size_t n = shapes[sh][0], m = shapes[sh][1];
                SBW_ASSERT_OK(tm_biased_head_logp(&a, n, m, d, ratios[ri], false, rng));
                sbw_reduce_opts o = {.block_rows = 256, .workers = 2};
                sbw_spectra sp;
                spectra_file(&a, SBW_F64, &o, want, &sp);
                for (int v = SBW_VAR_ROWS; v <= SBW_VAR_BOTH; v += 2) {
                    sbw_rank_est e;
                    SBW_ASSERT_OK(sbw_rank_estimate_scaled(sp.s[v], sp.k, n, m, DBL_EPSILON,
                                                           sp.w0_uncentred[v], &e));
                    size_t truth = v == SBW_VAR_BOTH ? d : d + 1;
                    if (e.rank != truth || e.rank_numpy != truth || e.rank_gap != truth)
                        fail_msg("%zu x %zu, ratio %g, seed %u, %s: ranks nr %zu numpy %zu "
                                 "gap %zu, want %zu (w0 %g, uncentred %g)",
                                 n, m, ratios[ri], (unsigned)seed,
                                 sbw_reduce_variant_name((sbw_reduce_variant)v), e.rank,
                                 e.rank_numpy, e.rank_gap, truth, e.w0, sp.w0_uncentred[v]);
                }
                sbw_spectra_free(&sp);
                sbw_mat_free(&a);
                sbw_rng_free(rng);
            }
}

/* The uncentred scale is a lower bound on sigma_1(A) within sqrt(3)
 * (sqrt(2) for one centring), against the long double Jacobi twin's
 * sigma_1 of the matrix as stored: a log-probability matrix (row means
 * dominate), a Gaussian one (nothing dominates) and one with large column
 * means; both reading plans.  Uncentred: w0 itself. */
static void test_uncentred_scale_bounds(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(31);
    for (int kind = 0; kind < 3; kind++)
        for (int tall = 0; tall < 2; tall++) {
            size_t n = tall ? 90 : 40, m = tall ? 12 : 15;
            sbw_mat a = {0};
            if (kind == 0)
                SBW_ASSERT_OK(tm_biased_head_logp(&a, n, m, 4, 0.3, false, rng));
            else
                SBW_ASSERT_OK(tm_gauss(&a, n, m, rng));
            for (size_t i = 0; kind == 2 && i < n; i++)
                for (size_t j = 0; j < m; j++)
                    SBW_MAT_AT(&a, i, j) += 5.0 * (double)j - 20.0;
            double s1[15];
            SBW_ASSERT_OK(sbw_svd_ref_jacobi(&a, s1));
            sbw_reduce_opts o = {.method = tall ? SBW_METHOD_TSQR : SBW_METHOD_DIRECT,
                                 .block_rows = 16,
                                 .workers = 2};
            sbw_spectra sp;
            spectra_file(&a, SBW_F64, &o, 15, &sp);
            const double tol = 1e-12 * s1[0];
            SBW_ASSERT_NEAR(sp.w0_uncentred[SBW_VAR_PLAIN], s1[0], tol);
            for (int v = 1; v < SBW_NVARIANT; v++) {
                double lo = s1[0] / sqrt(v == SBW_VAR_BOTH ? 3.0 : 2.0);
                SBW_ASSERT_LE(sp.w0_uncentred[v], s1[0] + tol);
                SBW_ASSERT_GE(sp.w0_uncentred[v], lo - tol);
                SBW_ASSERT_GE(sp.w0_uncentred[v], sp.s[v][0]);
            }
            sbw_spectra_free(&sp);
            sbw_mat_free(&a);
        }
    sbw_rng_free(rng);
}

/* A float64 file of float32 values is flagged by the reading pass (both
 * plans): the trap of a float32 export cast back, which reads full rank at
 * DBL_EPSILON and D + 2 at FLT_EPSILON.  Not flagged: a genuine float64
 * export, short exact numbers (small integers and halves use a few bits of
 * float32's significand, not rounding), a float32 file (its eps is already
 * float32's). */
static void test_float32_values(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(41);
    const size_t n = 400, m = 120, d = 6;
    sbw_mat f = {0}, g = {0}, ints = {0};
    SBW_ASSERT_OK(tm_biased_head_logp(&f, n, m, d, 1.0, true, rng));
    SBW_ASSERT_OK(tm_biased_head_logp(&g, n, m, d, 1.0, false, rng));
    SBW_ASSERT_OK(sbw_mat_alloc(&ints, n, m));
    for (size_t i = 0; i < n * m; i++)
        ints.data[i] = (double)gsl_rng_uniform_int(rng, 2000) / 2 - 500;
    for (int meth = SBW_METHOD_DIRECT; meth <= SBW_METHOD_TSQR; meth++) {
        sbw_reduce_opts o = {.method = (sbw_reduce_method)meth, .block_rows = 64, .workers = 2};
        sbw_spectra sp;
        sbw_rank_est e;
        spectra_file(&f, SBW_F64, &o, 1, &sp);
        assert_true(sp.red.f32_values);
        SBW_ASSERT_OK(sbw_rank_estimate(sp.s[0], sp.k, n, m, DBL_EPSILON, &e));
        SBW_ASSERT_EQ(e.rank, m); /* the trap */
        SBW_ASSERT_OK(sbw_rank_estimate(sp.s[0], sp.k, n, m, FLT_EPSILON, &e));
        SBW_ASSERT_EQ(e.rank, d + 2);
        sbw_spectra_free(&sp);
        spectra_file(&f, SBW_F32, &o, 1, &sp);
        assert_false(sp.red.f32_values);
        sbw_spectra_free(&sp);
        spectra_file(&g, SBW_F64, &o, 1, &sp);
        assert_false(sp.red.f32_values);
        sbw_spectra_free(&sp);
        spectra_file(&ints, SBW_F64, &o, 1, &sp);
        assert_false(sp.red.f32_values);
        sbw_spectra_free(&sp);
    }
    sbw_mat_free(&f);
    sbw_mat_free(&g);
    sbw_mat_free(&ints);
    sbw_rng_free(rng);
}

/* stable, entropy and eps_eff of s[k] from their definitions, for the
 * brute-force comparison below. */
static void brute_measures(const double *s, size_t k, double *stable, double *entropy,
                           size_t eff[3])
{
    long double f2 = 0, l1 = 0, h = 0;
    for (size_t j = 0; j < k; j++) {
        f2 += (long double)s[j] * s[j];
        l1 += s[j];
    }
    for (size_t j = 0; j < k; j++)
        if (s[j] > 0)
            h -= (s[j] / l1) * logl(s[j] / l1);
    *stable = (double)(f2 / ((long double)s[0] * s[0]));
    *entropy = (double)expl(h);
    const double es[3] = {1e-3, 1e-4, 1e-5};
    for (int i = 0; i < 3; i++) {
        size_t r = 0;
        long double head = 0;
        for (; r < k && f2 - head > es[i] * f2; r++) /* the tail beyond r values */
            head += (long double)s[r] * s[r];
        eff[i] = r;
    }
}

/* Issue 25: on a log-probability matrix the energy measures of A itself
 * are about 1 (the row means dominate); sbw-rank --center / --bias gives
 * them for the centred matrix, which must equal the definitions applied to
 * the singular values of the matrix centred by hand (tm_centre) and
 * decomposed by the long double Jacobi twin. */
static void test_measures_centred_brute(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(51);
    const size_t n = 60, m = 14;
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_biased_head_logp(&a, n, m, 5, 0.8, false, rng));
    for (int meth = SBW_METHOD_DIRECT; meth <= SBW_METHOD_TSQR; meth++) {
        sbw_reduce_opts o = {.method = (sbw_reduce_method)meth, .block_rows = 16, .workers = 2};
        sbw_spectra sp;
        spectra_file(&a, SBW_F64, &o, 1u | 2u | 8u, &sp);
        sbw_rank_measure ms[SBW_RANK_NMEASURES];
        SBW_ASSERT_OK(sbw_rank_measures(sp.s[0], sp.k, n, m, DBL_EPSILON, 0, ms));
        SBW_ASSERT_LT(measure(ms, "stable")->rank, 1.1); /* the mean dominates A */
        for (int v = SBW_VAR_ROWS; v <= SBW_VAR_BOTH; v += 2) {
            sbw_mat c = {0};
            double s[14], stable, entropy;
            size_t eff[3];
            SBW_ASSERT_OK(sbw_mat_alloc(&c, n, m));
            SBW_ASSERT_OK(sbw_mat_copy(&c, &a));
            tm_centre(&c, true, v == SBW_VAR_BOTH);
            SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, s));
            brute_measures(s, m, &stable, &entropy, eff);
            SBW_ASSERT_OK(sbw_rank_measures_scaled(sp.s[v], sp.k, n, m, DBL_EPSILON, 0,
                                                   sp.w0_uncentred[v], ms));
            SBW_ASSERT_NEAR(measure(ms, "stable")->rank, stable, 1e-12 * stable);
            SBW_ASSERT_NEAR(measure(ms, "entropy")->rank, entropy, 1e-12 * entropy);
            if (v == SBW_VAR_BOTH) /* the model's spread: neither the mean nor the bias */
                SBW_ASSERT_GT(stable, 2.0);
            SBW_ASSERT_EQ(measure(ms, "eps_eff_1e-3")->rank, (double)eff[0]);
            SBW_ASSERT_EQ(measure(ms, "eps_eff_1e-4")->rank, (double)eff[1]);
            SBW_ASSERT_EQ(measure(ms, "eps_eff_1e-5")->rank, (double)eff[2]);
            sbw_mat_free(&c);
        }
        sbw_spectra_free(&sp);
    }
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* ---- the rank at float32's roundoff (rank_single) -------------------------- */

/* Brute force: every s_j compared with the NR threshold at FLT_EPSILON for
 * the scale max(s_0, w0u), no early exit, the threshold in long double. */
static size_t brute_rank_single(const double *s, size_t k, size_t m, size_t n, double w0u)
{
    long double scale = s[0] > w0u ? s[0] : w0u;
    long double t = 0.5L * sqrtl((long double)(m + n + 1)) * scale * (long double)FLT_EPSILON;
    size_t r = 0;
    for (size_t j = 0; j < k; j++)
        r += (long double)s[j] > t;
    return r;
}

/* rank_single against the brute-force count on geometric spectra that fall
 * through float32's threshold at every position, whatever eps the main rank
 * uses, with and without an uncentred scale; and on a float64 matrix whose
 * float32 rank is known: a float32 file's rank (eps single) is rank_single
 * of its float64 original when the spectrum stands clear of both cuts. */
static void test_rank_single(void **state)
{
    (void)state;
    const size_t m = 300, n = 40, k = 40;
    double s[40];
    for (size_t cut = 0; cut <= k; cut++) {
        /* s_j = 10 above the cut, 1e-9 (between float32's and float64's
         * thresholds) below it */
        for (size_t j = 0; j < k; j++)
            s[j] = j < cut ? 10.0 * pow(0.9, (double)j) : 1e-9 * pow(0.9, (double)j);
        if (cut == 0)
            s[0] = 1e-9;
        for (int u = 0; u < 2; u++) {
            double w0u = u ? 40.0 : 0.0;
            sbw_rank_est e;
            SBW_ASSERT_OK(sbw_rank_estimate_scaled(s, k, m, n, DBL_EPSILON, w0u, &e));
            assert_int_equal(e.rank_single, brute_rank_single(s, k, m, n, w0u));
            if (cut > 0 || u)
                assert_int_equal(e.rank_single, cut);
            sbw_rank_est f; /* the same rule as the main rank at --eps single */
            SBW_ASSERT_OK(sbw_rank_estimate_scaled(s, k, m, n, FLT_EPSILON, w0u, &f));
            assert_int_equal(e.rank_single, f.rank);
            SBW_ASSERT_EQ(e.tsh_single, f.tsh);
            if (cut > 0)
                assert_int_equal(e.rank, k); /* 1e-9 stands above float64's cut */
        }
    }
    /* a value just above and just below the float32 threshold */
    for (size_t j = 0; j < k; j++)
        s[j] = 1.0;
    double t = 0.5 * sqrt((double)(m + n + 1)) * FLT_EPSILON;
    s[k - 2] = t * (1 + 1e-12);
    s[k - 1] = t;
    sbw_rank_est e;
    SBW_ASSERT_OK(sbw_rank_estimate(s, k, m, n, DBL_EPSILON, &e));
    assert_int_equal(e.rank_single, k - 1);
    assert_int_equal(brute_rank_single(s, k, m, n, 0), k - 1);
    /* a zero matrix: every rank 0 */
    for (size_t j = 0; j < k; j++)
        s[j] = 0;
    SBW_ASSERT_OK(sbw_rank_estimate(s, k, m, n, DBL_EPSILON, &e));
    assert_int_equal(e.rank_single, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimators_closed_form),
        cmocka_unit_test(test_estimator_errors),
        cmocka_unit_test(test_eps_choice),
        cmocka_unit_test(test_gaussian_products),
        cmocka_unit_test(test_log_softmax_ranks),
        cmocka_unit_test(test_dirichlet_tall),
        cmocka_unit_test(test_large_row_means),
        cmocka_unit_test(test_float32_trap),
        cmocka_unit_test(test_normalise),
        cmocka_unit_test(test_measures_closed_form),
        cmocka_unit_test(test_eps_effective),
        cmocka_unit_test(test_measures_noise),
        cmocka_unit_test(test_centred_rank_stored_roundoff),
        cmocka_unit_test(test_uncentred_scale_bounds),
        cmocka_unit_test(test_float32_values),
        cmocka_unit_test(test_measures_centred_brute),
        cmocka_unit_test(test_rank_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
