/* sbw-rank: the numerical rank of a log-probability matrix (MoS Tables
 * 6/7), its spectrum (MoS Figure 1), and the minimal Softmax dimension
 * (the rank of the row-centred matrix, MoS Proposition 1). */
#include "sbw.h"
#include "sbw_decay.h"
#include "sbw_hidden.h"
#include "sbw_rank.h"
#include "sbw_rank_report.h"
#include "sbw_rsvd.h"
#include "sbw_rsvd_rank.h"
#include "sbw_spectra.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
    "Computes the singular values of the N x M matrix A in FILE ('-' = stdin) and\n"
    "its numerical rank: the number of singular values w_j > tsh, with\n"
    "tsh = 0.5 sqrt(m+n+1) w0 eps (Numerical Recipes 3rd ed., as MoS Tables 6/7).\n"
    "eps is the roundoff of the data: DBL_EPSILON for float64 files, FLT_EPSILON\n"
    "for float32 files (promoted to double unless --single) -- a float32 matrix\n"
    "measured with --eps double looks full rank because of its own rounding.\n"
    "NumPy's default rank (tol = w0 max(m,n) eps) and the largest-log-gap rank\n"
    "(the biggest drop w_{r-1}/w_r, values floored at w0 eps) are shown beside it.\n"
    "A float64 file of float32 values (an export rounded to float32 and cast\n"
    "back) is warned of ('float32_values'): use --eps single, or export a\n"
    "log-softmax whose logits were formed in float64.\n\n"
    "--center analyses A (I - 11^T/M): its rank is the smallest embedding size d\n"
    "at which a Softmax head can reproduce A exactly (MoS Proposition 1).  --bias\n"
    "centres columns too, the same for heads with a word bias.  Centring does not\n"
    "remove the stored entries' roundoff (eps |a_ij|), while a dominant bias or\n"
    "row mean can make the centred w0 tiny; so a centred rank uses\n"
    "tsh = 0.5 sqrt(m+n+1) eps max(w0, w0_uncentred), w0_uncentred a lower bound\n"
    "(within sqrt 3) on sigma_1 of the uncentred matrix from the same pass: never\n"
    "above NR's threshold for A itself.  The header gives w0_analysed,\n"
    "w0_uncentred, w0_threshold; matrix= names what was analysed.  --exp\n"
    "analyses P = exp(A).  Tall matrices (N > 1.5 M) go through a streaming TSQR\n"
    "(memory: a block of rows plus an M x M triangle per worker; files larger\n"
    "than RAM and pipes work); block b goes to worker b mod W, the triangles are\n"
    "merged in order: the same bits on every run for given --workers and\n"
    "--threads.  A^T A is never formed.\n\n"
    "Output (one row): rank m n dtype precision eps tsh w0 w_min rank_numpy\n"
    "numpy_tol rank_gap gap_decades (the log10 size of the largest gap)\n"
    "rank_single (the NR rank at float32's eps, FLT_EPSILON, with the same w0:\n"
    "what the same spectrum gives a matrix stored in float32).\n"
    "--spectrum FILE writes a TSV: index sigma sigma_rel (sigma/sigma0)\n"
    "log10_sigma normalised cum_pct, where normalised is in [0,1] (--norm max:\n"
    "sigma/sigma0, or minmax: (sigma-sigma_min)/(sigma0-sigma_min); the header\n"
    "says which) and cum_pct is the percentage of normalised values <= it: plot\n"
    "cum_pct against normalised for MoS Figure 1.  log10_sigma is nan for an\n"
    "exactly zero sigma (gnuplot skips the point, pandas reads NaN).  stdout\n"
    "carries one stream: with --spectrum - the spectrum goes to stdout and\n"
    "the table to stderr.\n\n"
    "--measures prints every named rank measure instead, one row each: measure\n"
    "rank threshold on rule matrix -- nr (as above), numpy (w > w0 max(m,n) eps),\n"
    "pytorch (w > max(atol, rtol w0), rtol = max(m,n) eps, 0 when --atol > 0),\n"
    "julia (w > min(m,n) eps w0), gap, eps_eff_1e-3/-4/-5 (Parthiban et al. 2021:\n"
    "the fewest values holding all but a fraction e of sum w^2, which stays put\n"
    "when tiny noise makes the counting rules read full rank), stable\n"
    "(||A||_F^2/w0^2) and entropy (exp of the entropy of w/sum w, Roy & Vetterli\n"
    "2007).  'on' says what threshold cuts: sigma, tail_energy or none; 'matrix'\n"
    "which matrix: A, or the centred A with --center/--bias (w0 in the counting\n"
    "rules is then w0_threshold).  On log-probabilities use --center or --bias:\n"
    "A's own energy measures are about 1, its row means dominate (the header\n"
    "warns 'mean_dominated').\n\n"
    "A rank whose cut lies within 1% of a singular value (or, for eps_eff, of a\n"
    "tail energy fraction) hangs on roundoff: the header then has a line\n"
    "'# warning=rank_near_threshold: ...' (JSON: the \"warnings\" array, always\n"
    "present) naming the measure, as it has 'svd_not_converged' when LAPACK's SVD\n"
    "did not converge.\n\n";

