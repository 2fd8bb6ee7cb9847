/* sbw-info: what is in a .npy file (or a tensor of a .safetensors file) --
 * shape, dtype, layout, range, NaN/Inf counts, and whether its rows are
 * log-probabilities or probabilities; and the tensors a .safetensors file
 * holds. */
#include "sbw.h"
#include "sbw_check.h"
#include "sbw_rowinfo.h"
#include "sbw_safet.h"
#include "sbw_scan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const columns[] = {"file",      "rows",
                                      "cols",      "ndim",
                                      "dtype",     "byte_order",
                                      "order",     "npy_version",
                                      "min",       "max",
                                      "nan",       "posinf",
                                      "neginf",    "first_nonfinite",
                                      "kind",      "rows_logprob",
                                      "rows_prob", "max_abs_logsumexp",
                                      "worst_row", "max_abs_rowsum_dev"};

static const char *const list_columns[] = {"file", "tensor", "dtype", "shape", "bytes", "readable"};
static const char *const per_row_columns[] = {"row", "entropy"};
static const char *const sorted_columns[] = {"rank", "word", "log_prob", "prob"};

static const char details[] =
    "Reads each FILE ('-' = stdin) in one streaming pass and prints one row per\n"
    "file.  kind is 'log-probabilities' when every row has |logsumexp| <= TOL,\n"
    "'probabilities' when every row lies in [0,1] and sums to 1 within TOL,\n"
    "otherwise 'other'; TOL is never below the file's own rounding (8 eps of its\n"
    "dtype times the row's largest |entry|, so float32 files are judged at float32\n"
    "precision), as in every sbw tool.  An empty file (N x 0, 0 x M) is refused.\n"
    "max_abs_rowsum_dev is over rows lying in [0,1] (nan when there is none).\n"
    "min/max are over finite entries; first_nonfinite is 'row,col' (0-based) of\n"
    "the first NaN or Inf.  Every FILE is read: a file that cannot be read gets one\n"
    "line on stderr and no row, the others are still described, and the exit\n"
    "status is 1 when any file failed.\n\n"
    "A tensor of a safetensors file is read as FILE.safetensors:NAME (F32, F16,\n"
    "BF16 or F64, 1-D or 2-D; npy_version is 'safetensors').  A bare\n"
    "FILE.safetensors lists its tensors instead: file tensor dtype shape bytes\n"
    "readable (whether sbw can read it as a matrix); list such files on their own.\n\n"
    "Single rows of one matrix of log-probabilities (LMS Figure 5, which\n"
    "`sbw-plot alpha` draws from these two tables), in the same pass:\n"
    "  --per-row FILE    one line per row: row entropy, the row's entropy\n"
    "                    H = -sum_j p_j log p_j in nats (p = exp(entry))\n"
    "  --sorted FILE     row --sorted-row I (0-based, default 0) as probabilities\n"
    "                    in decreasing order, one line per word: rank (1 = the\n"
    "                    row's mode) word (its column, 0-based; ties: the lower\n"
    "                    column first) log_prob prob\n"
    "They take one FILE whose every row is normalised (|logsumexp| <= TOL, no NaN\n"
    "or +inf; -inf is a zero probability): otherwise the file and the worst row\n"
    "are named, exit 1, and no table is written.  stdout carries one stream: with\n"
    "--per-row - or --sorted - that table goes to stdout and the file's row to\n"
    "stderr.\n\n"
    "Example:\n  sbw-info logP.npy\n  sbw-info --json logP.npy\n"
    "  sbw-info model.safetensors\n  sbw-info model.safetensors:lm_head.weight\n"
    "  sbw-info --per-row rows.tsv --sorted row0.tsv logP.npy\n";

