/* sbw_gradneck.h -- the gradient bottleneck of a head (Godey and Artzi
 * 2026, "Lost in Backpropagation: The LM Head is a Gradient Bottleneck"):
 * the share of the logit-space gradient that the head passes back to the
 * context vector, per context.
 *
 * Definition.  For a context h (width C) with observed word y, let q be
 * the head's distribution and g = q - e_y the gradient of -log q_y with
 * respect to free logits (what a model whose logits were its own
 * parameters would receive).  The head passes back dL/dh = J^T g, with J =
 * d log q / d h (M x C; J^T q = 0 for any normalised head, so J^T g =
 * -J^T e_y is exactly the loss gradient).  Logits are only defined up to
 * a shift c 1, so both sides are taken in 1-perp: with C1 = I - 11^T/M,
 *     passed = ||P g|| / ||g||,  P the orthogonal projector onto range(C1 J),
 *     suppressed = 1 - passed.
 * For a Softmax head (log q = W h + b - lse) C1 J = C1 W, a single map:
 * passed = ||P_{C1 W} g|| / ||g||, the paper's quantity (its suppressed
 * share is 1 - passed) taken in 1-perp, where it equals ||P_W g|| / ||g||
 * whenever W's columns sum to zero.  For heads whose logits are not one
 * linear map of h (sigsoftmax, MoC, MoS, LMS, PLIF, MoS+PLIF) the same
 * formula with the context's own Jacobian is the analogue: the part of the
 * ideal logit gradient that any change of h could express to first order.
 *
 * How.  Softmax: an orthonormal basis of range(C1 W) once (LAPACK dgesdd),
 * then ||U^T g|| per context.  MoS, MoC, sigsoftmax, LMS and PLIF: J in
 * closed form per context (mos_jacobian, moc_jacobian and map_jacobian in
 * sbw_gradneck.c state them: at most K products of M x D x C), its basis
 * as below.  MoS+PLIF and Mixtape: J from the head pass
 * itself (sbw_pass_loss on M copies of h with targets 0..M-1: row j of dH
 * is -J_j / M), centred, its left singular vectors with sigma > max(M, C)
 * eps sigma_1 (dgesdd), ||U^T g||: M head passes per context, for small
 * models (the test twin: a finite-difference Jacobian of the naive pass
 * and a least-squares projection, dgelsd).
 */
#ifndef SBW_GRADNECK_H
#define SBW_GRADNECK_H

#include "sbw_head.h"
#include "sbw_table.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_gradneck_ws sbw_gradneck_ws;

/* A workspace for head h (copied) at parameters theta (h->nshared; read
 * now for a Softmax head's basis, and at every call otherwise: theta must
 * outlive ws and not change).  Errors: SBW_ENOMEM, SBW_ENUMERIC (the SVD
 * did not converge), sbw_pass_ws_alloc's.  *ws is NULL on failure. */
int sbw_gradneck_ws_alloc(sbw_gradneck_ws **ws, const sbw_head *h, const double *theta);

void sbw_gradneck_ws_free(sbw_gradneck_ws *ws);

/* Whether ws uses the single-map path (a Softmax head). */
bool sbw_gradneck_linear(const sbw_gradneck_ws *ws);

/* passed[i] for the contexts H (rows x C, leading dim ldh) with observed
 * words y[i] < M.  Errors: SBW_EINVAL (a word out of range), those of the
 * head pass, SBW_ENUMERIC (an SVD that did not converge); passed holds
 * the rows done before a failure, and the rest is unspecified on failure. */
int sbw_gradneck_rows(sbw_gradneck_ws *ws, const double *H, size_t rows, size_t ldh,
                      const size_t *y, double *passed);

/* The share passed for one context's q (M probabilities) and word y,
 * given r orthonormal vectors of length M spanning the range, stored as
 * LAPACK's column-major V^T (vector i, entry j at vt[i + j * ldvt]):
 * ||V^T (q - e_y)|| / ||q - e_y||; 0 when q = e_y. */
double sbw_gradneck_share(const double *q, size_t m, size_t y, const double *vt, size_t r,
                          size_t ldvt);

/* An orthonormal basis of range(C1 W) for a single-map head W (M x D,
 * row-major): *vt (allocated, caller frees; LAPACK's V^T layout as in
 * sbw_gradneck_share, leading dim *ldvt), its size *r.  Errors:
 * SBW_ENOMEM, SBW_ENUMERIC; *vt NULL on failure. */
int sbw_gradneck_map_basis(const double *w, size_t m, size_t d, double **vt, size_t *r,
                           size_t *ldvt);

/* A summary of n shares: mean, sd, min, max and the 5, 25, 50, 75 and 95%
 * quantiles (GSL's, from a sorted copy). */
typedef struct sbw_gradneck_summary {
    size_t n;
    double mean, sd, min, max, q05, q25, q50, q75, q95;
} sbw_gradneck_summary;

/* Errors: SBW_EINVAL (n = 0), SBW_ENOMEM; *s untouched on failure. */
int sbw_gradneck_summarise(const double *passed, size_t n, sbw_gradneck_summary *s);

/* The summary, the definition and the path (single map or Jacobian) as
 * gradneck_* meta lines of t.  Errors: the table's (sticky: t keeps, on
 * failure, the first error and the lines added before it). */
int sbw_gradneck_meta(sbw_table *t, const sbw_gradneck_summary *g, bool single_map);

#endif
