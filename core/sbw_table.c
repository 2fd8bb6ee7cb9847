/* sbw_table.c -- TSV (with # key=value headers) and JSON output. */
#include "sbw_table.h"

#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_utf8.h"

#include <inttypes.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CELL_EMPTY, CELL_STR, CELL_INT, CELL_U64, CELL_DBL, CELL_BOOL } cell_type;

typedef struct cell {
    cell_type type;
    char *s;
    long long i;
    uint64_t u;
    double d;
} cell;

typedef struct meta {
    char *key;
    cell value;
} meta;

struct sbw_table {
    meta *meta;
    size_t nmeta, cap_meta;
    char **cols;
    size_t ncols;
    cell *cells; /* nrows * ncols */
    size_t nrows, cap_rows;
    /* The first failure, kept (sticky): its status, reason and origin. */
    int status;
    char reason[512];
    const char *err_file;
    int err_line;
};

static void cell_clear(cell *c)
{
    free(c->s);
    *c = (cell){0};
}

/* Keeps st as the table's first failure (with the reason sbw_error holds
 * for it) unless one is kept already; returns st. */
static int table_keep(sbw_table *t, int st)
{
    if (st && !t->status) {
        t->status = st;
        snprintf(t->reason, sizeof t->reason, "%s", sbw_error_reason());
        t->err_file = sbw_error_file();
        t->err_line = sbw_error_line();
    }
    return st;
}

/* The kept failure, recorded again as this thread's last error (so the
 * reason a caller reads is the table's first one, whatever failed since);
 * SBW_OK when the table has none. */
static int table_sticky(const sbw_table *t)
{
    int st = t->status;
    if (st)
        sbw_error_set(st, t->err_file, t->err_line, "%s", t->reason);
    return st;
}

int sbw_table_status(const sbw_table *t) { return table_sticky(t); }

void sbw_table_free(sbw_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nmeta; i++) {
        free(t->meta[i].key);
        cell_clear(&t->meta[i].value);
    }
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        cell_clear(&t->cells[i]);
    for (size_t j = 0; j < t->ncols; j++)
        free(t->cols[j]);
    free(t->meta);
    free(t->cols);
    free(t->cells);
    free(t);
}

/* The meta slot for key, appended when new (its old value cleared).
 * After a failure (now or earlier): the table's kept status. */
static int meta_slot(sbw_table *t, const char *key, cell **out)
{
    if (t->status)
        return table_sticky(t);
    for (size_t i = 0; i < t->nmeta; i++)
        if (strcmp(t->meta[i].key, key) == 0) {
            cell_clear(&t->meta[i].value);
            *out = &t->meta[i].value;
            return SBW_OK;
        }
    if (t->nmeta == t->cap_meta) {
        size_t nc = t->cap_meta ? 2 * t->cap_meta : 16;
        meta *p = realloc(t->meta, nc * sizeof *p);
        if (!p)
            return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
        t->meta = p;
        t->cap_meta = nc;
    }
    char *k = strdup(key);
    if (!k)
        return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
    t->meta[t->nmeta] = (meta){.key = k};
    *out = &t->meta[t->nmeta++].value;
    return SBW_OK;
}

int sbw_table_meta_str(sbw_table *t, const char *key, const char *value)
{
    cell *c;
    int st = meta_slot(t, key, &c);
    if (st)
        return st;
    c->s = strdup(value ? value : "");
    if (!c->s)
        return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
    c->type = CELL_STR;
    return SBW_OK;
}

int sbw_table_meta_int(sbw_table *t, const char *key, long long value)
{
    cell *c;
    int st = meta_slot(t, key, &c);
    if (!st)
        *c = (cell){.type = CELL_INT, .i = value};
    return st;
}

int sbw_table_meta_u64(sbw_table *t, const char *key, uint64_t value)
{
    cell *c;
    int st = meta_slot(t, key, &c);
    if (!st)
        *c = (cell){.type = CELL_U64, .u = value};
    return st;
}

int sbw_table_meta_dbl(sbw_table *t, const char *key, double value)
{
    cell *c;
    int st = meta_slot(t, key, &c);
    if (!st)
        *c = (cell){.type = CELL_DBL, .d = value};
    return st;
}

int sbw_table_meta_bool(sbw_table *t, const char *key, bool value)
{
    cell *c;
    int st = meta_slot(t, key, &c);
    if (!st)
        *c = (cell){.type = CELL_BOOL, .i = value};
    return st;
}

