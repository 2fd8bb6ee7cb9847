/* sbw_test.h -- shared helpers for the cmocka suites. */
#ifndef SBW_TEST_H
#define SBW_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* Fails the test unless |got_i - want_i| <= atol + rtol * |want_i| for all
 * i; reports the first bad index, both values and the largest difference. */
void sbw_test_close(const double *got, const double *want, size_t n, double atol, double rtol,
                    const char *what, const char *file, int line);
#define SBW_ASSERT_CLOSE(got, want, n, atol, rtol)                                                 \
    sbw_test_close((got), (want), (n), (atol), (rtol), #got, __FILE__, __LINE__)

/* A scalar function of n parameters, for gradient checks. */
typedef double (*sbw_test_objective)(void *ctx, const double *x);

/* Checks the analytic gradient g (n entries) of f at x against central
 * differences of step 1e-6 in double: every |g_i - fd_i| <= 1e-7 (1 +
 * max|g|) + 1e-5 |fd_i| (O(h^2) truncation plus O(eps/h) rounding), and
 * max|g| > 1e-3 so that the check is not vacuous.  f is called 2n times;
 * x is restored on return. */
void sbw_test_grad_fd(sbw_test_objective f, void *ctx, double *x, const double *g, size_t n,
                      const char *file, int line);
#define SBW_ASSERT_GRAD_FD(f, ctx, x, g, n)                                                        \
    sbw_test_grad_fd((f), (ctx), (x), (g), (n), __FILE__, __LINE__)

/* Scalar version. */
#define SBW_ASSERT_NEAR(got, want, atol)                                                           \
    do {                                                                                           \
        double sbw_g_ = (got), sbw_w_ = (want);                                                    \
        sbw_test_close(&sbw_g_, &sbw_w_, 1, (atol), 0.0, #got, __FILE__, __LINE__);                \
    } while (0)

/* Comparison assertions that print both sides when they fail:
 *   SBW_ASSERT_LT(a, b)  a <  b      SBW_ASSERT_GT(a, b)  a >  b
 *   SBW_ASSERT_LE(a, b)  a <= b      SBW_ASSERT_GE(a, b)  a >= b
 *   SBW_ASSERT_EQ(a, b)  a == b      SBW_ASSERT_NE(a, b)  a != b
 * The comparison is made in the type the bare operator would use (the
 * usual arithmetic conversions of a + b): doubles and floats compare and
 * print as double (%.17g, with the difference a - b), signed integers as
 * long long, unsigned ones (size_t, uint64_t) as unsigned long long, so
 * counts print exactly (pointers and long double do not compile: use
 * assert_ptr_equal).  NaN fails every comparison but NE, as the
 * operator does.  Each operand is evaluated once.  The failure message
 * names both expressions and their values; cmocka adds file and line. */
enum sbw_test_op { SBW_TEST_LT, SBW_TEST_LE, SBW_TEST_GT, SBW_TEST_GE, SBW_TEST_EQ, SBW_TEST_NE };

/* Whether `a op b` holds, exactly as the C operator decides it. */
bool sbw_test_holds_d(double a, enum sbw_test_op op, double b);
bool sbw_test_holds_i(long long a, enum sbw_test_op op, long long b);
bool sbw_test_holds_u(unsigned long long a, enum sbw_test_op op, unsigned long long b);

/* The failure message of a double comparison, into buf (always
 * terminated; truncated to size).  Returns what snprintf returns. */
int sbw_test_format_d(char *buf, size_t size, double a, enum sbw_test_op op, double b,
                      const char *a_text, const char *b_text);

/* Return when `a op b` holds; otherwise print the message and fail the
 * test at file:line (does not return). */
void sbw_test_cmp_d(double a, enum sbw_test_op op, double b, const char *a_text, const char *b_text,
                    const char *file, int line);
void sbw_test_cmp_i(long long a, enum sbw_test_op op, long long b, const char *a_text,
                    const char *b_text, const char *file, int line);
void sbw_test_cmp_u(unsigned long long a, enum sbw_test_op op, unsigned long long b,
                    const char *a_text, const char *b_text, const char *file, int line);

/* The operand type picks the function (clang-format would fold this list). */
/* clang-format off */
#define SBW_TEST_CMP_FN(a, b)                                                                      \
    _Generic((a) + (b),                                                                            \
        float: sbw_test_cmp_d,                                                                     \
        double: sbw_test_cmp_d,                                                                    \
        int: sbw_test_cmp_i,                                                                       \
        long: sbw_test_cmp_i,                                                                      \
        long long: sbw_test_cmp_i,                                                                 \
        unsigned: sbw_test_cmp_u,                                                                  \
        unsigned long: sbw_test_cmp_u,                                                             \
        unsigned long long: sbw_test_cmp_u)
/* clang-format on */
/* #a and #b stay in the outer macros: the text as written, unexpanded. */
#define SBW_TEST_CMP(a, op, b, a_text, b_text)                                                     \
    SBW_TEST_CMP_FN(a, b)((a), (op), (b), a_text, b_text, __FILE__, __LINE__)
#define SBW_ASSERT_LT(a, b) SBW_TEST_CMP(a, SBW_TEST_LT, b, #a, #b)
#define SBW_ASSERT_LE(a, b) SBW_TEST_CMP(a, SBW_TEST_LE, b, #a, #b)
#define SBW_ASSERT_GT(a, b) SBW_TEST_CMP(a, SBW_TEST_GT, b, #a, #b)
#define SBW_ASSERT_GE(a, b) SBW_TEST_CMP(a, SBW_TEST_GE, b, #a, #b)
#define SBW_ASSERT_EQ(a, b) SBW_TEST_CMP(a, SBW_TEST_EQ, b, #a, #b)
#define SBW_ASSERT_NE(a, b) SBW_TEST_CMP(a, SBW_TEST_NE, b, #a, #b)

/* Tolerance form: SBW_ASSERT_ABS_LE(x, tol) asserts fabs(x) <= tol,
 * SBW_ASSERT_ABS_LT(x, tol) fabs(x) < tol (NaN fails both); the message
 * gives x, |x| and tol. */
int sbw_test_format_abs(char *buf, size_t size, double x, bool strict, double tol,
                        const char *x_text, const char *tol_text);
void sbw_test_abs(double x, bool strict, double tol, const char *x_text, const char *tol_text,
                  const char *file, int line);
#define SBW_ASSERT_ABS_LE(x, tol) sbw_test_abs((x), false, (tol), #x, #tol, __FILE__, __LINE__)
#define SBW_ASSERT_ABS_LT(x, tol) sbw_test_abs((x), true, (tol), #x, #tol, __FILE__, __LINE__)

/* Fails with the library's last error reason unless status is 0.  The
 * test of status is inline and the failure does not return, so code after
 * SBW_ASSERT_OK (and clang-tidy's analyzer) may rely on the call's
 * out-parameters. */
_Noreturn void sbw_test_fail_status(int status, const char *what, const char *file, int line);
#define SBW_ASSERT_OK(expr)                                                                        \
    do {                                                                                           \
        int sbw_st_ = (expr);                                                                      \
        if (sbw_st_ != 0)                                                                          \
            sbw_test_fail_status(sbw_st_, #expr, __FILE__, __LINE__);                              \
    } while (0)

/* A fresh temporary directory for this process (removed at exit) and a
 * path inside it; the returned string is static storage, copy it. */
const char *sbw_test_path(const char *name);

/* Writes len bytes of text to name in the temporary directory and returns
 * its path (static storage, four slots in turn: copy a path kept across
 * more calls); the test fails when the file cannot be written. */
const char *sbw_test_write(const char *name, const char *text, size_t len);

/* Directory of the committed fixtures (tests/fixtures, or $SBW_FIXTURES). */
const char *sbw_test_fixture(const char *name);

/* A thread that writes a file's bytes into a FIFO, so a test can read a
 * pipe (a stream that cannot seek or be mapped).  sbw_test_feed_start
 * makes a FIFO at fifo (replacing what was there) and starts the thread,
 * which opens it for writing (so it waits for the reader's open), writes
 * the first limit bytes of the file src (SIZE_MAX: all of it) in 64 KiB
 * writes, then extra bytes 'x', and closes it; it stops early when the
 * reader has gone (SIGPIPE is blocked in the thread: the write gets
 * EPIPE).  fifo and src are copied.  Fails the test when the FIFO or the
 * thread cannot be made.  Returns the feeder, owned by the caller until
 * sbw_test_feed_join, which must be called once the reader is done
 * (after the reader's close, or it may wait for the reader's end). */
typedef struct sbw_test_feeder sbw_test_feeder;
sbw_test_feeder *sbw_test_feed_start(const char *fifo, const char *src, size_t limit, size_t extra);

/* Waits for the feeder's thread, removes its FIFO and frees it.  Returns
 * how the feeding ended: 0 when every byte was written, EPIPE when the
 * reader closed first, another errno value when src could not be opened
 * or read or the FIFO not opened. */
int sbw_test_feed_join(sbw_test_feeder *f);

#endif
