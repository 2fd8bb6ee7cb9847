# bench/lib.sh -- sourced by bench/bench_*.sh.  Timing helpers shared by
# every benchmark: wall time and peak RSS of a command (GNU time), medians
# over repeated runs, and a note of the machine.  Python references run on
# Debian's /usr/bin/python3 (python3-numpy, -scipy, -torch).
. scripts/tsv.sh
PY=/usr/bin/python3
BIN=${SBW_BIN:-bin}
BENCH_OUT=${BENCH_OUT:-out/bench}
BENCH_REPS=${BENCH_REPS:-3}
mkdir -p "$BENCH_OUT"
BENCH_TMP=${BENCH_TMP:-$BENCH_OUT/tmp}
mkdir -p "$BENCH_TMP"

# run_once CMD...: prints "SECONDS PEAK_KB" of one run (stdout of CMD is
# discarded; its stderr goes to $BENCH_OUT/last.err).  Exit status of CMD.
run_once() {
    /usr/bin/time -f "%e %M" -o "$BENCH_TMP/time.txt" "$@" >/dev/null 2>"$BENCH_OUT/last.err"
    rc=$?
    tail -n 1 "$BENCH_TMP/time.txt"
    return $rc
}

# bench_median CMD...: runs CMD $BENCH_REPS times, prints "MEDIAN_SECONDS
# MAX_PEAK_KB".  Fails (status 1) if any run fails.
bench_median() {
    : >"$BENCH_TMP/runs.txt"
    i=0
    while [ $i -lt "$BENCH_REPS" ]; do
        run_once "$@" >>"$BENCH_TMP/runs.txt" || {
            echo "bench: command failed: $*" >&2
            cat "$BENCH_OUT/last.err" >&2
            return 1
        }
        i=$((i + 1))
    done
    sort -n "$BENCH_TMP/runs.txt" | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
        END { printf "%s %d\n", t[int((NR + 1) / 2)], m }'
}

# ratio A B: A / B with 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

# bench_note LINE: prints LINE and appends it to the report
bench_note() {
    echo "$*"
    echo "$*" >>"$BENCH_OUT/report.txt"
}

# bench_machine: CPU, cores, memory, BLAS, date
bench_machine() {
    cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
    mem=$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)
    bench_note "machine: $cpu, $(nproc) cores, $mem RAM; $("$BIN"/sbw-info --version | tail -n 1); $(date -u +%Y-%m-%dT%H:%MZ)"
}
