/* sbw_signal.c -- signal handlers: temporaries removed on SIGINT/SIGTERM/
 * SIGHUP, a graceful first stop for long runs, SIGBUS in a mapped read. */
#include "sbw_signal.h"

#include "sbw_error.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *volatile tool_name;
static volatile sig_atomic_t graceful, stop_flag;
static void (*_Atomic cleanup_fn)(void); /* sbw_signal_set_cleanup's */

void sbw_signal_set_cleanup(void (*fn)(void)) { atomic_store(&cleanup_fn, fn); }

/* The registered cleanup, if any (from a handler: fn is async-signal-safe). */
static void run_cleanup(void)
{
    void (*fn)(void) = atomic_load(&cleanup_fn);
    if (fn)
        fn();
}

/* Writes s to stderr from a handler (write(2) only). */
static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

/* Dies of sig by its default action.  The caller has sig blocked (inside
 * its handler, or held): it is raised pending, then unblocked in this
 * thread only, so it is taken here and now. */
static void die_of(int sig)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

/* Removes every temporary, then dies of sig (blocked in this thread). */
static void clean_and_die(int sig)
{
    run_cleanup();
    die_of(sig);
}

static void on_stop(int sig)
{
    if (graceful && !stop_flag && sig != SIGPIPE) {
        stop_flag = sig;
        return;
    }
    clean_and_die(sig);
}

/* ---- mapped views and SIGBUS -------------------------------------------- */

enum { MAP_MAX = 256, MAP_FREE = 0, MAP_BUSY, MAP_LIVE };

static struct map_slot {
    atomic_int state;
    uintptr_t lo, hi;    /* [lo, hi) */
    char path[PATH_MAX]; /* escaped when the view is added: a handler prints it */
} maps[MAP_MAX];

static const char *mapped_path(uintptr_t a)
{
    for (int i = 0; i < MAP_MAX; i++)
        if (atomic_load(&maps[i].state) == MAP_LIVE && a >= maps[i].lo && a < maps[i].hi)
            return maps[i].path;
    return NULL;
}

static void on_bus(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    const char *path = si && si->si_code > 0 ? mapped_path((uintptr_t)si->si_addr) : NULL;
    if (!path) {
        die_of(sig); /* not ours: a real bus error */
        return;
    }
    say(tool_name ? tool_name : "sbw");
    say(": ");
    say(path);
    say(": truncated while reading (the file shrank while it was mapped)\n");
    run_cleanup();
    _exit(1);
}

static void install_bus(void)
{
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done))
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask); /* no stop signal inside it: one cleanup per thread */
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaddset(&sa.sa_mask, SIGPIPE);
    sigaction(SIGBUS, &sa, NULL);
}

int sbw_signal_map_add(const void *addr, size_t len, const char *path)
{
    install_bus();
    for (int i = 0; i < MAP_MAX; i++) {
        int expect = MAP_FREE;
        if (!atomic_compare_exchange_strong(&maps[i].state, &expect, MAP_BUSY))
            continue;
        maps[i].lo = (uintptr_t)addr;
        maps[i].hi = (uintptr_t)addr + len;
        sbw_error_escape(path ? path : "", maps[i].path, sizeof maps[i].path);
        atomic_store(&maps[i].state, MAP_LIVE);
        return i + 1;
    }
    return 0;
}

void sbw_signal_map_remove(int slot)
{
    if (slot > 0 && slot <= MAP_MAX)
        atomic_store(&maps[slot - 1].state, MAP_FREE);
}

/* ---- installation ------------------------------------------------------- */

static void catch_stop(int sig)
{
    struct sigaction sa, old;
    if ((sig == SIGHUP || sig == SIGPIPE) && sigaction(sig, NULL, &old) == 0 &&
        old.sa_handler == SIG_IGN)
        return; /* nohup, or a caller that wants EPIPE: keep ignoring it */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sigaction(sig, &sa, NULL);
}

void sbw_signal_install(const char *tool)
{
    tool_name = tool;
    static atomic_flag done = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&done))
        return;
    catch_stop(SIGINT);
    catch_stop(SIGTERM);
    catch_stop(SIGHUP);
    catch_stop(SIGPIPE);
    install_bus();
}

volatile sig_atomic_t *sbw_signal_graceful(void)
{
    sbw_signal_install(tool_name);
    graceful = 1;
    return &stop_flag;
}

void sbw_signal_graceful_end(void)
{
    graceful = 0;
    int sig = stop_flag; /* a stop the run no longer polls: take it now */
    if (sig) {
        sigset_t old; /* no handler on this thread during the cleanup */
        sbw_signal_hold(&old);
        clean_and_die(sig);
    }
}

void sbw_signal_child(void)
{
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) != 0 || sa.sa_handler != on_stop)
            continue; /* ignored or default already */
        sa.sa_handler = SIG_DFL;
        sigaction(sigs[i], &sa, NULL);
    }
}

void sbw_signal_hold(sigset_t *old)
{
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, old);
}

void sbw_signal_release(const sigset_t *old) { pthread_sigmask(SIG_SETMASK, old, NULL); }

void sbw_signal_test_point(const char *point)
{
    static atomic_flag fired = ATOMIC_FLAG_INIT;
    const char *want = getenv("SBW_TEST_STOP");
    if (want && strcmp(want, point) == 0 && !atomic_flag_test_and_set(&fired)) {
        raise(SIGSTOP);
        /* A signal sent while stopped may be taken by another thread: give
         * it time to act before this one goes on (and, say, commits). */
        struct timespec pause_for = {0, 200000000};
        nanosleep(&pause_for, NULL);
    }
}
