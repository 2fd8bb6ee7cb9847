/* sbw_argmax_shard.h -- the merge of sbw-argmax --shard I/N tables: N
 * tables, each the rows of one share of the run's list (blocks I - 1,
 * I - 1 + N, ... of shard_block positions: sbw_argmax_share_pos) with the
 * run's summary over them and the shard's settings ("# shard=I/N",
 * shard_of, shard_words, shard_block, max_rounds, lp_only, head_hash),
 * read back (core's sbw_tsv) into the answers of the whole
 * list in the unsharded order, so that the tool writes them with the very
 * code of an unsharded run (the doubles were written in a form that reads
 * back to the same double, so the merged table is the unsharded one but
 * for its # command= and # seconds_*= lines).  Nothing is trusted: a
 * table that is not a shard, shards of different heads, lists or
 * settings, a shard missing or given twice, a row of another word: each
 * is refused with one reason naming the file. */
#ifndef SBW_ARGMAX_SHARD_H
#define SBW_ARGMAX_SHARD_H

#include "sbw_argmax.h"

#include <stdbool.h>
#include <stddef.h>

/* The meta a shard table carries that every shard must share (beside
 * its head_hash and columns): the run's file, bias, vocab, m, d, solver,
 * tol, scale, --max-prob's settings and the list's; NULL-ended. */
extern const char *const sbw_argmax_shard_keys[];

/* "I/N" with 1 <= I <= N (decimal digits only) into *i (I - 1) and *n;
 * false otherwise. */
bool sbw_argmax_shard_parse(const char *s, size_t *i, size_t *n);

/* What the merge gives: the answers of the whole list (res: w.rows and
 * w.cols the head's shape, w.data NULL; names an array of w.rows entries,
 * set for the listed words only; out, sum, pm, pu, unconverged as an
 * unsharded sbw_argmax_file gives them; seconds summed over the shards)
 * and the settings the tool's table shows, as the shards wrote them. */
typedef struct sbw_argmax_shard_merged {
    sbw_argmax_file_res res;
    char *file, *bias, *vocab; /* "" for none, as in the tables */
    char *max_prob;            /* --max-prob's list, NULL without */
    bool max_prob_all;
    double tol, prob_tol;
    size_t nr; /* radii */
} sbw_argmax_shard_merged;

/* Reads the n shard tables at paths (any order) and merges them into
 * *out (zeroed first).  Errors (SBW_EDATA unless said): a table that is
 * not an sbw-argmax shard, shards of different runs (the first key that
 * differs, both values), a shard missing or twice, a shard of another
 * number of rows, a row of another word than the list's, a cell that is
 * not what its column holds; the reader's (SBW_EIO, SBW_EFORMAT);
 * SBW_ENOMEM.  Each reason names the file.  *out holds nothing on
 * failure.  Free with sbw_argmax_shard_merged_free. */
int sbw_argmax_shard_merge(char *const *paths, size_t n, sbw_argmax_shard_merged *out);

void sbw_argmax_shard_merged_free(sbw_argmax_shard_merged *m);

#endif
