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

/* ---- Mixtape: each leaf's prior as the product along its path ------------ */

/* Leaf c's factor from internal node n: 1 when n is not on its path,
 * gamma_n when the path turns to n's first child, 1 - gamma_n otherwise;
 * *on says whether n is on the path and *left which side. */
static double ref_tree_factor(size_t k, size_t c, size_t n, const double *gam, bool *on, bool *left)
{
    *on = false;
    for (size_t node = k - 1 + c; node > 0; node = (node - 1) / 2) {
        size_t parent = (node - 1) / 2;
        if (parent == n) {
            *on = true;
            *left = node == 2 * parent + 1;
            return *left ? gam[n] : 1.0 - gam[n];
        }
    }
    return 1.0;
}

/* pi_c = the product over the K - 1 internal nodes of leaf c's factors;
 * with skip < K - 1 that node's factor is left out. */
static double ref_tree_pi(size_t k, size_t c, const double *gam, size_t skip)
{
    double pi = 1.0;
    bool on, left;
    for (size_t n = 0; n + 1 < k; n++)
        if (n != skip)
            pi *= ref_tree_factor(k, c, n, gam, &on, &left);
    return pi;
}

/* Word x's gammas: sigma of its full gate logit, or of the shared one. */
static void ref_gammas(const double *gl, size_t ldg, const double *s, const double *gb, size_t nf,
                       size_t k, size_t x, double *gam)
{
    for (size_t j = 0; j + 1 < k; j++) {
        double l = x < nf ? gl[x * ldg + j] + s[j] + gb[x * (k - 1) + j] : s[j];
        gam[j] = 1.0 / (1.0 + exp(-l));
    }
}

void sbw_head_ref_mixtape(const double *z, size_t k, size_t m, double *gl, size_t ldg,
                          const double *s, const double *gb, size_t nf, double *y)
{
    double gam[SBW_HEAD_MIXTAPE_KMAX];
    for (size_t x = 0; x < m; x++) {
        ref_gammas(gl, ldg, s, gb, nf, k, x, gam);
        y[x] = 0;
        for (size_t c = 0; c < k; c++)
            y[x] += ref_tree_pi(k, c, gam, k) * z[c * m + x];
        for (size_t j = 0; x < nf && j + 1 < k; j++)
            gl[x * ldg + j] = gam[j];
    }
}

void sbw_head_ref_mixtape_back(double *z, size_t k, size_t m, double *gl, size_t ldg,
                               const double *s, size_t nf, const double *dy, double *ds)
{
    double gam[SBW_HEAD_MIXTAPE_KMAX];
    for (size_t j = 0; j + 1 < k; j++)
        ds[j] = 0;
    for (size_t x = 0; x < m; x++) {
        for (size_t j = 0; j + 1 < k; j++)
            gam[j] = x < nf ? gl[x * ldg + j] : 1.0 / (1.0 + exp(-s[j]));
        for (size_t n = 0; n + 1 < k; n++) { /* dL/dl_n = sum_c dy z_c dpi_c/dl_n */
            double dl = 0;
            for (size_t c = 0; c < k; c++) {
                bool on, left;
                ref_tree_factor(k, c, n, gam, &on, &left);
                double dfac = on ? (left ? 1.0 : -1.0) * gam[n] * (1.0 - gam[n]) : 0.0;
                dl += dy[x] * z[c * m + x] * ref_tree_pi(k, c, gam, n) * dfac;
            }
            ds[n] += dl;
            if (x < nf)
                gl[x * ldg + n] = dl;
        }
        for (size_t c = 0; c < k; c++)
            z[c * m + x] = ref_tree_pi(k, c, gam, k) * dy[x];
    }
}
