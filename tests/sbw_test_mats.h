/* sbw_test_mats.h -- matrices of known structure for the rank, spectra and
 * bound suites: Gaussian products of known rank, log-softmax of low-rank
 * logits (with or without a ones column), Dirichlet languages, matrices
 * with a chosen spectrum, and naive centring.  Built here, with GSL's
 * generators, so the tests do not depend on sbw-synth.  Every function
 * returns an SBW status; matrices are allocated here and freed by the
 * caller. */
#ifndef SBW_TEST_MATS_H
#define SBW_TEST_MATS_H

#include "sbw_error.h"
#include "sbw_mat.h"
#include "sbw_num.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* a (rows x cols) with N(0, 1) entries. */
static inline int tm_gauss(sbw_mat *a, size_t rows, size_t cols, gsl_rng *rng)
{
    int st = sbw_mat_alloc(a, rows, cols);
    for (size_t i = 0; !st && i < rows * cols; i++)
        a->data[i] = gsl_ran_gaussian(rng, 1.0);
    return st;
}

/* c = a b (naive triple loop: the oracle does not lean on BLAS). */
static inline int tm_mul(sbw_mat *c, const sbw_mat *a, const sbw_mat *b)
{
    int st = sbw_mat_alloc(c, a->rows, b->cols);
    for (size_t i = 0; !st && i < a->rows; i++)
        for (size_t j = 0; j < b->cols; j++) {
            double acc = 0;
            for (size_t l = 0; l < a->cols; l++)
                acc += SBW_MAT_AT(a, i, l) * SBW_MAT_AT(b, l, j);
            SBW_MAT_AT(c, i, j) = acc;
        }
    return st;
}

/* A product of Gaussian factors (m x r)(r x n): rank r with probability 1. */
static inline int tm_product(sbw_mat *out, size_t m, size_t n, size_t r, gsl_rng *rng)
{
    sbw_mat g1 = {0}, g2 = {0};
    int st = tm_gauss(&g1, m, r, rng);
    st = st ? st : tm_gauss(&g2, r, n, rng);
    st = st ? st : tm_mul(out, &g1, &g2);
    sbw_mat_free(&g1);
    sbw_mat_free(&g2);
    return st;
}

static inline void tm_log_softmax(sbw_mat *a)
{
    for (size_t i = 0; i < a->rows; i++)
        sbw_num_log_softmax(a->data + i * a->ld, a->data + i * a->ld, a->cols);
}

/* log-softmax of logits H W^T, H (n x r) N(0, scale^2), W (m x r) N(0, 1);
 * with_ones: W's last column is all ones, so the logits' row space holds
 * the constant row and the row shift of the normalisation adds no rank.
 * Ranks: r + 1 (r with ones); row-centred r (r - 1 with ones). */
static inline int tm_lowrank_logp(sbw_mat *a, size_t n, size_t m, size_t r, double scale,
                                  bool with_ones, gsl_rng *rng)
{
    sbw_mat h = {0}, w = {0}, wt = {0};
    int st = tm_gauss(&h, n, r, rng);
    st = st ? st : tm_gauss(&w, m, r, rng);
    st = st ? st : sbw_mat_alloc(&wt, r, m);
    for (size_t i = 0; !st && i < n * r; i++)
        h.data[i] *= scale;
    for (size_t j = 0; !st && j < m; j++)
        for (size_t l = 0; l < r; l++)
            SBW_MAT_AT(&wt, l, j) = with_ones && l == r - 1 ? 1.0 : SBW_MAT_AT(&w, j, l);
    st = st ? st : tm_mul(a, &h, &wt);
    if (!st)
        tm_log_softmax(a);
    sbw_mat_free(&h);
    sbw_mat_free(&w);
    sbw_mat_free(&wt);
    return st;
}

/* The log-softmax export of a D-dimensional head with a word bias whose
 * context part is `ratio` of it: logits z_ij = b_j + ratio (h_i . w_j) /
 * sqrt(d), b, h, w N(0, 1), normalised in double (sbw_num).  f32: as a
 * float32 export cast back to float64 (logits and log-probabilities
 * rounded to float).  Ranks: plain d + 2, row-centred d + 1 (the bias),
 * double-centred d. */
