/* test_plot.c -- plots/: reading tables, the reshaping arithmetic against
 * brute force and GSL, label escaping, the figure checks and data file,
 * and the monotone kind's gnuplot formulas against the heads' own naive
 * maps (models/sbw_head_ref), evaluated by gnuplot itself. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_head_ref.h"
#include "sbw_npy.h"
#include "sbw_plot_fig.h"
#include "sbw_plot_script.h"
#include "sbw_plot_gp.h"
#include "sbw_plot_kind.h"
#include "sbw_plot_shape.h"
#include "sbw_plot_tsv.h"
#include "sbw_rank.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *write_text(const char *name, const char *text)
{
    static char path[4][1024];
    static int slot = 0;
    char *p = path[slot++ % 4];
    snprintf(p, 1024, "%s", sbw_test_path(name));
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

/* ---- tables ---------------------------------------------------------------- */

static void test_tsv_reads_meta_columns_cells(void **state)
{
    (void)state;
    const char *p = write_text("t.tsv", "# tool=sbw-x\n# alpha=0.1\n#  a comment = not meta\n"
                                        "# alpha=0.2\n\nd\tkl_mean\tmodel\r\n1\t0.5\tmos\n"
                                        "\n2\tnan\tsoftmax\n");
    sbw_plot_tsv t;
    SBW_ASSERT_OK(sbw_plot_tsv_read(&t, p));
    SBW_ASSERT_EQ(t.ncol, (size_t)3);
    SBW_ASSERT_EQ(t.nrow, (size_t)2);
    SBW_ASSERT_EQ(t.nmeta, (size_t)3);
    assert_string_equal(sbw_plot_tsv_meta(&t, "alpha"), "0.2"); /* the last one wins */
    assert_string_equal(sbw_plot_tsv_meta(&t, "tool"), "sbw-x");
    assert_null(sbw_plot_tsv_meta(&t, "a"));
    SBW_ASSERT_EQ(sbw_plot_tsv_col(&t, "model"), 2L); /* \r stripped */
    SBW_ASSERT_EQ(sbw_plot_tsv_col(&t, "nope"), -1L);
    double x;
    SBW_ASSERT_OK(sbw_plot_tsv_num(&t, 0, 1, &x));
    SBW_ASSERT_EQ(x, 0.5);
    SBW_ASSERT_OK(sbw_plot_tsv_num(&t, 1, 1, &x));
    assert_true(isnan(x));
    assert_string_equal(sbw_plot_tsv_str(&t, 1, 2), "softmax");
    SBW_ASSERT_EQ(sbw_plot_tsv_num(&t, 1, 2, &x), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "'softmax' is not a number"));
    size_t c;
    SBW_ASSERT_EQ(sbw_plot_tsv_need(&t, "rank", &c), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "no column 'rank' (columns: d kl_mean model)"));
    sbw_plot_tsv_free(&t);
    sbw_plot_tsv_free(&t); /* zeroed: fine twice */
}

