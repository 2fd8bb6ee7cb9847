/* sbw_pass.c -- one head over a block of context vectors, blocked and
 * threaded (see sbw_pass.h). */
#include "sbw_pass.h"

#include "sbw_error.h"
#include "sbw_gemm.h"
#include "sbw_head_kern.h"
#include "sbw_blas.h"
#include "sbw_kern.h"
#include "sbw_ledger.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Per thread: one context's scratch and the thread's accumulators.  Double
 * mode uses the double buffers, single mode the float ones. */
typedef struct pass_rows {
    double *y, *fp;                   /* (nx M) mapped logits and the map's derivative */
    double *sig;                      /* (2K M) LMS hidden units */
    double *e, *lq, *p, *oh;          /* (K+1, M) mixture scratch, (M) log Q, P row, one-hot */
    float *yf, *fpf, *sigf, *ef, *pf; /* the same in float (log Q stays double) */
    float *ohf;                       /* (M) one-hot in float */
    double *kbuf;                     /* (4K) */
    double *db;                       /* (M) bias gradient */
    double *gmap;                     /* LMS: gu gv gc glambda (3K+1); PLIF: gsum gx (2 knots) */
    double loss, ent, hits;
} pass_rows;

/* Per block in flight: the block's matrices and shared-weight accumulators. */
typedef struct pass_block {
    float *xf, *zf, *dxf, *dwf; /* single: (B nx, D), (B nx, M), (B nx, D), (M, D) */
    double *xd, *zd, *dxd;      /* double: the same three */
    double *hb, *dhb;           /* (B, C) gathered H rows and their gradient */
    double *g, *logpi, *dalpha; /* (B, K D) tanh(U h + c), (B, K), (B, K) */
    double *gm;                 /* (B, K D) g times the call's mask (with a mask) */
    double *dg;                 /* (B, K D) */
    double *dw, *du, *dv, *dub; /* (M, D), (K D, C), (K, C), (K D) accumulators */
    float *hbf, *gf, *dhbf;     /* single: hb, g (then dg) and dhb in float for U's GEMMs */
    float *duf;                 /* single: (K D, C) the block's dU in float */
    double *gt, *dgt;           /* mixtape: (B, (K-1) d1) tanh(GU_j h) and its gradient */
    double *gl;                 /* mixtape: (F, B (K-1)) gate logits, gammas, their gradient */
    double *dgu, *dgv, *dgb;    /* mixtape: ((K-1) d1, C), (F, d1), (F, K-1) accumulators */
    sbw_gemm *gemm;             /* bf16: this block's GEMM context (one per thread), else NULL */
} pass_block;

typedef struct pass_prec pass_prec;

struct sbw_pass_ws {
    sbw_head h;
    sbw_pass_opts opt;
    int nblockws;
    size_t nx, glen;
    size_t nv, kg, ldg; /* rows of V; mixtape's gates per word K - 1 and gl's leading dim */
    /* the parameters of the call in progress, in the forms the kernels take */
    float *wf;                   /* (M, D) W in float (single mode) */
    float *mixf;                 /* (K D, C) U in float (single mode, context-mixing heads) */
    double *u, *v, *c, *s, *cum; /* map parameters */
    double lambda;
    float *bf, *uf, *vf, *cf, *sf, *cumf; /* float copies of b and them (single) */
    float lambdaf;
    pass_rows *rows;    /* [threads] */
    pass_block *blocks; /* [nblockws] */
    const pass_prec *k; /* pass_prec_f or pass_prec_d, picked by sbw_pass_ws_alloc */
    sbw_ledger ledger;  /* every buffer, for sbw_pass_ws_free */
};

/* One call's arguments, handed down explicitly: nothing of a call lives
 * in the workspace but scratch. */
typedef struct pass_call {
    const double *theta; /* (nshared) */
    const double *H;     /* (nrows, C), leading dim ldh */
    size_t ldh, nrows;
    const sbw_pass_mask *mask; /* on g_k (context-mixing heads), or NULL */
    const sbw_pass_target *tg;
    double scale; /* 1 / nrows */
    double *dH;   /* (nrows, C), leading dim lddh; NULL: no gradient */
    size_t lddh;
    double *lq; /* export: (nrows, M), leading dim ldq */
    size_t ldq;
    const double *logp; /* export: exact log P* (nrows, M), leading dim ldp, or NULL */
    size_t ldp;
} pass_call;

/* The per-row work of a call: training in double or float, or export. */
typedef void (*pass_row_fn)(sbw_pass_ws *, const pass_call *, pass_block *, pass_rows *, size_t,
                            size_t);

/* The work of one precision (sbw_pass_tmpl.h), picked once by
 * sbw_pass_ws_alloc: no call site asks which precision it is in. */
struct pass_prec {
    void (*params)(sbw_pass_ws *o, const double *theta); /* theta in the kernels' forms */
    void (*logits)(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb);
    pass_row_fn train, logq; /* one context of a training or an export call */
    void (*backward)(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb);
};

/* The two tables, defined with their instances below. */
static const pass_prec pass_prec_f, pass_prec_d;

/* ---- allocation ---------------------------------------------------------- */

static int resolve_threads(const sbw_pass_opts *opts)
{
    return opts->threads > 0 ? opts->threads : omp_get_max_threads();
}

