/* test_spectra.c -- reading a .npy matrix into the spectra of its plain,
 * row-, column- and double-centred variants: direct and TSQR paths (with
 * 1-3 workers, many block sizes, float32) against the long-double Jacobi
 * twin of the naively centred matrix; the row hook; --exp; every error. */
#include "sbw_spectra.h"
#include "sbw_svd.h"
#include "sbw_test.h"
#include "sbw_test_mats.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#define SV_TOL 8.0

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 777, stream));
    return r;
}

static char *save_tmp(const char *name, const sbw_mat *a, sbw_npy_dtype t)
{
    char *p = strdup(sbw_test_path(name));
    SBW_ASSERT_OK(sbw_npy_save(p, a, t));
    return p;
}

static int spectra_of(const char *path, const sbw_reduce_opts *o, unsigned want, sbw_spectra *sp)
{
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, path);
    if (!st)
        st = sbw_spectra_compute(r, o, want, sp);
    sbw_npy_close(r);
    return st;
}

/* Jacobi singular values of variant v of a (naive centring). */
static void twin_values(const sbw_mat *a, sbw_reduce_variant v, double *s)
{
    sbw_mat c = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    tm_centre(&c, false, (v & SBW_VAR_COLS) != 0);
    tm_centre(&c, (v & SBW_VAR_ROWS) != 0, false);
    SBW_ASSERT_OK(sbw_svd_jacobi(&c, s));
    sbw_mat_free(&c);
}

/* Every variant, every reading plan, against the twin.  The tolerance is
 * test_svd.c's: (SV_TOL + sqrt(B)) eps sigma_0 for B blocks stacked in
 * sequence (B = 1 direct), sigma_0 that of the variant factorised -- the
 * rows are centred in double before any rounding to the working
 * precision, so the centred variants' errors are at their own scale (worst
 * seen here 3.4 eps sigma_0 of the variant, B <= 22).  B counts every
 * block as if one worker took them all: an upper bound on each chain. */
static void check_all_plans(const sbw_mat *a, const char *path, bool single)
{
    const sbw_reduce_method methods[] = {SBW_METHOD_DIRECT, SBW_METHOD_TSQR};
    const size_t blocks[] = {7, 64};
    double sj[SBW_NVARIANT][64], eps = single ? FLT_EPSILON : DBL_EPSILON;
    for (int v = 0; v < SBW_NVARIANT; v++)
        twin_values(a, (sbw_reduce_variant)v, sj[v]);
    for (size_t mi = 0; mi < 2; mi++)
        for (size_t bi = 0; bi < 2; bi++)
            for (int w = 1; w <= 3; w++)
                for (unsigned want = 3; want <= 15; want += 12) { /* {plain,rows} or all */
                    sbw_reduce_opts o = {.method = methods[mi],
                                          .block_rows = blocks[bi],
                                          .workers = w,
                                          .single = single};
                    sbw_spectra sp;
                    SBW_ASSERT_OK(spectra_of(path, &o, want, &sp));
                    assert_int_equal(sp.red.method, methods[mi]);
                    double nb = mi ? ceil((double)a->rows / (double)blocks[bi]) : 1;
                    for (int v = 0; v < SBW_NVARIANT; v++)
                        if (want & (1u << v))
                            SBW_ASSERT_CLOSE(sp.s[v], sj[v], sp.k,
                                             (SV_TOL + sqrt(nb)) * eps * sj[v][0], 0.0);
                    sbw_spectra_free(&sp);
                }
}

static void test_variants_vs_twin(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(1);
    const size_t sh[][2] = {{150, 11}, {41, 13}, {13, 41}, {1, 6}, {6, 1}};
    for (size_t i = 0; i < 5; i++) {
        sbw_mat a = {0};
        SBW_ASSERT_OK(tm_dirichlet_logp(&a, sh[i][0], sh[i][1], 0.5, rng));
        char *p = save_tmp("var.npy", &a, SBW_F64);
        check_all_plans(&a, p, false);
        check_all_plans(&a, p, true);
        free(p);
        sbw_mat_free(&a);
    }
    sbw_rng_free(rng);
}

/* The TSQR path against the direct path on the same file, every variant,
 * directly (not only each against the twin). */
