/* sbw_synth_kern.c -- fast inner loops of the generators (-ffast-math:
 * finite inputs only; see sbw_synth_kern.h).  Written so that GCC
 * vectorises exp/log through libmvec. */
#include "sbw_synth_kern.h"

#include "sbw_kern.h"

#include <math.h>

void sbw_synth_kern_log_boost(double *x, const double *u, double inv_a, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        x[j] = log(x[j]) + log(u[j]) * inv_a;
}

void sbw_synth_kern_log_boost_vec(double *x, const double *u, const double *inv_a, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        x[j] = log(x[j]) + log(u[j]) * inv_a[j];
}

void sbw_synth_kern_log(double *x, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        x[j] = log(x[j]);
}

/* exp(d) for d <= 0, with d clamped at -700: below that exp is under
 * 1e-304, which changes no sum of terms up to 1 (M <= 2^53) but would send
 * libmvec's vector exp to its slow scalar path for underflow. */
static inline double exp_clamped(double d) { return exp(d < -700.0 ? -700.0 : d); }

/* sum_j exp(x_j - shift): vectorised leaves of at most 256 entries,
 * combined pairwise (as NumPy's pairwise summation). */
static double sum_exp_pairwise(const double *x, size_t n, double shift)
{
    if (n <= 256) {
        double s = 0.0;
#pragma omp simd reduction(+ : s)
        for (size_t j = 0; j < n; j++)
            s += exp_clamped(x[j] - shift);
        return s;
    }
    size_t h = (n / 2 + 7) & ~(size_t)7;
    return sum_exp_pairwise(x, h, shift) + sum_exp_pairwise(x + h, n - h, shift);
}

double sbw_synth_kern_logsumexp(const double *x, size_t n)
{
    double mx = sbw_kern_max(x, n);
    return mx + log(sum_exp_pairwise(x, n, mx));
}

/* In two steps, x_j - max then - log(sum): subtracting max + log(sum) at
 * once would round every entry to eps |max|, which for log-gamma variates
 * at tiny alpha (|max| ~ 1e4) is far more than eps |log p_j|.  Two loops
 * so that -ffast-math cannot reassociate the two subtractions. */
double sbw_synth_kern_normalise(double *x, size_t n)
{
    double mx = sbw_kern_max(x, n);
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        x[j] -= mx;
    double ls = log(sum_exp_pairwise(x, n, 0.0));
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        x[j] -= ls;
    return mx + ls;
}

void sbw_synth_kern_mix(const double *logw, const double *logphi, size_t k, size_t m, size_t ld,
                        double *out, double *scratch)
{
    for (size_t j = 0; j < m; j++)
        out[j] = logw[0] + logphi[j];
    for (size_t t = 1; t < k; t++) {
        const double *row = logphi + t * ld, w = logw[t];
#pragma omp simd
        for (size_t j = 0; j < m; j++) {
            double v = w + row[j];
            out[j] = v > out[j] ? v : out[j];
        }
    }
    for (size_t j = 0; j < m; j++)
        scratch[j] = 0.0;
    for (size_t t = 0; t < k; t++) {
        const double *row = logphi + t * ld, w = logw[t];
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            scratch[j] += exp_clamped(w + row[j] - out[j]);
    }
#pragma omp simd
    for (size_t j = 0; j < m; j++)
        out[j] += log(scratch[j]);
}

void sbw_synth_kern_exp(const double *x, double *y, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        y[j] = exp(x[j]);
}
