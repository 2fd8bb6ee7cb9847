#!/bin/sh
# scripts/check-plots.sh (make lint): plots/ calls no numeric routine
# outside its allow-list; comments and strings do not count; the tree
# passes, a call added anywhere (or an allowed name in another file) fails,
# naming the file and line.
. tests/cli/lib.sh
C=scripts/check-plots.sh
expect_exit 0 "the tree's plots/ passes" $C plots
mkdir "$T/p"
cp plots/*.c plots/*.h "$T/p/"
expect_exit 0 "a copy passes" $C "$T/p"
printf '/* exp(x) in a comment, */ static const char *s = "log(p) in a string";\n// sqrt(x)\n' >>"$T/p/sbw_plot_alpha.c"
expect_exit 0 "comments and strings are not calls" $C "$T/p"
printf 'static double h(const double *x) { return sbw_num_entropy(x, 3) + exp (x[0]); }\n' >>"$T/p/sbw_plot_alpha.c"
expect_exit 1 "a numeric call fails" $C "$T/p"
n=$(wc -l <"$T/p/sbw_plot_alpha.c")
expect_grep "^$T/p/sbw_plot_alpha.c:$n: sbw_num_entropy\(\) in plots/" "$T/out" "names the file, line and routine"
expect_grep "^$T/p/sbw_plot_alpha.c:$n: exp\(\) in plots/" "$T/out" "a space before ( still counts"
expect_lines 2 "$T/out" "one line per call"
cp plots/sbw_plot_alpha.c "$T/p/"
printf 'static double r(double x) { return sqrt(x); }\n' >>"$T/p/sbw_plot_sel.c"
expect_exit 1 "sqrt outside sbw_plot_shape.c fails" $C "$T/p"
expect_grep "sbw_plot_sel.c:[0-9]+: sqrt\(\)" "$T/out" "the allow-list is per file"
cp plots/sbw_plot_sel.c "$T/p/"
printf 'static double m(double a, double b) { return a * 2 + b; } /* isfinite(a) */\nstatic int k(double a) { return isnan(a) || isfinite(a); }\n' >>"$T/p/sbw_plot_sel.c"
expect_exit 0 "operators and isfinite/isnan are not numeric routines" $C "$T/p"
expect_exit 2 "no such folder" $C "$T/nope"
finish
