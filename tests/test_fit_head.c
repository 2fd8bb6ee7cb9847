/* test_fit_head.c -- the heads of sbw-fit: fast kernels against their
 * naive twins, analytic gradients of every head against central finite
 * differences, and the exact degenerate cases (PLIF with unit slopes is
 * softmax; MoS/MoC with K = 1 are softmax on tanh(U h); monotone heads
 * keep the argmax of the logits). */
#include "sbw_test.h"

#include "head_cases.h"

#include "sbw_error.h"
#include "sbw_head_kern.h"
#include "sbw_head_ref.h"
#include "sbw_obj_ref.h"
#include "sbw_head.h"
#include "sbw_num.h"
#include "sbw_obj.h"
#include "sbw_rng.h"
#include "sbw_target.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A random language: rows log_softmax(sd * N(0,1)), N x M. */
static void random_logp(sbw_mat *a, size_t n, size_t m, double sd, uint64_t seed)
{
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 0));
    SBW_ASSERT_OK(sbw_mat_alloc(a, n, m));
    for (size_t i = 0; i < n * m; i++)
        a->data[i] = gsl_ran_gaussian(r, sd);
    for (size_t i = 0; i < n; i++)
        sbw_num_log_softmax(a->data + i * m, a->data + i * m, m);
    sbw_rng_free(r);
}

static void random_fill(double *x, size_t n, double mean, double sd, uint64_t seed, uint64_t stream)
{
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, stream));
    for (size_t i = 0; i < n; i++)
        x[i] = mean + gsl_ran_gaussian(r, sd);
    sbw_rng_free(r);
}

/* ---- kernels against their twins ---------------------------------------- */

static void test_kern_softmax(void **state)
{
    (void)state;
    size_t m = 37, am1, am2;
    double z[37], z2[37], p[37], psum = 0;
    random_fill(z, m, 0, 3, 1, 1);
    random_fill(p, m, 0, 1, 1, 2);
    sbw_num_softmax(p, p, m);
    for (size_t j = 0; j < m; j++)
        psum += p[j];
    for (int grad = 0; grad < 2; grad++) {
        memcpy(z2, z, sizeof z);
        double zz[37];
        memcpy(zz, z, sizeof z);
        double l1 = sbw_head_kern_softmax(zz, p, m, psum, 0.25, grad, &am1);
        double l2 = sbw_head_ref_softmax(z2, p, m, psum, 0.25, grad, &am2);
        SBW_ASSERT_NEAR(l1, l2, 1e-14 * 40);
        assert_int_equal(am1, am2);
        if (grad)
            SBW_ASSERT_CLOSE(zz, z2, m, 1e-16, 1e-12);
    }
}

/* A mixture row; spread makes some Q_j underflow below 1e-250. */
static void check_mixture(size_t k, size_t m, double spread, uint64_t seed)
{
    double *z = malloc(k * m * sizeof *z), *z2 = malloc(k * m * sizeof *z);
    double *e = malloc((k + 1) * m * sizeof *e), *kb = malloc(4 * k * sizeof *kb);
    double *lq1 = malloc(m * sizeof *lq1), *lq2 = malloc(m * sizeof *lq2);
    double *p = malloc(m * sizeof *p), logpi[5], da1[5], da2[5], psum = 0;
    random_fill(z, k * m, 0, spread, seed, 1);
    random_fill(p, m, 0, 2, seed, 2);
    random_fill(logpi, k, 0, 1, seed, 3);
    sbw_num_log_softmax(logpi, logpi, k);
    sbw_num_softmax(p, p, m);
    for (size_t j = 0; j < m; j++)
        psum += p[j];
    memcpy(z2, z, k * m * sizeof *z);
    size_t am1, am2;
    double l1 = sbw_head_kern_mixture(z, k, m, logpi, p, psum, 0.5, true, e, kb, lq1, da1, &am1);
    double l2 = sbw_head_ref_mixture(z2, k, m, logpi, p, psum, 0.5, true, e, kb, lq2, da2, &am2);
    double mag = spread * 4;
    SBW_ASSERT_NEAR(l1, l2, 1e-13 * mag);
    SBW_ASSERT_CLOSE(lq1, lq2, m, 1e-13 * mag, 1e-13);
    SBW_ASSERT_CLOSE(z, z2, k * m, 1e-15, 1e-11);
    SBW_ASSERT_CLOSE(da1, da2, k, 1e-15, 1e-12);
    assert_int_equal(am1, am2);
    free(z), free(z2), free(e), free(kb), free(lq1), free(lq2), free(p);
}

static void test_kern_mixture(void **state)
{
    (void)state;
    check_mixture(3, 41, 2.0, 7); /* ordinary */
    check_mixture(1, 17, 3.0, 8); /* K = 1 */
    check_mixture(5, 29, 400, 9); /* Q_j underflows: the log-domain path */
}

