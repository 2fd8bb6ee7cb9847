/* sbw_plot_kind.c -- the kinds of sbw-plot: tables in, a figure out. */
#include "sbw_plot_kind.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_num.h"
#include "sbw_plot_shape.h"
#include "sbw_plot_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

static const char *const kinds[] = {"spectrum", "sweep",    "alpha", "bound",
                                    "train",    "monotone", "rank-k"};
#define NKINDS (sizeof kinds / sizeof *kinds)

const char *sbw_plot_kind_names(void) { return "spectrum sweep alpha bound train monotone rank-k"; }

bool sbw_plot_kind_known(const char *kind)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (!strcmp(kind, kinds[i]))
            return true;
    return false;
}

static const char *const label_map[][2] = {
    {"kl_mean", "mean KL(P*‖Q) (nats)"},
    {"kl", "KL(P*‖Q) (nats)"},
    {"mode_match", "mode match (fraction of contexts)"},
    {"loss", "loss (nats)"},
    {"perplexity", "perplexity"},
    {"ppl", "perplexity"},
    {"valid_ppl", "validation perplexity"},
    {"cross_entropy", "cross-entropy (nats)"},
    {"rank", "numerical rank of log Q (NR threshold)"},
    {"d", "embedding size D"},
    {"k", "mixture components K"},
    {"m", "vocabulary size M"},
    {"alpha", "Dirichlet α"},
    {"step", "step"},
    {"epoch", "epoch"},
    {"tokens", "tokens"},
    {"seconds", "time (s)"},
    {"lr", "learning rate"},
    {"fit_error", "‖A − log Q‖_F"},
    {"frob_rms", "‖A − log Q‖_F / √N"},
    {"expected_pairwise_kl", "expected pairwise KL (nats)"},
};

const char *sbw_plot_kind_label(const char *col)
{
    for (size_t i = 0; i < sizeof label_map / sizeof *label_map; i++)
        if (!strcmp(col, label_map[i][0]))
            return label_map[i][1];
    return col;
}

int sbw_plot_kind_split(const char *s, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!s || !*s)
        return SBW_OK;
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    char **v = calloc(cap, sizeof *v);
    if (!v)
        return NOMEM();
    const char *p = s;
    for (size_t i = 0; i < cap; i++) {
        size_t len = strcspn(p, ",");
        if (!(v[i] = strndup(p, len))) {
            for (size_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return NOMEM();
        }
        p += len + (p[len] == ',');
    }
    *out = v;
    *n = cap;
    return SBW_OK;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The last path component without its extension, into buf. */
static void stem_of(const char *path, char *buf, size_t cap)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') /* "fit/" names the folder fit */
        n--;
    const char *b = path + n;
    while (b > path && b[-1] != '/')
        b--;
    snprintf(buf, cap, "%.*s", (int)(path + n - b), b);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf)
        *dot = '\0';
}

/* Label i of --labels, or fallback. */
static int label_of(const sbw_plot_kind_args *a, size_t i, const char *fallback, char *buf,
                    size_t cap)
{
    char **l;
    size_t n;
    int st = sbw_plot_kind_split(a->labels, &l, &n);
    if (st)
        return st;
    if (n && n != a->ninputs)
        st = SBW_ERROR(SBW_EINVAL, "--labels: %zu labels for %zu inputs", n, a->ninputs);
    else
        snprintf(buf, cap, "%s", n ? l[i] : fallback);
    free_list(l, n);
    return st;
}

/* ---- rows selected by --where ------------------------------------------------ */

typedef struct where_clause {
    char **col, **val;
    size_t *at; /* the columns in the table at hand (where_bind) */
    size_t n;
} where_clause;

static void where_free(where_clause *w)
{
    free_list(w->col, w->n);
    free_list(w->val, w->n);
    free(w->at);
    *w = (where_clause){0};
}

static int where_parse(const char *s, where_clause *w)
{
    char **items;
    size_t n;
    *w = (where_clause){0};
    int st = sbw_plot_kind_split(s, &items, &n);
    if (st || !n)
        return st;
    w->col = calloc(n, sizeof *w->col);
    w->val = calloc(n, sizeof *w->val);
    w->at = calloc(n, sizeof *w->at);
    if (!w->col || !w->val || !w->at)
        st = NOMEM();
    for (size_t i = 0; !st && i < n; i++, w->n++) {
        char *eq = strchr(items[i], '=');
        if (!eq || eq == items[i]) {
            st = SBW_ERROR(SBW_EINVAL, "--where: '%s' is not COLUMN=VALUE", items[i]);
            break;
        }
        w->col[i] = strndup(items[i], (size_t)(eq - items[i]));
        w->val[i] = strdup(eq + 1);
        if (!w->col[i] || !w->val[i])
            st = NOMEM();
    }
    free_list(items, n);
    if (st)
        where_free(w);
    return st;
}

/* Equal as text, or as numbers when both read as numbers. */
static bool same_value(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (ea != a && !*ea && eb != b && !*eb)
        return x == y;
    return !strcmp(a, b);
}

/* Resolves the clause's columns in t once (a table may have 100,000
 * columns and as many rows): w->at[i] for w->col[i]. */
static int where_bind(const sbw_plot_tsv *t, where_clause *w)
{
    int st = SBW_OK;
    for (size_t i = 0; !st && i < w->n; i++)
        st = sbw_plot_tsv_need(t, w->col[i], &w->at[i]);
    return st;
}

/* Whether row matches the clause bound to t by where_bind. */
static bool where_match(const sbw_plot_tsv *t, size_t row, const where_clause *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (!same_value(sbw_plot_tsv_str(t, row, w->at[i]), w->val[i]))
            return false;
    return true;
}

/* ---- one line per series, one panel per (y column, panel value) -------------- */

