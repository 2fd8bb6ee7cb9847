/* test_mat.c -- matrix allocation, views, copies, conversions. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_mat.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_alloc_zeroed_and_free(void **state)
{
    (void)state;
    sbw_mat m = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&m, 5, 3));
    assert_int_equal(m.ld, 3);
    assert_true(m.owner);
    assert_int_equal((uintptr_t)m.data % 64, 0);
    for (size_t k = 0; k < 15; k++)
        SBW_ASSERT_EQ(m.data[k], 0.0);
    sbw_mat_free(&m);
    assert_null(m.data);
    sbw_mat_free(&m); /* twice is fine */
    sbw_mat_free(NULL);
    SBW_ASSERT_OK(sbw_mat_alloc(&m, 0, 7)); /* empty is allowed */
    sbw_mat_free(&m);
}

static void test_alloc_overflow(void **state)
{
    (void)state;
    sbw_mat m = {.rows = 42};
    assert_int_equal(sbw_mat_alloc(&m, SIZE_MAX / 2, 4), SBW_ENOMEM);
    assert_int_equal(m.rows, 42); /* untouched on failure */
    sbw_mat_f32 f = {0};
    assert_int_equal(sbw_mat_f32_alloc(&f, (size_t)1 << 62, 4), SBW_ENOMEM);
    size_t bytes;
    assert_int_equal(sbw_mat_bytes(SIZE_MAX, 2, 1, &bytes), SBW_ENOMEM);
    SBW_ASSERT_OK(sbw_mat_bytes(3, 5, 8, &bytes));
    assert_int_equal(bytes, 120);
}

static void test_views(void **state)
{
    (void)state;
    sbw_mat m = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&m, 6, 4));
    sbw_mat v = sbw_mat_rows(&m, 2, 3);
    assert_false(v.owner);
    assert_int_equal(v.rows, 3);
    SBW_MAT_AT(&v, 1, 2) = 7.5;
    SBW_ASSERT_EQ(SBW_MAT_AT(&m, 3, 2), 7.5);
    sbw_mat_free(&v); /* a view is not freed */
    SBW_ASSERT_EQ(SBW_MAT_AT(&m, 3, 2), 7.5);
    double buf[12] = {0};
    sbw_mat w = sbw_mat_view(buf, 2, 3, 6); /* ld > cols */
    SBW_MAT_AT(&w, 1, 1) = 1.0;
    SBW_ASSERT_EQ(buf[7], 1.0);
    sbw_mat_free(&m);
}

static void test_copy_and_convert(void **state)
{
    (void)state;
    double a[3 * 5], b[3 * 4] = {0};
    for (int k = 0; k < 15; k++)
        a[k] = k / 4.0;
    sbw_mat src = sbw_mat_view(a, 3, 4, 5), dst = sbw_mat_view(b, 3, 4, 4);
    SBW_ASSERT_OK(sbw_mat_copy(&dst, &src));
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++)
            SBW_ASSERT_EQ(SBW_MAT_AT(&dst, i, j), SBW_MAT_AT(&src, i, j));
    double diff;
    SBW_ASSERT_OK(sbw_mat_max_abs_diff(&dst, &src, &diff));
    SBW_ASSERT_EQ(diff, 0.0);
    sbw_mat_f32 f = {0};
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, 3, 4));
    SBW_ASSERT_OK(sbw_mat_to_float(&f, &src));
    sbw_mat back = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&back, 3, 4));
    SBW_ASSERT_OK(sbw_mat_f32_to_double(&back, &f));
    SBW_ASSERT_OK(sbw_mat_max_abs_diff(&back, &src, &diff));
    SBW_ASSERT_EQ(diff, 0.0); /* multiples of 1/4 are exact in float */
    SBW_MAT_AT(&back, 2, 3) = NAN;
    SBW_ASSERT_OK(sbw_mat_max_abs_diff(&back, &src, &diff));
    assert_true(isnan(diff));
    sbw_mat small = sbw_mat_view(b, 2, 4, 4);
    assert_int_equal(sbw_mat_copy(&small, &src), SBW_ESHAPE);
    assert_int_equal(sbw_mat_max_abs_diff(&small, &src, &diff), SBW_ESHAPE);
    assert_int_equal(sbw_mat_to_float(&f, &small), SBW_ESHAPE);
    sbw_mat_f32_free(&f);
    sbw_mat_free(&back);
}

/* A grown matrix keeps its rows, zero-fills the new ones; views cannot
 * grow; an allocation over SBW_MAX_MEMORY is refused naming its shape. */
static void test_grow_and_memory(void **state)
{
    (void)state;
    sbw_mat m;
    SBW_ASSERT_OK(sbw_mat_alloc(&m, 3, 5));
    for (size_t i = 0; i < 15; i++)
        m.data[i] = (double)i + 1;
    SBW_ASSERT_OK(sbw_mat_grow(&m, 7));
    SBW_ASSERT_EQ(m.rows, 7);
    SBW_ASSERT_EQ(m.ld, 5);
    for (size_t i = 0; i < 35; i++)
        SBW_ASSERT_EQ(m.data[i], i < 15 ? (double)i + 1 : 0.0);
    SBW_ASSERT_OK(sbw_mat_grow(&m, 2)); /* fewer: nothing happens */
    SBW_ASSERT_EQ(m.rows, 7);
    sbw_mat v = sbw_mat_view(m.data, 2, 5, 5);
    assert_int_equal(sbw_mat_grow(&v, 3), SBW_EINVAL);
    sbw_mat_free(&m);
    sbw_mat_f32 f;
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, 1, 3));
    f.data[0] = 1.5f, f.data[1] = 2.5f, f.data[2] = 3.5f;
    SBW_ASSERT_OK(sbw_mat_f32_grow(&f, 4));
    SBW_ASSERT_EQ(f.data[2], 3.5f);
    SBW_ASSERT_EQ(f.data[11], 0.0f);
    sbw_mat_f32_free(&f);
    setenv("SBW_MAX_MEMORY", "100M", 1);
    assert_int_equal(sbw_mat_alloc(&m, 20000, 1000), SBW_ENOMEM); /* 160 MB */
    assert_non_null(strstr(sbw_error_reason(), "a 20000 x 1000 matrix of float64 needs"));
    SBW_ASSERT_OK(sbw_mat_f32_alloc(&f, 20000, 1000)); /* 80 MB */
    assert_int_equal(sbw_mat_f32_grow(&f, 40000), SBW_ENOMEM);
    SBW_ASSERT_EQ(f.rows, 20000);
    sbw_mat_f32_free(&f);
    unsetenv("SBW_MAX_MEMORY");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_zeroed_and_free),
        cmocka_unit_test(test_alloc_overflow),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_copy_and_convert),
        cmocka_unit_test(test_grow_and_memory),
    };
    return cmocka_run_group_tests_name("mat", tests, NULL, NULL);
}
