/* test_file_stale.c -- the temporaries a killed writer leaves beside an
 * output (".NAME.tmp.PID.XXXXXX"): sbw_file_create of NAME removes those
 * whose process is gone, and nothing else -- not its own, not another live
 * process's, not a name that differs from the pattern by one character,
 * not a folder. */
#include "sbw_test.h"

#include "sbw_file.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* The id of a process that has ended and been reaped (checked: no process
 * has it now). */
static long dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(kill(pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    return (long)pid;
}

/* Creates the regular file dir/name (empty); its path in buf. */
static void touch(const char *dir, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", dir, name);
    FILE *f = fopen(buf, "w");
    assert_non_null(f);
    fclose(f);
}

static void fresh_dir(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", sbw_test_path(name));
    assert_int_equal(mkdir(buf, 0777), 0);
}

/* Writes "x" to path through sbw_file and commits it. */
static void write_x(const char *path)
{
    sbw_file f;
    SBW_ASSERT_OK(sbw_file_create(&f, path));
    SBW_ASSERT_OK(sbw_file_write(&f, "x", 1));
    SBW_ASSERT_OK(sbw_file_commit(&f));
    assert_true(exists(path));
}

enum { KEPT = 10 };

static void test_dead_writers_temporary_removed(void **state)
{
    (void)state;
    char dir[512], out[600], stale[1024], kept[KEPT][1024], name[300];
    fresh_dir("stale", dir, sizeof dir);
    long dead = dead_pid(), self = (long)getpid(), parent = (long)getppid();
    snprintf(name, sizeof name, ".out.npy.tmp.%ld.AbC123", dead);
    touch(dir, name, stale, sizeof stale);
    /* ours, a live process's, and names one step off the pattern */
    const char *fmt[KEPT] = {".out.npy.tmp.%ld.XyZ789",  ".out.npy.tmp.%ld.Qq1234",
                             ".out.npy.tmp.%ld.AbC12",   ".out.npy.tmp.%ld.AbC1234",
                             ".out.npy.tmp.%ld.AbC12-",  ".other.npy.tmp.%ld.AbC123",
                             "out.npy.tmp.%ld.AbC123",   ".out.npy.tmp.0%ld.AbC123",
                             ".out.npy.tmp.%ld.AbC123~", ".out.npy.tmp.%ldx.AbC123"};
    for (int i = 0; i < KEPT; i++) {
        snprintf(name, sizeof name, fmt[i], i == 0 ? self : i == 1 ? parent : dead);
        touch(dir, name, kept[i], sizeof kept[i]);
    }
    char sub[1024]; /* a folder named as a stale temporary is not a file */
    snprintf(sub, sizeof sub, "%s/.out.npy.tmp.%ld.Dir123", dir, dead);
    assert_int_equal(mkdir(sub, 0777), 0);
    snprintf(out, sizeof out, "%s/out.npy", dir);
    write_x(out);
    assert_false(exists(stale));
    for (int i = 0; i < KEPT; i++)
        if (!exists(kept[i]))
            fail_msg("%s was removed", kept[i]);
    assert_true(exists(sub));
}

/* The temporary's name carries this process's id; with a name cut to fit
 * NAME_MAX, the leftovers of the same cut name are found too. */
static void test_pid_in_name_and_cut_names(void **state)
{
    (void)state;
    char dir[512], out[1024], base[NAME_MAX + 1], want[64];
    fresh_dir("stale_cut", dir, sizeof dir);
    snprintf(out, sizeof out, "%s/short.npy", dir);
    sbw_file f;
    SBW_ASSERT_OK(sbw_file_create(&f, out));
    snprintf(want, sizeof want, ".short.npy.tmp.%ld.", (long)getpid());
    const char *tb = strrchr(f.tmp, '/') + 1;
    assert_memory_equal(tb, want, strlen(want));
    SBW_ASSERT_EQ(strlen(tb), strlen(want) + 6);
    sbw_file_abort(&f);

    memset(base, 'q', NAME_MAX);
    base[NAME_MAX] = '\0';
    snprintf(out, sizeof out, "%s/%s", dir, base);
    SBW_ASSERT_OK(sbw_file_create(&f, out));
    tb = strrchr(f.tmp, '/') + 1;
    const char *at = strstr(tb, ".tmp.");
    assert_non_null(at);
    char stale[1024], name[NAME_MAX + 1];
    snprintf(name, sizeof name, "%.*s.tmp.%ld.zzzzzz", (int)(at - tb), tb, dead_pid());
    SBW_ASSERT_LE(strlen(name), (size_t)NAME_MAX);
    touch(dir, name, stale, sizeof stale);
    sbw_file_abort(&f);
    write_x(out);
    assert_false(exists(stale));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dead_writers_temporary_removed),
        cmocka_unit_test(test_pid_in_name_and_cut_names),
    };
    return cmocka_run_group_tests_name("file_stale", tests, NULL, NULL);
}
