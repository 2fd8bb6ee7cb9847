/* sbw-gradneck: the gradient bottleneck (Godey and Artzi 2026) of a
 * single-map Softmax head from files: its W, the model's log Q rows and
 * the observed next words; per row the share of g = q - e_y on range(C1 W)
 * (models/sbw_gradneck.h), and their summary. */
#include "sbw.h"
#include "sbw_gradneck.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
    "The gradient bottleneck of a Softmax head (Godey and Artzi 2026, \"Lost in\n"
    "Backpropagation: The LM Head is a Gradient Bottleneck\") from files: W.npy\n"
    "(M x D, one row per word: the head's output embeddings, e.g. sbw-lm eval\n"
    "--export DIR's W.npy), LOGQ.npy (T x M log-probabilities the head gave,\n"
    "e.g. sbw-lm eval --logprobs) and --targets FILE, a table with a column of\n"
    "T word ids (--column, default 'word'; sbw-lm eval --gradneck writes one).\n"
    "For row t, g = q_t - e_{y_t} is the gradient of -log q_{y_t} with respect to\n"
    "the logits; the head passes back W^T g, so the part of g it can pass is its\n"
    "projection on range(C1 W), C1 = I - 11^T/M (logits are defined up to a\n"
    "shift): passed = ||P g|| / ||g||, suppressed = 1 - passed (the paper's\n"
    "95-99%).  The basis is W's centred left singular vectors above\n"
    "max(M, D) eps sigma_1 (LAPACK dgesdd).  Heads whose logits are not one\n"
    "linear map of the context (MoS, MoC, PLIF, ...) need the context vectors\n"
    "themselves: sbw-lm eval --gradneck.\n\n"
    "Output (-o FILE, default stdout): position word passed suppressed, one row\n"
    "per row of LOGQ, under the summary (gradneck_mean, _sd, _min, _q05, _q25,\n"
    "_q50, _q75, _q95, _max, gradneck_suppressed_mean) and the basis' rank.\n"
    "Each row of LOGQ must be a log-probability row (its exp sums to 1 within the\n"
    "input checker's tolerance).\n\n"
    "Example:\n"
    "  sbw-lm eval --data D --ckpt ck --tokens 1 --export head/ -q\n"
    "  sbw-lm eval --data D --ckpt ck --tokens 500 --logprobs q.npy -q\n"
    "  sbw-lm eval --data D --ckpt ck --tokens 500 --gradneck g.tsv -q\n"
    "  sbw-gradneck head/W.npy q.npy --targets g.tsv\n";

typedef struct gn_args {
    const char *targets, *column, *out;
} gn_args;

/* A whole matrix from path through the input checker, every entry finite.
 * Errors: the checker's and the reader's, SBW_EDATA. */
static int load(const char *path, sbw_mat *m, sbw_npy_dtype *dtype)
{
    sbw_npy_reader *r = NULL;
    int st = sbw_check_open(&r, path, SBW_SHAPE_MATRIX);
    if (!st)
        *dtype = sbw_npy_reader_info(r)->dtype;
    st = st ? st : sbw_npy_read_all(r, m);
    sbw_npy_close(r);
    if (!st && !sbw_check_all_finite(m->data, m->rows * m->cols)) {
        sbw_mat_free(m);
        st = SBW_ERROR(SBW_EDATA, "%s: NaN or infinite entries", path);
    }
    return st;
}

/* The T word ids of column col of the table at path, each a whole number
 * below m.  Errors: the reader's, SBW_EDATA (a count other than t, a cell
 * that is no id). */
static int load_targets(const gn_args *a, size_t t, size_t m, size_t *y)
{
    sbw_tsv tab = {0};
    size_t col;
    int st = sbw_tsv_read(&tab, a->targets);
    st = st ? st : sbw_tsv_need(&tab, a->column, &col);
    if (!st && tab.nrow != t)
        st = SBW_ERROR(SBW_EDATA, "%s: %zu rows, but the log Q file has %zu", a->targets, tab.nrow,
                       t);
    for (size_t i = 0; !st && i < t; i++) {
        double x;
        st = sbw_tsv_num(&tab, i, col, &x);
        if (!st && !(x >= 0 && x < (double)m && x == floor(x)))
            st = SBW_ERROR(SBW_EDATA, "%s: line %zu: '%s' is not a word id below M = %zu",
                           a->targets, tab.line[i], sbw_tsv_str(&tab, i, col), m);
        if (!st)
            y[i] = (size_t)x;
    }
    sbw_tsv_free(&tab);
    return st;
}

