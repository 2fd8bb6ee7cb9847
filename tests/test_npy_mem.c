/* test_npy_mem.c -- arrays in memory opened by name (sbw_npy_mem_add, the
 * Python binding's way in): a registered array reads exactly as the same
 * values written to a .npy file, through every reader above sbw_npy (the
 * checker, sbw_logp and its second readers, the spectra and sbw-rank's
 * analysis, sbw-bound's), with the same messages naming it; and every
 * refusal of the registry. */
#include "sbw_test.h"

#include "sbw_bound.h"
#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_logp.h"
#include "sbw_npy.h"
#include "sbw_spectra.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A log-softmax matrix of rows x cols with uneven values (row i, column j). */
static void logsoftmax(double *a, size_t rows, size_t cols)
{
    for (size_t i = 0; i < rows; i++) {
        double *r = a + i * cols, mx = -INFINITY, z = 0;
        for (size_t j = 0; j < cols; j++) {
            r[j] = sin(1.3 * (double)(i * cols + j) + 0.7 * (double)i) * (1.0 + (double)(j % 3));
            mx = fmax(mx, r[j]);
        }
        for (size_t j = 0; j < cols; j++)
            z += exp(r[j] - mx);
        for (size_t j = 0; j < cols; j++)
            r[j] -= mx + log(z);
    }
}

/* Every row of the registered array and of the file, read both ways
 * (double and float, one block and row by row), is the same bits. */
