/* sbw-synth: synthetic languages -- N x M log-probability matrices (.npy,
 * float64) drawn reproducibly from a seed: dirichlet, lowrank, zipf, topics;
 * and test heads (W, b) with planted interior words: head. */
#include "sbw.h"
#include "sbw_synth.h"
#include "sbw_synth_head.h"
#include "sbw_synth_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {
    "output",   "rows",      "cols",          "min_logp",
    "max_logp", "nonfinite", "mean_max_logp", "max_abs_logsumexp"};

static const char top_help[] =
    "Usage: sbw-synth KIND [options] -o logP.npy\n"
    "Generate a synthetic language: an N x M matrix of log-probabilities\n"
    "(float64 .npy, one row per context, one column per word), reproducibly\n"
    "from --seed, streamed to the file block by block (N x M may exceed memory).\n\n"
    "Kinds:\n"
    "  dirichlet  rows i.i.d. Dirichlet(alpha), sampled in log space (no -inf)\n"
    "  lowrank    log_softmax of Gaussian logits of rank R (known rank and d*)\n"
    "  zipf       power-law unigram times log-normal context perturbations\n"
    "  topics     mixture of K Dirichlet topics (exact for a K-component MoS)\n"
    "  head       not a language: a Softmax head (W, b) with K planted words\n"
    "             that are never the argmax (a test head for sbw-argmax)\n\n"
    "'sbw-synth KIND --help' describes each kind's options and output.\n"
    "The output is byte-identical for a given seed whatever --threads.\n";

static const char common_details[] =
    "Prints one TSV row (after '# key=value' header lines with every parameter,\n"
    "the seed and the command): output, rows, cols, min_logp and max_logp (over\n"
    "the whole matrix), nonfinite (NaN/Inf entries: 0 by construction),\n"
    "mean_max_logp (mean log-probability of each row's mode) and\n"
    "max_abs_logsumexp (largest |logsumexp| of a row, a normalisation check).\n"
    "stdout carries one stream: with -o - (or --probs -) that matrix goes to\n"
    "stdout and the table to stderr; -o - with --probs - is refused.\n"
    "Rows are drawn in groups of max(1, 65536 / M) rows (lowrank: at least 64),\n"
    "group b from the RNG\n"
    "stream (seed, b): any --threads gives the same bytes, and the first n rows\n"
    "of an N-row language are the n-row language.\n\n";

static const char dirichlet_details[] =
    "Rows p_i ~ Dirichlet(alpha, ..., alpha) (LMS paper, section 5.1), or one\n"
    "alpha_j per word from --alpha-file.  Sampled in log space: for alpha < 1,\n"
    "log G = log X + log(U)/alpha with X ~ Gamma(alpha + 1) and U uniform on\n"
    "(0, 1] (Marsaglia & Tsang 2000), then log p = log G - logsumexp(log G), so\n"
    "every entry is finite for alpha down to 1e-300 (NumPy's dirichlet gives\n"
    "p = 0 for about half the entries at alpha = 0.001).\n\n"
    "Example:\n  sbw-synth dirichlet --n 10000 --m 10000 --alpha 0.01 --seed 7 -o logP.npy\n";

static const char lowrank_details[] =
    "A = log_softmax(scale * H W^T / sqrt(R)), H (N x R) and W (M x R) standard\n"
    "Gaussian, so each logit has standard deviation scale.  Generically\n"
    "rank(A) = R + 1 and d* = rank(A (I - 11^T/M)) = R (MoS Corollary 1's '-1'\n"
    "is tight).  With --with-ones the last column of W is all ones, a row shift\n"
    "that the normalisation absorbs: rank(A) = R and d* = R - 1.  Both are\n"
    "capped by min(N, M) (d* by M - 1) and printed as rank_a and d_star in the\n"
    "header.  At a tiny --scale the rows are uniform to rounding and a\n"
    "numerical rank finds less.\n\n"
    "Example:\n  sbw-synth lowrank --n 2000 --m 1000 --rank 20 --scale 3 -o logP.npy\n";

