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
    sbw_lm_dropout drop;      /* dropouts, weight drop, AR and TAR (sbw_lm.h) */
    bool var_bptt;            /* AWD-LSTM's random chunk lengths, lr scaled by length/bptt */
    bool single;              /* float training path */
    bool bf16;                /* with single: bfloat16 GEMM inputs (sbw_gemm.h) */
    /* may change on resume */
    size_t epochs;     /* stop after this many epochs */
    size_t max_steps;  /* and after this many steps (0: no limit) */
    size_t log_every;  /* steps between log rows */
    size_t eval_every; /* training tokens between kept snapshots (0: none) */
    bool snap_epochs;  /* also keep a snapshot at the end of every epoch */
    double stop_ppl;   /* stop after a validation perplexity <= this (0: never) */
    double ckpt_every; /* seconds between checkpoints (0: only at the end and on a signal) */
    int threads;       /* 0: every core */
    /* plumbing, never saved */
    const char *ckpt_dir;        /* NULL: no checkpoints */
    volatile sig_atomic_t *stop; /* polled after every step */
    bool quiet;
    const char *quick; /* the options --quick set, blank-separated (NULL: none) */
} sbw_lm_opts;

/* The training precision's name: "single", "double" or "bf16". */
const char *sbw_lm_opts_precision(const sbw_lm_opts *o);

extern const sbw_ckpt_field sbw_lm_opts_table[];
extern const size_t sbw_lm_opts_nrows;

/* The table's last rows, by generation, newest last: dropout_last,
 * wdrop, alpha, beta, var_bptt (SBW_LM_OPTS_NEW); latent
 * (SBW_LM_OPTS_LATENT); snap_epochs, stop_ppl (SBW_LM_OPTS_STOP); bf16
 * (SBW_LM_OPTS_BF16).
 * Checkpoints written before a generation lack its rows. */
#define SBW_LM_OPTS_NEW    5
#define SBW_LM_OPTS_LATENT 1
#define SBW_LM_OPTS_STOP   2
#define SBW_LM_OPTS_BF16   1

/* Every row of the table from checkpoint c into o; a checkpoint without
 * a generation's first row (written before it existed, so run without it)
 * gets that generation's defaults: the regularisers off, --latent tanh,
 * no epoch snapshots and no perplexity stop.
 * Errors: those of sbw_ckpt_get; on failure o holds the rows read before
 * the bad one (discard it). */
int sbw_lm_opts_get(const sbw_ckpt *c, sbw_lm_opts *o);

/* The table's defaults: softmax head, D = 400, E = D, LSTM 1150,1150,400
 * (AWD-LSTM's sizes), word bias, K = 15, 100 PLIF intervals on [-10, 10],
 * batch 20, BPTT 70, eval batch 10, SGD lr 20 with clipping 0.25, weight
 * decay 1.2e-6, averaging after 5 stalled validations, dropouts 0.1
 * (emb), 0.4 (in), 0.25 (layer, the last layer too), 0.4 (latent); no weight
 * drop, AR, TAR or variable BPTT; float, 1 epoch, a log row
 * every 10 steps, checkpoints every 600 s. */
void sbw_lm_opts_init(sbw_lm_opts *o);

/* --hidden's text, 1 to SBW_LM_MAX_LAYERS comma-separated sizes in [1,
 * 1e6], into a->nlayers and a->hidden (unused entries 0).  Errors:
 * SBW_EINVAL naming --hidden and the text; a untouched on failure. */
int sbw_lm_opts_hidden(const char *s, sbw_lm_arch *a);

/* What a message puts after the value of option opt: " (set by --quick)"
 * when o->quick lists opt, else "". */
const char *sbw_lm_opts_note(const sbw_lm_opts *o, const char *opt);

/* Whether the user gave option opt (a tool's sbw_cli_given over its own
 * context): presets and --quick set only what was not given. */
typedef bool (*sbw_lm_opts_given)(void *ctx, const char *opt);

/* --quick: small sizes (D 16, LSTM 32 -- D with --latent none and a head
 * without components, whose last layer must be D wide -- B 8, T 20, K 3,
 * 20 knots, 20k/4k
 * tokens, a log row every 5 steps, eval batch 4) and no dropout (the four
 * locked/word dropouts; the last layer's as the others') for whatever was not given; note (cap
 * bytes) receives the options it set, blank-separated, and o->quick points to it
 * (sbw_lm_opts_note). */
void sbw_lm_opts_quick(sbw_lm_opts *o, sbw_lm_opts_given given, void *ctx, char *note, size_t cap);

/* --preset NAME ("mos", "awd"): the paper's network and recipe (sbw_lm_opts_preset_help
 * lists the values) for every option not given; the flags --tied and
 * --var-bptt are always set.  Errors: SBW_EINVAL (an unknown name); o
 * untouched on failure. */
int sbw_lm_opts_preset(sbw_lm_opts *o, const char *name, sbw_lm_opts_given given, void *ctx);

/* Every preset's options as --help text into buf (cap bytes; truncated
 * to fit). */
void sbw_lm_opts_preset_help(char *buf, size_t cap);

/* The name of an optimizer ("sgd", "adam"), NULL past the last. */
const char *sbw_lm_opts_optimizer_name(int v);

#endif
