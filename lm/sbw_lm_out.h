/* sbw_lm_out.h -- what sbw-lm writes besides its checkpoints, kept from
 * the user's own files: the output preflight against the corpus and the
 * checkpoint, and the --export folder written whole or not at all.
 *
 * Preflight (sbw_lm_out_preflight), before any data are read: every
 * output goes through sbw_preflight (creatable; not the same file as an
 * input or another output) with the corpus files of --data (train, valid,
 * test under both names) and the files of the --ckpt folder
 * (checkpoint.tsv, ckpt-G-STEM.npy, the lock) as its inputs; besides, a
 * file output may not take a corpus file's name in the --data folder (the
 * reader would take it for a split) nor a checkpoint file's name in the
 * --ckpt folder (the writer replaces and sweeps those), and a folder
 * output (--export, the checkpoint folder) may not be the --data folder or
 * (for --export) the --ckpt folder, whose files it would mix with its
 * own.  Every refusal is SBW_EINVAL (exit 2) naming both paths.
 *
 * Export (sbw_lm_out_export): the vocabulary and the head's parameters
 * (sbw_head_io_save) are written into a temporary folder beside the
 * target, ".NAME.export.XXXXXX", whose files and itself are tracked for
 * the signal handlers (sbw_file_track: a SIGINT or SIGTERM removes them),
 * then put in place in one step with signals held: renamed to NAME, or,
 * when NAME is an earlier export, exchanged with it (renameat2
 * RENAME_EXCHANGE; two renames where the file system cannot) and the
 * earlier one removed.  NAME is at every moment absent, the earlier
 * export whole, or the new one whole.  A NAME holding anything an export
 * does not write (a file not named *.npy, params.tsv, map.tsv or vocab.txt, a
 * folder) is refused by sbw_lm_out_export_check, never emptied.
 */
#ifndef SBW_LM_OUT_H
#define SBW_LM_OUT_H

#include "sbw_corpus.h"
#include "sbw_lm.h"
#include "sbw_preflight.h"
#include "sbw_table.h"

#include <stddef.h>

/* The preflight above for the outputs outs[0..nout) of a run reading the
 * corpus in data and the checkpoint folder ckpt (NULL: none).  The entry
 * whose opt is "--ckpt" is the run's own checkpoint folder (checked against
 * data only).  Errors: SBW_EINVAL, SBW_EIO (as sbw_preflight),
 * SBW_ENOMEM. */
int sbw_lm_out_preflight(const char *data, const char *ckpt, const sbw_preflight_out *outs,
                         size_t nout);

/* SBW_OK when dir (--export) is absent, or a folder holding nothing but
 * what an export writes; else SBW_EINVAL naming dir and the first other
 * entry. */
int sbw_lm_out_export_check(const char *dir);

/* Writes vocab.txt (corpus's words in id order) and lm's head parameters
 * theta + lm->off_head with params.tsv under t's meta (sbw_head_io_save)
 * into dir as described above.  t: a table without rows, owned by the
 * caller.  Errors: SBW_EIO, SBW_ENOMEM, SBW_EINVAL; on failure nothing is
 * left beside dir and dir is as it was. */
int sbw_lm_out_export(const char *dir, const sbw_lm *lm, const double *theta,
                      const sbw_corpus *corpus, sbw_table *t);

#endif
