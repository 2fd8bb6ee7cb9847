/* sbw_synth_kern.h -- the inner loops of the generators (synth/sbw_synth.c):
 * logs of gamma variates, log-space normalisation, log-space mixtures.
 *
 * Compiled with -O3 -march=native -ffast-math (Makefile: *_kern.c): inputs
 * must be finite and positive where a log is taken; nothing here tests for
 * NaN or Inf.  Each function has a naive twin in sbw_synth_ref.h, the test
 * oracle, which it matches to a few eps times the magnitudes involved.
 */
#ifndef SBW_SYNTH_KERN_H
#define SBW_SYNTH_KERN_H

#include <stddef.h>

/* x_j = log(x_j) + log(u_j) * inv_a, n entries: the log of the gamma
 * variate X U^(1/a) (X ~ Gamma(a+1), U uniform on (0,1]), Marsaglia and
 * Tsang (2000), section 6.  x_j > 0, u_j > 0, inv_a finite. */
void sbw_synth_kern_log_boost(double *x, const double *u, double inv_a, size_t n);

/* The same with one inv_a_j per entry (inv_a_j = 0 and u_j = 1 when a_j >= 1). */
void sbw_synth_kern_log_boost_vec(double *x, const double *u, const double *inv_a, size_t n);

/* x_j = log(x_j), x_j > 0. */
void sbw_synth_kern_log(double *x, size_t n);

/* logsumexp(x), n >= 1: max-shifted, the sum of exp pairwise (blocks of
 * 256) so that its rounding error grows like log2(n), not n. */
double sbw_synth_kern_logsumexp(const double *x, size_t n);

/* x_j = (x_j - max) - log sum_k exp(x_k - max), n >= 1, so each entry is
 * rounded relative to |log p_j|, not to |max|; the sum pairwise as above.
 * Returns the logsumexp of the input. */
double sbw_synth_kern_normalise(double *x, size_t n);

/* out_j = logsumexp_k (logw_k + logphi_kj) for j < m, k < K: a mixture of K
 * distributions in log space.  logphi is (K, m) with leading dim ld;
 * scratch holds m doubles. */
void sbw_synth_kern_mix(const double *logw, const double *logphi, size_t k, size_t m, size_t ld,
                        double *out, double *scratch);

/* y_j = exp(x_j). */
void sbw_synth_kern_exp(const double *x, double *y, size_t n);

#endif
