/* sbw_plot_bound.c -- the bound kind: an sbw-bound table and fits. */
#include "sbw_plot_bound.h"
#include "sbw_error.h"
#include "sbw_plot_sel.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

/* ---- bound -------------------------------------------------------------------- */

/* Adds the bound table's two curves to p. */
static int bound_curves(sbw_plot_fig_panel *p, const sbw_tsv *t)
{
    static const char *const cols[] = {"lms_bound", "shift_bound"};
    static const char *const labels[] = {"LMS Theorem 1 bound",
                                         "shift-aware bound (row-centred A)"};
    size_t dc, yc;
    int st = sbw_tsv_need(t, "d", &dc);
    for (size_t j = 0; !st && j < 2; j++) {
        sbw_plot_fig_series *s;
        st = sbw_tsv_need(t, cols[j], &yc);
        st = st ? st : sbw_plot_fig_add_series(p, labels[j], SBW_WITH_LINES, (int)j + 1, &s);
        if (!st)
            s->plain = true; /* "LMS Theorem 1" names a paper, not the LMS head */
        for (size_t r = 0; !st && r < t->nrow; r++) {
            double d, y;
            st = sbw_plot_sel_value(t, r, dc, &d);
            st = st ? st : sbw_plot_sel_value(t, r, yc, &y);
            st = st ? st : sbw_plot_fig_series_add(s, d, y, NAN);
        }
    }
    return st;
}

/* The fits' fit_error as points, one series per model (or file). */
static int bound_fits(sbw_plot_fig_panel *p, const sbw_plot_kind_args *a, char *const *files,
                      size_t n)
{
    sbw_plot_sel_where w;
    sbw_plot_sel_keys keys = {0};
    sbw_plot_fig_series *ser[64];
    size_t made = 0;
    int st = sbw_plot_sel_where_parse(a->where, &w);
    for (size_t i = 0; !st && i < n; i++) {
        sbw_tsv t;
        size_t dc, ec;
        char lab[256], key[300];
        st = sbw_tsv_read(&t, files[i]);
        st = st ? st : sbw_tsv_need(&t, "d", &dc);
        st = st ? st : sbw_tsv_need(&t, "fit_error", &ec);
        if (!st)
            sbw_plot_sel_stem(files[i], lab, sizeof lab);
        long sc = st ? -1 : sbw_tsv_col(&t, a->series ? a->series : "model");
        long kc = st ? -1 : sbw_tsv_col(&t, "k");
        st = st ? st : sbw_plot_sel_where_bind(&t, &w);
        for (size_t r = 0; !st && r < t.nrow; r++) {
            size_t si;
            double d, e;
            if (!sbw_plot_sel_where_match(&t, r, &w))
                continue;
            sbw_plot_sel_series_key(&t, r, sc, kc, lab, key, sizeof key);
            st = sbw_plot_sel_key(&keys, key, &si);
            if (!st && si >= 64)
                st = SBW_ERROR(SBW_EDATA, "%s: more than 64 series of fits", files[i]);
            if (!st && si == made) {
                char l[320];
                snprintf(l, sizeof l, "%s fits", key);
                st = sbw_plot_fig_add_series(p, l, SBW_WITH_POINTS, (int)si + 3, &ser[made++]);
            }
            st = st ? st : sbw_plot_sel_value(&t, r, dc, &d);
            st = st ? st : sbw_plot_sel_value(&t, r, ec, &e);
            st = st ? st : sbw_plot_fig_series_add(ser[si], d, e, NAN);
        }
        sbw_tsv_free(&t);
    }
    sbw_plot_sel_free_list(keys.s, keys.n);
    sbw_plot_sel_where_free(&w);
    return st;
}

int sbw_plot_bound_build(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    if (a->ninputs != 1)
        return SBW_ERROR(SBW_EINVAL, "bound: give one sbw-bound table (and fits with --fits)");
    sbw_tsv t;
    char **fits = NULL;
    size_t nf = 0;
    int st = sbw_tsv_read(&t, a->inputs[0]);
    if (st)
        return st;
    const char *scale = sbw_tsv_meta(&t, "scale");
    bool rms = scale && !strcmp(scale, "rms");
    sbw_plot_fig_panel *p;
    st = sbw_plot_fig_add_panel(f, NULL, "embedding size d",
                                rms ? "‖A − log Q‖_F / √(NM)" : "‖A − log Q‖_F (Frobenius)", &p);
    st = st ? st : bound_curves(p, &t);
    if (!st && sbw_tsv_col(&t, "fit_error") >= 0)
        st = bound_fits(p, a, a->inputs, 1);
    st = st ? st : sbw_plot_sel_split(a->fits, &fits, &nf);
    st = st ? st : bound_fits(p, a, fits, nf);
    sbw_plot_sel_free_list(fits, nf);
    sbw_tsv_free(&t);
    if (!st && !(f->title = strdup("Eckart–Young lower bounds on any Softmax fit, and fits")))
        st = NOMEM();
    return st;
}
