/* sbw_plot_kind.h -- sbw-plot's kinds: each reads the tools' outputs and
 * builds a figure (sbw_plot_fig) from their columns, selecting and
 * reshaping, never computing a model quantity.
 *
 * One module per group of kinds (sbw_plot_spectrum, sbw_plot_group: sweep,
 * train, rank-k; sbw_plot_alpha, sbw_plot_bound, sbw_plot_monotone), what
 * they share in sbw_plot_sel; a new kind is one line of sbw_plot_kind.c's
 * registry.
 *
 *   spectrum  sbw-rank --spectrum TSVs (or .npy vectors of singular values):
 *             MoS Figure 1's cumulative percentage, and sigma by index on a
 *             log axis with each matrix's NR threshold (--rank tables)
 *   sweep     a results table: a metric against D, one line per head, one
 *             panel per M, mean and sd over the rows of equal keys (seeds)
 *   alpha     sbw-synth tables of Dirichlet languages with sbw-info's
 *             --sorted and --per-row tables of each: sorted probabilities
 *             of a row, and row entropy against alpha (LMS Figure 5)
 *   bound     an sbw-bound table, with fits' fit_error as points (--fits)
 *   train     --log TSVs of sbw-fit or sbw-lm: metrics against step/epoch
 *   monotone  sbw-fit --save / sbw-lm eval --export folders of LMS and PLIF
 *             heads: f(x) from their map.tsv (the head's kernels on a grid)
 *   rank-k    a table with k, rank and perplexity or KL: against K (MoS
 *             Table 7 as a figure)
 */
#ifndef SBW_PLOT_KIND_H
#define SBW_PLOT_KIND_H

#include "sbw_plot_fig.h"

#include <stddef.h>

typedef struct sbw_plot_kind_args {
    char **inputs; /* the positional inputs */
    size_t ninputs;
    const char *x, *y;          /* --x COL, --y COL[,COL...]; NULL: the kind's default */
    const char *series, *panel; /* --series COL, --panel COL; NULL: the kind's default */
    const char *where;          /* --where COL=VALUE[,COL=VALUE...] */
    const char *labels;         /* --labels L1,L2,...: one per input */
    const char *rank;           /* spectrum: sbw-rank tables, one per input */
    const char *fits;           /* bound: tables with d and fit_error */
    const char *entropy;        /* alpha: sbw-info --per-row tables, one per input */
    const char *sorted;         /* alpha: sbw-info --sorted tables, one per input */
    size_t rows;                /* alpha: rows per language (0: 20) */
    const char *logy_of;        /* --logy-of COL,...: log y on those y columns' panels */
    const char *norm;           /* spectrum --norm: NULL or "sigma0" (sbw-rank's), "sigma1" */
    double xmin, xmax;          /* --xrange; NaN: automatic */
} sbw_plot_kind_args;

/* The kinds, space-separated, for help and messages. */
const char *sbw_plot_kind_names(void);

/* True when kind is one of them. */
bool sbw_plot_kind_known(const char *kind);

/* Builds the figure of kind from a's inputs into *f (caller frees with
 * sbw_plot_fig_free).  Errors: SBW_EINVAL (unknown kind, bad option
 * value: a usage error), SBW_EIO/SBW_EFORMAT (unreadable input), SBW_EDATA
 * (a missing column or meta line, no rows left after --where, a value that
 * is not a number), SBW_ENOMEM.  The reason names the file and what is
 * missing.  *f is NULL on failure. */
int sbw_plot_kind_build(const char *kind, const sbw_plot_kind_args *a, sbw_plot_fig **f);

#endif
