/* sbw_plot_tics.h -- how many tics an axis can label without their labels
 * touching: a rule from the axis's range and the panel's size, so that a
 * figure is readable at any --size (gnuplot's own choice depends on the
 * range only, and crowds a small panel).  Presentation only: these numbers
 * place tics, they are never drawn as data.
 *
 * The rule: a label of c characters takes c + 2 characters of a
 * horizontal axis (the label and a gap) and 2.2 lines of a vertical one;
 * an axis of room characters (or lines) takes at most room / that labels,
 * never fewer than 2.  A linear axis gets the smallest step of 1, 2, 2.5
 * or 5 times a power of ten that keeps to that; a list of values (a
 * sweep's D or K) keeps the values at least that far apart, the last
 * one always.
 */
#ifndef SBW_PLOT_TICS_H
#define SBW_PLOT_TICS_H

#include <stdbool.h>
#include <stddef.h>

/* The most tic labels of c characters that an axis of room characters
 * (horizontal) or lines (vertical) can show side by side, at least 2. */
size_t sbw_plot_tics_max(double room, double c, bool vertical);

/* The step of a linear axis over [lo, hi] (finite, lo < hi) showing at most
 * max tics; *chars the characters of its longest label ("% h" format).
 * Returns 0 when lo, hi are not a range. */
double sbw_plot_tics_step(double lo, double hi, size_t max, size_t *chars);

/* The characters of the longest of the n values as gnuplot's "% h" prints
 * them (an integer's digits and sign; others as %g). */
size_t sbw_plot_tics_chars(const double *v, size_t n);

/* Keeps of the n ascending values v those at least 1/max of the axis apart
 * (on a log axis: of its decades), the last one always (dropping the one
 * before it when they are too close); returns how many are kept, in v. */
size_t sbw_plot_tics_thin(double *v, size_t n, size_t max, bool logaxis);

/* The capacity sbw_plot_tics_log needs of its array. */
#define SBW_PLOT_TICS_LOG_MAX 48

/* The labelled tics of a log axis over data [lo, hi] (0 < lo <= hi <
 * 1000 lo: under three decades; above, gnuplot's powers of ten serve)
 * that gnuplot shows with pad (0 <= pad < 0.4: its graph offsets, a
 * fraction of the data's span in decades) added on each side.  The ranges hug the data, so
 * gnuplot's own tics could leave one labelled tic or none: 1, 2, 5 times
 * the powers of ten the axis shows (every digit when that gives fewer
 * than 3), and an end of the data more than a fifth of its log span from
 * the nearest of them labelled with its value to two digits (so that a
 * flat line at the bottom or top, a rank at D + 2, is not left between
 * unlabelled ticks); in a span too narrow for two digits, four values
 * spread over it to three digits.  Into t (SBW_PLOT_TICS_LOG_MAX),
 * ascending; returns how many (at least 2), 0 when lo, hi, pad are not
 * such a range. */
size_t sbw_plot_tics_log(double lo, double hi, double pad, double *t);

#endif
