/* sbw_head_io.h -- a head's parameters on disk: one .npy per block of
 * theta, the positive values behind the raw LMS and PLIF parameters, and
 * params.tsv listing them under the meta that describes the head (what
 * `sbw-plot monotone DIR` reads to draw the learned f).  sbw-fit --save
 * and sbw-lm eval --export both write through sbw_head_io_save, so the two
 * folders have one layout.
 */
#ifndef SBW_HEAD_IO_H
#define SBW_HEAD_IO_H

#include "sbw_head.h"
#include "sbw_table.h"

/* Adds the head's "# key=value" meta to t: model, n, m, d, k, knots,
 * plif_t (nan without knots), bias, linear, parameters (h->nparam).  A key
 * t already holds is replaced in place (same position).  Errors:
 * SBW_ENOMEM. */
int sbw_head_io_describe(const sbw_head *h, sbw_table *t);

/* Writes h's parameters into dir (created when missing; its parent must
 * exist):
 *   - one float64 .npy per block of sbw_head_blocks (W, b, U, V,
 *     lms_*_raw, lms_c, plif_slope_raw, and H when h->n > 0), a 1-column
 *     block as a 1-D array;
 *   - the positive values derived from the raw ones (sbw_head_map_params):
 *     lms_u, lms_v (LMS), lms_lambda (--linear), plif_slope (PLIF,
 *     MoS+PLIF), 1-D;
 *   - params.tsv: t's meta (the caller's: tool, command, ...), then the
 *     head's (sbw_head_io_describe), then one row per file with columns
 *     name, file, rows, cols, meaning.
 * theta holds h->nparam doubles in sbw_head.h's layout (a caller whose
 * head has n = 0 passes its head's block).  t: a table without rows,
 * owned by the caller; this adds meta, sets the columns and adds rows.
 * A params.tsv already in dir is removed first and the new one is written
 * last (temporary + rename), so params.tsv exists only when every file it
 * lists was written.  Errors: SBW_EIO (dir not creatable or not a
 * directory, a file not writable), SBW_ENOMEM, SBW_EINVAL (t has rows);
 * the .npy files written before a failure stay. */
int sbw_head_io_save(const sbw_head *h, const double *theta, const char *dir, sbw_table *t);

#endif
