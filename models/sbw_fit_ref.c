/* sbw_head_ref.c -- naive twins of the fit kernels and the whole objective
 * (see sbw_head_ref.h).  Written for clarity, never for speed. */
#include "sbw_head_ref.h"

#include "sbw_error.h"
#include "sbw_num.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t first_argmax(const double *x, size_t n)
{
    size_t best = 0;
    for (size_t j = 1; j < n; j++)
        if (x[j] > x[best])
            best = j;
    return best;
}

double sbw_head_ref_softmax(double *z, const double *p, size_t m, double psum, double scale,
                           bool grad, size_t *argmax)
{
    double lse = sbw_num_logsumexp(z, m), loss = 0;
    *argmax = first_argmax(z, m);
    for (size_t j = 0; j < m; j++)
        loss -= p[j] * (z[j] - lse);
    for (size_t j = 0; grad && j < m; j++)
        z[j] = scale * (exp(z[j] - lse) * psum - p[j]);
    return loss;
}

/* log Q_j = logsumexp_c (log pi_c + log softmax(z_c)_j), naively. */
static void ref_mix_logq(const double *z, size_t k, size_t m, const double *logpi,
                         const double *lse, double *lq)
{
    for (size_t j = 0; j < m; j++) {
        double mx = -INFINITY, s = 0;
        for (size_t c = 0; c < k; c++)
            mx = fmax(mx, logpi[c] + z[c * m + j] - lse[c]);
        for (size_t c = 0; c < k; c++)
            s += exp(logpi[c] + z[c * m + j] - lse[c] - mx);
        /* s >= 1: the term at the maximum is exp(0). */
        // cppcheck-suppress invalidFunctionArg
        lq[j] = mx + log(s);
    }
}

double sbw_head_ref_mixture(double *z, size_t k, size_t m, const double *logpi, const double *p,
                           double psum, double scale, bool grad, double *e, double *kbuf,
                           double *lq, double *dalpha, size_t *argmax)
{
    (void)e;
    double *lse = kbuf, *r = kbuf + k, loss = 0;
    for (size_t c = 0; c < k; c++)
        lse[c] = sbw_num_logsumexp(z + c * m, m);
    ref_mix_logq(z, k, m, logpi, lse, lq);
    for (size_t j = 0; j < m; j++)
        loss -= p[j] * lq[j];
    *argmax = first_argmax(lq, m);
    if (!grad)
        return loss;
    for (size_t c = 0; c < k; c++) {
        r[c] = 0;
        for (size_t j = 0; j < m; j++)
            r[c] += p[j] * exp(logpi[c] + z[c * m + j] - lse[c] - lq[j]);
        dalpha[c] = scale * (exp(logpi[c]) * psum - r[c]);
    }
    for (size_t c = 0; c < k; c++)
        for (size_t j = 0; j < m; j++) {
            double zc = z[c * m + j], rj = exp(logpi[c] + zc - lse[c] - lq[j]);
            z[c * m + j] = scale * (exp(zc - lse[c]) * r[c] - p[j] * rj);
        }
    return loss;
}

void sbw_head_ref_ss(const double *z, double *y, double *fp, size_t m)
{
    for (size_t j = 0; j < m; j++) {
        y[j] = 2 * z[j] - sbw_head_softplus(z[j]);
        fp[j] = 2 - sbw_head_sigmoid(z[j]);
    }
}

void sbw_head_ref_map_back(const double *dy, const double *fp, double *dz, size_t m)
{
    for (size_t j = 0; j < m; j++)
        dz[j] = dy[j] * fp[j];
}

void sbw_head_ref_lms(const double *z, double *y, double *fp, double *sig, size_t m, const double *u,
                     const double *v, const double *b, size_t k, double lambda)
{
    for (size_t j = 0; j < m; j++) {
        y[j] = lambda * z[j];
        fp[j] = lambda;
        for (size_t c = 0; c < k; c++) {
            double s = sbw_head_sigmoid(u[c] * z[j] + b[c]);
            double ds = s * (1 - s);
            sig[2 * c * m + j] = s;
            sig[(2 * c + 1) * m + j] = ds;
            y[j] += v[c] * s;
            fp[j] += v[c] * u[c] * ds;
        }
    }
}

