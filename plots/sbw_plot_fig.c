/* sbw_plot_fig.c -- figures: panels, series, the data file, the script. */
#include "sbw_plot_fig.h"

#include "sbw_error.h"
#include "sbw_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory building a figure")

/* Okabe & Ito (2008), "Color Universal Design": distinguishable under the
 * common colour-vision deficiencies; yellow is left out (unreadable on
 * white).  Point types are cairo's filled circle, square, triangle,
 * diamond, inverted triangle and the open ones; dash types 1..4 cycle. */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#000000"};
static const int points[] = {7, 5, 9, 13, 11, 6, 4, 8, 10, 12};
static const int dashes[] = {1, 2, 4, 5}; /* solid, dashed, dash-dot, dash-dot-dot */
#define NCOLOURS (sizeof colours / sizeof *colours)
#define NPOINTS  (sizeof points / sizeof *points)
#define NSTYLES  10

static char *dupstr(const char *s) { return s ? strdup(s) : NULL; }

int sbw_plot_fig_alloc(sbw_plot_fig **f, const char *kind)
{
    *f = calloc(1, sizeof **f);
    if (*f && ((*f)->kind = strdup(kind)) != NULL)
        return SBW_OK;
    free(*f);
    *f = NULL;
    return NOMEM();
}

static void series_free(sbw_plot_fig_series *s)
{
    if (!s)
        return;
    free(s->label);
    free(s->func);
    free(s->x);
    free(s->y);
    free(s->err);
    free(s);
}

static void panel_free(sbw_plot_fig_panel *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nseries; i++)
        series_free(p->series[i]);
    free(p->series);
    free(p->title);
    free(p->xlabel);
    free(p->ylabel);
    free(p);
}

void sbw_plot_fig_free(sbw_plot_fig *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->npanel; i++)
        panel_free(f->panel[i]);
    free(f->panel);
    free(f->kind);
    free(f->title);
    free(f->notes);
    free(f->defs);
    free(f);
}

int sbw_plot_fig_add_panel(sbw_plot_fig *f, const char *title, const char *xlabel,
                           const char *ylabel, sbw_plot_fig_panel **p)
{
    sbw_plot_fig_panel **v = realloc(f->panel, (f->npanel + 1) * sizeof(sbw_plot_fig_panel *));
    if (!v)
        return NOMEM();
    f->panel = v;
    sbw_plot_fig_panel *q = calloc(1, sizeof *q);
    if (!q)
        return NOMEM();
    q->title = dupstr(title);
    q->xlabel = dupstr(xlabel);
    q->ylabel = dupstr(ylabel);
    q->xmin = q->xmax = q->ymin = q->ymax = NAN;
    if ((title && !q->title) || (xlabel && !q->xlabel) || (ylabel && !q->ylabel)) {
        panel_free(q);
        return NOMEM();
    }
    f->panel[f->npanel++] = q;
    *p = q;
    return SBW_OK;
}

int sbw_plot_fig_add_series(sbw_plot_fig_panel *p, const char *label, sbw_plot_fig_with with,
                            int style, sbw_plot_fig_series **s)
{
    sbw_plot_fig_series **v = realloc(p->series, (p->nseries + 1) * sizeof(sbw_plot_fig_series *));
    if (!v)
        return NOMEM();
    p->series = v;
    sbw_plot_fig_series *q = calloc(1, sizeof *q);
    if (!q || !(q->label = strdup(label ? label : ""))) {
        free(q);
        return NOMEM();
    }
    q->with = with;
    q->style = style;
    p->series[p->nseries++] = q;
    *s = q;
    return SBW_OK;
}

int sbw_plot_fig_series_add(sbw_plot_fig_series *s, double x, double y, double err)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        double *v[3] = {realloc(s->x, cap * sizeof(double)), NULL, NULL};
        if (v[0])
            s->x = v[0];
        v[1] = v[0] ? realloc(s->y, cap * sizeof(double)) : NULL;
        if (v[1])
            s->y = v[1];
        v[2] = v[1] ? realloc(s->err, cap * sizeof(double)) : NULL;
        if (!v[2])
            return NOMEM();
        s->err = v[2];
        s->cap = cap;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->err[s->n] = err;
    s->n++;
    return SBW_OK;
}

int sbw_plot_fig_series_func(sbw_plot_fig_series *s, const char *expr)
{
    char *e = strdup(expr);
    if (!e)
        return NOMEM();
    free(s->func);
    s->func = e;
    return SBW_OK;
}

