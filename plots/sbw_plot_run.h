/* sbw_plot_run.h -- a figure written and drawn: NAME.dat, NAME.gp and the
 * figure (NAME.png, .pdf, .svg, or NAME.tex + NAME.pdf) appear together or
 * not at all.  Everything is written into a fresh hidden folder beside
 * NAME, gnuplot runs there on NAME.gp, and only when it succeeded, printed
 * no warning and left every file non-empty are the files renamed into
 * place (data, script, then the figure).  The folder is removed either way.
 */
#ifndef SBW_PLOT_RUN_H
#define SBW_PLOT_RUN_H

#include "sbw_plot_fig.h"

#include <stddef.h>

/* The files the figure NAME produces in format fmt, in the order they are
 * put in place: out[0..*n) get malloc'd paths "NAME.dat", "NAME.gp",
 * "NAME.png" (tex: "NAME.pdf", "NAME.tex").  At most 5.  Errors:
 * SBW_ENOMEM (on failure nothing is left allocated: the entries made are
 * freed and NULL again, *n untouched). */
int sbw_plot_run_outputs(const char *name, sbw_plot_fig_format fmt, char **out, size_t *n);

/* Checks f (sbw_plot_fig_check), writes and draws it as described above.
 * name is a path without extension ("out/fig" writes out/fig.gp, ...).
 * Errors: SBW_EDATA (nothing to draw), SBW_EIO (cannot write, gnuplot
 * missing, failing or warning: its first message is in the reason),
 * SBW_ENOMEM.  Nothing appears under the final names on failure. */
int sbw_plot_run(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *name);

#endif