/* The second half of --help (one literal may hold 4095 characters). */
static const char details_rnd[] =
    "--method randomized --top K: for matrices too large for an exact SVD, the\n"
    "top K singular values from a randomized range finder (Halko, Martinsson and\n"
    "Tropp 2011, Algorithms 4.4 and 5.1): l = K + P Gaussian columns\n"
    "(--oversample P, 10: the bound's failure probability 6 P^-P is 6e-10),\n"
    "--power Q power iterations (2) with re-orthonormalisation between them,\n"
    "2Q + 2 passes over row blocks of a regular file (mapped when it is\n"
    "float64; + 1 pass with --bias), memory (N + M)(l + 20) float64 plus a\n"
    "block.  --center/--bias centre each block as the exact path centres the\n"
    "matrix; ||A||_F is exact (summed in the first pass).  Each sigma_j is an\n"
    "interval [sigma_lower, sigma_upper]: s_j(Q^T A) <= sigma_j <=\n"
    "sqrt(s_j^2 + r^2), r a bound on ||(I - QQ^T) A|| from 20 Gaussian test\n"
    "vectors that fails with probability at most 2e-10 (header:\n"
    "failure_probability), widened by a roundoff term.  The table then has one\n"
    "row per measure: measure rank status rank_lower rank_upper threshold on\n"
    "rule matrix, status 'estimated' (decided within [rank_lower,\n"
    "rank_upper], rank the point value), 'at_least' (the counting ranks when\n"
    "sigma_K may still lie above the threshold, eps_eff when its tail does not\n"
    "end within K: rank = rank_lower) or 'undecided' (gap and entropy need the\n"
    "whole spectrum).  --spectrum FILE then has index sigma sigma_lower\n"
    "sigma_upper error status sigma_rel log10_sigma for the top K.  --seed S\n"
    "makes a run reproducible (with the same --threads).\n\n"
    "From a pipe ('-', read once) the single-pass sketch instead (Tropp,\n"
    "Yurtsever, Udell and Cevher 2017, Algorithm 3): Y = A Omega (l columns)\n"
    "and W = Psi A (2l + 1 rows) in the one pass, ||A||_F exact in it (--bias:\n"
    "the sketches corrected for the column means at the end), then the l\n"
    "singular values of X = (Psi Q)^+ W, Q = orth(Y); --power does not apply.\n"
    "Its intervals are sigma -+ r, r the test vectors' bound on ||A - QX||_2\n"
    "(failure_probability 1e-10; header sketch_method=single_pass), and\n"
    "expected_error_bound the paper's bound on E||A - QX||_F (Theorem 4.3),\n"
    "its tail estimated.  Memory (N + 3M) l + (N + M) 20 float64 plus a block.\n\n"
    "FILE may be a tensor of a safetensors file, FILE.safetensors:NAME (F32,\n"
    "F16, BF16 or F64; eps follows its dtype: 2^-10 for F16, 2^-7 for BF16).\n\n"
    "Examples:\n"
    "  sbw-rank logP.npy\n"
    "  sbw-rank --measures model.safetensors:lm_head.weight\n"
    "  sbw-rank --center --spectrum spec.tsv logP.npy\n"
    "  sbw-rank --bias --measures logP.npy\n"
    "  sbw-rank --method randomized --top 1000 --center --spectrum top.tsv big.npy\n"
    "  gnuplot -e \"plot 'spec.tsv' using 5:6 with steps\"\n";

