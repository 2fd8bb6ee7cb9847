/* test_bound.c -- Eckart-Young bounds for Softmax heads: closed forms on
 * matrices of chosen spectrum (A = U diag(s) V^T, with the ones vector
 * placed among the singular vectors or kept out of them), shift-aware >=
 * Theorem 1, the Pythagorean split of the constructed solution's error
 * (against logits and log Z built in the test: from U, s, V on matrices of
 * chosen spectrum, by LAPACK dgesvd on languages), exactness of biased
 * heads, fit errors against brute force, errors. */
#include "sbw_bound.h"
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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TOL 8.0 /* "a few eps": see test_svd.c */

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 2019, stream));
    return r;
}

static char *save_tmp(const char *name, const sbw_mat *a)
{
    char *p = strdup(sbw_test_path(name));
    SBW_ASSERT_OK(sbw_npy_save(p, a, SBW_F64));
    return p;
}

/* sigma(A) and sigma(A_c) (double-centred with bias) through the library. */
static void bound_spectra(const char *path, bool bias, sbw_reduce_method m, const char *fit,
                          sbw_spectra *sp, sbw_bound_fit_error *fe)
{
    sbw_npy_reader *r = NULL;
    sbw_reduce_opts o = {.method = m, .block_rows = 5, .workers = 2};
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    SBW_ASSERT_OK(sbw_bound_spectra(r, bias, fit, &o, sp, fe));
    sbw_npy_close(r);
}

static double frob(const sbw_mat *a)
{
    double s = 0;
    for (size_t i = 0; i < a->rows * a->cols; i++)
        s += a->data[i] * a->data[i];
    return sqrt(s);
}

/* ---- closed forms ----------------------------------------------------------- */

static void test_tails(void **state)
{
    (void)state;
    const double s[] = {3, 2, 1};
    double t[4];
    sbw_bound_tails(s, 3, t);
    const double want[] = {14, 5, 1, 0};
    SBW_ASSERT_CLOSE(t, want, 4, 0, 0);
    SBW_ASSERT_NEAR(sbw_bound_lms(t, 3, 0, false), sqrt(5.0), 0);
    SBW_ASSERT_NEAR(sbw_bound_lms(t, 3, 0, true), 1.0, 0);
    SBW_ASSERT_NEAR(sbw_bound_lms(t, 3, 1, true), 0.0, 0);
    SBW_ASSERT_NEAR(sbw_bound_lms(t, 3, 7, false), 0.0, 0);
    SBW_ASSERT_NEAR(sbw_bound_shift(t, 3, 0), sqrt(14.0), 0);
    SBW_ASSERT_NEAR(sbw_bound_shift(t, 3, 2), 1.0, 0);
    SBW_ASSERT_NEAR(sbw_bound_shift(t, 3, 3), 0.0, 0);
    /* small tails keep their digits: summed from the small end */
    const double s2[] = {1e8, 1e-4, 1e-4};
    sbw_bound_tails(s2, 3, t);
    SBW_ASSERT_NEAR(t[1], 2e-8, 1e-24);
}

/* sqrt of the tail sums of want[] from index j, 0 past k. */
static double tail_of(const double *want, size_t k, size_t j)
{
    double acc = 0;
    for (size_t i = k; i-- > j;)
        acc += want[i] * want[i];
    return sqrt(acc);
}

/* s without entry skip (skip >= k: unchanged), zero-padded to n. */
static void drop(const double *s, size_t k, long skip, double *out, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < k; i++)
        if ((long)i != skip)
            out[o++] = s[i];
    while (o < n)
        out[o++] = 0;
}

typedef struct config {
    long u_ones, v_ones; /* column holding the ones vector in U / V (-1: none) */
    long rows_drop;      /* which s_j the row centring removes (-1: none) */
    long both_drop;      /* which s_j the double centring removes */
} config;

/* The known-spectrum cases: where the ones vectors sit, and so which s_j
 * each centring removes. */
