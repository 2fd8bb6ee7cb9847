/* test_tsv.c -- core/sbw_tsv, the one reader of the tools' tables: meta,
 * comments, column names, rows and their line numbers, the whole-table and
 * the row-by-row ways in against each other and against random tables
 * whose contents the generator knows (LF and CRLF, blank and comment lines
 * anywhere, no final newline), text cells written by sbw_table (quoted when
 * they hold '#' or '"') read back as they were, and every refusal: no
 * header, a ragged row, an empty or repeated column name, a number that is
 * not one, a quoted cell not closed, a missing file. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_table.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *write_text(const char *name, const char *text)
{
    return sbw_test_write(name, text, strlen(text));
}

/* ---- what a table holds -------------------------------------------------- */

static void test_reads_meta_columns_cells(void **state)
{
    (void)state;
    const char *p = write_text("t.tsv", "# tool=sbw-x\n# alpha=0.1\n#  a comment = not meta\n"
                                        "# alpha=0.2\n\nd\tkl_mean\tmodel\r\n1\t0.5\tmos\n"
                                        "\n2\tnan\tsoftmax\n");
    sbw_tsv t;
    SBW_ASSERT_OK(sbw_tsv_read(&t, p));
    SBW_ASSERT_EQ(t.ncol, (size_t)3);
    SBW_ASSERT_EQ(t.nrow, (size_t)2);
    SBW_ASSERT_EQ(t.nmeta, (size_t)3);
    assert_string_equal(sbw_tsv_meta(&t, "alpha"), "0.2"); /* the last one wins */
    assert_string_equal(t.val[1], "0.1");                  /* both kept, in order */
    assert_string_equal(sbw_tsv_meta(&t, "tool"), "sbw-x");
    assert_null(sbw_tsv_meta(&t, "a"));
    SBW_ASSERT_EQ(sbw_tsv_col(&t, "model"), 2L); /* \r stripped */
    SBW_ASSERT_EQ(sbw_tsv_col(&t, "nope"), -1L);
    SBW_ASSERT_EQ(t.header_line, (size_t)6);
    SBW_ASSERT_EQ(t.comment_line, (size_t)3);
    SBW_ASSERT_EQ(t.line[0], (size_t)7);
    SBW_ASSERT_EQ(t.line[1], (size_t)9); /* blank lines counted */
    double x;
    SBW_ASSERT_OK(sbw_tsv_num(&t, 0, 1, &x));
    SBW_ASSERT_EQ(x, 0.5);
    SBW_ASSERT_OK(sbw_tsv_num(&t, 1, 1, &x));
    assert_true(isnan(x));
    assert_string_equal(sbw_tsv_str(&t, 1, 2), "softmax");
    SBW_ASSERT_EQ(sbw_tsv_num(&t, 1, 2, &x), SBW_EDATA);
    assert_non_null(
        strstr(sbw_error_reason(), "t.tsv: row 2, column 'model': 'softmax' is not a number"));
    size_t c;
    SBW_ASSERT_EQ(sbw_tsv_need(&t, "rank", &c), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "no column 'rank' (columns: d kl_mean model)"));
    SBW_ASSERT_OK(sbw_tsv_need(&t, "kl_mean", &c));
    SBW_ASSERT_EQ(c, (size_t)1);
    sbw_tsv_free(&t);
    sbw_tsv_free(&t); /* zeroed: fine twice */
}

/* Meta lines are "# key=value" with key [A-Za-z0-9_]+ exactly; anything
 * else after "#" is a comment, wherever it stands (between rows too). */
static void test_meta_grammar(void **state)
{
    (void)state;
    const char *p = write_text("m.tsv", "#\n#x=1\n# =1\n# a-b=1\n# a b=1\n#  k=1\n# k_2=a=b\n"
                                        "# e=\nc\n# late=yes\n1\n#\n");
    sbw_tsv t;
    SBW_ASSERT_OK(sbw_tsv_read(&t, p));
    SBW_ASSERT_EQ(t.nmeta, (size_t)3);
    assert_string_equal(t.key[0], "k_2");
    assert_string_equal(t.val[0], "a=b"); /* split at the first '=' */
    assert_string_equal(t.key[1], "e");
    assert_string_equal(t.val[1], "");
    assert_string_equal(sbw_tsv_meta(&t, "late"), "yes");
    SBW_ASSERT_EQ(t.comment_line, (size_t)1);
    SBW_ASSERT_EQ(t.header_line, (size_t)9);
    SBW_ASSERT_EQ(t.nrow, (size_t)1);
    SBW_ASSERT_EQ(t.line[0], (size_t)11);
    sbw_tsv_free(&t);
}