static void test_kern_maps(void **state)
{
    (void)state;
    enum { M = 33, K = 4, KN = 9 };
    double z[M], y1[M], y2[M], f1[M], f2[M], sig1[2 * K * M], sig2[2 * K * M], g[M];
    double u[K], v[K], b[K], s[KN], cum[KN], acc = 0, t = 2.0;
    random_fill(z, M, 0, 30, 3, 1); /* ss at large |z| */
    z[0] = 800, z[1] = -800, z[2] = 0;
    sbw_head_kern_ss(z, y1, f1, M);
    sbw_head_ref_ss(z, y2, f2, M);
    SBW_ASSERT_CLOSE(y1, y2, M, 1e-13, 1e-15);
    SBW_ASSERT_CLOSE(f1, f2, M, 1e-15, 1e-15);
    random_fill(z, M, 0, 3, 4, 1);
    random_fill(g, M, 0, 1, 4, 2);
    random_fill(u, K, 1, 0.5, 4, 3);
    random_fill(v, K, 1, 0.5, 4, 4);
    random_fill(b, K, 0, 2, 4, 5);
    for (size_t i = 0; i < K; i++)
        u[i] = fabs(u[i]), v[i] = fabs(v[i]);
    sbw_head_kern_lms(z, y1, f1, sig1, M, u, v, b, K, 0.3);
    sbw_head_ref_lms(z, y2, f2, sig2, M, u, v, b, K, 0.3);
    SBW_ASSERT_CLOSE(y1, y2, M, 1e-14, 1e-14);
    SBW_ASSERT_CLOSE(f1, f2, M, 1e-14, 1e-13);
    double ga[3 * K + 1] = {0}, gb[3 * K + 1] = {0};
    sbw_head_kern_lms_back(z, g, sig1, M, v, K, ga, ga + K, ga + 2 * (size_t)K, ga + 3 * (size_t)K);
    sbw_head_ref_lms_back(z, g, sig2, M, v, K, gb, gb + K, gb + 2 * (size_t)K, gb + 3 * (size_t)K);
    SBW_ASSERT_CLOSE(ga, gb, 3 * K + 1, 1e-13, 1e-12);
    random_fill(s, KN, 1, 0.4, 5, 1);
    for (size_t i = 0; i < KN; i++) {
        cum[i] = 2 * t / KN * acc;
        acc += s[i];
    }
    sbw_head_kern_plif(z, y1, f1, M, s, cum, KN, t);
    sbw_head_ref_plif(z, y2, f2, M, s, cum, KN, t);
    SBW_ASSERT_CLOSE(y1, y2, M, 1e-14, 1e-14);
    SBW_ASSERT_CLOSE(f1, f2, M, 0, 0);
    double gs1[KN] = {0}, gx1[KN] = {0}, gs2[KN] = {0}, gx2[KN] = {0};
    sbw_head_kern_plif_back(z, g, M, KN, t, gs1, gx1);
    sbw_head_ref_plif_back(z, g, M, KN, t, gs2, gx2);
    SBW_ASSERT_CLOSE(gs1, gs2, KN, 1e-15, 1e-14);
    SBW_ASSERT_CLOSE(gx1, gx2, KN, 1e-14, 1e-13);
}

/* ---- the float twins (single precision) against the same naive oracle ---- */

static void to_float(const double *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (float)x[i];
}

static void to_double(const float *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (double)x[i];
}

/* Both sides see the same float-rounded inputs; float work gives errors of
 * a few FLT_EPSILON times the magnitudes involved. */
static void test_kern_float_softmax_mixture(void **state)
{
    (void)state;
    enum { M = 37, K = 3 };
    double z[K * M], zd[K * M], p[M], pd[M], lq[M], logpi[K], da1[K], da2[K], kb[4 * K];
    float zf[K * M], pf[M], ef[(K + 1) * M];
    double lq1[M];
    size_t am1, am2;
    for (int spread = 0; spread < 2; spread++) { /* 2: ordinary; 60: Q_j < 1e-30 in float */
        double sd = spread ? 60 : 2, psum = 0;
        random_fill(z, (size_t)K * M, 0, sd, 21, 1);
        random_fill(p, M, 0, 2, 21, 2);
        random_fill(logpi, K, 0, 1, 21, 3);
        sbw_num_log_softmax(logpi, logpi, K);
        sbw_num_softmax(p, p, M);
        to_float(z, zf, (size_t)K * M), to_float(p, pf, M);
        to_double(zf, zd, (size_t)K * M), to_double(pf, pd, M);
        for (size_t j = 0; j < M; j++)
            psum += pd[j];
        double l1 =
            sbw_head_kern_mixture_f(zf, K, M, logpi, pf, psum, 0.5, true, ef, kb, lq1, da1, &am1);
        double l2 =
            sbw_head_ref_mixture(zd, K, M, logpi, pd, psum, 0.5, true, NULL, kb, lq, da2, &am2);
        SBW_ASSERT_NEAR(l1, l2, 16 * FLT_EPSILON * 4 * sd);
        double lqmin = lq[0];
        for (size_t j = 1; j < M; j++)
            lqmin = fmin(lqmin, lq[j]);
        if (spread) /* both paths run */
            SBW_ASSERT_LT(lqmin, log(1e-30));
        else
            SBW_ASSERT_GT(lqmin, log(1e-30));
        to_double(zf, z, (size_t)K * M);
        SBW_ASSERT_CLOSE(z, zd, (size_t)K * M, 4 * FLT_EPSILON, 64 * FLT_EPSILON);
        SBW_ASSERT_CLOSE(da1, da2, K, 4 * FLT_EPSILON, 64 * FLT_EPSILON);
        assert_int_equal(am1, am2);
        to_float(zd, zf, M); /* softmax on the first row's gradient values */
        to_double(zf, zd, M);
        double s1 = sbw_head_kern_softmax_f(zf, pf, M, psum, 0.25, true, &am1);
        double s2 = sbw_head_ref_softmax(zd, pd, M, psum, 0.25, true, &am2);
        SBW_ASSERT_NEAR(s1, s2, 16 * FLT_EPSILON * (1 + fabs(s2)));
        to_double(zf, z, M);
        SBW_ASSERT_CLOSE(z, zd, M, 4 * FLT_EPSILON, 64 * FLT_EPSILON);
        assert_int_equal(am1, am2);
    }
}

/* The float softmax finds the argmax inside its exp pass: the first of
 * tied maxima, with and without the gradient, anywhere in the row. */
static void test_kern_softmax_f_argmax_first_tie(void **state)
{
    (void)state;
    enum { M = 77 };
    float z[M], p[M];
    const size_t ties[][2] = {{0, 76}, {5, 17}, {16, 17}, {63, 64}, {75, 76}};
    for (size_t t = 0; t < 5; t++)
        for (int grad = 0; grad < 2; grad++) {
            for (size_t j = 0; j < M; j++) {
                z[j] = (float)sin((double)j) - 2.0f;
                p[j] = 1.0f / M;
            }
            z[ties[t][0]] = z[ties[t][1]] = 1.5f;
            size_t am = M;
            sbw_head_kern_softmax_f(z, p, M, 1.0, 1.0, grad, &am);
            assert_int_equal(am, ties[t][0]);
        }
}

