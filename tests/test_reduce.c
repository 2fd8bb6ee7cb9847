/* test_reduce.c -- reading a .npy matrix once for its spectra: the row
 * hook sees every row once, in order, untransformed; NaN/Inf refused with
 * complete counts and the first position; bad shapes; Fortran order and
 * big-endian files.  Through sbw_spectra_compute, as the tools call it,
 * on both reading plans (direct and TSQR). */
#include "sbw_reduce.h"
#include "sbw_spectra.h"
#include "sbw_test.h"

#include "spectra_io.h"
#include "sbw_test_mats.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 777, stream));
    return r;
}

/* The hook sees every row once, in order, untransformed. */
typedef struct hook_log {
    const sbw_mat *a;
    size_t next, calls;
    bool ok;
    int fail_at; /* return an error on this call (-1: never) */
} hook_log;

static int hook(void *ctx, const double *rows, size_t row0, size_t nr, size_t ld)
{
    hook_log *h = ctx;
    if ((int)h->calls++ == h->fail_at)
        return SBW_ERROR(SBW_EIO, "hook failed on purpose at row %zu", row0);
    h->ok &= row0 == h->next;
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < h->a->cols; j++)
            h->ok &= rows[i * ld + j] == SBW_MAT_AT(h->a, row0 + i, j);
    h->next += nr;
    return SBW_OK;
}

static void test_hook(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(4);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 101, 7, 1.0, rng));
    char *path = save_tmp("hook.npy", &a, SBW_F64);
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++)
        for (int w = 1; w <= 2; w++) {
            hook_log h = {.a = &a, .ok = true, .fail_at = -1};
            sbw_reduce_opts o = {.exp = true,
                                 .method = (sbw_reduce_method)m,
                                 .block_rows = 10,
                                 .workers = w,
                                 .hook = hook,
                                 .hook_ctx = &h};
            sbw_spectra sp;
            SBW_ASSERT_OK(spectra_of(path, &o, 1, &sp));
            assert_true(h.ok);
            assert_int_equal(h.next, 101);
            sbw_spectra_free(&sp);
            /* a failing hook stops the computation with its status and reason,
             * also when it runs on a worker thread */
            h = (hook_log){.a = &a, .ok = true, .fail_at = m == SBW_METHOD_TSQR ? 3 : 0};
            assert_int_equal(spectra_of(path, &o, 1, &sp), SBW_EIO);
            assert_non_null(strstr(sbw_error_reason(), "hook failed on purpose"));
            assert_null(sp.s[0]);
        }
    free(path);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* NaN/Inf: refused with the complete count and the first position, on
 * every path, whichever worker meets it. */
static void check_bad(const char *path, const sbw_reduce_opts *o, const char *want1,
                      const char *want2)
{
    sbw_spectra sp;
    assert_int_equal(spectra_of(path, o, 1, &sp), SBW_EDATA);
    const char *why = sbw_error_reason();
    if (!strstr(why, want1) || (want2 && !strstr(why, want2)))
        fail_msg("reason '%s' lacks '%s' / '%s'", why, want1, want2 ? want2 : "");
}

static void test_bad_entries(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(5);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 90, 6, 1.0, rng));
    SBW_MAT_AT(&a, 77, 1) = NAN;
    SBW_MAT_AT(&a, 41, 3) = -INFINITY; /* the first one, in a later block */
    SBW_MAT_AT(&a, 41, 5) = -INFINITY;
    SBW_MAT_AT(&a, 88, 0) = INFINITY;
    char *path = save_tmp("bad.npy", &a, SBW_F64);
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++)
        for (int w = 1; w <= 3; w++) {
            sbw_reduce_opts o = {.method = (sbw_reduce_method)m, .block_rows = 8, .workers = w};
            check_bad(path, &o, "4 non-finite entries (1 NaN, 1 +Inf, 2 -Inf)",
                      "first at row 41, column 3");
            check_bad(path, &o, "-inf log-probability", NULL);
        }
    /* with --exp, -inf is a zero probability; NaN and +Inf stay bad */
    SBW_MAT_AT(&a, 77, 1) = 0.5;
    SBW_MAT_AT(&a, 88, 0) = 800.0; /* exp overflows */
    sbw_npy_save(path, &a, SBW_F64);
    sbw_reduce_opts o = {.exp = true};
    check_bad(path, &o, "1 non-finite entry in exp(A) (0 NaN, 1 +Inf, 0 -Inf)", "row 88, column 0");
    SBW_MAT_AT(&a, 88, 0) = 0.5;
    sbw_npy_save(path, &a, SBW_F64);
    sbw_spectra sp;
    SBW_ASSERT_OK(spectra_of(path, &o, 1, &sp));
    sbw_spectra_free(&sp);
    free(path);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