/* The third part: the measures of issue 31. */
static const char details_measures[] =
    "--hidden-size: the hidden size D of the head whose outputs A holds (N full\n"
    "log-probability vectors, one a row; Carlini et al. 2024, Finlayson, Ren and\n"
    "Swayamdipta 2024): A double-centred (--center: row-centred only, D + 1 for a\n"
    "head with a bias) has rank <= D, so D is where its spectrum drops.  D = the\n"
    "largest gap log10(sigma_D/sigma_{D+1}) among the rmax values the centring\n"
    "leaves possible (min(N-1, M-1)); the drop is decided when that gap is >= 0.6\n"
    "decades and >= 3 times the largest other gap (hidden_margin), and, when\n"
    "not certified, has >= 2 values past it (so N >= D + 3 then).  Outputs\n"
    "rounded to a precision of unit roundoff u carry an error of norm <=\n"
    "hidden_floor = u/(1-u) ||A||_F + eta sqrt(NM) (+ the SVD's roundoff), so\n"
    "every exact matrix they could come from has centred rank >= hidden_min =\n"
    "#{sigma_j > hidden_floor} (Weyl): proven.  hidden_status: certified (a\n"
    "decided drop at hidden_min: the values past D are within the rounding),\n"
    "probable (no decided drop, but the largest gap is where the typical floor\n"
    "u/sqrt3 (max row norm + max column norm) + u max|a| sqrt(2 ln(N+M)) of\n"
    "independent rounding errors cuts, the values above at twice it),\n"
    "clear (a decided drop, values past D above the rounding: added noise),\n"
    "no_drop (a high-rank head: MoS, PLIF; hidden_size -1, warned) or\n"
    "too_few_queries (every possible value above the floor: N <= D + 1, or\n"
    "full rank; warned).  The precision is --rounded f64|f32|f16|bf16, or the\n"
    "coarsest one holding every stored entry (hidden_precision_source).  Needs\n"
    "N >= D + 2 queries; the header has hidden_size, hidden_ratio (sigma_D /\n"
    "sigma_{D+1}), hidden_gap_log10, hidden_next_gap_log10, hidden_margin.\n"
    "--round P rounds every entry to P as it is read (nearest, ties to even):\n"
    "the outputs an API storing P would return, then analysed as any input.\n\n"
    "--decay LO:HI (or auto = 1:rank): sigma_i ~ C i^-alpha (Golowich, Liu and\n"
    "Shetty 2025) by least squares of ln sigma_i on ln i over the 1-based\n"
    "indices LO..HI of the analysed spectrum (gsl_fit_linear): decay_alpha,\n"
    "decay_alpha_se = sqrt(SSR/(n-2)/Sxx) (exact for independent log-residuals;\n"
    "read it as the fit's uncertainty), decay_r2, in the header and the JSON.\n\n"
    "  sbw-rank --hidden-size --rounded bf16 outputs.npy\n"
    "  sbw-lm eval ... --logprobs - | sbw-rank --round bf16 --hidden-size -\n"
    "  sbw-rank --center --decay 2:200 logP.npy\n";

typedef struct rank_args {
    bool center, bias, exp, single, measures;
    double atol;
    const char *eps, *spectrum, *norm, *method;
    size_t block_rows;
    long workers;
    size_t top, oversample, power; /* --method randomized */
    bool hidden;                   /* --hidden-size */
    const char *rounded, *decay;   /* --rounded P, --decay RANGE */
    const char *round;             /* --round P */
    sbw_hidden_prec round_prec;
    sbw_hidden_scan scan; /* what --hidden-size's floor needs from the reading */
    FILE *table;          /* stdout, or stderr when --spectrum - */
} rank_args;

static bool randomized(const rank_args *a) { return strcmp(a->method, "randomized") == 0; }