/* Appends a formatted line to *buf. */
static int append(char **buf, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    /* clang-analyzer 14 misses the va_copy above (a known false positive). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    size_t old = *buf ? strlen(*buf) : 0;
    char *b = n < 0 ? NULL : realloc(*buf, old + (size_t)n + 2);
    if (!b)
        return NOMEM();
    vsnprintf(b + old, (size_t)n + 1, fmt, ap);
    b[old + (size_t)n] = '\n';
    b[old + (size_t)n + 1] = '\0';
    *buf = b;
    return SBW_OK;
}

int sbw_plot_fig_note(sbw_plot_fig *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int st = append(&f->notes, fmt, ap);
    va_end(ap);
    return st;
}

int sbw_plot_fig_def(sbw_plot_fig *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int st = append(&f->defs, fmt, ap);
    va_end(ap);
    return st;
}

static bool drawable(double x, double y, bool logx, bool logy)
{
    return isfinite(x) && isfinite(y) && (!logx || x > 0) && (!logy || y > 0);
}

int sbw_plot_fig_check(const sbw_plot_fig *f, const sbw_plot_fig_opts *o)
{
    if (!f->npanel)
        return SBW_ERROR(SBW_EDATA, "sbw-plot %s: nothing to draw", f->kind);
    for (size_t i = 0; i < f->npanel; i++) {
        const sbw_plot_fig_panel *p = f->panel[i];
        const char *pt = p->title ? p->title : p->ylabel ? p->ylabel : "";
        bool lx = p->logx || o->logx, ly = p->logy || o->logy;
        if (!p->nseries)
            return SBW_ERROR(SBW_EDATA, "sbw-plot %s: panel %zu (%s) has no series", f->kind, i + 1,
                             pt);
        for (size_t j = 0; j < p->nseries; j++) {
            const sbw_plot_fig_series *s = p->series[j];
            size_t k = 0;
            while (!s->func && k < s->n && !drawable(s->x[k], s->y[k], lx, ly))
                k++;
            if (!s->func && k == s->n)
                return SBW_ERROR(SBW_EDATA,
                                 "sbw-plot %s: panel %zu (%s), series '%s': no point to draw "
                                 "(%zu rows, none finite%s)",
                                 f->kind, i + 1, pt, s->label, s->n,
                                 lx || ly ? " and positive on the log axes" : "");
        }
    }
    return SBW_OK;
}

int sbw_plot_fig_write_data(const sbw_plot_fig *f, FILE *out)
{
    char a[32], b[32], c[32];
    fprintf(out,
            "# Data of a figure by sbw-plot %s: one block per series (gnuplot 'index'),\n"
            "# blocks separated by two blank lines; columns x, y, err (y error bar, nan: none).\n",
            f->kind);
    size_t idx = 0;
    for (size_t i = 0; i < f->npanel; i++)
        for (size_t j = 0; j < f->panel[i]->nseries; j++) {
            const sbw_plot_fig_series *s = f->panel[i]->series[j];
            if (s->func)
                continue;
            const char *t = f->panel[i]->title;
            fprintf(out, "%s# index %zu: panel %zu%s%s%s, %s\n# x\ty\terr\n", idx ? "\n\n" : "",
                    idx, i + 1, t ? " (" : "", t ? t : "", t ? ")" : "", s->label);
            for (size_t k = 0; k < s->n; k++) {
                sbw_table_format_double(s->x[k], a, sizeof a);
                sbw_table_format_double(s->y[k], b, sizeof b);
                sbw_table_format_double(s->err[k], c, sizeof c);
                fprintf(out, "%s\t%s\t%s\n", a, b, c);
            }
            idx++;
        }
    return ferror(out) ? SBW_ERROR(SBW_EIO, "write error (figure data)") : SBW_OK;
}

int sbw_plot_fig_format_parse(const char *s, sbw_plot_fig_format *f)
{
    static const char *const names[] = {"png", "pdf", "svg", "tex"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *f = (sbw_plot_fig_format)i;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "--format: '%s' is not one of png, pdf, svg, tex", s);
}

const char *sbw_plot_fig_format_ext(sbw_plot_fig_format f)
{
    static const char *const ext[] = {"png", "pdf", "svg", "tex"};
    return ext[f];
}

/* ---- the script ------------------------------------------------------------ */

typedef struct tex_map {
    const char *utf8, *tex;
} tex_map;

static const tex_map tex_symbols[] = {
    {"σ", "$\\sigma$"},     {"α", "$\\alpha$"}, {"λ", "$\\lambda$"}, {"≤", "$\\le$"},
    {"‖", "$\\|$"},         {"₀", "$_0$"},      {"×", "$\\times$"},  {"−", "$-$"},
    {"²", "$^2$"},          {"√", "$\\surd$"},  {"ᵀ", "$^T$"},       {"%", "\\%"},
    {"_", "\\_"},           {"&", "\\&"},       {"#", "\\#"},        {"$", "\\$"},
    {"{", "\\{"},           {"}", "\\}"},       {"~", "\\~{}"},      {"^", "\\^{}"},
    {"\\", "$\\backslash$"}};

void sbw_plot_fig_text(const char *s, bool tex, char *buf, size_t cap)
{
    size_t o = 0;
    while (*s && o + 1 < cap) {
        const char *rep = NULL;
        size_t used = 1;
        for (size_t i = 0; tex && i < sizeof tex_symbols / sizeof *tex_symbols; i++) {
            size_t n = strlen(tex_symbols[i].utf8);
            if (!strncmp(s, tex_symbols[i].utf8, n)) {
                rep = tex_symbols[i].tex;
                used = n;
                break;
            }
        }
        char one[3] = {*s, 0, 0};
        if (!rep && *s == '\'')
            one[1] = '\''; /* '' is a quote inside '...' */
        rep = rep ? rep : one;
        size_t n = strlen(rep);
        if (o + n + 1 > cap)
            break;
        memcpy(buf + o, rep, n);
        o += n;
        s += used;
    }
    buf[o] = '\0';
}

/* Writes 'text' noenhanced as a gnuplot string argument. */
static void quoted(FILE *out, const char *s, bool tex)
{
    char buf[1024];
    sbw_plot_fig_text(s ? s : "", tex, buf, sizeof buf);
    fprintf(out, "'%s' noenhanced", buf);
}

static void layout(size_t n, size_t *rows, size_t *cols)
{
    *cols = n <= 3 ? n : n == 4 ? 2 : 3;
    *rows = (n + *cols - 1) / *cols;
}

static void terminal(FILE *out, const sbw_plot_fig_opts *o, size_t rows, size_t cols,
                     const char *stem)
{
    bool px = o->format == SBW_PLOT_PNG || o->format == SBW_PLOT_SVG;
    /* per panel: 600 x 420 pixels at an 11-point font, or 3.6 x 2.6 inches
     * at 8 points (a column of a two-column paper) */
    double w = o->width > 0 ? o->width : (px ? 600.0 : 3.6) * (double)cols;
    double h = o->height > 0 ? o->height : (px ? 420.0 : 2.6) * (double)rows;
    static const char *const term[] = {"pngcairo enhanced", "pdfcairo enhanced",
                                       "svg enhanced dynamic background '#ffffff'",
                                       "cairolatex pdf"};
    if (px)
        fprintf(out, "set terminal %s size %.0f,%.0f font ',11' linewidth 1.2\n", term[o->format],
                w, h);
    else
        fprintf(out, "set terminal %s size %.2fin,%.2fin font ',8' linewidth 1.2\n",
                term[o->format], w, h);
    fprintf(out, "set output here.'%s.%s'\n", stem, sbw_plot_fig_format_ext(o->format));
}

static void styles(FILE *out)
{
    for (size_t i = 0; i < NSTYLES; i++)
        fprintf(out, "set style line %zu lc rgb '%s' pt %d ps 0.9 lw 1.5\n", i + 1,
                colours[i % NCOLOURS], points[i % NPOINTS]);
    fprintf(out, "set style line 99 lc rgb '#000000' pt 1 ps 0.9 lw 1.5\n"
                 "set grid lc rgb '#d9d9d9' lw 0.6\n"
                 "set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left\n"
                 "set datafile separator \"\\t\"\n"
                 "set samples 500\n");
}

static int style_of(int s) { return s <= 0 ? 99 : (s - 1) % NSTYLES + 1; }

/* One "plot" element; *idx counts the data blocks. */
static void element(FILE *out, const sbw_plot_fig_series *s, size_t *idx, bool tex)
{
    int ls = style_of(s->style), dt = s->style <= 0 ? 1 : dashes[(s->style - 1) % 4];
    bool err = false;
    for (size_t k = 0; !s->func && k < s->n; k++)
        err = err || isfinite(s->err[k]);
    if (s->func)
        fprintf(out, "%s", s->func);
    else
        fprintf(out, "data index %zu using 1:2%s", (*idx)++, err ? ":3" : "");
    switch (s->with) {
    case SBW_WITH_LINES:
        fprintf(out, " with lines ls %d dt %d", ls, dt);
        break;
    case SBW_WITH_STEPS:
        fprintf(out, " with steps ls %d dt %d", ls, dt);
        break;
    case SBW_WITH_POINTS:
        fprintf(out, " with points ls %d", ls);
        break;
    case SBW_WITH_REFERENCE:
        fprintf(out, " with lines ls %d dt 2 lw 1.2", ls);
        break;
    default:
        fprintf(out, " with %s ls %d", err ? "yerrorlines" : "linespoints", ls);
    }
    fprintf(out, " title ");
    quoted(out, s->label, tex);
}

/* The range of the drawable data of p on one axis (y when use_y). */
static void data_range(const sbw_plot_fig_panel *p, bool lx, bool ly, bool use_y, double *lo,
                       double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t j = 0; j < p->nseries; j++) {
        const sbw_plot_fig_series *s = p->series[j];
        for (size_t k = 0; !s->func && k < s->n; k++)
            if (drawable(s->x[k], s->y[k], lx, ly)) {
                double v = use_y ? s->y[k] : s->x[k];
                *lo = v < *lo ? v : *lo;
                *hi = v > *hi ? v : *hi;
            }
    }
}

