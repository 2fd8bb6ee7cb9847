/* sbw_plot_group.c -- the grouped kinds (sweep, train, rank-k): rows
 * selected by --where, one line per series, one panel per (y column,
 * panel value), mean and sd over equal keys. */
#include "sbw_plot_group.h"
#include "sbw_error.h"
#include "sbw_plot_sel.h"
#include "sbw_plot_shape.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

/* ---- one line per series, one panel per (y column, panel value) -------------- */

typedef struct rec {
    size_t yi, panel, series;
    double x, y;
} rec;

typedef struct group_spec {
    const char *x;
    char **y;
    size_t ny;
    const char *series; /* column; absent from a table: one series per file */
    const char *panel;  /* column or NULL */
    bool panel_needed;  /* the user named it: a table without it is an error */
    bool with_k;        /* legend "mos K=10" when the table has a k column */
    bool aggregate;     /* mean and sd over rows of equal (panel, series, x) */
    bool logy[16];      /* a log y axis on y[i]'s panels (--logy-of) */
    sbw_plot_fig_with with;
} group_spec;

typedef struct group {
    rec *r;
    size_t n, cap;
    sbw_plot_sel_keys panels, series;
    size_t cmin, cmax; /* the fewest and most rows a drawn mean averages */
} group;

static void group_free(group *g)
{
    free(g->r);
    sbw_plot_sel_free_list(g->panels.s, g->panels.n);
    sbw_plot_sel_free_list(g->series.s, g->series.n);
}

static int push_rec(group *g, rec r)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 256;
        rec *v = realloc(g->r, cap * sizeof *v);
        if (!v)
            return NOMEM();
        g->r = v;
        g->cap = cap;
    }
    g->r[g->n++] = r;
    return SBW_OK;
}

/* The legend of a file's rows when it has no series column. */
static int file_label(const sbw_plot_kind_args *a, size_t i, const sbw_tsv *t, char *buf,
                      size_t cap)
{
    char fb[256], stem[128];
    const char *model = sbw_tsv_meta(t, "model"), *d = sbw_tsv_meta(t, "d"),
               *k = sbw_tsv_meta(t, "k");
    sbw_plot_sel_stem(t->path, stem, sizeof stem);
    if (model && d)
        snprintf(fb, sizeof fb, "%s D=%s%s%s (%s)", model, d, k && strcmp(k, "0") != 0 ? " K=" : "",
                 k && strcmp(k, "0") != 0 ? k : "", stem);
    else
        snprintf(fb, sizeof fb, "%s", stem);
    return sbw_plot_sel_label_of(a, i, fb, buf, cap);
}

static int table_recs(const sbw_plot_kind_args *a, size_t fi, const sbw_tsv *t,
                      const group_spec *gs, sbw_plot_sel_where *w, group *g)
{
    size_t xc, yc[16], dummy;
    long pc = gs->panel ? sbw_tsv_col(t, gs->panel) : -1;
    long sc = gs->series ? sbw_tsv_col(t, gs->series) : -1;
    long kc = gs->with_k ? sbw_tsv_col(t, "k") : -1;
    char lab[256], key[300];
    int st = sbw_tsv_need(t, gs->x, &xc);
    for (size_t j = 0; !st && j < gs->ny; j++)
        st = sbw_tsv_need(t, gs->y[j], &yc[j]);
    if (!st && gs->panel && pc < 0 && gs->panel_needed)
        st = sbw_tsv_need(t, gs->panel, &dummy);
    st = st ? st : file_label(a, fi, t, lab, sizeof lab);
    st = st ? st : sbw_plot_sel_where_bind(t, w);
    for (size_t r = 0; !st && r < t->nrow; r++) {
        double x;
        size_t pi = 0, si;
        if (!sbw_plot_sel_where_match(t, r, w))
            continue;
        st = sbw_plot_sel_value(t, r, xc, &x);
        st = st ? st
                : sbw_plot_sel_key(&g->panels, pc >= 0 ? sbw_tsv_str(t, r, (size_t)pc) : "", &pi);
        sbw_plot_sel_series_key(t, r, sc, kc, lab, key, sizeof key);
        st = st ? st : sbw_plot_sel_key(&g->series, key, &si);
        for (size_t j = 0; !st && j < gs->ny; j++) {
            double y;
            st = sbw_plot_sel_value(t, r, yc[j], &y);
            if (!st && isfinite(x) && isfinite(y)) /* nan: a value not measured there */
                st = push_rec(g, (rec){j, pi, si, x, y});
        }
    }
    return st;
}

