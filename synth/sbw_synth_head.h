/* sbw_synth_head.h -- random Softmax heads (W, b) with planted interior
 * words: test heads whose argmaxable set is known by construction (issue
 * 17: sbw-argmax must find it exactly; sbw-verify's argmax claims and
 * experiments/heads/run.sh --synthetic draw theirs here).
 *
 * The construction, for M words in D >= 2 dimensions with K planted:
 *   - the K planted positions are a uniform K-subset of 0..M-1;
 *   - every other word (a "sphere word") is uniform on the unit sphere of
 *     R^D (a normalised standard Gaussian vector), with bias b_j ~ N(0, 1/4);
 *     distinct points of a sphere are all vertices of their convex hull,
 *     and h = R w_j puts w_j strictly first for R large whatever the biases
 *     (w_l . w_j < 1 for every other word l), so every sphere word is
 *     argmaxable (with probability 1: two sphere words coincide with
 *     probability 0);
 *   - each planted word i is w_i = sum_t lambda_t w_{j_t} over D + 1
 *     distinct sphere words j_t (a uniform (D+1)-subset), lambda_t =
 *     u_t / sum u, u_t uniform on [1/2, 3/2), so every lambda_t >
 *     1/(3 (D + 1)): w_i lies strictly inside the simplex of those words
 *     (generically D-dimensional, so in the interior of the hull), and its
 *     bias b_i = sum_t lambda_t b_{j_t} - v/10, v uniform on [0, 1): at or
 *     below the same combination.  Then for every h,
 *     z_i = w_i.h + b_i <= sum_t lambda_t z_{j_t} <= max_t z_{j_t}: a planted
 *     word is never the strict argmax, with or without the bias (lambda is
 *     its certificate, sbw_argmax's "below_hull").
 * Draw order: the planted positions, then the sphere words in index order
 * (each W row then its bias), then the planted words in index order.
 *
 * Reproducibility: one GSL MT19937 stream (seed, 0) of sbw_rng.h, draws in
 * a fixed order (positions, then word by word), plain IEEE double
 * arithmetic (not a *_kern.c file: no -ffast-math, no -march=native): the
 * random integers are the same on every machine, and so are the bytes
 * wherever libm's log gives the same results (gsl_ran_gaussian uses log
 * and sqrt; sqrt is exact).
 */
#ifndef SBW_SYNTH_HEAD_H
#define SBW_SYNTH_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest D accepted: a test head wider than this is a mistake. */
#define SBW_SYNTH_HEAD_DMAX 100000

/* A head with planted interior words.  w is (m, d) row-major; b is m values
 * or NULL; planted[j] says whether word j is one of the k planted words.
 * Owned by the struct (sbw_synth_head_free). */
typedef struct sbw_synth_head {
    size_t m, d, k;
    double *w, *b;
    bool *planted;
} sbw_synth_head;

/* Checks the sizes: 2 <= d <= SBW_SYNTH_HEAD_DMAX (the sphere of R^1 is
 * {-1, 1}: its words would repeat), k <= m, m - k >= d + 1 (a planted word
 * needs D + 1 sphere words), m x d doubles addressable.  Errors: SBW_EINVAL
 * with a reason naming the sizes. */
int sbw_synth_head_check(size_t m, size_t d, size_t k);

/* Draws the head described above from seed into *h (the previous contents
 * are not freed: pass a zeroed or freed head).  With bias false, b is NULL
 * and no bias is drawn (so W differs from the biased head of the same
 * seed: the draws interleave).  Errors: those of sbw_synth_head_check,
 * SBW_ENOMEM; on failure *h is zeroed with nothing allocated. */
int sbw_synth_head_plant(sbw_synth_head *h, size_t m, size_t d, size_t k, bool bias, uint64_t seed);

/* Frees the head's arrays; the head is zeroed.  A zeroed head is a no-op. */
void sbw_synth_head_free(sbw_synth_head *h);

/* Where sbw_synth_head_write puts a head; NULL skips that file. */
typedef struct sbw_synth_head_paths {
    const char *w;       /* W: float64 .npy (m, d); required, "-" = stdout */
    const char *b;       /* b: float64 .npy (m,); needs h->b */
    const char *planted; /* the planted words' indices, one a line, increasing */
    const char *vocab;   /* one name a line: "v<j>" for a sphere word, "in<j>" planted */
} sbw_synth_head_paths;

/* Writes the head's files, each to a temporary renamed into place
 * (sbw_file.h); they are committed together at the end, W last, and when a
 * commit fails the files committed before it are removed, so either every
 * file or none is left under its name.  Errors: SBW_EINVAL (no W path, a
 * b path for a head without bias), those of sbw_npy_create /
 * sbw_file_create / the writes and commits (SBW_EIO naming the path). */
int sbw_synth_head_write(const sbw_synth_head *h, const sbw_synth_head_paths *p);

#endif
