/* sbw_svd.c -- singular values (LAPACK gesdd on the column-major view),
 * streaming TSQR (LAPACK tpqrt), and the one-sided Jacobi twin. */
#include "sbw_svd.h"

#include "sbw_error.h"

#include <float.h>
#include <gsl/gsl_sort.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TSQR_NB       64 /* inner block size of tpqrt (the T factor's rows) */
#define TILE          32 /* transposition tile */
#define JACOBI_SWEEPS 100

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* Shape checks shared by the LAPACK drivers: non-empty, ld >= n, and every
 * dimension representable as LAPACK's 32-bit integer. */
static int check_dims(size_t m, size_t n, size_t ld, const char *what)
{
    if (m == 0 || n == 0)
        return SBW_ERROR(SBW_ESHAPE, "%s: empty matrix (%zu x %zu)", what, m, n);
    if (ld < n)
        return SBW_ERROR(SBW_EINVAL, "%s: leading dimension %zu < %zu columns", what, ld, n);
    if (m > (size_t)INT_MAX || ld > (size_t)INT_MAX)
        return SBW_ERROR(SBW_ENOMEM, "%s: %zu x %zu exceeds LAPACK's 32-bit dimensions", what, m,
                         n);
    return SBW_OK;
}

static int lapack_fail(const char *routine, lapack_int info)
{
    if (info < 0)
        return SBW_ERROR(SBW_EINVAL, "%s: argument %d had an illegal value", routine, (int)-info);
    return SBW_ERROR(SBW_ENUMERIC, "%s: failed to converge (info %d)", routine, (int)info);
}

/* A LAPACK workspace query's answer as an allocation size in items. */
static int work_items(double q, size_t *n)
{
    if (!(q >= 1.0) || q > 1e15)
        return SBW_ERROR(SBW_ENOMEM, "LAPACK workspace query returned %g items", q);
    *n = (size_t)q + 1;
    return SBW_OK;
}

/* dgesdd's iwork: 8 min(m, n) integers. */
static lapack_int *alloc_iwork(size_t k) { return malloc(8 * k * sizeof(lapack_int)); }

int sbw_svd_values(sbw_mat *a, double *s)
{
    int st = check_dims(a->rows, a->cols, a->ld, "singular values");
    if (st)
        return st;
    /* Column-major view: A^T is cols x rows with leading dimension ld. */
    lapack_int m = (lapack_int)a->cols, n = (lapack_int)a->rows, lda = (lapack_int)a->ld;
    lapack_int *iwork = alloc_iwork(min_sz(a->rows, a->cols)), info;
    double q = 0, *work = NULL;
    size_t lw = 0;
    if (!iwork)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory");
    info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1, &q,
                               -1, iwork);
    st = info ? lapack_fail("dgesdd", info) : work_items(q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular values: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1,
                                   work, (lapack_int)lw, iwork);
        st = info ? lapack_fail("dgesdd", info) : SBW_OK;
    }
    free(work);
    free(iwork);
    return st;
}

int sbw_svd_values_f32(sbw_mat_f32 *a, float *s)
{
    int st = check_dims(a->rows, a->cols, a->ld, "singular values (float32)");
    if (st)
        return st;
    lapack_int m = (lapack_int)a->cols, n = (lapack_int)a->rows, lda = (lapack_int)a->ld;
    lapack_int *iwork = alloc_iwork(min_sz(a->rows, a->cols)), info;
    float q = 0, *work = NULL;
    size_t lw = 0;
    if (!iwork)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory");
    info = LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1, &q,
                               -1, iwork);
    st = info ? lapack_fail("sgesdd", info) : work_items((double)q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular values: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1,
                                   work, (lapack_int)lw, iwork);
        st = info ? lapack_fail("sgesdd", info) : SBW_OK;
    }
    free(work);
    free(iwork);
    return st;
}

/* dgesdd JOBZ='S' on the column-major view X = A^T (cols x rows): X's left
 * vectors U (cols x k, ldu = cols) are A's right vectors, and read
 * row-major they are exactly vt (k x cols).  X's right vectors go to xvt. */
