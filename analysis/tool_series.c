/* sbw-series: what a series of labelled numbers says -- sum, range, change
 * from first to last, ratio of largest to smallest, whether it rises along
 * its order, how it stands against a bound, its labels ordered by value
 * (sbw_series).  The verdicts a report states about a column of the tools'
 * tables; the recipe selects the values, this says what they show. */
#include "sbw.h"
#include "sbw_series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
    "Reads FILE ('-' or none = stdin): one value a line, VALUE or\n"
    "LABEL<TAB>VALUE ('#' lines and blank lines skipped; a bare value is\n"
    "labelled by its count, 1, 2, ...), in the order that matters (by K, by\n"
    "training step).  Values are finite numbers.  Prints one row:\n"
    "  n, sum           the count and the sum (left to right)\n"
    "  min, max         and argmin, argmax: the label where each first occurs\n"
    "  first, last      the first and last value; change = last - first,\n"
    "  change_pct       100 (last / first - 1) (nan when first is 0)\n"
    "  max_over_min     max / min (nan unless min > 0)\n"
    "  ups, downs       steps up (a value above the one before) and down\n"
    "  trend            rising (every step up), nondecreasing (none down,\n"
    "                   some flat), constant, nonincreasing, falling, mixed\n"
    "                   (both up and down); none for a single value\n"
    "--against X adds below, equal, above: how many values are <, == and > X\n"
    "(a rank against its bound), and first_equal, the label of the first\n"
    "value equal to X (none when no value is).  --scale A or A/B multiplies\n"
    "sum, min, max, first, last and change by A and divides them by B (a\n"
    "unit: 1/3600 turns seconds into hours); X, the ratio, the percentage\n"
    "and the trend are of the values as read.\n\n"
    "--order desc|asc prints the series ordered by value instead, largest\n"
    "(or smallest) first, equal values in input order, one row per value:\n"
    "label, value (scaled), relation: how the row before compares with this\n"
    "one (>, < or =; - on the first row), so that 'MoS 2.14 > Softmax 1.92 =\n"
    "MoC 1.92' is read off the rows without comparing anything again.\n\n"
    "--fit log|linear fits a least-squares line instead (GSL's\n"
    "gsl_fit_linear): value = intercept + slope u, u = ln(label) (log) or\n"
    "the label (linear), so the labels must be numbers (> 0 for log); with\n"
    "--last N only the last N values (the end of a curve).  One row: n,\n"
    "form, from, to (the labels fitted), intercept, slope and their\n"
    "standard errors se_intercept, se_slope (residual variance sum r^2 /\n"
    "(n - 2): nan, with a warning, for 2 points), rms_residual (sqrt(sum\n"
    "r^2 / n)) and max_residual; --at X adds at, value_at, se_at (the\n"
    "fitted line's standard error at X) and extrapolated (yes when X lies\n"
    "outside the labels fitted, with a warning: a line's value beyond its\n"
    "points is an extrapolation, not a measurement).\n\n"
    "--column NAME reads FILE as a table the tools write instead ('#' lines,\n"
    "a line of column names, tab-separated rows): the values of column NAME\n"
    "in row order, labelled by column --label's cells (or their count), so\n"
    "a recipe passes a table's column without cutting it out first.\n\n"
    "A line with more than two fields, an empty label, a value that is not a\n"
    "finite number, or no value at all: the file and line named, exit 1.\n\n"
    "Examples:\n"
    "  printf 'K=3\\t6467\\nK=5\\t8930\\n' | sbw-series        (trend rising)\n"
    "  sbw-series --against 42 ranks.txt\n"
    "  sbw-series --scale 1/3600 seconds.txt                (sum in hours)\n"
    "  sbw-series --order desc kl.txt\n"
    "  sbw-series --column rank --label epoch traj.tsv     (a table's column)\n"
    "  sbw-series --column expected_pairwise_kl --label valid_ppl --fit log \\\n"
    "      --last 4 --at 56 traj.tsv           (KLD at perplexity 56, extrapolated)\n";