/* The one reading: the variant asked for, sbw_spectra_file. */
static int compute(const char *path, rank_args *a, const sbw_cli_common *c, sbw_spectra *sp,
                   sbw_reduce_variant *var)
{
    sbw_reduce_opts o = {.exp = a->exp,
                         .single = a->single,
                         .block_rows = a->block_rows,
                         .workers = (int)a->workers,
                         .hook = a->hidden ? sbw_hidden_scan_hook : NULL,
                         .hook_ctx = &a->scan};
    int st = sbw_reduce_method_parse(a->method, &o.method);
    if (!st && a->round && (st = sbw_hidden_prec_parse(a->round, &a->round_prec)) == SBW_OK) {
        o.round = sbw_hidden_round_block;
        o.round_ctx = &a->round_prec;
    }
    sbw_hidden_scan_init(&a->scan);
    /* --hidden-size alone: double-centred (rank D with or without a bias) */
    *var = a->bias || (a->hidden && !a->center) ? SBW_VAR_BOTH
           : a->center                          ? SBW_VAR_ROWS
                                                : SBW_VAR_PLAIN;
    return st ? st : sbw_spectra_file(path, &o, 1u << *var, "sbw-rank", c->quiet, sp);
}

/* --hidden-size and --decay on variant var's spectrum (sbw_hidden,
 * sbw_decay), as meta lines of t; nothing without them.  e: the NR rank
 * (--decay auto ends at it).  Errors: those of the modules, the table's. */
static int add_spectral_measures(sbw_table *t, const rank_args *a, const sbw_spectra *sp,
                                 sbw_reduce_variant var, const sbw_rank_est *e)
{
    const double *s = sp->s[var];
    size_t lo = 0, hi = 0;
    int st = SBW_OK;
    if (a->hidden) {
        sbw_hidden h;
        sbw_hidden_prec p = sbw_hidden_scan_observed(&a->scan);
        const char *src = "observed: the coarsest precision holding every stored entry";
        if (a->rounded && (st = sbw_hidden_prec_parse(a->rounded, &p)) == SBW_OK)
            src = "--rounded";
        st = st ? st : sbw_hidden_of(sp, var, &a->scan, p, &h);
        st = st ? st : sbw_hidden_table(t, &h, src);
    }
    if (!st && a->decay && (st = sbw_decay_parse(a->decay, &lo, &hi)) == SBW_OK) {
        sbw_decay d;
        st = sbw_decay_fit(s, sp->k, lo ? lo : 1, hi ? hi : e->rank, &d);
        st = st ? st : sbw_decay_table(t, &d);
        if (!st && d.hi > e->rank)
            sbw_table_warn("decay_beyond_rank: the fitted range ends at %zu, past the rank %zu: "
                           "values below the threshold are roundoff, not the spectrum's decay",
                           d.hi, e->rank);
    }
    return st;
}

/* sbw_rank_report's extra hook: add_spectral_measures with sbw-rank's
 * arguments as ctx. */
static int spectral_hook(sbw_table *t, void *ctx, const sbw_spectra *sp, sbw_reduce_variant var,
                         const sbw_rank_est *e)
{
    return add_spectral_measures(t, ctx, sp, var, e);
}

/* The table of the spectrum of variant var (sbw_rank_report). */
static int report(const char *path, const rank_args *a, const sbw_cli_common *c,
                  const sbw_spectra *sp, sbw_reduce_variant var)
{
    const sbw_rank_report_opts o = {.tool = "sbw-rank",
                                    .var = var,
                                    .exp = a->exp,
                                    .measures = a->measures,
                                    .atol = a->atol,
                                    .eps = a->eps,
                                    .norm = a->norm,
                                    .spectrum = a->spectrum,
                                    .table = a->table,
                                    .extra = spectral_hook,
                                    .extra_ctx = (void *)a};
    return sbw_rank_report(path, &o, c, sp);
}

/* ---- --method randomized -------------------------------------------------- */

static const char *const rsvd_columns[] = {
    "measure", "rank", "status", "rank_lower", "rank_upper", "threshold", "on", "rule", "matrix"};
static const char *const rsvd_spec_columns[] = {"index", "sigma",  "sigma_lower", "sigma_upper",
                                                "error", "status", "sigma_rel",   "log10_sigma"};

/* What the sketch was and how far it is to be trusted: the header of both
 * randomized tables.  lo, hi: the intervals of the top K values. */
