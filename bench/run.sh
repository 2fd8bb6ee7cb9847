#!/bin/sh
# make bench: every bench/bench_*.sh in turn, one report in
# $BENCH_OUT/report.txt (out/bench by default).  Every bench runs to its
# end whatever the others do; at the end a summary names each bench that
# failed -- exited nonzero, printed a FAIL line, or printed no figure
# (bench/lib.sh: bench_fig) unless it was skipped (bench_skip: no data on
# this machine) -- and the targets missed on this run.  Exit 1
# if any bench failed (a missed target fails only with BENCH_STRICT=1).
# BENCH_ONLY="lm fit" (substrings of the script names) runs a subset.
# BENCH_QUICK=1 (make bench-smoke) runs every bench at tiny sizes: that
# each still runs and prints its figures, in about a minute.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
: >"$BENCH_OUT/report.txt"
: >"$BENCH_OUT/figures.txt"
: >"$BENCH_OUT/misses.txt"
: >"$BENCH_OUT/skipped.txt"
# the report's first line, like a table's: what made it (make bench and
# make bench-smoke run this script with these variables)
bench_note "# command=$([ -n "${BENCH_ONLY:-}" ] && printf 'BENCH_ONLY="%s" ' "$BENCH_ONLY")make $([ "$BENCH_QUICK" = 1 ] && echo bench-smoke || echo bench)"
[ "$BENCH_QUICK" = 1 ] && bench_note "quick mode (BENCH_QUICK=1): tiny sizes, one repetition; a check that every bench runs, the figures are not measurements"
bench_machine || bench_fail "sbw-info --version failed ($BIN)"
failed=""
t_all=$(date +%s)
for b in bench/bench_*.sh; do
    [ -f "$b" ] || continue
    name=$(basename "$b" .sh)
    if [ -n "${BENCH_ONLY:-}" ]; then
        hit=0
        for pat in $BENCH_ONLY; do
            case "$name" in *"$pat"*) hit=1 ;; esac
        done
        [ $hit = 1 ] || continue
    fi
    bench_note ""
    bench_note "== $name"
    start=$(wc -l <"$BENCH_OUT/report.txt")
    t0=$(date +%s)
    sh "$b"
    rc=$?
    why=""
    [ $rc = 0 ] || why="exit $rc"
    if tail -n +$((start + 1)) "$BENCH_OUT/report.txt" | grep -qw FAIL; then
        why="${why:+$why, }a FAIL line"
    fi
    grep -qx "$name" "$BENCH_OUT/figures.txt" || grep -qx "$name" "$BENCH_OUT/skipped.txt" ||
        why="${why:+$why, }no figure"
    if [ -n "$why" ]; then
        failed="$failed $name"
        bench_note "== $name: FAILED ($why; $(($(date +%s) - t0)) s)"
    elif grep -qx "$name" "$BENCH_OUT/skipped.txt"; then
        bench_note "== $name: skipped ($(($(date +%s) - t0)) s)"
    else
        bench_note "== $name: ok, $(grep -cx "$name" "$BENCH_OUT/figures.txt") figures ($(($(date +%s) - t0)) s)"
    fi
done
bench_note ""
if [ -s "$BENCH_OUT/misses.txt" ]; then
    bench_note "targets not met on this run (information$([ "${BENCH_STRICT:-0}" = 1 ] && echo '; BENCH_STRICT=1: failures')):"
    while IFS= read -r l; do bench_note "  $l"; done <"$BENCH_OUT/misses.txt"
fi
if [ -n "$failed" ]; then
    bench_note "benches FAILED:$failed ($(($(date +%s) - t_all)) s in all)"
    status=1
else
    bench_note "every bench ran and printed its figures ($(($(date +%s) - t_all)) s in all)"
fi
[ "${BENCH_STRICT:-0}" = 1 ] && [ -s "$BENCH_OUT/misses.txt" ] && status=1
echo "report: $BENCH_OUT/report.txt"
exit $status
