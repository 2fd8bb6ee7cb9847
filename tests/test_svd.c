/* test_svd.c -- singular values (gesdd on the column-major view, float32
 * sgesdd, right vectors) against the one-sided Jacobi twin; every error path.
 *
 * Tolerance: LAPACK's singular values are backward stable, |s_j - s~_j| <=
 * p(m, n) eps ||A||_2; the twin runs in long double, so its own error is
 * negligible and the difference is the fast path's.  The tests allow
 * SV_TOL * eps * sigma_0 with SV_TOL = 8 (absolute, scaled by the largest
 * singular value) -- "a few eps sigma_0"; test_values_vs_jacobi prints the
 * largest error seen (about 4 eps sigma_0 on these shapes).
 * */
#include "sbw_svd.h"
#include "sbw_svd_ref.h"
#include "sbw_test.h"
#include "sbw_test_mats.h"

#include "sbw_rng.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SV_TOL 8.0

static const size_t shapes[][2] = {{1, 1},  {1, 7},   {7, 1},   {5, 3},  {3, 5},  {9, 9},  {13, 7},
                                   {7, 13}, {31, 17}, {17, 31}, {40, 3}, {3, 40}, {64, 64}};
#define NSHAPES (sizeof shapes / sizeof *shapes)

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 4242, stream));
    return r;
}

/* s from gesdd (on a copy) and from Jacobi; returns max |diff| / (eps s0). */
static double compare_with_jacobi(const sbw_mat *a)
{
    size_t k = a->rows < a->cols ? a->rows : a->cols;
    double s[64], sj[64];
    sbw_mat c = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    SBW_ASSERT_OK(sbw_svd_values(&c, s));
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(a, sj));
    SBW_ASSERT_CLOSE(s, sj, k, SV_TOL * DBL_EPSILON * sj[0], 0.0);
    sbw_mat_free(&c);
    return sj[0] > 0 ? tm_max_abs_diff(s, sj, k) / (DBL_EPSILON * sj[0]) : 0;
}

static void test_values_vs_jacobi(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(1);
    double worst = 0;
    for (size_t i = 0; i < NSHAPES; i++) {
        sbw_mat a = {0};
        SBW_ASSERT_OK(tm_gauss(&a, shapes[i][0], shapes[i][1], rng));
        worst = fmax(worst, compare_with_jacobi(&a));
        sbw_mat_free(&a);
        /* rank-deficient: rank 2 products (zero singular values) */
        if (shapes[i][0] >= 3 && shapes[i][1] >= 3) {
            SBW_ASSERT_OK(tm_product(&a, shapes[i][0], shapes[i][1], 2, rng));
            worst = fmax(worst, compare_with_jacobi(&a));
            sbw_mat_free(&a);
        }
    }
    printf("    largest |gesdd - jacobi| = %.2f eps sigma_0 (allowed %.0f)\n", worst, SV_TOL);
    sbw_rng_free(rng);
}

/* A view with ld > cols: the column-major view must honour ld. */
static void test_values_padded_view(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(2);
    sbw_mat big = {0}, a = {0};
    double s[7], sj[7];
    SBW_ASSERT_OK(tm_gauss(&big, 11, 10, rng));
    sbw_mat v = sbw_mat_view(big.data, 11, 7, 10);
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 11, 7));
    SBW_ASSERT_OK(sbw_mat_copy(&a, &v));
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&a, sj));
    SBW_ASSERT_OK(sbw_svd_values(&v, s));
    SBW_ASSERT_CLOSE(s, sj, 7, SV_TOL * DBL_EPSILON * sj[0], 0.0);
    sbw_mat_free(&big);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

