/* sbw-argmax: which words a Softmax head can never predict (Demeter et al.
 * 2020; Grivas et al. 2022), exactly, each answer with a certificate
 * checked in double; and, with --max-prob, the largest probability each
 * such word can reach with a context of bounded norm. */
#include "sbw.h"
#include "sbw_argmax.h"
#include "sbw_argmax_shard.h"
#include "sbw_argmax_trunc.h"

#include <glpk.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
    "For every word i of the head z = W h + b (W: the M x D matrix in FILE, one\n"
    "row per word; b: --bias, M values), decides whether some context vector h\n"
    "makes z_i the strict maximum.  Without a bias, i is argmaxable iff w_i is a\n"
    "vertex of the convex hull of the rows of W; with a bias, iff (w_i, b_i) is a\n"
    "vertex of the upper hull of the lifted rows.  A word that is not can never\n"
    "be the model's prediction, whatever the context: its probability is\n"
    "'stolen' (Demeter et al. 2020; Grivas et al. 2022 found such words in 13 of\n"
    "150 published models).\n\n"
    "How: exact duplicates first (a copy with the same bias ties for every h; a\n"
    "copy with a smaller bias is dominated), then a pre-filter that tries h along\n"
    "w_i - mean(w) for all words at once (one GEMM), then, for the words left,\n"
    "an exact LP (GLPK) with D+2 rows by column generation, in parallel over\n"
    "words.  The pre-filter and the LPs work on a normalised copy (W minus its\n"
    "mean row, b minus its largest value, over a power-of-two scale): adding a\n"
    "constant to every bias (exactly, in double) or scaling W and b together by\n"
    "a power of two changes nothing the LP sees; any other common shift or\n"
    "scale changes a verdict only through the rounding of the stored head.\n\n"
    "What each verdict proves, about the head exactly as stored (no solver is\n"
    "trusted; each certificate is re-checked):\n"
    "  vertex (1): an h with z_i > z_j for every j != i, checked exactly (a\n"
    "    double evaluation with a rigorous rounding bound, exact integer\n"
    "    arithmetic (GMP) for every margin that bound cannot settle).  Near\n"
    "    the hull's boundary the h of the nearest face is refined first, so a\n"
    "    word 1e-11 outside a face is found to be a vertex;\n"
    "  duplicate, dominated (0): exact comparisons;\n"
    "  in_hull, below_hull (0): convex weights lambda with residual\n"
    "    r = max_k |sum_j lambda_j w_jk - w_ik| and gap = b_i - sum_j lambda_j\n"
    "    b_j, both exact upper bounds and <= --tol x scale, and no h found: for\n"
    "    every h, z_i - max_{j!=i} z_j <= r ||h||_1 + gap.  So i never leads by\n"
    "    more than that; when r = 0 and gap <= 0 exactly, never at all.  The\n"
    "    label is the optimum's: below_hull when the upper hull lies above\n"
    "    (w_i, b_i) by more than --tol x scale (a second LP maximises\n"
    "    sum_j lambda_j b_j), in_hull (may tie) otherwise.  --tol 0 asks for\n"
    "    exact lambdas only: anything else is undecided;\n"
    "  undecided (-1): no certificate either way (a warning says how many).\n\n"
    "Output: a header with the summary (# argmaxable=, # unargmaxable=, ...), then\n"
    "one row per word: word name argmaxable (1/0, -1 undecided) reason (vertex,\n"
    "duplicate, dominated, in_hull, below_hull, undecided) margin (h: the\n"
    "smallest margin; lambda: the gap, an upper bound) bound (h: that margin's\n"
    "rounding bound, 0 when exact; lambda: the residual r) cert_norm (||h||_2,\n"
    "or ||lambda||_1 = 1) support (lambda's positive weights) other (the copy of\n"
    "a duplicate) stage (dup, prefilter, lp) rounds (LPs solved).\n\n"
    "--max-prob R1,R2,... adds, for each not-argmaxable word (every checked word\n"
    "with --max-prob-all), the largest probability softmax(W h + b)_i over\n"
    "||h||_2 <= R for each R: p_max_R (reached by an h) and p_upper_R (an upper\n"
    "bound from concavity, the Frank-Wolfe gap, within --prob-tol in log p).  For\n"
    "a word that is not argmaxable it stays below 1 as R grows.  Cost: per word\n"
    "and radius at most 100,000 accelerated-gradient iterations of about 8 M D\n"
    "flops (two passes over W), usually a few hundred; the tool prints the\n"
    "worst case before it starts and then its progress.\n\n"
    "Memory: W, its normalised copy, and per thread an LP workspace of about\n"
    "50 M + 430 D^2 bytes (GLPK's problem with about 4 D rival columns); a run\n"
    "that does not fit is refused before W is read (SBW_MAX_MEMORY overrides\n"
    "the limit).\n\n"
    "Examples:\n"
    "  sbw-argmax W.npy\n"
    "  sbw-argmax --bias b.npy --vocab vocab.txt --max-prob 1,10,100 W.npy\n"
    "  sbw-argmax --words 0:99 --json W.npy\n"
    "  sbw-argmax --truncation logp.npy --threshold 0.001 W.npy\n";

