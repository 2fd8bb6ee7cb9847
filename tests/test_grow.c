/* test_grow.c -- the one way a matrix grows as a stream delivers its rows
 * (sbw_mat_stream_rows, sbw_mat_reserve, sbw_mat_grow) and its three users:
 * sbw_npy_read_all / _f32, sbw_reduce_read's direct path, sbw_target_load.
 * Each user reads a pipe into exactly what it reads from the file, the
 * memory preflight counts a growth's old and new buffers in each of them,
 * and a pipe's bytes after an empty payload are refused. */
#include "sbw_test.h"

#include "sbw.h"
#include "sbw_reduce.h"
#include "sbw_synth.h"
#include "sbw_target.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the rule as numbers ------------------------------------------------ */

/* Brute force over small sizes: the first allocation is SBW_MAT_STREAM_BYTES
 * of rows (at least one, at most the claim); each step reaches the rows
 * needed, stays within max(need, 2 * have) and the limit, and a stream
 * delivered one row at a time costs at most log2(limit) + 1 growths. */
static void test_rule(void **state)
{
    (void)state;
    SBW_ASSERT_EQ(sbw_mat_stream_rows(10, 1000, 8), (size_t)10);
    SBW_ASSERT_EQ(sbw_mat_stream_rows(1u << 30, 1000, 8), SBW_MAT_STREAM_BYTES / 8000);
    SBW_ASSERT_EQ(sbw_mat_stream_rows(5, 1u << 30, 8), (size_t)1); /* a row over 16 MiB */
    SBW_ASSERT_EQ(sbw_mat_stream_rows(7, 0, 8), (size_t)7);
    SBW_ASSERT_EQ(sbw_mat_stream_rows(0, 3, 8), (size_t)0);
    for (size_t limit = 1; limit <= 300; limit++)
        for (size_t have = 0; have <= limit; have++)
            for (size_t need = 0; need <= limit; need++) {
                size_t next = sbw_mat_next_rows(have, need, limit);
                size_t want = need > 2 * have ? need : 2 * have;
                if (need <= have
                        ? next != have
                        : next < need || next > limit || next != (want < limit ? want : limit))
                    fail_msg("next_rows(%zu, %zu, %zu) = %zu", have, need, limit, next);
            }
    for (size_t limit = 1; limit <= 5000; limit += 499) {
        size_t have = 1, growths = 0, bound = 1;
        while (((size_t)1 << bound) < limit)
            bound++;
        for (size_t need = 1; need <= limit; need++) {
            size_t next = sbw_mat_next_rows(have, need, limit);
            growths += next != have;
            have = next;
        }
        SBW_ASSERT_EQ(have, limit);
        SBW_ASSERT_LE(growths, bound + 1);
    }
    SBW_ASSERT_EQ(sbw_mat_next_rows(4, 9, 6), (size_t)9); /* a need past the limit */
}

/* reserve keeps the rows, zero-fills the rest, and goes by the rule; a
 * growth whose old + new buffers pass SBW_MAX_MEMORY is refused even when
 * the new one alone fits (80 MB + 100 MB against 100 MiB), m untouched. */
static void test_reserve_and_preflight(void **state)
{
    (void)state;
    sbw_mat m;
    SBW_ASSERT_OK(sbw_mat_alloc(&m, 3, 2));
    for (size_t i = 0; i < 6; i++)
        m.data[i] = (double)i - 2.5;
    SBW_ASSERT_OK(sbw_mat_reserve(&m, 3, 100)); /* enough already */
    SBW_ASSERT_EQ(m.rows, (size_t)3);
    SBW_ASSERT_OK(sbw_mat_reserve(&m, 4, 100));
    SBW_ASSERT_EQ(m.rows, (size_t)6);
    SBW_ASSERT_OK(sbw_mat_reserve(&m, 7, 9));
    SBW_ASSERT_EQ(m.rows, (size_t)9);
    for (size_t i = 0; i < 18; i++)
        SBW_ASSERT_EQ(m.data[i], i < 6 ? (double)i - 2.5 : 0.0);
    sbw_mat_free(&m);
    sbw_mat_f32 f;
    setenv("SBW_MAX_MEMORY", "100M", 1);
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, 20000, 1000)); /* 80 MB */
    f.data[0] = 7.0f;
    assert_int_equal(sbw_mat_f32_grow(&f, 25000), SBW_ENOMEM); /* 100 MB new, 180 MB both */
    assert_non_null(strstr(sbw_error_reason(), "growing a 20000 x 1000 matrix of float32"));
    assert_non_null(strstr(sbw_error_reason(), "SBW_MAX_MEMORY"));
    SBW_ASSERT_EQ(f.rows, (size_t)20000);
    SBW_ASSERT_EQ(f.data[0], 7.0f);
    setenv("SBW_MAX_MEMORY", "any", 1);
    SBW_ASSERT_OK(sbw_mat_f32_reserve(&f, 20001, 25000));
    SBW_ASSERT_EQ(f.rows, (size_t)25000);
    SBW_ASSERT_EQ(f.data[0], 7.0f);
    sbw_mat_f32_free(&f);
    unsetenv("SBW_MAX_MEMORY");
}