static const char zipf_details[] =
    "log p_ij = -s log(j + 1) + sigma z_ij - log Z_i with z_ij ~ N(0, 1): a\n"
    "Zipf unigram (word 0 the most frequent) times i.i.d. log-normal context\n"
    "perturbations.  sigma = 0 gives N copies of the Zipf distribution.\n\n"
    "Example:\n  sbw-synth zipf --n 5000 --m 10000 --exponent 1.1 --sigma 2 -o logP.npy\n";

static const char topics_details[] =
    "K topics phi_k ~ Dirichlet_M(alpha) shared by all rows, mixture weights\n"
    "theta_i ~ Dirichlet_K(mix-alpha), p_i = sum_k theta_ik phi_k computed in\n"
    "log space (logsumexp over k), so no entry underflows.  P = Theta Phi has\n"
    "rank K: a K-component MoS with d = K represents it exactly, a Softmax\n"
    "head generally not (log P is of high rank).\n\n"
    "Example:\n  sbw-synth topics --n 10000 --m 5000 --k 8 --alpha 0.05 -o logP.npy\n";

typedef struct synth_args {
    sbw_synth_params p;
    const char *alpha_file, *probs;
    bool alpha_given, m_given;
    double *alpha_vec;
    FILE *table; /* stdout, or stderr when a matrix goes to stdout */
} synth_args;

static bool arg_given(int argc, char **argv, const char *name)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strncmp(argv[i], name, len) == 0 && (argv[i][len] == '\0' || argv[i][len] == '='))
            return true;
    return false;
}

/* An option whose range sbw_synth_check validates (min > max: no range). */
static sbw_cli_opt unranged(const char *name, const char *metavar, sbw_cli_arg_type type, void *dst,
                            const char *help)
{
    return (sbw_cli_opt){name, metavar, type, dst, 1, 0, help};
}

/* The option table of a kind (ended by {0}); returns the --help details. */
static const char *kind_opts(sbw_synth_kind kind, synth_args *a, sbw_cli_opt *o)
{
    sbw_synth_params *p = &a->p;
    size_t n = 0;
    o[n++] = (sbw_cli_opt){"--n", "N", SBW_ARG_SIZE, &p->n, 1, 9e15, "contexts (rows), required"};
    o[n++] = (sbw_cli_opt){"--m", "M", SBW_ARG_SIZE, &p->m, 1, 9e15, "words (columns), required"};
    o[n++] = unranged("--probs", "FILE", SBW_ARG_STRING, &a->probs,
                      "also write the probabilities exp(logP) to FILE");
    const char *details = dirichlet_details;
    if (kind == SBW_SYNTH_DIRICHLET || kind == SBW_SYNTH_TOPICS)
        o[n++] = unranged("--alpha", "A", SBW_ARG_DOUBLE, &p->alpha,
                          kind == SBW_SYNTH_TOPICS ? "topic-word concentration"
                                                   : "symmetric concentration");
    if (kind == SBW_SYNTH_DIRICHLET)
        o[n++] = unranged("--alpha-file", "V.npy", SBW_ARG_STRING, &a->alpha_file,
                          "one concentration per word (sets M)");
    if (kind == SBW_SYNTH_LOWRANK) {
        o[n++] = unranged("--rank", "R", SBW_ARG_SIZE, &p->rank, "rank of the logits");
        o[n++] =
            unranged("--scale", "S", SBW_ARG_DOUBLE, &p->scale, "standard deviation of each logit");
        o[n++] = unranged("--with-ones", NULL, SBW_ARG_FLAG, &p->with_ones,
                          "last column of W all ones (rank R, d* = R - 1)");
        details = lowrank_details;
    }
    if (kind == SBW_SYNTH_ZIPF) {
        o[n++] = unranged("--exponent", "S", SBW_ARG_DOUBLE, &p->exponent,
                          "power-law exponent of the unigram");
        o[n++] = unranged("--sigma", "X", SBW_ARG_DOUBLE, &p->sigma,
                          "standard deviation of the log perturbations");
        details = zipf_details;
    }
    if (kind == SBW_SYNTH_TOPICS) {
        o[n++] = unranged("--k", "K", SBW_ARG_SIZE, &p->k, "number of topics");
        o[n++] = unranged("--mix-alpha", "B", SBW_ARG_DOUBLE, &p->mix_alpha,
                          "concentration of the mixture weights");
        details = topics_details;
    }
    o[n] = (sbw_cli_opt){0};
    return details;
}

