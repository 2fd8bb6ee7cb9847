/* sbw_utf8.c -- strict UTF-8 decoding and the invisible characters. */
#include "sbw_utf8.h"

size_t sbw_utf8_decode_n(const char *s, size_t n, uint32_t *cp)
{
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    size_t len = u[0] < 0x80             ? 1
                 : (u[0] & 0xE0) == 0xC0 ? 2
                 : (u[0] & 0xF0) == 0xE0 ? 3
                 : (u[0] & 0xF8) == 0xF0 ? 4
                                         : 0;
    if (!len || len > n)
        return 0;
    uint32_t c = len == 1 ? u[0] : u[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80) /* a NUL ends it here too */
            return 0;
        c = c << 6 | (u[i] & 0x3Fu);
    }
    if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

/* A terminated string: its NUL is not a continuation byte, so no
 * character is read past it. */
size_t sbw_utf8_decode(const char *s, uint32_t *cp) { return sbw_utf8_decode_n(s, 4, cp); }

/* The ranges of sbw_utf8_invisible (inclusive), as its comment lists them. */
static const uint32_t invisible[][2] = {
    {0x0000, 0x001F},   /* C0 controls */
    {0x007F, 0x009F},   /* DEL, C1 controls */
    {0x00AD, 0x00AD},   /* soft hyphen */
    {0x034F, 0x034F},   /* combining grapheme joiner */
    {0x061C, 0x061C},   /* Arabic letter mark */
    {0x115F, 0x1160},   /* Hangul fillers */
    {0x17B4, 0x17B5},   /* Khmer inherent vowels */
    {0x180E, 0x180E},   /* Mongolian vowel separator */
    {0x200B, 0x200F},   /* zero-width space, joiners, LRM, RLM */
    {0x2028, 0x202E},   /* line and paragraph separators, embeddings, overrides */
    {0x2060, 0x206F},   /* word joiner, invisible operators, isolates */
    {0x3164, 0x3164},   /* Hangul filler */
    {0xFEFF, 0xFEFF},   /* byte order mark, zero-width no-break space */
    {0xFFA0, 0xFFA0},   /* halfwidth Hangul filler */
    {0xFFF9, 0xFFFB},   /* interlinear annotation */
    {0xE0000, 0xE007F}, /* tags */
};

bool sbw_utf8_invisible(uint32_t c)
{
    for (size_t i = 0; i < sizeof invisible / sizeof *invisible; i++)
        if (c >= invisible[i][0] && c <= invisible[i][1])
            return true;
    return false;
}
