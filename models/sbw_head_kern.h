/* sbw_head_kern.h -- the per-context hot loops of a head (called by
 * sbw_pass, which sbw-fit and language models drive): normalisation,
 * cross-entropy and its gradient for one softmax or one mixture of
 * softmaxes, and the pointwise monotone maps (sigsoftmax, LMS, PLIF) with
 * their backward passes.
 *
 * Compiled with -O3 -march=native -ffast-math (libmvec exp/log, AVX-512
 * where the CPU has it): inputs must be finite, nothing here tests for NaN
 * or Inf.  Every double function has a naive twin of the same signature
 * in sbw_head_ref.h (sbw_head_ref_*), written from the formulas in the log
 * domain, which the tests compare against on small odd sizes; the float
 * variants (_f) are held to the same double twins at float tolerances.
 * Sums accumulate in double.
 *
 * Conventions: z is one context's logits (M), p its target probabilities
 * (M, as stored: they sum to psum, about 1), the loss is the
 * cross-entropy -sum_i p_i log Q_i, and "scale" multiplies the gradient
 * (1/N for a mean over N contexts).
 */
#ifndef SBW_HEAD_KERN_H
#define SBW_HEAD_KERN_H

#include <stdbool.h>
#include <stddef.h>

/* Softmax head on one context.  Returns -sum p log softmax(z) and sets
 * *argmax to the first index of max z.  With grad, z is overwritten by
 * scale * (softmax(z) * psum - p), the gradient of scale * loss.  z is (M). */
double sbw_head_kern_softmax(double *z, const double *p, size_t m, double psum, double scale,
                             bool grad, size_t *argmax);

/* Mixture of K softmaxes on one context: Q = sum_k pi_k softmax(z_k),
 * z (K, M) with leading dim M, logpi (K) = log pi.  Returns -sum p log Q,
 * writes log Q to lq (M) and its first argmax to *argmax.  With grad, z is
 * overwritten by the gradient of scale * loss with respect to z, and
 * dalpha (K) receives the gradient with respect to the prior's logits
 * alpha (pi = softmax(alpha)): scale * (pi_k psum - R_k), R_k = sum_i p_i
 * pi_k Q_k,i / Q_i.  e is scratch (K + 1, M), kbuf scratch (4K).  The sum
 * Q_i = sum_k (pi_k / S_k) exp(z_k,i - max z_k) is formed in the
 * probability domain (one exp per z); entries where it falls below 1e-250
 * are redone in the log domain, so no Q_i underflows to 0. */
double sbw_head_kern_mixture(double *z, size_t k, size_t m, const double *logpi, const double *p,
                             double psum, double scale, bool grad, double *e, double *kbuf,
                             double *lq, double *dalpha, size_t *argmax);

/* Mixtape's gating of one context (Yang et al. 2019, sbw_head.h): z (K,
 * M, leading dim M) the component logits w_x^T g_k (+ b_x), gl the gate
 * logits' word part for the F = nf frequent words (word x's K - 1 values
 * v_x^T tanh(GU_j h) at gl + x ldg), s (K-1) the shared part u_j^T h, gb
 * (nf, K-1) the gate biases.  Word x's gates are gamma_j = sigma(gl_xj +
 * s_j + gb_xj) for x < nf, sigma(s_j) for the rest; its priors pi_{x,k}
 * the leaves of the heap-ordered sigmoid tree; y (M) = sum_k pi_{x,k}
 * z_{k,x}.  gl is overwritten by the frequent words' gamma, which
 * sbw_head_kern_mixtape_back reads.  1 <= K <= SBW_HEAD_MIXTAPE_KMAX. */
void sbw_head_kern_mixtape(const double *z, size_t k, size_t m, double *gl, size_t ldg,
                           const double *s, const double *gb, size_t nf, double *y);

/* Its backward: dy (M) the gradient with respect to y; z (as the
 * forward had it) is overwritten by dz_{k,x} = pi_{x,k} dy_x, gl (the
 * gammas the forward left) by the gradient of the frequent words' gate
 * logits, and ds (K-1) by the gradient of s (every word's, shared or
 * not). */
void sbw_head_kern_mixtape_back(double *z, size_t k, size_t m, double *gl, size_t ldg,
                                const double *s, size_t nf, const double *dy, double *ds);

/* Sigsoftmax map: y = ss(z) = 2z - softplus(z) and fp = ss'(z) = 2 -
 * sigma(z), stable for every finite z.  z, y, fp are (M).  Like the LMS
 * map, non-decreasing in z only to the last ulps: libmvec's exp and the
 * refined reciprocal are not monotone to the ulp (y drops by at most 2 eps
 * max(1, |y|) between consecutive z; every float checked once). */
void sbw_head_kern_ss(const double *z, double *y, double *fp, size_t m);

/* dz = dy * fp elementwise (the backward of any map with stored fp);
 * dz may alias dy.  All (M). */
void sbw_head_kern_map_back(const double *dy, const double *fp, double *dz, size_t m);

/* LMS map: y = sum_c v_c sigma(u_c z + b_c) + lambda z, fp = dy/dz, and
 * sig (2K, M) keeps sigma and sigma' of every hidden unit for the
 * backward.  u, v, b are (K), lambda >= 0 (0 without --linear).
 * Non-decreasing in z up to drops of 4 eps sum_c v_c (each sigmoid is
 * monotone only to a few ulps, see the sigsoftmax map), so two logits
 * within that of each other may swap order in Q. */
