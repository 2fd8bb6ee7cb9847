# bench/lib.sh -- sourced by bench/bench_*.sh.  Timing helpers shared by
# every benchmark: wall time and peak RSS of a command (GNU time), medians
# over repeated runs, and a note of the machine.  Python references run on
# Debian's /usr/bin/python3 (python3-numpy, -scipy, -torch); a bench whose
# reference cannot be imported skips that reference with a note and still
# runs and checks its sbw side.
#
# What a bench reports, and how bench/run.sh judges it:
#   bench_fig LINE      a figure (a measured number): printed, appended to
#                       the report and counted; a bench that prints no
#                       figure has failed.
#   bench_fail WHY      a failure (a command failed, a self-check failed, a
#                       figure could not be computed): "FAIL: WHY", status=1.
#   bench_skip WHY      the whole bench cannot run on this machine (no
#                       data): "SKIPPED: WHY", and no figure is expected.
#   bench_missed WHAT   a speed or memory target not met on this run: noted
#                       in the summary; a failure only with BENCH_STRICT=1
#                       (timings on a shared machine are noisy, and the
#                       quick mode's sizes are too small for the targets).
# Each bench script keeps its exit status in $status and exits with it.
#
# BENCH_QUICK=1 (make bench-smoke) runs every bench at tiny sizes, one
# repetition: a check that each bench still runs, not a measurement.
. scripts/tsv.sh
PY=${BENCH_PY:-/usr/bin/python3}
BIN=${SBW_BIN:-bin}
BENCH_OUT=${BENCH_OUT:-out/bench}
BENCH_QUICK=${BENCH_QUICK:-0}
if [ "$BENCH_QUICK" = 1 ]; then BENCH_REPS=${BENCH_REPS:-1}; else BENCH_REPS=${BENCH_REPS:-3}; fi
BENCH_NAME=${BENCH_NAME:-$(basename "$0" .sh)}
mkdir -p "$BENCH_OUT"
BENCH_TMP=${BENCH_TMP:-$BENCH_OUT/tmp}
mkdir -p "$BENCH_TMP"
status=0

# quick FULL SMALL: FULL, or SMALL in the quick mode (BENCH_QUICK=1)
quick() { if [ "$BENCH_QUICK" = 1 ]; then echo "$2"; else echo "$1"; fi; }

# run_once CMD...: prints "SECONDS PEAK_KB" of one run (stdout of CMD is
# discarded; its stderr goes to $BENCH_OUT/last.err).  Exit status of CMD.
run_once() {
    /usr/bin/time -f "%e %M" -o "$BENCH_TMP/time.txt" "$@" >/dev/null 2>"$BENCH_OUT/last.err"
    rc=$?
    tail -n 1 "$BENCH_TMP/time.txt"
    return $rc
}

# bench_run WHAT CMD...: run_once CMD, its "SECONDS PEAK_KB" on stdout;
# when CMD fails, its stderr and "FAIL: WHAT" (bench_fail) on stderr and
# in the report, and 1.  Called as
#   run=$(bench_run "what" cmd...) || exit 1
#   set -- $run
# (not `set -- $(...) || ...`: set's status is its own, 0, so that form
# never sees the failure; and as $status cannot leave the command
# substitution, the caller exits.)
bench_run() {
    _br_what=$1
    shift
    run_once "$@" && return 0
    cat "$BENCH_OUT/last.err" >&2
    bench_fail "$_br_what" >&2
    return 1
}

# gb KB: kilobytes as gigabytes (GiB) with 2 decimals
gb() { awk -v k="$1" 'BEGIN { printf "%.2f", k / 1048576 }'; }

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
# met A B: "met" when A >= B, else "NOT met" (a target's verdict).
met() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? "met" : "NOT met" }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }'; }

# bench_note LINE: prints LINE and appends it to the report
bench_note() {
    echo "$*"
    echo "$*" >>"$BENCH_OUT/report.txt"
}

# bench_fig LINE: a line that carries a figure; bench_note, and counted in
# $BENCH_OUT/figures.txt under the bench's name (bench/run.sh checks that
# every bench printed at least one).
bench_fig() {
    bench_note "$*"
    echo "$BENCH_NAME" >>"$BENCH_OUT/figures.txt"
}

# bench_skip WHY: the whole bench cannot run here (e.g. no Penn Treebank):
# notes "SKIPPED: WHY"; bench/run.sh then expects no figure from it.
bench_skip() {
    bench_note "SKIPPED: $*"
    echo "$BENCH_NAME" >>"$BENCH_OUT/skipped.txt"
}

# bench_fail WHY: notes "FAIL: WHY" and sets status=1 (call it outside
# $(...) so that the status sticks).
bench_fail() {
    bench_note "FAIL: $*"
    status=1
}

# bench_missed WHAT: a target not met; listed in $BENCH_OUT/misses.txt,
# status=1 only with BENCH_STRICT=1.
bench_missed() {
    echo "$BENCH_NAME: $*" >>"$BENCH_OUT/misses.txt"
    if [ "${BENCH_STRICT:-0}" = 1 ]; then status=1; fi
}

# bench_num LABEL VALUE...: true if every VALUE is a finite number; else
# bench_fail "LABEL: no figure" and false.  Guards each figure computed
# from a log or a JSON file, so that an empty or "nan" result fails the
# bench instead of printing a blank.
bench_num() {
    _bn_label=$1 # sh has no local variables: names the callers do not use
    shift
    for _bn_v in "$@"; do
        if ! printf '%s\n' "$_bn_v" | grep -Eq '^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'; then
            bench_fail "$_bn_label: no figure (got '$_bn_v')"
            return 1
        fi
    done
}

# have_py MODULE...: true if $PY imports every MODULE; else notes that the
# reference needing them is skipped (the sbw side still runs) and false.
have_py() {
    for _hp_mod in "$@"; do
        "$PY" -c "import $_hp_mod" 2>/dev/null && continue
        bench_note "NOTE: $PY cannot import $_hp_mod (apt-get install python3-$_hp_mod; scripts/deps.sh --bench): the reference that needs it is skipped"
        return 1
    done
}

# sgemm_peak_build DIR: compiles bench/sgemm_peak.c into DIR/sgemm_peak.
# BENCH_PEAK_N is the size it is timed at (4000; 400 in the quick mode).
BENCH_PEAK_N=${BENCH_PEAK_N:-$(quick 4000 400)}
sgemm_peak_build() {
    cc -O2 -o "$1/sgemm_peak" bench/sgemm_peak.c -lopenblas
}

# bf16_peak_build DIR: compiles bench/bf16_peak.c (oneDNN's bfloat16 matmul
# rate, timed at BENCH_PEAK_N) into DIR/bf16_peak.
bf16_peak_build() {
    cc -O2 -fopenmp -o "$1/bf16_peak" bench/bf16_peak.c -ldnnl
}

# bench_machine: CPU, cores, memory, BLAS, date
bench_machine() {
    cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
    mem=$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)
    bench_note "machine: $cpu, $(nproc) cores, $mem RAM; $("$BIN"/sbw-info --version | tail -n 1); $(date -u +%Y-%m-%dT%H:%MZ)"
}