static const config known_cfgs[] = {
    {-1, -1, -1, -1}, /* ones outside both: centring changes nothing */
    {-1, 0, 0, 0},    /* 1/sqrt(M) is the top right vector: A_c loses s_0 */
    {-1, 4, 4, 4},    /* ... or a middle one: A_c loses s_4 */
    {3, -1, -1, 3},   /* 1/sqrt(N) a left vector: only double centring drops s_3 */
    {6, 6, 6, 6},     /* both: s_6 u_6 v_6^T is a constant matrix */
};

/* Shape and rank of the known-spectrum matrices. */
enum { KN = 23, KM = 17, KK = 15 };

/* A (KN, KM) = U diag(s) V^T, s_i = 10 * 0.6^i (KK of them), U and V
 * orthonormal with the ones vectors where cfg says. */
static void known_usv(const config *cfg, gsl_rng *rng, double *s, sbw_mat *u, sbw_mat *v,
                      sbw_mat *a)
{
    for (int i = 0; i < KK; i++)
        s[i] = 10.0 * pow(0.6, i);
    SBW_ASSERT_OK(tm_orthonormal(u, KN, KK, cfg->u_ones, rng));
    SBW_ASSERT_OK(tm_orthonormal(v, KM, KK, cfg->v_ones, rng));
    SBW_ASSERT_OK(tm_usv(a, u, s, v));
}

/* A = U diag(s) V^T with the ones vectors where cfg says: every bound at
 * every d equals its closed form, on the direct and the TSQR path. */
static void check_config(const config *cfg, gsl_rng *rng)
{
    enum { M = KM, K = KK };
    double s[K], sp_plain[M], sp_rows[M], sp_both[M];
    sbw_mat u = {0}, v = {0}, a = {0};
    known_usv(cfg, rng, s, &u, &v, &a);
    char *path = save_tmp("usv.npy", &a);
    drop(s, K, -1, sp_plain, M);
    drop(s, K, cfg->rows_drop, sp_rows, M);
    drop(s, K, cfg->both_drop, sp_both, M);
    double tol = TOL * DBL_EPSILON * s[0] * sqrt(M);
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++)
        for (int bias = 0; bias <= 1; bias++) {
            sbw_spectra sp;
            double t[M + 1], tc[M + 1];
            bound_spectra(path, bias, (sbw_reduce_method)m, NULL, &sp, NULL);
            sbw_bound_tails(sp.s[SBW_VAR_PLAIN], M, t);
            sbw_bound_tails(sp.s[bias ? SBW_VAR_BOTH : SBW_VAR_ROWS], M, tc);
            for (size_t d = 0; d <= M + 1; d++) {
                double lms = sbw_bound_lms(t, M, d, bias), sh = sbw_bound_shift(tc, M, d);
                SBW_ASSERT_NEAR(lms, tail_of(sp_plain, M, d + 1 + (size_t)bias), tol);
                SBW_ASSERT_NEAR(sh, tail_of(bias ? sp_both : sp_rows, M, d), tol);
                SBW_ASSERT_GE(sh, lms - tol);
            }
            sbw_spectra_free(&sp);
        }
    free(path);
    sbw_mat_free(&u);
    sbw_mat_free(&v);
    sbw_mat_free(&a);
}

static void test_known_spectrum(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(1);
    for (size_t i = 0; i < sizeof known_cfgs / sizeof *known_cfgs; i++)
        check_config(&known_cfgs[i], rng);
    sbw_rng_free(rng);
}

