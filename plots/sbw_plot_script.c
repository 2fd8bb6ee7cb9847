/* sbw_plot_script.c -- the gnuplot script that draws a figure
 * (sbw_plot_fig.h) from its data file: terminal, styles, panels, legends. */
#include "sbw_plot_script.h"

#include "sbw_error.h"
#include "sbw_plot_gp.h"
#include "sbw_plot_style.h"
#include "sbw_plot_tics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the script ------------------------------------------------------------
 * Every line below is template code written with SBW_PLOT_GP_TEXT/SBW_PLOT_GP_FMT
 * (literals, numbers); every string of the figure enters through
 * sbw_plot_gp_str (a '...' literal) or sbw_plot_gp_comment (sbw_plot_gp.h). */

typedef struct tex_map {
    const char *utf8, *tex;
} tex_map;

static const tex_map tex_symbols[] = {
    {"σ", "$\\sigma$"}, {"α", "$\\alpha$"}, {"λ", "$\\lambda$"},    {"≤", "$\\le$"},
    {"‖", "$\\|$"},     {"₀", "$_0$"},      {"×", "$\\times$"},     {"−", "$-$"},
    {"²", "$^2$"},      {"√", "$\\surd$"},  {"ᵀ", "$^T$"},          {"₁", "$_1$"},
    {"ⱼ", "$_j$"},      {"%", "\\%"},       {"_", "\\_"},           {"&", "\\&"},
    {"#", "\\#"},       {"$", "\\$"},       {"{", "\\{"},           {"}", "\\}"},
    {"~", "\\~{}"},     {"^", "\\^{}"},     {"\\", "$\\backslash$"}};

void sbw_plot_script_text(const char *s, bool tex, char *buf, size_t cap)
{
    size_t o = 0;
    while (*s && o + 1 < cap) {
        const char *rep = NULL;
        bool safe;
        size_t used = sbw_plot_gp_char(s, &safe);
        for (size_t i = 0; tex && safe && i < sizeof tex_symbols / sizeof *tex_symbols; i++) {
            size_t n = strlen(tex_symbols[i].utf8);
            if (!strncmp(s, tex_symbols[i].utf8, n)) {
                rep = tex_symbols[i].tex;
                break;
            }
        }
        size_t n = rep ? strlen(rep) : safe ? used : 1;
        if (o + n + 1 > cap)
            break;
        memcpy(buf + o, rep ? rep : safe ? s : "?", n);
        o += n;
        s += used;
    }
    buf[o] = '\0';
}

/* Writes s, converted for the terminal, as a string literal. */
static void text_lit(FILE *out, const char *s, bool tex)
{
    char buf[2048];
    sbw_plot_script_text(s ? s : "", tex, buf, sizeof buf);
    sbw_plot_gp_str(out, buf);
}

/* Writes 'text' noenhanced: a title or an axis label. */
static void quoted(FILE *out, const char *s, bool tex)
{
    text_lit(out, s, tex);
    SBW_PLOT_GP_TEXT(out, " noenhanced");
}

#define MAX_LINES 8

/* Splits s into lines of at most width characters, at spaces when a line
 * has one (a longer word is cut): line i is s[at[i], at[i] + len[i]).
 * Returns the number of lines, at most max (<= MAX_LINES); *cut when text
 * was left over after the last. */
static size_t wrap(const char *s, size_t width, size_t max, size_t *at, size_t *len, bool *cut)
{
    size_t n = 0, start = 0, chars = 0, space = 0, i = 0;
    bool have_space = false;
    *cut = false;
    while (s[i]) {
        bool safe;
        size_t k = sbw_plot_gp_char(s + i, &safe);
        if (chars == width && n + 1 >= max) {
            *cut = true;
            break;
        }
        if (chars == width) {
            size_t end = have_space ? space : i;
            at[n] = start;
            len[n++] = end - start;
            start = have_space ? space + 1 : i;
            i = start;
            chars = 0;
            have_space = false;
            continue;
        }
        if (s[i] == ' ' && i > start) {
            space = i;
            have_space = true;
        }
        chars++;
        i += k;
    }
    at[n] = start;
    len[n++] = i - start;
    return n;
}

/* Writes a legend entry's text, wrapped at width characters: 'a'."\n".'b';
 * "..." ends it when it needs more than max lines. */
