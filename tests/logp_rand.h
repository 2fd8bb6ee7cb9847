/* logp_rand.h -- random log-probability matrices for the sbw-kl and
 * sbw-compare suites (header-only, static).
 *
 * Dirichlet(alpha) rows sampled in log space as DESIGN.md prescribes, so
 * that alpha = 0.001 gives no -inf: log G = log X + log(U) / alpha with X a
 * Gamma(alpha + 1, 1) variate and U uniform on (0, 1), then each row is
 * log-sum-exp normalised.  (synth/sbw_synth_dirichlet does the same for the
 * tools; these suites do not depend on it.)
 */
#ifndef LOGP_RAND_H
#define LOGP_RAND_H

#include "sbw_mat.h"
#include "sbw_num.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>

/* Fills l (rows x cols) with log-Dirichlet(alpha) rows from stream
 * (seed, 0). */
static inline void rand_logp_dirichlet(sbw_mat *l, double alpha, uint64_t seed)
{
    gsl_rng *r;
    if (sbw_rng_alloc(&r, seed, 0))
        return;
    for (size_t i = 0; i < l->rows; i++) {
        double *x = l->data + i * l->ld;
        for (size_t j = 0; j < l->cols; j++)
            x[j] = log(gsl_ran_gamma(r, alpha + 1.0, 1.0)) + log(gsl_rng_uniform_pos(r)) / alpha;
        sbw_num_log_softmax(x, x, l->cols);
    }
    sbw_rng_free(r);
}

/* Largest |entry| of l. */
static inline double max_abs_entry(const sbw_mat *l)
{
    double m = 0.0;
    for (size_t i = 0; i < l->rows; i++)
        for (size_t j = 0; j < l->cols; j++)
            m = fmax(m, fabs(l->data[i * l->ld + j]));
    return m;
}

#endif
