/* test_tsqr.c -- the streaming TSQR (flat, merged, centred, with a last
 * column) against the one-sided Jacobi twin of sbw_svd; every error path.
 *
 * Tolerance (see test_svd.c for the SV_TOL eps sigma_0 of one LAPACK SVD):
 *
 * A flat TSQR updates one triangle B times in sequence: each column's norm
 * is carried through B rounded updates, a random walk of about sqrt(B)
 * steps of eps sigma_0 (measured over 40 seeds of 64..1024 single-row
 * blocks of N(-5, 1) x 19: worst 0.9-1.0 sqrt(B) eps sigma_0; a flat
 * SV_TOL, passed by this seed, fails others at B = 257).  In float32 with
 * 1-2-row blocks it grows faster past B ~ 1000 (about B^1.4: stpqrt's own
 * accumulation, the same on data centred beforehand); these tests keep
 * B <= 257.  So TSQR is allowed (SV_TOL + sqrt(B)) eps sigma_0, with
 * sigma_0 that of the matrix factorised (the centred one when centring):
 * the centring happens in double before the rounding to the working
 * precision, so its error is at the centred scale and needs no
 * eps max|a_ij| term (centred, this seed: worst 5.5 eps sigma_0 at
 * B = 257; 40 seeds: 8.6). */
#include "sbw_svd.h"
#include "sbw_svd_ref.h"
#include "sbw_tsqr.h"
#include "sbw_test.h"
#include "sbw_test_mats.h"

#include "sbw_rng.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#define SV_TOL 8.0

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 4242, stream));
    return r;
}

/* Stacks a through a TSQR in blocks of b rows (split over nacc accumulators
 * merged at the end), returns R's singular values in s. */
static void tsqr_values(const sbw_mat *a, size_t b, size_t nacc, bool center, sbw_npy_dtype prec,
                        double *s)
{
    sbw_tsqr *q[3] = {0};
    for (size_t t = 0; t < nacc; t++)
        SBW_ASSERT_OK(sbw_tsqr_alloc(&q[t], a->cols, b, center, prec));
    size_t blk = 0;
    for (size_t r0 = 0; r0 < a->rows; r0 += b, blk++) {
        size_t nr = a->rows - r0 < b ? a->rows - r0 : b;
        SBW_ASSERT_OK(sbw_tsqr_add(q[blk % nacc], a->data + r0 * a->ld, nr, a->ld, NULL));
    }
    for (size_t t = 1; t < nacc; t++)
        SBW_ASSERT_OK(sbw_tsqr_merge(q[0], q[t]));
    assert_int_equal(sbw_tsqr_count(q[0]), a->rows);
    sbw_mat r = {0};
    SBW_ASSERT_OK(sbw_tsqr_take(q[0], &r));
    for (size_t i = 0; i < r.rows; i++) /* upper triangular */
        for (size_t j = 0; j < i; j++)
            SBW_ASSERT_EQ(SBW_MAT_AT(&r, i, j), 0.0);
    SBW_ASSERT_OK(sbw_svd_values(&r, s));
    sbw_mat_free(&r);
    for (size_t t = 0; t < nacc; t++)
        sbw_tsqr_free(q[t]);
}

static void check_tsqr(const sbw_mat *a, bool center, sbw_npy_dtype prec)
{
    const size_t blocks[] = {1, 2, 5, 16, 19, 100, 257};
    double s[64], sj[64];
    sbw_mat c = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&c, a->rows, a->cols));
    SBW_ASSERT_OK(sbw_mat_copy(&c, a));
    tm_centre(&c, false, center);
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, sj));
    double eps = prec == SBW_F32 ? FLT_EPSILON : DBL_EPSILON;
    for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
        for (size_t nacc = 1; nacc <= 3; nacc++) {
            if (blocks[i] > a->rows)
                continue;
            tsqr_values(a, blocks[i], nacc, center, prec, s);
            /* the longest chain of updates into one triangle: its share
             * of the blocks, then the merges (see the header) */
            double nb = ceil((double)a->rows / (double)blocks[i]);
            double chain = ceil(nb / (double)nacc) + (double)(nacc - 1);
            SBW_ASSERT_CLOSE(s, sj, a->cols, (SV_TOL + sqrt(chain)) * eps * sj[0], 0.0);
        }
    sbw_mat_free(&c);
}

static void test_tsqr_vs_jacobi(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(5);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_gauss(&a, 257, 19, rng));
    for (size_t i = 0; i < a.rows * a.cols; i++) /* a large column mean, as in log P */
        a.data[i] -= 5.0;
    check_tsqr(&a, false, SBW_F64);
    check_tsqr(&a, true, SBW_F64);
    check_tsqr(&a, false, SBW_F32);
    check_tsqr(&a, true, SBW_F32);
    sbw_mat_free(&a);
    /* rank-deficient and fewer rows than columns in a block */
    SBW_ASSERT_OK(tm_product(&a, 101, 13, 4, rng));
    check_tsqr(&a, false, SBW_F64);
    check_tsqr(&a, true, SBW_F64);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* TSQR of a matrix with fewer rows than columns: R has the same nonzero
 * singular values, and zeros for the rest. */
