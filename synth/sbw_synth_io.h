/* sbw_synth_io.h -- synthetic languages to and from files: streamed .npy
 * writing of any N x M (larger than memory too) and concentration vectors. */
#ifndef SBW_SYNTH_IO_H
#define SBW_SYNTH_IO_H

#include "sbw_progress.h"
#include "sbw_synth.h"

#include <stddef.h>

/* What was written, accumulated block by block. */
typedef struct sbw_synth_io_stats {
    size_t rows;
    double min, max;    /* over finite entries (+inf/-inf when none) */
    size_t nonfinite;   /* NaN or Inf entries (0 by construction) */
    double mean_max;    /* mean over rows of max_j log p_ij (log of the mode's probability) */
    double max_abs_lse; /* largest |logsumexp(row)|, rows checked with sbw_num_logsumexp */
} sbw_synth_io_stats;

/* Rows per block written by sbw_synth_io_write: a multiple of group_rows
 * (sbw_synth_group_rows) with about bytes per block of M doubles (at least
 * one group). */
size_t sbw_synth_io_block_rows(size_t m, size_t group_rows, size_t bytes);

/* Streams the language of p to a float64 .npy file at logp_path ("-" =
 * stdout) in blocks of about 32 MB, and, when probs_path is not NULL, its
 * exp() to a second file (probabilities below 1e-308 are 0 there).
 * progress may be NULL; stats may be NULL.  A writer thread writes block
 * k while the OpenMP threads generate block k + 1.  Memory: two blocks
 * (four with probs) plus the shared parameters, whatever N.  On failure neither file
 * is left under its name (a probs file committed before a failure of the
 * logp file is removed).  Errors: those of sbw_synth_alloc (SBW_EINVAL,
 * SBW_ENOMEM), SBW_EINVAL when both paths are the same, those of
 * sbw_npy_create / write_rows / finish (SBW_EIO ...). */
int sbw_synth_io_write(const sbw_synth_params *p, const char *logp_path, const char *probs_path,
                       sbw_progress *progress, sbw_synth_io_stats *stats);

/* Loads a vector of concentrations from a .npy file (shape (M,), (M,1) or
 * (1,M)) into a new array of *m doubles (caller frees).  Errors: those of
 * sbw_npy_load, SBW_ESHAPE (not a vector, or empty: the shared reasons of
 * sbw_check_shape), SBW_EDATA (an entry non-finite
 * or outside [SBW_SYNTH_ALPHA_MIN, SBW_SYNTH_ALPHA_MAX]); each reason
 * starts with the path.  On failure *alpha is NULL, *m untouched and
 * nothing stays allocated. */
int sbw_synth_io_load_alpha(const char *path, double **alpha, size_t *m);

#endif
