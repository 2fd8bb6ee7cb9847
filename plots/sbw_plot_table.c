/* sbw_plot_table.c -- `sbw-plot table`: markdown tables from TSVs (see
 * sbw_plot_table.h). */
#include "sbw_plot_table.h"

#include "sbw.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* s with controls, invisible characters and non-UTF-8 bytes shown
 * (sbw_error_escape: at most 10 bytes out per byte in). */
static char *shown(const char *s)
{
    size_t cap = 10 * strlen(s) + 1;
    char *o = malloc(cap);
    if (o)
        sbw_error_escape(s, o, cap);
    return o;
}

static bool alnum_at(const char *s, size_t i, size_t n)
{
    return i < n && isalnum((unsigned char)s[i]);
}

/* Whether s[i] (of n) must be backslash-escaped in a table cell. */
static bool needs_escape(const char *s, size_t i, size_t n)
{
    char ch = s[i];
    if (strchr("|\\`*[]<>&~$@", ch))
        return true;
    if (ch == '_')
        return !(i > 0 && alnum_at(s, i - 1, n) && alnum_at(s, i + 1, n));
    if (ch == ':')
        return i + 2 < n + 1 && strncmp(s + i + 1, "//", 2) == 0;
    if (ch == '.') /* the dot of "www." where a word starts */
        return i >= 3 && strncmp(s + i - 3, "www", 3) == 0 && (i == 3 || !alnum_at(s, i - 4, n));
    return false;
}

int sbw_plot_table_cell(const char *s, char **out)
{
    char *v = shown(s);
    size_t n = v ? strlen(v) : 0;
    char *o = v ? malloc(2 * n + 1) : NULL;
    *out = NULL;
    if (!o) {
        free(v);
        return SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (needs_escape(v, i, n))
            o[k++] = '\\';
        o[k++] = v[i];
    }
    o[k] = '\0';
    free(v);
    *out = o;
    return SBW_OK;
}

int sbw_plot_table_code(const char *s, char **out)
{
    char *v = shown(s);
    *out = NULL;
    if (!v)
        return SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    size_t n = strlen(v), run = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        run = v[i] == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    /* a space inside the fence when the text starts or ends with a backtick
     * (CommonMark strips one space from each side) */
    bool pad = n > 0 && (v[0] == '`' || v[n - 1] == '`');
    if (n == 0) { /* "``" would be two literal backticks: a span of one space */
        free(v);
        *out = strdup("` `");
        return *out ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    }
    size_t fence = longest + 1;
    char *o = malloc(2 * fence + n + 3);
    if (!o) {
        free(v);
        return SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    }
    size_t k = 0;
    memset(o, '`', fence);
    k = fence;
    if (pad)
        o[k++] = ' ';
    memcpy(o + k, v, n);
    k += n;
    if (pad)
        o[k++] = ' ';
    memset(o + k, '`', fence);
    o[k + fence] = '\0';
    free(v);
    *out = o;
    return SBW_OK;
}

int sbw_plot_table_format_check(const char *fmt)
{
    const char *p = fmt;
    if (*p++ != '%')
        goto bad;
    if (*p == '+' || *p == ' ')
        p++;
    for (int i = 0; i < 2 && isdigit((unsigned char)*p); i++)
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            goto bad;
        p++;
        if (isdigit((unsigned char)*p))
            p++;
    }
    if ((*p == 'e' || *p == 'f' || *p == 'g') && p[1] == '\0')
        return SBW_OK;
bad:
    return SBW_ERROR(SBW_EINVAL,
                     "--format: '%s' is not a number format %%[+ ][W][.P]e|f|g (e.g. %%.4g)", fmt);
}

/* digits from *p on; true when there was at least one */
static bool digits(const char **p)
{
    const char *s = *p;
    while (isdigit((unsigned char)**p))
        (*p)++;
    return *p > s;
}

