/* sbw_rsvd.h -- the top singular values of a .npy matrix too large for an
 * exact SVD: a randomized range finder with power iterations over row
 * blocks of a regular file, in a few passes (Halko, Martinsson and Tropp
 * 2011, "Finding structure with randomness", Algorithm 4.4, randomized
 * subspace iteration, with Algorithm 5.1's direct SVD of B = Q^T A), the
 * Frobenius norm computed exactly in the first of them, and an
 * a-posteriori bound on the residual ||(I - QQ^T) A|| from Gaussian test
 * vectors (Halko et al. section 4.3, Lemma 4.1), which makes each value
 * an interval.
 *
 * A is the N x M analysed matrix: the file's matrix, or its exp (exp),
 * centred as sbw_reduce.h defines the variants (rows: A (I - 11^T/M);
 * cols: (I - 11^T/N) A; both).  It is never formed: each block of rows is
 * read (a mapped view when the file is native-endian C-order float64,
 * else sbw_npy_read_rows, which converts float32, float16, bfloat16,
 * either byte order and Fortran order), transformed in a block buffer --
 * each row centred as sbw_reduce_centre_row centres it, then, for a
 * column-centred variant, the column means of the row-transformed matrix
 * subtracted, which a first pass (pass 0, no arithmetic but sums) has
 * computed -- and multiplied (BLAS dgemm) at once.  With l = K + p sketch
 * columns (p the oversampling), q power iterations and t test vectors:
 *
 *   pass 1       Y = A Omega (Omega M x l Gaussian), ||A||_F^2, the
 *                non-finite check, column means, the row means' energy;
 *                Q = orth(Y) (dgeqrf + dorgqr)
 *   2 passes     for each of q iterations: Z = orth(A^T Q), Q = orth(A Z)
 *                (the last A-side pass also forms T = A G, G M x t
 *                Gaussian, independent of Omega and so of Q)
 *   last pass    B^T = A^T Q and U = A^T R, R = (I - QQ^T) T
 *
 * then the l singular values of B (dgesdd on B^T, M x l).  Passes: 2q + 2
 * (+ 1 for a column-centred variant).  Omega's column j comes from
 * sbw_rng stream j of the seed, G's column i from stream 2^31 + i; both
 * are drawn in row order, so results depend only on (seed, l, t, the
 * file) and the BLAS thread count (OpenBLAS's split of a GEMM).
 *
 * What the values mean (exact arithmetic): with E = (I - QQ^T) A,
 * A^T A = B^T B + E^T E, so for every j
 *     sigma_j(B) <= sigma_j(A) <= sqrt(sigma_j(B)^2 + ||E||_2^2)
 * (the first as B^T B <= A^T A, the second by Weyl's inequality).  ||E||_2
 * is bounded three ways, and the smallest is used:
 *   Halko et al.'s Lemma 4.1 on E with r_i = E g_i (the columns of R):
 *     ||E||_2 <= alpha sqrt(2/pi) max_i ||r_i||;
 *   the same lemma on E^T E with E^T E g_i = A^T r_i (U's columns):
 *     ||E||_2^2 <= alpha sqrt(2/pi) max_i ||A^T r_i||
 *   (closer when the tail is flat: a Schatten-4 rather than a Frobenius
 *   norm of the tail), each failing with probability at most alpha^-t;
 *   and deterministically ||E||_2 <= ||E||_F = sqrt(||A||_F^2 -
 *   ||B||_F^2).  sbw takes t = SBW_RSVD_TESTS = 20 and alpha = 10^(10/t),
 *   so the intervals fail with probability at most 2e-10
 *   (SBW_RSVD_FAILURE).
 * The rounding of the passes and of gesdd moves the computed values by
 * about eps sigma_1; sbw_rsvd_bounds widens each interval by a roundoff
 * term d = 0.25 sqrt(N + M + 1) DBL_EPSILON w0, w0 the larger of sigma_1
 * and the uncentred matrix's scale (the entries' own rounding, which
 * centring keeps: sbw_reduce_uncentred_w0): half the Numerical Recipes
 * threshold at float64's eps, so a value below d is roundoff to both.
 *
 * Why p = 10 by default: Halko et al.'s deviation bound (section 1.5,
 * Theorem 10.8) gives ||E|| <= (1 + 11 sqrt(K + p) sqrt(min(N, M)))
 * sigma_{K+1} except with probability at most 6 p^-p, which is 6e-10 at
 * p = 10 (1.9e-3 at p = 5), for 10 columns more than K; and q = 2 power
 * iterations by default, because each one raises the singular values to
 * the power 2q + 1 in the range finder, so slow (power-law) decay, the
 * case of log-probability matrices, is captured in a few passes (their
 * section 4.5).
 */
#ifndef SBW_RSVD_H
#define SBW_RSVD_H

