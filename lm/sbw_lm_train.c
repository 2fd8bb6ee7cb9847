/* sbw_lm_train.c -- training loop, optimisers, validation, checkpoints
 * (see sbw_lm_train.h). */
#include "sbw_lm_train.h"

#include "sbw_lm_train_ckpt.h"

#include "sbw_error.h"
#include "sbw_lm_eval.h"
#include "sbw_optim.h"
#include "sbw_preflight.h"
#include "sbw_progress.h"
#include "sbw_rng.h"
#include "sbw_table.h"

#include <gsl/gsl_randist.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sbw_lm_train_log_columns[SBW_LM_TRAIN_LOG_COLS] = {
    "step", "epoch", "tokens", "seconds", "lr", "loss", "ppl", "valid_ppl", "head_seconds"};

typedef struct trainer {
    sbw_lm_opts o;
    sbw_lm lm;
    const sbw_corpus *c;
    sbw_lm_train_ckpt_counters k;
    double *theta, *grad, *avg, *state; /* (nparam) x3, (state_len) */
    double *valid, *log;                /* (epochs + 1) validations, (cap x 9) log rows */
    gsl_rng *len_rng;                   /* variable BPTT's lengths, reseeded each step */
    size_t log_cap;
    unsigned char *decay; /* (nparam) 1 for a weight */
    sbw_optim_adam adam;
    sbw_lm_ws *ws, *evws;
    size_t L, per_epoch; /* column length, steps per epoch */
    size_t *x, *y;       /* (T * B) the chunk */
    double last_valid, t0, seconds0, head0, last_ckpt;
    size_t tokens0;
    size_t saved_step; /* the step of the checkpoint on disk (0: none) */
    size_t valid_step; /* the step whose parameters validated finite (SIZE_MAX: none) */
    sbw_progress prog;
    const char *log_path, *cmdline;
} trainer;

/* ---- setup --------------------------------------------------------------- */

static double *dalloc(size_t n, int *st)
{
    if (*st)
        return NULL;
    double *p = calloc(n ? n : 1, sizeof *p);
    if (!p)
        *st = SBW_ERROR(SBW_ENOMEM, "out of memory for %zu doubles", n);
    return p;
}

static void trainer_free(trainer *t)
{
    free(t->theta);
    free(t->grad);
    free(t->avg);
    free(t->state);
    free(t->valid);
    free(t->log);
    free(t->decay);
    free(t->x);
    free(t->y);
    sbw_optim_adam_free(&t->adam);
    sbw_lm_ws_free(t->ws);
    sbw_lm_ws_free(t->evws);
    sbw_rng_free(t->len_rng);
}

/* The columns of the training split. */
static int batchify(trainer *t)
{
    size_t n = t->c->len[SBW_CORPUS_TRAIN], B = t->o.batch, T = t->o.bptt;
    if (t->o.train_tokens && t->o.train_tokens < n)
        n = t->o.train_tokens;
    t->L = n / B;
    bool cut = n == t->o.train_tokens;
    if (t->L < 2)
        return SBW_ERROR(SBW_EINVAL,
                         "%s: %zu training tokens%s%s make columns of %zu with --batch %zu%s; each "
                         "needs at least 2",
                         t->c->path[SBW_CORPUS_TRAIN], n, cut ? " (--train-tokens)" : "",
                         cut ? sbw_lm_opts_note(&t->o, "--train-tokens") : "", t->L, B,
                         sbw_lm_opts_note(&t->o, "--batch"));
    t->per_epoch = (t->L - 1 + T - 1) / T;
    return SBW_OK;
}

/* The longest chunk of a step: --bptt, or with variable BPTT its cap
 * (MoS's max_seq_len_delta; AWD-LSTM has none, and N(bptt, 5) reaches
 * bptt + 40 with probability below 1e-15). */
static size_t max_chunk(const sbw_lm_opts *o)
{
    return o->bptt + (o->var_bptt ? SBW_LM_TRAIN_VAR_BPTT_DELTA : 0);
}

