/* sbw_fit_opts.h -- the settings of a fit, and the one table that names
 * them: key, place in sbw_fit_opts, type, accepted range, default, whether
 * it shapes the trajectory (taken from a checkpoint on resume) or may
 * change on resume (steps, threads, checkpoint interval), and the
 * command-line option that sets it.  Defaults, checkpoint writing and
 * reading, the --resume conflict check and the output header all walk this
 * table: a new checkpointed setting is one member here and one row in
 * sbw_fit_opts.c.
 *
 * The checkpoint directory, the stop flag and the step hook are plumbing,
 * not settings: they are never saved and always the caller's.
 */
#ifndef SBW_FIT_OPTS_H
#define SBW_FIT_OPTS_H

#include "sbw_ckpt.h"
#include "sbw_head.h"
#include "sbw_obj.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sbw_fit_opts_optimizer { SBW_FIT_ADAM = 0, SBW_FIT_LBFGS } sbw_fit_opts_optimizer;

struct sbw_fit;

typedef struct sbw_fit_opts {
    /* the head (sbw_head_setup) and its initialisation (sbw_head_init) */
    sbw_head_model model;
    size_t d, k, knots;
    double plif_t;
    bool bias, linear;
    double init_scale;
    uint64_t seed;
    /* the optimiser */
    sbw_fit_opts_optimizer optimizer;
    double lr; /* Adam */
    bool lr_auto;
    double beta1, beta2, eps, decay;
    size_t batch;      /* contexts per Adam step; 0 = all (full batch) */
    size_t steps;      /* at most this many updates */
    double tol;        /* relative-improvement stop; 0 = off */
    size_t tol_window; /* steps per window of the stopping rule */
    size_t lbfgs_mem;  /* L-BFGS history pairs */
    size_t lr_auto_rows, lr_auto_steps;
    /* the objective's precision and threads */
    sbw_obj_opts obj;
    /* reporting and safety */
    size_t log_every;                                    /* steps between log rows; 0 = automatic */
    double checkpoint_every;                             /* seconds between checkpoints; 0 = none */
    const char *checkpoint_dir;                          /* NULL: no checkpoints */
    volatile sig_atomic_t *stop;                         /* polled after every step; may be NULL */
    void (*on_step)(void *ctx, const struct sbw_fit *f); /* after every step */
    void *ctx;
} sbw_fit_opts;

/* The table: every saved setting of sbw_fit_opts, in checkpoint order. */
/* Name functions of checkpoint rows (sbw_ckpt_field.name), shared with
 * sbw_lm_opts's table: a head model by its enum value (sbw_head_model_name),
 * and a precision flag (0 "double", 1 "single"); NULL out of range. */
const char *sbw_fit_opts_model_name(int v);
const char *sbw_fit_opts_precision_name(int v);

extern const sbw_ckpt_field sbw_fit_opts_table[];
extern const size_t sbw_fit_opts_nrows;

/* Defaults (the table's): softmax, D = 10, K = 10, 1000 PLIF intervals on
 * [-10, 10], no bias, init scale 0.1, Adam lr 0.01, betas 0.9/0.999, eps
 * 1e-8, decay 1, full batch, 1000 steps, tol 0, window 100, L-BFGS history
 * 10, lr auto on 1024 contexts for 100 steps, single-precision GEMMs on
 * every core, automatic block and log interval, no checkpoints. */
void sbw_fit_opts_init(sbw_fit_opts *o);

/* The row called key, or NULL. */
const sbw_ckpt_field *sbw_fit_opts_row(const char *key);

/* The table's rows from checkpoint c into o, every value checked; a
 * checkpoint written before the last row (bf16, issue 27) reads it as its
 * default (off), which is how it was trained.  Errors: sbw_ckpt_get's; on
 * failure o holds the rows read before the bad one. */
int sbw_fit_opts_get(const sbw_ckpt *c, sbw_fit_opts *o);

/* The objective's precision's name: "single", "double" or "bf16". */
const char *sbw_fit_opts_precision(const sbw_fit_opts *o);

#endif
