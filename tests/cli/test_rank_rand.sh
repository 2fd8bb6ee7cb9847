#!/bin/sh
# CLI checks of sbw-rank --method randomized (issue 29): the top-K values
# against the exact path's spectrum within the printed intervals, the
# counting ranks exact or "at least", every estimate labelled, the same
# tables for the same seed, float32 files, centring, and bad usage.
. tests/cli/lib.sh
R="$BIN/sbw-rank"

# rows COLUMN FILE: the values of COLUMN in FILE's data rows, one per line
col() { awk -F'\t' -v c="$1" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next } { print $k }' "$2"; }
# measure FILE NAME COLUMN: COLUMN of the row of measure NAME
measure() { awk -F'\t' -v m="$2" -v c="$3" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next } $1 == m { print $k }' "$1"; }

# a log-softmax of rank-12 logits: rank 13, row- and double-centred 12
"$BIN/sbw-synth" lowrank --n 1500 --m 300 --rank 12 --seed 4 -q -o "$T/lr.npy" >/dev/null 2>&1
# a full-rank Dirichlet language: slow decay
"$BIN/sbw-synth" dirichlet --n 600 --m 200 --alpha 0.5 --seed 5 -q -o "$T/dir.npy" >/dev/null 2>&1

# within SKETCH.tsv EXACT.tsv K what: sigma_lower <= exact sigma <= sigma_upper
# for each of the top K values (the exact path's --spectrum table)
within() {
    col sigma_lower "$1" >"$T/lo"
    col sigma_upper "$1" >"$T/hi"
    col sigma "$2" | head -n "$3" >"$T/ex"
    n=$(paste "$T/lo" "$T/ex" "$T/hi" | awk -F'\t' '$1 <= $2 && $2 <= $3 { n++ } END { print n + 0 }')
    expect_eq "$n" "$3" "$4: every exact value within its interval"
}

for c in "" --center --bias; do
    expect_exit 0 "exact $c" "$R" -q $c --spectrum "$T/ex.tsv" "$T/lr.npy"
    rk=$(tsv_field "$T/out" rank)
    expect_exit 0 "randomized $c" "$R" -q $c --method randomized --top 20 --spectrum "$T/rs.tsv" "$T/lr.npy"
    expect_eq "$(measure "$T/out" nr status)" estimated "$c: nr decided (sigma_21 below the threshold)"
    expect_eq "$(measure "$T/out" nr rank)" "$rk" "$c: nr rank = the exact path's"
    expect_eq "$(measure "$T/out" nr rank_lower)" "$rk" "$c: nr lower bound"
    expect_eq "$(measure "$T/out" nr rank_upper)" "$rk" "$c: nr upper bound"
    expect_eq "$(col index "$T/rs.tsv" | wc -l)" 20 "$c: 20 values in the spectrum"
    within "$T/rs.tsv" "$T/ex.tsv" 20 "lowrank $c"
    # K below the rank: at least K
    expect_exit 0 "randomized --top 5 $c" "$R" -q $c --method randomized --top 5 "$T/lr.npy"
    expect_eq "$(measure "$T/out" nr status)" at_least "$c --top 5: nr only bounded below"
    expect_eq "$(measure "$T/out" nr rank)" 5 "$c --top 5: at least 5"
    expect_eq "$(measure "$T/out" nr rank_upper)" nan "$c --top 5: no upper bound"
done
expect_grep '^# center=both' "$T/out" "--bias: double-centred"
expect_grep '^# passes=7' "$T/out" "--bias: one pass more (the column means)"

# every estimate labelled: header, statuses, spectrum rows
expect_exit 0 "labels" "$R" -q --method randomized --top 10 --spectrum "$T/rs.tsv" "$T/dir.npy"
expect_grep '^# method=randomized' "$T/out" "method in header"
expect_grep '^# estimated=every sigma and rank here is estimated' "$T/out" "estimated label"
expect_grep '^# failure_probability=2e-10' "$T/out" "failure probability"
expect_grep '^# seed=20180101' "$T/out" "default seed printed"
expect_grep '^# frobenius=' "$T/out" "exact Frobenius norm"
expect_eq "$(col status "$T/out" | sort -u | tr '\n' ' ')" "at_least estimated undecided " "statuses"
expect_eq "$(measure "$T/out" gap status)" undecided "gap needs the whole spectrum"
expect_eq "$(measure "$T/out" stable status)" estimated "stable rank estimated"
expect_eq "$(col status "$T/rs.tsv" | sort -u)" estimated "every sigma labelled estimated"
expect_grep '^# estimated=' "$T/rs.tsv" "spectrum header labelled"
# slow decay: the stable rank's bounds hold the exact path's stable rank
expect_exit 0 "exact measures" "$R" -q --measures "$T/dir.npy"
st=$(measure "$T/out" stable rank)
"$R" -q --method randomized --top 10 "$T/dir.npy" >"$T/rnd" 2>"$T/err"
lo=$(measure "$T/rnd" stable rank_lower)
hi=$(measure "$T/rnd" stable rank_upper)
if awk -v l="$lo" -v s="$st" -v h="$hi" 'BEGIN { exit !(l <= s && s <= h) }'; then ok; else bad "stable $st not in [$lo, $hi]"; fi
# exact Frobenius norm: the exact spectrum's
"$R" -q --spectrum "$T/ex.tsv" "$T/dir.npy" >/dev/null 2>&1
f2=$(col sigma "$T/ex.tsv" | awk '{ s += $1 * $1 } END { printf "%.17g", sqrt(s) }')
expect_num_near "$(tsv_meta "$T/rnd" frobenius)" "$f2" \
    "$(awk -v f="$f2" 'BEGIN { print f * 1e-12 }')" "frobenius = sqrt(sum sigma^2)"
