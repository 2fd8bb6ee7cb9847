/* fuzz_tsv.c -- core/sbw_tsv, the one reader of the tools' tables ("# key=value"
 * meta lines, comments, a column-name line, tab-separated rows), on fuzzed
 * text, both ways in (the whole table, and open then row by row); then its
 * users on the same file: sbw-plot's kinds (sbw_plot_kind_build: spectrum,
 * sweep, alpha, bound, train, rank-k; the figure checked and its data file
 * and gnuplot script written to /dev/null, where labels and meta values
 * from the file are escaped), sbw-lm's curve.tsv and grid-table readers
 * (lm/sbw_lm_curve), and the file as a saved head's params.tsv
 * (sbw_head_io_map_regen, which reads its meta).
 *
 * Properties: a failure leaves a reason and a zeroed table; a table read
 * has ncol distinct nonempty names and nrow x ncol cells, every cell and
 * meta value a string, row line numbers increasing and after the header's;
 * open + next give the same meta, columns, rows and line numbers as the
 * whole read (or fail where it fails); every cell either parses as a number
 * or is refused with a reason; a curve read is sorted by perplexity, finite
 * and > 0, its KLDs finite; a grid table has ncol - 1 models, finite
 * perplexities, KLDs finite or nan; a refused params.tsv leaves no map.tsv.
 */
#include "fuzz_util.h"

#include "sbw_error.h"
#include "sbw_head_io.h"
#include "sbw_lm_curve.h"
#include "sbw_plot_fig.h"
#include "sbw_plot_kind.h"
#include "sbw_plot_script.h"
#include "sbw_table.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdbool.h>

/* a and b hold the same meta, columns and rows (b may have fewer rows
 * and meta lines when it stopped early: nrow and nmeta those of b). */
static void same_table(const sbw_tsv *a, const sbw_tsv *b)
{
    FUZZ_REQUIRE(a->ncol == b->ncol && a->header_line == b->header_line);
    FUZZ_REQUIRE(b->nrow <= a->nrow && b->nmeta <= a->nmeta);
    for (size_t i = 0; i < b->nmeta; i++)
        FUZZ_REQUIRE(!strcmp(a->key[i], b->key[i]) && !strcmp(a->val[i], b->val[i]));
    for (size_t j = 0; j < a->ncol; j++)
        FUZZ_REQUIRE(!strcmp(a->col[j], b->col[j]));
    for (size_t r = 0; r < b->nrow; r++) {
        FUZZ_REQUIRE(a->line[r] == b->line[r]);
        for (size_t j = 0; j < a->ncol; j++)
            FUZZ_REQUIRE(!strcmp(sbw_tsv_str(a, r, j), sbw_tsv_str(b, r, j)));
    }
}

/* The whole table's shape and cells. */
static void check_table(sbw_tsv *t)
{
    FUZZ_REQUIRE(t->ncol > 0 && t->nrow > 0 && t->header_line > 0 && t->in.fp == NULL);
    FUZZ_REQUIRE(t->comment_line != t->header_line);
    for (size_t i = 0; i < t->nmeta; i++)
        FUZZ_REQUIRE(sbw_tsv_meta(t, t->key[i]) != NULL && t->key[i][0] != '\0');
    for (size_t r = 0; r < t->nrow; r++)
        FUZZ_REQUIRE(t->line[r] > (r ? t->line[r - 1] : t->header_line));
    for (size_t j = 0; j < t->ncol; j++) {
        size_t col = 0;
        FUZZ_REQUIRE(t->col[j][0] != '\0');
        FUZZ_REQUIRE(sbw_tsv_need(t, t->col[j], &col) == SBW_OK && col == j);
        for (size_t i = 0; i < t->nrow; i++) {
            double x;
            FUZZ_REQUIRE(sbw_tsv_str(t, i, j) != NULL);
            if (sbw_tsv_num(t, i, j, &x) != SBW_OK)
                FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
        }
    }
    size_t col;
    if (sbw_tsv_need(t, "no such column", &col) == SBW_OK)
        FUZZ_REQUIRE(sbw_tsv_col(t, "no such column") >= 0);
}

