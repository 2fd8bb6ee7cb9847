/* sbw_pass_ref.c -- the naive twin of sbw_pass: one context at a time,
 * plain loops in double straight from the formulas (see sbw_pass_ref.h).
 * Written for clarity, never for speed. */
#include "sbw_pass_ref.h"

#include "sbw_error.h"
#include "sbw_head_ref.h"
#include "sbw_num.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_ws {
    size_t nx;                        /* context vectors per context: K for mixtures, else 1 */
    double *x, *dx, *g, *logpi;       /* (nx, D), (nx, D), (K, D), (K) */
    double *dalpha, *z, *y, *fp;      /* (K), (nx, M) x 3 */
    double *sig, *lq, *p, *kbuf;      /* (2K, M), (M), (M), (4K) */
    double *hv;                       /* (C) a copy of the context vector */
    double *gm;                       /* (K, D) g times the row's mask (g without one) */
    const double *mask;               /* (K, D) the row's mask on g, or NULL */
    double *u, *v, *c, *s, *cum;      /* map parameters: (K) x 3, (knots) x 2 */
    double *gu, *gv, *gc, *gsum, *gx; /* their gradient accumulators */
    double *gl, *t;                   /* mixtape: (F, K-1) gate logits' word part, (K-1, d1) */
    double lambda, glambda;
    double *mem;
} ref_ws;

static int ref_ws_alloc(ref_ws *w, const sbw_head *h)
{
    size_t k = h->k ? h->k : 1, d = h->d, m = h->m, kn = h->knots, c = h->c;
    *w = (ref_ws){.nx = sbw_head_nx(h)};
    size_t nx = w->nx, kg = h->vgate ? k - 1 : 0;
    size_t sizes[] = {nx * d,    nx * d, k * d,  k,         k,
                      nx * m,    nx * m, nx * m, 2 * k * m, m,
                      m,         4 * k,  k,      k,         k,
                      kn,        kn,     k,      k,         k,
                      kn,        kn,     c,      k * d,     h->nfreq * kg,
                      kg * h->gd};
    double **dst[] = {&w->x,  &w->dx,  &w->g,   &w->logpi, &w->dalpha, &w->z,  &w->y,
                      &w->fp, &w->sig, &w->lq,  &w->p,     &w->kbuf,   &w->u,  &w->v,
                      &w->c,  &w->s,   &w->cum, &w->gu,    &w->gv,     &w->gc, &w->gsum,
                      &w->gx, &w->hv,  &w->gm,  &w->gl,    &w->t};
    size_t total = 0, n = sizeof sizes / sizeof *sizes;
    for (size_t i = 0; i < n; i++)
        total += sizes[i] + 1;
    w->mem = calloc(total, sizeof(double));
    if (!w->mem)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (naive pass workspace)");
    for (size_t i = 0, at = 0; i < n; i++) {
        *dst[i] = w->mem + at;
        at += sizes[i] + 1;
    }
    return SBW_OK;
}

/* Mixtape: t_j = tanh(GU_j h) (K-1, d1) and the frequent words' gate
 * logits' word part gl[x, j] = v_x^T t_j (F, K-1). */
static void ref_gates(const sbw_head *h, const double *theta, const double *hv, ref_ws *w)
{
    size_t kg = h->k - 1, gd = h->gd, cw = h->c;
    const double *GU = theta + h->off_gu, *GV = theta + h->off_gv;
    for (size_t j = 0; j < kg; j++)
        for (size_t a = 0; a < gd; a++) {
            double acc = 0;
            for (size_t c = 0; c < cw; c++)
                acc += GU[(j * gd + a) * cw + c] * hv[c];
            w->t[j * gd + a] = tanh(acc);
        }
    for (size_t x = 0; x < h->nfreq; x++)
        for (size_t j = 0; j < kg; j++) {
            w->gl[x * kg + j] = 0;
            for (size_t a = 0; a < gd; a++)
                w->gl[x * kg + j] += GV[x * gd + a] * w->t[j * gd + a];
        }
}

