/* sbw_kl.h -- the expected pairwise KL divergence of a set of
 * distributions (MoS, Yang et al. 2018, Table 11), exactly, in one pass.
 *
 * For T rows p_1..p_T (contexts) over M words, the mean over the T(T-1)
 * ordered pairs c != c' is (DESIGN.md)
 *
 *   E = 1/(T(T-1)) sum_{c != c'} KL(p_c || p_c')
 *     = T/(T-1) ( mean_c sum_x p_c log p_c  -  sum_x pbar(x) lbar(x) )
 *
 * with pbar, lbar the column means of P and of log P.  The bracket is, per
 * column x, the covariance over contexts of p(x) and log p(x), so
 *
 *   E = 1/(T-1) sum_x sum_c (p_c(x) - pbar(x)) (log p_c(x) - lbar(x)),
 *
 * a sum of column co-moments, each >= 0 (p and log p are comonotone).  The
 * co-moments are accumulated in a numerically stable way, never as the
 * difference of the two large sums above: rows are taken in groups of
 * `group`; within a group the co-moment comes from one pass of sums shifted
 * by the group's first row, whose relative error is O(group^2 eps) at
 * worst (sbw_kl_kern.c says why; 6e-14 measured at 64), and groups are folded
 * together with the pairwise update of Chan, Golub & LeVeque (1979),
 *
 *   C_ab = C_a + C_b + (mean_b(p) - mean_a(p)) (mean_b(l) - mean_a(l)) n_a n_b / n,
 *
 * whose running sums (and the column sums of p and log p) carry the
 * exact rounding error of every addition (Knuth's TwoSum compensation).  O(T M) time, O(M) memory
 * beyond one block of rows.
 *
 * Also computed in the same pass: the mean entropy mean_c H(p_c) and the
 * entropy of the mean distribution H(pbar).  Their difference,
 * H(pbar) - mean_c H(p_c) >= 0, is the generalised Jensen-Shannon
 * divergence of the rows (the mutual information between context and word
 * under a uniform context): a companion spread measure.  All in nats.
 */
#ifndef SBW_KL_H
#define SBW_KL_H

#include "sbw_logp.h"
#include "sbw_mat.h"
#include "sbw_progress.h"

#include <stddef.h>

typedef struct sbw_kl_exact {
    size_t rows, cols;      /* T contexts, M words */
    double expected_kl;     /* mean over ordered pairs c != c' of KL(p_c || p_c') */
    double mean_entropy;    /* mean_c H(p_c) */
    double entropy_of_mean; /* H(pbar) */
    double js_spread;       /* entropy_of_mean - mean_entropy */
} sbw_kl_exact;

/* Work sizes; 0 everywhere picks the defaults.  They change roundoff only
 * (results do not depend on the thread count). */
typedef struct sbw_kl_opts {
    int threads;  /* workers (each with its own reader); 0: OpenMP's count */
    size_t group; /* rows per one-pass group (64) */
    size_t chunk; /* rows per work unit, a multiple of group (~16 MB) */
} sbw_kl_opts;

/* Running state of the one-pass computation over the rows added so far. */
typedef struct sbw_kl_acc sbw_kl_acc;

/* A new empty accumulator for rows of cols words, in groups of group rows
 * (0: 64).  Errors: SBW_ESHAPE (cols == 0), SBW_ENOMEM; *a is NULL on
 * failure. */
int sbw_kl_acc_alloc(sbw_kl_acc **a, size_t cols, size_t group);
void sbw_kl_acc_free(sbw_kl_acc *a);

/* Forgets every row (keeps the memory). */
void sbw_kl_acc_reset(sbw_kl_acc *a);

/* Adds nr rows of log-probabilities, L is (nr, cols) with leading
 * dimension ld >= cols, as the next rows.  sums (nr, may be NULL) receives
 * sum_x exp(L[i][x]) of each row, for sbw_logp_check_sums.
 * Errors: SBW_EINVAL (ld < cols); SBW_EDATA when an entry is NaN or +-inf
 * (the kernel counts them as it goes).  On failure: after SBW_EINVAL
 * nothing has changed; after SBW_EDATA a holds the groups before the bad
 * one and part of it, unusable until sbw_kl_acc_reset, and sums the
 * earlier groups' values. */
int sbw_kl_acc_add(sbw_kl_acc *a, const double *l, size_t nr, size_t ld, double *sums);

/* Folds b's rows into a as if they had been added after a's (Chan's
 * update); b is left with its compensations folded in, then reset.
 * Errors: SBW_ESHAPE when the column counts differ (a and b untouched on
 * failure). */
int sbw_kl_acc_merge(sbw_kl_acc *a, sbw_kl_acc *b);

/* The results for the rows added so far.  Errors: SBW_ESHAPE when fewer
 * than 2 rows were added (no pairs; *out untouched on failure). */
int sbw_kl_acc_result(const sbw_kl_acc *a, sbw_kl_exact *out);

/* The whole computation on an in-memory matrix of finite log-probabilities,
 * L is (T, M).  Errors: as above, SBW_ENOMEM; *out untouched on failure. */
int sbw_kl_exact_mat(const sbw_mat *l, const sbw_kl_opts *o, sbw_kl_exact *out);

/* The same on the selected rows of a file, read and checked through r
 * (sbw_logp.h): one streaming pass in chunks spread over workers, each with
 * its own reader of the file; chunks are folded in file order, so results
 * do not depend on the thread count.  pg (may be NULL) counts rows.
 * Errors: SBW_EDATA for the first bad block of rows in file order (within
 * a block, a non-finite entry is reported before an unnormalised row),
 * SBW_ESHAPE (fewer than 2 rows), read errors, SBW_ENOMEM.  On failure
 * *out is untouched and r is good only for sbw_logp_close. */
int sbw_kl_exact_file(sbw_logp_reader *r, const sbw_logp_sel *s, const sbw_kl_opts *o,
                      sbw_progress *pg, sbw_kl_exact *out);

#endif
