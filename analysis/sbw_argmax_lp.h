/* sbw_argmax_lp.h -- the exact test of one word of a Softmax head by linear
 * programming (GLPK), with column generation so each LP has d + 2 rows and
 * only the rival words that matter as columns.
 *
 * For word i of logits z = W h + b the LP is (convex-combination form,
 * Grivas et al. 2022, with slacks that keep it feasible):
 *   minimise   sum_k (p_k + q_k) + u
 *   subject to sum_j lambda_j w_j + p - q = w_i          (d rows)
 *              sum_j lambda_j = 1                         (1 row)
 *              sum_j lambda_j b_j + u >= b_i              (1 row, bias only)
 *              lambda, p, q, u >= 0,  j over rivals of i.
 * Its optimum is 0 exactly when (w_i, b_i) lies in the convex hull of the
 * rivals pushed down (lambda is then the certificate that i is never the
 * strict argmax).  Its dual is
 *   maximise   w_i.y + b_i t + zeta
 *   subject to w_j.y + b_j t + zeta <= 0 for every rival j,
 *              |y_k| <= 1, 0 <= t <= 1,
 * whose optimum is the best margin min_j (w_i - w_j).y + (b_i - b_j) t over
 * that box: positive exactly when some h = y / t (or a long h along y when
 * t = 0) makes i the strict argmax.  Column generation: start from the
 * rivals that score highest along a guess h0, solve, add every rival whose
 * dual constraint is violated (a word beating i at the dual's h), repeat;
 * when none is violated the restricted optimum is the full one.
 *
 * The LP sees a normalised copy of the head (W minus its mean row, b minus
 * its largest value, both divided by a scale: nothing the verdict depends
 * on), and every certificate is checked on the head as stored
 * (sbw_argmax_cert), so the copy's rounding can cost an answer but never
 * make one wrong.  The order: an h from the dual (scaled along its ray);
 * when the dual points at a face (the word lies near the hull's boundary),
 * an h refined from that face: solve (w_i - w_j).y + (b_i - b_j) t = 1 for
 * the rivals j that bind, by least squares (LAPACK dgelsd), adding the
 * rivals it misses, a few times (a word 1e-11 outside a face gets an h
 * whose margins are about 1 relative, however thin the face); only then
 * the lambda of the primal, polished by least squares on its support
 * (GLPK's own is feasible only to 1e-7), accepted when its exact residual
 * and gap are <= tol * scale.  With a bias, the label below_hull vs
 * in_hull comes from a second LP that maximises sum_j lambda_j b_j over
 * the hull (the height of the upper hull above w_i), not from whichever
 * lambda the first LP returned. */
#ifndef SBW_ARGMAX_LP_H
#define SBW_ARGMAX_LP_H

#include <stdbool.h>
#include <stddef.h>

/* A per-thread workspace: the GLPK problem and O(m + d) scratch. */
typedef struct sbw_argmax_lp sbw_argmax_lp;

/* A head: W (m x d, leading dimension ldw) and b (NULL or m values). */
typedef struct sbw_argmax_lp_head {
    const double *w, *b;
    size_t ldw;
} sbw_argmax_lp_head;

/* Bytes of one workspace for m words of dimension d (without GLPK's own
 * problem, about 40 (d + 2) bytes per rival column, and LAPACK's
 * scratch). */
double sbw_argmax_lp_bytes(size_t m, size_t d);

/* Allocates a workspace for heads with m words of dimension d (m >= 2,
 * d >= 1).  Errors: SBW_EINVAL, SBW_ENOMEM; *lp is NULL on failure
 * (nothing allocated).  GLPK keeps per-thread state:
 * use a workspace in one thread only and call sbw_argmax_lp_thread_done in
 * each thread that used one, after freeing it. */
int sbw_argmax_lp_alloc(sbw_argmax_lp **lp, size_t m, size_t d);
void sbw_argmax_lp_free(sbw_argmax_lp *lp);
void sbw_argmax_lp_thread_done(void);

/* The answer for one word.  verdict 1: argmaxable, h (d values, in the
 * workspace until the next call) with every margin proven positive
 * (margin, bound: the smallest); 0: not strictly argmaxable within tol,
 * lambda[0..k) on words idx[0..k) (in the workspace) with residual and gap
 * (exact upper bounds), below: the upper hull lies above (w_i, b_i) by
 * more than tol * scale (the second LP's optimum); -1: undecided (neither
 * certificate passed in max_rounds rounds). */
typedef struct sbw_argmax_lp_res {
    int verdict;
    const double *h;
    double margin, bound, h_norm;
    const size_t *idx;
    const double *lambda;
    size_t k, support;
    double residual, gap;
    bool below;
    int rounds;     /* LPs solved */
    size_t columns; /* rival columns in the last LP */
} sbw_argmax_lp_res;

/* Decides word i of the head `orig` (as stored: certificates are checked
 * on it) with the LP on `norm`, the same head times 2^-exp2 and translated
 * (any common vector subtracted from the rows of W, any constant from b;
 * both NULL-b or both not).  h0 (d values) is a guess of a good h for norm
 * (its best rivals seed the columns); scale > 0 the unit of norm's numbers
 * and of tol: a lambda certificate needs residual and gap <= tol * scale *
 * 2^exp2 on orig.  Errors: SBW_ENUMERIC when GLPK fails.  On failure *res
 * is an undecided answer (verdict -1, rounds and columns so far, no
 * certificate) and the workspace stays good for the next word (each call
 * rebuilds its LP). */
int sbw_argmax_lp_word(sbw_argmax_lp *lp, const sbw_argmax_lp_head *orig,
                       const sbw_argmax_lp_head *norm, size_t i, const double *h0, double tol,
                       double scale, int exp2, int max_rounds, sbw_argmax_lp_res *res);

#endif
