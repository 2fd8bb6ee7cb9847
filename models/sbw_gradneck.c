/* sbw_gradneck.c -- the share of the logit-space gradient a head passes
 * back to its context, per context (sbw_gradneck.h). */
#include "sbw_gradneck.h"

#include "sbw_blas.h"
#include "sbw_error.h"
#include "sbw_pass.h"

#include <float.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sbw_gradneck_ws {
    sbw_head h;
    const double *theta;
    sbw_pass_ws *pass;
    bool linear;            /* Softmax: the basis below is fixed */
    size_t m, c, kmin;      /* M, C, min(M, C) */
    size_t r;               /* the basis' size (linear) */
    double *lq;             /* M */
    double *hrep;           /* M x C: the context repeated (general) */
    size_t *ids;            /* 0..M-1 */
    double *dh;             /* M x C */
    double *dtheta;         /* nshared */
    double *a, *s, *u, *vt; /* the SVD: M x C, kmin, C x kmin, kmin x M */
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
    if (ok && !ws->linear) {
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

int sbw_gradneck_ws_alloc(sbw_gradneck_ws **out, const sbw_head *h, const double *theta)
{
    *out = NULL;
    sbw_gradneck_ws *ws = calloc(1, sizeof *ws);
    if (!ws)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    ws->h = *h;
    ws->theta = theta;
    ws->linear = h->model == SBW_MODEL_SOFTMAX;
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
        if (!st && !ws->linear)
            st = jacobian_basis(ws, H + i * ldh, &r);
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
