/* test_signal.c -- the cleanup table, signals that remove temporaries,
 * the graceful stop, SIGBUS in a mapped read, temporary names near
 * NAME_MAX; the races of a signal taken on another thread (issue 16): an
 * entry being filled, an entry being emptied, two signals at once.  Signals are sent to forked
 * children (which end with _exit or the signal, never exit(): the test folder is removed by the
 * parent). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_npy.h"
#include "sbw_signal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* What a child's body is given; each body reads the fields it names. */
typedef struct child_args {
    const char *dir;  /* its folder (NULL when it writes none) */
    int sig;          /* the signal it sends itself */
    const char *name; /* body_bus: the mapped file's name */
    const char *err;  /* its stderr goes to this file (NULL: inherited) */
} child_args;

/* Forks a child (no core dumps) that runs body(a); the body ends with
 * _exit or a signal, never by returning (exit 91 if it does).  Returns
 * how the child ended: its exit status (0..255), or minus the number of
 * the signal that killed it, so a test asserts one value for each. */
static int run_child(void (*body)(const child_args *), const child_args *a)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        /* the defaults, whatever the suite inherited: sbw_signal_install
         * keeps an ignored SIGHUP or SIGPIPE ignored (nohup), so under
         * nohup the bodies that raise them would wait in pause() for ever;
         * a body that tests that rule ignores them itself */
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        if (a->err && !freopen(a->err, "w", stderr))
            _exit(90);
        body(a);
        _exit(91);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) || WIFSIGNALED(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/* Two temporaries open, then the signal a->sig. */
static void body_signal(const child_args *ca)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/big.npy", ca->dir);
    snprintf(b, sizeof b, "%s/probs.npy", ca->dir);
    sbw_signal_install("test_signal");
    sbw_file fa, fb;
    if (sbw_file_create(&fa, a) || sbw_file_create(&fb, b))
        _exit(92);
    kill(getpid(), ca->sig);
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
        child_args a = {.dir = dir, .sig = sigs[i]};
        /* dies of the signal: the shell says 128 + sig */
        SBW_ASSERT_EQ(run_child(body_signal, &a), -sigs[i]);
        SBW_ASSERT_EQ(count_temps(dir), 0);
        snprintf(big, sizeof big, "%s/big.npy", dir);
        assert_false(exists(big));
    }
}

/* The handler runs the registered cleanup (any module's, not only
 * sbw_file's), then dies of the signal. */
static char marker[600];
static void mark_cleanup(void)
{
    int fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0)
        close(fd);
}

static void body_registered(const child_args *ca)
{
    sbw_signal_install("test_signal");
    sbw_signal_set_cleanup(mark_cleanup);
    kill(getpid(), ca->sig);
    pause();
}

static void test_registered_cleanup_runs(void **state)
{
    (void)state;
    char dir[512];
    fresh_dir("registered", dir, sizeof dir);
    snprintf(marker, sizeof marker, "%s/cleaned", dir);
    child_args a = {.dir = dir, .sig = SIGTERM};
    SBW_ASSERT_EQ(run_child(body_registered, &a), -SIGTERM);
    assert_true(exists(marker));
}

/* Graceful: the first signal only sets the flag; leaving the graceful mode
 * with the flag set removes the temporary and dies of that signal. */
static void body_graceful(const child_args *ca)
{
    char a[600];
    snprintf(a, sizeof a, "%s/q.npy", ca->dir);
    sbw_signal_install("test_signal");
    volatile sig_atomic_t *stop = sbw_signal_graceful();
    kill(getpid(), ca->sig);
    if (*stop != ca->sig)
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
        child_args a = {.dir = dir, .sig = sigs[i]};
        SBW_ASSERT_EQ(run_child(body_graceful, &a), -sigs[i]);
        SBW_ASSERT_EQ(count_temps(dir), 0);
    }
}

/* A mapped view of the file a->name that then shrinks, with an output open. */
static void body_bus(const child_args *a)
{
    char in[600], out[600];
    snprintf(in, sizeof in, "%s/%s", a->dir, a->name);
    snprintf(out, sizeof out, "%s/K.npy", a->dir);
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

/* The child's stderr for a mapped file named name that shrinks: one line
 * (in line), exit 1, no temporary left. */
static void run_bus(const char *sub, const char *name, char *line, size_t cap)
{
    char dir[512], err[600];
    fresh_dir(sub, dir, sizeof dir);
    snprintf(err, sizeof err, "%s.err", dir);
    child_args a = {.dir = dir, .name = name, .err = err};
    SBW_ASSERT_EQ(run_child(body_bus, &a), 1);
    FILE *f = fopen(err, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, (int)cap, f));
    assert_null(fgets(line + strlen(line), (int)(cap - strlen(line)), f)); /* one line */
    fclose(f);
    SBW_ASSERT_EQ(count_temps(dir), 0);
}

