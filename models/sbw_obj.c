/* sbw_obj.c -- the blocked, threaded fit objective (see sbw_obj.h). */
#include "sbw_obj.h"

#include "sbw_error.h"
#include "sbw_head_kern.h"
#include "sbw_head_ref.h"
#include "sbw_kern.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Per thread: one context's scratch and the thread's accumulators.  Double
 * mode uses the double buffers, single mode the float ones. */
typedef struct obj_rows {
    double *y, *fp;                   /* (nx M) mapped logits and the map's derivative */
    double *sig;                      /* (2K M) LMS hidden units */
    double *e, *lq, *p;               /* (K+1, M) mixture scratch, (M) log Q, (M) P row */
    float *yf, *fpf, *sigf, *ef, *pf; /* the same in float (log Q stays double) */
    double *kbuf;                     /* (4K) */
    double *db;                       /* (M) bias gradient */
    double *gmap;                     /* LMS: gu gv gc glambda (3K+1); PLIF: gsum gx (2 knots) */
    double loss, ent, hits;
} obj_rows;

/* Per block in flight: the block's matrices and shared-weight accumulators. */
typedef struct obj_block {
    float *xf, *zf, *dxf, *dwf; /* single: (B nx, D), (B nx, M), (B nx, D), (M, D) */
    double *xd, *zd, *dxd;      /* double: the same three */
    double *hb, *dhb;           /* (B, D) gathered H rows and their gradient */
    double *g, *logpi, *dalpha; /* (B, K D) tanh(U h), (B, K), (B, K) */
    double *dg;                 /* (B, K D) */
    double *dw, *du, *dv;       /* (M, D), (K D, D), (K, D) accumulators */
} obj_block;

struct sbw_obj {
    sbw_head h;
    const sbw_target *t;
    sbw_obj_opts opt;
    int nthreads, nblockws;
    size_t block, nx, glen;
    float *wf;                   /* (M, D) W in float (single mode) */
    double *u, *v, *c, *s, *cum; /* map parameters */
    double lambda;
    float *bf, *uf, *vf, *cf, *sf, *cumf; /* float copies of b and them (single) */
    float lambdaf;
    obj_rows *rows;      /* [nthreads] */
    obj_block *blocks;   /* [nblockws] */
    unsigned char *seen; /* (N) repeated-row check */
    void **allocs;       /* every buffer, for sbw_obj_free */
    size_t nallocs, capallocs;
    /* the evaluation in progress */
    const double *theta;
    double *grad, scale;
    const size_t *idx;
    size_t nrows, r0;
    double *lq_out;           /* sbw_obj_logq: (nr, M) */
    const double *logp_exact; /* sbw_obj_logq: (nr, M) or NULL */
};

/* ---- allocation ---------------------------------------------------------- */

static void *obj_zalloc(sbw_obj *o, size_t count, size_t size, int *st)
{
    if (*st)
        return NULL;
    size_t bytes = 0;
    if ((*st = sbw_mat_bytes(count ? count : 1, 1, size, &bytes)))
        return NULL;
    bytes = (bytes + 63) / 64 * 64;
    if (o->nallocs == o->capallocs) {
        size_t cap = o->capallocs ? 2 * o->capallocs : 64;
        void **a = realloc(o->allocs, cap * sizeof *a);
        if (!a) {
            *st = SBW_ERROR(SBW_ENOMEM, "out of memory (fit workspace)");
            return NULL;
        }
        o->allocs = a;
        o->capallocs = cap;
    }
    void *p = aligned_alloc(64, bytes);
    if (!p) {
        *st =
            SBW_ERROR(SBW_ENOMEM, "cannot allocate %.3g MB of fit workspace", (double)bytes / 1e6);
        return NULL;
    }
    memset(p, 0, bytes);
    o->allocs[o->nallocs++] = p;
    return p;
}

size_t sbw_obj_auto_block(const sbw_head *h, const sbw_obj_opts *opts)
{
    size_t nx = h->mixture ? h->k : 1, item = opts->single ? 4 : 8;
    size_t nt = (size_t)(opts->threads > 0 ? opts->threads : omp_get_max_threads());
    size_t b = ((size_t)1 << 20) / (nx * h->m * item + 1);
    b = b < 64 ? 64 : b > 1024 ? 1024 : b;
    if (opts->par == SBW_PASS_PAR_BLAS)
        b *= nt;
    else /* equal blocks, a multiple of the thread count of them */
        b = (h->n + nt * ((h->n + nt * b - 1) / (nt * b)) - 1) /
            (nt * ((h->n + nt * b - 1) / (nt * b)));
    return b < h->n ? (b ? b : 1) : h->n;
}