static void legend_lit(FILE *out, const char *s, bool tex, size_t width, size_t max)
{
    size_t at[MAX_LINES], len[MAX_LINES];
    bool cut;
    size_t n = wrap(s, width, max, at, len, &cut);
    for (size_t i = 0; i < n; i++) {
        size_t keep = len[i];
        if (cut && i + 1 == n) /* the last line: room for "..." */
            for (size_t c = 0, b = 0; b < len[i]; c++) {
                bool safe;
                if (c + 3 == width) {
                    keep = b;
                    break;
                }
                b += sbw_plot_gp_char(s + at[i] + b, &safe);
            }
        char *line = malloc(keep + 4);
        if (line) {
            memcpy(line, s + at[i], keep);
            memcpy(line + keep, cut && i + 1 == n ? "..." : "", cut && i + 1 == n ? 4 : 1);
        }
        if (i)
            SBW_PLOT_GP_TEXT(out, ".\"\\n\".");
        text_lit(out, line ? line : "?", tex);
        free(line);
    }
    SBW_PLOT_GP_TEXT(out, " noenhanced");
}

static void layout(size_t n, size_t *rows, size_t *cols)
{
    *cols = n <= 3 ? n : n == 4 ? 2 : 3;
    *rows = (n + *cols - 1) / *cols;
}

/* The terminal's size: pixels for png and svg, inches for pdf and tex. */
static void term_size(const sbw_plot_fig_opts *o, size_t rows, size_t cols, double *w, double *h)
{
    bool px = o->format == SBW_PLOT_PNG || o->format == SBW_PLOT_SVG;
    /* per panel: 600 x 420 pixels at an 11-point font, or 3.6 x 2.6 inches
     * at 8 points (a column of a two-column paper) */
    *w = o->width > 0 ? o->width : (px ? 600.0 : 3.6) * (double)cols;
    *h = o->height > 0 ? o->height : (px ? 420.0 : 2.6) * (double)rows;
}

/* Characters of a legend line that fit under a panel of the figure (gnuplot
 * warns, "difficulty fitting plot titles into key", past that: measured
 * with gnuplot 5.4, 22 characters fit under a 300-pixel panel and 55 under
 * 600; 24 under 2 inches (tex) and 50 under 3.6). */
static size_t legend_width(const sbw_plot_fig_opts *o, size_t rows, size_t cols)
{
    double w, h;
    term_size(o, rows, cols, &w, &h);
    bool px = o->format == SBW_PLOT_PNG || o->format == SBW_PLOT_SVG;
    double pw = w / (double)cols; /* the margins take about 120 pixels or 0.7 inch */
    double c = px ? (pw - 120) / 9.5 : (pw - 0.7) * 15;
    return c < 4 ? 4 : c > 200 ? 200 : (size_t)c;
}

/* Lines a legend entry of a panel with n series may take: the legend
 * (n entries, 1.15 lines apart) keeps to 40% of the panel's height, or
 * gnuplot warns "difficulty fitting plot titles into key" (a 17-pixel or
 * 0.15-inch line at the default fonts). */
static size_t legend_max_lines(const sbw_plot_fig_opts *o, size_t rows, size_t cols, size_t n)
{
    double w, h;
    term_size(o, rows, cols, &w, &h);
    bool px = o->format == SBW_PLOT_PNG || o->format == SBW_PLOT_SVG;
    double lines = h / (double)rows / (px ? 17.0 : 0.15);
    double m = 0.4 * lines / (1.15 * (double)(n ? n : 1));
    return m < 1 ? 1 : m > MAX_LINES ? MAX_LINES : (size_t)m;
}