/* Bytes per thread of pass_rows (double or float scratch). */
static double rows_bytes(const sbw_head *h, bool single)
{
    double m = (double)h->m, k = (double)(h->k ? h->k : 1), nx = h->mixture ? k : 1;
    double sig = h->map == SBW_MAP_LMS ? 2 * k * m : 0, item = single ? 4 : 8;
    return item * (2 * nx * m + sig + (k + 1) * m + 2 * m) + 8 * (2 * m + 7 * k + 1) +
           16 * (double)h->knots;
}

static double block_bytes(const sbw_head *h, size_t b, bool single, bool bf16)
{
    double m = (double)h->m, d = (double)h->d, c = (double)h->c, k = (double)(h->k ? h->k : 1);
    double nx = h->mixture ? k : 1, bx = (double)b * nx, item = single ? 4 : 8;
    double gemm = item * (2 * bx * d + bx * m) + (single ? 4 * m * d : 0);
    gemm += bf16 ? 2 * (m * d + bx * d + bx * m) : 0; /* the kept bfloat16 copies */
    double ctx =
        h->context_mix ? 8 * ((double)b * (3 * k * d + 2 * k) + k * d * c + k * c + k * d) : 0;
    if (h->context_mix && single) /* U's GEMMs in float, and their kept bfloat16 copies */
        ctx += 4 * ((double)b * (2 * c + k * d) + k * d * c) +
               (bf16 ? 2 * ((double)b * (c + k * d) + k * d * c) : 0);
    double kg = h->vgate ? k - 1 : 0, gd = (double)h->gd, nf = (double)h->nfreq;
    double gate = 8 * kg * ((double)b * (2 * gd + nf) + gd * c + nf) + 8 * nf * gd;
    return gemm + ctx + gate + 8 * (2 * (double)b * c + m * d);
}

double sbw_pass_ws_bytes(const sbw_head *h, const sbw_pass_opts *opts)
{
    int nt = resolve_threads(opts);
    int nb = opts->par == SBW_PASS_PAR_BLOCKS ? nt : 1;
    double wf = opts->single ? 4.0 * (double)h->m * (double)h->d : 0;
    if (opts->single && h->context_mix)
        wf += 4.0 * (double)(h->k * h->d) * (double)h->c;
    return nt * rows_bytes(h, opts->single) +
           nb * block_bytes(h, opts->block, opts->single, opts->single && opts->bf16) + wf;
}

static void alloc_rows(sbw_pass_ws *o, pass_rows *r, int *st)
{
    size_t m = o->h.m, k = o->h.k ? o->h.k : 1, nxm = o->nx * m;
    size_t sig = o->h.map == SBW_MAP_LMS ? 2 * k * m : 1, e = o->h.mixture ? (k + 1) * m : 1;
    size_t dm = o->opt.single ? 0 : 1, fm = o->opt.single ? 1 : 0; /* which are used */
    r->y = sbw_ledger_alloc(&o->ledger, dm * nxm, sizeof(double), st);
    r->fp = sbw_ledger_alloc(&o->ledger, dm * nxm, sizeof(double), st);
    r->sig = sbw_ledger_alloc(&o->ledger, dm * sig, sizeof(double), st);
    r->e = sbw_ledger_alloc(&o->ledger, dm * e, sizeof(double), st);
    r->lq = sbw_ledger_alloc(&o->ledger, m, sizeof(double), st);
    r->p = sbw_ledger_alloc(&o->ledger, dm * m, sizeof(double), st);
    r->oh = sbw_ledger_alloc(&o->ledger, dm * m, sizeof(double), st);
    r->yf = sbw_ledger_alloc(&o->ledger, fm * nxm, sizeof(float), st);
    r->fpf = sbw_ledger_alloc(&o->ledger, fm * nxm, sizeof(float), st);
    r->sigf = sbw_ledger_alloc(&o->ledger, fm * sig, sizeof(float), st);
    r->ef = sbw_ledger_alloc(&o->ledger, fm * e, sizeof(float), st);
    r->pf = sbw_ledger_alloc(&o->ledger, fm * m, sizeof(float), st);
    r->ohf = sbw_ledger_alloc(&o->ledger, fm * m, sizeof(float), st);
    r->kbuf = sbw_ledger_alloc(&o->ledger, 4 * k, sizeof(double), st);
    r->db = sbw_ledger_alloc(&o->ledger, m, sizeof(double), st);
    r->gmap = sbw_ledger_alloc(&o->ledger, o->glen, sizeof(double), st);
}

