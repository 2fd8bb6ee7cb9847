/* sbw-verify: the papers' properties and theorems checked numerically on
 * generated matrices, one line per claim and setting, PASS or FAIL; exit 0
 * only when every claim passes.  The checks are verify/sbw_verify*.c. */
#include "sbw.h"
#include "sbw_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {"claim",    "result", "quantity", "measured",
                                      "relation", "limit",  "setting"};

static const char details[] =
    "Runs each claim of the softmax-bottleneck papers on generated matrices (several\n"
    "sizes and seeds), fitted heads and spectra, and prints one row per claim and\n"
    "setting: the quantity measured, its value, the relation it must satisfy against\n"
    "a limit (a tolerance scaled by eps and the magnitudes, or a bound), and PASS or\n"
    "FAIL.  Exit status 0 only when every selected claim passes (1 otherwise).\n\n"
    "Claims (--list prints them with their sources and what would make them fail):\n"
    "  property1 property2 proposition1 corollary1   MoS (Yang et al. 2018)\n"
    "  moc                                            MoS section 2.5\n"
    "  mixtape                                        Mixtape (Yang et al. 2019)\n"
    "  theorem1 theorem5 theorem6 theorem2            LMS (Ganea et al. 2019)\n"
    "  monotone model-rank                            heads and the rank's eps\n"
    "  argmax-monotone argmax-mos                     unargmaxable words (issue 17)\n"
    "  hidden-size                                    hidden size from outputs (Carlini\n"
    "                                                 et al. 2024)\n\n"
    "--sizes quick (the default, under 2 minutes on 2 cores) or full (larger\n"
    "matrices, more samples and dimensions; --full is the same).  --seed S changes\n"
    "every generated matrix (each row names the seed derived for its setting).\n"
    "--json prints one JSON object per claim, one per line.  --report FILE writes a\n"
    "markdown report: the command, the seed, each claim's statement, source, what\n"
    "would make it fail, and every setting (--report -: the report on stdout\n"
    "and the table on stderr; stdout carries one stream).\n\n"
    "Examples:\n"
    "  sbw-verify\n"
    "  sbw-verify --only property2,theorem6 --seed 7\n"
    "  sbw-verify --full --report verify.md\n";

typedef struct verify_args {
    bool full, list;
    const char *only, *sizes, *report;
    FILE *table; /* stdout, or stderr when --report - */
} verify_args;

static int list_claims(const sbw_cli_common *c)
{
    static const char *const cols[] = {"claim", "source", "statement", "fails_when", "broken_by"};
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-verify", c, false);
    if (st)
        return st;
    sbw_table_columns(t, cols, 5);
    for (size_t i = 0; i < sbw_verify_nclaims; i++) {
        const sbw_verify_claim *k = &sbw_verify_claims[i];
        sbw_table_add_row(t);
        sbw_table_set_str(t, "claim", k->name);
        sbw_table_set_str(t, "source", k->source);
        sbw_table_set_str(t, "statement", k->statement);
        sbw_table_set_str(t, "fails_when", k->fails);
        sbw_table_set_str(t, "broken_by", k->breaks);
    }
    st = sbw_table_print(t, stdout, c->json); /* the first failure, if any */
    sbw_table_free(t);
    return st;
}

/* The result rows (of one claim when claim).  Errors: the table's (sticky). */
static int add_rows(sbw_table *t, const sbw_verify_list *l, const char *claim)
{
    sbw_table_columns(t, columns, sizeof columns / sizeof *columns);
    for (size_t i = 0; i < l->n; i++) {
        const sbw_verify_result *r = &l->r[i];
        if (claim && strcmp(r->claim, claim) != 0)
            continue;
        sbw_table_add_row(t);
        sbw_table_set_str(t, "claim", r->claim);
        sbw_table_set_str(t, "result", r->pass ? "PASS" : "FAIL");
        sbw_table_set_str(t, "quantity", r->quantity);
        sbw_table_set_dbl(t, "measured", r->value);
        sbw_table_set_str(t, "relation", sbw_verify_rel_name(r->rel));
        sbw_table_set_dbl(t, "limit", r->limit);
        sbw_table_set_str(t, "setting", r->setting);
    }
    return sbw_table_status(t);
}

