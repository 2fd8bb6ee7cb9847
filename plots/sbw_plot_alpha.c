/* sbw_plot_alpha.c -- the alpha kind: Dirichlet languages (LMS Figure 5),
 * drawn from the tables sbw-info --per-row and --sorted computed. */
#include "sbw_plot_alpha.h"
#include "sbw_error.h"
#include "sbw_plot_sel.h"
#include "sbw_plot_shape.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

typedef struct alpha_lang {
    double alpha, mean_h, sd_h;
    char m[32];
} alpha_lang;

/* The last component of path. */
static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Reads path, an sbw-info table of the language lang (sbw-synth's table)
 * names as '# output=', into *t.  The join is by file name: a table of
 * another matrix (inputs given in another order) is SBW_EDATA. */
static int lang_table(sbw_tsv *t, const char *path, const sbw_tsv *lang, const char *opt)
{
    int st = sbw_tsv_read(t, path);
    const char *of = st ? NULL : sbw_tsv_meta(t, "file");
    const char *out = st ? NULL : sbw_tsv_meta(lang, "output");
    if (!st && !of)
        st = SBW_ERROR(SBW_EDATA, "%s: no '# file=' line (give %s the table of sbw-info %s)", path,
                       opt, opt);
    if (!st && out && strcmp(base_of(of), base_of(out)) != 0)
        st = SBW_ERROR(SBW_EDATA,
                       "%s: a table of %s, but %s's language is %s (%s lists one "
                       "table per input, in the same order)",
                       path, of, lang->path, out, opt);
    return st;
}

/* Row --sorted-row's probabilities against rank, from sbw-info --sorted's
 * table at path, into s. */
static int alpha_sorted(const char *path, const sbw_tsv *lang, sbw_plot_fig_series *s)
{
    sbw_tsv t;
    size_t cr, cp;
    int st = lang_table(&t, path, lang, "--sorted");
    st = st ? st : sbw_tsv_need(&t, "rank", &cr);
    st = st ? st : sbw_tsv_need(&t, "prob", &cp);
    for (size_t r = 0; !st && r < t.nrow; r++) {
        double x, y;
        st = sbw_plot_sel_value(&t, r, cr, &x);
        st = st ? st : sbw_plot_sel_value(&t, r, cp, &y);
        st = st ? st : sbw_plot_fig_series_add(s, x, y, NAN);
    }
    sbw_tsv_free(&t);
    return st;
}

/* Mean and sd of the entropies of the first rows rows of sbw-info
 * --per-row's table at path, into l. */
static int alpha_entropy_of(const char *path, const sbw_tsv *lang, size_t rows, alpha_lang *l)
{
    sbw_tsv t;
    size_t ch, c;
    int st = lang_table(&t, path, lang, "--entropy");
    st = st ? st : sbw_tsv_need(&t, "entropy", &ch);
    size_t n = st ? 0 : rows < t.nrow ? rows : t.nrow;
    double *h = st ? NULL : malloc((n ? n : 1) * sizeof *h);
    if (!st && !h)
        st = NOMEM();
    for (size_t r = 0; !st && r < n; r++)
        st = sbw_plot_sel_value(&t, r, ch, &h[r]);
    if (!st)
        sbw_plot_shape_mean_sd(h, n, &l->mean_h, &l->sd_h, &c);
    free(h);
    sbw_tsv_free(&t);
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
    sbw_plot_sel_keys ms = {0};
    size_t idx;
    int st = SBW_OK;
    qsort(l, n, sizeof *l, by_alpha);
    for (size_t i = 0; !st && i < n; i++)
        st = sbw_plot_sel_key(&ms, l[i].m, &idx);
    for (size_t k = 0; !st && k < ms.n; k++) {
        sbw_plot_fig_series *s;
        char lab[64];
        snprintf(lab, sizeof lab, "M = %s", ms.s[k]);
        st = sbw_plot_fig_add_series(p, lab, SBW_WITH_LINESPOINTS, (int)k + 1, &s);
        for (size_t i = 0; !st && i < n; i++)
            if (!strcmp(l[i].m, ms.s[k]))
                st = sbw_plot_fig_series_add(s, l[i].alpha, l[i].mean_h, l[i].sd_h);
    }
    sbw_plot_sel_free_list(ms.s, ms.n);
    return st;
}

/* Language i: its sbw-synth table's alpha and M, its sorted row into
 * panel pp, its entropies' mean and sd into l. */
static int alpha_lang_add(const sbw_plot_kind_args *a, size_t i, const char *entropy,
                          const char *sorted, sbw_plot_fig_panel *pp, alpha_lang *l)
{
    sbw_tsv t;
    int st = sbw_tsv_read(&t, a->inputs[i]);
    const char *al = st ? NULL : sbw_tsv_meta(&t, "alpha");
    const char *m = st ? NULL : sbw_tsv_meta(&t, "m");
    if (!st && (!al || !m))
        st = SBW_ERROR(SBW_EDATA,
                       "%s: no '# alpha=' and '# m=' lines (give sbw-synth "
                       "dirichlet's table)",
                       a->inputs[i]);
    char fb[128], lab[256];
    snprintf(fb, sizeof fb, "α = %s, M = %s", al ? al : "", m ? m : "");
    st = st ? st : sbw_plot_sel_label_of(a, i, fb, lab, sizeof lab);
    sbw_plot_fig_series *s;
    st = st ? st : sbw_plot_fig_add_series(pp, lab, SBW_WITH_LINES, (int)i + 1, &s);
    if (!st) {
        l->alpha = strtod(al, NULL);
        snprintf(l->m, sizeof l->m, "%s", m);
    }
    st = st ? st : alpha_sorted(sorted, &t, s);
    st = st ? st : alpha_entropy_of(entropy, &t, a->rows ? a->rows : 20, l);
    sbw_tsv_free(&t);
    return st;
}

/* The two panels. */
static int alpha_panels(sbw_plot_fig *f, sbw_plot_fig_panel **pp, sbw_plot_fig_panel **ph)
{
    int st = sbw_plot_fig_add_panel(f, "One row of each language", "rank of the word in the row",
                                    "probability (sorted)", pp);
    st = st ? st
            : sbw_plot_fig_add_panel(f, "Row entropy (mean ± sd over rows)", "Dirichlet α",
                                     "entropy of a row (nats)", ph);
    if (!st) {
        (*pp)->logx = (*pp)->logy = (*ph)->logx = true;
        (*pp)->ymin =
            1e-16; /* smaller probabilities (alpha = 0.01 reaches 1e-200) leave the axis */
        (*pp)->ymax = 1;
        (*ph)->key = "bottom right";
    }
    return st;
}

int sbw_plot_alpha_build(sbw_plot_fig *f, const sbw_plot_kind_args *a)
{
    char **ent = NULL, **sor = NULL;
    size_t ne = 0, ns = 0;
    alpha_lang *l = calloc(a->ninputs, sizeof *l);
    sbw_plot_fig_panel *pp, *ph;
    int st = l ? SBW_OK : NOMEM();
    st = st ? st : sbw_plot_sel_split(a->entropy, &ent, &ne);
    st = st ? st : sbw_plot_sel_split(a->sorted, &sor, &ns);
    if (!st && (ne != a->ninputs || ns != a->ninputs))
        st = SBW_ERROR(SBW_EINVAL,
                       "alpha: --entropy and --sorted give one sbw-info --per-row and --sorted "
                       "table per language (%zu languages, %zu and %zu tables)",
                       a->ninputs, ne, ns);
    st = st ? st : alpha_panels(f, &pp, &ph);
    for (size_t i = 0; !st && i < a->ninputs; i++)
        st = alpha_lang_add(a, i, ent[i], sor[i], pp, &l[i]);
    st = st ? st : alpha_entropy(ph, l, a->ninputs);
    st = st ? st
            : sbw_plot_fig_note(f,
                                "entropy: mean and sd over the first %zu rows; the "
                                "left panel's y axis stops at 1e-16",
                                a->rows ? a->rows : 20);
    free(l);
    sbw_plot_sel_free_list(ent, ne);
    sbw_plot_sel_free_list(sor, ns);
    if (!st && !(f->title = strdup("Dirichlet(α) languages (cf. LMS Figure 5)")))
        st = NOMEM();
    return st;
}