static void test_tsv_refuses_bad_tables(void **state)
{
    (void)state;
    static const struct {
        const char *text, *reason;
        int status;
    } cases[] = {
        {"a\tb\n1\t2\n3\n", "line 3 has 1 cells, the header line 2", SBW_EFORMAT},
        {"# x=1\n", "no column-name line", SBW_EFORMAT},
        {"", "no column-name line", SBW_EFORMAT},
        {"# x=1\na\tb\n", "no data rows", SBW_EDATA},
        {"a\ta\n1\t2\n", "column 'a' appears twice", SBW_EFORMAT},
        {"a\t\tb\n1\t2\t3\n", "column 2 of the header line has no name", SBW_EFORMAT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sbw_plot_tsv t;
        const char *p = write_text("bad.tsv", cases[i].text);
        SBW_ASSERT_EQ(sbw_plot_tsv_read(&t, p), cases[i].status);
        assert_non_null(strstr(sbw_error_reason(), cases[i].reason));
        assert_non_null(strstr(sbw_error_reason(), p));
        assert_null(t.path);
    }
    sbw_plot_tsv t;
    SBW_ASSERT_EQ(sbw_plot_tsv_read(&t, sbw_test_path("missing.tsv")), SBW_EIO);
}

/* ---- reshaping --------------------------------------------------------------- */

static void test_cumpct_counts_and_matches_sbw_rank(void **state)
{
    (void)state;
    /* descending with ties and a zero: the order sbw-rank writes */
    double s[] = {8, 4, 4, 2, 1, 1, 1, 0}, norm[8], pct[8], rn[8], rc[8];
    size_t k = 8;
    SBW_ASSERT_OK(sbw_plot_shape_cumpct(s, k, norm, pct));
    for (size_t j = 0; j < k; j++) {
        size_t below = 0;
        for (size_t i = 0; i < k; i++)
            below += s[i] / 8 <= s[j] / 8;
        SBW_ASSERT_EQ(norm[j], s[j] / 8);
        SBW_ASSERT_NEAR(pct[j], 100.0 * (double)below / (double)k, 1e-12);
    }
    /* the same numbers as sbw-rank --spectrum with --norm max */
    SBW_ASSERT_OK(sbw_rank_normalise(s, k, SBW_NORM_MAX, rn, rc));
    SBW_ASSERT_CLOSE(norm, rn, k, 0, 0);
    SBW_ASSERT_CLOSE(pct, rc, k, 1e-12, 0);
    /* any order: a permutation gives the same values per entry */
    double p[] = {1, 8, 0, 4, 1, 2, 4, 1}, pn[8], pp[8];
    SBW_ASSERT_OK(sbw_plot_shape_cumpct(p, k, pn, pp));
    SBW_ASSERT_NEAR(pp[2], pct[7], 0);
    SBW_ASSERT_NEAR(pp[1], 100, 0);
    SBW_ASSERT_NEAR(pp[0], pct[4], 0);
    double z[] = {0, 0};
    SBW_ASSERT_OK(sbw_plot_shape_cumpct(z, 2, pn, pp));
    SBW_ASSERT_EQ(pn[0], 1.0);
    SBW_ASSERT_EQ(pp[1], 100.0);
    double bad[] = {1, -1};
    SBW_ASSERT_EQ(sbw_plot_shape_cumpct(bad, 2, pn, pp), SBW_EDATA);
    SBW_ASSERT_EQ(sbw_plot_shape_cumpct(bad, 0, pn, pp), SBW_EINVAL);
}

static void test_sorted_probs_is_a_sorted_permutation(void **state)
{
    (void)state;
    enum { M = 37 };
    double logp[M], p[M], used[M] = {0}, sum = 0;
    for (size_t j = 0; j < M; j++)
        logp[j] = -1.0 - (double)((j * 17) % M) / 3.0 + (j == 5 ? -300 : 0);
    SBW_ASSERT_OK(sbw_plot_shape_sorted_probs(logp, M, p));
    for (size_t j = 0; j < M; j++) {
        if (j)
            SBW_ASSERT_GE(p[j - 1], p[j]);
        size_t i = 0; /* brute force: p[j] is exp of an unused logp entry */
        while (i < M && (used[i] || exp(logp[i]) != p[j]))
            i++;
        SBW_ASSERT_LT(i, (size_t)M);
        if (i < M)
            used[i] = 1;
        sum += p[j];
    }
    double want = 0;
    for (size_t j = 0; j < M; j++)
        want += exp(logp[j]);
    SBW_ASSERT_NEAR(sum, want, 1e-15 * want * M);
}

static void test_mean_sd_matches_gsl(void **state)
{
    (void)state;
    double y[] = {1.5, NAN, 2.25, -0.75, INFINITY, 4.0}, fin[] = {1.5, 2.25, -0.75, 4.0};
    double mean, sd;
    size_t c;
    sbw_plot_shape_mean_sd(y, 6, &mean, &sd, &c);
    SBW_ASSERT_EQ(c, (size_t)4);
    SBW_ASSERT_NEAR(mean, gsl_stats_mean(fin, 1, 4), 1e-15);
    SBW_ASSERT_NEAR(sd, gsl_stats_sd(fin, 1, 4), 1e-15);
    sbw_plot_shape_mean_sd(y, 1, &mean, &sd, &c); /* one seed: no error bar */
    SBW_ASSERT_EQ(mean, 1.5);
    assert_true(isnan(sd));
    sbw_plot_shape_mean_sd(y + 1, 1, &mean, &sd, &c);
    SBW_ASSERT_EQ(c, (size_t)0);
    assert_true(isnan(mean));
}

/* ---- figures --------------------------------------------------------------------- */

static void test_text_escapes_for_tex_and_quotes(void **state)
{
    (void)state;
    char b[256];
    sbw_plot_script_text("50% of a_b ≤ σ/σ₀, it's", true, b, sizeof b);
    assert_string_equal(b, "50\\% of a\\_b $\\le$ $\\sigma$/$\\sigma$$_0$, it's");
    sbw_plot_script_text("50% of a_b ≤ σ, it's", false, b, sizeof b);
    assert_string_equal(b, "50% of a_b ≤ σ, it's");
    /* controls, bidi overrides, bytes that are not UTF-8: '?' (tex too) */
    sbw_plot_script_text("a\nb\\\r\xe2\x80\xae"
                         "c\xff",
                         true, b, sizeof b);
    assert_string_equal(b, "a?b$\\backslash$\?\?c?");
    sbw_plot_script_text("{x}^#&$~\\", true, b, sizeof b);
    assert_string_equal(b, "\\{x\\}\\^{}\\#\\&\\$\\~{}$\\backslash$");
    sbw_plot_script_text("σσσσ", true, b, 12); /* never a half replacement */
    assert_string_equal(b, "$\\sigma$");
}

/* What sbw_plot_gp writes for s, into buf. */
static const char *gp_out(void (*fn)(FILE *, const char *), const char *s)
{
    static char buf[512];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    fn(f, s);
    fclose(f);
    return buf;
}

static void test_gp_literals_and_comments_hold_any_bytes(void **state)
{
    (void)state;
    /* only '' is special in '...': backslashes, backquotes, @ and " stay */
    assert_string_equal(gp_out(sbw_plot_gp_str, "it's `x` @m \"q\" \\"), "'it''s `x` @m \"q\" \\'");
    assert_string_equal(gp_out(sbw_plot_gp_str, "a\nsystem('x')\r\t\x7f"),
                        "'a?system(''x'')\?\?\?'");
    /* U+202E (RLO), U+200B, U+FEFF, U+2028, C1 U+0085, a lone continuation
     * byte, an overlong '/', a surrogate: each '?'; Greek stays */
    assert_string_equal(gp_out(sbw_plot_gp_str, "\xe2\x80\xae\xe2\x80\x8b\xef\xbb\xbf\xe2\x80\xa8"
                                                "\xc2\x85\x80\xc0\xaf\xed\xa0\x80σ"),
                        "'\?\?\?\?\?\?\?\?\?\?\?σ'");
    assert_true(sbw_plot_gp_str_exact("fig-1 σ's"));
    assert_false(sbw_plot_gp_str_exact("a\nb"));
    assert_false(sbw_plot_gp_str_exact("a\xe2\x80\x8b"));
    /* a comment is one line, never continued by a final backslash */
    assert_string_equal(gp_out(sbw_plot_gp_comment, "a\nb\\c\\"), "# a\\x0ab\\\\c\\x5c\n");
    assert_string_equal(gp_out(sbw_plot_gp_comment, "\xe2\x80\xae\xff"), "# \\u{202E}\\xff\n");
    assert_string_equal(gp_out(sbw_plot_gp_comment, ""), "# \n");
}

static void test_gp_code_takes_numbers_only(void **state)
{
    (void)state;
    assert_true(sbw_plot_gp_numeric_fmt("set xrange [%.17g:%g] %zu %d %06X 100%%"));
    assert_false(sbw_plot_gp_numeric_fmt("title '%s'"));
    assert_false(sbw_plot_gp_numeric_fmt("%c"));
    assert_false(sbw_plot_gp_numeric_fmt("%n"));
    assert_false(sbw_plot_gp_numeric_fmt("50%"));
    assert_true(sbw_plot_gp_expr_ok("x"));
    assert_true(sbw_plot_gp_expr_ok("f12(x)"));
    assert_true(sbw_plot_gp_expr_ok("-1.5e-07"));
    const char *bad[] = {
        "", "system(x)x", "f(x); system('y')", "inf", "nan", "1e999", "f(y)", "`x`", "f (x)", "@m"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(sbw_plot_gp_expr_ok(bad[i]));
    char num[40];
    sbw_plot_gp_num_text(10, num, sizeof num); /* gnuplot divides integers as integers */
    assert_string_equal(num, "10.0");
    sbw_plot_gp_num_text(INFINITY, num, sizeof num);
    assert_string_equal(num, "NaN");
    sbw_plot_fig *f;
    SBW_ASSERT_OK(sbw_plot_fig_alloc(&f, "t"));
    SBW_ASSERT_EQ(sbw_plot_fig_def(f, "a = '%s'", "x"), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_plot_fig_def_num(f, "a b", 1.0), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_plot_fig_def_num(f, "a", NAN), SBW_EINVAL);
    SBW_ASSERT_OK(sbw_plot_fig_def_num(f, "a", 2.0));
    assert_string_equal(f->defs, "a = 2.0\n");
    sbw_plot_fig_free(f);
}

static sbw_plot_fig *small_fig(void)
{
    sbw_plot_fig *f;
    sbw_plot_fig_panel *p;
    sbw_plot_fig_series *s;
    SBW_ASSERT_OK(sbw_plot_fig_alloc(&f, "test"));
    SBW_ASSERT_OK(sbw_plot_fig_add_panel(f, "t", "x", "y", &p));
    SBW_ASSERT_OK(sbw_plot_fig_add_series(p, "a", SBW_WITH_LINESPOINTS, 1, &s));
    SBW_ASSERT_OK(sbw_plot_fig_series_add(s, 1, 0.1, NAN));
    SBW_ASSERT_OK(sbw_plot_fig_series_add(s, 2, 1.0 / 3.0, 1e-300));
    SBW_ASSERT_OK(sbw_plot_fig_series_add(s, 3, -2.5, 0.25));
    return f;
}

static void test_check_refuses_what_cannot_be_drawn(void **state)
{
    (void)state;
    sbw_plot_fig_opts o = {0};
    sbw_plot_fig *f = small_fig();
    SBW_ASSERT_OK(sbw_plot_fig_check(f, &o));
    o.logy = true; /* one positive y left */
    SBW_ASSERT_OK(sbw_plot_fig_check(f, &o));
    sbw_plot_fig_series *s;
    SBW_ASSERT_OK(sbw_plot_fig_add_series(f->panel[0], "neg", SBW_WITH_LINES, 2, &s));
    SBW_ASSERT_OK(sbw_plot_fig_series_add(s, 1, -1, NAN));
    SBW_ASSERT_EQ(sbw_plot_fig_check(f, &o), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "series 'neg': no point to draw"));
    o.logy = false;
    SBW_ASSERT_OK(sbw_plot_fig_check(f, &o));
    SBW_ASSERT_OK(sbw_plot_fig_add_series(f->panel[0], "nan", SBW_WITH_LINES, 3, &s));
    SBW_ASSERT_OK(sbw_plot_fig_series_add(s, NAN, 1, NAN));
    SBW_ASSERT_EQ(sbw_plot_fig_check(f, &o), SBW_EDATA);
    s->n = 0; /* a function needs no points */
    SBW_ASSERT_OK(sbw_plot_fig_series_func(s, "x"));
    SBW_ASSERT_OK(sbw_plot_fig_check(f, &o));
    sbw_plot_fig_panel *p;
    SBW_ASSERT_OK(sbw_plot_fig_add_panel(f, NULL, NULL, NULL, &p));
    SBW_ASSERT_EQ(sbw_plot_fig_check(f, &o), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "panel 2 () has no series"));
    sbw_plot_fig_free(f);
    SBW_ASSERT_OK(sbw_plot_fig_alloc(&f, "empty"));
    SBW_ASSERT_EQ(sbw_plot_fig_check(f, &o), SBW_EDATA);
    sbw_plot_fig_free(f);
}