/* --truncation's part of --help (a literal of its own: C99 promises
 * 4095 characters a string literal). */
static const char trunc_details[] =
    "--truncation LOGP: which tokens a truncation may drop (basis-aware truncation,\n"
    "Finlayson, Hewitt, Koller, Swayamdipta and Sabharwal, ICLR 2024, 'Closing the\n"
    "Curious Case of Neural Text Degeneration').  LOGP holds N model outputs (N x M\n"
    "log-probabilities, rows normalised) of a model whose head is W.  If the\n"
    "model's h is the cross-entropy optimum for the true distribution p*, the\n"
    "gradient in h vanishes: W^T phat = W^T p* (the bias does not enter, so --bias\n"
    "is refused here).  With the paper's bound p*_j <= sigma phat_j (--threshold T:\n"
    "sigma = 1/(1-T), the authors' exp(delta); --delta D: sigma = exp(D); neither:\n"
    "no bound), token i may be zero iff some q has\n"
    "    W^T q = W^T phat,  1^T q = 1^T phat,  q_i = 0,  0 <= q_j <= sigma phat_j\n"
    "(the program of the authors' code; the paper's equation numbers were not at\n"
    "hand here).  Each row answers one (context, token):\n"
    "  keep 1: p*_i > 0 is proven: a Farkas vector y (s_j = w_j.y + y_0) with\n"
    "    g = sum_j phat_j s_j - sigma sum_{j!=i} phat_j max(s_j, 0) > 0, checked in\n"
    "    double with a rigorous bound and exactly (GMP) where that cannot settle\n"
    "    it (margin: g, bound: its rounding bound, 0 when exact).  reason threshold:\n"
    "    y = (0, 1), the paper's threshold rule phat_i > 1 - 1/sigma; farkas: the\n"
    "    dual of the LP (GLPK, one per context, min of the constraints' slacks);\n"
    "  keep 0: i may be zero: a witness q, witness_exact (rational, from the LP's\n"
    "    basis, every constraint exact; residual 0) or witness (doubles: residual,\n"
    "    an exact upper bound of the largest constraint error, <= --tol x scale,\n"
    "    scale = max(1, max |w|));\n"
    "  keep -1: undecided, no certificate passed (a warning counts them).\n"
    "The proofs are about phat = exp(LOGP) in double (renormalised first with\n"
    "--normalize; a row off 1 is refused without it) and the sigma printed in\n"
    "the header.  Columns: context token [name] logp keep reason margin bound\n"
    "residual support (the witness's positive entries) lp_obj (the LP's optimum,\n"
    "nan when the threshold settled it).  --words picks the tokens.  Cost: one\n"
    "LP of D+1 rows and M columns per (context, token), warm-started (about a\n"
    "minute each at M = 10,000, D = 400 on one core; progress on stderr), each\n"
    "solve stopped after " SBW_ARGMAX_TRUNC_ITER_STR
    " (M + 2D + 2) simplex iterations and retried once from a\n"
    "fresh basis: a token whose LP does not end is undecided, never guessed.\n";