static void terminal(FILE *out, const sbw_plot_fig_opts *o, size_t rows, size_t cols,
                     const char *stem)
{
    double w, h;
    term_size(o, rows, cols, &w, &h);
    switch (o->format) {
    case SBW_PLOT_PNG:
        SBW_PLOT_GP_FMT(
            out, "set terminal pngcairo enhanced size %.0f,%.0f font ',11' linewidth 1.2\n", w, h);
        break;
    case SBW_PLOT_SVG:
        SBW_PLOT_GP_FMT(out,
                        "set terminal svg enhanced dynamic background '#ffffff' size %.0f,%.0f "
                        "font ',11' linewidth 1.2\n",
                        w, h);
        break;
    case SBW_PLOT_PDF:
        SBW_PLOT_GP_FMT(
            out, "set terminal pdfcairo enhanced size %.2fin,%.2fin font ',8' linewidth 1.2\n", w,
            h);
        break;
    default:
        SBW_PLOT_GP_FMT(
            out, "set terminal cairolatex pdf size %.2fin,%.2fin font ',8' linewidth 1.2\n", w, h);
    }
    size_t n = strlen(stem) + 8;
    char *name = malloc(n);
    if (name)
        snprintf(name, n, "%s.%s", stem, sbw_plot_fig_format_ext(o->format));
    SBW_PLOT_GP_TEXT(out, "output = here.");
    sbw_plot_gp_str(out, name ? name : "?");
    SBW_PLOT_GP_TEXT(out, "\nif (strstrt(plain, output[1:1]) == 0) { output = './'.output }\n"
                          "set output output\n");
    free(name);
}

/* What every series shares; each series' colour, marker and dash are its
 * own (sbw_plot_style), written in its plot element. */
static void styles(FILE *out)
{
    SBW_PLOT_GP_TEXT(out, "set grid lc rgb '#d9d9d9' lw 0.6\n"
                          "set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left\n"
                          "set datafile separator \"\\t\"\n"
                          "set samples 500\n");
}

/* The number of points of s that its axes can show. */
static size_t drawable_points(const sbw_plot_fig_series *s, bool lx, bool ly)
{
    size_t c = 0;
    for (size_t k = 0; !s->func && k < s->n; k++)
        c += sbw_plot_fig_drawable(s->x[k], s->y[k], lx, ly);
    return c;
}

/* A line series with at most this many points to show gets its markers:
 * per-epoch values (a trajectory, a 1-8 epoch run) are where the points
 * are, and a bare line hides them; a training log of hundreds of steps
 * stays a line. */
#define FEW_POINTS 40

/* How s is drawn on axes lx, ly: a series with one point to show (a run
 * of one epoch) as a point, since a line through one point is invisible;
 * a line of FEW_POINTS or fewer with its markers; otherwise as asked. */
static sbw_plot_fig_with drawn_with(const sbw_plot_fig_series *s, bool lx, bool ly)
{
    size_t np = s->func ? 0 : drawable_points(s, lx, ly);
    bool one = !s->func && s->with != SBW_WITH_VLINE && np == 1;
    sbw_plot_fig_with w = one && s->with != SBW_WITH_LINESPOINTS ? SBW_WITH_POINTS : s->with;
    return w == SBW_WITH_LINES && np <= FEW_POINTS ? SBW_WITH_LINESPOINTS : w;
}

/* One "plot" element drawn in style st (drawn_with's); *idx counts the
 * data blocks. */
static void element(FILE *out, const sbw_plot_fig_series *s, sbw_plot_style st, bool lx, bool ly,
                    size_t *idx, bool tex, size_t width, size_t max)
{
    bool err = false;
    for (size_t k = 0; !s->func && k < s->n; k++)
        err = err || isfinite(s->err[k]);
    if (s->with == SBW_WITH_VLINE)
        SBW_PLOT_GP_TEXT(out, "NaN"); /* its key entry; the line is an arrow */
    else if (s->func)
        sbw_plot_gp_expr(out, s->func);
    else if (err)
        SBW_PLOT_GP_FMT(out, "data index %zu using 1:2:3", (*idx)++);
    else
        SBW_PLOT_GP_FMT(out, "data index %zu using 1:2", (*idx)++);
    sbw_plot_fig_with w = drawn_with(s, lx, ly);
    switch (w) {
    case SBW_WITH_LINES:
        SBW_PLOT_GP_TEXT(out, " with lines");
        break;
    case SBW_WITH_STEPS:
        SBW_PLOT_GP_TEXT(out, " with steps");
        break;
    case SBW_WITH_POINTS:
        if (err)
            SBW_PLOT_GP_TEXT(out, " with yerrorbars");
        else
            SBW_PLOT_GP_TEXT(out, " with points");
        break;
    case SBW_WITH_REFERENCE:
    case SBW_WITH_VLINE:
        SBW_PLOT_GP_TEXT(out, " with lines");
        break;
    default:
        if (err)
            SBW_PLOT_GP_TEXT(out, " with yerrorlines");
        else
            SBW_PLOT_GP_TEXT(out, " with linespoints");
    }
    bool ref = w == SBW_WITH_REFERENCE || w == SBW_WITH_VLINE;
    SBW_PLOT_GP_FMT(out, " lc rgb '#%06X' lw %.1f dt %d", st.rgb, ref ? 1.2 : 1.5,
                    ref ? 2 : st.dash);
    if (w == SBW_WITH_POINTS || w == SBW_WITH_LINESPOINTS) /* lines take no marker */
        SBW_PLOT_GP_FMT(out, " pt %d ps 0.9", st.point);
    SBW_PLOT_GP_TEXT(out, " title ");
    legend_lit(out, s->label, tex, width, max);
}

