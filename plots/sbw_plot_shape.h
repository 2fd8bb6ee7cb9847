/* sbw_plot_shape.h -- the only arithmetic in plots/: reshaping numbers the
 * tools computed into the form a figure shows.  Each is a few lines with a
 * brute-force test (tests/test_plot.c).
 */
#ifndef SBW_PLOT_SHAPE_H
#define SBW_PLOT_SHAPE_H

#include <stddef.h>

/* The probabilities p = exp(logp) of one row, sorted in decreasing order
 * (p[0] the row's mode): what LMS Figure 5 draws against rank.
 * logp has m entries; p receives m.  Errors: SBW_ENOMEM. */
int sbw_plot_shape_sorted_probs(const double *logp, size_t m, double *p);

/* Mean and sample standard deviation (n - 1 in the denominator; NaN when
 * n = 1) of the finite values among y[0..n); *count gets how many there
 * were (mean NaN when none): the error bars over seeds. */
void sbw_plot_shape_mean_sd(const double *y, size_t n, double *mean, double *sd, size_t *count);

#endif
