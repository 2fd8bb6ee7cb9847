/* sbw_lm_train.h -- training an LSTM language model (sbw_lm.h) on a corpus
 * (sbw_corpus.h): truncated BPTT over B columns, SGD with gradient-norm
 * clipping and AWD-LSTM's switch to averaged SGD, or Adam; validation each
 * epoch; checkpoints on a timer, at the end and on a signal; snapshots of
 * the evaluation parameters every --eval-every tokens; a live log.
 *
 * Data order (Mikolov / AWD-LSTM "batchify"): the training ids are cut
 * into B equal columns (the last n mod B tokens dropped); chunk c of an
 * epoch reads steps c*T .. c*T + T - 1 of every column and predicts the
 * next token; the state is carried from chunk to chunk and zeroed at each
 * epoch's start.
 *
 * One step: the chunk's mean cross-entropy and gradient (sbw_lm_loss,
 * dropout masks from (seed, step)); + wdecay * theta on the weights
 * (sbw_lm_decay_mask); the whole gradient's norm clipped to clip; then
 * SGD (theta -= lr g) or Adam (sbw_optim_adam).  With SGD and asgd on,
 * once a validation is worse than the best of all but the last nonmono
 * ones (Merity et al. 2018, NT-ASGD), the run keeps the running mean of
 * the iterates from then on and evaluates and saves that mean.
 *
 * Determinism: a step is a pure function of theta, the optimiser state,
 * the carried state and (seed, step), all of which a checkpoint holds
 * bit for bit, so a resumed run equals an uninterrupted one for the same
 * thread count.
 *
 * Checkpoint directory: checkpoint.tsv (sbw_ckpt: every row of
 * sbw_lm_opts_table and the counters) with arrays theta, avg (when
 * averaging), adam_m, adam_v (Adam), state (the carried LSTM state),
 * valid (the validation history), log (the log's rows); snapshots in
 * snap-TOKENS/ hold the settings, counters and theta = the parameters an
 * evaluation uses (the mean when averaging).
 */
#ifndef SBW_LM_TRAIN_H
#define SBW_LM_TRAIN_H

#include "sbw_corpus.h"
#include "sbw_lm.h"
#include "sbw_lm_opts.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest magnitude a parameter may reach: a step that takes one
 * beyond it (or to NaN or an infinity) has diverged and stops the run, and
 * a checkpoint holding one is damaged.  A step moves a parameter by at
 * most lr x clip (SGD) or about lr (Adam), so no run that converges comes
 * near it; and its square times a million-term sum stays below float32's
 * largest value (3.4e38), so the single-precision forward pass of a model
 * within it cannot overflow. */
#define SBW_LM_TRAIN_PARAM_MAX 1e15

/* Variable BPTT (sbw_lm_opts.var_bptt): a chunk is at most bptt + this
 * many steps (MoS's max_seq_len_delta), and the lengths come from sbw_rng
 * stream SBW_LM_TRAIN_VAR_BPTT_STREAM + step (the dropout masks use
 * 1000 + step). */
#define SBW_LM_TRAIN_VAR_BPTT_DELTA  40
#define SBW_LM_TRAIN_VAR_BPTT_STREAM ((uint64_t)1 << 31)

/* The log's columns, in order. */
#define SBW_LM_TRAIN_LOG_COLS 9
extern const char *const sbw_lm_train_log_columns[SBW_LM_TRAIN_LOG_COLS];

typedef struct sbw_lm_train_result {
    size_t steps, epochs, tokens; /* done (whole run, across resumes) */
    double seconds, head_seconds; /* wall time of the run, and in the head pass */
    double train_ppl;             /* over the last log interval */
    double valid_ppl;             /* last validation (NAN: none yet) */
    double tokens_per_s;          /* this session's training tokens per second */
    bool averaging;               /* NT-ASGD switched to the mean */
    const char *stop;             /* "epochs", "max-steps", "stop-ppl", "signal" */
} sbw_lm_train_result;

/* Trains on c with o (o->arch.emb resolved, >= 1).  With resume, the run
 * in o->ckpt_dir continues: the settings that shape the trajectory come
 * from the checkpoint (given ones that differ are refused by the caller
 * through sbw_lm_train_ckpt_saved_opts), the free ones from o.  log_path (NULL:
 * none) is rewritten with every row so far at each log row; cmdline goes
 * into its header.  The caller holds the checkpoint folder's lock
 * (sbw_ckpt_lock_take).  Before allocating, the run's bytes
 * (sbw_lm_train_bytes) go through sbw_preflight_memory.  A resumed
 * checkpoint's arrays are checked (finite; parameters within
 * SBW_LM_TRAIN_PARAM_MAX).  Errors: SBW_EINTR (stopped by *o->stop: a checkpoint
 * was written when o->ckpt_dir is set), SBW_ENUMERIC (diverged: a training
 * or validation loss whose perplexity overflows, a non-finite gradient
 * norm, a parameter beyond SBW_LM_TRAIN_PARAM_MAX; the step and the last good
 * checkpoint are named, and none is written of the diverged parameters),
 * SBW_EDATA (the checkpoint is of other data, or damaged), SBW_EFORMAT,
 * SBW_EIO, SBW_ENOMEM (the memory preflight too), SBW_EINVAL.  On failure
 * *res is untouched, except after SBW_EINTR (filled: the run so far); the
 * folder keeps the last checkpoint written (each is atomic) and log_path
 * its last complete rewrite. */
int sbw_lm_train(const sbw_corpus *c, const sbw_lm_opts *o, bool resume, const char *log_path,
                 const char *cmdline, sbw_lm_train_result *res);

/* Bytes a run of o on model lm holds (parameters, gradient, mean, decay
 * mask, Adam's moments, the chunk, the carried state, the training and
 * validation workspaces): what sbw_lm_train asks sbw_preflight_memory
 * before it allocates any of them. */
double sbw_lm_train_bytes(const sbw_lm *lm, const sbw_lm_opts *o);

/* The settings stored in checkpoint directory dir into saved, every row of
 * the table (saved starts as a copy of o, so the plumbing is o's; the
 * caller then takes the free rows the user gave from o).  Errors: those
 * of sbw_ckpt_open/get; on failure *saved holds o with the rows before the
 * bad one replaced: discard it. */
int sbw_lm_train_ckpt_saved_opts(const char *dir, const sbw_lm_opts *o, sbw_lm_opts *saved);

/* The evaluation parameters of a checkpoint or snapshot directory for
 * corpus: its settings into *o, the model into *lm and a malloc'd theta
 * (lm->nparam; the mean when averaging) into *theta.  A full checkpoint
 * that says it is averaging must hold its avg array (a snapshot's theta is
 * the mean already: "snapshot=1", or no state array in folders written
 * before that key); the parameters must be finite and within
 * SBW_LM_TRAIN_PARAM_MAX.  Errors: SBW_EIO (a missing array, named), SBW_EFORMAT,
 * SBW_EDATA (trained on other data; a damaged array, named), SBW_ENOMEM
 * (the memory preflight too).  On failure *theta is NULL (nothing
 * allocated) and *o and *lm hold what was read before: discard them. */
int sbw_lm_train_ckpt_load(const char *dir, const sbw_corpus *corpus, sbw_lm_opts *o, sbw_lm *lm,
                           double **theta);

#endif
