/* sbw-plot: figures from the tools' tables, through gnuplot.  It writes
 * the data it draws, an editable gnuplot script and the figure; it
 * computes nothing (plots/ sees core/ only). */
#include "sbw.h"
#include "sbw_plot_gp.h"
#include "sbw_plot_kind.h"
#include "sbw_plot_ref.h"
#include "sbw_plot_run.h"
#include "sbw_plot_sel.h"
#include "sbw_plot_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
    "KIND is one of:\n"
    "  spectrum SPEC.tsv...   sbw-rank --spectrum tables: MoS Figure 1's cumulative\n"
    "                         percentage of normalised singular values (their normalised\n"
    "                         and cum_pct columns), and sigma by index on a log axis with each\n"
    "                         matrix's NR threshold when --rank gives sbw-rank's tables\n"
    "  sweep RESULTS.tsv...   a metric (--y, default mode_match or kl_mean) against D,\n"
    "                         one line per head (--series, default model), one panel per\n"
    "                         M (--panel, default m); rows of equal keys are seeds: mean\n"
    "                         with sd error bars (LMS Figures 2, 3, 6-8; --where alpha=0.1)\n"
    "  alpha SYNTH.tsv...     sbw-synth dirichlet tables, with --sorted and --entropy\n"
    "                         naming sbw-info's --sorted and --per-row tables of each\n"
    "                         language (in the same order): the sorted probabilities\n"
    "                         of a row on log axes, and row entropy (mean +- sd over\n"
    "                         the first --rows rows) against alpha (LMS Figure 5)\n"
    "  bound BOUND.tsv        an sbw-bound table: LMS Theorem 1 and the shift-aware bound\n"
    "                         against d; --fits FILE,... adds fit_error points (rows with\n"
    "                         d and fit_error, one series per model)\n"
    "  train LOG.tsv...       --log tables of sbw-fit (kl_mean, mode_match) or sbw-lm (loss,\n"
    "                         valid_ppl) against step (--x epoch, --y COL,COL), one line\n"
    "                         per run, one panel per column\n"
    "  monotone DIR...        sbw-fit --save or sbw-lm eval --export folders of lms, plif\n"
    "                         or mos+plif heads: the learned f(x) (LMS Figure 4) from\n"
    "                         each folder's map.tsv (f evaluated by the head's kernels\n"
    "                         on a grid when the head was saved), with the identity\n"
    "  rank-k TABLE.tsv...    rank and perplexity (or KL) against K, one line per model\n"
    "                         (MoS Table 7 as a figure)\n"
    "  table TABLE.tsv...     not a figure: a markdown table of the TSVs' columns with\n"
    "                         the command of every source (sbw-plot table --help)\n\n"
    "Writes NAME.dat (the numbers drawn, one block per series), NAME.gp (a gnuplot\n"
    "script that redraws the figure by itself: edit it and run `gnuplot NAME.gp`) and\n"
    "the figure: NAME.png (pngcairo), NAME.pdf (pdfcairo), NAME.svg, or with --format\n"
    "tex NAME.tex + NAME.pdf (cairolatex: \\input{NAME.tex} in a LaTeX paper).  They\n"
    "appear together or not at all.  --size is pixels for png and svg, inches for pdf\n"
    "and tex (default per panel 600x420 or 3.6x2.6).  Inputs are any tables with '# '\n"
    "header lines and a column-name line; --x, --y, --series, --panel name columns,\n"
    "--where COL=VALUE,... keeps matching rows.  sbw-plot selects and reshapes; the\n"
    "means and sds over seeds (sweep, rank-k, alpha) are the only arithmetic.  A\n"
    "value is a finite number or nan (not measured: left out); inf is an error.\n"
    "Every string in NAME.gp (file names, titles, labels, table values, the command)\n"
    "is a quoted literal or a comment, so running it never runs anything else; -o\n"
    "NAME may begin with '-' (then `gnuplot ./NAME.gp`), not with '<' or '|'.  Long\n"
    "legend entries wrap.\n\n";