void sbw_head_ref_lms_back(const double *z, const double *g, const double *sig, size_t m,
                          const double *v, size_t k, double *gu, double *gv, double *gb,
                          double *glambda)
{
    for (size_t j = 0; j < m; j++) {
        for (size_t c = 0; c < k; c++) {
            double s = sig[2 * c * m + j], ds = sig[(2 * c + 1) * m + j];
            gv[c] += g[j] * s;
            gb[c] += g[j] * v[c] * ds;
            gu[c] += g[j] * v[c] * ds * z[j];
        }
        if (glambda)
            *glambda += g[j] * z[j];
    }
}

/* Interval of x: floor((x + T) K / 2T), clamped to [0, K-1]. */
static size_t ref_plif_index(double x, size_t k, double t)
{
    double f = floor((x + t) * (double)k / (2 * t));
    if (!(f > 0))
        return 0;
    return f >= (double)(k - 1) ? k - 1 : (size_t)f;
}

void sbw_head_ref_plif(const double *z, double *y, double *fp, size_t m, const double *s,
                      const double *cum, size_t k, double t)
{
    double delta = 2 * t / (double)k;
    for (size_t j = 0; j < m; j++) {
        size_t i = ref_plif_index(z[j], k, t);
        y[j] = cum[i] + s[i] * (z[j] - (-t + delta * (double)i));
        fp[j] = s[i];
    }
}

void sbw_head_ref_plif_back(const double *z, const double *g, size_t m, size_t k, double t,
                           double *gsum, double *gx)
{
    double delta = 2 * t / (double)k;
    for (size_t j = 0; j < m; j++) {
        size_t i = ref_plif_index(z[j], k, t);
        gsum[i] += g[j];
        gx[i] += g[j] * (z[j] - (-t + delta * (double)i));
    }
}

void sbw_head_ref_tanh(double *x, size_t n)
{
    for (size_t j = 0; j < n; j++)
        x[j] = tanh(x[j]);
}

void sbw_head_ref_tanh_back(const double *g, double *dg, size_t n)
{
    for (size_t j = 0; j < n; j++)
        dg[j] = dg[j] * (1 - g[j] * g[j]);
}

void sbw_head_map_params(const sbw_head *h, const double *theta, double *u, double *v, double *c,
                            double *lambda, double *s, double *cum)
{
    const double *l = theta + h->off_lms, *a = theta + h->off_plif;
    size_t k = h->k;
    for (size_t i = 0; h->model == SBW_MODEL_LMS && i < k; i++) {
        u[i] = sbw_head_softplus(l[i]);
        v[i] = sbw_head_softplus(l[k + i]);
        c[i] = l[2 * k + i];
    }
    if (lambda)
        *lambda = h->linear ? sbw_head_softplus(l[3 * k]) : 0.0;
    double delta = h->knots ? 2 * h->plif_t / (double)h->knots : 0, acc = 0;
    for (size_t i = 0; i < h->knots; i++) {
        s[i] = sbw_head_softplus(a[i]);
        cum[i] = delta * acc;
        acc += s[i];
    }
}

void sbw_head_map_chain(const sbw_head *h, const double *theta, const double *gu,
                           const double *gv, const double *gc, double glambda, const double *gsum,
                           const double *gx, double *grad)
{
    const double *l = theta + h->off_lms, *a = theta + h->off_plif;
    double *gl = grad + h->off_lms, *ga = grad + h->off_plif;
    size_t k = h->k;
    for (size_t i = 0; h->model == SBW_MODEL_LMS && i < k; i++) {
        gl[i] = gu[i] * sbw_head_sigmoid(l[i]);
        gl[k + i] = gv[i] * sbw_head_sigmoid(l[k + i]);
        gl[2 * k + i] = gc[i];
    }
    if (h->model == SBW_MODEL_LMS && h->linear)
        gl[3 * k] = glambda * sbw_head_sigmoid(l[3 * k]);
    double delta = h->knots ? 2 * h->plif_t / (double)h->knots : 0, suffix = 0;
    for (size_t i = h->knots; i-- > 0;) {
        ga[i] = (gx[i] + delta * suffix) * sbw_head_sigmoid(a[i]);
        suffix += gsum[i];
    }
}

/* ---- the whole objective, naively ---------------------------------------- */

