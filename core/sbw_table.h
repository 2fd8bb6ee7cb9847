/* sbw_table.h -- the results every tool prints: "# key=value" header lines
 * (tool, version, BLAS, threads, command, every parameter and input),
 * then a TSV table with a header line of column names, or, with --json,
 * the same as one JSON object.
 *
 * JSON shape, one layout whatever the row count (a reader never has to
 * guess): the meta keys, then "rows": [ {col: value, ...}, ... ] (one
 * object per row; [] for none; absent for a table without columns).
 * Keys are unique: a meta key "rows" is written as "arg_rows".
 * Non-finite numbers print as nan/inf in TSV and null in JSON.  Doubles
 * print in the shortest form that reads back exactly (up to %.17g).
 *
 * Warnings: a result the run knows may be untrustworthy (an SVD LAPACK did
 * not converge, a rank threshold within 1% of a singular value, a fit
 * stopped by its step limit while still improving) is recorded with
 * sbw_table_warn by whichever module finds it, and every table printed
 * afterwards carries it: one "# warning=CODE: text" line per warning after
 * the other header lines, and in JSON a "warnings" array of those strings
 * after the meta keys -- present, and empty, when there is none.  Printing
 * a table also repeats each warning once on stderr as "TOOL: warning: ..."
 * (unless the table itself goes to stderr), so a user watching the terminal
 * sees it too.
 *
 * Errors are sticky: the first failure of a call that builds the table
 * (meta, columns, rows, cells) is kept by the table, and from then on every
 * such call, sbw_table_print and sbw_table_write do nothing and return that
 * status, recording its reason again as the thread's last error
 * (sbw_error_reason), so a caller makes the calls one after another and
 * checks once: the status of print/write, or sbw_table_status.  A failed
 * table prints nothing; it is good only for sbw_table_status and
 * sbw_table_free.
 */
#ifndef SBW_TABLE_H
#define SBW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sbw_table sbw_table;
struct sbw_cli_common;

/* A new table whose meta starts with tool, version, blas and threads (the
 * current OpenMP thread count), and, when c is given, the command line and
 * seed (if the tool takes one: pass with_seed).  Errors: SBW_ENOMEM; *t
 * untouched and nothing allocated on failure. */
int sbw_table_alloc(sbw_table **t, const char *tool, const struct sbw_cli_common *c,
                    bool with_seed);
void sbw_table_free(sbw_table *t);

/* Adds or replaces a meta entry (key in snake_case).  After a failure the
 * entry may be left empty and the table has failed (sticky, above). */
int sbw_table_meta_str(sbw_table *t, const char *key, const char *value);
int sbw_table_meta_int(sbw_table *t, const char *key, long long value);
int sbw_table_meta_u64(sbw_table *t, const char *key, uint64_t value);
int sbw_table_meta_dbl(sbw_table *t, const char *key, double value);
int sbw_table_meta_bool(sbw_table *t, const char *key, bool value);

/* Adds (or replaces, in place) every meta entry of src to dst, in src's
 * order: a second file written beside a table carries the same command
 * and settings.  Errors: SBW_ENOMEM, kept in dst (sticky), or dst's kept
 * failure.  On failure dst holds a prefix of them, the failed entry
 * empty. */
int sbw_table_meta_copy(sbw_table *dst, const sbw_table *src);

/* Declares the columns (before the first row).  Errors: SBW_EINVAL when
 * rows exist already, SBW_ENOMEM; after a failure the old columns are
 * unchanged and the table has failed. */
int sbw_table_columns(sbw_table *t, const char *const *names, size_t n);

/* Starts a new row with every cell empty (printed as nan / null).  After a
 * failure (SBW_ENOMEM) the rows are unchanged and the table has failed. */
int sbw_table_add_row(sbw_table *t);

/* Sets a cell of the last row by column name; SBW_EINVAL for an unknown
 * column or when there is no row.  After a failure the cell may be left
 * empty and the table has failed. */
int sbw_table_set_str(sbw_table *t, const char *col, const char *value);
int sbw_table_set_int(sbw_table *t, const char *col, long long value);
int sbw_table_set_dbl(sbw_table *t, const char *col, double value);

size_t sbw_table_nrows(const sbw_table *t);

/* SBW_OK, or the table's first failure (recorded again as the thread's last
 * error, reason and all). */
int sbw_table_status(const sbw_table *t);

/* Prints the table to f as TSV with its header lines, or as JSON.  A failed
 * table prints nothing and returns its first failure; SBW_EIO when f
 * cannot be written (on failure what reached f is left there; the table is
 * unchanged). */
int sbw_table_print(const sbw_table *t, FILE *f, bool json);

/* Prints to path through sbw_file (temporary + rename; "-" = stdout).  A
 * failed table creates no file and returns its first failure; after a
 * write failure nothing is left under path (sbw_file_commit). */
int sbw_table_write(const sbw_table *t, const char *path, bool json);

/* Records a warning for every table printed from now on, process-wide and
 * thread-safe (a parallel region may call it).  The text starts with a
 * snake_case code and a colon ("svd_not_converged: ..."); tabs and newlines
 * become spaces.  A warning already recorded (same text) is not repeated;
 * past SBW_TABLE_MAX_WARNINGS the rest are counted in one last line.
 * Never fails: out of memory, the warning is counted as dropped. */
#define SBW_TABLE_MAX_WARNINGS 32
void sbw_table_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How many warnings are recorded, and the i-th (0 <= i < count; owned by
 * the module, valid until sbw_table_warn_clear). */
size_t sbw_table_warn_count(void);
const char *sbw_table_warning(size_t i);

/* Forgets every warning (tests; a tool running several independent
 * computations). */
void sbw_table_warn_clear(void);

/* Shortest "%.{15,16,17}g" that reads back as x; "nan", "inf", "-inf". */
void sbw_table_format_double(double x, char *buf, size_t cap);

#endif
