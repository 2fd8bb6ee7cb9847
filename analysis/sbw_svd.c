/* sbw_svd.c -- singular values (LAPACK gesdd on the column-major view);
 * the one-sided Jacobi twin is in sbw_svd_ref.c, the streaming TSQR in
 * sbw_tsqr.c. */
#include "sbw_svd.h"

#include "sbw_blas.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_table.h"

#include <float.h>
#include <gsl/gsl_sort.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The test hook of sbw_svd.h: SBW_TEST_SVD_INFO=N (N > 0) makes a
 * successful call report info N. */
static lapack_int hooked(lapack_int info)
{
    const char *e = getenv("SBW_TEST_SVD_INFO");
    long v = e ? strtol(e, NULL, 10) : 0;
    return info == 0 && v > 0 && v < INT_MAX ? (lapack_int)v : info;
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

/* The values path, float and double (sbw_svd_tmpl.h). */
/* defines: unconverged_f(), values_lwork_f(), values_work_size_f() */
/* defines: svd_values_work_f(), svd_values_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_svd_tmpl.h"

/* defines: unconverged_d(), values_lwork_d(), values_work_size_d() */
/* defines: svd_values_work_d(), svd_values_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_svd_tmpl.h"

int sbw_svd_values(sbw_mat *a, double *s) { return svd_values_d(a, s); }

int sbw_svd_values_f32(sbw_mat_f32 *a, float *s) { return svd_values_f(a, s); }

int sbw_svd_values_work_size(size_t rows, size_t cols, size_t *bytes)
{
    return values_work_size_d(rows, cols, bytes);
}

int sbw_svd_values_work(sbw_mat *a, double *s, void *work, size_t bytes)
{
    return svd_values_work_d(a, s, work, bytes);
}

int sbw_svd_values_f32_work_size(size_t rows, size_t cols, size_t *bytes)
{
    return values_work_size_f(rows, cols, bytes);
}

int sbw_svd_values_f32_work(sbw_mat_f32 *a, float *s, void *work, size_t bytes)
{
    return svd_values_work_f(a, s, work, bytes);
}

/* dgesdd JOBZ='S' on the column-major view X = A^T (cols x rows): X's left
 * vectors U (cols x k, ldu = cols) are A's right vectors, and read
 * row-major they are exactly vt (k x cols).  X's right vectors go to xvt.
 * In place: after a failure of the query or of the workspace allocation
 * a, s, vt->data and xvt are untouched; after one of the computing call
 * they hold what LAPACK left (unspecified).  Nothing stays allocated. */
static int gesdd_vectors(sbw_mat *a, double *s, sbw_mat *vt, double *xvt, lapack_int *iwork)
{
    lapack_int m = (lapack_int)a->cols, n = (lapack_int)a->rows, lda = (lapack_int)a->ld;
    lapack_int k = m < n ? m : n, info;
    double q = 0, *work = NULL;
    size_t lw = 0;
    info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, a->data, lda, s, vt->data, m, xvt, k,
                               &q, -1, iwork);
    int st = info ? sbw_blas_lapack_fail("dgesdd", info) : work_items(q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular vectors: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, a->data, lda, s, vt->data, m, xvt,
                                   k, work, (lapack_int)lw, iwork);
        st = unconverged_d(hooked(info), s, (size_t)k, false);
    }
    free(work);
    return st;
}

int sbw_svd_right(sbw_mat *a, double *s, sbw_mat *vt)
{
    int st = check_dims(a->rows, a->cols, a->ld, "singular vectors");
    if (st)
        return st;
    size_t k = sbw_num_min_sz(a->rows, a->cols), xvt_items;
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