/* A number written with a fraction or an exponent: -?D+.D+(e[-+]?D+)? or
 * -?D+e[-+]?D+ (what a format applies to; integers are counts). */
static bool is_real(const char *s)
{
    const char *p = s + (*s == '-');
    if (!digits(&p))
        return false;
    bool frac = false;
    if (*p == '.') {
        p++;
        if (!digits(&p))
            return false;
        frac = true;
    }
    if (*p == 'e') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        return digits(&p) && *p == '\0';
    }
    return frac && *p == '\0';
}

/* ---- resolving columns ------------------------------------------------- */

/* The input (0-based) and column of (input, name) for a joined table: the
 * given input, or the first that has it; -1 in *ti when none does. */
static void find_col(const sbw_tsv *t, size_t n, size_t input, const char *name, long *ti, long *ci)
{
    *ti = *ci = -1;
    for (size_t i = input ? input - 1 : 0; i < n && (input == 0 || i == input - 1); i++) {
        long c = sbw_tsv_col(&t[i], name);
        if (c >= 0) {
            *ti = (long)i;
            *ci = c;
            return;
        }
    }
}

static int no_column(const sbw_tsv *t, size_t n, size_t input, const char *name)
{
    if (input > n)
        return SBW_ERROR(SBW_EDATA, "table: column %zu:%s: there are only %zu inputs", input, name,
                         n);
    return SBW_ERROR(SBW_EDATA, "%s: no column '%s'%s", t[input ? input - 1 : 0].path, name,
                     input || n == 1 ? "" : " (nor in the other inputs)");
}

/* Whether row q of input i (0-based) passes the --where conditions aimed at
 * that input by an explicit I: prefix (in a join, those choose the rows of
 * input I that may meet the first input's rows). */
static bool candidate(const sbw_plot_table_spec *sp, const sbw_tsv *t, size_t i, size_t q)
{
    for (size_t a = 0; a < sp->nwhere; a++) {
        const sbw_plot_table_cond *c = &sp->where[a];
        if (c->input != i + 1)
            continue;
        bool any = false; /* alternatives: the conditions on the same column */
        for (size_t b = 0; b < sp->nwhere; b++) {
            const sbw_plot_table_cond *d = &sp->where[b];
            long col = sbw_tsv_col(&t[i], d->name);
            if (d->input == c->input && strcmp(d->name, c->name) == 0 && col >= 0)
                any = any || strcmp(sbw_tsv_str(&t[i], q, (size_t)col), d->value) == 0;
        }
        if (!any)
            return false;
    }
    return true;
}

/* For a joined table: the row of input i matching row r of input 0 on the
 * key among its candidate rows (-1 when none), in match[i] for every i.
 * Errors: SBW_EDATA for a missing key column or a key on two candidate rows
 * of input i > 0. */
static int join_rows(const sbw_plot_table_spec *sp, const sbw_tsv *t, size_t n, size_t r,
                     long *match)
{
    size_t k0;
    const char *key = sp->join;
    int st = sbw_tsv_need(&t[0], key, &k0);
    match[0] = (long)r;
    for (size_t i = 1; i < n && !st; i++) {
        size_t ki;
        st = sbw_tsv_need(&t[i], key, &ki);
        match[i] = -1;
        for (size_t q = 0; q < t[i].nrow && !st; q++) {
            if (strcmp(sbw_tsv_str(&t[i], q, ki), sbw_tsv_str(&t[0], r, k0)) != 0 ||
                !candidate(sp, t, i, q))
                continue;
            if (match[i] >= 0)
                st = SBW_ERROR(SBW_EDATA,
                               "%s: key %s '%s' on more than one row (--join needs one; "
                               "--where %zu:COL=VALUE narrows them)",
                               t[i].path, key, sbw_tsv_str(&t[0], r, k0), i + 1);
            match[i] = (long)q;
        }
    }
    return st;
}

