#!/bin/sh
# bench_rank.sh -- sbw-rank against what a NumPy/SciPy user runs
# (np.load + scipy.linalg.svdvals: LAPACK gesdd, values only, on the same
# OpenBLAS), both reading the .npy file from a warm page cache, median of
# $BENCH_REPS runs each in this one invocation, peak RSS from GNU time.
#
#   5000 x 5000 float64 (200 MB)     target: time <= 1.10 x SciPy, peak < SciPy
#   100000 x 2000 float64 (1.6 GB)   target: >= 1.2 x faster, peak < 40% of SciPy
#   200000 x 5000 float64 (8.0 GB)   target: sbw-rank's peak < 8 GB (issue 4: such
#                                    a file "must not need 8 GB of RAM"); one run
#                                    (set BENCH_8GB=0 to skip)
#   82430 x 10000 float64 (6.6 GB)   report seconds and peak GB of plain sbw-rank
#                                    from the file and from a pipe (the same
#                                    flags, so the same work), one run each;
#                                    target: peak < BIG_PEAK_GB = 16 GB, two
#                                    thirds of this 24 GB machine.  With
#                                    BENCH_BIG_CENTER=1 also --center from the
#                                    file and the pipe.  BENCH_BIG=0 skips it.
#
# Time: the two comparisons take a few minutes; each single run on the big
# files takes minutes (TSQR of 82430 x 10000 is 2 N M^2 = 1.6e13 flops, of
# 200000 x 5000 1e13, on 2 cores), plus generating them (gen_matrix.py),
# so the whole script takes roughly half an hour by default and about ten
# minutes more with BENCH_BIG_CENTER=1.  Disk: 8 GB free under $BENCH_TMP
# (one big file at a time).
#
# The two sides run alternately (sbw, scipy, sbw, scipy, ...) so that load
# from other jobs on a shared machine falls on both alike.
# Self-checks: the singular values agree with SciPy's to 1000 eps sigma_0
# (typically a few); the 6.6 GB matrix -- log-softmax of rank-400 logits,
# as a Softmax LM with d = 400 would give -- has rank 401 (centred 400),
# and the 8 GB one, of rank-200 logits, rank 201.  Exit 1 if a check or a
# run fails or a figure is missing; a missed target is noted (bench/lib.sh:
# bench_missed).  Sizes can be shrunk to check the script's logic
# (SQ_N, TALL_N TALL_M, T8_N T8_M T8_D, BIG_N BIG_M BIG_D; the targets are
# meant for the default sizes; BENCH_QUICK=1 shrinks them all to about a
# second).  Without numpy the matrices come from sbw-synth (dirichlet for
# the full-rank ones, lowrank --rank D for the others) and without scipy
# the reference is skipped with a note: sbw-rank's times and ranks are
# still printed and checked.  Serialise with other heavy jobs:
# flock /tmp/sbw-bench.lock sh bench/bench_rank.sh
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
D=$BENCH_TMP/rank
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT INT TERM
R="$BIN/sbw-rank"
SQ_N=${SQ_N:-$(quick 5000 100)}
TALL_N=${TALL_N:-$(quick 100000 2000)} TALL_M=${TALL_M:-$(quick 2000 50)}
T8_N=${T8_N:-$(quick 200000 1000)} T8_M=${T8_M:-$(quick 5000 60)} T8_D=${T8_D:-$(quick 200 10)}
BIG_N=${BIG_N:-$(quick 82430 1000)} BIG_M=${BIG_M:-$(quick 10000 80)} BIG_D=${BIG_D:-$(quick 400 20)}
np=0 sp=0
have_py numpy && np=1
[ $np = 1 ] && have_py scipy && sp=1
BIG_PEAK_GB=${BIG_PEAK_GB:-16}

