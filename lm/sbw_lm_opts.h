/* sbw_lm_opts.h -- the settings of an sbw-lm training run and the one
 * table that names them (key, place, type, range, default, role on
 * resume, option), as sbw_fit_opts does for sbw-fit: defaults, checkpoint
 * writing and reading, the --resume conflict check and the output header
 * all walk it.  The architecture rows are also what `sbw-lm eval` reads
 * back from a checkpoint to rebuild the model.
 */
#ifndef SBW_LM_OPTS_H
#define SBW_LM_OPTS_H

#include "sbw_ckpt.h"
#include "sbw_lm.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sbw_lm_opts_optimizer { SBW_LM_SGD = 0, SBW_LM_ADAM } sbw_lm_opts_optimizer;

typedef struct sbw_lm_opts {
    sbw_lm_arch arch;    /* the model */
    size_t batch, bptt;  /* B sequences, T steps per chunk */
    size_t eval_batch;   /* columns of the validation pass */
    size_t train_tokens; /* use the first n training tokens (0: all) */
    size_t valid_tokens; /* validate on the first n tokens (0: all) */
    uint64_t seed;       /* initialisation and dropout */
    sbw_lm_opts_optimizer optimizer;
    double lr, clip, wdecay;
    double beta1, beta2, eps; /* Adam */
    bool asgd;                /* SGD switches to averaging when validation stalls */
    size_t nonmono;           /* ... worse than the best of all but the last nonmono */
    sbw_lm_dropout drop;
    bool single; /* float training path */
    /* may change on resume */
    size_t epochs;     /* stop after this many epochs */
    size_t max_steps;  /* and after this many steps (0: no limit) */
    size_t log_every;  /* steps between log rows */
    size_t eval_every; /* training tokens between kept snapshots (0: none) */
    double ckpt_every; /* seconds between checkpoints (0: only at the end and on a signal) */
    int threads;       /* 0: every core */
    /* plumbing, never saved */
    const char *ckpt_dir;        /* NULL: no checkpoints */
    volatile sig_atomic_t *stop; /* polled after every step */
    bool quiet;
    const char *quick; /* the options --quick set, blank-separated (NULL: none) */
} sbw_lm_opts;

extern const sbw_ckpt_field sbw_lm_opts_table[];
extern const size_t sbw_lm_opts_nrows;

/* The table's defaults: softmax head, D = 400, E = D, LSTM 1150,1150,400
 * (AWD-LSTM's sizes), word bias, K = 15, 100 PLIF intervals on [-10, 10],
 * batch 20, BPTT 70, eval batch 10, SGD lr 20 with clipping 0.25, weight
 * decay 1.2e-6, averaging after 5 stalled validations, dropouts 0.1
 * (emb), 0.4 (in), 0.25 (layer), 0.4 (latent), float, 1 epoch, a log row
 * every 10 steps, checkpoints every 600 s. */
void sbw_lm_opts_init(sbw_lm_opts *o);

/* What a message puts after the value of option opt: " (set by --quick)"
 * when o->quick lists opt, else "". */
const char *sbw_lm_opts_note(const sbw_lm_opts *o, const char *opt);

/* The name of an optimizer ("sgd", "adam"), NULL past the last. */
const char *sbw_lm_opts_optimizer_name(int v);

#endif