static void test_values_f32_vs_jacobi(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(3);
    for (size_t i = 0; i < NSHAPES; i++) {
        sbw_mat a = {0};
        sbw_mat_f32 f = {0};
        size_t k = shapes[i][0] < shapes[i][1] ? shapes[i][0] : shapes[i][1];
        float sf[64];
        double s[64], sj[64];
        SBW_ASSERT_OK(tm_gauss(&a, shapes[i][0], shapes[i][1], rng));
        SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, a.rows, a.cols));
        SBW_ASSERT_OK(sbw_mat_to_float(&f, &a));
        SBW_ASSERT_OK(sbw_mat_f32_to_double(&a, &f)); /* the float data, exactly */
        SBW_ASSERT_OK(sbw_svd_values_f32(&f, sf));
        SBW_ASSERT_OK(sbw_svd_ref_jacobi(&a, sj));
        for (size_t j = 0; j < k; j++)
            s[j] = sf[j];
        SBW_ASSERT_CLOSE(s, sj, k, SV_TOL * FLT_EPSILON * sj[0], 0.0);
        sbw_mat_free(&a);
        sbw_mat_f32_free(&f);
    }
    sbw_rng_free(rng);
}

/* Right vectors: orthonormal rows, ||A v_j|| = s_j, values = Jacobi's. */
static void check_right(const sbw_mat *a)
{
    size_t k = a->rows < a->cols ? a->rows : a->cols;
    double s[16], sj[16], tol = SV_TOL * DBL_EPSILON * (double)a->cols;
    sbw_mat c = {0}, vt = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    SBW_ASSERT_OK(sbw_svd_right(&c, s, &vt));
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(a, sj));
    SBW_ASSERT_CLOSE(s, sj, k, SV_TOL * DBL_EPSILON * sj[0], 0.0);
    assert_int_equal(vt.rows, k);
    assert_int_equal(vt.cols, a->cols);
    for (size_t p = 0; p < k; p++) {
        for (size_t q = 0; q < k; q++) {
            double d = 0;
            for (size_t j = 0; j < a->cols; j++)
                d += SBW_MAT_AT(&vt, p, j) * SBW_MAT_AT(&vt, q, j);
            SBW_ASSERT_NEAR(d, p == q ? 1.0 : 0.0, tol);
        }
        double n2 = 0;
        for (size_t i = 0; i < a->rows; i++) {
            double x = 0;
            for (size_t j = 0; j < a->cols; j++)
                x += SBW_MAT_AT(a, i, j) * SBW_MAT_AT(&vt, p, j);
            n2 += x * x;
        }
        SBW_ASSERT_NEAR(sqrt(n2), sj[p], SV_TOL * DBL_EPSILON * sj[0] * (double)a->cols);
    }
    sbw_mat_free(&c);
    sbw_mat_free(&vt);
}

static void test_right_vectors(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(4);
    const size_t sh[][2] = {{9, 6}, {6, 9}, {7, 7}, {1, 5}, {5, 1}};
    for (size_t i = 0; i < 5; i++) {
        sbw_mat a = {0};
        SBW_ASSERT_OK(tm_gauss(&a, sh[i][0], sh[i][1], rng));
        check_right(&a);
        sbw_mat_free(&a);
    }
    sbw_rng_free(rng);
}

static void test_errors(void **state)
{
    (void)state;
    double s[4];
    float sf[4];
    sbw_mat e = {0}, v = {0};
    sbw_mat_f32 ef = {0};
    assert_int_equal(sbw_svd_values(&e, s), SBW_ESHAPE);
    assert_int_equal(sbw_svd_values_f32(&ef, sf), SBW_ESHAPE);
    assert_int_equal(sbw_svd_right(&e, s, &v), SBW_ESHAPE);
    assert_int_equal(sbw_svd_ref_jacobi(&e, s), SBW_ESHAPE);
    double buf[6] = {1, 2, 3, 4, 5, 6};
    sbw_mat bad = sbw_mat_view(buf, 2, 3, 2); /* ld < cols */
    assert_int_equal(sbw_svd_values(&bad, s), SBW_EINVAL);
}

/* What is left after a failure before the computing call (sbw_svd.h): A
 * and s untouched, *vt untouched, in both precisions. */
static void test_failure_leaves(void **state)
{
    (void)state;
    double buf[6] = {1, 2, 3, 4, 5, 6}, s[2] = {-7, -7};
    float buff[6] = {1, 2, 3, 4, 5, 6}, sf[2] = {-7, -7};
    sbw_mat bad = sbw_mat_view(buf, 2, 3, 2), vt = {0}; /* ld < cols */
    sbw_mat_f32 badf = {.data = buff, .rows = 2, .cols = 3, .ld = 2};
    assert_int_equal(sbw_svd_values(&bad, s), SBW_EINVAL);
    assert_int_equal(sbw_svd_values_f32(&badf, sf), SBW_EINVAL);
    assert_int_equal(sbw_svd_right(&bad, s, &vt), SBW_EINVAL);
    for (int i = 0; i < 6; i++) {
        assert_true(buf[i] == i + 1);
        assert_true(buff[i] == (float)(i + 1));
    }
    assert_true(s[0] == -7 && s[1] == -7 && sf[0] == -7 && sf[1] == -7);
    assert_null(vt.data);
}

