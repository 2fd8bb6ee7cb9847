/* sbw_kern.c -- fast row kernels (built with -ffast-math: finite inputs
 * only; see sbw_kern.h).  Each loop is written so that GCC vectorises it,
 * with `omp simd` reductions mapping exp to libmvec's vector variants. */
#include "sbw_kern.h"

#include <math.h>

double sbw_kern_max(const double *x, size_t n)
{
    double mx = x[0];
#pragma omp simd reduction(max : mx)
    for (size_t j = 1; j < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    return mx;
}

double sbw_kern_sum_exp_shift(const double *x, size_t n, double shift)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s += exp(x[j] - shift);
    return s;
}

double sbw_kern_logsumexp(const double *x, size_t n)
{
    double mx = sbw_kern_max(x, n);
    return mx + log(sbw_kern_sum_exp_shift(x, n, mx));
}

void sbw_kern_logsumexp_rows(const double *a, size_t rows, size_t cols, size_t lda, double *out)
{
    for (size_t i = 0; i < rows; i++)
        out[i] = sbw_kern_logsumexp(a + i * lda, cols);
}

void sbw_kern_log_softmax_rows(const double *a, size_t rows, size_t cols, size_t lda, double *y,
                               size_t ldy)
{
    for (size_t i = 0; i < rows; i++) {
        const double *x = a + i * lda;
        double *yi = y + i * ldy;
        double lse = sbw_kern_logsumexp(x, cols);
#pragma omp simd
        for (size_t j = 0; j < cols; j++)
            yi[j] = x[j] - lse;
    }
}

void sbw_kern_softmax_rows(const double *a, size_t rows, size_t cols, size_t lda, double *y,
                           size_t ldy)
{
    for (size_t i = 0; i < rows; i++) {
        const double *x = a + i * lda;
        double *yi = y + i * ldy;
        double lse = sbw_kern_logsumexp(x, cols);
#pragma omp simd
        for (size_t j = 0; j < cols; j++)
            yi[j] = exp(x[j] - lse);
    }
}

double sbw_kern_entropy(const double *logp, size_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s -= exp(logp[j]) * logp[j];
    return s;
}

double sbw_kern_kl(const double *logp, const double *logq, size_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s += exp(logp[j]) * (logp[j] - logq[j]);
    return s;
}

double sbw_kern_cross_entropy(const double *logp, const double *logq, size_t n)
{
    double s = 0.0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s -= exp(logp[j]) * logq[j];
    return s;
}
