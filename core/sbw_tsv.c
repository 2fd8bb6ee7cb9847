/* sbw_tsv.c -- the tools' tables read back: meta, column names, rows. */
#include "sbw_tsv.h"

#include "sbw_error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Makes room for one more entry in *a (n used of *cap entries of size
 * elem), doubling from 16.  SBW_ENOMEM, *a and *cap untouched, when it
 * cannot.  a is the address of the array's pointer. */
static int grow(void *a, size_t elem, size_t n, size_t *cap)
{
    if (n < *cap)
        return SBW_OK;
    size_t c = *cap ? 2 * *cap : 16;
    void *old;
    memcpy(&old, a, sizeof old);
    void *p = c <= (size_t)-1 / elem ? realloc(old, c * elem) : NULL;
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "out of memory reading a table");
    memcpy(a, &p, sizeof p);
    *cap = c;
    return SBW_OK;
}

/* Appends c (a malloc'd string, which *v then owns) to the *n strings of
 * *v (room for *cap); frees c when it cannot. */
static int push(char ***v, size_t *n, size_t *cap, char *c)
{
    int st = grow(v, sizeof **v, *n, cap);
    if (st) {
        free(c);
        return st;
    }
    (*v)[(*n)++] = c;
    return SBW_OK;
}

/* Appends a copy of s[0, len) to the *n strings of *v (room for *cap). */
static int push_copy(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
    char *c = strndup(s, len);
    if (!c)
        return SBW_ERROR(SBW_ENOMEM, "out of memory reading a table");
    return push(v, n, cap, c);
}

/* Frees the n strings of v, then v; v may be NULL. */
static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* The field at p, up to the next tab or the end, as a new string into
 * *out, and where it ends (its tab or the end) into *end.  A field that
 * begins with '"' is quoted (sbw_table's rule, which pandas reads the
 * same: "..." with each '"' inside doubled) and loses its quotes.
 * SBW_EFORMAT naming t's file and line when a quoted field is not closed
 * or has text after its closing quote; SBW_ENOMEM. */
static int field(const sbw_tsv *t, const char *p, char **out, const char **end)
{
    size_t len = strcspn(p, "\t");
    char *c = malloc(len + 1), *w = c;
    if (!c)
        return SBW_ERROR(SBW_ENOMEM, "out of memory reading a table");
    const char *q = p;
    if (*p != '"') {
        memcpy(c, p, len);
        w += len;
        q += len;
    } else {
        for (q = p + 1; *q && *q != '\t' && !(*q == '"' && q[1] != '"'); q += 1 + (*q == '"'))
            *w++ = *q;
        const char *bad = *q != '"'              ? "is not closed"
                          : q[1] && q[1] != '\t' ? "has text after its closing quote"
                                                 : NULL;
        if (bad) {
            free(c);
            return SBW_ERROR(SBW_EFORMAT,
                             "%s: line %zu: a quoted cell (\"...\", each '\"' in it doubled) %s",
                             t->path, t->in.lineno, bad);
        }
        q++;
    }
    *w = '\0';
    *out = c;
    *end = q;
    return SBW_OK;
}

/* Appends the tab-separated fields of line (field: quoted ones lose their
 * quotes) to the *n strings of *v; their count into *count.  After a
 * failure the fields pushed stay (counted in *n). */
static int split(const sbw_tsv *t, const char *line, char ***v, size_t *n, size_t *cap,
                 size_t *count)
{
    size_t before = *n;
    for (const char *p = line;; p++) {
        char *c;
        int st = field(t, p, &c, &p);
        st = st ? st : push(v, n, cap, c);
        if (st)
            return st;
        if (!*p)
            break;
    }
    *count = *n - before;
    return SBW_OK;
}

/* A "#" line: "# key=value" (key [A-Za-z0-9_]+) into the meta, anything
 * else a comment (the first one's number kept). */