/* One row describing the file at path.  Errors: the table's (sticky). */
static int add_file_row(sbw_table *t, const char *path, const sbw_npy_info *in, const sbw_scan *s)
{
    char pos[64] = "", ver[16];
    if (s->any_bad)
        snprintf(pos, sizeof pos, "%zu,%zu", s->bad_row, s->bad_col);
    snprintf(ver, sizeof ver, in->safetensors ? "safetensors" : "%d.%d", in->major, in->minor);
    bool big = in->descr[0] == '>';
    sbw_table_add_row(t);
    sbw_table_set_str(t, "file", path);
    sbw_table_set_int(t, "rows", (long long)in->rows);
    sbw_table_set_int(t, "cols", (long long)in->cols);
    sbw_table_set_int(t, "ndim", in->ndim);
    sbw_table_set_str(t, "dtype", sbw_npy_dtype_name(in->dtype));
    sbw_table_set_str(t, "byte_order", big ? "big" : "little");
    sbw_table_set_str(t, "order", in->fortran ? "F" : "C");
    sbw_table_set_str(t, "npy_version", ver);
    sbw_table_set_dbl(t, "min", s->min);
    sbw_table_set_dbl(t, "max", s->max);
    sbw_table_set_int(t, "nan", (long long)s->nan);
    sbw_table_set_int(t, "posinf", (long long)s->posinf);
    sbw_table_set_int(t, "neginf", (long long)s->neginf);
    sbw_table_set_str(t, "first_nonfinite", pos);
    sbw_table_set_str(t, "kind", sbw_scan_kind(s));
    sbw_table_set_int(t, "rows_logprob", (long long)s->rows_logprob);
    sbw_table_set_int(t, "rows_prob", (long long)s->rows_prob);
    sbw_table_set_dbl(t, "max_abs_logsumexp", s->max_abs_lse);
    sbw_table_set_int(t, "worst_row", (long long)s->worst_lse_row);
    double dev = s->rows_unit ? s->max_abs_sum_dev : NAN; /* no row of probabilities */
    sbw_table_set_dbl(t, "max_abs_rowsum_dev", dev);
    return sbw_table_status(t);
}

/* What --per-row, --sorted and --sorted-row ask for (NULL: not asked). */
typedef struct row_outs {
    const char *per_row, *sorted;
    size_t pick;
} row_outs;

/* A table of sbw-info with the file and tolerance as meta.  Errors: the
 * table's. */
static int row_table(sbw_table **t, const sbw_cli_common *c, const char *path, double tol)
{
    int st = sbw_table_alloc(t, "sbw-info", c, false);
    if (st)
        return st;
    sbw_table_meta_str(*t, "file", path);
    sbw_table_meta_dbl(*t, "tol", tol);
    sbw_table_meta_str(*t, "units", "nats");
    return sbw_table_status(*t);
}

/* --per-row's table of the n entropies h to path.  Errors: the table's,
 * the write's (nothing left under path). */
static int write_per_row(const sbw_cli_common *c, const char *in, double tol, const double *h,
                         size_t n, const char *path)
{
    sbw_table *t = NULL;
    int st = row_table(&t, c, in, tol);
    if (!st) {
        sbw_table_columns(t, per_row_columns, 2);
        for (size_t i = 0; i < n; i++) {
            sbw_table_add_row(t);
            sbw_table_set_int(t, "row", (long long)i);
            sbw_table_set_dbl(t, "entropy", h[i]);
        }
        st = sbw_table_write(t, path, false); /* the table's first failure, if any */
    }
    sbw_table_free(t);
    return st;
}

/* --sorted's table of row o->pick (m log-probabilities) to o->sorted.
 * Errors: SBW_ENOMEM, the table's, the write's. */
static int write_sorted(const sbw_cli_common *c, const char *in, double tol, const double *row,
                        size_t m, const row_outs *o)
{
    size_t *word = malloc((m ? m : 1) * sizeof *word);
    double *prob = malloc((m ? m : 1) * sizeof *prob);
    sbw_table *t = NULL;
    int st = word && prob ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "cannot hold a row of %zu", m);
    st = st ? st : sbw_rowinfo_sorted(row, m, word, prob);
    st = st ? st : row_table(&t, c, in, tol);
    if (!st) {
        sbw_table_meta_int(t, "row", (long long)o->pick);
        sbw_table_columns(t, sorted_columns, 4);
        for (size_t k = 0; k < m; k++) {
            sbw_table_add_row(t);
            sbw_table_set_int(t, "rank", (long long)k + 1);
            sbw_table_set_int(t, "word", (long long)word[k]);
            sbw_table_set_dbl(t, "log_prob", row[word[k]]);
            sbw_table_set_dbl(t, "prob", prob[k]);
        }
        st = sbw_table_write(t, o->sorted, false);
    }
    sbw_table_free(t);
    free(word);
    free(prob);
    return st;
}