static void test_data_file_reads_back_exactly(void **state)
{
    (void)state;
    sbw_plot_fig *f = small_fig();
    const char *path = sbw_test_path("d.dat");
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    SBW_ASSERT_OK(sbw_plot_fig_write_data(f, out));
    fclose(out);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char line[256];
    size_t n = 0;
    const sbw_plot_fig_series *s = f->panel[0]->series[0];
    while (fgets(line, sizeof line, in)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        double x, y, e;
        char es[32];
        assert_int_equal(sscanf(line, "%lf\t%lf\t%31s", &x, &y, es), 3);
        e = strtod(es, NULL);
        SBW_ASSERT_LT(n, s->n);
        SBW_ASSERT_EQ(x, s->x[n]);
        SBW_ASSERT_EQ(y, s->y[n]);
        if (isnan(s->err[n]))
            assert_true(isnan(e));
        else
            SBW_ASSERT_EQ(e, s->err[n]);
        n++;
    }
    fclose(in);
    SBW_ASSERT_EQ(n, s->n);
    sbw_plot_fig_free(f);
}

/* ---- monotone: the script's f against the heads' naive maps ---------------------- */

/* Evaluates the figure's f1(x) with gnuplot at x = x0 + i h, i < n. */
static void gnuplot_eval(const sbw_plot_fig *f, double x0, double h, size_t n, double *y)
{
    char cmd[2048], rp[1024], prog[1024];
    snprintf(prog, sizeof prog, "%s", sbw_test_path("eval.gp"));
    snprintf(rp, sizeof rp, "%s", sbw_test_path("eval.txt"));
    FILE *g = fopen(prog, "w");
    assert_non_null(g);
    fprintf(g,
            "%sset print '%s'\ndo for [i=0:%zu] { print sprintf('%%.17g', f1(%.17g + i*%.17g)) }\n",
            f->defs, rp, n - 1, x0, h);
    fclose(g);
    snprintf(cmd, sizeof cmd, "gnuplot '%s'", prog);
    SBW_ASSERT_EQ(system(cmd), 0);
    FILE *r = fopen(rp, "r");
    assert_non_null(r);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(fscanf(r, "%lf", &y[i]), 1);
    fclose(r);
}