int sbw_table_alloc(sbw_table **out, const char *tool, const struct sbw_cli_common *c,
                    bool with_seed)
{
    sbw_table *t = calloc(1, sizeof *t);
    if (!t)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = sbw_table_meta_str(t, "tool", tool);
    if (!st)
        st = sbw_table_meta_str(t, "version", SBW_CLI_VERSION);
    if (!st && c)
        st = sbw_table_meta_str(t, "command", c->cmdline);
    if (!st && c && with_seed)
        st = sbw_table_meta_u64(t, "seed", c->seed);
    if (!st)
        st = sbw_table_meta_str(t, "blas", sbw_cli_blas());
    if (!st)
        st = sbw_table_meta_int(t, "threads", omp_get_max_threads());
    if (st) {
        sbw_table_free(t);
        return st;
    }
    *out = t;
    return SBW_OK;
}

int sbw_table_columns(sbw_table *t, const char *const *names, size_t n)
{
    if (t->status)
        return table_sticky(t);
    if (t->nrows)
        return table_keep(t, SBW_ERROR(SBW_EINVAL, "columns must be declared before rows"));
    char **cols = calloc(n ? n : 1, sizeof *cols);
    if (!cols)
        return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
    for (size_t j = 0; j < n; j++)
        if (!(cols[j] = strdup(names[j]))) {
            for (size_t k = 0; k < j; k++)
                free(cols[k]);
            free(cols);
            return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
        }
    for (size_t j = 0; j < t->ncols; j++)
        free(t->cols[j]);
    free(t->cols);
    t->cols = cols;
    t->ncols = n;
    return SBW_OK;
}

int sbw_table_add_row(sbw_table *t)
{
    if (t->status)
        return table_sticky(t);
    if (t->nrows == t->cap_rows) {
        size_t nc = t->cap_rows ? 2 * t->cap_rows : 8;
        cell *p = realloc(t->cells, nc * (t->ncols ? t->ncols : 1) * sizeof *p);
        if (!p)
            return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
        t->cells = p;
        t->cap_rows = nc;
    }
    for (size_t j = 0; j < t->ncols; j++)
        t->cells[t->nrows * t->ncols + j] = (cell){0};
    t->nrows++;
    return SBW_OK;
}

size_t sbw_table_nrows(const sbw_table *t) { return t->nrows; }

/* The cell of column col in the last row, cleared.  After a failure (now
 * or earlier): the table's kept status. */
static int row_cell(sbw_table *t, const char *col, cell **out)
{
    if (t->status)
        return table_sticky(t);
    if (!t->nrows)
        return table_keep(t, SBW_ERROR(SBW_EINVAL, "no row to set '%s' in", col));
    for (size_t j = 0; j < t->ncols; j++)
        if (strcmp(t->cols[j], col) == 0) {
            *out = &t->cells[(t->nrows - 1) * t->ncols + j];
            cell_clear(*out);
            return SBW_OK;
        }
    return table_keep(t, SBW_ERROR(SBW_EINVAL, "unknown column '%s'", col));
}

int sbw_table_set_str(sbw_table *t, const char *col, const char *value)
{
    cell *c;
    int st = row_cell(t, col, &c);
    if (st)
        return st;
    if (!(c->s = strdup(value ? value : "")))
        return table_keep(t, SBW_ERROR(SBW_ENOMEM, "out of memory"));
    c->type = CELL_STR;
    return SBW_OK;
}

int sbw_table_set_int(sbw_table *t, const char *col, long long value)
{
    cell *c;
    int st = row_cell(t, col, &c);
    if (!st)
        *c = (cell){.type = CELL_INT, .i = value};
    return st;
}

int sbw_table_set_dbl(sbw_table *t, const char *col, double value)
{
    cell *c;
    int st = row_cell(t, col, &c);
    if (!st)
        *c = (cell){.type = CELL_DBL, .d = value};
    return st;
}

/* ---- warnings (process-wide) ------------------------------------------- */

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static char *warn_text[SBW_TABLE_MAX_WARNINGS];
static size_t warn_n, warn_dropped, warn_echoed;

static bool warn_known(const char *w)
{
    for (size_t i = 0; i < warn_n; i++)
        if (strcmp(warn_text[i], w) == 0)
            return true;
    return false;
}