/* A CRLF file reads as its LF twin; a last line without '\n' as any
 * other; "\r" alone is a blank line. */
static void test_crlf_and_no_final_newline(void **state)
{
    (void)state;
    sbw_tsv a, b, c;
    SBW_ASSERT_OK(sbw_tsv_read(&a, write_text("lf.tsv", "# k=v\nx\ty\n1\t2\n3\t4\n")));
    SBW_ASSERT_OK(
        sbw_tsv_read(&b, write_text("crlf.tsv", "# k=v\r\nx\ty\r\n\r\n1\t2\r\n3\t4\r\n")));
    SBW_ASSERT_OK(sbw_tsv_read(&c, write_text("nonl.tsv", "# k=v\nx\ty\n1\t2\n3\t4")));
    const sbw_tsv *v[] = {&b, &c};
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(sbw_tsv_meta(v[i], "k"), "v");
        SBW_ASSERT_EQ(v[i]->ncol, (size_t)2);
        SBW_ASSERT_EQ(v[i]->nrow, (size_t)2);
        for (size_t j = 0; j < 4; j++)
            assert_string_equal(v[i]->cell[j], a.cell[j]);
    }
    SBW_ASSERT_EQ(b.line[1], (size_t)5);
    sbw_tsv_free(&a);
    sbw_tsv_free(&b);
    sbw_tsv_free(&c);
}

/* A line longer than any buffer (2 MB in one cell) and a header of
 * 100,000 columns read whole. */
static void test_long_lines(void **state)
{
    (void)state;
    size_t big = (size_t)2 << 20, ncol = 100000;
    char *text = malloc(big + 64);
    assert_non_null(text);
    size_t o = (size_t)sprintf(text, "a\tb\n1\t");
    memset(text + o, 'z', big);
    o += big;
    o += (size_t)sprintf(text + o, "\n");
    sbw_tsv t;
    SBW_ASSERT_OK(sbw_tsv_read(&t, sbw_test_write("long.tsv", text, o)));
    SBW_ASSERT_EQ(strlen(sbw_tsv_str(&t, 0, 1)), big);
    sbw_tsv_free(&t);
    free(text);

    text = malloc(ncol * 16 + 64);
    assert_non_null(text);
    o = 0;
    for (int row = 0; row < 2; row++)
        for (size_t j = 0; j < ncol; j++)
            o += (size_t)sprintf(text + o, row ? "%zu%c" : "c%zu%c", j, j + 1 < ncol ? '\t' : '\n');
    SBW_ASSERT_OK(sbw_tsv_read(&t, sbw_test_write("wide.tsv", text, o)));
    SBW_ASSERT_EQ(t.ncol, ncol);
    SBW_ASSERT_EQ(sbw_tsv_col(&t, "c99999"), 99999L);
    assert_string_equal(sbw_tsv_str(&t, 0, 99999), "99999");
    sbw_tsv_free(&t);
    free(text);
}

/* strtod's syntax over the whole text, nothing less. */
static void test_parse(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        bool ok;
        double x;
    } cases[] = {
        {"0.5", true, 0.5},      {"-2e3", true, -2000},     {" 7", true, 7},  {"0x10", true, 16},
        {"inf", true, HUGE_VAL}, {"1e999", true, HUGE_VAL}, {"", false, 0},   {"7 ", false, 0},
        {"1,5", false, 0},       {"abc", false, 0},         {"1e", false, 0}, {"--1", false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double x = -42;
        bool ok = sbw_tsv_parse(cases[i].s, &x);
        assert_true(ok == cases[i].ok);
        SBW_ASSERT_EQ(x, ok ? cases[i].x : -42.0); /* untouched when refused */
    }
    double x;
    assert_true(sbw_tsv_parse("nan", &x) && isnan(x));
}

