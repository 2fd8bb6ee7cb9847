/* sbw_plot_tsv.h -- reading the tables the tools write (and any TSV like
 * them): "# key=value" header lines, other "#" comment lines, one line of
 * column names, then rows of tab-separated cells.  Blank lines are skipped.
 * sbw-plot reads its inputs through this; it interprets nothing but the
 * layout.
 */
#ifndef SBW_PLOT_TSV_H
#define SBW_PLOT_TSV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_plot_tsv {
    char *path;   /* as given (owned copy) */
    size_t nmeta; /* "# key=value" lines, in file order */
    char **key;   /* nmeta keys */
    char **val;   /* nmeta values */
    size_t ncol;  /* column names */
    char **col;   /* ncol names */
    size_t nrow;  /* data rows */
    char **cell;  /* nrow x ncol cells, row-major; owned strings */
} sbw_plot_tsv;

/* Reads the table at path into *t (zeroed first).  Errors: SBW_EIO (cannot
 * open or read), SBW_EFORMAT (no column-name line, a row whose cell count
 * differs from the header's, a duplicate or empty column name), SBW_EDATA
 * (a header but no row: "no data rows"), SBW_ENOMEM.  Each reason starts
 * with the path.  *t holds nothing on failure. */
int sbw_plot_tsv_read(sbw_plot_tsv *t, const char *path);

/* Frees what *t holds and zeroes it; a zeroed table is fine. */
void sbw_plot_tsv_free(sbw_plot_tsv *t);

/* Index of column name, or -1 when absent. */
long sbw_plot_tsv_col(const sbw_plot_tsv *t, const char *name);

/* Index of the column named as given; SBW_EDATA naming the file, the column
 * and the columns there are when it is absent; *col untouched on failure. */
int sbw_plot_tsv_need(const sbw_plot_tsv *t, const char *name, size_t *col);

/* The cell at (row, col) as text. */
const char *sbw_plot_tsv_str(const sbw_plot_tsv *t, size_t row, size_t col);

/* The cell at (row, col) as a number: the whole cell must parse (nan, inf
 * accepted); otherwise SBW_EDATA naming file, line-free row number, column
 * and text; *x untouched on failure. */
int sbw_plot_tsv_num(const sbw_plot_tsv *t, size_t row, size_t col, double *x);

/* The value of "# key=value", or NULL when absent (the last one wins). */
const char *sbw_plot_tsv_meta(const sbw_plot_tsv *t, const char *key);

#endif