/* The figures-for-papers part of --help (one literal would pass C's 4095). */
static const char paper_details[] =
    "Every figure draws a head in the same colour and marker (Softmax, MoS, MoC,\n"
    "Sigsoftmax, LMS, PLIF, Mixtape): a series whose legend's first word names one\n"
    "('softmax', 'MoS K=4', 'lms-k3') gets that head's style, whatever the order of\n"
    "the series; other series get colours and markers no head uses.  Reference lines\n"
    "go on every panel (or --ref-panels 2,3): --line 1:1 draws y = x + 1 (Softmax's\n"
    "rank D + 1 against D), --hline 0.5 a constant, --vline 10 a vertical line (the\n"
    "rank d* of a language); ':LABEL' after the numbers names it in the legend\n"
    "(--vline '10:d* = 10').  --y A,B draws one panel per column; --logy-of A puts\n"
    "a log y axis on A's panels only.  Tics are as many as the panel's size can\n"
    "label without overlap (--size 300x200 gets fewer).  A title says what each\n"
    "point averages ('mean ± sd over 3 seeds', or 'one seed', with no sd), also\n"
    "under --title.  A series with one point (a run of one epoch) is drawn as a\n"
    "point, a line of at most 40 points (per-epoch values) with its markers.\n"
    "spectrum --norm sigma1: for a language model's log P, whose sigma_0\n"
    "(the rows' common offset) dwarfs the rest so that every other sigma/sigma_0\n"
    "is near 0, the cumulative curve against sigma_j/sigma_1 with sigma_0 left out\n"
    "(the axis says so); or draw the centred spectrum (sbw-rank --center).  NAME.dat\n"
    "holds exactly the numbers drawn (after --norm too); reference lines are\n"
    "numbers in NAME.gp.\n\n"
    "Examples:\n"
    "  sbw-rank --spectrum s.tsv P.npy > r.tsv; sbw-plot spectrum s.tsv --rank r.tsv -o spec\n"
    "  sbw-plot sweep results.tsv --where alpha=0.01 --y kl_mean --logy -o fig3\n"
    "  sbw-plot sweep fits.tsv --y kl_mean,rank --logy-of kl_mean --line 1:1 \\\n"
    "      --vline '10:d* = 10' --ref-panels 2 -o bottleneck\n"
    "  sbw-plot spectrum lm.tsv --norm sigma1 -o fig1\n"
    "  sbw-plot bound bound.tsv --fits fits.tsv --format pdf -o bound\n"
    "  sbw-plot train fit1.log fit2.log --labels softmax,mos -o curves\n"
    "  sbw-synth dirichlet --n 1000 --m 300 --alpha 0.1 -o p.npy > p.tsv\n"
    "  sbw-info --per-row h.tsv --sorted s.tsv p.npy\n"
    "  sbw-plot alpha p.tsv --entropy h.tsv --sorted s.tsv -o alpha\n";

typedef struct plot_opts {
    const char *format, *size, *title, *xrange;
    bool logx, logy;
    sbw_plot_kind_args a;
    sbw_plot_ref_args ref;
} plot_opts;

static int parse_size(const char *s, sbw_plot_fig_opts *o)
{
    char *x;
    double w = s ? strtod(s, &x) : 0, h = 0;
    if (s && (*x != 'x' && *x != ','))
        return SBW_ERROR(SBW_EINVAL, "--size: '%s' is not WxH", s);
    if (s) {
        char *end;
        h = strtod(x + 1, &end);
        if (*end || !(w > 0) || !(h > 0) || w > 1e5 || h > 1e5)
            return SBW_ERROR(SBW_EINVAL, "--size: '%s' is not WxH with positive sizes", s);
    }
    o->width = w;
    o->height = h;
    return SBW_OK;
}

static int parse_xrange(const char *s, sbw_plot_kind_args *a)
{
    a->xmin = a->xmax = NAN;
    if (!s)
        return SBW_OK;
    char *c, *end;
    a->xmin = strtod(s, &c);
    if (*c != ':' || (a->xmax = strtod(c + 1, &end), *end) || !(a->xmin < a->xmax) ||
        !isfinite(a->xmin) || !isfinite(a->xmax))
        return SBW_ERROR(SBW_EINVAL, "--xrange: '%s' is not A:B with finite A < B", s);
    return SBW_OK;
}

/* The name's last component is written into the script as a string (and
 * by cairolatex into NAME.tex as LaTeX): it must read back exactly there.
 * Errors: SBW_EINVAL. */
static int check_name(const char *name, sbw_plot_fig_format fmt)
{
    const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
    if (!sbw_plot_gp_str_exact(base))
        return SBW_ERROR(SBW_EINVAL,
                         "-o %s: the name has a control, invisible or non-UTF-8 character, "
                         "which its gnuplot script could not name",
                         name);
    if (*base == '<' || *base == '|')
        return SBW_ERROR(SBW_EINVAL,
                         "-o %s: to gnuplot a name beginning with %c is a pipe (`gnuplot %s.gp` "
                         "would run it): give another name",
                         name, *base, base);
    if (fmt == SBW_PLOT_TEX && base[strcspn(base, "\\{}%#$&^~")])
        return SBW_ERROR(SBW_EINVAL,
                         "-o %s: --format tex puts the name into LaTeX (\\includegraphics): "
                         "give one without \\ { } %% # $ & ^ ~",
                         name);
    return SBW_OK;
}