static int resolve_threads(const sbw_obj_opts *opts)
{
    return opts->threads > 0 ? opts->threads : omp_get_max_threads();
}

/* Bytes per thread of obj_rows (double or float scratch). */
static double rows_bytes(const sbw_head *h, bool single)
{
    double m = (double)h->m, k = (double)(h->k ? h->k : 1), nx = h->mixture ? k : 1;
    double sig = h->map == SBW_MAP_LMS ? 2 * k * m : 0, item = single ? 4 : 8;
    return item * (2 * nx * m + sig + (k + 1) * m + m) + 8 * (2 * m + 7 * k + 1) +
           16 * (double)h->knots;
}

static double block_bytes(const sbw_head *h, size_t b, bool single)
{
    double m = (double)h->m, d = (double)h->d, k = (double)(h->k ? h->k : 1);
    double nx = h->mixture ? k : 1, bx = (double)b * nx, item = single ? 4 : 8;
    double gemm = item * (2 * bx * d + bx * m) + (single ? 4 * m * d : 0);
    double ctx = h->context_mix ? 8 * ((double)b * (2 * k * d + 2 * k) + k * d * d + k * d) : 0;
    return gemm + ctx + 8 * (2 * (double)b * d + m * d);
}

double sbw_obj_workspace_bytes(const sbw_head *h, const sbw_obj_opts *opts)
{
    int nt = resolve_threads(opts);
    size_t b = opts->block ? opts->block : sbw_obj_auto_block(h, opts);
    int nb = opts->par == SBW_PASS_PAR_BLOCKS ? nt : 1;
    double wf = opts->single ? 4.0 * (double)h->m * (double)h->d : 0;
    return nt * rows_bytes(h, opts->single) + nb * block_bytes(h, b, opts->single) + wf +
           (double)h->n;
}

static void alloc_rows(sbw_obj *o, obj_rows *r, int *st)
{
    size_t m = o->h.m, k = o->h.k ? o->h.k : 1, nxm = o->nx * m;
    size_t sig = o->h.map == SBW_MAP_LMS ? 2 * k * m : 1, e = o->h.mixture ? (k + 1) * m : 1;
    size_t dm = o->opt.single ? 0 : 1, fm = o->opt.single ? 1 : 0; /* which are used */
    r->y = obj_zalloc(o, dm * nxm, sizeof(double), st);
    r->fp = obj_zalloc(o, dm * nxm, sizeof(double), st);
    r->sig = obj_zalloc(o, dm * sig, sizeof(double), st);
    r->e = obj_zalloc(o, dm * e, sizeof(double), st);
    r->lq = obj_zalloc(o, m, sizeof(double), st);
    r->p = obj_zalloc(o, dm * m, sizeof(double), st);
    r->yf = obj_zalloc(o, fm * nxm, sizeof(float), st);
    r->fpf = obj_zalloc(o, fm * nxm, sizeof(float), st);
    r->sigf = obj_zalloc(o, fm * sig, sizeof(float), st);
    r->ef = obj_zalloc(o, fm * e, sizeof(float), st);
    r->pf = obj_zalloc(o, fm * m, sizeof(float), st);
    r->kbuf = obj_zalloc(o, 4 * k, sizeof(double), st);
    r->db = obj_zalloc(o, m, sizeof(double), st);
    r->gmap = obj_zalloc(o, o->glen, sizeof(double), st);
}

