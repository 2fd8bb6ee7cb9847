/* sbw_plot_fig.h -- a figure as sbw-plot draws it: panels (one multiplot
 * cell each) holding series (points to draw, or a gnuplot expression in x),
 * written out as a data file with one block per series (here) and a
 * gnuplot script that reads it (sbw_plot_script.h).  Nothing here computes: the numbers written are
 * the numbers given.
 *
 * One style for every kind: Okabe-Ito colours (safe for the common colour
 * blindnesses), a distinct point type and dash pattern per style index (so
 * figures survive grey-scale printing), fonts sized for a column, labels
 * escaped for the terminal (LaTeX for --format tex).
 */
#ifndef SBW_PLOT_FIG_H
#define SBW_PLOT_FIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum sbw_plot_fig_format {
    SBW_PLOT_PNG = 0, /* pngcairo */
    SBW_PLOT_PDF,     /* pdfcairo */
    SBW_PLOT_SVG,     /* svg */
    SBW_PLOT_TEX      /* cairolatex pdf: NAME.tex + NAME.pdf */
} sbw_plot_fig_format;

/* How a series is drawn. */
typedef enum sbw_plot_fig_with {
    SBW_WITH_LINES = 0,   /* lines, dashed by style (grey-scale) */
    SBW_WITH_LINESPOINTS, /* lines and points (y error bars when any err is finite) */
    SBW_WITH_POINTS,      /* points only */
    SBW_WITH_STEPS,       /* a step function, dashed by style */
    SBW_WITH_REFERENCE,   /* a thin dashed reference line (bounds, identity, thresholds) */
    SBW_WITH_VLINE        /* a vertical reference line at x = at (no points, no data) */
} sbw_plot_fig_with;

typedef struct sbw_plot_fig_series {
    char *label;
    sbw_plot_fig_with with;
    int style;  /* > 0: one style per number (sbw_plot_style: a head's when the label
                   names one); 0: a reference line */
    bool plain; /* the label names no head, whatever its first word (sbw_plot_style) */
    char *func; /* a gnuplot expression in x drawn instead of points, or NULL */
    double at;  /* SBW_WITH_VLINE: its x */
    size_t n, cap;
    double *x, *y, *err; /* n points; err: half-width of a y error bar, NaN for none */
} sbw_plot_fig_series;

typedef struct sbw_plot_fig_panel {
    char *title, *xlabel, *ylabel;
    bool logx, logy;
    double xmin, xmax; /* NaN: gnuplot decides */
    double ymin, ymax; /* NaN: gnuplot decides (each separately) */
    const char *key;   /* "top left", "top right", "bottom left", "bottom right" or
                          "center" (inside); NULL or another: below the panel */
    size_t nseries;
    sbw_plot_fig_series **series;
} sbw_plot_fig_panel;

typedef struct sbw_plot_fig {
    char *kind;   /* "spectrum", ... */
    char *title;  /* above every panel, or NULL */
    char *avg;    /* what the points average ("mean ± sd over 3 seeds", "one seed"),
                     added to any title (--title's too), or NULL */
    char **notes; /* comment lines for the script's head (inputs, meaning) */
    size_t nnotes;
    char *defs; /* gnuplot lines run before plotting (function definitions) */
    size_t npanel;
    sbw_plot_fig_panel **panel;
} sbw_plot_fig;

/* How to render. */
typedef struct sbw_plot_fig_opts {
    sbw_plot_fig_format format;
    double width, height; /* 0: the default for the format and layout (pixels for png and
                             svg, inches for pdf and tex) */
    const char *title;    /* replaces the figure's title when not NULL */
    bool logx, logy;      /* forced on every panel */
    const char *command;  /* the command line, a comment in the script's head */
} sbw_plot_fig_opts;

/* A new empty figure of kind.  Errors: SBW_ENOMEM.  Free with
 * sbw_plot_fig_free (NULL is fine); *f is NULL on failure. */
int sbw_plot_fig_alloc(sbw_plot_fig **f, const char *kind);
void sbw_plot_fig_free(sbw_plot_fig *f);

