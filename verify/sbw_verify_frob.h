/* sbw_verify_frob.h -- a head fitted to log P* in the Frobenius norm
 * itself, by an iterative optimiser from a random start: the independent
 * side of LMS Theorem 1's check (the bounds come from SVDs; this never
 * computes one).
 */
#ifndef SBW_VERIFY_FROB_H
#define SBW_VERIFY_FROB_H

#include "sbw_mat.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the fit's rows are shifted: each by a free constant c_i (the class
 * the shift-aware Eckart-Young bound is exact for), or by -logsumexp of
 * the row (a Softmax head's normalised log Q). */
typedef enum sbw_verify_frob_shift {
    SBW_VERIFY_FROB_FREE,
    SBW_VERIFY_FROB_SOFTMAX,
} sbw_verify_frob_shift;

/* Minimises ||A - L||_F over L = H W^T + c 1^T, with H (N x d), W (M x d)
 * (no word bias, as LMS Theorem 1's heads) and the row shift c (N) as
 * shift says (free, or c_i = -logsumexp_j (H W^T)_ij), by GSL's BFGS2 on
 * 0.5 ||A - L||_F^2 and its exact gradient, started from H, W with
 * independent N(0, 0.1^2) entries drawn from seed and c = 0; at most iters
 * iterations, or until the gradient's norm is below 1e-10 ||A||_F or the
 * line search makes no progress.  A is N x M, not modified.  The error
 * ||A - L||_F of the last iterate into *err.  Errors: SBW_EINVAL (d = 0,
 * an empty A), SBW_ENOMEM; *err is NaN on failure. */
int sbw_verify_frob_fit(const sbw_mat *a, size_t d, sbw_verify_frob_shift shift, size_t iters,
                        uint64_t seed, double *err);

#endif
