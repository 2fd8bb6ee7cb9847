/* sbw_decay.c -- sigma_i ~ C i^(-alpha) by least squares in log-log
 * (sbw_decay.h). */
#include "sbw_decay.h"

#include "sbw_error.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One end of a range: digits, or nothing (0).  Returns false on junk. */
static bool parse_end(const char *b, const char *e, size_t *out)
{
    if (b == e) {
        *out = 0;
        return true;
    }
    unsigned long long v = 0;
    for (const char *p = b; p < e; p++) {
        if (*p < '0' || *p > '9' || v > 1000000000000ULL)
            return false;
        v = 10 * v + (unsigned)(*p - '0');
    }
    if (v == 0)
        return false;
    *out = (size_t)v;
    return true;
}

int sbw_decay_parse(const char *text, size_t *lo, size_t *hi)
{
    size_t a, b;
    const char *colon = strchr(text, ':');
    if (strcmp(text, "auto") == 0) {
        *lo = *hi = 0;
        return SBW_OK;
    }
    if (!colon || !parse_end(text, colon, &a) || !parse_end(colon + 1, colon + strlen(colon), &b) ||
        (a && b && b < a + 2))
        return SBW_ERROR(SBW_EINVAL,
                         "--decay: '%s' is not auto or LO:HI (1-based indices, LO or HI may be "
                         "left out, at least 3 points)",
                         text);
    *lo = a;
    *hi = b;
    return SBW_OK;
}

int sbw_decay_fit(const double *s, size_t k, size_t lo, size_t hi, sbw_decay *d)
{
    if (lo < 1 || hi > k || hi < lo + 2)
        return SBW_ERROR(SBW_EINVAL,
                         "--decay: the range %zu:%zu needs at least 3 of the %zu singular values",
                         lo, hi, k);
    for (size_t i = lo; i <= hi; i++)
        if (!(s[i - 1] > 0) || !isfinite(s[i - 1]))
            return SBW_ERROR(SBW_EDATA,
                             "--decay: singular value %zu is %g: a power law needs positive "
                             "values (end the range before it)",
                             i, s[i - 1]);
    size_t n = hi - lo + 1;
    double *xy = calloc(2 * n, sizeof *xy);
    if (!xy)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        xy[i] = log((double)(lo + i));
        xy[n + i] = log(s[lo + i - 1]);
    }
    double c0, c1, c00, c01, c11, ssr;
    gsl_fit_linear(xy, 1, xy + n, 1, n, &c0, &c1, &c00, &c01, &c11, &ssr);
    double ybar = 0, sst = 0;
    for (size_t i = 0; i < n; i++)
        ybar += xy[n + i] / (double)n;
    for (size_t i = 0; i < n; i++)
        sst += (xy[n + i] - ybar) * (xy[n + i] - ybar);
    free(xy);
    *d = (sbw_decay){.lo = lo,
                     .hi = hi,
                     .points = n,
                     .alpha = -c1,
                     .alpha_se = sqrt(c11),
                     .log_c = c0,
                     .r2 = sst > 0 ? 1 - ssr / sst : 1,
                     .resid_sd = sqrt(ssr / (double)(n - 2))};
    return SBW_OK;
}

int sbw_decay_table(sbw_table *t, const sbw_decay *d)
{
    sbw_table_meta_dbl(t, "decay_alpha", d->alpha);
    sbw_table_meta_dbl(t, "decay_alpha_se", d->alpha_se);
    sbw_table_meta_int(t, "decay_lo", (long long)d->lo);
    sbw_table_meta_int(t, "decay_hi", (long long)d->hi);
    sbw_table_meta_int(t, "decay_points", (long long)d->points);
    sbw_table_meta_dbl(t, "decay_log_c", d->log_c);
    sbw_table_meta_dbl(t, "decay_r2", d->r2);
    sbw_table_meta_dbl(t, "decay_resid_sd", d->resid_sd);
    sbw_table_meta_str(t, "decay_rule",
                       "sigma_i ~ exp(decay_log_c) i^(-decay_alpha), i in [decay_lo, decay_hi] "
                       "(1-based), ordinary least squares of ln sigma_i on ln i (gsl_fit_linear); "
                       "decay_alpha_se = sqrt(SSR/(n-2)/Sxx), exact for independent log-residuals; "
                       "consecutive singular values are not independent, so read it as the "
                       "fit's uncertainty, not a confidence interval");
    return sbw_table_status(t);
}