static int rsvd_meta(sbw_table *t, const char *path, const rank_args *a, const sbw_rsvd *rs,
                     const double *lo, const double *hi, double eps, const char *eps_source)
{
    sbw_reduce_variant var = a->bias ? SBW_VAR_BOTH : a->center ? SBW_VAR_ROWS : SBW_VAR_PLAIN;
    size_t k = rs->top;
    sbw_table_meta_str(t, "file", path);
    sbw_table_meta_str(t, "matrix", sbw_rank_report_matrix_name(a->exp, var, true));
    sbw_table_meta_str(t, "center", sbw_reduce_variant_name(var));
    sbw_table_meta_str(t, "method", "randomized");
    sbw_table_meta_str(t, "estimated",
                       rs->single_pass
                           ? "every sigma and rank here is estimated from a single-pass sketch of "
                             "the stream (Tropp et al. 2017): each lies within its bounds except "
                             "with probability failure_probability; expected_error_bound is the "
                             "paper's bound on the expected error (Theorem 4.3), estimated"
                           : "every sigma and rank here is estimated from a randomized "
                             "sketch: each lies within its bounds except with "
                             "probability failure_probability");
    sbw_table_meta_dbl(t, "failure_probability", rs->single_pass ? 1e-10 : SBW_RSVD_FAILURE);
    if (rs->single_pass) {
        sbw_table_meta_str(t, "sketch_method", "single_pass");
        sbw_table_meta_int(t, "corange_sketch", (long long)rs->corange);
        sbw_table_meta_dbl(t, "expected_error_bound", rs->expected_err);
    }
    sbw_table_meta_int(t, "top", (long long)k);
    sbw_table_meta_int(t, "oversample", (long long)a->oversample);
    sbw_table_meta_int(t, "power", rs->single_pass ? 0 : (long long)a->power);
    sbw_table_meta_int(t, "sketch", (long long)rs->sketch);
    sbw_table_meta_int(t, "test_vectors", (long long)rs->tests);
    sbw_table_meta_int(t, "passes", (long long)rs->passes);
    sbw_table_meta_int(t, "block_rows", (long long)rs->block_rows);
    sbw_table_meta_bool(t, "mapped", rs->mapped);
    sbw_table_meta_int(t, "m", (long long)rs->rows);
    sbw_table_meta_int(t, "n", (long long)rs->cols);
    sbw_table_meta_str(t, "dtype", sbw_npy_dtype_name(rs->dtype));
    sbw_table_meta_str(t, "precision", "float64");
    sbw_table_meta_str(t, "eps_arg", a->eps);
    sbw_table_meta_str(t, "eps_source", eps_source);
    sbw_table_meta_dbl(t, "eps", eps);
    sbw_table_meta_dbl(t, "frobenius", sqrt(rs->fro2));
    sbw_table_meta_dbl(t, "residual", rs->resid);
    sbw_table_meta_dbl(t, "residual_test", rs->resid_test);
    sbw_table_meta_dbl(t, "residual_frobenius", rs->resid_fro);
    sbw_table_meta_dbl(t, "sigma_1", rs->s[0]);
    sbw_table_meta_dbl(t, "sigma_1_lower", lo[0]);
    sbw_table_meta_dbl(t, "sigma_1_upper", hi[0]);
    sbw_table_meta_dbl(t, "sigma_K", rs->s[k - 1]);
    sbw_table_meta_dbl(t, "sigma_K_lower", lo[k - 1]);
    sbw_table_meta_dbl(t, "sigma_K_upper", hi[k - 1]);
    sbw_table_meta_dbl(t, "w0_uncentred", fmax(rs->s[0], rs->w0_uncentred));
    sbw_table_meta_str(t, "spectrum", a->spectrum ? a->spectrum : "");
    sbw_table_meta_dbl(t, "seconds", rs->seconds);
    return sbw_table_status(t);
}

/* --spectrum with --method randomized: the top K values and intervals. */
static int rsvd_spectrum(sbw_table *t, const sbw_rsvd *rs, const double *lo, const double *hi)
{
    sbw_table_columns(t, rsvd_spec_columns, sizeof rsvd_spec_columns / sizeof *rsvd_spec_columns);
    for (size_t j = 0; j < rs->top && !sbw_table_status(t); j++) {
        double s = rs->s[j];
        sbw_table_add_row(t);
        sbw_table_set_int(t, "index", (long long)j);
        sbw_table_set_dbl(t, "sigma", s);
        sbw_table_set_dbl(t, "sigma_lower", lo[j]);
        sbw_table_set_dbl(t, "sigma_upper", hi[j]);
        sbw_table_set_dbl(t, "error", hi[j] - s);
        sbw_table_set_str(t, "status", "estimated");
        sbw_table_set_dbl(t, "sigma_rel", rs->s[0] > 0 ? s / rs->s[0] : 0);
        sbw_table_set_dbl(t, "log10_sigma", s > 0 ? log10(s) : NAN);
    }
    return sbw_table_status(t);
}

