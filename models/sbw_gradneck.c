/* sbw_gradneck.c -- the share of the logit-space gradient a head passes
 * back to its context, per context (sbw_gradneck.h). */
#include "sbw_gradneck.h"

#include "sbw_blas.h"
#include "sbw_error.h"
#include "sbw_head_kern.h"
#include "sbw_kern.h"
#include "sbw_pass.h"

#include <cblas.h>
#include <float.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How a context's range is found: one basis for all (Softmax), J in
 * closed form (MoS, MoC, the pointwise maps), or J from M head passes. */
typedef enum gn_path { GN_LINEAR, GN_MOS, GN_MOC, GN_MAP, GN_PASSES } gn_path;

struct sbw_gradneck_ws {
    sbw_head h;
    const double *theta;
    sbw_pass_ws *pass;
    bool linear; /* Softmax: the basis below is fixed */
    gn_path path;
    size_t m, c, kmin;      /* M, C, min(M, C) */
    size_t r;               /* the basis' size (linear) */
    double *lq;             /* M */
    double *hrep;           /* M x C: the context repeated (general) */
    size_t *ids;            /* 0..M-1 */
    double *dh;             /* M x C */
    double *dtheta;         /* nshared */
    double *a, *s, *u, *vt; /* the SVD: M x C, kmin, C x kmin, kmin x M */
    /* MoS and MoC: g (K D), log pi (K), pi^T V (C), diag(1 - g_k^2) U_k
     * or MoC's d hbar/dh (D x C), a row (max(C, K)); MoS also log q_k
     * (K x M), log q and q_k (M each), Z_k in dh.  The pointwise maps: z,
     * f(z), f'(z) (M each), LMS's sigmoids (2 K M) and the map's
     * parameters (u, v, c: K; s, cum: knots).  One block, from mg. */
    double *mg, *mlpi, *mpv, *mb, *mrow, *mlqk, *mlq, *mqk;
    double *fz, *fy, *fp, *fsig, *fu, *fv, *fc, *fs, *fcum, flambda;
};

void sbw_gradneck_ws_free(sbw_gradneck_ws *ws)
{
    if (!ws)
        return;
    sbw_pass_ws_free(ws->pass);
    free(ws->lq);
    free(ws->hrep);
    free(ws->ids);
    free(ws->dh);
    free(ws->dtheta);
    free(ws->a);
    free(ws->s);
    free(ws->u);
    free(ws->vt);
    free(ws->mg);
    free(ws);
}

bool sbw_gradneck_linear(const sbw_gradneck_ws *ws) { return ws->linear; }

double sbw_gradneck_share(const double *q, size_t m, size_t y, const double *vt, size_t r,
                          size_t ldvt)
{
    double gg = 0, pp = 0;
    for (size_t j = 0; j < m; j++) {
        double g = q[j] - (j == y);
        gg += g * g;
    }
    for (size_t i = 0; i < r; i++) {
        double d = 0;
        for (size_t j = 0; j < m; j++)
            d += vt[i + j * ldvt] * (q[j] - (j == y));
        pp += d * d;
    }
    return gg > 0 ? fmin(1.0, sqrt(pp / gg)) : 0;
}

/* The left singular vectors of the M x C matrix in ws->a (row-major, its
 * columns centred here: C1 a) whose values exceed max(M, C) eps sigma_1,
 * into ws->vt (LAPACK's V^T of the transpose); their count in *r.  a is
 * destroyed.  Errors: SBW_ENUMERIC. */
static int range_basis(sbw_gradneck_ws *ws, size_t *r)
{
    size_t m = ws->m, c = ws->c, k = ws->kmin;
    for (size_t j = 0; j < c; j++) {
        double mu = 0;
        for (size_t i = 0; i < m; i++)
            mu += ws->a[i * c + j];
        mu /= (double)m;
        for (size_t i = 0; i < m; i++)
            ws->a[i * c + j] -= mu;
    }
    /* row-major M x C = column-major C x M: its V^T rows are a's left vectors */
    lapack_int info =
        LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'S', (lapack_int)c, (lapack_int)m, ws->a, (lapack_int)c,
                       ws->s, ws->u, (lapack_int)c, ws->vt, (lapack_int)k);
    if (info != 0)
        return sbw_blas_lapack_fail("dgesdd", info);
    double tol = (double)(m > c ? m : c) * DBL_EPSILON * ws->s[0];
    *r = 0;
    while (*r < k && ws->s[*r] > tol)
        (*r)++;
    return SBW_OK;
}

