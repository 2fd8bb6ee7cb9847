/* sbw_kl_ref.h -- naive twins (test oracles) of sbw_kl_kern.h and of the
 * exact expected pairwise KL of sbw_kl.h. */
#ifndef SBW_KL_REF_H
#define SBW_KL_REF_H

#include "sbw_kl.h"

#include <stddef.h>

/* The definition, brute force: O(T^2 M) double loop of sbw_num_kl over all
 * ordered pairs, sbw_num_entropy per row, pbar by plain sums.  Handles -inf
 * entries as zero probabilities.  L is (T, M), T >= 2.  Errors: SBW_ESHAPE,
 * SBW_ENOMEM; *out untouched on failure. */
int sbw_kl_ref_exact(const sbw_mat *l, sbw_kl_exact *out);

/* Plain-loop twins of sbw_kl_kern_group / _exp / _pair (same contracts;
 * libm's exp; the group's co-moment by two passes, about the means). */
void sbw_kl_ref_group(const double *l, size_t g, size_t n, size_t ld, double *a, double *sp,
                      double *sl, double *cm, double *rowpl, double *rowsum);
double sbw_kl_ref_exp(const double *l, double *p, size_t n, double *plogp);
double sbw_kl_ref_pair(const double *pa, const double *la, const double *lb, size_t n);

#endif