/* The _work paths (sbw_svd.h) give the same bits as the allocating ones,
 * in a workspace reused across calls of one shape, with a few larger
 * shapes (where gesdd blocks and reduces by QR/LQ first); a workspace one
 * byte short is SBW_EINVAL with A and s untouched. */
static void work_same_bits(const sbw_mat *a)
{
    size_t k = a->rows < a->cols ? a->rows : a->cols, bytes = 0, bf = 0;
    double *s = malloc(k * sizeof *s), *sw = malloc(k * sizeof *sw);
    float *sf = malloc(k * sizeof *sf), *swf = malloc(k * sizeof *swf);
    sbw_mat c = {0};
    sbw_mat_f32 f = {0}, g = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&g, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_svd_values_work_size(a->rows, a->cols, &bytes));
    SBW_ASSERT_OK(sbw_svd_values_f32_work_size(a->rows, a->cols, &bf));
    void *w = malloc(bytes), *wf = malloc(bf);
    assert_non_null(w);
    assert_non_null(wf);
    for (int rep = 0; rep < 2; rep++) { /* the second call reuses a dirty workspace */
        SBW_ASSERT_OK(sbw_mat_copy(&c, a));
        SBW_ASSERT_OK(sbw_svd_values(&c, s));
        SBW_ASSERT_OK(sbw_mat_copy(&c, a));
        SBW_ASSERT_OK(sbw_svd_values_work(&c, sw, w, bytes));
        assert_memory_equal(s, sw, k * sizeof *s);
        SBW_ASSERT_OK(sbw_mat_to_float(&f, a));
        SBW_ASSERT_OK(sbw_svd_values_f32(&f, sf));
        SBW_ASSERT_OK(sbw_mat_to_float(&g, a));
        SBW_ASSERT_OK(sbw_svd_values_f32_work(&g, swf, wf, bf));
        assert_memory_equal(sf, swf, k * sizeof *sf);
    }
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    sw[0] = -7;
    assert_int_equal(sbw_svd_values_work(&c, sw, w, bytes - 1), SBW_EINVAL);
    assert_int_equal(sbw_svd_values_work(&c, sw, NULL, bytes), SBW_EINVAL);
    assert_true(sw[0] == -7);
    double diff = 0;
    SBW_ASSERT_OK(sbw_mat_max_abs_diff(&c, a, &diff));
    assert_true(diff == 0);
    free(w);
    free(wf);
    free(s);
    free(sw);
    free(sf);
    free(swf);
    sbw_mat_free(&c);
    sbw_mat_f32_free(&f);
    sbw_mat_f32_free(&g);
}

static void test_values_work(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(5);
    const size_t big[][2] = {{300, 200}, {200, 300}, {400, 30}, {30, 400}};
    for (size_t i = 0; i < NSHAPES + 4; i++) {
        const size_t *sh = i < NSHAPES ? shapes[i] : big[i - NSHAPES];
        sbw_mat a = {0};
        SBW_ASSERT_OK(tm_gauss(&a, sh[0], sh[1], rng));
        work_same_bits(&a);
        sbw_mat_free(&a);
    }
    size_t bytes = 0;
    assert_int_equal(sbw_svd_values_work_size(0, 3, &bytes), SBW_ESHAPE);
    assert_int_equal(sbw_svd_values_f32_work_size(3, 0, &bytes), SBW_ESHAPE);
    assert_true(bytes == 0);
    sbw_rng_free(rng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_vs_jacobi),
        cmocka_unit_test(test_values_padded_view),
        cmocka_unit_test(test_values_f32_vs_jacobi),
        cmocka_unit_test(test_right_vectors),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_failure_leaves),
        cmocka_unit_test(test_values_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