static void alloc_block(sbw_pass_ws *o, pass_block *b, int *st)
{
    size_t m = o->h.m, d = o->h.d, k = o->h.k, bx = o->opt.block * o->nx, kd = k * d;
    size_t fs = o->opt.single ? 1 : 0, ds = o->opt.single ? 0 : 1; /* which precision's */
    b->xf = sbw_ledger_alloc(&o->ledger, fs * bx * d, sizeof(float), st);
    b->zf = sbw_ledger_alloc(&o->ledger, fs * bx * m, sizeof(float), st);
    b->dxf = sbw_ledger_alloc(&o->ledger, fs * bx * d, sizeof(float), st);
    b->dwf = sbw_ledger_alloc(&o->ledger, fs * m * d, sizeof(float), st);
    b->xd = sbw_ledger_alloc(&o->ledger, bx * d, sizeof(double), st);
    b->zd = sbw_ledger_alloc(&o->ledger, ds * bx * m, sizeof(double), st);
    b->dxd = sbw_ledger_alloc(&o->ledger, bx * d, sizeof(double), st);
    b->hb = sbw_ledger_alloc(&o->ledger, o->opt.block * o->h.c, sizeof(double), st);
    b->dhb = sbw_ledger_alloc(&o->ledger, o->opt.block * o->h.c, sizeof(double), st);
    b->dw = sbw_ledger_alloc(&o->ledger, m * d, sizeof(double), st);
    if (!o->h.context_mix)
        return;
    b->g = sbw_ledger_alloc(&o->ledger, o->opt.block * kd, sizeof(double), st);
    b->gm = sbw_ledger_alloc(&o->ledger, o->opt.block * kd, sizeof(double), st);
    b->dg = sbw_ledger_alloc(&o->ledger, o->opt.block * kd, sizeof(double), st);
    b->logpi = sbw_ledger_alloc(&o->ledger, o->opt.block * k, sizeof(double), st);
    b->dalpha = sbw_ledger_alloc(&o->ledger, o->opt.block * k, sizeof(double), st);
    b->du = sbw_ledger_alloc(&o->ledger, kd * o->h.c, sizeof(double), st);
    b->dv = sbw_ledger_alloc(&o->ledger, k * o->h.c, sizeof(double), st);
    b->dub = sbw_ledger_alloc(&o->ledger, kd, sizeof(double), st);
    b->hbf = sbw_ledger_alloc(&o->ledger, fs * o->opt.block * o->h.c, sizeof(float), st);
    b->gf = sbw_ledger_alloc(&o->ledger, fs * o->opt.block * kd, sizeof(float), st);
    b->dhbf = sbw_ledger_alloc(&o->ledger, fs * o->opt.block * o->h.c, sizeof(float), st);
    b->duf = sbw_ledger_alloc(&o->ledger, fs * kd * o->h.c, sizeof(float), st);
    if (!o->kg)
        return;
    size_t gg = o->kg * o->h.gd, nf = o->h.nfreq;
    b->gt = sbw_ledger_alloc(&o->ledger, o->opt.block * gg, sizeof(double), st);
    b->dgt = sbw_ledger_alloc(&o->ledger, o->opt.block * gg, sizeof(double), st);
    b->gl = sbw_ledger_alloc(&o->ledger, nf * o->ldg, sizeof(double), st);
    b->dgu = sbw_ledger_alloc(&o->ledger, gg * o->h.c, sizeof(double), st);
    b->dgv = sbw_ledger_alloc(&o->ledger, nf * o->h.gd, sizeof(double), st);
    b->dgb = sbw_ledger_alloc(&o->ledger, nf * o->kg, sizeof(double), st);
}

static int check_opts(const sbw_head *h, const sbw_pass_opts *opts, size_t nx)
{
    if (opts->block == 0)
        return SBW_ERROR(SBW_EINVAL, "the block size must be >= 1");
    if (opts->bf16 && !opts->single)
        return SBW_ERROR(SBW_EINVAL, "bfloat16 GEMMs are a single-precision mode");
    size_t lim = (size_t)INT_MAX;
    size_t kg = h->vgate ? h->k - 1 : 0;
    if (h->m > lim || opts->block > lim / nx || h->k * h->d > lim || h->c > lim || kg * h->gd > lim)
        return SBW_ERROR(SBW_EINVAL, "M = %zu or a block of %zu is beyond BLAS's int range", h->m,
                         opts->block);
    return SBW_OK;
}

/* The buffers of the map parameters and their float copies. */
static void alloc_params(sbw_pass_ws *o, int *st)
{
    const sbw_head *h = &o->h;
    size_t k = h->k ? h->k : 1, fs = o->opt.single ? 1 : 0;
    o->wf = sbw_ledger_alloc(&o->ledger, fs * h->m * h->d, sizeof(float), st);
    o->mixf = sbw_ledger_alloc(&o->ledger, h->context_mix ? fs * h->k * h->d * h->c : 0,
                               sizeof(float), st);
    o->u = sbw_ledger_alloc(&o->ledger, k, sizeof(double), st);
    o->v = sbw_ledger_alloc(&o->ledger, k, sizeof(double), st);
    o->c = sbw_ledger_alloc(&o->ledger, k, sizeof(double), st);
    o->s = sbw_ledger_alloc(&o->ledger, h->knots, sizeof(double), st);
    o->cum = sbw_ledger_alloc(&o->ledger, h->knots, sizeof(double), st);
    o->bf = sbw_ledger_alloc(&o->ledger, fs * h->m, sizeof(float), st);
    o->uf = sbw_ledger_alloc(&o->ledger, fs * k, sizeof(float), st);
    o->vf = sbw_ledger_alloc(&o->ledger, fs * k, sizeof(float), st);
    o->cf = sbw_ledger_alloc(&o->ledger, fs * k, sizeof(float), st);
    o->sf = sbw_ledger_alloc(&o->ledger, fs * h->knots, sizeof(float), st);
    o->cumf = sbw_ledger_alloc(&o->ledger, fs * h->knots, sizeof(float), st);
}