/* The workspaces of the training steps and of validation. */
static void ws_options(const sbw_lm_opts *o, sbw_lm_ws_opts *wo, sbw_lm_ws_opts *eo)
{
    const char *bptt = sbw_lm_opts_note(o, "--bptt");
    *wo = (sbw_lm_ws_opts){o->batch,
                           max_chunk(o),
                           o->single,
                           o->threads,
                           0,
                           "--batch",
                           sbw_lm_opts_note(o, "--batch"),
                           bptt,
                           o->drop.wdrop > 0,
                           o->single && o->bf16};
    *eo = (sbw_lm_ws_opts){o->eval_batch, /* validation stays float32 under bf16 */
                           o->bptt,        o->single,
                           o->threads,     0,
                           "--eval-batch", sbw_lm_opts_note(o, "--eval-batch"),
                           bptt,           false,
                           false};
}

double sbw_lm_train_bytes(const sbw_lm *lm, const sbw_lm_opts *o)
{
    sbw_lm_ws_opts wo, eo;
    ws_options(o, &wo, &eo);
    double n = (double)lm->nparam, BT = (double)o->batch * (double)max_chunk(o);
    double state = 0;
    for (size_t l = 0; l < lm->a.nlayers; l++)
        state += 2.0 * (double)o->batch * (double)lm->a.hidden[l];
    double own = 3 * 8 * n + n + 2 * BT * sizeof(size_t) + 8 * state +
                 (o->optimizer == SBW_LM_ADAM ? 2 * 8 * n : 0);
    return own + sbw_lm_ws_bytes(lm, &wo) + sbw_lm_eval_bytes(lm, &eo, 0, false);
}

static int trainer_alloc(trainer *t)
{
    int st = sbw_lm_setup(&t->lm, &t->o.arch, t->c->nwords);
    st = st ? st : batchify(t);
    sbw_lm_ws_opts wo, eo;
    ws_options(&t->o, &wo, &eo);
    st = st ? st : sbw_lm_ws_check(&t->lm, &wo);
    st = st ? st : sbw_lm_ws_check(&t->lm, &eo);
    char what[160];
    snprintf(what, sizeof what,
             "training this model (%zu parameters with their gradient, mean and optimiser "
             "state, and a chunk's activations)",
             t->lm.nparam);
    st = st ? st : sbw_preflight_memory(sbw_lm_train_bytes(&t->lm, &t->o), what);
    if (st)
        return st;
    size_t n = t->lm.nparam, BT = t->o.batch * max_chunk(&t->o);
    t->theta = dalloc(n, &st);
    t->grad = dalloc(n, &st);
    t->avg = dalloc(n, &st);
    t->valid = dalloc(t->o.epochs + 1, &st);
    t->decay = st ? NULL : malloc(n ? n : 1);
    t->x = st ? NULL : malloc(BT * sizeof *t->x);
    t->y = st ? NULL : malloc(BT * sizeof *t->y);
    if (!st && (!t->decay || !t->x || !t->y))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    st = st ? st : sbw_lm_ws_alloc(&t->ws, &t->lm, &wo);
    st = st ? st : sbw_lm_ws_alloc(&t->evws, &t->lm, &eo);
    st = st || !t->o.var_bptt ? st : sbw_rng_alloc(&t->len_rng, t->o.seed, 0);
    t->state = st ? NULL : dalloc(sbw_lm_state_len(t->ws), &st);
    if (!st && t->o.optimizer == SBW_LM_ADAM)
        st = sbw_optim_adam_alloc(&t->adam, n, t->o.lr, t->o.beta1, t->o.beta2, t->o.eps, 1.0);
    if (!st)
        sbw_lm_decay_mask(&t->lm, t->decay);
    return st;
}

/* ---- the log ------------------------------------------------------------- */

static int log_push(trainer *t, const double *row)
{
    if (t->k.nlog == t->log_cap) {
        size_t cap = t->log_cap ? 2 * t->log_cap : 256;
        double *l = realloc(t->log, cap * SBW_LM_TRAIN_LOG_COLS * sizeof *l);
        if (!l)
            return SBW_ERROR(SBW_ENOMEM, "out of memory for the log");
        t->log = l, t->log_cap = cap;
    }
    memcpy(t->log + t->k.nlog++ * SBW_LM_TRAIN_LOG_COLS, row, sizeof *row * SBW_LM_TRAIN_LOG_COLS);
    return SBW_OK;
}

