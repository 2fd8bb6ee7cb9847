/* fuzz_mdtable.c -- sbw-plot table's escaping and rendering
 * (plots/sbw_plot_table) on fuzzed bytes: the bytes as one cell
 * (sbw_plot_table_cell), as a command in a code span
 * (sbw_plot_table_code), and as a TSV rendered with every column and a
 * %.4g format, then cited.
 *
 * Properties: an escaped cell has no control byte, is valid UTF-8 with no
 * invisible or bidirectional code point, every character that could open
 * markup or end the cell (| \ ` * [ ] < > & ~ $ @) comes after a
 * backslash, and dropping each escaping backslash gives back the input as
 * sbw_error_escape shows it; a code span's fence is longer than any run of
 * backticks inside it; a rendered table has, on every line, one unescaped
 * | more than the table has columns.
 */
#include "fuzz_util.h"

#include "sbw_error.h"
#include "sbw_plot_table.h"
#include "sbw_tsv.h"
#include "sbw_utf8.h"

static void check_text(const char *e)
{
    for (size_t i = 0; e[i];) {
        uint32_t cp = 0;
        size_t k = sbw_utf8_decode(e + i, &cp);
        FUZZ_REQUIRE(k > 0);
        FUZZ_REQUIRE(cp >= 0x20 && cp != 0x7f && !sbw_utf8_invisible(cp));
        i += k;
    }
}

static void fuzz_cell(const char *s)
{
    char *e = NULL;
    FUZZ_REQUIRE(sbw_plot_table_cell(s, &e) == SBW_OK);
    check_text(e);
    size_t n = strlen(s), cap = 10 * n + 1, k = 0;
    char *shown = malloc(cap), *back = malloc(strlen(e) + 1);
    FUZZ_REQUIRE(shown && back);
    sbw_error_escape(s, shown, cap);
    for (size_t i = 0; e[i]; i++) {
        if (e[i] == '\\') { /* an escaping backslash: the next byte is literal */
            FUZZ_REQUIRE(e[i + 1] != '\0');
            back[k++] = e[++i];
            continue;
        }
        FUZZ_REQUIRE(strchr("|`*[]<>&~$@", e[i]) == NULL);
        back[k++] = e[i];
    }
    back[k] = '\0';
    FUZZ_REQUIRE(strcmp(back, shown) == 0);
    free(shown);
    free(back);
    free(e);
}

static void fuzz_code(const char *s)
{
    char *c = NULL;
    FUZZ_REQUIRE(sbw_plot_table_code(s, &c) == SBW_OK);
    check_text(c);
    size_t n = strlen(c), fence = 0, run = 0;
    while (c[fence] == '`')
        fence++;
    FUZZ_REQUIRE(fence > 0 && n >= 2 * fence);
    for (size_t i = fence; i < n - fence; i++) {
        run = c[i] == '`' ? run + 1 : 0;
        FUZZ_REQUIRE(run < fence);
    }
    free(c);
}

static void fuzz_render(const char *path)
{
    sbw_tsv t;
    if (sbw_tsv_read(&t, path) != SBW_OK)
        return;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    FUZZ_REQUIRE(out != NULL);
    sbw_plot_table_spec sp = {.missing = "—", .format = "%.4g"};
    int st = sbw_plot_table_render(&sp, &t, 1, out);
    fclose(out);
    if (st == SBW_OK) {
        size_t bars = 0;
        for (size_t i = 0; i < len; i++) {
            if (buf[i] == '\\') {
                i++;
                continue;
            }
            if (buf[i] == '|')
                bars++;
            if (buf[i] == '\n') {
                FUZZ_REQUIRE(bars == t.ncol + 1);
                bars = 0;
            }
        }
    }
    free(buf);
    out = fopen("/dev/null", "w");
    FUZZ_REQUIRE(out != NULL);
    FUZZ_REQUIRE(sbw_plot_table_cite(&t, 1, out) == SBW_OK);
    fclose(out);
    sbw_tsv_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1), path[512];
    FUZZ_REQUIRE(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    fuzz_cell(s);
    fuzz_code(s);
    free(s);
    fuzz_file("table.tsv", data, size, path, sizeof path);
    fuzz_render(path);
    return 0;
}
