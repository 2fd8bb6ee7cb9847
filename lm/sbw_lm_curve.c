/* sbw_lm_curve.c -- models compared at equal perplexity (sbw_lm_curve.h):
 * curve.tsv and the grid table read through core's sbw_tsv, the
 * interpolation in log perplexity, and the words of the pairwise order. */
#include "sbw_lm_curve.h"

#include "sbw_error.h"
#include "sbw_table.h"
#include "sbw_tsv.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GRID_MAX 10000000u

/* ---- reading ------------------------------------------------------------- */

/* s, cell of the row at line lineno of path, as a finite number (or,
 * when nan_ok, the text "nan" as NAN). */
static int parse_value(const char *s, bool nan_ok, const char *path, size_t lineno, double *x)
{
    if (nan_ok && strcmp(s, "nan") == 0) {
        *x = NAN;
        return SBW_OK;
    }
    if (!sbw_tsv_parse(s, x) || !isfinite(*x))
        return SBW_ERROR(SBW_EDATA, "%s: line %zu: '%.40s' is not a finite number", path, lineno,
                         s);
    return SBW_OK;
}

/* Room for one more point in the parallel arrays *p (one double a point)
 * and *k (width doubles a point), n used of *cap: both doubled (from 16)
 * when full.  SBW_ENOMEM (what: the message) with *cap unchanged, and
 * each array still valid, when they cannot grow. */
static int grow_points(double **p, double **k, size_t width, size_t n, size_t *cap,
                       const char *what)
{
    if (n < *cap)
        return SBW_OK;
    size_t nc = *cap ? 2 * *cap : 16;
    double *np =
        nc <= SIZE_MAX / sizeof *np / (width ? width : 1) ? realloc(*p, nc * sizeof *np) : NULL;
    if (np)
        *p = np;
    double *nk = np ? realloc(*k, nc * (width ? width : 1) * sizeof *nk) : NULL;
    if (!nk)
        return SBW_ERROR(SBW_ENOMEM, "%s of %zu points", what, nc);
    *k = nk;
    *cap = nc;
    return SBW_OK;
}

/* Appends (p, k) to c, growing its arrays by doubling. */
static int curve_push(sbw_lm_curve *c, size_t *cap, double p, double k)
{
    int st = grow_points(&c->ppl, &c->kld, 1, c->n, cap, "curve");
    if (st)
        return st;
    c->ppl[c->n] = p;
    c->kld[c->n++] = k;
    return SBW_OK;
}

/* The columns of valid_ppl and expected_pairwise_kl in t's header. */
static int curve_columns(const sbw_tsv *t, size_t *cp, size_t *ck)
{
    long p = sbw_tsv_col(t, "valid_ppl"), k = sbw_tsv_col(t, "expected_pairwise_kl");
    if (!t->ncol)
        return SBW_ERROR(SBW_EFORMAT, "%s: no header line", t->path);
    if (p < 0 || k < 0)
        return SBW_ERROR(SBW_EFORMAT, "%s: line %zu: the header has no %s column", t->path,
                         t->header_line, p < 0 ? "valid_ppl" : "expected_pairwise_kl");
    *cp = (size_t)p;
    *ck = (size_t)k;
    return SBW_OK;
}

/* The rows of t after its header into c, one by one. */
static int curve_rows(sbw_tsv *t, size_t cp, size_t ck, sbw_lm_curve *c)
{
    size_t pcap = 0;
    bool got = true;
    int st = SBW_OK;
    while (!st && (st = sbw_tsv_next(t, &got)) == SBW_OK && got) {
        size_t r = t->nrow - 1, line = t->line[r];
        double p, k;
        st = parse_value(sbw_tsv_str(t, r, cp), false, t->path, line, &p);
        st = st ? st : parse_value(sbw_tsv_str(t, r, ck), false, t->path, line, &k);
        if (!st && !(p > 0))
            st = SBW_ERROR(SBW_EDATA, "%s: line %zu: perplexity %g is not > 0", t->path, line, p);
        st = st ? st : curve_push(c, &pcap, p, k);
    }
    if (!st && c->n == 0)
        st = SBW_ERROR(SBW_EFORMAT, "%s: no points after the header", t->path);
    return st;
}

