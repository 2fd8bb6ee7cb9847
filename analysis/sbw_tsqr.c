/* sbw_tsqr.c -- streaming TSQR (LAPACK tpqrt): the R factor of a tall
 * matrix fed block by block, with optional one-pass column centring. */
#include "sbw_tsqr.h"

#include "sbw_blas.h"
#include "sbw_error.h"
#include "sbw_num.h"

#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TSQR_NB 64 /* inner block size of tpqrt (the T factor's rows) */
#define TILE    32 /* transposition tile */

struct sbw_tsqr {
    size_t n, cap, nb; /* columns, block capacity in rows, tpqrt's inner block */
    bool center;
    sbw_npy_dtype prec;
    size_t count;   /* rows stacked so far */
    void *r;        /* n x n upper triangle, column-major (ld n) */
    void *blk;      /* (cap + 1) x n block, column-major */
    void *t, *work; /* nb x n each */
    double *mean;   /* running column means (center) */
    double *bmean;  /* the current block's column means */
};

static size_t elem_size(sbw_npy_dtype p) { return p == SBW_F32 ? sizeof(float) : sizeof(double); }

void sbw_tsqr_free(sbw_tsqr *q)
{
    if (!q)
        return;
    free(q->r);
    free(q->blk);
    free(q->t);
    free(q->work);
    free(q->mean);
    free(q->bmean);
    free(q);
}

/* Allocates the buffers of q (q->n, cap, nb, prec set). */
static int tsqr_buffers(sbw_tsqr *q)
{
    size_t es = elem_size(q->prec), rb, bb, tb;
    if (sbw_mat_bytes(q->n, q->n, es, &rb) || sbw_mat_bytes(q->cap + 1, q->n, es, &bb) ||
        sbw_mat_bytes(q->nb, q->n, es, &tb))
        return SBW_ERROR(SBW_ENOMEM, "tsqr: %zu columns x %zu rows is too large", q->n, q->cap);
    q->r = calloc(1, rb);
    q->blk = malloc(bb);
    q->t = malloc(tb);
    q->work = malloc(tb);
    q->mean = calloc(q->n, sizeof(double));
    q->bmean = calloc(q->n, sizeof(double));
    if (!q->r || !q->blk || !q->t || !q->work || !q->mean || !q->bmean)
        return SBW_ERROR(SBW_ENOMEM, "tsqr: out of memory for %zu x %zu", q->n, q->n);
    return SBW_OK;
}

int sbw_tsqr_alloc(sbw_tsqr **out, size_t n, size_t block_rows, bool center, sbw_npy_dtype prec)
{
    *out = NULL;
    if (n == 0 || block_rows == 0)
        return SBW_ERROR(SBW_EINVAL, "tsqr: %zu columns, blocks of %zu rows", n, block_rows);
    if (n > (size_t)INT_MAX || block_rows >= (size_t)INT_MAX)
        return SBW_ERROR(SBW_ENOMEM, "tsqr: %zu columns exceeds LAPACK's dimensions", n);
    sbw_tsqr *q = calloc(1, sizeof *q);
    if (!q)
        return SBW_ERROR(SBW_ENOMEM, "tsqr: out of memory");
    *q = (sbw_tsqr){.n = n,
                    .cap = block_rows,
                    .nb = sbw_num_min_sz(TSQR_NB, n),
                    .center = center,
                    .prec = prec};
    int st = tsqr_buffers(q);
    if (st) {
        sbw_tsqr_free(q);
        return st;
    }
    *out = q;
    return SBW_OK;
}

size_t sbw_tsqr_count(const sbw_tsqr *q) { return q->count; }

void sbw_tsqr_means(const sbw_tsqr *q, double *mean) { memcpy(mean, q->mean, q->n * sizeof *mean); }

/* tpqrt of [R; B] with B (m x n, column-major, ldb), whose last l rows are
 * upper trapezoidal (l = 0: rectangular).  After a failure R, T and B are
 * what LAPACK left (unspecified): q is good only for sbw_tsqr_free. */
static int tpqrt(sbw_tsqr *q, size_t m, size_t l, void *b, size_t ldb)
{
    lapack_int info, n = (lapack_int)q->n, nb = (lapack_int)q->nb;
    if (q->prec == SBW_F32)
        info = LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, (lapack_int)m, n, (lapack_int)l, nb, q->r, n,
                                   b, (lapack_int)ldb, q->t, nb, q->work);
    else
        info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, (lapack_int)m, n, (lapack_int)l, nb, q->r, n,
                                   b, (lapack_int)ldb, q->t, nb, q->work);
    return info ? sbw_blas_lapack_fail(q->prec == SBW_F32 ? "stpqrt" : "dtpqrt", info) : SBW_OK;
}

/* mu[j] = the column means of [A | last] (rows x na, ld; last may be
 * NULL), summed in double. */
static void column_means(const double *a, size_t rows, size_t na, size_t ld, const double *last,
                         double *mu)
{
    memset(mu, 0, (na + (last ? 1 : 0)) * sizeof *mu);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < na; j++)
            mu[j] += a[i * ld + j];
    for (size_t i = 0; last && i < rows; i++)
        mu[na] += last[i];
    for (size_t j = 0; j < na + (last ? 1 : 0); j++)
        mu[j] /= (double)rows;
}