static inline int tm_biased_head_logp(sbw_mat *a, size_t n, size_t m, size_t d, double ratio,
                                      bool f32, gsl_rng *rng)
{
    sbw_mat h = {0}, wt = {0};
    double *b = malloc(m * sizeof *b);
    int st = b ? tm_gauss(&h, n, d, rng) : SBW_ENOMEM;
    st = st ? st : tm_gauss(&wt, d, m, rng);
    for (size_t j = 0; !st && j < m; j++)
        b[j] = gsl_ran_gaussian(rng, 1.0);
    st = st ? st : tm_mul(a, &h, &wt);
    for (size_t i = 0; !st && i < n; i++) {
        double *z = a->data + i * a->ld;
        for (size_t j = 0; j < m; j++) {
            z[j] = b[j] + ratio * z[j] / sqrt((double)d);
            z[j] = f32 ? (double)(float)z[j] : z[j];
        }
        sbw_num_log_softmax(z, z, m);
        for (size_t j = 0; f32 && j < m; j++)
            z[j] = (double)(float)z[j];
    }
    sbw_mat_free(&h);
    sbw_mat_free(&wt);
    free(b);
    return st;
}

/* n rows of log Dirichlet(alpha 1) samples over m words, sampled in log
 * space (log X + log(U)/alpha with X ~ Gamma(alpha + 1), as DESIGN.md
 * prescribes for small alpha) and normalised by log-sum-exp. */
static inline int tm_dirichlet_logp(sbw_mat *a, size_t n, size_t m, double alpha, gsl_rng *rng)
{
    int st = sbw_mat_alloc(a, n, m);
    for (size_t i = 0; !st && i < n * m; i++)
        a->data[i] =
            log(gsl_ran_gamma(rng, alpha + 1.0, 1.0)) + log(gsl_rng_uniform_pos(rng)) / alpha;
    if (!st)
        tm_log_softmax(a);
    return st;
}

/* Naive centring: rows (subtract each row's mean), then columns. */
static inline void tm_centre(sbw_mat *a, bool rows, bool cols)
{
    for (size_t i = 0; rows && i < a->rows; i++) {
        double mu = 0;
        for (size_t j = 0; j < a->cols; j++)
            mu += SBW_MAT_AT(a, i, j);
        for (size_t j = 0; j < a->cols; j++)
            SBW_MAT_AT(a, i, j) -= mu / (double)a->cols;
    }
    for (size_t j = 0; cols && j < a->cols; j++) {
        double mu = 0;
        for (size_t i = 0; i < a->rows; i++)
            mu += SBW_MAT_AT(a, i, j);
        for (size_t i = 0; i < a->rows; i++)
            SBW_MAT_AT(a, i, j) -= mu / (double)a->rows;
    }
}

/* q (n x k) with orthonormal columns: column ones_col is 1/sqrt(n) (when
 * ones_col >= 0), every other column is orthogonal to the ones vector.
 * Householder QR of [1, Gaussian] (n x (k + 1)); needs n >= k + 1. */
static inline int tm_orthonormal(sbw_mat *q, size_t n, size_t k, long ones_col, gsl_rng *rng)
{
    sbw_mat g = {0};
    double *tau = malloc((k + 1) * sizeof *tau);
    int st = tau ? tm_gauss(&g, n, k + 1, rng) : SBW_ENOMEM;
    for (size_t i = 0; !st && i < n; i++)
        SBW_MAT_AT(&g, i, 0) = 1.0;
    if (!st &&
        (LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (int)n, (int)k + 1, g.data, (int)g.ld, tau) ||
         LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (int)n, (int)k + 1, (int)k + 1, g.data, (int)g.ld, tau)))
        st = SBW_ENUMERIC;
    st = st ? st : sbw_mat_alloc(q, n, k);
    double sign = !st && SBW_MAT_AT(&g, 0, 0) < 0 ? -1.0 : 1.0;
    for (size_t c = 0; !st && c < k; c++) {
        /* ones_col gets Q's column 0; the others take 1, 2, ... in turn */
        size_t src = ones_col < 0          ? c + 1
                     : (long)c == ones_col ? 0
                     : (long)c < ones_col  ? c + 1
                                           : c;
        for (size_t i = 0; i < n; i++)
            SBW_MAT_AT(q, i, c) = (src == 0 ? sign : 1.0) * SBW_MAT_AT(&g, i, src);
    }
    sbw_mat_free(&g);
    free(tau);
    return st;
}

/* a = U diag(s) V^T for U (n x k), V (m x k). */
static inline int tm_usv(sbw_mat *a, const sbw_mat *u, const double *s, const sbw_mat *v)
{
    int st = sbw_mat_alloc(a, u->rows, v->rows);
    for (size_t i = 0; !st && i < u->rows; i++)
        for (size_t j = 0; j < v->rows; j++) {
            double acc = 0;
            for (size_t l = 0; l < u->cols; l++)
                acc += SBW_MAT_AT(u, i, l) * s[l] * SBW_MAT_AT(v, j, l);
            SBW_MAT_AT(a, i, j) = acc;
        }
    return st;
}

static inline double tm_max_abs_diff(const double *a, const double *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

#endif
