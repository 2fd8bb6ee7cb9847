/* sbw_plot_alpha.c -- the alpha kind: Dirichlet languages (LMS Figure 5). */
#include "sbw_plot_alpha.h"
#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_num.h"
#include "sbw_plot_sel.h"
#include "sbw_plot_shape.h"
#include "sbw_plot_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

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

int sbw_plot_alpha_build(sbw_plot_fig *f, const sbw_plot_kind_args *a)
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
        st = st ? st : sbw_plot_sel_label_of(a, i, fb, lab, sizeof lab);
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