/* The vertical lines of p as arrows across the panel, in their styles
 * (their key entries are the NaN elements above). */
static void vlines(FILE *out, const sbw_plot_fig_panel *p, const sbw_plot_style *st)
{
    SBW_PLOT_GP_TEXT(out, "unset arrow\n");
    for (size_t j = 0; j < p->nseries; j++)
        if (p->series[j]->with == SBW_WITH_VLINE) {
            SBW_PLOT_GP_TEXT(out, "set arrow from first ");
            sbw_plot_gp_num(out, p->series[j]->at);
            SBW_PLOT_GP_TEXT(out, ", graph 0 to first ");
            sbw_plot_gp_num(out, p->series[j]->at);
            SBW_PLOT_GP_FMT(out, ", graph 1 nohead front lc rgb '#%06X' lw 1.2 dt 2\n", st[j].rgb);
        }
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
            if (sbw_plot_fig_drawable(s->x[k], s->y[k], lx, ly)) {
                double v = use_y ? s->y[k] : s->x[k];
                *lo = v < *lo ? v : *lo;
                *hi = v > *hi ? v : *hi;
            }
    }
}

/* "set xrange [lo:hi]\n" (or y). */
static void set_range(FILE *out, char axis, double lo, double hi)
{
    if (axis == 'x')
        SBW_PLOT_GP_TEXT(out, "set xrange [");
    else
        SBW_PLOT_GP_TEXT(out, "set yrange [");
    sbw_plot_gp_num(out, lo);
    SBW_PLOT_GP_TEXT(out, ":");
    sbw_plot_gp_num(out, hi);
    SBW_PLOT_GP_TEXT(out, "]\n");
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
        set_range(out, 'x', lx ? lo / 2 : lo - 1, lx ? hi * 2 : hi + 1);
    data_range(p, lx, ly, true, &lo, &hi);
    if (lo == hi && !fx && !isfinite(p->ymin) && !isfinite(p->ymax))
        set_range(out, 'y', ly ? lo / 2 : lo - 1, ly ? hi * 2 : hi + 1);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The data's x values into v when they are a few integers (D, K, M; at
 * most 12, positive on a log axis), ascending; false otherwise. */
static bool xtic_values(const sbw_plot_fig_panel *p, bool lx, double v[12], size_t *n)
{
    bool few = true;
    *n = 0;
    for (size_t j = 0; few && j < p->nseries; j++)
        for (size_t k = 0; few && !p->series[j]->func && k < p->series[j]->n; k++) {
            double x = p->series[j]->x[k];
            size_t i = 0;
            while (i < *n && v[i] != x)
                i++;
            few = isfinite(x) && x == floor(x) && fabs(x) < 1e9 && (i < *n || *n < 12) &&
                  (!lx || x > 0);
            if (few && i == *n)
                v[(*n)++] = x;
        }
    if (few && *n >= 2)
        qsort(v, *n, sizeof *v, by_value);
    return few && *n >= 2;
}

/* Tics at the values v (xtic_values), as many as an axis of room
 * characters can label apart (sbw_plot_tics_thin). */
static void xtics_at(FILE *out, double *v, size_t n, double room, bool lx)
{
    n = sbw_plot_tics_thin(v, n, sbw_plot_tics_max(room, (double)sbw_plot_tics_chars(v, n), false),
                           lx);
    SBW_PLOT_GP_TEXT(out, "set xtics (");
    for (size_t i = 0; i < n; i++) {
        if (i)
            SBW_PLOT_GP_TEXT(out, ", ");
        SBW_PLOT_GP_FMT(out, "%.0f", v[i]);
    }
    SBW_PLOT_GP_TEXT(out, ")\n");
}