static void alloc_block(sbw_obj *o, obj_block *b, int *st)
{
    size_t m = o->h.m, d = o->h.d, k = o->h.k, bx = o->block * o->nx, kd = k * d;
    bool single = o->opt.single;
    size_t fs = single ? 1 : 0, ds = single ? 0 : 1; /* which precision's buffers */
    b->xf = obj_zalloc(o, fs * bx * d, sizeof(float), st);
    b->zf = obj_zalloc(o, fs * bx * m, sizeof(float), st);
    b->dxf = obj_zalloc(o, fs * bx * d, sizeof(float), st);
    b->dwf = obj_zalloc(o, fs * m * d, sizeof(float), st);
    b->xd = obj_zalloc(o, bx * d, sizeof(double), st);
    b->zd = obj_zalloc(o, ds * bx * m, sizeof(double), st);
    b->dxd = obj_zalloc(o, bx * d, sizeof(double), st);
    b->hb = obj_zalloc(o, o->block * d, sizeof(double), st);
    b->dhb = obj_zalloc(o, o->block * d, sizeof(double), st);
    b->dw = obj_zalloc(o, m * d, sizeof(double), st);
    if (!o->h.context_mix)
        return;
    b->g = obj_zalloc(o, o->block * kd, sizeof(double), st);
    b->dg = obj_zalloc(o, o->block * kd, sizeof(double), st);
    b->logpi = obj_zalloc(o, o->block * k, sizeof(double), st);
    b->dalpha = obj_zalloc(o, o->block * k, sizeof(double), st);
    b->du = obj_zalloc(o, kd * d, sizeof(double), st);
    b->dv = obj_zalloc(o, kd, sizeof(double), st);
}

static int check_dims(const sbw_head *h, const sbw_target *t, size_t block, size_t nx)
{
    if (t->n != h->n || t->m != h->m)
        return SBW_ERROR(SBW_ESHAPE, "P* is %zu x %zu, the head expects %zu x %zu", t->n, t->m,
                         h->n, h->m);
    size_t lim = (size_t)INT_MAX;
    if (h->m > lim || block * nx > lim || h->k * h->d > lim)
        return SBW_ERROR(SBW_EINVAL, "M = %zu or a block is beyond BLAS's int range", h->m);
    return SBW_OK;
}

int sbw_obj_alloc(sbw_obj **out, const sbw_head *h, const sbw_target *t, const sbw_obj_opts *opts)
{
    *out = NULL;
    sbw_obj *o = calloc(1, sizeof *o);
    if (!o)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    *o = (sbw_obj){.h = *h, .t = t, .opt = *opts, .nx = h->mixture ? h->k : 1};
    o->nthreads = resolve_threads(opts);
    o->block =
        opts->block ? (opts->block < h->n ? opts->block : h->n) : sbw_obj_auto_block(h, opts);
    o->nblockws = opts->par == SBW_PASS_PAR_BLOCKS ? o->nthreads : 1;
    o->glen = h->model == SBW_MODEL_LMS ? 3 * h->k + 1 : 2 * h->knots;
    int st = check_dims(h, t, o->block, o->nx);
    size_t k = h->k ? h->k : 1;
    o->rows = obj_zalloc(o, (size_t)o->nthreads, sizeof *o->rows, &st);
    o->blocks = obj_zalloc(o, (size_t)o->nblockws, sizeof *o->blocks, &st);
    o->seen = obj_zalloc(o, h->n, 1, &st);
    o->wf = obj_zalloc(o, opts->single ? h->m * h->d : 1, sizeof(float), &st);
    o->u = obj_zalloc(o, k, sizeof(double), &st);
    o->v = obj_zalloc(o, k, sizeof(double), &st);
    o->c = obj_zalloc(o, k, sizeof(double), &st);
    o->s = obj_zalloc(o, h->knots, sizeof(double), &st);
    o->cum = obj_zalloc(o, h->knots, sizeof(double), &st);
    size_t fs = opts->single ? 1 : 0;
    o->bf = obj_zalloc(o, fs * h->m, sizeof(float), &st);
    o->uf = obj_zalloc(o, fs * k, sizeof(float), &st);
    o->vf = obj_zalloc(o, fs * k, sizeof(float), &st);
    o->cf = obj_zalloc(o, fs * k, sizeof(float), &st);
    o->sf = obj_zalloc(o, fs * h->knots, sizeof(float), &st);
    o->cumf = obj_zalloc(o, fs * h->knots, sizeof(float), &st);
    for (int i = 0; !st && i < o->nthreads; i++)
        alloc_rows(o, &o->rows[i], &st);
    for (int i = 0; !st && i < o->nblockws; i++)
        alloc_block(o, &o->blocks[i], &st);
    if (st) {
        sbw_obj_free(o);
        return st;
    }
    *out = o;
    return SBW_OK;
}

void sbw_obj_free(sbw_obj *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->nallocs; i++)
        free(o->allocs[i]);
    free(o->allocs);
    free(o);
}

size_t sbw_obj_block(const sbw_obj *o) { return o->block; }

int sbw_obj_threads(const sbw_obj *o) { return o->nthreads; }

/* ---- one block ----------------------------------------------------------- */

static size_t row_of(const sbw_obj *o, size_t pos) { return o->idx ? o->idx[pos] : o->r0 + pos; }

