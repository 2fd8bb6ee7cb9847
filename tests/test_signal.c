/* test_signal.c -- the cleanup table, signals that remove temporaries,
 * the graceful stop, SIGBUS in a mapped read, temporary names near
 * NAME_MAX.  Signals are sent to forked children (which end with _exit or
 * the signal, never exit(): the test folder is removed by the parent). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_npy.h"
#include "sbw_signal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Entries of folder dir whose name contains ".tmp." (temporaries). */
static int count_temps(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* A fresh sub-folder of the test folder; its path in buf. */
static void fresh_dir(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", sbw_test_path(name));
    assert_int_equal(mkdir(buf, 0777), 0);
}

static void test_track_and_cleanup(void **state)
{
    (void)state;
    char dir[512], a[600], sub[600];
    fresh_dir("track", dir, sizeof dir);
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    FILE *f = fopen(a, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(mkdir(sub, 0777), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    int s1, s2, s3, s4;
    SBW_ASSERT_OK(sbw_file_track(SBW_FILE_TRACK_DIR, sub, 0, &s1)); /* removed after the files */
    SBW_ASSERT_OK(sbw_file_track(SBW_FILE_TRACK_FILE, a, 0, &s2));
    SBW_ASSERT_OK(sbw_file_track(SBW_FILE_TRACK_CHILD, NULL, (long)child, &s3));
    SBW_ASSERT_OK(sbw_file_track(SBW_FILE_TRACK_FILE, "/nonexistent/x", 0, &s4));
    SBW_ASSERT_GT(s1, 0);
    SBW_ASSERT_NE(s1, s2);
    sbw_file_untrack(s4); /* forgotten: not counted below */
    SBW_ASSERT_EQ(sbw_file_cleanup(false), 3);
    assert_false(exists(a));
    assert_false(exists(sub));
    assert_int_equal(waitpid(child, NULL, WNOHANG), -1); /* killed and reaped already */
    assert_int_equal(errno, ECHILD);
    SBW_ASSERT_EQ(sbw_file_cleanup(false), 0); /* the table is empty again */
}

static void test_track_table_full(void **state)
{
    (void)state;
    int slots[SBW_FILE_TRACK_MAX], extra;
    for (int i = 0; i < SBW_FILE_TRACK_MAX; i++)
        SBW_ASSERT_OK(sbw_file_track(SBW_FILE_TRACK_FILE, "/nonexistent/x", 0, &slots[i]));
    assert_int_equal(sbw_file_track(SBW_FILE_TRACK_FILE, "/nonexistent/y", 0, &extra), SBW_EIO);
    SBW_ASSERT_EQ(extra, 0);
    char dir[512], out[600];
    fresh_dir("full", dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    sbw_file f;
    assert_int_equal(sbw_file_create(&f, out), SBW_EIO); /* refused rather than untracked */
    SBW_ASSERT_EQ(count_temps(dir), 0);
    for (int i = 0; i < SBW_FILE_TRACK_MAX; i++)
        sbw_file_untrack(slots[i]);
    SBW_ASSERT_OK(sbw_file_create(&f, out));
    SBW_ASSERT_OK(sbw_file_commit(&f));
    assert_true(exists(out));
    SBW_ASSERT_EQ(sbw_file_cleanup(false), 0); /* a committed file is no longer tracked */
    assert_true(exists(out));
}

static void test_open_temporary_is_tracked(void **state)
{
    (void)state;
    char dir[512], out[600];
    fresh_dir("open", dir, sizeof dir);
    snprintf(out, sizeof out, "%s/out.npy", dir);
    sbw_file f, g;
    SBW_ASSERT_OK(sbw_file_create(&f, out));
    SBW_ASSERT_OK(sbw_file_create(&g, "-")); /* stdout: nothing to track */
    SBW_ASSERT_EQ(g.slot, 0);
    SBW_ASSERT_EQ(count_temps(dir), 1);
    SBW_ASSERT_EQ(sbw_file_cleanup(false), 1);
    SBW_ASSERT_EQ(count_temps(dir), 0);
    assert_int_equal(sbw_file_commit(&f), SBW_EIO); /* its temporary is gone */
    assert_false(exists(out));
    SBW_ASSERT_OK(sbw_file_commit(&g));
}

/* Forks a child that runs body(dir) and returns its wait status. */
static int in_child(void (*body)(const char *), const char *dir, const char *errfile)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        if (errfile && !freopen(errfile, "w", stderr))
            _exit(90);
        body(dir);
        _exit(91); /* the body should not return */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static int child_sig; /* the signal the next child sends itself */

/* Two temporaries open, then a signal. */
static void body_signal(const char *dir)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/big.npy", dir);
    snprintf(b, sizeof b, "%s/probs.npy", dir);
    sbw_signal_install("test_signal");
    sbw_file fa, fb;
    if (sbw_file_create(&fa, a) || sbw_file_create(&fb, b))
        _exit(92);
    kill(getpid(), child_sig);
    pause();
}

static void test_signal_removes_temporaries(void **state)
{
    (void)state;
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        char dir[512], name[32], big[600];
        snprintf(name, sizeof name, "sig%d", sigs[i]);
        fresh_dir(name, dir, sizeof dir);
        child_sig = sigs[i];
        int st = in_child(body_signal, dir, NULL);
        assert_true(WIFSIGNALED(st)); /* dies of the signal: the shell says 128 + sig */
        SBW_ASSERT_EQ(WTERMSIG(st), sigs[i]);
        SBW_ASSERT_EQ(count_temps(dir), 0);
        snprintf(big, sizeof big, "%s/big.npy", dir);
        assert_false(exists(big));
    }
}

/* Graceful: the first signal only sets the flag; leaving the graceful mode
 * with the flag set removes the temporary and dies of that signal. */
static void body_graceful(const char *dir)
{
    char a[600];
    snprintf(a, sizeof a, "%s/q.npy", dir);
    sbw_signal_install("test_signal");
    volatile sig_atomic_t *stop = sbw_signal_graceful();
    kill(getpid(), child_sig);
    if (*stop != child_sig)
        _exit(93);
    sbw_file f;
    if (sbw_file_create(&f, a))
        _exit(92);
    sbw_signal_graceful_end();
    _exit(94);
}

static void test_graceful_stop(void **state)
{
    (void)state;
    const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < 2; i++) {
        char dir[512], name[32];
        snprintf(name, sizeof name, "grace%d", sigs[i]);
        fresh_dir(name, dir, sizeof dir);
        child_sig = sigs[i];
        int st = in_child(body_graceful, dir, NULL);
        assert_true(WIFSIGNALED(st));
        SBW_ASSERT_EQ(WTERMSIG(st), sigs[i]);
        SBW_ASSERT_EQ(count_temps(dir), 0);
    }
}

/* A mapped view of a file that then shrinks, with an output open. */
static void body_bus(const char *dir)
{
    char in[600], out[600];
    snprintf(in, sizeof in, "%s/P.npy", dir);
    snprintf(out, sizeof out, "%s/K.npy", dir);
    enum { R = 64, C = 512 }; /* 256 KB: the last row is pages past the header */
    static double rows[R * C];
    sbw_npy_writer *w;
    if (sbw_npy_create(&w, in, R, C, 2, SBW_F64) || sbw_npy_write_rows(w, rows, R, C) ||
        sbw_npy_finish(w))
        _exit(92);
    sbw_npy_reader *r;
    sbw_npy_view v;
    sbw_file f;
    if (sbw_npy_open(&r, in) || !sbw_npy_view_rows(r, 0, R, &v) || sbw_file_create(&f, out))
        _exit(93);
    sbw_signal_install("test_signal");
    if (truncate(in, 128) != 0)
        _exit(95);
    volatile double x = v.rows[(size_t)(R - 1) * C];
    (void)x;
    _exit(94); /* the read above must not succeed */
}

static void test_sigbus_in_mapped_view(void **state)
{
    (void)state;
    char dir[512], err[600], line[1024] = "";
    fresh_dir("bus", dir, sizeof dir);
    snprintf(err, sizeof err, "%s.err", dir);
    int st = in_child(body_bus, dir, err);
    assert_true(WIFEXITED(st));
    SBW_ASSERT_EQ(WEXITSTATUS(st), 1);
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_null(fgets(line + strlen(line), (int)(sizeof line - strlen(line)), f)); /* one line */
    fclose(f);
    assert_non_null(strstr(line, "test_signal: "));
    assert_non_null(strstr(line, "/P.npy: truncated while reading"));
    SBW_ASSERT_EQ(count_temps(dir), 0);
}

/* A SIGBUS that is not a mapped read keeps its default action. */
static void body_other_bus(const char *dir)
{
    (void)dir;
    sbw_signal_install("test_signal");
    (void)sbw_signal_map_add(&child_sig, sizeof child_sig, "x"); /* installs the handler */
    raise(SIGBUS);
    _exit(94);
}

static void test_other_sigbus_default(void **state)
{
    (void)state;
    int st = in_child(body_other_bus, NULL, NULL);
    assert_true(WIFSIGNALED(st));
    SBW_ASSERT_EQ(WTERMSIG(st), SIGBUS);
}

/* Output names near NAME_MAX: the temporary's name is cut to fit, at a
 * character boundary, and the final name is the one asked for. */
static void check_long_name(const char *dir, const char *base)
{
    char out[1024];
    snprintf(out, sizeof out, "%s/%s", dir, base);
    sbw_file f;
    SBW_ASSERT_OK(sbw_file_create(&f, out));
    const char *tb = strrchr(f.tmp, '/') + 1;
    SBW_ASSERT_LE(strlen(tb), (size_t)NAME_MAX);
    assert_int_equal(tb[0], '.');
    size_t keep = strlen(tb) - strlen(".tmp.XXXXXX") - 1;
    assert_memory_equal(tb + 1, base, keep); /* a prefix of the name */
    assert_true(keep == strlen(base) || ((unsigned char)base[keep] & 0xC0) != 0x80);
    SBW_ASSERT_OK(sbw_file_write(&f, "x", 1));
    SBW_ASSERT_OK(sbw_file_commit(&f));
    assert_true(exists(out));
    SBW_ASSERT_EQ(count_temps(dir), 0);
}

static void test_name_max(void **state)
{
    (void)state;
    char dir[512], base[NAME_MAX + 1];
    fresh_dir("long", dir, sizeof dir);
    const size_t lens[] = {10, 243, 244, 250, NAME_MAX};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        memset(base, 'a' + (int)i, lens[i]);
        base[lens[i]] = '\0';
        check_long_name(dir, base);
    }
    for (size_t i = 0; i + 2 <= 254; i += 2) /* 127 two-byte characters */
        memcpy(base + i, "\xc3\xa9", 2);
    base[254] = '\0';
    check_long_name(dir, base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_track_and_cleanup),
        cmocka_unit_test(test_track_table_full),
        cmocka_unit_test(test_open_temporary_is_tracked),
        cmocka_unit_test(test_signal_removes_temporaries),
        cmocka_unit_test(test_graceful_stop),
        cmocka_unit_test(test_sigbus_in_mapped_view),
        cmocka_unit_test(test_other_sigbus_default),
        cmocka_unit_test(test_name_max),
    };
    return cmocka_run_group_tests_name("signal", tests, NULL, NULL);
}
