/* sbw_plot_tsv.c -- the tools' tables read back: meta, column names, cells. */
#include "sbw_plot_tsv.h"

#include "sbw_error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable array of owned strings. */
typedef struct strvec {
    char **s;
    size_t n, cap;
} strvec;

static int strvec_push(strvec *v, const char *s, size_t len)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        char **p = realloc(v->s, cap * sizeof *p);
        if (!p)
            return SBW_ERROR(SBW_ENOMEM, "out of memory reading a table");
        v->s = p;
        v->cap = cap;
    }
    char *c = malloc(len + 1);
    if (!c)
        return SBW_ERROR(SBW_ENOMEM, "out of memory reading a table");
    memcpy(c, s, len);
    c[len] = '\0';
    v->s[v->n++] = c;
    return SBW_OK;
}

static void strvec_free(strvec *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->s[i]);
    free(v->s);
    *v = (strvec){0};
}

/* Appends the tab-separated fields of line to v; returns their count. */
static int split(const char *line, strvec *v, size_t *count)
{
    size_t before = v->n;
    const char *p = line;
    for (;;) {
        const char *tab = strchr(p, '\t');
        size_t len = tab ? (size_t)(tab - p) : strlen(p);
        int st = strvec_push(v, p, len);
        if (st)
            return st;
        if (!tab)
            break;
        p = tab + 1;
    }
    *count = v->n - before;
    return SBW_OK;
}

/* "# key=value": key is [A-Za-z0-9_]+. */
static int meta_line(const char *line, strvec *keys, strvec *vals)
{
    if (line[1] != ' ') /* "#" alone or "#x": line + 2 may lie past the end */
        return SBW_OK;
    const char *k = line + 2, *eq = strchr(k, '=');
    if (!eq || eq == k ||
        strspn(k, "abcdefghijklmnopqrstuvwxyz"
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != (size_t)(eq - k))
        return SBW_OK; /* another comment */
    int st = strvec_push(keys, k, (size_t)(eq - k));
    return st ? st : strvec_push(vals, eq + 1, strlen(eq + 1));
}

typedef struct named {
    const char *name;
    size_t at;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The first column (in header order) whose name an earlier column has, or
 * n when the names are distinct: sorted, O(n log n) (a table may have
 * 100,000 columns). */
static size_t first_repeat(const char *path, char *const *names, size_t n, int *st)
{
    named *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        *st = SBW_ERROR(SBW_ENOMEM, "%s: out of memory for %zu column names", path, n);
        return n;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (named){names[i], i};
    qsort(v, n, sizeof *v, by_name);
    size_t first = n;
    for (size_t i = 1; i < n; i++)
        if (!strcmp(v[i].name, v[i - 1].name) && v[i].at < first)
            first = v[i].at;
    free(v);
    return first;
}

static int header_line(sbw_plot_tsv *t, const char *line, strvec *cols)
{
    size_t n = 0;
    int st = split(line, cols, &n);
    for (size_t i = 0; !st && i < n; i++)
        if (!cols->s[i][0])
            return SBW_ERROR(SBW_EFORMAT, "%s: column %zu of the header line has no name", t->path,
                             i + 1);
    size_t dup = st ? n : first_repeat(t->path, cols->s, n, &st);
    if (!st && dup < n)
        return SBW_ERROR(SBW_EFORMAT, "%s: column '%s' appears twice in the header line", t->path,
                         cols->s[dup]);
    return st;
}

static int read_lines(sbw_plot_tsv *t, FILE *f, strvec *keys, strvec *vals, strvec *cols,
                      strvec *cells)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int st = SBW_OK;
    while (!st && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0)
            continue;
        if (line[0] == '#') {
            st = meta_line(line, keys, vals);
        } else if (!cols->n) {
            st = header_line(t, line, cols);
        } else {
            size_t n;
            st = split(line, cells, &n);
            if (!st && n != cols->n)
                st = SBW_ERROR(SBW_EFORMAT, "%s: line %zu has %zu cells, the header line %zu",
                               t->path, lineno, n, cols->n);
        }
    }
    free(line);
    if (!st && ferror(f))
        st = SBW_ERROR(SBW_EIO, "%s: read error: %s", t->path, strerror(errno));
    if (!st && !cols->n)
        st = SBW_ERROR(SBW_EFORMAT, "%s: no column-name line (is it a table?)", t->path);
    if (!st && !cells->n)
        st = SBW_ERROR(SBW_EDATA, "%s: no data rows", t->path);
    return st;
}

int sbw_plot_tsv_read(sbw_plot_tsv *t, const char *path)
{
    *t = (sbw_plot_tsv){0};
    t->path = strdup(path);
    if (!t->path)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        sbw_plot_tsv_free(t);
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    strvec keys = {0}, vals = {0}, cols = {0}, cells = {0};
    int st = read_lines(t, f, &keys, &vals, &cols, &cells);
    fclose(f);
    t->key = keys.s;
    t->val = vals.s;
    t->nmeta = keys.n;
    t->col = cols.s;
    t->ncol = cols.n;
    t->cell = cells.s;
    t->nrow = cols.n ? cells.n / cols.n : 0;
    if (st) {
        for (size_t i = cols.n * t->nrow; i < cells.n; i++) /* a ragged tail */
            free(cells.s[i]);
        sbw_plot_tsv_free(t);
    }
    return st;
}

void sbw_plot_tsv_free(sbw_plot_tsv *t)
{
    strvec v[] = {{t->key, t->nmeta, 0},
                  {t->val, t->nmeta, 0},
                  {t->col, t->ncol, 0},
                  {t->cell, t->ncol * t->nrow, 0}};
    for (size_t i = 0; i < 4; i++)
        strvec_free(&v[i]);
    free(t->path);
    *t = (sbw_plot_tsv){0};
}

long sbw_plot_tsv_col(const sbw_plot_tsv *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (!strcmp(t->col[i], name))
            return (long)i;
    return -1;
}

int sbw_plot_tsv_need(const sbw_plot_tsv *t, const char *name, size_t *col)
{
    long c = sbw_plot_tsv_col(t, name);
    if (c >= 0) {
        *col = (size_t)c;
        return SBW_OK;
    }
    char have[256] = "";
    for (size_t i = 0, used = 0; i < t->ncol && used + 1 < sizeof have; i++) {
        int w = snprintf(have + used, sizeof have - used, "%s%s", i ? " " : "", t->col[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return SBW_ERROR(SBW_EDATA, "%s: no column '%s' (columns: %s)", t->path, name, have);
}

const char *sbw_plot_tsv_str(const sbw_plot_tsv *t, size_t row, size_t col)
{
    return t->cell[row * t->ncol + col];
}

int sbw_plot_tsv_num(const sbw_plot_tsv *t, size_t row, size_t col, double *x)
{
    const char *s = sbw_plot_tsv_str(t, row, col);
    char *end;
    double v = strtod(s, &end); /* out of range: +-inf or a tiny value, kept */
    if (end == s || *end)
        return SBW_ERROR(SBW_EDATA, "%s: row %zu, column '%s': '%s' is not a number", t->path,
                         row + 1, t->col[col], s);
    *x = v;
    return SBW_OK;
}

const char *sbw_plot_tsv_meta(const sbw_plot_tsv *t, const char *key)
{
    for (size_t i = t->nmeta; i-- > 0;)
        if (!strcmp(t->key[i], key))
            return t->val[i];
    return NULL;
}
