#!/bin/sh
# Runs every cmocka suite in $1 and every CLI test script against the tools
# in $2; prints each suite's cmocka summary, its wall seconds, a final tally
# and the ten slowest suites (CI has a 20-minute budget: where it goes).
# Exit 1 if anything failed.
set -u
testdir=$1
bindir=$2
failed=""
n=0
times=$(mktemp "${TMPDIR:-/tmp}/sbw-times-XXXXXX")
trap 'rm -f "$times"' EXIT
t0=$(date +%s)
# took NAME: the seconds since $t0 as NAME's time, then $t0 reset
took() {
    t1=$(date +%s)
    echo "-- $1: $((t1 - t0)) s"
    printf '%s\t%s\n' $((t1 - t0)) "$1" >>"$times"
    t0=$t1
}
for t in "$testdir"/test_*; do
    case "$t" in *.o|*.d) continue ;; esac
    [ -x "$t" ] || continue
    n=$((n + 1))
    echo "== $(basename "$t")"
    if ! "$t"; then failed="$failed $(basename "$t")"; fi
    took "$(basename "$t")"
done
# Each fuzz target's replay in $1/fuzz runs its seed corpus and kept
# reproducers (tests/fuzz/README.md), with the suites' compiler and sanitizers.
for r in "$testdir"/fuzz/replay_*; do
    [ -x "$r" ] || continue
    name=${r##*/replay_}
    n=$((n + 1))
    echo "== fuzz replay $name"
    set --
    for d in "tests/fuzz/corpus/$name" "tests/fuzz/regress/$name"; do
        [ -d "$d" ] && set -- "$@" "$d"
    done
    if ! "$r" "$@"; then failed="$failed replay_$name"; fi
    took "replay_$name"
done
for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    n=$((n + 1))
    echo "== $(basename "$s")"
    if ! SBW_BIN="$bindir" sh "$s"; then failed="$failed $(basename "$s")"; fi
    took "$(basename "$s")"
done
echo
echo "slowest suites (seconds):"
sort -rn "$times" | head -n 10 | sed 's/^/  /'
echo
if [ -n "$failed" ]; then
    echo "FAILED suites:$failed"
    exit 1
fi
echo "All $n test suites passed."
