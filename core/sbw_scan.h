/* sbw_scan.h -- one streaming pass over a matrix: value range, NaN/Inf
 * counts with the first position, and whether the rows look like
 * log-probabilities (|logsumexp| <= tol) or probabilities (entries in
 * [0, 1], |sum - 1| <= tol), where tol follows the file's dtype as
 * sbw_check_row_tol says (a float32 file is judged at float32 rounding).
 * Used by sbw-info; its messages are those of sbw_check.h.
 */
#ifndef SBW_SCAN_H
#define SBW_SCAN_H

#include "sbw_npy.h"
#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_scan {
    double tol;          /* the caller's (float64-scale) tolerance */
    sbw_npy_dtype dtype; /* the file's precision (sbw_scan_reader sets it) */
    size_t rows, cols;   /* scanned so far */
    double min, max;     /* over finite entries (+inf/-inf when none) */
    size_t nan, posinf, neginf;
    bool any_bad;            /* some NaN or Inf seen */
    size_t bad_row, bad_col; /* first NaN/Inf, row-major order */
    size_t rows_logprob;     /* rows with |logsumexp| <= tol */
    size_t rows_prob;        /* rows in [0,1] with |sum - 1| <= tol */
    double max_abs_lse;      /* largest |logsumexp(row)| (NaN rows skipped) */
    size_t worst_lse_row;
    double worst_lse_tol;   /* the tolerance that row was judged at */
    size_t rows_unit;       /* rows with every entry in [0, 1] */
    double max_abs_sum_dev; /* largest |sum(row) - 1| over those rows */
} sbw_scan;

/* Starts an empty scan with row-normalisation tolerance tol, for float64
 * data (set s->dtype for other data; sbw_scan_reader does). */
void sbw_scan_init(sbw_scan *s, double tol);

/* Adds rows x cols (leading dim ld) as the next rows of the matrix. */
void sbw_scan_rows(sbw_scan *s, const double *a, size_t rows, size_t cols, size_t ld);

/* "log-probabilities", "probabilities", "other" or "empty". */
const char *sbw_scan_kind(const sbw_scan *s);

/* Scans the whole of an open reader from its current row, in blocks of
 * about 8 MB, judging rows at the file's dtype; progress may be NULL.
 * Errors: those of sbw_npy_read_rows, SBW_ENOMEM.  On failure s holds the
 * rows scanned so far (a partial scan: discard it) and the reader is good
 * only for sbw_npy_close. */
int sbw_scan_reader(sbw_npy_reader *r, sbw_scan *s, sbw_progress *progress);

/* What sbw_scan_reader_each calls on each block after scanning it: rows
 * row0 .. row0 + nr - 1 of the matrix, nr x cols, row-major.  A nonzero
 * return stops the pass, which returns it. */
typedef int (*sbw_scan_each_fn)(void *ctx, const double *a, size_t row0, size_t nr, size_t cols);

/* sbw_scan_reader that also hands every block to each (NULL: none), so a
 * caller computes per-row values in the same single pass (a file on stdin
 * is read once).  Errors: sbw_scan_reader's, and each's; on failure as
 * sbw_scan_reader (each has seen the blocks before the failure). */
int sbw_scan_reader_each(sbw_npy_reader *r, sbw_scan *s, sbw_progress *progress,
                         sbw_scan_each_fn each, void *ctx);

/* SBW_EDATA unless the scanned matrix is all finite, with the shared reason
 * of sbw_check_bad_error (path, the counts, the first position and, for
 * -inf, that it is a zero probability). */
int sbw_scan_check_finite(const sbw_scan *s, const char *path);

/* SBW_EDATA unless every scanned row is normalised (|logsumexp| within its
 * sbw_check_row_tol), with a reason naming path, the worst row, its
 * logsumexp and the tolerance it was judged at. */
int sbw_scan_check_logprob(const sbw_scan *s, const char *path);

/* Rows per block so that one block of cols doubles is about bytes. */
size_t sbw_scan_block_rows(size_t cols, size_t bytes);

#endif