typedef struct keyset {
    char **s;
    size_t n;
} keyset;

static int key_index(keyset *k, const char *s, size_t *idx)
{
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->s[i], s)) {
            *idx = i;
            return SBW_OK;
        }
    char **v = realloc(k->s, (k->n + 1) * sizeof *v);
    if (!v)
        return NOMEM();
    k->s = v;
    if (!(v[k->n] = strdup(s)))
        return NOMEM();
    *idx = k->n++;
    return SBW_OK;
}

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
    sbw_plot_fig_with with;
} group_spec;

typedef struct group {
    rec *r;
    size_t n, cap;
    keyset panels, series;
} group;

static void group_free(group *g)
{
    free(g->r);
    free_list(g->panels.s, g->panels.n);
    free_list(g->series.s, g->series.n);
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
static int file_label(const sbw_plot_kind_args *a, size_t i, const sbw_plot_tsv *t, char *buf,
                      size_t cap)
{
    char fb[256], stem[128];
    const char *model = sbw_plot_tsv_meta(t, "model"), *d = sbw_plot_tsv_meta(t, "d"),
               *k = sbw_plot_tsv_meta(t, "k");
    stem_of(t->path, stem, sizeof stem);
    if (model && d)
        snprintf(fb, sizeof fb, "%s D=%s%s%s (%s)", model, d, k && strcmp(k, "0") != 0 ? " K=" : "",
                 k && strcmp(k, "0") != 0 ? k : "", stem);
    else
        snprintf(fb, sizeof fb, "%s", stem);
    return label_of(a, i, fb, buf, cap);
}

/* The series key of row r. */
static void series_key(const sbw_plot_tsv *t, size_t r, long sc, long kc, const char *file_lab,
                       char *buf, size_t cap)
{
    if (sc < 0) {
        snprintf(buf, cap, "%s", file_lab);
        return;
    }
    const char *s = sbw_plot_tsv_str(t, r, (size_t)sc);
    const char *k = kc >= 0 ? sbw_plot_tsv_str(t, r, (size_t)kc) : "";
    bool showk = *k && strcmp(k, "0") != 0 && strcmp(k, "nan") != 0;
    snprintf(buf, cap, "%s%s%s", s, showk ? " K=" : "", showk ? k : "");
}

/* The cell at (r, c) as a number to draw: finite, or nan for a value the
 * tool did not measure there (sbw-lm's valid_ppl between validations);
 * an infinite one (a diverged run) is SBW_EDATA naming the file, row and
 * column, never a point silently left out. */
static int value(const sbw_plot_tsv *t, size_t r, size_t c, double *x)
{
    int st = sbw_plot_tsv_num(t, r, c, x);
    if (!st && isinf(*x))
        st = SBW_ERROR(SBW_EDATA,
                       "%s: row %zu, column '%s' is %s: sbw-plot draws finite values (nan marks "
                       "one not measured)",
                       t->path, r + 1, t->col[c], sbw_plot_tsv_str(t, r, c));
    return st;
}

static int table_recs(const sbw_plot_kind_args *a, size_t fi, const sbw_plot_tsv *t,
                      const group_spec *gs, where_clause *w, group *g)
{
    size_t xc, yc[16], dummy;
    long pc = gs->panel ? sbw_plot_tsv_col(t, gs->panel) : -1;
    long sc = gs->series ? sbw_plot_tsv_col(t, gs->series) : -1;
    long kc = gs->with_k ? sbw_plot_tsv_col(t, "k") : -1;
    char lab[256], key[300];
    int st = sbw_plot_tsv_need(t, gs->x, &xc);
    for (size_t j = 0; !st && j < gs->ny; j++)
        st = sbw_plot_tsv_need(t, gs->y[j], &yc[j]);
    if (!st && gs->panel && pc < 0 && gs->panel_needed)
        st = sbw_plot_tsv_need(t, gs->panel, &dummy);
    st = st ? st : file_label(a, fi, t, lab, sizeof lab);
    st = st ? st : where_bind(t, w);
    for (size_t r = 0; !st && r < t->nrow; r++) {
        double x;
        size_t pi = 0, si;
        if (!where_match(t, r, w))
            continue;
        st = value(t, r, xc, &x);
        st =
            st ? st : key_index(&g->panels, pc >= 0 ? sbw_plot_tsv_str(t, r, (size_t)pc) : "", &pi);
        series_key(t, r, sc, kc, lab, key, sizeof key);
        st = st ? st : key_index(&g->series, key, &si);
        for (size_t j = 0; !st && j < gs->ny; j++) {
            double y;
            st = value(t, r, yc[j], &y);
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
static int add_group_series(sbw_plot_fig_panel *p, const group *g, const group_spec *gs, size_t yi,
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
        i = j;
    }
    return st;
}

static bool all_numeric(const keyset *k)
{
    for (size_t i = 0; i < k->n; i++) {
        char *e;
        strtod(k->s[i], &e);
        if (e == k->s[i] || *e)
            return false;
    }
    return true;
}

/* Panel order: numeric ascending when every value is a number. */
static void panel_order(const keyset *k, size_t *order)
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

static int group_panels(sbw_plot_fig *f, const group *g, const group_spec *gs)
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
            st = sbw_plot_fig_add_panel(f, title[0] ? title : NULL, sbw_plot_kind_label(gs->x),
                                        sbw_plot_kind_label(gs->y[yi]), &p);
            for (size_t si = 0; !st && si < g->series.n; si++)
                st = add_group_series(p, g, gs, yi, pi, si, buf, ys);
        }
    free(buf);
    free(ys);
    free(order);
    return st;
}

/* Reads every input table and builds the grouped panels. */
static int grouped(sbw_plot_fig *f, const sbw_plot_kind_args *a, char *const *files, size_t nfiles,
                   const group_spec *gs)
{
    where_clause w;
    group g = {0};
    int st = where_parse(a->where, &w);
    for (size_t i = 0; !st && i < nfiles; i++) {
        sbw_plot_tsv t;
        st = sbw_plot_tsv_read(&t, files[i]);
        st = st ? st : table_recs(a, i, &t, gs, &w, &g);
        sbw_plot_tsv_free(&t);
    }
    if (!st && !g.n)
        st = SBW_ERROR(SBW_EDATA, "%s: no row with finite %s and %s%s%s", files[0], gs->x, gs->y[0],
                       a->where ? " where " : "", a->where ? a->where : "");
    st = st ? st : group_panels(f, &g, gs);
    group_free(&g);
    where_free(&w);
    return st;
}

/* ---- sweep, train, rank-k: the grouped kinds ---------------------------------- */

/* The first of the candidate columns that the table at path has. */
static int pick_column(const char *path, const char *const *cand, size_t n, const char **out)
{
    sbw_plot_tsv t;
    int st = sbw_plot_tsv_read(&t, path);
    if (st)
        return st;
    *out = NULL;
    for (size_t i = 0; i < n && !*out; i++)
        if (sbw_plot_tsv_col(&t, cand[i]) >= 0)
            *out = cand[i];
    if (!*out)
        st = SBW_ERROR(SBW_EDATA, "%s: none of the columns %s%s%s (name one with --y)", path,
                       cand[0], n > 1 ? " or " : "", n > 1 ? cand[n - 1] : "");
    sbw_plot_tsv_free(&t);
    return st;
}

/* The y columns: --y, or the default list joined by commas. */
static int y_columns(const sbw_plot_kind_args *a, const char *def, group_spec *gs)
{
    int st = sbw_plot_kind_split(a->y ? a->y : def, &gs->y, &gs->ny);
    if (!st && (gs->ny == 0 || gs->ny > 16))
        st = SBW_ERROR(SBW_EINVAL, "--y: give 1 to 16 columns, not %zu", gs->ny);
    return st;
}

static int kind_sweep(sbw_plot_fig *f, const sbw_plot_kind_args *a)
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
        snprintf(t, sizeof t, "%s against %s%s%s; mean ± sd over seeds", gs.y[0],
                 strcmp(gs.x, "d") ? gs.x : "D", a->where ? ", " : "", a->where ? a->where : "");
        f->title = strdup(t);
        st = f->title ? SBW_OK : NOMEM();
    }
    st = st ? st
            : sbw_plot_fig_note(f, "error bars: sample sd over the rows of equal (%s, %s, %s)",
                                gs.panel, gs.series, gs.x);
    free_list(gs.y, gs.ny);
    return st;
}