static void save_dir(const char *dir, const char *params)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/params.tsv", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(params, f);
    fclose(f);
}

static void save_vec(const char *dir, const char *name, const double *v, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s.npy", dir, name);
    SBW_ASSERT_OK(sbw_npy_save_vector(p, v, n, SBW_F64));
}

static sbw_plot_fig *monotone_of(char *dir)
{
    sbw_plot_kind_args a = {.inputs = &dir, .ninputs = 1, .xmin = NAN, .xmax = NAN};
    sbw_plot_fig *f;
    SBW_ASSERT_OK(sbw_plot_kind_build("monotone", &a, &f));
    return f;
}

static void test_monotone_plif_formula_matches_the_head(void **state)
{
    (void)state;
    enum { K = 5, N = 61 };
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", sbw_test_path(""));
    double s[K] = {0.5, 2.0, 0.125, 3.0, 1.25}, t = 2.5, cum[K], x[N], want[N], fp[N], got[N];
    save_dir(dir, "# model=plif\n# knots=5\n# plif_t=2.5\nname\tfile\nplif_slope\tx\n");
    save_vec(dir, "plif_slope", s, K);
    sbw_plot_fig *f = monotone_of(dir);
    double delta = 2 * t / K;
    cum[0] = 0;
    for (size_t i = 1; i < K; i++)
        cum[i] = cum[i - 1] + delta * s[i - 1];
    for (size_t i = 0; i < N; i++)
        x[i] = -4 + (double)i * 8.0 / (N - 1); /* both outer pieces and every knot */
    sbw_head_ref_plif(x, want, fp, N, s, cum, K, t);
    gnuplot_eval(f, -4, 8.0 / (N - 1), N, got);
    SBW_ASSERT_CLOSE(got, want, N, 1e-12, 1e-12);
    sbw_plot_fig_free(f);
}

