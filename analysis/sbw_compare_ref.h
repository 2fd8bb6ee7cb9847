/* sbw_compare_ref.h -- naive twins (test oracles) of sbw_compare_kern.h
 * and of sbw_compare_row_fast, with the same contracts. */
#ifndef SBW_COMPARE_REF_H
#define SBW_COMPARE_REF_H

#include "sbw_compare.h"

#include <stddef.h>

/* sbw_compare_row_fast by definition: sbw_num_* sums, a full sort of the
 * indices for top-k and rank.  Errors: SBW_ENOMEM, SBW_EINVAL (m = 0).
 * On failure *out may hold the sums and top-k (not the rank): discard
 * it. */
int sbw_compare_ref_row(const double *lp, const double *lq, size_t m, sbw_compare_row *out);

/* Twin of sbw_compare_kern_sums (plain loops; sums has SBW_CMP_NSUMS). */
void sbw_compare_ref_sums(const double *lp, const double *lq, size_t m, double *sums);

/* Twins of sbw_compare_kern_topk / _rank (full sort; same contracts).
 * Errors: SBW_EINVAL (m = 0, i >= m), SBW_ENOMEM; idx, *n and *rank
 * untouched on failure. */
int sbw_compare_ref_topk(const double *x, size_t m, size_t k, size_t *idx, size_t *n);
int sbw_compare_ref_rank(const double *x, size_t m, size_t i, size_t *rank);

#endif
