/* sbw_obj_ref.h -- the naive twin of sbw_obj.h: sbw-fit's objective
 * (theta = [head parameters | H]) through the naive pass
 * (sbw_pass_ref.h).  A test oracle; never called by production code.
 */
#ifndef SBW_OBJ_REF_H
#define SBW_OBJ_REF_H

#include "sbw_head.h"
#include "sbw_obj.h"
#include "sbw_target.h"

#include <stddef.h>

/* Mean over the given rows (all N when rows is NULL) of -sum_i p_i log
 * Q_i, and, when grad is not NULL, its gradient with respect to theta
 * (nparam doubles, overwritten; rows of H outside the set get 0).  theta
 * is (nparam).  Errors: SBW_ESHAPE (target and head sizes differ),
 * SBW_EINVAL (a row index >= N, nrows == 0), SBW_ENOMEM; res and grad
 * untouched on failure. */
int sbw_obj_ref_eval(const sbw_head *h, const double *theta, const sbw_target *t,
                     const size_t *rows, size_t nrows, sbw_obj_result *res, double *grad);

/* log Q of context r (M doubles into lq) at theta, naively.  Errors:
 * SBW_EINVAL (r >= N), SBW_ENOMEM; lq untouched on failure. */
int sbw_obj_ref_logq(const sbw_head *h, const double *theta, size_t r, double *lq);

#endif