/* The per-row values o asks for of the scanned file, written (each table
 * whole or not at all).  Errors: sbw_rowinfo_reader's, the writes'. */
static int rows_of(sbw_npy_reader *r, sbw_scan *s, sbw_progress *p, const sbw_cli_common *c,
                   const row_outs *o)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    const char *path = sbw_npy_reader_path(r);
    sbw_rowinfo ri = {.pick = o->pick};
    if (o->per_row)
        ri.entropy = malloc((in->rows ? in->rows : 1) * sizeof *ri.entropy);
    if (o->sorted)
        ri.row = malloc((in->cols ? in->cols : 1) * sizeof *ri.row);
    int st = (o->per_row && !ri.entropy) || (o->sorted && !ri.row)
                 ? SBW_ERROR(SBW_ENOMEM, "%s: cannot hold the per-row values", path)
                 : sbw_rowinfo_reader(r, s, p, &ri);
    if (!st && o->per_row)
        st = write_per_row(c, path, s->tol, ri.entropy, in->rows, o->per_row);
    if (!st && o->sorted)
        st = write_sorted(c, path, s->tol, ri.row, in->cols, o);
    free(ri.entropy);
    free(ri.row);
    return st;
}

static int info_file(sbw_table *t, const char *path, double tol, const sbw_cli_common *c,
                     const row_outs *o)
{
    sbw_npy_reader *r;
    int st = sbw_check_open(&r, path, o ? SBW_SHAPE_MATRIX : SBW_SHAPE_ANY);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    sbw_scan s;
    sbw_progress p;
    sbw_scan_init(&s, tol);
    sbw_progress_start(&p, "sbw-info", "rows", (double)in->rows, c->quiet);
    st = o ? rows_of(r, &s, &p, c, o) : sbw_scan_reader(r, &s, &p);
    sbw_progress_finish(&p);
    if (!st)
        st = add_file_row(t, path, in, &s);
    sbw_npy_close(r);
    return st;
}

/* One row per tensor of the safetensors file at path. */
static int list_file(sbw_table *t, const char *path)
{
    sbw_safet_header h;
    int st = sbw_safet_load(path, &h);
    for (size_t i = 0; i < h.count && !st; i++) {
        const sbw_safet_tensor *x = &h.t[i];
        char shape[256];
        sbw_safet_shape_str(x, shape, sizeof shape);
        bool ok = (strcmp(x->dtype, "F32") == 0 || strcmp(x->dtype, "F16") == 0 ||
                   strcmp(x->dtype, "BF16") == 0 || strcmp(x->dtype, "F64") == 0) &&
                  x->ndim >= 1 && x->ndim <= 2;
        sbw_table_add_row(t);
        sbw_table_set_str(t, "file", path);
        sbw_table_set_str(t, "tensor", x->name);
        sbw_table_set_str(t, "dtype", x->dtype);
        sbw_table_set_str(t, "shape", shape);
        sbw_table_set_int(t, "bytes", (long long)(x->end - x->begin));
        sbw_table_set_str(t, "readable", ok ? "yes" : "no");
        st = sbw_table_status(t);
    }
    sbw_safet_header_free(&h);
    return st;
}

/* The per-row options' usage: one matrix, --sorted-row only with --sorted,
 * one stream on stdout (*out: where the file's row goes).  Returns 0 or
 * SBW_EXIT_USAGE (said on stderr). */
