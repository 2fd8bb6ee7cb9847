/* sbw_plot_shape.h -- the only arithmetic in plots/: the mean and sd that
 * error bars show, over seeds (sweep, rank-k) or over a language's rows
 * (alpha), of values the tools computed.  Everything else a figure draws
 * is a tool's number as written (scripts/check-plots.sh keeps numeric
 * routines out of plots/).  A brute-force test: tests/test_plot.c.
 */
#ifndef SBW_PLOT_SHAPE_H
#define SBW_PLOT_SHAPE_H

#include <stddef.h>

/* Mean and sample standard deviation (n - 1 in the denominator; NaN when
 * n = 1) of the finite values among y[0..n); *count gets how many there
 * were (mean NaN when none): the error bars over seeds. */
void sbw_plot_shape_mean_sd(const double *y, size_t n, double *mean, double *sd, size_t *count);

#endif
