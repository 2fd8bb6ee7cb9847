/* sbw_series.c -- verdicts over a short series of labelled numbers (see
 * sbw_series.h). */
#include "sbw_series.h"

#include "sbw_error.h"
#include "sbw_tsv.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* ---- reading ------------------------------------------------------------- */

/* Parses the whole of t as a finite number into *x; false otherwise. */
static bool finite_number(const char *t, double *x)
{
    char *end;
    *x = strtod(t, &end);
    return end != t && *end == '\0' && isfinite(*x);
}

/* Appends (label, x) to s, taking label (freed on failure). */
static int push(sbw_series *s, char *label, double x)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 16;
        char **nl = realloc(s->label, nc * sizeof *nl);
        if (nl)
            s->label = nl;
        double *nv = nl ? realloc(s->value, nc * sizeof *nv) : NULL;
        if (!nv) {
            free(label);
            return SBW_ERROR(SBW_ENOMEM, "series of %zu values", nc);
        }
        s->value = nv;
        s->cap = nc;
    }
    s->label[s->n] = label;
    s->value[s->n++] = x;
    return SBW_OK;
}

/* One line (its newline removed) into s; lineno for messages. */
static int read_line(sbw_series *s, char *line, const char *path, size_t lineno)
{
    char *tab = strchr(line, '\t'), *num = line, *label;
    if (tab) {
        if (strchr(tab + 1, '\t'))
            return SBW_ERROR(SBW_EFORMAT, "%s: line %zu: more than two fields (LABEL<TAB>VALUE)",
                             path, lineno);
        if (tab == line)
            return SBW_ERROR(SBW_EFORMAT, "%s: line %zu: an empty label", path, lineno);
        *tab = '\0';
        num = tab + 1;
        label = strdup(line);
    } else {
        char buf[32];
        snprintf(buf, sizeof buf, "%zu", s->n + 1);
        label = strdup(buf);
    }
    if (!label)
        return SBW_ERROR(SBW_ENOMEM, "%s: line %zu: label", path, lineno);
    double x;
    if (!finite_number(num, &x)) {
        free(label);
        return SBW_ERROR(SBW_EDATA, "%s: line %zu: '%.40s' is not a finite number", path, lineno,
                         num);
    }
    return push(s, label, x);
}

int sbw_series_read(sbw_series *s, FILE *f, const char *path)
{
    memset(s, 0, sizeof *s);
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int st = SBW_OK;
    while (!st && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        st = read_line(s, line, path, lineno);
    }
    free(line);
    if (!st && ferror(f))
        st = SBW_ERROR(SBW_EIO, "%s: read failed", path);
    if (!st && s->n == 0)
        st = SBW_ERROR(SBW_EDATA, "%s: no values", path);
    if (st)
        sbw_series_free(s);
    return st;
}

/* Row r of table t into s: the value of column vc, the label of column lc
 * (lc < 0: the row's count). */
static int read_row(sbw_series *s, const sbw_tsv *t, size_t r, size_t vc, long lc)
{
    double x;
    int st = sbw_tsv_num(t, r, vc, &x);
    if (!st && !isfinite(x))
        st = SBW_ERROR(SBW_EDATA, "%s: row %zu, column '%s': '%.40s' is not a finite number",
                       t->path, r + 1, t->col[vc], sbw_tsv_str(t, r, vc));
    if (st)
        return st;
    char buf[32];
    const char *text = buf;
    if (lc >= 0)
        text = sbw_tsv_str(t, r, (size_t)lc);
    else
        snprintf(buf, sizeof buf, "%zu", r + 1);
    if (!text[0])
        return SBW_ERROR(SBW_EDATA, "%s: row %zu, column '%s': an empty label", t->path, r + 1,
                         t->col[lc]);
    char *label = strdup(text);
    if (!label)
        return SBW_ERROR(SBW_ENOMEM, "%s: row %zu: label", t->path, r + 1);
    return push(s, label, x);
}

int sbw_series_read_tsv(sbw_series *s, const char *path, const char *column, const char *label)
{
    memset(s, 0, sizeof *s);
    sbw_tsv t;
    size_t vc = 0, lcol = 0;
    int st = sbw_tsv_read(&t, path);
    st = st ? st : sbw_tsv_need(&t, column, &vc);
    st = st || !label ? st : sbw_tsv_need(&t, label, &lcol);
    for (size_t r = 0; !st && r < t.nrow; r++)
        st = read_row(s, &t, r, vc, label ? (long)lcol : -1);
    sbw_tsv_free(&t);
    if (st)
        sbw_series_free(s);
    return st;
}

void sbw_series_free(sbw_series *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->label[i]);
    free(s->label);
    free(s->value);
    memset(s, 0, sizeof *s);
}

/* ---- verdicts ------------------------------------------------------------ */

