/* sbw_obj.h -- the fit objective, fast: mean cross-entropy of a head
 * against P* over a set of contexts, and its gradient, without ever
 * forming anything N x M.
 *
 * Contexts are processed in blocks of B.  For a block: gather its rows of
 * H (and, for mixtures, g_k = tanh(U_k h) and pi = softmax(V h) by BLAS),
 * GEMM the block's logits Z = X W^T (B*nx x M, nx = K for MoS, else 1),
 * then per context, in cache: add the bias, apply the head's pointwise map,
 * normalise, accumulate the loss, and form the gradient (Q - P*) in place
 * (sbw_head_kern.h); then GEMM it back, dX = dZ W and dW += dZ^T X, and
 * through the context stage into dH, dU, dV.
 *
 * Precision: single runs the GEMMs in float and the pointwise work (exp,
 * log, the maps) in float in place in the block's float logits, with P*
 * stored in float; double runs everything in double.  Every reduction
 * (loss, normalisers, gradient accumulators across blocks, bias and map
 * gradients) is in double either way, and theta and the gradient are
 * double.
 *
 * Parallelism (measured in bench/bench_fit.sh): SBW_PASS_PAR_BLOCKS runs
 * OpenMP threads over blocks, each with single-threaded BLAS and its own
 * gradient accumulators (summed in thread order at the end);
 * SBW_PASS_PAR_BLAS runs blocks one after another with multithreaded BLAS
 * and OpenMP over the contexts of each block.  Both are deterministic for
 * a given thread count and block size.
 */
#ifndef SBW_OBJ_H
#define SBW_OBJ_H

#include "sbw_head.h"
#include "sbw_target.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum sbw_pass_par { SBW_PASS_PAR_BLOCKS = 0, SBW_PASS_PAR_BLAS } sbw_pass_par;

typedef struct sbw_obj_opts {
    bool single;     /* float GEMMs (and float parameter copies for them) */
    int threads;     /* threads to use; 0 = omp_get_max_threads() */
    size_t block;    /* contexts per block; 0 = automatic (sbw_obj_auto_block) */
    sbw_pass_par par; /* how the threads are used */
} sbw_obj_opts;

typedef struct sbw_obj sbw_obj;

/* Contexts per block when opts->block is 0: the block's logits fill
 * about 1 MB (at least 64 contexts, at most 1024), then evened out so that
 * the blocks come in equal rounds of one per thread (SBW_PASS_PAR_BLOCKS),
 * or times the thread count (SBW_PASS_PAR_BLAS); at most N. */
size_t sbw_obj_auto_block(const sbw_head *h, const sbw_obj_opts *opts);

/* Bytes of workspace sbw_obj_alloc takes (for --dry-run). */
double sbw_obj_workspace_bytes(const sbw_head *h, const sbw_obj_opts *opts);

/* Allocates the workspace for fitting head h to target t (which must stay
 * alive and unchanged).  Errors: SBW_ESHAPE (sizes differ), SBW_EINVAL
 * (a GEMM dimension beyond INT_MAX), SBW_ENOMEM. */
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
 * SBW_ENOMEM. */
int sbw_obj_eval(sbw_obj *o, const double *theta, const size_t *rows, size_t nrows,
                 sbw_obj_result *res, double *grad);

/* log Q of the contexts [r0, r0 + nr) into lq (nr x M, leading dim M),
 * with the metrics of those rows in res.  When logp (nr x M, exact log
 * P*) is given, loss/KL/mode match are taken against it rather than the
 * stored P.  Errors: SBW_EINVAL (range). */
int sbw_obj_logq(sbw_obj *o, const double *theta, size_t r0, size_t nr, double *lq,
                 const double *logp, sbw_obj_result *res);

#endif
