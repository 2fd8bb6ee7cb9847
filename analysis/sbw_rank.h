/* sbw_rank.h -- numerical rank from a spectrum, three ways, and the
 * normalised spectrum of MoS Appendix C.1 / Figure 1.
 *
 * Given the singular values w_0 >= w_1 >= ... >= w_{k-1} >= 0 of an m x n
 * matrix (k = min(m, n)) computed in a precision with unit roundoff eps:
 *
 *   Numerical Recipes 3rd ed. (Press et al. 2007, svd.h, the estimator MoS
 *   uses for Tables 6/7): tsh = 0.5 sqrt(m + n + 1) w_0 eps, rank = the
 *   number of w_j > tsh (strict);
 *   NumPy's matrix_rank default: tol = w_0 max(m, n) eps, rank = #{w_j > tol};
 *   largest log-gap: the k' maximising log(w_{k'-1} / w_{k'}) over
 *   k' = 1..k, where values are floored at w_0 eps (the roundoff level, so
 *   exact zeros give no infinite gaps) and w_k := w_0 eps, so a matrix
 *   whose whole spectrum stands clear of roundoff has rank k.
 *
 * eps must be the roundoff of the data and of the computation: a float32
 * file promoted to double still carries FLT_EPSILON noise in every entry,
 * and measured against DBL_EPSILON it looks full rank.
 */
#ifndef SBW_RANK_H
#define SBW_RANK_H

#include "sbw_npy.h"

#include <stddef.h>

typedef struct sbw_rank_est {
    size_t m, n, k;
    double eps;
    double w0, wmin; /* largest and smallest singular value */
    double tsh;      /* Numerical Recipes threshold */
    size_t rank;     /* Numerical Recipes rank */
    double numpy_tol;
    size_t rank_numpy;
    size_t rank_gap;  /* largest-log-gap rank */
    double gap_log10; /* log10(w_{rank_gap - 1} / w_{rank_gap}) with the floors above */
} sbw_rank_est;

/* All three estimators for the spectrum s[k] (descending, k = min(m, n)).
 * A zero matrix (w_0 = 0) has every rank 0.  Errors: SBW_EINVAL (k !=
 * min(m, n), k = 0, eps not in (0, 1), s not descending or negative). */
int sbw_rank_estimate(const double *s, size_t k, size_t m, size_t n, double eps, sbw_rank_est *e);

/* eps for a --eps argument: "double" (DBL_EPSILON), "single"
 * (FLT_EPSILON), a number in (0, 1), or "auto"/NULL: FLT_EPSILON when the
 * file or the computation is float32, DBL_EPSILON otherwise.  *source is
 * set to a static description ("float64 data", "float32 data",
 * "float32 computation", "--eps").  Errors: SBW_EINVAL naming the choices. */
int sbw_rank_eps(const char *arg, sbw_npy_dtype data, sbw_npy_dtype prec, double *eps, const char **source);

typedef enum sbw_rank_norm {
    SBW_NORM_MAX = 0, /* sigma / sigma_0 */
    SBW_NORM_MINMAX   /* (sigma - sigma_min) / (sigma_0 - sigma_min) */
} sbw_rank_norm;

/* "sigma/sigma0", "(sigma-sigma_min)/(sigma0-sigma_min)"; and from "max",
 * "minmax" (SBW_EINVAL otherwise). */
const char *sbw_rank_norm_label(sbw_rank_norm norm);
int sbw_rank_norm_parse(const char *s, sbw_rank_norm *norm);

/* MoS Figure 1's quantities for s[k] (descending): v[j] the normalised
 * value in [0, 1] and cum[j] the percentage of normalised values <= v[j]
 * (ties counted together), so (v, cum) is the empirical CDF the figure
 * plots.  A zero spectrum normalises to 0; a constant non-zero one to 1.
 * Errors: SBW_EINVAL (k = 0). */
int sbw_rank_normalise(const double *s, size_t k, sbw_rank_norm norm, double *v, double *cum);

#endif
