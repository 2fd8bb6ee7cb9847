/* sbw_plot_shape.c -- the mean and sd of error bars; see the header. */
#include "sbw_plot_shape.h"

#include <math.h>

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
