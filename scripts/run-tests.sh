#!/bin/sh
# Runs every cmocka suite in $1 and every CLI test script against the tools
# in $2; prints each suite's cmocka summary and a final tally.  Exit 1 if
# anything failed.
set -u
testdir=$1
bindir=$2
failed=""
n=0
for t in "$testdir"/test_*; do
    case "$t" in *.o|*.d) continue ;; esac
    [ -x "$t" ] || continue
    n=$((n + 1))
    echo "== $(basename "$t")"
    if ! "$t"; then failed="$failed $(basename "$t")"; fi
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
done
for s in tests/cli/test_*.sh; do
    [ -f "$s" ] || continue
    n=$((n + 1))
    echo "== $(basename "$s")"
    if ! SBW_BIN="$bindir" sh "$s"; then failed="$failed $(basename "$s")"; fi
done
echo
if [ -n "$failed" ]; then
    echo "FAILED suites:$failed"
    exit 1
fi
echo "All $n test suites passed."
