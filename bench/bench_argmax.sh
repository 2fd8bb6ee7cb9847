#!/bin/sh
# bench_argmax.sh -- sbw-argmax against the obvious alternative, one SciPy
# linprog (HiGHS) per word (bench/argmax_ref.py), on random heads with a
# bias (bench/gen_head.py):
#
#   PTB-sized   M = 10000, D = 400   target: the whole head <= 2 minutes
#   GPT-2-sized M = 50257, D = 768   target: the whole head <= 30 minutes,
#                                    timed on the first GPT2_WORDS words and
#                                    extrapolated (x M / GPT2_WORDS: the
#                                    pre-filter's cost is linear in the words
#                                    checked; the line says so)
#   per word    the same sample of words through sbw-argmax --lp-only (the
#               exact LP for every word, no pre-filter) and through SciPy,
#               verdicts compared word by word; target: >= 20 x faster per
#               word, on the LP path alone (with the pre-filter, the whole-
#               head time per word is shown beside it)
#   LP library  GLPK against COIN-OR CLP on the same LPs
#               (bench/argmax_lp_solvers.c), when coinor-libclp-dev is
#               installed: why sbw links GLPK (docs/DESIGN.md)
#
# Time: SciPy needs about a minute per word on the PTB-sized head (PTB_REF
# words, default 3) and more than 20 minutes and 6.6 GB for one word of
# the GPT-2-sized one (not finished when measured; GPT2_REF words,
# default 0: set GPT2_REF=1 to include it).  About 10 minutes in
# all by default.  Sizes shrink for a check of the script's logic
# (PTB_M PTB_D GPT2_M GPT2_D).  Exit 1 if a verdict differs or a target
# is missed.
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
D=$BENCH_TMP/argmax
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT INT TERM
status=0
A="$BIN/sbw-argmax"
PTB_M=${PTB_M:-10000} PTB_D=${PTB_D:-400} PTB_REF=${PTB_REF:-3} PTB_LP=${PTB_LP:-16}
GPT2_M=${GPT2_M:-50257} GPT2_D=${GPT2_D:-768} GPT2_WORDS=${GPT2_WORDS:-2048}
GPT2_LP=${GPT2_LP:-4} GPT2_REF=${GPT2_REF:-0}

