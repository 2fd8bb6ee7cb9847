/* sbw_check.h -- the one checker of matrix input: shape, finiteness (from
 * the bits), row normalisation with a tolerance that follows the file's
 * dtype, and the messages every tool prints for each failure.
 *
 * Every tool that reads a matrix goes through these functions, so the same
 * bad file gets the same one-line reason (naming the file) and the same
 * exit status (1, bad data) from sbw-info, sbw-rank, sbw-bound, sbw-kl,
 * sbw-compare, sbw-fit and sbw-synth --alpha-file.  Streaming readers keep
 * their own fast loops and call the verdict and message functions here.
 *
 * Tolerance rule: a row of log-probabilities is normalised when
 * |logsumexp(row)| <= sbw_check_row_tol(dtype, tol, max_j |x_j|), i.e. the
 * larger of the caller's tol (a float64-scale figure, SBW_CHECK_TOL by
 * default) and SBW_CHECK_ULPS * eps(dtype) * max(1, max_j |x_j|).  Rounding
 * each x_j to the file's precision moves logsumexp by at most
 * sum_j p_j |x_j| eps/2 <= max_j |x_j| eps/2; the factor SBW_CHECK_ULPS
 * leaves room for the rounding of the writer's own log-softmax.  So a
 * float32 file is judged at float32 rounding (about 1e-6 for entries near
 * -10), a float64 file at the caller's tol.
 */
#ifndef SBW_CHECK_H
#define SBW_CHECK_H

#include "sbw_npy.h"

#include <stdbool.h>
#include <stddef.h>

/* Default largest |logsumexp(row)| of a float64 row (every tool's --tol). */
#define SBW_CHECK_TOL 1e-6

/* Units of eps(dtype) * max(1, max |x|) always allowed (see above). */
#define SBW_CHECK_ULPS 8.0

/* What a tool needs of an input's shape. */
typedef enum sbw_check_shape_kind {
    SBW_SHAPE_MATRIX, /* 2-D, at least one row and one column */
    SBW_SHAPE_ANY,    /* 1-D or 2-D, at least one item (sbw-info) */
    SBW_SHAPE_VECTOR  /* 1-D, or 2-D with one row or one column; not empty */
} sbw_check_shape_kind;

/* SBW_OK when the header in describes what kind asks for; else SBW_ESHAPE
 * with one of the shared reasons, each starting with path:
 *   "empty matrix (3 x 0): it has no columns" (and "no rows", "no rows or
 *   columns"), "empty array (0 items)" for a 1-D file of length 0,
 *   "a 1-D array of 5 items, not a matrix: save it as one row ..." and
 *   "not a vector: got shape 3 x 4 ...".
 * Files of another dtype or dimension never get here: sbw_npy_open refuses
 * them (SBW_EDTYPE).  Tools map SBW_ESHAPE to exit 1 (bad data). */
int sbw_check_shape(const sbw_npy_info *in, const char *path, sbw_check_shape_kind kind);

/* sbw_npy_open followed by sbw_check_shape: *r is an open reader on
 * success and NULL on failure (closed).  Errors: those two's. */
int sbw_check_open(sbw_npy_reader **r, const char *path, sbw_check_shape_kind kind);

/* Machine epsilon of the file's precision (DBL_EPSILON or FLT_EPSILON;
 * 2^-10 for a safetensors F16 tensor, 2^-7 for BF16). */
double sbw_check_eps(sbw_npy_dtype dtype);

/* The normalisation tolerance of one row of a file of dtype whose largest
 * |entry| is amax (see the rule above); tol is the caller's. */
double sbw_check_row_tol(sbw_npy_dtype dtype, double tol, double amax);

/* max_j |x_j| over the finite entries of x (0 when there is none). */
double sbw_check_amax(const double *x, size_t n);

/* True when every x_j is finite.  Read from the bits (an exponent of all
 * ones is NaN or +-inf), so it holds in code built with -ffast-math and
 * vectorises (a min-reduction). */
bool sbw_check_all_finite(const double *x, size_t n);

/* Non-finite entries met by a scan: counts, and the first in row-major
 * order.  Zero-initialise ({0}) before the first call. */
typedef struct sbw_check_bad {
    size_t nan, posinf, neginf;
    size_t row, col; /* the first one, when any */
    bool any;
} sbw_check_bad;

/* Adds the non-finite entries of rows [row0, row0 + rows) held in a
 * (rows x cols, leading dimension ld) to b. */
void sbw_check_bad_rows(sbw_check_bad *b, const double *a, size_t row0, size_t rows, size_t cols,
                        size_t ld);

/* Folds b into into (counts added, the earlier first position kept). */
void sbw_check_bad_merge(sbw_check_bad *into, const sbw_check_bad *b);

/* SBW_OK when b saw nothing; else SBW_EDATA with the shared reason
 * "PATH: 3 non-finite entries[ WHERE] (1 NaN, 1 +Inf, 1 -Inf), the first at
 * row 1, column 2 (0-based)", plus, when there is a -inf, that it is a zero
 * probability.  where (" in log Q", " in exp(A)") may be NULL. */
int sbw_check_bad_error(const sbw_check_bad *b, const char *path, const char *where);

/* SBW_EDATA naming one non-finite entry, the shared reason of readers that
 * stop at the first: "PATH: row 5, column 2 (0-based) is NaN" (or +inf, or
 * -inf -- "0" when probs, the file holding probabilities -- "a zero
 * probability" with the remedy).  v must be non-finite (or 0 with probs). */
int sbw_check_entry_error(const char *path, size_t row, size_t col, double v, bool probs);

/* True when x[0..n) looks like a row of probabilities: every entry in
 * [0, 1] and |sum - 1| <= sbw_check_row_tol(dtype, tol, 1).  Used to say
 * "pass log P, not P" when a row fails as log-probabilities. */
bool sbw_check_looks_like_probs(const double *x, size_t n, sbw_npy_dtype dtype, double tol);

/* SBW_EDATA for a row of log-probabilities x[0..n) (0-based file row)
 * whose logsumexp lse exceeds tol (the row's tolerance, sbw_check_row_tol):
 * "PATH: row 4 (0-based) is not normalised: logsumexp = 0.003, |.| > tol
 * 1e-06 (HINT)".  HINT is the tool's remedy: if_probs when the row looks
 * like probabilities (sbw_check_looks_like_probs at tol), else otherwise. */
int sbw_check_unnormalised(const char *path, size_t row, const double *x, size_t n, double lse,
                           double tol, const char *if_probs, const char *otherwise);

#endif