typedef struct series_args {
    const char *order, *scale, *column, *label, *fit;
    double against, at;
    size_t last;
} series_args;

/* The summary row of s, with --against's columns when given. */
static int summary_table(sbw_table *t, const sbw_series *s, const series_args *a, bool against,
                         double num, double den)
{
    static const char *const cols[] = {
        "n",     "sum",   "min",    "max",        "argmin",       "argmax",
        "first", "last",  "change", "change_pct", "max_over_min", "ups",
        "downs", "trend", "below",  "equal",      "above",        "first_equal"};
    sbw_series_summary r;
    int st = sbw_series_summarise(s->value, s->n, &r);
    if (st)
        return st;
    sbw_table_columns(t, cols, sizeof cols / sizeof *cols - (against ? 0 : 4));
    sbw_table_add_row(t);
    sbw_table_set_int(t, "n", (long long)r.n);
    sbw_table_set_dbl(t, "sum", r.sum * num / den);
    sbw_table_set_dbl(t, "min", r.min * num / den);
    sbw_table_set_dbl(t, "max", r.max * num / den);
    sbw_table_set_str(t, "argmin", s->label[r.argmin]);
    sbw_table_set_str(t, "argmax", s->label[r.argmax]);
    sbw_table_set_dbl(t, "first", r.first * num / den);
    sbw_table_set_dbl(t, "last", r.last * num / den);
    sbw_table_set_dbl(t, "change", r.change * num / den);
    sbw_table_set_dbl(t, "change_pct", r.change_pct);
    sbw_table_set_dbl(t, "max_over_min", r.max_over_min);
    sbw_table_set_int(t, "ups", (long long)r.ups);
    sbw_table_set_int(t, "downs", (long long)r.downs);
    sbw_table_set_str(t, "trend", sbw_series_trend_name(r.trend));
    if (against) {
        size_t below, equal, above, first;
        sbw_series_against(s->value, s->n, a->against, &below, &equal, &above, &first);
        sbw_table_set_int(t, "below", (long long)below);
        sbw_table_set_int(t, "equal", (long long)equal);
        sbw_table_set_int(t, "above", (long long)above);
        sbw_table_set_str(t, "first_equal", first < s->n ? s->label[first] : "none");
    }
    return sbw_table_status(t);
}

/* The rows of s ordered by value (--order), with the relation of each to
 * the row before. */
static int order_table(sbw_table *t, const sbw_series *s, bool descending, double num, double den)
{
    static const char *const cols[] = {"label", "value", "relation"};
    size_t *idx = malloc(2 * s->n * sizeof *idx);
    if (!idx)
        return SBW_ERROR(SBW_ENOMEM, "order of %zu values", s->n);
    sbw_series_order(s->value, s->n, descending, idx, idx + s->n);
    sbw_table_columns(t, cols, 3);
    for (size_t i = 0; i < s->n; i++) {
        double x = s->value[idx[i]], prev = i ? s->value[idx[i - 1]] : x;
        sbw_table_add_row(t);
        sbw_table_set_str(t, "label", s->label[idx[i]]);
        sbw_table_set_dbl(t, "value", x * num / den);
        sbw_table_set_str(t, "relation", i == 0 ? "-" : prev > x ? ">" : prev < x ? "<" : "=");
    }
    free(idx);
    return sbw_table_status(t);
}

/* The abscissa of label (its number, or its log for --fit log) into *u;
 * SBW_EDATA naming path and the label otherwise. */
static int fit_abscissa(const char *label, bool logx, const char *path, double *u)
{
    char *end;
    double x = strtod(label, &end);
    if (end == label || *end || !isfinite(x) || (logx && x <= 0))
        return SBW_ERROR(SBW_EDATA,
                         "%s: label '%s' is not a %snumber (--fit reads the labels as x)", path,
                         label, logx ? "positive " : "");
    *u = logx ? log(x) : x;
    return SBW_OK;
}

/* The --fit row: the line through the last a->last values of s (all when
 * 0) against their labels, and its value at --at when given. */
