/* sbw_test.h -- shared helpers for the cmocka suites. */
#ifndef SBW_TEST_H
#define SBW_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* Fails the test unless |got_i - want_i| <= atol + rtol * |want_i| for all
 * i; reports the first bad index, both values and the largest difference. */
void sbw_test_close(const double *got, const double *want, size_t n, double atol, double rtol,
                    const char *what, const char *file, int line);
#define SBW_ASSERT_CLOSE(got, want, n, atol, rtol)                                                 \
    sbw_test_close((got), (want), (n), (atol), (rtol), #got, __FILE__, __LINE__)

/* Scalar version. */
#define SBW_ASSERT_NEAR(got, want, atol)                                                           \
    do {                                                                                           \
        double sbw_g_ = (got), sbw_w_ = (want);                                                    \
        sbw_test_close(&sbw_g_, &sbw_w_, 1, (atol), 0.0, #got, __FILE__, __LINE__);                \
    } while (0)

/* Fails with the library's last error reason unless status is 0. */
void sbw_test_ok(int status, const char *what, const char *file, int line);
#define SBW_ASSERT_OK(expr) sbw_test_ok((expr), #expr, __FILE__, __LINE__)

/* A fresh temporary directory for this process (removed at exit) and a
 * path inside it; the returned string is static storage, copy it. */
const char *sbw_test_path(const char *name);

/* Directory of the committed fixtures (tests/fixtures, or $SBW_FIXTURES). */
const char *sbw_test_fixture(const char *name);

#endif
