/* sbw_kl_matrix.h -- the full T x T matrix of pairwise divergences
 * K[i][j] = KL(p_i || p_j) of T rows, by blocked GEMM:
 *
 *   K = h 1^T - P (log P)^T,   h_i = sum_x p_i(x) log p_i(x),
 *
 * one dgemm (OpenBLAS) per block of rows, the diagonal set to exactly 0.
 * O(T^2 M) flops at GEMM speed and T x M + a block of memory; meant for
 * small T (the output alone is 8 T^2 bytes).  Entries carry the roundoff of
 * a difference: |error| <~ M eps (|h_i| + sum_x p_i |log p_j|), so two
 * near-identical rows can come out a few eps below 0 (they are not
 * clamped).
 */
#ifndef SBW_KL_MATRIX_H
#define SBW_KL_MATRIX_H

#include "sbw_logp.h"
#include "sbw_mat.h"
#include "sbw_progress.h"

#include <stddef.h>

/* Rows i0 .. i0+nb-1 of K for the finite log-probability matrix L (T, M):
 * out is (nb, T) with leading dimension T, pws (nb, M) workspace.
 * Errors: SBW_EINVAL when i0 + nb > T, SBW_ENOMEM; out and pws untouched
 * on failure. */
int sbw_kl_matrix_block(const sbw_mat *l, size_t i0, size_t nb, double *pws, double *out);

/* The whole of K as a new T x T matrix (caller frees *out with
 * sbw_mat_free).  Errors: SBW_ENOMEM, SBW_ESHAPE (a size beyond BLAS's
 * int sizes); *out untouched and nothing allocated on failure. */
int sbw_kl_matrix_mat(const sbw_mat *l, sbw_mat *out);

/* K of the selected rows of a file (read and checked through r, which must
 * be seekable) written to path as a float64 .npy, block by block (temporary
 * + rename: nothing appears under path on failure).  pg (may be NULL)
 * counts rows of K.  Errors: SBW_EINVAL (not seekable), SBW_EDATA,
 * SBW_ENOMEM, read and write errors. */
int sbw_kl_matrix_file(sbw_logp_reader *r, const sbw_logp_sel *s, const char *path,
                       sbw_progress *pg);

#endif