/* On log-probability matrices: shift-aware >= Theorem 1 at every d. */
static void test_shift_dominates(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(2);
    const size_t sh[][2] = {{40, 15}, {15, 40}, {90, 12}};
    for (int i = 0; i < 3; i++)
        for (int kind = 0; kind < 2; kind++) {
            sbw_mat a = {0};
            if (kind == 0)
                SBW_ASSERT_OK(tm_dirichlet_logp(&a, sh[i][0], sh[i][1], 0.3, rng));
            else
                SBW_ASSERT_OK(tm_lowrank_logp(&a, sh[i][0], sh[i][1], 4, 3.0, false, rng));
            char *path = save_tmp("dom.npy", &a);
            for (int bias = 0; bias <= 1; bias++) {
                sbw_spectra sp;
                bound_spectra(path, bias, SBW_METHOD_AUTO, NULL, &sp, NULL);
                size_t k = sp.k;
                double t[41], tc[41], tol = TOL * DBL_EPSILON * sp.s[0][0] * sqrt((double)k);
                sbw_bound_tails(sp.s[SBW_VAR_PLAIN], k, t);
                sbw_bound_tails(sp.s[bias ? SBW_VAR_BOTH : SBW_VAR_ROWS], k, tc);
                for (size_t d = 0; d <= k; d++)
                    if (sbw_bound_shift(tc, k, d) < sbw_bound_lms(t, k, d, bias) - tol)
                        fail_msg("d %zu: shift %.17g < lms %.17g", d, sbw_bound_shift(tc, k, d),
                                 sbw_bound_lms(t, k, d, bias));
                sbw_spectra_free(&sp);
            }
            free(path);
            sbw_mat_free(&a);
        }
    sbw_rng_free(rng);
}

/* ---- the constructed solution ----------------------------------------------- */

/* Logits of the exact rank-d solution, built here without the library:
 * A centred naively (double-centred with bias), LAPACK dgesvd (not the
 * library's dgesdd) for its right singular vectors V_d, L = C V_d V_d^T by
 * plain loops, plus 1 mu^T with bias (mu the column means of A).  l is
 * allocated here (N x M). */
static void ref_logits(const sbw_mat *a, size_t d, bool bias, sbw_mat *l)
{
    size_t n = a->rows, m = a->cols, k = n < m ? n : m;
    sbw_mat c = {0}, vt = {0}, h = {0};
    double s[64], superb[64], mu[64] = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, n, m));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    tm_centre(&c, true, bias);
    SBW_ASSERT_OK(sbw_mat_alloc(&vt, k, m));
    SBW_ASSERT_OK(sbw_mat_alloc(&h, n, m));
    SBW_ASSERT_OK(sbw_mat_copy(&h, &c)); /* dgesvd overwrites its input */
    assert_int_equal(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'S', (int)n, (int)m, h.data, (int)h.ld,
                                    s, NULL, 1, vt.data, (int)vt.ld, superb),
                     0);
    for (size_t j = 0; bias && j < m; j++)
        for (size_t i = 0; i < n; i++)
            mu[j] += SBW_MAT_AT(a, i, j) / (double)n;
    SBW_ASSERT_OK(sbw_mat_alloc(l, n, m));
    size_t dd = d < k ? d : k;
    for (size_t i = 0; i < n; i++) {
        double hi[64];
        for (size_t p = 0; p < dd; p++) { /* h_i = c_i V_d */
            hi[p] = 0;
            for (size_t j = 0; j < m; j++)
                hi[p] += SBW_MAT_AT(&c, i, j) * SBW_MAT_AT(&vt, p, j);
        }
        for (size_t j = 0; j < m; j++) {
            double acc = mu[j];
            for (size_t p = 0; p < dd; p++)
                acc += hi[p] * SBW_MAT_AT(&vt, p, j);
            SBW_MAT_AT(l, i, j) = acc;
        }
    }
    sbw_mat_free(&c);
    sbw_mat_free(&vt);
    sbw_mat_free(&h);
}

/* The Pythagorean split of the constructed log Q's error, from the files
 * and the test's own logits L (never from log Q's normalisation): err2 =
 * ||A - log Q||^2 and norm2 = M sum_i (mean_i(A) - mean_i(L) + log Z_i)^2,
 * log Z_i = logsumexp(L_i) -- the row means of A - (L - log Z 1^T);
 * mean_i(L) = 0 without bias (V_d is orthogonal to the ones vector).
 * Also checks every row of log Q is normalised, and, when qtol >= 0,
 * log Q = L - log Z 1^T entrywise to qtol. */
