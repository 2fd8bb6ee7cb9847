/* sbw-bound: lower bounds on how well a Softmax head of dimension d can fit
 * a log-probability matrix (LMS Theorem 1 and the shift-aware bound), the
 * error a given fit achieves, and the exact rank-d Softmax solution. */
#include "sbw.h"
#include "sbw_bound.h"
#include "sbw_rank.h"
#include "sbw_spectra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char details[] =
    "A is the N x M log-probability matrix in FILE ('-' = stdin).  For each d in\n"
    "--d LIST (default 0..min(N,M)) prints two lower bounds on ||A - log Q||_F over\n"
    "every Softmax head Q of dimension d (log Q = H W^T - log Z 1^T):\n"
    "  lms_bound    LMS Theorem 1: sqrt(sum_{i>=d+2} sigma_i(A)^2)  (1-based i)\n"
    "  shift_bound  sqrt(sum_{i>d} sigma_i(A_c)^2), A_c = A (I - 11^T/M) the row-\n"
    "               centred A: tighter (log Q is rank d plus a row shift), and 0\n"
    "               exactly from d* = rank(A_c), the minimal dimension (MoS Prop. 1).\n"
    "--bias: heads with a word bias (H W^T + 1 b^T): Theorem 1's sum starts at\n"
    "d+3, and shift_bound and d* use the double-centred (I-11^T/N) A (I-11^T/M).\n"
    "--fit logQ.npy adds fit_error = ||A - log Q||_F in the row d = fit_d (the\n"
    "--fit-d given, else the rank of log Q's centred matrix) and, in the header,\n"
    "its split ||.||^2 = centred^2 + norm^2 (fit_error_centred >= shift_bound;\n"
    "fit_error_norm = sqrt(M sum_i (mean_i(A) - mean_i(log Q))^2) is what wrong\n"
    "row normalisation costs).  --construct D -o logQ.npy writes the exact rank-D\n"
    "Softmax solution (truncated SVD of the centred A); its centred error equals\n"
    "shift_bound(D) and its error is 0 from D >= d*.  All norms are Frobenius;\n"
    "--rms divides every bound and error by sqrt(N M).  d* and the ranks use the\n"
    "Numerical Recipes threshold with eps from the file's dtype (--eps).\n\n"
    "Output: d lms_bound shift_bound [fit_error]; header: d_star, rank_a, norms.\n"
    "stdout carries one stream: with --construct D -o - the matrix goes to\n"
    "stdout and the table to stderr.\n\n"
    "Examples:\n"
    "  sbw-bound logP.npy --d 1:50\n"
    "  sbw-bound logP.npy --fit fitted_logQ.npy --rms\n"
    "  sbw-bound logP.npy --construct 10 -o best10.npy\n";

typedef struct bound_args {
    bool bias, rms;
    const char *d_list, *fit, *eps, *method;
    long fit_d, construct;
    size_t block_rows;
    long workers;
    FILE *table; /* stdout, or stderr when -o - */
} bound_args;

typedef struct bound_run {
    sbw_spectra sp;
    double eps, scale, *tail, *tail_c;
    const char *eps_source;
    sbw_rank_est rank_a, rank_c;
    bool have_fit, have_construct;
    sbw_bound_fit_error fit;
    size_t fit_d;
    sbw_bound_construction con;
    size_t *d;
    size_t nd;
} bound_run;

static int read_spectra(const char *path, const bound_args *a, const sbw_cli_common *c,
                        const sbw_reduce_opts *o, bound_run *run)
{
    sbw_npy_reader *r = NULL;
    sbw_reduce_opts ro = *o;
    sbw_progress p;
    int st = sbw_check_open(&r, path, SBW_SHAPE_MATRIX);
    if (st)
        return st;
    sbw_progress_start(&p, "sbw-bound", "rows", (double)sbw_npy_reader_info(r)->rows, c->quiet);
    ro.progress = &p;
    ro.stage = sbw_progress_stage; /* closes the bar, notes the silent SVDs */
    ro.stage_ctx = &p;
    st = sbw_bound_spectra(r, a->bias, a->fit, &ro, &run->sp, &run->fit);
    sbw_progress_finish(&p);
    sbw_npy_close(r);
    run->have_fit = !st && a->fit;
    return st;
}

/* Ranks, tails and the d list. */
static int analyse(const bound_args *a, bound_run *run)
{
    sbw_spectra *sp = &run->sp;
    size_t k = sp->k;
    sbw_bound_summary sum;
    run->tail = malloc((k + 1) * sizeof(double));
    run->tail_c = malloc((k + 1) * sizeof(double));
    int st = run->tail && run->tail_c ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    /* eps, the ranks, the tails: one library call, which the Python
     * binding's sbw.bound makes too */
    st = st ? st : sbw_bound_analyse(sp, a->bias, a->eps, &sum, run->tail, run->tail_c);
    if (st)
        return st;
    run->eps = sum.eps;
    run->eps_source = sum.eps_source;
    run->rank_a = sum.rank_a;
    run->rank_c = sum.rank_c;
    run->scale = a->rms ? 1.0 / sqrt((double)sp->red.rows * (double)sp->red.cols) : 1.0;
    if (a->d_list)
        return sbw_cli_parse_size_list(a->d_list, "--d", &run->d, &run->nd);
    run->nd = k + 1;
    if (!(run->d = malloc(run->nd * sizeof *run->d)))
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t i = 0; i < run->nd; i++)
        run->d[i] = i;
    return SBW_OK;
}

