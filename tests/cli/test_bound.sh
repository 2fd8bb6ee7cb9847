#!/bin/sh
# CLI checks of sbw-bound on the fixtures of make_rank_fixtures.py.
. tests/cli/lib.sh
B="$BIN/sbw-bound"
# Tolerances: K eps |A|_F with K = 16 and eps = DBL_EPSILON (the fixtures
# are float64).  Every number compared is a Frobenius norm built from
# singular values within 8 eps sigma_0 of exact (test_svd.c; sigma_0 <=
# |A|_F), or from the N M entries of A - log Q, each rounded at eps |a_ij|,
# i.e. a few eps |A|_F in all; seen: at most 2 eps |A|_F.
K=16
EPS=2.220446049250313e-16
tol_of() { awk -v n="$1" -v k="$K" -v e="$EPS" 'BEGIN { printf "%.17g", k * e * n }'; }

# rank_ls: log-softmax of rank-3 logits, 48 x 20: d* = 3, rank(A) = 4
expect_exit 0 "default" "$B" -q "$FIX/rank_ls.npy"
expect_grep '^# d_star=3$' "$T/out" "d*"
expect_grep '^# rank_a=4$' "$T/out" "rank of A"
expect_grep '^# scale=frobenius$' "$T/out" "scale label"
expect_grep '^d	lms_bound	shift_bound$' "$T/out" "columns"
expect_eq "$(grep -vc '^#' "$T/out")" 22 "rows d = 0..20 plus header"
# shift-aware bound >= Theorem 1 everywhere; both vanish from d* (roundoff)
norm=$(awk -F= '/^# norm_a=/ { print $2 }' "$T/out")
tol=$(tol_of "$norm")
awk -F'\t' -v t="$tol" '!/^#/ && $1 != "d" { if ($3 + t < $2) bad = 1 } END { exit bad }' "$T/out"
expect_eq "$?" 0 "shift_bound >= lms_bound"
expect_num_near "$(tsv_field "$T/out" shift_bound 4)" 0 "$tol" "shift bound 0 at d = 3"
big=$(tsv_field "$T/out" shift_bound 3)
expect_eq "$(awk -v b="$big" -v n="$norm" 'BEGIN { print (b > 1e-3 * n) }')" 1 "shift bound > 0 at d = 2"
# the shift-aware bound at d = 0 is ||A_c||_F
expect_eq "$(tsv_field "$T/out" shift_bound 1)" "$(awk -F= '/^# norm_a_centred=/ { print $2 }' "$T/out")" "shift(0) = |A_c|"

# --d list and --rms (every norm divided by sqrt(48 * 20))
expect_exit 0 "--d" "$B" -q --d 1,2,5:7 "$FIX/rank_ls.npy"
expect_eq "$(grep -vc '^#' "$T/out")" 6 "five rows + header"
expect_eq "$(tsv_field "$T/out" d 3)" 5 "list order"
l2=$(tsv_field "$T/out" lms_bound 2)
expect_exit 0 "--rms" "$B" -q --rms --d 1,2,5:7 "$FIX/rank_ls.npy"
expect_num_near "$(tsv_field "$T/out" lms_bound 2)" "$(awk -v x="$l2" 'BEGIN { printf "%.17g", x / sqrt(960) }')" "$(tol_of "$(awk -v n="$norm" 'BEGIN { printf "%.17g", n / sqrt(960) }')")" "rms scaling"
expect_grep '^# scale=rms' "$T/out" "rms label"