void sbw_head_kern_lms(const double *z, double *y, double *fp, double *sig, size_t m,
                       const double *u, const double *v, const double *b, size_t k, double lambda);

/* Backward of the LMS map's parameters: with g = dL/dy (M), adds
 * sum_i g_i sigma_c(z_i) to gv[c], v_c sum g sigma'_c z to gu[c], v_c sum g
 * sigma'_c to gb[c], sum g z to *glambda.  (The gradient with respect to z
 * is sbw_head_kern_map_back with fp.) */
void sbw_head_kern_lms_back(const double *z, const double *g, const double *sig, size_t m,
                            const double *v, size_t k, double *gu, double *gv, double *gb,
                            double *glambda);

/* PLIF map with K intervals of width delta = 2T/K on [-T, T]: for z in
 * interval i (clamped to [0, K-1], which extends the end pieces linearly),
 * y = cum[i] + s[i] (z - (-T + delta i)), fp = s[i].  s (K) are the slopes,
 * cum (K) their scaled prefix sums, cum[i] = delta * sum_{j<i} s_j.  y is
 * clamped to [cum[i], cum[i+1]] on inner intervals (a change within
 * rounding), which makes the computed map non-decreasing in z exactly, as
 * the float twin's: a monotone head never reorders two logits, even an ulp
 * apart across a knot (the naive twin, unclamped, can). */
void sbw_head_kern_plif(const double *z, double *y, double *fp, size_t m, const double *s,
                        const double *cum, size_t k, double t);

/* Backward of the PLIF's slopes: with g = dL/dy, adds g_i to gsum[i_z]
 * and g_i (z - l_i) to gx[i_z] (both (K)); the slope gradient follows as
 * ds_j = gx[j] + delta * sum_{i>j} gsum[i] (sbw_head_map_chain, once per pass). */
void sbw_head_kern_plif_back(const double *z, const double *g, size_t m, size_t k, double t,
                             double *gsum, double *gx);

/* ---- float twins for --precision single ---------------------------------
 * The same contracts in float storage, for the block's float GEMM buffers
 * worked in place: pointwise exp/sigmoid in float (libmvec's 16-lane
 * variants), every sum in double: loss, normalisers, parameter gradients,
 * the mixture's Q_j = sum_k pi_k softmax(z_k)_j and the LMS map's f(z) and
 * f'(z) over its K hidden units (each accumulated in double a chunk of
 * words at a time, rounded to float once).  The mixture's log Q (lq) is
 * double, log taken in double.  The mixture's log-domain fallback
 * threshold is 1e-30; its scratch e is (K + 1, M) floats.  Their oracle is
 * the same naive double twin, at float tolerances. */
double sbw_head_kern_softmax_f(float *z, const float *p, size_t m, double psum, double scale,
                               bool grad, size_t *argmax);
double sbw_head_kern_mixture_f(float *z, size_t k, size_t m, const double *logpi, const float *p,
                               double psum, double scale, bool grad, float *e, double *kbuf,
                               double *lq, double *dalpha, size_t *argmax);
void sbw_head_kern_ss_f(const float *z, float *y, float *fp, size_t m);
void sbw_head_kern_mixtape_f(const float *z, size_t k, size_t m, double *gl, size_t ldg,
                             const double *s, const double *gb, size_t nf, float *y);
void sbw_head_kern_mixtape_back_f(float *z, size_t k, size_t m, double *gl, size_t ldg,
                                  const double *s, size_t nf, const float *dy, double *ds);
void sbw_head_kern_map_back_f(const float *dy, const float *fp, float *dz, size_t m);
void sbw_head_kern_lms_f(const float *z, float *y, float *fp, float *sig, size_t m, const float *u,
                         const float *v, const float *b, size_t k, float lambda);
void sbw_head_kern_lms_back_f(const float *z, const float *g, const float *sig, size_t m,
                              const double *v, size_t k, double *gu, double *gv, double *gb,
                              double *glambda);
void sbw_head_kern_plif_f(const float *z, float *y, float *fp, size_t m, const float *s,
                          const float *cum, size_t k, double t);
void sbw_head_kern_plif_back_f(const float *z, const float *g, size_t m, size_t k, double t,
                               double *gsum, double *gx);

/* y (n) += x (n), both float. */
void sbw_head_kern_add_f(const float *x, float *y, size_t n);

/* x = tanh(x) elementwise (n); the mixture's g = tanh(U h). */
void sbw_head_kern_tanh(double *x, size_t n);

/* dg = dg * (1 - g^2) elementwise (n): the backward of tanh. */
void sbw_head_kern_tanh_back(const double *g, double *dg, size_t n);

/* y (n) += a x (n). */
void sbw_head_kern_axpy(double a, const double *x, double *y, size_t n);

/* Conversions between the GEMM's float buffers and double rows. */
void sbw_head_kern_f2d(const float *x, double *y, size_t n);
void sbw_head_kern_d2f(const double *x, float *y, size_t n);

/* acc (M) += column sums of x (rows, M) with leading dim ld (double). */
void sbw_head_kern_colsum(const double *x, size_t rows, size_t m, size_t ld, double *acc);

/* y (n) += x (n), float x into double y. */
void sbw_head_kern_add_f2d(const float *x, double *y, size_t n);

#endif