int sbw_lm_curve_read(sbw_lm_curve *c, const char *path)
{
    *c = (sbw_lm_curve){0};
    sbw_tsv t;
    size_t cp, ck;
    int st = sbw_tsv_open(&t, path);
    if (st)
        return st;
    st = curve_columns(&t, &cp, &ck);
    st = st ? st : curve_rows(&t, cp, ck, c);
    sbw_tsv_free(&t);
    if (st)
        sbw_lm_curve_free(c);
    else
        sbw_lm_curve_sort(c);
    return st;
}

void sbw_lm_curve_free(sbw_lm_curve *c)
{
    free(c->ppl);
    free(c->kld);
    *c = (sbw_lm_curve){0};
}

void sbw_lm_curve_sort(sbw_lm_curve *c)
{
    for (size_t i = 1; i < c->n; i++) {
        double p = c->ppl[i], k = c->kld[i];
        size_t j = i;
        for (; j > 0 && c->ppl[j - 1] > p; j--) {
            c->ppl[j] = c->ppl[j - 1];
            c->kld[j] = c->kld[j - 1];
        }
        c->ppl[j] = p;
        c->kld[j] = k;
    }
}

/* ---- interpolation ------------------------------------------------------- */

double sbw_lm_curve_at(const sbw_lm_curve *c, double p)
{
    if (c->n == 0 || p < c->ppl[0] || p > c->ppl[c->n - 1])
        return NAN;
    for (size_t i = 0; i + 1 < c->n; i++) {
        double lo = c->ppl[i], hi = c->ppl[i + 1];
        if (p >= lo && p <= hi) {
            double t = hi == lo ? 0 : (log(p) - log(lo)) / (log(hi) - log(lo));
            return c->kld[i] + t * (c->kld[i + 1] - c->kld[i]);
        }
    }
    return c->n == 1 && p == c->ppl[0] ? c->kld[0] : NAN;
}

int sbw_lm_curve_grid(const sbw_lm_curve *c, size_t m, double step, double **grid, size_t *n)
{
    *grid = NULL;
    *n = 0;
    if (!(step > 0) || !isfinite(step))
        return SBW_ERROR(SBW_EINVAL, "--step must be > 0, got %g", step);
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < m; j++)
        if (c[j].n) {
            lo = fmin(lo, c[j].ppl[0]);
            hi = fmax(hi, c[j].ppl[c[j].n - 1]);
        }
    if (!(lo <= hi))
        return SBW_OK;
    double p0 = step * trunc(lo / step);
    if (p0 < lo)
        p0 += step;
    size_t k = 0;
    for (double p = p0; p <= hi && k <= GRID_MAX; p += step)
        k++;
    if (k > GRID_MAX)
        return SBW_ERROR(SBW_EINVAL, "--step %g makes more than %u grid points from %g to %g", step,
                         GRID_MAX, lo, hi);
    if (k && !(*grid = malloc(k * sizeof **grid)))
        return SBW_ERROR(SBW_ENOMEM, "grid of %zu points", k);
    double p = p0;
    for (size_t i = 0; i < k; i++, p += step)
        (*grid)[i] = p;
    *n = k;
    return SBW_OK;
}

/* The cells of grid row p: "%g" and the m curves' values. */
static void fill_row(sbw_table *t, const sbw_lm_curve *c, char *const *names, size_t m, double p)
{
    char buf[64];
    sbw_table_add_row(t);
    snprintf(buf, sizeof buf, "%g", p);
    sbw_table_set_str(t, "ppl", buf);
    for (size_t j = 0; j < m; j++) {
        double v = sbw_lm_curve_at(&c[j], p);
        if (isnan(v))
            snprintf(buf, sizeof buf, "nan");
        else
            snprintf(buf, sizeof buf, "%.4f", v);
        sbw_table_set_str(t, names[j], buf);
    }
}

int sbw_lm_curve_table_fill(sbw_table *t, const sbw_lm_curve *c, char *const *names, size_t m,
                            double step)
{
    double *grid = NULL;
    size_t n = 0;
    int st = sbw_lm_curve_grid(c, m, step, &grid, &n);
    const char **cols = st ? NULL : malloc((m + 1) * sizeof *cols);
    if (!st && !cols)
        st = SBW_ERROR(SBW_ENOMEM, "%zu columns", m + 1);
    if (!st) {
        sbw_table_meta_dbl(t, "step", step);
        cols[0] = "ppl";
        memcpy(cols + 1, names, m * sizeof *cols);
        sbw_table_columns(t, cols, m + 1);
        for (size_t i = 0; i < n; i++)
            fill_row(t, c, names, m, grid[i]);
        st = sbw_table_status(t);
    }
    free(cols);
    free(grid);
    return st;
}

