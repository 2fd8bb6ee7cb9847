/* sbw_kl_kern.c -- fast inner loops of the pairwise-KL module (finite
 * inputs only; see sbw_kl_kern.h).  Loops are written for GCC's vectoriser,
 * with exp inline (sbw_vexp.h) so that one loop computes p and every sum. */
#include "sbw_kl_kern.h"

#include "sbw_vexp.h"

#include <stdint.h>

/* The group's first row b is the shift, a = exp(b): sets a and that row's
 * sums, clears the shifted column sums. */
static bool group_first(const double *b, double *a, double *sdp, double *sdl, double *c, size_t n,
                        double *rowpl, double *rowsum)
{
    double pl = 0.0, ps = 0.0;
    uint64_t minexp = UINT64_MAX;
#pragma omp simd reduction(+ : pl, ps) reduction(min : minexp)
    for (size_t x = 0; x < n; x++) {
        minexp = minexp < sbw_vexp_missing_exp(b[x]) ? minexp : sbw_vexp_missing_exp(b[x]);
        double p = sbw_vexp(b[x]);
        a[x] = p;
        sdp[x] = sdl[x] = c[x] = 0.0;
        pl += p * b[x];
        ps += p;
    }
    *rowpl += pl;
    *rowsum += ps;
    return minexp == 0; /* a NaN or +-inf was met */
}

/* Two more rows l0, l1 into the sums shifted by (a, b).  Two rows per loop
 * halve the loads and stores of the column sums. */
static bool group_pair(const double *l0, const double *l1, const double *a, const double *b,
                       double *sdp, double *sdl, double *c, size_t n, double *rowpl, double *rowsum)
{
    double pl0 = 0.0, ps0 = 0.0, pl1 = 0.0, ps1 = 0.0;
    uint64_t minexp = UINT64_MAX;
#pragma omp simd reduction(+ : pl0, ps0, pl1, ps1) reduction(min : minexp)
    for (size_t x = 0; x < n; x++) {
        uint64_t m0 = sbw_vexp_missing_exp(l0[x]), m1 = sbw_vexp_missing_exp(l1[x]),
                 m = m0 < m1 ? m0 : m1;
        minexp = minexp < m ? minexp : m;
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
    return minexp == 0; /* a NaN or +-inf was met */
}

/* One more row; same as group_pair. */
static bool group_one(const double *l0, const double *a, const double *b, double *sdp, double *sdl,
                      double *c, size_t n, double *rowpl, double *rowsum)
{
    double pl0 = 0.0, ps0 = 0.0;
    uint64_t minexp = UINT64_MAX;
#pragma omp simd reduction(+ : pl0, ps0) reduction(min : minexp)
    for (size_t x = 0; x < n; x++) {
        minexp = minexp < sbw_vexp_missing_exp(l0[x]) ? minexp : sbw_vexp_missing_exp(l0[x]);
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
    return minexp == 0; /* a NaN or +-inf was met */
}

/* The one-pass sums shifted by the first row, and from them the group's
 * sums and co-moment about its own means:
 *   sum_r P = g a + S_dp,  sum_r L = g b + S_dl,  cm = C - S_dp S_dl / g.
 * Each term (p - a)(l - b) is >= 0 (exp is increasing; the computed exp
 * can miss by an ulp, which costs about ulp(a) |l - b|) and C holds only the
 * pairs (r, first row) of g cm = sum_{r<s} (p_r - p_s)(l_r - l_s), another
 * sum of terms >= 0.  So C <= g cm, hence 0 <= S_dp S_dl / g <= (g - 1) cm
 * when the product is positive, and the subtraction's condition number is
 * at most 2g - 1.  With the rounding of the g-term sums the relative error
 * of cm is O(g^2 eps) at worst (285 eps, 6e-14, the worst measured at
 * g = 64; test_kl holds it to 2 g (g + 1) eps against a long-double
 * two-pass) -- where an arbitrary shift could lose every digit. */
bool sbw_kl_kern_group(const double *l, size_t g, size_t n, size_t ld, double *a, double *sp,
                       double *sl, double *cm, double *rowpl, double *rowsum)
{
    const double *b = l;
    bool bad = group_first(b, a, sp, sl, cm, n, &rowpl[0], &rowsum[0]);
    size_t r = 1;
    for (; r + 1 < g; r += 2)
        bad |= group_pair(l + r * ld, l + (r + 1) * ld, a, b, sp, sl, cm, n, &rowpl[r], &rowsum[r]);
    if (r < g)
        bad |= group_one(l + r * ld, a, b, sp, sl, cm, n, &rowpl[r], &rowsum[r]);
    double gd = (double)g, inv = 1.0 / gd;
#pragma omp simd
    for (size_t x = 0; x < n; x++) {
        cm[x] -= sp[x] * sl[x] * inv;
        sp[x] += gd * a[x];
        sl[x] += gd * b[x];
    }
    return bad;
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