static void test_kern_float_maps(void **state)
{
    (void)state;
    enum { M = 33, K = 4, KN = 9 };
    double z[M], y2[M], f2[M], sig2[2 * K * M], g[M], y1d[M], f1d[M];
    float zf[M], y1[M], f1[M], sig1[2 * K * M], gf[M];
    double u[K], v[K], b[K], s[KN], cum[KN], acc = 0, t = 2.0;
    float uf[K], vf[K], bf[K], sf[KN], cumf[KN];
    random_fill(z, M, 0, 3, 31, 1);
    random_fill(g, M, 0, 1, 31, 2);
    random_fill(u, K, 1, 0.5, 31, 3);
    random_fill(v, K, 1, 0.5, 31, 4);
    random_fill(b, K, 0, 2, 31, 5);
    random_fill(s, KN, 1, 0.4, 31, 6);
    for (size_t i = 0; i < K; i++)
        u[i] = fabs(u[i]), v[i] = fabs(v[i]);
    for (size_t i = 0; i < KN; i++) {
        cum[i] = 2 * t / KN * acc;
        acc += s[i];
    }
    to_float(z, zf, M), to_float(g, gf, M), to_float(u, uf, K), to_float(v, vf, K);
    to_float(b, bf, K), to_float(s, sf, KN), to_float(cum, cumf, KN);
    to_double(zf, z, M), to_double(gf, g, M), to_double(uf, u, K), to_double(vf, v, K);
    to_double(bf, b, K), to_double(sf, s, KN), to_double(cumf, cum, KN);
    sbw_head_kern_ss_f(zf, y1, f1, M);
    sbw_head_ref_ss(z, y2, f2, M);
    to_double(y1, y1d, M), to_double(f1, f1d, M);
    SBW_ASSERT_CLOSE(y1d, y2, M, 4 * FLT_EPSILON, 4 * FLT_EPSILON);
    SBW_ASSERT_CLOSE(f1d, f2, M, 4 * FLT_EPSILON, 4 * FLT_EPSILON);
    sbw_head_kern_lms_f(zf, y1, f1, sig1, M, uf, vf, bf, K, 0.3f);
    sbw_head_ref_lms(z, y2, f2, sig2, M, u, v, b, K, (double)0.3f);
    to_double(y1, y1d, M), to_double(f1, f1d, M);
    SBW_ASSERT_CLOSE(y1d, y2, M, 16 * FLT_EPSILON, 16 * FLT_EPSILON);
    SBW_ASSERT_CLOSE(f1d, f2, M, 16 * FLT_EPSILON, 16 * FLT_EPSILON);
    double ga[3 * K + 1] = {0}, gb[3 * K + 1] = {0};
    sbw_head_kern_lms_back_f(zf, gf, sig1, M, v, K, ga, ga + K, ga + 2 * (size_t)K,
                             ga + 3 * (size_t)K);
    sbw_head_ref_lms_back(z, g, sig2, M, v, K, gb, gb + K, gb + 2 * (size_t)K, gb + 3 * (size_t)K);
    SBW_ASSERT_CLOSE(ga, gb, 3 * K + 1, 64 * FLT_EPSILON, 64 * FLT_EPSILON);
    sbw_head_kern_plif_f(zf, y1, f1, M, sf, cumf, KN, t);
    sbw_head_ref_plif(z, y2, f2, M, s, cum, KN, t);
    to_double(y1, y1d, M), to_double(f1, f1d, M);
    SBW_ASSERT_CLOSE(y1d, y2, M, 16 * FLT_EPSILON, 16 * FLT_EPSILON);
    SBW_ASSERT_CLOSE(f1d, f2, M, 0, 0);
    double gs1[KN] = {0}, gx1[KN] = {0}, gs2[KN] = {0}, gx2[KN] = {0};
    sbw_head_kern_plif_back_f(zf, gf, M, KN, t, gs1, gx1);
    sbw_head_ref_plif_back(z, g, M, KN, t, gs2, gx2);
    SBW_ASSERT_CLOSE(gs1, gs2, KN, 1e-14, 1e-14);
    SBW_ASSERT_CLOSE(gx1, gx2, KN, 1e-13, 1e-12);
}

/* The float twins sum in double: with K = 2048 terms (hidden units or
 * mixture components), float sums would drift by ~sqrt(K) roundings
 * (measured 10-18 FLT_EPSILON); double sums leave one final rounding plus
 * the float pointwise errors, which average out (measured < 0.5). */
