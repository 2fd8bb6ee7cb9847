/* sbw-compare: how close a model's next-token distributions Q are to the
 * true P*, context by context -- KL, cross-entropy, perplexity, mode
 * matching (LMS eq. 10), top-k overlap, rank of the true mode, and the
 * log-probability matrix error (LMS eq. 8). */
#include "sbw.h"
#include "sbw_compare.h"
#include "sbw_logp.h"

#include <stdio.h>
#include <stdlib.h>

static const char details[] =
    "Row i of LOGP.npy and of LOGQ.npy is the same context; columns are words;\n"
    "entries are log-probabilities (float64 or float32; --probs if both hold\n"
    "probabilities).  Prints over the N rows, in nats:\n"
    "  kl_mean, kl_median     KL(P||Q) = sum_x p (log p - log q) per row\n"
    "  cross_entropy, entropy means of H(P,Q) and H(P): H(P,Q) = H(P) + KL\n"
    "  perplexity             exp(cross_entropy)\n"
    "  mode_match             share of rows with argmax P == argmax Q (LMS\n"
    "                         eq. 10); mode_matches counts them.  Ties go to the\n"
    "                         lowest index; ties_p / ties_q count rows whose\n"
    "                         argmax is not unique\n"
    "  top1/5/10_overlap      mean |top-k(P) ∩ top-k(Q)| / k (ties: lower index)\n"
    "  rank_mean, rank_median rank of P's mode under Q (1 = Q's mode)\n"
    "  frob_rms               ||A_P - A_Q||_F / sqrt(N), A = log-prob matrices\n"
    "  max_row_err, _row      largest ||log p_i - log q_i||_2 and its row\n"
    "  max_abs_err            largest |log p_ij - log q_ij|\n"
    "--per-row FILE writes one TSV line per row: row kl cross_entropy entropy\n"
    "mode_p mode_q mode_match tie_p tie_q rank top1_overlap top5_overlap\n"
    "top10_overlap row_err max_abs_err.  stdout carries one stream: with\n"
    "--per-row - the rows go to stdout and the summary table to stderr (or\n"
    "to -o FILE).\n\n"
    "Shapes must match; rows must be finite (a zero probability is refused)\n"
    "and normalised, |logsumexp(row)| <= TOL (else the row is named, exit 1;\n"
    "--normalize renormalises instead).  Row numbers are 0-based.\n\n"
    "Examples:\n"
    "  sbw-compare P.npy Q.npy\n"
    "  sbw-compare --per-row rows.tsv --json P.npy Q.npy\n";

typedef struct cmp_args {
    const char *per_row;
    bool probs, normalize;
    double tol;
    FILE *table; /* stdout, or stderr when --per-row - */
} cmp_args;

static const char *const sum_cols[] = {
    "rows",        "cols",         "kl_mean",      "kl_median",       "cross_entropy",
    "entropy",     "perplexity",   "mode_match",   "mode_matches",    "ties_p",
    "ties_q",      "top1_overlap", "top5_overlap", "top10_overlap",   "rank_mean",
    "rank_median", "frob_rms",     "max_row_err",  "max_row_err_row", "max_abs_err"};
static const char *const row_cols[] = {"row",           "kl",      "cross_entropy", "entropy",
                                       "mode_p",        "mode_q",  "mode_match",    "tie_p",
                                       "tie_q",         "rank",    "top1_overlap",  "top5_overlap",
                                       "top10_overlap", "row_err", "max_abs_err"};
static const char *const overlap_cols[] = {"top1_overlap", "top5_overlap", "top10_overlap"};