/* The tics of a linear axis over [lo, hi] (x, or y when vertical): a step
 * that keeps the labels apart on an axis of room characters or lines
 * (sbw_plot_tics.h); gnuplot's own when the range is empty. */
static void linear_tics(FILE *out, bool vertical, double lo, double hi, double room)
{
    size_t chars = 6, max = sbw_plot_tics_max(room, 6, vertical);
    double step = sbw_plot_tics_step(lo, hi, max, &chars);
    if (step > 0 && !vertical) { /* again with the labels' own width */
        max = sbw_plot_tics_max(room, (double)chars, vertical);
        step = sbw_plot_tics_step(lo, hi, max, &chars);
    }
    if (vertical)
        SBW_PLOT_GP_TEXT(out, "set ytics ");
    else
        SBW_PLOT_GP_TEXT(out, "set xtics ");
    if (step > 0)
        SBW_PLOT_GP_FMT(out, "%.6g\n", step);
    else
        SBW_PLOT_GP_TEXT(out, "autofreq\n");
}

static void axis_letter(FILE *out, char axis)
{
    if (axis == 'x')
        SBW_PLOT_GP_TEXT(out, "x");
    else
        SBW_PLOT_GP_TEXT(out, "y");
}

/* "set xtics (t0, t1, ...)" (or y). */
static void tic_list(FILE *out, char axis, const double *t, size_t n)
{
    SBW_PLOT_GP_TEXT(out, "set ");
    axis_letter(out, axis);
    SBW_PLOT_GP_TEXT(out, "tics (");
    for (size_t i = 0; i < n; i++) {
        if (i)
            SBW_PLOT_GP_TEXT(out, ", ");
        SBW_PLOT_GP_FMT(out, "%.6g", t[i]);
    }
    SBW_PLOT_GP_TEXT(out, ")\n");
}

/* Tics of a log axis over data in [lo, hi], shown with pad (gnuplot's
 * graph offsets: a fraction of the data's span) on each side: under three decades the list of
 * sbw_plot_tics_log (the ranges hug the data, so gnuplot's own could show
 * one labelled tic or none); over three decades or more gnuplot puts every
 * tic at a power of ten, labelled 10^k (its default 1x10^k crowds a span
 * of many decades). */
static void log_tics(FILE *out, char axis, double lo, double hi, double pad, bool tex)
{
    SBW_PLOT_GP_TEXT(out, "set ");
    axis_letter(out, axis);
    SBW_PLOT_GP_TEXT(out, "tics autofreq\n");
    if (!(lo > 0) || !isfinite(hi) || !(hi >= lo))
        return;
    if (hi / lo >= 1000) {
        SBW_PLOT_GP_TEXT(out, "set format ");
        axis_letter(out, axis);
        if (tex)
            SBW_PLOT_GP_TEXT(out, " '$10^{%T}$'\n");
        else
            SBW_PLOT_GP_TEXT(out, " '10^{%T}'\n");
        return;
    }
    double t[SBW_PLOT_TICS_LOG_MAX];
    size_t n = sbw_plot_tics_log(lo, hi, pad, t);
    if (n)
        tic_list(out, axis, t, n);
}

/* "set key ..." for p: its position (one of a few; below the panel
 * otherwise), spaced for legend entries of up to lines lines, its width
 * corrected by excess characters (legend_fit). */
static void key(FILE *out, const sbw_plot_fig_panel *p, size_t lines, size_t excess)
{
    static const char *const pos[] = {"top left", "top right", "bottom left", "bottom right",
                                      "center"};
    size_t i = 0;
    while (p->key && i < sizeof pos / sizeof *pos && strcmp(p->key, pos[i]) != 0)
        i++;
    switch (p->key ? i : 99) {
    case 0:
        SBW_PLOT_GP_TEXT(out, "set key inside top left");
        break;
    case 1:
        SBW_PLOT_GP_TEXT(out, "set key inside top right");
        break;
    case 2:
        SBW_PLOT_GP_TEXT(out, "set key inside bottom left");
        break;
    case 3:
        SBW_PLOT_GP_TEXT(out, "set key inside bottom right");
        break;
    case 4:
        SBW_PLOT_GP_TEXT(out, "set key inside center");
        break;
    default:
        SBW_PLOT_GP_TEXT(out, "set key below");
    }
    SBW_PLOT_GP_FMT(out, "\nset key spacing %.2f width %d\n", 1.15 * (double)lines,
                    2 - (int)excess);
}