static void split_terms(const sbw_mat *a, const sbw_mat *q, const sbw_mat *l, double qtol,
                        double *err2, double *norm2)
{
    size_t n = a->rows, m = a->cols;
    *err2 = *norm2 = 0;
    for (size_t i = 0; i < n; i++) {
        double ma = 0, ml = 0, big = 0;
        for (size_t j = 0; j < m; j++) {
            double dv = SBW_MAT_AT(a, i, j) - SBW_MAT_AT(q, i, j);
            *err2 += dv * dv;
            ma += SBW_MAT_AT(a, i, j) / (double)m;
            ml += SBW_MAT_AT(l, i, j) / (double)m;
            big = fmax(big, fabs(SBW_MAT_AT(q, i, j)));
        }
        double logz = sbw_num_logsumexp(&SBW_MAT_AT(l, i, 0), m);
        *norm2 += (double)m * (ma - ml + logz) * (ma - ml + logz);
        for (size_t j = 0; qtol >= 0 && j < m; j++)
            if (fabs(SBW_MAT_AT(q, i, j) - (SBW_MAT_AT(l, i, j) - logz)) > qtol)
                fail_msg("log Q[%zu][%zu] = %.17g, L - log Z = %.17g (tolerance %.3g)", i, j,
                         SBW_MAT_AT(q, i, j), SBW_MAT_AT(l, i, j) - logz, qtol);
        SBW_ASSERT_NEAR(sbw_num_logsumexp(&SBW_MAT_AT(q, i, 0), m), 0.0, 16 * DBL_EPSILON * big);
    }
}

/* The shift-aware bound squared by brute force: tail sum of sigma^2 of
 * the naively centred A (Jacobi twin) from index d. */
static double twin_bound2(const sbw_mat *a, size_t d, bool bias)
{
    size_t k = a->rows < a->cols ? a->rows : a->cols;
    sbw_mat c = {0};
    double s[64];
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    tm_centre(&c, true, bias);
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, s));
    sbw_mat_free(&c);
    return d < k ? pow(tail_of(s, k, d), 2) : 0;
}

/* Rank of the centred log Q: its singular values (Jacobi twin) above the
 * NR threshold taken at the scale of log Q itself -- centring an exactly
 * rank-0 matrix (identical rows) leaves eps-sized noise that a threshold
 * relative to the noise's own sigma_0 would count. */
static size_t centred_rank(const sbw_mat *q, bool bias)
{
    sbw_mat c = {0};
    double s[64], s0[64];
    size_t k = q->rows < q->cols ? q->rows : q->cols, r = 0;
    SBW_ASSERT_OK(sbw_mat_alloc(&c, q->rows, q->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, q));
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, s0));
    tm_centre(&c, true, bias);
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, s));
    double tsh = 0.5 * sqrt((double)(q->rows + q->cols + 1)) * s0[0] * DBL_EPSILON;
    while (r < k && s[r] > tsh)
        r++;
    sbw_mat_free(&c);
    return r;
}