/* Cross-option checks and the alpha file; returns 0 or an exit code. */
static int resolve(const sbw_cli *cli, synth_args *a, const sbw_cli_common *c)
{
    if (!c->output)
        return sbw_cli_usage_error(cli, "missing -o FILE (the output .npy, '-' = stdout)");
    if (a->alpha_file && a->alpha_given)
        return sbw_cli_usage_error(cli, "give --alpha or --alpha-file, not both");
    const sbw_cli_stream data[] = {{"-o", c->output}, {"--probs", a->probs}};
    int one = sbw_cli_one_stream(cli, data, 2, NULL, NULL, &a->table);
    if (one)
        return one;
    const char *in[] = {a->alpha_file};
    const sbw_preflight_out out[] = {{"-o", c->output, false}, {"--probs", a->probs, false}};
    int pf = sbw_preflight(in, 1, out, 2);
    if (pf)
        return sbw_cli_fail(cli->tool, pf);
    if (a->alpha_file) {
        size_t m;
        int st = sbw_synth_io_load_alpha(a->alpha_file, &a->alpha_vec, &m);
        if (st)
            return sbw_cli_fail(cli->tool, st == SBW_EINVAL ? SBW_EDATA : st);
        if (a->m_given && m != a->p.m)
            return sbw_cli_usage_error(cli, "--m %zu but %s holds %zu concentrations", a->p.m,
                                       a->alpha_file, m);
        a->p.m = m;
        a->p.alpha_vec = a->alpha_vec;
    }
    if (a->p.n == 0 || a->p.m == 0)
        return sbw_cli_usage_error(cli, "--n and --m are required (both >= 1)");
    if (sbw_synth_check(&a->p))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    return SBW_OK;
}

static int add_meta(sbw_table *t, const synth_args *a, const sbw_cli_common *c)
{
    const sbw_synth_params *p = &a->p;
    sbw_table_meta_str(t, "kind", sbw_synth_kind_name(p->kind));
    sbw_table_meta_int(t, "n", (long long)p->n);
    sbw_table_meta_int(t, "m", (long long)p->m);
    sbw_table_meta_str(t, "output", c->output);
    sbw_table_meta_str(t, "probs", a->probs ? a->probs : "");
    if (p->kind == SBW_SYNTH_DIRICHLET && a->alpha_file)
        sbw_table_meta_str(t, "alpha_file", a->alpha_file);
    else if (p->kind == SBW_SYNTH_DIRICHLET || p->kind == SBW_SYNTH_TOPICS)
        sbw_table_meta_dbl(t, "alpha", p->alpha);
    if (p->kind == SBW_SYNTH_LOWRANK) {
        size_t ra, ds;
        sbw_synth_lowrank_ranks(p->n, p->m, p->rank, p->with_ones, &ra, &ds);
        sbw_table_meta_int(t, "rank", (long long)p->rank);
        sbw_table_meta_dbl(t, "scale", p->scale);
        sbw_table_meta_bool(t, "with_ones", p->with_ones);
        sbw_table_meta_int(t, "rank_a", (long long)ra);
        sbw_table_meta_int(t, "d_star", (long long)ds);
    }
    if (p->kind == SBW_SYNTH_ZIPF) {
        sbw_table_meta_dbl(t, "exponent", p->exponent);
        sbw_table_meta_dbl(t, "sigma", p->sigma);
    }
    if (p->kind == SBW_SYNTH_TOPICS) {
        sbw_table_meta_int(t, "k", (long long)p->k);
        sbw_table_meta_dbl(t, "mix_alpha", p->mix_alpha);
    }
    return sbw_table_status(t);
}

