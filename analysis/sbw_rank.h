/* sbw_rank.h -- numerical rank from a spectrum, three ways (and every named
 * measure side by side: sbw_rank_measures), and the normalised spectrum of
 * MoS Appendix C.1 / Figure 1.
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
 * and measured against DBL_EPSILON it looks full rank.  And w_0 must be
 * the scale of that roundoff: for a centred matrix, the uncentred one's
 * (sbw_rank_estimate_scaled).
 */
#ifndef SBW_RANK_H
#define SBW_RANK_H

#include "sbw_npy.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_rank_est {
    size_t m, n, k;
    double eps;
    double w0, wmin; /* largest and smallest singular value */
    double scale;    /* what the thresholds multiply: max(w0, the uncentred matrix's) */
    double tsh;      /* Numerical Recipes threshold */
    size_t rank;     /* Numerical Recipes rank */
    double numpy_tol;
    size_t rank_numpy;
    size_t rank_gap;    /* largest-log-gap rank */
    double gap_log10;   /* log10(w_{rank_gap - 1} / w_{rank_gap}) with the floors above */
    double tsh_single;  /* the NR threshold at float32's roundoff: tsh with eps = FLT_EPSILON */
    size_t rank_single; /* the NR rank at that threshold: what the same spectrum gives a matrix
                           stored in float32, as the papers' PyTorch models were */
} sbw_rank_est;

/* All three estimators for the spectrum s[k] (descending, k = min(m, n)),
 * and the NR rank at float32's roundoff (rank_single: the same rule and
 * scale with eps = FLT_EPSILON, whatever eps is).  A zero matrix (w_0 = 0) has every rank 0.
 * Errors: SBW_EINVAL (k != min(m, n), k = 0, eps not in (0, 1), s not
 * descending or negative).  *e untouched on failure (every check comes
 * first). */
int sbw_rank_estimate(const double *s, size_t k, size_t m, size_t n, double eps, sbw_rank_est *e);

/* The same for a centred matrix whose entries were centred from an
 * uncentred one with sigma_1 >= w0_uncentred (sbw_reduce_uncentred_w0):
 * every threshold above multiplies scale = max(w0, w0_uncentred) instead
 * of w0.  The stored entries carry roundoff eps |a_ij|, an error E the NR
 * rule allows at 0.5 sqrt(m+n+1) eps sigma_1(A) for A itself; centring
 * multiplies E by orthogonal projections, which keep it (||P E Q|| <=
 * ||E||, and its rounding singular values stay at that level), while
 * sigma_1 of the centred matrix can be far smaller than A's (a word bias
 * or row means that dominate).  So the centred rank is decided against
 * the uncentred matrix's roundoff: never a lower threshold than w0 alone,
 * never a higher one than the NR rule gives A.  w0_uncentred = 0 is
 * sbw_rank_estimate.  Errors: as sbw_rank_estimate, SBW_EINVAL for a
 * negative or non-finite w0_uncentred; *e untouched on failure. */
int sbw_rank_estimate_scaled(const double *s, size_t k, size_t m, size_t n, double eps,
                             double w0_uncentred, sbw_rank_est *e);

/* eps for a --eps argument: "double" (DBL_EPSILON), "single"
 * (FLT_EPSILON), a number in (0, 1), or "auto"/NULL: FLT_EPSILON when the
 * file or the computation is float32, DBL_EPSILON otherwise.  *source is
 * set to a static description ("float64 data", "float32 data",
 * "float32 computation", "--eps").  Errors: SBW_EINVAL naming the choices;
 * on failure *source is "--eps" and *eps may hold 0 or 1 (the bounds of a
 * number refused): use neither. */
int sbw_rank_eps(const char *arg, sbw_npy_dtype data, sbw_npy_dtype prec, double *eps,
                 const char **source);

/* Every named rank measure, side by side (sbw-rank --measures), for the
 * spectrum s[k] of an m x n matrix and the roundoff eps:
 *
 *   nr        Numerical Recipes, #{w_j > 0.5 sqrt(m+n+1) w_0 eps} (as above);
 *   numpy     numpy.linalg.matrix_rank's default, #{w_j > w_0 max(m,n) eps};
 *   pytorch   torch.linalg.matrix_rank, #{w_j > max(atol, rtol w_0)} with
 *             rtol = max(m,n) eps when atol = 0 and rtol = 0 when atol > 0
 *             (PyTorch's rule for an rtol left unspecified);
 *   julia     LinearAlgebra.rank's default, #{w_j > min(m,n) eps w_0};
 *   gap       the largest-log-gap rank (as above);
 *   eps_eff_1e-3, _1e-4, _1e-5   Parthiban et al. 2021's epsilon-effective
 *             rank: the smallest r with sum_{j<r} w_j^2 >= (1 - e) sum w_j^2,
 *             decided on the tail, sum_{j>=r} w_j^2 <= e sum w_j^2 (summed
 *             from the smallest up, so no 1 - e cancels);
 *   stable    ||A||_F^2 / ||A||_2^2 = sum (w_j / w_0)^2 (not an integer);
 *   entropy   Roy & Vetterli 2007's effective rank exp(H(p)), p_j = w_j /
 *             sum w (0 log 0 = 0; not an integer).
 *
 * threshold is the cut each rule applies: a singular value for the
 * counting rules (nr, numpy, pytorch, julia; the floor w_0 eps for gap), the
 * tail energy fraction e for eps_eff, NAN for stable and entropy; on says
 * which ("sigma", "tail_energy", "none").  A zero matrix has every measure 0. */