/* Rewrites the log file with every row so far (temporary + rename).  The
 * table is built by plain sticky calls, checked once by sbw_table_write:
 * after a failure no new log reaches log_path and t is unchanged. */
static int log_write(const trainer *t)
{
    if (!t->log_path)
        return SBW_OK;
    sbw_table *tab = NULL;
    int st = sbw_table_alloc(&tab, "sbw-lm train", NULL, false);
    if (!st) {
        sbw_table_meta_str(tab, "command", t->cmdline ? t->cmdline : "");
        sbw_table_meta_str(tab, "head", sbw_head_model_name(t->o.arch.model));
        sbw_table_meta_int(tab, "d", (long long)t->o.arch.d);
        if (t->o.arch.latent != SBW_LM_LATENT_TANH) /* the default's header as it was */
            sbw_table_meta_str(tab, "latent", sbw_lm_latent_name(t->o.arch.latent));
        sbw_table_meta_int(tab, "batch", (long long)t->o.batch);
        sbw_table_meta_int(tab, "bptt", (long long)t->o.bptt);
        sbw_table_meta_int(tab, "eval_batch", (long long)t->o.eval_batch);
        sbw_table_meta_str(tab, "precision", sbw_lm_opts_precision(&t->o));
        sbw_table_columns(tab, sbw_lm_train_log_columns, SBW_LM_TRAIN_LOG_COLS);
        for (size_t r = 0; r < t->k.nlog && !sbw_table_status(tab); r++) {
            sbw_table_add_row(tab);
            for (size_t j = 0; j < SBW_LM_TRAIN_LOG_COLS; j++) {
                double v = t->log[r * SBW_LM_TRAIN_LOG_COLS + j];
                if (j < 3)
                    sbw_table_set_int(tab, sbw_lm_train_log_columns[j], (long long)v);
                else
                    sbw_table_set_dbl(tab, sbw_lm_train_log_columns[j], v);
            }
        }
        st = sbw_table_write(tab, t->log_path, false);
    }
    sbw_table_free(tab);
    return st;
}

static double elapsed(const trainer *t) { return t->seconds0 + sbw_progress_now() - t->t0; }

/* A row of the log: the running training loss since the last row and
 * the validation perplexity (NAN when none). */
static int log_row(trainer *t, double valid_ppl)
{
    double loss = t->k.run_tokens ? t->k.run_loss / (double)t->k.run_tokens
                  : t->k.nlog
                      ? t->log[(t->k.nlog - 1) * SBW_LM_TRAIN_LOG_COLS + 5] /* same interval */
                      : NAN;
    double row[SBW_LM_TRAIN_LOG_COLS] = {(double)t->k.step,
                                         (double)t->k.epoch,
                                         (double)t->k.tokens,
                                         elapsed(t),
                                         t->o.optimizer == SBW_LM_ADAM ? sbw_optim_adam_lr(&t->adam)
                                                                       : t->o.lr,
                                         loss,
                                         exp(loss),
                                         valid_ppl,
                                         t->head0 + sbw_lm_ws_head_seconds(t->ws)};
    if (t->k.run_tokens)
        sbw_progress_note(&t->prog, "train ppl %.2f%s", exp(loss), t->k.averaging ? " (avg)" : "");
    t->k.run_loss = 0, t->k.run_tokens = 0;
    int st = log_push(t, row);
    return st ? st : log_write(t);
}

/* ---- divergence ---------------------------------------------------------- */

/* SBW_ENUMERIC: the run diverged at step, what it saw in why; the last
 * good checkpoint (never the diverged parameters) is named. */
static int diverged(const trainer *t, size_t step, const char *why)
{
    char last[4200] = "no checkpoint was written";
    if (t->o.ckpt_dir && t->saved_step)
        snprintf(last, sizeof last, "the last good checkpoint is %s (step %zu)", t->o.ckpt_dir,
                 t->saved_step);
    return SBW_ERROR(SBW_ENUMERIC, "diverged at step %zu: %s; lower --lr%s (%g) or clip harder; %s",
                     step, why, sbw_lm_opts_note(&t->o, "--lr"), t->o.lr, last);
}