/* ---- the users, through a FIFO ------------------------------------------ */

typedef enum user { READ_ALL, READ_ALL_F32, REDUCE, TARGET, TARGET_F32 } user;

/* What one user made of a stream: the matrix as doubles (target: log of
 * the stored P), or the failure. */
typedef struct got {
    sbw_mat a;
    double mean0; /* reduce: the mean of column 0 */
} got;

static int run_user(user u, sbw_npy_reader *r, got *g)
{
    int st = SBW_OK;
    if (u == READ_ALL) {
        st = sbw_npy_read_all(r, &g->a);
    } else if (u == READ_ALL_F32) {
        sbw_mat_f32 f = {0};
        st = sbw_npy_read_all_f32(r, &f);
        st = st ? st : sbw_mat_alloc(&g->a, f.rows, f.cols);
        st = st ? st : sbw_mat_f32_to_double(&g->a, &f);
        sbw_mat_f32_free(&f);
    } else if (u == REDUCE) {
        sbw_reduce_opts o = {.method = SBW_METHOD_DIRECT};
        sbw_reduce red = {0};
        st = sbw_reduce_read(r, &o, false, &red);
        st = st ? st : sbw_mat_alloc(&g->a, red.x.rows, red.x.cols);
        st = st ? st : sbw_mat_copy(&g->a, &red.x);
        g->mean0 = st ? 0 : red.mean[0];
        sbw_reduce_free(&red);
    } else {
        sbw_target t = {0};
        st = sbw_target_load(&t, r, u == TARGET_F32, 1e-9, NULL);
        st = st ? st : sbw_mat_alloc(&g->a, t.n, t.m);
        for (size_t i = 0; !st && i < t.n * t.m; i++)
            g->a.data[i] = log(t.single ? (double)t.pf[i] : t.pd[i]);
        sbw_target_free(&t);
    }
    return st;
}

/* The file at path through a FIFO into user u.  The feeder ends having
 * written all, or with EPIPE when the user stopped early (a refusal). */
static int through_fifo(const char *path, user u, got *g)
{
    static int counter;
    char name[32];
    snprintf(name, sizeof name, "grow_fifo%d", counter++);
    sbw_test_feeder *f = sbw_test_feed_start(sbw_test_path(name), path, SIZE_MAX, 0);
    sbw_npy_reader *r;
    *g = (got){0};
    int st = sbw_npy_open(&r, sbw_test_path(name));
    assert_false(st == SBW_OK && sbw_npy_reader_seekable(r));
    st = st ? st : run_user(u, r, g);
    sbw_npy_close(r);
    int fed = sbw_test_feed_join(f);
    assert_true(fed == 0 || (fed == EPIPE && st != SBW_OK));
    return st;
}

/* A 5000 x 1000 log P* (40 MB): from a pipe, float64 grows 2097 -> 4194 ->
 * 5000 rows, float32 4194 -> 5000. */
static const char *big_file(sbw_mat *a)
{
    static char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("grow_big.npy"));
    SBW_ASSERT_OK(sbw_mat_alloc(a, 5000, 1000));
    SBW_ASSERT_OK(sbw_synth_dirichlet(a, 0.5, 3));
    SBW_ASSERT_OK(sbw_npy_save(path, a, SBW_F64));
    return path;
}

/* Every user reads the pipe into what the file holds: the same doubles
 * (float32 users: the rounded value, to float's half ulp; the target
 * stores exp of it: log of that back within a few float ulps, relative). */