/* X of the block (double, in xd; float copy in xf when single): the rows
 * of H, or MoC's hbar, or MoS's g_k = tanh(U_k h) (nb K rows); plus log pi. */
static void context_forward(sbw_obj *o, obj_block *b, size_t p0, size_t nb)
{
    size_t d = o->h.d, k = o->h.k, kd = k * d;
    for (size_t i = 0; i < nb; i++)
        memcpy(b->hb + i * d, o->theta + o->h.off_h + row_of(o, p0 + i) * d, d * sizeof(double));
    if (!o->h.context_mix) {
        memcpy(b->xd, b->hb, nb * d * sizeof(double));
    } else {
        const double *U = o->theta + o->h.off_u, *V = o->theta + o->h.off_v;
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)kd, (int)d, 1.0, b->hb,
                    (int)d, U, (int)d, 0.0, b->g, (int)kd);
        sbw_head_kern_tanh(b->g, nb * kd);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)k, (int)d, 1.0, b->hb,
                    (int)d, V, (int)d, 0.0, b->logpi, (int)k);
        sbw_kern_log_softmax_rows(b->logpi, nb, k, k, b->logpi, k);
        if (o->h.mixture)
            memcpy(b->xd, b->g, nb * kd * sizeof(double));
        else
            for (size_t i = 0; i < nb; i++) {
                double *x = b->xd + i * d;
                memset(x, 0, d * sizeof *x);
                for (size_t c = 0; c < k; c++)
                    sbw_head_kern_axpy(exp(b->logpi[i * k + c]), b->g + i * kd + c * d, x, d);
            }
    }
    if (o->opt.single)
        sbw_head_kern_d2f(b->xd, b->xf, nb * o->nx * d);
}

/* Z = X W^T for the block's nb * nx context vectors. */
static void logits_gemm(sbw_obj *o, obj_block *b, size_t nb)
{
    int rows = (int)(nb * o->nx), m = (int)o->h.m, d = (int)o->h.d;
    if (o->opt.single)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, m, d, 1.0f, b->xf, d, o->wf, d,
                    0.0f, b->zf, m);
    else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, m, d, 1.0, b->xd, d,
                    o->theta + o->h.off_w, d, 0.0, b->zd, m);
}

/* y = f(z) for the context's nx logit rows; returns y (z itself when the
 * map is the identity). */
static double *map_forward(const sbw_obj *o, obj_rows *w, double *z)
{
    size_t m = o->h.m;
    for (size_t c = 0; c < o->nx; c++) {
        double *zc = z + c * m, *yc = w->y + c * m, *fc = w->fp + c * m;
        switch (o->h.map) {
        case SBW_MAP_IDENTITY:
            return z;
        case SBW_MAP_SS:
            sbw_head_kern_ss(zc, yc, fc, m);
            break;
        case SBW_MAP_LMS:
            sbw_head_kern_lms(zc, yc, fc, w->sig, m, o->u, o->v, o->c, o->h.k, o->lambda);
            break;
        case SBW_MAP_PLIF:
            sbw_head_kern_plif(zc, yc, fc, m, o->s, o->cum, o->h.knots, o->h.plif_t);
            break;
        }
    }
    return w->y;
}

static float *map_forward_f(const sbw_obj *o, obj_rows *w, float *z)
{
    size_t m = o->h.m;
    for (size_t c = 0; c < o->nx; c++) {
        float *zc = z + c * m, *yc = w->yf + c * m, *fc = w->fpf + c * m;
        switch (o->h.map) {
        case SBW_MAP_IDENTITY:
            return z;
        case SBW_MAP_SS:
            sbw_head_kern_ss_f(zc, yc, fc, m);
            break;
        case SBW_MAP_LMS:
            sbw_head_kern_lms_f(zc, yc, fc, w->sigf, m, o->uf, o->vf, o->cf, o->h.k, o->lambdaf);
            break;
        case SBW_MAP_PLIF:
            sbw_head_kern_plif_f(zc, yc, fc, m, o->sf, o->cumf, o->h.knots, o->h.plif_t);
            break;
        }
    }
    return w->yf;
}