static void check_construct(const sbw_mat *a, const char *path, size_t d, bool bias,
                            sbw_reduce_method m, size_t dstar)
{
    const char *out = sbw_test_path("q.npy");
    sbw_reduce_opts o = {.method = m, .block_rows = 4, .workers = 2};
    sbw_bound_construction res;
    sbw_mat q = {0};
    SBW_ASSERT_OK(sbw_bound_construct(path, out, d, bias, &o, &res));
    SBW_ASSERT_OK(sbw_npy_load(out, &q, NULL));
    sbw_mat l = {0};
    ref_logits(a, d, bias, &l);
    double err2, norm2, fa = frob(a), tol = 64 * DBL_EPSILON * fa * fa;
    double bound2 = twin_bound2(a, d, bias);
    split_terms(a, &q, &l, -1, &err2, &norm2);
    /* the Pythagorean split: the files against the test's own solution */
    SBW_ASSERT_NEAR(err2, bound2 + norm2, tol);
    /* the library's own account agrees */
    SBW_ASSERT_NEAR(res.err.error * res.err.error, err2, tol);
    SBW_ASSERT_NEAR(res.err.centred * res.err.centred, bound2, tol);
    SBW_ASSERT_NEAR(res.err.norm * res.err.norm, norm2, tol);
    /* a Softmax head of dimension d: centred log Q has rank <= d */
    if (centred_rank(&q, bias) > d)
        fail_msg("d %zu bias %d method %d: centred rank of log Q %zu", d, bias, m,
                 centred_rank(&q, bias));
    if (d >= dstar) /* exact from d* on */
        SBW_ASSERT_NEAR(res.err.error, 0.0, 64 * DBL_EPSILON * fa);
    else
        SBW_ASSERT_GT(res.err.error, 1e-6 * fa);
    sbw_mat_free(&q);
    sbw_mat_free(&l);
}

/* The construction on check_config's A = U diag(s) V^T, whose centred
 * matrix is known exactly: A minus s_j u_j v_j^T for the j whose vector
 * is the ones vector (none: A itself).  So the rank-d solution's logits
 * are the top d kept terms (+ 1 mu^T with bias, mu the column means of
 * A), built here from U, s and V, and the bound squared is the closed-form
 * tail of the kept s^2.  These A are not log-probabilities: the error
 * never vanishes; from d* on it is the normalisation term alone. */
static void check_construct_known(const config *cfg, gsl_rng *rng)
{
    enum { N = KN, M = KM, K = KK };
    double s[K];
    sbw_mat u = {0}, v = {0}, a = {0}, q = {0}, l = {0};
    known_usv(cfg, rng, s, &u, &v, &a);
    SBW_ASSERT_OK(sbw_mat_alloc(&l, N, M));
    char *path = save_tmp("usv_c.npy", &a);
    const char *out = sbw_test_path("q_usv.npy");
    /* log Q entrywise at sigma_0 sqrt(M) (measured: under 1 eps sigma_0 sqrt(M)) */
    double fa = frob(&a), qtol = 16 * DBL_EPSILON * s[0] * sqrt(M);
    for (int bias = 0; bias <= 1; bias++) {
        long drop = bias ? cfg->both_drop : cfg->rows_drop;
        size_t kept[K] = {0}, nk = 0; /* {0}: cppcheck misses that only kept[< nk] is read */
        for (size_t i = 0; i < K; i++)
            if ((long)i != drop)
                kept[nk++] = i;
        double mu[M] = {0};
        for (size_t j = 0; bias && j < M; j++)
            for (size_t i = 0; i < N; i++)
                mu[j] += SBW_MAT_AT(&a, i, j) / N;
        const size_t ds[] = {0, 1, 4, nk - 1, nk, M};
        for (size_t di = 0; di < sizeof ds / sizeof *ds; di++) {
            size_t d = ds[di], dd = d < nk ? d : nk;
            double bound2 = 0;
            for (size_t p = nk; p-- > dd;)
                bound2 += s[kept[p]] * s[kept[p]];
            for (size_t i = 0; i < N; i++)
                for (size_t j = 0; j < M; j++) {
                    double acc = mu[j];
                    for (size_t p = 0; p < dd; p++)
                        acc += SBW_MAT_AT(&u, i, kept[p]) * s[kept[p]] * SBW_MAT_AT(&v, j, kept[p]);
                    SBW_MAT_AT(&l, i, j) = acc;
                }
            for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++) {
                sbw_reduce_opts o = {.method = (sbw_reduce_method)m, .block_rows = 4, .workers = 2};
                sbw_bound_construction res;
                double err2, norm2;
                SBW_ASSERT_OK(sbw_bound_construct(path, out, d, bias, &o, &res));
                assert_int_equal(res.d, d < M ? d : M);
                SBW_ASSERT_OK(sbw_npy_load(out, &q, NULL));
                split_terms(&a, &q, &l, qtol, &err2, &norm2);
                /* squared norms of A - log Q: at (|A|_F + |log Q|_F)^2 */
                double tol = 64 * DBL_EPSILON * pow(fa + frob(&q), 2);
                SBW_ASSERT_NEAR(err2, bound2 + norm2, tol);
                SBW_ASSERT_NEAR(res.err.centred * res.err.centred, bound2, tol);
                SBW_ASSERT_NEAR(res.err.norm * res.err.norm, norm2, tol);
                SBW_ASSERT_NEAR(res.err.error * res.err.error, err2, tol);
                SBW_ASSERT_GT(norm2, 1e-3 * fa * fa); /* the split is not 0 = 0 */
                sbw_mat_free(&q);
            }
        }
    }
    free(path);
    sbw_mat_free(&u);
    sbw_mat_free(&v);
    sbw_mat_free(&a);
    sbw_mat_free(&l);
}