/* The closed forms' block (the struct's comment), carved from ws->mg, and
 * MoS's Z_k buffer (dh).  Errors: SBW_ENOMEM. */
static int closed_buffers(sbw_gradneck_ws *ws)
{
    const sbw_head *h = &ws->h;
    size_t m = ws->m, c = ws->c, k = h->k, d = h->d, kn = h->knots;
    size_t mix = ws->path == GN_MAP ? 0 : k * d + k + c + d * c + (c > k ? c : k);
    size_t mos = ws->path == GN_MOS ? (k + 2) * m : 0;
    size_t map = ws->path == GN_MAP ? 3 * m + 2 * k * m + 3 * k + 2 * kn : 0;
    ws->mg = malloc((mix + mos + map + 1) * sizeof *ws->mg);
    if (ws->path == GN_MOS)
        ws->dh = malloc(m * c * sizeof *ws->dh);
    if (!ws->mg || (ws->path == GN_MOS && !ws->dh))
        return SBW_ERROR(SBW_ENOMEM, "out of memory for the gradient bottleneck");
    if (ws->path == GN_MAP) { /* the block holds only these */
        ws->fz = ws->mg;
        ws->fy = ws->fz + m;
        ws->fp = ws->fy + m;
        ws->fsig = ws->fp + m;
        ws->fu = ws->fsig + 2 * k * m;
        ws->fv = ws->fu + k;
        ws->fc = ws->fv + k;
        ws->fs = ws->fc + k;
        ws->fcum = ws->fs + kn;
        sbw_head_map_params(h, ws->theta, ws->fu, ws->fv, ws->fc, &ws->flambda, ws->fs, ws->fcum);
        return SBW_OK;
    }
    ws->mlpi = ws->mg + k * d;
    ws->mpv = ws->mlpi + k;
    ws->mb = ws->mpv + c;
    ws->mrow = ws->mb + d * c;
    if (ws->path == GN_MOS) {
        ws->mlqk = ws->mrow + (c > k ? c : k);
        ws->mlq = ws->mlqk + k * m;
        ws->mqk = ws->mlq + m;
    }
    return SBW_OK;
}

/* Allocates every buffer of ws (sizes set).  Errors: SBW_ENOMEM. */
static int alloc_buffers(sbw_gradneck_ws *ws)
{
    size_t m = ws->m, c = ws->c, k = ws->kmin;
    ws->lq = malloc(m * sizeof *ws->lq);
    ws->a = malloc(m * c * sizeof *ws->a);
    ws->s = malloc(k * sizeof *ws->s);
    ws->u = malloc(c * k * sizeof *ws->u);
    ws->vt = malloc(k * m * sizeof *ws->vt);
    bool ok = ws->lq && ws->a && ws->s && ws->u && ws->vt;
    if (ok && (ws->path == GN_MOS || ws->path == GN_MOC || ws->path == GN_MAP)) {
        ok = closed_buffers(ws) == SBW_OK;
    } else if (ok && ws->path == GN_PASSES) {
        ws->hrep = malloc(m * c * sizeof *ws->hrep);
        ws->ids = malloc(m * sizeof *ws->ids);
        ws->dh = malloc(m * c * sizeof *ws->dh);
        ws->dtheta = malloc(ws->h.nshared * sizeof *ws->dtheta);
        ok = ws->hrep && ws->ids && ws->dh && ws->dtheta;
        for (size_t j = 0; ok && j < m; j++)
            ws->ids[j] = j;
    }
    return ok ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory for the gradient bottleneck");
}

