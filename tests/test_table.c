/* test_table.c -- TSV and JSON result tables. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_table.h"

#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *print_to_string(const sbw_table *t, bool json)
{
    static char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    SBW_ASSERT_OK(sbw_table_print(t, f, json));
    fclose(f);
    return buf;
}

static sbw_table *sample(size_t rows)
{
    sbw_table *t;
    SBW_ASSERT_OK(sbw_table_alloc(&t, "sbw-test", NULL, false));
    SBW_ASSERT_OK(sbw_table_meta_dbl(t, "alpha", 0.1));
    SBW_ASSERT_OK(sbw_table_meta_str(t, "input", "a\tb\"c"));
    SBW_ASSERT_OK(sbw_table_meta_bool(t, "center", true));
    const char *cols[] = {"d", "bound", "name"};
    SBW_ASSERT_OK(sbw_table_columns(t, cols, 3));
    for (size_t i = 0; i < rows; i++) {
        SBW_ASSERT_OK(sbw_table_add_row(t));
        SBW_ASSERT_OK(sbw_table_set_int(t, "d", (long long)i + 1));
        if (i != 1)
            SBW_ASSERT_OK(sbw_table_set_dbl(t, "bound", 1.0 / 3.0 + (double)i));
        SBW_ASSERT_OK(sbw_table_set_str(t, "name", "x"));
    }
    return t;
}

static void test_tsv(void **state)
{
    (void)state;
    sbw_table *t = sample(3);
    const char *s = print_to_string(t, false);
    assert_non_null(strstr(s, "# tool=sbw-test\n# version="));
    assert_non_null(strstr(s, "# blas=OpenBLAS"));
    assert_non_null(strstr(s, "# alpha=0.1\n"));
    assert_non_null(strstr(s, "# input=a b\"c\n")); /* tab flattened */
    assert_non_null(strstr(s, "# center=true\n"));
    assert_non_null(strstr(s, "\nd\tbound\tname\n1\t0.3333333333333333\tx\n2\tnan\tx\n3\t"));
    sbw_table_free(t);
}

static void test_json(void **state)
{
    (void)state;
    sbw_table *t = sample(1);
    const char *s = print_to_string(t, true);
    SBW_ASSERT_EQ(s[0], '{');
    assert_non_null(strstr(s, "\"tool\": \"sbw-test\""));
    assert_non_null(strstr(s, "\"input\": \"a\\u0009b\\\"c\""));
    /* one row: the same "rows" array as any other count */
    assert_non_null(
        strstr(s, "\"rows\": [{\"d\": 1, \"bound\": 0.3333333333333333, \"name\": \"x\"}]}\n"));
    sbw_table_free(t);
    t = sample(0);
    s = print_to_string(t, true);
    assert_non_null(strstr(s, "\"rows\": []}\n"));
    sbw_table_free(t);
    t = sample(2);
    s = print_to_string(t, true);
    assert_non_null(strstr(s, "\"rows\": [{\"d\": 1, "));
    assert_non_null(strstr(s, "{\"d\": 2, \"bound\": null, \"name\": \"x\"}]}\n"));
    sbw_table_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    sbw_table *t = sample(0);
    assert_int_equal(sbw_table_set_dbl(t, "d", 1.0), SBW_EINVAL); /* no row yet */
    assert_non_null(strstr(sbw_error_reason(), "no row"));
    sbw_table_free(t);
    t = sample(1);
    assert_int_equal(sbw_table_set_dbl(t, "nope", 1.0), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "unknown column"));
    sbw_table_free(t);
    t = sample(1);
    const char *cols[] = {"a"};
    assert_int_equal(sbw_table_columns(t, cols, 1), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "before rows"));
    assert_int_equal(sbw_table_nrows(t), 1);
    sbw_table_free(t);
    sbw_table_free(NULL);
}

/* Sticky errors: a failure in the middle of a run of calls is kept; every
 * later call does nothing and returns it, with the first reason; print and
 * write then output nothing (no file is created). */
