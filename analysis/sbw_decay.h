/* sbw_decay.h -- the power-law decay of a spectrum (sbw-rank --decay;
 * Golowich, Liu and Shetty 2025 on the power-law decay of a language
 * model's logit-matrix spectrum): sigma_i ~ C i^(-alpha) fitted over the
 * 1-based index range [lo, hi] by ordinary least squares of log sigma_i
 * on log i (GSL gsl_fit_linear), alpha with its standard error.
 */
#ifndef SBW_DECAY_H
#define SBW_DECAY_H

#include "sbw_table.h"

#include <stddef.h>

typedef struct sbw_decay {
    size_t lo, hi;   /* the 1-based index range fitted, inclusive */
    size_t points;   /* hi - lo + 1 */
    double alpha;    /* -slope of log sigma on log i */
    double alpha_se; /* its OLS standard error: sqrt(s^2 / Sxx), s^2 = SSR / (n - 2) */
    double log_c;    /* the intercept: log sigma_1 of the fitted line (natural log) */
    double r2;       /* the fit's coefficient of determination */
    double resid_sd; /* sqrt(SSR / (n - 2)), in natural-log units */
} sbw_decay;

/* Parses "LO:HI", "LO:" or ":HI" (1-based, inclusive; a missing end is
 * 0, meaning the default) or "auto" (both 0).  Errors: SBW_EINVAL (reason
 * names the text); *lo, *hi untouched on failure. */
int sbw_decay_parse(const char *text, size_t *lo, size_t *hi);

/* Fits s[lo-1 .. hi-1] (s descending, k values).  Errors: SBW_EINVAL
 * (lo < 1, hi > k, fewer than 3 points), SBW_EDATA (a zero or non-finite
 * value in the range: the reason names the index); *d untouched on
 * failure. */
int sbw_decay_fit(const double *s, size_t k, size_t lo, size_t hi, sbw_decay *d);

/* The fit as # decay_* meta lines of t, with the estimator in words.
 * Errors: the table's (sticky: on failure t keeps the first error and the
 * lines added before it). */
int sbw_decay_table(sbw_table *t, const sbw_decay *d);

#endif