static void test_bad_shapes(void **state)
{
    (void)state;
    sbw_reduce_opts o = {0};
    sbw_spectra sp;
    assert_int_equal(spectra_of(sbw_test_fixture("vec_f8.npy"), &o, 1, &sp), SBW_ESHAPE);
    assert_non_null(strstr(sbw_error_reason(), "1-D array of 5 items"));
    assert_int_equal(spectra_of(sbw_test_fixture("rank_empty.npy"), &o, 1, &sp), SBW_ESHAPE);
    assert_non_null(strstr(sbw_error_reason(), "empty matrix (0 x 5)"));
    assert_int_equal(spectra_of(sbw_test_fixture("f8_c.npy"), &o, 0, &sp), SBW_EINVAL);
    assert_int_equal(spectra_of(sbw_test_fixture("f8_c.npy"), &o, 16, &sp), SBW_EINVAL);
    /* a column-centred variant from a TSQR that was not asked to centre */
    sbw_npy_reader *r = NULL;
    sbw_reduce red;
    sbw_mat m = {0};
    o.method = SBW_METHOD_TSQR;
    SBW_ASSERT_OK(sbw_npy_open(&r, sbw_test_fixture("f8_c.npy")));
    SBW_ASSERT_OK(sbw_reduce_read(r, &o, false, &red));
    assert_int_equal(sbw_reduce_matrix(&red, SBW_VAR_BOTH, false, &m), SBW_EINVAL);
    sbw_reduce_free(&red);
    sbw_npy_close(r);
}

/* Fortran order and big-endian files read the same. */
static void test_layouts(void **state)
{
    (void)state;
    const char *names[] = {"f8_c.npy", "f8_f.npy", "f8_be.npy", "f4_be_f.npy"};
    double s0[3];
    for (int i = 0; i < 4; i++) {
        sbw_reduce_opts o = {0};
        sbw_spectra sp;
        SBW_ASSERT_OK(spectra_of(sbw_test_fixture(names[i]), &o, 1, &sp));
        if (i == 0)
            memcpy(s0, sp.s[0], sizeof s0);
        SBW_ASSERT_CLOSE(sp.s[0], s0, 3, 8 * DBL_EPSILON * s0[0], 0.0);
        sbw_spectra_free(&sp);
    }
}

/* The spectra of variants want of the file at path read from a pipe (a
 * FIFO fed by a thread), as `cat FILE | sbw-rank -` reads it. */
static void spectra_of_pipe(const char *path, const sbw_reduce_opts *o, unsigned want,
                            sbw_spectra *sp)
{
    const char *fifo = sbw_test_path("det_fifo");
    sbw_test_feeder *f = sbw_test_feed_start(fifo, path, SIZE_MAX, 0);
    SBW_ASSERT_OK(spectra_of(fifo, o, want, sp));
    assert_int_equal(sbw_test_feed_join(f), 0);
}

/* Issue 25: the TSQR with several workers gives the same bits on every
 * run, from a file or a pipe (DESIGN.md: deterministic for a given
 * thread count).  Blocks used to go to whichever worker asked first, so
 * the factor's rounding, and the last bits of the spectrum, changed from
 * run to run (151 of 200 singular values at --workers 2).  Here 1250
 * blocks of 16 rows, 2 and 3 workers, three runs and a pipe each; every
 * variant compared bit for bit (memcmp), the column means too. */
static void test_tsqr_deterministic(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(9);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 20000, 60, 0.5, rng));
    char *path = save_tmp("det.npy", &a, SBW_F64);
    const unsigned want = 1u | 2u | 8u;
    for (int w = 2; w <= 3; w++) {
        sbw_reduce_opts o = {.method = SBW_METHOD_TSQR, .block_rows = 16, .workers = w};
        sbw_spectra first, again;
        SBW_ASSERT_OK(spectra_of(path, &o, want, &first));
        SBW_ASSERT_EQ(first.red.workers, w);
        for (int run = 0; run < 4; run++) {
            if (run < 3)
                SBW_ASSERT_OK(spectra_of(path, &o, want, &again));
            else
                spectra_of_pipe(path, &o, want, &again);
            for (int v = 0; v < SBW_NVARIANT; v++)
                if (want & (1u << v) &&
                    memcmp(first.s[v], again.s[v], first.k * sizeof(double)) != 0)
                    fail_msg("%d workers, run %d%s, variant %s: the spectrum changed", w, run + 2,
                             run == 3 ? " (pipe)" : "",
                             sbw_reduce_variant_name((sbw_reduce_variant)v));
            assert_memory_equal(first.red.mean, again.red.mean, 60 * sizeof(double));
            sbw_spectra_free(&again);
        }
        sbw_spectra_free(&first);
    }
    free(path);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hook),
        cmocka_unit_test(test_bad_entries),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_tsqr_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