/* ---- refusals ------------------------------------------------------------ */

static void test_refuses_bad_tables(void **state)
{
    (void)state;
    static const struct {
        const char *text, *reason;
        int status;
    } cases[] = {
        {"a\tb\n1\t2\n3\n", "line 3 has 1 cells, the header line 2", SBW_EFORMAT},
        {"a\tb\n1\t2\t3\n", "line 2 has 3 cells, the header line 2", SBW_EFORMAT},
        {"a\tb\n1\t2\n\n# c\n1\t2\t\n", "line 5 has 3 cells, the header line 2", SBW_EFORMAT},
        {"# x=1\n", "no column-name line (is it a table?)", SBW_EFORMAT},
        {"", "no column-name line", SBW_EFORMAT},
        {"\n\r\n# only comments\n", "no column-name line", SBW_EFORMAT},
        {"# x=1\na\tb\n", "no data rows", SBW_EDATA},
        {"a\ta\n1\t2\n", "column 'a' appears twice in the header line", SBW_EFORMAT},
        {"b\ta\tc\ta\tb\n1\t2\t3\t4\t5\n", "column 'a' appears twice", SBW_EFORMAT},
        {"a\t\tb\n1\t2\t3\n", "column 2 of the header line has no name", SBW_EFORMAT},
        {"a\tb\t\n1\t2\t3\n", "column 3 of the header line has no name", SBW_EFORMAT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sbw_tsv t;
        const char *p = write_text("bad.tsv", cases[i].text);
        SBW_ASSERT_EQ(sbw_tsv_read(&t, p), cases[i].status);
        assert_non_null(strstr(sbw_error_reason(), cases[i].reason));
        assert_non_null(strstr(sbw_error_reason(), p));
        assert_true(t.path == NULL && t.ncol == 0 && t.nrow == 0 && t.in.fp == NULL);
    }
    sbw_tsv t;
    SBW_ASSERT_EQ(sbw_tsv_read(&t, sbw_test_path("missing.tsv")), SBW_EIO);
    assert_non_null(strstr(sbw_error_reason(), "missing.tsv: cannot open"));
    SBW_ASSERT_EQ(sbw_tsv_open(&t, sbw_test_path("missing.tsv")), SBW_EIO);
    SBW_ASSERT_EQ(sbw_tsv_read(&t, sbw_test_path("")), SBW_EIO); /* a folder */
    assert_null(t.path);
}

/* ---- quoted text cells ---------------------------------------------------- */

/* Text cells through sbw_table's writer and back through the reader: every
 * string (with '#' and '"' anywhere: a vocabulary word such as "##ing", a
 * quote, a cell that is only quotes) reads back as given, and a cell
 * holding neither is written as it is. */
static void test_quoted_cells_round_trip(void **state)
{
    (void)state;
    static const char *const words[] = {"##ing",   "#",     "a\"b", "\"",  "\"\"",     "\"quoted\"",
                                        "x#\"\"y", "plain", "",     "a b", "\"#\t#\"", "#\"#"};
    static const char *const read_as[] = {"##ing", "#",          "a\"b",    "\"",
                                          "\"\"",  "\"quoted\"", "x#\"\"y", "plain",
                                          "",      "a b",        "\"# #\"", "#\"#"};
    size_t n = sizeof words / sizeof *words;
    sbw_table *tab;
    SBW_ASSERT_OK(sbw_table_alloc(&tab, "sbw-test", NULL, false));
    SBW_ASSERT_OK(sbw_table_meta_str(tab, "vocab", "a#\"b.txt")); /* a comment line: as it is */
    const char *cols[] = {"word", "name"};
    SBW_ASSERT_OK(sbw_table_columns(tab, cols, 2));
    for (size_t i = 0; i < n; i++) {
        SBW_ASSERT_OK(sbw_table_add_row(tab));
        SBW_ASSERT_OK(sbw_table_set_int(tab, "word", (long long)i));
        SBW_ASSERT_OK(sbw_table_set_str(tab, "name", words[i]));
    }
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("q.tsv"));
    SBW_ASSERT_OK(sbw_table_write(tab, path, false));
    sbw_table_free(tab);
    sbw_tsv t;
    SBW_ASSERT_OK(sbw_tsv_read(&t, path));
    assert_int_equal(t.nrow, n);
    assert_string_equal(sbw_tsv_meta(&t, "vocab"), "a#\"b.txt");
    for (size_t i = 0; i < n; i++)
        assert_string_equal(sbw_tsv_str(&t, i, 1), read_as[i]);
    sbw_tsv_free(&t);
    /* the file: quotes only where needed, '"' doubled inside them */
    FILE *f = fopen(path, "r");
    char text[2048];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    assert_non_null(strstr(text, "\n0\t\"##ing\"\n"));
    assert_non_null(strstr(text, "\n2\t\"a\"\"b\"\n"));
    assert_non_null(strstr(text, "\n7\tplain\n"));
    assert_non_null(strstr(text, "\n9\ta b\n"));
    assert_non_null(strstr(text, "\n# vocab=a#\"b.txt\n"));
}

