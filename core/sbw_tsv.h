/* sbw_tsv.h -- the one reader of the tables the tools write (sbw_table's
 * layout, and any TSV like it): "# key=value" meta lines (key
 * [A-Za-z0-9_]+), other "#" comment lines, one line of column names, then
 * rows of tab-separated cells, a cell that begins with '"' quoted
 * (sbw_table quotes one holding '#' or '"': "...", each '"' in it doubled)
 * and read without its quotes.  Blank lines are skipped; "#" lines may
 * stand anywhere, also between rows.  Each line loses the '\n' and '\r'
 * characters at its end (a CRLF file reads as its LF twin, a last line
 * without '\n' as any other); a line may be of any length; a NUL byte ends
 * a line's text.  It interprets nothing but the layout: sbw-plot's inputs,
 * sbw-lm curves and order (lm/sbw_lm_curve), a saved head's params.tsv
 * (models/sbw_head_io) are read through it.
 *
 * Two ways in: sbw_tsv_read, the whole table at once; or sbw_tsv_open, up
 * to and including the column-name line (a caller that checks the header
 * before any row, or wants the meta only), then sbw_tsv_next row by row.
 * Either way sbw_tsv_free ends it.
 */
#ifndef SBW_TSV_H
#define SBW_TSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct sbw_tsv {
    char *path;          /* as given (owned copy) */
    size_t nmeta;        /* "# key=value" lines read, in file order */
    char **key;          /* nmeta keys */
    char **val;          /* nmeta values */
    size_t ncol;         /* column names; 0: no column-name line (yet) */
    char **col;          /* ncol names, none empty, no two equal */
    size_t nrow;         /* data rows read */
    char **cell;         /* nrow x ncol cells, row-major; owned strings */
    size_t *line;        /* nrow: each row's line number in the file (from 1) */
    size_t header_line;  /* the column-name line's number; 0: none */
    size_t comment_line; /* the first "#" line read that is not "# key=value"; 0: none */
    struct sbw_tsv_in {  /* the reader's own state: not for callers */
        FILE *fp;        /* open between sbw_tsv_open and the end of the file */
        char *buf;
        size_t bufcap, lineno, keycap, valcap, colcap, cellcap, linecap;
    } in;
} sbw_tsv;

/* Opens path and reads into *t (zeroed first) its lines up to and
 * including the column-name line: the meta and comments before it, the
 * column names (ncol, header_line).  A file that ends first is no error:
 * ncol is 0 then (the caller says what it missed).  Errors: SBW_EIO
 * (cannot open or read), SBW_EFORMAT (a column name empty or repeated),
 * SBW_ENOMEM; each reason starts with the path.  *t holds nothing on
 * failure (zeroed).  The file stays open for sbw_tsv_next until its end or
 * sbw_tsv_free. */
int sbw_tsv_open(sbw_tsv *t, const char *path);

/* Reads the next data row of an opened t (and the "#" lines before it)
 * and appends it: nrow grows by one and *got is true; at the end of the
 * file *got is false (and stays so).  Errors: SBW_EFORMAT (a row whose
 * cell count differs from the header's: "line L has N cells, the header
 * line H"), SBW_EIO, SBW_ENOMEM, each naming the path.  On failure t
 * keeps the rows and meta read before the failing line (the caller still
 * frees it) and *got is false. */
int sbw_tsv_next(sbw_tsv *t, bool *got);

/* Reads the whole table at path into *t (zeroed first): sbw_tsv_open,
 * then every row.  Errors: sbw_tsv_open's and sbw_tsv_next's, and
 * SBW_EFORMAT (no column-name line: "no column-name line (is it a
 * table?)"), SBW_EDATA (a header but no row: "no data rows").  *t holds
 * nothing on failure (zeroed). */
int sbw_tsv_read(sbw_tsv *t, const char *path);

/* Frees what *t holds, closes its file and zeroes it; a zeroed table is
 * fine. */
void sbw_tsv_free(sbw_tsv *t);

/* Index of column name, or -1 when absent. */
long sbw_tsv_col(const sbw_tsv *t, const char *name);

/* Index of the column named as given; SBW_EDATA naming the file, the column
 * and the columns there are when it is absent; *col untouched on failure. */
int sbw_tsv_need(const sbw_tsv *t, const char *name, size_t *col);

/* The cell at (row, col) as text. */
const char *sbw_tsv_str(const sbw_tsv *t, size_t row, size_t col);

/* s as a number into *x: the whole of s must be one (strtod's syntax:
 * leading white space, nan, inf and hexadecimal accepted; out of range
 * gives +-inf or a tiny value).  False, *x untouched, otherwise. */
bool sbw_tsv_parse(const char *s, double *x);

/* The cell at (row, col) as a number (sbw_tsv_parse); otherwise SBW_EDATA
 * naming file, data row number (from 1), column and text; *x untouched on
 * failure. */
int sbw_tsv_num(const sbw_tsv *t, size_t row, size_t col, double *x);

/* The value of "# key=value", or NULL when absent (the last one wins). */
const char *sbw_tsv_meta(const sbw_tsv *t, const char *key);

#endif
