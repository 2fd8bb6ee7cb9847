/* sbw_logp.h -- rows of a log-probability matrix, read and checked.
 *
 * sbw-kl and sbw-compare read N x M matrices whose rows are next-token
 * distributions, as log-probabilities (default) or probabilities
 * (opts.probs: each entry is log()-ed on reading).  A row is accepted only
 * when every entry is finite -- NaN, +inf and -inf (a zero probability) are
 * refused, since KL against a zero probability is infinite and the papers
 * assume P > 0 -- and when it is normalised: |logsumexp(row)| <= opts.tol,
 * or, for a float32 file, within its rounding (sbw_check_row_tol).  Shapes,
 * tolerances and every message are those of the one checker, sbw_check.h.
 * With opts.normalize each row has its logsumexp subtracted instead (the
 * largest correction is kept in the reader's statistics).
 *
 * Reading and checking are split so the check costs no extra exp():
 * sbw_logp_read() converts, tests finiteness and (when asked) renormalises;
 * the caller's kernel computes sum_j exp(row_j) while it computes p = exp(l)
 * anyway, and sbw_logp_check_sums() turns those sums into the normalisation
 * verdict.  Kernels that also test finiteness as they go (from the bits)
 * skip the reader's pass: sbw_logp_read_deferred(), or sbw_logp_view(),
 * which maps the rows of a plain float64 file instead of copying them, then
 * sbw_logp_check_finite() on a flagged block names the entry.  Every failure reason names the file,
 * the 0-based row (and column) and the offending value.
 *
 * A selection (sbw_logp_sel) picks which rows of the file are used: a
 * contiguous range, or a sorted list of distinct rows (e.g. a random
 * sample).  Workers of a parallel pass each get their own reader of the
 * same file (sbw_logp_team_open), and the first failure in row order is
 * carried back to the calling thread (sbw_logp_fail).
 */
#ifndef SBW_LOGP_H
#define SBW_LOGP_H

#include "sbw_check.h"
#include "sbw_npy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Default normalisation tolerance on |logsumexp(row)| (every tool's). */
#define SBW_LOGP_TOL SBW_CHECK_TOL

typedef struct sbw_logp_opts {
    bool probs;     /* entries are probabilities: read log(x) */
    bool normalize; /* subtract each row's logsumexp instead of refusing */
    double tol;     /* largest |logsumexp(row)| accepted (SBW_LOGP_TOL) */
} sbw_logp_opts;

typedef struct sbw_logp_reader sbw_logp_reader;

/* Which rows of the file are used: [begin, end) when list is NULL, else
 * the n sorted distinct rows list[0..n). */
typedef struct sbw_logp_sel {
    size_t begin, end; /* the range (and, for a list, the range it came from) */
    size_t n;          /* rows selected */
    size_t *list;      /* owned; NULL for a range */
} sbw_logp_sel;

/* Opens path ("-" = stdin) as a matrix of rows to check with opts.
 * Errors: those of sbw_npy_open; SBW_EINVAL when opts.tol is not in
 * (0, 1]; SBW_ESHAPE (sbw_check_shape) for a 1-D or empty (N x 0, 0 x M)
 * file.  *r is NULL on failure. */
int sbw_logp_open(sbw_logp_reader **r, const char *path, const sbw_logp_opts *opts);

/* A second reader of the same regular file with the same options (its
 * statistics start empty).  Errors: SBW_EINVAL for stdin or a pipe, those
 * of sbw_logp_open.  *out is NULL on failure. */
int sbw_logp_reopen(const sbw_logp_reader *r, sbw_logp_reader **out);

/* Closes and frees; NULL is a no-op. */
void sbw_logp_close(sbw_logp_reader *r);

/* The file's header, its path, and whether it can be reopened (a regular
 * file: random access and parallel workers). */
const sbw_npy_info *sbw_logp_info(const sbw_logp_reader *r);
const char *sbw_logp_path(const sbw_logp_reader *r);
bool sbw_logp_seekable(const sbw_logp_reader *r);

/* Reads selected rows k0 .. k0+nr-1 (selection order) into dst (nr x cols,
 * leading dimension cols): converts probabilities to logs, refuses any
 * non-finite entry, renormalises when asked.  A range selection read in
 * order streams (pipes work); a list or an out-of-order read seeks.
 * Errors: SBW_EDATA with the row, column and value; SBW_EINVAL when k0+nr
 * exceeds s->n or a pipe would have to move backwards; read errors.  On
 * failure dst may hold part of the rows (discard them) and the reader is
 * good only for sbw_logp_close (its stream position is unspecified). */
int sbw_logp_read(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr, double *dst);