static void test_kern_float_sums_in_double(void **state)
{
    (void)state;
    enum { M = 37, K = 2048 };
    float *zf = malloc(sizeof *zf * K * M), *sigf = malloc(sizeof *sigf * 2 * K * M);
    float *ef = malloc(sizeof *ef * (K + 1) * M), uf[K], vf[K], bf[K], yf[M], ff[M], pf[M];
    double *zd = malloc(sizeof *zd * K * M), *sig = malloc(sizeof *sig * 2 * K * M);
    double u[K], v[K], b[K], y[M], f[M], y1[M], f1[M], lq1[M], lq2[M], pd[M];
    double *logpi = malloc(K * sizeof *logpi), *kb = malloc(sizeof *kb * 4 * K);
    random_fill(zd, (size_t)K * M, 0, 1, 41, 1);
    random_fill(u, K, 1, 0.5, 41, 2);
    random_fill(v, K, 1, 0.5, 41, 3);
    random_fill(b, K, 0, 1, 41, 4);
    for (size_t c = 0; c < K; c++)
        u[c] = fabs(u[c]), v[c] = fabs(v[c]);
    to_float(zd, zf, M), to_float(u, uf, K), to_float(v, vf, K), to_float(b, bf, K);
    to_double(zf, zd, M), to_double(uf, u, K), to_double(vf, v, K), to_double(bf, b, K);
    sbw_head_kern_lms_f(zf, yf, ff, sigf, M, uf, vf, bf, K, 0.0f);
    sbw_head_ref_lms(zd, y, f, sig, M, u, v, b, K, 0.0);
    to_double(yf, y1, M), to_double(ff, f1, M);
    SBW_ASSERT_CLOSE(y1, y, M, 0, 2 * FLT_EPSILON);
    SBW_ASSERT_CLOSE(f1, f, M, 0, 2 * FLT_EPSILON);
    random_fill(zd, (size_t)K * M, 0, 0.5, 42, 1); /* mixture: small spread, exp arguments near 0 */
    random_fill(logpi, K, 0, 1, 42, 2);
    sbw_num_log_softmax(logpi, logpi, K);
    for (size_t j = 0; j < M; j++)
        pf[j] = 1.0f / M, pd[j] = (double)pf[j];
    to_float(zd, zf, (size_t)K * M);
    to_double(zf, zd, (size_t)K * M);
    size_t am1, am2;
    double da[K];
    sbw_head_kern_mixture_f(zf, K, M, logpi, pf, 1, 1, false, ef, kb, lq1, da, &am1);
    sbw_head_ref_mixture(zd, K, M, logpi, pd, 1, 1, false, NULL, kb, lq2, da, &am2);
    SBW_ASSERT_CLOSE(lq1, lq2, M, 2 * FLT_EPSILON, 0);
    free(zf), free(sigf), free(ef), free(zd), free(sig), free(logpi), free(kb);
}

/* Largest drop y[j-1] - y[j] over a row of y (n). */
static double max_drop(const double *y, size_t n)
{
    double d = 0;
    for (size_t j = 1; j < n; j++)
        d = fmax(d, y[j - 1] - y[j]);
    return d;
}

/* PLIF on every float (double) from 64 below to 64 above each knot. */
static void plif_knot_scan(bool single, const double *s, const double *cum, size_t k, double t,
                           double *drop)
{
    enum { W = 64, L = 2 * W + 1 };
    float zf[L], yf[L], ff[L], sf[64], cf[64];
    double z[L], y[L], fp[L];
    SBW_ASSERT_LE(k, 64);
    to_float(s, sf, k), to_float(cum, cf, k);
    for (size_t i = 1; i < k; i++) {
        double knot = -t + 2 * t / (double)k * (double)i;
        float xf = (float)knot;
        for (int j = 0; j < W; j++)
            xf = nextafterf(xf, -INFINITY), knot = nextafter(knot, -INFINITY);
        for (int j = 0; j < L; j++) {
            zf[j] = xf, z[j] = knot;
            xf = nextafterf(xf, INFINITY), knot = nextafter(knot, INFINITY);
        }
        if (single) {
            sbw_head_kern_plif_f(zf, yf, ff, L, sf, cf, k, t);
            to_double(yf, y, L);
        } else {
            sbw_head_kern_plif(z, y, fp, L, s, cum, k, t);
        }
        *drop = fmax(*drop, max_drop(y, L));
    }
}

/* The fast maps' monotonicity, ulp by ulp.  PLIF is non-decreasing
 * exactly (its pieces are clamped to the knot values; unclamped, rounding
 * inverted the order next to a few percent of the knots, in both
 * precisions).  LMS and sigsoftmax are built on
 * libmvec's exp and a refined reciprocal, neither monotone to the last
 * ulp: there the drop is bounded, 4 eps per unit of sum v (LMS), 2 eps
 * max(1, |y|) (sigsoftmax; measured over every float in [-90, 90]: at
 * most 1.8 and 1). */
static void test_kern_maps_monotone(void **state)
{
    (void)state;
    enum { KN = 60, K = 4, L = 1 << 14 };
    double s[KN], cum[KN], t = 3, acc = 0;
    random_fill(s, KN, 0, 1.5, 51, 1);
    for (size_t i = 0; i < KN; i++) {
        s[i] = sbw_head_softplus(s[i]);
        cum[i] = 2 * t / KN * acc;
        acc += s[i];
    }
    for (int single = 0; single < 2; single++) {
        double drop = 0;
        plif_knot_scan(single, s, cum, KN, t, &drop);
        SBW_ASSERT_EQ(drop, 0);
    }
    double u[K] = {1, 0.5, 2, 1.25}, v[K] = {1, 2, 0.75, 1.125}, b[K] = {0, 0.25, -0.5, 1};
    float uf[K], vf[K], bf[K], *zf = malloc(L * sizeof *zf), *yf = malloc(L * sizeof *yf);
    float *ff = malloc(L * sizeof *ff), *sigf = malloc(sizeof *sigf * 2 * K * L);
    double *z = malloc(L * sizeof *z), *y = malloc(L * sizeof *y), *fp = malloc(L * sizeof *fp);
    double *sig = malloc(sizeof *sig * 2 * K * L), vsum = 0;
    to_float(u, uf, K), to_float(v, vf, K), to_float(b, bf, K);
    for (size_t c = 0; c < K; c++)
        vsum += v[c];
    for (int single = 0; single < 2; single++) {
        double eps = single ? FLT_EPSILON : DBL_EPSILON, x = -1.0; /* drops are densest there */
        float xf = -1.0f;
        for (size_t j = 0; j < L; j++) {
            zf[j] = xf, z[j] = x;
            xf = nextafterf(xf, INFINITY), x = nextafter(x, INFINITY);
        }
        if (single)
            sbw_head_kern_lms_f(zf, yf, ff, sigf, L, uf, vf, bf, K, 0.25f), to_double(yf, y, L);
        else
            sbw_head_kern_lms(z, y, fp, sig, L, u, v, b, K, 0.25);
        SBW_ASSERT_LE(max_drop(y, L), 4 * eps * vsum);
        if (single)
            sbw_head_kern_ss_f(zf, yf, ff, L), to_double(yf, y, L);
        else
            sbw_head_kern_ss(z, y, fp, L);
        double ymax = 1;
        for (size_t j = 0; j < L; j++)
            ymax = fmax(ymax, fabs(y[j]));
        SBW_ASSERT_LE(max_drop(y, L), 2 * eps * ymax);
    }
    free(zf), free(yf), free(ff), free(sigf), free(z), free(y), free(fp), free(sig);
}

