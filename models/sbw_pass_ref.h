/* sbw_pass_ref.h -- the naive twin of sbw_pass.h, the test oracle of the
 * blocked, threaded pass: one context at a time, plain loops in double
 * from the formulas, the mixture in the log domain, no BLAS, no threads.
 * Slow; never called by production code.
 */
#ifndef SBW_PASS_REF_H
#define SBW_PASS_REF_H

#include "sbw_head.h"
#include "sbw_pass.h"

#include <stddef.h>

/* sbw_pass_loss's contract, naively, without a workspace: mean loss, KL
 * and mode match of the head at theta (nshared) over the rows of H (rows
 * x C, leading dim ldh) against tg; when dH is not NULL, dH (rows x C,
 * leading dim lddh) and dtheta (nshared) are overwritten with the
 * gradients of the mean loss.  Errors: SBW_EINVAL (rows 0, a target out
 * of range), SBW_ESHAPE, SBW_ENOMEM; res, dH and dtheta untouched on
 * failure. */
int sbw_pass_ref_loss(const sbw_head *h, const double *theta, const double *H, size_t rows,
                      size_t ldh, const sbw_pass_target *tg, sbw_pass_result *res, double *dH,
                      size_t lddh, double *dtheta);

/* sbw_pass_loss_masked's contract, naively (mask NULL: none).  Errors:
 * sbw_pass_ref_loss's, SBW_EINVAL for a mask on a head that is not
 * context-mixing or with period 0; res, dH, dtheta untouched on failure. */
int sbw_pass_ref_loss_masked(const sbw_head *h, const double *theta, const double *H, size_t rows,
                             size_t ldh, const sbw_pass_mask *mask, const sbw_pass_target *tg,
                             sbw_pass_result *res, double *dH, size_t lddh, double *dtheta);

/* log Q (M, into lq) of one context vector hv (C) at theta, naively.
 * Errors: SBW_ENOMEM; lq untouched on failure. */
int sbw_pass_ref_logq(const sbw_head *h, const double *theta, const double *hv, double *lq);

#endif
