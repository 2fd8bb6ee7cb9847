/* sbw_plot_ref.c -- reference lines from the command line; see the
 * header. */
#include "sbw_plot_ref.h"

#include "sbw_error.h"
#include "sbw_plot_sel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses "V1[:V2]...[:LABEL]": n finite numbers into v, then *label (NULL
 * when none; points into s).  Errors: SBW_EINVAL naming opt and form. */
static int parse_values(const char *opt, const char *form, const char *s, size_t n, double *v,
                        const char **label)
{
    const char *p = s;
    *label = NULL;
    for (size_t i = 0; i < n; i++) {
        char *end;
        v[i] = strtod(p, &end);
        bool sep = *end == ':' || (!*end && i + 1 == n);
        if (end == p || !sep || !isfinite(v[i]))
            return SBW_ERROR(SBW_EINVAL, "%s: '%s' is not %s with finite numbers", opt, s, form);
        p = *end ? end + 1 : end;
        if (i + 1 < n && !*end)
            return SBW_ERROR(SBW_EINVAL, "%s: '%s' is not %s with finite numbers", opt, s, form);
    }
    if (p > s && p[-1] == ':')
        *label = p;
    return SBW_OK;
}

/* A number as a label shows it: the shortest text that reads back. */
static void num_text(double x, char *buf, size_t cap)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

/* "y = A x + B" as text ("y = x + 1", "y = 2 x − 0.5", "y = 3"). */
static void line_label(double a, double b, char *buf, size_t cap)
{
    char ta[40], tb[40];
    double ma = a < 0 ? -a : a, mb = b < 0 ? -b : b; /* the signs are written as words */
    num_text(ma, ta, sizeof ta);
    num_text(mb, tb, sizeof tb);
    if (a == 0)
        snprintf(buf, cap, "y = %s%s", b < 0 ? "−" : "", tb);
    else
        snprintf(buf, cap, "y = %s%s%sx%s%s", a < 0 ? "−" : "", ma == 1 ? "" : ta,
                 ma == 1 ? "" : " ",
                 b == 0  ? ""
                 : b < 0 ? " − "
                         : " + ",
                 b == 0 ? "" : tb);
}

int sbw_plot_ref_check(const sbw_plot_ref_args *r)
{
    double v[2];
    const char *l;
    int st = r->line ? parse_values("--line", "A:B[:LABEL]", r->line, 2, v, &l) : SBW_OK;
    st = st || !r->hline ? st : parse_values("--hline", "Y[:LABEL]", r->hline, 1, v, &l);
    st = st || !r->vline ? st : parse_values("--vline", "X[:LABEL]", r->vline, 1, v, &l);
    char **p = NULL;
    size_t np = 0;
    st = st ? st : sbw_plot_sel_split(r->panels, &p, &np);
    for (size_t i = 0; !st && i < np; i++) {
        char *end;
        long k = strtol(p[i], &end, 10);
        if (*end || end == p[i] || k < 1 || k > 1000)
            st =
                SBW_ERROR(SBW_EINVAL, "--ref-panels: '%s' is not a panel number (1, 2, ...)", p[i]);
    }
    sbw_plot_sel_free_list(p, np);
    return st;
}

/* Whether panel i (0-based) of the figure gets the lines. */
static bool wanted(char **p, size_t np, size_t i)
{
    for (size_t k = 0; k < np; k++)
        if (strtol(p[k], NULL, 10) == (long)i + 1)
            return true;
    return np == 0;
}

/* Adds the lines to panel q. */
static int add_to(sbw_plot_fig_panel *q, const sbw_plot_ref_args *r, size_t i, bool logx, bool logy)
{
    double v[2];
    const char *l;
    char lab[128], num[40];
    sbw_plot_fig_series *s;
    int st = SBW_OK;
    bool lx = logx || q->logx, ly = logy || q->logy;
    if (r->line && !(st = parse_values("--line", "A:B[:LABEL]", r->line, 2, v, &l))) {
        line_label(v[0], v[1], lab, sizeof lab);
        st = sbw_plot_fig_add_series(q, l ? l : lab, SBW_WITH_REFERENCE, 0, &s);
        st = st ? st : sbw_plot_fig_series_func(s, "ref_line(x)");
        if (!st)
            s->plain = true;
    }
    if (!st && r->hline && !(st = parse_values("--hline", "Y[:LABEL]", r->hline, 1, v, &l))) {
        num_text(v[0], num, sizeof num);
        snprintf(lab, sizeof lab, "y = %s", num);
        if (ly && !(v[0] > 0))
            return SBW_ERROR(SBW_EINVAL, "--hline %s: panel %zu has a log y axis (give y > 0)", num,
                             i + 1);
        st = sbw_plot_fig_add_series(q, l ? l : lab, SBW_WITH_REFERENCE, 0, &s);
        st = st ? st : sbw_plot_fig_series_func(s, num);
        if (!st)
            s->plain = true;
    }
    if (!st && r->vline && !(st = parse_values("--vline", "X[:LABEL]", r->vline, 1, v, &l))) {
        num_text(v[0], num, sizeof num);
        snprintf(lab, sizeof lab, "x = %s", num);
        if (lx && !(v[0] > 0))
            return SBW_ERROR(SBW_EINVAL, "--vline %s: panel %zu has a log x axis (give x > 0)", num,
                             i + 1);
        st = sbw_plot_fig_vline(q, v[0], l ? l : lab);
    }
    return st;
}

int sbw_plot_ref_add(sbw_plot_fig *f, const sbw_plot_ref_args *r, bool logx, bool logy)
{
    char **p = NULL;
    size_t np = 0;
    double v[2];
    const char *l;
    int st = sbw_plot_ref_check(r);
    if (!st && r->line && !(st = parse_values("--line", "A:B", r->line, 2, v, &l)))
        st = sbw_plot_fig_def(f, "ref_line(x) = %.17g * x + %.17g", v[0], v[1]);
    st = st ? st : sbw_plot_sel_split(r->panels, &p, &np);
    for (size_t k = 0; !st && k < np; k++)
        if (strtol(p[k], NULL, 10) > (long)f->npanel)
            st = SBW_ERROR(SBW_EINVAL, "--ref-panels: panel %s, but the figure has %zu", p[k],
                           f->npanel);
    for (size_t i = 0; !st && i < f->npanel; i++)
        if (wanted(p, np, i))
            st = add_to(f->panel[i], r, i, logx, logy);
    sbw_plot_sel_free_list(p, np);
    return st;
}
