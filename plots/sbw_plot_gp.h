/* sbw_plot_gp.h -- the only door through which text enters a gnuplot
 * script (or sbw-plot's data file).  A script is template code plus
 * strings; the template is C string literals (SBW_PLOT_GP_TEXT, SBW_PLOT_GP_FMT
 * refuse to compile with anything else and abort on a %s or %c
 * conversion), numbers go through sbw_plot_gp_num, and every other string
 * -- a file name, a title, a label, a value read from a table, the command
 * line -- goes through sbw_plot_gp_str (a single-quoted string literal) or
 * sbw_plot_gp_comment (one comment line).  So no input can become a
 * statement, whatever its bytes.
 *
 * gnuplot's rules these rely on (5.4, checked in tests/cli/test_plot.sh):
 * in '...' only '' is special: no backslash escapes, no `command`
 * substitution, no @macro expansion (double-quoted strings do substitute
 * backquotes and interpret backslashes, so user text never goes there);
 * a newline ends a statement even inside a string; a line ending with a
 * backslash continues onto the next one, comments included.
 *
 * Neutralised ("unsafe") characters: bytes that are not UTF-8 and every
 * code point sbw_utf8_invisible lists -- the C0 controls (newline, CR,
 * tab ...), DEL, the C1 controls, and the invisible or bidirectional code
 * points that make a script read differently from what it does
 * (zero-width spaces and joiners, direction marks, embeddings, overrides,
 * isolates, separators, the BOM, fillers, tags).
 */
#ifndef SBW_PLOT_GP_H
#define SBW_PLOT_GP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Template code: lit must be a string literal (the "" concatenation does
 * not compile otherwise); fmt a literal with numeric conversions only. */
#define SBW_PLOT_GP_TEXT(out, lit)     sbw_plot_gp_text((out), "" lit "")
#define SBW_PLOT_GP_FMT(out, fmt, ...) sbw_plot_gp_code((out), "" fmt "", __VA_ARGS__)

/* Writes template text as it is (use SBW_PLOT_GP_TEXT: a literal). */
void sbw_plot_gp_text(FILE *out, const char *lit);

/* Writes template code (use SBW_PLOT_GP_FMT).  A conversion other than
 * d i u x f e g (with flags, width, precision, h l z) aborts: it would let
 * a string past the escaping below. */
void sbw_plot_gp_code(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes s as a gnuplot single-quoted string literal: 'text' with every '
 * doubled and every unsafe character (see above) written as '?'. */
void sbw_plot_gp_str(FILE *out, const char *s);

/* True when sbw_plot_gp_str keeps every character of s (nothing unsafe):
 * a file name the script can name exactly. */
bool sbw_plot_gp_str_exact(const char *s);

/* Writes "# " s "\n": one comment line whatever s holds.  Unsafe bytes are
 * written \xNN (an invisible code point \u{XXXX}), a backslash \\, and one
 * that would end the line \x5c, so the comment neither ends early nor
 * continues onto the next line. */
void sbw_plot_gp_comment(FILE *out, const char *s);

/* Writes x as a gnuplot floating-point constant ("%.17g", with ".0" added
 * when that reads as an integer: gnuplot divides integers as integers).
 * A non-finite x is written NaN (gnuplot's own constant); callers refuse
 * non-finite values before, naming the file. */
void sbw_plot_gp_num(FILE *out, double x);

/* The same text into buf (cap >= 32 bytes). */
void sbw_plot_gp_num_text(double x, char *buf, size_t cap);

/* The length in bytes of the character at s (1-4), and in *safe whether it
 * may appear in a script as it is.  s[0] must not be NUL. */
size_t sbw_plot_gp_char(const char *s, bool *safe);

/* True when every conversion of fmt is numeric (see sbw_plot_gp_code). */
bool sbw_plot_gp_numeric_fmt(const char *fmt);

/* True when e is an expression sbw-plot draws: x, a finite number written
 * with digits . e E + - only, or NAME(x) with NAME an identifier below. */
bool sbw_plot_gp_expr_ok(const char *e);

/* Writes e, which must pass sbw_plot_gp_expr_ok (aborts otherwise). */
void sbw_plot_gp_expr(FILE *out, const char *e);

/* True when s is a gnuplot identifier sbw-plot may define:
 * [A-Za-z][A-Za-z0-9_]*, at most 31 bytes. */
bool sbw_plot_gp_ident(const char *s);

#endif