static void test_sticky(void **state)
{
    (void)state;
    sbw_table *t = sample(1);
    SBW_ASSERT_OK(sbw_table_status(t));
    assert_int_equal(sbw_table_set_int(t, "nope", 7), SBW_EINVAL); /* the failure */
    assert_non_null(strstr(sbw_error_reason(), "unknown column 'nope'"));
    sbw_error_set(SBW_EDATA, __FILE__, __LINE__, "an unrelated later failure");
    assert_int_equal(sbw_table_set_int(t, "d", 99), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "unknown column 'nope'")); /* reason survives */
    assert_int_equal(sbw_table_add_row(t), SBW_EINVAL);
    assert_int_equal(sbw_table_meta_str(t, "late", "x"), SBW_EINVAL);
    const char *cols[] = {"a"};
    assert_int_equal(sbw_table_columns(t, cols, 1), SBW_EINVAL);
    assert_int_equal(sbw_table_nrows(t), 1); /* the add_row did not happen */
    assert_int_equal(sbw_table_status(t), SBW_EINVAL);
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    assert_int_equal(sbw_table_print(t, f, false), SBW_EINVAL);
    assert_int_equal(ftell(f), 0); /* nothing printed */
    fclose(f);
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("sticky.tsv"));
    assert_int_equal(sbw_table_write(t, path, false), SBW_EINVAL);
    assert_null(fopen(path, "r")); /* no file */
    assert_non_null(strstr(sbw_error_reason(), "unknown column 'nope'"));
    sbw_table_free(t);
}

/* Shortest round-trip formatting: reads back exactly, never longer than
 * %.17g, short for short decimals. */
static void test_format_double(void **state)
{
    (void)state;
    char buf[40];
    sbw_table_format_double(0.1, buf, sizeof buf);
    assert_string_equal(buf, "0.1");
    sbw_table_format_double(NAN, buf, sizeof buf);
    assert_string_equal(buf, "nan");
    sbw_table_format_double(-INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "-inf");
    unsigned long long s = 1;
    for (int k = 0; k < 10000; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double x;
        memcpy(&x, &s, sizeof x);
        if (!isfinite(x))
            continue;
        sbw_table_format_double(x, buf, sizeof buf);
        SBW_ASSERT_EQ(strtod(buf, NULL), x);
        SBW_ASSERT_LE(strlen(buf), 24);
    }
    sbw_table_format_double(DBL_MIN / 4, buf, sizeof buf); /* subnormal */
    SBW_ASSERT_EQ(strtod(buf, NULL), DBL_MIN / 4);
}

static void test_write_file(void **state)
{
    (void)state;
    sbw_table *t = sample(2);
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("t.tsv"));
    SBW_ASSERT_OK(sbw_table_write(t, path, false));
    FILE *f = fopen(path, "r");
    char line[256];
    int data = 0;
    while (fgets(line, sizeof line, f))
        data += line[0] != '#';
    fclose(f);
    assert_int_equal(data, 3); /* header + 2 rows */
    assert_int_equal(sbw_table_write(t, "/dev/full", true), SBW_EIO);
    sbw_table_free(t);
}

/* Strings that are not UTF-8 (a --vocab in Latin-1, a truncated or
 * overlong sequence, an encoded surrogate, a code point above U+10FFFF)
 * never make the JSON invalid: Jansson parses the output, each bad byte
 * reads U+FFFD and well-formed UTF-8 comes back as it was. */
static void test_json_not_utf8(void **state)
{
    (void)state;
    static const char *const in[] = {"caf\xe9",      "\xff\xfe",         "\xc3\xa9t\xc3\xa9",
                                     "\xed\xa0\x80", "\xc0\xaf",         "\xf4\x90\x80\x80",
                                     "x\xe2\x82",    "\xe2\x80\xae\x7f", "a\xf3\xa0\x80\x81"};
    static const char *const want[] = {
        "caf\xef\xbf\xbd",           "\xef\xbf\xbd\xef\xbf\xbd",
        "\xc3\xa9t\xc3\xa9",         "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
        "\xef\xbf\xbd\xef\xbf\xbd",  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
        "x\xef\xbf\xbd\xef\xbf\xbd", "\xe2\x80\xae\x7f",
        "a\xf3\xa0\x80\x81"};
    const size_t n = sizeof in / sizeof *in;
    sbw_table *t;
    SBW_ASSERT_OK(sbw_table_alloc(&t, "sbw-test", NULL, false));
    SBW_ASSERT_OK(sbw_table_meta_str(t, "vocab", "voc\xe9.txt"));
    const char *cols[] = {"name"};
    SBW_ASSERT_OK(sbw_table_columns(t, cols, 1));
    for (size_t k = 0; k < n; k++) {
        SBW_ASSERT_OK(sbw_table_add_row(t));
        SBW_ASSERT_OK(sbw_table_set_str(t, "name", in[k]));
    }
    const char *s = print_to_string(t, true);
    /* the override, DEL and the tag are escaped in the text (the tag as a
     * surrogate pair), and parse back to themselves below */
    if (!strstr(s, "\"\\u202e\\u007f\"") || !strstr(s, "\"a\\udb40\\udc01\""))
        fail_msg("invisible characters not escaped in the JSON text: %s", s);
    json_error_t err;
    json_t *root = json_loads(s, 0, &err);
    if (!root)
        fail_msg("not JSON: %s (line %d)", err.text, err.line);
    assert_string_equal(json_string_value(json_object_get(root, "vocab")), "voc\xef\xbf\xbd.txt");
    json_t *rows = json_object_get(root, "rows");
    SBW_ASSERT_EQ(json_array_size(rows), n);
    for (size_t k = 0; k < n; k++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(rows, k), "name")),
                            want[k]);
    json_decref(root);
    sbw_table_free(t);
}

