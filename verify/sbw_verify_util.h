/* sbw_verify_util.h -- the small numerical helpers the claims share:
 * numerical rank of an in-memory matrix, Gaussian fills, the
 * truncated-SVD Softmax construction, and a small double-precision fit
 * with its exported log Q.
 */
#ifndef SBW_VERIFY_UTIL_H
#define SBW_VERIFY_UTIL_H

#include "sbw_fit.h"
#include "sbw_mat.h"
#include "sbw_target.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Singular values of A (rows x cols, not modified) into s[min(rows, cols)],
 * descending (LAPACK dgesdd on a copy).  Errors: those of sbw_svd_values,
 * SBW_ENOMEM; on failure s is untouched or holds what LAPACK left
 * (unspecified). */
int sbw_verify_util_svals(const sbw_mat *a, double *s);

/* Numerical Recipes rank of A (not modified), eps the data's roundoff,
 * its threshold 0.5 sqrt(m + n + 1) w0 eps multiplied by scale.  Errors:
 * those of sbw_svd_values, SBW_ENOMEM; *rank untouched on failure. */
int sbw_verify_util_rank(const sbw_mat *a, double eps, double scale, size_t *rank);

/* The same with NumPy's rule, tol = w0 max(m, n) DBL_EPSILON times scale:
 * for tiny exact matrices (2 x 2, 3 x 3), where LAPACK's own rounding of
 * an exactly singular matrix reaches 1.24 eps w0, above NR's threshold
 * 0.5 sqrt(m + n + 1) eps w0 (1.12 eps w0 at 2 x 2).  Errors as
 * sbw_verify_util_rank; *rank untouched on failure. */
int sbw_verify_util_rank_numpy(const sbw_mat *a, double scale, size_t *rank);

/* The two rank rules in a caller-owned workspace, for the claims that take
 * the rank of many matrices of one shape (Property 2's pairs, Theorem 5's
 * powers): sbw_verify_util_rank_work_size puts in *bytes what a (rows,
 * cols) matrix needs (A's copy, its singular values and
 * sbw_svd_values_work's workspace; errors: those of
 * sbw_svd_values_work_size; *bytes untouched on failure).
 * sbw_verify_util_rank_work is sbw_verify_util_rank (numpy false, eps) or
 * sbw_verify_util_rank_numpy (numpy true, eps ignored) with work, bytes
 * of it, allocating nothing; the same bits (the two allocating forms are
 * this pair around one malloc).  Errors: those of the rank rules,
 * SBW_EINVAL for a workspace smaller than the query's.  On failure *rank
 * is untouched; work's contents are unspecified after any call. */
int sbw_verify_util_rank_work_size(size_t rows, size_t cols, size_t *bytes);
int sbw_verify_util_rank_work(const sbw_mat *a, double eps, double scale, bool numpy, void *work,
                              size_t bytes, size_t *rank);

/* Fills A with independent N(0, sd^2) from the sbw_rng stream (seed, stream).
 * Errors: SBW_ENOMEM (the generator: A untouched on failure). */
int sbw_verify_util_gauss(sbw_mat *a, double sd, uint64_t seed, uint64_t stream);

/* Largest |a_ij| and sqrt(sum a_ij^2). */
double sbw_verify_util_maxabs(const sbw_mat *a);
double sbw_verify_util_frob(const sbw_mat *a);

/* Largest spread max_j d_ij - min_j d_ij over the rows of D = X - Y
 * (same shapes): 0 exactly when X - Y is a row constant. */
double sbw_verify_util_row_spread(const sbw_mat *x, const sbw_mat *y);

/* The exact rank-d Softmax head of sbw-bound's construction, in memory:
 * logits = A_c V_d V_d^T, A_c = A (I - 11^T/M), V_d the top d right
 * singular vectors of A_c (A is N x M; logits N x M, allocated here).
 * Also sigma(A_c) into sc[min(N, M)] when sc is not NULL.  Errors: those
 * of sbw_svd_right, SBW_ENOMEM; *logits zeroed on failure. */
int sbw_verify_util_truncate(const sbw_mat *a, size_t d, sbw_mat *logits, double *sc);

/* Row-wise log-softmax of X into Y (same shapes; may alias). */
void sbw_verify_util_log_softmax(const sbw_mat *x, sbw_mat *y);

/* A double-precision fit of head model (d, k, bias) to log P* logp with
 * L-BFGS (or Adam at lr 0.03) for steps updates (fit_steps instead when
 * that is not 0) from seed, then its log Q (N x M, allocated here)
 * computed from the parameters in double, and the final mean KL against
 * the exact log P* into *kl.  threads: 0 = every core.  The target *t
 * (filled here) must outlive the fit *f; the caller frees both
 * (sbw_fit_free, then sbw_target_free) and logq.  Errors: those of
 * sbw_target_from_logp, sbw_fit_alloc, sbw_fit_run, sbw_obj_logq; all
 * three are freed and zeroed on failure. */
typedef struct sbw_verify_util_fit_args {
    sbw_head_model model;
    size_t d, k, knots, steps, fit_steps;
    bool bias;
    uint64_t seed;
    int threads;
    bool adam;
} sbw_verify_util_fit_args;

int sbw_verify_util_fit(const sbw_mat *logp, const sbw_verify_util_fit_args *a, sbw_target *t,
                        sbw_fit **f, sbw_mat *logq, double *kl);

#endif
