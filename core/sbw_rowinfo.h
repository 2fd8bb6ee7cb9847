/* sbw_rowinfo.h -- what sbw-info says about single rows of a matrix of
 * log-probabilities (sbw-info --per-row, --sorted): each row's entropy
 * H = -sum_j p_j log p_j in nats (p = exp(x), sbw_num_entropy), and one
 * chosen row's probabilities in decreasing order with the columns (words)
 * they belong to -- LMS Figure 5's two panels, which sbw-plot alpha draws
 * from these tables.  Both come from sbw_scan's one streaming pass, so a
 * file on stdin is read once.
 */
#ifndef SBW_ROWINFO_H
#define SBW_ROWINFO_H

#include "sbw_npy.h"
#include "sbw_progress.h"
#include "sbw_scan.h"

#include <stddef.h>

/* What to keep of the pass; the arrays are the caller's. */
typedef struct sbw_rowinfo {
    double *entropy; /* rows entries: entropy[i] of row i; NULL: not asked */
    size_t pick;     /* the row copied into row (< rows) */
    double *row;     /* cols entries: row pick as read; NULL: not asked */
} sbw_rowinfo;

/* Scans the open reader r from row 0 into s (sbw_scan_reader; progress may
 * be NULL) and fills what ri asks for.  The values mean something only for
 * log-probabilities, so every row must be one: no NaN or +inf (a -inf is a
 * zero probability, allowed) and |logsumexp| within the tolerance s was
 * started with (sbw_check_row_tol).  Errors: sbw_scan_reader's; SBW_EINVAL
 * when ri->row is asked and ri->pick is not a row of the file; SBW_EDATA
 * naming the file and the first non-finite entry or the worst unnormalised
 * row.  On failure ri's arrays hold partial values. */
int sbw_rowinfo_reader(sbw_npy_reader *r, sbw_scan *s, sbw_progress *progress, sbw_rowinfo *ri);

/* The m log-probabilities logp as sorted probabilities: word[k] is the
 * column of the k-th largest (ties: the lower column first) and
 * prob[k] = exp(logp[word[k]]), so prob decreases from the row's mode.
 * logp holds no NaN.  Errors: SBW_ENOMEM; word and prob untouched on
 * failure. */
int sbw_rowinfo_sorted(const double *logp, size_t m, size_t *word, double *prob);

#endif