/* One x (or one y) value is a legitimate figure (a run with one
 * validation) but an empty range to gnuplot, which warns: widen it. */
static void degenerate(FILE *out, const sbw_plot_fig_panel *p, const sbw_plot_fig_opts *o)
{
    bool lx = p->logx || o->logx, ly = p->logy || o->logy, fx = false;
    double lo, hi;
    for (size_t j = 0; j < p->nseries; j++)
        fx = fx || p->series[j]->func;
    data_range(p, lx, ly, false, &lo, &hi);
    if (lo == hi && !fx && !(isfinite(p->xmin) && isfinite(p->xmax)))
        fprintf(out, "set xrange [%.17g:%.17g]\n", lx ? lo / 2 : lo - 1, lx ? hi * 2 : hi + 1);
    data_range(p, lx, ly, true, &lo, &hi);
    if (lo == hi && !fx && !isfinite(p->ymin) && !isfinite(p->ymax))
        fprintf(out, "set yrange [%.17g:%.17g]\n", ly ? lo / 2 : lo - 1, ly ? hi * 2 : hi + 1);
}

/* Tics at the data's x values when they are a few integers (D, K, M);
 * false (and autofreq) otherwise. */
static bool xtics(FILE *out, const sbw_plot_fig_panel *p)
{
    double v[12];
    size_t n = 0;
    bool few = true;
    for (size_t j = 0; few && j < p->nseries; j++)
        for (size_t k = 0; few && !p->series[j]->func && k < p->series[j]->n; k++) {
            double x = p->series[j]->x[k];
            size_t i = 0;
            while (i < n && v[i] != x)
                i++;
            few = isfinite(x) && x == floor(x) && fabs(x) < 1e9 && (i < n || n < 12);
            if (few && i == n)
                v[n++] = x;
        }
    if (!few || n < 2) {
        fprintf(out, "set xtics autofreq\n");
        return false;
    }
    fprintf(out, "set xtics (");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%.0f", i ? ", " : "", v[i]);
    fprintf(out, ")\n");
    return true;
}

