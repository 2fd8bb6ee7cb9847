/* test_layout.c -- analysis/sbw_layout, the table the Python binding checks
 * its ctypes mirrors against: for every mirrored struct the listed fields
 * are all of its fields (increasing offsets, each starting where the one
 * before ends up to alignment, the last ending the struct up to
 * alignment: a field of 8 bytes or more added to a header but not to the
 * table fails here), and unknown names are refused naming them. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_layout.h"

#include <string.h>

/* The structs python/sbw/_lib.py mirrors. */
static const char *const mirrored[] = {
    "sbw_rank_est",
    "sbw_rank_measure",
    "sbw_spectra_rank_res",
    "sbw_bound_summary",
    "sbw_logp_opts",
    "sbw_logp_sel",
    "sbw_kl_opts",
    "sbw_kl_exact",
    "sbw_compare_row",
    "sbw_compare_summary",
    "sbw_mat",
    "sbw_argmax_opts",
    "sbw_argmax_word",
    "sbw_argmax_summary",
    "sbw_argmax_file_opts",
    "sbw_argmax_file_res",
};

/* The padding a field may be followed by: less than the strictest
 * alignment of a field here (8: size_t, double and pointers). */
#define MAX_PAD 8

static void test_fields_cover_each_struct(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof mirrored / sizeof *mirrored; t++) {
        const char *type = mirrored[t];
        size_t size = 0, nfields = 0, end = 0, i = 0;
        SBW_ASSERT_OK(sbw_layout_size(type, &size, &nfields));
        assert_true(nfields > 0);
        for (const char *f; (f = sbw_layout_field(type, i)); i++) {
            size_t off = 0, fs = sbw_layout_field_size(type, f);
            SBW_ASSERT_OK(sbw_layout_offset(type, f, &off));
            assert_true(fs > 0);
            if (off < end || off - end >= MAX_PAD)
                fail_msg("%s.%s at offset %zu, the field before it ends at %zu", type, f, off, end);
            end = off + fs;
        }
        assert_int_equal(i, nfields);
        if (end > size || size - end >= MAX_PAD)
            fail_msg("%s: its listed fields end at %zu, the struct at %zu", type, end, size);
    }
}

static void test_unknown_names(void **state)
{
    (void)state;
    size_t size = 7, n = 7, off = 7;
    long long v = 7;
    SBW_ASSERT_EQ(sbw_layout_size("sbw_nothing", &size, &n), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "sbw_nothing"));
    assert_true(size == 7 && n == 7);
    SBW_ASSERT_EQ(sbw_layout_offset("sbw_mat", "colz", &off), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "sbw_mat has no field colz"));
    SBW_ASSERT_EQ(sbw_layout_offset("sbw_nothing", "rows", &off), SBW_EINVAL);
    assert_int_equal(off, 7);
    SBW_ASSERT_EQ(sbw_layout_const("SBW_NOTHING", &v), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "SBW_NOTHING"));
    assert_int_equal(v, 7);
    assert_null(sbw_layout_field("sbw_nothing", 0));
    assert_null(sbw_layout_field("sbw_mat", 5));
    assert_int_equal(sbw_layout_field_size("sbw_mat", "colz"), 0);
    SBW_ASSERT_OK(sbw_layout_const("SBW_BF16", &v));
    assert_int_equal(v, 3); /* the value .npy's dtype enum has in sbw_npy.h */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_cover_each_struct),
        cmocka_unit_test(test_unknown_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
