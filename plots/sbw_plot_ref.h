/* sbw_plot_ref.h -- reference lines a figure gets from the command line:
 * a line y = A x + B (--line 1:1 is Softmax's rank D + 1 against D), a
 * constant y (--hline), a vertical line (--vline: the rank d* of a
 * language), each with a legend entry.  The values are numbers checked
 * here (finite; positive on a log axis); the labels enter the script as
 * every label does (escaped literals, sbw_plot_gp).
 */
#ifndef SBW_PLOT_REF_H
#define SBW_PLOT_REF_H

#include "sbw_plot_fig.h"

#include <stdbool.h>

/* The options as given (NULL: not given). */
typedef struct sbw_plot_ref_args {
    const char *line;   /* "A:B[:LABEL]" */
    const char *hline;  /* "Y[:LABEL]" */
    const char *vline;  /* "X[:LABEL]" */
    const char *panels; /* "I,J,...": the panels (1-based) that get them; NULL: all */
} sbw_plot_ref_args;

/* Checks the options' syntax and numbers before any input is read.
 * Errors: SBW_EINVAL naming the option and what it wants. */
int sbw_plot_ref_check(const sbw_plot_ref_args *r);

/* Adds the lines to f's panels (after its kind built it), in the order
 * line, hline, vline, as reference series (style 0).  logx, logy: the
 * figure's forced log axes.  Errors: SBW_EINVAL (a bad option, a panel
 * number past the figure's, a value <= 0 on a log axis), SBW_ENOMEM; on
 * failure f may hold some of the lines (discard it: the figure is not
 * drawn). */
int sbw_plot_ref_add(sbw_plot_fig *f, const sbw_plot_ref_args *r, bool logx, bool logy);

#endif