/* The text of (input, name) in the current row: match[i] is the row of
 * input i (-1: none); the first input (or the given one) that has the
 * column and a row; NULL when none has. */
static const char *cell_of(const sbw_tsv *t, size_t n, const long *match, size_t input,
                           const char *name)
{
    for (size_t i = input ? input - 1 : 0; i < n && (input == 0 || i == input - 1); i++) {
        long c = sbw_tsv_col(&t[i], name);
        if (c >= 0 && match[i] >= 0)
            return sbw_tsv_str(&t[i], (size_t)match[i], (size_t)c);
    }
    return NULL;
}

/* Whether the current row passes every --where condition. */
static bool row_kept(const sbw_plot_table_spec *sp, const sbw_tsv *t, size_t n, const long *match)
{
    for (size_t i = 0; i < sp->nwhere; i++) {
        if (sp->join && sp->where[i].input > 1)
            continue; /* chose the rows joined (candidate) */
        bool any = false;
        for (size_t j = 0; j < sp->nwhere; j++) {
            const sbw_plot_table_cond *c = &sp->where[j];
            if (c->input != sp->where[i].input || strcmp(c->name, sp->where[i].name) != 0)
                continue;
            const char *v = cell_of(t, n, match, c->input, c->name);
            any = any || (v && strcmp(v, c->value) == 0);
        }
        if (!any)
            return false;
    }
    return true;
}

/* ---- rendering --------------------------------------------------------- */

static int put_cell(FILE *out, const char *text, const char *format)
{
    char num[64], *esc = NULL;
    if (format && is_real(text)) {
        /* format passed sbw_plot_table_format_check: one conversion of a double */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(num, sizeof num, format, strtod(text, NULL));
#pragma GCC diagnostic pop
        text = num;
    }
    int st = sbw_plot_table_cell(text, &esc);
    if (!st && fprintf(out, " %s |", esc) < 0)
        st = SBW_ERROR(SBW_EIO, "table: cannot write");
    free(esc);
    return st;
}

/* Every column of input 1 when the spec names none. */
static int default_cols(const sbw_tsv *t, const char *format, sbw_plot_table_col **cols, size_t *nc)
{
    *cols = calloc(t[0].ncol ? t[0].ncol : 1, sizeof **cols);
    if (!*cols)
        return SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    for (size_t j = 0; j < t[0].ncol; j++)
        (*cols)[j] = (sbw_plot_table_col){1, t[0].col[j], t[0].col[j], format};
    *nc = t[0].ncol;
    return SBW_OK;
}

static int put_header(FILE *out, const sbw_plot_table_col *cols, size_t nc)
{
    int st = fputc('|', out) == EOF ? SBW_ERROR(SBW_EIO, "table: cannot write") : SBW_OK;
    for (size_t j = 0; j < nc && !st; j++)
        st = put_cell(out, cols[j].header ? cols[j].header : cols[j].name, NULL);
    st = st ? st : (fputs("\n|", out) == EOF ? SBW_ERROR(SBW_EIO, "table: cannot write") : 0);
    for (size_t j = 0; j < nc && !st; j++)
        if (fputs("---|", out) == EOF)
            st = SBW_ERROR(SBW_EIO, "table: cannot write");
    return st ? st : (fputc('\n', out) == EOF ? SBW_ERROR(SBW_EIO, "table: cannot write") : 0);
}

static int put_row(FILE *out, const sbw_plot_table_spec *sp, const sbw_plot_table_col *cols,
                   size_t nc, const sbw_tsv *t, size_t n, const long *match)
{
    int st = fputc('|', out) == EOF ? SBW_ERROR(SBW_EIO, "table: cannot write") : SBW_OK;
    for (size_t j = 0; j < nc && !st; j++) {
        const char *v = cell_of(t, n, match, cols[j].input, cols[j].name);
        st = put_cell(out, v ? v : sp->missing, v ? cols[j].format : NULL);
    }
    return st ? st : (fputc('\n', out) == EOF ? SBW_ERROR(SBW_EIO, "table: cannot write") : 0);
}

