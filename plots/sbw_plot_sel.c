/* sbw_plot_sel.c -- what the kinds share: comma lists, labels, --where. */
#include "sbw_plot_sel.h"
#include "sbw_error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

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
    {"rank_logq", "numerical rank of log Q (NR threshold)"},
    {"rank_bound", "rank bound of the head"},
    {"rank_single", "numerical rank at float32's eps"},
    {"d_star", "d* (rank of the row-centred log P)"},
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

const char *sbw_plot_sel_label(const char *col)
{
    for (size_t i = 0; i < sizeof label_map / sizeof *label_map; i++)
        if (!strcmp(col, label_map[i][0]))
            return label_map[i][1];
    return col;
}

int sbw_plot_sel_split(const char *s, char ***out, size_t *n)
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

void sbw_plot_sel_free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The last path component without its extension, into buf. */
void sbw_plot_sel_stem(const char *path, char *buf, size_t cap)
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
int sbw_plot_sel_label_of(const sbw_plot_kind_args *a, size_t i, const char *fallback, char *buf,
                          size_t cap)
{
    char **l;
    size_t n;
    int st = sbw_plot_sel_split(a->labels, &l, &n);
    if (st)
        return st;
    if (n && n != a->ninputs)
        st = SBW_ERROR(SBW_EINVAL, "--labels: %zu labels for %zu inputs", n, a->ninputs);
    else
        snprintf(buf, cap, "%s", n ? l[i] : fallback);
    sbw_plot_sel_free_list(l, n);
    return st;
}

/* ---- rows selected by --where ------------------------------------------------ */

void sbw_plot_sel_where_free(sbw_plot_sel_where *w)
{
    sbw_plot_sel_free_list(w->col, w->n);
    sbw_plot_sel_free_list(w->val, w->n);
    free(w->at);
    *w = (sbw_plot_sel_where){0};
}

int sbw_plot_sel_where_parse(const char *s, sbw_plot_sel_where *w)
{
    char **items;
    size_t n;
    *w = (sbw_plot_sel_where){0};
    int st = sbw_plot_sel_split(s, &items, &n);
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
    sbw_plot_sel_free_list(items, n);
    if (st)
        sbw_plot_sel_where_free(w);
    return st;
}

/* Equal as text, or as numbers when both read as numbers. */
static bool same_value(const char *a, const char *b)
{
    double x, y;
    if (sbw_tsv_parse(a, &x) && sbw_tsv_parse(b, &y))
        return x == y;
    return !strcmp(a, b);
}

/* Resolves the clause's columns in t once (a table may have 100,000
 * columns and as many rows): w->at[i] for w->col[i]. */
int sbw_plot_sel_where_bind(const sbw_tsv *t, sbw_plot_sel_where *w)
{
    int st = SBW_OK;
    for (size_t i = 0; !st && i < w->n; i++)
        st = sbw_tsv_need(t, w->col[i], &w->at[i]);
    return st;
}

/* Whether row matches the clause bound to t by sbw_plot_sel_where_bind. */
bool sbw_plot_sel_where_match(const sbw_tsv *t, size_t row, const sbw_plot_sel_where *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (!same_value(sbw_tsv_str(t, row, w->at[i]), w->val[i]))
            return false;
    return true;
}

int sbw_plot_sel_key(sbw_plot_sel_keys *k, const char *s, size_t *idx)
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

/* The series key of row r. */
void sbw_plot_sel_series_key(const sbw_tsv *t, size_t r, long sc, long kc, const char *file_lab,
                             char *buf, size_t cap)
{
    if (sc < 0) {
        snprintf(buf, cap, "%s", file_lab);
        return;
    }
    const char *s = sbw_tsv_str(t, r, (size_t)sc);
    const char *k = kc >= 0 ? sbw_tsv_str(t, r, (size_t)kc) : "";
    bool showk = *k && strcmp(k, "0") != 0 && strcmp(k, "nan") != 0;
    snprintf(buf, cap, "%s%s%s", s, showk ? " K=" : "", showk ? k : "");
}

/* The cell at (r, c) as a number to draw: finite, or nan for a value the
 * tool did not measure there (sbw-lm's valid_ppl between validations);
 * an infinite one (a diverged run) is SBW_EDATA naming the file, row and
 * column, never a point silently left out. */
int sbw_plot_sel_value(const sbw_tsv *t, size_t r, size_t c, double *x)
{
    int st = sbw_tsv_num(t, r, c, x);
    if (!st && isinf(*x))
        st = SBW_ERROR(SBW_EDATA,
                       "%s: row %zu, column '%s' is %s: sbw-plot draws finite values (nan marks "
                       "one not measured)",
                       t->path, r + 1, t->col[c], sbw_tsv_str(t, r, c));
    return st;
}

/* Column c of t into x (k rows): every value finite (a spectrum has no
 * missing values), SBW_EDATA naming the file, row and column otherwise. */
int sbw_plot_sel_column(const sbw_tsv *t, const char *name, double *x)
{
    size_t c;
    int st = sbw_tsv_need(t, name, &c);
    for (size_t r = 0; !st && r < t->nrow; r++) {
        st = sbw_tsv_num(t, r, c, &x[r]);
        if (!st && !isfinite(x[r]))
            st = SBW_ERROR(SBW_EDATA, "%s: row %zu, column '%s' is %s, not a finite number",
                           t->path, r + 1, name, sbw_tsv_str(t, r, c));
    }
    return st;
}
