/* test_blas.c -- core/sbw_blas: OpenBLAS's thread count pushed and popped,
 * LAPACK info codes as statuses. */
#include "sbw_test.h"

#include "sbw_blas.h"
#include "sbw_error.h"

#include <string.h>

/* push sets the count and returns the one it replaces; pop restores it;
 * pairs nest. */
static void test_threads_push_pop(void **state)
{
    (void)state;
    int start = sbw_blas_threads_push(2);
    SBW_ASSERT_EQ(sbw_blas_threads(), 2);
    int outer = sbw_blas_threads_push(1);
    SBW_ASSERT_EQ(outer, 2);
    SBW_ASSERT_EQ(sbw_blas_threads(), 1);
    sbw_blas_threads_pop(outer);
    SBW_ASSERT_EQ(sbw_blas_threads(), 2);
    sbw_blas_threads_pop(start);
    SBW_ASSERT_EQ(sbw_blas_threads(), start);
}

/* info < 0: an illegal argument (usage), info > 0: no convergence. */
static void test_lapack_fail(void **state)
{
    (void)state;
    SBW_ASSERT_EQ(sbw_blas_lapack_fail("dgesdd", -4), SBW_EINVAL);
    assert_string_equal(sbw_error_reason(), "dgesdd: argument 4 had an illegal value");
    SBW_ASSERT_EQ(sbw_blas_lapack_fail("dtpqrt", 3), SBW_ENUMERIC);
    assert_string_equal(sbw_error_reason(), "dtpqrt: failed to converge (info 3)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_push_pop),
        cmocka_unit_test(test_lapack_fail),
    };
    return cmocka_run_group_tests_name("blas", tests, NULL, NULL);
}
