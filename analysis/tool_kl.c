/* sbw-kl: how distinct the next-token distributions of a language are --
 * the expected pairwise KL divergence over contexts (MoS Table 11), exactly
 * in one pass, with the paper's sampled estimator and the full pairwise
 * matrix as options. */
#include "sbw.h"
#include "sbw_kl.h"
#include "sbw_kl_matrix.h"
#include "sbw_kl_pairs.h"
#include "sbw_logp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
    "Rows of LOGP.npy are contexts c, columns words x, entries log p_c(x)\n"
    "(float64 or float32; --probs if they are probabilities).  Over the T\n"
    "selected rows it prints, in nats:\n"
    "  expected_pairwise_kl  mean over the T(T-1) ordered pairs c != c' of\n"
    "                        KL(p_c || p_c'), exact, by the closed form\n"
    "                        T/(T-1) (mean_c sum_x p_c log p_c - sum_x pbar lbar)\n"
    "                        evaluated as a sum of column co-moments in one\n"
    "                        streaming pass (no sampling, no T^2 loop)\n"
    "  mean_entropy          mean_c H(p_c)\n"
    "  entropy_of_mean       H(pbar), pbar the mean distribution\n"
    "  js_spread             entropy_of_mean - mean_entropy (generalised\n"
    "                        Jensen-Shannon divergence of the rows, >= 0)\n"
    "With --pairs S, the paper's estimator too: S ordered pairs c != c' drawn\n"
    "uniformly with replacement (--seed), and of their KL values\n"
    "  kl_sample_mean, kl_sample_sd, kl_sample_se, kl_ci95_lo, kl_ci95_hi\n"
    "  (Student t), kl_min, kl_q05, kl_q25, kl_median, kl_q75, kl_q95, kl_max,\n"
    "  sample_z = (kl_sample_mean - expected_pairwise_kl) / kl_sample_se.\n"
    "--matrix FILE writes the T x T matrix K[i][j] = KL(p_i || p_j) (float64\n"
    ".npy, rows in selection order; blocked GEMM, for small T).  stdout\n"
    "carries one stream: with --matrix - the matrix goes to stdout and the\n"
    "table to stderr (or to -o FILE).\n\n"
    "Rows must be finite (a -inf log-probability, i.e. a zero probability, is\n"
    "refused: KL against it is infinite) and normalised: |logsumexp(row)| <=\n"
    "TOL, else the tool names the row and exits 1; --normalize renormalises\n"
    "instead.  Row numbers are 0-based.  --rows A:B selects rows A..B-1 (A or\n"
    "B may be left out), --sample-rows K then K of them at random (--seed).\n\n"
    "Examples:\n"
    "  sbw-kl logP.npy\n"
    "  sbw-kl --rows 0:41215 --pairs 100000 --seed 7 logP.npy\n"
    "  sbw-kl --sample-rows 2000 --matrix K.npy logP.npy\n"
    "  sbw-kl --sample-rows 2000 --matrix - logP.npy > K.npy\n";

typedef struct kl_args {
    const char *rows, *matrix;
    size_t sample_rows, pairs, max_matrix_rows;
    bool probs, normalize;
    double tol;
    FILE *table; /* stdout, or stderr when --matrix - */
} kl_args;

static const char *const exact_cols[] = {
    "rows", "cols", "expected_pairwise_kl", "mean_entropy", "entropy_of_mean", "js_spread"};
static const char *const pair_cols[] = {
    "pairs",      "kl_sample_mean", "kl_sample_sd", "kl_sample_se", "kl_ci95_lo",
    "kl_ci95_hi", "kl_min",         "kl_q05",       "kl_q25",       "kl_median",
    "kl_q75",     "kl_q95",         "kl_max",       "sample_z"};

