/* sbw_synth.h -- synthetic languages: N x M matrices of log-probabilities
 * (one row per context, one column per word), generated reproducibly from
 * a seed.
 *
 * Kinds:
 *   dirichlet  rows i.i.d. Dirichlet(alpha) (symmetric, or one alpha_j per
 *              word), sampled in log space so that every entry is finite
 *              for alpha down to 1e-300 (LMS paper, section 5.1);
 *   lowrank    log_softmax(s H W^T / sqrt(R)), H (N x R) and W (M x R)
 *              standard Gaussian: rank(A) = R + 1 and d* = R generically,
 *              or R and R - 1 when one column of W is all ones (MoS paper,
 *              Proposition 1 and Corollary 1);
 *   zipf       log p_ij = -s log(j + 1) + sigma z_ij - log Z_i, z_ij ~ N(0,1):
 *              a power-law unigram times log-normal context perturbations;
 *   topics     p_i = sum_k theta_ik phi_k, phi_k ~ Dirichlet_M(alpha) shared,
 *              theta_i ~ Dirichlet_K(mix_alpha): an LDA-like mixture that a
 *              K-component MoS represents exactly, computed in log space.
 *
 * Reproducibility: rows are generated in groups of sbw_synth_group_rows()
 * consecutive rows (a function of M and the kind only); group b draws from the GSL
 * stream (seed, b) of sbw_rng.h, and the shared parameters (W, phi) from
 * streams at the top of the index range.  So the output is byte-identical
 * whatever the thread count, block size or N (the first n rows of an
 * N-row language are the n-row language), and the in-memory functions give
 * exactly the rows that sbw-synth writes.
 *
 * Threads: sbw_synth_fill and the wrappers use OpenMP over row groups with
 * omp_get_max_threads() threads (taken at sbw_synth_alloc); lowrank runs
 * OpenBLAS single-threaded meanwhile (one dgemm per group and thread; see
 * sbw_synth_blas.h).  Byte-identical means on one machine and build: the
 * kernels use libmvec and -march=native, so another CPU may differ in the
 * last bits.
 */
#ifndef SBW_SYNTH_H
#define SBW_SYNTH_H

#include "sbw_mat.h"
#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sbw_synth_kind {
    SBW_SYNTH_DIRICHLET = 0,
    SBW_SYNTH_LOWRANK,
    SBW_SYNTH_ZIPF,
    SBW_SYNTH_TOPICS
} sbw_synth_kind;

/* Smallest and largest accepted concentration.  Below 1e-300, log(U)/alpha
 * would overflow to -inf; above 1e10 the rows are uniform to rounding. */
#define SBW_SYNTH_ALPHA_MIN 1e-300
#define SBW_SYNTH_ALPHA_MAX 1e10

/* Entries (rows x M) that one RNG stream covers, and the smallest group of
 * a lowrank language (its dgemm panel: fewer rows would reread W, M x R,
 * for every handful of rows). */
#define SBW_SYNTH_GROUP_ENTRIES     65536
#define SBW_SYNTH_LOWRANK_GROUP_MIN 64

typedef struct sbw_synth_params {
    sbw_synth_kind kind;
    size_t n, m; /* N contexts (rows), M words (columns) */
    uint64_t seed;
    double alpha;            /* dirichlet: concentration; topics: topic-word one */
    const double *alpha_vec; /* dirichlet: M concentrations, or NULL (borrowed) */
    size_t rank;             /* lowrank: R >= 1 */
    double scale;            /* lowrank: standard deviation of each logit */
    bool with_ones;          /* lowrank: last column of W all ones */
    double exponent;         /* zipf: power-law exponent s >= 0 */
    double sigma;            /* zipf: perturbation standard deviation >= 0 */
    size_t k;                /* topics: number of topics K >= 1 */
    double mix_alpha;        /* topics: concentration of the mixture weights */
} sbw_synth_params;

/* Fills p with the defaults for kind and size n x m: seed SBW_RNG_DEFAULT_SEED,
 * alpha 0.1, rank 10, scale 1, exponent 1, sigma 1, k 10, mix_alpha 1. */
void sbw_synth_params_init(sbw_synth_params *p, sbw_synth_kind kind, size_t n, size_t m);