/* Every named column and condition exists in some input. */
static int check_names(const sbw_plot_table_spec *sp, const sbw_plot_table_col *cols, size_t nc,
                       const sbw_tsv *t, size_t n)
{
    long ti, ci;
    for (size_t j = 0; j < nc; j++) {
        find_col(t, n, cols[j].input, cols[j].name, &ti, &ci);
        if (ti < 0)
            return no_column(t, n, cols[j].input, cols[j].name);
    }
    for (size_t j = 0; j < sp->nwhere; j++) {
        find_col(t, n, sp->where[j].input, sp->where[j].name, &ti, &ci);
        if (ti < 0)
            return no_column(t, n, sp->where[j].input, sp->where[j].name);
    }
    return SBW_OK;
}

/* The rows: input 0's joined with the others, or every input's in turn. */
static int put_rows(FILE *out, const sbw_plot_table_spec *sp, const sbw_plot_table_col *cols,
                    size_t nc, const sbw_tsv *t, size_t n, long *match, size_t *kept)
{
    int st = SBW_OK;
    size_t nin = sp->join ? 1 : n;
    for (size_t i = 0; i < nin && !st; i++)
        for (size_t r = 0; r < t[i].nrow && !st; r++) {
            for (size_t q = 0; q < n; q++)
                match[q] = q == i ? (long)r : -1;
            if (sp->join)
                st = join_rows(sp, t, n, r, match);
            if (st || !row_kept(sp, t, n, match))
                continue;
            st = put_row(out, sp, cols, nc, t, n, match);
            (*kept)++;
        }
    return st;
}

int sbw_plot_table_render(const sbw_plot_table_spec *sp, const sbw_tsv *t, size_t n, FILE *out)
{
    sbw_plot_table_col *own = NULL;
    const sbw_plot_table_col *cols = sp->cols;
    size_t nc = sp->ncols, kept = 0;
    long *match = calloc(n ? n : 1, sizeof *match);
    int st = match ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    if (!st && nc == 0) {
        st = default_cols(t, sp->format, &own, &nc);
        cols = own;
    }
    st = st ? st : check_names(sp, cols, nc, t, n);
    st = st ? st : put_header(out, cols, nc);
    st = st ? st : put_rows(out, sp, cols, nc, t, n, match, &kept);
    if (!st && kept == 0)
        st = SBW_ERROR(SBW_EDATA, "%s: no row left after --where", t[0].path);
    free(own);
    free(match);
    return st;
}

/* "`NAME`: `CMD`" for source t. */
static int put_source(FILE *out, const sbw_tsv *t)
{
    const char *cmd = sbw_tsv_meta(t, "command");
    char *name = NULL, *code = NULL;
    int st = sbw_plot_table_code(t->path, &name);
    st = st ? st : sbw_plot_table_code(cmd ? cmd : "", &code);
    if (!st && (cmd ? fprintf(out, "%s: %s", name, code)
                    : fprintf(out, "%s: no `# command=` line", name)) < 0)
        st = SBW_ERROR(SBW_EIO, "table: cannot write");
    free(name);
    free(code);
    return st;
}

int sbw_plot_table_cite(const sbw_tsv *t, size_t n, FILE *out)
{
    int st = SBW_OK;
    if (n == 1) {
        fputs("\n<sub>From ", out);
        st = put_source(out, &t[0]);
        fputs("</sub>\n", out);
    } else {
        fputs("\n<details><summary>The command behind each number</summary>\n\n", out);
        for (size_t i = 0; i < n && !st; i++) {
            fputs("- ", out);
            st = put_source(out, &t[i]);
            fputc('\n', out);
        }
        fputs("\n</details>\n", out);
    }
    return st || ferror(out) ? (st ? st : SBW_ERROR(SBW_EIO, "table: cannot write")) : SBW_OK;
}