#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_progress.h"
#include "sbw_reduce.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBW_RSVD_OVERSAMPLE 10    /* p, see above */
#define SBW_RSVD_POWER      2     /* q */
#define SBW_RSVD_TESTS      20    /* t, Gaussian test vectors of the residual */
#define SBW_RSVD_FAILURE    2e-10 /* 2 alpha^-t: the probability the estimate fails */

typedef struct sbw_rsvd_opts {
    size_t top;        /* K >= 1, at most min(N, M) */
    size_t oversample; /* p; the sketch has l = min(K + p, min(N, M)) columns */
    size_t power;      /* q power iterations */
    uint64_t seed;
    sbw_reduce_variant var;
    bool exp;               /* analyse P = exp(A) */
    size_t block_rows;      /* rows per block; 0: 64 MiB of float64 rows, >= 512 */
    sbw_progress *progress; /* rows read, over every pass; may be NULL */
} sbw_rsvd_opts;

/* The default options: K = top, p = SBW_RSVD_OVERSAMPLE, q =
 * SBW_RSVD_POWER, the default seed, the plain matrix. */
sbw_rsvd_opts sbw_rsvd_defaults(size_t top);

typedef struct sbw_rsvd {
    size_t rows, cols;   /* N, M */
    size_t top, sketch;  /* K, l */
    size_t tests;        /* t */
    size_t passes;       /* over the file */
    size_t block_rows;   /* as used */
    bool mapped;         /* blocks were mapped views, not copies */
    sbw_npy_dtype dtype; /* of the file */
    double *s;           /* l singular values of B = Q^T A, descending */
    double fro2;         /* ||A||_F^2 of the analysed matrix, exact (summed in the pass) */
    double b_fro2;       /* ||B||_F^2 */
    double test_max;     /* max_i ||r_i||, r_i = (I - QQ^T) A g_i */
    double test2_max;    /* max_i ||A^T r_i|| = ||E^T E g_i|| */
    double resid_test;   /* the smaller of the two probabilistic bounds on ||E||_2 */
    double resid_fro;    /* ||E||_F = sqrt(||A||_F^2 - ||B||_F^2), with a rounding allowance */
    double resid;        /* the smaller: what the intervals use */
    double w0_uncentred; /* sbw_reduce_uncentred_w0 with sigma_1 = s[0] */
    double rowmean_sq;   /* sum_i M m_i^2 of the matrix before centring */
    bool f32_values;     /* a float64 file of float32 values */
    double seconds;      /* every pass and the factorisations */
    bool single_pass;    /* sbw_rsvd_sp's (a pipe) */
    size_t corange;      /* its co-range sketch's rows (l = 2 sketch + 1, at most N) */
    double expected_err; /* its Theorem 4.3 estimate of E ||A - Q X||_F (see there) */
} sbw_rsvd;

/* Runs the passes above over r, a reader at any row of a seekable file (a
 * regular file: sbw_npy_reader_seekable), and fills *out.  Errors:
 * SBW_EINVAL (K = 0 or K > min(N, M), a reader that cannot seek: a pipe,
 * which cannot be read 2q + 2 times), SBW_ESHAPE (not a matrix), SBW_EDATA
 * (NaN or Inf: counts and first position after pass 1), those of
 * sbw_npy_read_rows and sbw_npy_seek_row, SBW_ENOMEM (with the memory
 * preflight of the whole run: the sketch (N + M) (l + t) plus a block),
 * SBW_ENUMERIC (LAPACK), and a "svd_not_converged" warning as
 * sbw_svd_values gives.  *out is zeroed on failure (nothing to free). */
int sbw_rsvd_run(sbw_npy_reader *r, const sbw_rsvd_opts *o, sbw_rsvd *out);

