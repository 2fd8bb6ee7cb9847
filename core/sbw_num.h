/* sbw_num.h -- reference row numerics: log-sum-exp, softmax, log-softmax,
 * entropy, KL divergence, cross-entropy, finiteness scans.
 *
 * These are the naive twins: plain two-pass loops in double, correct for
 * every IEEE input (-inf log-probabilities contribute p log p = 0; a row of
 * all -inf has logsumexp -inf; NaN propagates).  They are the test oracles
 * for the fast kernels in sbw_kern.h and the fallback for non-finite data.
 * A vector of length 0 has logsumexp -inf and entropy/KL 0.
 */
#ifndef SBW_NUM_H
#define SBW_NUM_H

#include <stddef.h>

/* log sum_j exp(x_j), max-shifted. */
double sbw_num_logsumexp(const double *x, size_t n);

/* y = x - logsumexp(x) and y = exp(x - logsumexp(x)); y may alias x. */
void sbw_num_log_softmax(const double *x, double *y, size_t n);
void sbw_num_softmax(const double *x, double *y, size_t n);

/* H(p) = -sum_j p_j log p_j with p_j = exp(logp_j). */
double sbw_num_entropy(const double *logp, size_t n);

/* KL(p || q) = sum_j p_j (log p_j - log q_j), from log-probabilities. */
double sbw_num_kl(const double *logp, const double *logq, size_t n);

/* H(p, q) = -sum_j p_j log q_j, from log-probabilities. */
double sbw_num_cross_entropy(const double *logp, const double *logq, size_t n);

/* Counts of NaN, +Inf and -Inf in x; *first is the index of the first
 * non-finite entry (n when there is none).  Any pointer may be NULL. */
void sbw_num_count_nonfinite(const double *x, size_t n, size_t *nan, size_t *posinf, size_t *neginf,
                             size_t *first);

/* The smaller and the larger of two sizes. */
static inline size_t sbw_num_min_sz(size_t a, size_t b) { return a < b ? a : b; }
static inline size_t sbw_num_max_sz(size_t a, size_t b) { return a > b ? a : b; }

#endif