/* --shard and --merge's part of --help. */
static const char shard_details[] =
    "--shard I/N: check only the I-th share of the list (--words, or all M): the\n"
    "list is cut in blocks of B = max(1, min(256, floor(len/64))) positions and\n"
    "shard I takes blocks I, I + N, I + 2N, ... (1 <= I <= N <= the number of\n"
    "blocks, at least 64 for a list of 64 words or more); a shard table, TSV,\n"
    "with the shard's rows and summary and what the merge checks (# shard=,\n"
    "shard_of, shard_words, shard_block, max_rounds, lp_only, head_hash: a\n"
    "64-bit FNV-1a hash of W, b and the names as read).  Every word's answer\n"
    "depends on that word, its block (the pre-filter's GEMM, sharded or not)\n"
    "and the head only, so the N shards can run anywhere, in any order (a Slurm\n"
    "job array: experiments/argmax-shards.sh).  --merge SHARD.tsv... reads the N\n"
    "tables (any order) and writes the table of the unsharded run with the same\n"
    "options, byte for byte but for its # command= line and its seconds (the\n"
    "shards' sum); -o and --json as usual.  It refuses, with one line and exit\n"
    "1, a table that is not a shard, a shard missing or given twice, shards of\n"
    "another head, list or setting, and a shard of other rows than its share.\n"
    "  sbw-argmax --shard 2/8 --bias b.npy -o s2.tsv W.npy   (and 1/8 ... 8/8)\n"
    "  sbw-argmax --merge -o W.argmax.tsv s1.tsv s2.tsv ... s8.tsv\n";

typedef struct argmax_args {
    const char *bias, *vocab, *words, *max_prob, *trunc, *shard;
    bool max_prob_all, lp_only, normalize, merge;
    size_t shard_i, shard_n; /* --shard I/N: 0-based I */
    double tol, prob_tol, threshold, delta;
    long max_rounds;
} argmax_args;

/* "1,10,100" -> radii (each > 0, finite). */
static int parse_radii(const char *s, double **out, size_t *n)
{
    size_t cnt = 1;
    for (const char *p = s; *p; p++)
        cnt += *p == ',';
    double *r = malloc(cnt * sizeof *r);
    char *copy = strdup(s);
    int st = r && copy ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory");
    char *save = NULL, *tok = copy ? strtok_r(copy, ",", &save) : NULL;
    size_t k = 0;
    for (; !st && tok; tok = strtok_r(NULL, ",", &save))
        st = sbw_cli_parse_double(tok, "--max-prob", 1e-300, 1e300, &r[k++]);
    if (!st && k != cnt)
        st = SBW_ERROR(SBW_EINVAL, "--max-prob: bad list '%s' (radii > 0, comma-separated)", s);
    free(copy);
    if (st) {
        free(r);
        return st;
    }
    *out = r;
    *n = k;
    return SBW_OK;
}

enum { MAXPROB_ITERS = 100000 };

static const char *const stage_names[] = {"dup", "prefilter", "lp"};

static int add_meta(sbw_table *t, const char *path, const argmax_args *a, const sbw_mat *w,
                    const sbw_argmax_summary *s)
{
    sbw_table_meta_str(t, "file", path);
    sbw_table_meta_str(t, "bias", a->bias ? a->bias : "");
    sbw_table_meta_str(t, "vocab", a->vocab ? a->vocab : "");
    sbw_table_meta_int(t, "m", (long long)w->rows);
    sbw_table_meta_int(t, "d", (long long)w->cols);
    sbw_table_meta_str(t, "lp_solver", "GLPK");
    sbw_table_meta_str(t, "lp_solver_version", glp_version());
    sbw_table_meta_dbl(t, "tol", a->tol);
    sbw_table_meta_dbl(t, "scale", s->scale);
    sbw_table_meta_int(t, "checked", (long long)s->checked);
    sbw_table_meta_int(t, "argmaxable", (long long)s->argmaxable);
    sbw_table_meta_int(t, "unargmaxable", (long long)s->unargmaxable);
    sbw_table_meta_int(t, "undecided", (long long)s->undecided);
    sbw_table_meta_int(t, "by_duplicates", (long long)s->by_duplicates);
    sbw_table_meta_int(t, "by_prefilter", (long long)s->by_prefilter);
    sbw_table_meta_int(t, "by_lp", (long long)s->by_lp);
    sbw_table_meta_int(t, "lp_rounds", (long long)s->lp_rounds);
    sbw_table_meta_dbl(t, "seconds_prefilter", s->seconds_prefilter);
    sbw_table_meta_dbl(t, "seconds_lp", s->seconds_lp);
    return sbw_table_status(t);
}