/* The inputs and parameters as meta.  Errors: the table's (sticky). */
static int add_meta(sbw_table *t, const cmp_args *a, sbw_logp_reader *const rd[2])
{
    const char *keys[2][4] = {{"p_file", "p_dtype", "p_max_abs_logsumexp", "p_worst_row"},
                              {"q_file", "q_dtype", "q_max_abs_logsumexp", "q_worst_row"}};
    for (int i = 0; i < 2; i++) {
        double lse;
        size_t worst;
        sbw_logp_stats(rd[i], &lse, &worst);
        sbw_table_meta_str(t, keys[i][0], sbw_logp_path(rd[i]));
        sbw_table_meta_str(t, keys[i][1], sbw_npy_dtype_name(sbw_logp_info(rd[i])->dtype));
        sbw_table_meta_dbl(t, keys[i][2], lse);
        sbw_table_meta_int(t, keys[i][3], (long long)worst);
    }
    sbw_table_meta_bool(t, "probs", a->probs);
    sbw_table_meta_bool(t, "normalize", a->normalize);
    sbw_table_meta_dbl(t, "tol", a->tol);
    sbw_table_meta_str(t, "per_row", a->per_row ? a->per_row : "");
    sbw_table_meta_str(t, "units", "nats");
    return sbw_table_status(t);
}

/* The summary's columns and its one row.  Errors: the table's (sticky). */
static int add_summary(sbw_table *t, const sbw_compare_summary *s)
{
    sbw_table_columns(t, sum_cols, sizeof sum_cols / sizeof *sum_cols);
    sbw_table_add_row(t);
    sbw_table_set_int(t, "rows", (long long)s->rows);
    sbw_table_set_int(t, "cols", (long long)s->cols);
    sbw_table_set_dbl(t, "kl_mean", s->kl_mean);
    sbw_table_set_dbl(t, "kl_median", s->kl_median);
    sbw_table_set_dbl(t, "cross_entropy", s->cross_entropy);
    sbw_table_set_dbl(t, "entropy", s->entropy);
    sbw_table_set_dbl(t, "perplexity", s->perplexity);
    sbw_table_set_dbl(t, "mode_match", s->mode_match);
    sbw_table_set_int(t, "mode_matches", (long long)s->mode_matches);
    sbw_table_set_int(t, "ties_p", (long long)s->ties_p);
    sbw_table_set_int(t, "ties_q", (long long)s->ties_q);
    for (size_t k = 0; k < SBW_COMPARE_NK; k++)
        sbw_table_set_dbl(t, overlap_cols[k], s->top_overlap[k]);
    sbw_table_set_dbl(t, "rank_mean", s->rank_mean);
    sbw_table_set_dbl(t, "rank_median", s->rank_median);
    sbw_table_set_dbl(t, "frob_rms", s->frob_rms);
    sbw_table_set_dbl(t, "max_row_err", s->max_row_err);
    sbw_table_set_int(t, "max_row_err_row", (long long)s->max_row_err_row);
    sbw_table_set_dbl(t, "max_abs_err", s->max_abs_err);
    return sbw_table_status(t);
}

/* Row i of the per-row table.  Errors: the table's (sticky). */
static int add_row(sbw_table *t, size_t i, const sbw_compare_row *r, size_t m)
{
    sbw_table_add_row(t);
    sbw_table_set_int(t, "row", (long long)i);
    sbw_table_set_dbl(t, "kl", r->kl);
    sbw_table_set_dbl(t, "cross_entropy", r->cross_entropy);
    sbw_table_set_dbl(t, "entropy", r->entropy);
    sbw_table_set_int(t, "mode_p", (long long)r->mode_p);
    sbw_table_set_int(t, "mode_q", (long long)r->mode_q);
    sbw_table_set_int(t, "mode_match", r->mode_p == r->mode_q);
    sbw_table_set_int(t, "tie_p", r->tie_p);
    sbw_table_set_int(t, "tie_q", r->tie_q);
    sbw_table_set_int(t, "rank", (long long)r->rank);
    for (size_t k = 0; k < SBW_COMPARE_NK; k++) {
        size_t kk = sbw_compare_k(k) < m ? sbw_compare_k(k) : m;
        sbw_table_set_dbl(t, overlap_cols[k], (double)r->overlap[k] / (double)kk);
    }
    sbw_table_set_dbl(t, "row_err", r->row_err);
    sbw_table_set_dbl(t, "max_abs_err", r->max_abs);
    return sbw_table_status(t);
}

static int write_per_row(const cmp_args *a, const sbw_cli_common *c, sbw_logp_reader *const rd[2],
                         const sbw_compare_row *rows, size_t n, size_t m)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-compare", c, false);
    if (st)
        return st;
    add_meta(t, a, rd);
    sbw_table_columns(t, row_cols, sizeof row_cols / sizeof *row_cols);
    for (size_t i = 0; i < n; i++)
        add_row(t, i, &rows[i], m);
    st = sbw_table_write(t, a->per_row, false); /* the first failure, if any */
    sbw_table_free(t);
    return st;
}

