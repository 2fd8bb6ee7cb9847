/* test_progress.c -- progress lines on a non-terminal, a bar on a terminal
 * (forced through the public tty field), silence when quiet. */
#include "sbw_test.h"

#include "sbw_progress.h"

#include <stdio.h>
#include <string.h>

static size_t run_as(bool tty, bool quiet, double interval, char *buf, size_t cap)
{
    memset(buf, 0, cap);
    FILE *f = fmemopen(buf, cap, "w");
    sbw_progress p;
    sbw_progress_start(&p, "sbw-test", "rows", 100, quiet);
    p.f = f;
    p.tty = tty;
    p.interval = interval;
    for (int k = 1; k <= 100; k++)
        sbw_progress_update(&p, k);
    sbw_progress_finish(&p);
    fclose(f);
    return strlen(buf);
}

static size_t run(bool quiet, double interval, char *buf, size_t cap)
{
    return run_as(false, quiet, interval, buf, cap);
}

static void test_lines_when_not_a_terminal(void **state)
{
    (void)state;
    char buf[32768];
    SBW_ASSERT_GT(run(false, 0.0, buf, sizeof buf), 0);
    assert_non_null(strstr(buf, "sbw-test: 50/100 rows (50.0%)"));
    assert_non_null(strstr(buf, "sbw-test: 100/100 rows (100.0%)"));
    assert_non_null(strstr(buf, "ETA"));
}

/* "[" + 30 cells, `fill` of them '#', + "]" */
static void bar_text(int fill, char out[33])
{
    out[0] = '[';
    for (int i = 0; i < 30; i++)
        out[1 + i] = i < fill ? '#' : '.';
    out[31] = ']';
    out[32] = '\0';
}

/* On a terminal: one line redrawn in place ('\r', no newline until the end),
 * a 30-cell bar, the percentage, a rate in units/s and an ETA. */
static void test_bar_on_a_terminal(void **state)
{
    (void)state;
    static char buf[65536];
    SBW_ASSERT_GT(run_as(true, false, 0.0, buf, sizeof buf), 0);
    assert_int_equal(buf[0], '\r');
    char half[33], full[33];
    bar_text(15, half); /* 50 of 100 rows */
    bar_text(30, full);
    const char *mid = strstr(buf, half), *end = strstr(buf, full);
    assert_non_null(mid);
    assert_non_null(end);
    assert_non_null(strstr(mid, " 50.0% "));
    assert_non_null(strstr(end, "100.0% "));
    assert_non_null(strstr(buf, "rows/s ETA "));
    assert_non_null(strstr(end, "ETA 0s")); /* nothing left */
    size_t len = strlen(buf), newlines = 0, returns = 0;
    for (size_t i = 0; i < len; i++) {
        newlines += buf[i] == '\n';
        returns += buf[i] == '\r';
    }
    assert_int_equal(newlines, 1); /* the final one only */
    assert_int_equal(buf[len - 1], '\n');
    SBW_ASSERT_GE(returns, 2);
    assert_int_equal(run_as(true, true, 0.0, buf, sizeof buf), 0); /* quiet */
}

/* Work that ends before its total (a run stopped by a signal) ends with
 * "stopped", never an ETA of 0s, on a terminal and in log lines. */
static void test_stopped_early(void **state)
{
    (void)state;
    for (int tty = 0; tty < 2; tty++) {
        char buf[8192] = {0};
        FILE *f = fmemopen(buf, sizeof buf, "w");
        sbw_progress p;
        sbw_progress_start(&p, "sbw-test", "rows", 300, false);
        p.f = f;
        p.tty = tty;
        p.interval = 0.0;
        for (int k = 1; k <= 100; k++)
            sbw_progress_update(&p, k);
        sbw_progress_finish(&p);
        fclose(f);
        /* the final line: after the last '\r' (terminal) or '\n' (log) */
        size_t len = strlen(buf);
        SBW_ASSERT_GT(len, 1);
        const char *last = buf;
        for (size_t i = 0; i + 1 < len; i++)
            if (buf[i] == (tty ? '\r' : '\n'))
                last = buf + i + 1;
        assert_non_null(strstr(last, tty ? " 33.3% " : "100/300 rows (33.3%)"));
        assert_non_null(strstr(last, "stopped"));
        assert_null(strstr(last, "ETA"));
        assert_int_equal(buf[strlen(buf) - 1], '\n');
    }
}

static void test_quiet_and_short_jobs(void **state)
{
    (void)state;
    char buf[4096];
    assert_int_equal(run(true, 0.0, buf, sizeof buf), 0);
    assert_int_equal(run(false, 1e9, buf, sizeof buf), 0); /* never due: silent */
}

/* A stage closes the bar once and is announced only when big and not quiet. */
static void test_stage(void **state)
{
    (void)state;
    char buf[4096] = {0};
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sbw_progress p;
    sbw_progress_start(&p, "sbw-test", "rows", 10, false);
    p.f = f;
    p.tty = false;
    p.interval = 0.0;
    sbw_progress_update(&p, 10);
    sbw_progress_stage(&p, "small svd", 10);
    sbw_progress_stage(&p, "big svd", 5000);
    sbw_progress_finish(&p);
    fclose(f);
    assert_non_null(strstr(buf, "sbw-test: 10/10 rows"));
    assert_null(strstr(buf, "small svd"));
    assert_non_null(strstr(buf, "sbw-test: big svd...\n"));
    /* one line from the update, one final line from the first stage; the
     * second stage and finish draw nothing more */
    int lines = 0;
    for (const char *q = buf; (q = strstr(q, "rows (100.0%)")) != NULL; q++)
        lines++;
    assert_int_equal(lines, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_when_not_a_terminal),
        cmocka_unit_test(test_bar_on_a_terminal),
        cmocka_unit_test(test_stopped_early),
        cmocka_unit_test(test_quiet_and_short_jobs),
        cmocka_unit_test(test_stage),
    };
    return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
