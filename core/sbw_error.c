/* sbw_error.c -- status codes and the thread-local last error. */
#include "sbw_error.h"

#include <gsl/gsl_errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_reason[512];
static _Thread_local const char *err_file = "";
static _Thread_local int err_line;
static _Thread_local int err_status;

static const char *const status_text[SBW_NSTATUS] = {
    [SBW_OK] = "ok",
    [SBW_EINVAL] = "invalid argument",
    [SBW_ENOMEM] = "out of memory",
    [SBW_EIO] = "input/output error",
    [SBW_EFORMAT] = "malformed file",
    [SBW_EDTYPE] = "unsupported data type",
    [SBW_ESHAPE] = "shape mismatch",
    [SBW_EDATA] = "invalid data",
    [SBW_ENUMERIC] = "numerical failure",
    [SBW_EINTR] = "interrupted",
};

const char *sbw_error_string(int status)
{
    if (status < 0 || status >= SBW_NSTATUS)
        return "unknown status";
    return status_text[status];
}

int sbw_error_set(int status, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char raw[sizeof err_reason];
    /* clang-analyzer 14 misses the va_start above (a known false positive). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    sbw_error_escape(raw, err_reason, sizeof err_reason);
    err_file = file;
    err_line = line;
    err_status = status;
    return status;
}

/* The length (1-4) of the well-formed UTF-8 sequence at p, its code point
 * in *cp; 0 when the bytes there are not one (a stray continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF, or cut by the terminator). */
static size_t utf8_seq(const unsigned char *p, unsigned *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    size_t len = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
                 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
                 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                                : 0;
    if (len == 0)
        return 0;
    unsigned c = p[0] & (0x7fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the terminator */
            return 0;
        c = (c << 6) | (p[i] & 0x3fu);
    }
    if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* Whether code point c is one a reader cannot see or that reorders what
 * follows: C0/C1 controls and DEL, the zero-width and direction marks
 * (U+200B-200F), line and paragraph separators (U+2028-2029), embeddings
 * and overrides (U+202A-202E), invisible operators (U+2060-2064),
 * isolates (U+2066-2069) and the byte-order mark (U+FEFF). */
static bool escape_cp(unsigned c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x200b && c <= 0x200f) ||
           (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
           (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

size_t sbw_error_escape(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return 0;
    const unsigned char *p = (const unsigned char *)in;
    while (*p) {
        unsigned c = 0;
        size_t len = utf8_seq(p, &c);
        char esc[12];
        size_t need;
        if (len == 0) { /* not UTF-8: the one byte as \xNN */
            need = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
            len = 1;
        } else if (c < 0x80 && escape_cp(c)) {
            need = (size_t)snprintf(esc, sizeof esc, "\\x%02x", c);
        } else if (escape_cp(c)) {
            need = (size_t)snprintf(esc, sizeof esc, "\\u{%04X}", c);
        } else {
            memcpy(esc, p, len);
            need = len;
        }
        if (n + need >= cap)
            break; /* cut, never inside an escape or a character */
        memcpy(out + n, esc, need);
        n += need;
        p += len;
    }
    out[n] = '\0';
    return n;
}

const char *sbw_error_reason(void) { return err_reason; }
const char *sbw_error_file(void) { return err_file; }
int sbw_error_line(void) { return err_line; }
int sbw_error_status(void) { return err_status; }

void sbw_error_clear(void)
{
    err_reason[0] = '\0';
    err_file = "";
    err_line = 0;
    err_status = SBW_OK;
}

void sbw_error_gsl_quiet(void) { gsl_set_error_handler_off(); }
