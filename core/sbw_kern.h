/* sbw_kern.h -- fast row kernels: log-sum-exp, softmax, log-softmax,
 * entropy, KL, cross-entropy over a block of rows.
 *
 * Compiled with -O3 -march=native -ffast-math (see Makefile: *_kern.c), so
 * exp/log vectorise through glibc's libmvec.  The price: inputs must be
 * finite.  Callers check finiteness first (sbw_num_count_nonfinite) and use
 * the naive twins in sbw_num.h otherwise; nothing in this file tests for
 * NaN or Inf.  Sums accumulate in double.  Each function matches its
 * sbw_num_* twin to a few eps times the magnitudes involved.
 */
#ifndef SBW_KERN_H
#define SBW_KERN_H

#include <stddef.h>

/* max_j x_j of a finite row of length n >= 1 (vectorised). */
double sbw_kern_max(const double *x, size_t n);

/* log sum_j exp(x_j) of one finite row of length n >= 1. */
double sbw_kern_logsumexp(const double *x, size_t n);

/* sum_j exp(x_j - shift) (shift = max x: no overflow, as logsumexp). */
double sbw_kern_sum_exp_shift(const double *x, size_t n, double shift);

/* out[i] = logsumexp of row i of A (rows x cols, leading dim lda). */
void sbw_kern_logsumexp_rows(const double *a, size_t rows, size_t cols, size_t lda, double *out);

/* Y = log_softmax(A) / softmax(A) row-wise; Y may alias A (ldy == lda). */
void sbw_kern_log_softmax_rows(const double *a, size_t rows, size_t cols, size_t lda, double *y,
                               size_t ldy);
void sbw_kern_softmax_rows(const double *a, size_t rows, size_t cols, size_t lda, double *y,
                           size_t ldy);

/* Entropy, KL(p||q) and cross-entropy H(p,q) of one row pair given as
 * finite log-probabilities (see sbw_num.h for the definitions). */
double sbw_kern_entropy(const double *logp, size_t n);
double sbw_kern_kl(const double *logp, const double *logq, size_t n);
double sbw_kern_cross_entropy(const double *logp, const double *logq, size_t n);

#endif
