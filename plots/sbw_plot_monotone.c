/* sbw_plot_monotone.c -- the monotone kind: the learned f of LMS and PLIF
 * heads, drawn from the map.tsv that sbw_head_io writes beside params.tsv
 * (f evaluated on a grid by the head's own kernels).  Nothing is
 * evaluated here. */
#include "sbw_plot_monotone.h"

#include "sbw_error.h"
#include "sbw_plot_sel.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

/* Whether model has a learned monotone function. */
static bool has_map(const char *model)
{
    return !strcmp(model, "lms") || !strcmp(model, "plif") || !strcmp(model, "mos+plif");
}

/* DIR/map.tsv into t.  A folder with params.tsv but no map.tsv is
 * SBW_EDATA: a head without a learned f (params.tsv's model says), or a
 * save older than map.tsv (saying how to get one). */
static int map_read(const char *dir, sbw_tsv *t)
{
    char path[4096], params[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s/map.tsv", dir);
    snprintf(params, sizeof params, "%s/params.tsv", dir);
    if (stat(path, &sb) == 0 || stat(params, &sb) != 0)
        return sbw_tsv_read(t, path);
    int st = sbw_tsv_read(t, params); /* for its model; unreadable: as an old save */
    const char *model = st ? NULL : sbw_tsv_meta(t, "model");
    if (model && !has_map(model))
        st = SBW_ERROR(SBW_EDATA,
                       "%s: model '%s' has no learned monotone function (lms, plif, "
                       "mos+plif do)",
                       dir, model);
    else
        st = SBW_ERROR(SBW_EDATA,
                       "%s: no map.tsv beside params.tsv (saved before sbw-fit --save and "
                       "sbw-lm eval --export wrote the learned f as data): write it from the "
                       "folder with sbw-fit --map %s, or save the head again (sbw-fit ... "
                       "--save DIR, or sbw-lm eval --ckpt CKPT --export DIR)",
                       dir, dir);
    sbw_tsv_free(t);
    return st;
}

/* The legend of map.tsv's head; *plif_t its knots' span (0 for LMS). */
static int map_label(const sbw_tsv *t, const char *dir, char *buf, size_t cap, double *plif_t)
{
    const char *model = sbw_tsv_meta(t, "model"), *k = sbw_tsv_meta(t, "k"),
               *kn = sbw_tsv_meta(t, "knots"), *tt = sbw_tsv_meta(t, "plif_t");
    char name[128];
    sbw_plot_sel_stem(dir, name, sizeof name);
    *plif_t = 0;
    if (!model)
        return SBW_ERROR(SBW_EDATA,
                         "%s: no '# model=' line (an sbw-fit --save or sbw-lm eval --export "
                         "folder's map.tsv?)",
                         t->path);
    if (!strcmp(model, "lms")) {
        snprintf(buf, cap, "LMS K=%s (%s)", k ? k : "?", name);
        return SBW_OK;
    }
    if (!has_map(model))
        return SBW_ERROR(SBW_EDATA,
                         "%s: model '%s' has no learned monotone function (lms, plif, "
                         "mos+plif do)",
                         t->path, model);
    *plif_t = NAN;
    if (!tt || !sbw_tsv_parse(tt, plif_t) || !(*plif_t > 0) || !isfinite(*plif_t))
        return SBW_ERROR(SBW_EDATA, "%s: '# plif_t=%s' is not a positive finite number", t->path,
                         tt ? tt : "");
    snprintf(buf, cap, "%s, %s intervals (%s)", model, kn ? kn : "?", name);
    return SBW_OK;
}

/* The points of map.tsv (columns x and f, every value finite) into s. */
static int map_points(const sbw_tsv *t, sbw_plot_fig_series *s)
{
    double *x = malloc((t->nrow + 1) * 2 * sizeof *x), *y = x ? x + t->nrow + 1 : NULL;
    int st = x ? SBW_OK : NOMEM();
    if (!st && t->nrow < 2)
        st = SBW_ERROR(SBW_EDATA, "%s: %zu rows, not a map on a grid", t->path, t->nrow);
    st = st ? st : sbw_plot_sel_column(t, "x", x);
    st = st ? st : sbw_plot_sel_column(t, "f", y);
    for (size_t r = 0; !st && r < t->nrow; r++)
        st = sbw_plot_fig_series_add(s, x[r], y[r], NAN);
    free(x);
    return st;
}

static int monotone_one(sbw_plot_fig_panel *p, const sbw_plot_kind_args *a, size_t i, double *tmax)
{
    char fb[256], lab[256];
    double t_i;
    sbw_tsv t;
    int st = map_read(a->inputs[i], &t);
    if (st)
        return st;
    st = map_label(&t, a->inputs[i], fb, sizeof fb, &t_i);
    st = st ? st : sbw_plot_sel_label_of(a, i, fb, lab, sizeof lab);
    sbw_plot_fig_series *s;
    st = st ? st : sbw_plot_fig_add_series(p, lab, SBW_WITH_LINES, (int)i + 1, &s);
    st = st ? st : map_points(&t, s);
    if (!st && t_i > *tmax)
        *tmax = t_i;
    sbw_tsv_free(&t);
    return st;
}

int sbw_plot_monotone_build(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    sbw_plot_fig_panel *p;
    double tmax = 0;
    int st = sbw_plot_fig_add_panel(f, NULL, "logit x", "f(x)", &p);
    for (size_t i = 0; !st && i < a->ninputs; i++)
        st = monotone_one(p, a, i, &tmax);
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
                                "f is drawn from each folder's map.tsv: the head's kernels "
                                "evaluated on a grid (models/sbw_head_io.h); its additive "
                                "constant cancels in the softmax%s",
                                tmax > 0 ? "; PLIF: f(-T) = 0" : "");
    if (!st && !(f->title = strdup("Learned monotone functions (cf. LMS Figure 4)")))
        st = NOMEM();
    return st;
}
