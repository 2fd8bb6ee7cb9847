/* test_preflight.c -- the output preflight: an output that is an input
 * (every spelling of the same file), two outputs that are one file,
 * uncreatable paths; pipes and devices pass; nothing is ever created. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_preflight.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX], in[PATH_MAX + 16];

static void assert_reason(const char *part)
{
    if (!strstr(sbw_error_reason(), part))
        fail_msg("reason '%s' lacks '%s'", sbw_error_reason(), part);
}

/* Entries in the test directory: no check may add one. */
static int entries(void)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", sbw_test_path("pf"));
    if (mkdir(dir, 0777) != 0)
        return -1;
    snprintf(in, sizeof in, "%s/P.npy", dir);
    FILE *f = fopen(in, "w");
    if (!f)
        return -1;
    fputs("ground truth", f);
    return fclose(f);
}

static int one(const char *input, const char *opt, const char *path, bool is_dir)
{
    const char *ins[] = {input};
    sbw_preflight_out o = {opt, path, is_dir};
    return sbw_preflight(ins, 1, &o, 1);
}

static void test_output_is_input(void **state)
{
    (void)state;
    char p[2 * PATH_MAX];
    int before = entries();
    assert_int_equal(one(in, "-o", in, false), SBW_EINVAL);
    assert_reason("-o is the input");
    snprintf(p, sizeof p, "%s/./P.npy", dir);
    assert_int_equal(one(in, "-o", p, false), SBW_EINVAL);
    snprintf(p, sizeof p, "%s/../pf/P.npy", dir);
    assert_int_equal(one(in, "--log", p, false), SBW_EINVAL);
    snprintf(p, sizeof p, "%s/hard.npy", dir);
    assert_int_equal(link(in, p), 0);
    assert_int_equal(one(in, "-o", p, false), SBW_EINVAL);
    assert_int_equal(one(p, "-o", in, false), SBW_EINVAL);
    unlink(p);
    snprintf(p, sizeof p, "%s/sym.npy", dir);
    assert_int_equal(symlink("P.npy", p), 0);
    assert_int_equal(one(in, "-o", p, false), SBW_EINVAL);
    unlink(p);
    assert_int_equal(one(in, "--save", in, true), SBW_EINVAL); /* a file given as a directory */
    /* relative spellings, from inside the directory */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(one("P.npy", "-o", "./P.npy", false), SBW_EINVAL);
    assert_int_equal(one(in, "-o", "P.npy", false), SBW_EINVAL);
    SBW_ASSERT_OK(one("P.npy", "-o", "Q.npy", false));
    assert_int_equal(chdir(cwd), 0);
    /* stdin and stdout are not files */
    SBW_ASSERT_OK(one("-", "-o", "-", false));
    assert_int_equal(entries(), before);
}

static void test_outputs_collide(void **state)
{
    (void)state;
    char a[2 * PATH_MAX], b[2 * PATH_MAX];
    snprintf(a, sizeof a, "%s/Q.npy", dir);
    snprintf(b, sizeof b, "%s/./Q.npy", dir);
    int before = entries();
    const char *ins[] = {in, NULL};
    sbw_preflight_out o[] = {{"-o", a, false}, {"--probs", b, false}};
    assert_int_equal(sbw_preflight(ins, 2, o, 2), SBW_EINVAL);
    assert_reason("-o and --probs name the same file");
    o[0].path = o[1].path = "-";
    assert_int_equal(sbw_preflight(ins, 2, o, 2), SBW_EINVAL);
    assert_reason("stdout");
    o[0].path = o[1].path = "/dev/null"; /* a device is written twice happily */
    SBW_ASSERT_OK(sbw_preflight(ins, 2, o, 2));
    o[0].path = a, o[1].path = NULL; /* an option not given */
    SBW_ASSERT_OK(sbw_preflight(ins, 2, o, 2));
    sbw_preflight_out d[] = {{"--save", a, true}, {"--checkpoint", b, true}};
    assert_int_equal(sbw_preflight(ins, 1, d, 2), SBW_EINVAL);
    assert_int_equal(entries(), before);
}

static void test_uncreatable(void **state)
{
    (void)state;
    char p[2 * PATH_MAX];
    assert_int_equal(one(in, "-o", "/nonexistent/dir/Q.npy", false), SBW_EIO);
    assert_reason("/nonexistent/dir/Q.npy: cannot create -o there: /nonexistent/dir");
    assert_int_equal(one(in, "--save", "/nonexistent/dir/params", true), SBW_EIO);
    assert_int_equal(one(in, "-o", dir, false), SBW_EIO);
    assert_reason("it is a directory");
    snprintf(p, sizeof p, "%s/sub", in); /* a path through a regular file */
    assert_int_equal(one(in, "-o", p, false), SBW_EIO);
    snprintf(p, sizeof p, "%s/params", dir); /* one level is created by the tool */
    SBW_ASSERT_OK(one(in, "--save", p, true));
    SBW_ASSERT_OK(one(in, "--save", dir, true));
    SBW_ASSERT_OK(one(in, "-o", "/dev/null", false));
    if (geteuid() != 0) { /* root may write anywhere */
        snprintf(p, sizeof p, "%s/ro", dir);
        assert_int_equal(mkdir(p, 0555), 0);
        snprintf(p, sizeof p, "%s/ro/Q.npy", dir);
        assert_int_equal(one(in, "-o", p, false), SBW_EIO);
        assert_reason("Permission denied");
        snprintf(p, sizeof p, "%s/ro", dir);
        rmdir(p);
    }
}

