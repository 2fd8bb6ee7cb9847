/* sbw_lm_train_ckpt.h -- what an sbw-lm train checkpoint holds besides
 * the settings (sbw_lm_opts_table): where the run stands (the counters)
 * and whether a folder is a snapshot; and the readers of checkpoint
 * folders (sbw_lm_train_ckpt_saved_opts, sbw_lm_train_ckpt_load: sbw_lm_train.h).
 * Shared by sbw_lm_train.c (which writes) and sbw_lm_train_ckpt.c.
 */
#ifndef SBW_LM_TRAIN_CKPT_H
#define SBW_LM_TRAIN_CKPT_H

#include "sbw_ckpt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a run stands: the second table of a checkpoint. */
typedef struct sbw_lm_train_ckpt_counters {
    size_t step, epoch, pos, tokens; /* steps done, epochs done, chunk in the epoch, tokens */
    size_t nvalid, nlog, avg_count;  /* validations, log rows, iterates averaged */
    double seconds, head_seconds;    /* wall time so far, and in the head pass */
    bool averaging;                  /* NT-ASGD switched */
    uint64_t hash;                   /* the corpus's fingerprint */
    uint64_t adam_t;                 /* Adam's step count */
    double run_loss;                 /* sum of loss x tokens since the last log row */
    size_t run_tokens;               /* and their tokens */
    size_t offset;                   /* the next chunk's first step in the columns */
} sbw_lm_train_ckpt_counters;

extern const sbw_ckpt_field sbw_lm_train_ckpt_counter_table[];
#define SBW_LM_TRAIN_CKPT_NCOUNTERS 15

/* What a folder holds: a full checkpoint (0) or a snapshot (1, theta =
 * the evaluation parameters).  Folders written before this row existed
 * lack it: a snapshot is then recognised by having no state array. */
typedef struct sbw_lm_train_ckpt_kind {
    bool snapshot;
} sbw_lm_train_ckpt_kind;
extern const sbw_ckpt_field sbw_lm_train_ckpt_kind_table[];

/* The counters of checkpoint c into k.  A checkpoint written before the
 * offset row existed (never with variable BPTT) gets offset = pos * bptt.
 * Errors: those of sbw_ckpt_get; on failure k holds the rows read before
 * the bad one (discard it). */
int sbw_lm_train_ckpt_counters_get(const sbw_ckpt *c, sbw_lm_train_ckpt_counters *k, size_t bptt);

/* SBW_EDATA unless the corpus fingerprint saved in c is hash. */
int sbw_lm_train_ckpt_check_hash(const sbw_ckpt *c, uint64_t saved, uint64_t hash);

#endif