/* The summary table, to -o's file or to the table stream.  Errors: the
 * table's first failure, or the write's. */
static int report(const cmp_args *a, const sbw_cli_common *c, sbw_logp_reader *const rd[2],
                  const sbw_compare_summary *s)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-compare", c, false);
    if (st)
        return st;
    add_meta(t, a, rd);
    add_summary(t, s);
    if (c->output && !sbw_file_is_std(c->output)) /* either returns the first failure */
        st = sbw_table_write(t, c->output, c->json);
    else
        st = sbw_table_print(t, a->table, c->json);
    sbw_table_free(t);
    return st;
}

static int run(const cmp_args *a, const sbw_cli_common *c, sbw_logp_reader *const rd[2])
{
    size_t n = sbw_logp_info(rd[0])->rows, m = sbw_logp_info(rd[0])->cols;
    sbw_compare_row *rows = malloc((n ? n : 1) * sizeof *rows);
    int st = rows ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "cannot hold %zu rows of results", n);
    sbw_compare_summary s;
    sbw_progress p;
    sbw_progress_start(&p, "sbw-compare", "rows", (double)n, c->quiet);
    st = st ? st : sbw_compare_files(rd[0], rd[1], (int)c->threads, &p, rows);
    sbw_progress_finish(&p);
    st = st ? st : sbw_compare_summarize(rows, n, m, &s);
    if (!st && a->per_row)
        st = write_per_row(a, c, rd, rows, n, m);
    st = st ? st : report(a, c, rd, &s);
    free(rows);
    return st;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    cmp_args a = {.tol = SBW_LOGP_TOL};
    const sbw_cli_opt opts[] = {
        {"--per-row", "FILE", SBW_ARG_STRING, &a.per_row, 1, 0, "write per-context values (TSV)"},
        {"--probs", NULL, SBW_ARG_FLAG, &a.probs, 1, 0, "entries are probabilities, not logs"},
        {"--normalize", NULL, SBW_ARG_FLAG, &a.normalize, 1, 0,
         "renormalise rows instead of refusing"},
        {"--tol", "TOL", SBW_ARG_DOUBLE, &a.tol, 1e-15, 1, "largest |logsumexp(row)| accepted"},
        {0}};
    const sbw_cli cli = {"sbw-compare",
                         "LOGP.npy LOGQ.npy",
                         "Compare a model Q with the true P*, context by context.",
                         details,
                         opts,
                         2,
                         2,
                         SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_THREADS};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if (sbw_file_is_std(c.args[0]) && sbw_file_is_std(c.args[1]))
        return sbw_cli_usage_error(&cli, "P and Q cannot both come from stdin");
    const sbw_cli_stream data[] = {{"--per-row", a.per_row}};
    if ((st = sbw_cli_one_stream(&cli, data, 1, "-o", c.output, &a.table)) != 0)
        return st;
    const char *in[] = {c.args[0], c.args[1]};
    /* -o is checked even when the table goes to stderr beside a stream on
     * stdout: it must not be an input or unwritable */
    const char *table = c.output ? c.output : a.table == stderr ? NULL : "-";
    const sbw_preflight_out out[] = {{"-o (the table)", table, false},
                                     {"--per-row", a.per_row, false}};
    if ((st = sbw_preflight(in, 2, out, 2)) != 0)
        return sbw_cli_fail("sbw-compare", st);
    sbw_error_gsl_quiet();
    sbw_cli_threads(c.threads);
    sbw_logp_opts lo = {.probs = a.probs, .normalize = a.normalize, .tol = a.tol};
    sbw_logp_reader *rd[2] = {NULL, NULL};
    st = sbw_logp_open(&rd[0], c.args[0], &lo);
    st = st ? st : sbw_logp_open(&rd[1], c.args[1], &lo);
    st = st ? st : run(&a, &c, rd);
    sbw_logp_close(rd[0]);
    sbw_logp_close(rd[1]);
    return st ? sbw_cli_fail("sbw-compare", st) : SBW_EXIT_OK;
}
