/* sbw_plot_bound.h -- one kind of sbw-plot (sbw_plot_kind.h):
 *   bound     an sbw-bound table, with fits' fit_error as points (--fits)
 */
#ifndef SBW_PLOT_BOUND_H
#define SBW_PLOT_BOUND_H

#include "sbw_plot_kind.h"

/* Builds the bound figure of a's inputs into f (sbw_plot_kind_build's
 * contract: errors name the file and what is wrong).  On failure f holds
 * a partial figure, which sbw_plot_kind_build frees. */
int sbw_plot_bound_build(sbw_plot_fig *f, const sbw_plot_kind_args *a);

#endif