/* The input, parameters and results as meta.  Errors: the table's (sticky). */
static int add_meta(sbw_table *t, const char *path, const bound_args *a, const bound_run *run)
{
    const sbw_spectra *sp = &run->sp;
    sbw_table_meta_str(t, "file", path);
    sbw_table_meta_bool(t, "bias", a->bias);
    sbw_table_meta_str(t, "scale", a->rms ? "rms: norm / sqrt(N M)" : "frobenius");
    sbw_table_meta_int(t, "n", (long long)sp->red.rows);
    sbw_table_meta_int(t, "m", (long long)sp->red.cols);
    sbw_table_meta_str(t, "dtype", sbw_npy_dtype_name(sp->red.dtype));
    sbw_table_meta_str(t, "method", sbw_reduce_method_name(sp->red.method));
    sbw_table_meta_dbl(t, "eps", run->eps);
    sbw_table_meta_str(t, "eps_source", run->eps_source);
    sbw_table_meta_int(t, "d_star", (long long)run->rank_c.rank);
    sbw_table_meta_dbl(t, "tsh_centred", run->rank_c.tsh);
    sbw_table_meta_int(t, "rank_a", (long long)run->rank_a.rank);
    sbw_table_meta_dbl(t, "norm_a", sqrt(run->tail[0]) * run->scale);
    sbw_table_meta_dbl(t, "norm_a_centred", sqrt(run->tail_c[0]) * run->scale);
    sbw_table_meta_dbl(t, "seconds_read", sp->seconds_read);
    sbw_table_meta_dbl(t, "seconds_svd", sp->seconds_svd);
    return sbw_table_status(t);
}

/* The --fit results as meta (none without --fit).  Errors: the table's (sticky). */
static int add_fit_meta(sbw_table *t, const bound_args *a, const bound_run *run)
{
    if (!run->have_fit)
        return SBW_OK;
    size_t k = run->sp.k;
    double bound = sbw_bound_shift(run->tail_c, k, run->fit_d) * run->scale;
    sbw_table_meta_str(t, "fit_file", a->fit);
    sbw_table_meta_int(t, "fit_d", (long long)run->fit_d);
    sbw_table_meta_str(t, "fit_d_source", a->fit_d >= 0 ? "--fit-d" : "rank");
    sbw_table_meta_dbl(t, "fit_error", run->fit.error * run->scale);
    sbw_table_meta_dbl(t, "fit_error_centred", run->fit.centred * run->scale);
    sbw_table_meta_dbl(t, "fit_error_norm", run->fit.norm * run->scale);
    sbw_table_meta_dbl(t, "fit_shift_bound", bound);
    sbw_table_meta_bool(t, "fit_above_bound", run->fit.error * run->scale >= bound);
    return sbw_table_status(t);
}

/* The --construct results as meta (none without it).  Errors: the table's (sticky). */
static int add_construct_meta(sbw_table *t, const sbw_cli_common *c, const bound_run *run)
{
    if (!run->have_construct)
        return SBW_OK;
    sbw_table_meta_str(t, "construct_file", c->output);
    sbw_table_meta_int(t, "construct_d", (long long)run->con.d);
    sbw_table_meta_dbl(t, "construct_error", run->con.err.error * run->scale);
    sbw_table_meta_dbl(t, "construct_error_centred", run->con.err.centred * run->scale);
    sbw_table_meta_dbl(t, "construct_error_norm", run->con.err.norm * run->scale);
    return sbw_table_status(t);
}

/* One row per dimension d.  Errors: the table's (sticky). */
static int add_rows(sbw_table *t, const bound_args *a, const bound_run *run)
{
    static const char *const cols[] = {"d", "lms_bound", "shift_bound", "fit_error"};
    size_t k = run->sp.k;
    sbw_table_columns(t, cols, run->have_fit ? 4 : 3);
    for (size_t i = 0; i < run->nd; i++) {
        size_t d = run->d[i];
        sbw_table_add_row(t);
        sbw_table_set_int(t, "d", (long long)d);
        sbw_table_set_dbl(t, "lms_bound", sbw_bound_lms(run->tail, k, d, a->bias) * run->scale);
        sbw_table_set_dbl(t, "shift_bound", sbw_bound_shift(run->tail_c, k, d) * run->scale);
        if (run->have_fit && d == run->fit_d)
            sbw_table_set_dbl(t, "fit_error", run->fit.error * run->scale);
    }
    return sbw_table_status(t);
}

static int print(const char *path, const bound_args *a, const sbw_cli_common *c,
                 const bound_run *run)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-bound", c, false);
    if (st)
        return st;
    add_meta(t, path, a, run);
    add_fit_meta(t, a, run);
    add_construct_meta(t, c, run);
    add_rows(t, a, run);
    st = sbw_table_print(t, a->table, c->json); /* the first failure, if any */
    sbw_table_free(t);
    return st;
}

