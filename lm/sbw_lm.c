/* sbw_lm.c -- the LSTM language model (see sbw_lm.h). */
#include "sbw_lm.h"

#include "sbw_error.h"
#include "sbw_lstm.h"
#include "sbw_progress.h"
#include "sbw_rng.h"

#include <cblas.h>
#include <gsl/gsl_rng.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

struct sbw_lm_ws {
    sbw_lm lm;
    sbw_lm_ws_opts opt;
    sbw_pass_ws *pass;
    gsl_rng *rng;
    double *H, *dH; /* (B*T, D) the head's input and its gradient */
    void *bufs;     /* sbw_lm_bufs_f or _d */
    double head_seconds;
    int nt; /* OpenMP threads of the pointwise stages */
    void **allocs;
    size_t nallocs, cap;
    double bytes; /* what ws_alloc gave */
};

/* Zeroed memory owned by the workspace (freed by sbw_lm_ws_free); sets
 * *st and returns NULL on failure, and does nothing once *st is set. */
static void *ws_alloc(sbw_lm_ws *w, size_t n, size_t size, int *st)
{
    if (*st)
        return NULL;
    if (w->nallocs == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        void **a = realloc(w->allocs, cap * sizeof *a);
        if (!a) {
            *st = SBW_ERROR(SBW_ENOMEM, "out of memory");
            return NULL;
        }
        w->allocs = a, w->cap = cap;
    }
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        *st = SBW_ERROR(SBW_ENOMEM, "out of memory for the model's workspace (%zu x %zu bytes)", n,
                        size);
        return NULL;
    }
    w->allocs[w->nallocs++] = p;
    w->bytes += (double)(n ? n : 1) * (double)size;
    return p;
}

/* Pointwise stages go parallel only above this many elements: below it a
 * parallel region costs more than it saves (and meets OpenBLAS's spinning
 * threads right after a multithreaded GEMM). */
#define LM_PAR_MIN ((size_t)1 << 18)

#define LM_R        float
#define LM_FN(x)    x##_f
#define LM_GEMM     cblas_sgemm
#define LM_LSTM_FWD sbw_lstm_forward_f
#define LM_LSTM_BWD sbw_lstm_backward_f
#include "sbw_lm_chunk.h"
#undef LM_R
#undef LM_FN
#undef LM_GEMM
#undef LM_LSTM_FWD
#undef LM_LSTM_BWD
#define LM_R        double
#define LM_FN(x)    x##_d
#define LM_GEMM     cblas_dgemm
#define LM_LSTM_FWD sbw_lstm_forward_d
#define LM_LSTM_BWD sbw_lstm_backward_d
#include "sbw_lm_chunk.h"
#undef LM_R
#undef LM_FN
#undef LM_GEMM
#undef LM_LSTM_FWD
#undef LM_LSTM_BWD

/* ---- architecture -------------------------------------------------------- */

/* *at += n with overflow checked; the block's offset into *off. */
static int place(size_t *at, size_t *off, size_t n)
{
    if (n > SIZE_MAX / 8 - *at)
        return SBW_ERROR(SBW_EINVAL, "the model has too many parameters");
    *off = *at;
    *at += n;
    return SBW_OK;
}

static int check_arch(const sbw_lm_arch *a, size_t m)
{
    if (m < 2)
        return SBW_ERROR(SBW_EINVAL, "the vocabulary has %zu word(s); a language model needs 2", m);
    if (a->nlayers < 1 || a->nlayers > SBW_LM_MAX_LAYERS)
        return SBW_ERROR(SBW_EINVAL, "--hidden: %zu layers; sbw-lm takes 1 to %d", a->nlayers,
                         SBW_LM_MAX_LAYERS);
    for (size_t l = 0; l < a->nlayers; l++)
        if (a->hidden[l] < 1)
            return SBW_ERROR(SBW_EINVAL, "--hidden: layer %zu has size 0", l + 1);
    if (a->d < 1 || a->emb < 1)
        return SBW_ERROR(SBW_EINVAL, "--d and --emb must be >= 1 (got %zu, %zu)", a->d, a->emb);
    if (a->tied && a->emb != a->d)
        return SBW_ERROR(SBW_EINVAL, "--tied needs --emb equal to --d (got %zu and %zu)", a->emb,
                         a->d);
    return SBW_OK;
}

