/* sbw_series.h -- what a short series of labelled numbers says (sbw-series):
 * its sum and range, the change from its first to its last value, the
 * ratio of its largest to its smallest, whether it rises or falls along
 * its order, how its values stand against a reference (a bound), and its
 * labels ordered by value with ties kept as ties.  The verdicts the
 * recipes' reports state about a column of a table ("the float32 rank
 * rises with K", "MoS > Softmax > MoC", "-0.8 % over the last quarter
 * epoch"), computed here once and tested, so that a recipe only selects
 * the values and words the result.  Pure functions of their arguments
 * except the reader. */
#ifndef SBW_SERIES_H
#define SBW_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Labelled values in input order; owned strings. */
typedef struct sbw_series {
    size_t n, cap;
    char **label; /* n labels (the 1-based line number of a bare value) */
    double *value;
} sbw_series;

/* Reads s (zeroed first) from f, named path in messages: one value a line,
 * "VALUE" or "LABEL<TAB>VALUE" ('#' lines and blank lines skipped; a
 * trailing '\r' dropped); a bare value is labelled by its 1-based count.
 * Errors, each naming path and the line: SBW_EFORMAT (more than two
 * fields, an empty label), SBW_EDATA (a value that is not a finite number,
 * or no value at all), SBW_EIO, SBW_ENOMEM.  On failure s holds nothing. */
int sbw_series_read(sbw_series *s, FILE *f, const char *path);

/* Reads s (zeroed first) from a table the tools write (sbw_tsv.h): the
 * values from column `column`, the labels from column `label` (NULL: each
 * row's 1-based count), in row order; what a recipe would otherwise cut
 * out of the table before piping it in.  Errors, each naming the file:
 * SBW_EDATA (a column absent, listing those there; a value that is not a
 * finite number, naming its row and column; an empty label), and those of
 * sbw_tsv_read (no header, no rows, SBW_EIO, ...); SBW_ENOMEM.  On failure
 * s holds nothing. */
int sbw_series_read_tsv(sbw_series *s, const char *path, const char *column, const char *label);

/* Frees what s holds and zeroes it; a zeroed series is fine. */
void sbw_series_free(sbw_series *s);

/* The direction of a series along its order, from the signs of its n - 1
 * steps: every step up (rising), none down and some up and some flat
 * (nondecreasing), every step flat (constant), the mirror images, both up
 * and down (mixed); a single value has none. */
typedef enum sbw_series_trend {
    SBW_TREND_NONE = 0,
    SBW_TREND_RISING,
    SBW_TREND_NONDECREASING,
    SBW_TREND_CONSTANT,
    SBW_TREND_NONINCREASING,
    SBW_TREND_FALLING,
    SBW_TREND_MIXED
} sbw_series_trend;

/* The trend's word: none, rising, nondecreasing, constant, nonincreasing,
 * falling, mixed. */
const char *sbw_series_trend_name(sbw_series_trend t);

/* The summary of x[0..n), n >= 1. */
typedef struct sbw_series_summary {
    size_t n;
    double sum;      /* x[0] + x[1] + ..., left to right */
    double min, max; /* and where they first occur: */
    size_t argmin, argmax;
    double first, last;  /* x[0], x[n-1] */
    double change;       /* last - first */
    double change_pct;   /* 100 (last / first - 1); NaN when first is 0 */
    double max_over_min; /* max / min; NaN unless min > 0 */
    size_t ups, downs;   /* steps x[i] > x[i-1], x[i] < x[i-1] */
    sbw_series_trend trend;
} sbw_series_summary;

/* Fills *out from x[0..n).  Errors: SBW_EINVAL when n is 0 or a value is
 * not finite; *out untouched on failure. */
int sbw_series_summarise(const double *x, size_t n, sbw_series_summary *out);

/* How x[0..n) stands against ref: *below, *equal, *above count the values
 * <, == and > ref; *first_equal is the index of the first value equal to
 * ref, or n when none is. */
void sbw_series_against(const double *x, size_t n, double ref, size_t *below, size_t *equal,
                        size_t *above, size_t *first_equal);

/* idx[0..n) := 0..n-1 ordered by x, largest first when descending, else
 * smallest first; equal values keep their input order (a stable merge
 * sort).  work holds n indices (caller-owned scratch). */
void sbw_series_order(const double *x, size_t n, bool descending, size_t *idx, size_t *work);

/* Parses "A" or "A/B" (finite numbers, A and B not 0; B is 1 when absent)
 * into *num = A, *den = B: a unit's factor, applied as v * A / B (so 1/3600
 * gives exactly v / 3600).  Errors: SBW_EINVAL naming the text; on
 * failure *num and *den may hold a partial parse (do not use them). */
int sbw_series_scale_parse(const char *text, double *num, double *den);

/* A least-squares line y = intercept + slope u through (u[i], y[i]) (GSL's
 * gsl_fit_linear): what a report extrapolates from the last points of a
 * curve (issue 28: KLD against log perplexity), with its uncertainty. */
typedef struct sbw_series_line {
    size_t n;                      /* points fitted, >= 2 */
    double intercept, slope;       /* the line */
    double se_intercept, se_slope; /* standard errors from the residual
                                      variance sum r^2 / (n - 2); NaN when
                                      n = 2 (a line through two points has
                                      no residual to estimate it from) */
    double cov;                    /* their covariance (NaN when n = 2) */
    double rms, max_abs;           /* residuals r_i = y_i - line(u_i):
                                      sqrt(sum r^2 / n) and max |r_i| */
    double umin, umax;             /* the range of u fitted */
} sbw_series_line;

/* Fits the line to u[0..n), y[0..n) into *out.  Errors: SBW_EINVAL when n
 * < 2; SBW_EDATA when a value is not finite or every u is equal (no
 * slope); *out untouched on failure. */
int sbw_series_fit_line(const double *u, const double *y, size_t n, sbw_series_line *out);

/* The line's value at u into *y and its standard error into *se (the
 * error of the fitted mean at u, from the covariance; NaN when n = 2). */
void sbw_series_line_at(const sbw_series_line *l, double u, double *y, double *se);

#endif