/* q of row i of lq (in place, as probabilities), checked normalised. */
static int row_probs(double *row, size_t m, size_t i, const char *path, sbw_npy_dtype dtype)
{
    double sum = 0, amax = 0;
    for (size_t j = 0; j < m; j++) {
        amax = fmax(amax, fabs(row[j]));
        row[j] = exp(row[j]);
        sum += row[j];
    }
    double tol = sbw_check_row_tol(dtype, SBW_CHECK_TOL, amax);
    if (!(fabs(sum - 1) <= tol))
        return SBW_ERROR(SBW_EDATA,
                         "%s: row %zu is not a log-probability row (its exp sums to %.17g)", path,
                         i, sum);
    return SBW_OK;
}

static int run(const char *wpath, const char *qpath, const gn_args *a, const sbw_cli_common *c)
{
    static const char *const cols[] = {"position", "word", "passed", "suppressed"};
    sbw_mat w = {0}, lq = {0};
    sbw_npy_dtype wt, qt;
    double *vt = NULL, *passed = NULL;
    size_t *y = NULL, r = 0, ld = 0;
    sbw_gradneck_summary g;
    sbw_table *t = NULL;
    int st = load(wpath, &w, &wt);
    st = st ? st : load(qpath, &lq, &qt);
    if (!st && lq.cols != w.rows)
        st = SBW_ERROR(SBW_ESHAPE, "%s: %zu columns, but W (%s) has %zu words (rows)", qpath,
                       lq.cols, wpath, w.rows);
    if (!st && (!(y = malloc(lq.rows * sizeof *y)) || !(passed = malloc(lq.rows * sizeof *passed))))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    st = st ? st : load_targets(a, lq.rows, lq.cols, y);
    st = st ? st : sbw_gradneck_map_basis(w.data, w.rows, w.cols, &vt, &r, &ld);
    for (size_t i = 0; !st && i < lq.rows; i++) {
        double *row = lq.data + i * lq.cols;
        st = row_probs(row, lq.cols, i, qpath, qt);
        if (!st)
            passed[i] = sbw_gradneck_share(row, lq.cols, y[i], vt, r, ld);
    }
    st = st ? st : sbw_gradneck_summarise(passed, lq.rows, &g);
    st = st ? st : sbw_table_alloc(&t, "sbw-gradneck", c, false);
    if (!st) {
        sbw_table_meta_str(t, "head", wpath);
        sbw_table_meta_str(t, "logq", qpath);
        sbw_table_meta_str(t, "targets", a->targets);
        sbw_table_meta_int(t, "m", (long long)w.rows);
        sbw_table_meta_int(t, "d", (long long)w.cols);
        sbw_table_meta_int(t, "basis_rank", (long long)r);
        sbw_gradneck_meta(t, &g, true);
        sbw_table_columns(t, cols, 4);
        for (size_t i = 0; i < lq.rows && !sbw_table_status(t); i++) {
            sbw_table_add_row(t);
            sbw_table_set_int(t, "position", (long long)i);
            sbw_table_set_int(t, "word", (long long)y[i]);
            sbw_table_set_dbl(t, "passed", passed[i]);
            sbw_table_set_dbl(t, "suppressed", 1 - passed[i]);
        }
        st = sbw_table_write(t, a->out, c->json);
    }
    sbw_table_free(t);
    free(vt);
    free(y);
    free(passed);
    sbw_mat_free(&w);
    sbw_mat_free(&lq);
    return st;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    gn_args a = {.column = "word", .out = "-"};
    const sbw_cli_opt opts[] = {
        {"--targets", "FILE", SBW_ARG_STRING, &a.targets, 0, 0,
         "a table with the observed word ids (required)"},
        {"--column", "NAME", SBW_ARG_STRING, &a.column, 0, 0, "their column [word]"},
        {"-o", "FILE", SBW_ARG_STRING, &a.out, 0, 0, "the table ('-' = stdout) [-]"},
        {0}};
    const sbw_cli cli = {"sbw-gradneck",
                         "W.npy LOGQ.npy --targets FILE",
                         "The gradient bottleneck of a Softmax head, per context.",
                         details,
                         opts,
                         2,
                         2,
                         SBW_CLI_JSON | SBW_CLI_THREADS};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if (!a.targets)
        return sbw_cli_usage_error(&cli, "--targets FILE is required");
    const char *in[] = {c.args[0], c.args[1], a.targets};
    const sbw_preflight_out out[] = {{"-o", a.out, false}};
    if ((st = sbw_preflight(in, 3, out, 1)) != 0)
        return sbw_cli_fail("sbw-gradneck", st);
    sbw_error_gsl_quiet();
    sbw_cli_threads(c.threads);
    st = run(c.args[0], c.args[1], &a, &c);
    return st ? sbw_cli_fail("sbw-gradneck", st) : SBW_EXIT_OK;
}