/* Quoted cells as a person might write them: "" inside is one quote, a
 * quote inside an unquoted cell is text, a quoted column name loses its
 * quotes; an unclosed quote (also one cut by a tab) or text after the
 * closing quote is refused naming the file and the line. */
static void test_quoted_cells_by_hand(void **state)
{
    (void)state;
    const char *p = write_text("h.tsv", "\"a b\"\tc\n\"x\"\"y\"\tp\"q\n\"\"\t\"#\"\n");
    sbw_tsv t;
    SBW_ASSERT_OK(sbw_tsv_read(&t, p));
    assert_string_equal(t.col[0], "a b");
    assert_string_equal(sbw_tsv_str(&t, 0, 0), "x\"y");
    assert_string_equal(sbw_tsv_str(&t, 0, 1), "p\"q");
    assert_string_equal(sbw_tsv_str(&t, 1, 0), "");
    assert_string_equal(sbw_tsv_str(&t, 1, 1), "#");
    sbw_tsv_free(&t);
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"a\tb\n1\t\"x\n", "line 2: a quoted cell"},
        {"a\tb\n1\t\"x\"y\n", "line 2: a quoted cell"},
        {"a\tb\n\"1\t2\"\n", "is not closed"},
        {"a\tb\n1\t\"x\"\"\n", "is not closed"},
        {"\"a\"b\tc\n1\t2\n", "has text after its closing quote"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = write_text("hb.tsv", bad[i].text);
        SBW_ASSERT_EQ(sbw_tsv_read(&t, p), SBW_EFORMAT);
        assert_non_null(strstr(sbw_error_reason(), bad[i].reason));
        assert_non_null(strstr(sbw_error_reason(), p));
    }
}

/* A NUL byte ends its line's text: here the row has one cell, not two. */
static void test_nul_ends_a_line(void **state)
{
    (void)state;
    static const char text[] = "a\tb\n1\0x\t2\n";
    sbw_tsv t;
    SBW_ASSERT_EQ(sbw_tsv_read(&t, sbw_test_write("nul.tsv", text, sizeof text - 1)), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "line 2 has 1 cells"));
}

/* ---- row by row ---------------------------------------------------------- */

/* open stops at the header (a file with no header is no error); next
 * gives the rows one at a time, the meta between them, and after a ragged
 * row keeps what it read before it. */
