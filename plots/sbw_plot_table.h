/* sbw_plot_table.h -- `sbw-plot table`: a GitHub-markdown table from one or
 * more of the tools' TSVs, for the recipes' reports.  It selects, renames,
 * filters, joins and formats; it computes nothing.  Below the table it
 * cites the `# command=` line of every source, so a reader can rerun what
 * made each number.
 *
 * Every cell is text: nothing read from a table becomes markup.  Control,
 * invisible and bidirectional characters and bytes that are not UTF-8 are
 * shown as \xNN / \u{XXXX} (sbw_error_escape); then the characters that
 * could open markup inside a table cell are backslash-escaped:
 *   | \ ` * [ ] < > & ~ $ @   always,
 *   _                         unless between two letters or digits (an
 *                             intraword _ is never emphasis: kl_mean stays),
 *   :                         before "//" (no autolink), and the "." of a
 *                             leading "www." (GitHub's extended autolinks).
 * A command line is cited in a code span whose backtick fence is longer
 * than any run of backticks inside it.
 */
#ifndef SBW_PLOT_TABLE_H
#define SBW_PLOT_TABLE_H

#include "sbw_tsv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One column of the rendered table: [I:]COL[=HEADER]. */
typedef struct sbw_plot_table_col {
    size_t input;       /* 1-based input, 0: the first input that has the column */
    const char *name;   /* the column in the input */
    const char *header; /* what the table shows (name when not renamed) */
    const char *format; /* a checked "%[+ ][W][.P](e|f|g)", NULL: as written */
} sbw_plot_table_col;

/* One --where condition: COL=VALUE (text equality).  Conditions on the same
 * column are alternatives; on different columns all must hold.  In a join,
 * a condition on input I >= 2 (an explicit I: prefix) chooses which rows of
 * input I may meet the first input's rows (a long table such as paper.tsv
 * read once per quantity); the others test the joined row. */
typedef struct sbw_plot_table_cond {
    size_t input; /* as in sbw_plot_table_col */
    const char *name, *value;
} sbw_plot_table_cond;

typedef struct sbw_plot_table_spec {
    const sbw_plot_table_col *cols; /* ncols columns; 0: every column of input 1 */
    size_t ncols;
    const sbw_plot_table_cond *where;
    size_t nwhere;
    const char *join;    /* key column: each row of input 1 meets the one row of
                            every other input with the same key; NULL: the
                            inputs' rows are stacked */
    const char *missing; /* a cell no input has (stacking, an unmatched join) */
    const char *format;  /* the format of every column when cols is empty (NULL: none) */
} sbw_plot_table_spec;

/* Escapes s for a markdown table cell as described above into a new
 * string (*out, caller frees).  Errors: SBW_ENOMEM; *out is NULL on
 * failure. */
int sbw_plot_table_cell(const char *s, char **out);

/* s as a markdown code span (fence, content, fence) into a new string,
 * controls escaped as in sbw_plot_table_cell.  Errors: SBW_ENOMEM; *out is
 * NULL on failure. */
int sbw_plot_table_code(const char *s, char **out);

/* Checks a number format: "%", optional "+" or " ", an optional width of
 * up to two digits, an optional "." and one or two digits, then e, f or g.
 * Errors: SBW_EINVAL naming it. */
int sbw_plot_table_format_check(const char *fmt);

/* Renders the table of spec over the inputs t[0..n) to out: the header
 * line, the separator, one line per kept row.  A cell whose column has a
 * format and whose text is a number written with a fraction or an exponent
 * ("0.25", "-1.5e-3", "2e+05") is printed with it; integers (counts:
 * ranks, sizes), nan, inf and words are shown as written.  Errors:
 * SBW_EDATA (a column or key no input has, a key repeated in a joined
 * input, no row left after --where: each naming the file), SBW_EIO,
 * SBW_ENOMEM.  On failure out may hold the lines before it (the caller
 * writes through sbw_file and aborts). */
int sbw_plot_table_render(const sbw_plot_table_spec *spec, const sbw_tsv *t, size_t n, FILE *out);

/* The citation below a table: for one source "\n<sub>From `NAME`: `CMD`</sub>\n",
 * for several a <details> block with one "- `NAME`: `CMD`" line each; CMD
 * is the source's "# command=" (a source without one says so).  Errors:
 * SBW_EIO, SBW_ENOMEM; on failure out may hold part of it. */
int sbw_plot_table_cite(const sbw_tsv *t, size_t n, FILE *out);

/* `sbw-plot table ...` as a command: argv[0] is "table".  Returns the exit
 * status (0, 1 bad data, 2 bad usage).  The table goes to -o through
 * sbw_file: on error nothing is left under its name (on stdout what was
 * printed stays). */
int sbw_plot_table_main(int argc, char **argv);

#endif