/* The single-pass sketch for a stream (a pipe: read once, in row order;
 * Tropp, Yurtsever, Udell and Cevher 2017, "Practical sketching
 * algorithms for low-rank matrix approximation", SIAM J. Matrix Anal.
 * Appl. 38(4), Algorithm 3 with Gaussian test matrices).  With k = l_range
 * = min(K + p, min(N, M)) and l = min(2k + 1, N) >= k + 2, one pass forms
 *     Y = A Omega (N x k, Omega the M x k matrix of sbw_rsvd_run's pass 1)
 *     W = Psi A   (l x M, Psi l x N Gaussian: row i's column from sbw_rng
 *                  stream 2^32 + i of the seed, drawn as the rows come)
 * and ||A||_F^2 exactly (a column-centred variant: each column's sum of
 * squared deviations, combined block by block as Chan, Golub and LeVeque
 * do, and the sketches corrected at the end, Y -= 1 (c^T Omega) and
 * W -= (Psi 1) c^T, c the column means: both are linear in A).  Then
 * Q = orth(Y), Psi Q by drawing Psi again (no N x l matrix is kept), X =
 * (Psi Q)^+ W (dgels), A ~ Q X, and the k singular values of X.
 *
 * The pass also forms T = A G (G: sbw_rsvd_run's test vectors, independent
 * of Omega and Psi and so of E = A - Q X).
 *
 * What the values mean.  sigma_j(Q X) = sigma_j(X), and by Weyl's
 * inequality |sigma_j(A) - sigma_j(X)| <= ||E||_2.  Halko et al.'s Lemma
 * 4.1 on r_i = E g_i = t_i - Q (X g_i) bounds it: ||E||_2 <= alpha
 * sqrt(2/pi) max_i ||r_i|| = resid (= resid_test) except with probability
 * alpha^-t = 1e-10 (resid_fro NAN: no deterministic bound here), so
 * sbw_rsvd_bounds gives s_j -+ resid.  The paper's own bound, Theorem 4.3,
 * is on the expectation over the test matrices:
 *     E ||E||_F^2 <= (1 + f(k, l)) min_{r < k - 1} (1 + f(r, k)) tau_{r+1}^2,
 * f(s, t) = s / (t - s - 1), tau_{r+1}^2 = sum_{j > r} sigma_j^2 (with
 * l = 2k + 1, 1 + f(k, l) = 2); expected_err is its root with each tail
 * bounded above by ||A||_F^2 - sum_{j <= r} max(0, s_j - resid)^2: an
 * estimate of the typical error, not a bound on this draw's.  tests =
 * SBW_RSVD_TESTS, passes 1, mapped false.  Results depend only on (seed,
 * k, l, the stream) and the BLAS thread count.  Errors: those of
 * sbw_rsvd_run but the pipe's, SBW_EINVAL when N < k + 2 (no co-range
 * sketch larger than the range's: give a smaller --top or --oversample),
 * SBW_EDATA (NaN or Inf, at the end of the stream), SBW_ENUMERIC (Psi Q
 * rank-deficient).  *out zeroed on failure. */
int sbw_rsvd_sp(sbw_npy_reader *r, const sbw_rsvd_opts *o, sbw_rsvd *out);

/* sbw-rank's reading: path opened through the one input checker
 * (sbw_check_open, a matrix), a progress bar on stderr as label unless
 * quiet, then sbw_rsvd_run, or sbw_rsvd_sp when the reader cannot
 * seek (a pipe).  Errors: those two's; *out zeroed on failure. */
int sbw_rsvd_file(const char *path, const sbw_rsvd_opts *o, const char *label, bool quiet,
                  sbw_rsvd *out);

/* Frees rs's values and zeroes it; NULL is a no-op. */
void sbw_rsvd_free(sbw_rsvd *rs);

/* resid_test, resid_fro and resid of rs from its tests, test_max,
 * test2_max, fro2 and b_fro2 (see above; resid_fro's allowance for the
 * rounding of the two sums is 8 (N + M) DBL_EPSILON ||A||_F^2 under the
 * root). */
void sbw_rsvd_residual(sbw_rsvd *rs);

/* The interval of each of the first n <= l singular values of A:
 * lo[j] = max(0, s_j - d) and hi[j] = sqrt(s_j^2 + resid^2) + d, d the
 * roundoff term above (returned).  Holds with probability at least
 * 1 - SBW_RSVD_FAILURE over the test vectors.  A single-pass sketch's:
 * lo[j] = max(0, s_j - resid - d), hi[j] = s_j + resid + d (with
 * probability 1 - 1e-10: sbw_rsvd_sp). */
double sbw_rsvd_bounds(const sbw_rsvd *rs, size_t n, double *lo, double *hi);

/* What sbw_rsvd_run and sbw_rsvd_sp share.  The sketch sizes of
 * K on an N x M matrix into out (rows, cols, top, sketch, tests);
 * SBW_EINVAL for a K out of range, SBW_ENOMEM beyond BLAS's 32 bits; out
 * untouched on failure. */
int sbw_rsvd_plan(const sbw_rsvd_opts *o, size_t n, size_t m, const char *path, sbw_rsvd *out);

/* Q = orth(y) in place: y (rows x c, column-major, leading dimension rows,
 * rows >= c), Householder QR (dgeqrf) and its explicit Q (dorgqr); tau
 * c values of scratch.  Errors: SBW_ENOMEM, LAPACK's; y and tau hold
 * partial results on failure (discard them). */
int sbw_rsvd_orth(double *y, size_t rows, size_t c, double *tau);

/* The naive twin (a test oracle): the same algorithm with the same random
 * draws on a fully loaded matrix a (N x M, the file's values, untransformed),
 * centred whole by straightforward loops, products by triple loops, the
 * same LAPACK QR and SVD.  Fills out's values and norms as sbw_rsvd_run
 * (not passes, block_rows, mapped, f32_values, seconds).  Errors:
 * SBW_EINVAL (K), SBW_ENOMEM, LAPACK's; *out zeroed on failure. */
int sbw_rsvd_ref(const sbw_mat *a, const sbw_rsvd_opts *o, sbw_rsvd *out);

#endif
