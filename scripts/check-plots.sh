#!/bin/sh
# plots/ computes no result (docs/DESIGN.md, plots/: sbw_plot_shape): every
# number a figure draws is a tool's, as written in its table; sbw-plot only
# selects, joins, formats and takes the mean and sd of error bars.  As far
# as a script can tell: no C file or header in DIR (default plots) calls a
# numeric routine -- a <math.h> function that transforms a value (exp, log,
# sqrt, pow, ...; the tests isfinite/isnan are fine), sbw_num_*, sbw_kern_*,
# BLAS, LAPACK or GSL -- outside the allow-list below, one FILE:NAME a
# line with the reason.  Comments and string literals are not code and
# are skipped.  One line per call found (FILE:LINE: NAME(), and what to do);
# exit 1 if any.
# Usage: scripts/check-plots.sh [DIR]
set -u
DIR=${1:-plots}
[ -d "$DIR" ] || { echo "usage: scripts/check-plots.sh [DIR]" >&2; exit 2; }
# FILE:NAME allowed (the file's base name): the one arithmetic, and presentation
ALLOW='
sbw_plot_shape.c:sqrt     the sd of error bars (mean and sd: the one arithmetic)
sbw_plot_script.c:floor   x tics: which values are whole numbers
sbw_plot_script.c:fabs    x tics: a whole number small enough to print
sbw_plot_tics.c:floor     tic density: the power of ten of a step, the tics inside a range
sbw_plot_tics.c:ceil      tic density: the first tic inside a range
sbw_plot_tics.c:log10     tic density: the power of ten of a step
sbw_plot_tics.c:pow       tic density: 10^e times 1, 2, 2.5 or 5
sbw_plot_tics.c:log       tic density: how far apart listed values are on a log axis
sbw_plot_tics.c:exp       log-axis tics: two tics between the ends of a short axis
sbw_plot_tics.c:round     log-axis tics: the value at an end of the data to two digits, as a tic label
'
MATH='exp|exp2|expm1|log|log2|log10|log1p|logb|sqrt|cbrt|pow|hypot|fabs|floor|ceil|round|lround|llround|trunc|rint|nearbyint|fmod|remainder|fma|fmax|fmin|fdim|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|lgamma|tgamma|frexp|ldexp|modf|scalbn'
bad=0
for f in "$DIR"/*.c "$DIR"/*.h; do
    [ -f "$f" ] || continue
    base=${f##*/}
    # the code alone, line numbers kept: comments and literals blanked
    hits=$(awk -v math="$MATH" '
        BEGIN { incom = 0 }
        {
            s = $0; out = ""
            while (length(s) > 0) {
                if (incom) {
                    e = index(s, "*/")
                    if (!e) { s = ""; break }
                    s = substr(s, e + 2); incom = 0; continue
                }
                c = substr(s, 1, 1); c2 = substr(s, 1, 2)
                if (c2 == "/*") { incom = 1; s = substr(s, 3); continue }
                if (c2 == "//") { s = ""; break }
                if (c == "\"" || c == "\047") {
                    q = c; i = 2
                    while (i <= length(s) && substr(s, i, 1) != q)
                        i += substr(s, i, 1) == "\\" ? 2 : 1
                    out = out q q; s = substr(s, i + 1); continue
                }
                out = out c; s = substr(s, 2)
            }
            line = out
            re = "(^|[^A-Za-z0-9_.>])((" math ")|sbw_num_[A-Za-z0-9_]+|sbw_kern_[A-Za-z0-9_]+|cblas_[A-Za-z0-9_]+|LAPACKE_[A-Za-z0-9_]+|gsl_[A-Za-z0-9_]+)[ \t]*\\("
            while (match(line, re)) {
                m = substr(line, RSTART, RLENGTH)
                sub(/^[^A-Za-z_]/, "", m); sub(/[ \t]*\($/, "", m)
                print NR " " m
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$f")
    [ -n "$hits" ] || continue
    echo "$hits" | while read -r line name; do
        if printf '%s\n' "$ALLOW" | grep -q "^$base:$name "; then continue; fi
        echo "$f:$line: $name() in plots/: plots/ computes nothing; have a tool compute it and write it in its table (or, for presentation only, add $base:$name to scripts/check-plots.sh's allow-list with the reason)"
    done
done >"${TMPDIR:-/tmp}/check-plots.$$"
if [ -s "${TMPDIR:-/tmp}/check-plots.$$" ]; then
    cat "${TMPDIR:-/tmp}/check-plots.$$"
    bad=1
fi
rm -f "${TMPDIR:-/tmp}/check-plots.$$"
exit $bad