/* The run's settings and counts as meta.  Errors: the table's (sticky). */
static int add_meta(sbw_table *t, const verify_args *a, size_t pass, size_t fail, double secs)
{
    sbw_table_meta_str(t, "sizes", a->sizes);
    sbw_table_meta_str(t, "only", a->only ? a->only : "");
    sbw_table_meta_int(t, "claims_passed", (long long)pass);
    sbw_table_meta_int(t, "claims_failed", (long long)fail);
    sbw_table_meta_dbl(t, "seconds", secs);
    return sbw_table_status(t);
}

/* TSV: one table of every row.  JSON: one object per claim, one per line. */
static int print_results(const sbw_cli_common *c, const verify_args *a, const bool *sel,
                         const sbw_verify_list *l, size_t pass, size_t fail, double secs)
{
    int st = SBW_OK;
    for (size_t i = 0; i < sbw_verify_nclaims && !st; i++) {
        const sbw_verify_claim *k = &sbw_verify_claims[i];
        if (c->json ? !sel[i] : i > 0)
            continue;
        sbw_table *t = NULL;
        if ((st = sbw_table_alloc(&t, "sbw-verify", c, true)) != 0)
            break;
        add_meta(t, a, pass, fail, secs);
        if (c->json) {
            sbw_table_meta_str(t, "claim", k->name);
            sbw_table_meta_str(t, "statement", k->statement);
            sbw_table_meta_str(t, "source", k->source);
            sbw_table_meta_str(t, "fails_when", k->fails);
            sbw_table_meta_str(t, "claim_result",
                               sbw_verify_claim_passed(l, k->name) ? "PASS" : "FAIL");
        }
        add_rows(t, l, c->json ? k->name : NULL);
        st = sbw_table_print(t, a->table, c->json); /* the first failure, if any */
        sbw_table_free(t);
    }
    return st;
}