typedef struct ref_ws {
    size_t nx;                        /* context vectors per context: K for mixtures, else 1 */
    double *x, *dx, *g, *logpi;       /* (nx, D), (nx, D), (K, D), (K) */
    double *dalpha, *z, *y, *fp;      /* (K), (nx, M) x 3 */
    double *sig, *lq, *p, *kbuf;      /* (2K, M), (M), (M), (4K) */
    double *u, *v, *c, *s, *cum;      /* map parameters: (K) x 3, (knots) x 2 */
    double *gu, *gv, *gc, *gsum, *gx; /* their gradient accumulators */
    double lambda, glambda;
    double *mem;
} ref_ws;

static int ref_ws_alloc(ref_ws *w, const sbw_head *h)
{
    size_t k = h->k ? h->k : 1, d = h->d, m = h->m, kn = h->knots;
    *w = (ref_ws){.nx = h->mixture ? h->k : 1};
    size_t nx = w->nx;
    size_t sizes[] = {nx * d, nx * d, k * d, k, k,  nx * m, nx * m, nx * m, 2 * k * m, m,  m,
                      4 * k,  k,      k,     k, kn, kn,     k,      k,      k,         kn, kn};
    double **dst[] = {&w->x,   &w->dx, &w->g,  &w->logpi, &w->dalpha, &w->z, &w->y, &w->fp,
                      &w->sig, &w->lq, &w->p,  &w->kbuf,  &w->u,      &w->v, &w->c, &w->s,
                      &w->cum, &w->gu, &w->gv, &w->gc,    &w->gsum,   &w->gx};
    size_t total = 0, n = sizeof sizes / sizeof *sizes;
    for (size_t i = 0; i < n; i++)
        total += sizes[i] + 1;
    w->mem = calloc(total, sizeof(double));
    if (!w->mem)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (naive objective workspace)");
    for (size_t i = 0, at = 0; i < n; i++) {
        *dst[i] = w->mem + at;
        at += sizes[i] + 1;
    }
    return SBW_OK;
}