static int kind_train(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    static const char *const xc[] = {"step", "epoch"};
    const char *x = a->x;
    int st = x ? SBW_OK : pick_column(a->inputs[0], xc, 2, &x);
    char def[64] = "";
    if (!st && !a->y) {
        /* sbw-fit --log: kl_mean, mode_match; sbw-lm --log: loss, valid_ppl */
        sbw_plot_tsv t;
        st = sbw_plot_tsv_read(&t, a->inputs[0]);
        bool fit = !st && sbw_plot_tsv_col(&t, "kl_mean") >= 0;
        bool lm = !st && sbw_plot_tsv_col(&t, "valid_ppl") >= 0;
        snprintf(def, sizeof def, "%s", fit ? "kl_mean" : lm ? "loss,valid_ppl" : "loss");
        if (fit && sbw_plot_tsv_col(&t, "mode_match") >= 0)
            strcat(def, ",mode_match");
        sbw_plot_tsv_free(&t);
    }
    group_spec gs = {.x = x,
                     .series = a->series,
                     .panel = a->panel,
                     .panel_needed = true,
                     .with = SBW_WITH_LINES};
    st = st ? st : y_columns(a, def, &gs);
    st = st ? st : grouped(f, a, a->inputs, a->ninputs, &gs);
    free_list(gs.y, gs.ny);
    if (!st && !(f->title = strdup("Training curves")))
        st = NOMEM();
    return st;
}

static int kind_rank_k(sbw_plot_fig *f, const sbw_plot_kind_args *a)
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
    free_list(gs.y, gs.ny);
    if (!st && !(f->title = strdup("Rank and fit against the number of mixture components")))
        st = NOMEM();
    return st;
}

/* ---- bound -------------------------------------------------------------------- */

/* Adds the bound table's two curves to p. */
static int bound_curves(sbw_plot_fig_panel *p, const sbw_plot_tsv *t)
{
    static const char *const cols[] = {"lms_bound", "shift_bound"};
    static const char *const labels[] = {"LMS Theorem 1 bound",
                                         "shift-aware bound (row-centred A)"};
    size_t dc, yc;
    int st = sbw_plot_tsv_need(t, "d", &dc);
    for (size_t j = 0; !st && j < 2; j++) {
        sbw_plot_fig_series *s;
        st = sbw_plot_tsv_need(t, cols[j], &yc);
        st = st ? st : sbw_plot_fig_add_series(p, labels[j], SBW_WITH_LINES, (int)j + 1, &s);
        for (size_t r = 0; !st && r < t->nrow; r++) {
            double d, y;
            st = value(t, r, dc, &d);
            st = st ? st : value(t, r, yc, &y);
            st = st ? st : sbw_plot_fig_series_add(s, d, y, NAN);
        }
    }
    return st;
}