int sbw_pass_ws_alloc(sbw_pass_ws **out, const sbw_head *h, const sbw_pass_opts *opts)
{
    *out = NULL;
    size_t nx = sbw_head_nx(h);
    int st = check_opts(h, opts, nx);
    if (st)
        return st;
    sbw_pass_ws *o = calloc(1, sizeof *o);
    if (!o)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    *o = (sbw_pass_ws){.h = *h, .opt = *opts, .nx = nx, .nv = sbw_head_nv(h)};
    o->kg = h->vgate ? h->k - 1 : 0;
    o->ldg = opts->block * o->kg;
    o->k = opts->single ? &pass_prec_f : &pass_prec_d;
    o->ledger.what = "head workspace";
    o->opt.threads = resolve_threads(opts);
    o->nblockws = opts->par == SBW_PASS_PAR_BLOCKS ? o->opt.threads : 1;
    o->glen = h->model == SBW_MODEL_LMS ? 3 * h->k + 1 : 2 * h->knots;
    o->rows = sbw_ledger_alloc(&o->ledger, (size_t)o->opt.threads, sizeof *o->rows, &st);
    o->blocks = sbw_ledger_alloc(&o->ledger, (size_t)o->nblockws, sizeof *o->blocks, &st);
    alloc_params(o, &st);
    for (int i = 0; !st && i < o->opt.threads; i++)
        alloc_rows(o, &o->rows[i], &st);
    for (int i = 0; !st && i < o->nblockws; i++)
        alloc_block(o, &o->blocks[i], &st);
    for (int i = 0; !st && opts->bf16 && i < o->nblockws; i++)
        st = sbw_gemm_alloc(&o->blocks[i].gemm);
    if (st) {
        sbw_pass_ws_free(o);
        return st;
    }
    *out = o;
    return SBW_OK;
}

void sbw_pass_ws_free(sbw_pass_ws *o)
{
    if (!o)
        return;
    for (int i = 0; o->blocks && i < o->nblockws; i++)
        sbw_gemm_free(o->blocks[i].gemm);
    sbw_ledger_free(&o->ledger);
    free(o);
}

sbw_pass_opts sbw_pass_ws_opts(const sbw_pass_ws *o) { return o->opt; }

/* ---- targets ------------------------------------------------------------- */

static size_t target_row(const sbw_pass_target *tg, size_t pos)
{
    return tg->rows ? tg->rows[pos] : tg->r0 + pos;
}

/* The row constants of position pos: the stored P* row's sum, entropy and
 * mode, or those of a one-hot row (1, 0, the id). */
static void target_consts(const sbw_pass_target *tg, size_t pos, double *psum, double *ent,
                          size_t *mode)
{
    if (tg->ids) {
        *psum = 1.0, *ent = 0.0, *mode = tg->ids[pos];
        return;
    }
    size_t r = target_row(tg, pos);
    *psum = tg->p->psum[r], *ent = tg->p->ent[r], *mode = tg->p->mode[r];
}

static void prefetch_row(const void *x, size_t bytes)
{
    const char *c = x;
    for (size_t at = 0; at < bytes; at += 64)
        __builtin_prefetch(c + at, 0, 3);
}

/* ---- one block ----------------------------------------------------------- */

/* The mask row of call position pos (K D entries). */
static const double *mask_row(const sbw_pass_mask *mk, size_t pos, size_t kd)
{
    return mk->m + (pos % mk->period) * kd;
}

/* The component vectors the logits see: g itself, or (with the call's
 * mask) gm = g * mask, row i of the block using call position p0 + i. */
static const double *masked_g(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t p0,
                              size_t nb)
{
    size_t kd = o->h.k * o->h.d;
    if (!c->mask)
        return b->g;
    for (size_t i = 0; i < nb; i++) {
        const double *mk = mask_row(c->mask, p0 + i, kd), *g = b->g + i * kd;
        double *gm = b->gm + i * kd;
        for (size_t j = 0; j < kd; j++)
            gm[j] = g[j] * mk[j];
    }
    return b->gm;
}

/* Mixtape's gate logits' word part for the block: gt = tanh(GU_j h)
 * (nb (K-1) x d1) and gl = GV gt^T (F x nb (K-1), leading dim ldg): word
 * x's K - 1 logits of context i at gl + x ldg + i (K-1). */
static void gate_forward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb)
{
    size_t cw = o->h.c, kg = o->kg, gd = o->h.gd, nf = o->h.nfreq;
    const double *GU = c->theta + o->h.off_gu, *GV = c->theta + o->h.off_gv;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)(kg * gd), (int)cw, 1.0,
                b->hb, (int)cw, GU, (int)cw, 0.0, b->gt, (int)(kg * gd));
    sbw_head_kern_tanh(b->gt, nb * kg * gd);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nf, (int)(nb * kg), (int)gd, 1.0, GV,
                (int)gd, b->gt, (int)gd, 0.0, b->gl, (int)o->ldg);
}

/* g = hb U^T (nb x K D, into b->g): in double, or (single) in float
 * GEMMs from float copies of hb and U (o->mixf, converted by params_f),
 * bfloat16 inputs with the block's context; hb's float copy stays kept
 * for dU in mix_u_backward and is dropped when the next block's comes. */
static void mix_u_forward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb)
{
    size_t cw = o->h.c, kd = o->h.k * o->h.d;
    if (!o->opt.single) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)kd, (int)cw, 1.0, b->hb,
                    (int)cw, c->theta + o->h.off_u, (int)cw, 0.0, b->g, (int)kd);
        return;
    }
    sbw_gemm_forget(b->gemm, b->hbf); /* the last block's */
    sbw_head_kern_d2f(b->hb, b->hbf, nb * cw);
    sbw_gemm_f(b->gemm, SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, (int)nb,
               (int)kd, (int)cw, 1.0f, b->hbf, (int)cw, o->mixf, (int)cw, 0.0f, b->gf, (int)kd);
    sbw_head_kern_f2d(b->gf, b->g, nb * kd);
}

