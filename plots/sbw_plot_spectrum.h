/* sbw_plot_spectrum.h -- one kind of sbw-plot (sbw_plot_kind.h):
 *   spectrum  sbw-rank --spectrum TSVs (or .npy vectors of singular values):
 *             MoS Figure 1's cumulative percentage, and sigma by index on a
 *             log axis with each matrix's NR threshold (--rank tables)
 */
#ifndef SBW_PLOT_SPECTRUM_H
#define SBW_PLOT_SPECTRUM_H

#include "sbw_plot_kind.h"

/* Builds the spectrum figure of a's inputs into f (sbw_plot_kind_build's
 * contract: errors name the file and what is wrong).  On failure f holds
 * a partial figure, which sbw_plot_kind_build frees. */
int sbw_plot_spectrum_build(sbw_plot_fig *f, const sbw_plot_kind_args *a);

#endif