/* ---- the order of two curves --------------------------------------------- */

void sbw_lm_curve_compare(const double *ppl, const double *a, const double *b, size_t n,
                          sbw_lm_curve_pair *r)
{
    size_t *cross = r->cross;
    *r = (sbw_lm_curve_pair){.cross = cross};
    int last = 0;
    size_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(a[i]) || isnan(b[i]))
            continue;
        double d = a[i] - b[i];
        int s = d > 0 ? 1 : -1;
        if (r->common++ == 0) {
            r->plo = ppl[i];
            r->dmin = r->dmax = d;
        }
        r->above += d > 0;
        r->phi = ppl[i];
        r->dmin = fmin(r->dmin, d);
        r->dmax = fmax(r->dmax, d);
        if (r->common > 1 && s != last) {
            r->cross[2 * r->ncross] = prev;
            r->cross[2 * r->ncross++ + 1] = i;
        }
        last = s;
        prev = i;
    }
}

/* ---- the grid table read back -------------------------------------------- */

/* The header "ppl NAME..." of in into t->names. */
static int table_header(sbw_lm_curve_table *t, const sbw_tsv *in)
{
    if (!in->ncol)
        return SBW_ERROR(SBW_EFORMAT, "%s: no header line", in->path);
    if (in->ncol < 2 || strcmp(in->col[0], "ppl") != 0)
        return SBW_ERROR(SBW_EFORMAT, "%s: line %zu: the header is not 'ppl NAME...'", in->path,
                         in->header_line);
    if (!(t->names = calloc(in->ncol - 1, sizeof *t->names)))
        return SBW_ERROR(SBW_ENOMEM, "%zu names", in->ncol - 1);
    t->m = in->ncol - 1;
    for (size_t j = 0; j < t->m; j++)
        if (!(t->names[j] = strdup(in->col[j + 1])))
            return SBW_ERROR(SBW_ENOMEM, "a column name");
    return SBW_OK;
}

/* Row r of in (numbers; nan past the first column) into row t->n of t
 * (grown by doubling in *cap). */
static int table_row(sbw_lm_curve_table *t, const sbw_tsv *in, size_t r, size_t *cap)
{
    int st = grow_points(&t->ppl, &t->kld, t->m, t->n, cap, "grid table");
    if (st)
        return st;
    size_t line = in->line[r];
    st = parse_value(sbw_tsv_str(in, r, 0), false, in->path, line, &t->ppl[t->n]);
    for (size_t j = 0; j < t->m && !st; j++)
        st = parse_value(sbw_tsv_str(in, r, j + 1), true, in->path, line, &t->kld[t->n * t->m + j]);
    t->n += !st;
    return st;
}

int sbw_lm_curve_table_read(sbw_lm_curve_table *t, const char *path)
{
    *t = (sbw_lm_curve_table){0};
    sbw_tsv in;
    size_t rcap = 0;
    bool got = true;
    int st = sbw_tsv_open(&in, path);
    if (st)
        return st;
    st = table_header(t, &in);
    while (!st && (st = sbw_tsv_next(&in, &got)) == SBW_OK && got)
        st = table_row(t, &in, in.nrow - 1, &rcap);
    sbw_tsv_free(&in);
    if (st)
        sbw_lm_curve_table_free(t);
    return st;
}

void sbw_lm_curve_table_free(sbw_lm_curve_table *t)
{
    for (size_t j = 0; t->names && j < t->m; j++)
        free(t->names[j]);
    free(t->names);
    free(t->ppl);
    free(t->kld);
    *t = (sbw_lm_curve_table){0};
}

/* ---- the order in words -------------------------------------------------- */

/* name's label ("name=Label" in labels), or name. */
static const char *label(const char *name, size_t len, char *const *labels, size_t nl, char *buf,
                         size_t cap)
{
    for (size_t i = 0; i < nl; i++) {
        const char *eq = strchr(labels[i], '=');
        if (eq && (size_t)(eq - labels[i]) == len && strncmp(labels[i], name, len) == 0)
            return eq + 1;
    }
    snprintf(buf, cap, "%.*s", (int)len, name);
    return buf;
}

