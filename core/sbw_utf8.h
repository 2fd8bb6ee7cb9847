/* sbw_utf8.h -- the one UTF-8 decoder and the one list of characters a
 * reader cannot see: what messages (sbw_error_escape), gnuplot scripts
 * (plots/sbw_plot_gp) and JSON strings (sbw_table) escape or replace.
 */
#ifndef SBW_UTF8_H
#define SBW_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The length (1-4) of the well-formed UTF-8 character at s, its code point
 * in *cp; 0 when the bytes there are not one: a stray continuation byte,
 * an overlong form, a surrogate, beyond U+10FFFF, or a sequence cut short
 * (a NUL ends it, so a terminated string is never read past its end).
 * s[0] == '\0' is the one-byte character U+0000. */
size_t sbw_utf8_decode(const char *s, uint32_t *cp);

/* The same for the n bytes at s, which need not be terminated: 0 also when
 * the character would run past them (n == 0 included). */
size_t sbw_utf8_decode_n(const char *s, size_t n, uint32_t *cp);

/* Whether code point c is one a reader cannot see, or one that moves the
 * cursor or reorders the text after it: the C0 controls, DEL and the C1
 * controls (U+0000-001F, U+007F-009F), the soft hyphen (U+00AD), the
 * combining grapheme joiner (U+034F), the Arabic letter mark (U+061C), the
 * Hangul and Khmer fillers (U+115F-1160, U+17B4-17B5, U+3164, U+FFA0), the
 * Mongolian vowel separator (U+180E), zero-width spaces, joiners and
 * direction marks (U+200B-200F), line and paragraph separators, embeddings
 * and overrides (U+2028-202E), the word joiner, invisible operators and
 * isolates (U+2060-206F), the byte-order mark (U+FEFF), interlinear
 * annotations (U+FFF9-FFFB) and tags (U+E0000-E007F). */
bool sbw_utf8_invisible(uint32_t c);

#endif
