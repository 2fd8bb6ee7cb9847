/* sbw_plot_alpha.h -- one kind of sbw-plot (sbw_plot_kind.h):
 *   alpha     sbw-synth tables of Dirichlet languages: sorted probabilities
 *             of a row (sbw-info --sorted's table of each, --sorted), and
 *             row entropy against alpha (mean and sd of the first --rows
 *             entropies of sbw-info --per-row's table, --entropy): LMS
 *             Figure 5
 */
#ifndef SBW_PLOT_ALPHA_H
#define SBW_PLOT_ALPHA_H

#include "sbw_plot_kind.h"

/* Builds the alpha figure of a's inputs into f (sbw_plot_kind_build's
 * contract: errors name the file and what is wrong).  On failure f holds
 * a partial figure, which sbw_plot_kind_build frees. */
int sbw_plot_alpha_build(sbw_plot_fig *f, const sbw_plot_kind_args *a);

#endif