#define SBW_RANK_NMEASURES 10

typedef struct sbw_rank_measure {
    const char *name; /* "nr", "numpy", ... (static) */
    double rank;      /* an integer for every measure but stable and entropy */
    double threshold; /* see above */
    const char *on;   /* "sigma", "tail_energy" or "none" (static) */
    const char *rule; /* the rule in one line (static) */
} sbw_rank_measure;

/* Fills out[SBW_RANK_NMEASURES] in the order above for s[k] (descending,
 * k = min(m, n)); atol >= 0 is PyTorch's absolute tolerance (0 for its
 * default).  Errors: those of sbw_rank_estimate, SBW_EINVAL for atol < 0;
 * out[] untouched on failure. */
int sbw_rank_measures(const double *s, size_t k, size_t m, size_t n, double eps, double atol,
                      sbw_rank_measure *out);

/* The same with the counting rules' w0 (nr, numpy, pytorch, julia, and
 * gap's floor) replaced by max(w0, w0_uncentred), as
 * sbw_rank_estimate_scaled; the energy measures (eps_eff, stable,
 * entropy) are those of s itself.  Errors, and what is left on failure, as
 * sbw_rank_measures. */
int sbw_rank_measures_scaled(const double *s, size_t k, size_t m, size_t n, double eps, double atol,
                             double w0_uncentred, sbw_rank_measure *out);

/* How close a cut may come to the spectrum before the rank it gives is
 * reported as fragile: 1% of the threshold. */
#define SBW_RANK_NEAR 0.01

/* True when some s_j (of s[k]) lies within rel * thr of the threshold thr
 * > 0 (|s_j - thr| <= rel thr), the first such index into *j: a counting
 * rule's rank then hangs on roundoff in s_j or in thr.  False for thr <= 0
 * (a zero matrix). */
bool sbw_rank_near_cut(const double *s, size_t k, double thr, double rel, size_t *j);

/* The same for the epsilon-effective rank: true when a tail fraction
 * sum_{j>=r} s_j^2 / sum_j s_j^2 lies within rel * e of e; *r and *frac
 * are the first such (from the smallest up).  False for a zero spectrum. */
bool sbw_rank_near_tail(const double *s, size_t k, double e, double rel, size_t *r, double *frac);

/* For each measure of ms[n] (as sbw_rank_measures fills them) whose cut is
 * within SBW_RANK_NEAR of the spectrum s[k] -- a threshold on sigma (nr,
 * numpy, pytorch, julia) or on the tail energy (eps_eff_*) -- records a
 * "rank_near_threshold" warning (sbw_table_warn) naming the measure, the
 * threshold and the singular value.  gap (decided by the largest gap, whose
 * size is its own margin), stable and entropy have no cut.  Returns how
 * many measures were fragile. */
size_t sbw_rank_warn_near(const double *s, size_t k, const sbw_rank_measure *ms, size_t n);

/* Parthiban's epsilon-effective rank of s[k] (descending) for tail
 * fraction e in (0, 1): the smallest r with sum_{j>=r} s_j^2 <= e sum s_j^2
 * (0 for a zero spectrum). */
size_t sbw_rank_eps_effective(const double *s, size_t k, double e);

/* ||A||_F^2 / sigma_1^2 and exp(entropy of s / sum s) of s[k] (0 for a
 * zero spectrum). */
double sbw_rank_stable(const double *s, size_t k);
double sbw_rank_entropy(const double *s, size_t k);

typedef enum sbw_rank_norm {
    SBW_NORM_MAX = 0, /* sigma / sigma_0 */
    SBW_NORM_MINMAX   /* (sigma - sigma_min) / (sigma_0 - sigma_min) */
} sbw_rank_norm;

/* "sigma/sigma0", "(sigma-sigma_min)/(sigma0-sigma_min)"; and from "max",
 * "minmax" (SBW_EINVAL otherwise; *norm untouched on failure). */
const char *sbw_rank_norm_label(sbw_rank_norm norm);
int sbw_rank_norm_parse(const char *s, sbw_rank_norm *norm);

/* MoS Figure 1's quantities for s[k] (descending): v[j] the normalised
 * value in [0, 1] and cum[j] the percentage of normalised values <= v[j]
 * (ties counted together), so (v, cum) is the empirical CDF the figure
 * plots.  A zero spectrum normalises to 0; a constant non-zero one to 1.
 * Errors: SBW_EINVAL (k = 0; v and cum untouched on failure). */
int sbw_rank_normalise(const double *s, size_t k, sbw_rank_norm norm, double *v, double *cum);

/* The columns of sbw-rank's --spectrum table for s[k] (descending), each
 * k values: rel[j] = s_j / s_0 (0 when s_0 = 0), lg[j] = log10 s_j (nan
 * for an exact 0, the tables' blank), and v, cum as sbw_rank_normalise
 * gives them.  Errors: SBW_EINVAL (k = 0; nothing written on failure). */
int sbw_rank_spectrum(const double *s, size_t k, sbw_rank_norm norm, double *rel, double *lg,
                      double *v, double *cum);

#endif
