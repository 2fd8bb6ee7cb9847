#!/bin/sh
# Crash safety (issue 16): kill -9 -- which no handler can catch -- at ten
# seeded pseudo-random moments and resume each time, until the work is done:
#
# 1. sbw-fit with a checkpoint every millisecond (so most of its time is
#    spent evaluating and writing checkpoints and kills land in them too),
#    resumed from the checkpoint after every kill: the final log Q and the
#    --save parameters equal an uninterrupted run's bit for bit (cmp), the
#    table's result columns too (all but seconds), and the checkpoint
#    directory holds one whole generation and no temporary.
# 2. experiments/sweep.sh run (local mode, one cell at a time), killed -9
#    as a process group ten times and rerun: every rerun runs only the cells not yet finished
#    (its "N done, M to run" line against the finished files), a finished
#    cell's file is never rewritten (inode and mtime kept), and the final
#    results.tsv equals an uninterrupted sweep's except the seconds column.
#
# The kill delays come from awk's srand(SEED): the same ten every run.
. tests/cli/lib.sh
ABS=$(cd "$BIN" && pwd)
SEED=16
FIT="$BIN/sbw-fit"

# delays DELAY_MIN DELAY_SPAN SALT: ten seeded delays in seconds
delays() {
    awk -v s="$SEED" -v lo="$1" -v span="$2" -v salt="$3" \
        'BEGIN { srand(s + salt); for (i = 0; i < 10; i++) printf "%.3f\n", lo + span * rand() }'
}

# ---- 1. sbw-fit ------------------------------------------------------------------------------
"$BIN/sbw-synth" lowrank --n 600 --m 150 --rank 10 --seed 3 -q -o "$T/P.npy" >/dev/null
ARGS="$T/P.npy --d 16 --steps 1500 --threads 1 --seed 5 -q"
mkdir -p "$T/ref" "$T/crash"
# shellcheck disable=SC2086
expect_exit 0 "uninterrupted fit" "$FIT" $ARGS -o "$T/ref/Q.npy" --save "$T/ref/S"
cp "$T/out" "$T/ref/table"
CK="$T/crash/ck"
kills=0
in_write=0
for d in $(delays 0.02 0.25 1); do
    res=""
    [ -f "$CK/checkpoint.tsv" ] && res="--resume $CK"
    # shellcheck disable=SC2086
    "$FIT" $ARGS -o "$T/crash/Q.npy" --save "$T/crash/S" --checkpoint "$CK" \
        --checkpoint-every 0.001 $res >"$T/crash/table" 2>"$T/crash/err" &
    pid=$!
    ls -a "$CK" 2>/dev/null >"$T/ck_before"
    sleep "$d"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    st=$?
    if [ "$st" -eq 137 ]; then kills=$((kills + 1)); else
        bad "fit kill after ${d}s: exit $st (want 137, killed): $(head -c 300 "$T/crash/err")"
    fi
    # a kill in the middle of a checkpoint leaves a newer generation's
    # arrays (or a temporary) beside the checkpoint.tsv that still names
    # the older one
    if [ -f "$CK/checkpoint.tsv" ]; then
        g=$(sed -n 's/^generation=//p' "$CK/checkpoint.tsv")
        if ls -a "$CK" | grep -v "^ckpt-$g-" | grep 'ckpt-\|\.tmp\.' | grep -qvxF -f "$T/ck_before"; then
            in_write=$((in_write + 1))
        fi
    fi
    if [ -e "$T/crash/Q.npy" ]; then bad "a killed fit left $T/crash/Q.npy"; else ok; fi
done
expect_eq "$kills" 10 "fit: kills that landed"
echo "fit: $kills kills, $in_write of them inside a checkpoint write"
if [ "$in_write" -ge 1 ]; then ok; else bad "no kill landed inside a checkpoint write"; fi
# shellcheck disable=SC2086
expect_exit 0 "resume to the end" "$FIT" $ARGS -o "$T/crash/Q.npy" --save "$T/crash/S" \
    --checkpoint "$CK" --checkpoint-every 0.2 --resume "$CK"
expect_grep '^# resumed_at_step=[1-9]' "$T/out" "the last run resumed"
for f in Q.npy S/H.npy S/W.npy; do
    if cmp -s "$T/ref/$f" "$T/crash/$f"; then ok; else bad "fit: $f differs from the uninterrupted run's"; fi
