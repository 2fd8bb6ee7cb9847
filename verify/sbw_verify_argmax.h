/* sbw_verify_argmax.h -- claims about which words a head can make its
 * strict argmax (issue 17): a strictly increasing pointwise map (LMS, PLIF)
 * keeps a Softmax head's argmaxable set, and a Mixture of Softmaxes with a
 * shared output embedding cannot make a Softmax-unargmaxable word the
 * strict argmax, while one with per-component embeddings can (exhibited).
 *
 * The heads are random with planted interior words (sbw_synth_head_plant,
 * synth/sbw_synth_head.h): the other words lie
 * on the unit sphere (every one a vertex of the hull, with or without a
 * bias: h = R w_j puts w_j first for R large), each planted word is a
 * convex combination of d + 1 of them with weights >= 1 / (3 (d + 1)), its
 * bias (if any) at or below the same combination of theirs.  So the
 * argmaxable set is known by construction, and sbw_argmax_run must find
 * it exactly.
 *
 * The MoS proof (the claim as the issue stated it is false for the usual
 * MoS): let w_i = sum_j lambda_j w_j and b_i <= sum_j lambda_j b_j with
 * lambda convex over words j != i (sbw-argmax's certificate).  In every
 * component k, z_i = w_i.h_k + b_i <= sum_j lambda_j z_j, so by the
 * convexity of exp (Jensen, or weighted AM-GM)
 *   p^k_i = exp(z_i) / Z_k <= exp(sum_j lambda_j z_j) / Z_k
 *        <= sum_j lambda_j exp(z_j) / Z_k = sum_j lambda_j p^k_j,
 * and summing with the mixture weights pi_k (any, context-dependent too)
 *   P_i = sum_k pi_k p^k_i <= sum_j lambda_j P_j <= max_{j != i} P_j.
 * Equality in the last step needs P_j equal on the support of lambda, in
 * the first the z_j equal on it in every component: i is never the STRICT
 * argmax of the mixture.  The argument needs the same (W, b) in every
 * component; with per-component output embeddings W_k the maxima of the
 * components can sit at different words, and a word interior to every
 * W_k's hull but close to a different vertex in each can collect more
 * mass than any other word.  In one dimension: W_1 = (1, 0.99, -1) and
 * W_2 = (1, -0.99, -1), h_1 = 1, h_2 = -1, pi = (1/2, 1/2) give
 * P = (0.267, 0.466, 0.267): the middle word, interior in both, first.
 */
#ifndef SBW_VERIFY_ARGMAX_H
#define SBW_VERIFY_ARGMAX_H

#include "sbw_verify.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the shared-W Jensen check allows for one (mixture, word i) pair:
 * rounding + expm1(residual * h1 + max(gap, 0)) * mix, where residual =
 * ||sum lambda_j w_j - w_i||_inf and gap = b_i - sum lambda_j b_j are word
 * i's lambda certificate's (lambda summing to 1), h1 the largest ||h_c||_1
 * of the mixture's contexts and mix = sum lambda_j P_j.  Per component
 * z_i - sum lambda_j z_j = -r.h_c + gap <= e = residual h1 + max(gap, 0),
 * so p_i <= e^e sum lambda_j p_j (Jensen) and P_i - mix <= expm1(e) mix.
 * A NaN residual or gap (no valid certificate) allows rounding only. */
double sbw_verify_argmax_jensen_tol(double rounding, double residual, double gap, double h1,
                                    double mix);

/* The mixture P = sum_c pi_c softmax(W_c h_c + b) over nc components:
 * W_c is the (m, d) block at w + c * stride (stride 0: one shared W),
 * h_c the d values at h + c * d, pi nc weights (>= 0, sum 1), b NULL or m
 * values shared by all components.  z is m values of scratch, P (m) the
 * output.  Max-shifted softmax, sums in double. */
void sbw_verify_argmax_mixture(const double *w, size_t stride, size_t m, size_t d, const double *b,
                               const double *h, const double *pi, size_t nc, double *z, double *p);

/* The claims, each an sbw_verify_fn (sbw_verify.h): results appended to
 * out; on failure out keeps the results appended before it (a valid list:
 * sbw_verify_list_free). */
int sbw_verify_argmax_monotone(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_argmax_mos(const sbw_verify_opts *o, sbw_verify_list *out);

#endif