/* Option values the parser cannot check, and the name: usage errors. */
static int validate(const sbw_cli *cli, plot_opts *p, sbw_plot_fig_opts *o, const sbw_cli_common *c)
{
    if (!sbw_plot_kind_known(c->args[0]))
        return sbw_cli_usage_error(cli, "unknown kind '%s' (kinds: %s)", c->args[0],
                                   sbw_plot_kind_names());
    if (c->nargs < 2)
        return sbw_cli_usage_error(cli, "%s: no input given", c->args[0]);
    if (!c->output || !*c->output || sbw_file_is_std(c->output))
        return sbw_cli_usage_error(cli, "-o NAME is required (a file name without extension)");
    if (sbw_plot_fig_format_parse(p->format, &o->format) || parse_size(p->size, o) ||
        parse_xrange(p->xrange, &p->a))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (sbw_plot_ref_check(&p->ref))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (p->a.norm && strcmp(p->a.norm, "sigma0") != 0 && strcmp(p->a.norm, "sigma1") != 0)
        return sbw_cli_usage_error(cli, "--norm: '%s' is not sigma0 or sigma1", p->a.norm);
    if (p->a.norm && strcmp(c->args[0], "spectrum") != 0)
        return sbw_cli_usage_error(cli, "--norm is the spectrum kind's (not %s's)", c->args[0]);
    if (check_name(c->output, o->format))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    o->title = p->title;
    o->logx = p->logx;
    o->logy = p->logy;
    o->command = c->cmdline;
    return SBW_EXIT_OK;
}

/* Every input file (the positional ones, --rank, --fits, --entropy,
 * --sorted) against every output: none may be an input; each must be
 * creatable. */
static int preflight(const plot_opts *p, const sbw_plot_fig_opts *o, const char *name)
{
    const char *lists[] = {p->a.rank, p->a.fits, p->a.entropy, p->a.sorted};
    enum { NL = sizeof lists / sizeof *lists };
    char **v[NL] = {0}, *outs[5] = {0};
    size_t nv[NL] = {0}, no = 0, total = p->a.ninputs;
    int st = SBW_OK;
    for (size_t k = 0; k < NL && !st; k++) {
        st = sbw_plot_sel_split(lists[k], &v[k], &nv[k]);
        total += nv[k];
    }
    st = st ? st : sbw_plot_run_outputs(name, o->format, outs, &no);
    const char **in = st ? NULL : malloc((total + 1) * sizeof *in);
    if (!st && !in)
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st) {
        size_t n = 0;
        for (size_t i = 0; i < p->a.ninputs; i++)
            in[n++] = p->a.inputs[i];
        for (size_t k = 0; k < NL; k++)
            for (size_t i = 0; i < nv[k]; i++)
                in[n++] = v[k][i];
        sbw_preflight_out po[5];
        for (size_t i = 0; i < no; i++)
            po[i] = (sbw_preflight_out){"-o", outs[i], false};
        st = sbw_preflight(in, n, po, no);
    }
    for (size_t k = 0; k < NL; k++)
        sbw_plot_sel_free_list(v[k], nv[k]);
    for (size_t i = 0; i < no; i++)
        free(outs[i]);
    free(in);
    return st;
}

