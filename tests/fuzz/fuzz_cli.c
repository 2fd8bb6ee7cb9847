/* fuzz_cli.c -- the option and number parsers of core/sbw_cli on fuzzed
 * text: sbw_cli_parse on an argv cut from the input at NUL bytes (a tool's
 * table with one option of every type and range, the common options, 1 to
 * 3 positional arguments), and each piece through sbw_cli_parse_size,
 * _long, _double, _u64 and _size_list.
 *
 * Properties: a number accepted lies in the range asked and, re-parsed
 * from the string, is the same; a rejected one leaves a reason; a list
 * accepted has n >= 1 entries; a parse that goes on has 1 to 3 positional
 * arguments, each one of the argv strings, and the given[] flags only for
 * options of the table.
 */
#include "fuzz_util.h"

#include "sbw_cli.h"
#include "sbw_error.h"

#include <math.h>

#define MAX_ARGS 32

/* Set by libFuzzer (never by the replay): then lists that may expand to
 * a million entries or more (a 6-digit number, an exponent) are not
 * parsed: they are allowed (up to 1e7 entries) and correct, but take up
 * to a second each under the sanitizers and would cut the run rate a
 * hundredfold.  The replay parses every list of the corpus. */
static bool under_libfuzzer;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    under_libfuzzer = true;
    return 0;
}

static bool long_list(const char *s)
{
    size_t run = 0;
    for (; *s; s++) {
        if (*s == 'e' || *s == 'E')
            return true;
        run = *s >= '0' && *s <= '9' ? run + 1 : 0;
        if (run >= 6)
            return true;
    }
    return false;
}

static void check_numbers(const char *s)
{
    size_t z;
    long l;
    double d;
    uint64_t u;
    if (sbw_cli_parse_size(s, "--n", 1, 1e6, &z) == SBW_OK)
        FUZZ_REQUIRE(z >= 1 && z <= 1000000);
    else
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
    if (sbw_cli_parse_size(s, "--any", 1, 0, &z) != SBW_OK)
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
    if (sbw_cli_parse_long(s, "--l", -5, 5, &l) == SBW_OK)
        FUZZ_REQUIRE(l >= -5 && l <= 5);
    if (sbw_cli_parse_long(s, "--l", 1, 0, &l) != SBW_OK)
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
    if (sbw_cli_parse_double(s, "--x", -1, 1e300, &d) == SBW_OK)
        FUZZ_REQUIRE(isfinite(d) && d >= -1 && d <= 1e300);
    if (sbw_cli_parse_double(s, "--x", 1, 0, &d) == SBW_OK)
        FUZZ_REQUIRE(isfinite(d));
    if (sbw_cli_parse_u64(s, "--seed", &u) == SBW_OK) {
        uint64_t again = 0;
        FUZZ_REQUIRE(sbw_cli_parse_u64(s, "--seed", &again) == SBW_OK && again == u);
    }
    size_t *list = NULL, n = 0;
    if (under_libfuzzer && long_list(s))
        return;
    if (sbw_cli_parse_size_list(s, "--d", &list, &n) == SBW_OK)
        FUZZ_REQUIRE(n >= 1 && list != NULL);
    else
        FUZZ_REQUIRE(list == NULL || n == 0);
    free(list);
}

static void check_parse(char **argv, int argc)
{
    static bool flag;
    static size_t size;
    static long lng;
    static double dbl;
    static const char *str;
    static uint64_t u64;
    const sbw_cli_opt opts[] = {
        {"--flag", NULL, SBW_ARG_FLAG, &flag, 0, 0, "a flag"},
        {"--n", "N", SBW_ARG_SIZE, &size, 1, 1e9, "a size"},
        {"--l", "L", SBW_ARG_LONG, &lng, -10, 10, "a long"},
        {"--x", "X", SBW_ARG_DOUBLE, &dbl, 1, 0, "a double, no range"},
        {"--s", "S", SBW_ARG_STRING, &str, 0, 0, "a string"},
        {"--u", "U", SBW_ARG_U64, &u64, 0, 0, "a u64"},
        {0},
    };
    const sbw_cli cli = {
        "sbw-fuzz", "FILE...",
        "fuzzing",  "details",
        opts,       1,
        3,          SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED};
    flag = false, size = 0, lng = 0, dbl = 0, str = NULL, u64 = 0; /* nothing from the last run */
    sbw_cli_common c;
    char *orig[MAX_ARGS + 2]; /* the parser moves positionals to the front of argv */
    memcpy(orig, argv, (size_t)(argc + 1) * sizeof *argv);
    int st = sbw_cli_parse(&cli, argc, argv, &c);
    if (st != 0)
        return;
    FUZZ_REQUIRE(c.nargs >= 1 && c.nargs <= 3);
    for (int i = 0; i < c.nargs; i++) {
        int found = 0;
        for (int k = 1; k < argc; k++)
            found |= c.args[i] == orig[k];
        FUZZ_REQUIRE(found);
    }
    FUZZ_REQUIRE(size == 0 || (size >= 1 && size <= 1000000000));
    FUZZ_REQUIRE(lng >= -10 && lng <= 10);
    FUZZ_REQUIRE(isfinite(dbl));
    FUZZ_REQUIRE(c.threads >= 0 && c.threads <= 4096);
    FUZZ_REQUIRE(!sbw_cli_given(&cli, &c, "--no-such-option"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1), *argv[MAX_ARGS + 2];
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    int argc = 0;
    argv[argc++] = (char *)"sbw-fuzz";
    for (char *p = copy; p <= copy + size && argc <= MAX_ARGS; p += strlen(p) + 1) {
        argv[argc++] = p;
        check_numbers(p);
    }
    argv[argc] = NULL;
    check_parse(argv, argc);
    free(copy);
    return 0;
}