const char *sbw_series_trend_name(sbw_series_trend t)
{
    static const char *const names[] = {"none",          "rising",  "nondecreasing", "constant",
                                        "nonincreasing", "falling", "mixed"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* The trend of n values from the counts of their steps up and down. */
static sbw_series_trend trend_of(size_t n, size_t ups, size_t downs)
{
    if (n < 2)
        return SBW_TREND_NONE;
    if (ups && downs)
        return SBW_TREND_MIXED;
    if (ups)
        return ups == n - 1 ? SBW_TREND_RISING : SBW_TREND_NONDECREASING;
    if (downs)
        return downs == n - 1 ? SBW_TREND_FALLING : SBW_TREND_NONINCREASING;
    return SBW_TREND_CONSTANT;
}

int sbw_series_summarise(const double *x, size_t n, sbw_series_summary *out)
{
    if (n == 0)
        return SBW_ERROR(SBW_EINVAL, "series: no values");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return SBW_ERROR(SBW_EINVAL, "series: value %zu is not finite", i + 1);
    sbw_series_summary r = {.n = n, .min = x[0], .max = x[0], .first = x[0], .last = x[n - 1]};
    for (size_t i = 0; i < n; i++) {
        r.sum += x[i];
        if (x[i] < r.min) {
            r.min = x[i];
            r.argmin = i;
        }
        if (x[i] > r.max) {
            r.max = x[i];
            r.argmax = i;
        }
        if (i > 0 && x[i] > x[i - 1])
            r.ups++;
        if (i > 0 && x[i] < x[i - 1])
            r.downs++;
    }
    r.change = r.last - r.first;
    r.change_pct = r.first != 0 ? 100 * (r.last / r.first - 1) : NAN;
    r.max_over_min = r.min > 0 ? r.max / r.min : NAN;
    r.trend = trend_of(n, r.ups, r.downs);
    *out = r;
    return SBW_OK;
}

void sbw_series_against(const double *x, size_t n, double ref, size_t *below, size_t *equal,
                        size_t *above, size_t *first_equal)
{
    *below = *equal = *above = 0;
    *first_equal = n;
    for (size_t i = 0; i < n; i++) {
        if (x[i] < ref)
            ++*below;
        else if (x[i] > ref)
            ++*above;
        else {
            if (*equal == 0)
                *first_equal = i;
            ++*equal;
        }
    }
}

/* Whether index a goes strictly before index b. */
static bool before(const double *x, size_t a, size_t b, bool descending)
{
    return descending ? x[a] > x[b] : x[a] < x[b];
}

/* Stable merge sort of idx[lo..hi) by x, through work. */
static void merge_sort(const double *x, size_t *idx, size_t *work, size_t lo, size_t hi,
                       bool descending)
{
    if (hi - lo < 2)
        return;
    size_t mid = lo + (hi - lo) / 2;
    merge_sort(x, idx, work, lo, mid, descending);
    merge_sort(x, idx, work, mid, hi, descending);
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        work[k++] = before(x, idx[j], idx[i], descending) ? idx[j++] : idx[i++];
    while (i < mid)
        work[k++] = idx[i++];
    while (j < hi)
        work[k++] = idx[j++];
    memcpy(idx + lo, work + lo, (hi - lo) * sizeof *idx);
}

void sbw_series_order(const double *x, size_t n, bool descending, size_t *idx, size_t *work)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    merge_sort(x, idx, work, 0, n, descending);
}

int sbw_series_scale_parse(const char *text, double *num, double *den)
{
    char buf[64];
    size_t len = strlen(text);
    if (len == 0 || len >= sizeof buf)
        goto bad;
    memcpy(buf, text, len + 1);
    char *slash = strchr(buf, '/');
    *den = 1;
    if (slash) {
        *slash = '\0';
        if (!finite_number(slash + 1, den) || *den == 0)
            goto bad;
    }
    if (!finite_number(buf, num) || *num == 0)
        goto bad;
    return SBW_OK;
bad:
    return SBW_ERROR(SBW_EINVAL,
                     "--scale: '%.40s' is not A or A/B (finite numbers, not 0; e.g. 1/3600)", text);
}

/* ---- a line through the last points ---------------------------------------- */

int sbw_series_fit_line(const double *u, const double *y, size_t n, sbw_series_line *out)
{
    if (n < 2)
        return SBW_ERROR(SBW_EINVAL, "a line needs 2 points or more, not %zu", n);
    bool spread = false;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(u[i]) || !isfinite(y[i]))
            return SBW_ERROR(SBW_EDATA, "point %zu is not finite", i + 1);
        spread |= u[i] != u[0];
    }
    if (!spread)
        return SBW_ERROR(SBW_EDATA, "every point has the same abscissa: no slope");
    sbw_series_line l = {.n = n, .umin = u[0], .umax = u[0]};
    double c00, c01, c11, sumsq;
    gsl_fit_linear(u, 1, y, 1, n, &l.intercept, &l.slope, &c00, &c01, &c11, &sumsq);
    for (size_t i = 0; i < n; i++) {
        double r = fabs(y[i] - (l.intercept + l.slope * u[i]));
        l.max_abs = r > l.max_abs ? r : l.max_abs;
        l.umin = u[i] < l.umin ? u[i] : l.umin;
        l.umax = u[i] > l.umax ? u[i] : l.umax;
    }
    l.rms = sqrt(sumsq / (double)n);
    l.se_intercept = n > 2 ? sqrt(c00) : NAN;
    l.se_slope = n > 2 ? sqrt(c11) : NAN;
    l.cov = n > 2 ? c01 : NAN;
    *out = l;
    return SBW_OK;
}

void sbw_series_line_at(const sbw_series_line *l, double u, double *y, double *se)
{
    *y = l->intercept + l->slope * u;
    double v =
        l->se_intercept * l->se_intercept + 2 * u * l->cov + u * u * l->se_slope * l->se_slope;
    *se = l->n > 2 ? sqrt(v > 0 ? v : 0) : NAN;
}