/* "A:B", "A:", ":B" (0-based, B exclusive) within [0, rows]. */
static int parse_rows(const sbw_cli *cli, const char *spec, size_t rows, size_t *a, size_t *b)
{
    const char *colon = strchr(spec, ':');
    char lo[32] = "", hi[32] = "";
    if (!colon || (size_t)(colon - spec) >= sizeof lo || strlen(colon + 1) >= sizeof hi)
        return sbw_cli_usage_error(cli, "--rows needs A:B (0-based, B exclusive), got '%s'", spec);
    memcpy(lo, spec, (size_t)(colon - spec));
    strcpy(hi, colon + 1);
    *a = 0;
    *b = rows;
    if ((*lo && sbw_cli_parse_size(lo, "--rows start", 1, 0, a)) ||
        (*hi && sbw_cli_parse_size(hi, "--rows end", 1, 0, b)))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (*b > rows || *a >= *b)
        return sbw_cli_usage_error(cli, "--rows %s is not a range within the %zu rows", spec, rows);
    return SBW_OK;
}

/* The rows to use, from --rows and --sample-rows. */
static int select_rows(const sbw_cli *cli, const kl_args *k, const sbw_cli_common *c,
                       const sbw_logp_reader *r, sbw_logp_sel *s)
{
    size_t rows = sbw_logp_info(r)->rows, a = 0, b = rows;
    if (k->rows && parse_rows(cli, k->rows, rows, &a, &b))
        return SBW_EXIT_USAGE;
    if (k->sample_rows > b - a)
        return sbw_cli_usage_error(cli, "--sample-rows %zu: only %zu rows to choose from",
                                   k->sample_rows, b - a);
    if ((k->rows || k->sample_rows) && (k->sample_rows ? k->sample_rows : b - a) < 2)
        return sbw_cli_usage_error(cli, "the selection has fewer than 2 rows: no pairs");
    if ((k->pairs || k->matrix) && !sbw_logp_seekable(r))
        return sbw_cli_usage_error(cli, "--pairs and --matrix need a regular file, not a pipe");
    if (k->matrix && (k->sample_rows ? k->sample_rows : b - a) > k->max_matrix_rows)
        return sbw_cli_usage_error(cli,
                                   "--matrix: %zu rows exceed --max-matrix-rows %zu "
                                   "(the matrix takes 8 T^2 bytes)",
                                   k->sample_rows ? k->sample_rows : b - a, k->max_matrix_rows);
    if (k->sample_rows)
        return sbw_logp_sel_sample(s, a, b, k->sample_rows, c->seed) ? SBW_EXIT_DATA : SBW_OK;
    sbw_logp_sel_range(s, a, b);
    return SBW_OK;
}

/* The run's parameters and input as meta.  Errors: the table's (sticky). */
static int add_meta(sbw_table *t, const kl_args *k, const sbw_logp_reader *r, const sbw_logp_sel *s)
{
    const sbw_npy_info *in = sbw_logp_info(r);
    char range[64];
    double lse;
    size_t worst;
    sbw_logp_stats(r, &lse, &worst);
    snprintf(range, sizeof range, "%zu:%zu", s->begin, s->end);
    sbw_table_meta_str(t, "file", sbw_logp_path(r));
    sbw_table_meta_str(t, "dtype", sbw_npy_dtype_name(in->dtype));
    sbw_table_meta_int(t, "file_rows", (long long)in->rows);
    sbw_table_meta_int(t, "file_cols", (long long)in->cols);
    sbw_table_meta_str(t, "row_range", range);
    sbw_table_meta_int(t, "sample_rows", (long long)k->sample_rows);
    sbw_table_meta_int(t, "pairs", (long long)k->pairs);
    sbw_table_meta_str(t, "matrix", k->matrix ? k->matrix : "");
    sbw_table_meta_bool(t, "probs", k->probs);
    sbw_table_meta_bool(t, "normalize", k->normalize);
    sbw_table_meta_dbl(t, "tol", k->tol);
    sbw_table_meta_dbl(t, "max_abs_logsumexp", lse);
    sbw_table_meta_int(t, "max_abs_logsumexp_row", (long long)worst);
    sbw_table_meta_str(t, "units", "nats");
    return sbw_table_status(t);
}

