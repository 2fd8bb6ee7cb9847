/* test_gemm.c -- core/sbw_gemm: the bfloat16 rounding against its naive
 * twin, and bfloat16 GEMMs through oneDNN against a double-precision
 * product of the rounded inputs, in every transpose, leading dimension,
 * alpha and beta, with kept operands and sub-blocks of them.  On a CPU
 * without AVX-512 BF16 the GEMM tests are skipped with a note (the
 * rounding tests run everywhere). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_gemm.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool have_bf16(void)
{
    char why[256];
    if (sbw_gemm_bf16_supported(why, sizeof why))
        return true;
    printf("note: bfloat16 GEMM tests skipped: %s\n", why);
    return false;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The fast rounding equals the twin on every special value, on the ties
 * around them, and on two million random bit patterns. */
static void test_round_twin(void **state)
{
    (void)state;
    static const uint32_t edge[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x00008000u, 0x00018000u,
                                    0x00007fffu, 0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u,
                                    0x7f7fffffu, 0x7f7f8000u, 0x7f7f7fffu, 0xff7fffffu, 0x7f800000u,
                                    0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x7fbfffffu,
                                    0x007fffffu, 0x00800000u, 0x3f800000u, 0xbf808000u};
    size_t ne = sizeof edge / sizeof *edge, n = 2000000;
    float *x = malloc((ne + n) * sizeof *x);
    uint16_t *y = malloc((ne + n) * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 27);
    for (size_t i = 0; i < ne; i++)
        x[i] = from_bits(edge[i]);
    for (size_t i = 0; i < n; i++)
        x[ne + i] = from_bits((uint32_t)gsl_rng_get(r));
    sbw_gemm_bf16_round(x, y, ne + n);
    for (size_t i = 0; i < ne + n; i++) {
        uint16_t want = sbw_gemm_bf16_round_ref(x[i]);
        if (isnan(x[i])) { /* any quiet NaN of the same sign */
            SBW_ASSERT_EQ(y[i] & 0xffc0u, want & 0xffc0u);
            continue;
        }
        if (y[i] != want) {
            uint32_t u;
            memcpy(&u, &x[i], sizeof u);
            fail_msg("x = %a (bits %08x): fast %04x, twin %04x", (double)x[i], (unsigned)u, y[i],
                     want);
        }
    }
    /* the twin itself on hand-worked ties: 1 + 2^-8 is halfway between 1 and
     * 1 + 2^-7 and goes to the even 1; 1 + 3 * 2^-8 goes up to 1 + 2^-6 */
    SBW_ASSERT_EQ(sbw_gemm_bf16_round_ref(1.0f + 0x1p-8f), 0x3f80u);
    SBW_ASSERT_EQ(sbw_gemm_bf16_round_ref(1.0f + 0x3p-8f), 0x3f82u);
    SBW_ASSERT_EQ(sbw_gemm_bf16_round_ref(FLT_MAX), 0x7f80u);
    gsl_rng_free(r);
    free(x);
    free(y);
}

/* A stored operand rows x cols (leading dim ld) of uniform [-1, 1). */
static float *rand_mat(gsl_rng *r, int rows, int ld)
{
    float *a = malloc((size_t)rows * (size_t)ld * sizeof *a);
    assert_non_null(a);
    for (size_t i = 0; i < (size_t)rows * (size_t)ld; i++)
        a[i] = (float)(2 * gsl_rng_uniform(r) - 1);
    return a;
}

static double rounded(float x) { return sbw_gemm_bf16_value(sbw_gemm_bf16_round_ref(x)); }

/* Entry (i, j) of op(X) for X stored with leading dim ld. */
static float at(const float *x, bool trans, int ld, int i, int j)
{
    return trans ? x[(size_t)j * (size_t)ld + (size_t)i] : x[(size_t)i * (size_t)ld + (size_t)j];
}

/* C (from C0) against the twin: alpha sum_k bf(A_ik) bf(B_kj) + beta C0_ij
 * in double.  Each product of two bfloat16 values is exact in float, so
 * the only error is float32 accumulation: |err| <= (k + 2) eps_f
 * (|alpha| sum_k |a b| + |beta C0|), the standard bound for a
 * k-term sum with a final scale and add. */
static void check_twin(const float *C, const float *C0, int ldc, bool ta, bool tb, int m, int n,
                       int k, float alpha, const float *A, int lda, const float *B, int ldb,
                       float beta)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0, mag = 0;
            for (int l = 0; l < k; l++) {
                double p = rounded(at(A, ta, lda, i, l)) * rounded(at(B, tb, ldb, l, j));
                s += p, mag += fabs(p);
            }
            double c0 = C0[(size_t)i * (size_t)ldc + (size_t)j];
            double add = beta != 0 ? beta * c0 : 0; /* beta 0: C0's NaN is not read */
            double want = alpha * s + add;
            double tol = (k + 2) * (double)FLT_EPSILON * (fabs(alpha) * mag + fabs(add));
            double got = C[(size_t)i * (size_t)ldc + (size_t)j];
            if (!(fabs(got - want) <= tol))
                fail_msg("(%d, %d) of %dx%dx%d ta %d tb %d: %.9g, twin %.9g (tol %.3g)", i, j, m, n,
                         k, ta, tb, got, want, tol);
        }
}

