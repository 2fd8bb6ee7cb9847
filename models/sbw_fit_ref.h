/* sbw_head_ref.h -- naive twins of sbw-fit's kernels and of its whole
 * objective: plain loops in double straight from the formulas, the mixture
 * in the log domain, no BLAS, no threads, no blocking.  They are the test
 * oracles of sbw_head_kern.h and sbw_obj.h, and slow.
 *
 * Each sbw_head_ref_X has the signature and contract of sbw_head_kern_X
 * (scratch arguments are accepted and may be unused).
 */
#ifndef SBW_HEAD_REF_H
#define SBW_HEAD_REF_H

#include "sbw_head.h"
#include "sbw_target.h"

#include <stdbool.h>
#include <stddef.h>

double sbw_head_ref_softmax(double *z, const double *p, size_t m, double psum, double scale,
                           bool grad, size_t *argmax);
double sbw_head_ref_mixture(double *z, size_t k, size_t m, const double *logpi, const double *p,
                           double psum, double scale, bool grad, double *e, double *kbuf,
                           double *lq, double *dalpha, size_t *argmax);
void sbw_head_ref_ss(const double *z, double *y, double *fp, size_t m);
void sbw_head_ref_map_back(const double *dy, const double *fp, double *dz, size_t m);
void sbw_head_ref_lms(const double *z, double *y, double *fp, double *sig, size_t m, const double *u,
                     const double *v, const double *b, size_t k, double lambda);
void sbw_head_ref_lms_back(const double *z, const double *g, const double *sig, size_t m,
                          const double *v, size_t k, double *gu, double *gv, double *gb,
                          double *glambda);
void sbw_head_ref_plif(const double *z, double *y, double *fp, size_t m, const double *s,
                      const double *cum, size_t k, double t);
void sbw_head_ref_plif_back(const double *z, const double *g, size_t m, size_t k, double t,
                           double *gsum, double *gx);
void sbw_head_ref_tanh(double *x, size_t n);
void sbw_head_ref_tanh_back(const double *g, double *dg, size_t n);

/* The head's constrained pointwise parameters from theta: LMS u, v (K, as
 * softplus of the raw), c (K), lambda; PLIF slopes s (knots) = softplus of
 * the raw, cum (knots) = delta * prefix sums.  Arrays sized by the head
 * (u, v, c: k; s, cum: knots); unused ones may be NULL. */
void sbw_head_map_params(const sbw_head *h, const double *theta, double *u, double *v, double *c,
                            double *lambda, double *s, double *cum);

/* Chains the gradients of the constrained map parameters (gu, gv, gc,
 * glambda for LMS; gsum, gx for PLIF as sbw_head_kern_plif_back leaves
 * them) into grad (nparam), at theta.  Shared by both objectives. */
void sbw_head_map_chain(const sbw_head *h, const double *theta, const double *gu,
                           const double *gv, const double *gc, double glambda, const double *gsum,
                           const double *gx, double *grad);

/* The objective, naively: mean over the given rows (all N when rows is
 * NULL) of -sum_i p_i log Q_i, and, when grad is not NULL, its gradient
 * with respect to theta (nparam doubles, overwritten; rows of H outside the
 * set get 0).  theta is (nparam).  Errors: SBW_ESHAPE (target and head
 * sizes differ), SBW_EINVAL (a row index >= N, nrows == 0), SBW_ENOMEM. */
int sbw_obj_ref_eval(const sbw_head *h, const double *theta, const sbw_target *t,
                     const size_t *rows, size_t nrows, sbw_obj_result *res, double *grad);

/* log Q of context r (M doubles into lq) at theta, naively. */
int sbw_obj_ref_logq(const sbw_head *h, const double *theta, size_t r, double *lq);

#endif
