/* test_plot.c -- plots/: the reshaping arithmetic against
 * brute force and GSL, label escaping, the figure checks and data file,
 * and the monotone kind drawing map.tsv as it stands (the map's values
 * are sbw_head_io's, tested against the naive twins in test_head_io). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_plot_fig.h"
#include "sbw_plot_script.h"
#include "sbw_plot_gp.h"
#include "sbw_plot_kind.h"
#include "sbw_plot_shape.h"
#include "sbw_plot_style.h"
#include "sbw_plot_tics.h"
#include "sbw_tsv.h"
#include "sbw_rank.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *write_text(const char *name, const char *text)
{
    return sbw_test_write(name, text, strlen(text));
}

/* ---- reshaping --------------------------------------------------------------- */

/* The spectrum kind draws sbw-rank's normalised and cum_pct as they
 * stand (sbw_rank_normalise, the one implementation), ascending; a table
 * without them and a .npy of values are refused, naming the file. */
static void test_spectrum_draws_sbw_rank_columns(void **state)
{
    (void)state;
    double s[] = {8, 4, 4, 2, 1, 1, 1, 0}, rn[8], rc[8];
    size_t k = 8;
    SBW_ASSERT_OK(sbw_rank_normalise(s, k, SBW_NORM_MAX, rn, rc));
    char text[2048];
    size_t o = (size_t)snprintf(text, sizeof text, "index\tsigma\tnormalised\tcum_pct\n");
    for (size_t j = 0; j < k; j++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%zu\t%.17g\t%.17g\t%.17g\n", j, s[j],
                              rn[j], rc[j]);
    char *in = (char *)write_text("spec.tsv", text);
    sbw_plot_kind_args a = {.inputs = &in, .ninputs = 1, .xmin = NAN, .xmax = NAN};
    sbw_plot_fig *f;
    SBW_ASSERT_OK(sbw_plot_kind_build("spectrum", &a, &f));
    const sbw_plot_fig_series *cum = f->panel[0]->series[0], *sig = f->panel[1]->series[0];
    SBW_ASSERT_EQ(cum->n, k);
    for (size_t j = 0; j < k; j++) {
        SBW_ASSERT_EQ(cum->x[j], rn[k - 1 - j]);
        SBW_ASSERT_EQ(cum->y[j], rc[k - 1 - j]);
        SBW_ASSERT_EQ(sig->y[j], s[j]);
    }
    sbw_plot_fig_free(f);
    in = (char *)write_text("nocum.tsv", "index\tsigma\n0\t2\n1\t1\n");
    SBW_ASSERT_EQ(sbw_plot_kind_build("spectrum", &a, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "nocum.tsv: no 'normalised' and 'cum_pct' columns"));
    in = (char *)write_text("sv.npy", "not read");
    SBW_ASSERT_EQ(sbw_plot_kind_build("spectrum", &a, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "sv.npy: sbw-plot draws spectra from sbw-rank"));
}

/* The alpha kind draws sbw-info's tables as they stand: --sorted's
 * (rank, prob) rows bit for bit, and the mean and sd (the one arithmetic,
 * against GSL) of the first --rows entropies of --per-row's; a table of
 * another language (joined by file name) and a missing list are refused. */