/* -o NAME with a figure extension means the stem. */
static void strip_ext(char *name)
{
    static const char *const ext[] = {".png", ".pdf", ".svg", ".tex", ".gp", ".dat"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t m = strlen(ext[i]);
        if (n > m && !strcmp(name + n - m, ext[i])) {
            name[n - m] = '\0';
            return;
        }
    }
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    if (argc > 1 && strcmp(argv[1], "table") == 0) /* text, not a figure: its own options */
        return sbw_plot_table_main(argc - 1, argv + 1);
    plot_opts p = {.format = "png"};
    const sbw_cli_opt opts[] = {
        {"--format", "F", SBW_ARG_STRING, &p.format, 0, 0, "png, pdf, svg or tex"},
        {"--size", "WxH", SBW_ARG_STRING, &p.size, 0, 0, "figure size (px or inches)"},
        {"--title", "T", SBW_ARG_STRING, &p.title, 0, 0, "the figure's title"},
        {"--logx", NULL, SBW_ARG_FLAG, &p.logx, 0, 0, "log scale on every x axis"},
        {"--logy", NULL, SBW_ARG_FLAG, &p.logy, 0, 0, "log scale on every y axis"},
        {"--x", "COL", SBW_ARG_STRING, &p.a.x, 0, 0, "the x column"},
        {"--y", "COL,...", SBW_ARG_STRING, &p.a.y, 0, 0, "the y column(s): one panel each"},
        {"--series", "COL", SBW_ARG_STRING, &p.a.series, 0, 0, "one line per value of COL"},
        {"--panel", "COL", SBW_ARG_STRING, &p.a.panel, 0, 0, "one panel per value of COL"},
        {"--where", "COL=V,...", SBW_ARG_STRING, &p.a.where, 0, 0, "keep the matching rows"},
        {"--labels", "L,...", SBW_ARG_STRING, &p.a.labels, 0, 0, "legend text, one per input"},
        {"--rank", "FILE,...", SBW_ARG_STRING, &p.a.rank, 0, 0, "spectrum: sbw-rank tables"},
        {"--fits", "FILE,...", SBW_ARG_STRING, &p.a.fits, 0, 0, "bound: tables with fit_error"},
        {"--entropy", "FILE,...", SBW_ARG_STRING, &p.a.entropy, 0, 0,
         "alpha: sbw-info --per-row tables"},
        {"--sorted", "FILE,...", SBW_ARG_STRING, &p.a.sorted, 0, 0,
         "alpha: sbw-info --sorted tables"},
        {"--rows", "R", SBW_ARG_SIZE, &p.a.rows, 1, 1e7, "alpha: rows per language [20]"},
        {"--xrange", "A:B", SBW_ARG_STRING, &p.xrange, 0, 0, "x range (monotone)"},
        {"--logy-of", "COL,...", SBW_ARG_STRING, &p.a.logy_of, 0, 0,
         "log y axis on these --y columns' panels only"},
        {"--line", "A:B[:L]", SBW_ARG_STRING, &p.ref.line, 0, 0,
         "reference line y = A x + B (1:1: y = x + 1)"},
        {"--hline", "Y[:L]", SBW_ARG_STRING, &p.ref.hline, 0, 0, "reference line y = Y"},
        {"--vline", "X[:L]", SBW_ARG_STRING, &p.ref.vline, 0, 0,
         "vertical reference line at x = X (d*)"},
        {"--ref-panels", "I,...", SBW_ARG_STRING, &p.ref.panels, 0, 0,
         "the panels (1, 2, ...) that get them [all]"},
        {"--norm", "N", SBW_ARG_STRING, &p.a.norm, 0, 0,
         "spectrum: sigma0 (sbw-rank's) or sigma1 [sigma0]"},
        {0}};
    static char help[sizeof details + sizeof paper_details];
    snprintf(help, sizeof help, "%s%s", details, paper_details);
    const sbw_cli cli = {"sbw-plot",
                         "KIND INPUT... -o NAME",
                         "Figures from sbw's tables: data, an editable gnuplot script, the plot.",
                         help,
                         opts,
                         1,
                         1000,
                         SBW_CLI_OUTPUT};
    sbw_cli_common c;
    sbw_plot_fig_opts o = {0};
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if ((st = validate(&cli, &p, &o, &c)) != 0)
        return st;
    char *name = strdup(c.output);
    if (!name)
        return sbw_cli_fail("sbw-plot", SBW_ERROR(SBW_ENOMEM, "out of memory"));
    strip_ext(name);
    p.a.inputs = c.args + 1;
    p.a.ninputs = (size_t)c.nargs - 1;
    sbw_plot_fig *f = NULL;
    st = preflight(&p, &o, name);
    st = st ? st : sbw_plot_kind_build(c.args[0], &p.a, &f);
    st = st ? st : sbw_plot_ref_add(f, &p.ref, o.logx, o.logy);
    st = st ? st : sbw_plot_run(f, &o, name);
    if (!st && !c.quiet)
        fprintf(stderr, "sbw-plot: wrote %s.%s (%s.gp, %s.dat)\n", name,
                sbw_plot_fig_format_ext(o.format), name, name);
    sbw_plot_fig_free(f);
    free(name);
    return st ? sbw_cli_fail("sbw-plot", st) : SBW_EXIT_OK;
}
