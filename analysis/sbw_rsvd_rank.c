/* sbw_rsvd_rank.c -- rank measures from a top-K spectrum with bounds
 * (see sbw_rsvd_rank.h). */
#include "sbw_rsvd_rank.h"

#include "sbw_error.h"
#include "sbw_num.h"

#include <math.h>
#include <stdlib.h>

/* What every measure reads: the sketch, the intervals, the three scales. */
typedef struct rr_ctx {
    const sbw_rsvd *rs;
    const double *lo, *hi;
    size_t k, kmax;          /* K; min(N, M) */
    double w_pt, w_lo, w_hi; /* max(sigma_1, uncentred scale) at s_0, lo_0, hi_0 */
    double beyond;           /* an upper bound on sigma_{K+1}; 0 when K = min(N, M) */
} rr_ctx;

/* How many of v[0..k) (descending) exceed thr. */
static size_t count_above(const double *v, size_t k, double thr)
{
    size_t c = 0;
    while (c < k && v[c] > thr)
        c++;
    return c;
}

/* A counting rule: w > max(atol, c eps w0), w0 the scale. */
static sbw_rsvd_rank counting(const rr_ctx *x, const char *name, double c, double eps, double atol,
                              const char *rule)
{
    double t_pt = fmax(atol, c * eps * x->w_pt), t_lo = fmax(atol, c * eps * x->w_lo),
           t_hi = fmax(atol, c * eps * x->w_hi);
    double lower = (double)count_above(x->lo, x->k, t_hi);
    sbw_rsvd_rank r = {name, lower, "at_least", lower, NAN, t_pt, "sigma", rule};
    if (x->beyond <= t_lo) {
        r.status = "estimated";
        r.rank = (double)count_above(x->rs->s, x->k, t_pt);
        r.upper = (double)count_above(x->hi, x->k, t_lo);
    }
    return r;
}

/* The smallest r <= K with F^2 - sum_{j<r} v_j^2 <= e F^2, or K + 1. */
static size_t eff_rank(const double *v, size_t k, double fro2, double e)
{
    double head = 0;
    for (size_t r = 0; r <= k; r++) {
        if (fro2 - head <= e * fro2)
            return r;
        if (r < k)
            head += v[r] * v[r];
    }
    return k + 1;
}

/* Parthiban's eps-effective rank at tail fraction e, from the intervals. */
static sbw_rsvd_rank eps_eff(const rr_ctx *x, const char *name, double e)
{
    double f = x->rs->fro2;
    size_t lower = eff_rank(x->hi, x->k, f, e), upper = eff_rank(x->lo, x->k, f, e);
    sbw_rsvd_rank r = {name,
                       (double)lower,
                       "at_least",
                       (double)lower,
                       NAN,
                       e,
                       "tail_energy",
                       "smallest r: sum_{j>=r} w_j^2 <= e ||A||_F^2, ||A||_F exact "
                       "(Parthiban et al. 2021)"};
    if (upper <= x->k) {
        r.status = "estimated";
        r.rank = (double)eff_rank(x->rs->s, x->k, f, e);
        r.upper = (double)upper;
    }
    return r;
}

/* ||A||_F^2 / sigma_1^2 with the exact norm and sigma_1's interval. */
static sbw_rsvd_rank stable(const rr_ctx *x)
{
    double f = x->rs->fro2, s0 = x->rs->s[0];
    sbw_rsvd_rank r = {"stable", 0,   "estimated", 0,
                       0,        NAN, "none",      "||A||_F^2 / w0^2 (stable rank), ||A||_F exact"};
    if (f > 0) {
        r.rank = s0 > 0 ? f / (s0 * s0) : INFINITY;
        r.lower = f / (x->hi[0] * x->hi[0]);
        r.upper = x->lo[0] > 0 ? f / (x->lo[0] * x->lo[0]) : INFINITY;
    }
    return r;
}

/* A measure that needs the whole spectrum. */
static sbw_rsvd_rank undecided(const char *name)
{
    return (sbw_rsvd_rank){
        name, NAN, "undecided", NAN,
        NAN,  NAN, "none",      "needs the whole spectrum: --method auto, direct or tsqr"};
}

/* The measures of x in sbw_rank_measures' order. */
static void fill(const rr_ctx *x, double eps, double atol, sbw_rsvd_rank *out)
{
    const sbw_rsvd *rs = x->rs;
    double big = (double)sbw_num_max_sz(rs->rows, rs->cols), small = (double)x->kmax;
    double nr = 0.5 * sqrt((double)(rs->rows + rs->cols + 1));
    out[0] = counting(x, "nr", nr, eps, 0, "w > 0.5 sqrt(m+n+1) w0 eps (Numerical Recipes)");
    out[1] = counting(x, "numpy", big, eps, 0, "w > w0 max(m,n) eps (numpy matrix_rank)");
    out[2] = counting(x, "pytorch", atol > 0 ? 0 : big, eps, atol,
                      "w > max(atol, rtol w0), rtol = max(m,n) eps or 0 if atol > 0 "
                      "(torch.linalg.matrix_rank)");
    out[3] = counting(x, "julia", small, eps, 0, "w > min(m,n) eps w0 (Julia LinearAlgebra.rank)");
    out[4] = undecided("gap");
    out[5] = eps_eff(x, "eps_eff_1e-3", 1e-3);
    out[6] = eps_eff(x, "eps_eff_1e-4", 1e-4);
    out[7] = eps_eff(x, "eps_eff_1e-5", 1e-5);
    out[8] = stable(x);
    out[9] = undecided("entropy");
}

int sbw_rsvd_rank_measures(const sbw_rsvd *rs, double eps, double atol, sbw_rsvd_rank *out)
{
    if (!(eps > 0 && eps < 1) || !(atol >= 0) || !rs->s || rs->sketch < rs->top || rs->top < 1)
        return SBW_ERROR(SBW_EINVAL, "rank measures: eps %g, atol %g, a sketch of %zu for K %zu",
                         eps, atol, rs->sketch, rs->top);
    size_t l = rs->sketch;
    double *lo = malloc(2 * l * sizeof *lo);
    if (!lo)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    double *hi = lo + l;
    sbw_rsvd_bounds(rs, l, lo, hi);
    rr_ctx x = {
        .rs = rs, .lo = lo, .hi = hi, .k = rs->top, .kmax = sbw_num_min_sz(rs->rows, rs->cols)};
    x.w_pt = fmax(rs->s[0], rs->w0_uncentred);
    x.w_lo = fmax(lo[0], rs->w0_uncentred);
    x.w_hi = fmax(hi[0], rs->w0_uncentred);
    x.beyond = x.k >= x.kmax ? 0 : hi[l > x.k ? x.k : x.k - 1];
    fill(&x, eps, atol, out);
    free(lo);
    return SBW_OK;
}