/* ---- the command ------------------------------------------------------- */

static const char details[] =
    "Renders a GitHub-markdown table from the TSVs (the tools' tables: '# key=value'\n"
    "lines, a column-name line, rows) and cites below it the '# command=' line of\n"
    "every source, so each number names the command that made it.  It selects,\n"
    "renames, filters, joins and formats; it computes nothing.\n\n"
    "  --columns [I:]COL[=HEADER],...  the columns shown, in order (default: every\n"
    "                 column of the first input); I picks input I (1-based),\n"
    "                 otherwise the first input that has COL; HEADER renames it\n"
    "  --where [I:]COL=VALUE,...  keep the rows whose COL is VALUE (text equality);\n"
    "                 several values of one column are alternatives, different\n"
    "                 columns must all match; with --join, I:COL=VALUE for an\n"
    "                 input I >= 2 chooses which of its rows may be joined\n"
    "  --join KEY     each row of the first input meets the row of every other\n"
    "                 input with the same KEY (a key twice in one input is an\n"
    "                 error); without it the inputs' rows are stacked\n"
    "  --format [COL=]FMT,...  %[+ ][W][.P]e|f|g for the numbers of COL (all\n"
    "                 columns without COL=) written with a fraction or exponent;\n"
    "                 integers (counts), nan and words are shown as written\n"
    "  --missing TEXT a cell no input has [—]\n"
    "  --cite FILE,...  cite these tables' commands instead (a table assembled\n"
    "                 from tool runs); --no-cite: no citation\n\n"
    "Every cell is text, never markup: | \\ ` * [ ] < > & ~ $ @ (and _ : . where\n"
    "they could start emphasis or a link) are backslash-escaped, control and\n"
    "invisible characters shown as \\xNN or \\u{XXXX}; commands are code spans.\n"
    "The table goes to stdout, or to -o FILE (written whole or not at all).\n\n"
    "Examples:\n"
    "  sbw-plot table rank.tsv --columns rank,rank_numpy,w0 --format %.4g\n"
    "  sbw-plot table ours.tsv paper.tsv --join k --columns k,1:rank=ours,2:rank=paper\n";

typedef struct table_args {
    const char *columns, *where, *join, *format, *missing, *cite;
    bool no_cite;
} table_args;

/* Splits a comma list into a new array of strings inside one new buffer
 * (*buf; caller frees *buf and *items).  "" gives n = 0. */
static int split(const char *s, char **buf, char ***items, size_t *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    *buf = strdup(s);
    *items = calloc(cap, sizeof **items);
    *n = 0;
    if (!*buf || !*items)
        return SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    if (!**buf)
        return SBW_OK;
    for (char *p = *buf, *c; p; p = c ? c + 1 : NULL) {
        c = strchr(p, ',');
        if (c)
            *c = '\0';
        (*items)[(*n)++] = p;
    }
    return SBW_OK;
}

/* "I:" at the start of *s: the input number, *s moved past it (0: none). */
static int input_prefix(char **s, size_t n, size_t *input, const char *opt)
{
    char *c = *s;
    *input = 0;
    while (isdigit((unsigned char)*c))
        c++;
    if (c == *s || *c != ':')
        return SBW_OK;
    *input = (size_t)strtoul(*s, NULL, 10);
    if (*input < 1 || *input > n)
        return SBW_ERROR(SBW_EINVAL, "%s: input %.*s in '%s' is not 1..%zu", opt, (int)(c - *s), *s,
                         *s, n);
    *s = c + 1;
    return SBW_OK;
}

