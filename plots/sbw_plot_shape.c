/* sbw_plot_shape.c -- reshaping for figures; see the header. */
#include "sbw_plot_shape.h"

#include "sbw_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

int sbw_plot_shape_cumpct(const double *s, size_t k, double *norm, double *pct)
{
    if (k == 0)
        return SBW_ERROR(SBW_EINVAL, "spectrum: no singular values");
    double top = 0;
    for (size_t j = 0; j < k; j++) {
        if (!isfinite(s[j]) || s[j] < 0)
            return SBW_ERROR(SBW_EDATA, "spectrum: singular value %zu is %g", j, s[j]);
        top = s[j] > top ? s[j] : top;
    }
    for (size_t j = 0; j < k; j++)
        norm[j] = top > 0 ? s[j] / top : 1.0;
    double *sorted = malloc(k * sizeof *sorted);
    if (!sorted)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    memcpy(sorted, norm, k * sizeof *sorted);
    qsort(sorted, k, sizeof *sorted, desc);
    for (size_t j = 0; j < k; j++) {
        /* #{i: norm_i <= norm_j} = k - #{i: norm_i > norm_j}; binary search
         * for the first sorted entry <= norm_j */
        size_t lo = 0, hi = k;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sorted[mid] > norm[j])
                lo = mid + 1;
            else
                hi = mid;
        }
        pct[j] = 100.0 * (double)(k - lo) / (double)k;
    }
    free(sorted);
    return SBW_OK;
}

int sbw_plot_shape_sorted_probs(const double *logp, size_t m, double *p)
{
    for (size_t j = 0; j < m; j++)
        p[j] = exp(logp[j]);
    qsort(p, m, sizeof *p, desc);
    return SBW_OK;
}

void sbw_plot_shape_mean_sd(const double *y, size_t n, double *mean, double *sd, size_t *count)
{
    double sum = 0;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i])) {
            sum += y[i];
            c++;
        }
    double mu = c ? sum / (double)c : NAN, ss = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(y[i]))
            ss += (y[i] - mu) * (y[i] - mu);
    *mean = mu;
    *sd = c > 1 ? sqrt(ss / (double)(c - 1)) : NAN;
    *count = c;
}
