/* test_cli.c -- checked number parsing, lists, the option parser. */
#include "sbw_test.h"

#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_rng.h"

#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void test_parse_size(void **state)
{
    (void)state;
    size_t v;
    SBW_ASSERT_OK(sbw_cli_parse_size("10", "--n", 1, 0, &v));
    assert_int_equal(v, 10);
    SBW_ASSERT_OK(sbw_cli_parse_size("1e5", "--n", 1, 0, &v));
    assert_int_equal(v, 100000);
    const char *bad[] = {"-1", "1.5", "abc", "", "10x", " ", "1e400", "nan", "0x10"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        assert_int_equal(sbw_cli_parse_size(bad[k], "--n", 1, 0, &v), SBW_EINVAL);
        assert_non_null(strstr(sbw_error_reason(), "--n"));
    }
    assert_int_equal(sbw_cli_parse_size("0", "--n", 1, 100, &v), SBW_EINVAL);
    assert_int_equal(sbw_cli_parse_size("101", "--n", 1, 100, &v), SBW_EINVAL);
    SBW_ASSERT_OK(sbw_cli_parse_size("100", "--n", 1, 100, &v));
}

static void test_parse_double_long_u64(void **state)
{
    (void)state;
    double d;
    SBW_ASSERT_OK(sbw_cli_parse_double("1e-4", "--alpha", 1, 0, &d)); /* min > max: no range */
    assert_int_equal(sbw_cli_parse_double("1e-4", "--alpha", 1, 2, &d), SBW_EINVAL);
    SBW_ASSERT_OK(sbw_cli_parse_double("-2.5", "--x", 1, 0, &d));
    SBW_ASSERT_EQ(d, -2.5);
    const char *bad[] = {"nan", "inf", "-inf", "1e999", "", "1.0.0", "e5"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        assert_int_equal(sbw_cli_parse_double(bad[k], "--x", 1, 0, &d), SBW_EINVAL);
    SBW_ASSERT_OK(sbw_cli_parse_double("1e-320", "--x", 1, 0, &d)); /* subnormal is fine */
    long l;
    SBW_ASSERT_OK(sbw_cli_parse_long("-7", "--k", -10, 10, &l));
    assert_int_equal(l, -7);
    assert_int_equal(sbw_cli_parse_long("11", "--k", -10, 10, &l), SBW_EINVAL);
    uint64_t u;
    SBW_ASSERT_OK(sbw_cli_parse_u64("18446744073709551615", "--seed", &u));
    SBW_ASSERT_EQ(u, UINT64_MAX);
    assert_int_equal(sbw_cli_parse_u64("18446744073709551616", "--seed", &u), SBW_EINVAL);
    assert_int_equal(sbw_cli_parse_u64("-1", "--seed", &u), SBW_EINVAL);
    assert_int_equal(sbw_cli_parse_u64("12a", "--seed", &u), SBW_EINVAL);
}

static void test_parse_size_list(void **state)
{
    (void)state;
    size_t *v, n;
    SBW_ASSERT_OK(sbw_cli_parse_size_list("1,2,5:7,20:30:5", "--d", &v, &n));
    const size_t want[] = {1, 2, 5, 6, 7, 20, 25, 30};
    assert_int_equal(n, 8);
    for (size_t k = 0; k < n; k++)
        assert_int_equal(v[k], want[k]);
    free(v);
    const char *bad[] = {"", "1,,2", "5:3", "a", "1:2:0", "1,"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        assert_int_equal(sbw_cli_parse_size_list(bad[k], "--d", &v, &n), SBW_EINVAL);
    /* a zero step is blamed as the step, not as a value out of range */
    assert_int_equal(sbw_cli_parse_size_list("1:5:0", "--d", &v, &n), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "the step of range '1:5:0'"));
    assert_null(strstr(sbw_error_reason(), "must be in"));
}

/* ---- the parser --------------------------------------------------------- */

typedef struct fake_opts {
    size_t n;
    double alpha;
    bool flag;
    const char *model;
} fake_opts;

static int run_parse(fake_opts *o, sbw_cli_common *c, int argc, const char **args)
{
    const sbw_cli_opt opts[] = {
        {"--n", "N", SBW_ARG_SIZE, &o->n, 1, 1000, "contexts"},
        {"--alpha", "A", SBW_ARG_DOUBLE, &o->alpha, 1e-300, 1e300, "concentration"},
        {"--flag", NULL, SBW_ARG_FLAG, &o->flag, 1, 0, "a flag"},
        {"--model", "NAME", SBW_ARG_STRING, &o->model, 1, 0, "head"},
        {0}};
    const sbw_cli cli = {"sbw-fake",
                         "IN [OUT]",
                         "A fake tool.",
                         "Details.\n",
                         opts,
                         1,
                         2,
                         SBW_CLI_OUTPUT | SBW_CLI_SEED | SBW_CLI_THREADS};
    static char *argv[16]; /* c->args points into it after return */
    for (int k = 0; k < argc; k++)
        argv[k] = (char *)args[k];
    /* keep the test log clean: help and errors go to /dev/null */
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2), nul = open("/dev/null", O_WRONLY);
    dup2(nul, 1);
    dup2(nul, 2);
    int st = sbw_cli_parse(&cli, argc, argv, c);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    close(nul);
    return st;
}

