/* test_ledger.c -- core/sbw_ledger: zeroed aligned buffers, the bytes
 * counted as sbw_lm_ws_bytes and sbw_pass_ws_bytes expect, the sticky
 * status, overflow refused, everything freed (ASan checks the frees). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_ledger.h"

#include <stdint.h>
#include <string.h>

static void test_buffers_zeroed_aligned_counted(void **state)
{
    (void)state;
    sbw_ledger l = {.what = "test workspace"};
    int st = SBW_OK;
    size_t sizes[] = {1, 3, 64, 65, 1000, 0};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        unsigned char *p = sbw_ledger_alloc(&l, sizes[i], sizeof(double), &st);
        SBW_ASSERT_OK(st);
        assert_non_null(p);
        SBW_ASSERT_EQ((uintptr_t)p % 64, 0);
        size_t n = (sizes[i] ? sizes[i] : 1) * sizeof(double);
        for (size_t j = 0; j < n; j++)
            SBW_ASSERT_EQ(p[j], 0);
        memset(p, 0xff, n); /* writable to its end */
    }
    /* 200 buffers: the list grows past its first 64 entries */
    for (int i = 0; i < 194; i++)
        assert_non_null(sbw_ledger_alloc(&l, 2, sizeof(float), &st));
    SBW_ASSERT_EQ(l.n, 200);
    double want = (1 + 3 + 64 + 65 + 1000 + 1) * 8.0 + 194 * 8.0;
    SBW_ASSERT_EQ(l.bytes, want);
    sbw_ledger_free(&l);
    SBW_ASSERT_EQ(l.n, 0);
    SBW_ASSERT_EQ(l.bytes, 0);
    assert_string_equal(l.what, "test workspace");
    sbw_ledger_free(NULL);
}

static void test_status_sticky_and_overflow(void **state)
{
    (void)state;
    sbw_ledger l = {.what = "test workspace"};
    int st = SBW_OK;
    assert_null(sbw_ledger_alloc(&l, SIZE_MAX / 2, 16, &st));
    assert_int_equal(st, SBW_ENOMEM);
    SBW_ASSERT_EQ(l.n, 0);
    assert_null(sbw_ledger_alloc(&l, 1, 8, &st)); /* st set: nothing done */
    SBW_ASSERT_EQ(l.n, 0);
    SBW_ASSERT_EQ(l.bytes, 0);
    st = SBW_OK;
    assert_non_null(sbw_ledger_alloc(&l, 1, 8, &st));
    SBW_ASSERT_EQ(l.n, 1);
    sbw_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffers_zeroed_aligned_counted),
        cmocka_unit_test(test_status_sticky_and_overflow),
    };
    return cmocka_run_group_tests_name("ledger", tests, NULL, NULL);
}