static int check_rows(const sbw_cli *cli, const sbw_cli_common *c, const row_outs *o, int lists,
                      FILE **out)
{
    const sbw_cli_applies applies[] = {{"--sorted-row", o->sorted != NULL, "a run without --sorted",
                                        "it picks the row --sorted writes"}};
    int st = sbw_cli_check_applies(cli, c, applies, 1);
    if (st || !(o->per_row || o->sorted))
        return st;
    if (c->nargs != 1 || lists)
        return sbw_cli_usage_error(cli, "--per-row and --sorted describe the rows of one matrix: "
                                        "give one FILE.npy");
    const sbw_cli_stream data[] = {{"--per-row", o->per_row}, {"--sorted", o->sorted}};
    if ((st = sbw_cli_one_stream(cli, data, 2, NULL, NULL, out)) != 0)
        return st;
    const sbw_preflight_out outs[] = {{"--per-row", o->per_row, false},
                                      {"--sorted", o->sorted, false}};
    const char *in[] = {c->args[0]};
    st = sbw_preflight(in, 1, outs, 2);
    return st ? sbw_cli_fail("sbw-info", st) : 0;
}

/* How many of the arguments are bare .safetensors files (to list). */
static int count_lists(const sbw_cli_common *c)
{
    int n = 0;
    for (int i = 0; i < c->nargs; i++)
        n += sbw_safet_is_file(c->args[i]);
    return n;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    double tol = SBW_CHECK_TOL;
    row_outs o = {0};
    const sbw_cli_opt opts[] = {
        {"--tol", "TOL", SBW_ARG_DOUBLE, &tol, 0, 1, "row normalisation tolerance"},
        {"--per-row", "FILE", SBW_ARG_STRING, &o.per_row, 0, 0, "write each row's entropy (TSV)"},
        {"--sorted", "FILE", SBW_ARG_STRING, &o.sorted, 0, 0,
         "write one row's probabilities, largest first (TSV)"},
        {"--sorted-row", "I", SBW_ARG_SIZE, &o.pick, 0, 1e15, "the row --sorted writes"},
        {0}};
    const sbw_cli cli = {
        "sbw-info", "FILE.npy...", "Describe .npy matrices and .safetensors files.",
        details,    opts,          1,
        1 << 20,    SBW_CLI_JSON};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    int lists = count_lists(&c);
    if (lists > 0 && lists < c.nargs)
        return sbw_cli_usage_error(&cli, "list .safetensors files on their own (or name a tensor, "
                                         "FILE.safetensors:NAME)");
    bool rows = o.per_row || o.sorted;
    FILE *out = stdout;
    if ((st = check_rows(&cli, &c, &o, lists, &out)) != 0)
        return st;
    sbw_error_gsl_quiet();
    sbw_table *t = NULL;
    st = sbw_table_alloc(&t, "sbw-info", &c, false);
    if (st)
        return sbw_cli_fail("sbw-info", st);
    if (lists) {
        sbw_table_columns(t, list_columns, 6);
    } else {
        sbw_table_meta_dbl(t, "tol", tol);
        sbw_table_columns(t, columns, sizeof columns / sizeof *columns);
    }
    st = sbw_table_status(t);
    int failed = 0, done = 0; /* files refused (each said on stderr), files described */
    for (int i = 0; i < c.nargs && !st; i++) {
        int fst =
            lists ? list_file(t, c.args[i]) : info_file(t, c.args[i], tol, &c, rows ? &o : NULL);
        /* one file (--per-row, --sorted): its status is the exit status (2
         * for a --sorted-row beyond it); out of memory: the table itself may
         * be short of a row, stop */
        if ((rows && fst) || fst == SBW_ENOMEM)
            st = fst;
        else if (fst) {
            sbw_cli_fail("sbw-info", fst); /* one line; a bad file is bad data, exit 1 */
            failed = SBW_EXIT_DATA;
        } else
            done++;
    }
    if (!st && done)
        st = sbw_table_print(t, out, c.json);
    sbw_table_free(t);
    if (st)
        return sbw_cli_fail("sbw-info", st);
    return failed;
}