/* --columns into cols (pointing into the split buffer). */
static int parse_columns(char **it, size_t m, size_t n, sbw_plot_table_col *cols)
{
    for (size_t j = 0; j < m; j++) {
        char *s = it[j], *eq;
        int st = input_prefix(&s, n, &cols[j].input, "--columns");
        if (st)
            return st;
        if ((eq = strchr(s, '=')) != NULL)
            *eq = '\0';
        cols[j].name = s;
        cols[j].header = eq ? eq + 1 : s;
        if (!*s)
            return SBW_ERROR(SBW_EINVAL, "--columns: an empty column name");
    }
    return SBW_OK;
}

static int parse_where(char **it, size_t m, size_t n, sbw_plot_table_cond *w)
{
    for (size_t j = 0; j < m; j++) {
        char *s = it[j], *eq = strchr(s, '=');
        if (!eq || eq == s)
            return SBW_ERROR(SBW_EINVAL, "--where: '%s' is not COL=VALUE", s);
        *eq = '\0';
        int st = input_prefix(&s, n, &w[j].input, "--where");
        if (st)
            return st;
        w[j].name = s;
        w[j].value = eq + 1;
    }
    return SBW_OK;
}

/* --format: per column, or for every column without a COL= (*all). */
static int parse_formats(char **it, size_t m, sbw_plot_table_col *cols, size_t nc, const char **all)
{
    *all = NULL;
    for (size_t j = 0; j < m; j++) {
        char *eq = it[j][0] == '%' ? NULL : strchr(it[j], '=');
        const char *fmt = eq ? eq + 1 : it[j];
        int st = sbw_plot_table_format_check(fmt);
        if (st)
            return st;
        if (!eq) {
            *all = fmt;
            continue;
        }
        *eq = '\0';
        bool found = false;
        for (size_t c = 0; c < nc; c++)
            if (strcmp(cols[c].name, it[j]) == 0) {
                cols[c].format = fmt;
                found = true;
            }
        if (!found)
            return SBW_ERROR(SBW_EINVAL, "--format: '%s' is not a column shown", it[j]);
    }
    for (size_t c = 0; c < nc; c++)
        if (!cols[c].format)
            cols[c].format = *all;
    return SBW_OK;
}

typedef struct table_run {
    char *buf[4];
    char **it[4];
    size_t nit[4];
    sbw_plot_table_col *cols;
    sbw_plot_table_cond *where;
    sbw_tsv *tabs, *cited;
    size_t ntab, ncited;
} table_run;

static void run_free(table_run *r)
{
    for (int i = 0; i < 4; i++) {
        free(r->buf[i]);
        free(r->it[i]);
    }
    for (size_t i = 0; i < r->ntab; i++)
        sbw_tsv_free(&r->tabs[i]);
    for (size_t i = 0; i < r->ncited; i++)
        sbw_tsv_free(&r->cited[i]);
    free(r->tabs);
    free(r->cited);
    free(r->cols);
    free(r->where);
}

/* The options into the spec: usage errors (SBW_EINVAL). */
static int build_spec(const table_args *a, size_t n, table_run *r, sbw_plot_table_spec *sp)
{
    const char *src[3] = {a->columns ? a->columns : "", a->where ? a->where : "",
                          a->format ? a->format : ""};
    int st = SBW_OK;
    for (int i = 0; i < 3 && !st; i++)
        st = split(src[i], &r->buf[i], &r->it[i], &r->nit[i]);
    r->cols = st ? NULL : calloc(r->nit[0] + 1, sizeof *r->cols);
    r->where = st ? NULL : calloc(r->nit[1] + 1, sizeof *r->where);
    if (!st && (!r->cols || !r->where))
        st = SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    st = st ? st : parse_columns(r->it[0], r->nit[0], n, r->cols);
    st = st ? st : parse_where(r->it[1], r->nit[1], n, r->where);
    const char *all = NULL;
    st = st ? st : parse_formats(r->it[2], r->nit[2], r->cols, r->nit[0], &all);
    *sp = (sbw_plot_table_spec){r->cols, r->nit[0], r->where, r->nit[1], a->join, a->missing, all};
    return st;
}

