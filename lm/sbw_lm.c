/* sbw_lm.c -- the LSTM language model (see sbw_lm.h). */
#include "sbw_lm.h"

#include "sbw_error.h"
#include "sbw_gemm.h"
#include "sbw_ledger.h"
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

/* The chunk pass of one precision (sbw_lm_tmpl.h), picked once by
 * sbw_lm_ws_alloc: every call of the workspace goes through w->k, so no
 * call site asks which precision it is in. */
typedef struct lm_prec {
    size_t bufs_size; /* sizeof lm_bufs_f or lm_bufs_d */
    void (*alloc_bufs)(sbw_lm_ws *w, int *st);
    void (*draw_masks)(sbw_lm_ws *w, gsl_rng *rng, const sbw_lm_dropout *drop);
    int (*forward)(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch, double *H);
    int (*backward)(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch, const double *dH,
                    double *grad);
    void (*carry)(sbw_lm_ws *w, size_t steps);
    void (*state_get)(const sbw_lm_ws *w, double *state);
    void (*state_set)(sbw_lm_ws *w, const double *state);
    void (*state_reset)(sbw_lm_ws *w);
} lm_prec;

struct sbw_lm_ws {
    sbw_lm lm;
    sbw_lm_ws_opts opt;
    const lm_prec *k; /* lm_prec_f or lm_prec_d */
    sbw_pass_ws *pass;
    gsl_rng *rng;
    double *H, *dH; /* (B*T, C) the head's input and its gradient */
    double *gmask;  /* (B, K D) --latent none: the locked mask on g_k (mixing heads) */
    bool gmasked;   /* this step drops g_k (draw_masks) */
    void *bufs;     /* lm_bufs_f or _d */
    sbw_gemm *gemm; /* --precision bf16: the LSTM's and the latent's context, else NULL */
    double head_seconds;
    double wkeep;       /* this step's weight-drop scale (0: none; draw_masks) */
    double alpha, beta; /* this step's AR and TAR weights (0: none) */
    double ar, tar;     /* their values (reg_back) */
    int nt;             /* OpenMP threads of the pointwise stages */
    sbw_ledger ledger;  /* every buffer but the head's workspace */
};

/* Pointwise stages go parallel only above this many elements: below it a
 * parallel region costs more than it saves (and meets OpenBLAS's spinning
 * threads right after a multithreaded GEMM). */
#define LM_PAR_MIN ((size_t)1 << 18)

/* Whether --latent none drops the head's component vectors: a
 * context-mixing head (the others have none; sbw_lm_loss refuses
 * --dropout-latent for them). */
static bool drops_g(const sbw_lm *lm)
{
    return lm->a.latent == SBW_LM_LATENT_NONE && lm->head.context_mix;
}

/* The g_k mask (B x K D) in double, drawn as the locked masks are: 1/(1-p)
 * with probability 1-p, else 0. */
static void draw_gmask(gsl_rng *rng, double p, double *mask, size_t len)
{
    double keep = 1.0 / (1.0 - p);
    for (size_t i = 0; i < len; i++)
        mask[i] = gsl_rng_uniform(rng) >= p ? keep : 0;
}

/* defines: alloc_bufs_f(), from_double_f(), to_double_f(), load_params_f(), draw_mask_f() */
/* defines: draw_masks_f(), embed_f(), apply_mask_f(), forward_f(), carry_f(), latent_back_f() */
/* defines: embed_back_f(), backward_f(), state_get_f(), state_set_f(), state_reset_f() */
/* defines: from_double_dropped_f(), draw_keep_f(), reg_back_f(), wh_grad_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_lm_tmpl.h"

/* defines: alloc_bufs_d(), from_double_d(), to_double_d(), load_params_d(), draw_mask_d() */
/* defines: draw_masks_d(), embed_d(), apply_mask_d(), forward_d(), carry_d(), latent_back_d() */
/* defines: embed_back_d(), backward_d(), state_get_d(), state_set_d(), state_reset_d() */
/* defines: from_double_dropped_d(), draw_keep_d(), reg_back_d(), wh_grad_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_lm_tmpl.h"

/* The table of a workspace's precision: the one place it is chosen. */
static const lm_prec *prec_of(const sbw_lm_ws_opts *o)
{
    return o->single ? &lm_prec_f : &lm_prec_d;
}

