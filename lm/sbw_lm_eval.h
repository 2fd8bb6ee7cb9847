/* sbw_lm_eval.h -- a language model on a held-out text: perplexity, and
 * the log-probability matrix of its predictions streamed in row blocks.
 *
 * The n tokens of a split give n - 1 predictions (token i+1 from tokens
 * 0..i).  They are cut into B contiguous segments, one per column of the
 * workspace (the first (n-1) mod B segments one token longer); each column
 * starts from a zero state at its segment's first token and carries its
 * state from chunk to chunk, so every prediction conditions on its whole
 * segment (AWD-LSTM evaluates the same way with B = 10; B = 1 conditions
 * on the whole text, slower).  The numbers therefore depend on B, which
 * every output names.
 *
 * Log-probabilities are exported in token order: the latent vectors of the
 * first T predictions are kept (T x D doubles), then the head turns them
 * into log Q rows block by block through sbw_pass_logq (double precision in
 * a double workspace), each block written before the next is formed: the
 * T x M matrix is never held.  The perplexity reported with an export is
 * exp of the mean of -log Q[row, next token] over exactly those rows.
 */
#ifndef SBW_LM_EVAL_H
#define SBW_LM_EVAL_H

#include "sbw_lm.h"
#include "sbw_npy.h"
#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_lm_eval_result {
    double nll;    /* mean -log Q of the next token, nats */
    double ppl;    /* exp(nll) */
    size_t tokens; /* predictions scored */
} sbw_lm_eval_result;

/* Perplexity of the n - 1 predictions of ids (n >= 2) under theta with
 * ws's columns, precision and head (ws's state is reset first and left
 * advanced).  p may be NULL (no progress).  Errors: SBW_EINVAL (n < 2, an
 * id out of range), the model's.  On failure *res is untouched and ws's
 * carried state unspecified (it is reset by the next evaluation). */
int sbw_lm_eval_nll(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t n,
                    sbw_progress *p, sbw_lm_eval_result *res);

/* Writes the first rows predictions' log Q (rows x M, float64) to out,
 * whose header the caller created for rows x M, in token order, and
 * reports their perplexity.  Only the first rows + 1 tokens are read
 * (rows <= n - 1).  Errors: SBW_EINVAL, SBW_ENOMEM (rows x D latents),
 * SBW_EIO (writing), the model's.  On failure *res is untouched and out
 * holds part of the rows: the caller aborts it (sbw_npy_abort: nothing
 * under the final name). */
int sbw_lm_eval_logprobs(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t rows,
                         sbw_npy_writer *out, sbw_progress *p, sbw_lm_eval_result *res);

/* The gradient bottleneck (models/sbw_gradneck.h) of the first rows
 * predictions: passed[i] (rows values, caller-owned) the share of g = q -
 * e_next that the head passes back to the latent of prediction i, and
 * their perplexity in *res; *single_map tells whether the head's logits
 * are one linear map (Softmax: one basis for all rows) or each row needed
 * its Jacobian (closed forms; M head passes a row for MoS+PLIF and Mixtape).  Errors: those of
 * sbw_lm_eval_logprobs but SBW_EIO, sbw_gradneck's.  On failure *res and
 * *single_map are untouched and passed holds unspecified values. */
int sbw_lm_eval_gradneck(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t rows,
                         sbw_progress *p, double *passed, bool *single_map,
                         sbw_lm_eval_result *res);

/* Bytes an evaluation with workspace options o holds: the workspace
 * (sbw_lm_ws_bytes), a chunk's ids and latents, and either the scored rows
 * of a perplexity pass (logprobs false) or the rows x D latents in token
 * order and a block of log Q rows of an export (logprobs true): what a
 * caller asks sbw_preflight_memory before allocating them. */
double sbw_lm_eval_bytes(const sbw_lm *lm, const sbw_lm_ws_opts *o, size_t rows, bool logprobs);

#endif