within "$T/rs.tsv" "$T/ex.tsv" 10 "dirichlet (slow decay)"

# JSON: the same labels
expect_exit 0 "json" "$R" -q --json --method randomized --top 4 "$T/dir.npy"
expect_grep '"status": "estimated"' "$T/out" "JSON status"
expect_grep '"failure_probability": 2e-10' "$T/out" "JSON failure probability"
expect_grep '"rank_upper": null' "$T/out" "JSON: no upper bound is null"

# the same seed, the same tables (but the seconds and the spectrum's
# name); another seed, others
same() { grep -v '^# \(seconds\|command\|spectrum\)=' "$1"; }
"$R" -q --method randomized --top 8 --seed 7 --spectrum "$T/s1.tsv" "$T/dir.npy" >"$T/a1" 2>/dev/null
"$R" -q --method randomized --top 8 --seed 7 --spectrum "$T/s2.tsv" "$T/dir.npy" >"$T/b1" 2>/dev/null
same "$T/a1" >"$T/a"
same "$T/b1" >"$T/b"
if cmp -s "$T/a" "$T/b"; then ok; else bad "same seed, different tables"; fi
if [ "$(col sigma "$T/s1.tsv")" = "$(col sigma "$T/s2.tsv")" ]; then ok; else bad "same seed, different sigma"; fi
"$R" -q --method randomized --top 8 --seed 8 --spectrum "$T/s3.tsv" "$T/dir.npy" >/dev/null 2>&1
if [ "$(col sigma "$T/s1.tsv")" != "$(col sigma "$T/s3.tsv")" ]; then ok; else bad "another seed, the same sigma"; fi
expect_grep '^# seed=7' "$T/a" "seed printed"

# float32: read (not mapped), float32 eps, the exact path's rank
expect_exit 0 "float32 exact" "$R" -q --spectrum "$T/ex.tsv" "$FIX/rank_ls_f4.npy"
rk=$(tsv_field "$T/out" rank)
expect_exit 0 "float32" "$R" -q --method randomized --top 20 --spectrum "$T/rs.tsv" "$FIX/rank_ls_f4.npy"
expect_grep '^# dtype=float32' "$T/out" "float32 dtype"
expect_grep '^# mapped=false' "$T/out" "float32 read, not mapped"
expect_grep '^# eps_source=float32 data' "$T/out" "float32 eps"
expect_eq "$(measure "$T/out" nr rank)" "$rk" "float32: nr = exact (K = min(N, M))"
expect_eq "$(measure "$T/out" nr status)" estimated "float32: K = min(N, M) decides"
within "$T/rs.tsv" "$T/ex.tsv" 20 "float32"
expect_exit 0 "float64 mapped" "$R" -q --method randomized --top 3 "$FIX/rank_ls.npy"
expect_grep '^# mapped=true' "$T/out" "float64 mapped"
# --exp and --block-rows
expect_exit 0 "--exp" "$R" -q --exp --method randomized --top 3 --block-rows 7 "$FIX/rank_ls.npy"
expect_grep '^# matrix=P = exp\(A\)' "$T/out" "--exp label"
expect_grep '^# block_rows=7' "$T/out" "--block-rows"

# the memory preflight counts the whole sketch: refused at once, exit 1
expect_exit 1 "SBW_MAX_MEMORY" env SBW_MAX_MEMORY=1M "$R" -q --method randomized --top 20 "$T/lr.npy"
expect_grep "^sbw-rank: a randomized sketch of 30 columns of a 1500 x 300 matrix needs" "$T/err" "memory preflight message"
expect_lines 1 "$T/err" "memory preflight: one line"