/* Appends a panel (strings copied; NULL labels allowed) and returns it in
 * *p, owned by f.  Errors: SBW_ENOMEM; on failure f's panels and *p are
 * unchanged (only spare capacity may have grown). */
int sbw_plot_fig_add_panel(sbw_plot_fig *f, const char *title, const char *xlabel,
                           const char *ylabel, sbw_plot_fig_panel **p);

/* Appends a series to p and returns it in *s, owned by p.  Errors:
 * SBW_ENOMEM; on failure p's series and *s are unchanged. */
int sbw_plot_fig_add_series(sbw_plot_fig_panel *p, const char *label, sbw_plot_fig_with with,
                            int style, sbw_plot_fig_series **s);

/* Appends the point (x, y) with error half-width err (NaN: none).
 * Errors: SBW_ENOMEM; s's points unchanged on failure. */
int sbw_plot_fig_series_add(sbw_plot_fig_series *s, double x, double y, double err);

/* Draws the gnuplot expression expr (in x) instead of points: "x", a finite
 * number, or NAME(x) of a function defined with sbw_plot_fig_def
 * (sbw_plot_gp_expr_ok).  Errors: SBW_EINVAL (anything else), SBW_ENOMEM;
 * s unchanged on failure. */
int sbw_plot_fig_series_func(sbw_plot_fig_series *s, const char *expr);

/* Appends to p a vertical reference line at x (finite) with label.
 * Errors: SBW_EINVAL (x not finite), SBW_ENOMEM; p unchanged on failure. */
int sbw_plot_fig_vline(sbw_plot_fig_panel *p, double x, const char *label);

/* Appends a printf-formatted note to the figure's notes: one comment line
 * in the script's head each, whatever it holds (sbw_plot_gp_comment).
 * Errors: SBW_ENOMEM; the notes unchanged on failure. */
int sbw_plot_fig_note(sbw_plot_fig *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends a line of gnuplot code to the figure's definitions (run before
 * plotting).  fmt may convert numbers only (sbw_plot_gp_numeric_fmt): a
 * string never becomes code.  Errors: SBW_EINVAL (a %s or %c), SBW_ENOMEM;
 * the definitions unchanged on failure. */
int sbw_plot_fig_def(sbw_plot_fig *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends "name = x" (x finite) or "array name[n] = [v...]" (every v
 * finite) to the definitions; name is an identifier (sbw_plot_gp_ident).
 * Errors: SBW_EINVAL (a bad name, a non-finite value: callers check and
 * name the file first), SBW_ENOMEM; the definitions unchanged on failure
 * (a name and every value are checked first). */
int sbw_plot_fig_def_num(sbw_plot_fig *f, const char *name, double x);
int sbw_plot_fig_def_array(sbw_plot_fig *f, const char *name, const double *v, size_t n);

/* Checks that the figure draws something everywhere: at least one panel,
 * every panel has a series, every data series a point that its axes can
 * show (finite; positive on a log axis, with opts' forced log axes).
 * Errors: SBW_EDATA naming the panel and the series. */
int sbw_plot_fig_check(const sbw_plot_fig *f, const sbw_plot_fig_opts *o);

/* Writes the data file: a comment head, then one block per data series (in
 * panel order; gnuplot's `index`), "x<TAB>y<TAB>err" rows, blocks separated
 * by two blank lines.  Errors: SBW_EIO; on failure out holds part of the
 * file (the caller writes to a temporary and discards it). */
int sbw_plot_fig_write_data(const sbw_plot_fig *f, FILE *out);

/* Whether (x, y) can be drawn: both finite, and positive on a log axis. */
bool sbw_plot_fig_drawable(double x, double y, bool logx, bool logy);

/* "png", "pdf", "svg", "tex" to the format.  Errors: SBW_EINVAL; *f
 * untouched on failure. */
int sbw_plot_fig_format_parse(const char *s, sbw_plot_fig_format *f);

/* The file extension of the figure ("png", ..., "tex"). */
const char *sbw_plot_fig_format_ext(sbw_plot_fig_format f);

#endif