/* The fits' fit_error as points, one series per model (or file). */
static int bound_fits(sbw_plot_fig_panel *p, const sbw_plot_kind_args *a, char *const *files,
                      size_t n)
{
    where_clause w;
    keyset keys = {0};
    sbw_plot_fig_series *ser[64];
    size_t made = 0;
    int st = where_parse(a->where, &w);
    for (size_t i = 0; !st && i < n; i++) {
        sbw_plot_tsv t;
        size_t dc, ec;
        char lab[256], key[300];
        st = sbw_plot_tsv_read(&t, files[i]);
        st = st ? st : sbw_plot_tsv_need(&t, "d", &dc);
        st = st ? st : sbw_plot_tsv_need(&t, "fit_error", &ec);
        if (!st)
            stem_of(files[i], lab, sizeof lab);
        long sc = st ? -1 : sbw_plot_tsv_col(&t, a->series ? a->series : "model");
        long kc = st ? -1 : sbw_plot_tsv_col(&t, "k");
        st = st ? st : where_bind(&t, &w);
        for (size_t r = 0; !st && r < t.nrow; r++) {
            size_t si;
            double d, e;
            if (!where_match(&t, r, &w))
                continue;
            series_key(&t, r, sc, kc, lab, key, sizeof key);
            st = key_index(&keys, key, &si);
            if (!st && si >= 64)
                st = SBW_ERROR(SBW_EDATA, "%s: more than 64 series of fits", files[i]);
            if (!st && si == made) {
                char l[320];
                snprintf(l, sizeof l, "%s fits", key);
                st = sbw_plot_fig_add_series(p, l, SBW_WITH_POINTS, (int)si + 3, &ser[made++]);
            }
            st = st ? st : value(&t, r, dc, &d);
            st = st ? st : value(&t, r, ec, &e);
            st = st ? st : sbw_plot_fig_series_add(ser[si], d, e, NAN);
        }
        sbw_plot_tsv_free(&t);
    }
    free_list(keys.s, keys.n);
    where_free(&w);
    return st;
}

static int kind_bound(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    if (a->ninputs != 1)
        return SBW_ERROR(SBW_EINVAL, "bound: give one sbw-bound table (and fits with --fits)");
    sbw_plot_tsv t;
    char **fits = NULL;
    size_t nf = 0;
    int st = sbw_plot_tsv_read(&t, a->inputs[0]);
    if (st)
        return st;
    const char *scale = sbw_plot_tsv_meta(&t, "scale");
    bool rms = scale && !strcmp(scale, "rms");
    sbw_plot_fig_panel *p;
    st = sbw_plot_fig_add_panel(f, NULL, "embedding size d",
                                rms ? "‖A − log Q‖_F / √(NM)" : "‖A − log Q‖_F (Frobenius)", &p);
    st = st ? st : bound_curves(p, &t);
    if (!st && sbw_plot_tsv_col(&t, "fit_error") >= 0)
        st = bound_fits(p, a, a->inputs, 1);
    st = st ? st : sbw_plot_kind_split(a->fits, &fits, &nf);
    st = st ? st : bound_fits(p, a, fits, nf);
    free_list(fits, nf);
    sbw_plot_tsv_free(&t);
    if (!st && !(f->title = strdup("Eckart–Young lower bounds on any Softmax fit, and fits")))
        st = NOMEM();
    return st;
}

/* ---- spectrum ----------------------------------------------------------------- */

typedef struct spectrum {
    size_t k;
    double *index, *sigma, *norm, *pct;
    double tsh; /* NaN: not known */
    char label[256], xnorm[64];
} spectrum;

static void spectrum_free(spectrum *s)
{
    free(s->index);
    free(s->sigma);
    free(s->norm);
    free(s->pct);
}

static int spectrum_alloc(spectrum *s, size_t k)
{
    s->k = k;
    s->index = malloc(k * sizeof(double));
    s->sigma = malloc(k * sizeof(double));
    s->norm = malloc(k * sizeof(double));
    s->pct = malloc(k * sizeof(double));
    for (size_t j = 0; s->index && j < k; j++)
        s->index[j] = (double)j;
    return s->index && s->sigma && s->norm && s->pct ? SBW_OK : NOMEM();
}

/* A .npy of singular values (any shape, in order). */
static int spectrum_npy(const char *path, spectrum *s)
{
    sbw_mat m = {0};
    int st = sbw_npy_load(path, &m, NULL);
    st = st ? st : spectrum_alloc(s, m.rows * m.cols);
    for (size_t i = 0; !st && i < m.rows; i++)
        memcpy(s->sigma + i * m.cols, m.data + i * m.ld, m.cols * sizeof(double));
    if (!st && (st = sbw_plot_shape_cumpct(s->sigma, s->k, s->norm, s->pct)) != 0)
        st = SBW_ERROR(SBW_EDATA, "%s: %s", path, sbw_error_reason()); /* a data error, named */
    snprintf(s->xnorm, sizeof s->xnorm, "σ/σ₀");
    sbw_mat_free(&m);
    return st;
}

/* Column c of t into x (k rows): every value finite (a spectrum has no
 * missing values), SBW_EDATA naming the file, row and column otherwise. */
static int column(const sbw_plot_tsv *t, const char *name, double *x)
{
    size_t c;
    int st = sbw_plot_tsv_need(t, name, &c);
    for (size_t r = 0; !st && r < t->nrow; r++) {
        st = sbw_plot_tsv_num(t, r, c, &x[r]);
        if (!st && !isfinite(x[r]))
            st = SBW_ERROR(SBW_EDATA, "%s: row %zu, column '%s' is %s, not a finite number",
                           t->path, r + 1, name, sbw_plot_tsv_str(t, r, c));
    }
    return st;
}

