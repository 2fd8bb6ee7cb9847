/* sbw_plot_monotone.h -- one kind of sbw-plot (sbw_plot_kind.h):
 *   monotone  sbw-fit --save / sbw-lm eval --export folders of LMS and PLIF
 *             heads: f(x) from their map.tsv (the head's kernels on a grid)
 */
#ifndef SBW_PLOT_MONOTONE_H
#define SBW_PLOT_MONOTONE_H

#include "sbw_plot_kind.h"

/* Builds the monotone figure of a's inputs into f (sbw_plot_kind_build's
 * contract: errors name the file and what is wrong).  On failure f holds
 * a partial figure, which sbw_plot_kind_build frees. */
int sbw_plot_monotone_build(sbw_plot_fig *f, const sbw_plot_kind_args *a);

#endif