/* The path a head takes (the enum's comment). */
static gn_path gn_path_of(sbw_head_model model)
{
    switch (model) {
    case SBW_MODEL_SOFTMAX:
        return GN_LINEAR;
    case SBW_MODEL_MOS:
        return GN_MOS;
    case SBW_MODEL_MOC:
        return GN_MOC;
    case SBW_MODEL_SIGSOFTMAX:
    case SBW_MODEL_LMS:
    case SBW_MODEL_PLIF:
        return GN_MAP;
    default: /* mos+plif, mixtape */
        return GN_PASSES;
    }
}

int sbw_gradneck_ws_alloc(sbw_gradneck_ws **out, const sbw_head *h, const double *theta)
{
    *out = NULL;
    sbw_gradneck_ws *ws = calloc(1, sizeof *ws);
    if (!ws)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    ws->h = *h;
    ws->theta = theta;
    ws->linear = h->model == SBW_MODEL_SOFTMAX;
    ws->path = gn_path_of(h->model);
    ws->m = h->m;
    ws->c = h->c;
    ws->kmin = h->m < h->c ? h->m : h->c;
    sbw_pass_opts po = {.single = false, .threads = 0, .block = 64, .par = SBW_PASS_PAR_BLOCKS};
    int st = alloc_buffers(ws);
    st = st ? st : sbw_pass_ws_alloc(&ws->pass, h, &po);
    if (!st && ws->linear) { /* W is M x D row-major at off_w; C = D */
        memcpy(ws->a, theta + h->off_w, ws->m * ws->c * sizeof *ws->a);
        st = range_basis(ws, &ws->r);
    }
    if (st) {
        sbw_gradneck_ws_free(ws);
        return st;
    }
    *out = ws;
    return SBW_OK;
}

/* q of context h into ws->lq (as probabilities). */
static int probs(sbw_gradneck_ws *ws, const double *h)
{
    int st = sbw_pass_logq(ws->pass, ws->theta, h, 1, ws->c, ws->lq, ws->m, NULL, NULL, 0, NULL);
    for (size_t j = 0; !st && j < ws->m; j++)
        ws->lq[j] = exp(ws->lq[j]);
    return st;
}

/* g_k = tanh(U_k h + c_k) into ws->mg, log pi = log softmax(V h) into
 * ws->mlpi and pi^T V into ws->mpv: the mixing heads' context part. */
static void mix_context(sbw_gradneck_ws *ws, const double *h)
{
    const sbw_head *hd = &ws->h;
    size_t c = ws->c, d = hd->d, k = hd->k;
    const double *th = ws->theta, *U = th + hd->off_u, *V = th + hd->off_v;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)(k * d), (int)c, 1.0, U, (int)c, h, 1, 0.0,
                ws->mg, 1);
    for (size_t i = 0; i < k * d; i++)
        ws->mg[i] = tanh(ws->mg[i] + (hd->cbias ? th[hd->off_ub + i] : 0));
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)k, (int)c, 1.0, V, (int)c, h, 1, 0.0, ws->mlpi,
                1);
    sbw_kern_log_softmax_rows(ws->mlpi, 1, k, k, ws->mlpi, k);
    memset(ws->mpv, 0, c * sizeof *ws->mpv);
    for (size_t j = 0; j < k; j++)
        cblas_daxpy((int)c, exp(ws->mlpi[j]), V + j * c, 1, ws->mpv, 1);
}

/* mix_context, then log q_k = log softmax(W g_k + b) into ws->mlqk and
 * log q = log sum_k pi_k q_k into ws->mlq: MoS's forward pass for one
 * context. */