static int fit_table(sbw_table *t, const sbw_series *s, const series_args *a, bool at,
                     const char *path)
{
    static const char *const cols[] = {
        "n",        "form",         "from",         "to", "intercept", "slope", "se_intercept",
        "se_slope", "rms_residual", "max_residual", "at", "value_at",  "se_at", "extrapolated"};
    bool logx = strcmp(a->fit, "log") == 0;
    size_t k = a->last && a->last < s->n ? a->last : s->n, o = s->n - k;
    double *u = malloc(k * sizeof *u);
    if (!u)
        return SBW_ERROR(SBW_ENOMEM, "%zu points", k);
    int st = SBW_OK;
    for (size_t i = 0; i < k && !st; i++)
        st = fit_abscissa(s->label[o + i], logx, path, &u[i]);
    sbw_series_line l;
    st = st ? st : sbw_series_fit_line(u, s->value + o, k, &l);
    free(u);
    if (st)
        return st;
    if (k == 2)
        sbw_table_warn("a line through 2 points has no residual: its errors are unknown (nan)");
    sbw_table_columns(t, cols, sizeof cols / sizeof *cols - (at ? 0 : 4));
    sbw_table_add_row(t);
    sbw_table_set_int(t, "n", (long long)k);
    sbw_table_set_str(t, "form",
                      logx ? "value = intercept + slope ln(label)"
                           : "value = intercept + slope label");
    sbw_table_set_str(t, "from", s->label[o]);
    sbw_table_set_str(t, "to", s->label[s->n - 1]);
    sbw_table_set_dbl(t, "intercept", l.intercept);
    sbw_table_set_dbl(t, "slope", l.slope);
    sbw_table_set_dbl(t, "se_intercept", l.se_intercept);
    sbw_table_set_dbl(t, "se_slope", l.se_slope);
    sbw_table_set_dbl(t, "rms_residual", l.rms);
    sbw_table_set_dbl(t, "max_residual", l.max_abs);
    if (at) {
        double ua = logx ? log(a->at) : a->at, y, se;
        sbw_series_line_at(&l, ua, &y, &se);
        bool ex = ua < l.umin || ua > l.umax;
        if (ex)
            sbw_table_warn("value_at is extrapolated: %g lies outside the labels fitted (%s to %s)",
                           a->at, s->label[o], s->label[s->n - 1]);
        sbw_table_set_dbl(t, "at", a->at);
        sbw_table_set_dbl(t, "value_at", y);
        sbw_table_set_dbl(t, "se_at", se);
        sbw_table_set_str(t, "extrapolated", ex ? "yes" : "no");
    }
    return sbw_table_status(t);
}

/* Reads the series named by c's argument (or stdin) into *s: a table's
 * column with --column, else the series format. */
static int read_input(const sbw_cli_common *c, const series_args *a, sbw_series *s)
{
    const char *path = c->nargs ? c->args[0] : "-";
    bool in = strcmp(path, "-") == 0;
    if (a->column)
        return sbw_series_read_tsv(s, in ? "/dev/stdin" : path, a->column, a->label);
    FILE *f = in ? stdin : fopen(path, "r");
    if (!f)
        return SBW_ERROR(SBW_EIO, "%s: cannot open", path);
    int st = sbw_series_read(s, f, in ? "stdin" : path);
    if (!in)
        fclose(f);
    return st;
}

/* The usage rules of --fit, --last and --at: 0 or the usage error's exit
 * status. */
