#!/bin/sh
# bench_rank.sh -- sbw-rank against what a NumPy/SciPy user runs
# (np.load + scipy.linalg.svdvals: LAPACK gesdd, values only, on the same
# OpenBLAS), both reading the .npy file from a warm page cache, median of
# $BENCH_REPS runs each in this one invocation, peak RSS from GNU time.
#
#   5000 x 5000 float64 (200 MB)     target: time <= 1.10 x SciPy, peak < SciPy
#   100000 x 2000 float64 (1.6 GB)   target: >= 1.2 x faster, peak < 40% of SciPy
#   82430 x 10000 float64 (6.6 GB)   report seconds and peak GB, from a file and
#                                    from a pipe (set BENCH_BIG=0 to skip)
#
# The two sides run alternately (sbw, scipy, sbw, scipy, ...) so that load
# from other jobs on a shared machine falls on both alike.
# Self-checks: the singular values agree with SciPy's to 1000 eps sigma_0
# (typically a few), and the 6.6 GB matrix -- log-softmax of rank-400
# logits, as a Softmax LM with d = 400 would give -- has rank 401 and
# centred rank 400.  Exit 1 if a check or a target fails.  Serialise with
# other heavy jobs: flock /tmp/sbw-bench.lock sh bench/bench_rank.sh
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
D=$BENCH_TMP/rank
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT INT TERM
status=0
R="$BIN/sbw-rank"

gb() { awk -v k="$1" 'BEGIN { printf "%.2f", k / 1048576 }'; }

# check VALUE OP LIMIT: sets $ok to PASS or MISS (OP: <= < >= =), and
# status to 1 on a miss; call it outside $(...) so the status sticks.
check() {
    if [ -n "$1" ] && awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { exit !(op == "<=" ? v <= l : op == "<" ? v < l : op == ">=" ? v >= l : v == l) }'; then
        ok=PASS
    else
        ok=MISS
        status=1
    fi
}

# agree OURS.tsv REF.npy: max |sigma_sbw - sigma_scipy| in units of eps sigma_0
agree() {
    "$PY" - "$1" "$2" <<'EOF'
import sys
import numpy as np
rows = [l.split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
ours = np.array([float(r[1]) for r in rows[1:]])
ref = np.load(sys.argv[2])
print("%.1f" % (np.abs(ours - ref).max() / (np.finfo(float).eps * ref[0])))
EOF
}

# median FILE: "MEDIAN_SECONDS MAX_PEAK_KB" of the "SECONDS PEAK_KB" lines
median() {
    sort -n "$1" | awk '{ t[NR] = $1; if ($2 > m) m = $2 } END { printf "%s %d\n", t[int((NR + 1) / 2)], m }'
}

# compare NAME FILE: sbw-rank and the reference run alternately (so load
# from other jobs falls on both alike), then the agreement check
compare() {
    name=$1 f=$2
    cat "$f" >/dev/null # warm the page cache
    : >"$D/ts.txt"
    : >"$D/tr.txt"
    i=0
    while [ $i -lt "$BENCH_REPS" ]; do
        run_once "$R" -q --spectrum "$D/ours.tsv" "$f" >>"$D/ts.txt" || { cat "$BENCH_OUT/last.err"; status=1; return 1; }
        run_once "$PY" bench/ref_svdvals.py "$f" "$D/ref.npy" >>"$D/tr.txt" || { cat "$BENCH_OUT/last.err"; status=1; return 1; }
        i=$((i + 1))
    done
    set -- $(median "$D/ts.txt")
    ts=$1 ms=$2
    set -- $(median "$D/tr.txt")
    tr=$1 mr=$2
    dev=$(agree "$D/ours.tsv" "$D/ref.npy")
    check "$dev" "<=" 1000
    bench_note "$name: sbw-rank $ts s, $(gb "$ms") GB peak; np.load+scipy.linalg.svdvals $tr s, $(gb "$mr") GB peak"
    bench_note "  agreement: max |sigma_sbw - sigma_scipy| = $dev eps sigma_0 ($ok)"
}

bench_note "sbw-rank: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), reps $BENCH_REPS"

$PY bench/gen_matrix.py 5000 5000 full 1 "$D/sq.npy" || exit 1
if compare "5000 x 5000 float64" "$D/sq.npy"; then
    rt=$(ratio "$ts" "$tr")
    rm_=$(ratio "$ms" "$mr")
    check "$rt" "<=" 1.10
    ok1=$ok
    check "$rm_" "<" 1
    bench_note "  time sbw/scipy = $rt (target <= 1.10: $ok1); peak sbw/scipy = $rm_ (target < 1: $ok)"
fi
rm -f "$D/sq.npy"

$PY bench/gen_matrix.py 100000 2000 full 2 "$D/tall.npy" || exit 1
if compare "100000 x 2000 float64 (tall: streaming TSQR)" "$D/tall.npy"; then
    sp=$(ratio "$tr" "$ts")
    rm_=$(ratio "$ms" "$mr")
    check "$sp" ">=" 1.20
    ok1=$ok
    check "$rm_" "<" 0.40
    bench_note "  speed-up scipy/sbw = $sp (target >= 1.20: $ok1); peak sbw/scipy = $rm_ (target < 0.40: $ok)"
fi
rm -f "$D/tall.npy"

if [ "${BENCH_BIG:-1}" != 0 ]; then
    big=$D/big.npy
    t0=$(date +%s)
    $PY bench/gen_matrix.py 82430 10000 lowrank:400 3 "$big" || exit 1
    bench_note "82430 x 10000 float64 ($(stat -c %s "$big" | awk "{ printf \"%.1f\", \$1 / 1e9 }") GB, log-softmax of rank-400 logits; generated in $(($(date +%s) - t0)) s)"
    cat "$big" >/dev/null
    /usr/bin/time -f "%e %M" -o "$D/t.txt" "$R" -q "$big" >"$D/out.tsv" 2>"$D/err" || { cat "$D/err"; status=1; }
    set -- $(tail -n 1 "$D/t.txt")
    rk=$(awk -F'\t' '!/^#/ && h++ { print $1 }' "$D/out.tsv")
    check "$rk" = 401
    bench_note "  from the file: $1 s, $(gb "$2") GB peak; rank $rk (want 401: $ok)"
    /usr/bin/time -f "%e %M" -o "$D/t.txt" sh -c "cat '$big' | '$R' -q --center -" >"$D/out.tsv" 2>"$D/err" || { cat "$D/err"; status=1; }
    set -- $(tail -n 1 "$D/t.txt")
    rk=$(awk -F'\t' '!/^#/ && h++ { print $1 }' "$D/out.tsv")
    check "$rk" = 400
    bench_note "  from a pipe (cat | sbw-rank --center -): $1 s, $(gb "$2") GB peak; centred rank $rk (want 400: $ok)"
    rm -f "$big"
fi
exit $status
