/* test_asserts.c -- the comparison assertions of sbw_test.h: they decide
 * as the C operators do, pick the operand type the operators would, and
 * their failure messages name both expressions and both values. */
#include "sbw_test.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define NOPS 6

/* Each operator on (lo, hi), (hi, hi), (hi, lo): which hold, in the order
 * LT LE GT GE EQ NE. */
static const bool want_lo_hi[NOPS] = {true, true, false, false, false, true};
static const bool want_eq[NOPS] = {false, true, false, true, true, false};
static const bool want_hi_lo[NOPS] = {false, false, true, true, false, true};

static void test_holds_like_the_operators(void **state)
{
    (void)state;
    for (int k = 0; k < NOPS; k++) {
        enum sbw_test_op op = (enum sbw_test_op)k;
        assert_int_equal(sbw_test_holds_d(-1.5, op, 0x1p-1074), want_lo_hi[k]);
        assert_int_equal(sbw_test_holds_d(-0.0, op, 0.0), want_eq[k]); /* -0 == +0 */
        assert_int_equal(sbw_test_holds_d(INFINITY, op, DBL_MAX), want_hi_lo[k]);
        assert_int_equal(sbw_test_holds_i(LLONG_MIN, op, -1), want_lo_hi[k]);
        assert_int_equal(sbw_test_holds_i(7, op, 7), want_eq[k]);
        assert_int_equal(sbw_test_holds_i(0, op, -1), want_hi_lo[k]);
        assert_int_equal(sbw_test_holds_u(0, op, ULLONG_MAX), want_lo_hi[k]);
        assert_int_equal(sbw_test_holds_u(ULLONG_MAX, op, ULLONG_MAX), want_eq[k]);
        assert_int_equal(sbw_test_holds_u(UINT64_C(1) << 63, op, 1), want_hi_lo[k]);
        /* NaN: only != holds */
        assert_int_equal(sbw_test_holds_d(NAN, op, 1.0), op == SBW_TEST_NE);
        assert_int_equal(sbw_test_holds_d(NAN, op, NAN), op == SBW_TEST_NE);
    }
}

/* Every operand type the macros accept, on cases that hold. */
static void test_macros_pass_on_true_comparisons(void **state)
{
    (void)state;
    size_t n = 5;
    uint64_t big = UINT64_MAX;
    int neg = -3;
    long l = -4000000000L;
    float f = 0.25f;
    double x = 1e-300;
    SBW_ASSERT_LT(n, 6);
    SBW_ASSERT_LE(n, 5);
    SBW_ASSERT_GT(big, UINT64_MAX - 1);
    SBW_ASSERT_EQ(big, UINT64_MAX);
    SBW_ASSERT_NE(neg, 3);
    SBW_ASSERT_LT(l, neg);
    SBW_ASSERT_GE(f, 0.25f);
    SBW_ASSERT_LT(f, 0.25000001); /* float against double: compared as double */
    SBW_ASSERT_GT(x, 0.0);
    SBW_ASSERT_LE(neg, x); /* int against double */
    SBW_ASSERT_NE(NAN, NAN);
    SBW_ASSERT_ABS_LE(-0.5, 0.5);
    SBW_ASSERT_ABS_LT(-x, 1e-299);
    SBW_ASSERT_ABS_LE(-0.0, 0.0);
}

/* The macros evaluate each operand once. */
static void test_operands_evaluated_once(void **state)
{
    (void)state;
    int i = 0;
    double d = 0.0;
    SBW_ASSERT_EQ(i++, 0);
    SBW_ASSERT_LT(d += 1.0, 1.5);
    SBW_ASSERT_ABS_LE(d *= 2.0, 2.0);
    assert_int_equal(i, 1);
    SBW_ASSERT_EQ(d, 2.0);
}

static void test_failure_message(void **state)
{
    (void)state;
    char buf[256];
    int len = sbw_test_format_d(buf, sizeof buf, 0.1, SBW_TEST_GE, 0.5, "kl", "-tol");
    const char *want =
        "expected kl >= -tol: kl = 0.10000000000000001, -tol = 0.5 (difference -0.4)";
    assert_string_equal(buf, want);
    assert_int_equal(len, strlen(want));
    sbw_test_format_abs(buf, sizeof buf, -3e-6, false, 1e-6, "a - b", "eps");
    assert_string_equal(buf, "expected |a - b| <= eps: a - b = -3.0000000000000001e-06, "
                             "|a - b| = 3.0000000000000001e-06, eps = 9.9999999999999995e-07");
    sbw_test_format_abs(buf, sizeof buf, NAN, true, 1.0, "x", "1");
    assert_string_equal(buf, "expected |x| < 1: x = nan, |x| = nan, 1 = 1");
    /* a short buffer is truncated, still terminated */
    len = sbw_test_format_d(buf, 9, 1.0, SBW_TEST_LT, 1.0, "a", "b");
    assert_string_equal(buf, "expected");
    SBW_ASSERT_GT(len, 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holds_like_the_operators),
        cmocka_unit_test(test_macros_pass_on_true_comparisons),
        cmocka_unit_test(test_operands_evaluated_once),
        cmocka_unit_test(test_failure_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