static void test_construct_known_spectrum(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(7);
    for (size_t i = 0; i < sizeof known_cfgs / sizeof *known_cfgs; i++)
        check_construct_known(&known_cfgs[i], rng);
    sbw_rng_free(rng);
}

static void test_construct_split(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(3);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 31, 13, 0.5, rng)); /* d* = 12 */
    char *path = save_tmp("lang.npy", &a);
    const size_t ds[] = {0, 1, 4, 11, 12, 13, 40};
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++)
        for (int bias = 0; bias <= 1; bias++)
            for (size_t i = 0; i < sizeof ds / sizeof *ds; i++)
                check_construct(&a, path, ds[i], bias, (sbw_reduce_method)m, 12);
    free(path);
    sbw_mat_free(&a);
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 9, 30, 0.5, rng)); /* wide: d* = 8 */
    path = save_tmp("wide.npy", &a);
    for (size_t d = 0; d <= 9; d += 3)
        check_construct(&a, path, d, false, SBW_METHOD_AUTO, 8);
    free(path);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* A language made by a biased head of dimension d: with --bias, d* = d, the
 * bounds vanish at d and the construction reproduces it; without, d + 1. */
static void test_bias_exact(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(4);
    enum { N = 40, M = 15, D = 3 };
    sbw_mat h = {0}, wt = {0}, a = {0};
    SBW_ASSERT_OK(tm_gauss(&h, N, D, rng));
    SBW_ASSERT_OK(tm_gauss(&wt, D, M, rng));
    SBW_ASSERT_OK(tm_mul(&a, &h, &wt));
    for (size_t j = 0; j < M; j++) {
        double b = 3.0 * gsl_ran_gaussian(rng, 1.0);
        for (size_t i = 0; i < N; i++)
            SBW_MAT_AT(&a, i, j) += b;
    }
    tm_log_softmax(&a);
    char *path = save_tmp("biased.npy", &a);
    double fa = frob(&a), tol = TOL * DBL_EPSILON * fa * sqrt(M);
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++)
        for (int bias = 0; bias <= 1; bias++) {
            sbw_spectra sp;
            sbw_rank_est e;
            double t[M + 1], tc[M + 1];
            bound_spectra(path, bias, (sbw_reduce_method)m, NULL, &sp, NULL);
            sbw_reduce_variant vc = bias ? SBW_VAR_BOTH : SBW_VAR_ROWS;
            SBW_ASSERT_OK(sbw_rank_estimate(sp.s[vc], M, N, M, DBL_EPSILON, &e));
            assert_int_equal(e.rank, bias ? D : D + 1);
            sbw_bound_tails(sp.s[SBW_VAR_PLAIN], M, t);
            sbw_bound_tails(sp.s[vc], M, tc);
            SBW_ASSERT_NEAR(sbw_bound_shift(tc, M, e.rank), 0.0, tol);
            SBW_ASSERT_NEAR(sbw_bound_lms(t, M, D, true), 0.0, tol); /* from d + 3 */
            SBW_ASSERT_GT(sbw_bound_shift(tc, M, e.rank - 1), 1e-3 * fa);
            sbw_spectra_free(&sp);
            check_construct(&a, path, D, bias, (sbw_reduce_method)m, bias ? D : D + 1);
        }
    free(path);
    sbw_mat_free(&h);
    sbw_mat_free(&wt);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* ---- fits ---------------------------------------------------------------- */