/* The measures a top-K spectrum decides, one row each. */
static int rsvd_rows(sbw_table *t, const sbw_rsvd_rank *ms, const char *matrix)
{
    sbw_table_columns(t, rsvd_columns, sizeof rsvd_columns / sizeof *rsvd_columns);
    for (size_t i = 0; i < SBW_RANK_NMEASURES && !sbw_table_status(t); i++) {
        sbw_table_add_row(t);
        sbw_table_set_str(t, "measure", ms[i].name);
        sbw_table_set_dbl(t, "rank", ms[i].rank);
        sbw_table_set_str(t, "status", ms[i].status);
        sbw_table_set_dbl(t, "rank_lower", ms[i].lower);
        sbw_table_set_dbl(t, "rank_upper", ms[i].upper);
        sbw_table_set_dbl(t, "threshold", ms[i].threshold);
        sbw_table_set_str(t, "on", ms[i].on);
        sbw_table_set_str(t, "rule", ms[i].rule);
        sbw_table_set_str(t, "matrix", matrix);
    }
    return sbw_table_status(t);
}

/* The data warnings of a sketch (as sbw_spectra_warn_data's, from the
 * exact ||A||_F). */
static void rsvd_warn(const sbw_rsvd *rs, bool plain, double eps)
{
    if (rs->f32_values && eps < FLT_EPSILON)
        sbw_table_warn("float32_values: every entry of this float64 file is a float32 value "
                       "(an export rounded to float32 and cast back), so its own rounding makes "
                       "it look full rank at eps %g: use --eps single",
                       eps);
    if (plain && rs->fro2 > 0 && rs->rowmean_sq > 0.5 * rs->fro2)
        sbw_table_warn("mean_dominated: the row means hold %.4g%% of ||A||_F^2, so the energy "
                       "measures (eps_eff, stable) describe the mean: --center (or --bias) gives "
                       "them for the centred matrix",
                       100 * fmin(1.0, rs->rowmean_sq / rs->fro2));
}

/* One table of the randomized run: the spectrum (spec) or the measures. */
static int rsvd_table(const char *path, const rank_args *a, const sbw_cli_common *c,
                      const sbw_rsvd *rs, const double *lo, const double *hi,
                      const sbw_rsvd_rank *ms, double eps, const char *eps_source, bool spec)
{
    sbw_reduce_variant var = a->bias ? SBW_VAR_BOTH : a->center ? SBW_VAR_ROWS : SBW_VAR_PLAIN;
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-rank", c, true);
    st = st ? st : rsvd_meta(t, path, a, rs, lo, hi, eps, eps_source);
    if (!st && !spec)
        st = sbw_table_meta_dbl(t, "atol", a->atol);
    st = st     ? st
         : spec ? rsvd_spectrum(t, rs, lo, hi)
                : rsvd_rows(t, ms, sbw_rank_report_matrix_name(a->exp, var, false));
    st = st     ? st
         : spec ? sbw_table_write(t, a->spectrum, false)
                : sbw_table_print(t, a->table, c->json);
    sbw_table_free(t);
    return st;
}

/* --method randomized: the sketch (sbw_rsvd_file), what it decides
 * (sbw_rsvd_rank_measures), the tables. */
static int run_randomized(const char *path, const rank_args *a, const sbw_cli_common *c)
{
    sbw_rsvd_opts o = sbw_rsvd_defaults(a->top);
    o.oversample = a->oversample;
    o.power = a->power;
    o.seed = c->seed;
    o.var = a->bias ? SBW_VAR_BOTH : a->center ? SBW_VAR_ROWS : SBW_VAR_PLAIN;
    o.exp = a->exp;
    o.block_rows = a->block_rows;
    sbw_rsvd rs = {0};
    sbw_rsvd_rank ms[SBW_RANK_NMEASURES];
    double eps, *lo = NULL;
    const char *eps_source;
    int st = sbw_rsvd_file(path, &o, "sbw-rank", c->quiet, &rs);
    st = st ? st : sbw_rank_eps(a->eps, rs.dtype, SBW_F64, &eps, &eps_source);
    st = st ? st : sbw_rsvd_rank_measures(&rs, eps, a->atol, ms);
    if (!st && !(lo = malloc(2 * rs.sketch * sizeof *lo)))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st) {
        sbw_rsvd_bounds(&rs, rs.sketch, lo, lo + rs.sketch);
        rsvd_warn(&rs, o.var == SBW_VAR_PLAIN, eps);
    }
    if (!st && a->spectrum)
        st = rsvd_table(path, a, c, &rs, lo, lo + rs.sketch, ms, eps, eps_source, true);
    st = st ? st : rsvd_table(path, a, c, &rs, lo, lo + rs.sketch, ms, eps, eps_source, false);
    free(lo);
    sbw_rsvd_free(&rs);
    return st;
}

