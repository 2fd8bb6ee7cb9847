/* sbw_fit.c -- the fit loop: Adam (full batch or minibatch) or L-BFGS over
 * sbw_obj, with the stopping rule, log rows, checkpoints and --lr auto
 * (see sbw_fit.h). */
#include "sbw_fit.h"

#include "sbw_ckpt.h"
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
    st = sbw_fit_checkpoint(f, f->opt.checkpoint_dir);
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

/* ---- checkpoints ------------------------------------------------------------ */

double sbw_fit_fingerprint(const sbw_target *t)
{
    double s = 0;
    for (size_t i = 0; i < t->n; i++)
        s += t->ent[i];
    return s;
}

#define AT(member) offsetof(sbw_fit, member)
#define U64(key, member)                                                                           \
    {                                                                                              \
        key, AT(member), SBW_CKPT_U64, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL                     \
    }
#define DBL(key, member, lo, hi)                                                                   \
    {                                                                                              \
        key, AT(member), SBW_CKPT_DOUBLE, lo, hi, 0, NULL, SBW_CKPT_SHAPES, NULL                   \
    }
#define GRID(i) DBL("lr_grid_" #i, lr_grid[i], 0, 1e6), DBL("lr_kl_" #i, lr_kl[i], -1e300, INFINITY)

/* The data a checkpoint was made from (the fingerprint: its own row). */
static const sbw_ckpt_field data_rows[] = {
    {"n", AT(head.n), SBW_CKPT_SIZE, 1, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"m", AT(head.m), SBW_CKPT_SIZE, 1, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL}};

/* Where the fit is; cross-checked by check_counters. */
static const sbw_ckpt_field counter_rows[] = {
    U64("step", step),
    U64("epoch", epoch),
    U64("pos", pos),
    U64("adam_t", adam.t),
    {"lbfgs_count", AT(lbfgs.count), SBW_CKPT_SIZE, 0, 1000, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"lbfgs_head", AT(lbfgs.head), SBW_CKPT_SIZE, 0, 999, 0, NULL, SBW_CKPT_SHAPES, NULL},
    U64("lbfgs_iter", lbfgs.iter),
    U64("lbfgs_nfev", lbfgs.nfev),
    DBL("win_sum", win_sum, -1e300, 1e300),
    DBL("win_prev", win_prev, -1e300, 1e300),
    U64("win_n", win_n),
    {"have_prev", AT(have_prev), SBW_CKPT_BOOL, 0, 1, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nlog", AT(nlog), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nlr", AT(nlr), SBW_CKPT_SIZE, 0, SBW_FIT_LR_GRID, 0, NULL, SBW_CKPT_SHAPES, NULL},
    GRID(0),
    GRID(1),
    GRID(2),
    GRID(3),
    GRID(4),
    GRID(5)};
_Static_assert(SBW_FIT_LR_GRID == 6, "one GRID row per --lr auto grid point");

/* Rows over a lone double (offset 0). */
static const sbw_ckpt_field fingerprint_row = {
    "fingerprint", 0, SBW_CKPT_DOUBLE, -1e300, 1e300, 0, NULL, SBW_CKPT_SHAPES, NULL};
static const sbw_ckpt_field elapsed_row = {"elapsed", 0,    SBW_CKPT_DOUBLE, 0,   1e300,
                                           0,         NULL, SBW_CKPT_SHAPES, NULL};

#define NROWS(a) (sizeof(a) / sizeof *(a))

/* The arrays of f's state (theta, the optimiser's, the log) into a (at
 * least 5); their count. */
static size_t state_arrays(const sbw_fit *f, sbw_ckpt_array *a)
{
    static const double none[7];
    size_t n = f->head.nparam, mem = f->lbfgs.mem, k = 0;
    a[k++] = (sbw_ckpt_array){"theta", f->theta, n, 1};
    if (f->opt.optimizer == SBW_FIT_ADAM) {
        a[k++] = (sbw_ckpt_array){"adam_m", f->adam.m, n, 1};
        a[k++] = (sbw_ckpt_array){"adam_v", f->adam.v, n, 1};
    } else {
        a[k++] = (sbw_ckpt_array){"lbfgs_s", f->lbfgs.s, mem, n};
        a[k++] = (sbw_ckpt_array){"lbfgs_y", f->lbfgs.y, mem, n};
        a[k++] = (sbw_ckpt_array){"lbfgs_rho", f->lbfgs.rho, mem, 1};
    }
    const double *log = f->nlog ? &f->log[0].step : none;
    a[k++] = (sbw_ckpt_array){"log", log, f->nlog ? f->nlog : 1, 7};
    return k;
}

