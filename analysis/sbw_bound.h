/* sbw_bound.h -- how well can a Softmax head of dimension d fit a
 * log-probability matrix A (N x M)?  Eckart-Young lower bounds, the error
 * a given fit achieves, and the exact rank-d Softmax solution.
 *
 * A Softmax head gives log Q = H W^T - z 1^T (z_i = log Z_i): a rank-d
 * matrix plus a row shift.  Hence, for any such Q (Frobenius norms):
 *   LMS Theorem 1 (Ganea et al. 2019, translated to N x M): log Q has rank
 *   <= d + 1, so ||A - log Q||_F >= sqrt(sum_{i >= d+2} sigma_i(A)^2)
 *   (1-based; the paper prints the left side squared, it is the norm);
 *   shift-aware: log Q differs from a rank-d matrix by a row shift, and the
 *   best row shift of A - X leaves the row-centred A_c - X P, so
 *   ||A - log Q||_F >= sqrt(sum_{i > d} sigma_i(A_c)^2), A_c = A (I - 11^T/M),
 *   which is never below Theorem 1's (interlacing) and is 0 exactly when
 *   d >= d* = rank(A_c), the minimal dimension (MoS Proposition 1).
 * With a word bias (logits H W^T + 1 b^T) the head also absorbs a column
 * shift: Theorem 1's sum starts at i = d+3, and the shift-aware bound and
 * d* use the double-centred (I - 11^T/N) A (I - 11^T/M).
 *
 * The error of any Q splits orthogonally (Pythagoras), with
 * D = A - log Q and dbar_i its row means:
 *   ||D||_F^2 = ||D (I - 11^T/M)||_F^2 + M sum_i dbar_i^2,
 * the first term is at least the shift-aware bound squared, and the second
 * is what a wrong normalisation costs.
 */
#ifndef SBW_BOUND_H
#define SBW_BOUND_H

#include "sbw_rank.h"
#include "sbw_spectra.h"

#include <stdbool.h>
#include <stddef.h>

/* tail[j] = sum_{i >= j} s_i^2 for j = 0..k (tail[k] = 0), accumulated
 * from the smallest value up so that small tails keep their digits.  s is
 * descending, k values; tail has k + 1. */
void sbw_bound_tails(const double *s, size_t k, double *tail);

/* Theorem 1's bound at dimension d from tail sums of sigma(A) (k + 1
 * entries): sqrt(tail[d + 1]) (sqrt(tail[d + 2]) with bias), 0 past k. */
double sbw_bound_lms(const double *tail, size_t k, size_t d, bool bias);

/* The shift-aware bound at d from tail sums of sigma(A_c) (sigma of the
 * double-centred matrix with bias): sqrt(tail[d]), 0 past k. */
double sbw_bound_shift(const double *tail_c, size_t k, size_t d);

/* ---- the error of a given fit, computed while A streams by -------------- */

typedef struct sbw_bound_fit sbw_bound_fit;

typedef struct sbw_bound_fit_error {
    double error;   /* ||A - log Q||_F */
    double centred; /* ||(A - log Q)(I - 11^T/M)||_F */
    double norm;    /* sqrt(M sum_i dbar_i^2), the normalisation part */
} sbw_bound_fit_error;

/* Opens log Q at path (rows x cols expected: A's shape) for reading in step
 * with A.  Errors: those of sbw_npy_open, SBW_ESHAPE (shape differs).
 * *f NULL on failure. */
int sbw_bound_fit_open(sbw_bound_fit **f, const char *path, size_t rows, size_t cols);

/* An sbw_reduce_hook (ctx = the sbw_bound_fit): reads the same rows of log Q
 * and accumulates the error terms.  Errors: those of sbw_npy_read_rows,
 * SBW_EINVAL (rows out of order), SBW_EDATA (NaN/Inf in log Q; the message
 * gives the count so far and the first position).  On failure the fit
 * is good only for sbw_bound_fit_close (its reader may have consumed
 * rows it did not count). */
int sbw_bound_fit_rows(void *ctx, const double *a, size_t row0, size_t rows, size_t ld);

/* The accumulated terms; SBW_EINVAL unless every row was seen, SBW_EDATA
 * for a non-finite log Q.  *e untouched on failure. */
int sbw_bound_fit_result(const sbw_bound_fit *f, sbw_bound_fit_error *e);

void sbw_bound_fit_close(sbw_bound_fit *f);

/* d* of a matrix whose spectra sp holds: the Numerical Recipes (and NumPy,
 * gap) rank of its row-centred (bias: double-centred) variant at eps,
 * decided against the roundoff of the matrix as stored
 * (sbw_rank_estimate_scaled with sp->w0_uncentred), so a context part small
 * beside the word bias is not read as extra rank.  The variant must have
 * been computed.  Errors: those of sbw_rank_estimate_scaled, SBW_EINVAL
 * when the variant is missing; *e as sbw_rank_estimate_scaled leaves it
 * on failure. */