/* The column of name (len bytes) in t, or SIZE_MAX. */
static size_t column(const sbw_lm_curve_table *t, const char *name, size_t len)
{
    for (size_t j = 0; j < t->m; j++)
        if (strlen(t->names[j]) == len && strncmp(t->names[j], name, len) == 0)
            return j;
    return SIZE_MAX;
}

/* One pair's line: above at all common points, below at all, or where
 * the sign changes; or that no point is common. */
static void pair_words(FILE *f, const sbw_lm_curve_table *t, const sbw_lm_curve_pair *r,
                       const char *A, const char *B)
{
    if (!r->common) {
        fprintf(f, "- %s against %s: no perplexity measured for both yet.\n", A, B);
        return;
    }
    char rng[128];
    snprintf(rng, sizeof rng, "the grid points from %g to %g, where both curves were measured",
             r->plo, r->phi);
    if (r->above == r->common) {
        fprintf(f, "- **%s above %s** at all %zu common perplexities (%s), by %.3f to %.3f nats.\n",
                A, B, r->common, rng, r->dmin, r->dmax);
        return;
    }
    if (r->above == 0) {
        fprintf(f,
                "- **%s below %s** at all %zu common perplexities (%s), by %.3f to %.3f nats: the "
                "reverse of the paper's order.\n",
                A, B, r->common, rng, -r->dmax, -r->dmin);
        return;
    }
    fprintf(f,
            "- **%s above %s at %zu of %zu** common perplexities (%s); the difference runs from "
            "%.3f to %.3f nats and changes sign ",
            A, B, r->above, r->common, rng, r->dmin, r->dmax);
    for (size_t k = 0; k < r->ncross; k++)
        fprintf(f, "%sbetween %g and %g", k ? ", " : "", t->ppl[r->cross[2 * k]],
                t->ppl[r->cross[2 * k + 1]]);
    fputs(".\n", f);
}

/* Compares columns ia and ib of t into *r (a, b: workspaces of t->n). */
static void compare_columns(const sbw_lm_curve_table *t, size_t ia, size_t ib, double *a, double *b,
                            sbw_lm_curve_pair *r)
{
    for (size_t i = 0; i < t->n; i++) {
        a[i] = ia == SIZE_MAX ? NAN : t->kld[i * t->m + ia];
        b[i] = ib == SIZE_MAX ? NAN : t->kld[i * t->m + ib];
    }
    sbw_lm_curve_compare(t->ppl, a, b, t->n, r);
}

/* The workspaces of an order over a grid of n points: two columns and a
 * pair whose cross holds 2n.  Errors: SBW_ENOMEM (all freed). */
typedef struct order_ws {
    double *a, *b;
    sbw_lm_curve_pair r;
} order_ws;

static int order_ws_alloc(order_ws *w, size_t n)
{
    n = n ? n : 1;
    *w = (order_ws){.a = malloc(n * sizeof *w->a),
                    .b = malloc(n * sizeof *w->b),
                    .r = {.cross = malloc(2 * n * sizeof *w->r.cross)}};
    if (w->a && w->b && w->r.cross)
        return SBW_OK;
    free(w->a);
    free(w->b);
    free(w->r.cross);
    return SBW_ERROR(SBW_ENOMEM, "order over %zu points", n);
}

static void order_ws_free(order_ws *w)
{
    free(w->a);
    free(w->b);
    free(w->r.cross);
}

/* SBW_EINVAL naming the first of pairs (np) that is not "A:B". */
static int order_check(char *const *pairs, size_t np)
{
    for (size_t q = 0; q < np; q++) {
        const char *c = strchr(pairs[q], ':');
        if (!c || c == pairs[q] || !c[1] || strchr(c + 1, ':'))
            return SBW_ERROR(SBW_EINVAL, "--pairs: '%.60s' is not A:B", pairs[q]);
    }
    return SBW_OK;
}

/* Compares the two columns pair ("A:B", checked) names into w->r; *la is
 * A's length, B starts at pair + *la + 1. */
