/* sbw_fit_ckpt.h -- a fit's checkpoints (sbw_ckpt.h: the directory's
 * layout).  checkpoint.tsv holds every row of sbw_fit_opts_table (block, threads and
 * log interval as resolved), the data's N, M and fingerprint, and the
 * counters (step, epoch, position, optimiser counters, stopping-rule
 * window, --lr auto grid, elapsed seconds); the arrays are theta, Adam's
 * moments or L-BFGS's history, and the training log.  A resumed fit ends
 * bit for bit where the uninterrupted one would (same thread count and
 * block size: a different thread count changes the order of the
 * gradient's sums). */
#ifndef SBW_FIT_CKPT_H
#define SBW_FIT_CKPT_H

#include "sbw_fit.h"

/* Writes f's state as the next generation in dir and records it in f
 * (ckpt_gen, ckpt_step).  Errors: SBW_EIO, SBW_ENOMEM; the previous
 * checkpoint stays intact on failure. */
int sbw_fit_ckpt_write(sbw_fit *f, const char *dir);

/* *saved = *opts with every row of sbw_fit_opts_table taken from the
 * checkpoint in dir, each checked against its range.  Errors: SBW_EIO
 * (no checkpoint), SBW_EFORMAT (damaged, other format version, a value out
 * of range: the reason names the key and the value).  On failure *saved
 * is untouched (no checkpoint) or holds *opts with the rows before the bad
 * one replaced: discard it. */
int sbw_fit_ckpt_saved_opts(const char *dir, const sbw_fit_opts *opts, sbw_fit_opts *saved);

/* A fit continued from the checkpoint in dir, on target t (which must be
 * the data the checkpoint was made from: N, M and the fingerprint of P*
 * are checked).  The settings that shape the trajectory come from the
 * checkpoint; from opts come the free ones (steps, threads,
 * checkpoint_every) and checkpoint_dir, stop, on_step, ctx.  saved (may be
 * NULL) receives the checkpoint's settings as sbw_fit_ckpt_saved_opts gives
 * them.  Every value is checked before anything is allocated: sizes
 * against the data and the head (and the arrays' shapes against them),
 * counters against each other.  Errors: SBW_EIO (missing files),
 * SBW_EFORMAT (a damaged or out-of-range checkpoint), SBW_EDATA (different
 * data), SBW_ENOMEM.  *f is NULL on failure. */
int sbw_fit_ckpt_resume(sbw_fit **f, const sbw_target *t, const char *dir, const sbw_fit_opts *opts,
                        sbw_fit_opts *saved);

#endif