/* Mixtape's backward through the gates, from gl (the frequent words'
 * gate logit gradients) and dalpha (the shared ones'): dGB, dGV, and
 * through t into dGU and dh. */
static void ref_gates_back(const sbw_head *h, const double *theta, const double *hv, ref_ws *w,
                           double *dh, double *grad)
{
    size_t kg = h->k - 1, gd = h->gd, cw = h->c;
    const double *GU = theta + h->off_gu, *GV = theta + h->off_gv;
    double *dGU = grad + h->off_gu, *dGV = grad + h->off_gv, *dGB = grad + h->off_gb;
    for (size_t j = 0; j < kg; j++)
        for (size_t a = 0; a < gd; a++) {
            double dt = 0, t = w->t[j * gd + a];
            for (size_t x = 0; x < h->nfreq; x++) {
                dt += w->gl[x * kg + j] * GV[x * gd + a];
                dGV[x * gd + a] += w->gl[x * kg + j] * t;
            }
            double da = dt * (1 - t * t);
            for (size_t c = 0; c < cw; c++) {
                dGU[(j * gd + a) * cw + c] += da * hv[c];
                dh[c] += GU[(j * gd + a) * cw + c] * da;
            }
        }
    for (size_t x = 0; x < h->nfreq; x++)
        for (size_t j = 0; j < kg; j++)
            dGB[x * kg + j] += w->gl[x * kg + j];
}

/* Context vectors of context hv (C): x = h, or the mixture's g_k =
 * tanh(U_k h + c_k) (times the row's mask: gm) and pi. */
static void ref_context(const sbw_head *h, const double *theta, const double *hv, ref_ws *w)
{
    size_t d = h->d, k = h->k, cw = h->c;
    if (!h->context_mix) {
        memcpy(w->x, hv, d * sizeof *hv);
        return;
    }
    const double *U = theta + h->off_u, *V = theta + h->off_v, *cb = theta + h->off_ub;
    for (size_t c = 0; c < sbw_head_nv(h); c++) {
        w->logpi[c] = 0;
        for (size_t j = 0; j < cw; j++)
            w->logpi[c] += V[c * cw + j] * hv[j];
    }
    for (size_t c = 0; c < k; c++) {
        w->logpi[c] = c < sbw_head_nv(h) ? w->logpi[c] : 0;
        for (size_t i = 0; i < d; i++) {
            double a = h->cbias ? cb[c * d + i] : 0;
            for (size_t j = 0; j < cw; j++)
                a += U[(c * d + i) * cw + j] * hv[j];
            w->g[c * d + i] = tanh(a);
            w->gm[c * d + i] = w->g[c * d + i] * (w->mask ? w->mask[c * d + i] : 1);
        }
    }
    if (h->vgate) { /* logpi holds u_j^T h; the words' gate logits */
        ref_gates(h, theta, hv, w);
    } else {
        double lse = sbw_num_logsumexp(w->logpi, k);
        for (size_t c = 0; c < k; c++)
            w->logpi[c] -= lse;
    }
    bool stack = h->mixture || h->vgate;
    for (size_t i = 0; i < w->nx * d; i++)
        w->x[i] = stack ? w->gm[i] : 0;
    for (size_t c = 0; !stack && c < k; c++)
        for (size_t i = 0; i < d; i++)
            w->x[i] += exp(w->logpi[c]) * w->gm[c * d + i];
}