static void test_monotone_lms_formula_matches_the_head(void **state)
{
    (void)state;
    enum { K = 4, N = 41 };
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", sbw_test_path(""));
    double u[K] = {0.5, 1.5, 3.0, 40.0}, v[K] = {1.0, 0.25, 2.0, 0.5}, c[K] = {-4, 0, 1.5, 200};
    double lambda = 0.75, x[N], want[N], fp[N], sig[2 * K * N], got[N];
    save_dir(dir, "# model=lms\n# k=4\n# linear=true\nname\tfile\nlms_u\tx\n");
    save_vec(dir, "lms_u", u, K);
    save_vec(dir, "lms_v", v, K);
    save_vec(dir, "lms_c", c, K);
    save_vec(dir, "lms_lambda", &lambda, 1);
    sbw_plot_fig *f = monotone_of(dir);
    for (size_t i = 0; i < N; i++)
        x[i] = -10 + (double)i * 0.5; /* u x + c reaches -400 and 600: a stable sigmoid */
    sbw_head_ref_lms(x, want, fp, sig, N, u, v, c, K, lambda);
    gnuplot_eval(f, -10, 0.5, N, got);
    SBW_ASSERT_CLOSE(got, want, N, 1e-12, 1e-12);
    sbw_plot_fig_free(f);
}

