/* sbw_fit.c -- the fit loop: Adam (full batch or minibatch) or L-BFGS over
 * sbw_obj, with the stopping rule, log rows, checkpoints and --lr auto
 * (see sbw_fit.h). */
#include "sbw_fit.h"

#include "sbw_fit_ckpt.h"
#include "sbw_error.h"
#include "sbw_progress.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double lr_grid[SBW_FIT_LR_GRID] = {1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1};

const char *sbw_fit_stop_name(sbw_fit_stop s)
{
    static const char *const names[] = {"running", "steps", "tol", "converged", "signal", "nan"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

double sbw_fit_seconds(const sbw_fit *f) { return f->elapsed0 + (sbw_progress_now() - f->t_start); }

static bool minibatch(const sbw_fit *f)
{
    return f->opt.optimizer == SBW_FIT_ADAM && f->opt.batch && f->opt.batch < f->head.n;
}

size_t sbw_fit_log_every(const sbw_fit *f)
{
    if (f->opt.log_every)
        return f->opt.log_every;
    if (minibatch(f))
        return (f->head.n + f->opt.batch - 1) / f->opt.batch; /* once per epoch */
    return 10;
}

int sbw_fit_log_append(sbw_fit *f, const sbw_obj_result *res)
{
    if (f->nlog == f->caplog) {
        size_t cap = f->caplog ? 2 * f->caplog : 256;
        sbw_fit_logrow *l = realloc(f->log, cap * sizeof *l);
        if (!l)
            return SBW_ERROR(SBW_ENOMEM, "out of memory (training log)");
        f->log = l;
        f->caplog = cap;
    }
    double lr = f->opt.optimizer == SBW_FIT_ADAM ? sbw_optim_adam_lr(&f->adam) : NAN;
    f->log[f->nlog++] = (sbw_fit_logrow){(double)f->step,   (double)f->epoch, res->loss,
                                         res->kl,           res->mode_match,  lr,
                                         sbw_fit_seconds(f)};
    return SBW_OK;
}

/* ---- allocation ---------------------------------------------------------- */

static int alloc_state(sbw_fit *f)
{
    const sbw_head *h = &f->head;
    int st = sbw_obj_alloc(&f->obj, h, f->t, &f->opt.obj);
    f->theta = malloc(h->nparam * sizeof *f->theta + 1);
    f->grad = calloc(h->nparam + 1, sizeof *f->grad); /* rows outside a minibatch stay 0 */
    if (!st && (!f->theta || !f->grad))
        st = SBW_ERROR(SBW_ENOMEM, "cannot allocate %zu parameters", h->nparam);
    if (!st && minibatch(f)) {
        f->perm = malloc(h->n * sizeof *f->perm);
        f->batch = malloc(f->opt.batch * sizeof *f->batch);
        f->ranges = malloc((f->opt.batch + 1) * sizeof *f->ranges);
        if (!f->perm || !f->batch || !f->ranges)
            st = SBW_ERROR(SBW_ENOMEM, "out of memory (minibatch of %zu)", f->opt.batch);
    }
    if (st)
        return st;
    if (f->opt.optimizer == SBW_FIT_LBFGS)
        return sbw_optim_lbfgs_alloc(&f->lbfgs, h->nparam, f->opt.lbfgs_mem);
    return sbw_optim_adam_alloc(&f->adam, h->nparam, f->opt.lr, f->opt.beta1, f->opt.beta2,
                                f->opt.eps, f->opt.decay);
}

static int check_opts(const sbw_fit_opts *o)
{
    if (o->optimizer == SBW_FIT_LBFGS && o->lr_auto)
        return SBW_ERROR(SBW_EINVAL, "--lr auto applies to Adam, not L-BFGS");
    if (o->optimizer == SBW_FIT_LBFGS && o->batch)
        return SBW_ERROR(SBW_EINVAL, "L-BFGS is full batch: --batch applies to Adam only");
    if (!(o->tol >= 0 && isfinite(o->tol)))
        return SBW_ERROR(SBW_EINVAL, "--tol must be >= 0, got %g", o->tol);
    if (o->tol > 0 && o->tol_window < 1)
        return SBW_ERROR(SBW_EINVAL, "--tol-window must be >= 1");
    if (o->lr_auto && (o->lr_auto_rows < 1 || o->lr_auto_steps < 1))
        return SBW_ERROR(SBW_EINVAL, "--lr auto needs >= 1 context and step");
    return SBW_OK;
}

static int lr_auto(sbw_fit *f);

/* A fit of t with opts, parameters initialised, no --lr auto. */
static int fit_new(sbw_fit **out, const sbw_target *t, const sbw_fit_opts *opts)
{
    *out = NULL;
    int st = check_opts(opts);
    if (st)
        return st;
    sbw_fit *f = calloc(1, sizeof *f);
    if (!f)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    f->opt = *opts;
    f->t = t;
    f->t_start = f->t_ckpt = sbw_progress_now();
    st = sbw_head_setup(&f->head, opts->model, t->n, t->m, opts->d, opts->k, opts->knots,
                        opts->plif_t, opts->bias, opts->linear);
    st = st ? st : alloc_state(f);
    st = st ? st : sbw_head_init(&f->head, f->theta, opts->seed, opts->init_scale);
    if (st) {
        sbw_fit_free(f);
        return st;
    }
    *out = f;
    return SBW_OK;
}

int sbw_fit_alloc(sbw_fit **out, const sbw_target *t, const sbw_fit_opts *opts)
{
    sbw_fit *f;
    int st = fit_new(&f, t, opts);
    if (!st && opts->lr_auto)
        st = lr_auto(f);
    if (st) {
        sbw_fit_free(f);
        return st;
    }
    f->t_start = f->t_ckpt = sbw_progress_now(); /* the grid's time is not fit time */
    *out = f;
    return SBW_OK;
}

void sbw_fit_free(sbw_fit *f)
{
    if (!f)
        return;
    sbw_obj_free(f->obj);
    sbw_optim_adam_free(&f->adam);
    sbw_optim_lbfgs_free(&f->lbfgs);
    free(f->theta), free(f->grad), free(f->perm), free(f->batch), free(f->ranges), free(f->log);
    free(f);
}

/* ---- minibatches ---------------------------------------------------------- */

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The permutation of epoch e: a shuffle from the stream (seed, base + e),
 * so it is a function of (seed, e) alone and needs no saved RNG state. */
static int epoch_perm(sbw_fit *f)
{
    gsl_rng *r;
    int st = sbw_rng_alloc(&r, f->opt.seed, SBW_FIT_STREAM_EPOCH + f->epoch);
    if (st)
        return st;
    for (size_t i = 0; i < f->head.n; i++)
        f->perm[i] = i;
    gsl_ran_shuffle(r, f->perm, f->head.n, sizeof *f->perm);
    sbw_rng_free(r);
    return SBW_OK;
}

/* The next batch (sorted) and Adam's ranges for it; *nb its size. */
static int next_batch(sbw_fit *f, size_t *nb)
{
    size_t n = f->head.n, b = f->opt.batch, d = f->head.d;
    if (f->pos >= n) {
        f->epoch++;
        f->pos = 0;
        f->perm_ok = false;
    }
    if (!f->perm_ok) {
        int st = epoch_perm(f);
        if (st)
            return st;
        f->perm_ok = true;
    }
    *nb = n - f->pos < b ? n - f->pos : b;
    memcpy(f->batch, f->perm + f->pos, *nb * sizeof *f->batch);
    qsort(f->batch, *nb, sizeof *f->batch, cmp_size);
    f->ranges[0] = (sbw_optim_range){0, f->head.nshared};
    for (size_t i = 0; i < *nb; i++)
        f->ranges[i + 1] = (sbw_optim_range){f->head.off_h + f->batch[i] * d, d};
    f->pos += *nb;
    return SBW_OK;
}

/* ---- the loop ------------------------------------------------------------- */

/* Stopping rule: adds kl to the window; true when a full window's mean
 * improved on the previous one by at most tol relative. */
static bool tol_reached(sbw_fit *f, double kl)
{
    if (!(f->opt.tol > 0))
        return false;
    f->win_sum += kl;
    if (++f->win_n < f->opt.tol_window)
        return false;
    double now = f->win_sum / (double)f->win_n, prev = f->win_prev;
    bool had = f->have_prev;
    f->win_prev = now;
    f->have_prev = true;
    f->win_sum = 0;
    f->win_n = 0;
    return had && prev - now <= f->opt.tol * fabs(now);
}

static bool finite_vec(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * 0.0;
    return s == 0.0; /* NaN * 0 and Inf * 0 are NaN */
}

static int nan_stop(sbw_fit *f, double loss)
{
    f->stop = SBW_FIT_NAN;
    if (f->ckpt_gen)
        return SBW_ERROR(SBW_ENUMERIC,
                         "the loss became %g at step %llu; the last good checkpoint is "
                         "%s (step %llu)",
                         loss, (unsigned long long)f->step, f->opt.checkpoint_dir,
                         (unsigned long long)f->ckpt_step);
    return SBW_ERROR(SBW_ENUMERIC,
                     "the loss became %g at step %llu (try a smaller --lr); no checkpoint "
                     "was written",
                     loss, (unsigned long long)f->step);
}

/* Writes a checkpoint now (force) or when one is due, only of parameters
 * whose loss has been evaluated finite: theta was just updated and not yet
 * evaluated, so a full pass without gradient checks it first (changing
 * nothing the trajectory depends on; one pass per checkpoint).  Finite
 * parameters can still overflow the logits: a non-finite loss stops the
 * fit here, and the previous checkpoint stays the last good one. */
static int maybe_checkpoint(sbw_fit *f, bool force)
{
    if (!f->opt.checkpoint_dir)
        return SBW_OK;
    double now = sbw_progress_now();
    bool due = f->opt.checkpoint_every > 0 && now - f->t_ckpt >= f->opt.checkpoint_every;
    if (!(force || due))
        return SBW_OK;
    sbw_obj_result res;
    int st = sbw_obj_eval(f->obj, f->theta, NULL, 0, &res, NULL);
    if (st)
        return st;
    if (!isfinite(res.loss))
        return nan_stop(f, res.loss);
    if (!finite_vec(f->theta, f->head.nparam))
        return SBW_OK; /* NaN in a parameter the loss does not reach: not saved */
    st = sbw_fit_ckpt_write(f, f->opt.checkpoint_dir);
    f->t_ckpt = sbw_progress_now();
    return st;
}

static bool stop_requested(const sbw_fit *f) { return f->opt.stop && *f->opt.stop; }

static int signal_stop(sbw_fit *f)
{
    f->stop = SBW_FIT_SIGNAL;
    int st = maybe_checkpoint(f, true);
    if (st)
        return st;
    if (f->opt.checkpoint_dir)
        return SBW_ERROR(SBW_EINTR,
                         "interrupted at step %llu; checkpoint written to %s (continue with "
                         "--resume %s)",
                         (unsigned long long)f->step, f->opt.checkpoint_dir, f->opt.checkpoint_dir);
    return SBW_ERROR(SBW_EINTR, "interrupted at step %llu (no checkpoint directory)",
                     (unsigned long long)f->step);
}

/* A full evaluation (no gradient) into f->last, logged. */
static int eval_full_logged(sbw_fit *f)
{
    int st = sbw_obj_eval(f->obj, f->theta, NULL, 0, &f->last, NULL);
    return st ? st : sbw_fit_log_append(f, &f->last);
}

/* One Adam step: gradient at theta (batch or all), log, stopping rule,
 * update.  *done when the fit should stop before updating. */
static int adam_step(sbw_fit *f, bool *done)
{
    size_t nb = 0;
    bool mb = minibatch(f);
    int st = mb ? next_batch(f, &nb) : SBW_OK;
    sbw_obj_result res;
    st = st ? st : sbw_obj_eval(f->obj, f->theta, mb ? f->batch : NULL, nb, &res, f->grad);
    if (st)
        return st;
    if (!isfinite(res.loss))
        return nan_stop(f, res.loss);
    if (f->step % sbw_fit_log_every(f) == 0) {
        if (mb)
            st = eval_full_logged(f);
        else
            st = sbw_fit_log_append(f, &res);
    }
    if (!mb)
        f->last = res;
    if (st)
        return st;
    if (tol_reached(f, res.kl)) {
        f->stop = SBW_FIT_TOL;
        *done = true;
        return SBW_OK;
    }
    sbw_optim_adam_step(&f->adam, f->theta, f->grad, mb ? f->ranges : NULL, mb ? nb + 1 : 0);
    f->step++;
    return SBW_OK;
}

/* The L-BFGS objective: full batch, remembers the result of the last
 * evaluation in f->last (after an accepted step the last point evaluated
 * is the accepted one; after a failed search it is a rejected trial, which
 * lbfgs_step replaces with the evaluation at theta). */
static int lbfgs_fn(void *ctx, const double *x, double *fx, double *g)
{
    sbw_fit *f = ctx;
    int st = sbw_obj_eval(f->obj, x, NULL, 0, &f->last, g);
    *fx = f->last.loss;
    return st;
}

static int lbfgs_step(sbw_fit *f, bool *done)
{
    int st = SBW_OK;
    if (!f->have_fg) {
        if ((st = lbfgs_fn(f, f->theta, &f->last.loss, f->grad)))
            return st;
        f->have_fg = true;
    }
    if (!isfinite(f->last.loss))
        return nan_stop(f, f->last.loss);
    if (f->step % sbw_fit_log_every(f) == 0 && (st = sbw_fit_log_append(f, &f->last)))
        return st;
    if (tol_reached(f, f->last.kl)) {
        f->stop = SBW_FIT_TOL;
        *done = true;
        return SBW_OK;
    }
    double fx = f->last.loss;
    sbw_obj_result at = f->last; /* at theta, which a failed search keeps */
    st = sbw_optim_lbfgs_iter(&f->lbfgs, f->theta, &fx, f->grad, lbfgs_fn, f);
    if (st)
        f->last = at;
    if (st == SBW_ENUMERIC) { /* no decrease: converged; theta unchanged */
        sbw_error_clear();
        f->stop = SBW_FIT_CONVERGED;
        *done = true;
        return SBW_OK;
    }
    if (!st)
        f->step++;
    return st;
}

/* The final state: evaluated (unless L-BFGS has it) and logged once. */
static int finish(sbw_fit *f)
{
    int st = SBW_OK;
    bool logged = f->nlog && f->log[f->nlog - 1].step == (double)f->step;
    if (minibatch(f) || f->opt.optimizer == SBW_FIT_ADAM || !f->have_fg)
        st = sbw_obj_eval(f->obj, f->theta, NULL, 0, &f->last, NULL);
    if (!st && !isfinite(f->last.loss))
        return nan_stop(f, f->last.loss);
    if (!st && !logged)
        st = sbw_fit_log_append(f, &f->last);
    return st;
}

int sbw_fit_run(sbw_fit *f)
{
    f->stop = SBW_FIT_RUNNING;
    bool done = false;
    while (!done && f->step < f->opt.steps) {
        if (stop_requested(f))
            return signal_stop(f);
        int st = f->opt.optimizer == SBW_FIT_ADAM ? adam_step(f, &done) : lbfgs_step(f, &done);
        if (st)
            return st;
        if (f->opt.on_step)
            f->opt.on_step(f->opt.ctx, f);
        if ((st = maybe_checkpoint(f, false)))
            return st;
    }
    if (!done)
        f->stop = SBW_FIT_STEPS;
    return finish(f);
}

bool sbw_fit_still_improving(const sbw_fit *f, sbw_fit_logrow *from, sbw_fit_logrow *to)
{
    size_t steps = f->opt.steps;
    if (f->stop != SBW_FIT_STEPS || steps < 10 || f->nlog < 2)
        return false;
    const sbw_fit_logrow *end = &f->log[f->nlog - 1], *a = NULL;
    size_t tenth = (steps + 9) / 10; /* ceil(S/10) */
    double cut = (double)(steps - tenth);
    for (size_t i = f->nlog - 1; i-- > 0 && !a;)
        if (f->log[i].step <= cut)
            a = &f->log[i];
    /* a baseline further back than twice the window (sparse logs) says
     * nothing about the last tenth: no verdict */
    if (!a || end->step != (double)steps || a->step < (double)steps - 2.0 * (double)tenth)
        return false;
    if (from)
        *from = *a;
    if (to)
        *to = *end;
    double tol = f->opt.tol > 0 ? f->opt.tol : SBW_FIT_IMPROVING_TOL;
    return a->kl - end->kl > tol * fabs(end->kl);
}

/* ---- --lr auto ------------------------------------------------------------ */

/* The grid's subsample: the first n of a seeded permutation, sorted. */
static int auto_rows(const sbw_fit *f, size_t **rows, size_t *n)
{
    size_t total = f->head.n, want = f->opt.lr_auto_rows < total ? f->opt.lr_auto_rows : total;
    size_t *p = malloc(total * sizeof *p);
    gsl_rng *r = NULL;
    int st = p ? sbw_rng_alloc(&r, f->opt.seed, SBW_FIT_STREAM_LR_AUTO)
               : SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (st) {
        free(p);
        return st;
    }
    for (size_t i = 0; i < total; i++)
        p[i] = i;
    gsl_ran_shuffle(r, p, total, sizeof *p);
    sbw_rng_free(r);
    qsort(p, want, sizeof *p, cmp_size);
    *rows = p;
    *n = want;
    return SBW_OK;
}

/* One grid point: a fit of sub from f's initial parameters (shared
 * prefix and the subsample's rows of H); its final mean KL (inf when it
 * diverged). */
static int auto_trial(sbw_fit *f, const sbw_target *sub, const size_t *rows, double lr, double *kl)
{
    sbw_fit_opts o = f->opt;
    o.lr = lr, o.lr_auto = false, o.steps = f->opt.lr_auto_steps, o.tol = 0;
    o.checkpoint_dir = NULL, o.on_step = NULL, o.log_every = o.steps;
    o.batch = f->opt.batch && f->opt.batch < sub->n ? f->opt.batch : 0;
    sbw_fit *g;
    int st = fit_new(&g, sub, &o);
    if (st)
        return st;
    size_t d = f->head.d;
    memcpy(g->theta, f->theta, f->head.nshared * sizeof *f->theta);
    for (size_t i = 0; i < sub->n; i++)
        memcpy(g->theta + g->head.off_h + i * d, f->theta + f->head.off_h + rows[i] * d,
               d * sizeof *f->theta);
    st = sbw_fit_run(g);
    *kl = g->last.kl;
    if (st == SBW_EINTR)
        st = SBW_ERROR(SBW_EINTR, "interrupted during --lr auto (no checkpoint: the fit had "
                                  "not started)");
    if (st == SBW_ENUMERIC || !isfinite(*kl)) {
        sbw_error_clear();
        *kl = INFINITY;
        st = SBW_OK;
    }
    sbw_fit_free(g);
    return st;
}

static int lr_auto(sbw_fit *f)
{
    size_t *rows = NULL, n = 0;
    sbw_target sub = {0};
    int st = auto_rows(f, &rows, &n);
    st = st ? st : sbw_target_subset(&sub, f->t, rows, n);
    size_t best = 0;
    for (size_t i = 0; !st && i < SBW_FIT_LR_GRID; i++) {
        f->lr_grid[i] = lr_grid[i];
        st = auto_trial(f, &sub, rows, lr_grid[i], &f->lr_kl[i]);
        f->nlr = i + 1;
        if (!st && f->lr_kl[i] < f->lr_kl[best])
            best = i;
    }
    sbw_target_free(&sub);
    free(rows);
    if (st)
        return st;
    if (!isfinite(f->lr_kl[best]))
        return SBW_ERROR(SBW_ENUMERIC, "--lr auto: every learning rate of the grid diverged");
    f->opt.lr = f->adam.lr = lr_grid[best];
    return SBW_OK;
}

/* ---- the data's fingerprint (checkpoints, the log's header) --------------- */

double sbw_fit_fingerprint(const sbw_target *t)
{
    double s = 0;
    for (size_t i = 0; i < t->n; i++)
        s += t->ent[i];
    return s;
}