static void test_reads_as_file(void **state)
{
    (void)state;
    enum { R = 7, M = 5 };
    double a[R * M];
    float af[R * M];
    logsoftmax(a, R, M);
    for (size_t i = 0; i < (size_t)R * M; i++)
        af[i] = (float)a[i];
    sbw_mat m = {R, M, M, a, false};
    sbw_mat_f32 mf = {R, M, M, af, false};
    char file64[512], file32[512];
    snprintf(file64, sizeof file64, "%s", sbw_test_path("mem64.npy"));
    snprintf(file32, sizeof file32, "%s", sbw_test_path("mem32.npy"));
    SBW_ASSERT_OK(sbw_npy_save(file64, &m, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_save_f32(file32, &mf));
    SBW_ASSERT_OK(sbw_npy_mem_add("a64", a, SBW_F64, R, M, 2));
    SBW_ASSERT_OK(sbw_npy_mem_add("a32", af, SBW_F32, R, M, 2));
    const char *mem[] = {"a64", "a32"}, *file[] = {file64, file32};
    for (int k = 0; k < 2; k++) {
        sbw_npy_reader *rm = NULL, *rf = NULL;
        SBW_ASSERT_OK(sbw_check_open(&rm, mem[k], SBW_SHAPE_MATRIX));
        SBW_ASSERT_OK(sbw_check_open(&rf, file[k], SBW_SHAPE_MATRIX));
        assert_true(sbw_npy_reader_in_memory(rm));
        assert_false(sbw_npy_reader_in_memory(rf));
        assert_true(sbw_npy_reader_seekable(rm));
        const sbw_npy_info *im = sbw_npy_reader_info(rm), *in = sbw_npy_reader_info(rf);
        assert_int_equal(im->rows, in->rows);
        assert_int_equal(im->cols, in->cols);
        assert_int_equal(im->dtype, in->dtype);
        assert_string_equal(im->descr, in->descr);
        assert_string_equal(sbw_npy_reader_path(rm), mem[k]);
        double gm[R * 6], gf[R * 6]; /* ld 6 > M: the converting path */
        float hm[R * M], hf[R * M];
        SBW_ASSERT_OK(sbw_npy_read_rows(rm, gm, 3, M));
        SBW_ASSERT_OK(sbw_npy_read_rows(rm, gm + (size_t)3 * M, R - 3, M));
        SBW_ASSERT_OK(sbw_npy_read_rows(rf, gf, R, M));
        assert_memory_equal(gm, gf, (size_t)R * M * sizeof *gm);
        SBW_ASSERT_OK(sbw_npy_seek_row(rm, 0));
        SBW_ASSERT_OK(sbw_npy_seek_row(rf, 0));
        SBW_ASSERT_OK(sbw_npy_read_rows(rm, gm, R, 6));
        SBW_ASSERT_OK(sbw_npy_read_rows(rf, gf, R, 6));
        for (size_t i = 0; i < R; i++)
            assert_memory_equal(gm + i * 6, gf + i * 6, M * sizeof *gm);
        SBW_ASSERT_OK(sbw_npy_seek_row(rm, 2));
        SBW_ASSERT_OK(sbw_npy_seek_row(rf, 2));
        SBW_ASSERT_OK(sbw_npy_read_rows_f32(rm, hm, R - 2, M));
        SBW_ASSERT_OK(sbw_npy_read_rows_f32(rf, hf, R - 2, M));
        assert_memory_equal(hm, hf, (size_t)(R - 2) * M * sizeof *hm);
        /* past the end: the file's refusal */
        assert_int_equal(sbw_npy_read_rows(rm, gm, 1, M), SBW_EINVAL);
        sbw_npy_close(rm);
        sbw_npy_close(rf);
    }
    SBW_ASSERT_OK(sbw_npy_mem_remove("a64"));
    SBW_ASSERT_OK(sbw_npy_mem_remove("a32"));
    /* gone: the name is a path again (no such file) */
    sbw_npy_reader *r = NULL;
    assert_int_equal(sbw_npy_open(&r, "a64"), SBW_EIO);
    assert_null(r);
}

/* A 1-D array opens as a vector (n x 1), as a 1-D .npy does. */
static void test_vector(void **state)
{
    (void)state;
    double b[4] = {0.5, -1, 2, 3};
    SBW_ASSERT_OK(sbw_npy_mem_add("b", b, SBW_F64, 4, 1, 1));
    sbw_npy_reader *r = NULL;
    SBW_ASSERT_OK(sbw_check_open(&r, "b", SBW_SHAPE_VECTOR));
    assert_int_equal(sbw_npy_reader_info(r)->ndim, 1);
    sbw_npy_close(r);
    /* a vector is no matrix: the checker's one message, naming the array */
    assert_int_equal(sbw_check_open(&r, "b", SBW_SHAPE_MATRIX), SBW_ESHAPE);
    assert_non_null(strstr(sbw_error_reason(), "b: "));
    SBW_ASSERT_OK(sbw_npy_mem_remove("b"));
}

/* The registry's refusals; a full table. */
static void test_refusals(void **state)
{
    (void)state;
    double a[2] = {0, 0};
    assert_int_equal(sbw_npy_mem_add("", a, SBW_F64, 1, 2, 2), SBW_EINVAL);
    assert_int_equal(sbw_npy_mem_add(NULL, a, SBW_F64, 1, 2, 2), SBW_EINVAL);
    assert_int_equal(sbw_npy_mem_add("x", a, SBW_F16, 1, 2, 2), SBW_EDTYPE);
    assert_int_equal(sbw_npy_mem_add("x", a, SBW_F64, 1, 2, 3), SBW_EDTYPE);
    assert_int_equal(sbw_npy_mem_add("x", a, SBW_F64, 1, 2, 1), SBW_EINVAL);
    assert_int_equal(sbw_npy_mem_add("x", NULL, SBW_F64, 1, 2, 2), SBW_EINVAL);
    assert_int_equal(sbw_npy_mem_add("x", a, SBW_F64, SIZE_MAX / 2, 4, 2), SBW_ENOMEM);
    assert_int_equal(sbw_npy_mem_remove("x"), SBW_EINVAL); /* nothing was registered */
    SBW_ASSERT_OK(sbw_npy_mem_add("x", a, SBW_F64, 1, 2, 2));
    assert_int_equal(sbw_npy_mem_add("x", a, SBW_F64, 1, 2, 2), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "is registered"));
    char names[16][8];
    int added = 1;
    for (int i = 0; i < 16; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        if (sbw_npy_mem_add(names[i], a, SBW_F64, 1, 2, 2) == SBW_OK)
            added++;
        else
            assert_int_equal(sbw_error_status(), SBW_ENOMEM);
    }
    assert_int_equal(added, 16);
    for (int i = 0; i < 15; i++)
        SBW_ASSERT_OK(sbw_npy_mem_remove(names[i]));
    assert_int_equal(sbw_npy_mem_remove(names[15]), SBW_EINVAL); /* the one refused */
    SBW_ASSERT_OK(sbw_npy_mem_remove("x"));
}

/* sbw_logp on an array: reopenable (sbw-kl's workers each read their own),
 * and the checks name the array as they name a file. */
static void test_logp(void **state)
{
    (void)state;
    enum { R = 4, M = 3 };
    double a[R * M];
    logsoftmax(a, R, M);
    SBW_ASSERT_OK(sbw_npy_mem_add("lp", a, SBW_F64, R, M, 2));
    sbw_logp_opts o = {.tol = SBW_LOGP_TOL};
    sbw_logp_reader *r = NULL, *r2 = NULL;
    SBW_ASSERT_OK(sbw_logp_open(&r, "lp", &o));
    assert_true(sbw_logp_seekable(r));
    SBW_ASSERT_OK(sbw_logp_reopen(r, &r2));
    sbw_logp_close(r2);
    sbw_logp_close(r);
    a[2 * M + 1] = NAN;
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, R);
    double buf[R * M];
    SBW_ASSERT_OK(sbw_logp_open(&r, "lp", &o));
    assert_int_equal(sbw_logp_read(r, &s, 0, R, buf), SBW_EDATA);
    assert_true(strncmp(sbw_error_reason(), "lp: ", 4) == 0);
    sbw_logp_close(r);
    SBW_ASSERT_OK(sbw_npy_mem_remove("lp"));
}

