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