static int add_row(sbw_table *t, const sbw_synth_io_stats *s, const char *output, size_t m)
{
    sbw_table_columns(t, columns, sizeof columns / sizeof *columns);
    sbw_table_add_row(t);
    sbw_table_set_str(t, "output", output);
    sbw_table_set_int(t, "rows", (long long)s->rows);
    sbw_table_set_int(t, "cols", (long long)m);
    sbw_table_set_dbl(t, "min_logp", s->min);
    sbw_table_set_dbl(t, "max_logp", s->max);
    sbw_table_set_int(t, "nonfinite", (long long)s->nonfinite);
    sbw_table_set_dbl(t, "mean_max_logp", s->mean_max);
    sbw_table_set_dbl(t, "max_abs_logsumexp", s->max_abs_lse);
    return sbw_table_status(t);
}

/* Generates, writes and reports; returns the exit code. */
static int run(const char *tool, synth_args *a, const sbw_cli_common *c)
{
    sbw_table *t = NULL;
    sbw_progress prog;
    sbw_synth_io_stats s;
    sbw_cli_threads(c->threads);
    a->p.seed = c->seed;
    sbw_progress_start(&prog, tool, "rows", (double)a->p.n, c->quiet);
    int st = sbw_synth_io_write(&a->p, c->output, a->probs, &prog, &s);
    sbw_progress_finish(&prog);
    st = st ? st : sbw_table_alloc(&t, "sbw-synth", c, true);
    st = st ? st : add_meta(t, a, c);
    st = st ? st : add_row(t, &s, c->output, a->p.m);
    if (!st && !(a->table == stderr && c->quiet))
        st = sbw_table_print(t, a->table, c->json);
    sbw_table_free(t);
    return st ? sbw_cli_fail(tool, st) : SBW_EXIT_OK;
}

static int run_kind(sbw_synth_kind kind, int argc, char **argv)
{
    char tool[64];
    snprintf(tool, sizeof tool, "sbw-synth %s", sbw_synth_kind_name(kind));
    synth_args a = {0};
    sbw_synth_params_init(&a.p, kind, 0, 0);
    sbw_cli_opt opts[12];
    const char *details = kind_opts(kind, &a, opts);
    char help[2048];
    snprintf(help, sizeof help, "%s%s", common_details, details);
    const unsigned common = SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED;
    const sbw_cli cli = {.tool = tool,
                         .usage = "-o logP.npy",
                         .summary = "Generate a synthetic language (log P, N x M).",
                         .details = help,
                         .opts = opts,
                         .common = common};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    sbw_cli_name_command(&c, "sbw-synth");
    sbw_error_gsl_quiet();
    a.alpha_given = arg_given(argc, argv, "--alpha");
    a.m_given = arg_given(argc, argv, "--m");
    st = resolve(&cli, &a, &c);
    st = st ? st : run(tool, &a, &c);
    free(a.alpha_vec);
    return st;
}

/* ---- head: a Softmax head with planted interior words -------------------- */