/* ---- architecture -------------------------------------------------------- */

bool sbw_lm_latent_drops(const sbw_lm_arch *a)
{
    sbw_head_model m = a->model;
    return a->latent == SBW_LM_LATENT_TANH || m == SBW_MODEL_MOC || m == SBW_MODEL_MOS ||
           m == SBW_MODEL_MOS_PLIF || m == SBW_MODEL_MIXTAPE;
}

const char *sbw_lm_latent_name(int v)
{
    static const char *const names[] = {"tanh", "none"};
    return v >= 0 && v < 2 ? names[v] : NULL;
}

int sbw_lm_latent_parse(const char *name, sbw_lm_latent_kind *kind)
{
    for (int i = 0; sbw_lm_latent_name(i); i++)
        if (strcmp(name, sbw_lm_latent_name(i)) == 0) {
            *kind = (sbw_lm_latent_kind)i;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "--latent '%s': tanh or none", name);
}

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
    if ((unsigned)a->latent > SBW_LM_LATENT_NONE)
        return SBW_ERROR(SBW_EINVAL, "--latent %d: tanh or none", (int)a->latent);
    return SBW_OK;
}

/* The head of a: D, or with --latent none the last layer's width as its
 * context (with the component bias for a mixing head). */
static int setup_head(sbw_head *h, const sbw_lm_arch *a, size_t m)
{
    int st = sbw_head_setup(h, a->model, 0, m, a->d, a->k, a->knots, a->plif_t, a->bias, false);
    if (st || a->latent == SBW_LM_LATENT_TANH)
        return st;
    size_t hl = a->hidden[a->nlayers - 1];
    if (!h->context_mix && hl != a->d)
        return SBW_ERROR(SBW_EINVAL,
                         "--latent none feeds the last LSTM layer (%zu wide, --hidden) to the %s "
                         "head's logits: it must equal --d %zu (or use --latent tanh, or a "
                         "mixing head: moc, mos, mos+plif, mixtape)",
                         hl, sbw_head_model_name(a->model), a->d);
    return sbw_head_set_context(h, hl, h->context_mix);
}