static int gesdd_vectors(sbw_mat *a, double *s, sbw_mat *vt, double *xvt, lapack_int *iwork)
{
    lapack_int m = (lapack_int)a->cols, n = (lapack_int)a->rows, lda = (lapack_int)a->ld;
    lapack_int k = m < n ? m : n, info;
    double q = 0, *work = NULL;
    size_t lw = 0;
    info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, a->data, lda, s, vt->data, m, xvt, k,
                               &q, -1, iwork);
    int st = info ? lapack_fail("dgesdd", info) : work_items(q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular vectors: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, a->data, lda, s, vt->data, m, xvt,
                                   k, work, (lapack_int)lw, iwork);
        st = info ? lapack_fail("dgesdd", info) : SBW_OK;
    }
    free(work);
    return st;
}

int sbw_svd_right(sbw_mat *a, double *s, sbw_mat *vt)
{
    int st = check_dims(a->rows, a->cols, a->ld, "singular vectors");
    if (st)
        return st;
    size_t k = min_sz(a->rows, a->cols), xvt_items;
    sbw_mat v = {0};
    double *xvt = NULL;
    lapack_int *iwork = alloc_iwork(k);
    st = sbw_mat_bytes(k, a->rows, sizeof(double), &xvt_items);
    if (!st)
        st = sbw_mat_alloc(&v, k, a->cols);
    if (!st && (!iwork || !(xvt = malloc(xvt_items))))
        st = SBW_ERROR(SBW_ENOMEM, "singular vectors: out of memory");
    if (!st)
        st = gesdd_vectors(a, s, &v, xvt, iwork);
    free(xvt);
    free(iwork);
    if (st) {
        sbw_mat_free(&v);
        return st;
    }
    *vt = v;
    return SBW_OK;
}

/* ---- one-sided Jacobi twin ---------------------------------------------- */

/* The twin works in long double (x87 extended: 64-bit significand) so that
 * its own roundoff, about len * 1e-19 relative, is far below what the
 * tests resolve: differences from it measure the fast path's error. */
typedef long double ldouble;

static ldouble dotl(const ldouble *x, const ldouble *y, size_t n)
{
    ldouble acc = 0;
    for (size_t i = 0; i < n; i++)
        acc += x[i] * y[i];
    return acc;
}

/* Orthogonalises columns p and q of the working matrix (Hestenes' rotation,
 * Demmel & Veselic 1992 eq. 4.2); returns whether it rotated.  Columns
 * below tiny (the roundoff of the whole matrix) are zeros: rotating them
 * against a large column only reshuffles rounding noise, forever. */
static bool jacobi_pair(ldouble *wp, ldouble *wq, size_t len, ldouble tol, ldouble tiny)
{
    ldouble alpha = dotl(wp, wp, len), beta = dotl(wq, wq, len), gamma = dotl(wp, wq, len);
    if (gamma == 0 || fabsl(gamma) <= tol * sqrtl(alpha) * sqrtl(beta) || alpha <= tiny ||
        beta <= tiny)
        return false;
    ldouble zeta = (beta - alpha) / (2 * gamma);
    ldouble t = (zeta >= 0 ? 1 : -1) / (fabsl(zeta) + sqrtl(1 + zeta * zeta));
    ldouble c = 1 / sqrtl(1 + t * t), sn = c * t;
    for (size_t i = 0; i < len; i++) {
        ldouble x = wp[i], y = wq[i];
        wp[i] = c * x - sn * y;
        wq[i] = sn * x + c * y;
    }
    return true;
}

/* Sweeps until no pair rotates; the column norms are the singular values. */
static int jacobi_sweeps(ldouble *w, size_t len, size_t nc, double *s)
{
    ldouble tol = (ldouble)len * LDBL_EPSILON, frob2 = dotl(w, w, len * nc);
    ldouble tiny = frob2 * tol * tol;
    int sweep;
    for (sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
        bool rotated = false;
        for (size_t p = 0; p + 1 < nc; p++)
            for (size_t q = p + 1; q < nc; q++)
                rotated |= jacobi_pair(w + p * len, w + q * len, len, tol, tiny);
        if (!rotated)
            break;
    }
    for (size_t c = 0; c < nc; c++)
        s[c] = (double)sqrtl(dotl(w + c * len, w + c * len, len));
    if (sweep == JACOBI_SWEEPS)
        return SBW_ERROR(SBW_ENUMERIC, "jacobi: no convergence in %d sweeps", JACOBI_SWEEPS);
    return SBW_OK;
}