/* The one row of results (sample columns when smp).  Errors: the table's
 * (sticky). */
static int add_values(sbw_table *t, const sbw_kl_exact *e, const sbw_kl_pairs_sample *smp)
{
    sbw_table_add_row(t);
    sbw_table_set_int(t, "rows", (long long)e->rows);
    sbw_table_set_int(t, "cols", (long long)e->cols);
    sbw_table_set_dbl(t, "expected_pairwise_kl", e->expected_kl);
    sbw_table_set_dbl(t, "mean_entropy", e->mean_entropy);
    sbw_table_set_dbl(t, "entropy_of_mean", e->entropy_of_mean);
    sbw_table_set_dbl(t, "js_spread", e->js_spread);
    if (!smp)
        return sbw_table_status(t);
    const double v[] = {smp->mean,
                        smp->sd,
                        smp->se,
                        smp->ci_lo,
                        smp->ci_hi,
                        smp->min,
                        smp->q05,
                        smp->q25,
                        smp->median,
                        smp->q75,
                        smp->q95,
                        smp->max,
                        (smp->mean - e->expected_kl) / smp->se};
    sbw_table_set_int(t, "pairs", (long long)smp->n);
    for (size_t i = 1; i < sizeof pair_cols / sizeof *pair_cols; i++)
        sbw_table_set_dbl(t, pair_cols[i], v[i - 1]);
    return sbw_table_status(t);
}

/* Declares every column (exact, then sample ones when asked) up front. */
static int declare(sbw_table *t, bool with_pairs)
{
    const char *cols[sizeof exact_cols / sizeof *exact_cols + sizeof pair_cols / sizeof *pair_cols];
    size_t n = 0;
    for (size_t i = 0; i < sizeof exact_cols / sizeof *exact_cols; i++)
        cols[n++] = exact_cols[i];
    for (size_t i = 0; with_pairs && i < sizeof pair_cols / sizeof *pair_cols; i++)
        cols[n++] = pair_cols[i];
    return sbw_table_columns(t, cols, n);
}

static int sampled(sbw_logp_reader *r, const sbw_logp_sel *s, const kl_args *k,
                   const sbw_cli_common *c, sbw_kl_pairs_sample *out)
{
    size_t *ab = malloc(2 * k->pairs * sizeof *ab);
    double *kl = malloc(k->pairs * sizeof *kl);
    int st = ab && kl ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "cannot hold %zu pairs", k->pairs);
    sbw_progress p;
    sbw_progress_start(&p, "sbw-kl: pairs", "pairs", (double)k->pairs, c->quiet);
    st = st ? st : sbw_kl_pairs_draw(s->n, k->pairs, c->seed, ab, ab + k->pairs);
    st = st ? st : sbw_kl_pairs_file(r, s, ab, ab + k->pairs, k->pairs, (int)c->threads, &p, kl);
    sbw_progress_finish(&p);
    st = st ? st : sbw_kl_pairs_stats(kl, k->pairs, out);
    free(ab);
    free(kl);
    return st;
}

static int compute(sbw_logp_reader *r, const sbw_logp_sel *s, const kl_args *k,
                   const sbw_cli_common *c, sbw_kl_exact *e, sbw_kl_pairs_sample *smp)
{
    sbw_kl_opts ko = {.threads = (int)c->threads};
    sbw_progress p;
    sbw_progress_start(&p, "sbw-kl: exact", "rows", (double)s->n, c->quiet);
    int st = sbw_kl_exact_file(r, s, &ko, &p, e);
    sbw_progress_finish(&p);
    if (!st && k->pairs)
        st = sampled(r, s, k, c, smp);
    if (!st && k->matrix) {
        sbw_progress_start(&p, "sbw-kl: matrix", "rows", (double)s->n, c->quiet);
        st = sbw_kl_matrix_file(r, s, k->matrix, &p);
        sbw_progress_finish(&p);
    }
    return st;
}