/* z := f'(z) dy, with the map's parameter gradients accumulated. */
static void map_backward(const sbw_obj *o, obj_rows *w, double *z, const double *dy)
{
    size_t m = o->h.m, k = o->h.k;
    if (o->h.map == SBW_MAP_IDENTITY)
        return;
    for (size_t c = 0; c < o->nx; c++) {
        double *zc = z + c * m;
        const double *gc = dy + c * m;
        if (o->h.map == SBW_MAP_LMS)
            sbw_head_kern_lms_back(zc, gc, w->sig, m, o->v, k, w->gmap, w->gmap + k, w->gmap + 2 * k,
                                  o->h.linear ? w->gmap + 3 * k : NULL);
        if (o->h.map == SBW_MAP_PLIF)
            sbw_head_kern_plif_back(zc, gc, m, o->h.knots, o->h.plif_t, w->gmap,
                                   w->gmap + o->h.knots);
        sbw_head_kern_map_back(gc, w->fp + c * m, zc, m);
    }
}

static void map_backward_f(const sbw_obj *o, obj_rows *w, float *z, const float *dy)
{
    size_t m = o->h.m, k = o->h.k;
    if (o->h.map == SBW_MAP_IDENTITY)
        return;
    for (size_t c = 0; c < o->nx; c++) {
        float *zc = z + c * m;
        const float *gc = dy + c * m;
        if (o->h.map == SBW_MAP_LMS)
            sbw_head_kern_lms_back_f(zc, gc, w->sigf, m, o->v, k, w->gmap, w->gmap + k,
                                    w->gmap + 2 * k, o->h.linear ? w->gmap + 3 * k : NULL);
        if (o->h.map == SBW_MAP_PLIF)
            sbw_head_kern_plif_back_f(zc, gc, m, o->h.knots, o->h.plif_t, w->gmap,
                                     w->gmap + o->h.knots);
        sbw_head_kern_map_back_f(gc, w->fpf + c * m, zc, m);
    }
}

/* sbw_obj_logq: log Q (already in out) checked against the exact log P*
 * when given: loss and entropy of that row replace the stored ones. */
static void logq_metrics(const sbw_obj *o, size_t pos, double *loss, double *ent)
{
    size_t m = o->h.m;
    if (!o->logp_exact)
        return;
    const double *lp = o->logp_exact + pos * m, *out = o->lq_out + pos * m;
    *loss = sbw_kern_cross_entropy(lp, out, m);
    *ent = sbw_kern_entropy(lp, m);
}

static void prefetch_row(const void *x, size_t bytes)
{
    const char *c = x;
    for (size_t at = 0; at < bytes; at += 64)
        __builtin_prefetch(c + at, 0, 3);
}

static void add_result(const sbw_obj *o, obj_rows *w, size_t r, double loss, double ent, size_t am)
{
    w->loss += loss;
    w->ent += ent;
    w->hits += am == o->t->mode[r];
}

/* One context at block position i (overall position pos), double mode:
 * bias, map, normalise, loss, and the gradient in place in the block. */
static void context_rows(sbw_obj *o, obj_block *b, obj_rows *w, size_t i, size_t pos)
{
    size_t m = o->h.m, k = o->h.k, len = o->nx * m, r = row_of(o, pos), am = 0;
    bool grad = o->grad != NULL;
    double *z = b->zd + i * len, loss, ent = o->t->ent[r];
    for (size_t c = 0; o->h.bias && c < o->nx; c++)
        sbw_head_kern_axpy(1.0, o->theta + o->h.off_b, z + c * m, m);
    double *y = map_forward(o, w, z);
    const double *p = o->t->pd ? o->t->pd + r * m : w->p;
    if (!o->t->pd)
        sbw_head_kern_f2d(o->t->pf + r * m, w->p, m);
    if (o->h.mixture)
        loss = sbw_head_kern_mixture(y, k, m, b->logpi + i * k, p, o->t->psum[r], o->scale, grad,
                                    w->e, w->kbuf, w->lq, b->dalpha + i * k, &am);
    else
        loss = sbw_head_kern_softmax(y, p, m, o->t->psum[r], o->scale, grad, &am);
    if (o->lq_out) {
        double *out = o->lq_out + pos * m;
        if (o->h.mixture)
            memcpy(out, w->lq, m * sizeof *out);
        else
            sbw_kern_log_softmax_rows(y, 1, m, m, out, m);
        logq_metrics(o, pos, &loss, &ent);
    }
    add_result(o, w, r, loss, ent, am);
    if (!grad)
        return;
    map_backward(o, w, z, y);
    for (size_t c = 0; o->h.bias && c < o->nx; c++)
        sbw_head_kern_axpy(1.0, z + c * m, w->db, m);
}

