/* test_spectra.c -- reading a .npy matrix into the spectra of its plain,
 * row-, column- and double-centred variants: direct and TSQR paths (with
 * 1-3 workers, many block sizes, float32) against the long-double Jacobi
 * twin of the naively centred matrix; --exp.  Reading itself (the row
 * hook, bad entries and shapes, layouts): test_reduce.c. */
#include "sbw_rank.h"
#include "sbw_spectra.h"
#include "sbw_svd.h"
#include "sbw_svd_ref.h"
#include "sbw_test.h"

#include "spectra_io.h"
#include "sbw_test_mats.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"
#include "sbw_table.h"

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

/* Jacobi singular values of variant v of a (naive centring). */
static void twin_values(const sbw_mat *a, sbw_reduce_variant v, double *s)
{
    sbw_mat c = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    tm_centre(&c, false, (v & SBW_VAR_COLS) != 0);
    tm_centre(&c, (v & SBW_VAR_ROWS) != 0, false);
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, s));
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
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&p, sj));
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

/* True when a warning starting with code was given since the last clear. */
static bool warned(const char *code)
{
    for (size_t i = 0; sbw_table_warning(i); i++)
        if (strncmp(sbw_table_warning(i), code, strlen(code)) == 0)
            return true;
    return false;
}

/* sbw_spectra_file (sbw-rank's reading) gives the bits sbw_spectra_compute
 * gives on the opened file; its warnings fire exactly when their
 * conditions, computed here from the entries, hold: float32 values read at
 * a float64 eps, row means holding more than half of ||A||_F^2. */
static void test_file_and_warnings(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(4);
    sbw_mat a = {0};
    sbw_mat_f32 f = {0};
    SBW_ASSERT_OK(tm_dirichlet_logp(&a, 40, 7, 1.0, rng));
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, a.rows, a.cols));
    SBW_ASSERT_OK(sbw_mat_to_float(&f, &a));
    SBW_ASSERT_OK(sbw_mat_f32_to_double(&a, &f)); /* float32 values in a float64 file */
    char *path = save_tmp("f32vals.npy", &a, SBW_F64);
    double fro2 = 0, rowmean2 = 0;
    for (size_t i = 0; i < a.rows; i++) {
        double mu = 0;
        for (size_t j = 0; j < a.cols; j++) {
            mu += SBW_MAT_AT(&a, i, j) / (double)a.cols;
            fro2 += SBW_MAT_AT(&a, i, j) * SBW_MAT_AT(&a, i, j);
        }
        rowmean2 += (double)a.cols * mu * mu;
    }
    bool dominated = rowmean2 > 0.5 * fro2;
    sbw_reduce_opts o = {.method = SBW_METHOD_TSQR, .block_rows = 9};
    sbw_spectra sp, sq;
    SBW_ASSERT_OK(sbw_spectra_file(path, &o, 3, "test", true, &sp));
    SBW_ASSERT_OK(spectra_of(path, &o, 3, &sq));
    assert_memory_equal(sp.s[0], sq.s[0], sp.k * sizeof(double));
    assert_memory_equal(sp.s[1], sq.s[1], sp.k * sizeof(double));
    for (int energy = 0; energy < 2; energy++)
        for (int v = 0; v < 2; v++)
            for (int single = 0; single < 2; single++) {
                sbw_table_warn_clear();
                sbw_spectra_warn_data(&sp, (sbw_reduce_variant)v,
                                      single ? FLT_EPSILON : DBL_EPSILON, energy);
                assert_int_equal(warned("float32_values:"), !single);
                assert_int_equal(warned("mean_dominated:"), energy && v == 0 && dominated);
            }
    sbw_table_warn_clear();
    assert_true(dominated); /* log-probabilities: the row means dominate */
    sbw_spectra_free(&sp);
    sbw_spectra_free(&sq);
    assert_int_equal(sbw_spectra_file(sbw_test_path("none.npy"), &o, 1, "test", true, &sp),
                     SBW_EIO);
    assert_null(sp.s[0]);
    free(path);
    sbw_mat_free(&a);
    sbw_mat_f32_free(&f);
    sbw_rng_free(rng);
}

/* The --spectrum columns against their definitions, an exact zero and a
 * zero spectrum included. */
static void test_rank_spectrum(void **state)
{
    (void)state;
    const double s[] = {8, 2, 2, 0.5, 0};
    double rel[5], lg[5], v[5], cum[5], v2[5], cum2[5];
    SBW_ASSERT_OK(sbw_rank_spectrum(s, 5, SBW_NORM_MINMAX, rel, lg, v, cum));
    SBW_ASSERT_OK(sbw_rank_normalise(s, 5, SBW_NORM_MINMAX, v2, cum2));
    for (size_t j = 0; j < 5; j++) {
        SBW_ASSERT_EQ(rel[j], s[j] / 8);
        SBW_ASSERT_EQ(v[j], v2[j]);
        SBW_ASSERT_EQ(cum[j], cum2[j]);
        if (j < 4)
            SBW_ASSERT_EQ(lg[j], log10(s[j]));
    }
    assert_true(isnan(lg[4]));
    const double z[] = {0, 0};
    SBW_ASSERT_OK(sbw_rank_spectrum(z, 2, SBW_NORM_MAX, rel, lg, v, cum));
    SBW_ASSERT_EQ(rel[1], 0.0);
    assert_true(isnan(lg[0]));
    assert_int_equal(sbw_rank_spectrum(s, 0, SBW_NORM_MAX, rel, lg, v, cum), SBW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_vs_twin),  cmocka_unit_test(test_tsqr_vs_direct),
        cmocka_unit_test(test_float32_file),      cmocka_unit_test(test_exp),
        cmocka_unit_test(test_file_and_warnings), cmocka_unit_test(test_rank_spectrum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