/* Every parameter finite and within SBW_LM_TRAIN_PARAM_MAX (x: n values, named
 * what in a message). */
static int check_vector(const trainer *t, size_t step, const double *x, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabs(x[i]) <= SBW_LM_TRAIN_PARAM_MAX)) {
            char why[160];
            snprintf(why, sizeof why, "%s %zu of %zu is %g (beyond %g)", what, i + 1, n, x[i],
                     SBW_LM_TRAIN_PARAM_MAX);
            return diverged(t, step, why);
        }
    return SBW_OK;
}

/* The parameters after an update, and their mean. */
static int check_params(const trainer *t)
{
    int st = check_vector(t, t->k.step, t->theta, t->lm.nparam, "parameter");
    return st || !t->k.averaging
               ? st
               : check_vector(t, t->k.step, t->avg, t->lm.nparam, "averaged parameter");
}

/* A mean loss whose perplexity is not a finite number. */
static bool bad_loss(double nll) { return !isfinite(exp(nll)); }

/* The validation loss of the evaluation parameters into *r. */
/* The validation loss of the evaluation parameters into *r: over the
 * whole validation text (full), or only its first CHECK_CHUNKS chunks of
 * every column (the check before a checkpoint: overflow is what it looks
 * for, and a signal's checkpoint should not wait for a whole pass). */
#define CHECK_CHUNKS 4
static int valid_nll(trainer *t, bool full, sbw_lm_eval_result *r)
{
    const double *p = t->k.averaging ? t->avg : t->theta;
    size_t n = t->c->len[SBW_CORPUS_VALID];
    n = t->o.valid_tokens && t->o.valid_tokens < n ? t->o.valid_tokens : n;
    size_t part = CHECK_CHUNKS * t->o.eval_batch * t->o.bptt + 1;
    n = !full && part < n ? part : n;
    int st = sbw_lm_eval_nll(t->evws, p, t->c->ids[SBW_CORPUS_VALID], n, NULL, r);
    if (!st && bad_loss(r->nll)) {
        char why[160];
        snprintf(why, sizeof why, "the validation loss is %g nats per token (perplexity %g)",
                 r->nll, exp(r->nll));
        st = diverged(t, t->k.step, why);
    }
    if (!st)
        t->valid_step = t->k.step;
    return st;
}

/* ---- checkpoints --------------------------------------------------------- */

static int write_dir(trainer *t, const char *dir, bool snapshot)
{
    t->k.seconds = elapsed(t);
    t->k.head_seconds = t->head0 + sbw_lm_ws_head_seconds(t->ws);
    t->k.adam_t = t->adam.t;
    sbw_lm_train_ckpt_kind kind = {snapshot};
    sbw_ckpt_group g[3] = {{sbw_lm_opts_table, sbw_lm_opts_nrows, &t->o},
                           {sbw_lm_train_ckpt_counter_table, SBW_LM_TRAIN_CKPT_NCOUNTERS, &t->k},
                           {sbw_lm_train_ckpt_kind_table, 1, &kind}};
    sbw_ckpt_array a[7];
    size_t na = 0, n = t->lm.nparam;
    if (snapshot) {
        a[na++] = (sbw_ckpt_array){"theta", t->k.averaging ? t->avg : t->theta, n, 1};
    } else {
        sbw_lm_state_get(t->ws, t->state);
        a[na++] = (sbw_ckpt_array){"theta", t->theta, n, 1};
        a[na++] = (sbw_ckpt_array){"state", t->state, sbw_lm_state_len(t->ws), 1};
        if (t->k.averaging)
            a[na++] = (sbw_ckpt_array){"avg", t->avg, n, 1};
        if (t->o.optimizer == SBW_LM_ADAM) {
            a[na++] = (sbw_ckpt_array){"adam_m", t->adam.m, n, 1};
            a[na++] = (sbw_ckpt_array){"adam_v", t->adam.v, n, 1};
        }
        if (t->k.nvalid)
            a[na++] = (sbw_ckpt_array){"valid", t->valid, t->k.nvalid, 1};
        if (t->k.nlog)
            a[na++] = (sbw_ckpt_array){"log", t->log, t->k.nlog, SBW_LM_TRAIN_LOG_COLS};
    }
    return sbw_ckpt_write(dir, t->k.step, g, 3, a, na);
}

