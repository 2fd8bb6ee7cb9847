/* sbw_head_io.h -- a head's parameters on disk: one .npy per block of
 * theta, the positive values behind the raw LMS and PLIF parameters, and
 * params.tsv listing them under the meta that describes the head (what
 * `sbw-plot monotone DIR` reads with map.tsv to draw the learned f), and
 * for a head with a learned monotone map (LMS, PLIF, MoS+PLIF) map.tsv:
 * f evaluated by the head's own kernels on a grid.  sbw-fit --save and
 * sbw-lm eval --export both write through sbw_head_io_save, so the two
 * folders have one layout.
 */
#ifndef SBW_HEAD_IO_H
#define SBW_HEAD_IO_H

#include "sbw_head.h"
#include "sbw_table.h"

/* Adds the head's "# key=value" meta to t: model, n, m, d, k, knots,
 * plif_t (nan without knots), bias, linear, parameters (h->nparam), and
 * for a head with C != D or a component bias also c and cbias.  A key
 * t already holds is replaced in place (same position).  Errors:
 * SBW_ENOMEM, or t's kept failure: after a failure t has failed (sticky)
 * and holds a prefix of these keys. */
int sbw_head_io_describe(const sbw_head *h, sbw_table *t);

/* map.tsv's grid: SBW_HEAD_IO_MAP_N points evenly spaced on [-X, X],
 * x_i = X (2i/(N-1) - 1), with X = SBW_HEAD_IO_MAP_LMS_X for an LMS map
 * and SBW_HEAD_IO_MAP_PLIF_X T for a PLIF map, whose K + 1 knots
 * -T + j 2T/K are merged in (f is linear between consecutive points, so
 * the table is f itself there).  N - 1 = 2048 puts +-10 and +-1.25 T,
 * sbw-plot monotone's default ranges, on the grid. */
#define SBW_HEAD_IO_MAP_N      2049
#define SBW_HEAD_IO_MAP_LMS_X  20.0
#define SBW_HEAD_IO_MAP_PLIF_X 4.0

/* At most how many points h's map.tsv has (0: h has no learned map:
 * softmax, sigsoftmax, moc, mos). */
size_t sbw_head_io_map_points(const sbw_head *h);

/* The learned monotone map of h at theta (sbw_head.h's layout, the head's
 * block) on its grid: x and y (room for sbw_head_io_map_points(h) each)
 * receive *n values, x strictly ascending, y = f(x) computed by the
 * production kernels (sbw_head_kern_lms, sbw_head_kern_plif) from the
 * positive parameters (sbw_head_map_params).  Errors: SBW_EINVAL (h has
 * no learned map), SBW_ENOMEM; x, y, *n unspecified after a failure. */
int sbw_head_io_map_eval(const sbw_head *h, const double *theta, double *x, double *y, size_t *n);

/* Writes h's parameters into dir (created when missing; its parent must
 * exist):
 *   - one float64 .npy per block of sbw_head_blocks (W, b, U, V,
 *     lms_*_raw, lms_c, plif_slope_raw, and H when h->n > 0), a 1-column
 *     block as a 1-D array;
 *   - the positive values derived from the raw ones (sbw_head_map_params):
 *     lms_u, lms_v (LMS), lms_lambda (--linear), plif_slope (PLIF,
 *     MoS+PLIF), 1-D;
 *   - for a head with a learned map, map.tsv: t's meta, the head's, the
 *     grid's (map, grid), then columns x and f, one row per grid point
 *     (sbw_head_io_map_eval), written before params.tsv;
 *   - params.tsv: t's meta (the caller's: tool, command, ...), then the
 *     head's (sbw_head_io_describe), then one row per file with columns
 *     name, file, rows, cols, meaning.
 * theta holds h->nparam doubles in sbw_head.h's layout (a caller whose
 * head has n = 0 passes its head's block).  t: a table without rows,
 * owned by the caller; this adds meta, sets the columns and adds rows.
 * A params.tsv (and map.tsv) already in dir is removed first and the new
 * params.tsv is written last (temporary + rename), so params.tsv exists
 * only when every file it lists, and map.tsv, were written.  Errors:
 * SBW_EIO (dir not creatable or not a directory, a file not writable),
 * SBW_ENOMEM, SBW_EINVAL (t has rows), or t's kept failure.  After a
 * failure the .npy files written before it stay, no params.tsv is left
 * in dir, and t may have failed (sticky) holding part of the listing. */
int sbw_head_io_save(const sbw_head *h, const double *theta, const char *dir, sbw_table *t);

/* Writes dir/map.tsv again from what sbw_head_io_save left in dir, for a
 * folder saved before map.tsv existed or whose map.tsv was lost: the head
 * from params.tsv's meta (model, n, m, d, k, knots, plif_t, bias, linear,
 * parameters, and c and cbias when present: sbw_head_setup and
 * sbw_head_set_context, the count checked), its positive map
 * parameters from plif_slope.npy (PLIF, MoS+PLIF) or lms_u, lms_v, lms_c
 * and, with linear, lms_lambda (LMS) -- each of the size the meta sets,
 * finite, and > 0 except lms_c -- and map.tsv written by the writer
 * sbw_head_io_save uses, through sbw_file (temporary + rename): the same
 * bytes as the save wrote, except the "# command=" line, which becomes
 * command (NULL: params.tsv's is kept).  params.tsv's other meta lines are
 * copied as they are; its "# warning=" lines are recorded again with
 * sbw_table_warn (so map.tsv carries them, as does any table the process
 * prints afterwards).  No raw block (plif_slope_raw.npy, W.npy, ...) is
 * read: a folder holding only params.tsv and the derived values will do.
 * Errors, each naming the file: SBW_EIO (params.tsv or a .npy not
 * readable, map.tsv not writable), SBW_EFORMAT (params.tsv not a head's
 * listing, as core/sbw_tsv reads it: a "#" line that is not "# key=value"
 * before the column header, a column header sbw_tsv refuses, a head key
 * missing or unparsable, a head sbw_head_setup refuses, a
 * parameter count that does not match; a malformed .npy), SBW_ESHAPE (a
 * .npy of another size), SBW_EDATA (a value not finite or not positive;
 * a head with no learned map), SBW_ENOMEM.  After a failure dir is as it
 * was (a map.tsv already there stays) except for the warnings recorded. */
int sbw_head_io_map_regen(const char *dir, const char *command);

#endif