/* The table both ways: read whole, and open then next to the end. */
static void fuzz_table(const char *path)
{
    sbw_tsv t, s;
    int st = sbw_tsv_read(&t, path);
    if (st) {
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
        FUZZ_REQUIRE(t.ncol == 0 && t.nrow == 0 && t.cell == NULL && t.path == NULL);
    } else {
        check_table(&t);
    }
    int so = sbw_tsv_open(&s, path);
    bool got = so == SBW_OK && s.ncol > 0;
    FUZZ_REQUIRE(so == SBW_OK || (so == st && s.path == NULL));
    while (so == SBW_OK && got)
        so = sbw_tsv_next(&s, &got);
    if (st == SBW_OK) { /* the same table, row by row */
        FUZZ_REQUIRE(so == SBW_OK && s.nrow == t.nrow && s.nmeta == t.nmeta);
        FUZZ_REQUIRE(s.comment_line == t.comment_line);
        same_table(&t, &s);
    } else if (so == SBW_OK) { /* read refused what open + next took: no header or no row */
        FUZZ_REQUIRE((st == SBW_EFORMAT && s.ncol == 0) || (st == SBW_EDATA && s.nrow == 0));
    } else {
        FUZZ_REQUIRE(so == st && sbw_error_reason()[0] != '\0');
    }
    sbw_tsv_free(&s);
    sbw_tsv_free(&t);
}

/* lm/sbw_lm_curve's two readers on the file. */
static void fuzz_curves(const char *path)
{
    sbw_lm_curve c;
    if (sbw_lm_curve_read(&c, path) != SBW_OK) {
        FUZZ_REQUIRE(c.n == 0 && c.ppl == NULL && sbw_error_reason()[0] != '\0');
    } else {
        FUZZ_REQUIRE(c.n > 0);
        for (size_t i = 0; i < c.n; i++)
            FUZZ_REQUIRE(isfinite(c.ppl[i]) && c.ppl[i] > 0 && isfinite(c.kld[i]) &&
                         (i == 0 || c.ppl[i - 1] <= c.ppl[i]));
        sbw_lm_curve_free(&c);
    }
    sbw_lm_curve_table g;
    if (sbw_lm_curve_table_read(&g, path) != SBW_OK) {
        FUZZ_REQUIRE(g.n == 0 && g.names == NULL && sbw_error_reason()[0] != '\0');
        return;
    }
    FUZZ_REQUIRE(g.m > 0);
    for (size_t i = 0; i < g.n; i++) {
        FUZZ_REQUIRE(isfinite(g.ppl[i]));
        for (size_t j = 0; j < g.m; j++)
            FUZZ_REQUIRE(isfinite(g.kld[i * g.m + j]) || isnan(g.kld[i * g.m + j]));
    }
    sbw_lm_curve_table_free(&g);
}

/* The bytes as a saved head's params.tsv: its meta read and the head it
 * describes set up; no .npy is there, so the regeneration fails, leaving
 * no map.tsv. */
static void fuzz_params(const uint8_t *data, size_t size)
{
    char path[512], map[512];
    fuzz_file("params.tsv", data, size, path, sizeof path);
    snprintf(map, sizeof map, "%s/map.tsv", fuzz_dir());
    FUZZ_REQUIRE(sbw_head_io_map_regen(fuzz_dir(), "sbw-fit --map fuzz") != SBW_OK);
    FUZZ_REQUIRE(sbw_error_reason()[0] != '\0' && access(map, F_OK) != 0);
    sbw_table_warn_clear(); /* the warnings params.tsv carried */
}

static FILE *devnull(void)
{
    static FILE *f;
    if (!f)
        f = fopen("/dev/null", "w");
    FUZZ_REQUIRE(f != NULL);
    return f;
}

/* One kind on the file; its figure, when built, written out. */
static void fuzz_kind(const char *kind, char *path)
{
    char *inputs[1] = {path};
    /* alpha joins the file with itself as sbw-info's two tables */
    sbw_plot_kind_args a = {
        .inputs = inputs, .ninputs = 1, .entropy = path, .sorted = path, .xmin = NAN, .xmax = NAN};
    sbw_plot_fig *f = NULL;
    int st = sbw_plot_kind_build(kind, &a, &f);
    if (st) {
        FUZZ_REQUIRE(f == NULL && sbw_error_reason()[0] != '\0');
        return;
    }
    sbw_plot_fig_opts o = {.format = SBW_PLOT_PNG, .command = "sbw-plot fuzz"};
    if (sbw_plot_fig_check(f, &o) == SBW_OK) {
        FUZZ_REQUIRE(sbw_plot_fig_write_data(f, devnull()) == SBW_OK);
        FUZZ_REQUIRE(sbw_plot_script_write(f, &o, "fig", devnull()) == SBW_OK);
    }
    sbw_plot_fig_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const kinds[] = {"spectrum", "sweep", "alpha", "bound", "train", "rank-k"};
    char path[512];
    fuzz_file("in.tsv", data, size, path, sizeof path);
    fuzz_table(path);
    fuzz_curves(path);
    fuzz_params(data, size);
    /* two kinds per input, chosen by its length, so a corpus meets each */
    fuzz_kind(kinds[size % 6], path);
    fuzz_kind(kinds[(size / 6) % 6], path);
    return 0;
}