/* Every JSON key is unique: a meta key "rows" becomes arg_rows. */
static void test_json_unique_keys(void **state)
{
    (void)state;
    sbw_table *t;
    SBW_ASSERT_OK(sbw_table_alloc(&t, "sbw-test", NULL, false));
    SBW_ASSERT_OK(sbw_table_meta_int(t, "steps", 1000));
    SBW_ASSERT_OK(sbw_table_meta_int(t, "rows", 5));
    const char *cols[] = {"steps"};
    SBW_ASSERT_OK(sbw_table_columns(t, cols, 1));
    SBW_ASSERT_OK(sbw_table_add_row(t));
    SBW_ASSERT_OK(sbw_table_set_int(t, "steps", 80));
    const char *s = print_to_string(t, true);
    /* a column beside a meta key of the same name: the row is its own object */
    assert_non_null(strstr(s, "\"steps\": 1000"));
    assert_non_null(strstr(s, "\"arg_rows\": 5"));
    assert_non_null(strstr(s, "\"rows\": [{\"steps\": 80}]"));
    SBW_ASSERT_OK(sbw_table_add_row(t));
    s = print_to_string(t, true);
    assert_non_null(strstr(s, "\"arg_rows\": 5"));
    assert_non_null(strstr(s, "\"steps\": 1000"));
    sbw_table_free(t);
}

/* Warnings: absent from TSV and an empty JSON array when none; each one a
 * "# warning=" line and a JSON string once recorded, deduplicated, tabs
 * flattened, capped with a count of the rest, gone after a clear. */
static void test_warnings(void **state)
{
    (void)state;
    sbw_table_warn_clear();
    sbw_table *t = sample(2);
    const char *s = print_to_string(t, false);
    assert_null(strstr(s, "# warning="));
    s = print_to_string(t, true);
    assert_non_null(strstr(s, "\"warnings\": [], \"rows\": [{"));
    sbw_table_warn("svd_not_converged: dgesdd info %d", 3);
    sbw_table_warn("svd_not_converged: dgesdd info %d", 3); /* the same: once */
    sbw_table_warn("rank_near_threshold: a\tb");
    SBW_ASSERT_EQ(sbw_table_warn_count(), 2);
    s = print_to_string(t, false);
    assert_non_null(strstr(s, "\n# warning=svd_not_converged: dgesdd info 3\n"
                              "# warning=rank_near_threshold: a b\nd\tbound\tname\n"));
    s = print_to_string(t, true);
    assert_non_null(strstr(s, "\"warnings\": [\"svd_not_converged: dgesdd info 3\", "
                              "\"rank_near_threshold: a b\"], \"rows\": [{"));
    for (int i = 0; i < SBW_TABLE_MAX_WARNINGS + 5; i++)
        sbw_table_warn("w%d: x", i);
    SBW_ASSERT_EQ(sbw_table_warn_count(), SBW_TABLE_MAX_WARNINGS + 1);
    assert_string_equal(sbw_table_warning(SBW_TABLE_MAX_WARNINGS),
                        "warnings_dropped: 7 more warning(s) not recorded");
    assert_null(sbw_table_warning(SBW_TABLE_MAX_WARNINGS + 1));
    sbw_table_warn_clear();
    SBW_ASSERT_EQ(sbw_table_warn_count(), 0);
    sbw_table_free(t);
    t = sample(1); /* a one-row table: the same layout, an empty array first */
    s = print_to_string(t, true);
    assert_non_null(strstr(s, "\"warnings\": [], \"rows\": [{\"d\": 1, "));
    sbw_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tsv),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sticky),
        cmocka_unit_test(test_format_double),
        cmocka_unit_test(test_write_file),
        cmocka_unit_test(test_json_unique_keys),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_json_not_utf8),
    };
    return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