int sbw_lm_setup(sbw_lm *lm, const sbw_lm_arch *a, size_t m)
{
    memset(lm, 0, sizeof *lm);
    int st = check_arch(a, m);
    st = st ? st
            : sbw_head_setup(&lm->head, a->model, 0, m, a->d, a->k, a->knots, a->plif_t, a->bias,
                             false);
    if (st)
        return st;
    lm->a = *a, lm->m = m;
    size_t at = 0, L = a->nlayers;
    st = a->tied ? SBW_OK : place(&at, &lm->off_emb, m * a->emb);
    for (size_t l = 0; !st && l < L; l++) {
        size_t H = a->hidden[l], in = l ? a->hidden[l - 1] : a->emb;
        lm->in[l] = in;
        st = place(&at, &lm->off_wx[l], 4 * H * in);
        st = st ? st : place(&at, &lm->off_wh[l], 4 * H * H);
        st = st ? st : place(&at, &lm->off_b[l], 4 * H);
    }
    st = st ? st : place(&at, &lm->off_p, a->d * a->hidden[L - 1]);
    st = st ? st : place(&at, &lm->off_p0, a->d);
    st = st ? st : place(&at, &lm->off_head, lm->head.nshared);
    if (st)
        return st;
    if (a->tied)
        lm->off_emb = lm->off_head + lm->head.off_w;
    lm->nparam = at;
    return SBW_OK;
}

static void fill_uniform(gsl_rng *r, double *x, size_t n, double a)
{
    for (size_t i = 0; i < n; i++)
        x[i] = a * (2 * gsl_rng_uniform(r) - 1);
}

/* A context-mixing head's component maps U_k (k d x d, from sbw_head_init's
 * N(0, 1/d) entries G_k) become I + SBW_LM_MIX_NOISE G_k: the head starts
 * near a Softmax head over tanh(x), so the signal reaching the LSTM is not
 * the average of K unrelated maps, and the components still differ.  With
 * U_k = G_k, MoC K = 5 stayed on the unigram plateau about twice as long as
 * Softmax, and MoC K = 15 at the PTB recipe's size had not left it after
 * 650 steps (experiments/ptb/pilot/README.md). */
static void mix_near_identity(const sbw_head *h, double *U)
{
    size_t d = h->d;
    for (size_t c = 0; c < h->k; c++)
        for (size_t i = 0; i < d; i++) {
            double *row = U + (c * d + i) * d; /* row i of U_c */
            for (size_t j = 0; j < d; j++)
                row[j] *= SBW_LM_MIX_NOISE;
            row[i] += 1;
        }
}

int sbw_lm_init(const sbw_lm *lm, double *theta, uint64_t seed)
{
    memset(theta, 0, lm->nparam * sizeof *theta);
    int st = sbw_head_init(&lm->head, theta + lm->off_head, seed, 0.1);
    if (!st && lm->head.context_mix)
        mix_near_identity(&lm->head, theta + lm->off_head + lm->head.off_u);
    gsl_rng *r = NULL;
    st = st ? st : sbw_rng_alloc(&r, seed, 101);
    if (st)
        return st;
    if (!lm->a.tied)
        fill_uniform(r, theta + lm->off_emb, lm->m * lm->a.emb, 0.1);
    for (size_t l = 0; l < lm->a.nlayers; l++) {
        size_t H = lm->a.hidden[l], n = lm->off_b[l] + 4 * H - lm->off_wx[l];
        sbw_rng_reseed(r, seed, 102 + l);
        fill_uniform(r, theta + lm->off_wx[l], n, 1 / sqrt((double)H));
    }
    size_t hl = lm->a.hidden[lm->a.nlayers - 1];
    sbw_rng_reseed(r, seed, 110);
    fill_uniform(r, theta + lm->off_p, lm->a.d * hl, 1 / sqrt((double)hl));
    sbw_rng_free(r);
    return SBW_OK;
}

void sbw_lm_decay_mask(const sbw_lm *lm, unsigned char *mask)
{
    memset(mask, 1, lm->nparam);
    for (size_t l = 0; l < lm->a.nlayers; l++)
        memset(mask + lm->off_b[l], 0, 4 * lm->a.hidden[l]);
    memset(mask + lm->off_p0, 0, lm->a.d);
    if (lm->a.bias)
        memset(mask + lm->off_head + lm->head.off_b, 0, lm->m);
}

/* ---- workspace ----------------------------------------------------------- */

/* Head blocks of up to 128 MB of logits, run one after another with
 * multithreaded BLAS: a chunk is one to a few large GEMMs, so the head's
 * float dW is folded into its double accumulator once per block rather
 * than once per small block (measured: small blocks spent a tenth of a
 * step converting dW and a quarter packing thin GEMM operands). */
static size_t auto_block(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    size_t nx = lm->head.mixture ? lm->head.k : 1, item = o->single ? 4 : 8;
    size_t b = ((size_t)1 << 27) / (nx * lm->m * item + 1), n = o->batch * o->steps;
    b = b < 64 ? 64 : b;
    return b < n ? b : n;
}

static sbw_pass_opts pass_opts(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    sbw_pass_opts po = {.single = o->single,
                        .threads = o->threads,
                        .block = o->block ? o->block : auto_block(lm, o),
                        .par = SBW_PASS_PAR_BLAS};
    return po;
}

