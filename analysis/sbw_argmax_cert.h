/* sbw_argmax_cert.h -- the certificates of sbw-argmax, checked with nothing
 * but the head (W, b) exactly as stored and the certificate: no LP solver
 * is involved, so a wrong solver answer (or a corrupted certificate) is
 * caught here.  Every check is a proof about the double inputs: a fast
 * double evaluation with a rigorous rounding bound, and exact arithmetic
 * (GMP integers: every double is an integer times a power of two, so sums
 * of products of doubles are exact integers) wherever that bound cannot
 * decide.
 *
 * A word i of a head with logits z = W h + b is *strictly argmaxable* when
 * some h makes z_i larger than every other z_j.  Two certificates:
 *  - an h: every margin z_i - z_j = (w_i - w_j).h + (b_i - b_j) is
 *    evaluated in double with a rounding bound (Higham, Accuracy and
 *    Stability, 2nd ed., eq. 3.5: gamma_n = n u / (1 - n u), plus the
 *    underflow of each product), and exactly when the bound does not
 *    settle its sign; the word is proven argmaxable when every margin is
 *    positive;
 *  - convex weights lambda over other words (lambda >= 0, divided by their
 *    exact sum) with r = sum_j lambda_j w_j - w_i and gap = b_i - sum_j
 *    lambda_j b_j: then for every h, z_i - max_{j != i} z_j <= z_i - sum_j
 *    lambda_j z_j = -r.h + gap <= ||r||_inf ||h||_1 + gap, so with r = 0
 *    and gap <= 0 no h makes i the strict argmax (Gordan's alternative;
 *    Grivas et al. 2022, Sec. 3).  The check reports upper bounds of
 *    ||r||_inf and of gap from the exact values (0 exactly when they are
 *    0); the caller's tolerance decides.
 * W is (m, d), leading dimension ldw, row-major; b is NULL (no bias) or m
 * values. */
#ifndef SBW_ARGMAX_CERT_H
#define SBW_ARGMAX_CERT_H

#include <stdbool.h>
#include <stddef.h>

/* What an h certificate shows: margin = min_{j != i} z_i - z_j (a double
 * evaluation, or the exact value rounded towards zero), the word j that
 * attains it, and the rounding bound of that margin (0 when it was
 * evaluated exactly).  proven: every margin is positive, exactly. */
typedef struct sbw_argmax_cert_h_res {
    double margin, bound;
    size_t rival;
    size_t exact; /* rivals whose margin needed exact arithmetic */
    bool proven;
} sbw_argmax_cert_h_res;

/* Checks the certificate h (d values) for word i < m.  m must be >= 2.
 * Pure, thread-safe; O(m d) (plus exact arithmetic on the rivals that tie
 * within rounding). */
void sbw_argmax_cert_h(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                       const double *h, sbw_argmax_cert_h_res *res);

/* What a lambda certificate shows: upper bounds of ||r||_inf (r = sum
 * lambda_j w_j - w_i, after lambda is divided by its exact sum; 0 only
 * when r = 0 exactly) and of gap = b_i - sum lambda_j b_j (0 without bias;
 * <= 0 only when the exact gap is), |sum lambda - 1| before that division,
 * ||lambda||_1 and the number of positive weights. */
typedef struct sbw_argmax_cert_l_res {
    double residual, sum_err, gap, norm1;
    size_t support;
    bool valid; /* weights >= 0 and finite, indices in range and != i, sum > 0 */
} sbw_argmax_cert_l_res;

/* Checks convex weights lambda[0..k) on the words idx[0..k) for word i.
 * Pure, thread-safe; O(k d). */
void sbw_argmax_cert_lambda(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                            size_t i, const size_t *idx, const double *lambda, size_t k,
                            sbw_argmax_cert_l_res *res);

/* Exact convex weights on the support idx[0..k) for word i: the unique
 * solution of sum_t lambda_t w_{idx_t} = w_i, sum_t lambda_t = 1 over the
 * rationals (GMP), scaled to integers (a common denominator) that are
 * exact doubles, into lambda (k values; sbw_argmax_cert_lambda divides by
 * their sum).  False when there is none, it is not unique, a weight is
 * negative or an integer needs more than 53 bits, or the system is large
 * ((d + 1) k^2 > 3e4: the cost). */
bool sbw_argmax_cert_exact_lambda(const double *w, size_t m, size_t d, size_t ldw, size_t i,
                                  const size_t *idx, size_t k, double *lambda);

/* The rounding bound gamma_n = n u / (1 - n u) of an n-term dot product
 * (u = DBL_EPSILON / 2). */
double sbw_argmax_cert_gamma(size_t n);