/* The same in single mode, in place in the block's float logits. */
static void context_rows_f(sbw_obj *o, obj_block *b, obj_rows *w, size_t i, size_t pos)
{
    size_t m = o->h.m, k = o->h.k, len = o->nx * m, r = row_of(o, pos), am = 0;
    bool grad = o->grad != NULL;
    float *z = b->zf + i * len;
    double loss, ent = o->t->ent[r];
    for (size_t c = 0; o->h.bias && c < o->nx; c++)
        sbw_head_kern_add_f(o->bf, z + c * m, m);
    if (o->t->pf && pos + 1 < o->nrows) /* the next context's P while this one computes */
        prefetch_row(o->t->pf + row_of(o, pos + 1) * m, m * sizeof(float));
    float *y = map_forward_f(o, w, z);
    const float *p = o->t->pf ? o->t->pf + r * m : w->pf;
    if (!o->t->pf)
        sbw_head_kern_d2f(o->t->pd + r * m, w->pf, m);
    if (o->h.mixture)
        loss = sbw_head_kern_mixture_f(y, k, m, b->logpi + i * k, p, o->t->psum[r], o->scale, grad,
                                      w->ef, w->kbuf, w->lq, b->dalpha + i * k, &am);
    else
        loss = sbw_head_kern_softmax_f(y, p, m, o->t->psum[r], o->scale, grad, &am);
    if (o->lq_out) {
        double *out = o->lq_out + pos * m;
        if (o->h.mixture) {
            memcpy(out, w->lq, m * sizeof *out);
        } else {
            sbw_head_kern_f2d(y, out, m);
            sbw_kern_log_softmax_rows(out, 1, m, m, out, m);
        }
        logq_metrics(o, pos, &loss, &ent);
    }
    add_result(o, w, r, loss, ent, am);
    if (!grad)
        return;
    map_backward_f(o, w, z, y);
    for (size_t c = 0; o->h.bias && c < o->nx; c++)
        sbw_head_kern_add_f2d(z + c * m, w->db, m);
}

/* dX = dZ W and dW += dZ^T X (float GEMMs summed into double when single). */
static void backward_gemm(sbw_obj *o, obj_block *b, size_t nb)
{
    int rows = (int)(nb * o->nx), m = (int)o->h.m, d = (int)o->h.d;
    if (o->opt.single) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, d, m, 1.0f, b->zf, m, o->wf, d,
                    0.0f, b->dxf, d);
        sbw_head_kern_f2d(b->dxf, b->dxd, (size_t)rows * (size_t)d);
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, d, rows, 1.0f, b->zf, m, b->xf, d,
                    0.0f, b->dwf, d);
        sbw_head_kern_add_f2d(b->dwf, b->dw, (size_t)m * (size_t)d);
    } else {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, d, m, 1.0, b->zd, m,
                    o->theta + o->h.off_w, d, 0.0, b->dxd, d);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, d, rows, 1.0, b->zd, m, b->xd, d,
                    1.0, b->dw, d);
    }
}

/* MoC: from dhbar (dxd) to dalpha and dg_k = pi_k dhbar. */
static void moc_backward(const sbw_obj *o, obj_block *b, size_t nb)
{
    size_t d = o->h.d, k = o->h.k, kd = k * d;
    for (size_t i = 0; i < nb; i++) {
        const double *dx = b->dxd + i * d, *lp = b->logpi + i * k;
        double *da = b->dalpha + i * k, mean = 0;
        for (size_t c = 0; c < k; c++) {
            const double *g = b->g + i * kd + c * d;
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

/* From dX (and dalpha) to dH rows (into grad, overwritten: sbw_obj_eval
 * relies on every evaluated row being written, never added to), dU, dV. */
static void context_backward(sbw_obj *o, obj_block *b, size_t p0, size_t nb)
{
    size_t d = o->h.d, k = o->h.k, kd = k * d;
    const double *dh = b->dxd;
    if (o->h.context_mix) {
        const double *U = o->theta + o->h.off_u, *V = o->theta + o->h.off_v;
        if (o->h.mixture)
            memcpy(b->dg, b->dxd, nb * kd * sizeof(double));
        else
            moc_backward(o, b, nb);
        sbw_head_kern_tanh_back(b->g, b->dg, nb * kd);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)d, (int)kd, 1.0, b->dg,
                    (int)kd, U, (int)d, 0.0, b->dhb, (int)d);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nb, (int)d, (int)k, 1.0,
                    b->dalpha, (int)k, V, (int)d, 1.0, b->dhb, (int)d);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)kd, (int)d, (int)nb, 1.0, b->dg,
                    (int)kd, b->hb, (int)d, 1.0, b->du, (int)d);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)k, (int)d, (int)nb, 1.0,
                    b->dalpha, (int)k, b->hb, (int)d, 1.0, b->dv, (int)d);
        dh = b->dhb;
    }
    for (size_t i = 0; i < nb; i++)
        memcpy(o->grad + o->h.off_h + row_of(o, p0 + i) * d, dh + i * d, d * sizeof(double));
}

