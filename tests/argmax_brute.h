/* argmax_brute.h -- what the suites of sbw_argmax share (header-only,
 * static): a brute-force hull in d = 2 and 3 (a word is not strictly
 * argmaxable iff some simplex of d + 1 other rows contains w_i with
 * interpolated bias >= b_i, Caratheodory), independent re-checks of every
 * certificate (extended-precision twins of the margin and of the lambda
 * residual), a run of sbw_argmax_run with all certificates checked, and
 * Gaussian draws. */
#ifndef ARGMAX_BRUTE_H
#define ARGMAX_BRUTE_H

#include "sbw_argmax.h"
#include "sbw_argmax_cert.h"
#include "sbw_test.h"

#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 1717, stream));
    return r;
}

/* Solves the n x n system a x = y (row-major, destroyed) by Gaussian
 * elimination with partial pivoting; false when singular. */
static inline bool solve_small(double *a, double *y, size_t n, double *x)
{
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
                p = r;
        if (fabs(a[p * n + c]) < 1e-12)
            return false;
        for (size_t k = 0; k < n; k++) {
            double t = a[c * n + k];
            a[c * n + k] = a[p * n + k];
            a[p * n + k] = t;
        }
        double t = y[c];
        y[c] = y[p];
        y[p] = t;
        for (size_t r = c + 1; r < n; r++) {
            double f = a[r * n + c] / a[c * n + c];
            for (size_t k = c; k < n; k++)
                a[r * n + k] -= f * a[c * n + k];
            y[r] -= f * y[c];
        }
    }
    for (size_t c = n; c-- > 0;) {
        double s = y[c];
        for (size_t k = c + 1; k < n; k++)
            s -= a[c * n + k] * x[k];
        x[c] = s / a[c * n + c];
    }
    return true;
}

/* Brute force (d = 2 or 3): the height of the upper hull of the other
 * lifted rows above w_i (the largest interpolated bias of a simplex that
 * contains w_i; -inf when none does; 0 without a bias). */
static inline double brute_height(const double *w, size_t m, size_t d, const double *b, size_t i)
{
    size_t s[4], n = d + 1;
    double best = -INFINITY;
    for (s[0] = 0; s[0] < m; s[0]++)
        for (s[1] = s[0] + 1; s[1] < m; s[1]++)
            for (s[2] = s[1] + 1; s[2] < m; s[2]++)
                for (s[3] = d == 3 ? s[2] + 1 : 0; s[3] < (d == 3 ? m : 1); s[3]++) {
                    double a[16], y[4], x[4];
                    bool skip = false;
                    for (size_t c = 0; c < n; c++)
                        skip = skip || s[c] == i;
                    if (skip)
                        continue;
                    for (size_t r = 0; r < n; r++) {
                        for (size_t c = 0; c < n; c++)
                            a[r * n + c] = r < d ? w[s[c] * d + r] : 1.0;
                        y[r] = r < d ? w[i * d + r] : 1.0;
                    }
                    if (!solve_small(a, y, n, x))
                        continue;
                    bool in = true;
                    double bi = 0;
                    for (size_t c = 0; c < n; c++) {
                        in = in && x[c] >= -1e-13;
                        bi += x[c] * (b ? b[s[c]] : 0.0);
                    }
                    if (in)
                        best = fmax(best, bi);
                }
    return best;
}

/* Brute force (d = 2 or 3): 1 when word i is a strict argmax for some h. */
static inline int brute_argmaxable(const double *w, size_t m, size_t d, const double *b, size_t i)
{
    return !(brute_height(w, m, d, b, i) >= (b ? b[i] : 0.0));
}

/* The brute-force twin of sbw_argmax_cert: margins and residuals in
 * binary128 (a product of two doubles is exact there, a sum of a few
 * hundred loses about 2^-113 relative), no GMP, no error bound. */
#ifdef __SIZEOF_FLOAT128__
__extension__ typedef __float128 quad;
#else
typedef long double quad;
#endif

static inline double twin_margin(const double *w, size_t m, size_t d, const double *b, size_t i,
                                 const double *h)
{
    quad best = 1e300;
    for (size_t j = 0; j < m; j++) {
        if (j == i)
            continue;
        quad z = b ? (quad)b[i] - (quad)b[j] : 0;
        for (size_t k = 0; k < d; k++)
            z += (quad)w[i * d + k] * h[k] - (quad)w[j * d + k] * h[k];
        if (z < best)
            best = z;
    }
    return (double)best;
}