static void order_pair(const sbw_lm_curve_table *t, const char *pair, order_ws *w, size_t *la)
{
    const char *c = strchr(pair, ':');
    *la = (size_t)(c - pair);
    compare_columns(t, column(t, pair, *la), column(t, c + 1, strlen(c + 1)), w->a, w->b, &w->r);
}

/* A pair's effect on the chain (1: holds so far): 0 (broken) when it is
 * measured and not above at every common point, whatever the other pairs
 * say; else -1 (cannot be read) when it has no common point. */
static int order_chain(int chain, const sbw_lm_curve_pair *r)
{
    if (chain == 0 || (r->common && r->above != r->common))
        return 0;
    return r->common ? chain : -1;
}

int sbw_lm_curve_order_print(FILE *f, const sbw_lm_curve_table *t, char *const *pairs, size_t np,
                             char *const *labels, size_t nl)
{
    order_ws w;
    int st = order_check(pairs, np);
    st = st ? st : order_ws_alloc(&w, t->n);
    if (st)
        return st;
    int chain = 1;
    for (size_t q = 0; q < np; q++) {
        size_t la;
        order_pair(t, pairs[q], &w, &la);
        char ba[256], bb[256];
        const char *A = label(pairs[q], la, labels, nl, ba, sizeof ba);
        const char *B =
            label(pairs[q] + la + 1, strlen(pairs[q] + la + 1), labels, nl, bb, sizeof bb);
        pair_words(f, t, &w.r, A, B);
        chain = order_chain(chain, &w.r);
    }
    fputs(chain == 1   ? "\nSo the paper's ordering holds at every perplexity the curves share.\n"
          : chain == 0 ? "\nSo the paper's ordering does not hold at every perplexity the curves "
                         "share; the lines above say where each pair agrees with it.\n"
                       : "\nThe ordering of all three cannot be read yet: a curve is missing.\n",
          f);
    order_ws_free(&w);
    if (fflush(f) != 0 || ferror(f))
        st = SBW_ERROR(SBW_EIO, "writing the order: %s", strerror(errno));
    return st;
}

/* One row of the order table: pair's names and w->r. */
static void order_row(sbw_table *o, const char *pair, size_t la, const sbw_lm_curve_pair *r)
{
    char a[256], b[256];
    snprintf(a, sizeof a, "%.*s", (int)(la < 255 ? la : 255), pair);
    snprintf(b, sizeof b, "%s", pair + la + 1);
    sbw_table_add_row(o);
    sbw_table_set_str(o, "a", a);
    sbw_table_set_str(o, "b", b);
    sbw_table_set_int(o, "common", (long long)r->common);
    sbw_table_set_int(o, "above", (long long)r->above);
    sbw_table_set_dbl(o, "ppl_from", r->common ? r->plo : NAN);
    sbw_table_set_dbl(o, "ppl_to", r->common ? r->phi : NAN);
    sbw_table_set_dbl(o, "d_min", r->common ? r->dmin : NAN);
    sbw_table_set_dbl(o, "d_max", r->common ? r->dmax : NAN);
    sbw_table_set_int(o, "sign_changes", (long long)r->ncross);
    sbw_table_set_str(o, "order",
                      !r->common              ? "none"
                      : r->above == r->common ? "above"
                      : r->above == 0         ? "below"
                                              : "mixed");
}

int sbw_lm_curve_order_fill(sbw_table *o, const sbw_lm_curve_table *t, char *const *pairs,
                            size_t np)
{
    static const char *const cols[] = {"a",      "b",     "common", "above",        "ppl_from",
                                       "ppl_to", "d_min", "d_max",  "sign_changes", "order"};
    order_ws w;
    int st = order_check(pairs, np);
    st = st ? st : order_ws_alloc(&w, t->n);
    if (st)
        return st;
    sbw_table_columns(o, cols, sizeof cols / sizeof *cols);
    int chain = 1;
    for (size_t q = 0; q < np; q++) {
        size_t la;
        order_pair(t, pairs[q], &w, &la);
        order_row(o, pairs[q], la, &w.r);
        chain = order_chain(chain, &w.r);
    }
    sbw_table_meta_str(o, "chain", chain == 1 ? "holds" : chain == 0 ? "broken" : "incomplete");
    order_ws_free(&w);
    return sbw_table_status(o);
}
