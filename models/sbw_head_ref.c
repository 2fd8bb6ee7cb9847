/* sbw_head_ref.c -- naive twins of the head kernels (see sbw_head_ref.h).
 * Written for clarity, never for speed. */
#include "sbw_head_ref.h"

#include "sbw_head.h"
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

void sbw_head_ref_lms(const double *z, double *y, double *fp, double *sig, size_t m,
                      const double *u, const double *v, const double *b, size_t k, double lambda)
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
