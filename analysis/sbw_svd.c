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

/* After the computing call: info < 0 is an error; info > 0 (no
 * convergence) keeps the values LAPACK left, made non-negative and put in
 * descending order when sort (values only: vectors must keep theirs), and
 * records a warning for the output tables -- an error only when a value
 * is not finite, i.e. nothing usable came back (s is then partly made
 * non-negative: unspecified). */
static int unconverged(const char *routine, lapack_int info, double *s, size_t k, bool sort)
{
    if (info <= 0)
        return info ? sbw_blas_lapack_fail(routine, info) : SBW_OK;
    for (size_t j = 0; j < k; j++) {
        if (!isfinite(s[j]))
            return sbw_blas_lapack_fail(routine, info);
        s[j] = fabs(s[j]);
    }
    if (sort) {
        gsl_sort(s, 1, k);
        for (size_t j = 0; j < k / 2; j++) {
            double x = s[j];
            s[j] = s[k - 1 - j], s[k - 1 - j] = x;
        }
    }
    sbw_table_warn("svd_not_converged: %s did not converge (LAPACK info %d): the singular "
                   "values, and every rank or bound computed from them, may be wrong",
                   routine, (int)info);
    return SBW_OK;
}

/* The float32 values through the double path of unconverged; s unchanged
 * after a failure. */
static int unconverged_f32(lapack_int info, float *s, size_t k)
{
    if (info <= 0)
        return info ? sbw_blas_lapack_fail("sgesdd", info) : SBW_OK;
    double *d = malloc((k ? k : 1) * sizeof *d);
    if (!d)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory");
    for (size_t j = 0; j < k; j++)
        d[j] = s[j];
    int st = unconverged("sgesdd", info, d, k, true);
    for (size_t j = 0; !st && j < k; j++)
        s[j] = (float)d[j];
    free(d);
    return st;
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
    lapack_int *iwork = alloc_iwork(sbw_num_min_sz(a->rows, a->cols)), info;
    double q = 0, *work = NULL;
    size_t lw = 0;
    if (!iwork)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory");
    info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1, &q,
                               -1, iwork);
    st = info ? sbw_blas_lapack_fail("dgesdd", info) : work_items(q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular values: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1,
                                   work, (lapack_int)lw, iwork);
        st = unconverged("dgesdd", hooked(info), s, sbw_num_min_sz(a->rows, a->cols), true);
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
    lapack_int *iwork = alloc_iwork(sbw_num_min_sz(a->rows, a->cols)), info;
    float q = 0, *work = NULL;
    size_t lw = 0;
    if (!iwork)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory");
    info = LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1, &q,
                               -1, iwork);
    st = info ? sbw_blas_lapack_fail("sgesdd", info) : work_items((double)q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular values: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1,
                                   work, (lapack_int)lw, iwork);
        st = unconverged_f32(hooked(info), s, sbw_num_min_sz(a->rows, a->cols));
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
    int st = info ? sbw_blas_lapack_fail("dgesdd", info) : work_items(q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular vectors: out of memory for %zu workspace items", lw);
    if (!st) {
        info = LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'S', m, n, a->data, lda, s, vt->data, m, xvt,
                                   k, work, (lapack_int)lw, iwork);
        st = unconverged("dgesdd", hooked(info), s, (size_t)k, false);
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