static void test_sigbus_in_mapped_view(void **state)
{
    (void)state;
    char line[1024] = "";
    run_bus("bus", "P.npy", line, sizeof line);
    assert_non_null(strstr(line, "test_signal: "));
    assert_non_null(strstr(line, "/P.npy: truncated while reading"));
}

/* A file name with a newline and an escape character: the message stays
 * one line, those bytes written as \xNN (as every error reason). */
static void test_sigbus_name_escaped(void **state)
{
    (void)state;
    char line[1024] = "";
    run_bus("bus_ctl", "P\n\033x.npy", line, sizeof line);
    assert_non_null(strstr(line, "/P\\x0a\\x1bx.npy: truncated while reading"));
    assert_null(strchr(line, '\033'));
}

/* A SIGBUS that is not a mapped read keeps its default action. */
static void body_other_bus(const child_args *a)
{
    sbw_signal_install("test_signal");
    (void)sbw_signal_map_add(a, sizeof *a, "x"); /* installs the handler */
    raise(SIGBUS);
    _exit(94);
}

static void test_other_sigbus_default(void **state)
{
    (void)state;
    SBW_ASSERT_EQ(run_child(body_other_bus, &(child_args){0}), -SIGBUS);
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
    char tail[48];
    snprintf(tail, sizeof tail, ".tmp.%ld.XXXXXX", (long)getpid());
    size_t keep = strlen(tb) - strlen(tail) - 1, pid_digits = strlen(tail) - strlen(".tmp..XXXXXX");
    assert_memory_equal(tb + 1 + keep, tail, strlen(tail) - 6); /* ".tmp.PID." */
    /* room for any PID (10 digits): every process cuts a name alike */
    SBW_ASSERT_LE(strlen(tb) - pid_digits + 10, (size_t)NAME_MAX);
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
    const size_t lens[] = {10, 232, 233, 243, 244, 250, NAME_MAX};
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

/* ---- sbw_file_fit_name against a forward walk over the characters ------ */

/* Bytes of the UTF-8 character whose lead byte is c (1 for ASCII). */
static size_t char_len(unsigned char c)
{
    return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

/* The oracle for a valid UTF-8 name: the longest whole-character prefix
 * that fits room - extra, found by walking forward from the start. */
static size_t fit_oracle(const char *name, size_t room, size_t extra)
{
    size_t len = strlen(name), keep = 0;
    if (len + extra <= room)
        return len;
    while (keep < len && keep + char_len((unsigned char)name[keep]) + extra <= room)
        keep += char_len((unsigned char)name[keep]);
    return keep;
}

static void test_fit_name(void **state)
{
    (void)state;
    char dir[512], name[4 * NAME_MAX + 8];
    fresh_dir("fit", dir, sizeof dir);
    long pc = pathconf(dir, _PC_NAME_MAX);
    size_t room = pc > 0 ? (size_t)pc : NAME_MAX;
    const char *chars[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "a\xe2\x82\xac"};
    const size_t extras[] = {0, 1, 12, 13, 100, room - 1, room, room + 5};
    for (size_t c = 0; c < sizeof chars / sizeof *chars; c++)
        for (size_t reps = 1; reps * strlen(chars[c]) <= (size_t)3 * NAME_MAX; reps += 37) {
            name[0] = '\0';
            for (size_t r = 0; r < reps; r++)
                strcat(name, chars[c]);
            for (size_t e = 0; e < sizeof extras / sizeof *extras; e++) {
                size_t got = sbw_file_fit_name(dir, name, extras[e]);
                SBW_ASSERT_EQ(got, fit_oracle(name, room, extras[e]));
                if (extras[e] <= room)
                    SBW_ASSERT_LE(got + extras[e], room);
            }
        }
    /* not UTF-8: a run of continuation bytes is cut where it reaches the limit */
    memset(name, 0x80, 600);
    name[600] = '\0';
    SBW_ASSERT_EQ(sbw_file_fit_name(dir, name, 13), room - 13);
    SBW_ASSERT_EQ(sbw_file_fit_name(NULL, "short", 13), (size_t)5); /* "." */
}

/* ---- races with a signal taken on another thread ------------------------ */

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static atomic_int go, returned;

/* A worker that takes the stop signals (the caller holds them) and, once
 * go is set, sends SIGTERM to the whole process: as a kill from outside
 * that the kernel hands to an OpenMP worker. */
static void *send_term(void *arg)
{
    (void)arg;
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, NULL);
    while (!atomic_load(&go))
        nap_ms(1);
    kill(getpid(), SIGTERM);
    for (;;)
        pause();
    return NULL;
}

/* The file exists and its entry is still BUSY (created, not yet tracked:
 * the window of mkstemp and mkdtemp) when another thread takes SIGTERM. */
static void body_busy(const child_args *ca)
{
    char a[600];
    snprintf(a, sizeof a, "%s/.a.tmp.XXXXXX", ca->dir);
    sbw_signal_install("test_signal");
    sigset_t old;
    sbw_signal_hold(&old);
    pthread_t t;
    int slot;
    if (pthread_create(&t, NULL, send_term, NULL) || sbw_file_track_reserve(a, &slot))
        _exit(92);
    int fd = mkstemp(a);
    if (fd < 0)
        _exit(93);
    close(fd);
    atomic_store(&go, 1);
    for (int i = 0; i < 5000 && !sbw_file_dying(); i++)
        nap_ms(1);
    if (!sbw_file_dying())
        _exit(95);                                       /* the handler never ran */
    sbw_file_track_set(slot, SBW_FILE_TRACK_FILE, a, 0); /* the handler waited for this */
    for (;;)
        pause();
}

static void test_signal_waits_for_busy_slot(void **state)
{
    (void)state;
    char dir[512];
    fresh_dir("busy", dir, sizeof dir);
    atomic_store(&go, 0);
    SBW_ASSERT_EQ(run_child(body_busy, &(child_args){.dir = dir}), -SIGTERM);
    SBW_ASSERT_EQ(count_temps(dir), 0);
}

static int busy_slot;
static char busy_name[600];

static void *set_late(void *arg)
{
    (void)arg;
    while (!atomic_load(&go))
        nap_ms(1);
    sbw_file_track_set(busy_slot, SBW_FILE_TRACK_FILE, busy_name, 0);
    atomic_store(&returned, 1); /* must not happen: it waits for the end */
    return NULL;
}

static void *reserve_late(void *arg)
{
    (void)arg;
    int slot;
    (void)sbw_file_track_reserve("x", &slot);
    atomic_store(&returned, 2); /* must not happen either */
    return NULL;
}

/* A cleanup that ends the tool has run and given up waiting; only then is
 * the entry filled: set removes the file itself and never returns, and a
 * later reserve never returns.  Exit 0 when so, else a code saying what. */
static void body_set_after_dying(const child_args *a)
{
    snprintf(busy_name, sizeof busy_name, "%s/.b.tmp.1", a->dir);
    int fd = open(busy_name, O_CREAT | O_WRONLY, 0600);
    pthread_t t, u;
    if (fd < 0 || sbw_file_track_reserve(busy_name, &busy_slot) ||
        pthread_create(&t, NULL, set_late, NULL))
        _exit(92);
    close(fd);
    if (sbw_file_cleanup(true) != 0) /* the BUSY entry is waited for, not taken */
        _exit(93);
    atomic_store(&go, 1);
    for (int i = 0; i < 5000 && exists(busy_name); i++)
        nap_ms(1);
    if (exists(busy_name))
        _exit(94);
    if (pthread_create(&u, NULL, reserve_late, NULL))
        _exit(92);
    nap_ms(50);
    _exit(atomic_load(&returned) ? 95 + atomic_load(&returned) : 0);
}

static void test_set_after_dying(void **state)
{
    (void)state;
    char dir[512];
    fresh_dir("late", dir, sizeof dir);
    atomic_store(&go, 0);
    atomic_store(&returned, 0);
    SBW_ASSERT_EQ(run_child(body_set_after_dying, &(child_args){.dir = dir}), 0);
    SBW_ASSERT_EQ(count_temps(dir), 0);
}

static void *untrack_busy(void *arg)
{
    sbw_file_untrack(*(int *)arg);
    atomic_store(&returned, 1);
    return NULL;
}

/* untrack never takes an entry from whoever holds it BUSY (here its
 * filler; in the issue, a handler removing its file): it waits, then frees
 * the entry once it is LIVE. */
static void test_untrack_waits_for_busy(void **state)
{
    (void)state;
    int slot;
    pthread_t t;
    atomic_store(&returned, 0);
    SBW_ASSERT_OK(sbw_file_track_reserve("/nonexistent/u", &slot));
    assert_int_equal(pthread_create(&t, NULL, untrack_busy, &slot), 0);
    nap_ms(50);
    SBW_ASSERT_EQ(atomic_load(&returned), 0); /* still waiting */
    SBW_ASSERT_OK(sbw_file_track_set(slot, SBW_FILE_TRACK_FILE, "/nonexistent/u", 0));
    assert_int_equal(pthread_join(t, NULL), 0);
    SBW_ASSERT_EQ(atomic_load(&returned), 1);
    SBW_ASSERT_EQ(sbw_file_cleanup(false), 0); /* freed by the untrack */
    sbw_file_track_cancel(0);                  /* 0: a no-op */
}

/* A first cleanup (as sbw_signal_graceful_end makes) is under way when
 * another thread takes SIGTERM: that handler waits for the first to end
 * the tool instead of ending it itself.  Here the first "ends" it with
 * _exit(42), later than the second would have. */
static void body_second_waits(const child_args *ca)
{
    char a[600];
    snprintf(a, sizeof a, "%s/.c.tmp.1", ca->dir);
    sbw_signal_install("test_signal");
    sigset_t old;
    sbw_signal_hold(&old);
    pthread_t t;
    int slot;
    if (sbw_file_track(SBW_FILE_TRACK_FILE, a, 0, &slot) ||
        pthread_create(&t, NULL, send_term, NULL))
        _exit(92);
    if (sbw_file_cleanup(true) != 1)
        _exit(93);
    atomic_store(&go, 1);
    nap_ms(200);
    _exit(42);
}

static void test_second_cleanup_waits(void **state)
{
    (void)state;
    char dir[512];
    fresh_dir("second", dir, sizeof dir);
    atomic_store(&go, 0);
    /* 42, not -SIGTERM: the second handler waited */
    SBW_ASSERT_EQ(run_child(body_second_waits, &(child_args){.dir = dir}), 42);
}

/* sbw_signal_child: caught stop signals back to default, ignored ones
 * still ignored.  Exit 0 when so. */
static void body_child_reset(const child_args *a)
{
    (void)a;
    signal(SIGHUP, SIG_IGN); /* as under nohup */
    sbw_signal_install("test_signal");
    sbw_signal_child();
    struct sigaction in, hup, term;
    if (sigaction(SIGINT, NULL, &in) || sigaction(SIGHUP, NULL, &hup) ||
        sigaction(SIGTERM, NULL, &term))
        _exit(92);
    _exit(in.sa_handler == SIG_DFL && term.sa_handler == SIG_DFL && hup.sa_handler == SIG_IGN ? 0
                                                                                              : 93);
}

static void test_signal_child_reset(void **state)
{
    (void)state;
    SBW_ASSERT_EQ(run_child(body_child_reset, &(child_args){0}), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_track_and_cleanup),
        cmocka_unit_test(test_track_table_full),
        cmocka_unit_test(test_open_temporary_is_tracked),
        cmocka_unit_test(test_signal_removes_temporaries),
        cmocka_unit_test(test_registered_cleanup_runs),
        cmocka_unit_test(test_graceful_stop),
        cmocka_unit_test(test_sigbus_in_mapped_view),
        cmocka_unit_test(test_sigbus_name_escaped),
        cmocka_unit_test(test_other_sigbus_default),
        cmocka_unit_test(test_name_max),
        cmocka_unit_test(test_fit_name),
        cmocka_unit_test(test_signal_waits_for_busy_slot),
        cmocka_unit_test(test_set_after_dying),
        cmocka_unit_test(test_untrack_waits_for_busy),
        cmocka_unit_test(test_second_cleanup_waits),
        cmocka_unit_test(test_signal_child_reset),
    };
    return cmocka_run_group_tests_name("signal", tests, NULL, NULL);
}