/* sbw_logp_read for a caller whose kernel notices non-finite entries as it
 * goes (one pass less over the rows): the finiteness test is left out when
 * the reader has nothing to convert or renormalise (neither opts.probs nor
 * opts.normalize), and the caller must then run sbw_logp_check_finite on
 * rows its kernel flags before it uses them.  Errors, and what is left on
 * failure, as sbw_logp_read. */
int sbw_logp_read_deferred(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                           double *dst);

/* Selected rows k0 .. k0+nr-1 as a view of the file, mapped instead of
 * copied (sbw_npy_view_rows), when the selection is a range and the reader
 * neither converts nor renormalises; false otherwise (read them instead).
 * Nothing is tested: as with sbw_logp_read_deferred, the caller's kernel
 * flags non-finite entries, and sbw_logp_check_finite and
 * sbw_logp_check_sums give the verdicts.  Release with
 * sbw_npy_view_release. */
bool sbw_logp_view(const sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                   sbw_npy_view *v);

/* The finiteness verdict for rows k0 .. k0+nr-1 just read (nr x cols):
 * SBW_EDATA naming the row, column and value of the first NaN or +-inf,
 * else SBW_OK. */
int sbw_logp_check_finite(const sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                          const double *rows);

/* The normalisation verdict for rows just read: sums[i] is sum_j exp of
 * row i of rows (nr x cols).  A row passes when |log sums[i]| <= tol; one
 * that does not has its logsumexp recomputed exactly (max-shifted) and
 * passes still when within sbw_check_row_tol (float32 rounding), else is
 * the failure.  Updates the largest |logsumexp| seen.
 * Errors: SBW_EDATA naming the row and the amount; on failure the largest
 * |logsumexp| counts the rows before the bad one. */
int sbw_logp_check_sums(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                        const double *rows, const double *sums);

/* The largest |logsumexp(row)| met so far -- the correction applied, with
 * normalize -- and its 0-based file row. */
void sbw_logp_stats(const sbw_logp_reader *r, double *max_abs_lse, size_t *worst_row);

/* ---- selections ------------------------------------------------------- */

/* The range [begin, end) (the caller keeps begin <= end <= rows). */
void sbw_logp_sel_range(sbw_logp_sel *s, size_t begin, size_t end);

/* k distinct rows drawn uniformly without replacement from [begin, end),
 * sorted (gsl_ran_choose on the MT19937 stream (seed, 0)).
 * Errors: SBW_EINVAL when k > end - begin, SBW_ENOMEM; *s untouched and
 * nothing allocated on failure. */
int sbw_logp_sel_sample(sbw_logp_sel *s, size_t begin, size_t end, size_t k, uint64_t seed);

/* Frees the list (a range needs nothing); the struct becomes empty. */
void sbw_logp_sel_free(sbw_logp_sel *s);

/* The file row of selected row k (k < s->n). */
size_t sbw_logp_sel_row(const sbw_logp_sel *s, size_t k);

/* ---- parallel workers ---------------------------------------------------- */

/* team[0] = r and, when r is seekable, up to want-1 reopened readers
 * (*n of them in all; want <= 0 means one per OpenMP thread).  A pipe gets a
 * team of one.  Errors: those of sbw_logp_reopen, SBW_ENOMEM.  On failure
 * *team and *n are untouched, every reader opened here is closed, and r
 * stays the caller's, open. */
int sbw_logp_team_open(sbw_logp_reader *r, int want, sbw_logp_reader ***team, int *n);

/* Folds the statistics of team[1..n) into team[0], closes them and frees
 * the array; NULL is a no-op. */
void sbw_logp_team_close(sbw_logp_reader **team, int n);

/* The earliest failure (in work order) among parallel workers.  Errors are
 * recorded per thread (sbw_error.h), so a worker notes its failure here and
 * the calling thread re-raises it after the parallel region. */
typedef struct sbw_logp_fail {
    int status;
    size_t order; /* SIZE_MAX while nothing failed */
    char reason[512];
} sbw_logp_fail;

void sbw_logp_fail_init(sbw_logp_fail *f);

/* Keeps (status, this thread's last reason) when order is the earliest
 * failure so far.  Thread-safe. */
void sbw_logp_fail_note(sbw_logp_fail *f, int status, size_t order);

/* True when a failure earlier than order is known: that work can be
 * skipped.  Thread-safe. */
bool sbw_logp_fail_skip(sbw_logp_fail *f, size_t order);

/* SBW_OK, or the kept status with its reason recorded on this thread. */
int sbw_logp_fail_raise(const sbw_logp_fail *f);

#endif