static void test_tsqr_wide(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(6);
    sbw_mat a = {0};
    double s[12], sj[5];
    SBW_ASSERT_OK(tm_gauss(&a, 5, 12, rng));
    tsqr_values(&a, 2, 2, false, SBW_F64, s);
    SBW_ASSERT_OK(sbw_svd_ref_jacobi(&a, sj));
    SBW_ASSERT_CLOSE(s, sj, 5, SV_TOL * DBL_EPSILON * sj[0], 0.0);
    for (size_t j = 5; j < 12; j++)
        SBW_ASSERT_NEAR(s[j], 0.0, SV_TOL * DBL_EPSILON * sj[0]);
    sbw_mat_free(&a);
    sbw_rng_free(rng);
}

/* [A | last]: the final column from a separate array equals stacking the
 * concatenated matrix, centred or not. */
static void test_tsqr_last_column(void **state)
{
    (void)state;
    gsl_rng *rng = rng_for(7);
    sbw_mat a = {0}, full = {0};
    SBW_ASSERT_OK(tm_gauss(&a, 57, 6, rng));
    SBW_ASSERT_OK(sbw_mat_alloc(&full, 57, 7));
    double last[57], s[7], sj[7];
    for (size_t i = 0; i < 57; i++) {
        last[i] = 30.0 + gsl_ran_gaussian(rng, 1.0);
        for (size_t j = 0; j < 6; j++)
            SBW_MAT_AT(&full, i, j) = SBW_MAT_AT(&a, i, j);
        SBW_MAT_AT(&full, i, 6) = last[i];
    }
    for (int center = 0; center <= 1; center++) {
        sbw_tsqr *q = NULL;
        sbw_mat r = {0}, c = {0};
        SBW_ASSERT_OK(sbw_tsqr_alloc(&q, 7, 10, center, SBW_F64));
        for (size_t r0 = 0; r0 < 57; r0 += 10)
            SBW_ASSERT_OK(
                sbw_tsqr_add(q, a.data + r0 * 6, 57 - r0 < 10 ? 57 - r0 : 10, 6, last + r0));
        double mean[7];
        sbw_tsqr_means(q, mean);
        for (size_t j = 0; center && j < 7; j++) {
            double mu = 0;
            for (size_t i = 0; i < 57; i++)
                mu += SBW_MAT_AT(&full, i, j) / 57.0;
            SBW_ASSERT_NEAR(mean[j], mu, 64 * DBL_EPSILON * fabs(mu) + 1e-15);
        }
        SBW_ASSERT_OK(sbw_tsqr_take(q, &r));
        SBW_ASSERT_OK(sbw_svd_values(&r, s));
        SBW_ASSERT_OK(sbw_mat_alloc(&c, 57, 7));
        SBW_ASSERT_OK(sbw_mat_copy(&c, &full));
        tm_centre(&c, false, center);
        SBW_ASSERT_OK(sbw_svd_ref_jacobi(&c, sj));
        SBW_ASSERT_CLOSE(s, sj, 7, SV_TOL * DBL_EPSILON * sqrt(6) * sj[0] * 2, 0.0);
        sbw_mat_free(&r);
        sbw_mat_free(&c);
        sbw_tsqr_free(q);
    }
    sbw_mat_free(&a);
    sbw_mat_free(&full);
    sbw_rng_free(rng);
}

static void test_errors(void **state)
{
    (void)state;
    double buf[6] = {1, 2, 3, 4, 5, 6};
    sbw_mat r = {0};
    sbw_tsqr *q = NULL, *q2 = NULL;
    assert_int_equal(sbw_tsqr_alloc(&q, 0, 4, false, SBW_F64), SBW_EINVAL);
    assert_null(q);
    assert_int_equal(sbw_tsqr_alloc(&q, 3, 0, false, SBW_F64), SBW_EINVAL);
    SBW_ASSERT_OK(sbw_tsqr_alloc(&q, 3, 1, false, SBW_F64));
    assert_int_equal(sbw_tsqr_add(q, buf, 2, 3, NULL), SBW_EINVAL); /* 2 rows > capacity 1 */
    assert_int_equal(sbw_tsqr_add(q, buf, 1, 2, NULL), SBW_EINVAL); /* ld < n */
    SBW_ASSERT_OK(sbw_tsqr_alloc(&q2, 3, 1, true, SBW_F64));
    assert_int_equal(sbw_tsqr_merge(q, q2), SBW_EINVAL); /* centring differs */
    SBW_ASSERT_OK(sbw_tsqr_add(q, buf, 1, 3, NULL));
    SBW_ASSERT_OK(sbw_tsqr_take(q, &r));
    assert_int_equal(sbw_tsqr_take(q, &r), SBW_EINVAL);
    assert_int_equal(sbw_tsqr_add(q, buf, 1, 3, NULL), SBW_EINVAL);
    sbw_mat_free(&r);
    sbw_tsqr_free(q);
    sbw_tsqr_free(q2);
    sbw_tsqr_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsqr_vs_jacobi),
        cmocka_unit_test(test_tsqr_wide),
        cmocka_unit_test(test_tsqr_last_column),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
