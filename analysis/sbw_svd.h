/* sbw_svd.h -- singular values through LAPACK (the brute-force one-sided
 * Jacobi twin for the tests is sbw_svd_ref.h).
 *
 * Row-major without copies.  A row-major m x n matrix with leading
 * dimension ld is, read column-major, the n x m matrix A^T with leading
 * dimension ld.  A^T has the same singular values as A, so the value
 * routines hand LAPACK that column-major view (LAPACKE's row-major mode
 * would transpose into a full copy first).
 *
 * Tall matrices: the streaming TSQR of sbw_tsqr.h reduces them to a
 * triangle with the same singular values first.
 */
#ifndef SBW_SVD_H
#define SBW_SVD_H

#include "sbw_mat.h"
#include "sbw_npy.h"

#include <stdbool.h>
#include <stddef.h>

/* Singular values of A, descending, into s[min(m, n)].  A is (m, n),
 * row-major, m, n >= 1; A is overwritten (LAPACK works in place).  LAPACK
 * dgesdd with JOBZ='N' on the column-major view A^T (no copy; for a tall
 * or wide A it reduces by QR first, in place).  Errors: SBW_ESHAPE (empty),
 * SBW_ENOMEM (workspace, or a dimension beyond LAPACK's 32-bit integers),
 * SBW_EINVAL (LAPACK info < 0), SBW_ENUMERIC (info > 0 with a non-finite
 * value).  No convergence (info > 0) with finite values is not an error:
 * s holds LAPACK's values (absolute, sorted descending) and
 * sbw_table_warn records "svd_not_converged", so every table printed
 * afterwards says the numbers may be wrong.
 *
 * Test hook (the test interface: docs/DESIGN.md): when the environment
 * variable SBW_TEST_SVD_INFO is a positive integer N, every call that
 * succeeded reports info N instead (the values stay the converged ones).
 * dgesdd's real failures are too rare and too dependent on the LAPACK
 * build to craft a matrix for, so this is how the tests check what a user
 * sees when it happens.
 * After a failure: A and s are untouched when the error came before the
 * computing call (the shape checks, the workspace query, SBW_ENOMEM);
 * after it (SBW_EINVAL from info < 0, SBW_ENUMERIC) they hold what LAPACK
 * left, unspecified.  Nothing stays allocated. */
int sbw_svd_values(sbw_mat *a, double *s);

/* The same in float32 with sgesdd: half the memory, about twice the speed,
 * and FLT_EPSILON roundoff.  A is (m, n).  Errors, no convergence, the test
 * hook and what is left after a failure as above (the same template,
 * sbw_svd_tmpl.h). */
int sbw_svd_values_f32(sbw_mat_f32 *a, float *s);

/* The values paths with a caller-owned workspace, for callers that take
 * the singular values of many matrices of one shape (LAPACK's lwork
 * query, as LAPACKE's _work functions): sbw_svd_values_work_size puts in
 * *bytes what sbw_svd_values_work needs for a (rows, cols) matrix
 * (gesdd's optimal work plus its integer scratch; errors: the shape and
 * workspace-query errors of sbw_svd_values, SBW_ENOMEM when the size
 * overflows; *bytes untouched on failure).  sbw_svd_values_work then
 * computes exactly what sbw_svd_values computes (the same LAPACK call
 * with the same lwork, so the same bits: sbw_svd_values is this pair
 * around one malloc) in work, bytes of memory from malloc (or aligned at
 * least as well), and allocates nothing.  Errors: those of
 * sbw_svd_values, SBW_EINVAL for a workspace smaller than the query's.
 * On failure: as sbw_svd_values (A and s untouched when the error came
 * before the computing call, else unspecified); work's contents are
 * unspecified after any call.  The _f32 pair is the same for
 * sbw_svd_values_f32. */
int sbw_svd_values_work_size(size_t rows, size_t cols, size_t *bytes);
int sbw_svd_values_work(sbw_mat *a, double *s, void *work, size_t bytes);
int sbw_svd_values_f32_work_size(size_t rows, size_t cols, size_t *bytes);
int sbw_svd_values_f32_work(sbw_mat_f32 *a, float *s, void *work, size_t bytes);

/* Singular values s[min(m, n)] and right singular vectors of A: vt is
 * allocated here as (k, n), k = min(m, n), row j the right singular vector
 * of s[j] (caller frees with sbw_mat_free).  A is (m, n), overwritten.
 * dgesdd with JOBZ='S' on the column-major view A^T, whose left vectors are
 * A's right ones.  Workspace about 4k^2 + k(m + n) doubles.  Errors and
 * no convergence as for sbw_svd_values (s is then left in LAPACK's order,
 * beside its vectors).  After a failure *vt is untouched and nothing stays
 * allocated; A and s are untouched when the error came before the
 * computing call (shape checks, allocation, workspace query), else they
 * hold what LAPACK left, unspecified. */
int sbw_svd_right(sbw_mat *a, double *s, sbw_mat *vt);

#endif