int sbw_lm_ws_check(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    const char *bo = o->batch_opt ? o->batch_opt : "--batch";
    const char *bn = o->batch_note ? o->batch_note : "", *sn = o->steps_note ? o->steps_note : "";
    if (o->batch < 1 || o->steps < 1)
        return SBW_ERROR(SBW_EINVAL, "%s %zu%s and --bptt %zu%s must be >= 1", bo, o->batch, bn,
                         o->steps, sn);
    size_t wide = lm->a.d;
    for (size_t l = 0; l < lm->a.nlayers; l++)
        wide = lm->a.hidden[l] > wide ? lm->a.hidden[l] : wide;
    if (o->batch > INT_MAX / o->steps || 4 * wide > INT_MAX / (o->batch * o->steps))
        return SBW_ERROR(SBW_EINVAL,
                         "%s %zu%s x --bptt %zu%s is too large (a chunk's %zu x %zu gate rows "
                         "must stay below 2^31 entries)",
                         bo, o->batch, bn, o->steps, sn, o->batch * o->steps, 4 * wide);
    return SBW_OK;
}

/* Bytes of the chunk's buffers of one precision (z bytes an element): the
 * sizes alloc_bufs_f/_d ask for, in the same order. */
static double bufs_bytes(const sbw_lm *lm, const sbw_lm_ws_opts *o, double z)
{
    double B = (double)o->batch, N = B * (double)o->steps, D = (double)lm->a.d, e = 0;
    size_t L = lm->a.nlayers, hl = lm->a.hidden[L - 1], work = 0, wide = lm->a.d;
    for (size_t l = 0; l < L; l++) {
        double H = (double)lm->a.hidden[l], in = (double)lm->in[l];
        sbw_lstm_shape s = {lm->in[l], lm->a.hidden[l], o->batch, o->steps};
        e += 2 * (4 * H * in + 4 * H * H + 4 * H) + N * in + 2 * N * H + N * 4 * H + 3 * B * H;
        work = sbw_lstm_work_len(&s) > work ? sbw_lstm_work_len(&s) : work;
        wide = lm->a.hidden[l] > wide ? lm->a.hidden[l] : lm->in[l] > wide ? lm->in[l] : wide;
    }
    e += 2 * D * (double)hl + 2 * D + N * (double)hl + N * D + B * (double)lm->a.emb + B * D +
         (double)lm->m + 2 * N * (double)wide + (double)(work ? work : 1);
    return e * z;
}

double sbw_lm_ws_bytes(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    double N = (double)o->batch * (double)o->steps, D = (double)lm->a.d;
    double z = o->single ? (double)sizeof(float) : (double)sizeof(double);
    double own = 2 * N * D * (double)sizeof(double) +
                 (double)(o->single ? sizeof(lm_bufs_f) : sizeof(lm_bufs_d)) + bufs_bytes(lm, o, z);
    if (o->batch * o->steps == 0 || o->batch > SIZE_MAX / o->steps)
        return INFINITY;
    sbw_pass_opts po = pass_opts(lm, o);
    return own + sbw_pass_ws_bytes(&lm->head, &po);
}

double sbw_lm_ws_allocated(const sbw_lm_ws *w)
{
    sbw_pass_opts po = pass_opts(&w->lm, &w->opt);
    return w->bytes + sbw_pass_ws_bytes(&w->lm.head, &po);
}

int sbw_lm_ws_alloc(sbw_lm_ws **out, const sbw_lm *lm, const sbw_lm_ws_opts *opts)
{
    *out = NULL;
    int st = sbw_lm_ws_check(lm, opts);
    if (st)
        return st;
    sbw_lm_ws *w = calloc(1, sizeof *w);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    w->lm = *lm, w->opt = *opts;
    w->nt = opts->threads > 0 ? opts->threads : omp_get_max_threads();
    size_t N = opts->batch * opts->steps;
    w->H = ws_alloc(w, N * lm->a.d, sizeof(double), &st);
    w->dH = ws_alloc(w, N * lm->a.d, sizeof(double), &st);
    w->bufs = ws_alloc(w, 1, opts->single ? sizeof(lm_bufs_f) : sizeof(lm_bufs_d), &st);
    if (!st && opts->single)
        alloc_bufs_f(w, w->bufs, &st);
    else if (!st)
        alloc_bufs_d(w, w->bufs, &st);
    sbw_pass_opts po = pass_opts(lm, opts);
    st = st ? st : sbw_pass_ws_alloc(&w->pass, &lm->head, &po);
    st = st ? st : sbw_rng_alloc(&w->rng, 0, 0);
    if (st) {
        sbw_lm_ws_free(w);
        return st;
    }
    *out = w;
    return SBW_OK;
}