int sbw_fit_checkpoint(sbw_fit *f, const char *dir)
{
    sbw_fit_opts o = f->opt; /* with the automatic choices resolved */
    o.obj.block = sbw_obj_block(f->obj);
    o.obj.threads = sbw_obj_threads(f->obj);
    o.log_every = sbw_fit_log_every(f);
    double fp = sbw_fit_fingerprint(f->t), elapsed = sbw_fit_seconds(f);
    const sbw_ckpt_group g[] = {{sbw_fit_opts_table, sbw_fit_opts_nrows, &o},
                                {data_rows, NROWS(data_rows), f},
                                {&fingerprint_row, 1, &fp},
                                {counter_rows, NROWS(counter_rows), f},
                                {&elapsed_row, 1, &elapsed}};
    sbw_ckpt_array a[5];
    size_t na = state_arrays(f, a);
    uint64_t gen = f->ckpt_gen + 1;
    int st = sbw_ckpt_write(dir, gen, g, NROWS(g), a, na);
    if (st)
        return st;
    f->ckpt_gen = gen;
    f->ckpt_step = f->step;
    return SBW_OK;
}

int sbw_fit_saved_opts(const char *dir, const sbw_fit_opts *opts, sbw_fit_opts *saved)
{
    sbw_ckpt *c;
    int st = sbw_ckpt_open(&c, dir);
    if (st)
        return st;
    *saved = *opts;
    st = sbw_ckpt_get(c, sbw_fit_opts_table, sbw_fit_opts_nrows, saved);
    sbw_ckpt_close(c);
    return st;
}

static int check_data(const sbw_ckpt *c, const sbw_target *t, const char *dir)
{
    sbw_fit probe = {0};
    double fp = 0;
    int st = sbw_ckpt_get(c, data_rows, NROWS(data_rows), &probe);
    st = st ? st : sbw_ckpt_get(c, &fingerprint_row, 1, &fp);
    if (st)
        return st;
    if (probe.head.n != t->n || probe.head.m != t->m)
        return SBW_ERROR(SBW_EDATA, "%s: the checkpoint is for %zu x %zu data, P* is %zu x %zu",
                         dir, probe.head.n, probe.head.m, t->n, t->m);
    if (fp != sbw_fit_fingerprint(t))
        return SBW_ERROR(SBW_EDATA, "%s: the checkpoint was made from different P* data", dir);
    return SBW_OK;
}

/* Array stem of the checkpoint must be rows x cols. */
static int check_shape(const sbw_ckpt *c, const char *stem, size_t rows, size_t cols)
{
    size_t r = 0, k = 0;
    int st = sbw_ckpt_array_shape(c, stem, &r, &k);
    if (!st && (r != rows || k != cols))
        st = SBW_ERROR(SBW_EFORMAT, "%s: array %s is %zu x %zu, the settings need %zu x %zu",
                       sbw_ckpt_path(c), stem, r, k, rows, cols);
    return st;
}

/* The checkpoint's head on this data, its block, and the shapes of the
 * arrays it needs, checked before anything is allocated. */
static int check_sizes(const sbw_ckpt *c, const sbw_target *t, const sbw_fit_opts *o)
{
    sbw_head h;
    if (sbw_head_setup(&h, o->model, t->n, t->m, o->d, o->k, o->knots, o->plif_t, o->bias,
                       o->linear)) {
        char why[256];
        snprintf(why, sizeof why, "%s", sbw_error_reason());
        return SBW_ERROR(SBW_EFORMAT, "%s: its settings make no head for %zu x %zu data: %s",
                         sbw_ckpt_path(c), t->n, t->m, why);
    }
    if (o->obj.block < 1 || o->obj.block > t->n)
        return SBW_ERROR(SBW_EFORMAT, "%s: block=%zu: outside [1, N = %zu]", sbw_ckpt_path(c),
                         o->obj.block, t->n);
    size_t n = h.nparam, mem = o->lbfgs_mem;
    int st = check_shape(c, "theta", n, 1);
    if (o->optimizer == SBW_FIT_ADAM) {
        st = st ? st : check_shape(c, "adam_m", n, 1);
        return st ? st : check_shape(c, "adam_v", n, 1);
    }
    st = st ? st : check_shape(c, "lbfgs_s", mem, n);
    st = st ? st : check_shape(c, "lbfgs_y", mem, n);
    return st ? st : check_shape(c, "lbfgs_rho", mem, 1);
}

static int bad_counter(const sbw_ckpt *c, const char *key, uint64_t v, const char *why,
                       uint64_t limit)
{
    return SBW_ERROR(SBW_EFORMAT, "%s: %s=%llu: %s %llu", sbw_ckpt_path(c), key,
                     (unsigned long long)v, why, (unsigned long long)limit);
}

