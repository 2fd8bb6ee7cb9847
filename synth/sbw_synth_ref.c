/* sbw_synth_ref.c -- naive twins of sbw_synth_kern.c. */
#include "sbw_synth_ref.h"

#include "sbw_num.h"

#include <math.h>

void sbw_synth_ref_log_boost(double *x, const double *u, double inv_a, size_t n)
{
    for (size_t j = 0; j < n; j++)
        x[j] = log(x[j]) + log(u[j]) * inv_a;
}

double sbw_synth_ref_normalise(double *x, size_t n)
{
    double mx = -INFINITY;
    for (size_t j = 0; j < n; j++)
        mx = fmax(mx, x[j]);
    for (size_t j = 0; j < n; j++)
        x[j] -= mx;
    double ls = sbw_num_logsumexp(x, n);
    for (size_t j = 0; j < n; j++)
        x[j] -= ls;
    return mx + ls;
}

void sbw_synth_ref_mix(const double *logw, const double *logphi, size_t k, size_t m, size_t ld,
                       double *out)
{
    if (k == 0) { /* an empty mixture: probability 0 */
        for (size_t j = 0; j < m; j++)
            out[j] = -INFINITY;
        return;
    }
    for (size_t j = 0; j < m; j++) {
        double mx = logw[0] + logphi[j];
        for (size_t t = 1; t < k; t++)
            mx = fmax(mx, logw[t] + logphi[t * ld + j]);
        double s = exp(logw[0] + logphi[j] - mx);
        for (size_t t = 1; t < k; t++)
            s += exp(logw[t] + logphi[t * ld + j] - mx);
        out[j] = mx + log(s);
    }
}