static int report(const kl_args *k, const sbw_cli_common *c, const sbw_logp_reader *r,
                  const sbw_logp_sel *s, const sbw_kl_exact *e, const sbw_kl_pairs_sample *smp)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-kl", c, true);
    if (st)
        return st;
    add_meta(t, k, r, s);
    declare(t, k->pairs > 0);
    add_values(t, e, k->pairs ? smp : NULL);
    if (c->output && !sbw_file_is_std(c->output)) /* either returns the first failure */
        st = sbw_table_write(t, c->output, c->json);
    else
        st = sbw_table_print(t, k->table, c->json);
    sbw_table_free(t);
    return st;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    kl_args k = {.tol = SBW_LOGP_TOL, .max_matrix_rows = 20000};
    const sbw_cli_opt opts[] = {
        {"--rows", "A:B", SBW_ARG_STRING, &k.rows, 1, 0, "use rows A..B-1 only (0-based)"},
        {"--sample-rows", "K", SBW_ARG_SIZE, &k.sample_rows, 1, 0, "use K random rows of those"},
        {"--pairs", "S", SBW_ARG_SIZE, &k.pairs, 1, 1e12, "also sample S pairs (the paper's way)"},
        {"--matrix", "FILE", SBW_ARG_STRING, &k.matrix, 1, 0, "write the T x T KL matrix (.npy)"},
        {"--max-matrix-rows", "T", SBW_ARG_SIZE, &k.max_matrix_rows, 2, 1e6,
         "refuse --matrix beyond T rows"},
        {"--probs", NULL, SBW_ARG_FLAG, &k.probs, 1, 0, "entries are probabilities, not logs"},
        {"--normalize", NULL, SBW_ARG_FLAG, &k.normalize, 1, 0,
         "renormalise rows instead of refusing"},
        {"--tol", "TOL", SBW_ARG_DOUBLE, &k.tol, 1e-15, 1, "largest |logsumexp(row)| accepted"},
        {0}};
    const sbw_cli cli = {"sbw-kl",
                         "LOGP.npy",
                         "Expected pairwise KL divergence between contexts.",
                         details,
                         opts,
                         1,
                         1,
                         SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    const sbw_cli_stream data[] = {{"--matrix", k.matrix}};
    if ((st = sbw_cli_one_stream(&cli, data, 1, "-o", c.output, &k.table)) != 0)
        return st;
    const char *in[] = {c.args[0]};
    /* -o is checked even when the table goes to stderr beside a stream on
     * stdout: it must not be an input or unwritable */
    const char *table = c.output ? c.output : k.table == stderr ? NULL : "-";
    const sbw_preflight_out out[] = {{"-o (the table)", table, false},
                                     {"--matrix", k.matrix, false}};
    if ((st = sbw_preflight(in, 1, out, 2)) != 0)
        return sbw_cli_fail("sbw-kl", st);
    sbw_error_gsl_quiet();
    sbw_cli_threads(c.threads);
    sbw_logp_opts lo = {.probs = k.probs, .normalize = k.normalize, .tol = k.tol};
    sbw_logp_reader *r = NULL;
    sbw_logp_sel s = {0};
    sbw_kl_exact e;
    sbw_kl_pairs_sample smp;
    if ((st = sbw_logp_open(&r, c.args[0], &lo)) != 0)
        return sbw_cli_fail("sbw-kl", st);
    int ex = select_rows(&cli, &k, &c, r, &s);
    if (!ex) {
        st = compute(r, &s, &k, &c, &e, &smp);
        st = st ? st : report(&k, &c, r, &s, &e, &smp);
        ex = st ? sbw_cli_fail("sbw-kl", st) : SBW_EXIT_OK;
    } else if (ex == SBW_EXIT_DATA) {
        ex = sbw_cli_fail("sbw-kl", SBW_ENOMEM);
    }
    sbw_logp_sel_free(&s);
    sbw_logp_close(r);
    return ex;
}
