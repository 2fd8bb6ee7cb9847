/* sbw_kl_kern.c -- fast inner loops of the pairwise-KL module (finite
 * inputs only; see sbw_kl_kern.h).  Loops are written for GCC's vectoriser:
 * exp() maps to libmvec through `omp simd`. */
#include "sbw_kl_kern.h"

#include <math.h>

/* p = exp(l).  Kept apart from the sums below: the vector exp() call
 * clobbers every register, so fused accumulators would live on the stack. */
static void exp_row(const double *l, double *p, size_t n)
{
#pragma omp simd
    for (size_t x = 0; x < n; x++)
        p[x] = exp(l[x]);
}

/* Pass 1 over one row: P = exp(L), column sums, the row's sums. */
static void group_row(const double *l, double *p, double *sp, double *sl, size_t n, int first,
                      double *rowpl, double *rowsum)
{
    double pl = 0.0, ps = 0.0;
    exp_row(l, p, n);
    if (first) {
#pragma omp simd reduction(+ : pl, ps)
        for (size_t x = 0; x < n; x++) {
            sp[x] = p[x];
            sl[x] = l[x];
            pl += p[x] * l[x];
            ps += p[x];
        }
    } else {
#pragma omp simd reduction(+ : pl, ps)
        for (size_t x = 0; x < n; x++) {
            sp[x] += p[x];
            sl[x] += l[x];
            pl += p[x] * l[x];
            ps += p[x];
        }
    }
    *rowpl += pl;
    *rowsum += ps;
}

void sbw_kl_kern_group(const double *l, size_t ld, size_t g, size_t n, double *pbuf, double *sp,
                       double *sl, double *cm, double *rowpl, double *rowsum)
{
    for (size_t r = 0; r < g; r++)
        group_row(l + r * ld, pbuf + r * n, sp, sl, n, r == 0, &rowpl[r], &rowsum[r]);
    double inv = 1.0 / (double)g;
#pragma omp simd
    for (size_t x = 0; x < n; x++)
        cm[x] = 0.0;
    for (size_t r = 0; r < g; r++) {
        const double *lr = l + r * ld, *pr = pbuf + r * n;
#pragma omp simd
        for (size_t x = 0; x < n; x++)
            cm[x] += (pr[x] - sp[x] * inv) * (lr[x] - sl[x] * inv);
    }
}

double sbw_kl_kern_exp(const double *l, double *p, size_t n, double *plogp)
{
    double pl = 0.0, ps = 0.0;
    exp_row(l, p, n);
#pragma omp simd reduction(+ : pl, ps)
    for (size_t x = 0; x < n; x++) {
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
