/* sbw_fit.h -- fitting a head to a language: one context embedding per
 * row of P* and shared word embeddings, by minimising the mean
 * cross-entropy (equivalently the mean KL(P* || Q)), as in the LMS paper's
 * synthetic experiment (Ganea et al. 2019, section 5.1).
 *
 * One optimiser for every head (Adam or L-BFGS, sbw_optim.h) over one
 * objective (sbw_obj.h), so comparisons between heads are apples to
 * apples.  Deterministic for a given seed, thread count and block size.
 *
 * Steps and what a log row means: step s is the state after s parameter
 * updates; its row reports the objective at those parameters (for a
 * minibatch fit, a full pass over every context, without gradient).  The
 * last row is the final state.
 *
 * Stopping: after opts.steps updates, or when the relative improvement of
 * the mean KL falls below opts.tol: the mean KL over the last window of
 * opts.tol_window steps is compared with the previous window's, and the fit
 * stops when (KL_prev - KL_now) <= tol * KL_now.  L-BFGS also stops when
 * its line search finds no decrease (converged to roundoff).
 *
 * --lr auto (Adam): a grid of learning rates {1e-3, 3e-3, 1e-2, 3e-2, 0.1,
 * 0.3}, each fitted for lr_auto_steps steps on a seeded subsample of
 * lr_auto_rows contexts from the same initial parameters; the rate with the
 * lowest final mean KL on the subsample wins (ties: the smaller rate).
 * The subsample is the first lr_auto_rows entries, sorted, of
 * gsl_ran_shuffle of 0..N-1 with sbw_rng stream SBW_FIT_STREAM_LR_AUTO;
 * each trial starts from the fit's initial shared parameters and those
 * rows of H, full batch (or opts.batch when smaller than the subsample),
 * no stopping rule.
 *
 * Checkpoints hold only parameters whose loss was evaluated finite, so
 * after a divergence the last checkpoint is a good state to resume from.
 */
#ifndef SBW_FIT_H
#define SBW_FIT_H

#include "sbw_fit_opts.h"
#include "sbw_head.h"
#include "sbw_obj.h"
#include "sbw_optim.h"
#include "sbw_target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a fit stopped. */
typedef enum sbw_fit_stop {
    SBW_FIT_RUNNING = 0,
    SBW_FIT_STEPS,     /* did opts.steps updates */
    SBW_FIT_TOL,       /* relative improvement below tol */
    SBW_FIT_CONVERGED, /* L-BFGS: no further decrease */
    SBW_FIT_SIGNAL,    /* *opts.stop was set (SIGINT/SIGTERM) */
    SBW_FIT_NAN        /* the loss became NaN or infinite */
} sbw_fit_stop;

#define SBW_FIT_LR_GRID 6

/* sbw_rng streams (sbw_head_init uses streams 1-4): minibatch epoch e
 * shuffles with stream SBW_FIT_STREAM_EPOCH + e; --lr auto's subsample
 * with SBW_FIT_STREAM_LR_AUTO. */
#define SBW_FIT_STREAM_EPOCH   UINT64_C(0x100000)
#define SBW_FIT_STREAM_LR_AUTO UINT64_C(0x200000)

/* One row of the training log. */
typedef struct sbw_fit_logrow {
    double step, epoch, loss, kl, mode_match, lr, seconds;
} sbw_fit_logrow;

