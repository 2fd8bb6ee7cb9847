/* sbw_error.h -- status codes and the last error's reason.
 *
 * Every library function returns an int status: SBW_OK (0) or one of the
 * SBW_E* codes below, and writes its results through out-parameters.  On
 * failure it records a one-line reason (with the source file and line that
 * raised it) in thread-local storage; main() reads it with
 * sbw_error_reason().  The library never prints, exits or aborts.
 */
#ifndef SBW_ERROR_H
#define SBW_ERROR_H

#include <stddef.h>

enum sbw_error_code {
    SBW_OK = 0,
    SBW_EINVAL,   /* bad argument from the caller (a usage error in a tool) */
    SBW_ENOMEM,   /* allocation failed or a size overflowed */
    SBW_EIO,      /* open/read/write/close failed (errno in the reason) */
    SBW_EFORMAT,  /* malformed file: bad magic, header, truncated payload */
    SBW_EDTYPE,   /* well-formed file with an unsupported dtype or layout */
    SBW_ESHAPE,   /* shapes do not fit together */
    SBW_EDATA,    /* values out of domain: NaN/Inf, unnormalised rows */
    SBW_ENUMERIC, /* a computation failed (LAPACK info != 0, no convergence) */
    SBW_EINTR,    /* interrupted by a signal; partial work was saved */
    SBW_NSTATUS
};

/* A short fixed description of a status code ("malformed file"). */
const char *sbw_error_string(int status);

/* Records status with a printf-style reason; returns status so that
 * `return SBW_ERROR(SBW_EINVAL, "n must be >= 1, got %zu", n);` reads well.
 * The reason is truncated to 511 bytes. */
int sbw_error_set(int status, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* status is evaluated twice (pass a constant); routing it through an inline
 * function lets static analysers see that the result is status, i.e.
 * non-zero on every error path. */
static inline int sbw_error_pass(int recorded, int status)
{
    (void)recorded;
    return status;
}
#define SBW_ERROR(status, ...)                                                                     \
    sbw_error_pass(sbw_error_set((status), __FILE__, __LINE__, __VA_ARGS__), (status))

/* Copies the string in to out (cap bytes, always terminated) so that what
 * a message quotes (a file name, header text, a word) is shown as it is
 * and cannot move the cursor, recolour the terminal, break the message
 * into two lines, hide or reorder what follows:
 *   - an ASCII control character (0x00-0x1f, 0x7f) becomes \xNN;
 *   - a byte that is not part of well-formed UTF-8 (a stray continuation
 *     byte, an overlong form, a surrogate, a cut sequence) becomes \xNN;
 *   - an invisible or bidirectional code point (sbw_utf8_invisible: the C1
 *     controls, zero-width and direction marks, separators, embeddings,
 *     overrides, isolates, the byte-order mark, fillers, tags) becomes
 *     \u{XXXX} (upper-case hex);
 *   - every other character is copied unchanged.
 * The result is valid UTF-8 with none of those characters.  Cuts at cap
 * (never inside an escape or a character); returns the length written.
 * sbw_error_set passes every reason through it. */
size_t sbw_error_escape(const char *in, char *out, size_t cap);

/* The last recorded reason on this thread ("" when none), and where it was
 * raised.  Valid until the next sbw_error_set() on the same thread. */
const char *sbw_error_reason(void);
const char *sbw_error_file(void);
int sbw_error_line(void);
int sbw_error_status(void);
void sbw_error_clear(void);

/* Switches GSL's default abort-on-error handler off, once per process, so a
 * GSL failure comes back as a status instead of killing the tool. */
void sbw_error_gsl_quiet(void);

#endif