static const char head_details[] =
    "Draws a Softmax head (W: M x D, b: M) whose unargmaxable words are known\n"
    "by construction, for testing sbw-argmax (which must find exactly them):\n"
    "  - K planted positions, a uniform K-subset of the M words;\n"
    "  - every other word uniform on the unit sphere of R^D (a normalised\n"
    "    Gaussian), bias ~ N(0, 1/4): distinct points of a sphere are all\n"
    "    vertices of their hull and h = R w_j puts w_j strictly first for\n"
    "    large R, so each is argmaxable;\n"
    "  - each planted word a convex combination of D + 1 sphere words, every\n"
    "    weight > 1/(3(D+1)) (strictly inside their simplex), its bias the\n"
    "    same combination of theirs minus 0 to 0.1: for every context h its\n"
    "    logit is at most the weighted mean of theirs, so it is never the\n"
    "    strict argmax, with or without b.\n"
    "Needs D >= 2 and M - K >= D + 1.  One GSL MT19937 stream (seed, 0) and\n"
    "plain double arithmetic (no -ffast-math): the random integers are the\n"
    "same on every machine, and so are the bytes wherever libm's log gives\n"
    "the same results (GSL's Gaussians use log and sqrt).  sbw-verify's\n"
    "argmax claims draw their heads with the same function.\n\n"
    "Writes W to -o (float64 .npy), and on request b (--bias), the planted\n"
    "words' indices one a line increasing (--planted) and a vocabulary\n"
    "(--vocab: 'v<j>' for a sphere word, 'in<j>' for a planted one): the\n"
    "files sbw-argmax reads as W.npy --bias b.npy --vocab FILE.  Every file\n"
    "is written under a temporary name and all are renamed together at the\n"
    "end (W last): either all are there or none.\n"
    "Prints one TSV row (after '# key=value' lines with every parameter, the\n"
    "seed and the command): output, rows (M), cols (D), planted (K).\n\n"
    "Example:\n"
    "  sbw-synth head --m 1000 --d 20 --k 10 --seed 1 -o W.npy --bias b.npy \\\n"
    "      --planted planted.txt --vocab vocab.txt\n"
    "  sbw-argmax --bias b.npy --vocab vocab.txt W.npy\n";

typedef struct head_args {
    size_t m, d, k;
    sbw_synth_head_paths out;
    FILE *table;
} head_args;

/* Cross-option checks and the preflight; returns 0 or an exit code. */
static int head_resolve(const sbw_cli *cli, head_args *a, const sbw_cli_common *c)
{
    a->out.w = c->output;
    if (!c->output)
        return sbw_cli_usage_error(cli, "missing -o FILE (W as .npy, '-' = stdout)");
    if (a->m == 0 || a->d == 0)
        return sbw_cli_usage_error(cli, "--m and --d are required");
    if (sbw_synth_head_check(a->m, a->d, a->k))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    const sbw_cli_stream data[] = {{"-o", a->out.w},
                                   {"--bias", a->out.b},
                                   {"--planted", a->out.planted},
                                   {"--vocab", a->out.vocab}};
    int one = sbw_cli_one_stream(cli, data, 4, NULL, NULL, &a->table);
    if (one)
        return one;
    const sbw_preflight_out out[] = {{"-o", a->out.w, false},
                                     {"--bias", a->out.b, false},
                                     {"--planted", a->out.planted, false},
                                     {"--vocab", a->out.vocab, false}};
    int pf = sbw_preflight(NULL, 0, out, 4);
    pf = pf ? pf
            : sbw_preflight_memory((double)a->m * (double)(a->d + 1) * sizeof(double),
                                   "a planted head");
    return pf ? sbw_cli_fail(cli->tool, pf) : SBW_OK;
}

static int head_table(sbw_table *t, const head_args *a, const sbw_cli_common *c)
{
    static const char *const cols[] = {"output", "rows", "cols", "planted"};
    sbw_table_meta_str(t, "kind", "head");
    sbw_table_meta_int(t, "m", (long long)a->m);
    sbw_table_meta_int(t, "d", (long long)a->d);
    sbw_table_meta_int(t, "k", (long long)a->k);
    sbw_table_meta_str(t, "output", c->output);
    sbw_table_meta_str(t, "bias", a->out.b ? a->out.b : "");
    sbw_table_meta_str(t, "planted_file", a->out.planted ? a->out.planted : "");
    sbw_table_meta_str(t, "vocab", a->out.vocab ? a->out.vocab : "");
    sbw_table_columns(t, cols, 4);
    sbw_table_add_row(t);
    sbw_table_set_str(t, "output", c->output);
    sbw_table_set_int(t, "rows", (long long)a->m);
    sbw_table_set_int(t, "cols", (long long)a->d);
    sbw_table_set_int(t, "planted", (long long)a->k);
    return sbw_table_status(t);
}