/* Context vectors of context hv (D): x = h, or the mixture's g_k and pi. */
static void ref_context(const sbw_head *h, const double *theta, const double *hv, ref_ws *w)
{
    size_t d = h->d, k = h->k;
    if (!h->context_mix) {
        memcpy(w->x, hv, d * sizeof *hv);
        return;
    }
    const double *U = theta + h->off_u, *V = theta + h->off_v;
    for (size_t c = 0; c < k; c++) {
        w->logpi[c] = 0;
        for (size_t j = 0; j < d; j++)
            w->logpi[c] += V[c * d + j] * hv[j];
        for (size_t i = 0; i < d; i++) {
            double a = 0;
            for (size_t j = 0; j < d; j++)
                a += U[(c * d + i) * d + j] * hv[j];
            w->g[c * d + i] = tanh(a);
        }
    }
    double lse = sbw_num_logsumexp(w->logpi, k);
    for (size_t c = 0; c < k; c++)
        w->logpi[c] -= lse;
    for (size_t i = 0; i < w->nx * d; i++)
        w->x[i] = h->mixture ? w->g[i] : 0;
    for (size_t c = 0; !h->mixture && c < k; c++)
        for (size_t i = 0; i < d; i++)
            w->x[i] += exp(w->logpi[c]) * w->g[c * d + i];
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

/* From dx (and dalpha for mixtures) to dh (D, added to), dU, dV. */
static void ref_context_back(const sbw_head *h, const double *theta, const double *hv, ref_ws *w,
                             double *dh, double *grad)
{
    size_t d = h->d, k = h->k;
    if (!h->context_mix) {
        for (size_t j = 0; j < d; j++)
            dh[j] += w->dx[j];
        return;
    }
    const double *U = theta + h->off_u, *V = theta + h->off_v;
    double *dU = grad + h->off_u, *dV = grad + h->off_v, mean = 0;
    for (size_t c = 0; !h->mixture && c < k; c++) { /* moc: dalpha from dhbar */
        w->dalpha[c] = 0;
        for (size_t i = 0; i < d; i++)
            w->dalpha[c] += w->dx[i] * w->g[c * d + i];
        mean += exp(w->logpi[c]) * w->dalpha[c];
    }
    for (size_t c = 0; !h->mixture && c < k; c++)
        w->dalpha[c] = exp(w->logpi[c]) * (w->dalpha[c] - mean);
    for (size_t c = 0; c < k; c++)
        for (size_t i = 0; i < d; i++) {
            double dg = h->mixture ? w->dx[c * d + i] : exp(w->logpi[c]) * w->dx[i];
            double g = w->g[c * d + i], da = dg * (1 - g * g);
            for (size_t j = 0; j < d; j++) {
                dU[(c * d + i) * d + j] += da * hv[j];
                dh[j] += U[(c * d + i) * d + j] * da;
            }
        }
    for (size_t c = 0; c < k; c++)
        for (size_t j = 0; j < d; j++) {
            dV[c * d + j] += w->dalpha[c] * hv[j];
            dh[j] += V[c * d + j] * w->dalpha[c];
        }
}

/* Loss of one context (and its gradient, scaled, when grad). */
static double ref_row(const sbw_head *h, const double *theta, const sbw_target *t, size_t r,
                      double scale, ref_ws *w, double *grad, size_t *argmax)
{
    const double *hv = theta + h->off_h + r * h->d;
    const double *p = sbw_target_row(t, r, w->p);
    ref_context(h, theta, hv, w);
    ref_logits_map(h, theta, w);
    double loss;
    if (h->mixture)
        loss = sbw_head_ref_mixture(w->y, h->k, h->m, w->logpi, p, t->psum[r], scale, grad != NULL,
                                   NULL, w->kbuf, w->lq, w->dalpha, argmax);
    else
        loss = sbw_head_ref_softmax(w->y, p, h->m, t->psum[r], scale, grad != NULL, argmax);
    if (!grad)
        return loss;
    ref_map_back(h, w);
    ref_logits_back(h, theta, w, grad);
    ref_context_back(h, theta, hv, w, grad + h->off_h + r * h->d, grad);
    return loss;
}

static int ref_check(const sbw_head *h, const sbw_target *t, const size_t *rows, size_t nrows)
{
    if (t->n != h->n || t->m != h->m)
        return SBW_ERROR(SBW_ESHAPE, "target is %zu x %zu, head expects %zu x %zu", t->n, t->m,
                         h->n, h->m);
    if (nrows == 0)
        return SBW_ERROR(SBW_EINVAL, "no rows to evaluate");
    for (size_t i = 0; rows && i < nrows; i++)
        if (rows[i] >= h->n)
            return SBW_ERROR(SBW_EINVAL, "row %zu out of range (N = %zu)", rows[i], h->n);
    return SBW_OK;
}

int sbw_obj_ref_eval(const sbw_head *h, const double *theta, const sbw_target *t,
                     const size_t *rows, size_t nrows, sbw_obj_result *res, double *grad)
{
    int st = ref_check(h, t, rows, rows ? nrows : h->n);
    ref_ws w;
    if (st || (st = ref_ws_alloc(&w, h)))
        return st;
    nrows = rows ? nrows : h->n;
    sbw_head_map_params(h, theta, w.u, w.v, w.c, &w.lambda, w.s, w.cum);
    if (grad)
        memset(grad, 0, h->nparam * sizeof *grad);
    double loss = 0, ent = 0, hits = 0, scale = 1.0 / (double)nrows;
    for (size_t i = 0; i < nrows; i++) {
        size_t r = rows ? rows[i] : i, am = 0;
        loss += ref_row(h, theta, t, r, scale, &w, grad, &am);
        ent += t->ent[r];
        hits += am == t->mode[r];
    }
    if (grad)
        sbw_head_map_chain(h, theta, w.gu, w.gv, w.gc, w.glambda, w.gsum, w.gx, grad);
    *res = (sbw_obj_result){.loss = loss * scale,
                            .kl = (loss - ent) * scale,
                            .mode_match = hits * scale,
                            .rows = nrows};
    free(w.mem);
    return SBW_OK;
}

int sbw_obj_ref_logq(const sbw_head *h, const double *theta, size_t r, double *lq)
{
    if (r >= h->n)
        return SBW_ERROR(SBW_EINVAL, "row %zu out of range (N = %zu)", r, h->n);
    ref_ws w;
    int st = ref_ws_alloc(&w, h);
    if (st)
        return st;
    sbw_head_map_params(h, theta, w.u, w.v, w.c, &w.lambda, w.s, w.cum);
    ref_context(h, theta, theta + h->off_h + r * h->d, &w);
    ref_logits_map(h, theta, &w);
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
