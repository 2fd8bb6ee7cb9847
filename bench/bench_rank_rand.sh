#!/bin/sh
# bench_rank_rand.sh -- sbw-rank --method randomized (issue 29) against
# sbw-rank's exact path on the same file, against the same algorithm
# written in NumPy (bench/rsvd_ref.py: the matrix loaded whole and
# promoted to float64), and against the tool a Python user would otherwise
# reach for, scipy.sparse.linalg.svds (bench/svds_ref.py: ARPACK, default
# solver, on the float32 array as loaded; scikit-learn's randomized_svd is
# not run: scikit-learn is not among the bench's Debian packages), each
# reading the .npy file from a warm page cache, one run each, peak RSS from
# GNU time.  Errors are against the exact values, over the same top K.
#
#   20000 x 10000 float32 (800 MB; gen_decay.py: power-law spectrum over
#   2000 components plus a full-rank noise floor), top K = 100 (RR_K),
#   --oversample 10, --power 2: seconds and peak GB of the exact path
#   (the streaming TSQR, 2 N M^2 = 4e12 flops) and of the randomized one
#   (6 passes of 2 N M (K + 10) flops each, 1.3e12), the largest error
#   |sigma_exact - sigma_j| / sigma_1 over the top K, the largest error
#   bound sbw printed (sigma_upper - sigma) / sigma_1, and how many exact
#   values lie in their printed intervals (a self-check: all K, or FAIL).
#
# BENCH_QUICK=1 (make bench-smoke): 2000 x 1000, K = 20.  Sizes: RR_N,
# RR_M, RR_K.  Without numpy the matrix comes from sbw-synth dirichlet
# (float64) and the NumPy and SciPy lines are skipped with a note; without
# SciPy the svds line is.  Time: a few
# minutes at the default size on 2 cores (the exact path dominates).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
D=$BENCH_TMP/rank_rand
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT INT TERM
R="$BIN/sbw-rank"
N=${RR_N:-$(quick 20000 2000)} M=${RR_M:-$(quick 10000 1000)} K=${RR_K:-$(quick 100 20)}
np=0
have_py numpy && np=1

# errors EXACT SIGMA [LO HI]: "MAX_ERR/sigma_1 MAX_BOUND/sigma_1 INSIDE" over
# the first K lines of the files of values
errors() {
    if [ $# -eq 4 ]; then paste "$1" "$2" "$3" "$4"; else paste "$1" "$2" "$2" "$2"; fi |
        head -n "$K" | awk -F'\t' 'NR == 1 { s1 = $1 }
            { e = $1 - $2; if (e < 0) e = -e; if (e > me) me = e
              b = $4 - $2; if (b > mb) mb = b
              if ($3 <= $1 && $1 <= $4) n++ }
            END { printf "%.3g %.3g %d\n", me / s1, mb / s1, n }'
}

bench_note "sbw-rank --method randomized: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $np = 1 ]; then
    dtype=float32
    $PY bench/gen_decay.py "$N" "$M" f4 1 "$D/a.npy" || { bench_fail "generating $D/a.npy"; exit 1; }
else
    dtype=float64
    "$BIN/sbw-synth" dirichlet --n "$N" --m "$M" --alpha 0.1 --seed 1 -q -o "$D/a.npy" >/dev/null ||
        { bench_fail "generating $D/a.npy"; exit 1; }
fi
cat "$D/a.npy" >/dev/null # warm the page cache

run=$(bench_run "exact sbw-rank" "$R" -q --spectrum "$D/ex.tsv" "$D/a.npy") || exit 1

set -- $run
te=${1:-} me=${2:-}
run=$(bench_run "sbw-rank --method randomized" "$R" -q --method randomized --top "$K" --spectrum "$D/rs.tsv" "$D/a.npy") || exit 1
set -- $run
tr=${1:-} mr=${2:-}
tsv_column "$D/ex.tsv" sigma >"$D/ex"
tsv_column "$D/rs.tsv" sigma >"$D/s"
tsv_column "$D/rs.tsv" sigma_lower >"$D/lo"
tsv_column "$D/rs.tsv" sigma_upper >"$D/hi"
set -- $(errors "$D/ex" "$D/s" "$D/lo" "$D/hi")
err=${1:-} bnd=${2:-} inside=${3:-}
bench_num "seconds, peaks, errors" "$te" "$me" "$tr" "$mr" "$err" "$bnd" "$inside" || exit 1
bench_fig "$N x $M $dtype: exact sbw-rank $te s, $(gb "$me") GB peak; --method randomized --top $K $tr s, $(gb "$mr") GB peak (exact/randomized = $(ratio "$te" "$tr"))"
bench_fig "  randomized: max |sigma_exact - sigma| / sigma_1 = $err over the top $K; largest printed error bound / sigma_1 = $bnd"
if [ "$inside" = "$K" ]; then
    bench_note "  every exact value within its printed interval ($inside of $K)"
else
    bench_fail "only $inside of $K exact values within their printed intervals"
fi
if [ $np = 1 ]; then
    run=$(bench_run "rsvd_ref.py" "$PY" bench/rsvd_ref.py "$D/a.npy" "$K" 10 2 "$D/ref.txt") || exit 1
    set -- $run
    tn=${1:-} mn=${2:-}
    set -- $(errors "$D/ex" "$D/ref.txt")
    bench_num "NumPy seconds, peak, error" "$tn" "$mn" "${1:-}" || exit 1
    bench_fig "  NumPy, the same algorithm (float64, matrix loaded): $tn s, $(gb "$mn") GB peak; max |sigma_exact - sigma| / sigma_1 = $1 (sbw/NumPy time = $(ratio "$tr" "$tn"))"
fi
if [ $np = 1 ] && have_py scipy; then
    run=$(bench_run "svds_ref.py" "$PY" bench/svds_ref.py "$D/a.npy" "$K" "$D/svds.txt") || exit 1
    set -- $run
    ts=${1:-} ms=${2:-}
    set -- $(errors "$D/ex" "$D/svds.txt")
    bench_num "SciPy svds seconds, peak, error" "$ts" "$ms" "${1:-}" || exit 1
    bench_fig "  scipy.sparse.linalg.svds (ARPACK, $dtype as loaded, k = $K): $ts s, $(gb "$ms") GB peak; max |sigma_exact - sigma| / sigma_1 = $1"
    bench_fig "  sbw/scipy time = $(ratio "$tr" "$ts"), sbw/scipy peak RSS = $(ratio "$mr" "$ms")"
fi
exit $status