static void test_parser_accepts(void **state)
{
    (void)state;
    fake_opts o = {.n = 5, .alpha = 1.0};
    sbw_cli_common c;
    const char *a[] = {"sbw-fake", "--n",    "1e2", "in.npy", "--alpha=0.5", "--flag", "-o",
                       "out.npy",  "--seed", "9",   "-q",     "--",          "-weird"};
    assert_int_equal(run_parse(&o, &c, 13, a), 0);
    assert_int_equal(o.n, 100);
    SBW_ASSERT_EQ(o.alpha, 0.5);
    assert_true(o.flag);
    assert_string_equal(c.output, "out.npy");
    SBW_ASSERT_EQ(c.seed, 9);
    assert_true(c.seed_given);
    assert_true(c.quiet);
    assert_int_equal(c.nargs, 2);
    assert_string_equal(c.args[0], "in.npy");
    assert_string_equal(c.args[1], "-weird");
    assert_non_null(strstr(c.cmdline, "--alpha=0.5"));
    /* which of the tool's options were given (opts order: n, alpha, flag, model) */
    assert_true(c.given[0] && c.given[1] && c.given[2] && !c.given[3]);
    fake_opts d = {.n = 5};
    const char *b[] = {"sbw-fake", "x"};
    assert_int_equal(run_parse(&d, &c, 2, b), 0);
    SBW_ASSERT_EQ(c.seed, SBW_RNG_DEFAULT_SEED);
    assert_true(!c.seed_given);
    assert_true(!c.json);
    assert_true(!c.given[0] && !c.given[1] && !c.given[2] && !c.given[3]);
}

static void test_parser_rejects(void **state)
{
    (void)state;
    fake_opts o = {0};
    sbw_cli_common c;
    const char *cases[][4] = {
        {"sbw-fake", "--bogus", "x", NULL},  {"sbw-fake", "x", "--n", NULL},
        {"sbw-fake", "--n", "0", "x"},       {"sbw-fake", "--n", "-3", "x"},
        {"sbw-fake", "--alpha", "nan", "x"}, {"sbw-fake", "--flag=1", "x", NULL},
        {"sbw-fake", NULL, NULL, NULL},      {"sbw-fake", "a", "b", "c"},
        {"sbw-fake", "--json", "x", NULL},   {"sbw-fake", "--threads", "-1", "x"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int argc = 0;
        while (argc < 4 && cases[k][argc])
            argc++;
        assert_int_equal(run_parse(&o, &c, argc, cases[k]), SBW_EXIT_USAGE);
    }
    const char *help[] = {"sbw-fake", "--help"}, *ver[] = {"sbw-fake", "x", "--version"};
    assert_int_equal(run_parse(&o, &c, 2, help), SBW_CLI_DONE);
    assert_int_equal(run_parse(&o, &c, 3, ver), SBW_CLI_DONE);
}

static void test_threads_and_blas(void **state)
{
    (void)state;
    assert_int_equal(sbw_cli_threads(1), 1);
    assert_int_equal(omp_get_max_threads(), 1);
    SBW_ASSERT_GE(sbw_cli_threads(0), 1);
    assert_non_null(strstr(sbw_cli_blas(), "OpenBLAS"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_size),      cmocka_unit_test(test_parse_double_long_u64),
        cmocka_unit_test(test_parse_size_list), cmocka_unit_test(test_parser_accepts),
        cmocka_unit_test(test_parser_rejects),  cmocka_unit_test(test_threads_and_blas),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