/* ---- gradients against central finite differences ----------------------- */

/* A head on an N x M problem with every parameter moved off its
 * initialisation (so no gradient vanishes by symmetry). */
static void setup_case(const head_case *c, size_t n, size_t m, size_t d, sbw_head *h,
                       double **theta)
{
    SBW_ASSERT_OK(sbw_head_setup(h, c->model, n, m, d, c->k, c->knots, 1.5, c->bias, c->linear));
    *theta = malloc(h->nparam * sizeof **theta);
    SBW_ASSERT_OK(sbw_head_init(h, *theta, 11, 0.7));
    double *jit = malloc(h->nparam * sizeof *jit);
    random_fill(jit, h->nparam, 0, 0.3, 12, 1);
    for (size_t i = 0; i < h->nparam; i++)
        (*theta)[i] += jit[i];
    free(jit);
}

static double loss_at(const sbw_head *h, double *theta, const sbw_target *t, const size_t *rows,
                      size_t nrows)
{
    sbw_obj_result res;
    SBW_ASSERT_OK(sbw_obj_ref_eval(h, theta, t, rows, nrows, &res, NULL));
    return res.loss;
}

static void check_fd(const head_case *c, const size_t *rows, size_t nrows)
{
    size_t n = 5, m = 11, d = 3;
    sbw_mat a;
    sbw_target t;
    sbw_head h;
    double *theta;
    random_logp(&a, n, m, 1.5, 21);
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, false, 1e-9));
    setup_case(c, n, m, d, &h, &theta);
    double *g = malloc(h.nparam * sizeof *g), *fd = malloc(h.nparam * sizeof *fd);
    sbw_obj_result res;
    SBW_ASSERT_OK(sbw_obj_ref_eval(&h, theta, &t, rows, nrows, &res, g));
    for (size_t i = 0; i < h.nparam; i++) {
        double x = theta[i], step = 1e-5 * fmax(1.0, fabs(x));
        theta[i] = x + step;
        double fp = loss_at(&h, theta, &t, rows, nrows);
        theta[i] = x - step;
        double fm = loss_at(&h, theta, &t, rows, nrows);
        theta[i] = x;
        fd[i] = (fp - fm) / (2 * step);
    }
    /* truncation ~ step^2 |f'''|, rounding ~ eps |f| / step */
    SBW_ASSERT_CLOSE(g, fd, h.nparam, 2e-8, 1e-6);
    free(g), free(fd), free(theta);
    sbw_target_free(&t);
    sbw_mat_free(&a);
}

static void test_grad_fd_all_heads(void **state)
{
    (void)state;
    for (size_t i = 0; i < HEAD_NCASES; i++)
        check_fd(&head_cases[i], NULL, 0);
}

static void test_grad_fd_row_subset(void **state)
{
    (void)state;
    size_t rows[] = {3, 0, 3};
    check_fd(&head_cases[5], rows, 3); /* mos: repeated row counts twice */
    check_fd(&head_cases[7], rows, 3); /* lms --linear */
}

/* ---- degenerate cases ---------------------------------------------------- */

static void logq_all(const sbw_head *h, const double *theta, double *lq)
{
    for (size_t r = 0; r < h->n; r++)
        SBW_ASSERT_OK(sbw_obj_ref_logq(h, theta, r, lq + r * h->m));
}

static double max_abs(const double *x, size_t n)
{
    double mx = 0;
    for (size_t i = 0; i < n; i++)
        mx = fmax(mx, fabs(x[i]));
    return mx;
}

/* log Q of every context by the fast objective (sbw_obj_logq: blocked,
 * two threads, float GEMMs and kernels when single); the target only
 * sizes the problem. */
static void logq_fast(const sbw_head *h, const double *theta, bool single, double *lq)
{
    sbw_mat a;
    sbw_target t;
    sbw_obj *o;
    sbw_obj_result res;
    sbw_obj_opts opt = {single, 2, 3, SBW_PASS_PAR_BLOCKS, false};
    random_logp(&a, h->n, h->m, 1.0, 77);
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, single, 1e-9));
    SBW_ASSERT_OK(sbw_obj_alloc(&o, h, &t, &opt));
    SBW_ASSERT_OK(sbw_obj_logq(o, theta, 0, h->n, lq, NULL, &res));
    sbw_obj_free(o);
    sbw_target_free(&t);
    sbw_mat_free(&a);
}

/* The magnitude of a softmax head's logits z = W h + b, max over contexts
 * and words of |b_i| + sum_j |W_ij h_j|: z's roundoff is a few eps times
 * it (D eps times it for a GEMM). */
static double logit_scale(const sbw_head *h, const double *theta)
{
    const double *W = theta + h->off_w, *b = theta + h->off_b;
    double mx = 0;
    for (size_t r = 0; r < h->n; r++)
        for (size_t i = 0; i < h->m; i++) {
            double a = h->bias ? fabs(b[i]) : 0;
            for (size_t j = 0; j < h->d; j++)
                a += fabs(W[i * h->d + j] * theta[h->off_h + r * h->d + j]);
            mx = fmax(mx, a);
        }
    return mx;
}

/* PLIF with every slope 1 is f(z) = z + T: the same Q as softmax, in the
 * naive twin and in the fast objective in both precisions.  The fast PLIF
 * and softmax heads see the same logits (same GEMM); cum + s (z - knot)
 * is z + T up to a few roundings of |z| + 2T, and log-softmax moves by at
 * most twice the largest change. */
