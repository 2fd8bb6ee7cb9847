/* sbw_argmax.h -- which words a Softmax head can never predict: for every
 * word i of logits z = W h + b, whether some context vector h makes z_i the
 * strict maximum (Demeter et al. 2020, "Stolen Probability"; Grivas et al.
 * 2022, "Low-Rank Softmax Can Have Unargmaxable Classes in Theory but Rarely
 * in Practice").  Without a bias, i is argmaxable iff w_i is a vertex of the
 * convex hull of the rows of W; with a bias, iff the lifted point (w_i, b_i)
 * is a vertex of the upper hull of the lifted rows.
 *
 * Three stages, every answer with a certificate checked in double
 * (sbw_argmax_cert):
 *  1. exact duplicates: rows with equal w (sorted): a word whose copy has a
 *     larger bias is "dominated", copies with the same bias are
 *     "duplicate" (they tie for every h): neither is strictly argmaxable;
 *     the certificate is lambda = 1 on the copy;
 *  2. the pre-filter: h = s (w_i - mean_j w_j), the best s on that ray
 *     (sbw_argmax_cert_ray), all words at once by blocked GEMM, margins
 *     with a rounding bound; most words of random and trained heads end
 *     here ("vertex", by the pre-filter);
 *  3. the rest: one LP per word (sbw_argmax_lp), in parallel over words
 *     (OpenMP, one GLPK workspace per thread; every word's answer depends
 *     on that word only, so the output is the same for any thread count).
 * W is (m, d), leading dimension ldw, row-major double; b NULL or m values.
 */
#ifndef SBW_ARGMAX_H
#define SBW_ARGMAX_H

#include "sbw_mat.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sbw_argmax_reason {
    SBW_ARGMAX_VERTEX,    /* argmaxable: an h certificate */
    SBW_ARGMAX_DUPLICATE, /* same w and b as word `other`: ties for every h */
    SBW_ARGMAX_DOMINATED, /* same w as word `other`, smaller bias */
    SBW_ARGMAX_IN_HULL,   /* a lambda certificate with gap ~ 0: never strictly first, may tie */
    SBW_ARGMAX_BELOW,     /* a lambda certificate with gap < 0 (bias): never even tied first */
    SBW_ARGMAX_UNDECIDED  /* no certificate passed (numerical trouble; see rounds) */
} sbw_argmax_reason;

/* "vertex", "duplicate", "dominated", "in_hull", "below_hull", "undecided". */
const char *sbw_argmax_reason_name(sbw_argmax_reason r);

/* One word's answer.  argmaxable: 1, 0, or -1 (undecided).  margin: the
 * h certificate's min_j z_i - z_j (> bound), or the lambda certificate's
 * gap b_i - sum lambda_j b_j (<= tolerance); bound: the rounding bound of
 * the margin, or the lambda certificate's residual ||sum lambda_j w_j -
 * w_i||_inf; cert_norm: ||h||_2, or ||lambda||_1; support: positive lambdas;
 * other: the copy of a duplicate/dominated word (else m); stage: 0 the
 * duplicate check, 1 the pre-filter, 2 the LP; rounds: LPs solved. */
typedef struct sbw_argmax_word {
    size_t word;
    int argmaxable;
    sbw_argmax_reason reason;
    double margin, bound, cert_norm;
    size_t support, other;
    int stage, rounds;
} sbw_argmax_word;

typedef struct sbw_argmax_opts {
    double tol;        /* lambda certificate: residual and gap <= tol * scale (1e-9) */
    int max_rounds;    /* LP rounds (column generation) per word (100) */
    size_t block;      /* pre-filter words per GEMM (256) */
    bool no_prefilter; /* every word (but duplicates) through the LP */
} sbw_argmax_opts;

/* The defaults above. */
sbw_argmax_opts sbw_argmax_defaults(void);

/* Counts over the checked words, and where the time went. */
typedef struct sbw_argmax_summary {
    size_t checked, argmaxable, unargmaxable, undecided;
    size_t by_duplicates, by_prefilter, by_lp, lp_rounds;
    double scale; /* max |w_ik| + max |b_j|: the unit of tol */
    double seconds_prefilter, seconds_lp;
} sbw_argmax_summary;

/* Adds word w's answer to the counts of s (checked, argmaxable,
 * unargmaxable, undecided, by stage, lp_rounds): what a run's summary is
 * of its words, and what a merge of shards checks their summaries by. */
void sbw_argmax_summary_add(sbw_argmax_summary *s, const sbw_argmax_word *w);

/* Optional certificates, caller-owned: h (nwords x d, row t for words[t];
 * rows of words that are not argmaxable are left as they were) and the
 * lambda weights (nwords x cap, on words idx, k[t] used; cap >= d + 2 for
 * the LP's, 1 for duplicates; convex weights up to a common factor: exact
 * ones are integers).  NULL members are skipped. */
typedef struct sbw_argmax_certs {
    double *h;
    size_t *idx;
    double *lambda;
    size_t *k;
    size_t cap;
} sbw_argmax_certs;

