/* sbw_plot_fig.c -- figures: panels, series, definitions, the data file.
 * The script that draws them is sbw_plot_script.c. */
#include "sbw_plot_fig.h"

#include "sbw_error.h"
#include "sbw_plot_gp.h"
#include "sbw_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory building a figure")

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
    free(f->avg);
    for (size_t i = 0; i < f->nnotes; i++)
        free(f->notes[i]);
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
    if (!sbw_plot_gp_expr_ok(expr))
        return SBW_ERROR(SBW_EINVAL, "internal: '%s' is not x, a number or NAME(x)", expr);
    char *e = strdup(expr);
    if (!e)
        return NOMEM();
    free(s->func);
    s->func = e;
    return SBW_OK;
}

int sbw_plot_fig_vline(sbw_plot_fig_panel *p, double x, const char *label)
{
    if (!isfinite(x))
        return SBW_ERROR(SBW_EINVAL, "a vertical line at x = %g: not a finite number", x);
    sbw_plot_fig_series *s;
    int st = sbw_plot_fig_add_series(p, label, SBW_WITH_VLINE, 0, &s);
    if (!st) {
        s->at = x;
        s->plain = true;
    }
    return st;
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
    char **v = realloc(f->notes, (f->nnotes + 1) * sizeof *v);
    if (!v)
        return NOMEM();
    f->notes = v;
    va_list ap;
    va_start(ap, fmt);
    v[f->nnotes] = NULL;
    int st = append(&v[f->nnotes], fmt, ap); /* one line, whatever it holds */
    va_end(ap);
    if (!st) {
        v[f->nnotes][strlen(v[f->nnotes]) - 1] = '\0'; /* append's own newline */
        f->nnotes++;
    }
    return st;
}

int sbw_plot_fig_def(sbw_plot_fig *f, const char *fmt, ...)
{
    if (!sbw_plot_gp_numeric_fmt(fmt))
        return SBW_ERROR(SBW_EINVAL, "internal: definition '%s' formats a string", fmt);
    va_list ap;
    va_start(ap, fmt);
    int st = append(&f->defs, fmt, ap);
    va_end(ap);
    return st;
}

int sbw_plot_fig_def_num(sbw_plot_fig *f, const char *name, double x)
{
    char num[40];
    if (!sbw_plot_gp_ident(name) || !isfinite(x))
        return SBW_ERROR(SBW_EINVAL, "internal: '%s' = %g is not a name and a finite number", name,
                         x);
    sbw_plot_gp_num_text(x, num, sizeof num);
    size_t old = f->defs ? strlen(f->defs) : 0, n = strlen(name) + strlen(num) + 5;
    char *b = realloc(f->defs, old + n + 1);
    if (!b)
        return NOMEM();
    snprintf(b + old, n + 1, "%s = %s\n", name, num);
    f->defs = b;
    return SBW_OK;
}

int sbw_plot_fig_def_array(sbw_plot_fig *f, const char *name, const double *v, size_t n)
{
    if (!sbw_plot_gp_ident(name))
        return SBW_ERROR(SBW_EINVAL, "internal: '%s' is not a gnuplot name", name);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return SBW_ERROR(SBW_EINVAL, "internal: %s[%zu] = %g is not finite", name, i + 1, v[i]);
    size_t old = f->defs ? strlen(f->defs) : 0, cap = old + 48 + strlen(name) + 28 * n;
    char *b = realloc(f->defs, cap), num[40];
    if (!b)
        return NOMEM();
    f->defs = b;
    size_t o = old + (size_t)snprintf(b + old, cap - old, "array %s[%zu] = [", name, n);
    for (size_t i = 0; i < n; i++) {
        sbw_plot_gp_num_text(v[i], num, sizeof num);
        o += (size_t)snprintf(b + o, cap - o, "%s%s", i ? ", " : "", num);
    }
    snprintf(b + o, cap - o, "]\n");
    return SBW_OK;
}

bool sbw_plot_fig_drawable(double x, double y, bool logx, bool logy)
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
            if (s->with == SBW_WITH_VLINE) {
                if (lx && !(s->at > 0))
                    return SBW_ERROR(SBW_EINVAL,
                                     "sbw-plot %s: panel %zu (%s): a vertical line at x = %g "
                                     "on a log x axis (give x > 0)",
                                     f->kind, i + 1, pt, s->at);
                continue;
            }
            while (!s->func && k < s->n && !sbw_plot_fig_drawable(s->x[k], s->y[k], lx, ly))
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
    char a[32], b[32], c[32], line[1024];
    snprintf(line, sizeof line,
             "Data of a figure by sbw-plot %s: one block per series (gnuplot 'index'),", f->kind);
    sbw_plot_gp_comment(out, line);
    sbw_plot_gp_comment(out, "blocks separated by two blank lines; columns x, y, err (y error "
                             "bar, nan: none).");
    size_t idx = 0;
    for (size_t i = 0; i < f->npanel; i++)
        for (size_t j = 0; j < f->panel[i]->nseries; j++) {
            const sbw_plot_fig_series *s = f->panel[i]->series[j];
            if (s->func || s->with == SBW_WITH_VLINE)
                continue;
            const char *t = f->panel[i]->title;
            snprintf(line, sizeof line, "index %zu: panel %zu%s%s%s, %s", idx, i + 1, t ? " (" : "",
                     t ? t : "", t ? ")" : "", s->label);
            fputs(idx ? "\n\n" : "", out);
            sbw_plot_gp_comment(out, line);
            fputs("# x\ty\terr\n", out);
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
