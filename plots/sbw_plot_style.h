/* sbw_plot_style.h -- the one table of how sbw's heads look: every figure
 * of every kind draws a head (Softmax, MoC, MoS, Sigsoftmax, LMS, PLIF,
 * Mixtape) in its own colour, marker and dash, whatever the figure's order
 * of series; every other series takes a style from a second palette that
 * uses none of the heads' colours or markers.
 *
 * A series names a head when the first word of its label is the head's
 * name, case ignored: "softmax", "MoS K=4", "LMS K=3 (lms)", "mos-k15",
 * "softmax_d4"; a word ends at any character but a letter, a digit or '+'
 * (so "mos+plif" is its own, not MoS).  A kind that draws a curve whose
 * label begins with a head's name but is not that head (the bound kind's
 * "LMS Theorem 1 bound") marks the series plain.
 *
 * Series of a figure with the same style number (sbw_plot_fig_series.style
 * > 0) are one thing drawn several times (a spectrum and its threshold, a
 * head in every panel) and get one style.  Two style numbers naming the
 * same head (mos K=2 and mos K=4) keep the head's colour and marker shape;
 * the second and later are told apart by dash and an open marker.  Style 0
 * is a reference line (identity, thresholds, --hline): dark grey, dashed.
 */
#ifndef SBW_PLOT_STYLE_H
#define SBW_PLOT_STYLE_H

#include "sbw_plot_fig.h"

#include <stddef.h>

/* How one series is drawn. */
typedef struct sbw_plot_style {
    unsigned rgb; /* 0xRRGGBB */
    int point;    /* gnuplot point type (cairo terminals) */
    int dash;     /* gnuplot dash type 1..5 */
    int head;     /* index in the heads' table, -1 for none */
} sbw_plot_style;

/* The number of heads in the table, and head i's name as sbw writes it
 * ("Softmax", "MoS", ...; NULL past the end). */
size_t sbw_plot_style_nheads(void);
const char *sbw_plot_style_head_name(size_t i);

/* The head label names (its index), or -1. */
int sbw_plot_style_head_of(const char *label);

/* The style of head i, variant v (0 for the first series of that head in a
 * figure), and of the n-th series that names no head. */
sbw_plot_style sbw_plot_style_head(size_t i, size_t v);
sbw_plot_style sbw_plot_style_other(size_t n);

/* The reference lines' style (style number 0). */
sbw_plot_style sbw_plot_style_reference(void);

/* The style of every series of f, in panel order then series order, into
 * out (as many as f has series in all).  Pure: the same figure gives the
 * same styles, and a head's style does not depend on the other series. */
void sbw_plot_style_resolve(const sbw_plot_fig *f, sbw_plot_style *out);

#endif