# --construct d* reproduces A; --construct 2 then --fit: its error is reported
expect_exit 0 "--construct 3" "$B" -q --construct 3 -o "$T/q3.npy" "$FIX/rank_ls.npy"
err=$(awk -F= '/^# construct_error=/ { print $2 }' "$T/out")
expect_num_near "$err" 0 "$tol" "construct at d* is exact"
expect_exit 0 "--construct 2" "$B" -q --construct 2 -o "$T/q2.npy" "$FIX/rank_ls.npy"
cerr=$(awk -F= '/^# construct_error=/ { print $2 }' "$T/out")
ccen=$(awk -F= '/^# construct_error_centred=/ { print $2 }' "$T/out")
s2=$(tsv_field "$T/out" shift_bound 3)
expect_num_near "$ccen" "$s2" "$tol" "constructed centred error = shift bound"
expect_exit 0 "--fit" "$B" -q --fit "$T/q2.npy" "$FIX/rank_ls.npy"
expect_grep '^# fit_d=2$' "$T/out" "fit dimension read off log Q"
expect_grep '^# fit_d_source=rank$' "$T/out" "fit_d source"
expect_grep '^# fit_above_bound=true$' "$T/out" "fit above bound"
expect_num_near "$(awk -F= '/^# fit_error=/ { print $2 }' "$T/out")" "$cerr" "$tol" "fit error = construct error"
expect_num_near "$(tsv_field "$T/out" fit_error 3)" "$cerr" "$tol" "fit_error in row d = 2"
expect_eq "$(tsv_field "$T/out" fit_error 4)" nan "fit_error only at its d"
expect_exit 0 "--fit --fit-d" "$B" -q --fit "$T/q2.npy" --fit-d 5 "$FIX/rank_ls.npy"
expect_grep '^# fit_d=5$' "$T/out" "--fit-d given"
# a pipe works for the bounds (one pass), with the fit read alongside
cat "$FIX/rank_ls.npy" | "$B" -q --fit "$T/q2.npy" - >"$T/pipe" 2>"$T/err"
expect_grep '^# d_star=3$' "$T/pipe" "pipe d*"
expect_grep '^# fit_d=2$' "$T/pipe" "pipe fit"

# --bias: a biased head of dimension 2 is exact at 2
expect_exit 0 "--bias" "$B" -q --bias --construct 2 -o "$T/qb.npy" "$FIX/rank_bias.npy"
expect_grep '^# d_star=2$' "$T/out" "biased d*"
expect_grep '^# bias=true$' "$T/out" "bias label"
nb=$(awk -F= '/^# norm_a=/ { print $2 }' "$T/out")
expect_num_near "$(awk -F= '/^# construct_error=/ { print $2 }' "$T/out")" 0 "$(tol_of "$nb")" "biased construct exact"
expect_exit 0 "no --bias" "$B" -q "$FIX/rank_bias.npy"
expect_grep '^# d_star=3$' "$T/out" "unbiased d* = 3"

# tall input through TSQR, with JSON
expect_exit 0 "--json tall" "$B" -q --json --d 3 "$FIX/rank_tall.npy"
expect_grep '"d_star": 3' "$T/out" "json d*"
expect_grep '"method": "tsqr"' "$T/out" "json method"

# bad data: exit 1, nothing under -o
expect_exit 1 "nonfinite" "$B" -q --construct 1 -o "$T/never.npy" "$FIX/nonfinite.npy"
expect_grep 'non-finite' "$T/err" "nonfinite message"
expect_absent "$T/never.npy" "no output on bad data"
expect_exit 1 "fit shape" "$B" -q --fit "$FIX/f8_c.npy" "$FIX/rank_ls.npy"
expect_grep 'log Q is 3 x 4, but A is 48 x 20' "$T/err" "fit shape message"
expect_exit 1 "fit nonfinite" "$B" -q --fit "$FIX/nonfinite.npy" "$FIX/f8_c.npy"
expect_grep 'non-finite entries in log Q' "$T/err" "fit nonfinite message"
expect_exit 1 "1-D" "$B" -q "$FIX/vec_f8.npy"
expect_exit 1 "empty" "$B" -q "$FIX/rank_empty.npy"

# bad usage: exit 2
expect_exit 2 "construct without -o" "$B" --construct 2 "$FIX/rank_ls.npy"
expect_exit 2 "-o without construct" "$B" -o "$T/x.npy" "$FIX/rank_ls.npy"
expect_exit 0 "-o -: the construction on stdout, the table on stderr (test_signals.sh)" \
    "$B" --construct 2 -o - "$FIX/rank_ls.npy"
expect_exit 2 "--fit-d without --fit" "$B" --fit-d 2 "$FIX/rank_ls.npy"
expect_exit 2 "--fit - without --fit-d" "$B" --fit - "$FIX/rank_ls.npy"
expect_exit 2 "bad --d" "$B" --d 3:x "$FIX/rank_ls.npy"
expect_exit 2 "bad --eps" "$B" --eps none "$FIX/rank_ls.npy"
cat "$FIX/rank_ls.npy" | "$B" -q --construct 2 -o "$T/p.npy" - >"$T/out" 2>"$T/err"
expect_eq "$?" 2 "construct from a pipe"
expect_grep 'regular file, not a pipe' "$T/err" "pipe message"
expect_absent "$T/p.npy" "nothing from the pipe"
expect_exit 0 "--help" "$B" --help
expect_grep 'Theorem 1' "$T/out" "help explains"

finish