int sbw_svd_jacobi(const sbw_mat *a, double *s)
{
    if (a->rows == 0 || a->cols == 0)
        return SBW_ERROR(SBW_ESHAPE, "jacobi: empty matrix (%zu x %zu)", a->rows, a->cols);
    bool tr = a->rows < a->cols; /* work on the columns of the taller of A, A^T */
    size_t len = tr ? a->cols : a->rows, nc = tr ? a->rows : a->cols, bytes;
    if (sbw_mat_bytes(len, nc, sizeof(ldouble), &bytes))
        return SBW_ERROR(SBW_ENOMEM, "jacobi: %zu x %zu is too large", a->rows, a->cols);
    ldouble *w = malloc(bytes);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "jacobi: out of memory");
    for (size_t c = 0; c < nc; c++)
        for (size_t i = 0; i < len; i++)
            w[c * len + i] = tr ? SBW_MAT_AT(a, c, i) : SBW_MAT_AT(a, i, c);
    int st = jacobi_sweeps(w, len, nc, s);
    free(w);
    if (st)
        return st;
    gsl_sort(s, 1, nc);
    for (size_t i = 0; i < nc / 2; i++) {
        double t = s[i];
        s[i] = s[nc - 1 - i];
        s[nc - 1 - i] = t;
    }
    return SBW_OK;
}

/* ---- streaming TSQR ----------------------------------------------------- */

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
    *q = (sbw_tsqr){
        .n = n, .cap = block_rows, .nb = min_sz(TSQR_NB, n), .center = center, .prec = prec};
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
 * upper trapezoidal (l = 0: rectangular). */
static int tpqrt(sbw_tsqr *q, size_t m, size_t l, void *b, size_t ldb)
{
    lapack_int info, n = (lapack_int)q->n, nb = (lapack_int)q->nb;
    if (q->prec == SBW_F32)
        info = LAPACKE_stpqrt_work(LAPACK_COL_MAJOR, (lapack_int)m, n, (lapack_int)l, nb, q->r, n,
                                   b, (lapack_int)ldb, q->t, nb, q->work);
    else
        info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, (lapack_int)m, n, (lapack_int)l, nb, q->r, n,
                                   b, (lapack_int)ldb, q->t, nb, q->work);
    return info ? lapack_fail(q->prec == SBW_F32 ? "stpqrt" : "dtpqrt", info) : SBW_OK;
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

/* dst[j * ldd + i] = src[i * lds + j] - mu[j] (mu may be NULL), tiled so
 * both sides stay in cache; double and float destinations. */
static void transpose_f64(const double *src, size_t rows, size_t n, size_t lds, const double *mu,
                          double *dst, size_t ldd)
{
    for (size_t i0 = 0; i0 < rows; i0 += TILE)
        for (size_t j0 = 0; j0 < n; j0 += TILE) {
            size_t i1 = min_sz(rows, i0 + TILE), j1 = min_sz(n, j0 + TILE);
            for (size_t i = i0; i < i1; i++)
                for (size_t j = j0; j < j1; j++)
                    dst[j * ldd + i] = src[i * lds + j] - (mu ? mu[j] : 0.0);
        }
}

static void transpose_f32(const double *src, size_t rows, size_t n, size_t lds, const double *mu,
                          float *dst, size_t ldd)
{
    for (size_t i0 = 0; i0 < rows; i0 += TILE)
        for (size_t j0 = 0; j0 < n; j0 += TILE) {
            size_t i1 = min_sz(rows, i0 + TILE), j1 = min_sz(n, j0 + TILE);
            for (size_t i = i0; i < i1; i++)
                for (size_t j = j0; j < j1; j++)
                    dst[j * ldd + i] = (float)(src[i * lds + j] - (mu ? mu[j] : 0.0));
        }
}

/* The column-major block (ldb) := [A | last] - 1 mu^T, in q's precision. */
static void load_block(sbw_tsqr *q, const double *a, size_t rows, size_t ld, const double *last,
                       const double *mu, size_t ldb)
{
    size_t na = q->n - (last ? 1 : 0);
    if (q->prec == SBW_F32)
        transpose_f32(a, rows, na, ld, mu, q->blk, ldb);
    else
        transpose_f64(a, rows, na, ld, mu, q->blk, ldb);
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
