#!/bin/sh
# bench_rank_big.sh -- sbw-rank --method randomized (issue 29) on a matrix
# too large for an exact SVD here: the top K = 1000 singular values of a
# 50000 x 50000 float32 .npy file (10 GB on disk), targets <= 15 minutes
# and <= 4 GB.  "Memory" is the peak RSS GNU time reports, as in every
# bench: sbw reads a float32 file with pread(2) into a block buffer (only
# native float64 files are mapped, a block at a time, unmapped after it),
# so the file's pages stay in the kernel's page cache and are not counted;
# what is counted is the sketch, 8 (N + M)(K + 10 + 20) bytes (824 MB
# here), a block of 512 rows in float64 and its float32 staging (300 MB).
#
# The matrix (bench/gen_spectrum.py, SciPy) has KNOWN singular values
# s_j = 1/(j + 1) (DCT bases with random signs; written a row block at a
# time, never held), so the run is checked against the truth: seconds,
# peak GB, K, the error estimate sbw printed (the bound r on
# ||(I - QQ^T) A||_2, header "residual", and the largest printed error
# sigma_upper - sigma, both over sigma_1), the true largest
# |s_j - sigma_j| / s_1, and a self-check: every s_j within its printed
# interval [sigma_lower, sigma_upper] widened by delta, the float32
# rounding's ||fl(A) - A||_F that the generator reports (all K, or FAIL).
# Passes over the file: 2q + 2 = 6 (--power 2).  The file is read as the
# generator left it in the page cache (not dropped: a shared machine).
#
# Needs ~11 GB free in $BENCH_TMP (the bench is skipped with a note
# otherwise) and removes the file on exit.  Time: the generation (two
# DCTs per row) a few minutes, then sbw-rank.  BENCH_QUICK=1 (make
# bench-smoke): 2000 x 1500, K = 20.  Sizes: RB_N, RB_M, RB_K (the targets
# are checked at the full size only).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
D=$BENCH_TMP/rank_big
R="$BIN/sbw-rank"
N=${RB_N:-$(quick 50000 2000)} M=${RB_M:-$(quick 50000 1500)} K=${RB_K:-$(quick 1000 20)}
full=0
[ "$BENCH_QUICK" != 1 ] && [ "$N" = 50000 ] && [ "$M" = 50000 ] && [ "$K" = 1000 ] && full=1

bench_note "sbw-rank --method randomized, $N x $M float32, top $K: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
have_py numpy scipy || {
    bench_skip "bench/gen_spectrum.py needs NumPy and SciPy (scripts/deps.sh --bench)"
    exit 0
}
mkdir -p "$D" || { bench_fail "mkdir $D"; exit 1; }
trap 'rm -rf "$D"' EXIT
trap 'rm -rf "$D"; exit 130' INT TERM
need_kb=$(awk -v n="$N" -v m="$M" 'BEGIN { printf "%.0f", (4 * n * m + 2 ^ 30) / 1024 }')
free_kb=$(df -Pk "$D" | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt "$need_kb" ]; then
    bench_skip "$D has $(gb "${free_kb:-0}") GB free; the $N x $M float32 file needs $(gb "$need_kb") GB with a margin"
    exit 0
fi

run=$(bench_run "bench/gen_spectrum.py $N $M" "$PY" bench/gen_spectrum.py "$N" "$M" "$D/a.npy" "$D/s.txt") || exit 1

set -- $run
tg=${1:-}
delta=$(sed -n 's/^# delta=//p' "$D/s.txt")
grep -v '^#' "$D/s.txt" | head -n "$K" >"$D/ex"
bench_num "generation seconds, delta" "$tg" "$delta" || exit 1
bench_note "  generated in $tg s (bench/gen_spectrum.py: known s_j = 1/(j + 1); float32 rounding delta = ||fl(A) - A||_F = $delta)"

run=$(bench_run "sbw-rank --method randomized --top $K" "$R" -q --method randomized --top "$K" --spectrum "$D/rs.tsv" "$D/a.npy") || exit 1

set -- $run
tr=${1:-} mr=${2:-}
rm -f "$D/a.npy" # the 10 GB go as soon as they are read
tsv_column "$D/rs.tsv" sigma >"$D/s"
tsv_column "$D/rs.tsv" sigma_lower >"$D/lo"
tsv_column "$D/rs.tsv" sigma_upper >"$D/hi"
resid=$(tsv_meta "$D/rs.tsv" residual)
passes=$(tsv_meta "$D/rs.tsv" passes)
# MAX_ERR/s_1 MAX_PRINTED_ERR/s_1 RESID/s_1 INSIDE over the top K
set -- $(paste "$D/ex" "$D/s" "$D/lo" "$D/hi" | head -n "$K" |
    awk -F'\t' -v d="$delta" -v r="$resid" 'NR == 1 { s1 = $1 }
        { e = $1 - $2; if (e < 0) e = -e; if (e > me) me = e
          b = $4 - $2; if (b > mb) mb = b
          if ($3 - d <= $1 && $1 <= $4 + d) n++ }
        END { printf "%.3g %.3g %.3g %d\n", me / s1, mb / s1, r / s1, n }')
err=${1:-} bnd=${2:-} rel=${3:-} inside=${4:-}
bench_num "seconds, peak, errors" "$tr" "$mr" "$err" "$bnd" "$rel" "$inside" "$passes" || exit 1
bench_fig "$N x $M float32 ($(awk -v n="$N" -v m="$M" 'BEGIN { printf "%.1f", 4 * n * m / 1e9 }') GB file), --method randomized --top $K ($passes passes): $tr s, $(gb "$mr") GB peak RSS (targets: 900 s, 4 GB)"
bench_fig "  error estimate printed: residual ||(I - QQ^T) A||_2 <= $resid = $rel sigma_1; largest printed error (sigma_upper - sigma) / sigma_1 = $bnd"
bench_fig "  true max |s_j - sigma_j| / s_1 over the top $K = $err"
if [ "$inside" = "$K" ]; then
    bench_note "  self-check: every known s_j within its printed interval ($inside of $K, widened by delta)"
else
    bench_fail "only $inside of $K known singular values within their printed intervals"
fi
if [ $full = 1 ]; then
    awk -v t="$tr" 'BEGIN { exit !(t > 900) }' && bench_missed "randomized top-$K of $N x $M: $tr s > 900 s"
    [ "$mr" -gt 4194304 ] && bench_missed "randomized top-$K of $N x $M: $(gb "$mr") GB > 4 GB peak RSS"
else
    bench_note "  (the targets, 15 minutes and 4 GB, are for 50000 x 50000 at --top 1000; not checked at this size)"
fi
exit $status