/* Option values that the parser cannot check, and options that do not
 * apply to the method chosen: a usage error before any reading. */
static int validate(const sbw_cli *cli, const sbw_cli_common *c, const rank_args *a)
{
    double eps;
    const char *src;
    sbw_rank_norm norm;
    sbw_reduce_method m;
    bool rnd = randomized(a);
    if (sbw_rank_eps(a->eps, SBW_F64, SBW_F64, &eps, &src) || sbw_rank_norm_parse(a->norm, &norm))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (!rnd && sbw_reduce_method_parse(a->method, &m))
        return sbw_cli_usage_error(
            cli, "--method: '%s' is not one of auto, direct, tsqr, randomized", a->method);
    const char *other = "an exact --method (auto, direct, tsqr)";
    const sbw_cli_applies rows[] = {
        {"--top", rnd, other, "only --method randomized computes a top-K spectrum"},
        {"--oversample", rnd, other, "only --method randomized draws a sketch"},
        {"--power", rnd, other, "only --method randomized has power iterations"},
        {"--seed", rnd, other, "only --method randomized draws random numbers"},
        {"--single", !rnd, "--method randomized", "it computes in float64"},
        {"--workers", !rnd, "--method randomized", "its blocks are multiplied by BLAS's threads"},
        {"--norm", !rnd, "--method randomized",
         "a top-K spectrum has no sigma_min to normalise by"},
        {"--power", strcmp(c->args[0], "-") != 0, "a pipe ('-')",
         "its single-pass sketch reads the matrix once"}};
    int st = sbw_cli_check_applies(cli, c, rows, sizeof rows / sizeof *rows);
    if (!st && rnd && !sbw_cli_given(cli, c, "--top"))
        st = sbw_cli_usage_error(cli, "--method randomized needs --top K, the number of singular "
                                      "values wanted");
    return st;
}

/* --hidden-size, --rounded and --decay: their values and what they need,
 * a usage error before any reading. */