/* The columns: the fixed ones, then p_max_R / p_upper_R per radius. */
static int add_columns(sbw_table *t, bool names, const double *R, size_t nr, char (*cn)[48])
{
    static const char *const fixed[] = {"word",   "name",  "argmaxable", "reason",
                                        "margin", "bound", "cert_norm",  "support",
                                        "other",  "stage", "rounds"};
    const char *cols[11 + 2 * 64];
    size_t n = 0;
    for (size_t c = 0; c < 11; c++)
        if (c != 1 || names)
            cols[n++] = fixed[c];
    for (size_t k = 0; k < nr; k++) {
        char r[32];
        sbw_table_format_double(R[k], r, sizeof r);
        snprintf(cn[2 * k], 48, "p_max_R%s", r);
        snprintf(cn[2 * k + 1], 48, "p_upper_R%s", r);
        cols[n++] = cn[2 * k];
        cols[n++] = cn[2 * k + 1];
    }
    return sbw_table_columns(t, cols, n);
}

/* One row: word w's verdict, and its p_max / p_upper per radius when pm
 * and pu are given.  After a failure the table has failed (sticky) and
 * holds a partial row; the status is the table's first failure. */
static int add_word(sbw_table *t, const sbw_argmax_word *w, char **names, size_t m,
                    const double *pm, const double *pu, size_t nr, char (*cn)[48])
{
    sbw_table_add_row(t);
    sbw_table_set_int(t, "word", (long long)w->word);
    if (names)
        sbw_table_set_str(t, "name", names[w->word]);
    sbw_table_set_int(t, "argmaxable", w->argmaxable);
    sbw_table_set_str(t, "reason", sbw_argmax_reason_name(w->reason));
    sbw_table_set_dbl(t, "margin", w->margin);
    sbw_table_set_dbl(t, "bound", w->bound);
    sbw_table_set_dbl(t, "cert_norm", w->cert_norm);
    sbw_table_set_int(t, "support", (long long)w->support);
    if (w->other < m)
        sbw_table_set_int(t, "other", (long long)w->other);
    sbw_table_set_str(t, "stage", stage_names[w->stage]);
    sbw_table_set_int(t, "rounds", w->rounds);
    for (size_t k = 0; pm && pu && k < nr; k++) {
        sbw_table_set_dbl(t, cn[2 * k], pm[k]);
        sbw_table_set_dbl(t, cn[2 * k + 1], pu[k]);
    }
    return sbw_table_status(t);
}

/* What the tool holds: the parsed lists and the run's result. */
typedef struct run_state {
    size_t *words, nwords;
    double *R;
    size_t nr;
    sbw_argmax_file_res res;
} run_state;

static void run_free(run_state *s)
{
    free(s->words);
    free(s->R);
    sbw_argmax_file_free(&s->res);
}

/* The one library call: sbw_argmax_file with the options. */
static int compute(const char *path, const argmax_args *a, bool quiet, run_state *s)
{
    sbw_argmax_file_opts o = {.bias = a->bias,
                              .vocab = a->vocab,
                              .words = s->words,
                              .nwords = s->nwords,
                              .run = sbw_argmax_defaults(),
                              .radii = s->R,
                              .nr = s->nr,
                              .max_prob_all = a->max_prob_all,
                              .prob_tol = a->prob_tol,
                              .max_prob_iters = MAXPROB_ITERS,
                              .quiet = quiet,
                              .shard = a->shard_i,
                              .nshards = a->shard ? a->shard_n : 0};
    o.run.tol = a->tol;
    o.run.max_rounds = (int)a->max_rounds;
    o.run.no_prefilter = a->lp_only;
    return sbw_argmax_file(path, &o, &s->res);
}

/* The answers the run knows are incomplete, as warnings in the table. */
static void warn_incomplete(const run_state *s)
{
    if (s->res.sum.undecided)
        sbw_table_warn("argmax_undecided: %zu word(s) got no certificate either way (numerical "
                       "trouble): argmaxable -1, neither answer is established",
                       s->res.sum.undecided);
    if (s->res.unconverged)
        sbw_table_warn("max_prob_unconverged: %zu word/radius pair(s) stopped with a Frank-Wolfe "
                       "gap above --prob-tol: their p_max is only a lower bound (p_upper bounds "
                       "it above)",
                       (size_t)s->res.unconverged);
}

/* What a shard's table adds for the merge (sbw_argmax_shard): which
 * shard, the list it is a share of, the settings the summary does not
 * show, the head's hash. */