static void test_users_read_pipes(void **state)
{
    (void)state;
    sbw_mat a;
    const char *path = big_file(&a);
    for (user u = READ_ALL; u <= TARGET_F32; u++) {
        got g;
        SBW_ASSERT_OK(through_fifo(path, u, &g));
        SBW_ASSERT_EQ(g.a.rows, a.rows);
        SBW_ASSERT_EQ(g.a.cols, a.cols);
        double worst = 0, mean0 = 0;
        for (size_t i = 0; i < a.rows * a.cols; i++) {
            double want = a.data[i], d = fabs(g.a.data[i] - want);
            if (u == READ_ALL_F32)
                d = fabs(g.a.data[i] - (double)(float)want);
            else if (u == TARGET_F32 && exp(want) > 1e-30)
                d = fabs(g.a.data[i] - want) / 1e-6; /* |log(p(1 + 6e-8))| well under 1e-6 */
            else if (u == TARGET_F32)
                d = 0; /* float's subnormals and zeros: not compared */
            else if (u == TARGET)
                d = fabs(g.a.data[i] - want) / (4 * DBL_EPSILON * fmax(1, fabs(want)));
            worst = fmax(worst, d);
        }
        for (size_t i = 0; i < a.rows; i++)
            mean0 += a.data[i * a.cols];
        SBW_ASSERT_LE(worst, u == TARGET || u == TARGET_F32 ? 1.0 : 0.0);
        if (u == REDUCE)
            SBW_ASSERT_NEAR(g.mean0, mean0 / (double)a.rows, 1e-12 * fabs(mean0) / (double)a.rows);
        sbw_mat_free(&g.a);
    }
    sbw_mat_free(&a);
    unlink(path);
}

/* SBW_MAX_MEMORY = 64M: each float64 user's last growth holds 32 MiB + 38
 * MiB and is refused with the preflight's message, though the matrix alone
 * (38 MiB) fits: the preflight counts the old buffer in every user. */
static void test_users_preflight(void **state)
{
    (void)state;
    sbw_mat a;
    const char *path = big_file(&a);
    setenv("SBW_MAX_MEMORY", "64M", 1);
    const user users[] = {READ_ALL, REDUCE, TARGET};
    for (size_t k = 0; k < 3; k++) {
        got g;
        assert_int_equal(through_fifo(path, users[k], &g), SBW_ENOMEM);
        assert_non_null(strstr(sbw_error_reason(), "growing a 4194 x 1000 matrix of float64"));
        assert_null(g.a.data);
    }
    setenv("SBW_MAX_MEMORY", "96M", 1); /* room for both: read whole */
    got g;
    SBW_ASSERT_OK(through_fifo(path, TARGET, &g));
    SBW_ASSERT_EQ(g.a.rows, (size_t)5000);
    sbw_mat_free(&g.a);
    unsetenv("SBW_MAX_MEMORY");
    sbw_mat_free(&a);
    unlink(path);
}

/* A (0, 4) stream is held to its end as any other: extra bytes after its
 * empty payload are refused by both readers, as a file's are at open. */
static void test_empty_payload_end(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("grow_empty.npy"));
    sbw_mat e = {.rows = 0, .cols = 4, .ld = 4};
    double zero = 0;
    e.data = &zero;
    SBW_ASSERT_OK(sbw_npy_save(path, &e, SBW_F64));
    got g;
    SBW_ASSERT_OK(through_fifo(path, READ_ALL, &g));
    SBW_ASSERT_EQ(g.a.rows, (size_t)0);
    SBW_ASSERT_EQ(g.a.cols, (size_t)4);
    sbw_mat_free(&g.a);
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    fwrite("0123456789abcdef", 1, 16, fp);
    fclose(fp);
    for (user u = READ_ALL; u <= READ_ALL_F32; u++) {
        assert_int_equal(through_fifo(path, u, &g), SBW_EFORMAT);
        assert_non_null(strstr(sbw_error_reason(), ": 16 bytes after the payload of shape (0, 4)"));
        assert_null(g.a.data);
    }
    sbw_mat m = {0}; /* the file itself: refused at open, the same words */
    assert_int_equal(sbw_npy_load(path, &m, NULL), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "16 bytes after the payload of shape (0, 4)"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_reserve_and_preflight),
        cmocka_unit_test(test_users_read_pipes),
        cmocka_unit_test(test_users_preflight),
        cmocka_unit_test(test_empty_payload_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