int sbw_bound_dstar(const sbw_spectra *sp, bool bias, double eps, sbw_rank_est *e);

/* The dimension of a fitted head read off log Q itself: the Numerical
 * Recipes rank of its row-centred (double-centred with bias) matrix, eps
 * from the file's dtype.  o: the reading options (its hook is ignored).
 * Errors: those of sbw_npy_open, sbw_spectra_compute and sbw_bound_dstar;
 * *d untouched on failure, nothing stays open. */
int sbw_bound_fit_dim(const char *path, bool bias, const sbw_reduce_opts *o, size_t *d);

/* ---- the spectra the bounds need, in one pass --------------------------- */

/* Reads A once (file or pipe) and computes sigma(A) into sp->s[SBW_VAR_PLAIN]
 * and sigma(A_c) into sp->s[SBW_VAR_ROWS] (with bias: the double-centred
 * into sp->s[SBW_VAR_BOTH]).  With fit_path, log Q is read in step with A
 * and its error terms go to *fit (NULL otherwise), checked before any SVD
 * runs.  o: reading options (its hook must be NULL).  Errors: those of
 * sbw_reduce_read, sbw_spectra_values and the fit functions.  *sp is
 * zeroed on failure. */
int sbw_bound_spectra(sbw_npy_reader *r, bool bias, const char *fit_path, const sbw_reduce_opts *o,
                      sbw_spectra *sp, sbw_bound_fit_error *fit);

/* What sbw-bound reports of a matrix besides its rows: shape, eps, the
 * NR rank of A and d* (sbw_bound_dstar). */
typedef struct sbw_bound_summary {
    size_t rows, cols, k; /* N, M, min(N, M) */
    sbw_npy_dtype dtype;
    double eps;
    const char *eps_source; /* static (sbw_rank_eps) */
    sbw_rank_est rank_a;    /* of A */
    sbw_rank_est rank_c;    /* of the centred A: rank_c.rank is d* */
} sbw_bound_summary;

/* sbw-bound's analysis of the spectra sp (as sbw_bound_spectra computes
 * them): eps from eps_arg (sbw_rank_eps), A's rank, d*, and the tail sums
 * (sbw_bound_tails) of sigma(A) into tail and of the centred matrix
 * (double-centred with bias) into tail_c, k + 1 each, from which
 * sbw_bound_lms and sbw_bound_shift give the bounds at every d.  Errors:
 * those of sbw_rank_eps, sbw_rank_estimate and sbw_bound_dstar; *sum, tail
 * and tail_c unspecified on failure. */
int sbw_bound_analyse(const sbw_spectra *sp, bool bias, const char *eps_arg, sbw_bound_summary *sum,
                      double *tail, double *tail_c);

/* The same from path in one call (the Python binding's sbw.bound, on a
 * registered array: sbw_npy_mem_add): opened through the input checker,
 * sbw_bound_spectra without a fit (method "auto", "direct" or "tsqr",
 * TSQR at its defaults), then sbw_bound_analyse into tail and tail_c of
 * nt >= k + 1 entries each.  Errors: those of sbw_check_open,
 * sbw_reduce_method_parse, sbw_bound_spectra and sbw_bound_analyse;
 * SBW_EINVAL when nt < k + 1.  On failure *sum, tail and tail_c are
 * unspecified; nothing stays allocated or open. */
int sbw_bound_file(const char *path, bool bias, const char *eps_arg, const char *method,
                   sbw_bound_summary *sum, double *tail, double *tail_c, size_t nt);

/* ---- the exact rank-d Softmax solution ---------------------------------- */

typedef struct sbw_bound_construction {
    size_t d;                /* the dimension used: min(d asked, min(N, M)) */
    sbw_bound_fit_error err; /* of the written log Q against A */
} sbw_bound_construction;

/* Writes to out_path the log Q (N x M, float64) of the Softmax head
 * logits = A_c V_d V_d^T (+ 1 mu^T with bias), where V_d are the top d
 * right singular vectors of A_c (the row-centred A; the double-centred with
 * bias, mu the column means of A), i.e. H = A_c V_d, W = V_d (b = mu):
 * the truncated SVD of the centred matrix.  Its error's centred part is
 * exactly the shift-aware bound at d, and the error is 0 (to roundoff)
 * once d >= d*.  Reads A twice, so in_path must be a regular file (or
 * SBW_EINVAL).  o: reading options for the first pass.  Errors: those of
 * sbw_reduce_read, sbw_svd_right and the .npy writer.  Nothing is left
 * under out_path on failure. */
int sbw_bound_construct(const char *in_path, const char *out_path, size_t d, bool bias,
                        const sbw_reduce_opts *o, sbw_bound_construction *res);

#endif
