/* sbw_fit_io.h -- what a fit writes: the fitted log Q recomputed in
 * float64, the parameters (--save DIR), the training log and the header
 * that describes every setting of the fit.
 */
#ifndef SBW_FIT_IO_H
#define SBW_FIT_IO_H

#include "sbw_fit.h"
#include "sbw_npy.h"
#include "sbw_progress.h"
#include "sbw_table.h"

/* Adds every setting of f to t's "# key=value" header: head, sizes,
 * initialisation, optimiser, learning rate (and the --lr auto grid with
 * each rate's KL), stopping rule in words, precision, threads, block,
 * where the fit stopped.  Errors: SBW_ENOMEM, the table's first failure;
 * on failure t has failed (sticky: good only for sbw_table_free). */
int sbw_fit_io_describe(const sbw_fit *f, sbw_table *t);

/* The training log as t's rows: step, epoch, loss, kl_mean, mode_match,
 * lr, seconds.  Errors: SBW_ENOMEM, the table's first failure; on failure
 * t has failed (sticky). */
int sbw_fit_io_log_table(const sbw_fit *f, sbw_table *t);

/* The final pass: log Q of every context at f's parameters, with double
 * GEMMs and double pointwise work whatever the fit's precision (a float32
 * export would not have the rank of the model), streamed block by block
 * to out ("-" = stdout; NULL: not written) as an N x M float64 .npy.  The
 * metrics in res (mean cross-entropy, KL, mode match) are taken against
 * the exact log P* read again from exact (positioned anywhere; NULL: the
 * stored P* is used).  Errors: those of sbw_npy_*, SBW_ENOMEM; nothing is
 * left under out on failure. */
int sbw_fit_io_logq(const sbw_fit *f, const char *out, sbw_npy_reader *exact, sbw_obj_result *res,
                    sbw_progress *progress);

/* Writes the parameters into dir through sbw_head_io_save (one .npy per
 * block of theta, H included; the derived positive values; params.tsv)
 * with the fit's settings (sbw_fit_io_describe) in params.tsv's header
 * after t's (t: a fresh table with the tool's meta; this adds columns and
 * rows and writes it).  Errors: those of sbw_fit_io_describe and
 * sbw_head_io_save; on failure dir and t are as sbw_head_io_save leaves
 * them (no params.tsv; the .npy files written before the failure stay). */
int sbw_fit_io_save(const sbw_fit *f, const char *dir, sbw_table *t);

/* Loads parameters written by sbw_fit_io_save from dir into f's theta
 * (every block of f's head must be there with its shape).  Errors:
 * SBW_EIO, SBW_EFORMAT (shape), SBW_EDTYPE.  On failure f's theta holds
 * the blocks before the failing one and part of it: load again or free f. */
int sbw_fit_io_load(sbw_fit *f, const char *dir);

#endif