void sbw_table_warn(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    /* clang-analyzer 14 misses the va_start above (a known false positive). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    pthread_mutex_lock(&warn_lock);
    if (!warn_known(buf)) {
        char *w = warn_n < SBW_TABLE_MAX_WARNINGS ? strdup(buf) : NULL;
        if (w)
            warn_text[warn_n++] = w;
        else
            warn_dropped++;
    }
    pthread_mutex_unlock(&warn_lock);
}

size_t sbw_table_warn_count(void)
{
    pthread_mutex_lock(&warn_lock);
    size_t n = warn_n + (warn_dropped > 0);
    pthread_mutex_unlock(&warn_lock);
    return n;
}

const char *sbw_table_warning(size_t i)
{
    static char dropped[96];
    pthread_mutex_lock(&warn_lock);
    const char *w = i < warn_n ? warn_text[i] : NULL;
    if (!w && i == warn_n && warn_dropped) {
        snprintf(dropped, sizeof dropped, "warnings_dropped: %zu more warning(s) not recorded",
                 warn_dropped);
        w = dropped;
    }
    pthread_mutex_unlock(&warn_lock);
    return w;
}

void sbw_table_warn_clear(void)
{
    pthread_mutex_lock(&warn_lock);
    for (size_t i = 0; i < warn_n; i++)
        free(warn_text[i]);
    warn_n = warn_dropped = warn_echoed = 0;
    pthread_mutex_unlock(&warn_lock);
}

/* The tool's name from the meta, for the stderr copy of the warnings. */
static const char *table_tool(const sbw_table *t)
{
    for (size_t i = 0; i < t->nmeta; i++)
        if (strcmp(t->meta[i].key, "tool") == 0 && t->meta[i].value.type == CELL_STR)
            return t->meta[i].value.s;
    return "sbw";
}

/* Each warning once per process on stderr, unless the table goes there. */
static void echo_warnings(const sbw_table *t, FILE *f)
{
    if (f == stderr)
        return;
    size_t n = sbw_table_warn_count();
    for (size_t i = warn_echoed; i < n; i++)
        fprintf(stderr, "%s: warning: %s\n", table_tool(t), sbw_table_warning(i));
    warn_echoed = n;
}

/* ---- printing ----------------------------------------------------------- */

void sbw_table_format_double(double x, char *buf, size_t cap)
{
    if (isnan(x)) {
        snprintf(buf, cap, "nan");
        return;
    }
    if (isinf(x)) {
        snprintf(buf, cap, x > 0 ? "inf" : "-inf");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

/* A text cell as TSV: tabs and newlines become spaces; a cell holding '#'
 * or '"' is quoted, "..." with each '"' doubled, so that pandas'
 * read_csv(sep="\t", comment="#") and sbw_tsv read it whole (a '#' outside
 * quotes starts a comment there; a vocabulary word such as "##ing" in
 * sbw-argmax's name column).  Other cells are written as they are. */
static void print_tsv_str(FILE *f, const char *s, bool may_quote)
{
    bool quote = may_quote && strpbrk(s, "#\"") != NULL;
    if (quote)
        fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (quote && *p == '"')
            fputc('"', f);
        fputc(*p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p, f);
    }
    if (quote)
        fputc('"', f);
}

/* TSV text of a cell (text cells: print_tsv_str, quoted if may_quote: a
 * data cell; a "# key=value" line's value is a comment to every reader and
 * is written as it is). */
static void print_tsv_cell(FILE *f, const cell *c, bool may_quote)
{
    char buf[40];
    switch (c->type) {
    case CELL_EMPTY:
        fputs("nan", f);
        break;
    case CELL_STR:
        print_tsv_str(f, c->s, may_quote);
        break;
    case CELL_INT:
        fprintf(f, "%lld", c->i);
        break;
    case CELL_U64:
        fprintf(f, "%" PRIu64, c->u);
        break;
    case CELL_DBL:
        sbw_table_format_double(c->d, buf, sizeof buf);
        fputs(buf, f);
        break;
    case CELL_BOOL:
        fputs(c->i ? "true" : "false", f);
        break;
    }
}

/* s as a JSON string literal: quote and backslash escaped, control,
 * invisible and bidirectional characters (sbw_utf8_invisible) as \uXXXX
 * escapes (a surrogate pair above U+FFFF), so a reader sees them and the
 * value parses back unchanged; other well-formed UTF-8 copied, and every
 * byte that is not part of one written as U+FFFD (a JSON text must be
 * UTF-8, RFC 8259 sec. 8.1: a --vocab name in Latin-1 must not make the
 * whole output unreadable). */
static void print_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *p = s; *p;) {
        uint32_t c = 0;
        size_t n = sbw_utf8_decode(p, &c);
        if (n == 0) {
            fputs("\\ufffd", f);
            p++;
            continue;
        }
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", (char)c);
        else if (sbw_utf8_invisible(c) && c > 0xFFFF)
            fprintf(f, "\\u%04x\\u%04x", (unsigned)(0xD800 + ((c - 0x10000) >> 10)),
                    (unsigned)(0xDC00 + ((c - 0x10000) & 0x3FF)));
        else if (sbw_utf8_invisible(c))
            fprintf(f, "\\u%04x", (unsigned)c);
        else
            fwrite(p, 1, n, f);
        p += n;
    }
    fputc('"', f);
}

