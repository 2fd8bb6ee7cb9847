/* sbw_obj.h -- sbw-fit's objective: the mean cross-entropy of a head
 * against P* over a set of contexts, each context with its own free
 * embedding, and the gradient with respect to everything.
 *
 * The fit's parameter vector is theta = [ the head's parameters (nshared,
 * sbw_head.h) | H (N x D, one row per context) ]: sbw-fit owns H and hands
 * it to the head through sbw_pass.h, which does all the work.  A minibatch
 * gathers its rows of H into a block, and scatters their gradient back.
 */
#ifndef SBW_OBJ_H
#define SBW_OBJ_H

#include "sbw_head.h"
#include "sbw_pass.h"
#include "sbw_target.h"

#include <stdbool.h>
#include <stddef.h>

/* The pass's metrics are the objective's. */
typedef sbw_pass_result sbw_obj_result;

/* How the objective runs: the pass's options, with block 0 meaning
 * automatic (sbw_obj_auto_block). */
typedef sbw_pass_opts sbw_obj_opts;

typedef struct sbw_obj sbw_obj;

/* Contexts per block when opts->block is 0: the block's logits fill
 * about 1 MB (at least 64 contexts, at most 1024), then evened out so that
 * the blocks come in equal rounds of one per thread (SBW_PASS_PAR_BLOCKS),
 * or times the thread count (SBW_PASS_PAR_BLAS); at most N. */
size_t sbw_obj_auto_block(const sbw_head *h, const sbw_obj_opts *opts);

/* Bytes of workspace sbw_obj_alloc takes (for --dry-run); a minibatch fit
 * adds 16 * batch * D for its gathered rows of H and dH. */
double sbw_obj_workspace_bytes(const sbw_head *h, const sbw_obj_opts *opts);

/* Allocates the objective of head h (h->n contexts) on target t (which
 * must stay alive and unchanged).  Errors: SBW_ESHAPE (sizes differ),
 * SBW_EINVAL (a GEMM dimension beyond INT_MAX), SBW_ENOMEM.  *o is NULL on
 * failure (nothing allocated). */
int sbw_obj_alloc(sbw_obj **o, const sbw_head *h, const sbw_target *t, const sbw_obj_opts *opts);

/* Frees; NULL is a no-op. */
void sbw_obj_free(sbw_obj *o);

/* The block size and thread count in use. */
size_t sbw_obj_block(const sbw_obj *o);
int sbw_obj_threads(const sbw_obj *o);

/* Mean loss, KL and mode match over the contexts rows[0..nrows) (all N,
 * in order, when rows is NULL) at theta (nparam), and when grad is not
 * NULL the gradient of the mean loss: the shared prefix (nshared) and the
 * set's rows of dH are overwritten, rows of dH outside the set are left as
 * they were (their gradient is 0; a minibatch step reads only the prefix
 * and its rows, and zeroing all of dH, 80 MB at N = 1e5, D = 100, every
 * step would cost as much as a small batch's step).  Rows must be
 * distinct.  Errors: SBW_EINVAL (nrows 0, a row >= N, a repeated row),
 * SBW_ENOMEM.  Every error comes before anything is written: res and grad
 * untouched on failure. */
int sbw_obj_eval(sbw_obj *o, const double *theta, const size_t *rows, size_t nrows,
                 sbw_obj_result *res, double *grad);

/* log Q of the contexts [r0, r0 + nr) into lq (nr x M, leading dim M),
 * with the metrics of those rows in res.  When logp (nr x M, exact log
 * P*) is given, loss and KL are taken against it rather than the stored
 * P.  sbw-fit exports from a double-precision objective.  Errors:
 * SBW_EINVAL (range), those of sbw_pass_logq; lq and res untouched on
 * failure. */
int sbw_obj_logq(sbw_obj *o, const double *theta, size_t r0, size_t nr, double *lq,
                 const double *logp, sbw_obj_result *res);

#endif
