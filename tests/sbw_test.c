/* sbw_test.c -- shared helpers for the cmocka suites. */
#include "sbw_test.h"

#include "sbw_error.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

const char *sbw_test_fixture(const char *name)
{
    static char path[512];
    const char *dir = getenv("SBW_FIXTURES");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/fixtures", name);
    return path;
}
