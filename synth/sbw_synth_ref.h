/* sbw_synth_ref.h -- naive twins of the kernels in sbw_synth_kern.h: plain
 * libm loops compiled without -ffast-math, the test oracles. */
#ifndef SBW_SYNTH_REF_H
#define SBW_SYNTH_REF_H

#include <stddef.h>

/* x_j = log(x_j) + log(u_j) * inv_a. */
void sbw_synth_ref_log_boost(double *x, const double *u, double inv_a, size_t n);

/* x_j = (x_j - max) - logsumexp(x - max) (sbw_num_logsumexp); returns the
 * logsumexp of x. */
double sbw_synth_ref_normalise(double *x, size_t n);

/* out_j = logsumexp_k (logw_k + logphi_kj), logphi (K, m) with leading dim ld. */
void sbw_synth_ref_mix(const double *logw, const double *logphi, size_t k, size_t m, size_t ld,
                       double *out);

#endif
