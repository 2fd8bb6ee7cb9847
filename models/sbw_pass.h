/* sbw_pass.h -- one head over a block of context vectors the caller owns:
 * the loss of every row against its target, dH and the gradient of the
 * head's own parameters (sbw_pass_loss), or log Q for export
 * (sbw_pass_logq).  This is the API every trainer drives: sbw-fit owns H
 * as free parameters (sbw_obj.h), a language model computes H and
 * backpropagates dH into its network.
 *
 * Inputs of a call: the head (sbw_head.h), its parameters theta (the
 * head's nshared doubles: W, b, U, V, the map's; never H), H (rows x D,
 * leading dimension ldh) and a target per row: a row of P* (an
 * sbw_target, the synthetic-language case) or one observed word id (the
 * language-model case, which is the P* case with a one-hot row: same
 * kernels, same numbers).  Nothing of a call is kept in the workspace
 * beyond scratch: two calls with the same arguments give the same bits.
 *
 * How it runs: contexts in blocks of B.  For a block, gather its rows of
 * H (and, for mixtures, g_k = tanh(U_k h) and pi = softmax(V h) by BLAS),
 * GEMM the logits Z = X W^T (B*nx x M, nx = K for MoS, else 1), then per
 * context, in cache: add the bias, apply the head's pointwise map,
 * normalise, accumulate the loss and form the gradient (Q - P*) in place
 * (sbw_head_kern.h); then GEMM it back, dX = dZ W and dW += dZ^T X, and
 * through the context stage into dH, dU, dV.  Nothing N x M is formed.
 *
 * Precision: single runs the GEMMs in float (the logits', and a mixture's
 * U_k h and its two back; the prior V h and Mixtape's gates stay double)
 * and the pointwise work in float in place in the block's float logits
 * (P* rows are read in float);
 * double runs everything in double; bf16 is single with the GEMMs' inputs
 * rounded to bfloat16 (float accumulation).  Every reduction (loss, normalisers,
 * gradient accumulators across blocks, bias and map gradients) is in
 * double either way; theta, H, dH and the gradient are double.
 *
 * Parallelism (measured in bench/bench_fit.sh): SBW_PASS_PAR_BLOCKS runs
 * OpenMP threads over blocks, each with single-threaded BLAS and its own
 * gradient accumulators (summed in thread order at the end);
 * SBW_PASS_PAR_BLAS runs blocks one after another with multithreaded BLAS
 * and OpenMP over the contexts of each block.  Both are deterministic for
 * a given thread count and block size.
 */
#ifndef SBW_PASS_H
#define SBW_PASS_H

#include "sbw_head.h"
#include "sbw_target.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum sbw_pass_par { SBW_PASS_PAR_BLOCKS = 0, SBW_PASS_PAR_BLAS } sbw_pass_par;

typedef struct sbw_pass_opts {
    bool single;      /* float GEMMs and pointwise work */
    int threads;      /* threads to use; 0 = omp_get_max_threads() */
    size_t block;     /* contexts per block, >= 1 */
    sbw_pass_par par; /* how the threads are used */
    bool bf16;        /* with single: the GEMMs take bfloat16 inputs (core/sbw_gemm.h;
                       * refused without AVX-512 BF16), one context per block workspace */
} sbw_pass_opts;

/* What one call reports, as means over its rows. */
typedef struct sbw_pass_result {
    double loss;       /* mean cross-entropy -sum p log Q (ids: -log Q_id) */
    double kl;         /* mean KL(P* || Q) = loss - mean entropy of P* (ids: = loss) */
    double mode_match; /* fraction of rows with argmax Q == argmax P* (ids: == id) */
    size_t rows;       /* rows evaluated */
} sbw_pass_result;

/* The target of each row of H: exactly one of p and ids is set.
 *   p:    row i is scored against P* row rows[i] (rows NULL: row r0 + i);
 *   ids:  row i is scored against the one-hot row of word ids[i] (< M). */
typedef struct sbw_pass_target {
    const sbw_target *p;
    const size_t *rows;
    size_t r0;
    const size_t *ids;
} sbw_pass_target;

typedef struct sbw_pass_ws sbw_pass_ws;