static void test_plif_unit_slopes_is_softmax(void **state)
{
    (void)state;
    size_t n = 4, m = 13, d = 3;
    sbw_head hp, hs;
    SBW_ASSERT_OK(sbw_head_setup(&hp, SBW_MODEL_PLIF, n, m, d, 0, 9, 0.8, true, false));
    SBW_ASSERT_OK(sbw_head_setup(&hs, SBW_MODEL_SOFTMAX, n, m, d, 0, 0, 0, true, false));
    double *tp = malloc(hp.nparam * sizeof *tp), *ts = malloc(hs.nparam * sizeof *ts);
    double *lp = malloc(n * m * sizeof *lp), *ls = malloc(n * m * sizeof *ls);
    SBW_ASSERT_OK(sbw_head_init(&hp, tp, 5, 1.5)); /* logits spill outside [-T, T] */
    random_fill(tp + hp.off_b, m, 0, 1, 5, 9);
    for (size_t i = 0; i < 9; i++)
        tp[hp.off_plif + i] = sbw_head_softplus_inv(1.0);
    memcpy(ts, tp, hs.nparam * sizeof *ts);                   /* W, b first ... */
    memcpy(ts + hs.off_h, tp + hp.off_h, n * d * sizeof *ts); /* ... and H */
    logq_all(&hp, tp, lp);
    logq_all(&hs, ts, ls);
    SBW_ASSERT_CLOSE(lp, ls, n * m, 64 * DBL_EPSILON * (1 + max_abs(ls, n * m)), 0);
    double zs = logit_scale(&hs, ts) + 2 * hp.plif_t;
    for (int single = 0; single < 2; single++) {
        double eps = single ? FLT_EPSILON : DBL_EPSILON;
        logq_fast(&hp, tp, single, lp);
        logq_fast(&hs, ts, single, ls);
        SBW_ASSERT_CLOSE(lp, ls, n * m, 8 * eps * (1 + zs), 0);
    }
    free(tp), free(ts), free(lp), free(ls);
}

/* MoS and MoC with K = 1: pi = 1, so Q = softmax(W tanh(U h) + b), in the
 * naive twin and in the fast objective in both precisions (against the
 * fast softmax head on H' = tanh(U h) in the same precision).  Fast MoS
 * forms log(exp(z - max z) / S) instead of z - lse: exp/log roundings and
 * that of z - max z, a few eps (1 + |log Q|); tanh(U h) by BLAS and
 * libmvec moves the logits by a few eps of their scale (in single, where
 * its float rounding happens to differ). */
static void check_k1(sbw_head_model model)
{
    size_t n = 5, m = 9, d = 4;
    sbw_head hm, hs;
    SBW_ASSERT_OK(sbw_head_setup(&hm, model, n, m, d, 1, 0, 0, true, false));
    SBW_ASSERT_OK(sbw_head_setup(&hs, SBW_MODEL_SOFTMAX, n, m, d, 0, 0, 0, true, false));
    double *tm = malloc(hm.nparam * sizeof *tm), *ts = malloc(hs.nparam * sizeof *ts);
    double *lm = malloc(n * m * sizeof *lm), *ls = malloc(n * m * sizeof *ls);
    SBW_ASSERT_OK(sbw_head_init(&hm, tm, 6, 0.9));
    random_fill(tm + hm.off_b, m, 0, 1, 6, 9);
    memcpy(ts, tm, (m * d + m) * sizeof *ts); /* W and b */
    const double *U = tm + hm.off_u;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < d; i++) {
            double a = 0;
            for (size_t j = 0; j < d; j++)
                a += U[i * d + j] * tm[hm.off_h + r * d + j];
            ts[hs.off_h + r * d + i] = tanh(a);
        }
    logq_all(&hm, tm, lm);
    logq_all(&hs, ts, ls);
    SBW_ASSERT_CLOSE(lm, ls, n * m, 16 * DBL_EPSILON * (1 + max_abs(ls, n * m)), 0);
    double zs = logit_scale(&hs, ts);
    for (int single = 0; single < 2; single++) {
        double eps = single ? FLT_EPSILON : DBL_EPSILON;
        logq_fast(&hm, tm, single, lm);
        logq_fast(&hs, ts, single, ls);
        SBW_ASSERT_CLOSE(lm, ls, n * m, 16 * eps * (1 + zs + max_abs(ls, n * m)), 0);
    }
    free(tm), free(ts), free(lm), free(ls);
}

/* Mixtape's gating kernels (double and float) against the naive twin,
 * which forms each prior as the product along its leaf's path and each
 * gate's gradient by the product rule: K = 1..8 (trees that are not
 * full for K = 3, 5), F = 13 of 37 words with their own gates, gl with
 * padding between words (ldg > K - 1).  Errors: y sums K products of
 * size max|z| (K eps each); the gradients sum K terms of |dy| |z|. */