done
cols() { tsv_rows "$1" | cut -f1-9; }
expect_eq "$(cols "$T/out")" "$(cols "$T/ref/table")" "fit: result columns"
g=$(sed -n 's/^generation=//p' "$CK/checkpoint.tsv")
expect_eq "$(ls -a "$CK" | grep -v '^\.\{1,2\}$' | grep -cv "^ckpt-$g-\|^checkpoint.tsv$")" 0 \
    "checkpoint: one generation, no temporary ($(ls -a "$CK" | tr '\n' ' '))"

# ---- 2. the sweep ----------------------------------------------------------------------------
export SBW_BIN="$ABS"
S=experiments/sweep.sh
GRID="--alpha 0.1,1 --m 20 --d 2,3 --heads softmax,mos --seeds 2 --n 40 --k 2 --steps 20000"
# shellcheck disable=SC2086
expect_exit 0 "uninterrupted sweep" $S $GRID -j 2 --out "$T/s0" run
# mtime and inode of each finished cell, one line each
stamps() { for f in "$1"/cells/*.tsv; do [ -f "$f" ] && stat -c '%n %i %Y.%y' "$f"; done; }
# The killed runs do one cell at a time (-j 1: the cells' results do not
# depend on -j), so ten kills land before the work is done.  The fifth kill
# waits for a cell to finish first, so later reruns have finished cells to
# leave alone however loaded the machine is.
kills=0
n=0
for d in $(delays 0.05 0.5 2); do
    n=$((n + 1))
    before=$(ls "$T/s1/cells" 2>/dev/null | grep -c '\.tsv$')
    stamps "$T/s1" >"$T/stamps_before" 2>/dev/null
    # shellcheck disable=SC2086
    setsid sh $S $GRID -j 1 --out "$T/s1" run >"$T/sweep.out" 2>"$T/sweep.err" &
    pid=$!
    # setsid makes the group only once it runs: a kill of the group before
    # that would not land
    i=0
    while [ "$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')" != "$pid" ] && [ $i -lt 200 ]; do
        sleep 0.01
        i=$((i + 1))
    done
    i=0
    while [ $n -eq 5 ] && [ $i -lt 400 ] && [ "$(ls "$T/s1/cells" 2>/dev/null | grep -c '\.tsv$')" -le "$before" ]; do
        sleep 0.05
        i=$((i + 1))
    done
    sleep "$d"
    kill -9 -"$pid" 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null
    sleep 0.05 # the group's processes are gone before the next run looks
    if grep -q 'cells (' "$T/sweep.err"; then
        expect_grep "cells \($before done" "$T/sweep.err" "sweep rerun after $kills kills starts from the $before finished cells"
    fi
    stamps "$T/s1" >"$T/stamps_after"
    if [ -z "$(comm -23 "$T/stamps_before" "$T/stamps_after")" ]; then ok; else
        bad "sweep: finished cells rewritten: $(comm -23 "$T/stamps_before" "$T/stamps_after")"
    fi
done
expect_eq "$kills" 10 "sweep: kills that landed"
before=$(ls "$T/s1/cells" | grep -c '\.tsv$')
stamps "$T/s1" >"$T/stamps_before"
if [ "$before" -ge 1 ]; then ok; else bad "sweep: no cell finished in ten kills"; fi
# shellcheck disable=SC2086
expect_exit 0 "sweep finished after the kills" $S $GRID -j 2 --out "$T/s1" run
echo "sweep: $kills kills, $before of 8 cells finished before the last run"
expect_grep "8 cells \($before done, $((8 - before)) to run" "$T/err" "the last run redoes only the unfinished cells"
stamps "$T/s1" >"$T/stamps_after"
if [ -z "$(comm -23 "$T/stamps_before" "$T/stamps_after")" ]; then ok; else bad "sweep: finished cells rewritten"; fi
no_seconds() { tsv_rows "$1" | awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seconds") c = i } { if (c) $c = ""; print }'; }
expect_eq "$(no_seconds "$T/s1/results.tsv")" "$(no_seconds "$T/s0/results.tsv")" "sweep: results equal an uninterrupted sweep's (but seconds)"
if ls -a "$T/s1/cells" "$T/s1/lang" | grep -q '^\.[a-z]'; then bad "sweep: temporaries left: $(ls -a "$T/s1/cells" "$T/s1/lang" | tr '\n' ' ')"; else ok; fi
finish
