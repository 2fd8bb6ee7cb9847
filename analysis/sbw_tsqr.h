/* sbw_tsqr.h -- a streaming TSQR: the R factor of a tall matrix given
 * block by block, so its singular values need one block and R in memory.
 *
 * sbw_tsqr accumulates the R factor of a matrix given
 * block by block (Demmel, Grigori, Hoemmen, Langou 2012, "Communication-
 * optimal parallel and sequential QR and LU factorizations", sequential
 * TSQR): each block B of rows is stacked under the running n x n triangle
 * R and [R; B] is factorised with LAPACK's triangular-pentagonal QR
 * (dtpqrt), which exploits R's structure so the whole pass costs the
 * 2 m n^2 flops of one Householder QR while holding only R and one block.
 * R^T R = A^T A exactly in exact arithmetic, but A^T A is never formed:
 * only orthogonal transformations touch the data, so R's singular values
 * are A's to backward error O(eps) ||A|| (never A^T A's sqrt(eps)).
 *
 * Column centring in one pass.  With `center`, the accumulated R is that
 * of (I - 11^T/m) A, the column-centred matrix, without a second pass:
 * each block is centred by its own column means and the difference of
 * means enters as one extra row, the matrix form of Chan, Golub and
 * LeVeque's pairwise variance update (1979):
 *   C^T C = C1^T C1 + C2^T C2 + (m1 m2 / (m1 + m2)) (mu1 - mu2)(mu1 - mu2)^T
 * for the centred union C of blocks with m1, m2 rows and means mu1, mu2.
 */
#ifndef SBW_TSQR_H
#define SBW_TSQR_H

#include "sbw_mat.h"
#include "sbw_npy.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_tsqr sbw_tsqr;

/* A TSQR accumulator for matrices of n columns fed in blocks of at most
 * block_rows rows, computing in precision prec (SBW_F64: dtpqrt; SBW_F32:
 * stpqrt), with or without column centring (see above).  Memory: the
 * n x n triangle, one transposed block and 2 x 64 x n of LAPACK workspace.
 * Errors: SBW_EINVAL (n or block_rows 0), SBW_ENOMEM.  *q is NULL on
 * failure. */
int sbw_tsqr_alloc(sbw_tsqr **q, size_t n, size_t block_rows, bool center, sbw_npy_dtype prec);

/* Frees; NULL is a no-op. */
void sbw_tsqr_free(sbw_tsqr *q);

/* Stacks the rows of A (rows, n), row-major with leading dimension ld,
 * under the accumulated matrix; or, when last is not NULL, the rows of
 * [A | last] with A (rows, n - 1) and last (rows) its final column.
 * Nothing is modified.  Errors: SBW_EINVAL (rows > block_rows, ld too
 * small: q untouched on failure), SBW_ENUMERIC (LAPACK info != 0: the factor is then
 * unspecified, q good only for sbw_tsqr_free). */
int sbw_tsqr_add(sbw_tsqr *q, const double *a, size_t rows, size_t ld, const double *last);

/* Stacks src's rows under dst's (both accumulators of the same n, center
 * and precision): dst becomes the factor of the union, src is left
 * holding garbage (free it).  One dtpqrt of triangle on triangle,
 * (2/3) n^3 flops.  Errors: SBW_EINVAL (mismatch: both untouched),
 * SBW_ENUMERIC (after a failure dst is good only for sbw_tsqr_free). */
int sbw_tsqr_merge(sbw_tsqr *dst, sbw_tsqr *src);

/* Rows stacked so far. */
size_t sbw_tsqr_count(const sbw_tsqr *q);

/* The n column means of the rows stacked so far, when the accumulator
 * centres (zeros otherwise). */
void sbw_tsqr_means(const sbw_tsqr *q, double *mean);

/* Moves the accumulated factor out as a row-major n x n upper-triangular
 * matrix *r (caller frees with sbw_mat_free), in double whatever the
 * precision: in float64 the buffer itself changes hands (transposed in
 * place, no copy), in float32 it is converted.  q is then empty of its
 * factor: only sbw_tsqr_free may follow.  Errors: SBW_EINVAL (taken
 * already), SBW_ENOMEM; on failure *r and q are untouched. */
int sbw_tsqr_take(sbw_tsqr *q, sbw_mat *r);

#endif