/* The memory limit: the machine's physical memory from sysconf, or
 * SBW_MAX_MEMORY (binary suffixes, "any"); a bad value is a usage error
 * that quotes it (escaped); a refusal names the size and the override. */
static void test_memory_limit(void **state)
{
    (void)state;
    double lim;
    unsetenv("SBW_MAX_MEMORY");
    SBW_ASSERT_OK(sbw_preflight_memory_limit(&lim));
    SBW_ASSERT_EQ(lim, (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE));
    SBW_ASSERT_OK(sbw_preflight_memory(lim, "exactly the memory"));
    assert_int_equal(sbw_preflight_memory(2 * lim, "twice the memory"), SBW_ENOMEM);
    assert_non_null(strstr(sbw_error_reason(), "twice the memory needs "));
    assert_non_null(strstr(sbw_error_reason(), "this machine's"));
    assert_non_null(strstr(sbw_error_reason(), "SBW_MAX_MEMORY=any"));
    const struct {
        const char *env;
        double want;
    } ok[] = {{"1000", 1000},
              {"512K", 524288},
              {"1.5M", 1572864},
              {"2G", 2147483648.0},
              {"1T", 1099511627776.0}};
    for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
        setenv("SBW_MAX_MEMORY", ok[k].env, 1);
        SBW_ASSERT_OK(sbw_preflight_memory_limit(&lim));
        SBW_ASSERT_EQ(lim, ok[k].want);
        SBW_ASSERT_OK(sbw_preflight_memory(ok[k].want, "at the limit"));
        assert_int_equal(sbw_preflight_memory(ok[k].want + 1, "one byte more"), SBW_ENOMEM);
        assert_non_null(strstr(sbw_error_reason(), "SBW_MAX_MEMORY's"));
    }
    setenv("SBW_MAX_MEMORY", "any", 1);
    SBW_ASSERT_OK(sbw_preflight_memory(1e30, "anything"));
    const char *bad[] = {"", "0", "-1G", "12Q", "1GB", "lots", "1e400", "G", "\033[31m"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        setenv("SBW_MAX_MEMORY", bad[k], 1);
        assert_int_equal(sbw_preflight_memory(1.0, "x"), SBW_EINVAL);
        assert_non_null(strstr(sbw_error_reason(), "SBW_MAX_MEMORY must be a size"));
        assert_null(strchr(sbw_error_reason(), '\033'));
    }
    unsetenv("SBW_MAX_MEMORY");
}

/* sbw_preflight_same: a file and a symbolic or hard link to it are one; a
 * name not yet created is the same through a linked folder; two files are
 * not; pipes never.  sbw_preflight_split: folder and last component. */
static void test_same_and_split(void **state)
{
    (void)state;
    char sym[PATH_MAX + 16], hard[PATH_MAX + 16], dsym[PATH_MAX + 16], a[2 * PATH_MAX],
        b[2 * PATH_MAX], other[PATH_MAX + 16];
    snprintf(sym, sizeof sym, "%s/sym", dir);
    snprintf(hard, sizeof hard, "%s/hard", dir);
    snprintf(dsym, sizeof dsym, "%s.lnk", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    assert_int_equal(symlink(in, sym), 0);
    assert_int_equal(link(in, hard), 0);
    assert_int_equal(symlink(dir, dsym), 0);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fclose(f);
    assert_true(sbw_preflight_same(in, sym));
    assert_true(sbw_preflight_same(hard, in));
    snprintf(a, sizeof a, "%s/new.tsv", dir);
    snprintf(b, sizeof b, "%s/new.tsv", dsym);
    assert_true(sbw_preflight_same(a, b));
    snprintf(b, sizeof b, "%s/./new.tsv/", dsym);
    assert_true(sbw_preflight_same(a, b));
    assert_false(sbw_preflight_same(in, other));
    assert_false(sbw_preflight_same(in, a));
    assert_false(sbw_preflight_same("/dev/null", "/dev/null"));
    static const char *const cases[][3] = {{"a/b/c", "a/b", "c"},
                                           {"c", ".", "c"},
                                           {"/x", "/", "x"},
                                           {"a/b//", "a", "b"},
                                           {"/a/b", "/a", "b"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char d[64], base[64];
        sbw_preflight_split(cases[i][0], d, sizeof d, base, sizeof base);
        assert_string_equal(d, cases[i][1]);
        assert_string_equal(base, cases[i][2]);
    }
    unlink(sym);
    unlink(hard);
    unlink(dsym);
    unlink(other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_is_input), cmocka_unit_test(test_outputs_collide),
        cmocka_unit_test(test_uncreatable),     cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_same_and_split),
    };
    return cmocka_run_group_tests_name("preflight", tests, setup, NULL);
}
