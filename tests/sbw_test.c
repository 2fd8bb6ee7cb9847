/* sbw_test.c -- shared helpers for the cmocka suites. */
#include "sbw_test.h"

#include "sbw_error.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void sbw_test_close(const double *got, const double *want, size_t n, double atol, double rtol,
                    const char *what, const char *file, int line)
{
    size_t bad = n, worst = 0;
    double maxdiff = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs(got[i] - want[i]);
        bool same = got[i] == want[i] || (isnan(got[i]) && isnan(want[i]));
        if (!same && (isnan(d) || d > maxdiff)) {
            maxdiff = d;
            worst = i;
        }
        if (!same && !(d <= atol + rtol * fabs(want[i])) && bad == n)
            bad = i;
    }
    if (bad == n)
        return;
    print_error("%s: first mismatch at [%zu]: got %.17g, want %.17g (diff %.3g; tolerance "
                "%.3g + %.3g*|want|); largest diff %.3g at [%zu] of %zu\n",
                what, bad, got[bad], want[bad], fabs(got[bad] - want[bad]), atol, rtol, maxdiff,
                worst, n);
    _fail(file, line);
}

void sbw_test_grad_fd(sbw_test_objective f, void *ctx, double *x, const double *g, size_t n,
                      const char *file, int line)
{
    double *fd = calloc(n ? n : 1, sizeof *fd), h = 1e-6, gmax = 0;
    if (!fd) {
        print_error("sbw_test_grad_fd: out of memory for %zu differences\n", n);
        _fail(file, line);
        abort(); /* not reached: _fail leaves by longjmp; cmocka does not declare it noreturn */
    }
    for (size_t i = 0; i < n; i++) {
        double x0 = x[i];
        x[i] = x0 + h;
        double lp = f(ctx, x);
        x[i] = x0 - h;
        double lm = f(ctx, x);
        x[i] = x0;
        fd[i] = (lp - lm) / (2 * h);
        gmax = fabs(g[i]) > gmax ? fabs(g[i]) : gmax;
    }
    sbw_test_close(g, fd, n, 1e-7 * (1 + gmax), 1e-5, "gradient against central differences", file,
                   line);
    free(fd);
    if (!(gmax > 1e-3)) {
        print_error("gradient check: max|g| = %.3g is not above 1e-3 (vacuous)\n", gmax);
        _fail(file, line);
    }
}

static const char *op_text(enum sbw_test_op op)
{
    static const char *const text[] = {"<", "<=", ">", ">=", "==", "!="};
    return text[op];
}

/* One macro body for the three operand types: the C operators themselves. */
#define HOLDS(a, op, b)                                                                            \
    switch (op) {                                                                                  \
    case SBW_TEST_LT:                                                                              \
        return (a) < (b);                                                                          \
    case SBW_TEST_LE:                                                                              \
        return (a) <= (b);                                                                         \
    case SBW_TEST_GT:                                                                              \
        return (a) > (b);                                                                          \
    case SBW_TEST_GE:                                                                              \
        return (a) >= (b);                                                                         \
    case SBW_TEST_EQ:                                                                              \
        return (a) == (b);                                                                         \
    case SBW_TEST_NE:                                                                              \
        return (a) != (b);                                                                         \
    }                                                                                              \
    return false

bool sbw_test_holds_d(double a, enum sbw_test_op op, double b) { HOLDS(a, op, b); }

bool sbw_test_holds_i(long long a, enum sbw_test_op op, long long b) { HOLDS(a, op, b); }

bool sbw_test_holds_u(unsigned long long a, enum sbw_test_op op, unsigned long long b)
{
    HOLDS(a, op, b);
}

/* "expected A op B: A = va, B = vb" plus the caller's note. */
static int format_cmp(char *buf, size_t size, const char *a_text, enum sbw_test_op op,
                      const char *b_text, const char *va, const char *vb, const char *note)
{
    return snprintf(buf, size, "expected %s %s %s: %s = %s, %s = %s%s", a_text, op_text(op), b_text,
                    a_text, va, b_text, vb, note);
}

int sbw_test_format_d(char *buf, size_t size, double a, enum sbw_test_op op, double b,
                      const char *a_text, const char *b_text)
{
    char va[32], vb[32], note[48];
    snprintf(va, sizeof va, "%.17g", a);
    snprintf(vb, sizeof vb, "%.17g", b);
    snprintf(note, sizeof note, " (difference %.3g)", a - b);
    return format_cmp(buf, size, a_text, op, b_text, va, vb, note);
}

void sbw_test_cmp_d(double a, enum sbw_test_op op, double b, const char *a_text, const char *b_text,
                    const char *file, int line)
{
    char msg[1024];
    if (sbw_test_holds_d(a, op, b))
        return;
    sbw_test_format_d(msg, sizeof msg, a, op, b, a_text, b_text);
    print_error("%s\n", msg);
    _fail(file, line);
}

void sbw_test_cmp_i(long long a, enum sbw_test_op op, long long b, const char *a_text,
                    const char *b_text, const char *file, int line)
{
    char msg[1024], va[32], vb[32];
    if (sbw_test_holds_i(a, op, b))
        return;
    snprintf(va, sizeof va, "%lld", a);
    snprintf(vb, sizeof vb, "%lld", b);
    format_cmp(msg, sizeof msg, a_text, op, b_text, va, vb, "");
    print_error("%s\n", msg);
    _fail(file, line);
}