/* Characters in s[0, n) (UTF-8 sequences count one). */
static size_t chars_in(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; c++) {
        bool safe;
        i += sbw_plot_gp_char(s + i, &safe);
    }
    return c;
}

/* The legend of p wrapped at width characters: the most lines an entry
 * takes, and by how much gnuplot 5.4 overestimates the widest entry (it
 * measures a multi-line title as one line: every line and newline). */
static void legend_fit(const sbw_plot_fig_panel *p, size_t width, size_t max, size_t *lines,
                       size_t *excess)
{
    size_t at[MAX_LINES], len[MAX_LINES], whole = 0, widest = 0;
    *lines = 1;
    for (size_t j = 0; j < p->nseries; j++) {
        const char *l = p->series[j]->label;
        bool cut;
        size_t n = wrap(l, width, max, at, len, &cut), w = 0, total = n - 1;
        for (size_t i = 0; i < n; i++) {
            size_t c = chars_in(l + at[i], len[i]);
            w = c > w ? c : w;
            total += c;
        }
        *lines = n > *lines ? n : *lines;
        whole = total > whole ? total : whole;
        widest = w > widest ? w : widest;
    }
    *excess = whole - widest;
}

/* Widens [*lo, *hi] to p's constant lines (y = 0.5: gnuplot's range
 * reaches them, so their tics count too). */
static void const_range(const sbw_plot_fig_panel *p, double *lo, double *hi)
{
    for (size_t j = 0; j < p->nseries; j++) {
        const char *e = p->series[j]->func;
        char *end;
        double y = e ? strtod(e, &end) : NAN;
        if (e && end != e && !*end && isfinite(y)) {
            *lo = y < *lo ? y : *lo;
            *hi = y > *hi ? y : *hi;
        }
    }
}

/* An x range that shows p's vertical lines when one is outside the data
 * (and no range was set). */
static void vline_range(FILE *out, const sbw_plot_fig_panel *p, bool lx, bool ly)
{
    double lo, hi, a = INFINITY, b = -INFINITY;
    bool fx = false;
    for (size_t j = 0; j < p->nseries; j++)
        if (p->series[j]->with == SBW_WITH_VLINE) {
            a = p->series[j]->at < a ? p->series[j]->at : a;
            b = p->series[j]->at > b ? p->series[j]->at : b;
        } else {
            fx = fx || p->series[j]->func;
        }
    data_range(p, lx, ly, false, &lo, &hi);
    if (a > b || (isfinite(p->xmin) && isfinite(p->xmax)) || fx || !(lo <= hi) ||
        (a >= lo && b <= hi))
        return;
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
    set_range(out, 'x', lo, hi);
}

/* The room of a panel's axes: x in characters of the tic font, y in its
 * lines (sbw_plot_tics.h), from the panel's size less its margins (and
 * the legend, when it is below). */
typedef struct room {
    double x, y;
} room;