/* The fit's dimension, and the extra passes: --fit-d or rank; --construct. */
static int extras(const char *path, const bound_args *a, const sbw_cli_common *c,
                  const sbw_reduce_opts *o, bound_run *run)
{
    int st = SBW_OK;
    if (run->have_fit && (size_t)a->fit_d > run->sp.k && a->fit_d >= 0)
        return SBW_ERROR(SBW_EINVAL,
                         "--fit-d %ld exceeds min(N, M) = %zu of %s: the bounds stop at d = %zu, "
                         "so the fit error would be compared with nothing",
                         a->fit_d, run->sp.k, path, run->sp.k);
    if (run->have_fit && a->fit_d >= 0)
        run->fit_d = (size_t)a->fit_d;
    else if (run->have_fit)
        st = sbw_bound_fit_dim(a->fit, a->bias, o, &run->fit_d);
    if (!st && a->construct >= 0) {
        st = sbw_bound_construct(path, c->output, (size_t)a->construct, a->bias, o, &run->con);
        run->have_construct = !st;
    }
    return st;
}

static int validate(const sbw_cli *cli, const bound_args *a, const sbw_cli_common *c,
                    sbw_reduce_opts *o)
{
    double eps;
    const char *src;
    size_t *d = NULL, nd;
    int bad = sbw_rank_eps(a->eps, SBW_F64, SBW_F64, &eps, &src) ||
              sbw_reduce_method_parse(a->method, &o->method) ||
              (a->d_list && sbw_cli_parse_size_list(a->d_list, "--d", &d, &nd));
    free(d);
    if (bad)
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if ((a->construct >= 0) != (c->output != NULL))
        return sbw_cli_usage_error(cli, "--construct D and -o FILE go together");
    if (a->fit_d >= 0 && !a->fit)
        return sbw_cli_usage_error(cli, "--fit-d needs --fit");
    if (a->fit && sbw_file_is_std(a->fit) && a->fit_d < 0)
        return sbw_cli_usage_error(cli, "--fit - is read once: give its dimension with --fit-d");
    return SBW_EXIT_OK;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    bound_args a = {.eps = "auto", .method = "auto", .fit_d = -1, .construct = -1};
    const sbw_cli_opt opts[] = {
        {"--d", "LIST", SBW_ARG_STRING, &a.d_list, 0, 0, "dimensions: 1,2,5:10,2:100:2"},
        {"--fit", "FILE", SBW_ARG_STRING, &a.fit, 0, 0, "a fitted log Q (N x M) to compare"},
        {"--fit-d", "D", SBW_ARG_LONG, &a.fit_d, -1, 1e9, "dimension of the fit (-1: rank)"},
        {"--rms", NULL, SBW_ARG_FLAG, &a.rms, 0, 0, "divide norms by sqrt(N M)"},
        {"--bias", NULL, SBW_ARG_FLAG, &a.bias, 0, 0, "heads with a word bias"},
        {"--construct", "D", SBW_ARG_LONG, &a.construct, -1, 1e9,
         "write the exact rank-D solution to -o"},
        {"--eps", "E", SBW_ARG_STRING, &a.eps, 0, 0, "auto, double, single or a number"},
        {"--method", "M", SBW_ARG_STRING, &a.method, 0, 0, "auto, direct or tsqr"},
        {"--block-rows", "B", SBW_ARG_SIZE, &a.block_rows, 0, 1e9, "TSQR block (0 = auto)"},
        {"--workers", "W", SBW_ARG_LONG, &a.workers, 0, 4096, "TSQR workers (0 = threads)"},
        {0}};
    const sbw_cli cli = {
        "sbw-bound", "FILE.npy", "Eckart-Young bounds for Softmax heads.",       details, opts,
        1,           1,          SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_OUTPUT};
    sbw_cli_common c;
    sbw_reduce_opts o = {0};
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if ((st = validate(&cli, &a, &c, &o)) != 0)
        return st;
    const sbw_cli_stream data[] = {{"-o", c.output}};
    if ((st = sbw_cli_one_stream(&cli, data, 1, NULL, NULL, &a.table)) != 0)
        return st;
    const char *in[] = {c.args[0], a.fit};
    const sbw_preflight_out out[] = {{"-o (--construct)", c.output, false}};
    if ((st = sbw_preflight(in, 2, out, 1)) != 0)
        return sbw_cli_fail("sbw-bound", st);
    sbw_error_gsl_quiet();
    sbw_cli_threads(c.threads);
    o.block_rows = a.block_rows;
    o.workers = (int)a.workers;
    bound_run run = {0};
    st = read_spectra(c.args[0], &a, &c, &o, &run);
    st = st ? st : analyse(&a, &run);
    st = st ? st : extras(c.args[0], &a, &c, &o, &run);
    st = st ? st : print(c.args[0], &a, &c, &run);
    sbw_spectra_free(&run.sp);
    free(run.tail);
    free(run.tail_c);
    free(run.d);
    return st ? sbw_cli_fail("sbw-bound", st) : SBW_EXIT_OK;
}