/* One call of every transpose pair, leading dims wider than the data,
 * alpha 1 and not, beta 0, 1 and 0.5, C holding NaN where beta is 0. */
static void test_gemm_twin(void **state)
{
    (void)state;
    if (!have_bf16())
        return;
    sbw_gemm *g;
    assert_int_equal(sbw_gemm_alloc(&g), SBW_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    static const int shape[][3] = {{37, 53, 29}, {1, 70, 300}, {64, 1, 33}, {130, 97, 200}};
    static const float ab[][2] = {{1, 0}, {1, 1}, {0.75f, 0.5f}, {-2, 0}};
    for (size_t s = 0; s < 4; s++)
        for (int t = 0; t < 4; t++) {
            bool ta = t & 1, tb = t & 2;
            int m = shape[s][0], n = shape[s][1], k = shape[s][2];
            int lda = (ta ? m : k) + 3, ldb = (tb ? k : n) + 5, ldc = n + 2;
            float *A = rand_mat(r, ta ? k : m, lda), *B = rand_mat(r, tb ? n : k, ldb);
            float *C = rand_mat(r, m, ldc), *C0 = malloc((size_t)m * (size_t)ldc * sizeof *C0);
            float alpha = ab[(s + (size_t)t) % 4][0], beta = ab[(s + (size_t)t) % 4][1];
            if (beta == 0)
                C[0] = NAN; /* beta 0 overwrites, as BLAS does */
            memcpy(C0, C, (size_t)m * (size_t)ldc * sizeof *C);
            sbw_gemm_f(g, 0, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n,
                       k, alpha, A, lda, B, ldb, beta, C, ldc);
            assert_int_equal(sbw_gemm_status(g), SBW_OK);
            check_twin(C, C0, ldc, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta);
            free(A), free(B), free(C), free(C0);
        }
    size_t calls, conv;
    sbw_gemm_counts(g, &calls, &conv);
    SBW_ASSERT_EQ(calls, (size_t)16); /* every call ran on oneDNN */
    gsl_rng_free(r);
    sbw_gemm_free(g);
}

/* The bfloat16 product against the float32 one: each input's rounding
 * moves it by at most 2^-8 relative, so a product by at most 2^-7 + 2^-16
 * and the sum by that times sum |a b|; float accumulation adds k eps. */
static void test_gemm_vs_float(void **state)
{
    (void)state;
    if (!have_bf16())
        return;
    sbw_gemm *g;
    assert_int_equal(sbw_gemm_alloc(&g), SBW_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    int m = 96, n = 80, k = 512;
    float *A = rand_mat(r, m, k), *B = rand_mat(r, n, k);
    float *C = calloc((size_t)m * (size_t)n, sizeof *C),
          *F = calloc((size_t)m * (size_t)n, sizeof *F);
    sbw_gemm_f(g, 0, CblasNoTrans, CblasTrans, m, n, k, 1, A, k, B, k, 0, C, n);
    sbw_gemm_f(NULL, 0, CblasNoTrans, CblasTrans, m, n, k, 1, A, k, B, k, 0, F, n);
    double worst = 0, seen = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double mag = 0;
            for (int l = 0; l < k; l++)
                mag += fabs((double)A[i * k + l] * B[j * k + l]);
            double bound = (0x1p-7 + 0x1p-16 + 2.0 * (k + 2) * FLT_EPSILON) * mag;
            double e = fabs((double)C[i * n + j] - F[i * n + j]);
            SBW_ASSERT_LE(e, bound);
            worst = e / mag > worst ? e / mag : worst;
            seen += e;
        }
    SBW_ASSERT_GT(seen, 0.0); /* the bfloat16 path is not float32 in disguise */
    printf("note: bfloat16 vs float32, largest |error| / sum|ab| = %.3g (bound %.3g)\n", worst,
           0x1p-7 + 0x1p-16 + 2.0 * (k + 2) * FLT_EPSILON);
    free(A), free(B), free(C), free(F);
    gsl_rng_free(r);
    sbw_gemm_free(g);
}

/* A kept operand is converted once and serves later calls on it and on
 * a sub-block of it (rows and columns inside, the same leading dim);
 * after sbw_gemm_forget a changed block is read afresh.  Every answer
 * equals the one from an unkept call bit for bit. */
static void test_gemm_keep(void **state)
{
    (void)state;
    if (!have_bf16())
        return;
    sbw_gemm *g;
    assert_int_equal(sbw_gemm_alloc(&g), SBW_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9);
    int m = 40, n = 50, k = 60, ld = 64;
    float *W = rand_mat(r, n, ld), *X = rand_mat(r, m, k);
    float *C1 = calloc((size_t)m * (size_t)n, sizeof *C1),
          *C2 = calloc((size_t)m * (size_t)n, sizeof *C2);
    size_t calls, c0, c1;
    sbw_gemm_f(g, SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, m, n, k, 1, X, k, W, ld, 0, C1, n);
    sbw_gemm_counts(g, &calls, &c0);
    sbw_gemm_f(g, SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, m, n, k, 1, X, k, W, ld, 0, C1, n);
    sbw_gemm_counts(g, &calls, &c1);
    SBW_ASSERT_EQ(c1 - c0, (size_t)1); /* X again, W from its copy */
    sbw_gemm *h;                       /* a fresh context: nothing kept */
    assert_int_equal(sbw_gemm_alloc(&h), SBW_OK);
    sbw_gemm_f(h, 0, CblasNoTrans, CblasTrans, m, n, k, 1, X, k, W, ld, 0, C2, n);
    assert_memory_equal(C1, C2, (size_t)m * (size_t)n * sizeof *C1);
    /* a sub-block: rows 3.. and columns 2.. of W, k - 2 wide */
    sbw_gemm_f(g, 0, CblasNoTrans, CblasTrans, m, n - 3, k - 2, 1, X, k,
               W + (size_t)3 * (size_t)ld + 2, ld, 0, C1, n);
    sbw_gemm_f(h, 0, CblasNoTrans, CblasTrans, m, n - 3, k - 2, 1, X, k,
               W + (size_t)3 * (size_t)ld + 2, ld, 0, C2, n);
    assert_memory_equal(C1, C2, (size_t)m * (size_t)n * sizeof *C1);
    sbw_gemm_counts(g, &calls, &c0);
    SBW_ASSERT_EQ(c0 - c1, (size_t)1); /* only X was converted */
    /* changed after forget: the new values count */
    for (int i = 0; i < n * ld; i++)
        W[i] = -W[i];
    sbw_gemm_forget(g, W);
    sbw_gemm_f(g, SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, m, n, k, 1, X, k, W, ld, 0, C1, n);
    sbw_gemm_f(h, 0, CblasNoTrans, CblasTrans, m, n, k, 1, X, k, W, ld, 0, C2, n);
    assert_memory_equal(C1, C2, (size_t)m * (size_t)n * sizeof *C1);
    assert_int_equal(sbw_gemm_status(g), SBW_OK);
    free(W), free(X), free(C1), free(C2);
    gsl_rng_free(r);
    sbw_gemm_free(g);
    sbw_gemm_free(h);
}

/* Two runs of the same call give the same bits (oneDNN's split depends
 * on threads and shape only). */
static void test_gemm_repeat(void **state)
{
    (void)state;
    if (!have_bf16())
        return;
    sbw_gemm *g;
    assert_int_equal(sbw_gemm_alloc(&g), SBW_OK);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    int m = 300, n = 257, k = 1000;
    float *A = rand_mat(r, k, m), *B = rand_mat(r, k, n);
    float *C1 = calloc((size_t)m * (size_t)n, sizeof *C1),
          *C2 = calloc((size_t)m * (size_t)n, sizeof *C2);
    sbw_gemm_f(g, 0, CblasTrans, CblasNoTrans, m, n, k, 1, A, m, B, n, 0, C1, n);
    sbw_gemm_f(g, 0, CblasTrans, CblasNoTrans, m, n, k, 1, A, m, B, n, 0, C2, n);
    assert_memory_equal(C1, C2, (size_t)m * (size_t)n * sizeof *C1);
    free(A), free(B), free(C1), free(C2);
    gsl_rng_free(r);
    sbw_gemm_free(g);
}

/* Without AVX-512 BF16, sbw_gemm_alloc refuses with the reason; with it,
 * the context is made.  Either way the answer agrees with the query. */
static void test_alloc_matches_cpu(void **state)
{
    (void)state;
    char why[256] = "";
    bool ok = sbw_gemm_bf16_supported(why, sizeof why);
    sbw_gemm *g = NULL;
    int st = sbw_gemm_alloc(&g);
    SBW_ASSERT_EQ(st == SBW_OK, ok);
    if (!ok) {
        assert_null(g);
        assert_non_null(strstr(sbw_error_reason(), "AVX-512 BF16"));
    }
    sbw_gemm_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_twin),    cmocka_unit_test(test_gemm_twin),
        cmocka_unit_test(test_gemm_vs_float), cmocka_unit_test(test_gemm_keep),
        cmocka_unit_test(test_gemm_repeat),   cmocka_unit_test(test_alloc_matches_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