/* Tics of a log axis over data in [lo, hi]: the ranges hug the data, so a
 * span under three decades could show one labelled tic or none; label
 * 1, 2, 5 (or every digit) times the powers of ten inside it, or, in a
 * very narrow span, four values spread over it.  Over three decades or
 * more gnuplot puts every tic at a power of ten, labelled 10^k (its
 * default 1x10^k crowds a span of many decades). */
static void log_tics(FILE *out, char axis, double lo, double hi, bool tex)
{
    static const double sets[3][9] = {{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
    static const size_t len[3] = {1, 3, 9};
    fprintf(out, "set %ctics autofreq\n", axis);
    if (!(lo > 0) || !isfinite(hi))
        return;
    if (hi / lo >= 1000) {
        fprintf(out, "set format %c %s\n", axis, tex ? "'$10^{%T}$'" : "'10^{%T}'");
        return;
    }
    for (size_t k = 0; k < 3; k++) {
        double t[40];
        size_t n = 0;
        for (double dec = pow(10, floor(log10(lo))); dec <= hi && n + 9 < 40; dec *= 10)
            for (size_t i = 0; i < len[k]; i++)
                if (sets[k][i] * dec >= lo && sets[k][i] * dec <= hi)
                    t[n++] = sets[k][i] * dec;
        if (n >= 3 || (k == 2 && n >= 2)) {
            fprintf(out, "set %ctics (", axis);
            for (size_t i = 0; i < n; i++)
                fprintf(out, "%s%.6g", i ? ", " : "", t[i]);
            fprintf(out, ")\n");
            return;
        }
    }
    fprintf(out, "set %ctics (%.3g, %.3g, %.3g, %.3g)\n", axis, lo, pow(lo * lo * hi, 1.0 / 3),
            pow(lo * hi * hi, 1.0 / 3), hi);
}

static void panel(FILE *out, const sbw_plot_fig_panel *p, const sbw_plot_fig_opts *o, size_t *idx)
{
    bool tex = o->format == SBW_PLOT_TEX;
    fprintf(out, "unset logscale\nset autoscale\nset format x '%% h'\nset format y '%% h'\n"
                 "set title ");
    quoted(out, p->title, tex);
    fprintf(out, "\nset xlabel ");
    quoted(out, p->xlabel, tex);
    fprintf(out, "\nset ylabel ");
    quoted(out, p->ylabel, tex);
    fprintf(out, "\n%s%sset key %s%s\n", p->logx || o->logx ? "set logscale x\n" : "",
            p->logy || o->logy ? "set logscale y\n" : "", p->key ? "inside " : "",
            p->key ? p->key : "below");
    /* ranges hug the data (no stretching to the next tic), with a margin
     * so that points at the ends are not cut by the border */
    bool marks = false;
    for (size_t j = 0; j < p->nseries; j++)
        marks = marks || p->series[j]->with == SBW_WITH_LINESPOINTS ||
                p->series[j]->with == SBW_WITH_POINTS;
    fprintf(out, "set autoscale fix\n");
    if (isfinite(p->xmin) && isfinite(p->xmax))
        fprintf(out, "set xrange [%.17g:%.17g]\nset offsets 0, 0, graph 0.05, graph 0.05\n",
                p->xmin, p->xmax);
    else
        fprintf(out, "set offsets %s, graph 0.05, graph 0.05\n",
                marks ? "graph 0.03, graph 0.03" : "0, 0");
    degenerate(out, p, o);
    if (isfinite(p->ymin) || isfinite(p->ymax)) {
        char lo[32] = "*", hi[32] = "*";
        if (isfinite(p->ymin))
            snprintf(lo, sizeof lo, "%.17g", p->ymin);
        if (isfinite(p->ymax))
            snprintf(hi, sizeof hi, "%.17g", p->ymax);
        fprintf(out, "set yrange [%s:%s]\n", lo, hi);
    }
    double lo, hi;
    bool lx = p->logx || o->logx, ly = p->logy || o->logy;
    if (!xtics(out, p) && lx) {
        data_range(p, lx, ly, false, &lo, &hi);
        log_tics(out, 'x', lo, hi, tex);
    }
    fprintf(out, "set ytics autofreq\n");
    if (ly) {
        data_range(p, lx, ly, true, &lo, &hi);
        log_tics(out, 'y', lo, hi, tex);
    }
    fprintf(out, "plot ");
    for (size_t j = 0; j < p->nseries; j++) {
        fprintf(out, "%s", j ? ", \\\n     " : "");
        element(out, p->series[j], idx, tex);
    }
    fprintf(out, "\n");
}

int sbw_plot_fig_write_script(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *stem,
                              FILE *out)
{
    size_t rows, cols, idx = 0;
    layout(f->npanel, &rows, &cols);
    const char *title = o->title ? o->title : f->title;
    fprintf(out,
            "# %s.gp -- a figure by sbw-plot %s.  Edit freely; `gnuplot %s.gp` redraws it\n"
            "# from any folder: it reads %s.dat and writes %s.%s beside itself.\n",
            stem, f->kind, stem, stem, stem, sbw_plot_fig_format_ext(o->format));
    if (o->command)
        fprintf(out, "# command: %s\n", o->command);
    if (f->notes) {
        for (const char *p = f->notes; *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(out, "# %.*s\n", (int)n, p);
            p += n + (nl ? 1 : 0);
        }
    }
    fprintf(out,
            "here = ''\nif (exists(\"ARG0\")) { n = strlen(ARG0); while (n > 0 && "
            "ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }\n"
            "data = here.'%s.dat'\n",
            stem);
    terminal(out, o, rows, cols, stem);
    styles(out);
    if (f->defs)
        fprintf(out, "%s", f->defs);
    fprintf(out, "set multiplot layout %zu,%zu", rows, cols);
    if (title) {
        fprintf(out, " title ");
        quoted(out, title, o->format == SBW_PLOT_TEX);
    }
    fprintf(out, "\n");
    for (size_t i = 0; i < f->npanel; i++)
        panel(out, f->panel[i], o, &idx);
    fprintf(out, "unset multiplot\nunset output\n");
    return ferror(out) ? SBW_ERROR(SBW_EIO, "write error (figure script)") : SBW_OK;
}