static void test_alpha_draws_sbw_info_tables(void **state)
{
    (void)state;
    char in0[1024], in1[1024], *in[2] = {in0, in1}; /* write_text reuses 4 slots */
    snprintf(in0, sizeof in0, "%s",
             write_text("a1.tsv", "# alpha=0.5\n# m=4\n# output=dir/p1.npy\nrows\n3\n"));
    snprintf(in1, sizeof in1, "%s",
             write_text("a2.tsv", "# alpha=0.1\n# m=4\n# output=p2.npy\nrows\n3\n"));
    char lists[2][2048];
    snprintf(lists[0], sizeof lists[0], "%s,",
             write_text("h1.tsv", "# file=p1.npy\nrow\tentropy\n"
                                  "0\t1.25\n1\t0.5\n2\t7\n"));
    strcat(lists[0], write_text("h2.tsv", "# file=x/p2.npy\nrow\tentropy\n0\t0.75\n1\t1.5\n"));
    snprintf(lists[1], sizeof lists[1], "%s,",
             write_text("s1.tsv", "# file=p1.npy\nrank\tword\tlog_prob\tprob\n1\t3\t-0.1\t0."
                                  "90483741803595952\n2\t0\t-2.4\t0.090717953289412512\n"));
    strcat(lists[1], write_text("s2.tsv", "# file=p2.npy\nrank\tword\tlog_prob\tprob\n1\t0\t-"
                                          "0.5\t0.60653065971263342\n"));
    sbw_plot_kind_args a = {.inputs = in,
                            .ninputs = 2,
                            .entropy = lists[0],
                            .sorted = lists[1],
                            .rows = 2,
                            .xmin = NAN,
                            .xmax = NAN};
    sbw_plot_fig *f;
    SBW_ASSERT_OK(sbw_plot_kind_build("alpha", &a, &f));
    const sbw_plot_fig_series *s1 = f->panel[0]->series[0], *s2 = f->panel[0]->series[1];
    assert_int_equal(s1->n, 2);
    assert_int_equal(s2->n, 1);
    SBW_ASSERT_EQ(s1->x[1], 2);
    SBW_ASSERT_EQ(s1->y[1], 0.090717953289412512);
    SBW_ASSERT_EQ(s2->y[0], 0.60653065971263342);
    const sbw_plot_fig_series *h = f->panel[1]->series[0]; /* M = 4, by alpha */
    assert_int_equal(h->n, 2);
    double first[2][2] = {{0.75, 1.5}, {1.25, 0.5}}; /* alpha 0.1, then 0.5: rows 0 and 1 */
    for (size_t i = 0; i < 2; i++) {
        SBW_ASSERT_EQ(h->x[i], i ? 0.5 : 0.1);
        SBW_ASSERT_NEAR(h->y[i], gsl_stats_mean(first[i], 1, 2), 1e-15);
        SBW_ASSERT_NEAR(h->err[i], gsl_stats_sd(first[i], 1, 2), 1e-15);
    }
    sbw_plot_fig_free(f);
    char swapped[2048] = "";
    char *comma = strchr(lists[1], ',');
    assert_non_null(comma);
    *comma = '\0';
    strcat(strcat(strcat(swapped, comma + 1), ","), lists[1]); /* s2 first: the wrong order */
    a.sorted = swapped;
    SBW_ASSERT_EQ(sbw_plot_kind_build("alpha", &a, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "s2.tsv: a table of p2.npy, but"));
    a.sorted = NULL;
    SBW_ASSERT_EQ(sbw_plot_kind_build("alpha", &a, &f), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "--entropy and --sorted give one sbw-info"));
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

/* ---- monotone: map.tsv drawn as it stands ------------------------------------------ */

static void save_file(const char *dir, const char *name, const char *text)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int monotone_of(char *dir, sbw_plot_fig **f)
{
    sbw_plot_kind_args a = {.inputs = &dir, .ninputs = 1, .xmin = NAN, .xmax = NAN};
    return sbw_plot_kind_build("monotone", &a, f);
}

/* The series is map.tsv's (x, f) rows, bit for bit, in order; the x range
 * is +-1.25 T for a PLIF head (the old formula's view). */