/* dhb = dg U (overwritten) and dU += dg^T hb, from b->dg: in double, or
 * (single) in float GEMMs, dg's float copy in b->gf, dU summed into the
 * double accumulator. */
static void mix_u_backward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb)
{
    size_t cw = o->h.c, kd = o->h.k * o->h.d;
    if (!o->opt.single) {
        const double *U = c->theta + o->h.off_u;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)cw, (int)kd, 1.0,
                    b->dg, (int)kd, U, (int)cw, 0.0, b->dhb, (int)cw);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)kd, (int)cw, (int)nb, 1.0, b->dg,
                    (int)kd, b->hb, (int)cw, 1.0, b->du, (int)cw);
        return;
    }
    unsigned both = SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B;
    sbw_head_kern_d2f(b->dg, b->gf, nb * kd);
    sbw_gemm_f(b->gemm, both, CblasNoTrans, CblasNoTrans, (int)nb, (int)cw, (int)kd, 1.0f, b->gf,
               (int)kd, o->mixf, (int)cw, 0.0f, b->dhbf, (int)cw);
    sbw_head_kern_f2d(b->dhbf, b->dhb, nb * cw);
    sbw_gemm_f(b->gemm, both, CblasTrans, CblasNoTrans, (int)kd, (int)cw, (int)nb, 1.0f, b->gf,
               (int)kd, b->hbf, (int)cw, 0.0f, b->duf, (int)cw);
    sbw_gemm_forget(b->gemm, b->gf); /* the next block's g is written there */
    sbw_head_kern_add_f2d(b->duf, b->du, kd * cw);
}

/* A context-mixing head's g_k = tanh(U_k h + c_k) (nb x K D, in b->g)
 * and log pi = log softmax(V h) (nb x K) from the block's rows hb; for
 * mixtape V h is the shared gate logits u_j^T h (nb x (K-1), leading dim
 * K, in logpi) and gate_forward the words' part. */
static void mix_forward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb)
{
    size_t d = o->h.d, cw = o->h.c, k = o->h.k, kd = k * d;
    const double *V = c->theta + o->h.off_v;
    mix_u_forward(o, c, b, nb);
    for (size_t i = 0; o->h.cbias && i < nb; i++)
        sbw_head_kern_axpy(1.0, c->theta + o->h.off_ub, b->g + i * kd, kd);
    sbw_head_kern_tanh(b->g, nb * kd);
    if (o->nv)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)o->nv, (int)cw, 1.0,
                    b->hb, (int)cw, V, (int)cw, 0.0, b->logpi, (int)k);
    if (o->kg)
        gate_forward(o, c, b, nb);
    if (!o->h.vgate)
        sbw_kern_log_softmax_rows(b->logpi, nb, k, k, b->logpi, k);
}

/* X of the block (double, in xd): the rows of H, or MoC's hbar, or MoS's
 * g_k (nb K rows), g_k through the call's mask when it has one; plus
 * log pi. */
static void context_forward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t p0,
                            size_t nb)
{
    size_t d = o->h.d, cw = o->h.c, k = o->h.k, kd = k * d;
    for (size_t i = 0; i < nb; i++)
        memcpy(b->hb + i * cw, c->H + (p0 + i) * c->ldh, cw * sizeof(double));
    if (!o->h.context_mix) {
        memcpy(b->xd, b->hb, nb * d * sizeof(double));
    } else {
        mix_forward(o, c, b, nb);
        const double *g = masked_g(o, c, b, p0, nb);
        if (o->h.mixture || o->h.vgate)
            memcpy(b->xd, g, nb * kd * sizeof(double));
        else
            for (size_t i = 0; i < nb; i++) {
                double *x = b->xd + i * d;
                memset(x, 0, d * sizeof *x);
                for (size_t j = 0; j < k; j++)
                    sbw_head_kern_axpy(exp(b->logpi[i * k + j]), g + i * kd + j * d, x, d);
            }
    }
}

static void add_result(pass_rows *w, double loss, double ent, size_t am, size_t mode)
{
    w->loss += loss;
    w->ent += ent;
    w->hits += am == mode;
}

/* Export: one context's metrics once its log Q is in out, against the
 * exact log P* when the call has it. */
static void logq_result(const pass_call *c, pass_rows *w, size_t pos, const double *out, size_t m,
                        double loss, double ent, size_t am, size_t mode)
{
    if (c->logp) {
        const double *lp = c->logp + pos * c->ldp;
        loss = sbw_kern_cross_entropy(lp, out, m);
        ent = sbw_kern_entropy(lp, m);
    }
    add_result(w, loss, ent, am, mode);
}

/* defines: target_f(), target_clear_f(), logits_gemm_f(), map_forward_f(), map_backward_f() */
/* defines: row_forward_f(), rows_train_f(), rows_logq_f(), backward_gemm_f(), params_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_pass_tmpl.h"

/* defines: target_d(), target_clear_d(), logits_gemm_d(), map_forward_d(), map_backward_d() */
/* defines: row_forward_d(), rows_train_d(), rows_logq_d(), backward_gemm_d(), params_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_pass_tmpl.h"

/* MoC: from dhbar (dxd) to dalpha and dg_k = pi_k dhbar; gsrc is the
 * (masked) g the forward mixed. */