static void shard_meta(sbw_table *t, const argmax_args *a, const sbw_argmax_file_res *r)
{
    char hash[20], sh[48];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->hash);
    snprintf(sh, sizeof sh, "%zu/%zu", a->shard_i + 1, a->shard_n);
    sbw_table_meta_str(t, "shard", sh);
    sbw_table_meta_int(t, "shard_of", (long long)r->list_len);
    sbw_table_meta_str(t, "shard_words", a->words ? a->words : "all");
    sbw_table_meta_int(t, "shard_block",
                       (long long)sbw_argmax_share_block(r->list_len, sbw_argmax_defaults().block));
    sbw_table_meta_int(t, "max_rounds", a->max_rounds);
    sbw_table_meta_int(t, "lp_only", a->lp_only);
    sbw_table_meta_str(t, "head_hash", hash);
}

/* The table to -o (or stdout).  The table is built by plain sticky calls
 * and checked once by sbw_table_write: after any failure nothing is
 * written (no file under the output name) and the status is the first
 * failure (the allocation's, or the table's). */
static int report(const char *path, const argmax_args *a, const sbw_cli_common *c,
                  const run_state *s)
{
    const sbw_argmax_file_res *r = &s->res;
    warn_incomplete(s);
    sbw_table *t = NULL;
    char(*cn)[48] = calloc(2 * s->nr + 1, sizeof *cn);
    int st = cn ? sbw_table_alloc(&t, "sbw-argmax", c, false) : SBW_ERROR(SBW_ENOMEM, "no memory");
    if (!st) {
        add_meta(t, path, a, &r->w, &r->sum);
        if (s->nr) {
            sbw_table_meta_str(t, "max_prob", a->max_prob);
            sbw_table_meta_str(t, "max_prob_words", a->max_prob_all ? "all" : "unargmaxable");
            sbw_table_meta_dbl(t, "prob_tol", a->prob_tol);
            sbw_table_meta_int(t, "max_prob_unconverged", (long long)r->unconverged);
        }
        if (a->shard)
            shard_meta(t, a, r);
        add_columns(t, r->names != NULL, s->R, s->nr, cn);
        for (size_t w = 0; w < r->nwords && !sbw_table_status(t); w++)
            add_word(t, &r->out[w], r->names, r->w.rows, r->pm ? r->pm + w * s->nr : NULL,
                     r->pu ? r->pu + w * s->nr : NULL, s->nr, cn);
        st = sbw_table_write(t, c->output ? c->output : "-", c->json);
    }
    sbw_table_free(t);
    free(cn);
    return st;
}

/* Option values the parser cannot check: usage errors before any reading. */
static int validate(const sbw_cli *cli, const sbw_cli_common *c, argmax_args *a, run_state *s)
{
    if (!a->merge && c->nargs != 1)
        return sbw_cli_usage_error(cli, "one head W.npy (several files only with --merge)");
    if (a->shard && !sbw_argmax_shard_parse(a->shard, &a->shard_i, &a->shard_n))
        return sbw_cli_usage_error(cli, "--shard: '%s' is not I/N with 1 <= I <= N", a->shard);
    if (a->words && sbw_cli_parse_size_list(a->words, "--words", &s->words, &s->nwords))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (a->max_prob && parse_radii(a->max_prob, &s->R, &s->nr))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (s->nr > 64)
        return sbw_cli_usage_error(cli, "--max-prob: at most 64 radii, got %zu", s->nr);
    if (a->max_prob_all && !a->max_prob)
        return sbw_cli_usage_error(cli, "--max-prob-all needs --max-prob R,...");
    return SBW_EXIT_OK;
}

/* ---- --shard and --merge ------------------------------------------------- */

/* The options that do not apply to a shard or to the merge: a usage
 * error naming the first. */
static int shard_applies(const sbw_cli *cli, const sbw_cli_common *c, const argmax_args *a)
{
    bool sh = a->shard != NULL, mg = a->merge;
    static const char set[] = "the shard tables carry the run's settings";
    const sbw_cli_applies rows[] = {
        {"--truncation", !sh, "--shard", "--shard splits the argmaxable words' list"},
        {"--merge", !sh, "--shard", "run the shards first, then merge their tables"},
        {"--bias", !mg, "--merge", set},
        {"--vocab", !mg, "--merge", set},
        {"--words", !mg, "--merge", set},
        {"--max-prob", !mg, "--merge", set},
        {"--max-prob-all", !mg, "--merge", set},
        {"--prob-tol", !mg, "--merge", set},
        {"--tol", !mg, "--merge", set},
        {"--max-rounds", !mg, "--merge", set},
        {"--lp-only", !mg, "--merge", set},
        {"--truncation", !mg, "--merge", "only the argmaxable words are sharded"}};
    if (sh && c->json)
        return sbw_cli_usage_error(cli, "--json does not apply to --shard: a shard table is TSV "
                                        "for --merge (give --json to the merge)");
    return sbw_cli_check_applies(cli, c, rows, sizeof rows / sizeof *rows);
}