static void print_json_cell(FILE *f, const cell *c)
{
    if (c->type == CELL_STR)
        print_json_string(f, c->s);
    else if (c->type == CELL_EMPTY || (c->type == CELL_DBL && !isfinite(c->d)))
        fputs("null", f);
    else
        print_tsv_cell(f, c, false);
}

static void print_json_pair(FILE *f, const char *key, const cell *c, bool *first)
{
    fputs(*first ? "" : ", ", f);
    *first = false;
    print_json_string(f, key);
    fputs(": ", f);
    print_json_cell(f, c);
}

static void print_json_row(FILE *f, const sbw_table *t, size_t i, bool *first)
{
    for (size_t j = 0; j < t->ncols; j++)
        print_json_pair(f, t->cols[j], &t->cells[i * t->ncols + j], first);
}

/* A meta key "rows" beside the "rows" array would make a duplicate JSON
 * key. */
static bool json_collides(const sbw_table *t, const char *key)
{
    return t->ncols && strcmp(key, "rows") == 0;
}

static void print_json_warnings(FILE *f, bool first)
{
    fprintf(f, "%s\"warnings\": [", first ? "" : ", ");
    for (size_t i = 0, n = sbw_table_warn_count(); i < n; i++) {
        fputs(i ? ", " : "", f);
        print_json_string(f, sbw_table_warning(i));
    }
    fputc(']', f);
}

static void print_json(const sbw_table *t, FILE *f)
{
    bool first = true;
    char key[128];
    fputc('{', f);
    for (size_t i = 0; i < t->nmeta; i++) {
        const char *k = t->meta[i].key;
        if (json_collides(t, k)) {
            snprintf(key, sizeof key, "arg_%s", k);
            k = key;
        }
        print_json_pair(f, k, &t->meta[i].value, &first);
    }
    print_json_warnings(f, first);
    first = false;
    if (t->ncols) {
        fprintf(f, "%s\"rows\": [", first ? "" : ", ");
        for (size_t i = 0; i < t->nrows; i++) {
            bool rfirst = true;
            fputs(i ? ", {" : "{", f);
            print_json_row(f, t, i, &rfirst);
            fputc('}', f);
        }
        fputc(']', f);
    }
    fputs("}\n", f);
}

static void print_tsv(const sbw_table *t, FILE *f)
{
    for (size_t i = 0; i < t->nmeta; i++) {
        fprintf(f, "# %s=", t->meta[i].key);
        print_tsv_cell(f, &t->meta[i].value, false);
        fputc('\n', f);
    }
    for (size_t i = 0, n = sbw_table_warn_count(); i < n; i++)
        fprintf(f, "# warning=%s\n", sbw_table_warning(i));
    for (size_t j = 0; j < t->ncols; j++)
        fprintf(f, "%s%s", j ? "\t" : "", t->cols[j]);
    if (t->ncols)
        fputc('\n', f);
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->ncols; j++) {
            if (j)
                fputc('\t', f);
            print_tsv_cell(f, &t->cells[i * t->ncols + j], true);
        }
        fputc('\n', f);
    }
}

int sbw_table_print(const sbw_table *t, FILE *f, bool json)
{
    if (t->status)
        return table_sticky(t);
    if (json)
        print_json(t, f);
    else
        print_tsv(t, f);
    echo_warnings(t, f);
    if (fflush(f) != 0 || ferror(f))
        return SBW_ERROR(SBW_EIO, "cannot write the result table to %s: %s",
                         f == stdout   ? "stdout"
                         : f == stderr ? "stderr"
                                       : "its stream",
                         strerror(errno));
    return SBW_OK;
}

int sbw_table_write(const sbw_table *t, const char *path, bool json)
{
    if (t->status)
        return table_sticky(t);
    sbw_file out;
    int st = sbw_file_create(&out, path);
    if (st)
        return st;
    if (json)
        print_json(t, out.fp);
    else
        print_tsv(t, out.fp);
    echo_warnings(t, out.is_stdout ? stdout : NULL);
    return sbw_file_commit(&out);
}

int sbw_table_meta_copy(sbw_table *dst, const sbw_table *src)
{
    for (size_t i = 0; i < src->nmeta; i++) {
        cell *c;
        const cell *v = &src->meta[i].value;
        int st = meta_slot(dst, src->meta[i].key, &c);
        if (st)
            return st;
        char *dup = v->type == CELL_STR ? strdup(v->s) : NULL;
        if (v->type == CELL_STR && !dup)
            return table_keep(dst, SBW_ERROR(SBW_ENOMEM, "out of memory"));
        *c = *v;
        if (v->type == CELL_STR)
            c->s = dup;
    }
    return SBW_OK;
}