static int hash_line(sbw_tsv *t, const char *line)
{
    /* "#" alone or "#x": the key would start past the end, so line[1] first */
    const char *k = line[1] == ' ' ? line + 2 : NULL, *eq = k ? strchr(k, '=') : NULL;
    if (!eq || eq == k ||
        strspn(k, "abcdefghijklmnopqrstuvwxyz"
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != (size_t)(eq - k)) {
        if (!t->comment_line)
            t->comment_line = t->in.lineno;
        return SBW_OK;
    }
    size_t n = t->nmeta; /* key and val share the count: each push advances a copy */
    int st = push_copy(&t->key, &n, &t->in.keycap, k, (size_t)(eq - k));
    if (st)
        return st;
    n = t->nmeta;
    st = push_copy(&t->val, &n, &t->in.valcap, eq + 1, strlen(eq + 1));
    if (st) {
        free(t->key[t->nmeta]); /* the key pushed, its value not */
        return st;
    }
    t->nmeta++;
    return SBW_OK;
}

/* A column name and its position in the header. */
typedef struct named {
    const char *name;
    size_t at;
} named;

/* qsort's order of named: by name, then by position. */
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

/* The column-name line: names none empty, no two equal. */
static int header_line(sbw_tsv *t, const char *line)
{
    size_t n = 0;
    int st = split(t, line, &t->col, &t->ncol, &t->in.colcap, &n);
    for (size_t i = 0; !st && i < n; i++)
        if (!t->col[i][0])
            return SBW_ERROR(SBW_EFORMAT, "%s: column %zu of the header line has no name", t->path,
                             i + 1);
    size_t dup = st ? n : first_repeat(t->path, t->col, n, &st);
    if (!st && dup < n)
        return SBW_ERROR(SBW_EFORMAT, "%s: column '%s' appears twice in the header line", t->path,
                         t->col[dup]);
    t->header_line = t->in.lineno;
    return st;
}

/* A data row appended to the cells; a row of another width is taken back
 * and refused. */
static int data_row(sbw_tsv *t, const char *line)
{
    size_t used = t->nrow * t->ncol, n = 0;
    int st = grow(&t->line, sizeof *t->line, t->nrow, &t->in.linecap);
    st = st ? st : split(t, line, &t->cell, &used, &t->in.cellcap, &n);
    if (!st && n != t->ncol)
        st = SBW_ERROR(SBW_EFORMAT, "%s: line %zu has %zu cells, the header line %zu", t->path,
                       t->in.lineno, n, t->ncol);
    if (st) {
        for (size_t i = t->nrow * t->ncol; i < used; i++)
            free(t->cell[i]);
        return st;
    }
    t->line[t->nrow++] = t->in.lineno;
    return SBW_OK;
}

/* The end of t's file: a read error, or the file closed. */
static int end_of_file(sbw_tsv *t)
{
    int st = ferror(t->in.fp) ? SBW_ERROR(SBW_EIO, "%s: read error: %s", t->path, strerror(errno))
                              : SBW_OK;
    fclose(t->in.fp);
    t->in.fp = NULL;
    free(t->in.buf);
    t->in.buf = NULL;
    t->in.bufcap = 0;
    return st;
}

/* Reads lines, each "#" line into the meta or the comments, until one
 * other line is read: the column-name line when t has none yet, else a
 * data row; *got says whether it came before the end of the file. */
static int advance(sbw_tsv *t, bool *got)
{
    *got = false;
    int st = SBW_OK;
    ssize_t len;
    while (!st && t->in.fp && (len = getline(&t->in.buf, &t->in.bufcap, t->in.fp)) >= 0) {
        char *line = t->in.buf;
        t->in.lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len == 0)
            continue;
        if (line[0] == '#') {
            st = hash_line(t, line);
            continue;
        }
        st = t->ncol ? data_row(t, line) : header_line(t, line);
        *got = !st;
        return st;
    }
    if (!st && t->in.fp)
        st = end_of_file(t);
    return st;
}

int sbw_tsv_open(sbw_tsv *t, const char *path)
{
    *t = (sbw_tsv){0};
    t->path = strdup(path);
    if (!t->path)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    t->in.fp = fopen(path, "r");
    if (!t->in.fp) {
        int e = errno;
        sbw_tsv_free(t);
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    bool got;
    int st = advance(t, &got);
    if (st)
        sbw_tsv_free(t);
    return st;
}

int sbw_tsv_next(sbw_tsv *t, bool *got)
{
    *got = false;
    return t->ncol ? advance(t, got) : SBW_OK;
}

int sbw_tsv_read(sbw_tsv *t, const char *path)
{
    int st = sbw_tsv_open(t, path);
    if (st)
        return st;
    bool got = t->ncol > 0;
    while (!st && got)
        st = sbw_tsv_next(t, &got);
    if (!st && !t->ncol)
        st = SBW_ERROR(SBW_EFORMAT, "%s: no column-name line (is it a table?)", t->path);
    if (!st && !t->nrow)
        st = SBW_ERROR(SBW_EDATA, "%s: no data rows", t->path);
    if (st)
        sbw_tsv_free(t);
    return st;
}

void sbw_tsv_free(sbw_tsv *t)
{
    if (t->in.fp)
        fclose(t->in.fp);
    free(t->in.buf);
    free_strings(t->key, t->nmeta);
    free_strings(t->val, t->nmeta);
    free_strings(t->col, t->ncol);
    free_strings(t->cell, t->ncol * t->nrow);
    free(t->line);
    free(t->path);
    *t = (sbw_tsv){0};
}

long sbw_tsv_col(const sbw_tsv *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (!strcmp(t->col[i], name))
            return (long)i;
    return -1;
}

int sbw_tsv_need(const sbw_tsv *t, const char *name, size_t *col)
{
    long c = sbw_tsv_col(t, name);
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

const char *sbw_tsv_str(const sbw_tsv *t, size_t row, size_t col)
{
    return t->cell[row * t->ncol + col];
}

bool sbw_tsv_parse(const char *s, double *x)
{
    char *end;
    double v = strtod(s, &end); /* out of range: +-inf or a tiny value, kept */
    if (end == s || *end)
        return false;
    *x = v;
    return true;
}

int sbw_tsv_num(const sbw_tsv *t, size_t row, size_t col, double *x)
{
    const char *s = sbw_tsv_str(t, row, col);
    if (!sbw_tsv_parse(s, x))
        return SBW_ERROR(SBW_EDATA, "%s: row %zu, column '%s': '%s' is not a number", t->path,
                         row + 1, t->col[col], s);
    return SBW_OK;
}

const char *sbw_tsv_meta(const sbw_tsv *t, const char *key)
{
    for (size_t i = t->nmeta; i-- > 0;)
        if (!strcmp(t->key[i], key))
            return t->val[i];
    return NULL;
}