static void moc_backward(const sbw_pass_ws *o, pass_block *b, const double *gsrc, size_t nb)
{
    size_t d = o->h.d, k = o->h.k, kd = k * d;
    for (size_t i = 0; i < nb; i++) {
        const double *dx = b->dxd + i * d, *lp = b->logpi + i * k;
        double *da = b->dalpha + i * k, mean = 0;
        for (size_t c = 0; c < k; c++) {
            const double *g = gsrc + i * kd + c * d;
            da[c] = 0;
            for (size_t j = 0; j < d; j++)
                da[c] += dx[j] * g[j];
            mean += exp(lp[c]) * da[c];
        }
        for (size_t c = 0; c < k; c++) {
            double pi = exp(lp[c]);
            da[c] = pi * (da[c] - mean);
            for (size_t j = 0; j < d; j++)
                b->dg[i * kd + c * d + j] = pi * dx[j];
        }
    }
}

/* Mixtape's gates backward from gl (now the gradient of the frequent
 * words' gate logits): dGV, dGB, and through tanh into dhb and dGU. */
static void gate_backward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t nb)
{
    size_t cw = o->h.c, kg = o->kg, gd = o->h.gd, nf = o->h.nfreq, gg = kg * gd;
    const double *GU = c->theta + o->h.off_gu, *GV = c->theta + o->h.off_gv;
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)(nb * kg), (int)gd, (int)nf, 1.0,
                b->gl, (int)o->ldg, GV, (int)gd, 0.0, b->dgt, (int)gd);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nf, (int)gd, (int)(nb * kg), 1.0,
                b->gl, (int)o->ldg, b->gt, (int)gd, 1.0, b->dgv, (int)gd);
    for (size_t x = 0; x < nf; x++)
        for (size_t i = 0; i < nb; i++)
            sbw_head_kern_axpy(1.0, b->gl + x * o->ldg + i * kg, b->dgb + x * kg, kg);
    sbw_head_kern_tanh_back(b->gt, b->dgt, nb * gg);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)cw, (int)gg, 1.0, b->dgt,
                (int)gg, GU, (int)cw, 1.0, b->dhb, (int)cw);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)gg, (int)cw, (int)nb, 1.0, b->dgt,
                (int)gg, b->hb, (int)cw, 1.0, b->dgu, (int)cw);
}

/* A context-mixing head's backward: from dX (and dalpha) to dg (through
 * the mask, then tanh), dhb, and the dU, dV, dub accumulators. */
static void mix_backward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t p0,
                         size_t nb)
{
    size_t d = o->h.d, cw = o->h.c, k = o->h.k, kd = k * d;
    const double *V = c->theta + o->h.off_v;
    if (o->h.mixture || o->h.vgate)
        memcpy(b->dg, b->dxd, nb * kd * sizeof(double));
    else
        moc_backward(o, b, c->mask ? b->gm : b->g, nb);
    for (size_t i = 0; c->mask && i < nb; i++) {
        const double *mk = mask_row(c->mask, p0 + i, kd);
        for (size_t j = 0; j < kd; j++)
            b->dg[i * kd + j] *= mk[j];
    }
    sbw_head_kern_tanh_back(b->g, b->dg, nb * kd);
    mix_u_backward(o, c, b, nb);
    if (o->nv) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)cw, (int)o->nv, 1.0,
                    b->dalpha, (int)k, V, (int)cw, 1.0, b->dhb, (int)cw);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)o->nv, (int)cw, (int)nb, 1.0,
                    b->dalpha, (int)k, b->hb, (int)cw, 1.0, b->dv, (int)cw);
    }
    if (o->h.cbias)
        sbw_head_kern_colsum(b->dg, nb, kd, kd, b->dub);
    if (o->kg)
        gate_backward(o, c, b, nb);
}

/* From dX (and dalpha) to the block's rows of dH (overwritten), dU, dV,
 * and the component bias's gradient. */
static void context_backward(const sbw_pass_ws *o, const pass_call *c, pass_block *b, size_t p0,
                             size_t nb)
{
    size_t cw = o->h.c;
    const double *dh = b->dxd;
    if (o->h.context_mix) {
        mix_backward(o, c, b, p0, nb);
        dh = b->dhb;
    }
    for (size_t i = 0; i < nb; i++)
        memcpy(c->dH + (p0 + i) * c->lddh, dh + i * cw, cw * sizeof(double));
}

/* Block blk: contexts at positions [blk B, blk B + nb).  tid >= 0: the
 * calling thread does every context with o->rows[tid]; tid < 0: OpenMP
 * threads share the contexts (SBW_PASS_PAR_BLAS). */
static void do_block(sbw_pass_ws *o, const pass_call *c, pass_row_fn rows, size_t blk, int tid)
{
    size_t bs = o->opt.block, p0 = blk * bs, nb = c->nrows - p0 < bs ? c->nrows - p0 : bs;
    pass_block *b = &o->blocks[tid > 0 ? tid : 0];
    context_forward(o, c, b, p0, nb);
    o->k->logits(o, c, b, nb);
    if (tid >= 0) {
        for (size_t i = 0; i < nb; i++)
            rows(o, c, b, &o->rows[tid], i, p0 + i);
    } else {
#pragma omp parallel for schedule(static) num_threads(o->opt.threads)
        for (size_t i = 0; i < nb; i++)
            rows(o, c, b, &o->rows[omp_get_thread_num()], i, p0 + i);
    }
    if (!c->dH)
        return;
    o->k->backward(o, c, b, nb);
    context_backward(o, c, b, p0, nb);
}

/* ---- a call -------------------------------------------------------------- */

/* The first failure of a block's bfloat16 context in the call (SBW_OK
 * for none), every context's cleared. */