/* Bytes sbw_argmax_run allocates for a head of m x d (with a bias or not)
 * and nwords words over `threads` threads (0: OpenMP's count): the
 * normalised copy of W and b, the pre-filter's blocks, the bookkeeping,
 * and per thread the LP workspace (sbw_argmax_lp_bytes) with an estimate
 * of GLPK's problem and LU factors and LAPACK's least-squares scratch.
 * The caller adds W and b themselves and its own output. */
double sbw_argmax_bytes(size_t m, size_t d, size_t nwords, bool bias, const sbw_argmax_opts *o,
                        int threads);

/* Decides words[0..nwords) (all m words when words is NULL; then nwords
 * must be m; a list may be empty, nwords 0) of the head W, b; out[t] is
 * the answer for words[t].  m >= 2, d >= 1.  Errors: SBW_EINVAL (a word
 * >= m, bad sizes), SBW_ENOMEM, SBW_ENUMERIC (GLPK failed).  On failure
 * *sum is zeroed (argument and memory errors) or summarises a partial
 * run, and out[] and certs hold the answers of the words decided before
 * the failure, the rest unspecified: discard them. */
int sbw_argmax_run(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                   const size_t *words, size_t nwords, const sbw_argmax_opts *o,
                   sbw_argmax_word *out, sbw_argmax_certs *certs, sbw_argmax_summary *sum);

/* ---- sbw-argmax's whole run on files ------------------------------------ */

/* What sbw_argmax_file reads and asks, besides W's path. */
typedef struct sbw_argmax_file_opts {
    const char *bias;    /* b's .npy (M values), or NULL */
    const char *vocab;   /* word names, one a line (M lines), or NULL */
    const size_t *words; /* the words to decide, nwords of them; NULL: all M */
    size_t nwords;
    sbw_argmax_opts run; /* tol, max_rounds, no_prefilter */
    const double *radii; /* --max-prob: nr radii (0: none) */
    size_t nr;
    bool max_prob_all;  /* the radii for every word, not only the unargmaxable */
    double prob_tol;    /* their gap in log p */
    int max_prob_iters; /* per word and radius */
    bool quiet;         /* no cost line, no progress */
    size_t shard;       /* --shard I/N: with nshards > 0, only the share of shard of */
    size_t nshards;     /* the list (words, or 0..M-1): sbw_argmax_share_pos */
} sbw_argmax_file_opts;

/* What it gives: the head as read, the names, one answer per word, and
 * the --max-prob ladder (pm, pu: nwords x nr, nan for the words skipped;
 * NULL when nr = 0).  sbw_argmax_file_free frees it all. */
typedef struct sbw_argmax_file_res {
    sbw_mat w;
    double *b;    /* NULL without a bias */
    char **names; /* NULL without --vocab; w.rows of them */
    size_t nwords;
    sbw_argmax_word *out;
    sbw_argmax_summary sum;
    double *pm, *pu;
    size_t unconverged; /* ladder pairs whose gap stayed above prob_tol */
    size_t list_len;    /* the whole list's length (nwords unless sharded) */
    uint64_t hash;      /* sharded: sbw_argmax_io_hash of W, b and the names */
} sbw_argmax_file_res;

/* A shard's unit: the list of len words is cut in blocks of
 * sbw_argmax_share_block(len, block) = min(block, floor(len / 64)) (at
 * least 1) positions, which are also the pre-filter's GEMM blocks (so a
 * list of 64 words or more has at least 64 blocks); shard s of n takes
 * blocks s, s + n, s + 2n, ...  sbw_argmax_share_pos: the list position of
 * the shard's k-th word; sbw_argmax_share_count: how many words it takes
 * (0 when s is past the last block). */
#define SBW_ARGMAX_SHARE_BLOCKS 64
size_t sbw_argmax_share_block(size_t len, size_t block);
size_t sbw_argmax_share_pos(size_t s, size_t n, size_t b, size_t k);
size_t sbw_argmax_share_count(size_t s, size_t n, size_t b, size_t len);

/* sbw-argmax's run: W opened at path ("-": stdin) and its shape checked
 * (sbw_argmax_io), the memory the whole run needs checked against the
 * machine's (sbw_preflight_memory, before anything large is read: W, its
 * normalised copy, the LP workspaces, the names, the ladder and a table
 * of the answers at about 32 bytes a cell), W, b and the names read
 * (sbw_argmax_io), the words checked, sbw_argmax_run, then the ladder
 * of sbw_maxprob_words for the words it asks for.  The pre-filter's GEMM
 * blocks are sbw_argmax_share_block(list length, o->run.block) list
 * positions, sharded or not.  With nshards > 0 only the shard's share of
 * the words (the blocks shard, shard + nshards, ... of the list: each
 * word's answer depends on that word, its block and the head only, so the
 * shards' rows are the unsharded run's to the bit) and the head's hash
 * (sbw_argmax_io_hash).  *res is zeroed first
 * and holds what was made either way.  Errors: those of the readers and
 * of sbw_argmax_run and sbw_maxprob_words; SBW_EINVAL for a word >= M, for shard >= nshards
 * and for more shards than blocks; SBW_ENOMEM.  On failure *res holds what was made before it
 * (answers and ladder incomplete): free it with sbw_argmax_file_free. */
int sbw_argmax_file(const char *path, const sbw_argmax_file_opts *o, sbw_argmax_file_res *res);

void sbw_argmax_file_free(sbw_argmax_file_res *res);

#endif