/* A markdown table cell: '|' escaped, newlines flattened. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void md_claim(FILE *f, const sbw_verify_claim *k, const sbw_verify_list *l)
{
    fprintf(f, "\n## %s: %s\n\n", k->name, sbw_verify_claim_passed(l, k->name) ? "PASS" : "FAIL");
    fprintf(f, "- Claim: %s.\n- Source: %s.\n- Fails when: %s.\n- Broken in the tests by: %s.\n\n",
            k->statement, k->source, k->fails, k->breaks);
    fputs("| setting | quantity | measured | test | result |\n|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < l->n; i++) {
        const sbw_verify_result *r = &l->r[i];
        if (strcmp(r->claim, k->name) != 0)
            continue;
        fputs("| ", f);
        md_cell(f, r->setting);
        fputs(" | ", f);
        md_cell(f, r->quantity);
        fprintf(f, " | %.6g | %s %.6g | %s |\n", r->value, sbw_verify_rel_name(r->rel), r->limit,
                r->pass ? "PASS" : "FAIL");
    }
}

static int write_report(const char *path, const sbw_cli_common *c, const verify_args *a,
                        const bool *sel, const sbw_verify_list *l, size_t pass, size_t fail)
{
    sbw_file out;
    int st = sbw_file_create(&out, path);
    if (st)
        return st;
    FILE *f = out.fp;
    fprintf(f,
            "# sbw-verify report\n\n- Command: `%s`\n- Seed: %llu (each row names the seed "
            "derived for its setting)\n- Sizes: %s\n- sbw %s, %s, %d threads\n- Result: %zu "
            "of %zu claims pass\n\n",
            c->cmdline, (unsigned long long)c->seed, a->sizes, SBW_CLI_VERSION, sbw_cli_blas(),
            sbw_cli_threads(c->threads), pass, pass + fail);
    fputs("| claim | source | settings | result |\n|---|---|---|---|\n", f);
    for (size_t i = 0; i < sbw_verify_nclaims; i++) {
        const sbw_verify_claim *k = &sbw_verify_claims[i];
        size_t n = 0;
        for (size_t j = 0; j < l->n; j++)
            n += strcmp(l->r[j].claim, k->name) == 0;
        if (sel[i])
            fprintf(f, "| %s | %s | %zu | %s |\n", k->name, k->source, n,
                    sbw_verify_claim_passed(l, k->name) ? "PASS" : "FAIL");
    }
    for (size_t i = 0; i < sbw_verify_nclaims; i++)
        if (sel[i])
            md_claim(f, &sbw_verify_claims[i], l);
    if (ferror(f)) {
        sbw_file_abort(&out);
        return SBW_ERROR(SBW_EIO, "%s: write failed", path);
    }
    return sbw_file_commit(&out);
}

static int run_all(const sbw_cli_common *c, const verify_args *a, const bool *sel,
                   sbw_verify_list *l, size_t *pass, size_t *fail)
{
    sbw_verify_opts o;
    sbw_verify_opts_init(&o);
    o.seed = c->seed, o.full = a->full, o.threads = (int)c->threads;
    size_t nsel = 0;
    for (size_t i = 0; i < sbw_verify_nclaims; i++)
        nsel += sel[i];
    sbw_progress p;
    sbw_progress_start(&p, "sbw-verify", "claims", (double)nsel, c->quiet);
    int st = SBW_OK;
    *pass = *fail = 0;
    for (size_t i = 0; i < sbw_verify_nclaims && !st; i++) {
        if (!sel[i])
            continue;
        st = sbw_verify_run(&sbw_verify_claims[i], &o, l, &p);
        if (!st && sbw_verify_claim_passed(l, sbw_verify_claims[i].name))
            ++*pass;
        else if (!st)
            ++*fail;
    }
    sbw_progress_finish(&p);
    return st;
}

static int validate(const sbw_cli *cli, verify_args *a, bool *sel)
{
    if (strcmp(a->sizes, "full") == 0)
        a->full = true;
    else if (strcmp(a->sizes, "quick") != 0)
        return sbw_cli_usage_error(cli, "unknown --sizes '%s'; valid sizes: quick, full", a->sizes);
    if (a->full)
        a->sizes = "full";
    if (sbw_verify_select(a->only, sel))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    return SBW_EXIT_OK;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    verify_args a = {.sizes = "quick"};
    const sbw_cli_opt opts[] = {
        {"--full", NULL, SBW_ARG_FLAG, &a.full, 0, 0, "larger sizes (= --sizes full)"},
        {"--sizes", "S", SBW_ARG_STRING, &a.sizes, 0, 0, "quick (default) or full"},
        {"--only", "NAMES", SBW_ARG_STRING, &a.only, 0, 0, "comma list of claims to run"},
        {"--list", NULL, SBW_ARG_FLAG, &a.list, 0, 0, "list the claims and exit"},
        {"--report", "FILE", SBW_ARG_STRING, &a.report, 0, 0, "write a markdown report"},
        {0}};
    const sbw_cli cli = {"sbw-verify",
                         "",
                         "Check the softmax-bottleneck papers' claims numerically.",
                         details,
                         opts,
                         0,
                         0,
                         SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED};
    sbw_cli_common c;
    bool sel[64] = {0};
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if ((st = validate(&cli, &a, sel)) != 0)
        return st;
    if (a.list)
        return list_claims(&c) ? sbw_cli_fail("sbw-verify", SBW_EIO) : SBW_EXIT_OK;
    const sbw_cli_stream data[] = {{"--report", a.report}};
    if ((st = sbw_cli_one_stream(&cli, data, 1, NULL, NULL, &a.table)) != 0)
        return st;
    const sbw_preflight_out out[] = {{"the table (stdout)", a.table == stderr ? NULL : "-", false},
                                     {"--report", a.report, false}};
    if ((st = sbw_preflight(NULL, 0, out, 2)) != 0)
        return sbw_cli_fail("sbw-verify", st);
    sbw_error_gsl_quiet();
    sbw_cli_threads(c.threads);
    sbw_verify_list l = {0};
    size_t pass = 0, fail = 0;
    double t0 = sbw_progress_now();
    st = run_all(&c, &a, sel, &l, &pass, &fail);
    st = st ? st : print_results(&c, &a, sel, &l, pass, fail, sbw_progress_now() - t0);
    if (!st && a.report)
        st = write_report(a.report, &c, &a, sel, &l, pass, fail);
    sbw_verify_list_free(&l);
    if (st)
        return sbw_cli_fail("sbw-verify", st);
    return fail ? SBW_EXIT_DATA : SBW_EXIT_OK;
}