static int check_fit(const sbw_cli *cli, const sbw_cli_common *c, const series_args *a,
                     bool against)
{
    bool at = sbw_cli_given(cli, c, "--at"), last = sbw_cli_given(cli, c, "--last");
    if (!a->fit)
        return at || last ? sbw_cli_usage_error(cli, "--%s needs --fit", at ? "at" : "last") : 0;
    if (strcmp(a->fit, "log") != 0 && strcmp(a->fit, "linear") != 0)
        return sbw_cli_usage_error(cli, "--fit: '%s' is not log or linear", a->fit);
    if (a->order || against || a->scale)
        return sbw_cli_usage_error(cli, "--fit does not apply with --%s (one row: the line)",
                                   a->order  ? "order"
                                   : against ? "against"
                                             : "scale");
    if (last && a->last < 2)
        return sbw_cli_usage_error(cli, "--last: a line needs 2 values or more, not %zu", a->last);
    if (at && strcmp(a->fit, "log") == 0 && !(a->at > 0))
        return sbw_cli_usage_error(cli, "--at: %g has no log (--fit log needs X > 0)", a->at);
    return 0;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    series_args a = {0};
    const sbw_cli_opt opts[] = {
        {"--against", "X", SBW_ARG_DOUBLE, &a.against, 1, 0,
         "also count the values below, equal to and above X"},
        {"--order", "DIR", SBW_ARG_STRING, &a.order, 1, 0,
         "desc or asc: the values ordered, one row each"},
        {"--scale", "A[/B]", SBW_ARG_STRING, &a.scale, 1, 0,
         "multiply sums and values by A/B (1/3600: s to h)"},
        {"--column", "NAME", SBW_ARG_STRING, &a.column, 1, 0,
         "FILE is a table: the values of its column NAME"},
        {"--label", "NAME", SBW_ARG_STRING, &a.label, 1, 0,
         "with --column: the labels of column NAME (default: 1, 2, ...)"},
        {"--fit", "FORM", SBW_ARG_STRING, &a.fit, 1, 0,
         "log or linear: a least-squares line against the labels"},
        {"--last", "N", SBW_ARG_SIZE, &a.last, 1, 0, "with --fit: only the last N values (N >= 2)"},
        {"--at", "X", SBW_ARG_DOUBLE, &a.at, 1, 0, "with --fit: the line's value at label X"},
        {0}};
    const sbw_cli cli = {"sbw-series",
                         "[FILE]",
                         "What a series of labelled numbers says.",
                         details,
                         opts,
                         0,
                         1,
                         SBW_CLI_OUTPUT | SBW_CLI_JSON};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    bool against = sbw_cli_given(&cli, &c, "--against");
    if (a.order && strcmp(a.order, "desc") != 0 && strcmp(a.order, "asc") != 0)
        return sbw_cli_usage_error(&cli, "--order: '%s' is not desc or asc", a.order);
    if (a.order && against)
        return sbw_cli_usage_error(&cli, "--against does not apply to --order (one row a value)");
    if (a.label && !a.column)
        return sbw_cli_usage_error(&cli, "--label needs --column (it names a table's column)");
    st = check_fit(&cli, &c, &a, against);
    if (st)
        return st;
    double num = 1, den = 1;
    if (a.scale && sbw_series_scale_parse(a.scale, &num, &den))
        return sbw_cli_usage_error(&cli, "%s", sbw_error_reason());
    const char *in[] = {c.nargs ? c.args[0] : "-"};
    const sbw_preflight_out out[] = {{"-o", c.output ? c.output : "-", false}};
    if ((st = sbw_preflight(in, 1, out, 1)) != 0)
        return sbw_cli_fail("sbw-series", st);
    sbw_series s;
    sbw_table *t = NULL;
    st = read_input(&c, &a, &s);
    if (st)
        return sbw_cli_fail("sbw-series", st);
    st = sbw_table_alloc(&t, "sbw-series", &c, false);
    if (!st && a.scale)
        sbw_table_meta_str(t, "scale", a.scale);
    if (!st)
        st = a.fit     ? fit_table(t, &s, &a, sbw_cli_given(&cli, &c, "--at"), in[0])
             : a.order ? order_table(t, &s, strcmp(a.order, "desc") == 0, num, den)
                       : summary_table(t, &s, &a, against, num, den);
    st = st ? st : sbw_table_write(t, c.output ? c.output : "-", c.json);
    sbw_table_free(t);
    sbw_series_free(&s);
    return st ? sbw_cli_fail("sbw-series", st) : SBW_EXIT_OK;
}