/* Bytes of workspace sbw_pass_ws_alloc takes for head h and opts. */
double sbw_pass_ws_bytes(const sbw_head *h, const sbw_pass_opts *opts);

/* Allocates a workspace for head h (copied) with opts; one workspace
 * serves any number of calls of any row count, one call at a time.
 * Errors: SBW_EINVAL (block 0, a GEMM dimension beyond INT_MAX, bf16
 * without single or on a CPU without AVX-512 BF16), SBW_ENOMEM.  *ws is
 * NULL on failure. */
int sbw_pass_ws_alloc(sbw_pass_ws **ws, const sbw_head *h, const sbw_pass_opts *opts);

/* Frees; NULL is a no-op. */
void sbw_pass_ws_free(sbw_pass_ws *ws);

/* The options in use (threads resolved). */
sbw_pass_opts sbw_pass_ws_opts(const sbw_pass_ws *ws);

/* Mean loss, KL and mode match of the head at theta (h->nshared) over the
 * rows of H (rows x C, leading dim ldh >= C; C = the head's context
 * width, D by default) against tg, into res.  When
 * dH is not NULL: dH (rows x C, leading dim lddh >= C) is overwritten
 * with the gradient of the mean loss with respect to H, and dtheta
 * (h->nshared, not NULL) with its gradient with respect to theta.  dH may
 * alias H only when ldh == lddh (each row is read before it is written).
 * One call at a time per process: the BLAS thread count is process-wide.
 * Errors: SBW_EINVAL (rows 0, tg NULL or not exactly one of p and ids, a
 * P* row or an id out of range, ld < D, dH without dtheta), SBW_ESHAPE
 * (P* does not have the head's M words).  Every such error is found
 * before anything is written: res, dH and dtheta untouched on failure.
 * A bf16 workspace's GEMM failure (memory for its copies, oneDNN) is
 * found after: its status is returned, dH and dtheta unspecified. */
int sbw_pass_loss(sbw_pass_ws *ws, const double *theta, const double *H, size_t rows, size_t ldh,
                  const sbw_pass_target *tg, sbw_pass_result *res, double *dH, size_t lddh,
                  double *dtheta);

/* A fixed multiplicative mask on a context-mixing head's component
 * vectors (MoS code's dropoutl, "locked": one row per sequence): the
 * logits see g_k * mask instead of g_k.  Row r of the call (position r
 * of H) uses row r % period of m (period x K D, leading dim K D; row k*D
 * .. k*D+D-1 of a mask row scales g_k).  Entries are 0 or the kept
 * scale 1/(1-p); the backward passes the gradient through the same
 * mask.  Read-only, owned by the caller. */
typedef struct sbw_pass_mask {
    const double *m;
    size_t period;
} sbw_pass_mask;

/* sbw_pass_loss with the mask (NULL: none, exactly sbw_pass_loss).
 * Errors: sbw_pass_loss's, and SBW_EINVAL for a mask on a head that is
 * not context-mixing or with period 0; res, dH and dtheta untouched on
 * failure. */
int sbw_pass_loss_masked(sbw_pass_ws *ws, const double *theta, const double *H, size_t rows,
                         size_t ldh, const sbw_pass_mask *mask, const sbw_pass_target *tg,
                         sbw_pass_result *res, double *dH, size_t lddh, double *dtheta);

/* log Q of the rows of H (rows x C) into lq (rows x M, leading dim ldq >= M), in the
 * workspace's precision up to the logits and their map, normalised in
 * double.  An export for rank analysis wants a double workspace (a
 * float32 log Q has full numerical rank from its rounding alone).  When
 * res is not NULL the metrics are taken against tg (not NULL then); when
 * the exact log P* logp (rows x M, leading dim ldp) is also given,
 * cross-entropy and entropy come from it rather than from the stored
 * probabilities.  Errors: SBW_EINVAL (rows 0, a target out of range, ld
 * too small), SBW_ESHAPE.  Every error is found before anything is
 * written: lq and res untouched on failure. */
int sbw_pass_logq(sbw_pass_ws *ws, const double *theta, const double *H, size_t rows, size_t ldh,
                  double *lq, size_t ldq, const sbw_pass_target *tg, const double *logp, size_t ldp,
                  sbw_pass_result *res);

#endif
