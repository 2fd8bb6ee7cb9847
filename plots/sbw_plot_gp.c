/* sbw_plot_gp.c -- text into gnuplot scripts: literals, comments, code. */
#include "sbw_plot_gp.h"

#include "sbw_utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t sbw_plot_gp_char(const char *s, bool *safe)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] >= 0x20 && u[0] < 0x7F) { /* printable ASCII: the common case */
        *safe = true;
        return 1;
    }
    uint32_t c = 0;
    size_t n = sbw_utf8_decode(s, &c);
    if (!n) {
        *safe = false;
        return 1;
    }
    *safe = !sbw_utf8_invisible(c);
    return n;
}

bool sbw_plot_gp_str_exact(const char *s)
{
    bool safe = true;
    while (*s && safe)
        s += sbw_plot_gp_char(s, &safe);
    return safe;
}

void sbw_plot_gp_str(FILE *out, const char *s)
{
    fputc('\'', out);
    for (const char *p = s ? s : ""; *p;) {
        bool safe;
        size_t n = sbw_plot_gp_char(p, &safe);
        if (!safe)
            fputc('?', out);
        else if (*p == '\'')
            fputs("''", out);
        else
            fwrite(p, 1, n, out);
        p += n;
    }
    fputc('\'', out);
}

void sbw_plot_gp_comment(FILE *out, const char *s)
{
    fputs("# ", out);
    for (const char *p = s ? s : ""; *p;) {
        bool safe;
        size_t n = sbw_plot_gp_char(p, &safe);
        uint32_t c = 0;
        if (safe && *p == '\\')
            fputs(p[1] ? "\\\\" : "\\x5c", out); /* never the line's last character */
        else if (safe)
            fwrite(p, 1, n, out);
        else if (sbw_utf8_decode(p, &c) == n && c >= 0x80)
            fprintf(out, "\\u{%04X}", (unsigned)c);
        else
            fprintf(out, "\\x%02x", (unsigned)(unsigned char)*p);
        p += n;
    }
    fputc('\n', out);
}

bool sbw_plot_gp_numeric_fmt(const char *fmt)
{
    for (const char *p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
        p++;
        if (*p == '%') {
            p++;
            continue;
        }
        p += strspn(p, "-+ #0123456789.hlz");
        if (!*p || !strchr("diuxXfeg", *p))
            return false;
        p++;
    }
    return true;
}

void sbw_plot_gp_text(FILE *out, const char *lit) { fputs(lit, out); }

void sbw_plot_gp_code(FILE *out, const char *fmt, ...)
{
    if (!sbw_plot_gp_numeric_fmt(fmt)) {
        fprintf(stderr, "sbw_plot_gp_code: '%s' has a non-numeric conversion\n", fmt);
        abort(); /* a programming error: strings go through sbw_plot_gp_str */
    }
    va_list ap;
    va_start(ap, fmt);
    /* clang-analyzer 14 misses the va_start above (a known false positive). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vfprintf(out, fmt, ap);
    va_end(ap);
}

void sbw_plot_gp_num_text(double x, char *buf, size_t cap)
{
    if (!isfinite(x)) {
        snprintf(buf, cap, "NaN");
        return;
    }
    int o = snprintf(buf, cap, "%.17g", x);
    if (o > 0 && (size_t)o + 2 < cap && !strpbrk(buf, ".e"))
        memcpy(buf + o, ".0", 3);
}

void sbw_plot_gp_num(FILE *out, double x)
{
    char buf[40];
    sbw_plot_gp_num_text(x, buf, sizeof buf);
    fputs(buf, out);
}

bool sbw_plot_gp_ident(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 31 || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

bool sbw_plot_gp_expr_ok(const char *e)
{
    char *end;
    double v = strtod(e, &end);
    if (end != e && !*end && isfinite(v) && strspn(e, "0123456789.eE+-") == strlen(e))
        return true;
    if (!strcmp(e, "x"))
        return true;
    size_t n = strlen(e);
    if (n < 4 || strcmp(e + n - 3, "(x)") != 0 || n - 3 > 31)
        return false;
    char name[32];
    memcpy(name, e, n - 3);
    name[n - 3] = '\0';
    return sbw_plot_gp_ident(name);
}

void sbw_plot_gp_expr(FILE *out, const char *e)
{
    if (!sbw_plot_gp_expr_ok(e)) {
        fprintf(stderr, "sbw_plot_gp_expr: '%s' is not x, a number or NAME(x)\n", e);
        abort(); /* sbw_plot_fig_series_func refuses it first */
    }
    fputs(e, out);
}