/* The state of a fit.  Callers read it; only sbw_fit_* writes it. */
typedef struct sbw_fit {
    sbw_fit_opts opt;
    sbw_head head;
    const sbw_target *t;
    sbw_obj *obj;
    double *theta, *grad; /* (nparam) */
    sbw_optim_adam adam;
    sbw_optim_lbfgs lbfgs;
    bool have_fg;             /* L-BFGS: last.loss and grad are at theta */
    uint64_t step;            /* updates done */
    uint64_t epoch, pos;      /* minibatch: epoch, position in its permutation */
    size_t *perm, *batch;     /* (N) this epoch's order, (batch) sorted rows */
    bool perm_ok;             /* perm holds epoch's permutation */
    sbw_optim_range *ranges;  /* (batch + 1) Adam's lazy ranges */
    double win_sum, win_prev; /* stopping rule: KL sum of this window, last mean */
    uint64_t win_n;
    bool have_prev;
    sbw_fit_stop stop;
    sbw_obj_result last; /* the latest full evaluation (or batch, minibatch) */
    double lr_grid[SBW_FIT_LR_GRID], lr_kl[SBW_FIT_LR_GRID];
    size_t nlr; /* grid points tried (0 unless --lr auto) */
    sbw_fit_logrow *log;
    size_t nlog, caplog;
    double t_start, elapsed0;     /* clock at (re)start; seconds before a resume */
    double t_ckpt;                /* clock at the last checkpoint */
    uint64_t ckpt_gen, ckpt_step; /* last checkpoint written (gen 0: none) */
    uint64_t resumed_at;          /* step a resume started from (0: fresh) */
} sbw_fit;

/* A new fit of the head opts describes to target t (which must outlive
 * it), with initialised parameters; runs the --lr auto grid when asked.
 * Errors: SBW_EINVAL (bad sizes or settings, via sbw_head_setup and
 * sbw_optim_*), SBW_ENOMEM, SBW_EINTR (stopped during --lr auto).  *f is
 * NULL on failure. */
int sbw_fit_alloc(sbw_fit **f, const sbw_target *t, const sbw_fit_opts *opts);

/* Frees; NULL is a no-op. */
void sbw_fit_free(sbw_fit *f);

/* Runs until opts.steps updates or a stop, then evaluates the final
 * parameters (f->last, the last log row).  Returns SBW_OK when it stopped
 * by steps, tol or convergence; SBW_EINTR after a signal (a checkpoint was
 * written when a directory is set and the loss there is finite);
 * SBW_ENUMERIC when the loss became NaN or infinite, found by a step's or a
 * due checkpoint's evaluation (the reason names the step; the last
 * checkpoint, if any, is left as it was); errors of checkpoint writing
 * (SBW_EIO).  f->last is then the evaluation at the final theta (for
 * L-BFGS, at the accepted point, never a rejected line-search trial).  On
 * failure f stays whole (free it with sbw_fit_free, or resume from its
 * checkpoint): theta holds the parameters where the run stopped (after
 * SBW_ENUMERIC the step whose loss was not finite), the log the rows
 * before; f->stop is "signal" or "nan" for those stops, "running" after
 * any other error. */
int sbw_fit_run(sbw_fit *f);

/* Whether a fit that stopped at its step limit was still improving: the
 * mean KL of the last log row (the final state, step S = opts.steps) against
 * the latest row at or before step S - ceil(S/10) (so over at least the last
 * 10% of the steps), both in the log's precision, fell by more than tol
 * times the final value, tol = opts.tol when --tol is on, else
 * SBW_FIT_IMPROVING_TOL (0.1%).  False when the fit stopped otherwise, ran
 * fewer than 10 steps, or logged no earlier row within the last 2 ceil(S/10)
 * steps (sparse logs: no verdict on the last tenth).  *from and *to (either may
 * be NULL) get the two rows compared. */
#define SBW_FIT_IMPROVING_TOL 1e-3
bool sbw_fit_still_improving(const sbw_fit *f, sbw_fit_logrow *from, sbw_fit_logrow *to);

/* "steps", "tol", "converged", "signal", "nan", "running". */
const char *sbw_fit_stop_name(sbw_fit_stop s);

/* Seconds of fitting so far, including those before a resume. */
double sbw_fit_seconds(const sbw_fit *f);

/* The log interval in use (opts.log_every resolved). */
size_t sbw_fit_log_every(const sbw_fit *f);

/* Appends a log row for the current state from res.  Errors: SBW_ENOMEM;
 * the log is unchanged on failure. */
int sbw_fit_log_append(sbw_fit *f, const sbw_obj_result *res);

/* A fingerprint of P*: the sum of the rows' entropies. */
double sbw_fit_fingerprint(const sbw_target *t);

/* Checkpoints and resuming: sbw_fit_ckpt.h. */

#endif