/* Along the ray h = s y (s > 0), given a_j = (w_i - w_j).y and
 * c_j = b_i - b_j for the n rivals: an s with s a_j + c_j > 0 for every j,
 * preferring s = pref (> 0) when it works, else the middle of the feasible
 * interval (or twice its lower end when it is unbounded).  Returns false
 * when no s > 0 works.  c may be NULL (no bias: any s > 0 works iff every
 * a_j > 0). */
bool sbw_argmax_cert_ray(const double *a, const double *c, size_t n, double pref, double *s);

/* ---- truncation (sbw_argmax_trunc): which tokens may have p* = 0 -------
 *
 * For a model output phat (m probabilities, the doubles as stored) and the
 * head's W, token i "may be zero" when some q in
 *   F_i = { q : W^T q = W^T phat, 1^T q = 1^T phat, q_i = 0,
 *           0 <= q_j <= sigma phat_j }            (sigma >= 1 or +inf)
 * exists, and "cannot be zero" when F_i is empty (Finlayson et al. 2024,
 * basis-aware truncation).  Write a_j = (w_j, 1) and s_j = a_j.y for a
 * y of d + 1 values (y[d] multiplies the row of ones).  Farkas: F_i is
 * empty iff some y has
 *   g(y) = sum_j phat_j s_j - sigma sum_{j != i} phat_j max(s_j, 0) > 0
 * (with sigma = +inf: s_j <= 0 for every j != i and sum_j phat_j s_j > 0),
 * since for q in F_i, 0 = y.(A^T q - A^T phat) <= sum_{j!=i} sigma phat_j
 * max(s_j, 0) - sum_j phat_j s_j = -g(y).  A witness q in F_i (to a
 * residual) is the other certificate. */

/* What a Farkas certificate y shows: value = g(y) (a double evaluation, or
 * the exact value rounded towards zero), bound its rounding bound (0 when
 * exact), proven: g(y) > 0 exactly (and, sigma = +inf, every s_j <= 0). */
typedef struct sbw_argmax_cert_f_res {
    double value, bound;
    bool exact;
    bool proven;
} sbw_argmax_cert_f_res;

/* Checks y (d + 1 values) for token i < m of phat (m values) and W (m x d,
 * leading dimension ldw) with the bound sigma (>= 1, or INFINITY): g(y)
 * in double with a rigorous bound (Higham's gamma_n, the Lipschitz
 * constant max(1, sigma - 1) of s -> s - sigma max(s, 0), underflow), and
 * exactly (GMP) when that bound cannot settle the sign.  Pure,
 * thread-safe; O(m d). */
void sbw_argmax_cert_farkas(const double *w, size_t m, size_t d, size_t ldw, const double *phat,
                            double sigma, size_t i, const double *y, sbw_argmax_cert_f_res *res);

/* The exact A^T phat of one model output, shared by the witness checks of
 * its tokens: W and phat are kept by pointer (they must outlive it). */
typedef struct sbw_argmax_cert_ctx sbw_argmax_cert_ctx;

/* Computes A^T phat exactly (O(m d) exact additions).  Errors: SBW_ENOMEM;
 * *c is NULL on failure (nothing allocated). */
int sbw_argmax_cert_ctx_alloc(sbw_argmax_cert_ctx **c, const double *w, size_t m, size_t d,
                              size_t ldw, const double *phat);
void sbw_argmax_cert_ctx_free(sbw_argmax_cert_ctx *c);

/* What a witness q shows: residual, an exact upper bound of
 * max(||W^T (q - phat)||_inf, |1^T (q - phat)|) (0 only when both are 0);
 * support, q's positive entries; valid: q finite, q_i = 0 and
 * 0 <= q_j <= sigma phat_j for every j, exactly. */
typedef struct sbw_argmax_cert_w_res {
    double residual;
    size_t support;
    bool valid;
} sbw_argmax_cert_w_res;

/* Checks the witness q (m values) for token i.  Pure, thread-safe; O(k d)
 * exact additions for k = q's support. */
void sbw_argmax_cert_witness(const sbw_argmax_cert_ctx *c, double sigma, size_t i, const double *q,
                             sbw_argmax_cert_w_res *res);

/* An exact witness from a basis: q_j = sigma phat_j on the k_up tokens
 * up[], the k tokens basis[] solved exactly over the rationals (GMP) from
 * A^T q = A^T phat, every other q_j = 0; true when that system has a
 * unique solution with 0 <= q_j <= sigma phat_j on basis[] and i is in
 * neither list (then F_i is not empty: a proof, with no rounding).  False
 * too when the system is large ((d + 1) k^2 > 3e4 or k_up (d + 1) > 1e6:
 * the cost). */
bool sbw_argmax_cert_witness_exact(const sbw_argmax_cert_ctx *c, double sigma, size_t i,
                                   const size_t *basis, size_t k, const size_t *up, size_t k_up);

#endif