static int by_x(const void *a, const void *b)
{
    double x = ((const rec *)a)->x, y = ((const rec *)b)->x;
    return (x > y) - (x < y);
}

/* Adds series si of (yi, pi) to p: points sorted by x, aggregated. */
static int add_group_series(sbw_plot_fig_panel *p, group *g, const group_spec *gs, size_t yi,
                            size_t pi, size_t si, rec *buf, double *ys)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->r[i].yi == yi && g->r[i].panel == pi && g->r[i].series == si)
            buf[n++] = g->r[i];
    if (!n)
        return SBW_OK;
    qsort(buf, n, sizeof *buf, by_x);
    sbw_plot_fig_series *s;
    int st = sbw_plot_fig_add_series(p, g->series.s[si], gs->with, (int)si + 1, &s);
    for (size_t i = 0; !st && i < n;) {
        size_t j = i;
        while (gs->aggregate && j < n && buf[j].x == buf[i].x) {
            ys[j - i] = buf[j].y;
            j++;
        }
        if (!gs->aggregate) {
            st = sbw_plot_fig_series_add(s, buf[i].x, buf[i].y, NAN);
            i++;
            continue;
        }
        double mean, sd;
        size_t c;
        sbw_plot_shape_mean_sd(ys, j - i, &mean, &sd, &c);
        st = sbw_plot_fig_series_add(s, buf[i].x, mean, sd);
        g->cmin = c < g->cmin ? c : g->cmin;
        g->cmax = c > g->cmax ? c : g->cmax;
        i = j;
    }
    return st;
}

static bool all_numeric(const sbw_plot_sel_keys *k)
{
    double x;
    for (size_t i = 0; i < k->n; i++)
        if (!sbw_tsv_parse(k->s[i], &x))
            return false;
    return true;
}

