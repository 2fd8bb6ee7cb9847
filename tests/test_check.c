/* test_check.c -- the one input checker: shapes, finiteness from the bits
 * against the C library's isfinite, the dtype-scaled tolerance against
 * rows rounded to float32 for real, and the shared messages. */
#include "sbw_test.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_rng.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

static void assert_reason(const char *part)
{
    if (!strstr(sbw_error_reason(), part))
        fail_msg("reason '%s' lacks '%s'", sbw_error_reason(), part);
}

static sbw_npy_info shape(int ndim, size_t rows, size_t cols)
{
    return (sbw_npy_info){.ndim = ndim, .rows = rows, .cols = cols};
}

static void test_shapes(void **state)
{
    (void)state;
    sbw_npy_info in = shape(2, 3, 0);
    assert_int_equal(sbw_check_shape(&in, "a.npy", SBW_SHAPE_MATRIX), SBW_ESHAPE);
    assert_reason("a.npy: empty matrix (3 x 0): it has no columns");
    in = shape(2, 0, 4);
    assert_int_equal(sbw_check_shape(&in, "a.npy", SBW_SHAPE_ANY), SBW_ESHAPE);
    assert_reason("a.npy: empty matrix (0 x 4): it has no rows");
    in = shape(2, 0, 0);
    assert_int_equal(sbw_check_shape(&in, "a.npy", SBW_SHAPE_VECTOR), SBW_ESHAPE);
    assert_reason("(0 x 0): it has no rows or columns");
    in = shape(1, 0, 1);
    assert_int_equal(sbw_check_shape(&in, "v.npy", SBW_SHAPE_VECTOR), SBW_ESHAPE);
    assert_reason("v.npy: empty array (0 items)");
    assert_int_equal(sbw_check_shape(&in, "v.npy", SBW_SHAPE_MATRIX), SBW_ESHAPE);
    assert_reason("v.npy: a 1-D array of 0 items, not a matrix");
    in = shape(1, 5, 1);
    assert_int_equal(sbw_check_shape(&in, "v.npy", SBW_SHAPE_MATRIX), SBW_ESHAPE);
    assert_reason("a 1-D array of 5 items");
    SBW_ASSERT_OK(sbw_check_shape(&in, "v.npy", SBW_SHAPE_ANY));
    SBW_ASSERT_OK(sbw_check_shape(&in, "v.npy", SBW_SHAPE_VECTOR));
    in = shape(2, 3, 4);
    SBW_ASSERT_OK(sbw_check_shape(&in, "m.npy", SBW_SHAPE_MATRIX));
    assert_int_equal(sbw_check_shape(&in, "m.npy", SBW_SHAPE_VECTOR), SBW_ESHAPE);
    assert_reason("m.npy: not a vector: got shape 3 x 4");
    in = shape(2, 1, 4);
    SBW_ASSERT_OK(sbw_check_shape(&in, "m.npy", SBW_SHAPE_VECTOR));
    in = shape(2, 4, 1);
    SBW_ASSERT_OK(sbw_check_shape(&in, "m.npy", SBW_SHAPE_VECTOR));
}

static void test_open(void **state)
{
    (void)state;
    sbw_npy_reader *r = (sbw_npy_reader *)1;
    assert_int_equal(sbw_check_open(&r, sbw_test_fixture("vec_f8.npy"), SBW_SHAPE_MATRIX),
                     SBW_ESHAPE);
    assert_null(r);
    assert_int_equal(sbw_check_open(&r, sbw_test_fixture("rank_empty.npy"), SBW_SHAPE_ANY),
                     SBW_ESHAPE);
    assert_null(r);
    assert_reason("rank_empty.npy: empty matrix (0 x 5)");
    assert_int_equal(sbw_check_open(&r, sbw_test_fixture("i8.npy"), SBW_SHAPE_ANY), SBW_EDTYPE);
    assert_null(r);
    SBW_ASSERT_OK(sbw_check_open(&r, sbw_test_fixture("logp.npy"), SBW_SHAPE_MATRIX));
    assert_non_null(r);
    sbw_npy_close(r);
}

/* The bit test agrees with isfinite() for every position of every
 * non-finite kind in rows of every length 0..13 (the 4-lane loop and its
 * tail), and sbw_check_bad_rows with the naive counter. */
static void test_finite_bits(void **state)
{
    (void)state;
    const double odd[] = {NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MIN, 0x1p-1074, -0.0};
    double x[13];
    for (size_t n = 0; n <= 13; n++)
        for (size_t at = 0; at < n; at++)
            for (size_t k = 0; k < sizeof odd / sizeof *odd; k++) {
                for (size_t j = 0; j < n; j++)
                    x[j] = -(double)j / 3.0;
                x[at] = odd[k];
                bool want = true;
                for (size_t j = 0; j < n; j++)
                    want = want && isfinite(x[j]);
                if (sbw_check_all_finite(x, n) != want)
                    fail_msg("n %zu, x[%zu] = %g: got %d, want %d", n, at, odd[k], !want, want);
            }
    assert_true(sbw_check_all_finite(x, 0));
}