/* z_c = W x_c + b, then y_c = f(z_c) with fp_c = f'(z_c). */
static void ref_logits_map(const sbw_head *h, const double *theta, ref_ws *w)
{
    size_t d = h->d, m = h->m;
    const double *W = theta + h->off_w, *b = theta + h->off_b;
    for (size_t c = 0; c < w->nx; c++) {
        double *z = w->z + c * m, *y = w->y + c * m, *fp = w->fp + c * m;
        for (size_t i = 0; i < m; i++) {
            z[i] = h->bias ? b[i] : 0;
            for (size_t j = 0; j < d; j++)
                z[i] += W[i * d + j] * w->x[c * d + j];
        }
        if (h->map == SBW_MAP_SS)
            sbw_head_ref_ss(z, y, fp, m);
        else if (h->map == SBW_MAP_LMS)
            sbw_head_ref_lms(z, y, fp, w->sig, m, w->u, w->v, w->c, h->k, w->lambda);
        else if (h->map == SBW_MAP_PLIF)
            sbw_head_ref_plif(z, y, fp, m, w->s, w->cum, h->knots, h->plif_t);
        else
            memcpy(y, z, m * sizeof *z);
    }
}

/* dz_c = f'(z_c) dy_c with the map's parameter gradients accumulated;
 * the result replaces y. */
static void ref_map_back(const sbw_head *h, ref_ws *w)
{
    size_t m = h->m;
    for (size_t c = 0; c < w->nx && h->map != SBW_MAP_IDENTITY; c++) {
        double *z = w->z + c * m, *dy = w->y + c * m;
        if (h->map == SBW_MAP_LMS)
            sbw_head_ref_lms_back(z, dy, w->sig, m, w->v, h->k, w->gu, w->gv, w->gc, &w->glambda);
        if (h->map == SBW_MAP_PLIF)
            sbw_head_ref_plif_back(z, dy, m, h->knots, h->plif_t, w->gsum, w->gx);
        sbw_head_ref_map_back(dy, w->fp + c * m, dy, m);
    }
}

/* dW += dz x^T, db += dz, dx = W^T dz, for every context vector. */
static void ref_logits_back(const sbw_head *h, const double *theta, ref_ws *w, double *grad)
{
    size_t d = h->d, m = h->m;
    const double *W = theta + h->off_w;
    double *dW = grad + h->off_w, *db = grad + h->off_b;
    for (size_t c = 0; c < w->nx; c++) {
        const double *dz = w->y + c * m, *x = w->x + c * d;
        double *dx = w->dx + c * d;
        memset(dx, 0, d * sizeof *dx);
        for (size_t i = 0; i < m; i++) {
            if (h->bias)
                db[i] += dz[i];
            for (size_t j = 0; j < d; j++) {
                dW[i * d + j] += dz[i] * x[j];
                dx[j] += W[i * d + j] * dz[i];
            }
        }
    }
}

/* From dx (and dalpha for mixtures) to dh (C, added to), dU, dV and the
 * component bias's gradient. */
static void ref_context_back(const sbw_head *h, const double *theta, const double *hv, ref_ws *w,
                             double *dh, double *grad)
{
    size_t d = h->d, k = h->k, cw = h->c;
    if (!h->context_mix) {
        for (size_t j = 0; j < d; j++)
            dh[j] += w->dx[j];
        return;
    }
    const double *U = theta + h->off_u, *V = theta + h->off_v;
    double *dU = grad + h->off_u, *dV = grad + h->off_v, *dcb = grad + h->off_ub, mean = 0;
    bool moc = !h->mixture && !h->vgate;
    for (size_t c = 0; moc && c < k; c++) { /* moc: dalpha from dhbar */
        w->dalpha[c] = 0;
        for (size_t i = 0; i < d; i++)
            w->dalpha[c] += w->dx[i] * w->gm[c * d + i];
        mean += exp(w->logpi[c]) * w->dalpha[c];
    }
    for (size_t c = 0; moc && c < k; c++)
        w->dalpha[c] = exp(w->logpi[c]) * (w->dalpha[c] - mean);
    for (size_t c = 0; c < k; c++)
        for (size_t i = 0; i < d; i++) {
            double dg = h->mixture || h->vgate ? w->dx[c * d + i] : exp(w->logpi[c]) * w->dx[i];
            dg *= w->mask ? w->mask[c * d + i] : 1;
            double g = w->g[c * d + i], da = dg * (1 - g * g);
            if (h->cbias)
                dcb[c * d + i] += da;
            for (size_t j = 0; j < cw; j++) {
                dU[(c * d + i) * cw + j] += da * hv[j];
                dh[j] += U[(c * d + i) * cw + j] * da;
            }
        }
    for (size_t c = 0; c < sbw_head_nv(h); c++)
        for (size_t j = 0; j < cw; j++) {
            dV[c * cw + j] += w->dalpha[c] * hv[j];
            dh[j] += V[c * cw + j] * w->dalpha[c];
        }
    if (h->vgate && h->k > 1)
        ref_gates_back(h, theta, hv, w, dh, grad);
}