static void panel(FILE *out, const sbw_plot_fig_panel *p, const sbw_plot_style *st,
                  const sbw_plot_fig_opts *o, size_t *idx, size_t width, size_t max, room rm)
{
    bool tex = o->format == SBW_PLOT_TEX;
    SBW_PLOT_GP_TEXT(out, "unset logscale\nset autoscale\nset format x '% h'\nset format y '% h'\n"
                          "set title ");
    quoted(out, p->title, tex);
    SBW_PLOT_GP_TEXT(out, "\nset xlabel ");
    quoted(out, p->xlabel, tex);
    SBW_PLOT_GP_TEXT(out, "\nset ylabel ");
    quoted(out, p->ylabel, tex);
    SBW_PLOT_GP_TEXT(out, "\n");
    bool lx = p->logx || o->logx, ly = p->logy || o->logy;
    if (lx)
        SBW_PLOT_GP_TEXT(out, "set logscale x\n");
    if (ly)
        SBW_PLOT_GP_TEXT(out, "set logscale y\n");
    size_t lines, excess;
    legend_fit(p, width, max, &lines, &excess);
    key(out, p, lines, excess);
    /* ranges hug the data (no stretching to the next tic), with a margin
     * so that points at the ends are not cut by the border */
    bool marks = false;
    for (size_t j = 0; j < p->nseries; j++) {
        sbw_plot_fig_with w = drawn_with(p->series[j], lx, ly);
        marks = marks || w == SBW_WITH_LINESPOINTS || w == SBW_WITH_POINTS;
    }
    SBW_PLOT_GP_TEXT(out, "set autoscale fix\n");
    double xpad = 0, ypad = isfinite(p->ymin) || isfinite(p->ymax) ? 0 : 0.05;
    if (isfinite(p->xmin) && isfinite(p->xmax)) {
        set_range(out, 'x', p->xmin, p->xmax);
        SBW_PLOT_GP_TEXT(out, "set offsets 0, 0, graph 0.05, graph 0.05\n");
    } else if (marks) {
        xpad = 0.03;
        SBW_PLOT_GP_TEXT(out, "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
    } else {
        SBW_PLOT_GP_TEXT(out, "set offsets 0, 0, graph 0.05, graph 0.05\n");
    }
    degenerate(out, p, o);
    vline_range(out, p, lx, ly);
    vlines(out, p, st);
    if (isfinite(p->ymin) || isfinite(p->ymax)) {
        SBW_PLOT_GP_TEXT(out, "set yrange [");
        if (isfinite(p->ymin))
            sbw_plot_gp_num(out, p->ymin);
        else
            SBW_PLOT_GP_TEXT(out, "*");
        SBW_PLOT_GP_TEXT(out, ":");
        if (isfinite(p->ymax))
            sbw_plot_gp_num(out, p->ymax);
        else
            SBW_PLOT_GP_TEXT(out, "*");
        SBW_PLOT_GP_TEXT(out, "]\n");
    }
    double lo, hi;
    data_range(p, lx, ly, false, &lo, &hi);
    if (isfinite(p->xmin) && isfinite(p->xmax)) {
        lo = p->xmin;
        hi = p->xmax;
    }
    double xv[12];
    size_t nx;
    if (xtic_values(p, lx, xv, &nx))
        xtics_at(out, xv, nx, rm.x, lx);
    else if (lx)
        log_tics(out, 'x', lo, hi, xpad, tex);
    else
        linear_tics(out, false, lo, hi, rm.x);
    data_range(p, lx, ly, true, &lo, &hi);
    const_range(p, &lo, &hi);
    if (isfinite(p->ymin) && isfinite(p->ymax)) {
        lo = p->ymin;
        hi = p->ymax;
    }
    if (ly)
        log_tics(out, 'y', lo, hi, ypad, tex);
    else
        linear_tics(out, true, lo, hi, p->key ? rm.y : 0.7 * rm.y);
    SBW_PLOT_GP_TEXT(out, "plot ");
    for (size_t j = 0; j < p->nseries; j++) {
        if (j)
            SBW_PLOT_GP_TEXT(out, ", \\\n     ");
        element(out, p->series[j], st[j], lx, ly, idx, tex, width, max);
    }
    SBW_PLOT_GP_TEXT(out, "\n");
}

/* The script's head: what it is, the command, the figure's notes, all as
 * comments. */
static void head(FILE *out, const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *stem)
{
    const char *ext = sbw_plot_fig_format_ext(o->format);
    size_t n = 4 * strlen(stem) + strlen(f->kind) + 200;
    char *line = malloc(n);
    if (line) {
        snprintf(line, n,
                 "%s.gp -- a figure by sbw-plot %s.  Edit freely; `gnuplot %s%s.gp` redraws it",
                 stem, f->kind, stem[0] == '-' ? "./" : "", stem); /* -NAME: an option */
        sbw_plot_gp_comment(out, line);
        snprintf(line, n, "from any folder: it reads %s.dat and writes %s.%s beside itself.", stem,
                 stem, ext);
        sbw_plot_gp_comment(out, line);
    }
    free(line);
    if (o->command) {
        size_t m = strlen(o->command) + 16;
        char *c = malloc(m);
        if (c)
            snprintf(c, m, "command: %s", o->command);
        sbw_plot_gp_comment(out, c ? c : "command: (out of memory)");
        free(c);
    }
    for (size_t i = 0; i < f->nnotes; i++)
        sbw_plot_gp_comment(out, f->notes[i]);
}

/* The room of each panel's axes (struct room) at the figure's size. */
static room panel_room(const sbw_plot_fig_opts *o, size_t rows, size_t cols)
{
    double w, h;
    term_size(o, rows, cols, &w, &h);
    bool px = o->format == SBW_PLOT_PNG || o->format == SBW_PLOT_SVG;
    double pw = w / (double)cols, ph = h / (double)rows;
    /* margins: about 130 pixels or 0.8 inch across (the y label and tics),
     * 110 pixels or 0.7 inch down (title, x label and tics); a digit of the
     * 11-point font about 8 pixels wide, of the 8-point one 0.075 inch; a
     * line 17 pixels or 0.15 inch */
    room r = {px ? (pw - 130) / 8 : (pw - 0.8) / 0.075, px ? (ph - 110) / 17 : (ph - 0.7) / 0.15};
    r.x = r.x > 0 ? r.x : 0;
    r.y = r.y > 0 ? r.y : 0;
    return r;
}

int sbw_plot_script_write(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *stem,
                          FILE *out)
{
    size_t rows, cols, idx = 0;
    layout(f->npanel, &rows, &cols);
    const char *title = o->title ? o->title : f->title;
    head(out, f, o, stem);
    /* here: the script's folder, so that it finds its data from anywhere.
     * A name that does not begin with a letter, digit, _ . or / gets "./"
     * first: to gnuplot a data file '<cmd' is a pipe and '$name' a data
     * block, an output '|cmd' a pipe. */
    SBW_PLOT_GP_TEXT(out,
                     "here = ''\nif (exists(\"ARG0\")) { n = strlen(ARG0); while (n > 0 && "
                     "ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }\n"
                     "if (here eq './') { here = '' }\n"
                     "plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'\n"
                     "data = here.");
    size_t n = strlen(stem) + 5;
    char *dat = malloc(n);
    if (dat)
        snprintf(dat, n, "%s.dat", stem);
    sbw_plot_gp_str(out, dat ? dat : "?");
    free(dat);
    SBW_PLOT_GP_TEXT(out, "\nif (strstrt(plain, data[1:1]) == 0) { data = './'.data }\n");
    terminal(out, o, rows, cols, stem);
    styles(out);
    if (f->defs)
        fputs(f->defs, out); /* sbw_plot_fig_def*: numbers and names only */
    SBW_PLOT_GP_FMT(out, "set multiplot layout %zu,%zu", rows, cols);
    if (title || f->avg) { /* what was averaged, under any title */
        size_t m = (title ? strlen(title) : 0) + (f->avg ? strlen(f->avg) : 0) + 8;
        char *t = malloc(m);
        if (t)
            snprintf(t, m, "%s%s%s%s", title ? title : "", title && f->avg ? " (" : "",
                     f->avg ? f->avg : "", title && f->avg ? ")" : "");
        SBW_PLOT_GP_TEXT(out, " title ");
        quoted(out, t ? t : title, o->format == SBW_PLOT_TEX);
        free(t);
    }
    SBW_PLOT_GP_TEXT(out, "\n");
    size_t width = legend_width(o, rows, cols), total = 0;
    for (size_t i = 0; i < f->npanel; i++)
        total += f->panel[i]->nseries;
    sbw_plot_style *st = malloc((total + 1) * sizeof *st);
    if (!st)
        return SBW_ERROR(SBW_ENOMEM, "out of memory writing a figure script");
    sbw_plot_style_resolve(f, st);
    room rm = panel_room(o, rows, cols);
    for (size_t i = 0, at = 0; i < f->npanel; at += f->panel[i]->nseries, i++)
        panel(out, f->panel[i], st + at, o, &idx, width,
              legend_max_lines(o, rows, cols, f->panel[i]->nseries), rm);
    free(st);
    SBW_PLOT_GP_TEXT(out, "unset multiplot\nunset output\n");
    return ferror(out) ? SBW_ERROR(SBW_EIO, "write error (figure script)") : SBW_OK;
}
