/* sbw_kl_pairs.h -- the sampled estimator of the expected pairwise KL, as
 * the MoS paper computed it for Table 11 (Yang et al. 2018, appendix C.1):
 * S ordered pairs (c, c') with c != c' drawn uniformly, with replacement,
 * from the selected rows; KL(p_c || p_c') of each; their mean, standard
 * error, a 95% Student-t interval and quantiles.  The mean is an unbiased
 * estimate of the exact value sbw_kl.h computes in one pass, so the pair
 * is a check of each other; the quantiles describe the distribution of KL
 * over pairs, which the exact mean cannot.
 */
#ifndef SBW_KL_PAIRS_H
#define SBW_KL_PAIRS_H

#include "sbw_logp.h"
#include "sbw_mat.h"
#include "sbw_progress.h"

#include <stddef.h>
#include <stdint.h>

/* Summary of n sampled KL values. */
typedef struct sbw_kl_pairs_sample {
    size_t n;
    double mean, sd, se;                         /* sd with n - 1; se = sd / sqrt(n) */
    double ci_lo, ci_hi;                         /* mean -+ t_{0.975, n-1} se */
    double min, q05, q25, median, q75, q95, max; /* linear interpolation */
} sbw_kl_pairs_sample;

/* Draws npairs ordered pairs of distinct indices in [0, n): a[k] uniform,
 * b[k] uniform among the other n - 1, from the MT19937 stream (seed, 1)
 * (stream 0 is the row sample's).  Errors: SBW_EINVAL when n < 2 or n
 * exceeds the generator's range, SBW_ENOMEM; a and b untouched on
 * failure. */
int sbw_kl_pairs_draw(size_t n, size_t npairs, uint64_t seed, size_t *a, size_t *b);

/* kl[k] = KL(row a[k] || row b[k]) of the finite log-probability matrix L
 * (T, M); indices must be < T.  Errors: SBW_EINVAL (index out of range),
 * SBW_ENOMEM; kl untouched on failure (every index is checked first). */
int sbw_kl_pairs_mat(const sbw_mat *l, const size_t *a, const size_t *b, size_t npairs, double *kl);

/* The same for selected rows of a file (a[k], b[k] index the selection s),
 * read through r: pairs are visited sorted by (a, b) so each first row is
 * read and exponentiated once, spread over workers with their own readers.
 * Every row read is checked for finiteness, and each first row's
 * normalisation is checked too.  kl is in draw order whatever the thread
 * count.  pg (may be NULL) counts pairs.  Errors: SBW_EINVAL when r is not
 * seekable or an index is out of range, SBW_EDATA, read errors, SBW_ENOMEM.
 * On failure kl[] is partly written (discard it) and r is good only for
 * sbw_logp_close. */
int sbw_kl_pairs_file(sbw_logp_reader *r, const sbw_logp_sel *s, const size_t *a, const size_t *b,
                      size_t npairs, int threads, sbw_progress *pg, double *kl);

/* Mean, sd, se, 95% interval (GSL: gsl_stats_mean, gsl_stats_sd_m,
 * gsl_cdf_tdist_Pinv) and quantiles (gsl_stats_quantile_from_sorted_data on
 * a sorted copy) of kl[0..n).  sd, se and the interval are NaN when n < 2.
 * Errors: SBW_EINVAL when n == 0, SBW_ENOMEM; *out untouched on failure. */
int sbw_kl_pairs_stats(const double *kl, size_t n, sbw_kl_pairs_sample *out);

#endif