/* The target of position i as a row of doubles (w->p) with its sum,
 * entropy and mode. */
static const double *ref_target(const sbw_pass_target *tg, size_t i, size_t m, ref_ws *w,
                                double *psum, double *ent, size_t *mode)
{
    if (tg->ids) {
        memset(w->p, 0, m * sizeof *w->p);
        w->p[tg->ids[i]] = 1.0;
        *psum = 1.0, *ent = 0.0, *mode = tg->ids[i];
        return w->p;
    }
    size_t r = tg->rows ? tg->rows[i] : tg->r0 + i;
    *psum = tg->p->psum[r], *ent = tg->p->ent[r], *mode = tg->p->mode[r];
    return sbw_target_row(tg->p, r, w->p);
}

/* Loss of one context hv (C) against p (and, when dtheta, its gradient,
 * scaled: dh (C) overwritten, dtheta accumulated). */
static double ref_row(const sbw_head *h, const double *theta, const double *hv, const double *p,
                      double psum, double scale, ref_ws *w, double *dh, double *dtheta,
                      size_t *argmax)
{
    memcpy(w->hv, hv, h->c * sizeof *hv); /* dh may alias hv */
    hv = w->hv;
    ref_context(h, theta, hv, w);
    ref_logits_map(h, theta, w);
    if (h->vgate) /* the gated row into y's first M */
        sbw_head_ref_mixtape(w->z, h->k, h->m, w->gl, h->k - 1, w->logpi, theta + h->off_gb,
                             h->nfreq, w->y);
    double loss;
    if (h->mixture)
        loss = sbw_head_ref_mixture(w->y, h->k, h->m, w->logpi, p, psum, scale, dtheta != NULL,
                                    NULL, w->kbuf, w->lq, w->dalpha, argmax);
    else
        loss = sbw_head_ref_softmax(w->y, p, h->m, psum, scale, dtheta != NULL, argmax);
    if (!dtheta)
        return loss;
    if (h->vgate) { /* dz_k into y's K rows; dalpha the shared gates' gradient */
        sbw_head_ref_mixtape_back(w->z, h->k, h->m, w->gl, h->k - 1, w->logpi, h->nfreq, w->y,
                                  w->dalpha);
        memcpy(w->y, w->z, h->k * h->m * sizeof *w->y);
    }
    ref_map_back(h, w);
    ref_logits_back(h, theta, w, dtheta);
    memset(dh, 0, h->c * sizeof *dh);
    ref_context_back(h, theta, hv, w, dh, dtheta);
    return loss;
}

static int ref_check(const sbw_head *h, const sbw_pass_target *tg, size_t nrows, bool dh,
                     bool dtheta)
{
    if (nrows == 0)
        return SBW_ERROR(SBW_EINVAL, "no rows to evaluate");
    if (dh && !dtheta)
        return SBW_ERROR(SBW_EINVAL, "dH without dtheta");
    if (!tg || (tg->p == NULL) == (tg->ids == NULL))
        return SBW_ERROR(SBW_EINVAL, "a target is P* rows or word ids, exactly one of them");
    for (size_t i = 0; tg->ids && i < nrows; i++)
        if (tg->ids[i] >= h->m)
            return SBW_ERROR(SBW_EINVAL, "word id %zu out of range (M = %zu)", tg->ids[i], h->m);
    if (tg->ids)
        return SBW_OK;
    if (tg->p->m != h->m)
        return SBW_ERROR(SBW_ESHAPE, "target has %zu words, head %zu", tg->p->m, h->m);
    for (size_t i = 0; i < nrows; i++)
        if ((tg->rows ? tg->rows[i] : tg->r0 + i) >= tg->p->n)
            return SBW_ERROR(SBW_EINVAL, "row %zu out of range (N = %zu)",
                             tg->rows ? tg->rows[i] : tg->r0 + i, tg->p->n);
    return SBW_OK;
}

