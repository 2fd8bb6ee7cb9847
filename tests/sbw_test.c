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

void sbw_test_ok(int status, const char *what, const char *file, int line)
{
    if (status == 0)
        return;
    print_error("%s returned %d (%s): %s [%s:%d]\n", what, status, sbw_error_string(status),
                sbw_error_reason(), sbw_error_file(), sbw_error_line());
    _fail(file, line);
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
