/* sbw_ckpt.h -- checkpoints of a fit, and resuming from them so that the
 * resumed fit ends bit for bit where the uninterrupted one would (same
 * thread count and block size: both are saved; a different thread count
 * changes the order of the gradient's sums).
 *
 * A checkpoint directory holds generation G of the state as .npy files
 * (theta-G.npy, adam_m-G.npy, adam_v-G.npy or lbfgs_{s,y,rho}-G.npy,
 * log-G.npy) and checkpoint.tsv, "key=value" lines naming G with every
 * setting and counter (doubles in C99 hex, exact).  A new generation's
 * files are written first, then checkpoint.tsv is replaced atomically
 * (temporary + rename), then the previous generation's files are removed:
 * a crash at any moment leaves a complete, consistent checkpoint.
 */
#ifndef SBW_CKPT_H
#define SBW_CKPT_H

#include "sbw_fit.h"

/* Creates dir if it does not exist (one level).  Errors: SBW_EIO. */
int sbw_ckpt_mkdir(const char *dir);

/* Writes f's state as the next generation in dir (created if needed) and
 * records it in f (ckpt_gen, ckpt_step).  Errors: SBW_EIO, SBW_ENOMEM;
 * the previous checkpoint stays intact on failure. */
int sbw_ckpt_write(sbw_fit *f, const char *dir);

/* A fit continued from the checkpoint in dir, on target t (which must be
 * the data the checkpoint was made from: N, M and a fingerprint of P* are
 * checked).  Everything that shapes the trajectory comes from the
 * checkpoint (head, initialisation, optimiser, learning rate, batch,
 * stopping rule, log interval, precision, block size, parallel scheme);
 * from opts come only steps, threads, checkpoint_every, checkpoint_dir,
 * stop, on_step and ctx.  *threads_saved receives the checkpoint's thread
 * count (may be NULL).  Errors: SBW_EIO (missing files), SBW_EFORMAT (a
 * damaged checkpoint: missing key, bad value, wrong array shape),
 * SBW_EDATA (different data), SBW_ENOMEM. */
int sbw_ckpt_resume(sbw_fit **f, const sbw_target *t, const char *dir, const sbw_fit_opts *opts,
                    int *threads_saved);

/* Removes a checkpoint directory: the files sbw_ckpt_write makes (any
 * generation, checkpoint.tsv), then the directory if that left it empty.
 * Other files are never touched.  Errors: SBW_EIO (cannot list dir). */
int sbw_ckpt_remove(const char *dir);

/* True when dir holds a checkpoint (a checkpoint.tsv). */
bool sbw_ckpt_exists(const char *dir);

/* A fingerprint of P*: the sum of the rows' entropies. */
double sbw_ckpt_fingerprint(const sbw_target *t);

#endif