static void spectrum_label(const sbw_plot_tsv *t, char *buf, size_t cap)
{
    const char *file = sbw_plot_tsv_meta(t, "file"), *c = sbw_plot_tsv_meta(t, "center");
    char stem[128];
    stem_of(file ? file : t->path, stem, sizeof stem);
    const char *what = !c || !strcmp(c, "none") ? "A"
                       : !strcmp(c, "rows")     ? "row-centred A"
                                                : "double-centred A";
    snprintf(buf, cap, "%s: %s", stem, what);
}

/* An sbw-rank --spectrum table: its cum_pct when there, else from sigma. */
static int spectrum_tsv(const char *path, spectrum *s)
{
    sbw_plot_tsv t;
    int st = sbw_plot_tsv_read(&t, path);
    if (st)
        return st;
    bool have = sbw_plot_tsv_col(&t, "normalised") >= 0 && sbw_plot_tsv_col(&t, "cum_pct") >= 0;
    st = spectrum_alloc(s, t.nrow);
    st = st ? st : column(&t, "sigma", s->sigma);
    if (!st && sbw_plot_tsv_col(&t, "index") >= 0)
        st = column(&t, "index", s->index);
    if (!st && have) {
        st = column(&t, "normalised", s->norm);
        st = st ? st : column(&t, "cum_pct", s->pct);
    } else if (!st) {
        st = sbw_plot_shape_cumpct(s->sigma, s->k, s->norm, s->pct);
    }
    const char *n = sbw_plot_tsv_meta(&t, "normalisation"), *tsh = sbw_plot_tsv_meta(&t, "tsh");
    snprintf(s->xnorm, sizeof s->xnorm, "%s",
             !n || !strcmp(n, "sigma/sigma0") || !have ? "σ/σ₀" : n);
    char *end = NULL;
    if (tsh && (s->tsh = strtod(tsh, &end), !isfinite(s->tsh) || end == tsh || *end))
        st = st ? st : SBW_ERROR(SBW_EDATA, "%s: '# tsh=%s' is not a finite threshold", path, tsh);
    spectrum_label(&t, s->label, sizeof s->label);
    sbw_plot_tsv_free(&t);
    return st;
}