/* A checkpoint of the current step, unless that step is already saved
 * (a timer's checkpoint then the end's, or a resumed finished run): a
 * generation is never rewritten in place.  Only parameters known good are
 * saved: finite and bounded (every step checks that), and with a finite
 * validation perplexity (an epoch's validation, else one over the first
 * CHECK_CHUNKS chunks here, which changes nothing the trajectory depends
 * on), so the last checkpoint of a run that diverges is one it can resume
 * from. */
static int checkpoint(trainer *t)
{
    if (!t->o.ckpt_dir || t->k.step == 0 || t->k.step == t->saved_step)
        return SBW_OK;
    sbw_lm_eval_result r;
    int st = t->valid_step == t->k.step ? SBW_OK : valid_nll(t, false, &r);
    if (st)
        return st;
    t->last_ckpt = sbw_progress_now();
    st = write_dir(t, t->o.ckpt_dir, false);
    if (!st)
        t->saved_step = t->k.step;
    return st;
}

/* A snapshot when the tokens crossed a multiple of eval_every, or at the
 * end of an epoch (epoch_end) with snap_epochs; one either way. */
static int snapshot(trainer *t, size_t before, bool epoch_end)
{
    size_t e = t->o.eval_every;
    bool due = (e && before / e != t->k.tokens / e) || (epoch_end && t->o.snap_epochs);
    if (!due || !t->o.ckpt_dir)
        return SBW_OK;
    char dir[4096];
    int k = snprintf(dir, sizeof dir, "%s/snap-%012zu", t->o.ckpt_dir, t->k.tokens);
    if (k < 0 || (size_t)k >= sizeof dir)
        return SBW_ERROR(SBW_EINVAL, "%s: checkpoint directory name too long", t->o.ckpt_dir);
    int st = sbw_ckpt_mkdir(t->o.ckpt_dir); /* before the first checkpoint */
    return st ? st : write_dir(t, dir, true);
}

static int load_array(const sbw_ckpt *c, const char *stem, double *x, size_t rows, size_t cols)
{
    return rows ? sbw_ckpt_load(c, stem, x, rows, cols) : SBW_OK;
}

static int resume(trainer *t)
{
    sbw_ckpt *c = NULL;
    int st = sbw_ckpt_open(&c, t->o.ckpt_dir);
    st = st ? st : sbw_ckpt_tidy(c); /* what a kill -9 left of a later write */
    st = st ? st : sbw_lm_train_ckpt_counters_get(c, &t->k, t->o.bptt);
    st = st ? st : sbw_lm_train_ckpt_check_hash(c, t->k.hash, t->c->hash);
    if (!st && t->k.nvalid > t->o.epochs + 1) {
        double *v = realloc(t->valid, t->k.nvalid * sizeof *v);
        if (v)
            t->valid = v;
        else
            st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    }
    if (!st && t->k.nlog) {
        t->log_cap = t->k.nlog;
        t->log = malloc(t->log_cap * SBW_LM_TRAIN_LOG_COLS * sizeof *t->log);
        st = t->log ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    }
    size_t n = t->lm.nparam;
    st = st ? st : sbw_ckpt_load_checked(c, "theta", t->theta, n, 1, SBW_LM_TRAIN_PARAM_MAX);
    st =
        st ? st : sbw_ckpt_load_checked(c, "state", t->state, sbw_lm_state_len(t->ws), 1, INFINITY);
    st = st ? st : load_array(c, "avg", t->avg, t->k.averaging ? n : 0, 1);
    st = st || !t->k.averaging ? st
                               : sbw_ckpt_check_values(c, "avg", t->avg, n, SBW_LM_TRAIN_PARAM_MAX);
    if (t->o.optimizer == SBW_LM_ADAM) {
        st = st ? st : sbw_ckpt_load_checked(c, "adam_m", t->adam.m, n, 1, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "adam_v", t->adam.v, n, 1, INFINITY);
        t->adam.t = t->k.adam_t;
    }
    st = st ? st : load_array(c, "valid", t->valid, t->k.nvalid, 1);
    st = st ? st : sbw_ckpt_check_values(c, "valid", t->valid, t->k.nvalid, INFINITY);
    st = st ? st : load_array(c, "log", t->log, t->k.nlog, SBW_LM_TRAIN_LOG_COLS);
    if (!st && ((!t->o.var_bptt && t->k.pos > t->per_epoch) || t->k.offset > t->L - 1))
        st = SBW_ERROR(SBW_EFORMAT, "%s: pos=%zu, offset=%zu is beyond an epoch of %zu steps",
                       sbw_ckpt_path(c), t->k.pos, t->k.offset, t->per_epoch);
    sbw_ckpt_close(c);
    if (!st) {
        sbw_lm_state_set(t->ws, t->state);
        t->saved_step = t->k.step;
    }
    return st;
}