static void test_monotone_draws_map_tsv(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", sbw_test_path(""));
    static const double x[] = {-10, -2.5, -0.1, 0, 0.3333333333333333, 2.5, 10};
    static const double y[] = {-7.5, 0, 1.2000000000000002, 1.25, 2.0000000000000004, 5, 12.5};
    char text[2048];
    size_t o = (size_t)snprintf(text, sizeof text, "# model=plif\n# knots=2\n# plif_t=2.5\nx\tf\n");
    for (size_t i = 0; i < 7; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%.17g\t%.17g\n", x[i], y[i]);
    save_file(dir, "map.tsv", text);
    sbw_plot_fig *f;
    SBW_ASSERT_OK(monotone_of(dir, &f));
    const sbw_plot_fig_series *s = f->panel[0]->series[0];
    SBW_ASSERT_EQ(s->n, (size_t)7);
    assert_null(s->func);
    for (size_t i = 0; i < 7; i++) {
        SBW_ASSERT_EQ(s->x[i], x[i]);
        SBW_ASSERT_EQ(s->y[i], y[i]);
    }
    SBW_ASSERT_EQ(f->panel[0]->xmin, -1.25 * 2.5);
    SBW_ASSERT_EQ(f->panel[0]->xmax, 1.25 * 2.5);
    assert_null(f->defs); /* no formula */
    sbw_plot_fig_free(f);
}

/* A folder saved before map.tsv (params.tsv only) says how to get one; a
 * non-finite f, a head without a learned map: data errors naming the file. */
static void test_monotone_refuses_missing_or_bad_maps(void **state)
{
    (void)state;
    char dir[1024];
    sbw_plot_fig *f;
    snprintf(dir, sizeof dir, "%s", sbw_test_path("old"));
    SBW_ASSERT_EQ(mkdir(dir, 0777), 0);
    save_file(dir, "params.tsv", "# model=plif\n# knots=2\n# plif_t=2.5\nname\tfile\n");
    SBW_ASSERT_EQ(monotone_of(dir, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "no map.tsv beside params.tsv"));
    assert_non_null(strstr(sbw_error_reason(), "--save"));
    assert_null(f);
    save_file(dir, "map.tsv", "# model=plif\n# knots=2\n# plif_t=2.5\nx\tf\n-1\t0\n1\tinf\n");
    SBW_ASSERT_EQ(monotone_of(dir, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "map.tsv: row 2, column 'f' is inf"));
    save_file(dir, "map.tsv", "# model=mos\nx\tf\n-1\t0\n1\t1\n");
    SBW_ASSERT_EQ(monotone_of(dir, &f), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "no learned monotone function"));
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

/* The index of the head named name in the style table. */
static int head_index(const char *name)
{
    for (size_t i = 0; i < sbw_plot_style_nheads(); i++)
        if (!strcmp(sbw_plot_style_head_name(i), name))
            return (int)i;
    return -2;
}

/* A label names a head by its first word, case ignored; '+' joins words
 * (mos+plif is its own head), '_' '-' ' ' ',' end one. */
static void test_style_head_by_first_word(void **state)
{
    (void)state;
    static const struct {
        const char *label, *head;
    } cases[] = {{"softmax", "Softmax"},
                 {"Softmax D=4", "Softmax"},
                 {"softmax_d4", "Softmax"},
                 {"mos-k15", "MoS"},
                 {"MoS K=4 D=8", "MoS"},
                 {"LMS K=3 (lms)", "LMS"},
                 {"plif, 4 intervals", "PLIF"},
                 {"moc", "MoC"},
                 {"SIGSOFTMAX", "Sigsoftmax"},
                 {"mixtape K=4", "Mixtape"},
                 {"mos+plif", NULL},
                 {"log_softmax_4", NULL},
                 {"true log P*", NULL},
                 {"A = log P*", NULL},
                 {"", NULL},
                 {"softmaxx", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int want = cases[i].head ? head_index(cases[i].head) : -1;
        SBW_ASSERT_EQ(sbw_plot_style_head_of(cases[i].label), want);
    }
    SBW_ASSERT_EQ(sbw_plot_style_nheads(), (size_t)7);
}

/* Adds one series per label to a new panel of f, style numbers 1, 2, ... */
static void add_labels(sbw_plot_fig *f, const char *const *labels, size_t n)
{
    sbw_plot_fig_panel *p;
    SBW_ASSERT_OK(sbw_plot_fig_add_panel(f, NULL, "x", "y", &p));
    for (size_t i = 0; i < n; i++) {
        sbw_plot_fig_series *s;
        SBW_ASSERT_OK(sbw_plot_fig_add_series(p, labels[i], SBW_WITH_LINES, (int)i + 1, &s));
        SBW_ASSERT_OK(sbw_plot_fig_series_add(s, 1, 1, NAN));
    }
}

static bool same_style(sbw_plot_style a, sbw_plot_style b)
{
    return a.rgb == b.rgb && a.point == b.point && a.dash == b.dash;
}

/* A head's style does not depend on the figure's other series or their
 * order; no other series gets a head's colour or marker. */
static void test_style_same_head_any_order(void **state)
{
    (void)state;
    static const char *const one[] = {"softmax", "x1", "mos K=2", "lms", "x2"};
    static const char *const two[] = {"x3", "LMS K=9", "x4", "x5", "MoS", "Softmax D=2", "plif"};
    sbw_plot_fig *f, *g;
    SBW_ASSERT_OK(sbw_plot_fig_alloc(&f, "test"));
    SBW_ASSERT_OK(sbw_plot_fig_alloc(&g, "test"));
    add_labels(f, one, 5);
    add_labels(g, two, 7);
    sbw_plot_style a[5], b[7];
    sbw_plot_style_resolve(f, a);
    sbw_plot_style_resolve(g, b);
    assert_true(same_style(a[0], b[5])); /* softmax */
    assert_true(same_style(a[2], b[4])); /* mos */
    assert_true(same_style(a[3], b[1])); /* lms */
    assert_true(a[0].head == head_index("Softmax") && b[6].head == head_index("PLIF"));
    /* a plain series is not the head its label begins with */
    f->panel[0]->series[3]->plain = true;
    sbw_plot_style_resolve(f, a);
    SBW_ASSERT_EQ(a[3].head, -1);
    sbw_plot_fig_free(f);
    sbw_plot_fig_free(g);
    /* the palette of the rest, brute force against every head's first
     * two variants: no colour, no marker in common */
    for (size_t n = 0; n < 60; n++) {
        sbw_plot_style o = sbw_plot_style_other(n);
        for (size_t h = 0; h < sbw_plot_style_nheads(); h++)
            for (size_t v = 0; v < 2; v++) {
                sbw_plot_style s = sbw_plot_style_head(h, v);
                assert_true(o.rgb != s.rgb);
                assert_true(o.point != sbw_plot_style_head(h, 0).point);
            }
    }
    /* the heads: distinct colours and markers */
    for (size_t h = 0; h < sbw_plot_style_nheads(); h++)
        for (size_t k = h + 1; k < sbw_plot_style_nheads(); k++) {
            assert_true(sbw_plot_style_head(h, 0).rgb != sbw_plot_style_head(k, 0).rgb);
            assert_true(sbw_plot_style_head(h, 0).point != sbw_plot_style_head(k, 0).point);
        }
}

/* Thinned tics: the first and the last kept, at most max, neighbours at
 * least 1/(max - 1) of the axis apart (checked on random ascending sets
 * against that definition, on linear and log axes). */
static void test_tics_thin_keeps_apart(void **state)
{
    (void)state;
    unsigned seed = 7;
    for (int trial = 0; trial < 2000; trial++) {
        double v[12], w[12];
        size_t n = 2 + (size_t)(trial % 11), max = 2 + (size_t)(trial / 11 % 9);
        bool lg = trial % 2;
        double x = 1;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            x += 1 + (double)(seed >> 16 & 1023);
            v[i] = w[i] = x;
        }
        size_t k = sbw_plot_tics_thin(w, n, max, lg);
        assert_true(k >= 2 && k <= max && k <= n);
        assert_true(w[0] == v[0] && w[k - 1] == v[n - 1]);
        double span = lg ? log(v[n - 1]) - log(v[0]) : v[n - 1] - v[0];
        for (size_t i = 1; i < k; i++) {
            double d = lg ? log(w[i]) - log(w[i - 1]) : w[i] - w[i - 1];
            assert_true(d >= span / (double)(max - 1) * (1 - 1e-6));
        }
    }
    size_t c;
    double step = sbw_plot_tics_step(0, 1e6, 3, &c);
    assert_true(step > 0 && floor(1e6 / step) + 1 <= 3);
}

/* The nearest of t[0, n) to v, in decades. */
static double log_dist(const double *t, size_t n, double v)
{
    double d = INFINITY;
    for (size_t i = 0; i < n; i++)
        d = fmin(d, fabs(log10(t[i]) - log10(v)));
    return d;
}

/* Log-axis tics under three decades: ascending, inside what the axis
 * shows (the data's range widened by pad times its span in decades, what
 * gnuplot showed for its graph offsets; test_plot_fig.sh checks the tics
 * against gnuplot's own GPVAL_Y_MIN/MAX), and each end of the data within a quarter of the data's
 * log span of a labelled tic (on random ranges of 0.5 to 3 decades at
 * gnuplot's 5% offsets); and the cases that once left the data's ends
 * unlabelled (a rank flat at 401 against 9,999; 402 against 1,455: no tic
 * above 5,000 or 1,000), or showed two labels (126.6 to 11,918), and one
 * near the largest doubles. */
static void test_tics_log_label_the_data(void **state)
{
    (void)state;
    double t[SBW_PLOT_TICS_LOG_MAX];
    unsigned seed = 11;
    for (int trial = 0; trial < 5000; trial++) {
        seed = seed * 1103515245u + 12345u;
        double e = -20 + 40 * (double)(seed >> 8 & 0xffff) / 65536.0;
        seed = seed * 1103515245u + 12345u;
        double span = 0.5 + 2.49 * (double)(seed >> 8 & 0xffff) / 65536.0;
        double lo = pow(10, e), hi = pow(10, e + span), pad = 0.05;
        double vlo = lo / pow(10, pad * span), vhi = hi * pow(10, pad * span);
        size_t n = sbw_plot_tics_log(lo, hi, pad, t);
        assert_true(n >= 2 && n <= SBW_PLOT_TICS_LOG_MAX);
        for (size_t i = 0; i < n; i++) {
            assert_true(i == 0 || t[i] > t[i - 1]);
            assert_true(t[i] >= vlo * (1 - 1e-12) && t[i] <= vhi * (1 + 1e-12));
        }
        if (log_dist(t, n, lo) > 0.25 * span || log_dist(t, n, hi) > 0.25 * span)
            fail_msg("[%g, %g]: an end of the data far from every tic (%zu tics, %g .. %g)", lo, hi,
                     n, t[0], t[n - 1]);
    }
    const double cases[][2] = {{401, 9999}, {402, 1455}, {126.6, 11918}};
    for (size_t k = 0; k < 3; k++) {
        double lo = cases[k][0], hi = cases[k][1], span = log10(hi) - log10(lo);
        size_t n = sbw_plot_tics_log(lo, hi, 0.05, t);
        assert_true(n >= 3);
        assert_true(t[0] >= lo / pow(10, 0.05 * span) && t[n - 1] <= hi * pow(10, 0.05 * span));
        assert_true(log_dist(t, n, lo) <= 0.2 * span && log_dist(t, n, hi) <= 0.2 * span);
    }
    /* near the top of the doubles the shown range is not computed by
     * overflowing (once: floor(log10(inf)) cast to int) */
    size_t n = sbw_plot_tics_log(1e306, 1.5e308, 0.05, t);
    assert_true(n >= 2 && isfinite(t[n - 1]));
    assert_int_equal(sbw_plot_tics_log(1, 1000, 0.05, t), 0); /* gnuplot's powers of ten */
    assert_int_equal(sbw_plot_tics_log(0, 10, 0.05, t), 0);
    assert_int_equal(sbw_plot_tics_log(4.9406564584124654e-324, 1.5e-323, 0.05, t) >= 2, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spectrum_draws_sbw_rank_columns),
        cmocka_unit_test(test_alpha_draws_sbw_info_tables),
        cmocka_unit_test(test_mean_sd_matches_gsl),
        cmocka_unit_test(test_text_escapes_for_tex_and_quotes),
        cmocka_unit_test(test_gp_literals_and_comments_hold_any_bytes),
        cmocka_unit_test(test_gp_code_takes_numbers_only),
        cmocka_unit_test(test_check_refuses_what_cannot_be_drawn),
        cmocka_unit_test(test_data_file_reads_back_exactly),
        cmocka_unit_test(test_monotone_draws_map_tsv),
        cmocka_unit_test(test_monotone_refuses_missing_or_bad_maps),
        cmocka_unit_test(test_kind_errors),
        cmocka_unit_test(test_style_head_by_first_word),
        cmocka_unit_test(test_style_same_head_any_order),
        cmocka_unit_test(test_tics_thin_keeps_apart),
        cmocka_unit_test(test_tics_log_label_the_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