void sbw_lm_ws_free(sbw_lm_ws *w)
{
    if (!w)
        return;
    sbw_pass_ws_free(w->pass);
    sbw_rng_free(w->rng);
    for (size_t i = 0; i < w->nallocs; i++)
        free(w->allocs[i]);
    free(w->allocs);
    free(w);
}

void sbw_lm_ws_reset(sbw_lm_ws *w)
{
    if (w->opt.single)
        state_reset_f(w, w->bufs);
    else
        state_reset_d(w, w->bufs);
}

size_t sbw_lm_state_len(const sbw_lm_ws *w)
{
    size_t n = 0;
    for (size_t l = 0; l < w->lm.a.nlayers; l++)
        n += 2 * w->opt.batch * w->lm.a.hidden[l];
    return n;
}

void sbw_lm_state_get(const sbw_lm_ws *w, double *state)
{
    if (w->opt.single)
        state_get_f(w, w->bufs, state);
    else
        state_get_d(w, w->bufs, state);
}

void sbw_lm_state_set(sbw_lm_ws *w, const double *state)
{
    if (w->opt.single)
        state_set_f(w, w->bufs, state);
    else
        state_set_d(w, w->bufs, state);
}

sbw_lm_ws_opts sbw_lm_ws_options(const sbw_lm_ws *w) { return w->opt; }

const sbw_lm *sbw_lm_ws_model(const sbw_lm_ws *w) { return &w->lm; }

double sbw_lm_ws_head_seconds(const sbw_lm_ws *w) { return w->head_seconds; }

sbw_pass_ws *sbw_lm_ws_pass(sbw_lm_ws *w) { return w->pass; }

/* ---- a chunk ------------------------------------------------------------- */

static int check_chunk(const sbw_lm_ws *w, const sbw_lm_chunk *ch, bool targets)
{
    if (ch->steps < 1 || ch->steps > w->opt.steps)
        return SBW_ERROR(SBW_EINVAL, "a chunk of %zu steps; the workspace takes 1 to %zu",
                         ch->steps, w->opt.steps);
    size_t n = ch->steps * w->opt.batch;
    for (size_t i = 0; i < n; i++)
        if (ch->x[i] >= w->lm.m || (targets && ch->y[i] >= w->lm.m))
            return SBW_ERROR(SBW_EINVAL, "word id %zu at position %zu: the vocabulary has %zu",
                             ch->x[i] >= w->lm.m ? ch->x[i] : ch->y[i], i, w->lm.m);
    return SBW_OK;
}

/* Forward in the workspace's precision (masks drawn by the caller). */
static int forward(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch, double *H)
{
    if (w->opt.single) {
        load_params_f(&w->lm, w->bufs, theta);
        return forward_f(w, w->bufs, theta, ch, H);
    }
    load_params_d(&w->lm, w->bufs, theta);
    return forward_d(w, w->bufs, theta, ch, H);
}

static void carry(sbw_lm_ws *w, size_t steps)
{
    if (w->opt.single)
        carry_f(&w->lm, w->bufs, w->opt.batch, steps);
    else
        carry_d(&w->lm, w->bufs, w->opt.batch, steps);
}

int sbw_lm_loss(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch,
                const sbw_lm_dropout *drop, uint64_t seed, uint64_t stream, sbw_pass_result *res,
                double *grad)
{
    int st = check_chunk(w, ch, true);
    if (st)
        return st;
    sbw_rng_reseed(w->rng, seed, stream);
    gsl_rng *rng = drop ? w->rng : NULL;
    if (w->opt.single)
        draw_masks_f(w, w->bufs, rng, drop);
    else
        draw_masks_d(w, w->bufs, rng, drop);
    st = forward(w, theta, ch, w->H);
    size_t N = ch->steps * w->opt.batch, D = w->lm.a.d;
    sbw_pass_target tg = {.ids = ch->y};
    double t0 = sbw_progress_now();
    st = st ? st
            : sbw_pass_loss(w->pass, theta + w->lm.off_head, w->H, N, D, &tg, res, w->dH, D,
                            grad + w->lm.off_head);
    w->head_seconds += sbw_progress_now() - t0;
    if (!st && w->opt.single)
        st = backward_f(w, w->bufs, theta, ch, w->dH, grad);
    else if (!st)
        st = backward_d(w, w->bufs, theta, ch, w->dH, grad);
    if (!st)
        carry(w, ch->steps);
    return st;
}

int sbw_lm_latent(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch, double *lat)
{
    int st = check_chunk(w, ch, false);
    if (st)
        return st;
    if (w->opt.single)
        draw_masks_f(w, w->bufs, NULL, NULL);
    else
        draw_masks_d(w, w->bufs, NULL, NULL);
    st = forward(w, theta, ch, lat);
    if (!st)
        carry(w, ch->steps);
    return st;
}