static void mos_forward(sbw_gradneck_ws *ws, const double *h)
{
    const sbw_head *hd = &ws->h;
    size_t m = ws->m, d = hd->d, k = hd->k;
    const double *th = ws->theta, *W = th + hd->off_w;
    mix_context(ws, h);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)k, (int)m, (int)d, 1.0, ws->mg,
                (int)d, W, (int)d, 0.0, ws->mlqk, (int)m);
    for (size_t j = 0; hd->bias && j < k; j++)
        cblas_daxpy((int)m, 1.0, th + hd->off_b, 1, ws->mlqk + j * m, 1);
    sbw_kern_log_softmax_rows(ws->mlqk, k, m, m, ws->mlqk, m);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < k; j++)
            ws->mrow[j] = ws->mlpi[j] + ws->mlqk[j * m + i];
        ws->mlq[i] = sbw_kern_logsumexp(ws->mrow, k);
    }
}

/* out (D x C) += alpha diag(1 - g_j^2) U_j: d g_j / dh of component j
 * (mix_context's g), scaled; MoS's Z_j and MoC's A start from it. */
static void tanh_jacobian_add(const sbw_gradneck_ws *ws, size_t j, double alpha, double *out)
{
    size_t c = ws->c, d = ws->h.d;
    const double *g = ws->mg + j * d, *U = ws->theta + ws->h.off_u + j * d * c;
    for (size_t i = 0; i < d; i++)
        cblas_daxpy((int)c, alpha * (1 - g[i] * g[i]), U + i * c, 1, out + i * c, 1);
}

/* MoS's Jacobian of context h in closed form into ws->a, its basis into
 * ws->vt, its size into *r.  With rho_kj = pi_k q_kj / q_j (the
 * responsibilities; sum_k rho_kj = 1) and Z_k = W diag(1 - g_k^2) U_k
 * (M x C), d log q_j = sum_k rho_kj (d log pi_k + d z_kj - q_k^T d z_k)
 * gives
 *     J = sum_k diag(rho_k) [Z_k + 1 (V_k - pi^T V - q_k^T Z_k)]:
 * K products of M x D x C, where the general path's M head passes cost
 * M K D (C + M).  Errors: SBW_ENUMERIC (the SVD). */
static int mos_jacobian(sbw_gradneck_ws *ws, const double *h, size_t *r)
{
    const sbw_head *hd = &ws->h;
    size_t m = ws->m, c = ws->c, d = hd->d, k = hd->k;
    const double *W = ws->theta + hd->off_w, *V = ws->theta + hd->off_v;
    mos_forward(ws, h);
    memset(ws->a, 0, m * c * sizeof *ws->a);
    for (size_t j = 0; j < k; j++) {
        const double *lqk = ws->mlqk + j * m;
        memset(ws->mb, 0, d * c * sizeof *ws->mb);
        tanh_jacobian_add(ws, j, 1.0, ws->mb);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)d, 1.0, W,
                    (int)d, ws->mb, (int)c, 0.0, ws->dh, (int)c);
        for (size_t i = 0; i < m; i++)
            ws->mqk[i] = exp(lqk[i]);
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)m, (int)c, 1.0, ws->dh, (int)c, ws->mqk, 1, 0.0,
                    ws->mrow, 1);
        for (size_t l = 0; l < c; l++)
            ws->mrow[l] = V[j * c + l] - ws->mpv[l] - ws->mrow[l];
        for (size_t i = 0; i < m; i++) {
            double rho = exp(ws->mlpi[j] + lqk[i] - ws->mlq[i]);
            double *a = ws->a + i * c;
            const double *z = ws->dh + i * c;
            for (size_t l = 0; l < c; l++)
                a[l] += rho * (z[l] + ws->mrow[l]);
        }
    }
    return range_basis(ws, r);
}

/* MoC's Jacobian of context h in closed form into ws->a, its basis into
 * ws->vt, its size into *r.  log q = log softmax(W hbar + b), hbar =
 * sum_k pi_k g_k, so J = (I - 1 q^T) W A with
 *     A = d hbar / dh = sum_k pi_k [diag(1 - g_k^2) U_k + g_k (V_k - pi^T V)]
 * (D x C), and C1 (I - 1 q^T) = C1: the range of C1 J is that of C1 W A,
 * one product of M x D x C.  Errors: SBW_ENUMERIC (the SVD). */