static void test_open_and_next(void **state)
{
    (void)state;
    sbw_tsv t;
    bool got = true;
    SBW_ASSERT_OK(sbw_tsv_open(&t, write_text("meta.tsv", "# a=1\n#b\n\n# c=2\n")));
    SBW_ASSERT_EQ(t.ncol, (size_t)0);
    SBW_ASSERT_EQ(t.nmeta, (size_t)2);
    SBW_ASSERT_EQ(t.comment_line, (size_t)2);
    SBW_ASSERT_OK(sbw_tsv_next(&t, &got));
    assert_false(got);
    sbw_tsv_free(&t);

    const char *p = write_text("rows.tsv", "# a=1\nx\ty\n# b=2\n1\t2\n3\t4\n# c=3\n5\n7\t8\n");
    SBW_ASSERT_OK(sbw_tsv_open(&t, p));
    SBW_ASSERT_EQ(t.ncol, (size_t)2);
    SBW_ASSERT_EQ(t.nmeta, (size_t)1); /* the meta after the header not read yet */
    SBW_ASSERT_EQ(t.header_line, (size_t)2);
    SBW_ASSERT_OK(sbw_tsv_next(&t, &got));
    assert_true(got && t.nrow == 1 && t.line[0] == 4 && t.nmeta == 2);
    SBW_ASSERT_OK(sbw_tsv_next(&t, &got));
    assert_true(got && t.nrow == 2 && t.line[1] == 5);
    SBW_ASSERT_EQ(sbw_tsv_next(&t, &got), SBW_EFORMAT);
    assert_false(got);
    assert_non_null(strstr(sbw_error_reason(), "rows.tsv: line 7 has 1 cells, the header line 2"));
    assert_true(t.nrow == 2 && t.nmeta == 3);
    assert_string_equal(sbw_tsv_str(&t, 1, 1), "4");
    sbw_tsv_free(&t);

    SBW_ASSERT_OK(sbw_tsv_open(&t, write_text("two.tsv", "x\n1\n")));
    SBW_ASSERT_OK(sbw_tsv_next(&t, &got));
    assert_true(got);
    SBW_ASSERT_OK(sbw_tsv_next(&t, &got));
    assert_true(!got && t.in.fp == NULL); /* closed at the end */
    SBW_ASSERT_OK(sbw_tsv_next(&t, &got));
    assert_false(got);
    sbw_tsv_free(&t);

    /* a bad header is refused by open, leaving nothing */
    SBW_ASSERT_EQ(sbw_tsv_open(&t, write_text("dup.tsv", "# a=1\nx\tx\n")), SBW_EFORMAT);
    assert_true(t.path == NULL && t.nmeta == 0);
}

/* ---- random tables against what their generator wrote -------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static size_t rnd(size_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (size_t)(rng_state % n);
}

/* Random text of up to max bytes from an alphabet of letters, digits,
 * '=', '#', ' ', '.', '-' and a byte above 127 (no tab, '\r', '\n' or
 * NUL); first and nonempty as asked. */
static void rnd_text(char *out, size_t max, bool nonempty, bool not_hash)
{
    static const char alpha[] = "abcXYZ019=#. -_\xc3\xa9";
    size_t n = rnd(max + 1);
    if (nonempty && n == 0)
        n = 1;
    for (size_t i = 0; i < n; i++)
        out[i] = alpha[rnd(sizeof alpha - 1)];
    if (not_hash && n && out[0] == '#')
        out[0] = 'h';
    out[n] = '\0';
}

typedef struct model {
    size_t nmeta, ncol, nrow, header_line, comment_line;
    char key[8][8], val[8][16], col[6][8], cell[40][6][8];
    size_t line[40];
} model;

/* Some lines that are not rows: blank ones, "#" comments, meta. */
static size_t filler(char *text, size_t o, model *m, size_t *lineno, bool crlf)
{
    size_t k = rnd(3);
    for (size_t i = 0; i < k; i++) {
        ++*lineno;
        size_t what = rnd(3);
        if (what == 0) {
            o += (size_t)sprintf(text + o, "%s", crlf && rnd(2) ? "\r\n" : "\n");
            continue;
        }
        if (what == 1 || m->nmeta == 8) {
            char c[16];
            rnd_text(c, 10, false, false);
            o += (size_t)sprintf(text + o, "#%s%s", c[0] == ' ' ? "!" : "", c);
            if (!m->comment_line)
                m->comment_line = *lineno;
        } else {
            snprintf(m->key[m->nmeta], 8, "k%zu", rnd(4)); /* repeats happen */
            rnd_text(m->val[m->nmeta], 12, false, false);
            o += (size_t)sprintf(text + o, "# %s=%s", m->key[m->nmeta], m->val[m->nmeta]);
            m->nmeta++;
        }
        o += (size_t)sprintf(text + o, "%s", crlf ? "\r\n" : "\n");
    }
    return o;
}