/* --merge: the shard tables read back (sbw_argmax_shard_merge) and written by
 * report() with the settings they carry, as the unsharded run would. */
static int merge_run(const argmax_args *a0, const sbw_cli_common *c)
{
    sbw_argmax_shard_merged m;
    run_state s = {0};
    int st = sbw_argmax_shard_merge(c->args, (size_t)c->nargs, &m);
    if (st)
        return st;
    argmax_args a = *a0;
    a.bias = m.bias;
    a.vocab = m.vocab;
    a.tol = m.tol;
    a.max_prob = m.max_prob;
    a.max_prob_all = m.max_prob_all;
    a.prob_tol = m.prob_tol;
    if (m.max_prob && parse_radii(m.max_prob, &s.R, &s.nr))
        st = SBW_ERROR(SBW_EDATA, "%s: '# max_prob=%s': %s", c->args[0], m.max_prob,
                       sbw_error_reason());
    if (!st && s.nr != m.nr)
        st = SBW_ERROR(SBW_EDATA, "%s: %zu radii in '# max_prob=' but %zu column pairs", c->args[0],
                       s.nr, m.nr);
    s.res = m.res;
    m.res = (sbw_argmax_file_res){0};
    st = st ? st : report(m.file, &a, c, &s);
    run_free(&s);
    sbw_argmax_shard_merged_free(&m);
    return st;
}

/* ---- --truncation ------------------------------------------------------- */

/* The options that do not apply to the mode chosen: a usage error naming
 * the first (sbw_cli_check_applies). */
static int trunc_applies(const sbw_cli *cli, const sbw_cli_common *c, const argmax_args *a)
{
    bool t = a->trunc != NULL;
    static const char lps[] = "only the argmaxable-word LPs and --max-prob use it";
    const sbw_cli_applies rows[] = {
        {"--bias", !t, "--truncation", "W^T phat = W^T p* does not involve b (see --help)"},
        {"--max-prob", !t, "--truncation", lps},
        {"--max-prob-all", !t, "--truncation", lps},
        {"--prob-tol", !t, "--truncation", lps},
        {"--lp-only", !t, "--truncation", lps},
        {"--max-rounds", !t, "--truncation", lps},
        {"--threshold", t, "the argmaxable words", "it bounds p*/phat for --truncation"},
        {"--delta", t, "the argmaxable words", "it bounds p*/phat for --truncation"},
        {"--normalize", t, "the argmaxable words", "it renormalises --truncation's rows"}};
    int st = sbw_cli_check_applies(cli, c, rows, sizeof rows / sizeof *rows);
    if (!st && sbw_cli_given(cli, c, "--threshold") && sbw_cli_given(cli, c, "--delta"))
        st = sbw_cli_usage_error(cli, "--threshold and --delta both set the bound: give one");
    return st;
}

/* sigma of p*_j <= sigma phat_j from the options (INFINITY: none). */
static double trunc_sigma(const sbw_cli *cli, const sbw_cli_common *c, const argmax_args *a)
{
    if (sbw_cli_given(cli, c, "--threshold"))
        return 1 / (1 - a->threshold);
    return sbw_cli_given(cli, c, "--delta") ? exp(a->delta) : INFINITY;
}

static void trunc_meta(sbw_table *t, const char *path, const argmax_args *a, double sigma,
                       const sbw_argmax_trunc_file_res *r)
{
    const sbw_argmax_trunc_summary *s = &r->sum;
    sbw_table_meta_str(t, "file", path);
    sbw_table_meta_str(t, "truncation", a->trunc);
    sbw_table_meta_str(t, "vocab", a->vocab ? a->vocab : "");
    sbw_table_meta_int(t, "m", (long long)r->w.rows);
    sbw_table_meta_int(t, "d", (long long)r->w.cols);
    sbw_table_meta_int(t, "contexts", (long long)s->contexts);
    sbw_table_meta_dbl(t, "sigma", sigma);
    sbw_table_meta_str(t, "lp_solver", "GLPK");
    sbw_table_meta_str(t, "lp_solver_version", glp_version());
    sbw_table_meta_dbl(t, "tol", a->tol);
    sbw_table_meta_dbl(t, "scale", s->scale);
    sbw_table_meta_dbl(t, "max_abs_logsumexp", r->max_abs_lse);
    sbw_table_meta_int(t, "normalized", a->normalize);
    sbw_table_meta_int(t, "checked", (long long)s->checked);
    sbw_table_meta_int(t, "keep", (long long)s->keep);
    sbw_table_meta_int(t, "may_drop", (long long)s->may_drop);
    sbw_table_meta_int(t, "undecided", (long long)s->undecided);
    sbw_table_meta_int(t, "by_threshold", (long long)s->by_threshold);
    sbw_table_meta_int(t, "by_lp", (long long)s->by_lp);
    sbw_table_meta_int(t, "exact_witnesses", (long long)s->exact_witnesses);
    sbw_table_meta_int(t, "lp_solves", (long long)s->lp_solves);
    sbw_table_meta_dbl(t, "seconds", s->seconds);
}

