#!/bin/sh
# bench_trunc.sh -- sbw-argmax --truncation (basis-aware truncation,
# Finlayson et al. 2024) against the obvious alternative, the authors'
# program as one SciPy linprog (HiGHS) per (context, token)
# (bench/trunc_ref.py), on a random head and peaked outputs of it
# (trunc_ref.py gen: W entries N(0, 1/D), outputs log softmax(W h)):
#
#   head  M = 2000, D = 64, N = 2 outputs, TOKENS = 40 tokens of each
#         (evenly spaced), --threshold 0.01 (sigma = 1/0.99) and no bound
#   time  sbw's seconds per token (wall, all threads, from the table's
#         # seconds= over its # checked=) against SciPy's per linprog call
#   check the verdicts token by token: sbw's certified answers must be
#         SciPy's (an undecided sbw answer is counted, not compared)
#
# BENCH_QUICK=1 (make bench-smoke): M = 120, D = 8, every token.  Without
# numpy and scipy the SciPy side is skipped with a note and the outputs
# come from sbw-synth (head and lowrank).  Exit 1 if a verdict differs,
# a run fails or a figure is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
D=$BENCH_TMP/trunc
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT INT TERM
A="$BIN/sbw-argmax"
M=${TRUNC_M:-$(quick 2000 120)} DIM=${TRUNC_D:-$(quick 64 8)} N=${TRUNC_N:-2}
NTOK=${TRUNC_TOKENS:-$(quick 40 120)}
list() { awk -v n="$1" -v m="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? "," : "", int(i * m / n) }'; }
TOK=$(list "$NTOK" "$M")

sp=0
have_py numpy scipy && sp=1
if [ $sp = 1 ]; then
    $PY bench/trunc_ref.py gen "$M" "$DIM" "$N" 1 "$D/W.npy" "$D/logp.npy" || { bench_fail "trunc_ref.py gen"; exit 1; }
else
    "$BIN/sbw-synth" head --m "$M" --d "$DIM" --seed 1 -o "$D/W.npy" -q >/dev/null &&
        "$BIN/sbw-synth" lowrank --n "$N" --m "$M" --rank "$N" --scale 3 --seed 1 -o "$D/logp.npy" -q >/dev/null ||
        { bench_fail "sbw-synth: the head and outputs"; exit 1; }
fi

bench_note "sbw-argmax --truncation: shared 2-core machine, rough numbers"

# one NAME SIGMA OPTION...: sbw on the tokens, then SciPy on the same ones
one() {
    name=$1 sigma=$2
    shift 2
    rm -f "$D/sbw.tsv"
    "$A" -q --truncation "$D/logp.npy" --words "$TOK" -o "$D/sbw.tsv" "$@" "$D/W.npy" ||
        { bench_fail "$name: sbw-argmax --truncation"; return 1; }
    n=$(tsv_meta "$D/sbw.tsv" checked)
    per=$(awk -v t="$(tsv_meta "$D/sbw.tsv" seconds)" -v n="$n" 'BEGIN { if (n > 0) printf "%.5f", t / n }')
    bench_num "$name: sbw seconds per token" "$per" || return 1
    bench_fig "$name ($M x $DIM head, $N outputs x $NTOK tokens): sbw $per s per token (wall, $(nproc) threads); keep $(tsv_meta "$D/sbw.tsv" keep), may drop $(tsv_meta "$D/sbw.tsv" may_drop), undecided $(tsv_meta "$D/sbw.tsv" undecided), by the threshold $(tsv_meta "$D/sbw.tsv" by_threshold)"
    [ $sp = 1 ] || return 0
    $PY bench/trunc_ref.py "$D/W.npy" "$D/logp.npy" "$sigma" "$TOK" "$D/ref.tsv" || { bench_fail "$name: trunc_ref.py"; return 1; }
    per_ref=$(awk -F'\t' 'NR > 1 { s += $4; n++ } END { if (n > 0) printf "%.5f", s / n }' "$D/ref.tsv")
    tsv_rows "$D/sbw.tsv" | awk -F'\t' 'NR == 1 { for (c = 1; c <= NF; c++) k[$c] = c; next }
        { print $k["context"] "\t" $k["token"] "\t" $k["keep"] }' >"$D/sbw_v.tsv"
    tail -n +2 "$D/ref.tsv" | cut -f1-3 >"$D/ref_v.tsv"
    [ "$(wc -l <"$D/sbw_v.tsv")" = "$(wc -l <"$D/ref_v.tsv")" ] || { bench_fail "$name: not as many verdicts on each side"; return 1; }
    diff=$(paste "$D/sbw_v.tsv" "$D/ref_v.tsv" | awk -F'\t' '$3 >= 0 && ($1 != $4 || $2 != $5 || $3 != $6) { n++ } END { print n + 0 }')
    r=$(ratio "$per_ref" "$per")
    bench_num "$name: SciPy seconds per token, ratio" "$per_ref" "$r" || return 1
    ok=PASS
    [ "$diff" = 0 ] || { ok=FAIL; status=1; }
    bench_fig "$name: SciPy linprog (HiGHS): $per_ref s per token; sbw ${r}x faster; certified verdicts differing from SciPy's: $diff  $ok"
}

one "--threshold 0.01" "$(awk 'BEGIN { printf "%.17g", 1 / (1 - 0.01) }')" --threshold 0.01
one "no bound" inf
exit $status