# check VALUE OP LIMIT [WHAT]: sets $ok to PASS or, for a target (WHAT
# given: bench_missed WHAT), MISS; for a self-check (no WHAT), FAIL and
# status=1.  OP: <= < >= =.  Call it outside $(...) so the status sticks.
check() {
    if [ -n "$1" ] && awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN { exit !(op == "<=" ? v <= l : op == "<" ? v < l : op == ">=" ? v >= l : v == l) }'; then
        ok=PASS
    elif [ $# -ge 4 ]; then
        ok=MISS
        bench_missed "rank: $4 = $1, target $2 $3"
    else
        ok=FAIL
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
# from other jobs falls on both alike), then the agreement check; without
# scipy, sbw-rank alone.  False if a run failed or scipy is missing.
compare() {
    name=$1 f=$2
    cat "$f" >/dev/null # warm the page cache
    : >"$D/ts.txt"
    : >"$D/tr.txt"
    i=0
    while [ $i -lt "$BENCH_REPS" ]; do
        run_once "$R" -q --spectrum "$D/ours.tsv" "$f" >>"$D/ts.txt" || {
            cat "$BENCH_OUT/last.err"
            bench_fail "$name: sbw-rank"
            return 1
        }
        if [ $sp = 1 ]; then
            run_once "$PY" bench/ref_svdvals.py "$f" "$D/ref.npy" >>"$D/tr.txt" || {
                cat "$BENCH_OUT/last.err"
                bench_fail "$name: ref_svdvals.py"
                return 1
            }
        fi
        i=$((i + 1))
    done
    set -- $(median "$D/ts.txt")
    ts=${1:-} ms=${2:-}
    bench_num "$name: sbw-rank seconds, peak" "$ts" "$ms" || return 1
    if [ $sp = 0 ]; then
        bench_fig "$name: sbw-rank $ts s, $(gb "$ms") GB peak (no scipy: reference and agreement skipped)"
        return 1
    fi
    set -- $(median "$D/tr.txt")
    tr=${1:-} mr=${2:-}
    dev=$(agree "$D/ours.tsv" "$D/ref.npy")
    bench_num "$name: scipy seconds, peak, agreement" "$tr" "$mr" "$dev" || return 1
    check "$dev" "<=" 1000
    bench_fig "$name: sbw-rank $ts s, $(gb "$ms") GB peak; np.load+scipy.linalg.svdvals $tr s, $(gb "$mr") GB peak"
    bench_note "  agreement: max |sigma_sbw - sigma_scipy| = $dev eps sigma_0 ($ok)"
}

# gen_matrix ROWS COLS KIND SEED OUT: bench/gen_matrix.py, or without numpy
# sbw-synth (KIND full: dirichlet; lowrank:D: lowrank --rank D)
gen_matrix() {
    if [ $np = 1 ]; then
        $PY bench/gen_matrix.py "$@"
    else
        case $3 in
        full) "$BIN/sbw-synth" dirichlet --n "$1" --m "$2" --alpha 0.1 --seed "$4" -q -o "$5" >/dev/null ;;
        lowrank:*) "$BIN/sbw-synth" lowrank --n "$1" --m "$2" --rank "${3#lowrank:}" --scale 2 --seed "$4" -q -o "$5" >/dev/null ;;
        esac
    fi
}

bench_note "sbw-rank: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), reps $BENCH_REPS"

gen_matrix "$SQ_N" "$SQ_N" full 1 "$D/sq.npy" || { bench_fail "generating $D/sq.npy"; exit 1; }
if compare "$SQ_N x $SQ_N float64" "$D/sq.npy"; then
    rt=$(ratio "$ts" "$tr")
    rm_=$(ratio "$ms" "$mr")
    check "$rt" "<=" 1.10 "square: time sbw/scipy"
    ok1=$ok
    check "$rm_" "<" 1 "square: peak sbw/scipy"
    bench_fig "  time sbw/scipy = $rt (target <= 1.10: $ok1); peak sbw/scipy = $rm_ (target < 1: $ok)"
fi
rm -f "$D/sq.npy"