int sbw_lm_setup(sbw_lm *lm, const sbw_lm_arch *a, size_t m)
{
    memset(lm, 0, sizeof *lm);
    int st = check_arch(a, m);
    st = st ? st : setup_head(&lm->head, a, m);
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
    bool lat = a->latent == SBW_LM_LATENT_TANH;
    st = st ? st : place(&at, &lm->off_p, lat ? a->d * a->hidden[L - 1] : 0);
    st = st ? st : place(&at, &lm->off_p0, lat ? a->d : 0);
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

/* --latent none's head, as the MoS code starts it: W ~ U(-0.1, 0.1), U
 * and V ~ U(-1/sqrt(C), 1/sqrt(C)), the biases 0 (each block its own
 * stream). */
static void init_head_direct(const sbw_head *h, double *theta, gsl_rng *r, uint64_t seed)
{
    memset(theta, 0, h->nshared * sizeof *theta);
    sbw_rng_reseed(r, seed, 111);
    fill_uniform(r, theta + h->off_w, h->m * h->d, 0.1);
    double a = 1 / sqrt((double)h->c);
    sbw_rng_reseed(r, seed, 112);
    fill_uniform(r, theta + h->off_u, h->off_v - h->off_u, a);
    sbw_rng_reseed(r, seed, 113);
    fill_uniform(r, theta + h->off_v, h->off_ub - h->off_v, a);
}

int sbw_lm_init(const sbw_lm *lm, double *theta, uint64_t seed)
{
    memset(theta, 0, lm->nparam * sizeof *theta);
    int st = sbw_head_init(&lm->head, theta + lm->off_head, seed, 0.1);
    bool direct = lm->a.latent == SBW_LM_LATENT_NONE;
    if (!st && lm->head.context_mix && !direct)
        mix_near_identity(&lm->head, theta + lm->off_head + lm->head.off_u);
    gsl_rng *r = NULL;
    st = st ? st : sbw_rng_alloc(&r, seed, 101);
    if (st)
        return st;
    if (direct)
        init_head_direct(&lm->head, theta + lm->off_head, r, seed);
    if (!lm->a.tied)
        fill_uniform(r, theta + lm->off_emb, lm->m * lm->a.emb, 0.1);
    for (size_t l = 0; l < lm->a.nlayers; l++) {
        size_t H = lm->a.hidden[l], n = lm->off_b[l] + 4 * H - lm->off_wx[l];
        sbw_rng_reseed(r, seed, 102 + l);
        fill_uniform(r, theta + lm->off_wx[l], n, 1 / sqrt((double)H));
    }
    size_t hl = lm->a.hidden[lm->a.nlayers - 1];
    sbw_rng_reseed(r, seed, 110);
    fill_uniform(r, theta + lm->off_p, lm->off_p0 - lm->off_p, 1 / sqrt((double)hl));
    sbw_rng_free(r);
    return SBW_OK;
}

void sbw_lm_decay_mask(const sbw_lm *lm, unsigned char *mask)
{
    memset(mask, 1, lm->nparam);
    for (size_t l = 0; l < lm->a.nlayers; l++)
        memset(mask + lm->off_b[l], 0, 4 * lm->a.hidden[l]);
    memset(mask + lm->off_p0, 0, lm->off_head - lm->off_p0);
    if (lm->a.bias)
        memset(mask + lm->off_head + lm->head.off_b, 0, lm->m);
    memset(mask + lm->off_head + lm->head.off_ub, 0, lm->head.off_lms - lm->head.off_ub);
}

/* ---- workspace ----------------------------------------------------------- */

/* Head blocks of up to 128 MB of logits, run one after another with
 * multithreaded BLAS: a chunk is one to a few large GEMMs, so the head's
 * float dW is folded into its double accumulator once per block rather
 * than once per small block (measured: small blocks spent a tenth of a
 * step converting dW and a quarter packing thin GEMM operands). */
static size_t auto_block(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    size_t nx = sbw_head_nx(&lm->head), item = o->single ? 4 : 8;
    size_t b = ((size_t)1 << 27) / (nx * lm->m * item + 1), n = o->batch * o->steps;
    b = b < 64 ? 64 : b;
    return b < n ? b : n;
}

static sbw_pass_opts pass_opts(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    sbw_pass_opts po = {.single = o->single,
                        .bf16 = o->single && o->bf16,
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
        sbw_lstm_shape s = {lm->in[l], lm->a.hidden[l], o->batch, o->steps, NULL};
        e += 2 * (4 * H * in + 4 * H * H + 4 * H) + N * in + 2 * N * H + N * 4 * H + 3 * B * H;
        e += o->wdrop ? 4 * H * H / z : 0; /* the weight-drop flags, a byte each */
        work = sbw_lstm_work_len(&s) > work ? sbw_lstm_work_len(&s) : work;
        wide = lm->a.hidden[l] > wide ? lm->a.hidden[l] : lm->in[l] > wide ? lm->in[l] : wide;
    }
    e += 2 * D * (double)hl + 2 * D + N * (double)hl + N * D + B * (double)lm->a.emb + B * D +
         (double)lm->m + 2 * N * (double)wide + (double)(work ? work : 1);
    return e * z;
}

double sbw_lm_ws_bytes(const sbw_lm *lm, const sbw_lm_ws_opts *o)
{
    double N = (double)o->batch * (double)o->steps, C = (double)lm->head.c;
    double z = o->single ? (double)sizeof(float) : (double)sizeof(double);
    double gm = drops_g(lm) ? (double)o->batch * (double)(lm->head.k * lm->a.d) : 0;
    double own = (2 * N * C + gm) * (double)sizeof(double) + (double)prec_of(o)->bufs_size +
                 bufs_bytes(lm, o, z);
    if (o->single && o->bf16) /* the kept bfloat16 copies: at most every buffer once */
        own += bufs_bytes(lm, o, 2);
    if (o->batch * o->steps == 0 || o->batch > SIZE_MAX / o->steps)
        return INFINITY;
    sbw_pass_opts po = pass_opts(lm, o);
    return own + sbw_pass_ws_bytes(&lm->head, &po);
}

double sbw_lm_ws_allocated(const sbw_lm_ws *w)
{
    sbw_pass_opts po = pass_opts(&w->lm, &w->opt);
    return w->ledger.bytes + sbw_pass_ws_bytes(&w->lm.head, &po);
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
    w->lm = *lm, w->opt = *opts, w->k = prec_of(opts);
    w->nt = opts->threads > 0 ? opts->threads : omp_get_max_threads();
    w->ledger.what = "the model's workspace";
    size_t N = opts->batch * opts->steps;
    w->H = sbw_ledger_alloc(&w->ledger, N * lm->head.c, sizeof(double), &st);
    w->dH = sbw_ledger_alloc(&w->ledger, N * lm->head.c, sizeof(double), &st);
    if (drops_g(lm))
        w->gmask =
            sbw_ledger_alloc(&w->ledger, opts->batch * lm->head.k * lm->a.d, sizeof(double), &st);
    w->bufs = sbw_ledger_alloc(&w->ledger, 1, w->k->bufs_size, &st);
    if (!st && opts->single && opts->bf16)
        st = sbw_gemm_alloc(&w->gemm);
    if (!st)
        w->k->alloc_bufs(w, &st);
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
    sbw_gemm_free(w->gemm);
    sbw_rng_free(w->rng);
    sbw_ledger_free(&w->ledger);
    free(w);
}

void sbw_lm_ws_reset(sbw_lm_ws *w) { w->k->state_reset(w); }

void sbw_lm_ws_reg(const sbw_lm_ws *w, double *ar, double *tar)
{
    *ar = w->ar;
    *tar = w->tar;
}

size_t sbw_lm_state_len(const sbw_lm_ws *w)
{
    size_t n = 0;
    for (size_t l = 0; l < w->lm.a.nlayers; l++)
        n += 2 * w->opt.batch * w->lm.a.hidden[l];
    return n;
}

void sbw_lm_state_get(const sbw_lm_ws *w, double *state) { w->k->state_get(w, state); }

void sbw_lm_state_set(sbw_lm_ws *w, const double *state) { w->k->state_set(w, state); }

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

/* One step of the model on chunk ch, top to bottom: the dropout masks,
 * the forward pass (embedding -> LSTM layers -> latent, sbw_lm_tmpl.h,
 * into H), the head's pass (loss, dH and the head's gradient,
 * models/sbw_pass.c), the backward pass (latent -> LSTM layers ->
 * embedding), and the state carried to the next chunk. */
int sbw_lm_loss(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch,
                const sbw_lm_dropout *drop, uint64_t seed, uint64_t stream, sbw_pass_result *res,
                double *grad)
{
    int st = check_chunk(w, ch, true);
    if (!st && drop && drop->wdrop > 0 && !w->opt.wdrop)
        st = SBW_ERROR(SBW_EINVAL, "weight drop %g: the workspace was made without its masks",
                       drop->wdrop);
    if (!st && drop && drop->latent > 0 && w->lm.a.latent == SBW_LM_LATENT_NONE &&
        !w->lm.head.context_mix)
        st = SBW_ERROR(SBW_EINVAL,
                       "--dropout-latent %g: with --latent none the %s head has no latent or "
                       "component vectors to drop (give --dropout-latent 0)",
                       drop->latent, sbw_head_model_name(w->lm.a.model));
    if (st)
        return st;
    w->alpha = drop ? drop->alpha : 0, w->beta = drop ? drop->beta : 0;
    sbw_rng_reseed(w->rng, seed, stream);
    w->k->draw_masks(w, drop ? w->rng : NULL, drop);
    st = w->k->forward(w, theta, ch, w->H);
    size_t N = ch->steps * w->opt.batch, C = w->lm.head.c;
    sbw_pass_target tg = {.ids = ch->y};
    sbw_pass_mask gm = {w->gmask, w->opt.batch};
    double t0 = sbw_progress_now();
    st = st ? st
            : sbw_pass_loss_masked(w->pass, theta + w->lm.off_head, w->H, N, C,
                                   w->gmasked ? &gm : NULL, &tg, res, w->dH, C,
                                   grad + w->lm.off_head);
    w->head_seconds += sbw_progress_now() - t0;
    st = st ? st : w->k->backward(w, theta, ch, w->dH, grad);
    if (!st)
        w->k->carry(w, ch->steps);
    return st;
}

int sbw_lm_latent(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch, double *lat)
{
    int st = check_chunk(w, ch, false);
    if (st)
        return st;
    w->k->draw_masks(w, NULL, NULL);
    w->alpha = w->beta = 0, w->gmasked = false;
    st = w->k->forward(w, theta, ch, lat);
    if (!st)
        w->k->carry(w, ch->steps);
    return st;
}
