/* sbw_plot_script.h -- the gnuplot script of a figure (sbw_plot_fig.h):
 * the one style (Okabe-Ito colours, point and dash types), labels escaped
 * for the terminal, legends wrapped to fit under their panel, log-axis
 * tics.  Every string enters the script through sbw_plot_gp.h.
 */
#ifndef SBW_PLOT_SCRIPT_H
#define SBW_PLOT_SCRIPT_H

#include "sbw_plot_fig.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the gnuplot script that draws the figure from stem.dat into
 * stem.<ext> (both beside the script wherever it is run from); stem is a
 * bare file name.  The script is the template's statements only: every
 * string (stem, titles, labels, notes, the command) enters it as a
 * '...' literal or a comment line (sbw_plot_gp.h), whatever its bytes;
 * legend entries are wrapped to fit under their panel.  Errors: SBW_EIO;
 * on failure out holds part of the script (the caller writes
 * to a temporary and discards it). */
int sbw_plot_script_write(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *stem,
                          FILE *out);

/* Text for a label in the script: UTF-8 Greek and symbols kept for the
 * cairo and svg terminals, turned into LaTeX math for tex, and LaTeX's
 * special characters escaped there; a character unsafe in a script
 * (sbw_plot_gp.h: controls, invisible and bidirectional marks, bytes that
 * are not UTF-8) becomes '?'.  The script writer then quotes it
 * (sbw_plot_gp_str).  Writes at most cap bytes (always terminated). */
void sbw_plot_script_text(const char *s, bool tex, char *buf, size_t cap);

#endif