/* The residual and gap of lambda in binary128, which the exact upper
 * bounds of sbw_argmax_cert_lambda must not undercut by more than the
 * twin's own rounding. */
static inline void twin_lambda(const double *w, size_t d, const double *b, size_t i,
                               const size_t *idx, const double *lam, size_t k, double residual,
                               double gap)
{
    quad s = 0, r = 0, g = b ? (quad)b[i] : 0;
    for (size_t t = 0; t < k; t++)
        s += lam[t];
    for (size_t c = 0; c < d; c++) {
        quad x = -(quad)w[i * d + c];
        for (size_t t = 0; t < k; t++)
            x += (quad)lam[t] / s * w[idx[t] * d + c];
        if ((x < 0 ? -x : x) > r)
            r = x < 0 ? -x : x;
    }
    for (size_t t = 0; b && t < k; t++)
        g -= (quad)lam[t] / s * b[idx[t]];
    SBW_ASSERT_GE(residual, (double)r * (1 - 1e-12) - 1e-300);
    SBW_ASSERT_GE(gap, (double)g - 1e-25 * (1 + fabs((double)g)));
}

/* Re-checks every certificate of a run independently. */
static inline void check_certs(const double *w, size_t m, size_t d, const double *b,
                               const sbw_argmax_word *out, const sbw_argmax_certs *cs, size_t n,
                               double scale)
{
    for (size_t t = 0; t < n; t++) {
        size_t i = out[t].word;
        SBW_ASSERT_GE(out[t].argmaxable, 0);
        if (out[t].argmaxable == 1) {
            sbw_argmax_cert_h_res r;
            sbw_argmax_cert_h(w, m, d, d, b, i, cs->h + t * d, &r);
            assert_true(r.proven);
            SBW_ASSERT_GT(r.margin, r.bound);
            SBW_ASSERT_GT(r.margin, 0.0);
            SBW_ASSERT_GT(twin_margin(w, m, d, b, i, cs->h + t * d), 0.0);
        } else {
            sbw_argmax_cert_l_res r;
            sbw_argmax_cert_lambda(w, m, d, d, b, i, cs->idx + t * cs->cap,
                                   cs->lambda + t * cs->cap, cs->k[t], &r);
            assert_true(r.valid);
            SBW_ASSERT_LE(r.residual, 1e-9 * scale);
            SBW_ASSERT_LE(r.gap, 1e-9 * scale);
            twin_lambda(w, d, b, i, cs->idx + t * cs->cap, cs->lambda + t * cs->cap, cs->k[t],
                        r.residual, r.gap);
        }
    }
}

typedef struct run_out {
    sbw_argmax_word *out;
    sbw_argmax_certs cs;
    sbw_argmax_summary sum;
} run_out;

static inline void run_all(const double *w, size_t m, size_t d, const double *b, bool lp_only,
                           run_out *r)
{
    r->out = calloc(m, sizeof *r->out);
    r->cs.cap = d + 2;
    r->cs.h = calloc(m * d, sizeof *r->cs.h);
    r->cs.idx = calloc(m * r->cs.cap, sizeof *r->cs.idx);
    r->cs.lambda = calloc(m * r->cs.cap, sizeof *r->cs.lambda);
    r->cs.k = calloc(m, sizeof *r->cs.k);
    assert_non_null(r->out);
    assert_non_null(r->cs.k);
    sbw_argmax_opts o = sbw_argmax_defaults();
    o.no_prefilter = lp_only;
    o.block = 7; /* odd blocks */
    SBW_ASSERT_OK(sbw_argmax_run(w, m, d, d, b, NULL, m, &o, r->out, &r->cs, &r->sum));
    check_certs(w, m, d, b, r->out, &r->cs, m, r->sum.scale);
}

static inline void run_free(run_out *r)
{
    free(r->out);
    free(r->cs.h);
    free(r->cs.idx);
    free(r->cs.lambda);
    free(r->cs.k);
}

static inline double *gauss(gsl_rng *g, size_t n, double sd)
{
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t k = 0; k < n; k++)
        x[k] = gsl_ran_gaussian(g, sd);
    return x;
}

#endif