static int gemm_status(sbw_pass_ws *o)
{
    int st = SBW_OK;
    for (int i = 0; i < o->nblockws; i++) {
        int s = sbw_gemm_status(o->blocks[i].gemm);
        st = st ? st : s;
    }
    return st;
}

static void run_blocks(sbw_pass_ws *o, const pass_call *c, pass_row_fn rows)
{
    size_t nblk = (c->nrows + o->opt.block - 1) / o->opt.block;
    int nt = o->opt.threads;
    int saved = sbw_blas_threads_push(o->opt.par == SBW_PASS_PAR_BLOCKS ? 1 : nt);
    if (o->opt.par == SBW_PASS_PAR_BLOCKS) {
#pragma omp parallel num_threads(nt)
        { /* the team may be smaller than nt (nested or limited): step by it */
            int tid = omp_get_thread_num();
            size_t team = (size_t)omp_get_num_threads();
            for (size_t blk = (size_t)tid; blk < nblk; blk += team)
                do_block(o, c, rows, blk, tid);
        }
    } else {
        for (size_t blk = 0; blk < nblk; blk++)
            do_block(o, c, rows, blk, -1);
    }
    sbw_blas_threads_pop(saved);
}

static void reset_accumulators(sbw_pass_ws *o)
{
    size_t m = o->h.m, d = o->h.d, kd = o->h.k * o->h.d, kc = o->h.k * o->h.c;
    for (int i = 0; i < o->opt.threads; i++) {
        pass_rows *w = &o->rows[i];
        w->loss = w->ent = w->hits = 0;
        memset(w->db, 0, m * sizeof(double));
        memset(w->gmap, 0, o->glen * sizeof(double));
    }
    for (int i = 0; i < o->nblockws; i++) {
        memset(o->blocks[i].dw, 0, m * d * sizeof(double));
        if (o->h.context_mix) {
            memset(o->blocks[i].du, 0, kd * o->h.c * sizeof(double));
            memset(o->blocks[i].dv, 0, kc * sizeof(double));
            memset(o->blocks[i].dub, 0, kd * sizeof(double));
        }
        if (o->kg) {
            memset(o->blocks[i].dgu, 0, o->kg * o->h.gd * o->h.c * sizeof(double));
            memset(o->blocks[i].dgv, 0, o->h.nfreq * o->h.gd * sizeof(double));
            memset(o->blocks[i].dgb, 0, o->h.nfreq * o->kg * sizeof(double));
        }
    }
}

/* The call's metrics: per-thread sums in thread order. */
static void reduce_result(const sbw_pass_ws *o, const pass_call *c, sbw_pass_result *res)
{
    double loss = 0, ent = 0, hits = 0;
    for (int i = 0; i < o->opt.threads; i++) {
        loss += o->rows[i].loss;
        ent += o->rows[i].ent;
        hits += o->rows[i].hits;
    }
    *res = (sbw_pass_result){.loss = loss * c->scale,
                             .kl = (loss - ent) * c->scale,
                             .mode_match = hits * c->scale,
                             .rows = c->nrows};
}

/* dtheta (nshared, overwritten) from the per-block and per-thread
 * accumulators, summed in a fixed order. */
static void reduce_grad(sbw_pass_ws *o, const pass_call *c, double *dtheta)
{
    const sbw_head *h = &o->h;
    size_t kd = h->k * h->d;
    memset(dtheta, 0, h->nshared * sizeof *dtheta);
    for (int i = 0; i < o->nblockws; i++) {
        sbw_head_kern_axpy(1.0, o->blocks[i].dw, dtheta + h->off_w, h->m * h->d);
        if (h->context_mix) {
            sbw_head_kern_axpy(1.0, o->blocks[i].du, dtheta + h->off_u, kd * h->c);
            sbw_head_kern_axpy(1.0, o->blocks[i].dv, dtheta + h->off_v, o->nv * h->c);
            if (h->cbias)
                sbw_head_kern_axpy(1.0, o->blocks[i].dub, dtheta + h->off_ub, kd);
        }
        if (o->kg) {
            sbw_head_kern_axpy(1.0, o->blocks[i].dgu, dtheta + h->off_gu, o->kg * h->gd * h->c);
            sbw_head_kern_axpy(1.0, o->blocks[i].dgv, dtheta + h->off_gv, h->nfreq * h->gd);
            sbw_head_kern_axpy(1.0, o->blocks[i].dgb, dtheta + h->off_gb, h->nfreq * o->kg);
        }
    }
    for (int i = 1; i < o->opt.threads; i++) {
        sbw_head_kern_axpy(1.0, o->rows[i].db, o->rows[0].db, h->m);
        sbw_head_kern_axpy(1.0, o->rows[i].gmap, o->rows[0].gmap, o->glen);
    }
    if (h->bias)
        memcpy(dtheta + h->off_b, o->rows[0].db, h->m * sizeof(double));
    const double *g = o->rows[0].gmap;
    size_t k = h->k;
    if (h->map == SBW_MAP_LMS || h->map == SBW_MAP_PLIF)
        sbw_head_map_chain(h, c->theta, g, g + k, g + 2 * k, h->linear ? g[3 * k] : 0, g,
                           g + h->knots, dtheta);
}