static void test_bad_counts(void **state)
{
    (void)state;
    /* 3 x 5 with leading dimension 6; the ld column holds a NaN that must
     * not be counted */
    double a[3][6] = {
        {0, 1, 2, 3, 4, NAN}, {0, -INFINITY, NAN, 3, INFINITY, NAN}, {NAN, 1, 2, 3, 4, NAN}};
    sbw_check_bad b = {0};
    sbw_check_bad_rows(&b, &a[0][0], 10, 3, 5, 6);
    size_t nan = 0, pinf = 0, ninf = 0;
    for (size_t i = 0; i < 3; i++) {
        size_t c[3];
        sbw_num_count_nonfinite(a[i], 5, &c[0], &c[1], &c[2], NULL);
        nan += c[0], pinf += c[1], ninf += c[2];
    }
    assert_int_equal(b.nan, nan);
    assert_int_equal(b.posinf, pinf);
    assert_int_equal(b.neginf, ninf);
    assert_true(b.any);
    assert_int_equal(b.row, 11);
    assert_int_equal(b.col, 1);
    /* merging keeps the earliest first position, whichever side holds it */
    sbw_check_bad late = {1, 0, 0, 50, 0, true}, early = {0, 1, 0, 11, 0, true};
    sbw_check_bad_merge(&late, &b);
    assert_int_equal(late.row, 11);
    assert_int_equal(late.col, 1);
    sbw_check_bad_merge(&b, &early);
    assert_int_equal(b.row, 11);
    assert_int_equal(b.col, 0);
    assert_int_equal(b.posinf, pinf + 1);
    assert_int_equal(sbw_check_bad_error(&b, "q.npy", " in log Q"), SBW_EDATA);
    assert_reason("q.npy: 5 non-finite entries in log Q (2 NaN, 2 +Inf, 1 -Inf), the first at "
                  "row 11, column 0 (0-based)");
    assert_reason("zero probability");
    sbw_check_bad none = {0};
    SBW_ASSERT_OK(sbw_check_bad_error(&none, "q.npy", NULL));
}

/* log-softmax rows rounded to float32 are always within the float32
 * tolerance (a zero caller's tol: the floor alone), while the same rows
 * moved by ten times that tolerance are not; float64 adds nothing to a
 * caller's 1e-6. */
static void test_row_tol(void **state)
{
    (void)state;
    gsl_rng *rng = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&rng, 11, 0));
    double x[700], xr[700];
    for (int trial = 0; trial < 300; trial++) {
        size_t m = 1 + gsl_rng_uniform_int(rng, 700);
        double scale = pow(10.0, gsl_rng_uniform(rng) * 3 - 1); /* 0.1 .. 100 */
        for (size_t j = 0; j < m; j++)
            x[j] = gsl_ran_gaussian(rng, scale);
        sbw_num_log_softmax(x, x, m);
        for (size_t j = 0; j < m; j++)
            xr[j] = (double)(float)x[j];
        double amax = sbw_check_amax(xr, m), lse = sbw_num_logsumexp(xr, m);
        double tol = sbw_check_row_tol(SBW_F32, 0.0, amax);
        if (!(fabs(lse) <= tol))
            fail_msg("m %zu, scale %g: float32 rounding moved logsumexp by %g > tol %g", m, scale,
                     lse, tol);
        for (size_t j = 0; j < m; j++)
            xr[j] += 10 * tol;
        lse = sbw_num_logsumexp(xr, m);
        if (!(fabs(lse) > sbw_check_row_tol(SBW_F32, 0.0, sbw_check_amax(xr, m))))
            fail_msg("m %zu: a shift of 10 tol (%g) passed", m, 10 * tol);
    }
    sbw_rng_free(rng);
    assert_true(sbw_check_row_tol(SBW_F64, 1e-6, 1e3) == 1e-6);
    assert_true(sbw_check_row_tol(SBW_F32, 1e-3, 10) == 1e-3); /* a wider tol wins */
    assert_true(sbw_check_row_tol(SBW_F32, 0, 0.5) == SBW_CHECK_ULPS * FLT_EPSILON);
    assert_true(sbw_check_eps(SBW_F32) == FLT_EPSILON && sbw_check_eps(SBW_F64) == DBL_EPSILON);
    const double y[] = {-3, NAN, -INFINITY, 2};
    assert_true(sbw_check_amax(y, 4) == 3);
}

static void test_messages(void **state)
{
    (void)state;
    assert_int_equal(sbw_check_entry_error("p.npy", 5, 2, NAN, false), SBW_EDATA);
    assert_reason("p.npy: row 5, column 2 (0-based) is NaN");
    sbw_check_entry_error("p.npy", 3, 1, INFINITY, false);
    assert_reason("p.npy: row 3, column 1 (0-based) is +inf");
    sbw_check_entry_error("p.npy", 2, 6, -INFINITY, false);
    assert_reason("row 2, column 6 (0-based) is -inf, a zero probability");
    sbw_check_entry_error("p.npy", 2, 6, -INFINITY, true);
    assert_reason("row 2, column 6 (0-based) is 0, a zero probability");
    const double probs[] = {0.25, 0.25, 0.5}, logs[] = {-1, -2, -0.5};
    assert_true(sbw_check_looks_like_probs(probs, 3, SBW_F64, 1e-6));
    assert_false(sbw_check_looks_like_probs(logs, 3, SBW_F64, 1e-6));
    assert_false(sbw_check_looks_like_probs(probs, 0, SBW_F64, 1e-6));
    double lse = sbw_num_logsumexp(probs, 3);
    assert_int_equal(sbw_check_unnormalised("u.npy", 4, probs, 3, lse, 1e-6, "P!", "N!"),
                     SBW_EDATA);
    assert_reason("u.npy: row 4 (0-based) is not normalised: logsumexp = ");
    assert_reason("|.| > tol 1e-06 (P!)");
    sbw_check_unnormalised("u.npy", 4, logs, 3, sbw_num_logsumexp(logs, 3), 1e-6, "P!", "N!");
    assert_reason("(N!)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),      cmocka_unit_test(test_open),
        cmocka_unit_test(test_finite_bits), cmocka_unit_test(test_bad_counts),
        cmocka_unit_test(test_row_tol),     cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