/* sbw-rank's and sbw-bound's one calls on an array give the file's
 * numbers bit for bit (the same reading, reduction and SVD). */
static void test_rank_bound_as_file(void **state)
{
    (void)state;
    enum { R = 40, M = 9 }; /* tall: the TSQR path */
    double *a = malloc((size_t)R * M * sizeof *a);
    assert_non_null(a);
    logsoftmax(a, R, M);
    sbw_mat m = {R, M, M, a, false};
    char file[512];
    snprintf(file, sizeof file, "%s", sbw_test_path("memrank.npy"));
    SBW_ASSERT_OK(sbw_npy_save(file, &m, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_mem_add("A", a, SBW_F64, R, M, 2));
    for (int v = 0; v < SBW_NVARIANT; v++) {
        double s1[M], s2[M];
        sbw_spectra_rank_res r1, r2;
        SBW_ASSERT_OK(sbw_spectra_rank_file("A", (sbw_reduce_variant)v, false, false, "auto",
                                            "auto", 0, true, s1, M, &r1));
        SBW_ASSERT_OK(sbw_spectra_rank_file(file, (sbw_reduce_variant)v, false, false, "auto",
                                            "auto", 0, true, s2, M, &r2));
        assert_memory_equal(s1, s2, sizeof s1);
        assert_int_equal(r1.est.rank, r2.est.rank);
        SBW_ASSERT_EQ(r1.est.tsh, r2.est.tsh);
        SBW_ASSERT_EQ(r1.w0_uncentred, r2.w0_uncentred);
        for (int k = 0; k < SBW_RANK_NMEASURES; k++)
            SBW_ASSERT_EQ(r1.ms[k].rank, r2.ms[k].rank);
        /* and what the tool's own sequence gives: sbw_spectra_file, then
         * the analysis */
        sbw_spectra sp;
        sbw_reduce_opts o = {0};
        sbw_spectra_rank_res r3;
        SBW_ASSERT_OK(sbw_spectra_file(file, &o, 1u << v, "test", true, &sp));
        SBW_ASSERT_OK(sbw_spectra_rank(&sp, (sbw_reduce_variant)v, "auto", 0, true, &r3));
        assert_memory_equal(sp.s[v], s1, sizeof s1);
        assert_int_equal(r3.est.rank, r1.est.rank);
        sbw_spectra_free(&sp);
    }
    double t1[2][M + 1], t2[2][M + 1];
    sbw_bound_summary b1, b2;
    for (int bias = 0; bias < 2; bias++) {
        SBW_ASSERT_OK(sbw_bound_file("A", bias, "auto", "auto", &b1, t1[0], t1[1], M + 1));
        SBW_ASSERT_OK(sbw_bound_file(file, bias, "auto", "auto", &b2, t2[0], t2[1], M + 1));
        assert_memory_equal(t1, t2, sizeof t1);
        assert_int_equal(b1.rank_c.rank, b2.rank_c.rank);
        assert_int_equal(b1.rank_a.rank, b2.rank_a.rank);
        SBW_ASSERT_EQ(b1.eps, b2.eps);
    }
    /* room too small: refused */
    double s[M];
    sbw_spectra_rank_res r;
    assert_int_equal(sbw_spectra_rank_file("A", SBW_VAR_PLAIN, false, false, "auto", "auto", 0,
                                           false, s, M - 1, &r),
                     SBW_EINVAL);
    assert_int_equal(sbw_bound_file("A", false, "auto", "auto", &b1, t1[0], t1[1], M), SBW_EINVAL);
    /* a NaN: the reduction's refusal, naming the array */
    a[5 * M + 2] = NAN;
    assert_int_equal(
        sbw_spectra_rank_file("A", SBW_VAR_PLAIN, false, false, "auto", "auto", 0, false, s, M, &r),
        SBW_EDATA);
    assert_true(strncmp(sbw_error_reason(), "A: ", 3) == 0);
    SBW_ASSERT_OK(sbw_npy_mem_remove("A"));
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_as_file),      cmocka_unit_test(test_vector),
        cmocka_unit_test(test_refusals),           cmocka_unit_test(test_logp),
        cmocka_unit_test(test_rank_bound_as_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