static void test_tsqr_vs_direct(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(6);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_lowrank_logp(&a, 333, 21, 5, 2.0, false, rng));
    char *p = save_tmp("td.npy", &a, SBW_F64);
    sbw_spectra sd, st;
    sbw_reduce_opts od = {.method = SBW_METHOD_DIRECT};
    sbw_reduce_opts ot = {.method = SBW_METHOD_TSQR, .block_rows = 40, .workers = 2};
    SBW_ASSERT_OK(spectra_of(p, &od, 15, &sd));
    SBW_ASSERT_OK(spectra_of(p, &ot, 15, &st));
    assert_int_equal(sd.red.method, SBW_METHOD_DIRECT);
    assert_int_equal(st.red.method, SBW_METHOD_TSQR);
    assert_int_equal(st.red.workers, 2);
    for (int v = 0; v < SBW_NVARIANT; v++)
        /* each within (SV_TOL + sqrt(B)) eps sigma_0 of the variant of the
         * exact values (B = 9 blocks of 40 rows on the TSQR side, 1 on
         * the direct): their difference within the sum */
        SBW_ASSERT_CLOSE(st.s[v], sd.s[v], 21, (2 * SV_TOL + 1 + 3) * DBL_EPSILON * sd.s[v][0],
                         0.0);
    sbw_spectra_free(&sd);
    sbw_spectra_free(&st);
    free(p);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* A float32 file: promoted to double by default; the spectra are those of
 * the float data exactly (to double roundoff). */
static void test_float32_file(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(2);
    sbw_mat a = {0};
    sbw_mat_f32 f = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 70, 9, 1.0, rng));
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, a.rows, a.cols));
    SBW_ASSERT_OK(sbw_mat_to_float(&f, &a));
    SBW_ASSERT_OK(sbw_mat_f32_to_double(&a, &f));
    char *p = strdup(sbw_test_path("f32.npy"));
    SBW_ASSERT_OK(sbw_npy_save_f32(p, &f));
    double sj[9];
    twin_values(&a, SBW_VAR_ROWS, sj);
    sbw_reduce_opts o = {0};
    sbw_spectra sp;
    SBW_ASSERT_OK(spectra_of(p, &o, 1u << SBW_VAR_ROWS, &sp));
    assert_int_equal(sp.red.dtype, SBW_F32);
    assert_int_equal(sp.red.prec, SBW_F64);
    assert_int_equal(sp.red.method, SBW_METHOD_TSQR); /* 70 > 1.5 * 9 */
    SBW_ASSERT_CLOSE(sp.s[SBW_VAR_ROWS], sj, 9, SV_TOL * DBL_EPSILON * sqrt(70) * sj[0] * 10, 0.0);
    sbw_spectra_free(&sp);
    free(p);
    sbw_mat_free(&a);
    sbw_mat_f32_free(&f);
    sbw_rng_free(rng);
}

/* --exp: the spectrum of P = exp(A); -inf entries are zeros of P. */
static void test_exp(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(3);
    sbw_mat a = {0}, p = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 30, 12, 1.0, rng));
    SBW_MAT_AT(&a, 4, 5) = -INFINITY;
    SBW_ASSERT_OK(sbw_mat_alloc(&p, 30, 12));
    for (size_t i = 0; i < 360; i++)
        p.data[i] = exp(a.data[i]);
    char *path = save_tmp("exp.npy", &a, SBW_F64);
    double sj[12];
    SBW_ASSERT_OK(sbw_svd_jacobi(&p, sj));
    for (int m = SBW_METHOD_DIRECT; m <= SBW_METHOD_TSQR; m++) {
        sbw_reduce_opts o = {.exp = true, .method = (sbw_reduce_method)m, .block_rows = 8};
        sbw_spectra sp;
        SBW_ASSERT_OK(spectra_of(path, &o, 1, &sp));
        SBW_ASSERT_CLOSE(sp.s[0], sj, 12, SV_TOL * DBL_EPSILON * 2 * sj[0], 0.0);
        sbw_spectra_free(&sp);
    }
    free(path);
    sbw_mat_free(&a);
    sbw_mat_free(&p);
    sbw_rng_free(rng);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_vs_twin),
        cmocka_unit_test(test_tsqr_vs_direct),
        cmocka_unit_test(test_float32_file),
        cmocka_unit_test(test_exp),
        cmocka_unit_test(test_hook),
        cmocka_unit_test(test_bad_entries),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