static void check_mixtape_kern(size_t k, uint64_t seed)
{
    enum { M = 37, NF = 13, KM = 8 };
    size_t kg = k - 1, ldg = kg + 2;
    double z[KM * M], z2[KM * M], gl[NF * (KM + 1)], gl2[NF * (KM + 1)], s[KM], gb[NF * KM];
    double y[M], y2[M], dy[M], ds[KM], ds2[KM], yd[M];
    float zf[KM * M], yf[M], dyf[M];
    random_fill(z, k * M, 0, 2, seed, 1);
    random_fill(gl, NF * ldg, 0, 1.5, seed, 2);
    random_fill(s, kg + 1, 0, 1.5, seed, 3);
    random_fill(gb, NF * kg + 1, 0, 1, seed, 4);
    random_fill(dy, M, 0, 0.3, seed, 5);
    memcpy(z2, z, sizeof z), memcpy(gl2, gl, sizeof gl);
    sbw_head_kern_mixtape(z, k, M, gl, ldg, s, gb, NF, y);
    sbw_head_ref_mixtape(z2, k, M, gl2, ldg, s, gb, NF, y2);
    double zmax = max_abs(z, k * M), eps = DBL_EPSILON;
    SBW_ASSERT_CLOSE(y, y2, M, 4 * (double)k * eps * (1 + zmax), 0);
    SBW_ASSERT_CLOSE(gl, gl2, NF * ldg, 4 * eps, 0); /* the gammas (padding untouched) */
    /* float: z rounded to float, y in float, against the twin on that z */
    to_float(z, zf, k * M), to_double(zf, z2, k * M);
    memcpy(gl2, gl, sizeof gl);
    double glf[NF * (KM + 1)];
    random_fill(glf, NF * ldg, 0, 1.5, seed, 2);
    memcpy(gl2, glf, sizeof glf);
    sbw_head_kern_mixtape_f(zf, k, M, glf, ldg, s, gb, NF, yf);
    sbw_head_ref_mixtape(z2, k, M, gl2, ldg, s, gb, NF, y2);
    to_double(yf, yd, M);
    SBW_ASSERT_CLOSE(yd, y2, M, 4 * (double)k * FLT_EPSILON * (1 + zmax), 0);
    /* backward from the gammas the forward left */
    memcpy(z2, z, sizeof z), memcpy(gl2, gl, sizeof gl);
    sbw_head_kern_mixtape_back(z, k, M, gl, ldg, s, NF, dy, ds);
    sbw_head_ref_mixtape_back(z2, k, M, gl2, ldg, s, NF, dy, ds2);
    double gtol = 8 * (double)k * eps * (1 + zmax) * max_abs(dy, M);
    SBW_ASSERT_CLOSE(z, z2, k * M, gtol, 0);
    SBW_ASSERT_CLOSE(gl, gl2, NF * ldg, gtol, 0);
    SBW_ASSERT_CLOSE(ds, ds2, kg, (double)M * gtol, 0);
    /* float backward against the twin on the float-rounded inputs */
    to_float(dy, dyf, M), to_double(dyf, dy, M);
    random_fill(z2, k * M, 0, 2, seed, 1);
    to_float(z2, zf, k * M), to_double(zf, z2, k * M);
    memcpy(gl, glf, sizeof glf), memcpy(gl2, glf, sizeof glf);
    sbw_head_kern_mixtape_back_f(zf, k, M, gl, ldg, s, NF, dyf, ds);
    sbw_head_ref_mixtape_back(z2, k, M, gl2, ldg, s, NF, dy, ds2);
    to_double(zf, z, k * M);
    double ftol = 8 * (double)k * FLT_EPSILON * (1 + zmax) * max_abs(dy, M);
    SBW_ASSERT_CLOSE(z, z2, k * M, ftol, 0);
    SBW_ASSERT_CLOSE(gl, gl2, NF * ldg, gtol, 0); /* the gates stay in double */
    SBW_ASSERT_CLOSE(ds, ds2, kg, (double)M * gtol, 0);
}

static void test_kern_mixtape(void **state)
{
    (void)state;
    for (size_t k = 1; k <= 8; k++)
        check_mixtape_kern(k, 40 + k);
}

/* K = 4 is the paper's tree (Yang et al. 2019, section 3.2): pi_1 =
 * g1 g2, pi_2 = g1 (1 - g2), pi_3 = (1 - g1) g3, pi_4 = (1 - g1)(1 -
 * g3), g_j = sigma(l_j); read off the kernel with z = the indicator rows
 * of one component (y = pi_c), for a frequent and a shared word. */
static void test_mixtape_paper_tree(void **state)
{
    (void)state;
    enum { M = 3, K = 4 };
    double s[3] = {0.3, -1.2, 2.0}, gb[3] = {0.5, 0.25, -0.75}, l0[3] = {1.0, -0.5, 0.2};
    for (size_t c = 0; c < K; c++) {
        double z[K * M] = {0}, gl[3], y[M];
        memcpy(gl, l0, sizeof gl);
        for (size_t x = 0; x < M; x++)
            z[c * M + x] = 1;
        sbw_head_kern_mixtape(z, K, M, gl, 3, s, gb, 1, y); /* word 0 frequent */
        for (size_t x = 0; x < M; x++) {
            double g[3];
            for (size_t j = 0; j < 3; j++)
                g[j] = 1 / (1 + exp(-(x == 0 ? l0[j] + s[j] + gb[j] : s[j])));
            double pi[K] = {g[0] * g[1], g[0] * (1 - g[1]), (1 - g[0]) * g[2],
                            (1 - g[0]) * (1 - g[2])};
            SBW_ASSERT_NEAR(y[x], pi[c], 4 * DBL_EPSILON);
        }
    }
}

static void test_mixture_k1_is_softmax(void **state)
{
    (void)state;
    check_k1(SBW_MODEL_MOS);
    check_k1(SBW_MODEL_MOC);
    check_k1(SBW_MODEL_MIXTAPE);
}

/* Whether, in every context (row of lq and ls, n x m), Q's largest value
 * is within tol of its value at the first argmax of ls = log softmax(z)
 * (which has z's order). */
static void check_argmax_kept(const double *lq, const double *ls, size_t n, size_t m, double tol)
{
    for (size_t r = 0; r < n; r++) {
        const double *q = lq + r * m, *z = ls + r * m;
        size_t az = 0;
        for (size_t j = 1; j < m; j++)
            az = z[j] > z[az] ? j : az;
        double best = q[0];
        for (size_t j = 1; j < m; j++)
            best = fmax(best, q[j]);
        SBW_ASSERT_GE(q[az], best - tol);
    }
}

/* The largest drop a fast map may make between increasing logits (see
 * test_kern_maps_monotone): 0 for PLIF, 4 eps sum v for LMS (its linear
 * term is exact), 2 eps max(1, |ss(z)|) <= 2 eps (1 + 2 |z|) for
 * sigsoftmax; log Q keeps differences of the mapped logits to an ulp of
 * double. */