static void test_fit_error(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(5);
    sbw_mat a = {0}, q = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 60, 11, 1.0, rng));
    SBW_ASSERT_OK(tm_lowrank_logp(&q, 60, 11, 3, 1.0, false, rng));
    char *pa = save_tmp("fa.npy", &a), *pq = save_tmp("fq.npy", &q);
    double err2 = 0, c2 = 0, n2 = 0;
    for (size_t i = 0; i < 60; i++) {
        double mean = 0;
        for (size_t j = 0; j < 11; j++)
            mean += (SBW_MAT_AT(&a, i, j) - SBW_MAT_AT(&q, i, j)) / 11.0;
        for (size_t j = 0; j < 11; j++) {
            double dv = SBW_MAT_AT(&a, i, j) - SBW_MAT_AT(&q, i, j);
            err2 += dv * dv;
            c2 += (dv - mean) * (dv - mean);
        }
        n2 += 11.0 * mean * mean;
    }
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++) {
        sbw_spectra sp;
        sbw_bound_fit_error fe;
        bound_spectra(pa, false, (sbw_reduce_method)m, pq, &sp, &fe);
        SBW_ASSERT_NEAR(fe.error, sqrt(err2), 64 * DBL_EPSILON * sqrt(err2));
        SBW_ASSERT_NEAR(fe.centred, sqrt(c2), 64 * DBL_EPSILON * sqrt(err2));
        SBW_ASSERT_NEAR(fe.norm, sqrt(n2), 64 * DBL_EPSILON * sqrt(err2));
        sbw_spectra_free(&sp);
    }
    /* the dimension read off log Q: its centred rank */
    size_t d = 0;
    sbw_reduce_opts o = {0};
    SBW_ASSERT_OK(sbw_bound_fit_dim(pq, false, &o, &d));
    assert_int_equal(d, 3);
    free(pa);
    free(pq);
    sbw_mat_free(&a);
    sbw_mat_free(&q);
    sbw_rng_free(rng);
}

/* d* of a D-dimensional head's float64 log-softmax whose context part is
 * 1e-1 to 1e-4 of the word bias: exactly D double-centred and D + 1
 * row-centred, both from the spectra (sbw-bound's d_star) and from the file
 * (sbw_bound_fit_dim).  Against the centred sigma_1 alone, the stored
 * matrix's roundoff read as extra rank (D + 8, or full rank, at 1e-3). */
static void test_dstar_stored_roundoff(void **state)
{
    (void)state;
    const size_t n = 300, m = 200, d = 16;
    const double ratios[4] = {1e-1, 1e-2, 1e-3, 1e-4};
    for (int ri = 0; ri < 4; ri++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            gsl_rng *rng = rng_for(200 + seed);
            sbw_mat a = {0};
            SBW_ASSERT_OK(tm_biased_head_logp(&a, n, m, d, ratios[ri], false, rng));
            char *pa = save_tmp("dstar.npy", &a);
            for (int bias = 0; bias < 2; bias++) {
                size_t truth = bias ? d : d + 1, dfit = 0;
                sbw_spectra sp;
                sbw_bound_fit_error fe;
                sbw_rank_est e;
                bound_spectra(pa, bias, SBW_METHOD_TSQR, NULL, &sp, &fe);
                SBW_ASSERT_OK(sbw_bound_dstar(&sp, bias, DBL_EPSILON, &e));
                sbw_reduce_opts o = {0};
                SBW_ASSERT_OK(sbw_bound_fit_dim(pa, bias, &o, &dfit));
                if (e.rank != truth || dfit != truth)
                    fail_msg("ratio %g, seed %u, bias %d: d* %zu, fit_dim %zu, want %zu",
                             ratios[ri], (unsigned)seed, bias, e.rank, dfit, truth);
                sbw_spectra_free(&sp);
            }
            free(pa);
            sbw_mat_free(&a);
            sbw_rng_free(rng);
        }
}