/* The counters p read from c against each other and the settings o. */
static int check_counters(const sbw_ckpt *c, const sbw_fit *p, const sbw_fit_opts *o, size_t n)
{
    uint64_t every = o->log_every ? o->log_every : 1, mem = o->lbfgs_mem;
    if (p->step > o->steps)
        return bad_counter(c, "step", p->step, "beyond the checkpointed run's steps", o->steps);
    if (p->epoch > p->step)
        return bad_counter(c, "epoch", p->epoch, "exceeds step", p->step);
    if (p->adam.t > p->step)
        return bad_counter(c, "adam_t", p->adam.t, "exceeds step", p->step);
    if (p->pos > n)
        return bad_counter(c, "pos", p->pos, "exceeds N", n);
    if (p->lbfgs.count > mem)
        return bad_counter(c, "lbfgs_count", p->lbfgs.count, "exceeds lbfgs_mem", mem);
    if (p->lbfgs.head >= (mem ? mem : 1))
        return bad_counter(c, "lbfgs_head", p->lbfgs.head, "not below lbfgs_mem", mem);
    if (p->win_n > o->tol_window)
        return bad_counter(c, "win_n", p->win_n, "exceeds tol_window", o->tol_window);
    if (p->nlog > p->step / every + 2)
        return bad_counter(c, "nlog", p->nlog, "log rows; at most", p->step / every + 2);
    return p->nlog ? check_shape(c, "log", p->nlog, 7) : SBW_OK;
}

/* The settings, sizes and counters of c, all checked; *o the settings
 * to resume with. */
static int resume_check(const sbw_ckpt *c, const sbw_target *t, const char *dir,
                        const sbw_fit_opts *opts, sbw_fit_opts *saved, sbw_fit_opts *o)
{
    sbw_fit probe = {0};
    *saved = *opts;
    int st = check_data(c, t, dir);
    st = st ? st : sbw_ckpt_get(c, sbw_fit_opts_table, sbw_fit_opts_nrows, saved);
    *o = *opts;
    sbw_ckpt_copy(sbw_fit_opts_table, sbw_fit_opts_nrows, SBW_CKPT_SHAPES, o, saved);
    o->lr_auto = false; /* the grid already chose o->lr */
    st = st ? st : check_sizes(c, t, o);
    st = st ? st : sbw_ckpt_get(c, counter_rows, NROWS(counter_rows), &probe);
    if (!st) {
        sbw_fit_opts run = *saved; /* the checkpointed run's steps */
        run.tol_window = run.tol > 0 ? run.tol_window : 0;
        st = check_counters(c, &probe, &run, t->n);
    }
    return st;
}

/* f's counters and arrays from c. */
static int resume_state(const sbw_ckpt *c, sbw_fit *f)
{
    size_t n = f->head.nparam, mem = f->lbfgs.mem;
    int st = sbw_ckpt_get(c, counter_rows, NROWS(counter_rows), f);
    st = st ? st : sbw_ckpt_get(c, &elapsed_row, 1, &f->elapsed0);
    /* parameters and optimiser state finite, or the file is named: a fit
     * never resumes from values no good step could have written */
    st = st ? st : sbw_ckpt_load_checked(c, "theta", f->theta, n, 1, INFINITY);
    if (f->opt.optimizer == SBW_FIT_ADAM) {
        st = st ? st : sbw_ckpt_load_checked(c, "adam_m", f->adam.m, n, 1, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "adam_v", f->adam.v, n, 1, INFINITY);
    } else {
        st = st ? st : sbw_ckpt_load_checked(c, "lbfgs_s", f->lbfgs.s, mem, n, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "lbfgs_y", f->lbfgs.y, mem, n, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "lbfgs_rho", f->lbfgs.rho, mem, 1, INFINITY);
    }
    size_t nlog = f->nlog;
    f->nlog = 0;
    if (st || nlog == 0)
        return st;
    f->log = malloc(nlog * sizeof *f->log);
    if (!f->log)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (training log)");
    f->nlog = f->caplog = nlog;
    return sbw_ckpt_load(c, "log", &f->log[0].step, nlog, 7);
}

int sbw_fit_resume(sbw_fit **out, const sbw_target *t, const char *dir, const sbw_fit_opts *opts,
                   sbw_fit_opts *saved)
{
    *out = NULL;
    sbw_ckpt *c = NULL;
    sbw_fit *f = NULL;
    sbw_fit_opts o, s;
    int st = sbw_ckpt_open(&c, dir);
    st = st ? st : resume_check(c, t, dir, opts, &s, &o);
    st = st ? st : sbw_fit_alloc(&f, t, &o);
    st = st ? st : resume_state(c, f);
    st = st ? st : sbw_ckpt_tidy(c);
    uint64_t gen = c ? sbw_ckpt_generation(c) : 0;
    sbw_ckpt_close(c);
    if (st) {
        sbw_fit_free(f);
        return st;
    }
    f->ckpt_gen = gen;
    f->ckpt_step = f->resumed_at = f->step;
    f->t_start = f->t_ckpt = sbw_progress_now();
    if (saved)
        *saved = s;
    *out = f;
    return SBW_OK;
}
