/* sbw_plot_tics.c -- tic density from range and panel size; see the
 * header. */
#include "sbw_plot_tics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

size_t sbw_plot_tics_max(double room, double c, bool vertical)
{
    double per = vertical ? 2.2 : c + 2, m = per > 0 && room > 0 ? room / per : 0;
    return m < 2 ? 2 : m > 50 ? 50 : (size_t)m;
}

size_t sbw_plot_tics_chars(const double *v, size_t n)
{
    size_t c = 1;
    for (size_t i = 0; i < n; i++) {
        char buf[40];
        snprintf(buf, sizeof buf, "%g", v[i]);
        c = strlen(buf) > c ? strlen(buf) : c;
    }
    return c;
}

/* The characters of the labels of a step's tics over [lo, hi]. */
static size_t step_chars(double lo, double hi, double step)
{
    double t[3] = {step * ceil(lo / step), step * floor(hi / step), 0};
    t[2] = t[0] + step; /* a label between: its decimals */
    return sbw_plot_tics_chars(t, 3);
}

double sbw_plot_tics_step(double lo, double hi, size_t max, size_t *chars)
{
    static const double nice[] = {1, 2, 2.5, 5};
    *chars = 1;
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || max < 2)
        return 0;
    double range = hi - lo, e = floor(log10(range / (double)max)) - 1;
    for (int k = 0; k < 8; k++, e++)
        for (size_t i = 0; i < 4; i++) {
            double step = nice[i] * pow(10, e);
            if (step > 0 && floor(hi / step) - ceil(lo / step) + 1 <= (double)max) {
                *chars = step_chars(lo, hi, step);
                return step;
            }
        }
    return 0;
}

size_t sbw_plot_tics_thin(double *v, size_t n, size_t max, bool logaxis)
{
    if (n < 2 || max < 2)
        return n;
    bool lg = logaxis && v[0] > 0;
    double a = lg ? log(v[0]) : v[0], b = lg ? log(v[n - 1]) : v[n - 1];
    double gap = (b - a) / (double)(max - 1) * (1 - 1e-9);
    size_t k = 1;
    for (size_t i = 1; i < n; i++) {
        double prev = lg ? log(v[k - 1]) : v[k - 1], x = lg ? log(v[i]) : v[i];
        if (x - prev >= gap)
            v[k++] = v[i];
        else if (i == n - 1) /* the last value always: it replaces its neighbour */
            v[k - 1 > 0 ? k - 1 : k++] = v[i];
    }
    return k;
}
