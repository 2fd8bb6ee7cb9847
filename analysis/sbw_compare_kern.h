/* sbw_compare_kern.h -- fast inner loops of sbw_compare.c.
 *
 * Compiled with -O3 -march=native -ffast-math (Makefile rule for *_kern.c):
 * inputs must be finite, except that sbw_compare_kern_sums reports NaN and
 * +-inf itself.  The naive twins are sbw_compare_ref_* in sbw_compare.c.
 */
#ifndef SBW_COMPARE_KERN_H
#define SBW_COMPARE_KERN_H

#include <stdbool.h>
#include <stddef.h>

/* Indices into the sums filled by sbw_compare_kern_sums. */
enum {
    SBW_CMP_SUM_P,  /* sum_x p                     (p = exp(lp)) */
    SBW_CMP_SUM_Q,  /* sum_x q                     (q = exp(lq)) */
    SBW_CMP_PLP,    /* sum_x p lp     = -H(P)                   */
    SBW_CMP_PLQ,    /* sum_x p lq     = -H(P, Q)                */
    SBW_CMP_KL,     /* sum_x p (lp - lq) = KL(P || Q), directly  */
    SBW_CMP_SQ,     /* sum_x (lp - lq)^2                        */
    SBW_CMP_MAXABS, /* max_x |lp - lq|                          */
    SBW_CMP_NSUMS
};

/* The sums above for one pair of rows lp, lq of length m >= 1 (exp is
 * sbw_vexp, within 2 ulp of libm).  Returns false when an entry of lp or
 * lq is NaN or +-inf (seen from its bits); the sums are then unspecified. */
bool sbw_compare_kern_sums(const double *lp, const double *lq, size_t m, double *sums);

/* Block length of the top-k search: ws needs ceil(m / block) doubles. */
enum { SBW_CMP_TOPK_BLOCK = 64 };

/* The k largest entries of x (length m), ordered by value descending and,
 * among equal values, by index ascending: idx[0..min(k, m)).  Returns
 * min(k, m).  k <= 64.  Two passes: the maxima of blocks of
 * SBW_CMP_TOPK_BLOCK entries (into ws) give a threshold -- their k-th
 * largest -- that at least k entries reach; only blocks whose maximum
 * reaches it are scanned. */
size_t sbw_compare_kern_topk(const double *x, size_t m, size_t k, size_t *idx, double *ws);

/* 1-based rank of entry i in that order: 1 + #{j : x_j > x_i} +
 * #{j < i : x_j == x_i}. */
size_t sbw_compare_kern_rank(const double *x, size_t m, size_t i);

#endif
