/* sbw_plot_tics.c -- tic density from range and panel size; see the
 * header. */
#include "sbw_plot_tics.h"

#include <float.h>
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

/* v rounded to digits significant digits (v itself near the ends of the
 * doubles, where the power of ten would not be exact). */
static double round_sig(double v, int digits)
{
    if (!(v > 1e-290 && v < 1e290))
        return v;
    double u = pow(10, floor(log10(v)) - (digits - 1));
    return round(v / u) * u;
}

/* Labelled ends for the tics t[0, n) of a log axis over data [lo, hi]
 * shown as [vlo, vhi]: when the data's lowest (or highest) value is more
 * than a fifth of the data's log span from the nearest tic, its value
 * rounded to two digits becomes a tic (if the axis shows it and it is not
 * within a tenth of the span of the next tic).  The new count (t has room
 * for 2 more). */
static size_t end_tics(double *t, size_t n, double lo, double hi, double vlo, double vhi)
{
    double span = log10(hi) - log10(lo);
    if (n == 0 || !(span > 0))
        return n;
    double v = round_sig(lo, 2);
    if (log10(t[0]) - log10(lo) > 0.2 * span && v >= vlo && log10(t[0]) - log10(v) > 0.1 * span) {
        memmove(t + 1, t, n * sizeof *t);
        t[0] = v;
        n++;
    }
    v = round_sig(hi, 2);
    if (log10(hi) - log10(t[n - 1]) > 0.2 * span && v <= vhi &&
        log10(v) - log10(t[n - 1]) > 0.1 * span)
        t[n++] = v;
    return n;
}

size_t sbw_plot_tics_log(double lo, double hi, double pad, double *t)
{
    static const double sets[3][9] = {{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
    static const size_t len[3] = {1, 3, 9};
    if (!(lo > 0) || !isfinite(hi) || !(hi >= lo) || !(hi / lo < 1000) || !(pad >= 0 && pad < 0.4))
        return 0;
    /* gnuplot's graph offsets on a log axis: pad times the data's span in
     * decades on each side (GPVAL_Y_MIN = lo 10^-(pad span), measured) */
    double ext = (log10(hi) - log10(lo)) * pad; /* < 1.2 decades */
    double vlo = lo * pow(10, -ext), vhi = hi * pow(10, ext);
    vhi = vhi <= DBL_MAX ? vhi : DBL_MAX;
    /* decades by exponent, never by multiplying a power of ten that may
     * underflow to zero (data near the smallest doubles) or from a bound
     * that may overflow */
    int e0 = (int)floor(log10(lo) - ext), e1 = (int)floor(log10(hi) + ext); /* <= 5 apart */
    for (size_t k = 0; k < 3; k++) {
        size_t n = 0;
        for (int e = e0; e <= e1 && n + 9 <= SBW_PLOT_TICS_LOG_MAX - 2; e++)
            for (size_t i = 0; i < len[k]; i++) {
                double v = sets[k][i] * pow(10, e);
                if (v >= vlo && v <= vhi && v > 0)
                    t[n++] = v;
            }
        if (n >= 3 || (k == 2 && n >= 2))
            return end_tics(t, n, lo, hi, vlo, vhi);
    }
    double l = log(lo), h = log(hi); /* lo*lo*hi would underflow */
    t[0] = round_sig(lo, 3);
    t[1] = round_sig(exp((2 * l + h) / 3), 3);
    t[2] = round_sig(exp((l + 2 * h) / 3), 3);
    t[3] = round_sig(hi, 3);
    return 4;
}