static void test_kind_errors(void **state)
{
    (void)state;
    sbw_plot_kind_args a = {.xmin = NAN, .xmax = NAN};
    sbw_plot_fig *f;
    SBW_ASSERT_EQ(sbw_plot_kind_build("pie", &a, &f), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "unknown kind 'pie'"));
    assert_null(f);
    SBW_ASSERT_EQ(sbw_plot_kind_build("sweep", &a, &f), SBW_EINVAL);
    char *in = (char *)write_text("s.tsv", "model\td\tm\tkl_mean\nmos\t2\t10\t0.5\n");
    a.inputs = &in;
    a.ninputs = 1;
    a.y = "mode_match";
    SBW_ASSERT_EQ(sbw_plot_kind_build("sweep", &a, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "no column 'mode_match'"));
    a.y = NULL;
    a.where = "model=softmax";
    SBW_ASSERT_EQ(sbw_plot_kind_build("sweep", &a, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "where model=softmax"));
    a.where = "model";
    SBW_ASSERT_EQ(sbw_plot_kind_build("sweep", &a, &f), SBW_EINVAL);
    a.where = "model=mos";
    SBW_ASSERT_OK(sbw_plot_kind_build("sweep", &a, &f));
    SBW_ASSERT_EQ(f->npanel, (size_t)1);
    assert_string_equal(f->panel[0]->series[0]->label, "mos");
    sbw_plot_fig_free(f);
    a.labels = "x,y";
    a.where = NULL;
    SBW_ASSERT_EQ(sbw_plot_kind_build("train", &a, &f), SBW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsv_reads_meta_columns_cells),
        cmocka_unit_test(test_tsv_refuses_bad_tables),
        cmocka_unit_test(test_cumpct_counts_and_matches_sbw_rank),
        cmocka_unit_test(test_sorted_probs_is_a_sorted_permutation),
        cmocka_unit_test(test_mean_sd_matches_gsl),
        cmocka_unit_test(test_text_escapes_for_tex_and_quotes),
        cmocka_unit_test(test_gp_literals_and_comments_hold_any_bytes),
        cmocka_unit_test(test_gp_code_takes_numbers_only),
        cmocka_unit_test(test_check_refuses_what_cannot_be_drawn),
        cmocka_unit_test(test_data_file_reads_back_exactly),
        cmocka_unit_test(test_monotone_plif_formula_matches_the_head),
        cmocka_unit_test(test_monotone_lms_formula_matches_the_head),
        cmocka_unit_test(test_kind_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