/* A random table as text (*len bytes) and what it holds in *m. */
static char *random_table(model *m, size_t *len)
{
    *m = (model){0};
    char *text = malloc(1 << 16);
    assert_non_null(text);
    bool crlf = rnd(2);
    size_t o = 0, lineno = 0;
    o = filler(text, o, m, &lineno, crlf);
    m->ncol = 1 + rnd(6);
    for (size_t j = 0; j < m->ncol; j++)
        o += (size_t)sprintf(text + o, "%sc%zu", j ? "\t" : "", j);
    o += (size_t)sprintf(text + o, "%s", crlf ? "\r\n" : "\n");
    m->header_line = ++lineno;
    m->nrow = rnd(40);
    for (size_t r = 0; r < m->nrow; r++) {
        o = filler(text, o, m, &lineno, crlf);
        for (size_t j = 0; j < m->ncol; j++) {
            rnd_text(m->cell[r][j], 7, j == 0, j == 0);
            o += (size_t)sprintf(text + o, "%s%s", j ? "\t" : "", m->cell[r][j]);
        }
        m->line[r] = ++lineno;
        if (r + 1 < m->nrow || rnd(2)) /* the last line's newline: optional */
            o += (size_t)sprintf(text + o, "%s", crlf ? "\r\n" : "\n");
    }
    *len = o;
    return text;
}

/* t holds what m says (its first nmeta meta lines). */
static void expect_model(const sbw_tsv *t, const model *m, size_t nmeta)
{
    SBW_ASSERT_EQ(t->ncol, m->ncol);
    SBW_ASSERT_EQ(t->nrow, m->nrow);
    SBW_ASSERT_EQ(t->header_line, m->header_line);
    SBW_ASSERT_EQ(t->nmeta, nmeta);
    for (size_t i = 0; i < nmeta; i++) {
        assert_string_equal(t->key[i], m->key[i]);
        assert_string_equal(t->val[i], m->val[i]);
    }
    for (size_t r = 0; r < m->nrow; r++) {
        SBW_ASSERT_EQ(t->line[r], m->line[r]);
        for (size_t j = 0; j < m->ncol; j++)
            assert_string_equal(sbw_tsv_str(t, r, j), m->cell[r][j]);
    }
}

static void test_random_tables(void **state)
{
    (void)state;
    for (int trial = 0; trial < 300; trial++) {
        model m;
        size_t len;
        char *text = random_table(&m, &len);
        const char *p = sbw_test_write("rnd.tsv", text, len);
        sbw_tsv a, b;
        int st = sbw_tsv_read(&a, p);
        if (m.nrow == 0) {
            SBW_ASSERT_EQ(st, SBW_EDATA);
        } else {
            SBW_ASSERT_OK(st);
            expect_model(&a, &m, m.nmeta);
            SBW_ASSERT_EQ(a.comment_line, m.comment_line);
            sbw_tsv_free(&a);
        }
        /* row by row: the same rows and meta */
        SBW_ASSERT_OK(sbw_tsv_open(&b, p));
        bool got = true;
        while (got)
            SBW_ASSERT_OK(sbw_tsv_next(&b, &got));
        expect_model(&b, &m, m.nmeta);
        SBW_ASSERT_EQ(b.comment_line, m.comment_line);
        sbw_tsv_free(&b);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_meta_columns_cells),
        cmocka_unit_test(test_meta_grammar),
        cmocka_unit_test(test_crlf_and_no_final_newline),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_refuses_bad_tables),
        cmocka_unit_test(test_nul_ends_a_line),
        cmocka_unit_test(test_quoted_cells_round_trip),
        cmocka_unit_test(test_quoted_cells_by_hand),
        cmocka_unit_test(test_open_and_next),
        cmocka_unit_test(test_random_tables),
    };
    return cmocka_run_group_tests_name("tsv", tests, NULL, NULL);
}
