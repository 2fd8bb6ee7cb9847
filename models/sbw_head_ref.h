/* sbw_head_ref.h -- naive twins of the head kernels (sbw_head_kern.h):
 * plain loops in double straight from the formulas, the mixture in the log
 * domain.  They are the test oracles of sbw_head_kern.h (and the building
 * blocks of sbw_pass_ref.h), slow, and never called by production code.
 *
 * Each sbw_head_ref_X has the signature and contract of sbw_head_kern_X
 * (scratch arguments are accepted and may be unused).
 */
#ifndef SBW_HEAD_REF_H
#define SBW_HEAD_REF_H

#include <stdbool.h>
#include <stddef.h>

double sbw_head_ref_softmax(double *z, const double *p, size_t m, double psum, double scale,
                            bool grad, size_t *argmax);
double sbw_head_ref_mixture(double *z, size_t k, size_t m, const double *logpi, const double *p,
                            double psum, double scale, bool grad, double *e, double *kbuf,
                            double *lq, double *dalpha, size_t *argmax);
void sbw_head_ref_mixtape(const double *z, size_t k, size_t m, double *gl, size_t ldg,
                          const double *s, const double *gb, size_t nf, double *y);
void sbw_head_ref_mixtape_back(double *z, size_t k, size_t m, double *gl, size_t ldg,
                               const double *s, size_t nf, const double *dy, double *ds);
void sbw_head_ref_ss(const double *z, double *y, double *fp, size_t m);
void sbw_head_ref_map_back(const double *dy, const double *fp, double *dz, size_t m);
void sbw_head_ref_lms(const double *z, double *y, double *fp, double *sig, size_t m,
                      const double *u, const double *v, const double *b, size_t k, double lambda);
void sbw_head_ref_lms_back(const double *z, const double *g, const double *sig, size_t m,
                           const double *v, size_t k, double *gu, double *gv, double *gb,
                           double *glambda);
void sbw_head_ref_plif(const double *z, double *y, double *fp, size_t m, const double *s,
                       const double *cum, size_t k, double t);
void sbw_head_ref_plif_back(const double *z, const double *g, size_t m, size_t k, double t,
                            double *gsum, double *gx);
void sbw_head_ref_tanh(double *x, size_t n);
void sbw_head_ref_tanh_back(const double *g, double *dg, size_t n);

#endif
