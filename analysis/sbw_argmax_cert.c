/* sbw_argmax_cert.c -- checks of sbw-argmax's certificates, independent of
 * the LP solver (see the header for the arguments). */
#include "sbw_argmax_cert.h"

#include <float.h>
#include <math.h>

double sbw_argmax_cert_gamma(size_t n)
{
    double nu = (double)n * (DBL_EPSILON / 2);
    return nu / (1 - nu);
}

/* z = w.h + b0 and A = |w|.|h| + |b0|, summed in order. */
static void logit(const double *wr, const double *h, size_t d, double b0, double *z, double *a)
{
    double s = 0, t = 0;
    for (size_t k = 0; k < d; k++) {
        s += wr[k] * h[k];
        t += fabs(wr[k] * h[k]);
    }
    *z = s + b0;
    *a = t + fabs(b0);
}

void sbw_argmax_cert_h(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                       const double *h, sbw_argmax_cert_h_res *res)
{
    double g = sbw_argmax_cert_gamma(d + 2), zi, ai;
    logit(w + i * ldw, h, d, b ? b[i] : 0.0, &zi, &ai);
    res->margin = INFINITY;
    res->bound = 0;
    res->rival = i;
    for (size_t j = 0; j < m; j++) {
        if (j == i)
            continue;
        double zj, aj;
        logit(w + j * ldw, h, d, b ? b[j] : 0.0, &zj, &aj);
        double diff = zi - zj, bound = g * (ai + aj) + DBL_EPSILON * fabs(diff);
        if (!(diff >= res->margin)) { /* also catches NaN */
            res->margin = diff;
            res->rival = j;
        }
        if (bound > res->bound)
            res->bound = bound;
    }
    if (!isfinite(res->margin) || !isfinite(res->bound)) {
        res->margin = NAN;
        res->bound = INFINITY;
    }
}

void sbw_argmax_cert_lambda(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                            size_t i, const size_t *idx, const double *lambda, size_t k,
                            sbw_argmax_cert_l_res *res)
{
    long double sum = 0;
    res->valid = i < m && k > 0;
    res->support = 0;
    for (size_t t = 0; t < k && res->valid; t++) {
        res->valid = idx[t] < m && idx[t] != i && lambda[t] >= 0 && isfinite(lambda[t]);
        sum += lambda[t];
        res->support += lambda[t] > 0;
    }
    res->valid = res->valid && sum > 0;
    if (!res->valid) {
        res->residual = res->sum_err = res->gap = res->norm1 = NAN;
        return;
    }
    res->sum_err = fabs((double)(sum - 1));
    res->norm1 = (double)sum;
    double r = 0;
    for (size_t c = 0; c < d; c++) {
        long double s = -(long double)w[i * ldw + c];
        for (size_t t = 0; t < k; t++)
            s += (long double)lambda[t] / sum * w[idx[t] * ldw + c];
        if (fabs((double)s) > r || isnan((double)s))
            r = fabs((double)s);
    }
    res->residual = r;
    long double gb = b ? b[i] : 0.0;
    for (size_t t = 0; t < k && b; t++)
        gb -= (long double)lambda[t] / sum * b[idx[t]];
    res->gap = (double)gb;
}

bool sbw_argmax_cert_ray(const double *a, const double *c, size_t n, double pref, double *s)
{
    double lo = 0, hi = INFINITY;
    for (size_t j = 0; j < n; j++) {
        double cj = c ? c[j] : 0.0;
        if (a[j] > 0)
            lo = fmax(lo, -cj / a[j]);
        else if (a[j] < 0)
            hi = fmin(hi, cj / -a[j]);
        else if (!(cj > 0))
            return false;
        if (isnan(a[j]) || isnan(cj))
            return false;
    }
    if (!(lo < hi))
        return false;
    if (pref > lo && pref < hi)
        *s = pref;
    else
        *s = isinf(hi) ? (lo > 0 ? 2 * lo : 1.0) : 0.5 * (lo + hi);
    return *s > 0 && isfinite(*s);
}
