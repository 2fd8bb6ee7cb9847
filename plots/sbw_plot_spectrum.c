/* sbw_plot_spectrum.c -- the spectrum kind: MoS Figure 1 and sigma by index. */
#include "sbw_plot_spectrum.h"
#include "sbw_error.h"
#include "sbw_plot_sel.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

/* ---- spectrum ----------------------------------------------------------------- */

typedef struct spectrum {
    size_t k;
    double *index, *sigma, *norm, *pct;
    double tsh; /* NaN: not known */
    bool skip0; /* --norm sigma1: sigma_0 left out of the cumulative curve */
    char label[256], xnorm[96];
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

static void spectrum_label(const sbw_tsv *t, char *buf, size_t cap)
{
    const char *file = sbw_tsv_meta(t, "file"), *c = sbw_tsv_meta(t, "center");
    char stem[128];
    sbw_plot_sel_stem(file ? file : t->path, stem, sizeof stem);
    const char *what = !c || !strcmp(c, "none") ? "A"
                       : !strcmp(c, "rows")     ? "row-centred A"
                                                : "double-centred A";
    snprintf(buf, cap, "%s: %s", stem, what);
}

/* An sbw-rank --spectrum table: sigma, and MoS Figure 1's curve as
 * sbw-rank computed it (normalised, cum_pct: sbw_rank_normalise). */
static int spectrum_tsv(const char *path, spectrum *s)
{
    sbw_tsv t;
    int st = sbw_tsv_read(&t, path);
    if (st)
        return st;
    st = spectrum_alloc(s, t.nrow);
    st = st ? st : sbw_plot_sel_column(&t, "sigma", s->sigma);
    if (!st && (sbw_tsv_col(&t, "normalised") < 0 || sbw_tsv_col(&t, "cum_pct") < 0))
        st = SBW_ERROR(SBW_EDATA,
                       "%s: no 'normalised' and 'cum_pct' columns (give the table sbw-rank "
                       "--spectrum writes)",
                       path);
    if (!st && sbw_tsv_col(&t, "index") >= 0)
        st = sbw_plot_sel_column(&t, "index", s->index);
    st = st ? st : sbw_plot_sel_column(&t, "normalised", s->norm);
    st = st ? st : sbw_plot_sel_column(&t, "cum_pct", s->pct);
    const char *n = sbw_tsv_meta(&t, "normalisation"), *tsh = sbw_tsv_meta(&t, "tsh");
    snprintf(s->xnorm, sizeof s->xnorm, "%s", !n || !strcmp(n, "sigma/sigma0") ? "σ/σ₀" : n);
    if (tsh && (!sbw_tsv_parse(tsh, &s->tsh) || !isfinite(s->tsh)))
        st = st ? st : SBW_ERROR(SBW_EDATA, "%s: '# tsh=%s' is not a finite threshold", path, tsh);
    spectrum_label(&t, s->label, sizeof s->label);
    sbw_tsv_free(&t);
    return st;
}

/* The NR threshold from an sbw-rank table (its tsh column). */
static int rank_tsh(const char *path, double *tsh)
{
    sbw_tsv t;
    size_t c;
    int st = sbw_tsv_read(&t, path);
    st = st ? st : sbw_tsv_need(&t, "tsh", &c);
    st = st ? st : sbw_tsv_num(&t, 0, c, tsh);
    if (!st && !isfinite(*tsh))
        st = SBW_ERROR(SBW_EDATA, "%s: row 1, column 'tsh' is %s, not a finite threshold", path,
                       sbw_tsv_str(&t, 0, c));
    sbw_tsv_free(&t);
    return st;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* The --norm sigma1 view (a language model's log P, whose σ₀ -- the
 * direction of the rows' common offset -- dwarfs the rest, so that every
 * other σ/σ₀ sits near 0): the values σⱼ/σ₁ for j >= 1 in place of
 * sbw-rank's normalised column, σ₀ left out; the percentages stay
 * sbw-rank's cum_pct (the share of values <= σⱼ does not change with the
 * unit).  A change of the axis's unit, the one division in plots/; what
 * is drawn is in the .dat.  Errors: SBW_EDATA (fewer than two values, or
 * σ₁ not positive). */
static int spectrum_sigma1(spectrum *s, const char *path)
{
    if (s->k < 2 || !(s->sigma[1] > 0))
        return SBW_ERROR(SBW_EDATA,
                         "%s: --norm sigma1 needs a second singular value above 0 (the table "
                         "has %zu values%s)",
                         path, s->k, s->k >= 2 ? ", sigma_1 = 0" : "");
    for (size_t j = 0; j < s->k; j++)
        s->norm[j] = s->sigma[j] / s->sigma[1];
    s->skip0 = true;
    return SBW_OK;
}

static int spectrum_add(sbw_plot_fig_panel *cum, sbw_plot_fig_panel *sig, const spectrum *s,
                        int style)
{
    sbw_plot_fig_series *a, *b;
    int st = sbw_plot_fig_add_series(cum, s->label, SBW_WITH_STEPS, style, &a);
    st = st ? st : sbw_plot_fig_add_series(sig, s->label, SBW_WITH_LINES, style, &b);
    for (size_t j = s->k; !st && j-- > (s->skip0 ? 1 : 0);) /* ascending normalised values */
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

int sbw_plot_spectrum_build(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    char **rank = NULL;
    size_t nr = 0;
    sbw_plot_fig_panel *cum = NULL, *sig = NULL;
    int st = sbw_plot_sel_split(a->rank, &rank, &nr);
    if (!st && nr && nr != a->ninputs)
        st = SBW_ERROR(SBW_EINVAL, "--rank: %zu tables for %zu spectra", nr, a->ninputs);
    for (size_t i = 0; !st && i < a->ninputs; i++) {
        spectrum s = {.tsh = NAN};
        const char *in = a->inputs[i];
        if (ends_with(in, ".npy"))
            st = SBW_ERROR(SBW_EDATA,
                           "%s: sbw-plot draws spectra from sbw-rank --spectrum's table (its "
                           "normalised and cum_pct columns), not from a .npy of values: run "
                           "sbw-rank --spectrum TABLE.tsv on the matrix",
                           in);
        else
            st = spectrum_tsv(in, &s);
        if (!st && a->norm && !strcmp(a->norm, "sigma1"))
            st = spectrum_sigma1(&s, in);
        if (!st && nr)
            st = rank_tsh(rank[i], &s.tsh);
        char lab[256];
        st = st ? st : sbw_plot_sel_label_of(a, i, s.label, lab, sizeof lab);
        if (!st)
            memcpy(s.label, lab, sizeof lab);
        if (!st && !cum) {
            char xl[128];
            snprintf(xl, sizeof xl, "normalised singular value (%s)",
                     s.skip0 ? "σⱼ/σ₁, σ₀ left out" : s.xnorm);
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
        if (!st && s.skip0)
            st = sbw_plot_fig_note(f, "--norm sigma1: %s: sigma_0 = %.6g sigma_1, left out", in,
                                   s.norm[0]);
        spectrum_free(&s);
    }
    sbw_plot_sel_free_list(rank, nr);
    if (!st && !(f->title = strdup("Singular spectra")))
        st = NOMEM();
    return st;
}