/* Block blk: contexts at positions [blk B, blk B + nb).  tid >= 0: the
 * calling thread does every context with o->rows[tid]; tid < 0: OpenMP
 * threads share the contexts (SBW_PASS_PAR_BLAS). */
static void do_block(sbw_obj *o, obj_block *b, size_t blk, int tid)
{
    size_t p0 = blk * o->block, nb = o->nrows - p0 < o->block ? o->nrows - p0 : o->block;
    context_forward(o, b, p0, nb);
    logits_gemm(o, b, nb);
    void (*rows)(sbw_obj *, obj_block *, obj_rows *, size_t, size_t) =
        o->opt.single ? context_rows_f : context_rows;
    if (tid >= 0) {
        for (size_t i = 0; i < nb; i++)
            rows(o, b, &o->rows[tid], i, p0 + i);
    } else {
#pragma omp parallel for schedule(static) num_threads(o->nthreads)
        for (size_t i = 0; i < nb; i++)
            rows(o, b, &o->rows[omp_get_thread_num()], i, p0 + i);
    }
    if (!o->grad)
        return;
    backward_gemm(o, b, nb);
    context_backward(o, b, p0, nb);
}

/* ---- evaluation ---------------------------------------------------------- */

static void run_blocks(sbw_obj *o)
{
    size_t nblk = (o->nrows + o->block - 1) / o->block;
    int saved = openblas_get_num_threads(), nt = o->nthreads;
    if (o->opt.par == SBW_PASS_PAR_BLOCKS) {
        openblas_set_num_threads(1);
#pragma omp parallel num_threads(nt)
        {
            int tid = omp_get_thread_num();
            for (size_t blk = (size_t)tid; blk < nblk; blk += (size_t)nt)
                do_block(o, &o->blocks[tid], blk, tid);
        }
    } else {
        openblas_set_num_threads(nt);
        for (size_t blk = 0; blk < nblk; blk++)
            do_block(o, &o->blocks[0], blk, -1);
    }
    openblas_set_num_threads(saved);
}

static void reset_accumulators(sbw_obj *o)
{
    size_t m = o->h.m, d = o->h.d, kd = o->h.k * o->h.d;
    for (int i = 0; i < o->nthreads; i++) {
        obj_rows *w = &o->rows[i];
        w->loss = w->ent = w->hits = 0;
        memset(w->db, 0, m * sizeof(double));
        memset(w->gmap, 0, o->glen * sizeof(double));
    }
    for (int i = 0; i < o->nblockws; i++) {
        memset(o->blocks[i].dw, 0, m * d * sizeof(double));
        if (o->h.context_mix) {
            memset(o->blocks[i].du, 0, kd * d * sizeof(double));
            memset(o->blocks[i].dv, 0, kd * sizeof(double));
        }
    }
}

/* Sums the per-thread accumulators in thread order into grad and res. */
static void reduce(sbw_obj *o, sbw_obj_result *res)
{
    double loss = 0, ent = 0, hits = 0;
    for (int i = 0; i < o->nthreads; i++) {
        loss += o->rows[i].loss;
        ent += o->rows[i].ent;
        hits += o->rows[i].hits;
    }
    *res = (sbw_obj_result){.loss = loss * o->scale,
                            .kl = (loss - ent) * o->scale,
                            .mode_match = hits * o->scale,
                            .rows = o->nrows};
    if (!o->grad)
        return;
    const sbw_head *h = &o->h;
    size_t kd = h->k * h->d;
    for (int i = 0; i < o->nblockws; i++) {
        sbw_head_kern_axpy(1.0, o->blocks[i].dw, o->grad + h->off_w, h->m * h->d);
        if (h->context_mix) {
            sbw_head_kern_axpy(1.0, o->blocks[i].du, o->grad + h->off_u, kd * h->d);
            sbw_head_kern_axpy(1.0, o->blocks[i].dv, o->grad + h->off_v, kd);
        }
    }
    for (int i = 1; i < o->nthreads; i++) {
        sbw_head_kern_axpy(1.0, o->rows[i].db, o->rows[0].db, h->m);
        sbw_head_kern_axpy(1.0, o->rows[i].gmap, o->rows[0].gmap, o->glen);
    }
    if (h->bias)
        memcpy(o->grad + h->off_b, o->rows[0].db, h->m * sizeof(double));
    const double *g = o->rows[0].gmap;
    size_t k = h->k;
    if (h->map == SBW_MAP_LMS || h->map == SBW_MAP_PLIF)
        sbw_head_map_chain(h, o->theta, g, g + k, g + 2 * k, h->linear ? g[3 * k] : 0, g,
                              g + h->knots, o->grad);
}