static double map_drop(const sbw_head *h, const double *theta, double eps, double zs)
{
    if (h->map == SBW_MAP_PLIF)
        return 0;
    if (h->map == SBW_MAP_SS)
        return 2 * eps * (1 + 2 * zs) + 4 * DBL_EPSILON * (1 + 2 * zs);
    double u[8], v[8], c[8], lambda, vsum = 0;
    SBW_ASSERT_LE(h->k, 8);
    sbw_head_map_params(h, theta, u, v, c, &lambda, NULL, NULL);
    for (size_t i = 0; i < h->k; i++)
        vsum += v[i];
    return 4 * eps * vsum + 4 * DBL_EPSILON * (vsum + lambda * zs);
}

/* Monotone heads: the argmax of the logits is among the argmaxes of Q,
 * in the naive twin exactly and in the fast objective in both precisions
 * (the same logits as the fast softmax head, same GEMM): exactly for PLIF,
 * whose fast map is non-decreasing by construction; for LMS and
 * sigsoftmax up to map_drop, their float and double maps being monotone
 * only to a few ulps (libmvec exp). */
static void check_monotone(sbw_head_model model, size_t k, size_t knots, bool linear)
{
    size_t n = 40, m = 23, d = 3;
    sbw_head h, hs;
    SBW_ASSERT_OK(sbw_head_setup(&h, model, n, m, d, k, knots, 2.0, true, linear));
    SBW_ASSERT_OK(sbw_head_setup(&hs, SBW_MODEL_SOFTMAX, n, m, d, 0, 0, 0, true, false));
    /* lq and zs are filled row by row below; calloc because clang-analyzer
     * cannot see that h.n and hs.n are n. */
    double *th = malloc(h.nparam * sizeof *th), *lq = calloc(n * m, sizeof *lq);
    double *zs = calloc(n * m, sizeof *zs), *ts = malloc(hs.nparam * sizeof *ts);
    SBW_ASSERT_OK(sbw_head_init(&h, th, 8, 2.0)); /* wide logits: saturation, ties */
    random_fill(th + h.off_lms, h.lms_len, 0, 1.5, 8, 7);
    random_fill(th + h.off_plif, h.knots, 0, 2, 8, 8);
    memcpy(ts, th, (m * d + m) * sizeof *ts);
    memcpy(ts + hs.off_h, th + h.off_h, n * d * sizeof *ts);
    logq_all(&h, th, lq);
    logq_all(&hs, ts, zs); /* log softmax(z): the same order as z */
    check_argmax_kept(lq, zs, n, m, 0);
    for (int single = 0; single < 2; single++) {
        logq_fast(&h, th, single, lq);
        logq_fast(&hs, ts, single, zs);
        double eps = single ? FLT_EPSILON : DBL_EPSILON;
        check_argmax_kept(lq, zs, n, m, map_drop(&h, th, eps, logit_scale(&hs, ts)));
    }
    free(th), free(lq), free(zs), free(ts);
}

static void test_monotone_heads_keep_argmax(void **state)
{
    (void)state;
    check_monotone(SBW_MODEL_SIGSOFTMAX, 0, 0, false);
    check_monotone(SBW_MODEL_LMS, 4, 0, false);
    check_monotone(SBW_MODEL_LMS, 4, 0, true);
    check_monotone(SBW_MODEL_PLIF, 0, 11, false);
}

/* ---- setup errors --------------------------------------------------------- */

static void test_head_setup_errors(void **state)
{
    (void)state;
    sbw_head h;
    sbw_head_model mo;
    assert_int_equal(sbw_head_model_parse("mos", &mo), SBW_OK);
    assert_int_equal(mo, SBW_MODEL_MOS);
    assert_int_equal(sbw_head_model_parse("mos+plif", &mo), SBW_OK);
    assert_int_equal(mo, SBW_MODEL_MOS_PLIF);
    assert_int_equal(sbw_head_model_parse("softmaxx", &mo), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, 3, 5, 0, 0, 0, 0, 0, 0), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, 3, 5, 6, 0, 0, 0, 0, 0), SBW_EINVAL);
    /* words are indexed in 32 bits by the float kernels */
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, 3, UINT32_MAX, 6, 0, 0, 0, 0, 0),
                     SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "2^32"));
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_MOS, 3, 5, 2, 0, 0, 0, 0, 0), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_LMS, 3, 5, 2, 0, 0, 0, 0, 0), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_PLIF, 3, 5, 2, 0, 0, 1, 0, 0), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_PLIF, 3, 5, 2, 0, 4, 0, 0, 0), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_MOS, 3, 5, 2, 2, 0, 0, 0, 1), SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, SIZE_MAX / 2, 5, 5, 0, 0, 0, 0, 0),
                     SBW_EINVAL);
    assert_int_equal(sbw_head_setup(&h, SBW_MODEL_MOS, 7, 5, 2, 3, 0, 0, 1, 0), SBW_OK);
    assert_int_equal(h.nparam, 5 * 2 + 5 + 3 * 4 + 3 * 2 + 7 * 2);
    assert_int_equal(h.nshared, h.off_h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kern_softmax),
        cmocka_unit_test(test_kern_mixture),
        cmocka_unit_test(test_kern_maps),
        cmocka_unit_test(test_kern_mixtape),
        cmocka_unit_test(test_mixtape_paper_tree),
        cmocka_unit_test(test_kern_float_softmax_mixture),
        cmocka_unit_test(test_kern_float_maps),
        cmocka_unit_test(test_kern_float_sums_in_double),
        cmocka_unit_test(test_kern_maps_monotone),
        cmocka_unit_test(test_grad_fd_all_heads),
        cmocka_unit_test(test_grad_fd_row_subset),
        cmocka_unit_test(test_plif_unit_slopes_is_softmax),
        cmocka_unit_test(test_mixture_k1_is_softmax),
        cmocka_unit_test(test_monotone_heads_keep_argmax),
        cmocka_unit_test(test_kern_softmax_f_argmax_first_tie),
        cmocka_unit_test(test_head_setup_errors),
    };
    return cmocka_run_group_tests_name("fit_head", tests, NULL, NULL);
}
