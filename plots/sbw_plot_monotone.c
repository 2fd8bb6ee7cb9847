/* sbw_plot_monotone.c -- the monotone kind: learned f of LMS/PLIF heads. */
#include "sbw_plot_monotone.h"
#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_plot_sel.h"
#include "sbw_plot_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

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
    sbw_plot_sel_stem(dir, name, sizeof name);
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
    st = st ? st : sbw_plot_sel_label_of(a, i, fb, lab, sizeof lab);
    sbw_plot_fig_series *s;
    snprintf(e, sizeof e, "f%zu(x)", i + 1);
    st = st ? st : sbw_plot_fig_add_series(p, lab, SBW_WITH_LINES, (int)i + 1, &s);
    return st ? st : sbw_plot_fig_series_func(s, e);
}

int sbw_plot_monotone_build(sbw_plot_fig *f, const sbw_plot_kind_args *a)
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