/* Draws, writes and reports a head; returns the exit code. */
static int head_run(const char *tool, head_args *a, const sbw_cli_common *c)
{
    sbw_synth_head h = {0};
    sbw_table *t = NULL;
    int st = sbw_synth_head_plant(&h, a->m, a->d, a->k, true, c->seed);
    st = st ? st : sbw_synth_head_write(&h, &a->out);
    sbw_synth_head_free(&h);
    st = st ? st : sbw_table_alloc(&t, "sbw-synth", c, true);
    st = st ? st : head_table(t, a, c);
    if (!st && !(a->table == stderr && c->quiet))
        st = sbw_table_print(t, a->table, c->json);
    sbw_table_free(t);
    return st ? sbw_cli_fail(tool, st) : SBW_EXIT_OK;
}

static int run_head(int argc, char **argv)
{
    const char *tool = "sbw-synth head";
    head_args a = {0};
    const sbw_cli_opt opts[] = {
        {"--m", "M", SBW_ARG_SIZE, &a.m, 3, 9e15, "words (rows of W), required"},
        {"--d", "D", SBW_ARG_SIZE, &a.d, 2, SBW_SYNTH_HEAD_DMAX, "dimensions (columns), required"},
        {"--k", "K", SBW_ARG_SIZE, &a.k, 0, 9e15, "planted interior words"},
        unranged("--bias", "FILE", SBW_ARG_STRING, &a.out.b, "also write the biases b (.npy)"),
        unranged("--planted", "FILE", SBW_ARG_STRING, &a.out.planted,
                 "also write the planted words' indices"),
        unranged("--vocab", "FILE", SBW_ARG_STRING, &a.out.vocab,
                 "also write word names (v<j>, in<j> planted)"),
        {0}};
    const sbw_cli cli = {.tool = tool,
                         .usage = "--m M --d D [--k K] -o W.npy",
                         .summary = "Draw a Softmax head with K planted never-argmax words.",
                         .details = head_details,
                         .opts = opts,
                         .common = SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_SEED};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    sbw_cli_name_command(&c, "sbw-synth");
    st = head_resolve(&cli, &a, &c);
    return st ? st : head_run(tool, &a, &c);
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    static const char *const kinds[] = {"dirichlet", "lowrank", "zipf", "topics"};
    const char *k = argc > 1 ? argv[1] : "";
    if (strcmp(k, "--help") == 0 || strcmp(k, "-h") == 0) {
        fputs(top_help, stdout);
        return SBW_EXIT_OK;
    }
    if (strcmp(k, "--version") == 0) {
        printf("sbw-synth (sbw) %s\n%s\n", SBW_CLI_VERSION, sbw_cli_blas());
        return SBW_EXIT_OK;
    }
    for (int i = 0; i < 4; i++)
        if (strcmp(k, kinds[i]) == 0)
            return run_kind((sbw_synth_kind)i, argc - 1, argv + 1);
    if (strcmp(k, "head") == 0)
        return run_head(argc - 1, argv + 1);
    char name[256];
    sbw_error_escape(k, name, sizeof name);
    fprintf(stderr,
            "sbw-synth: %s '%s'\nUsage: sbw-synth KIND [options] -o logP.npy  "
            "(KIND: dirichlet, lowrank, zipf, topics, head)\nTry 'sbw-synth --help'.\n",
            *k ? "unknown kind" : "missing kind", name);
    return SBW_EXIT_USAGE;
}
