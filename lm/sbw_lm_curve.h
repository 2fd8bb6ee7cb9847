/* sbw_lm_curve.h -- models compared at equal perplexity: each model's
 * curve.tsv (valid_ppl and expected_pairwise_kl along training, from the
 * --eval-every snapshots: experiments/ptb/run.sh) interpolated linearly in log perplexity onto one
 * grid of perplexities, and, from such a grid, whether one model's KLD lies above another's where
 * both were measured (the words of experiments/ptb's report).
 *
 * Grid rule: with lo and hi the smallest and largest perplexity of all the
 * curves, the grid is p0, p0 + step, ... while <= hi (each point the sum of
 * the previous and step), where p0 = step * trunc(lo / step), plus step
 * when that is below lo.  A model's value at p is nan outside its own
 * measured range [min ppl, max ppl] (no extrapolation); inside, the first
 * segment [P_i, P_i+1] of its points sorted by perplexity (stably: equal
 * perplexities keep file order) that holds p gives
 * K_i + t (K_i+1 - K_i), t = (log p - log P_i) / (log P_i+1 - log P_i)
 * (t = 0 when P_i = P_i+1); a one-point curve has its value at its point.
 * Tables print values as "%.4f" and perplexities as "%g".
 */
#ifndef SBW_LM_CURVE_H
#define SBW_LM_CURVE_H

#include <stddef.h>
#include <stdio.h>

#include "sbw_table.h"

/* One model's curve, sorted by perplexity. */
typedef struct sbw_lm_curve {
    size_t n;    /* points, >= 1 */
    double *ppl; /* n perplexities, ascending, finite and > 0 */
    double *kld; /* n expected pairwise KLDs, finite */
} sbw_lm_curve;

/* Reads path (a TSV read by core/sbw_tsv: '#' lines and blank lines
 * skipped, then a header naming the columns valid_ppl and
 * expected_pairwise_kl, then one row per point) into *c, sorted by
 * perplexity.  On failure *c is empty (nothing to free).  Errors: SBW_EIO
 * (cannot read), SBW_EFORMAT (no header, a column missing, a column name
 * empty or repeated, a row whose cell count is not the header's, no rows),
 * SBW_EDATA (a value not a finite number, a perplexity <= 0), SBW_ENOMEM;
 * each names path and, where there is one, the line. */
int sbw_lm_curve_read(sbw_lm_curve *c, const char *path);

/* Frees c's arrays and empties it; an empty c is fine. */
void sbw_lm_curve_free(sbw_lm_curve *c);

/* Sorts c's points by perplexity, stably (insertion: a curve has tens of
 * points). */
void sbw_lm_curve_sort(sbw_lm_curve *c);

/* c's KLD at perplexity p by the rule above; NAN outside c's range. */
double sbw_lm_curve_at(const sbw_lm_curve *c, double p);

/* The grid over m curves (m >= 1) every step (> 0, finite) as a new array
 * *grid of *n points (the caller frees it; NULL when *n = 0).  Errors:
 * SBW_EINVAL (step not > 0, or more than 10^7 points), SBW_ENOMEM.  On
 * failure *grid is NULL and *n 0. */
int sbw_lm_curve_grid(const sbw_lm_curve *c, size_t m, double step, double **grid, size_t *n);

/* One pair A:B compared on a grid: at the points where neither is nan,
 * d = A - B. */
typedef struct sbw_lm_curve_pair {
    size_t common;   /* points where both were measured */
    size_t above;    /* of which d > 0 */
    double plo, phi; /* first and last such point */
    double dmin, dmax;
    size_t ncross; /* sign changes (d > 0 against d <= 0) */
    size_t *cross; /* caller's, capacity 2n: for each change, the grid
                      indices of the common points before and after it */
} sbw_lm_curve_pair;

/* Compares a and b (n values each, NAN where unmeasured) on grid ppl
 * into *r (r->cross must hold 2n).  Cannot fail. */
void sbw_lm_curve_compare(const double *ppl, const double *a, const double *b, size_t n,
                          sbw_lm_curve_pair *r);

/* Fills t (under its meta: "step" is added) with the grid table of the m
 * curves: columns ppl and names[0..m), one row per grid point, values as
 * "%.4f" text or nan.  Errors: sbw_lm_curve_grid's, the table's; on
 * failure t has failed (sticky: kept in it) or, for a grid error, holds
 * its meta and no rows. */
int sbw_lm_curve_table_fill(sbw_table *t, const sbw_lm_curve *c, char *const *names, size_t m,
                            double step);

/* A grid table as written by sbw-lm curves, read back. */
typedef struct sbw_lm_curve_table {
    size_t n, m;  /* grid points, models */
    char **names; /* m column names after "ppl" */
    double *ppl;  /* n */
    double *kld;  /* n x m, row-major; NAN for "nan" */
} sbw_lm_curve_table;

/* Reads path (a TSV read by core/sbw_tsv: '#' lines and blank lines
 * skipped, a header "ppl NAME...", rows of numbers or nan, none at all
 * allowed) into *t.  On failure *t is empty.  Errors as
 * sbw_lm_curve_read's. */
int sbw_lm_curve_table_read(sbw_lm_curve_table *t, const char *path);
void sbw_lm_curve_table_free(sbw_lm_curve_table *t);

/* Writes, in markdown, one line per pair ("A:B" in pairs, np of them;
 * a name of labels[2i] prints as labels[2i+1], nl pairs) saying whether A
 * is above B at every common perplexity, below, or crossing (where), or
 * that no perplexity was measured for both; then a blank line and whether
 * the whole chain of pairs holds (the rule of sbw_lm_curve_order_fill's
 * chain below).  Errors: SBW_EINVAL (a pair not "A:B"),
 * SBW_ENOMEM, SBW_EIO (writing f).  On failure f may hold the lines
 * before the error. */
int sbw_lm_curve_order_print(FILE *f, const sbw_lm_curve_table *t, char *const *pairs, size_t np,
                             char *const *labels, size_t nl);

/* The same comparison as a table for recipes to read: fills o (columns
 * set here) with one row per pair: a, b, common (grid points where both
 * were measured), above (of which a > b), ppl_from, ppl_to (the first and
 * last of them; nan when none), d_min, d_max (of a - b; nan when none),
 * sign_changes, and order: above (at every common point), below (at
 * every one), mixed, or none (no common point); and the meta chain:
 * holds (every pair above), broken (some pair measured and not above,
 * whatever the others), or else incomplete (some pair without a common
 * point: the words' "cannot be read yet"); names longer than 255 bytes
 * are cut there.  Errors: SBW_EINVAL (a pair not "A:B"), SBW_ENOMEM, the
 * table's (sticky in o).  On failure o is untouched (a bad pair, no
 * memory for the workspaces) or keeps the rows before the error; the
 * caller frees it either way. */
int sbw_lm_curve_order_fill(sbw_table *o, const sbw_lm_curve_table *t, char *const *pairs,
                            size_t np);

#endif