/* One row per (context, token).  Sticky table calls: the status is the
 * table's first failure. */
static int trunc_row(sbw_table *t, const sbw_argmax_trunc_tok *k,
                     const sbw_argmax_trunc_file_res *r)
{
    sbw_table_add_row(t);
    sbw_table_set_int(t, "context", (long long)k->context);
    sbw_table_set_int(t, "token", (long long)k->token);
    if (r->names)
        sbw_table_set_str(t, "name", r->names[k->token]);
    sbw_table_set_dbl(t, "logp", r->logp.data[k->context * r->logp.ld + k->token]);
    sbw_table_set_int(t, "keep", k->keep);
    sbw_table_set_str(t, "reason", sbw_argmax_trunc_reason_name(k->reason));
    sbw_table_set_dbl(t, "margin", k->margin);
    sbw_table_set_dbl(t, "bound", k->bound);
    sbw_table_set_dbl(t, "residual", k->residual);
    if (k->keep == 0)
        sbw_table_set_int(t, "support", (long long)k->support);
    sbw_table_set_dbl(t, "lp_obj", k->lp_obj);
    return sbw_table_status(t);
}

/* sbw_argmax_trunc_file, then its table to -o (or stdout); nothing
 * written after a failure. */
static int trunc_run(const char *path, const argmax_args *a, const sbw_cli_common *c, double sigma,
                     const run_state *s)
{
    sbw_argmax_trunc_file_opts o = {.logp = a->trunc,
                                    .vocab = a->vocab,
                                    .tokens = s->words,
                                    .ntok = s->nwords,
                                    .normalize = a->normalize,
                                    .quiet = c->quiet,
                                    .run = {.sigma = sigma, .tol = a->tol}};
    sbw_argmax_trunc_file_res r;
    int st = sbw_argmax_trunc_file(path, &o, &r);
    sbw_table *t = NULL;
    if (!st && r.sum.undecided)
        sbw_table_warn("truncation_undecided: %zu (context, token) pair(s) got no certificate "
                       "either way: keep -1, neither answer is established",
                       r.sum.undecided);
    st = st ? st : sbw_table_alloc(&t, "sbw-argmax", c, false);
    if (!st) {
        static const char *const cols[] = {"context",  "token",   "name",   "logp",
                                           "keep",     "reason",  "margin", "bound",
                                           "residual", "support", "lp_obj"};
        const char *use[11];
        size_t n = 0;
        for (size_t k = 0; k < 11; k++)
            if (k != 2 || r.names)
                use[n++] = cols[k];
        trunc_meta(t, path, a, sigma, &r);
        sbw_table_columns(t, use, n);
        for (size_t k = 0; k < r.logp.rows * r.ntok && !sbw_table_status(t); k++)
            trunc_row(t, &r.out[k], &r);
        st = sbw_table_write(t, c->output ? c->output : "-", c->json);
    }
    sbw_table_free(t);
    sbw_argmax_trunc_file_free(&r);
    return st;
}

/* --merge's main: the shard tables checked readable and -o writable
 * (sbw_preflight), then merge_run. */