int sbw_pass_ref_loss(const sbw_head *h, const double *theta, const double *H, size_t rows,
                      size_t ldh, const sbw_pass_target *tg, sbw_pass_result *res, double *dH,
                      size_t lddh, double *dtheta)
{
    return sbw_pass_ref_loss_masked(h, theta, H, rows, ldh, NULL, tg, res, dH, lddh, dtheta);
}

int sbw_pass_ref_loss_masked(const sbw_head *h, const double *theta, const double *H, size_t rows,
                             size_t ldh, const sbw_pass_mask *mask, const sbw_pass_target *tg,
                             sbw_pass_result *res, double *dH, size_t lddh, double *dtheta)
{
    int st = ref_check(h, tg, rows, dH != NULL, dtheta != NULL);
    if (!st && mask && (!h->context_mix || !mask->m || mask->period == 0))
        st = SBW_ERROR(SBW_EINVAL, "a mask on g_k needs a context-mixing head and a period");
    ref_ws w;
    if (st || (st = ref_ws_alloc(&w, h)))
        return st;
    sbw_head_map_params(h, theta, w.u, w.v, w.c, &w.lambda, w.s, w.cum);
    if (dH)
        memset(dtheta, 0, h->nshared * sizeof *dtheta);
    double loss = 0, ent = 0, hits = 0, scale = 1.0 / (double)rows;
    for (size_t i = 0; i < rows; i++) {
        size_t am = 0, mode;
        double psum, e;
        const double *p = ref_target(tg, i, h->m, &w, &psum, &e, &mode);
        w.mask = mask ? mask->m + (i % mask->period) * h->k * h->d : NULL;
        loss += ref_row(h, theta, H + i * ldh, p, psum, scale, &w, dH ? dH + i * lddh : NULL,
                        dH ? dtheta : NULL, &am);
        ent += e;
        hits += am == mode;
    }
    if (dH)
        sbw_head_map_chain(h, theta, w.gu, w.gv, w.gc, w.glambda, w.gsum, w.gx, dtheta);
    *res = (sbw_pass_result){
        .loss = loss * scale, .kl = (loss - ent) * scale, .mode_match = hits * scale, .rows = rows};
    free(w.mem);
    return SBW_OK;
}

int sbw_pass_ref_logq(const sbw_head *h, const double *theta, const double *hv, double *lq)
{
    ref_ws w;
    int st = ref_ws_alloc(&w, h);
    if (st)
        return st;
    sbw_head_map_params(h, theta, w.u, w.v, w.c, &w.lambda, w.s, w.cum);
    ref_context(h, theta, hv, &w);
    ref_logits_map(h, theta, &w);
    if (h->vgate)
        sbw_head_ref_mixtape(w.z, h->k, h->m, w.gl, h->k - 1, w.logpi, theta + h->off_gb, h->nfreq,
                             w.y);
    size_t am;
    if (h->mixture) {
        sbw_head_ref_mixture(w.y, h->k, h->m, w.logpi, w.p, 0, 0, false, NULL, w.kbuf, lq, NULL,
                             &am);
    } else {
        double lse = sbw_num_logsumexp(w.y, h->m);
        for (size_t j = 0; j < h->m; j++)
            lq[j] = w.y[j] - lse;
    }
    free(w.mem);
    return SBW_OK;
}
