/* sbw_plot_group.h -- the grouped kinds of sbw-plot (sbw_plot_kind.h):
 * rows of tables selected by --where, one line per series, one panel per
 * (y column, panel value), mean and sd over the rows of equal keys.
 *
 *   sweep     a results table: a metric against D, one line per head, one
 *             panel per M, mean and sd over the rows of equal keys (seeds)
 *   train     --log TSVs of sbw-fit or sbw-lm: metrics against step/epoch
 *   rank-k    a table with k, rank and perplexity or KL: against K (MoS
 *             Table 7 as a figure)
 */
#ifndef SBW_PLOT_GROUP_H
#define SBW_PLOT_GROUP_H

#include "sbw_plot_kind.h"

/* Build the figure of a's inputs into f (sbw_plot_kind_build's
 * contract: errors name the file and what is wrong).  On failure f holds
 * a partial figure, which sbw_plot_kind_build frees. */
int sbw_plot_group_sweep(sbw_plot_fig *f, const sbw_plot_kind_args *a);
int sbw_plot_group_train(sbw_plot_fig *f, const sbw_plot_kind_args *a);
int sbw_plot_group_rank_k(sbw_plot_fig *f, const sbw_plot_kind_args *a);

#endif
