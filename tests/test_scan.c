/* test_scan.c -- range, non-finite entries and row normalisation. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_scan.h"

#include <math.h>
#include <string.h>

static void scan_fixture(const char *name, sbw_scan *s)
{
    sbw_npy_reader *r;
    SBW_ASSERT_OK(sbw_npy_open(&r, sbw_test_fixture(name)));
    sbw_scan_init(s, 1e-8);
    SBW_ASSERT_OK(sbw_scan_reader(r, s, NULL));
    sbw_npy_close(r);
}

static void test_kinds(void **state)
{
    (void)state;
    sbw_scan s;
    scan_fixture("logp.npy", &s);
    assert_string_equal(sbw_scan_kind(&s), "log-probabilities");
    SBW_ASSERT_LE(s.max_abs_lse, 1e-15);
    scan_fixture("probs.npy", &s);
    assert_string_equal(sbw_scan_kind(&s), "probabilities");
    SBW_ASSERT_LE(s.max_abs_sum_dev, 1e-15);
    scan_fixture("f8_c.npy", &s);
    assert_string_equal(sbw_scan_kind(&s), "other");
    SBW_ASSERT_EQ(s.min, -0.625);
    SBW_ASSERT_EQ(s.max, 0.75);
    scan_fixture("logp_zero.npy", &s); /* a zero probability is still normalised */
    assert_string_equal(sbw_scan_kind(&s), "log-probabilities");
    assert_int_equal(s.neginf, 1);
    assert_true(s.any_bad);
    SBW_ASSERT_EQ(s.bad_row, 1);
    SBW_ASSERT_EQ(s.bad_col, 2);
}

static void test_nonfinite_positions(void **state)
{
    (void)state;
    sbw_scan s;
    scan_fixture("nonfinite.npy", &s);
    assert_int_equal(s.nan, 1);
    assert_int_equal(s.posinf, 1);
    assert_int_equal(s.neginf, 1);
    assert_int_equal(s.bad_row, 1);
    assert_int_equal(s.bad_col, 2);
    SBW_ASSERT_EQ(s.max, 0.625); /* finite entries only */
    assert_string_equal(sbw_scan_kind(&s), "other");
}

/* Scanning one row at a time gives what one call over everything gives;
 * the worst row is found. */
static void test_block_invariance(void **state)
{
    (void)state;
    double a[5][3] = {{0, -1, -2},
                      {-0.5, -0.5, -3},
                      {1, 2, 3},
                      {-1.0986122886681098, -1.0986122886681098, -1.0986122886681098},
                      {-20, 0, -20}};
    sbw_scan one, many;
    sbw_scan_init(&one, 1e-8);
    sbw_scan_init(&many, 1e-8);
    sbw_scan_rows(&one, &a[0][0], 5, 3, 3);
    for (size_t i = 0; i < 5; i++)
        sbw_scan_rows(&many, a[i], 1, 3, 3);
    assert_int_equal(one.rows, 5);
    assert_memory_equal(&one, &many, sizeof one);
    assert_int_equal(one.worst_lse_row, 2); /* lse(1,2,3) = 3.41 */
    SBW_ASSERT_NEAR(one.max_abs_lse, 3.0 + log(1 + exp(-1.0) + exp(-2.0)), 1e-15);
    /* rows 3 and 4: lse(-20, 0, -20) = log(1 + 2 e^-20) = 4.1e-9 <= tol */
    assert_int_equal(one.rows_logprob, 2);
}

static void test_checks(void **state)
{
    (void)state;
    sbw_scan s;
    scan_fixture("logp.npy", &s);
    SBW_ASSERT_OK(sbw_scan_check_finite(&s, "x.npy"));
    SBW_ASSERT_OK(sbw_scan_check_logprob(&s, "x.npy"));
    scan_fixture("nonfinite.npy", &s);
    assert_int_equal(sbw_scan_check_finite(&s, "x.npy"), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "x.npy: 3 non-finite entries (1 NaN, 1 +Inf, 1 "
                                               "-Inf), the first at row 1, column 2"));
    assert_non_null(strstr(sbw_error_reason(), "zero probability"));
    scan_fixture("probs.npy", &s);
    assert_int_equal(sbw_scan_check_logprob(&s, "p.npy"), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "p.npy: 3 of 3 rows are not normalised"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_nonfinite_positions),
        cmocka_unit_test(test_block_invariance),
        cmocka_unit_test(test_checks),
    };
    return cmocka_run_group_tests_name("scan", tests, NULL, NULL);
}