/* NaN/Inf in log Q: refused with the count and the first position; a
 * shape that differs from A's: refused. */
static void test_fit_bad(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(6);
    sbw_mat a = {0}, q = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 60, 11, 1.0, rng));
    SBW_ASSERT_OK(tm_lowrank_logp(&q, 60, 11, 3, 1.0, false, rng));
    SBW_MAT_AT(&q, 17, 4) = NAN;
    SBW_MAT_AT(&q, 50, 0) = -INFINITY;
    char *pa = save_tmp("fa.npy", &a), *pq = save_tmp("fq.npy", &q);
    sbw_reduce_opts o = {0};
    sbw_npy_reader *r = NULL;
    sbw_spectra sp;
    sbw_bound_fit_error fe;
    SBW_ASSERT_OK(sbw_npy_open(&r, pa));
    assert_int_equal(sbw_bound_spectra(r, false, pq, &o, &sp, &fe), SBW_EDATA);
    /* the shared message of sbw_check_bad_error: counts by kind, then the first */
    assert_non_null(strstr(sbw_error_reason(), "2 non-finite entries in log Q ("));
    assert_non_null(strstr(sbw_error_reason(), "the first at row 17, column 4"));
    sbw_npy_close(r);
    SBW_ASSERT_OK(sbw_npy_open(&r, pa));
    assert_int_equal(sbw_bound_spectra(r, false, sbw_test_fixture("f8_c.npy"), &o, &sp, &fe),
                     SBW_ESHAPE);
    assert_non_null(strstr(sbw_error_reason(), "log Q is 3 x 4, but A is 60 x 11"));
    sbw_npy_close(r);
    free(pa);
    free(pq);
    sbw_mat_free(&a);
    sbw_mat_free(&q);
    sbw_rng_free(rng);
}

static void test_construct_errors(void **state)
{
    (void)state;
    sbw_reduce_opts o = {0};
    sbw_bound_construction res;
    const char *out = sbw_test_path("never.npy");
    assert_int_equal(sbw_bound_construct("-", out, 2, false, &o, &res), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "regular file, not a pipe"));
    assert_int_equal(
        sbw_bound_construct(sbw_test_fixture("nonfinite.npy"), out, 2, false, &o, &res), SBW_EDATA);
    assert_int_equal(access(out, F_OK), -1);
    assert_int_equal(
        sbw_bound_construct(sbw_test_fixture("f8_c.npy"), "/nonexistent/q.npy", 1, false, &o, &res),
        SBW_EIO);
    assert_int_equal(sbw_bound_construct(sbw_test_fixture("vec_f8.npy"), out, 1, false, &o, &res),
                     SBW_ESHAPE);
    assert_int_equal(access(out, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tails),
        cmocka_unit_test(test_known_spectrum),
        cmocka_unit_test(test_shift_dominates),
        cmocka_unit_test(test_construct_split),
        cmocka_unit_test(test_construct_known_spectrum),
        cmocka_unit_test(test_bias_exact),
        cmocka_unit_test(test_fit_error),
        cmocka_unit_test(test_dstar_stored_roundoff),
        cmocka_unit_test(test_fit_bad),
        cmocka_unit_test(test_construct_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