static int check_rows(sbw_obj *o, const size_t *rows, size_t nrows)
{
    if (nrows == 0)
        return SBW_ERROR(SBW_EINVAL, "no contexts to evaluate");
    if (!rows)
        return SBW_OK;
    int st = SBW_OK;
    for (size_t i = 0; i < nrows && !st; i++) {
        if (rows[i] >= o->h.n)
            st = SBW_ERROR(SBW_EINVAL, "context %zu out of range (N = %zu)", rows[i], o->h.n);
        else if (o->seen[rows[i]])
            st = SBW_ERROR(SBW_EINVAL, "context %zu repeated in a minibatch", rows[i]);
        else
            o->seen[rows[i]] = 1;
    }
    for (size_t i = 0; i < nrows; i++)
        if (rows[i] < o->h.n)
            o->seen[rows[i]] = 0;
    return st;
}

/* The per-evaluation parameters: float W, the map's constrained values. */
static void prepare(sbw_obj *o, const double *theta)
{
    const sbw_head *h = &o->h;
    o->theta = theta;
    sbw_head_map_params(h, theta, o->u, o->v, o->c, &o->lambda, o->s, o->cum);
    if (o->opt.single) {
        sbw_head_kern_d2f(theta + h->off_w, o->wf, h->m * h->d);
        if (h->bias)
            sbw_head_kern_d2f(theta + h->off_b, o->bf, h->m);
        size_t k = h->model == SBW_MODEL_LMS ? h->k : 0;
        sbw_head_kern_d2f(o->u, o->uf, k);
        sbw_head_kern_d2f(o->v, o->vf, k);
        sbw_head_kern_d2f(o->c, o->cf, k);
        sbw_head_kern_d2f(o->s, o->sf, h->knots);
        sbw_head_kern_d2f(o->cum, o->cumf, h->knots);
        o->lambdaf = (float)o->lambda;
    }
    reset_accumulators(o);
}

int sbw_obj_eval(sbw_obj *o, const double *theta, const size_t *rows, size_t nrows,
                 sbw_obj_result *res, double *grad)
{
    nrows = rows ? nrows : o->h.n;
    int st = check_rows(o, rows, nrows);
    if (st)
        return st;
    prepare(o, theta);
    o->grad = grad;
    o->idx = rows;
    o->r0 = 0;
    o->nrows = nrows;
    o->scale = 1.0 / (double)nrows;
    o->lq_out = NULL;
    o->logp_exact = NULL;
    /* Only the shared prefix accumulates: context_backward overwrites the
     * dH row of every context evaluated and leaves the others alone, so a
     * minibatch step costs O(batch D), not O(N D), in dH. */
    if (grad)
        memset(grad, 0, o->h.nshared * sizeof *grad);
    run_blocks(o);
    reduce(o, res);
    return SBW_OK;
}

int sbw_obj_logq(sbw_obj *o, const double *theta, size_t r0, size_t nr, double *lq,
                 const double *logp, sbw_obj_result *res)
{
    if (nr == 0 || r0 > o->h.n || nr > o->h.n - r0)
        return SBW_ERROR(SBW_EINVAL, "contexts %zu..%zu out of range (N = %zu)", r0, r0 + nr,
                         o->h.n);
    prepare(o, theta);
    o->grad = NULL;
    o->idx = NULL;
    o->r0 = r0;
    o->nrows = nr;
    o->scale = 1.0 / (double)nr;
    o->lq_out = lq;
    o->logp_exact = logp;
    run_blocks(o);
    reduce(o, res);
    return SBW_OK;
}