le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
list() { awk -v n="$1" -v m="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? "," : "", int(i * m / n) }'; }
col_sum() { awk -F'\t' -v c="$2" 'NR > 1 { s += $c } END { printf "%.6f", s }' "$1"; }

# per_word NAME W B LPWORDS REFWORDS: sbw --lp-only and SciPy on the same words
per_word() {
    name=$1 w=$2 b=$3
    lp_words=$(list "$4" "$6")
    "$A" -q --lp-only --bias "$b" --words "$lp_words" -o "$D/lp.tsv" "$w" || { status=1; return; }
    per_lp=$(awk -v t="$(tsv_meta "$D/lp.tsv" seconds_lp)" -v n="$4" 'BEGIN { printf "%.4f", t / n }')
    bench_note "$name: sbw-argmax --lp-only: $per_lp s per word (wall, $(nproc) threads, LPs in parallel) over $4 words"
    [ "$5" -gt 0 ] || return 0
    ref_words=$(list "$5" "$6")
    $PY bench/argmax_ref.py "$w" "$b" "$ref_words" "$D/ref.tsv" || { status=1; return; }
    per_ref=$(awk -v s="$(col_sum "$D/ref.tsv" 3)" -v n="$5" 'BEGIN { printf "%.3f", s / n }')
    # verdicts word by word (the reference's words are among sbw's)
    "$A" -q --bias "$b" --words "$ref_words" -o "$D/sbw_ref_words.tsv" "$w"
    tsv_rows "$D/sbw_ref_words.tsv" | tail -n +2 | cut -f1,2 >"$D/sbw_v.tsv"
    tail -n +2 "$D/ref.tsv" | cut -f1,2 >"$D/ref_v.tsv"
    diff=$(paste "$D/sbw_v.tsv" "$D/ref_v.tsv" | awk -F'\t' '$1 != $3 || $2 != $4 { n++ } END { print n + 0 }')
    ratio_lp=$(ratio "$per_ref" "$per_lp")
    ok=PASS
    awk -v r="$ratio_lp" 'BEGIN { exit !(r >= 20) }' || { ok=MISS; status=1; }
    [ "$diff" = 0 ] || { ok=MISS; status=1; }
    bench_note "$name: SciPy linprog (HiGHS): $per_ref s per word over $5 words; sbw LP path ${ratio_lp}x faster per word (target >= 20x); verdicts differing: $diff  $ok"
}

bench_note "sbw-argmax: shared 2-core machine, rough numbers"

# ---- PTB-sized ------------------------------------------------------------------
$PY bench/gen_head.py "$PTB_M" "$PTB_D" 1 "$D/W.npy" "$D/b.npy" || exit 1
set -- $(run_once "$A" -q --bias "$D/b.npy" -o "$D/all.tsv" "$D/W.npy")
t_all=$1
ok=PASS
le "$t_all" 120 || { ok=MISS; status=1; }
bench_note "PTB-sized head ($PTB_M x $PTB_D, bias): whole head $t_all s, peak $(($2 / 1024)) MB, $(tsv_meta "$D/all.tsv" argmaxable) argmaxable, $(tsv_meta "$D/all.tsv" by_prefilter) by the pre-filter, $(tsv_meta "$D/all.tsv" by_lp) by LP; $(awk -v t="$t_all" -v m="$PTB_M" 'BEGIN { printf "%.2g", t / m }') s per word (target: whole head <= 120 s)  $ok"
per_word "PTB-sized" "$D/W.npy" "$D/b.npy" "$PTB_LP" "$PTB_REF" "$PTB_M"

# ---- LP library: GLPK against CLP on the same LPs ----------------------------------
if [ -f /usr/include/coin/Clp_C_Interface.h ] &&
    cc -O2 -Icore -I/usr/include/coin -o "$D/lps" bench/argmax_lp_solvers.c "${BUILD:-build}/libsbw.a" \
        -lClp -lCoinUtils -lglpk -lgsl -llapacke -lopenblas -lm -fopenmp 2>"$D/cc.err"; then
    "$D/lps" "$D/W.npy" "$D/b.npy" "$(list 8 "$PTB_M")" >"$D/lps.tsv"
    bench_note "LP library, PTB-sized LPs (d + 2 = $((PTB_D + 2)) rows, 3d + 3 columns), median seconds per LP over 8 words:"
    for c in 2 4 6 8; do
        name=$(head -n 1 "$D/lps.tsv" | cut -f"$c")
        med=$(tail -n +2 "$D/lps.tsv" | cut -f"$c" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
        bench_note "  $name $med"
    done
    agree=$(tail -n +2 "$D/lps.tsv" | awk -F'\t' '{ for (c = 5; c <= 9; c += 2) { d = $c - $3; if (d < 0) d = -d; if (d > 1e-7 * (1 + $3)) n++ } } END { print n + 0 }')
    bench_note "  optima differing between the solvers: $agree"
else
    bench_note "LP library: coinor-libclp-dev not installed, GLPK against CLP skipped"
fi

# ---- GPT-2-sized ------------------------------------------------------------------
$PY bench/gen_head.py "$GPT2_M" "$GPT2_D" 2 "$D/W.npy" "$D/b.npy" || exit 1
set -- $(run_once "$A" -q --bias "$D/b.npy" --words "0:$((GPT2_WORDS - 1))" -o "$D/g.tsv" "$D/W.npy")
est=$(awk -v t="$1" -v n="$GPT2_WORDS" -v m="$GPT2_M" 'BEGIN { printf "%.0f", t * m / n }')
ok=PASS
le "$est" 1800 || { ok=MISS; status=1; }
bench_note "GPT-2-sized head ($GPT2_M x $GPT2_D, bias): $GPT2_WORDS words in $1 s (peak $(($2 / 1024)) MB), $(tsv_meta "$D/g.tsv" argmaxable) argmaxable; whole head extrapolated: $est s (target <= 1800 s)  $ok"
per_word "GPT-2-sized" "$D/W.npy" "$D/b.npy" "$GPT2_LP" "$GPT2_REF" "$GPT2_M"
exit $status