static int moc_jacobian(sbw_gradneck_ws *ws, const double *h, size_t *r)
{
    const sbw_head *hd = &ws->h;
    size_t m = ws->m, c = ws->c, d = hd->d, k = hd->k;
    const double *W = ws->theta + hd->off_w, *V = ws->theta + hd->off_v;
    mix_context(ws, h);
    memset(ws->mb, 0, d * c * sizeof *ws->mb);
    for (size_t j = 0; j < k; j++) {
        double pi = exp(ws->mlpi[j]);
        tanh_jacobian_add(ws, j, pi, ws->mb);
        for (size_t l = 0; l < c; l++) /* pi_j g_j (V_j - pi^T V)^T, a rank-one term */
            ws->mrow[l] = V[j * c + l] - ws->mpv[l];
        cblas_dger(CblasRowMajor, (int)d, (int)c, pi, ws->mg + j * d, 1, ws->mrow, 1, ws->mb,
                   (int)c);
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)c, (int)d, 1.0, W, (int)d,
                ws->mb, (int)c, 0.0, ws->a, (int)c);
    return range_basis(ws, r);
}

/* The pointwise maps' Jacobian (sigsoftmax, LMS, PLIF: log q = log
 * softmax(f(z)), z = W h + b, C = D) in closed form into ws->a, its basis
 * into ws->vt, its size into *r: J = (I - 1 q^T) diag(f'(z)) W, so the
 * range of C1 J is that of C1 diag(f'(z)) W.  f'(z) is the head kernel's
 * own (the pass's backward uses it; PLIF's slope of z's interval).
 * Errors: SBW_ENUMERIC (the SVD). */
static int map_jacobian(sbw_gradneck_ws *ws, const double *h, size_t *r)
{
    const sbw_head *hd = &ws->h;
    size_t m = ws->m, d = hd->d;
    const double *W = ws->theta + hd->off_w;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)m, (int)d, 1.0, W, (int)d, h, 1, 0.0, ws->fz, 1);
    for (size_t i = 0; hd->bias && i < m; i++)
        ws->fz[i] += ws->theta[hd->off_b + i];
    if (hd->map == SBW_MAP_SS)
        sbw_head_kern_ss(ws->fz, ws->fy, ws->fp, m);
    else if (hd->map == SBW_MAP_LMS)
        sbw_head_kern_lms(ws->fz, ws->fy, ws->fp, ws->fsig, m, ws->fu, ws->fv, ws->fc, hd->k,
                          ws->flambda);
    else
        sbw_head_kern_plif(ws->fz, ws->fy, ws->fp, m, ws->fs, ws->fcum, hd->knots, hd->plif_t);
    for (size_t i = 0; i < m; i++)
        for (size_t l = 0; l < d; l++)
            ws->a[i * d + l] = ws->fp[i] * W[i * d + l];
    return range_basis(ws, r);
}

/* The general path: J of context h from M head passes into ws->a, its
 * basis into ws->vt, its size into *r. */
static int jacobian_basis(sbw_gradneck_ws *ws, const double *h, size_t *r)
{
    size_t m = ws->m, c = ws->c;
    for (size_t j = 0; j < m; j++)
        memcpy(ws->hrep + j * c, h, c * sizeof *h);
    sbw_pass_target tg = {.ids = ws->ids};
    sbw_pass_result res;
    int st = sbw_pass_loss(ws->pass, ws->theta, ws->hrep, m, c, &tg, &res, ws->dh, c, ws->dtheta);
    if (st)
        return st;
    for (size_t i = 0; i < m * c; i++) /* dH row j = -J_j / M; the sign does not matter */
        ws->a[i] = ws->dh[i] * (double)m;
    return range_basis(ws, r);
}

/* Context h's basis by its head's path (none for Softmax: the fixed one). */
static int context_basis(sbw_gradneck_ws *ws, const double *h, size_t *r)
{
    switch (ws->path) {
    case GN_MOS:
        return mos_jacobian(ws, h, r);
    case GN_MOC:
        return moc_jacobian(ws, h, r);
    case GN_MAP:
        return map_jacobian(ws, h, r);
    case GN_PASSES:
        return jacobian_basis(ws, h, r);
    default:
        return SBW_OK;
    }
}

