/* sbw_svd_ref.h -- the brute-force twin of sbw_svd.h, a test oracle:
 * never called by production code.
 */
#ifndef SBW_SVD_REF_H
#define SBW_SVD_REF_H

#include "sbw_mat.h"

/* Brute-force twin: singular values of A (m, n), descending, into
 * s[min(m, n)], by one-sided Jacobi rotations (Hestenes 1958; Demmel &
 * Veselic 1992) on a private long double copy (x87 extended precision, so
 * the twin's own error is ~1e-19 relative and a comparison measures the
 * fast path's); A is not modified.  O(min^2 max) per sweep; for tests on
 * small matrices.  Errors: SBW_ESHAPE, SBW_ENOMEM,
 * SBW_ENUMERIC (no convergence in 100 sweeps).  On failure s is untouched,
 * but after SBW_ENUMERIC it holds the unconverged column norms, unsorted. */
int sbw_svd_ref_jacobi(const sbw_mat *a, double *s);

#endif