/* "dirichlet", "lowrank", "zipf", "topics". */
const char *sbw_synth_kind_name(sbw_synth_kind kind);

/* Checks p: n, m >= 1, n * m * 8 bytes addressable, alpha (or every
 * alpha_vec entry) finite in [SBW_SYNTH_ALPHA_MIN, SBW_SYNTH_ALPHA_MAX],
 * 1 <= rank <= min(n, m), scale finite and > 0, exponent and sigma finite
 * and >= 0, 1 <= k <= 1e5, mix_alpha as
 * alpha.  Errors:
 * SBW_EINVAL with a reason naming the parameter. */
int sbw_synth_check(const sbw_synth_params *p);

/* Exact-arithmetic ranks of a lowrank language (N x M, R, with_ones):
 * rank(A) = min(R + 1, N, M) and d* = rank(A (I - 11^T/M)) = min(R, N, M - 1);
 * with ones, min(R, N, M) and min(R - 1, N, M - 1); for M = 1 both are 0.
 * These are what the numerical rank finds when the logit scale is not tiny
 * (at scale << 1 the rows are uniform to rounding and the measured ranks
 * drop). */
void sbw_synth_lowrank_ranks(size_t n, size_t m, size_t rank, bool with_ones, size_t *rank_a,
                             size_t *d_star);

typedef struct sbw_synth sbw_synth;

/* A generator for p: checks p, draws the shared parameters (W for lowrank,
 * log phi for topics, the log unigram for zipf) and allocates one
 * workspace per OpenMP thread.  alpha_vec is copied.  Errors: those of
 * sbw_synth_check, SBW_ENOMEM.  *g is NULL on failure. */
int sbw_synth_alloc(sbw_synth **g, const sbw_synth_params *p);

/* Frees; NULL is a no-op. */
void sbw_synth_free(sbw_synth *g);

/* The generator's parameters (alpha_vec points at its own copy). */
const sbw_synth_params *sbw_synth_get_params(const sbw_synth *g);

/* Rows per RNG stream: max(1, SBW_SYNTH_GROUP_ENTRIES / M), and at least
 * SBW_SYNTH_LOWRANK_GROUP_MIN for lowrank. */
size_t sbw_synth_group_rows(const sbw_synth *g);

/* Writes rows [r0, r0 + block->rows) of the language into block
 * (block->rows x M, any ld >= M).  r0 must be a multiple of
 * sbw_synth_group_rows(g) and r0 + rows <= N.  Parallel over groups, with
 * the generator's workspaces: one fill at a time per generator.
 * Errors: SBW_ESHAPE (cols != M), SBW_EINVAL (r0 misaligned, rows past N);
 * both are found before anything is written: block untouched on failure. */
int sbw_synth_fill(sbw_synth *g, size_t r0, sbw_mat *block);

/* topics: the shared log topic-word matrix log phi (K x M), as a view into
 * the generator; lowrank: W (M x R).  SBW_EINVAL for other kinds (*view
 * untouched on failure). */
int sbw_synth_topics_logphi(const sbw_synth *g, sbw_mat *view);
int sbw_synth_lowrank_w(const sbw_synth *g, sbw_mat *view);

/* The whole language into a preallocated logp (N x M taken from its shape;
 * p->n and p->m are ignored).  Errors: as sbw_synth_alloc; logp untouched
 * on failure (every error comes before the first row is written). */
int sbw_synth_generate(const sbw_synth_params *p, sbw_mat *logp);

/* Fill a preallocated logp (N x M, N = logp->rows, M = logp->cols) with the
   same rows sbw-synth writes for these parameters and seed.
   dirichlet: symmetric Dirichlet(alpha) rows.
   lowrank: rank R logits of standard deviation scale, with_ones as above.
   topics: K topics ~ Dirichlet_M(alpha), mixture weights ~ Dirichlet_K(1).
   Errors: SBW_EINVAL for a bad parameter (see sbw_synth_check), SBW_ENOMEM;
   logp untouched on failure (sbw_synth_generate). */
int sbw_synth_dirichlet(sbw_mat *logp, double alpha, uint64_t seed);
int sbw_synth_lowrank(sbw_mat *logp, size_t rank, double scale, bool with_ones, uint64_t seed);
int sbw_synth_topics(sbw_mat *logp, size_t k, double alpha, uint64_t seed);

#endif
