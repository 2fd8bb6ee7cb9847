/* sbw_kl_kern.h -- fast inner loops of the pairwise-KL module (sbw_kl*.c).
 *
 * Compiled with -O3 -march=native -ffast-math (Makefile rule for *_kern.c):
 * inputs must be finite log-probabilities (sbw_logp_read guarantees it),
 * except that sbw_kl_kern_group detects non-finite entries itself.  Each
 * function has a naive twin in sbw_kl.c (sbw_kl_ref_*) that the tests
 * hold it to.
 */
#ifndef SBW_KL_KERN_H
#define SBW_KL_KERN_H

#include <stdbool.h>
#include <stddef.h>

/* Statistics of a group of g rows on n columns in one pass.  L is (g, n)
 * with leading dimension ld; a is workspace of n.
 *   a[x] = exp(L[0][x])            (the shift: the group's first row)
 *   sp[x] = sum_r P[r][x]          sl[x] = sum_r L[r][x]      (P = exp(L))
 *   cm[x] = sum_r (P[r][x] - sp[x]/g) (L[r][x] - sl[x]/g)
 *   rowpl[r] += sum_x P[r][x] L[r][x]      rowsum[r] += sum_x P[r][x]
 * cm comes from sums shifted by the first row: a relative error O(g^2 eps)
 * at worst (see the .c).  sp, sl, cm are overwritten; rowpl and
 * rowsum accumulate, so a row split into column tiles sums up in tile
 * order.  g >= 1.  exp is sbw_vexp (within 2 ulp of libm).
 * Returns true when L holds a NaN or +-inf, seen from the bits (so the test
 * holds under -ffast-math); every output is then unspecified and the caller
 * locates and reports the entry. */
bool sbw_kl_kern_group(const double *l, size_t g, size_t n, size_t ld, double *a, double *sp,
                       double *sl, double *cm, double *rowpl, double *rowsum);

/* p = exp(l) for one row of n; returns sum_x p and sets *plogp = sum_x p l. */
double sbw_kl_kern_exp(const double *l, double *p, size_t n, double *plogp);

/* KL(p_a || p_b) = sum_x p_a[x] (la[x] - lb[x]) with p_a = exp(la) given. */
double sbw_kl_kern_pair(const double *pa, const double *la, const double *lb, size_t n);

#endif