/* Reads paths[0..n) into a new array *t. */
static int read_all(char **paths, size_t n, sbw_tsv **t, size_t *nread)
{
    *t = calloc(n ? n : 1, sizeof **t);
    *nread = 0;
    if (!*t)
        return SBW_ERROR(SBW_ENOMEM, "table: out of memory");
    for (size_t i = 0; i < n; i++) {
        int st = sbw_tsv_read(&(*t)[i], paths[i]);
        if (st)
            return st;
        (*nread)++;
    }
    return SBW_OK;
}

/* The table and its citation into the output file. */
static int write_table(const sbw_plot_table_spec *sp, const table_args *a, table_run *r,
                       const char *out)
{
    sbw_file f;
    int st = sbw_file_create(&f, out ? out : "-");
    if (st)
        return st;
    st = sbw_plot_table_render(sp, r->tabs, r->ntab, f.fp);
    if (!st && !a->no_cite)
        st = a->cite ? sbw_plot_table_cite(r->cited, r->ncited, f.fp)
                     : sbw_plot_table_cite(r->tabs, r->ntab, f.fp);
    if (st) {
        sbw_file_abort(&f);
        return st;
    }
    return sbw_file_commit(&f);
}

/* Reads the inputs and the cited tables, then writes. */
static int run(const table_args *a, const sbw_cli_common *c, table_run *r,
               const sbw_plot_table_spec *sp)
{
    const sbw_preflight_out po[] = {{"-o", c->output ? c->output : "-", false}};
    int st = sbw_preflight((const char **)c->args, (size_t)c->nargs, po, 1);
    st = st ? st : read_all(c->args, (size_t)c->nargs, &r->tabs, &r->ntab);
    if (!st && a->cite) {
        st = split(a->cite, &r->buf[3], &r->it[3], &r->nit[3]);
        st = st ? st : read_all(r->it[3], r->nit[3], &r->cited, &r->ncited);
    }
    return st ? st : write_table(sp, a, r, c->output);
}

int sbw_plot_table_main(int argc, char **argv)
{
    table_args a = {.missing = "—"};
    const sbw_cli_opt opts[] = {
        {"--columns", "[I:]COL[=H],...", SBW_ARG_STRING, &a.columns, 0, 0, "the columns shown"},
        {"--where", "COL=V,...", SBW_ARG_STRING, &a.where, 0, 0, "keep the matching rows"},
        {"--join", "KEY", SBW_ARG_STRING, &a.join, 0, 0, "join the inputs on column KEY"},
        {"--format", "[COL=]FMT,...", SBW_ARG_STRING, &a.format, 0, 0, "number formats"},
        {"--missing", "TEXT", SBW_ARG_STRING, &a.missing, 0, 0, "a cell no input has [—]"},
        {"--cite", "FILE,...", SBW_ARG_STRING, &a.cite, 0, 0, "cite these tables' commands"},
        {"--no-cite", NULL, SBW_ARG_FLAG, &a.no_cite, 0, 0, "no citation below the table"},
        {0}};
    const sbw_cli cli = {"sbw-plot table",
                         "TABLE.tsv...",
                         "A markdown table from TSVs, with the command of every source.",
                         details,
                         opts,
                         1,
                         1000,
                         SBW_CLI_OUTPUT};
    sbw_cli_common c;
    sbw_plot_table_spec sp = {0};
    table_run r = {0};
    /* argv[0] is "table": the parser reads the rest */
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if (a.cite && a.no_cite)
        st = sbw_cli_usage_error(&cli, "--cite and --no-cite contradict each other");
    else if (build_spec(&a, (size_t)c.nargs, &r, &sp))
        st = sbw_cli_usage_error(&cli, "%s", sbw_error_reason());
    if (!st) {
        int rs = run(&a, &c, &r, &sp);
        st = rs ? sbw_cli_fail("sbw-plot", rs) : SBW_EXIT_OK;
    }
    run_free(&r);
    return st;
}
