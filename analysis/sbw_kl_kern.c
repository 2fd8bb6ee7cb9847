/* sbw_kl_kern.c -- fast inner loops of the pairwise-KL module (finite
 * inputs only; see sbw_kl_kern.h).  Loops are written for GCC's vectoriser,
 * with exp inline (sbw_vexp.h) so that one loop computes p and every sum. */
#include "sbw_kl_kern.h"

#include "sbw_vexp.h"

#include <stdint.h>

/* The group's first row b is the shift, a = exp(b): sets a and that row's
 * sums, clears the shifted column sums. */
static uint64_t group_first(const double *b, double *a, double *sdp, double *sdl, double *c,
                            size_t n, double *rowpl, double *rowsum)
{
    double pl = 0.0, ps = 0.0;
    uint64_t ok = UINT64_MAX;
#pragma omp simd reduction(+ : pl, ps) reduction(min : ok)
    for (size_t x = 0; x < n; x++) {
        ok = ok < sbw_vexp_missing_exp(b[x]) ? ok : sbw_vexp_missing_exp(b[x]);
        double p = sbw_vexp(b[x]);
        a[x] = p;
        sdp[x] = sdl[x] = c[x] = 0.0;
        pl += p * b[x];
        ps += p;
    }
    *rowpl += pl;
    *rowsum += ps;
    return ok == 0;
}

/* Two more rows l0, l1 into the sums shifted by (a, b).  Two rows per loop
 * halve the loads and stores of the column sums. */
static uint64_t group_pair(const double *l0, const double *l1, const double *a, const double *b,
                           double *sdp, double *sdl, double *c, size_t n, double *rowpl,
                           double *rowsum)
{
    double pl0 = 0.0, ps0 = 0.0, pl1 = 0.0, ps1 = 0.0;
    uint64_t ok = UINT64_MAX;
#pragma omp simd reduction(+ : pl0, ps0, pl1, ps1) reduction(min : ok)
    for (size_t x = 0; x < n; x++) {
        uint64_t m0 = sbw_vexp_missing_exp(l0[x]), m1 = sbw_vexp_missing_exp(l1[x]),
                 m = m0 < m1 ? m0 : m1;
        ok = ok < m ? ok : m;
        double p0 = sbw_vexp(l0[x]), p1 = sbw_vexp(l1[x]);
        double dp0 = p0 - a[x], dl0 = l0[x] - b[x], dp1 = p1 - a[x], dl1 = l1[x] - b[x];
        sdp[x] += dp0 + dp1;
        sdl[x] += dl0 + dl1;
        c[x] += dp0 * dl0 + dp1 * dl1;
        pl0 += p0 * l0[x];
        ps0 += p0;
        pl1 += p1 * l1[x];
        ps1 += p1;
    }
    rowpl[0] += pl0;
    rowsum[0] += ps0;
    rowpl[1] += pl1;
    rowsum[1] += ps1;
    return ok == 0;
}

/* One more row; same as group_pair. */
static uint64_t group_one(const double *l0, const double *a, const double *b, double *sdp,
                          double *sdl, double *c, size_t n, double *rowpl, double *rowsum)
{
    double pl0 = 0.0, ps0 = 0.0;
    uint64_t ok = UINT64_MAX;
#pragma omp simd reduction(+ : pl0, ps0) reduction(min : ok)
    for (size_t x = 0; x < n; x++) {
        ok = ok < sbw_vexp_missing_exp(l0[x]) ? ok : sbw_vexp_missing_exp(l0[x]);
        double p0 = sbw_vexp(l0[x]);
        double dp0 = p0 - a[x], dl0 = l0[x] - b[x];
        sdp[x] += dp0;
        sdl[x] += dl0;
        c[x] += dp0 * dl0;
        pl0 += p0 * l0[x];
        ps0 += p0;
    }
    *rowpl += pl0;
    *rowsum += ps0;
    return ok == 0;
}

/* The one-pass sums shifted by the first row, and from them the group's
 * sums and co-moment about its own means:
 *   sum_r P = g a + S_dp,  sum_r L = g b + S_dl,  cm = C - S_dp S_dl / g.
 * Each term (p - a)(l - b) is >= 0 (exp is increasing) and C holds only
 * the pairs (r, first row) of g cm = sum_{r<s} (p_r - p_s)(l_r - l_s),
 * another sum of terms >= 0; so C <= g cm and the subtraction loses at most
 * a factor g, never more (an arbitrary shift could lose everything). */
size_t sbw_kl_kern_group(const double *l, size_t ld, size_t g, size_t n, double *a, double *sp,
                         double *sl, double *cm, double *rowpl, double *rowsum)
{
    const double *b = l;
    uint64_t bad = group_first(b, a, sp, sl, cm, n, &rowpl[0], &rowsum[0]);
    size_t r = 1;
    for (; r + 1 < g; r += 2)
        bad += group_pair(l + r * ld, l + (r + 1) * ld, a, b, sp, sl, cm, n, &rowpl[r], &rowsum[r]);
    if (r < g)
        bad += group_one(l + r * ld, a, b, sp, sl, cm, n, &rowpl[r], &rowsum[r]);
    double gd = (double)g, inv = 1.0 / gd;
#pragma omp simd
    for (size_t x = 0; x < n; x++) {
        cm[x] -= sp[x] * sl[x] * inv;
        sp[x] += gd * a[x];
        sl[x] += gd * b[x];
    }
    return (size_t)bad;
}

double sbw_kl_kern_exp(const double *l, double *p, size_t n, double *plogp)
{
    double pl = 0.0, ps = 0.0;
#pragma omp simd reduction(+ : pl, ps)
    for (size_t x = 0; x < n; x++) {
        p[x] = sbw_vexp(l[x]);
        pl += p[x] * l[x];
        ps += p[x];
    }
    *plogp = pl;
    return ps;
}

double sbw_kl_kern_pair(const double *pa, const double *la, const double *lb, size_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (size_t x = 0; x < n; x++)
        s += pa[x] * (la[x] - lb[x]);
    return s;
}
