/* test_cli_stream.c -- the one-stream rule (sbw_cli_one_stream): stdout
 * carries at most one stream; a data stream there sends the table to
 * stderr; two claims on stdout are a usage error naming both options. */
#include "sbw_test.h"

#include "sbw_cli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const sbw_cli cli = {"sbw-test", "FILE", "test", "", NULL, 0, 1, 0};

/* Runs the rule with stderr captured into msg; returns its result. */
static int rule(const sbw_cli_stream *d, size_t n, const char *topt, const char *tpath,
                FILE **table, char *msg, size_t cap)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *cap_f = tmpfile();
    assert_non_null(cap_f);
    dup2(fileno(cap_f), STDERR_FILENO);
    int r = sbw_cli_one_stream(&cli, d, n, topt, tpath, table);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(cap_f);
    msg[0] = '\0';
    if (!fgets(msg, (int)cap, cap_f))
        msg[0] = '\0';
    fclose(cap_f);
    return r;
}

static void test_table_follows_the_data(void **state)
{
    (void)state;
    char msg[512];
    FILE *t = NULL;
    sbw_cli_stream none[] = {{"--matrix", NULL}, {"--probs", "p.npy"}};
    SBW_ASSERT_EQ(rule(none, 2, NULL, NULL, &t, msg, sizeof msg), 0);
    assert_ptr_equal(t, stdout);
    SBW_ASSERT_EQ(strlen(msg), 0);
    sbw_cli_stream one[] = {{"--matrix", "-"}, {"--probs", "p.npy"}};
    SBW_ASSERT_EQ(rule(one, 2, NULL, NULL, &t, msg, sizeof msg), 0);
    assert_ptr_equal(t, stderr);
    t = NULL; /* the table to a file: no conflict, and no stream asked for */
    SBW_ASSERT_EQ(rule(one, 2, "-o", "table.tsv", &t, msg, sizeof msg), 0);
    assert_ptr_equal(t, stderr);
    SBW_ASSERT_EQ(rule(none, 2, "-o", "-", &t, msg, sizeof msg), 0);
    assert_ptr_equal(t, stdout);
}

static void test_two_claims_refused(void **state)
{
    (void)state;
    char msg[512];
    FILE *t = NULL;
    sbw_cli_stream two[] = {{"-o", "-"}, {"--log", "f.tsv"}, {"--probs", "-"}};
    SBW_ASSERT_EQ(rule(two, 3, NULL, NULL, &t, msg, sizeof msg), SBW_EXIT_USAGE);
    assert_non_null(strstr(msg, "sbw-test: -o - and --probs - both claim stdout, the same stream"));
    sbw_cli_stream one[] = {{"--per-row", "-"}};
    SBW_ASSERT_EQ(rule(one, 1, "-o", "-", &t, msg, sizeof msg), SBW_EXIT_USAGE);
    assert_non_null(strstr(msg, "--per-row - and -o - (the table) both claim stdout"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_follows_the_data),
        cmocka_unit_test(test_two_claims_refused),
    };
    return cmocka_run_group_tests_name("cli_stream", tests, NULL, NULL);
}