int sbw_gradneck_rows(sbw_gradneck_ws *ws, const double *H, size_t rows, size_t ldh,
                      const size_t *y, double *passed)
{
    for (size_t i = 0; i < rows; i++)
        if (y[i] >= ws->m)
            return SBW_ERROR(SBW_EINVAL,
                             "gradient bottleneck: word %zu of row %zu is not below "
                             "M = %zu",
                             y[i], i, ws->m);
    int st = SBW_OK;
    for (size_t i = 0; !st && i < rows; i++) {
        size_t r = ws->r;
        st = probs(ws, H + i * ldh);
        if (!st)
            st = context_basis(ws, H + i * ldh, &r);
        if (!st)
            passed[i] = sbw_gradneck_share(ws->lq, ws->m, y[i], ws->vt, r, ws->kmin);
    }
    return st;
}

int sbw_gradneck_summarise(const double *passed, size_t n, sbw_gradneck_summary *s)
{
    if (n == 0)
        return SBW_ERROR(SBW_EINVAL, "gradient bottleneck: no contexts to summarise");
    double *v = malloc(n * sizeof *v);
    if (!v)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    memcpy(v, passed, n * sizeof *v);
    gsl_sort(v, 1, n);
    *s = (sbw_gradneck_summary){
        .n = n,
        .mean = gsl_stats_mean(v, 1, n),
        .sd = n > 1 ? gsl_stats_sd(v, 1, n) : 0,
        .min = v[0],
        .max = v[n - 1],
        .q05 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.05),
        .q25 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.25),
        .q50 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.50),
        .q75 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.75),
        .q95 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.95),
    };
    free(v);
    return SBW_OK;
}

int sbw_gradneck_map_basis(const double *w, size_t m, size_t d, double **vt, size_t *r,
                           size_t *ldvt)
{
    sbw_gradneck_ws ws = {.linear = true, .m = m, .c = d, .kmin = m < d ? m : d};
    *vt = NULL;
    int st = alloc_buffers(&ws);
    if (!st) {
        memcpy(ws.a, w, m * d * sizeof *w);
        st = range_basis(&ws, r);
    }
    if (!st) {
        *vt = ws.vt;
        *ldvt = ws.kmin;
        ws.vt = NULL;
    }
    free(ws.lq);
    free(ws.a);
    free(ws.s);
    free(ws.u);
    free(ws.vt);
    return st;
}

int sbw_gradneck_meta(sbw_table *t, const sbw_gradneck_summary *g, bool single_map)
{
    sbw_table_meta_str(
        t, "gradneck_definition",
        "passed = ||P g||/||g||, g = q - e_next, P the projector onto range(C1 "
        "dlogq/dh), C1 = I - 11^T/M; suppressed = 1 - passed (Godey and Artzi 2026)");
    sbw_table_meta_str(t, "gradneck_path", single_map ? "single_map (C1 W)" : "jacobian");
    sbw_table_meta_int(t, "gradneck_n", (long long)g->n);
    sbw_table_meta_dbl(t, "gradneck_mean", g->mean);
    sbw_table_meta_dbl(t, "gradneck_sd", g->sd);
    sbw_table_meta_dbl(t, "gradneck_min", g->min);
    sbw_table_meta_dbl(t, "gradneck_q05", g->q05);
    sbw_table_meta_dbl(t, "gradneck_q25", g->q25);
    sbw_table_meta_dbl(t, "gradneck_q50", g->q50);
    sbw_table_meta_dbl(t, "gradneck_q75", g->q75);
    sbw_table_meta_dbl(t, "gradneck_q95", g->q95);
    sbw_table_meta_dbl(t, "gradneck_max", g->max);
    sbw_table_meta_dbl(t, "gradneck_suppressed_mean", 1 - g->mean);
    return sbw_table_status(t);
}
