/* sbw_plot_sel.h -- what sbw-plot's kinds share: comma lists, file stems
 * and legend labels, axis labels of the tools' columns, rows selected by
 * --where, series keys, and a cell as a number to draw.  Selection and
 * formatting only: nothing here computes.
 */
#ifndef SBW_PLOT_SEL_H
#define SBW_PLOT_SEL_H

#include "sbw_plot_kind.h"
#include "sbw_tsv.h"

#include <stdbool.h>
#include <stddef.h>

/* A readable axis label for a column of the tools' tables ("kl_mean" ->
 * "mean KL(P*‖Q) (nats)"); the name itself when it is not known. */
const char *sbw_plot_sel_label(const char *col);

/* Splits a comma list into n new strings (free with
 * sbw_plot_sel_free_list).  "" or NULL gives n = 0.  Errors: SBW_ENOMEM;
 * on failure *out is NULL and *n 0 (nothing allocated). */
int sbw_plot_sel_split(const char *s, char ***out, size_t *n);

/* Frees the n strings of v and v (NULL is fine). */
void sbw_plot_sel_free_list(char **v, size_t n);

/* The last path component of path without its extension, into buf (cap
 * bytes; "fit/" names the folder fit). */
void sbw_plot_sel_stem(const char *path, char *buf, size_t cap);

/* Label i of --labels into buf, or fallback when --labels is not given.
 * Errors: SBW_EINVAL (as many labels as inputs are needed), SBW_ENOMEM;
 * buf untouched on failure. */
int sbw_plot_sel_label_of(const sbw_plot_kind_args *a, size_t i, const char *fallback, char *buf,
                          size_t cap);

/* A --where clause COL=VALUE[,COL=VALUE...]: the columns and values, and
 * their positions in the table at hand (sbw_plot_sel_where_bind). */
typedef struct sbw_plot_sel_where {
    char **col, **val;
    size_t *at;
    size_t n;
} sbw_plot_sel_where;

/* Parses s (NULL or "": no clause) into *w (free with
 * sbw_plot_sel_where_free).  Errors: SBW_EINVAL (an item without
 * COLUMN=), SBW_ENOMEM; *w is empty on failure. */
int sbw_plot_sel_where_parse(const char *s, sbw_plot_sel_where *w);
void sbw_plot_sel_where_free(sbw_plot_sel_where *w);

/* Resolves w's columns in t once (a table may have 100,000 columns and as
 * many rows).  Errors: SBW_EDATA naming the file and the missing column;
 * on failure w's positions are bound up to the missing column (do not
 * match with it). */
int sbw_plot_sel_where_bind(const sbw_tsv *t, sbw_plot_sel_where *w);

/* Whether row of t matches w (bound to t): every value equal as text, or
 * as numbers when both read as numbers. */
bool sbw_plot_sel_where_match(const sbw_tsv *t, size_t row, const sbw_plot_sel_where *w);

/* A set of strings in first-seen order: series and panel keys. */
typedef struct sbw_plot_sel_keys {
    char **s;
    size_t n;
} sbw_plot_sel_keys;

/* The index of s in k, added at the end when new.  Errors: SBW_ENOMEM; on
 * failure k's keys and *idx are unchanged. */
int sbw_plot_sel_key(sbw_plot_sel_keys *k, const char *s, size_t *idx);

/* The series key of row r into buf: the series column sc's value (with
 * " K=k" from column kc when that is not 0 or nan), or file_lab when
 * sc < 0. */
void sbw_plot_sel_series_key(const sbw_tsv *t, size_t r, long sc, long kc, const char *file_lab,
                             char *buf, size_t cap);

/* The cell at (r, c) as a number to draw: finite, or nan for a value the
 * tool did not measure there (sbw-lm's valid_ppl between validations);
 * an infinite one (a diverged run) is SBW_EDATA naming the file, row and
 * column, never a point silently left out; on failure *x is untouched
 * (not a number) or holds the infinity. */
int sbw_plot_sel_value(const sbw_tsv *t, size_t r, size_t c, double *x);

/* Column name of t into x (t->nrow values), every one finite (a spectrum
 * or a map has no missing values).  Errors: SBW_EDATA naming the file,
 * and the column or the row and value; on failure x holds the rows
 * before the bad one (and it): discard it. */
int sbw_plot_sel_column(const sbw_tsv *t, const char *name, double *x);

#endif
