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
 * when none is violated the restricted optimum is the full one.  Either
 * way the answer is taken only once its certificate passes sbw_argmax_cert
 * in double. */
#ifndef SBW_ARGMAX_LP_H
#define SBW_ARGMAX_LP_H

#include <stdbool.h>
#include <stddef.h>

/* A per-thread workspace: the GLPK problem and O(m + d) scratch. */
typedef struct sbw_argmax_lp sbw_argmax_lp;

/* Allocates a workspace for heads with m words of dimension d (m >= 2,
 * d >= 1).  Errors: SBW_EINVAL, SBW_ENOMEM.  GLPK keeps per-thread state:
 * use a workspace in one thread only and call sbw_argmax_lp_thread_done in
 * each thread that used one, after freeing it. */
int sbw_argmax_lp_alloc(sbw_argmax_lp **lp, size_t m, size_t d);
void sbw_argmax_lp_free(sbw_argmax_lp *lp);
void sbw_argmax_lp_thread_done(void);

/* The answer for one word.  verdict 1: argmaxable, h (d values, in the
 * workspace until the next call) with margin > bound; 0: not strictly
 * argmaxable, lambda[0..k) on words idx[0..k) (in the workspace) with
 * residual and gap; -1: undecided (neither certificate passed in
 * max_rounds rounds). */
typedef struct sbw_argmax_lp_res {
    int verdict;
    const double *h;
    double margin, bound, h_norm;
    const size_t *idx;
    const double *lambda;
    size_t k, support;
    double residual, gap;
    int rounds;     /* LPs solved */
    size_t columns; /* rival columns in the last LP */
} sbw_argmax_lp_res;

/* Decides word i of the head W (m x d, leading dim ldw), b (NULL or m
 * values).  h0 (d values) is a guess of a good h (its best rivals seed the
 * columns); tol is the relative tolerance of a lambda certificate
 * (residual and gap <= tol * scale, scale = max |w_ik| + max |b_j|, the
 * caller's).  Errors: SBW_ENUMERIC when GLPK fails. */
int sbw_argmax_lp_word(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t i,
                       const double *h0, double tol, double scale, int max_rounds,
                       sbw_argmax_lp_res *res);

#endif