/* ---- a step -------------------------------------------------------------- */

/* The chunk of up to T steps from step s of the columns into t->x, t->y;
 * its steps. */
static size_t make_chunk(trainer *t, size_t s, size_t T)
{
    const size_t *ids = t->c->ids[SBW_CORPUS_TRAIN];
    size_t B = t->o.batch;
    size_t steps = t->L - 1 - s < T ? t->L - 1 - s : T;
    for (size_t k = 0; k < steps; k++)
        for (size_t j = 0; j < B; j++) {
            t->x[k * B + j] = ids[j * t->L + s + k];
            t->y[k * B + j] = ids[j * t->L + s + k + 1];
        }
    return steps;
}

/* The loss gradient's whole norm clipped to clip, then wdecay * theta
 * added on the weights (AWD-LSTM: clip_grad_norm, then the optimiser's
 * weight decay). */
static double regularise(trainer *t)
{
    size_t n = t->lm.nparam;
    double wd = t->o.wdecay, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += t->grad[i] * t->grad[i];
    double norm = sqrt(ss), s = t->o.clip > 0 && norm > t->o.clip ? t->o.clip / norm : 1.0;
    for (size_t i = 0; i < n; i++)
        t->grad[i] = t->grad[i] * s + (t->decay[i] ? wd * t->theta[i] : 0.0);
    return norm;
}

/* The step's update with the learning rate times scale (variable BPTT's
 * length / bptt; 1 otherwise). */
static void update(trainer *t, double scale)
{
    size_t n = t->lm.nparam;
    if (t->o.optimizer == SBW_LM_ADAM) {
        sbw_optim_range all = {0, n};
        double lr0 = t->adam.lr;
        t->adam.lr = lr0 * scale;
        sbw_optim_adam_step(&t->adam, t->theta, t->grad, &all, 1);
        t->adam.lr = lr0;
        return;
    }
    double lr = t->o.lr * scale;
    for (size_t i = 0; i < n; i++)
        t->theta[i] -= lr * t->grad[i];
    if (t->k.averaging) {
        double w = 1.0 / (double)++t->k.avg_count;
        for (size_t i = 0; i < n; i++)
            t->avg[i] += (t->theta[i] - t->avg[i]) * w;
    }
}

/* Variable BPTT's length of step (AWD-LSTM's rule, a pure function of
 * (seed, step) so a resumed run draws the same): base bptt with
 * probability 0.95, else bptt/2; the length int(N(base, 5)) truncated
 * toward zero, at least 5 and at most bptt + SBW_LM_TRAIN_VAR_BPTT_DELTA
 * (MoS's cap). */
static size_t var_length(trainer *t, size_t step)
{
    sbw_rng_reseed(t->len_rng, t->o.seed, SBW_LM_TRAIN_VAR_BPTT_STREAM + step);
    double T = (double)t->o.bptt, base = gsl_rng_uniform(t->len_rng) < 0.95 ? T : T / 2;
    double len = trunc(base + gsl_ran_gaussian(t->len_rng, 5.0));
    double hi = (double)max_chunk(&t->o);
    return (size_t)(len < 5 ? 5 : len > hi ? hi : len);
}