void sbw_test_cmp_u(unsigned long long a, enum sbw_test_op op, unsigned long long b,
                    const char *a_text, const char *b_text, const char *file, int line)
{
    char msg[1024], va[32], vb[32];
    if (sbw_test_holds_u(a, op, b))
        return;
    snprintf(va, sizeof va, "%llu", a);
    snprintf(vb, sizeof vb, "%llu", b);
    format_cmp(msg, sizeof msg, a_text, op, b_text, va, vb, "");
    print_error("%s\n", msg);
    _fail(file, line);
}

int sbw_test_format_abs(char *buf, size_t size, double x, bool strict, double tol,
                        const char *x_text, const char *tol_text)
{
    return snprintf(buf, size, "expected |%s| %s %s: %s = %.17g, |%s| = %.17g, %s = %.17g", x_text,
                    strict ? "<" : "<=", tol_text, x_text, x, x_text, fabs(x), tol_text, tol);
}

void sbw_test_abs(double x, bool strict, double tol, const char *x_text, const char *tol_text,
                  const char *file, int line)
{
    char msg[1024];
    if (strict ? fabs(x) < tol : fabs(x) <= tol)
        return;
    sbw_test_format_abs(msg, sizeof msg, x, strict, tol, x_text, tol_text);
    print_error("%s\n", msg);
    _fail(file, line);
}

_Noreturn void sbw_test_fail_status(int status, const char *what, const char *file, int line)
{
    print_error("%s returned %d (%s): %s [%s:%d]\n", what, status, sbw_error_string(status),
                sbw_error_reason(), sbw_error_file(), sbw_error_line());
    _fail(file, line);
    abort(); /* _fail leaves the test by longjmp; cmocka does not declare it noreturn */
}

static char tmpdir[256];

static void remove_tmpdir(void)
{
    char cmd[300];
    if (tmpdir[0] && strstr(tmpdir, "sbw-test-")) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "warning: could not remove %s\n", tmpdir);
    }
}

const char *sbw_test_path(const char *name)
{
    static char path[512];
    if (!tmpdir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/sbw-test-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(tmpdir)) {
            perror("mkdtemp");
            exit(1);
        }
        atexit(remove_tmpdir);
    }
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

const char *sbw_test_write(const char *name, const char *text, size_t len)
{
    static char path[4][512];
    static unsigned slot;
    char *p = path[slot++ % 4];
    snprintf(p, sizeof path[0], "%s", sbw_test_path(name));
    FILE *f = fopen(p, "wb");
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        print_error("cannot write %s: %s\n", p, strerror(errno));
        _fail(__FILE__, __LINE__);
    }
    return p;
}

const char *sbw_test_fixture(const char *name)
{
    static char path[512];
    const char *dir = getenv("SBW_FIXTURES");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/fixtures", name);
    return path;
}

struct sbw_test_feeder {
    char fifo[512];
    char src[512];
    size_t limit; /* bytes of src to send */
    size_t extra; /* bytes 'x' sent after them */
    int status;   /* 0, EPIPE or another errno value */
    pthread_t thread;
};

/* Writes n bytes to fd; 0, or errno (EPIPE: the reader has gone). */
static int write_all(int fd, const unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, buf, n);
        if (k < 0)
            return errno;
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Copies at most f->limit bytes of the open file in to fd, then f->extra
 * bytes 'x'; 0 or errno. */
static int copy_into(const sbw_test_feeder *f, FILE *in, int fd)
{
    static const unsigned char x[1] = {'x'};
    unsigned char buf[65536];
    size_t left = f->limit, k;
    int st = 0;
    while (!st && left > 0 && (k = fread(buf, 1, left < sizeof buf ? left : sizeof buf, in)) > 0) {
        st = write_all(fd, buf, k);
        left -= k;
    }
    if (!st && ferror(in))
        st = EIO;
    for (size_t e = 0; !st && e < f->extra; e++)
        st = write_all(fd, x, 1);
    return st;
}

static void *feed(void *arg)
{
    sbw_test_feeder *f = arg;
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, NULL); /* a gone reader: EPIPE, not death */
    FILE *in = fopen(f->src, "rb");
    f->status = in ? 0 : errno;
    int fd = open(f->fifo, O_WRONLY); /* also when src failed: the reader's open returns */
    if (!f->status)
        f->status = fd >= 0 ? copy_into(f, in, fd) : errno;
    if (fd >= 0)
        close(fd);
    if (in)
        fclose(in);
    return NULL;
}

sbw_test_feeder *sbw_test_feed_start(const char *fifo, const char *src, size_t limit, size_t extra)
{
    sbw_test_feeder *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_true(strlen(fifo) < sizeof f->fifo && strlen(src) < sizeof f->src);
    snprintf(f->fifo, sizeof f->fifo, "%s", fifo);
    snprintf(f->src, sizeof f->src, "%s", src);
    f->limit = limit;
    f->extra = extra;
    unlink(f->fifo);
    assert_int_equal(mkfifo(f->fifo, 0600), 0);
    assert_int_equal(pthread_create(&f->thread, NULL, feed, f), 0);
    return f;
}

int sbw_test_feed_join(sbw_test_feeder *f)
{
    pthread_join(f->thread, NULL);
    unlink(f->fifo);
    int st = f->status;
    free(f);
    return st;
}