/* The block transpose, double and float (sbw_tsqr_tmpl.h). */
/* defines: transpose_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_tsqr_tmpl.h"

/* defines: transpose_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_tsqr_tmpl.h"

/* The column-major block (ldb) := [A | last] - 1 mu^T, in q's precision. */
static void load_block(sbw_tsqr *q, const double *a, size_t rows, size_t ld, const double *last,
                       const double *mu, size_t ldb)
{
    size_t na = q->n - (last ? 1 : 0);
    if (q->prec == SBW_F32)
        transpose_f(a, rows, na, ld, mu, q->blk, ldb);
    else
        transpose_d(a, rows, na, ld, mu, q->blk, ldb);
    for (size_t i = 0; last && i < rows; i++) {
        double v = last[i] - (mu ? mu[na] : 0.0);
        if (q->prec == SBW_F32)
            ((float *)q->blk)[na * ldb + i] = (float)v;
        else
            ((double *)q->blk)[na * ldb + i] = v;
    }
}

/* Row `row` of the column-major block (ldb) := w (mean - bmean): the
 * between-blocks term of the centred update. */
static void centring_row(sbw_tsqr *q, size_t row, size_t ldb, double w, const double *mean,
                         const double *bmean)
{
    for (size_t j = 0; j < q->n; j++) {
        double v = w * (mean[j] - bmean[j]);
        if (q->prec == SBW_F32)
            ((float *)q->blk)[j * ldb + row] = (float)v;
        else
            ((double *)q->blk)[j * ldb + row] = v;
    }
}

/* mean := the mean of count rows with mean `mean` and k rows with bmean. */
static void merge_means(double *mean, size_t count, const double *bmean, size_t k, size_t n)
{
    double f = (double)k / (double)(count + k);
    for (size_t j = 0; j < n; j++)
        mean[j] += (bmean[j] - mean[j]) * f;
}

int sbw_tsqr_add(sbw_tsqr *q, const double *a, size_t rows, size_t ld, const double *last)
{
    size_t na = q->n - (last ? 1 : 0);
    if (!q->r)
        return SBW_ERROR(SBW_EINVAL, "tsqr: the factor was taken already");
    if (rows > q->cap || ld < na)
        return SBW_ERROR(SBW_EINVAL, "tsqr: block of %zu rows (capacity %zu), ld %zu < %zu", rows,
                         q->cap, ld, na);
    if (rows == 0)
        return SBW_OK;
    bool extra = q->center && q->count > 0;
    size_t m = rows + (extra ? 1 : 0);
    if (q->center)
        column_means(a, rows, na, ld, last, q->bmean);
    load_block(q, a, rows, ld, last, q->center ? q->bmean : NULL, m);
    if (extra) {
        double c = (double)q->count, k = (double)rows;
        centring_row(q, rows, m, sqrt(c * k / (c + k)), q->mean, q->bmean);
    }
    int st = tpqrt(q, m, 0, q->blk, m);
    if (st)
        return st;
    if (q->center)
        merge_means(q->mean, q->count, q->bmean, rows, q->n);
    q->count += rows;
    return SBW_OK;
}

int sbw_tsqr_merge(sbw_tsqr *dst, sbw_tsqr *src)
{
    if (dst->n != src->n || dst->center != src->center || dst->prec != src->prec || !dst->r ||
        !src->r)
        return SBW_ERROR(SBW_EINVAL, "tsqr merge: accumulators differ");
    size_t n = dst->n;
    if (src->count == 0)
        return SBW_OK;
    if (dst->count == 0) {
        memcpy(dst->r, src->r, n * n * elem_size(dst->prec));
        memcpy(dst->mean, src->mean, n * sizeof(double));
        dst->count = src->count;
        return SBW_OK;
    }
    int st = tpqrt(dst, n, n, src->r, n); /* B = src's triangle: l = n */
    if (!st && dst->center) {
        double c1 = (double)dst->count, c2 = (double)src->count;
        centring_row(dst, 0, 1, sqrt(c1 * c2 / (c1 + c2)), dst->mean, src->mean);
        st = tpqrt(dst, 1, 0, dst->blk, 1);
        if (!st)
            merge_means(dst->mean, dst->count, src->mean, src->count, n);
    }
    if (!st)
        dst->count += src->count;
    return st;
}

/* Column-major upper triangle -> row-major upper triangle, in place. */
static void triangle_to_row_major(double *a, size_t n)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < j; i++) {
            a[i * n + j] = a[j * n + i];
            a[j * n + i] = 0.0;
        }
}

int sbw_tsqr_take(sbw_tsqr *q, sbw_mat *r)
{
    size_t n = q->n;
    if (!q->r)
        return SBW_ERROR(SBW_EINVAL, "tsqr: the factor was taken already");
    if (q->prec == SBW_F64) {
        triangle_to_row_major(q->r, n);
        *r = (sbw_mat){.rows = n, .cols = n, .ld = n, .data = q->r, .owner = true};
        q->r = NULL;
        return SBW_OK;
    }
    int st = sbw_mat_alloc(r, n, n);
    if (st)
        return st;
    const float *f = q->r;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i <= j; i++)
            r->data[i * n + j] = (double)f[j * n + i];
    free(q->r);
    q->r = NULL;
    return SBW_OK;
}
