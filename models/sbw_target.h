/* sbw_target.h -- the language a head is fitted to: P* (N x M) held once,
 * as probabilities in float or double, with what every step needs per
 * row (the sum of the stored probabilities, their entropy, the mode).
 *
 * The fit's gradient needs P* itself, not log P*: storing P* saves one
 * exp per entry per step, and in float32 it halves the memory (relative
 * error 6e-8 per entry; entries below 1e-45 become 0, which contributes
 * nothing to a cross-entropy).  Exact metrics of the final fit are taken
 * from the original log P* (see sbw_obj_final).
 */
#ifndef SBW_TARGET_H
#define SBW_TARGET_H

#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_target {
    size_t n, m;
    bool single;         /* P stored as float (pf) rather than double (pd) */
    float *pf;           /* (N, M) when single */
    double *pd;          /* (N, M) otherwise */
    double *psum;        /* (N) sum of the stored P row, in double */
    double *ent;         /* (N) -sum p log p of the stored P row */
    size_t *mode;        /* (N) first argmax of log P* */
    double tol;          /* normalisation tolerance used (float64 scale) */
    sbw_npy_dtype dtype; /* precision of the file log P* came from (SBW_F64 default) */
} sbw_target;

/* Allocates an empty target for N x M (stored P in float when single).
 * Errors: SBW_ENOMEM (message with the size).  *t is zeroed on failure. */
int sbw_target_alloc(sbw_target *t, size_t n, size_t m, bool single);

/* Frees; a zeroed struct is a no-op. */
void sbw_target_free(sbw_target *t);

/* Bytes sbw_target_alloc would take for N x M. */
double sbw_target_bytes(size_t n, size_t m, bool single);

/* Checks rows [r0, r0+nr) of log P* (nr x M, leading dim ld) with the one
 * input checker (sbw_check.h) and stores them: every entry finite,
 * |logsumexp(row)| <= sbw_check_row_tol(t->dtype, t->tol, max |entry|).
 * what names the source in messages ("P.npy").  Errors: SBW_EDATA with the
 * shared reasons ("row 3 (0-based) is not normalised: logsumexp = 0.12";
 * a row that looks like probabilities says so), SBW_EINVAL (rows out of
 * range).  On failure the rows before the bad one are stored, the rest
 * as they were: the target is not to be used. */
int sbw_target_set_rows(sbw_target *t, size_t r0, const double *logp, size_t nr, size_t ld,
                        const char *what);

/* Reads a whole log P* file from r (from its current row) into a new
 * target, judged at the file's dtype; tol is the normalisation tolerance.  Errors: those of
 * sbw_npy_read_rows and sbw_target_set_rows, SBW_ENOMEM.  progress may be
 * NULL.  *t is zeroed on failure (nothing to free); r is then good only
 * for sbw_npy_close. */
int sbw_target_load(sbw_target *t, sbw_npy_reader *r, bool single, double tol,
                    sbw_progress *progress);

/* The same from an in-memory log P* (N x M).  Errors: those of
 * sbw_target_alloc and sbw_target_set_rows; *t zeroed on failure. */
int sbw_target_from_logp(sbw_target *t, const sbw_mat *logp, bool single, double tol);

/* A new target holding rows[0..n) of t (copies of the stored P and the
 * row constants), for fits on a subsample.  Errors: SBW_EINVAL (a row
 * >= N, n == 0), SBW_ENOMEM; *sub zeroed on failure. */
int sbw_target_subset(sbw_target *sub, const sbw_target *t, const size_t *rows, size_t n);

/* Row r of the stored P as doubles into out (M); a copy for float storage,
 * a pointer into the target for double storage (returned). */
const double *sbw_target_row(const sbw_target *t, size_t r, double *out);

#endif