/* Every target of the call in range, and the shapes agree. */
static int check_target(const sbw_pass_ws *o, const sbw_pass_target *tg, size_t nrows)
{
    size_t m = o->h.m;
    if (!tg || (tg->p == NULL) == (tg->ids == NULL))
        return SBW_ERROR(SBW_EINVAL, "a target is P* rows or word ids, exactly one of them");
    for (size_t i = 0; tg->ids && i < nrows; i++)
        if (tg->ids[i] >= m)
            return SBW_ERROR(SBW_EINVAL, "word id %zu at row %zu is out of range (M = %zu)",
                             tg->ids[i], i, m);
    if (tg->ids)
        return SBW_OK;
    if (tg->p->m != m)
        return SBW_ERROR(SBW_ESHAPE, "P* has %zu words, the head %zu", tg->p->m, m);
    size_t n = tg->p->n;
    if (!tg->rows && (tg->r0 > n || nrows > n - tg->r0))
        return SBW_ERROR(SBW_EINVAL, "contexts %zu..%zu out of range (N = %zu)", tg->r0,
                         tg->r0 + nrows, n);
    for (size_t i = 0; tg->rows && i < nrows; i++)
        if (tg->rows[i] >= n)
            return SBW_ERROR(SBW_EINVAL, "context %zu out of range (N = %zu)", tg->rows[i], n);
    return SBW_OK;
}

static int check_call(const sbw_pass_ws *o, size_t rows, size_t ldh, size_t ld_out, size_t ld_min)
{
    if (rows == 0)
        return SBW_ERROR(SBW_EINVAL, "no contexts to evaluate");
    if (ldh < o->h.c || ld_out < ld_min)
        return SBW_ERROR(SBW_EINVAL, "leading dimension %zu below the row length %zu",
                         ldh < o->h.c ? ldh : ld_out, ldh < o->h.c ? o->h.c : ld_min);
    return SBW_OK;
}

/* The call's parameters in the kernels' forms: the map's constrained
 * values (double), this precision's copies, and zeroed accumulators. */
static void prepare(sbw_pass_ws *o, const double *theta)
{
    const sbw_head *h = &o->h;
    sbw_head_map_params(h, theta, o->u, o->v, o->c, &o->lambda, o->s, o->cum);
    o->k->params(o, theta);
    reset_accumulators(o);
}

/* The mask of a call: NULL, or on a context-mixing head with a period. */
static int check_mask(const sbw_pass_ws *o, const sbw_pass_mask *mk)
{
    if (!mk)
        return SBW_OK;
    if (!o->h.context_mix)
        return SBW_ERROR(SBW_EINVAL,
                         "a mask on g_k needs a context-mixing head (moc, mos, "
                         "mos+plif, mixtape), not %s",
                         sbw_head_model_name(o->h.model));
    if (!mk->m || mk->period == 0)
        return SBW_ERROR(SBW_EINVAL, "the mask on g_k needs its rows and a period >= 1");
    return SBW_OK;
}

int sbw_pass_loss(sbw_pass_ws *o, const double *theta, const double *H, size_t rows, size_t ldh,
                  const sbw_pass_target *tg, sbw_pass_result *res, double *dH, size_t lddh,
                  double *dtheta)
{
    return sbw_pass_loss_masked(o, theta, H, rows, ldh, NULL, tg, res, dH, lddh, dtheta);
}

int sbw_pass_loss_masked(sbw_pass_ws *o, const double *theta, const double *H, size_t rows,
                         size_t ldh, const sbw_pass_mask *mask, const sbw_pass_target *tg,
                         sbw_pass_result *res, double *dH, size_t lddh, double *dtheta)
{
    int st = check_call(o, rows, ldh, dH ? lddh : o->h.c, o->h.c);
    st = st ? st : check_mask(o, mask);
    st = st ? st : check_target(o, tg, rows);
    if (!st && dH && !dtheta)
        st = SBW_ERROR(SBW_EINVAL, "dH without dtheta: the head's gradient needs a place");
    if (st)
        return st;
    pass_call c = {.theta = theta,
                   .H = H,
                   .ldh = ldh,
                   .nrows = rows,
                   .mask = mask,
                   .tg = tg,
                   .scale = 1.0 / (double)rows,
                   .dH = dH,
                   .lddh = lddh};
    prepare(o, theta);
    run_blocks(o, &c, o->k->train);
    st = gemm_status(o);
    if (st)
        return st;
    reduce_result(o, &c, res);
    if (dH)
        reduce_grad(o, &c, dtheta);
    return SBW_OK;
}

int sbw_pass_logq(sbw_pass_ws *o, const double *theta, const double *H, size_t rows, size_t ldh,
                  double *lq, size_t ldq, const sbw_pass_target *tg, const double *logp, size_t ldp,
                  sbw_pass_result *res)
{
    int st = check_call(o, rows, ldh, ldq, o->h.m);
    if (!st && res)
        st = check_target(o, tg, rows);
    if (!st && res && logp && ldp < o->h.m)
        st = SBW_ERROR(SBW_EINVAL, "log P* leading dimension %zu below M = %zu", ldp, o->h.m);
    if (st)
        return st;
    pass_call c = {.theta = theta,
                   .H = H,
                   .ldh = ldh,
                   .nrows = rows,
                   .tg = res ? tg : NULL,
                   .scale = 1.0 / (double)rows,
                   .lq = lq,
                   .ldq = ldq,
                   .logp = res ? logp : NULL,
                   .ldp = ldp};
    prepare(o, theta);
    run_blocks(o, &c, o->k->logq);
    st = gemm_status(o);
    if (st)
        return st;
    if (res)
        reduce_result(o, &c, res);
    return SBW_OK;
}