/* Panel order: numeric ascending when every value is a number. */
static void panel_order(const sbw_plot_sel_keys *k, size_t *order)
{
    bool num = all_numeric(k);
    for (size_t i = 0; i < k->n; i++)
        order[i] = i;
    for (size_t i = 1; num && i < k->n; i++)
        for (size_t j = i; j > 0 && strtod(k->s[order[j - 1]], NULL) > strtod(k->s[order[j]], NULL);
             j--) {
            size_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
}

static int group_panels(sbw_plot_fig *f, group *g, const group_spec *gs)
{
    rec *buf = malloc((g->n + 1) * sizeof *buf);
    double *ys = malloc((g->n + 1) * sizeof *ys);
    size_t *order = malloc((g->panels.n + 1) * sizeof *order);
    int st = buf && ys && order ? SBW_OK : NOMEM();
    if (!st)
        panel_order(&g->panels, order);
    for (size_t yi = 0; !st && yi < gs->ny; yi++)
        for (size_t q = 0; !st && q < g->panels.n; q++) {
            size_t pi = order[q];
            char title[256] = "";
            if (g->panels.s[pi][0])
                snprintf(title, sizeof title, "%s = %s", !strcmp(gs->panel, "m") ? "M" : gs->panel,
                         g->panels.s[pi]);
            sbw_plot_fig_panel *p;
            st = sbw_plot_fig_add_panel(f, title[0] ? title : NULL, sbw_plot_sel_label(gs->x),
                                        sbw_plot_sel_label(gs->y[yi]), &p);
            if (!st)
                p->logy = gs->logy[yi];
            for (size_t si = 0; !st && si < g->series.n; si++)
                st = add_group_series(p, g, gs, yi, pi, si, buf, ys);
        }
    free(buf);
    free(ys);
    free(order);
    return st;
}

/* What the figure's points average, said under its title: rows of equal
 * keys are seeds; one row each is one seed (no sd: no "mean ± sd"). */
static int seeds_note(sbw_plot_fig *f, size_t cmin, size_t cmax)
{
    char t[96];
    if (cmax <= 1)
        snprintf(t, sizeof t, "one seed");
    else if (cmin == cmax)
        snprintf(t, sizeof t, "mean ± sd over %zu seeds", cmax);
    else
        snprintf(t, sizeof t, "mean ± sd over %zu to %zu seeds", cmin, cmax);
    free(f->avg);
    f->avg = strdup(t);
    return f->avg ? SBW_OK : NOMEM();
}

/* Reads every input table and builds the grouped panels. */
static int grouped(sbw_plot_fig *f, const sbw_plot_kind_args *a, char *const *files, size_t nfiles,
                   const group_spec *gs)
{
    sbw_plot_sel_where w;
    group g = {0};
    int st = sbw_plot_sel_where_parse(a->where, &w);
    for (size_t i = 0; !st && i < nfiles; i++) {
        sbw_tsv t;
        st = sbw_tsv_read(&t, files[i]);
        st = st ? st : table_recs(a, i, &t, gs, &w, &g);
        sbw_tsv_free(&t);
    }
    if (!st && !g.n)
        st = SBW_ERROR(SBW_EDATA, "%s: no row with finite %s and %s%s%s", files[0], gs->x, gs->y[0],
                       a->where ? " where " : "", a->where ? a->where : "");
    g.cmin = SIZE_MAX;
    st = st ? st : group_panels(f, &g, gs);
    st = st || !gs->aggregate ? st : seeds_note(f, g.cmin, g.cmax);
    group_free(&g);
    sbw_plot_sel_where_free(&w);
    return st;
}

/* ---- sweep, train, rank-k: the grouped kinds ---------------------------------- */

/* The first of the candidate columns that the table at path has. */
static int pick_column(const char *path, const char *const *cand, size_t n, const char **out)
{
    sbw_tsv t;
    int st = sbw_tsv_read(&t, path);
    if (st)
        return st;
    *out = NULL;
    for (size_t i = 0; i < n && !*out; i++)
        if (sbw_tsv_col(&t, cand[i]) >= 0)
            *out = cand[i];
    if (!*out)
        st = SBW_ERROR(SBW_EDATA, "%s: none of the columns %s%s%s (name one with --y)", path,
                       cand[0], n > 1 ? " or " : "", n > 1 ? cand[n - 1] : "");
    sbw_tsv_free(&t);
    return st;
}

/* The y columns: --y, or the default list joined by commas; which of them
 * get a log y axis (--logy-of: each one of them). */
static int y_columns(const sbw_plot_kind_args *a, const char *def, group_spec *gs)
{
    char **lg = NULL;
    size_t nl = 0;
    int st = sbw_plot_sel_split(a->y ? a->y : def, &gs->y, &gs->ny);
    if (!st && (gs->ny == 0 || gs->ny > 16))
        st = SBW_ERROR(SBW_EINVAL, "--y: give 1 to 16 columns, not %zu", gs->ny);
    st = st ? st : sbw_plot_sel_split(a->logy_of, &lg, &nl);
    for (size_t i = 0; !st && i < nl; i++) {
        size_t j = 0;
        while (j < gs->ny && strcmp(lg[i], gs->y[j]) != 0)
            j++;
        if (j == gs->ny)
            st = SBW_ERROR(SBW_EINVAL, "--logy-of: '%s' is not one of the y columns (%s)", lg[i],
                           a->y ? a->y : def);
        else
            gs->logy[j] = true;
    }
    sbw_plot_sel_free_list(lg, nl);
    return st;
}

int sbw_plot_group_sweep(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    static const char *const cand[] = {"mode_match", "kl_mean"};
    static const char *const sc[] = {"model", "head"};
    const char *y = NULL, *series = a->series;
    int st = a->y ? SBW_OK : pick_column(a->inputs[0], cand, 2, &y);
    if (!st && !series && pick_column(a->inputs[0], sc, 2, &series))
        series = "model"; /* none: one series per file */
    group_spec gs = {.x = a->x ? a->x : "d",
                     .series = series,
                     .panel = a->panel ? a->panel : "m",
                     .panel_needed = a->panel != NULL,
                     .with_k = true,
                     .aggregate = true,
                     .with = SBW_WITH_LINESPOINTS};
    st = st ? st : y_columns(a, y, &gs);
    st = st ? st : grouped(f, a, a->inputs, a->ninputs, &gs);
    if (!st) {
        char t[300];
        size_t o = 0;
        for (size_t j = 0; j < gs.ny && o < 200; j++) /* every y column: one panel each */
            o += (size_t)snprintf(t + o, sizeof t - o, "%s%s",
                                  j ? (j + 1 < gs.ny ? ", " : " and ") : "", gs.y[j]);
        snprintf(t + o, sizeof t - o, " against %s%s%s", strcmp(gs.x, "d") ? gs.x : "D",
                 a->where ? ", " : "", a->where ? a->where : "");
        f->title = strdup(t);
        st = f->title ? SBW_OK : NOMEM();
    }
    st = st ? st
            : sbw_plot_fig_note(f, "error bars: sample sd over the rows of equal (%s, %s, %s)",
                                gs.panel, gs.series, gs.x);
    sbw_plot_sel_free_list(gs.y, gs.ny);
    return st;
}

int sbw_plot_group_train(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    static const char *const xc[] = {"step", "epoch"};
    const char *x = a->x;
    int st = x ? SBW_OK : pick_column(a->inputs[0], xc, 2, &x);
    char def[64] = "";
    if (!st && !a->y) {
        /* sbw-fit --log: kl_mean, mode_match; sbw-lm --log: loss, valid_ppl */
        sbw_tsv t;
        st = sbw_tsv_read(&t, a->inputs[0]);
        bool fit = !st && sbw_tsv_col(&t, "kl_mean") >= 0;
        bool lm = !st && sbw_tsv_col(&t, "valid_ppl") >= 0;
        snprintf(def, sizeof def, "%s", fit ? "kl_mean" : lm ? "loss,valid_ppl" : "loss");
        if (fit && sbw_tsv_col(&t, "mode_match") >= 0)
            strcat(def, ",mode_match");
        sbw_tsv_free(&t);
    }
    group_spec gs = {.x = x,
                     .series = a->series,
                     .panel = a->panel,
                     .panel_needed = true,
                     .with = SBW_WITH_LINES};
    st = st ? st : y_columns(a, def, &gs);
    st = st ? st : grouped(f, a, a->inputs, a->ninputs, &gs);
    sbw_plot_sel_free_list(gs.y, gs.ny);
    if (!st && !(f->title = strdup("Training curves")))
        st = NOMEM();
    return st;
}

int sbw_plot_group_rank_k(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    static const char *const cand[] = {"perplexity", "kl_mean", "kl"};
    const char *second = NULL;
    int st = a->y ? SBW_OK : pick_column(a->inputs[0], cand, 3, &second);
    char def[64];
    snprintf(def, sizeof def, "rank,%s", second ? second : "");
    group_spec gs = {.x = a->x ? a->x : "k",
                     .series = a->series ? a->series : "model",
                     .panel = a->panel,
                     .panel_needed = true,
                     .aggregate = true,
                     .with = SBW_WITH_LINESPOINTS};
    st = st ? st : y_columns(a, def, &gs);
    st = st ? st : grouped(f, a, a->inputs, a->ninputs, &gs);
    sbw_plot_sel_free_list(gs.y, gs.ny);
    if (!st && !(f->title = strdup("Rank and fit against the number of mixture components")))
        st = NOMEM();
    return st;
}