static int step(trainer *t)
{
    size_t len = t->o.var_bptt ? var_length(t, t->k.step) : t->o.bptt;
    sbw_lm_chunk ch = {t->x, t->y, make_chunk(t, t->k.offset, len)};
    if (t->k.pos == 0)
        sbw_lm_ws_reset(t->ws);
    sbw_pass_result r;
    int st =
        sbw_lm_loss(t->ws, t->theta, &ch, &t->o.drop, t->o.seed, 1000 + t->k.step, &r, t->grad);
    if (st)
        return st;
    char why[160];
    if (bad_loss(r.loss)) {
        snprintf(why, sizeof why, "the training loss is %g nats per token (perplexity %g)", r.loss,
                 exp(r.loss));
        return diverged(t, t->k.step + 1, why);
    }
    double norm = regularise(t);
    if (!isfinite(norm)) {
        snprintf(why, sizeof why, "the gradient's norm is %g", norm);
        return diverged(t, t->k.step + 1, why);
    }
    update(t, t->o.var_bptt ? (double)len / (double)t->o.bptt : 1.0);
    size_t ntok = ch.steps * t->o.batch;
    t->k.step++, t->k.pos++, t->k.tokens += ntok, t->k.offset += ch.steps;
    t->k.run_loss += r.loss * (double)ntok, t->k.run_tokens += ntok;
    return check_params(t);
}

/* ---- an epoch's end ------------------------------------------------------ */

/* NT-ASGD (Merity et al. 2018): switch to averaging when validation loss v
 * is worse than the best of all but the last nonmono validations. */
static void maybe_average(trainer *t, double v)
{
    if (t->o.optimizer != SBW_LM_SGD || !t->o.asgd || t->k.averaging || t->k.nvalid <= t->o.nonmono)
        return;
    double best = INFINITY;
    for (size_t i = 0; i + t->o.nonmono < t->k.nvalid; i++)
        best = t->valid[i] < best ? t->valid[i] : best;
    if (v > best) {
        t->k.averaging = true;
        t->k.avg_count = 1;
        memcpy(t->avg, t->theta, t->lm.nparam * sizeof *t->avg);
    }
}

static int validate(trainer *t)
{
    sbw_lm_eval_result r;
    int st = valid_nll(t, true, &r);
    if (st)
        return st;
    maybe_average(t, r.nll);
    if (t->k.nvalid >= t->o.epochs + 1) {
        double *v = realloc(t->valid, (t->k.nvalid + 1) * sizeof *v);
        if (!v)
            return SBW_ERROR(SBW_ENOMEM, "out of memory");
        t->valid = v;
    }
    t->valid[t->k.nvalid++] = r.nll;
    t->last_valid = r.ppl;
    return SBW_OK;
}

static int end_epoch(trainer *t)
{
    t->k.pos = 0, t->k.offset = 0;
    t->k.epoch++;
    int st = validate(t);
    return st ? st : log_row(t, t->last_valid);
}

/* ---- the run ------------------------------------------------------------- */

static size_t target_tokens(const trainer *t)
{
    size_t per = t->o.batch * (t->L - 1), total = t->o.epochs * per;
    if (t->o.max_steps) { /* steps are whole chunks but the last of an epoch */
        size_t full = t->o.max_steps / t->per_epoch, rest = t->o.max_steps % t->per_epoch;
        size_t cap = full * per + rest * t->o.batch * t->o.bptt;
        total = cap < total ? cap : total;
    }
    return total;
}

static const char *run_loop(trainer *t, int *st)
{
    while (!*st) {
        if (t->k.epoch >= t->o.epochs)
            return "epochs";
        if (t->o.max_steps && t->k.step >= t->o.max_steps)
            return "max-steps";
        if (t->o.stop_ppl > 0 && t->k.nvalid && exp(t->valid[t->k.nvalid - 1]) <= t->o.stop_ppl)
            return "stop-ppl";
        if (t->o.stop && *t->o.stop)
            return "signal";
        size_t before = t->k.tokens;
        *st = step(t);
        if (!*st && t->k.step % t->o.log_every == 0)
            *st = log_row(t, NAN);
        bool epoch_end = !*st && t->k.offset == t->L - 1;
        if (epoch_end)
            *st = end_epoch(t);
        *st = *st ? *st : snapshot(t, before, epoch_end);
        sbw_progress_update(&t->prog, (double)(t->k.tokens - t->tokens0));
        if (!*st && t->o.ckpt_every > 0 && sbw_progress_now() - t->last_ckpt >= t->o.ckpt_every)
            *st = checkpoint(t);
    }
    return "error";
}

