/* sbw_maxprob.c -- the largest attainable probability of a word over a
 * ball of contexts (see the header). */
#include "sbw_maxprob.h"

#include "sbw_error.h"
#include "sbw_progress.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sbw_maxprob_ws_size(size_t m, size_t d) { return m + 5 * d; }

double sbw_maxprob_eval(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                        const double *h, double *z, double *g)
{
    if (b)
        memcpy(z, b, m * sizeof *z);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)m, (int)d, 1.0, w, (int)ldw, h, 1, b ? 1.0 : 0.0,
                z, 1);
    double zmax = -INFINITY, s = 0;
    for (size_t j = 0; j < m; j++)
        zmax = fmax(zmax, z[j]);
    double zi = z[i] - zmax;
    for (size_t j = 0; j < m; j++) {
        z[j] = exp(z[j] - zmax);
        s += z[j];
    }
    double lp = zi - log(fmax(s, 1.0)); /* z_i - logsumexp(z); s >= exp(0) */
    for (size_t j = 0; j < m; j++)
        z[j] /= -s;
    memcpy(g, w + i * ldw, d * sizeof *g); /* g = w_i - W^T p */
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)m, (int)d, 1.0, w, (int)ldw, z, 1, 1.0, g, 1);
    return lp;
}

/* Projects x onto the ball of radius R. */
static void project(double *x, size_t d, double R)
{
    double n = cblas_dnrm2((int)d, x, 1);
    if (n > R)
        cblas_dscal((int)d, R / n, x, 1);
}

/* The Frank-Wolfe gap R ||g|| - g.h (>= 0 up to rounding). */
static double fw_gap(const double *g, const double *h, size_t d, double R)
{
    return fmax(0.0, R * cblas_dnrm2((int)d, g, 1) - cblas_ddot((int)d, g, 1, h, 1));
}

/* One backtracking step from y (value fy, gradient gy) into x; returns
 * f(x) and leaves its gradient in gx.  L grows until the quadratic model
 * is a lower bound. */
static double step(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                   double R, const double *y, double fy, const double *gy, double *L, double *x,
                   double *gx, double *z)
{
    for (int tries = 0; tries < 60; tries++) {
        for (size_t k = 0; k < d; k++)
            x[k] = y[k] + gy[k] / *L;
        project(x, d, R);
        double fx = sbw_maxprob_eval(w, m, d, ldw, b, i, x, z, gx), lin = 0, sq = 0;
        for (size_t k = 0; k < d; k++) {
            lin += gy[k] * (x[k] - y[k]);
            sq += (x[k] - y[k]) * (x[k] - y[k]);
        }
        if (fx >= fy + lin - 0.5 * *L * sq - 1e-15 * fabs(fy))
            return fx;
        *L *= 2;
    }
    return sbw_maxprob_eval(w, m, d, ldw, b, i, x, z, gx);
}

static void fill(sbw_maxprob_res *res, double f, double gap, const double *h, size_t d, int it,
                 double tol)
{
    res->p = exp(f);
    res->gap = gap;
    res->p_upper = fmin(1.0, exp(f + gap));
    res->h_norm = cblas_dnrm2((int)d, h, 1);
    res->iters = it;
    res->converged = gap <= tol;
}

int sbw_maxprob_word(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                     double R, double tol, int max_iter, double *h, double *ws,
                     sbw_maxprob_res *res)
{
    if (i >= m || d < 1 || ldw < d || !(R >= 0) || !isfinite(R) || !(tol > 0) || max_iter < 0)
        return SBW_ERROR(SBW_EINVAL, "max-prob: bad arguments (word %zu of %zu, R %g, tol %g)", i,
                         m, R, tol);
    double *z = ws, *g = z + m, *y = g + d, *gy = y + d, *x = gy + d, *gx = x + d;
    project(h, d, R);
    double f = sbw_maxprob_eval(w, m, d, ldw, b, i, h, z, g), L = 1.0, t = 1.0;
    double gap = fw_gap(g, h, d, R);
    memcpy(y, h, d * sizeof *y);
    memcpy(gy, g, d * sizeof *gy);
    double fy = f;
    int it = 0;
    for (; it < max_iter && gap > tol; it++) {
        double fx = step(w, m, d, ldw, b, i, R, y, fy, gy, &L, x, gx, z);
        double tn = 0.5 * (1 + sqrt(1 + 4 * t * t)), turn = 0;
        for (size_t k = 0; k < d; k++) /* the step against the momentum */
            turn += (y[k] - x[k]) * (x[k] - h[k]);
        if (fx < f - 4e-16 * fabs(f) || turn > 0) { /* adaptive restart */
            t = 1.0;
            tn = 1.0;
        }
        if (fx < f - 4e-16 * fabs(f)) { /* no ascent even at rounding level: from h */
            memcpy(y, h, d * sizeof *y);
            memcpy(gy, g, d * sizeof *gy);
            fy = f;
            continue;
        }
        for (size_t k = 0; k < d; k++)
            y[k] = x[k] + (t - 1) / tn * (x[k] - h[k]);
        project(y, d, R);
        t = tn;
        memcpy(h, x, d * sizeof *h);
        memcpy(g, gx, d * sizeof *g);
        f = fx;
        gap = fw_gap(g, h, d, R);
        fy = sbw_maxprob_eval(w, m, d, ldw, b, i, y, z, gy);
        L *= 0.9;
    }
    fill(res, f, gap, h, d, it, tol);
    return SBW_OK;
}

/* The worst case of a ladder, before it starts. */
static void announce(const sbw_maxprob_ladder *l, size_t m, size_t d, size_t want)
{
    if (l->quiet || !want)
        return;
    fprintf(stderr,
            "%s: %zu word(s) x %zu radius(es); each pair at most %d iterations of ~%.3g flops "
            "(8 M D), at most %.3g Gflop in all (most pairs stop after a few hundred "
            "iterations)\n",
            l->label, want, l->nr, l->max_iter, 8.0 * (double)m * (double)d,
            8e-9 * (double)m * (double)d * l->max_iter * (double)(want * l->nr));
}

int sbw_maxprob_words(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                      const size_t *words, const bool *want, size_t n, const sbw_maxprob_ladder *l,
                      double *pm, double *pu, size_t *unconverged)
{
    size_t nr = l->nr, nwant = 0, done = 0;
    for (size_t t = 0; t < n; t++)
        nwant += !want || want[t];
    announce(l, m, d, nwant);
    double *ws = malloc((sbw_maxprob_ws_size(m, d) + d) * sizeof *ws), *x = ws;
    int st = ws ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory for --max-prob");
    sbw_progress p;
    sbw_progress_start(&p, l->label, "pairs", (double)(nwant * nr), l->quiet || !nwant);
    *unconverged = 0;
    for (size_t t = 0; t < n && !st; t++) {
        memset(x, 0, d * sizeof *x);
        for (size_t k = 0; k < nr && !st; k++) {
            pm[t * nr + k] = pu[t * nr + k] = NAN;
            if (want && !want[t])
                continue;
            sbw_maxprob_res r;
            st = sbw_maxprob_word(w, m, d, ldw, b, words[t], l->R[k], l->tol, l->max_iter, x,
                                  ws + d, &r);
            if (st)
                break;
            pm[t * nr + k] = r.p;
            pu[t * nr + k] = r.p_upper;
            *unconverged += !r.converged;
            sbw_progress_update(&p, (double)++done);
        }
    }
    sbw_progress_finish(&p);
    free(ws);
    return st;
}
