/* test_error.c -- status codes, the thread-local last error, GSL quietness. */
#include "sbw_test.h"

#include "sbw_error.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_log.h>
#include <omp.h>
#include <string.h>

static void test_strerror(void **state)
{
    (void)state;
    for (int a = 0; a < SBW_NSTATUS; a++) {
        SBW_ASSERT_GT(strlen(sbw_error_string(a)), 0);
        for (int b = 0; b < a; b++)
            assert_string_not_equal(sbw_error_string(a), sbw_error_string(b));
    }
    assert_string_equal(sbw_error_string(-3), "unknown status");
    assert_string_equal(sbw_error_string(SBW_NSTATUS), "unknown status");
}

static void test_error_records_reason(void **state)
{
    (void)state;
    sbw_error_clear();
    assert_string_equal(sbw_error_reason(), "");
    int line = __LINE__ + 1;
    int st = SBW_ERROR(SBW_EDATA, "row %d is %s", 7, "bad");
    assert_int_equal(st, SBW_EDATA);
    assert_string_equal(sbw_error_reason(), "row 7 is bad");
    assert_int_equal(sbw_error_status(), SBW_EDATA);
    assert_int_equal(sbw_error_line(), line);
    assert_non_null(strstr(sbw_error_file(), "test_error.c"));
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    SBW_ERROR(SBW_EIO, "%s", big); /* truncated, not overflowed */
    assert_int_equal(strlen(sbw_error_reason()), 511);
    sbw_error_clear();
    assert_int_equal(sbw_error_status(), SBW_OK);
}

/* Each thread has its own last error. */
static void test_error_is_thread_local(void **state)
{
    (void)state;
    SBW_ERROR(SBW_EIO, "main thread");
    int seen_other = 0;
#pragma omp parallel num_threads(2) reduction(+ : seen_other)
    {
        if (omp_get_thread_num() == 1) {
            seen_other = strcmp(sbw_error_reason(), "") == 0;
            SBW_ERROR(SBW_EDATA, "worker thread");
        }
    }
    assert_string_equal(sbw_error_reason(), "main thread");
    if (omp_get_max_threads() > 1)
        assert_int_equal(seen_other, 1);
}

static void test_gsl_errors_return(void **state)
{
    (void)state;
    sbw_error_gsl_quiet();
    gsl_sf_result r;
    assert_int_equal(gsl_sf_log_e(-1.0, &r), GSL_EDOM); /* would abort by default */
}

/* Control characters become \xNN in every reason; the cut never splits an
 * escape; other bytes (UTF-8 included) pass unchanged. */
static void test_error_escapes_control(void **state)
{
    (void)state;
    sbw_error_set(SBW_EFORMAT, "f.c", 1, "%s: bad '%s'", "a\033[31mb\nc", "\x7f\t\xc3\xa9");
    assert_string_equal(sbw_error_reason(), "a\\x1b[31mb\\x0ac: bad '\\x7f\\x09\xc3\xa9'");
    for (const char *p = sbw_error_reason(); *p; p++)
        SBW_ASSERT_GE((unsigned char)*p, 0x20);
    char out[8];
    SBW_ASSERT_EQ(sbw_error_escape("ab\001cd", out, sizeof out), 7);
    assert_string_equal(out, "ab\\x01c");
    SBW_ASSERT_EQ(sbw_error_escape("abcd\001", out, sizeof out), 4); /* no room for \x01 */
    assert_string_equal(out, "abcd");
    SBW_ASSERT_EQ(sbw_error_escape("x", out, 0), 0);
}

/* Invisible and bidirectional code points become \u{XXXX}, bytes that are
 * not well-formed UTF-8 become \xNN, so every reason is valid UTF-8 that
 * shows everything it holds; visible characters of every length pass. */
static void test_error_escapes_invisible(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"a\xe2\x80\x8b"
         "b",
         "a\\u{200B}b"},               /* zero-width space */
        {"\xe2\x80\x8f", "\\u{200F}"}, /* right-to-left mark */
        {"x\xe2\x80\xae"
         "evil",
         "x\\u{202E}evil"}, /* right-to-left override */
        {"\xe2\x80\xaa\xe2\x80\xa8\xe2\x80\xa9", "\\u{202A}\\u{2028}\\u{2029}"},
        {"\xe2\x81\xa0\xe2\x81\xa4", "\\u{2060}\\u{2064}"}, /* word joiner, invisible plus */
        {"\xe2\x81\xa6\xe2\x81\xa9", "\\u{2066}\\u{2069}"}, /* isolates */
        {"\xef\xbb\xbfword", "\\u{FEFF}word"},              /* byte-order mark */
        {"\xc2\x80\xc2\x85\xc2\x9f", "\\u{0080}\\u{0085}\\u{009F}"},              /* C1 controls */
        {"\xc2\xa0\xe2\x80\x8a\xe2\x80\xb0", "\xc2\xa0\xe2\x80\x8a\xe2\x80\xb0"}, /* visible */
        {"\xe2\x81\xb0\xef\xbb\xbe", "\xe2\x81\xb0\xef\xbb\xbe"}, /* U+2070, U+FEFE */
        {"\xc2\xad\xe3\x85\xa4\xf3\xa0\x80\x81",
         "\\u{00AD}\\u{3164}\\u{E0001}"}, /* soft hyphen, filler, tag */
        {"\xf0\x9f\x98\x80 \xe6\x97\xa5", "\xf0\x9f\x98\x80 \xe6\x97\xa5"}, /* 4 and 3 bytes */
        {"a\xff"
         "b",
         "a\\xffb"},                                  /* never UTF-8 */
        {"\x80x", "\\x80x"},                          /* stray continuation */
        {"\xc0\xaf", "\\xc0\\xaf"},                   /* overlong '/' */
        {"\xe0\x80\xaf", "\\xe0\\x80\\xaf"},          /* overlong, 3 bytes */
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},          /* a surrogate */
        {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"}, /* beyond U+10FFFF */
        {"ab\xe2\x80", "ab\\xe2\\x80"},               /* cut at the end */
        {"\xc3(", "\\xc3("},                          /* lead byte without its tail */
    };
    char out[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = sbw_error_escape(cases[i].in, out, sizeof out);
        assert_string_equal(out, cases[i].want);
        SBW_ASSERT_EQ(n, strlen(cases[i].want));
    }
    /* through SBW_ERROR too */
    sbw_error_set(SBW_EFORMAT, "f.c", 1, "%s: bad word '%s'", "c\xe2\x80\xaet.txt",
                  "\xef\xbb\xbfthe");
    assert_string_equal(sbw_error_reason(), "c\\u{202E}t.txt: bad word '\\u{FEFF}the'");
    /* the cut never splits a character or an escape */
    char small[6];
    SBW_ASSERT_EQ(sbw_error_escape("ab\xe6\x97\xa5x", small, sizeof small), 5);
    assert_string_equal(small, "ab\xe6\x97\xa5");
    SBW_ASSERT_EQ(sbw_error_escape("abcd\xe6\x97\xa5", small, sizeof small), 4);
    assert_string_equal(small, "abcd");
    SBW_ASSERT_EQ(sbw_error_escape("a\xe2\x80\x8b", small, sizeof small),
                  1); /* no room for \u{200B} */
    assert_string_equal(small, "a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_error_records_reason),
        cmocka_unit_test(test_error_is_thread_local),
        cmocka_unit_test(test_gsl_errors_return),
        cmocka_unit_test(test_error_escapes_control),
        cmocka_unit_test(test_error_escapes_invisible),
    };
    return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
