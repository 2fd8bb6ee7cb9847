/* fuzz_tsv.c -- the table reader of plots/ (sbw_tsv: "# key=value"
 * meta lines, a column-name line, tab-separated rows) on fuzzed text, then
 * sbw-plot's kinds (sbw_plot_kind_build: spectrum, sweep, alpha, bound,
 * train, rank-k) on the same file as their input, the figure checked and
 * its data file and gnuplot script written to /dev/null (labels and
 * meta values from the file are escaped there).
 *
 * Properties: a failure leaves a reason and a zeroed table; a table read
 * has ncol names and nrow x ncol cells, every cell and meta value a
 * string; every cell either parses as a number or is refused with a
 * reason.
 */
#include "fuzz_util.h"

#include "sbw_error.h"
#include "sbw_plot_fig.h"
#include "sbw_plot_script.h"
#include "sbw_plot_kind.h"
#include "sbw_tsv.h"

#include <math.h>

static void fuzz_table(const char *path)
{
    sbw_tsv t;
    int st = sbw_tsv_read(&t, path);
    if (st) {
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
        FUZZ_REQUIRE(t.ncol == 0 && t.nrow == 0 && t.cell == NULL && t.path == NULL);
        return;
    }
    FUZZ_REQUIRE(t.ncol > 0 && t.nrow > 0);
    for (size_t i = 0; i < t.nmeta; i++)
        FUZZ_REQUIRE(sbw_tsv_meta(&t, t.key[i]) != NULL);
    for (size_t j = 0; j < t.ncol; j++) {
        size_t col = 0;
        FUZZ_REQUIRE(sbw_tsv_need(&t, t.col[j], &col) == SBW_OK && col <= j);
        for (size_t i = 0; i < t.nrow; i++) {
            double x;
            FUZZ_REQUIRE(sbw_tsv_str(&t, i, j) != NULL);
            if (sbw_tsv_num(&t, i, j, &x) != SBW_OK)
                FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
        }
    }
    size_t col;
    if (sbw_tsv_need(&t, "no such column", &col) == SBW_OK)
        FUZZ_REQUIRE(sbw_tsv_col(&t, "no such column") >= 0);
    sbw_tsv_free(&t);
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
    /* two kinds per input, chosen by its length, so a corpus meets each */
    fuzz_kind(kinds[size % 6], path);
    fuzz_kind(kinds[(size / 6) % 6], path);
    return 0;
}
