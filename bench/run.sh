#!/bin/sh
# make bench: every bench/bench_*.sh in turn, one report in out/bench/report.txt.
# BENCH_ONLY=synth (a substring of the script name) runs a subset.
set -u
cd "$(dirname "$0")/.."
. bench/lib.sh
: >"$BENCH_OUT/report.txt"
bench_machine
status=0
for b in bench/bench_*.sh; do
    [ -f "$b" ] || continue
    case "$b" in *"${BENCH_ONLY:-}"*) ;; *) continue ;; esac
    bench_note ""
    bench_note "== $(basename "$b" .sh)"
    sh "$b" || status=1
done
echo
echo "report: $BENCH_OUT/report.txt"
exit $status
