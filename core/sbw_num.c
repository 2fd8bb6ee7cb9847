/* sbw_num.c -- reference row numerics (naive twins of sbw_kern.c). */
#include "sbw_num.h"

#include <math.h>

double sbw_num_logsumexp(const double *x, size_t n)
{
    double mx = -INFINITY;
    for (size_t j = 0; j < n; j++) {
        if (isnan(x[j]))
            return x[j];
        if (x[j] > mx)
            mx = x[j];
    }
    if (!isfinite(mx))
        return mx; /* empty, all -inf, or some +inf */
    double s = 0.0;
    for (size_t j = 0; j < n; j++)
        s += exp(x[j] - mx);
    /* s >= 1: the maximal entry contributes exp(0). */
    // cppcheck-suppress invalidFunctionArg
    return mx + log(s);
}

void sbw_num_log_softmax(const double *x, double *y, size_t n)
{
    double lse = sbw_num_logsumexp(x, n);
    for (size_t j = 0; j < n; j++)
        y[j] = x[j] - lse;
}

void sbw_num_softmax(const double *x, double *y, size_t n)
{
    double lse = sbw_num_logsumexp(x, n);
    for (size_t j = 0; j < n; j++)
        y[j] = exp(x[j] - lse);
}

/* p log p with the limit 0 at p = 0 (logp = -inf). */
static double plogp(double logp) { return logp == -INFINITY ? 0.0 : exp(logp) * logp; }

double sbw_num_entropy(const double *logp, size_t n)
{
    double s = 0.0;
    for (size_t j = 0; j < n; j++)
        s -= plogp(logp[j]);
    return s;
}

double sbw_num_kl(const double *logp, const double *logq, size_t n)
{
    double s = 0.0;
    for (size_t j = 0; j < n; j++)
        if (logp[j] != -INFINITY)
            s += exp(logp[j]) * (logp[j] - logq[j]);
    return s;
}

double sbw_num_cross_entropy(const double *logp, const double *logq, size_t n)
{
    double s = 0.0;
    for (size_t j = 0; j < n; j++)
        if (logp[j] != -INFINITY)
            s -= exp(logp[j]) * logq[j];
    return s;
}

void sbw_num_count_nonfinite(const double *x, size_t n, size_t *nan, size_t *posinf, size_t *neginf,
                             size_t *first)
{
    size_t cn = 0, cp = 0, cm = 0, f = n;
    for (size_t j = 0; j < n; j++) {
        if (isfinite(x[j]))
            continue;
        if (f == n)
            f = j;
        if (isnan(x[j]))
            cn++;
        else if (x[j] > 0)
            cp++;
        else
            cm++;
    }
    if (nan)
        *nan = cn;
    if (posinf)
        *posinf = cp;
    if (neginf)
        *neginf = cm;
    if (first)
        *first = f;
}