static int merge_main(const argmax_args *a, const sbw_cli_common *c)
{
    const char **in = malloc((size_t)c->nargs * sizeof *in);
    int st = in ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory");
    for (int k = 0; in && k < c->nargs; k++)
        in[k] = c->args[k];
    const sbw_preflight_out out[] = {{"-o", c->output ? c->output : "-", false}};
    st = st ? st : sbw_preflight(in, (size_t)c->nargs, out, 1);
    free(in);
    sbw_cli_threads(c->threads); /* the table's # threads= line, as a run's */
    st = st ? st : merge_run(a, c);
    return st ? sbw_cli_fail("sbw-argmax", st) : SBW_EXIT_OK;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    argmax_args a = {.tol = 1e-9, .prob_tol = 1e-9, .max_rounds = 100};
    const sbw_cli_opt opts[] = {
        {"--bias", "FILE", SBW_ARG_STRING, &a.bias, 0, 0, "the word biases b (M values, .npy)"},
        {"--vocab", "FILE", SBW_ARG_STRING, &a.vocab, 0, 0, "word names, one per line (M lines)"},
        {"--words", "LIST", SBW_ARG_STRING, &a.words, 0, 0, "check only these: 0,5,10:20"},
        {"--max-prob", "R,...", SBW_ARG_STRING, &a.max_prob, 0, 0,
         "largest p_i over ||h|| <= R, per R"},
        {"--max-prob-all", NULL, SBW_ARG_FLAG, &a.max_prob_all, 0, 0,
         "--max-prob for every word, not only the unargmaxable"},
        {"--prob-tol", "T", SBW_ARG_DOUBLE, &a.prob_tol, 1e-15, 1, "--max-prob gap in log p"},
        {"--tol", "T", SBW_ARG_DOUBLE, &a.tol, 0, 1e-3,
         "lambda certificate: residual, gap <= T x scale (0: exact only)"},
        {"--max-rounds", "N", SBW_ARG_LONG, &a.max_rounds, 1, 100000, "LP rounds per word"},
        {"--lp-only", NULL, SBW_ARG_FLAG, &a.lp_only, 0, 0, "no pre-filter: every word by LP"},
        {"--truncation", "LOGP", SBW_ARG_STRING, &a.trunc, 0, 0,
         "which tokens of these outputs (N x M log-probs) may be zero"},
        {"--threshold", "T", SBW_ARG_DOUBLE, &a.threshold, 0, 0.999999,
         "--truncation: p* <= phat / (1 - T) (the paper's threshold)"},
        {"--delta", "D", SBW_ARG_DOUBLE, &a.delta, 0, 700, "--truncation: p* <= exp(D) phat"},
        {"--normalize", NULL, SBW_ARG_FLAG, &a.normalize, 0, 0,
         "--truncation: subtract each row's logsumexp (else a row off 1 is refused)"},
        {"--shard", "I/N", SBW_ARG_STRING, &a.shard, 0, 0,
         "check only the I-th of N shares of the list: a table for --merge"},
        {"--merge", NULL, SBW_ARG_FLAG, &a.merge, 0, 0,
         "the arguments are the N shard tables: write the unsharded run's table"},
        {0}};
    static char help[sizeof details + sizeof trunc_details + sizeof shard_details + 2];
    snprintf(help, sizeof help, "%s\n%s\n%s", details, trunc_details, shard_details);
    const sbw_cli cli = {"sbw-argmax",
                         "W.npy | --merge SHARD.tsv...",
                         "Which words a Softmax head can never predict (exact, certified).",
                         help,
                         opts,
                         1,
                         1 << 20,
                         SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_THREADS};
    sbw_cli_common c;
    run_state s = {0};
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if ((st = trunc_applies(&cli, &c, &a)) != 0 || (st = shard_applies(&cli, &c, &a)) != 0 ||
        (st = validate(&cli, &c, &a, &s)) != 0) {
        run_free(&s);
        return st;
    }
    if (a.merge)
        return merge_main(&a, &c);
    const char *in[] = {c.args[0], a.bias, a.vocab, a.trunc};
    size_t nin = 1;
    if (a.trunc)
        in[nin++] = a.trunc;
    if (a.bias)
        in[nin++] = a.bias;
    if (a.vocab)
        in[nin++] = a.vocab;
    const sbw_preflight_out out[] = {{"-o", c.output ? c.output : "-", false}};
    st = sbw_preflight(in, nin, out, 1);
    if (!st) {
        sbw_error_gsl_quiet();
        sbw_cli_threads(c.threads);
        if (a.trunc) {
            st = trunc_run(c.args[0], &a, &c, trunc_sigma(&cli, &c, &a), &s);
        } else {
            st = compute(c.args[0], &a, c.quiet, &s);
            st = st ? st : report(c.args[0], &a, &c, &s);
        }
    }
    run_free(&s);
    return st ? sbw_cli_fail("sbw-argmax", st) : SBW_EXIT_OK;
}