# bad usage: exit 2, the problem on the first line
G=$FIX/rank_ls.npy
usage() { # WHAT PATTERN ARGS...
    what=$1 pat=$2
    shift 2
    expect_exit 2 "$what" "$R" -q "$@"
    expect_grep "^sbw-rank: $pat" "$T/err" "$what: message"
    expect_eq "$(head -c 0 "$T/out"; wc -c <"$T/out")" 0 "$what: no table"
}
usage "--top 0" "--top must be in \[1" --method randomized --top 0 "$G"
usage "--top > min(N, M)" ".*rank_ls.npy: --top 21 is not in 1..min\(N, M\) = 20" --method randomized --top 21 "$G"
expect_lines 1 "$T/err" "--top > min(N, M): one line"
usage "no --top" "--method randomized needs --top K" --method randomized "$G"
usage "--power without randomized" "--power does not apply" --power 1 "$G"
usage "--top without randomized" "--top does not apply" --top 3 "$G"
usage "--oversample without randomized" "--oversample does not apply" --method tsqr --oversample 3 "$G"
usage "--seed without randomized" "--seed does not apply" --seed 3 "$G"
usage "--single with randomized" "--single does not apply to --method randomized" --method randomized --top 2 --single "$G"
usage "--workers with randomized" "--workers does not apply" --method randomized --top 2 --workers 2 "$G"
usage "--norm with randomized" "--norm does not apply" --method randomized --top 2 --norm minmax "$G"
usage "bad method" "--method: 'svd' is not one of auto, direct, tsqr, randomized" --method svd "$G"
# a pipe: the single-pass sketch (one pass), every exact value within its
# estimated interval, labelled so, the same table for the same seed
for c in "" --center --bias; do
    expect_exit 0 "exact $c (dir)" "$R" -q $c --spectrum "$T/ex.tsv" "$T/dir.npy"
    # shellcheck disable=SC2002 # a pipe on purpose
    cat "$T/dir.npy" | "$R" -q $c --method randomized --top 10 --seed 9 --spectrum "$T/sp.tsv" - >"$T/p1" 2>"$T/err"
    expect_eq "$?" 0 "a pipe $c: exit 0"
    expect_eq "$(tsv_meta "$T/p1" passes)/$(tsv_meta "$T/p1" sketch_method)" 1/single_pass "a pipe $c: one pass, single-pass"
    expect_grep '^# estimated=.*single-pass sketch.*Theorem 4.3.*estimated$' "$T/p1" "a pipe $c: labelled estimated"
    expect_eq "$(tsv_meta "$T/p1" failure_probability)" 1e-10 "a pipe $c: the test vectors' failure probability"
    e=$(tsv_meta "$T/p1" expected_error_bound)
    if awk -v e="$e" 'BEGIN { exit !(e > 0) }'; then ok; else bad "a pipe $c: expected_error_bound '$e'"; fi
    within "$T/sp.tsv" "$T/ex.tsv" 10 "a pipe $c"
    fx=$(tsv_meta "$T/ex.tsv" frobenius)
    [ -n "$fx" ] || fx=$(col sigma "$T/ex.tsv" | awk '{ s += $1 * $1 } END { printf "%.17g", sqrt(s) }')
    expect_num_near "$(tsv_meta "$T/p1" frobenius)" "$fx" "$(awk -v f="$fx" 'BEGIN { print 1e-10 * f }')" "a pipe $c: ||A||_F exact"
    # shellcheck disable=SC2002
    cat "$T/dir.npy" | "$R" -q $c --method randomized --top 10 --seed 9 - >"$T/p2" 2>/dev/null
    grep -Ev '^# (command|seconds|spectrum)=' "$T/p1" >"$T/p1.a"
    grep -Ev '^# (command|seconds|spectrum)=' "$T/p2" >"$T/p2.a"
    expect_exit 0 "a pipe $c: the same table for the same seed" cmp "$T/p1.a" "$T/p2.a"
done
# shellcheck disable=SC2002
cat "$T/dir.npy" | "$R" -q --method randomized --top 10 --seed 10 - >"$T/p3" 2>/dev/null
if [ "$(tsv_meta "$T/p3" sigma_K)" != "$(tsv_meta "$T/p1" sigma_K)" ]; then ok; else bad "a pipe: another seed, the same sketch"; fi
# shellcheck disable=SC2002
cat "$G" | "$R" -q --method randomized --top 2 --power 1 - >"$T/out" 2>"$T/err"
expect_eq "$?" 2 "a pipe --power: exit 2"
expect_grep "^sbw-rank: --power does not apply to a pipe" "$T/err" "a pipe --power: message"
"$BIN/sbw-synth" dirichlet --n 20 --m 40 --seed 6 -q -o "$T/wide.npy" >/dev/null 2>&1
# shellcheck disable=SC2002
cat "$T/wide.npy" | "$R" -q --method randomized --top 15 - >"$T/out" 2>"$T/err"
expect_eq "$?" 2 "a pipe, N < K + p + 2: exit 2"
expect_grep "^sbw-rank: <stdin>: the single-pass sketch of a pipe needs N >= K \+ p \+ 2 rows" "$T/err" "a pipe, N < K + p + 2: message"
expect_lines 1 "$T/err" "a pipe, N < K + p + 2: one line"

finish