gen_matrix "$TALL_N" "$TALL_M" full 2 "$D/tall.npy" || { bench_fail "generating $D/tall.npy"; exit 1; }
if compare "$TALL_N x $TALL_M float64 (tall: streaming TSQR)" "$D/tall.npy"; then
    sp_=$(ratio "$tr" "$ts")
    rm_=$(ratio "$ms" "$mr")
    check "$sp_" ">=" 1.20 "tall: speed-up scipy/sbw"
    ok1=$ok
    check "$rm_" "<" 0.40 "tall: peak sbw/scipy"
    bench_fig "  speed-up scipy/sbw = $sp_ (target >= 1.20: $ok1); peak sbw/scipy = $rm_ (target < 0.40: $ok)"
fi
rm -f "$D/tall.npy"

# one_run LABEL WANT_RANK LIMIT_GB CMD...: one run of CMD (an sbw-rank
# reading a file or stdin) under GNU time; notes seconds, peak GB and the
# rank against WANT_RANK, and checks the peak stays below LIMIT_GB (10^9
# bytes; the notes print GiB).  For a pipe, CMD is sh -c 'cat | exec
# sbw-rank': the measured process becomes sbw-rank, so the peak is its own.
# Run outside $(...) so the status sticks.
one_run() {
    label=$1 want=$2 lim=$3
    shift 3
    rm -f "$D/out.tsv" "$D/t.txt"
    /usr/bin/time -f "%e %M" -o "$D/t.txt" "$@" >"$D/out.tsv" 2>"$D/err" || {
        cat "$D/err"
        bench_fail "$label: sbw-rank"
        return 1
    }
    set -- $(tail -n 1 "$D/t.txt")
    rk=$(tsv_field "$D/out.tsv" rank)
    bench_num "$label: seconds, peak, rank" "${1:-}" "${2:-}" "$rk" || return 1
    check "$rk" = "$want"
    okr=$ok
    check "$2" "<" "$(awk -v g="$lim" 'BEGIN { printf "%d", g * 1e9 / 1024 }')" "$label: peak KB" # KB vs 10^9-byte GB
    bench_fig "  $label: $1 s, $(gb "$2") GB peak (limit < $lim GB: $ok); rank $rk (want $want: $okr)"
}

# gen NAME ROWS COLS D SEED: a log-softmax of rank-D logits under $D
gen() {
    t0=$(date +%s)
    gen_matrix "$2" "$3" "lowrank:$4" "$5" "$D/$1" || { bench_fail "generating $D/$1"; exit 1; }
    bench_note "$2 x $3 float64 ($(stat -c %s "$D/$1" | awk '{ printf "%.1f", $1 / 1e9 }') GB, log-softmax of rank-$4 logits; generated in $(($(date +%s) - t0)) s)"
    cat "$D/$1" >/dev/null # warm what the page cache can hold
}

# Issue 4: "a 200,000 x 5,000 float64 file must not need 8 GB of RAM".
if [ "${BENCH_8GB:-1}" != 0 ]; then
    gen t8.npy "$T8_N" "$T8_M" "$T8_D" 4
    one_run "from the file" $((T8_D + 1)) 8 "$R" -q "$D/t8.npy"
    rm -f "$D/t8.npy"
fi

# The MoS Table 6 size.  File and pipe run with the same flags, so they do
# the same work and differ only in how the bytes arrive.
if [ "${BENCH_BIG:-1}" != 0 ]; then
    big=$D/big.npy
    gen big.npy "$BIG_N" "$BIG_M" "$BIG_D" 3
    one_run "from the file (sbw-rank FILE)" $((BIG_D + 1)) "$BIG_PEAK_GB" "$R" -q "$big"
    one_run "from a pipe (cat FILE | sbw-rank -)" $((BIG_D + 1)) "$BIG_PEAK_GB" \
        sh -c 'cat "$1" | exec "$2" -q -' sh "$big" "$R"
    if [ "${BENCH_BIG_CENTER:-0}" != 0 ]; then
        one_run "--center from the file" "$BIG_D" "$BIG_PEAK_GB" "$R" -q --center "$big"
        one_run "--center from a pipe" "$BIG_D" "$BIG_PEAK_GB" \
            sh -c 'cat "$1" | exec "$2" -q --center -' sh "$big" "$R"
    fi
    rm -f "$big"
fi
exit $status