/* The training perplexity of the last log row that has one. */
static double last_train_ppl(const trainer *t)
{
    for (size_t r = t->k.nlog; r-- > 0;) {
        double p = t->log[r * SBW_LM_TRAIN_LOG_COLS + 6];
        if (!isnan(p))
            return p;
    }
    return NAN;
}

/* A last validation perplexity above the vocabulary size is worse than
 * a uniform guess over the words: the run has not learnt (or has
 * diverged without overflowing), so the result carries a warning. */
static void warn_uniform(const trainer *t)
{
    double ppl = t->k.nvalid ? exp(t->valid[t->k.nvalid - 1]) : NAN;
    if (ppl > (double)t->c->nwords)
        sbw_table_warn("worse_than_uniform: the last validation perplexity %.6g exceeds the "
                       "vocabulary size %zu (a uniform guess): the run has not learnt or has "
                       "diverged; lower --lr or clip harder",
                       ppl, t->c->nwords);
}

static void result(const trainer *t, const char *stop, sbw_lm_train_result *res)
{
    warn_uniform(t);
    double s = sbw_progress_now() - t->t0;
    *res = (sbw_lm_train_result){.steps = t->k.step,
                                 .epochs = t->k.epoch,
                                 .tokens = t->k.tokens,
                                 .seconds = elapsed(t),
                                 .head_seconds = t->head0 + sbw_lm_ws_head_seconds(t->ws),
                                 .train_ppl = last_train_ppl(t),
                                 .valid_ppl = t->k.nvalid ? exp(t->valid[t->k.nvalid - 1]) : NAN,
                                 .tokens_per_s = s > 0 ? (double)(t->k.tokens - t->tokens0) / s : 0,
                                 .averaging = t->k.averaging,
                                 .stop = stop};
}

static int start(trainer *t, bool resuming)
{
    t->valid_step = SIZE_MAX;
    int st = trainer_alloc(t);
    t->k.hash = t->c->hash;
    if (!st && resuming)
        st = resume(t);
    else if (!st)
        st = sbw_lm_init(&t->lm, t->theta, t->o.seed);
    t->t0 = t->last_ckpt = sbw_progress_now();
    t->seconds0 = t->k.seconds, t->head0 = t->k.head_seconds, t->tokens0 = t->k.tokens;
    t->last_valid = t->k.nvalid ? exp(t->valid[t->k.nvalid - 1]) : NAN;
    return st;
}

int sbw_lm_train(const sbw_corpus *c, const sbw_lm_opts *o, bool resuming, const char *log_path,
                 const char *cmdline, sbw_lm_train_result *res)
{
    trainer t = {.o = *o, .c = c, .log_path = log_path, .cmdline = cmdline};
    int st = start(&t, resuming);
    const char *stop = "error";
    if (!st) {
        sbw_progress_start(
            &t.prog, "sbw-lm train", "tokens",
            (double)(target_tokens(&t) -
                     (t.k.tokens < target_tokens(&t) ? t.k.tokens : target_tokens(&t))),
            o->quiet);
        stop = run_loop(&t, &st);
        sbw_progress_finish(&t.prog);
    }
    if (!st && t.k.run_tokens && strcmp(stop, "signal") != 0)
        st = log_row(&t, NAN); /* the last partial interval (a signal keeps it for the resume) */
    st = st ? st : checkpoint(&t); /* the end, or the signal's */
    st = st ? st : log_write(&t);
    if (!st)
        result(&t, stop, res);
    if (!st && strcmp(stop, "signal") == 0)
        st = SBW_ERROR(SBW_EINTR, "interrupted at step %zu%s", t.k.step,
                       t.saved_step == t.k.step && t.k.step
                           ? "; checkpoint written, --resume continues"
                           : "; no checkpoint (no --ckpt, or no step done)");
    trainer_free(&t);
    return st;
}