/* The NR threshold from an sbw-rank table (its tsh column). */
static int rank_tsh(const char *path, double *tsh)
{
    sbw_plot_tsv t;
    size_t c;
    int st = sbw_plot_tsv_read(&t, path);
    st = st ? st : sbw_plot_tsv_need(&t, "tsh", &c);
    st = st ? st : sbw_plot_tsv_num(&t, 0, c, tsh);
    if (!st && !isfinite(*tsh))
        st = SBW_ERROR(SBW_EDATA, "%s: row 1, column 'tsh' is %s, not a finite threshold", path,
                       sbw_plot_tsv_str(&t, 0, c));
    sbw_plot_tsv_free(&t);
    return st;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static int spectrum_add(sbw_plot_fig_panel *cum, sbw_plot_fig_panel *sig, const spectrum *s,
                        int style)
{
    sbw_plot_fig_series *a, *b;
    int st = sbw_plot_fig_add_series(cum, s->label, SBW_WITH_STEPS, style, &a);
    st = st ? st : sbw_plot_fig_add_series(sig, s->label, SBW_WITH_LINES, style, &b);
    for (size_t j = s->k; !st && j-- > 0;) /* ascending normalised values */
        st = sbw_plot_fig_series_add(a, s->norm[j], s->pct[j], NAN);
    for (size_t j = 0; !st && j < s->k; j++)
        st = sbw_plot_fig_series_add(b, s->index[j], s->sigma[j], NAN);
    if (!st && isfinite(s->tsh)) {
        char l[300], e[40];
        snprintf(l, sizeof l, "NR threshold, %s", s->label);
        for (int prec = 1; prec <= 17; prec++) { /* the shortest text that reads back exactly, */
            snprintf(e, sizeof e, "%.*g", prec, s->tsh); /* as the table that gave it */
            if (strtod(e, NULL) == s->tsh)
                break;
        }
        sbw_plot_fig_series *t;
        st = sbw_plot_fig_add_series(sig, l, SBW_WITH_REFERENCE, style, &t);
        st = st ? st : sbw_plot_fig_series_func(t, e);
    }
    return st;
}

static int kind_spectrum(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    char **rank = NULL;
    size_t nr = 0;
    sbw_plot_fig_panel *cum = NULL, *sig = NULL;
    int st = sbw_plot_kind_split(a->rank, &rank, &nr);
    if (!st && nr && nr != a->ninputs)
        st = SBW_ERROR(SBW_EINVAL, "--rank: %zu tables for %zu spectra", nr, a->ninputs);
    for (size_t i = 0; !st && i < a->ninputs; i++) {
        spectrum s = {.tsh = NAN};
        const char *in = a->inputs[i];
        if (ends_with(in, ".npy")) {
            st = spectrum_npy(in, &s);
            stem_of(in, s.label, sizeof s.label);
        } else {
            st = spectrum_tsv(in, &s);
        }
        if (!st && nr)
            st = rank_tsh(rank[i], &s.tsh);
        char lab[256];
        st = st ? st : label_of(a, i, s.label, lab, sizeof lab);
        if (!st)
            memcpy(s.label, lab, sizeof lab);
        if (!st && !cum) {
            char xl[128];
            snprintf(xl, sizeof xl, "normalised singular value (%s)", s.xnorm);
            st = sbw_plot_fig_add_panel(f, "Cumulative spectrum (cf. MoS Figure 1)", xl,
                                        "% of singular values ≤ x", &cum);
            st = st ? st
                    : sbw_plot_fig_add_panel(f, "Singular values", "index j",
                                             "singular value σ (log scale)", &sig);
            if (!st) {
                /* Inside: bottom right of the cumulative curves, and
                 * between the spectra and their thresholds.  With more than
                 * two spectra (low-rank fits among them, or --logx) lines
                 * cross both places, so the legends go below the panels. */
                bool inside = a->ninputs <= 2;
                cum->key = inside ? "bottom right" : NULL;
                sig->logy = true;
                sig->key = inside ? "center" : NULL;
            }
        }
        st = st ? st : spectrum_add(cum, sig, &s, (int)i + 1);
        spectrum_free(&s);
    }
    free_list(rank, nr);
    if (!st && !(f->title = strdup("Singular spectra")))
        st = NOMEM();
    return st;
}

/* ---- alpha -------------------------------------------------------------------- */

/* The language an sbw-synth table names: "# output=" as written, or
 * beside the table when that path does not open from here. */
static int synth_reader(const sbw_plot_tsv *t, sbw_npy_reader **r)
{
    const char *out = sbw_plot_tsv_meta(t, "output");
    if (!out || !*out || !strcmp(out, "-"))
        return SBW_ERROR(SBW_EDATA,
                         "%s: no '# output=' file (give sbw-synth's table of a "
                         "language written with -o FILE)",
                         t->path);
    FILE *probe = fopen(out, "rb");
    if (probe) {
        fclose(probe);
        return sbw_check_open(r, out, SBW_SHAPE_MATRIX);
    }
    const char *slash = strrchr(t->path, '/'), *base = strrchr(out, '/');
    char path[4096];
    snprintf(path, sizeof path, "%.*s%s", slash ? (int)(slash - t->path + 1) : 0, t->path,
             base ? base + 1 : out);
    return sbw_check_open(r, path, SBW_SHAPE_MATRIX);
}

typedef struct alpha_lang {
    double alpha, mean_h, sd_h;
    char m[32];
} alpha_lang;

/* Sorted probabilities of the first row into s; entropies of the first
 * rows rows into l. */
static int alpha_read(const sbw_plot_tsv *t, size_t rows, sbw_plot_fig_series *s, alpha_lang *l)
{
    sbw_npy_reader *r = NULL;
    int st = synth_reader(t, &r);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    size_t m = in->cols, n = rows < in->rows ? rows : in->rows;
    double *row = malloc(m * sizeof *row), *p = malloc(m * sizeof *p), *h = malloc(n * sizeof *h);
    st = row && p && h ? SBW_OK : NOMEM();
    for (size_t i = 0; !st && i < n; i++) {
        st = sbw_npy_read_rows(r, row, 1, m);
        if (!st && !sbw_check_all_finite(row, m))
            st = SBW_ERROR(SBW_EDATA, "%s: row %zu has a non-finite entry", sbw_npy_reader_path(r),
                           i);
        if (!st)
            h[i] = sbw_num_entropy(row, m);
        if (!st && i == 0) {
            st = sbw_plot_shape_sorted_probs(row, m, p);
            for (size_t j = 0; !st && j < m; j++)
                st = sbw_plot_fig_series_add(s, (double)(j + 1), p[j], NAN);
        }
    }
    size_t c;
    if (!st)
        sbw_plot_shape_mean_sd(h, n, &l->mean_h, &l->sd_h, &c);
    free(row);
    free(p);
    free(h);
    sbw_npy_close(r);
    return st;
}

static int by_alpha(const void *a, const void *b)
{
    double x = ((const alpha_lang *)a)->alpha, y = ((const alpha_lang *)b)->alpha;
    return (x > y) - (x < y);
}

/* Entropy against alpha, one series per M. */
static int alpha_entropy(sbw_plot_fig_panel *p, alpha_lang *l, size_t n)
{
    keyset ms = {0};
    size_t idx;
    int st = SBW_OK;
    qsort(l, n, sizeof *l, by_alpha);
    for (size_t i = 0; !st && i < n; i++)
        st = key_index(&ms, l[i].m, &idx);
    for (size_t k = 0; !st && k < ms.n; k++) {
        sbw_plot_fig_series *s;
        char lab[64];
        snprintf(lab, sizeof lab, "M = %s", ms.s[k]);
        st = sbw_plot_fig_add_series(p, lab, SBW_WITH_LINESPOINTS, (int)k + 1, &s);
        for (size_t i = 0; !st && i < n; i++)
            if (!strcmp(l[i].m, ms.s[k]))
                st = sbw_plot_fig_series_add(s, l[i].alpha, l[i].mean_h, l[i].sd_h);
    }
    free_list(ms.s, ms.n);
    return st;
}

static int kind_alpha(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    size_t rows = a->rows ? a->rows : 20;
    alpha_lang *l = calloc(a->ninputs, sizeof *l);
    sbw_plot_fig_panel *pp, *ph;
    int st = l ? SBW_OK : NOMEM();
    st = st ? st
            : sbw_plot_fig_add_panel(f, "One row of each language", "rank of the word in the row",
                                     "probability (sorted)", &pp);
    st = st ? st
            : sbw_plot_fig_add_panel(f, "Row entropy (mean ± sd over rows)", "Dirichlet α",
                                     "entropy of a row (nats)", &ph);
    if (!st) {
        pp->logx = pp->logy = ph->logx = true;
        pp->ymin = 1e-16; /* smaller probabilities (alpha = 0.01 reaches 1e-200) leave the axis */
        pp->ymax = 1;
        ph->key = "bottom right";
    }
    for (size_t i = 0; !st && i < a->ninputs; i++) {
        sbw_plot_tsv t;
        st = sbw_plot_tsv_read(&t, a->inputs[i]);
        const char *al = st ? NULL : sbw_plot_tsv_meta(&t, "alpha");
        const char *m = st ? NULL : sbw_plot_tsv_meta(&t, "m");
        if (!st && (!al || !m))
            st = SBW_ERROR(SBW_EDATA,
                           "%s: no '# alpha=' and '# m=' lines (give sbw-synth "
                           "dirichlet's table)",
                           a->inputs[i]);
        char fb[128], lab[256];
        snprintf(fb, sizeof fb, "α = %s, M = %s", al ? al : "", m ? m : "");
        st = st ? st : label_of(a, i, fb, lab, sizeof lab);
        sbw_plot_fig_series *s;
        st = st ? st : sbw_plot_fig_add_series(pp, lab, SBW_WITH_LINES, (int)i + 1, &s);
        if (!st) {
            l[i].alpha = strtod(al, NULL);
            snprintf(l[i].m, sizeof l[i].m, "%s", m);
        }
        st = st ? st : alpha_read(&t, rows, s, &l[i]);
        sbw_plot_tsv_free(&t);
    }
    st = st ? st : alpha_entropy(ph, l, a->ninputs);
    st = st ? st
            : sbw_plot_fig_note(f,
                                "entropy: mean and sd over the first %zu rows; the "
                                "left panel's y axis stops at 1e-16",
                                rows);
    free(l);
    if (!st && !(f->title = strdup("Dirichlet(α) languages (cf. LMS Figure 5)")))
        st = NOMEM();
    return st;
}

/* ---- monotone ----------------------------------------------------------------- */

/* Loads DIR/name.npy as a vector into a new array; every entry must be
 * finite, and positive when positive (the saved softplus'd parameters):
 * SBW_EDATA naming the file and the entry otherwise. */
static int load_vec(const char *dir, const char *name, bool positive, double **v, size_t *n)
{
    char path[4096];
    sbw_mat m = {0};
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    int st = sbw_npy_load(path, &m, NULL);
    if (!st && m.cols != 1 && m.rows != 1)
        st = SBW_ERROR(SBW_ESHAPE, "%s: %zu x %zu, not a vector", path, m.rows, m.cols);
    *n = m.rows * m.cols;
    *v = st ? NULL : malloc(*n * sizeof **v);
    if (!st && !*v)
        st = NOMEM();
    for (size_t i = 0; !st && i < m.rows; i++)
        memcpy(*v + i * m.cols, m.data + i * m.ld, m.cols * sizeof(double));
    for (size_t i = 0; !st && i < *n; i++)
        if (!isfinite((*v)[i]) || (positive && !((*v)[i] > 0)))
            st = SBW_ERROR(SBW_EDATA, "%s: entry %zu is %g, not %s", path, i + 1, (*v)[i],
                           positive ? "a positive number (the head saves softplus'd values)"
                                    : "finite");
    if (st) {
        free(*v);
        *v = NULL;
    }
    sbw_mat_free(&m);
    return st;
}

/* f<i>(x) of an LMS head: sum_j v_j sigma(u_j x + c_j) [+ lambda x].
 * gnuplot's "sum [j=a:b]" takes everything after it: parenthesised. */
static int monotone_lms(sbw_plot_fig *f, const char *dir, const sbw_plot_tsv *t, size_t i)
{
    double *u = NULL, *v = NULL, *c = NULL, *lam = NULL;
    size_t nu = 0, nv = 0, nc = 0, nl = 0;
    const char *linear = sbw_plot_tsv_meta(t, "linear");
    int st = load_vec(dir, "lms_u", true, &u, &nu);
    st = st ? st : load_vec(dir, "lms_v", true, &v, &nv);
    st = st ? st : load_vec(dir, "lms_c", false, &c, &nc);
    if (!st && linear && !strcmp(linear, "true"))
        st = load_vec(dir, "lms_lambda", true, &lam, &nl);
    if (!st && (nv != nu || nc != nu || nu == 0))
        st = SBW_ERROR(SBW_ESHAPE, "%s: lms_u, lms_v, lms_c have %zu, %zu, %zu entries", dir, nu,
                       nv, nc);
    char name[32];
    snprintf(name, sizeof name, "u%zu", i);
    st = st ? st : sbw_plot_fig_def_array(f, name, u, nu);
    name[0] = 'v';
    st = st ? st : sbw_plot_fig_def_array(f, name, v, nu);
    name[0] = 'c';
    st = st ? st : sbw_plot_fig_def_array(f, name, c, nu);
    snprintf(name, sizeof name, "lambda%zu", i);
    st = st ? st : sbw_plot_fig_def_num(f, name, lam && nl ? lam[0] : 0.0);
    st = st ? st
            : sbw_plot_fig_def(f,
                               "f%zu(x) = (sum [j=1:%zu] v%zu[j]*sg(u%zu[j]*x + c%zu[j])) + "
                               "lambda%zu*x",
                               i, nu, i, i, i, i);
    free(u);
    free(v);
    free(c);
    free(lam);
    return st;
}

/* f<i>(x) of a PLIF head: slopes s_j on K equal intervals of [-T, T],
 * f(-T) = 0, extended linearly with the end slopes. */
static int monotone_plif(sbw_plot_fig *f, const char *dir, const sbw_plot_tsv *t, size_t i,
                         double *tmax)
{
    double *s = NULL;
    size_t k = 0;
    const char *tt = sbw_plot_tsv_meta(t, "plif_t");
    char *end = NULL;
    double T = tt ? strtod(tt, &end) : NAN;
    int st = load_vec(dir, "plif_slope", true, &s, &k);
    if (!st && (!tt || !(T > 0) || !isfinite(T) || *end))
        st = SBW_ERROR(SBW_EDATA, "%s/params.tsv: '# plif_t=%s' is not a positive finite number",
                       dir, tt ? tt : "");
    if (!st && k == 0)
        st = SBW_ERROR(SBW_ESHAPE, "%s/plif_slope.npy: no slopes", dir);
    char name[32];
    snprintf(name, sizeof name, "s%zu", i);
    st = st ? st : sbw_plot_fig_def_array(f, name, s, k);
    snprintf(name, sizeof name, "T%zu", i);
    st = st ? st : sbw_plot_fig_def_num(f, name, T);
    st = st ? st : sbw_plot_fig_def(f, "w%zu = 2.0*T%zu/%zu", i, i, k);
    st = st ? st
            : sbw_plot_fig_def(f,
                               "f%zu(x) = (sum [j=1:%zu] s%zu[j]*clamp(x + T%zu - (j-1)*w%zu, "
                               "w%zu)) + (x < -T%zu ? s%zu[1]*(x + T%zu) : 0) + (x > T%zu ? "
                               "s%zu[%zu]*(x - T%zu) : 0)",
                               i, k, i, i, i, i, i, i, i, i, i, k, i);
    if (!st && T > *tmax)
        *tmax = T;
    free(s);
    return st;
}

static int monotone_one(sbw_plot_fig *f, sbw_plot_fig_panel *p, const sbw_plot_kind_args *a,
                        size_t i, double *tmax, bool *lms)
{
    const char *dir = a->inputs[i];
    char path[4096], fb[256], lab[256], e[32], name[128];
    stem_of(dir, name, sizeof name);
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    sbw_plot_tsv t;
    int st = sbw_plot_tsv_read(&t, path);
    const char *model = st ? NULL : sbw_plot_tsv_meta(&t, "model");
    const char *k = st ? NULL : sbw_plot_tsv_meta(&t, "k");
    const char *kn = st ? NULL : sbw_plot_tsv_meta(&t, "knots");
    if (!st && !model)
        st = SBW_ERROR(SBW_EDATA,
                       "%s: no '# model=' line (an sbw-fit --save or sbw-lm eval --export folder?)",
                       path);
    if (!st && !strcmp(model, "lms")) {
        *lms = true;
        st = monotone_lms(f, dir, &t, i + 1);
        snprintf(fb, sizeof fb, "LMS K=%s (%s)", k ? k : "?", name);
    } else if (!st && (!strcmp(model, "plif") || !strcmp(model, "mos+plif"))) {
        st = monotone_plif(f, dir, &t, i + 1, tmax);
        snprintf(fb, sizeof fb, "%s, %s intervals (%s)", model, kn ? kn : "?", name);
    } else if (!st) {
        st = SBW_ERROR(SBW_EDATA,
                       "%s: model '%s' has no learned monotone function (lms, plif, "
                       "mos+plif do)",
                       dir, model);
    }
    sbw_plot_tsv_free(&t);
    st = st ? st : label_of(a, i, fb, lab, sizeof lab);
    sbw_plot_fig_series *s;
    snprintf(e, sizeof e, "f%zu(x)", i + 1);
    st = st ? st : sbw_plot_fig_add_series(p, lab, SBW_WITH_LINES, (int)i + 1, &s);
    return st ? st : sbw_plot_fig_series_func(s, e);
}

static int kind_monotone(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    sbw_plot_fig_panel *p;
    double tmax = 0;
    bool lms = false;
    int st = sbw_plot_fig_add_panel(f, NULL, "logit x", "f(x)", &p);
    st = st ? st : sbw_plot_fig_def(f, "sg(t) = t >= 0 ? 1/(1 + exp(-t)) : exp(t)/(1 + exp(t))");
    st = st ? st : sbw_plot_fig_def(f, "clamp(t, w) = t < 0 ? 0 : (t > w ? w : t)");
    for (size_t i = 0; !st && i < a->ninputs; i++)
        st = monotone_one(f, p, a, i, &tmax, &lms);
    sbw_plot_fig_series *id;
    st = st ? st : sbw_plot_fig_add_series(p, "identity f(x) = x", SBW_WITH_REFERENCE, 0, &id);
    st = st ? st : sbw_plot_fig_series_func(id, "x");
    double half = tmax > 0 ? 1.25 * tmax : 10;
    if (!st) {
        p->xmin = isfinite(a->xmin) ? a->xmin : -half;
        p->xmax = isfinite(a->xmax) ? a->xmax : half;
        p->key = "top left";
    }
    st = st ? st
            : sbw_plot_fig_note(f,
                                "f is drawn from the saved positive parameters (lms_u, "
                                "lms_v, lms_c, lms_lambda; plif_slope, plif_t) by the "
                                "formulas of models/sbw_head.h; its additive constant "
                                "cancels in the softmax%s",
                                lms ? "" : "; PLIF: f(-T) = 0");
    if (!st && !(f->title = strdup("Learned monotone functions (cf. LMS Figure 4)")))
        st = NOMEM();
    return st;
}

/* ---- the dispatcher ----------------------------------------------------------- */

int sbw_plot_kind_build(const char *kind, const sbw_plot_kind_args *a, sbw_plot_fig **f)
{
    typedef int (*builder)(sbw_plot_fig *, const sbw_plot_kind_args *);
    static const builder fn[] = {kind_spectrum, kind_sweep,    kind_alpha, kind_bound,
                                 kind_train,    kind_monotone, kind_rank_k};
    *f = NULL;
    size_t i = 0;
    while (i < NKINDS && strcmp(kind, kinds[i]) != 0)
        i++;
    if (i == NKINDS)
        return SBW_ERROR(SBW_EINVAL, "unknown kind '%s' (kinds: %s)", kind, sbw_plot_kind_names());
    if (!a->ninputs)
        return SBW_ERROR(SBW_EINVAL, "%s: no input given", kind);
    char lab[8];
    int st = label_of(a, 0, "", lab, sizeof lab); /* the count, before any reading */
    st = st ? st : sbw_plot_fig_alloc(f, kind);
    st = st ? st : fn[i](*f, a);
    if (st) {
        sbw_plot_fig_free(*f);
        *f = NULL;
    }
    return st;
}
