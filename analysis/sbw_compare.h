/* sbw_compare.h -- how close a model Q is to the true distributions P*,
 * context by context (rows are the same contexts in both matrices).
 *
 * Per row i, from log-probabilities lp = log P*(.|c_i), lq = log Q(.|c_i):
 *   KL(P || Q) = sum_x p (lp - lq)   (computed directly, not as H(P,Q) - H(P))
 *   H(P, Q)    = -sum_x p lq         H(P) = -sum_x p lp
 *   mode of P and of Q (argmax, ties broken to the lowest index; a tie is
 *   recorded), and whether they match (LMS, Ganea et al. 2019, eq. 10)
 *   |top-k(P) ∩ top-k(Q)| for k = 1, 5, 10 (ties: lower index first)
 *   rank of P's mode under Q (1 = Q's mode; ties: lower index first)
 *   ||lp - lq||_2 and max_x |lp - lq|
 * and over rows: mean and median KL, mean H(P,Q) and H(P), perplexity
 * exp(mean H(P,Q)), the mode-match rate, mean top-k overlap, mean and
 * median rank, ||A_P - A_Q||_F / sqrt(N) (LMS eq. 8 is its square) and the
 * largest row error.  All in nats.
 */
#ifndef SBW_COMPARE_H
#define SBW_COMPARE_H

#include "sbw_logp.h"
#include "sbw_mat.h"
#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>

/* The top-k overlaps reported: k = 1, 5, 10. */
enum { SBW_COMPARE_NK = 3, SBW_COMPARE_KMAX = 10 };

/* k of overlap slot i (1, 5, 10). */
size_t sbw_compare_k(size_t i);

typedef struct sbw_compare_row {
    double kl, cross_entropy, entropy;
    double row_err; /* ||lp - lq||_2 */
    double max_abs; /* max_x |lp - lq| */
    size_t mode_p, mode_q;
    size_t rank;                           /* of mode_p under q, 1-based */
    unsigned char tie_p, tie_q;            /* argmax not unique */
    unsigned char overlap[SBW_COMPARE_NK]; /* |top-k(P) ∩ top-k(Q)| */
} sbw_compare_row;

typedef struct sbw_compare_summary {
    size_t rows, cols;
    double kl_mean, kl_median;
    double cross_entropy, entropy, perplexity; /* means over rows; exp(cross_entropy) */
    double mode_match;                         /* mode_matches / rows */
    size_t mode_matches, ties_p, ties_q;
    double top_overlap[SBW_COMPARE_NK]; /* mean |∩| / min(k, cols) */
    double rank_mean, rank_median;
    double frob_rms;        /* ||A_P - A_Q||_F / sqrt(rows) */
    double max_row_err;     /* max_i ||lp_i - lq_i||_2 ... */
    size_t max_row_err_row; /* ... at this row */
    double max_abs_err;     /* max_ij |A_P - A_Q| */
} sbw_compare_summary;

/* Fills out's KL, entropies, errors (from sums, SBW_CMP_NSUMS of them as
 * sbw_compare_kern_sums gives) and its modes, ties and overlaps (from the
 * top lists tp, tq of kk entries each); the rank is the caller's.  Shared
 * by sbw_compare_row_fast and its twin sbw_compare_ref_row. */
void sbw_compare_row_fill(const double *lp, const double *lq, const double *sums, const size_t *tp,
                          const size_t *tq, size_t kk, sbw_compare_row *out);

/* Doubles of workspace sbw_compare_row_fast needs for rows of m words. */
size_t sbw_compare_ws(size_t m);

/* Per-row metrics of one pair of rows lp, lq (length m >= 1).
 * ws is (sbw_compare_ws(m)) workspace; sums (may be NULL) receives sum_x exp(lp) and
 * sum_x exp(lq) for sbw_logp_check_sums.  Returns false, leaving out and
 * sums unspecified, when an entry is NaN or +-inf. */
bool sbw_compare_row_fast(const double *lp, const double *lq, size_t m, double *ws,
                          sbw_compare_row *out, double sums[2]);

/* Every row of two finite log-probability matrices P, Q (N, M).
 * rows has N entries.  Errors: SBW_ESHAPE (shapes differ or M == 0),
 * SBW_EDATA (a NaN or +-inf entry), SBW_ENOMEM.  On failure rows[] holds
 * the rows before the bad one, the rest unspecified: discard it. */
int sbw_compare_mats(const sbw_mat *p, const sbw_mat *q, sbw_compare_row *rows);

/* The same from two files read and checked through p and q (sbw_logp.h),
 * in chunks of rows spread over workers with their own readers (pipes: one
 * worker).  rows has N entries.  pg (may be NULL) counts rows.
 * Errors: SBW_ESHAPE naming both shapes; SBW_EDATA for the first bad block
 * of rows in row order -- within a block, a --probs entry that is no
 * probability (P's block, then Q's), else the first row holding a NaN or
 * +-inf (P's entry before Q's in that row), else an unnormalised row (P's,
 * then Q's); read errors, SBW_ENOMEM.  On failure rows[] is partly
 * written (discard it) and p and q are good only for sbw_logp_close. */
int sbw_compare_files(sbw_logp_reader *p, sbw_logp_reader *q, int threads, sbw_progress *pg,
                      sbw_compare_row *rows);

/* The summary over n >= 1 rows of m words (medians by gsl_sort + GSL's
 * median; sums compensated).  Errors: SBW_EINVAL (n == 0 or m == 0),
 * SBW_ENOMEM; *out untouched on failure. */
int sbw_compare_summarize(const sbw_compare_row *rows, size_t n, size_t m,
                          sbw_compare_summary *out);

#endif
