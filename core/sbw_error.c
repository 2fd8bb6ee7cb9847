/* sbw_error.c -- status codes and the thread-local last error. */
#include "sbw_error.h"

#include "sbw_utf8.h"

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

size_t sbw_error_escape(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return 0;
    const unsigned char *p = (const unsigned char *)in;
    while (*p) {
        uint32_t c = 0;
        size_t len = sbw_utf8_decode((const char *)p, &c);
        char esc[12];
        size_t need;
        if (len == 0) { /* not UTF-8: the one byte as \xNN */
            need = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
            len = 1;
        } else if (c < 0x80 && sbw_utf8_invisible(c)) {
            need = (size_t)snprintf(esc, sizeof esc, "\\x%02x", (unsigned)c);
        } else if (sbw_utf8_invisible(c)) {
            need = (size_t)snprintf(esc, sizeof esc, "\\u{%04X}", (unsigned)c);
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