static int validate_measures(const sbw_cli *cli, const sbw_cli_common *c, const rank_args *a)
{
    sbw_hidden_prec p;
    size_t lo, hi;
    if (a->rounded && sbw_hidden_prec_parse(a->rounded, &p))
        return sbw_cli_usage_error(cli, "--rounded: %s", sbw_error_reason());
    if (a->round && sbw_hidden_prec_parse(a->round, &p))
        return sbw_cli_usage_error(cli, "--round: %s", sbw_error_reason());
    if (a->decay && sbw_decay_parse(a->decay, &lo, &hi))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    const char *why = "the outputs' own values are what a hidden size is read from";
    const sbw_cli_applies rows[] = {
        {"--rounded", a->hidden, "a run without --hidden-size",
         "it is the precision of --hidden-size's floor"},
        {"--hidden-size", !a->exp, "--exp", why},
        {"--hidden-size", !randomized(a), "--method randomized", "it needs the whole spectrum"},
        {"--decay", !randomized(a), "--method randomized", "it fits the exact spectrum"},
        {"--round", !randomized(a), "--method randomized", "it reads its blocks itself"}};
    return sbw_cli_check_applies(cli, c, rows, sizeof rows / sizeof *rows);
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    static char help[sizeof details + sizeof details_rnd + sizeof details_measures];
    snprintf(help, sizeof help, "%s%s\n%s", details, details_rnd, details_measures);
    rank_args a = {.eps = "auto",
                   .norm = "max",
                   .method = "auto",
                   .oversample = SBW_RSVD_OVERSAMPLE,
                   .power = SBW_RSVD_POWER};
    const sbw_cli_opt opts[] = {
        {"--center", NULL, SBW_ARG_FLAG, &a.center, 0, 0, "analyse A (I - 11^T/M), row-centred"},
        {"--bias", NULL, SBW_ARG_FLAG, &a.bias, 0, 0, "centre rows and columns (biased heads)"},
        {"--exp", NULL, SBW_ARG_FLAG, &a.exp, 0, 0, "analyse P = exp(A) instead of A"},
        {"--eps", "E", SBW_ARG_STRING, &a.eps, 0, 0, "auto, double, single or a number"},
        {"--spectrum", "FILE", SBW_ARG_STRING, &a.spectrum, 0, 0, "write the spectrum TSV"},
        {"--norm", "N", SBW_ARG_STRING, &a.norm, 0, 0, "spectrum normalisation: max, minmax"},
        {"--measures", NULL, SBW_ARG_FLAG, &a.measures, 0, 0, "every named rank measure"},
        {"--atol", "A", SBW_ARG_DOUBLE, &a.atol, 0, 1e300, "PyTorch's atol (--measures)"},
        {"--single", NULL, SBW_ARG_FLAG, &a.single, 0, 0, "compute in float32 (sgesdd)"},
        {"--method", "M", SBW_ARG_STRING, &a.method, 0, 0, "auto, direct, tsqr or randomized"},
        {"--block-rows", "B", SBW_ARG_SIZE, &a.block_rows, 0, 1e9, "TSQR block (0 = auto)"},
        {"--workers", "W", SBW_ARG_LONG, &a.workers, 0, 4096, "TSQR workers (0 = threads)"},
        {"--top", "K", SBW_ARG_SIZE, &a.top, 1, 1e9, "randomized: the top K singular values"},
        {"--oversample", "P", SBW_ARG_SIZE, &a.oversample, 0, 1e6,
         "randomized: sketch K + P columns [10]"},
        {"--power", "Q", SBW_ARG_SIZE, &a.power, 0, 100, "randomized: power iterations [2]"},
        {"--hidden-size", NULL, SBW_ARG_FLAG, &a.hidden, 0, 0,
         "the hidden size D where the centred spectrum drops"},
        {"--rounded", "P", SBW_ARG_STRING, &a.rounded, 0, 0,
         "--hidden-size: the outputs' precision [observed]"},
        {"--round", "P", SBW_ARG_STRING, &a.round, 0, 0,
         "round every entry to f32, f16 or bf16 as read"},
        {"--decay", "RANGE", SBW_ARG_STRING, &a.decay, 0, 0,
         "fit sigma_i ~ i^-alpha over LO:HI or auto (1:rank)"},
        {0}};
    const sbw_cli cli = {"sbw-rank",
                         "FILE.npy|FILE.safetensors:NAME",
                         "Numerical rank and spectrum of a matrix.",
                         help,
                         opts,
                         1,
                         1,
                         SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED};
    sbw_cli_common c;
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if ((st = validate(&cli, &c, &a)) != 0 || (st = validate_measures(&cli, &c, &a)) != 0)
        return st;
    const sbw_cli_stream data[] = {{"--spectrum", a.spectrum}};
    if ((st = sbw_cli_one_stream(&cli, data, 1, NULL, NULL, &a.table)) != 0)
        return st;
    const char *in[] = {c.args[0]};
    const sbw_preflight_out out[] = {{"the table (stdout)", a.table == stderr ? NULL : "-", false},
                                     {"--spectrum", a.spectrum, false}};
    if ((st = sbw_preflight(in, 1, out, 2)) != 0)
        return sbw_cli_fail("sbw-rank", st);
    sbw_error_gsl_quiet();
    sbw_cli_threads(c.threads);
    if (randomized(&a))
        return (st = run_randomized(c.args[0], &a, &c)) ? sbw_cli_fail("sbw-rank", st)
                                                        : SBW_EXIT_OK;
    sbw_spectra sp = {0};
    sbw_reduce_variant var;
    st = compute(c.args[0], &a, &c, &sp, &var);
    st = st ? st : report(c.args[0], &a, &c, &sp, var);
    sbw_spectra_free(&sp);
    sbw_hidden_scan_free(&a.scan);
    return st ? sbw_cli_fail("sbw-rank", st) : SBW_EXIT_OK;
}
