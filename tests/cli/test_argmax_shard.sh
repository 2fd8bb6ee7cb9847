#!/bin/sh
# sbw-argmax --shard I/N and --merge: the merged table of N shard tables is
# the unsharded run's, byte for byte but for its "# command=" and
# "# seconds_*=" lines (which differ between any two runs), for N dividing
# the list and not, N = 1 and N = the list's length, with --bias, --vocab,
# --max-prob, --words, --json, every kind of certificate (the square's
# duplicates and hull points, synth head's planted words); and every merge
# that cannot be right is refused with one line, exit 1.
. tests/cli/lib.sh
A="$BIN/sbw-argmax"
SQ=$FIX/argmax_square.npy

# same FILE_A FILE_B WHAT: equal but for the lines that differ between runs
same() {
    grep -Ev '^# (command|seconds_[a-z]+)=' "$1" >"$T/same.a"
    grep -Ev '^# (command|seconds_[a-z]+)=' "$2" >"$T/same.b"
    if cmp -s "$T/same.a" "$T/same.b"; then ok; else
        bad "$3: merged differs from unsharded: $(diff "$T/same.a" "$T/same.b" | head -n 6)"
    fi
}

# shards N NAME ARGS...: the N shard tables of ARGS as $T/NAME.I.tsv (in
# the order N..1, to show the order given does not matter: $list)
shards() {
    n=$1
    name=$2
    shift 2
    list=""
    i=$n
    while [ "$i" -ge 1 ]; do
        expect_exit 0 "$name shard $i/$n" "$A" -q --shard "$i/$n" -o "$T/$name.$i.tsv" "$@"
        list="$list $T/$name.$i.tsv"
        i=$((i - 1))
    done
}

"$BIN/sbw-synth" head -q --m 60 --d 5 --k 9 --bias "$T/b.npy" --vocab "$T/v.txt" \
    -o "$T/W.npy" >/dev/null || bad "synth head"
ARGS="--bias $T/b.npy --vocab $T/v.txt --max-prob 1,10 --max-prob-all $T/W.npy"
# shellcheck disable=SC2086 # ARGS: words on purpose (no spaces in $T)
expect_exit 0 "head unsharded" "$A" -q -o "$T/head.full.tsv" $ARGS
expect_eq "$(tsv_meta "$T/head.full.tsv" unargmaxable)" 9 "head: the 9 planted words"
for n in 1 2 3 7 60; do
    # shellcheck disable=SC2086
    shards $n h$n $ARGS
    # shellcheck disable=SC2086
    expect_exit 0 "merge $n" "$A" -q --merge -o "$T/head.m$n.tsv" $list
    same "$T/head.full.tsv" "$T/head.m$n.tsv" "head, $n shards"
done
# a head of 400 words (blocks of 6): the pre-filter's GEMM sees the whole
# list's blocks in every shard, so its margins, bounds and certificate
# norms are the unsharded run's to the bit (with shards of every N-th word
# the GEMM's rows met other words and 4 prefilter rows differed in their
# last digits)
"$BIN/sbw-synth" head -q --m 400 --d 8 --k 6 --seed 1 --bias "$T/b4.npy" --vocab "$T/v4.txt" \
    -o "$T/W4.npy" >/dev/null || bad "synth head 400"
expect_exit 0 "400 words unsharded" "$A" -q -o "$T/w4.full.tsv" --bias "$T/b4.npy" --vocab "$T/v4.txt" "$T/W4.npy"
for n in 3 7; do
    shards $n w4n$n --bias "$T/b4.npy" --vocab "$T/v4.txt" "$T/W4.npy"
    # shellcheck disable=SC2086
    expect_exit 0 "400 words: merge $n" "$A" -q --merge -o "$T/w4.m$n.tsv" $list
    same "$T/w4.full.tsv" "$T/w4.m$n.tsv" "400 words, $n shards"
done
expect_eq "$(tsv_meta "$T/w4n3.1.tsv" shard_block) $(tsv_meta "$T/w4n3.1.tsv" checked)" "6 136" \
    "shard 1/3 of 400 words: blocks 0, 3, ..., 66 of 6 words (the last of 4), 136 words"
for i in 1 2 3; do
    cp "$T/h3.$i.tsv" "$T/head.$i.tsv"
done
# the merge's --threads is its table's, as a run's
# shellcheck disable=SC2086
expect_exit 0 "head --threads 1" "$A" -q --threads 1 -o "$T/head.t1.tsv" $ARGS
# shellcheck disable=SC2086
expect_exit 0 "merge --threads 1" "$A" -q --threads 1 --merge -o "$T/head.mt1.tsv" $T/h3.*.tsv
same "$T/head.t1.tsv" "$T/head.mt1.tsv" "merge --threads 1"
# a shard has every N-th word from its I-th, and says so
expect_eq "$(tsv_meta "$T/head.3.tsv" shard) $(tsv_meta "$T/head.3.tsv" checked)" "3/3 20" \
    "shard 3/3: 20 words"
expect_eq "$(tsv_field "$T/head.2.tsv" word 1)/$(tsv_field "$T/head.2.tsv" word 2)" 1/4 \
    "shard 2/3: words 1, 4, ..."
# --json: the merge writes JSON as the unsharded run does
# shellcheck disable=SC2086
expect_exit 0 "head --json" "$A" -q --json -o "$T/head.full.json" $ARGS
# shellcheck disable=SC2086
expect_exit 0 "merge --json" "$A" -q --json --merge -o "$T/head.m.json" $T/h7.*.tsv
sed 's/"command": *"[^"]*"//; s/"seconds_[a-z]*": *[-0-9.e+]*//g' "$T/head.full.json" >"$T/j.a"
sed 's/"command": *"[^"]*"//; s/"seconds_[a-z]*": *[-0-9.e+]*//g' "$T/head.m.json" >"$T/j.b"
if cmp -s "$T/j.a" "$T/j.b"; then ok; else bad "--json merge differs: $(diff "$T/j.a" "$T/j.b" | head -n 4)"; fi

# the square: duplicates (other = the copy), hull points, --words out of order
for n in 2 3; do
    shards $n sq --words 6,1:5,0 --tol 1e-10 "$SQ"
    # shellcheck disable=SC2086
    expect_exit 0 "square merge $n" "$A" -q --merge -o "$T/sq.m$n.tsv" $list
done
expect_exit 0 "square unsharded" "$A" -q --words 6,1:5,0 --tol 1e-10 -o "$T/sq.full.tsv" "$SQ"
same "$T/sq.full.tsv" "$T/sq.m2.tsv" "square, 2 shards"
same "$T/sq.full.tsv" "$T/sq.m3.tsv" "square, 3 shards"

# refusals: one line naming the problem, exit 1, nothing written
refuse() {
    what=$1
    pat=$2
    shift 2
    expect_exit 1 "$what" "$A" -q --merge -o "$T/never.tsv" "$@"
    expect_lines 1 "$T/err" "$what: one line"
    expect_grep "$pat" "$T/err" "$what"
    expect_absent "$T/never.tsv" "$what"
}
refuse "missing shard" 'shard 2/3 is missing' "$T/head.1.tsv" "$T/head.3.tsv"
refuse "shard twice" 'shard 1/3 again' "$T/head.1.tsv" "$T/head.1.tsv" "$T/head.3.tsv"
cp "$T/sq.1.tsv" "$T/sq1copy.tsv"
refuse "another count" 'one of 3 shards' "$T/head.1.tsv" "$T/h7.2.tsv" "$T/head.3.tsv"
refuse "another run" 'shards of different runs' "$T/head.1.tsv" "$T/head.2.tsv" "$T/sq.3.tsv"
# the same file name, another head: the hash tells
"$BIN/sbw-synth" head -q --m 60 --d 5 --k 9 --seed 7 --bias "$T/b2.npy" --vocab "$T/v2.txt" \
    -o "$T/W2.npy" >/dev/null || bad "synth head 2"
cp "$T/W.npy" "$T/W.keep.npy"
cp "$T/W2.npy" "$T/W.npy"
expect_exit 0 "shard of another head" "$A" -q --shard 2/3 -o "$T/other.2.tsv" \
    --bias "$T/b.npy" --vocab "$T/v.txt" --max-prob 1,10 --max-prob-all "$T/W.npy"
cp "$T/W.keep.npy" "$T/W.npy"
refuse "another head" 'head_hash=' "$T/head.1.tsv" "$T/other.2.tsv" "$T/head.3.tsv"
# another setting the summary does not show
expect_exit 0 "shard --max-rounds 7" "$A" -q --shard 2/3 --max-rounds 7 -o "$T/mr.2.tsv" \
    --bias "$T/b.npy" --vocab "$T/v.txt" --max-prob 1,10 --max-prob-all "$T/W.npy"
refuse "another --max-rounds" 'max_rounds=7' "$T/head.1.tsv" "$T/mr.2.tsv" "$T/head.3.tsv"
refuse "not a shard" 'not a shard table' "$T/head.full.tsv"
# a damaged shard: a row of another word
awk 'BEGIN { FS = OFS = "\t" } /^[0-9]/ && !done { $1 = $1 + 3; done = 1 } { print }' \
    "$T/head.2.tsv" >"$T/bad.2.tsv"
refuse "a row of another word" 'row 1 is word 4' "$T/head.1.tsv" "$T/bad.2.tsv" "$T/head.3.tsv"
sed 's/^# argmaxable=.*/# argmaxable=3/' "$T/head.2.tsv" >"$T/sum.2.tsv"
refuse "a summary not its rows'" "argmaxable=3' but its rows make" "$T/head.1.tsv" "$T/sum.2.tsv" "$T/head.3.tsv"
awk 'BEGIN { FS = OFS = "\t" } /^[0-9]/ && $4 == "vertex" && !done { $3 = 0; done = 1 } { print }' \
    "$T/head.2.tsv" >"$T/flip.2.tsv"
refuse "a verdict flipped" "argmaxable=[0-9]+' but its rows make" "$T/head.1.tsv" "$T/flip.2.tsv" "$T/head.3.tsv"
head -n -1 "$T/head.2.tsv" >"$T/short.2.tsv"
refuse "a row short" '19 rows' "$T/head.1.tsv" "$T/short.2.tsv" "$T/head.3.tsv"

# usage: exit 2
expect_exit 2 "--shard 0/3" "$A" --shard 0/3 "$SQ"
expect_exit 2 "--shard 4/3" "$A" --shard 4/3 "$SQ"
expect_exit 2 "--shard x" "$A" --shard 1/x "$SQ"
expect_exit 2 "--shard --json" "$A" --shard 1/2 --json "$SQ"
expect_exit 2 "--shard --truncation" "$A" --shard 1/2 --truncation "$SQ" "$SQ"
expect_exit 2 "--merge --tol" "$A" --merge --tol 0 "$T/head.1.tsv"
expect_exit 2 "two heads without --merge" "$A" "$SQ" "$SQ"
expect_exit 2 "more shards than words" "$A" --shard 1/8 "$SQ"
expect_grep '7 word' "$T/err" "more shards than words: says how many"

# experiments/argmax-shards.sh without Slurm: its job files run by bash
# with the array's task ids do what the jobs do (test_slurm.sh submits
# them to a real Slurm)
ROOT=$(pwd)
ABS=$(cd "$BIN" && pwd)
AS() { (cd "$T" && SBW_BIN="$ABS" sh "$ROOT/experiments/argmax-shards.sh" "$@"); }
expect_exit 2 "argmax-shards: no --shards" AS --out scan W.npy
expect_exit 2 "argmax-shards: -o is the script's" AS --shards 2 --out scan -o x.tsv W.npy
expect_exit 2 "argmax-shards: --shards 0" AS --shards 0 --out scan W.npy
expect_exit 1 "argmax-shards: a missing head" AS --shards 2 --out scan none.npy
expect_grep 'none.npy' "$T/err" "argmax-shards: sbw-argmax's reason"
expect_absent "$T/scan/slurm/shards.sbatch" "argmax-shards: nothing emitted"
if [ -x /usr/bin/time ]; then
    expect_exit 0 "argmax-shards: emit" AS --shards 5 --out scan --bias b.npy --vocab v.txt --max-prob 1,10 \
        --max-prob-all W.npy
    expect_grep '^#SBATCH --array=0-4$' "$T/scan/slurm/shards.sbatch" "argmax-shards: an array of 5"
    expect_grep 'dependency=afterok:\$A ' "$T/scan/slurm/submit.sh" "argmax-shards: the merge after the array"
    for k in 4 2 0 1 3; do
        SLURM_ARRAY_TASK_ID=$k bash "$T/scan/slurm/shards.sbatch" 2>"$T/task.err" || bad "argmax-shards: task $k: $(cat "$T/task.err")"
    done
    expect_exit 0 "argmax-shards: merge.sbatch" bash "$T/scan/slurm/merge.sbatch"
    (cd "$T" && "$ABS/sbw-argmax" -q --threads 1 --bias b.npy --vocab v.txt --max-prob 1,10 --max-prob-all \
        -o direct.tsv W.npy) || bad "argmax-shards: the direct run"
    same "$T/direct.tsv" "$T/scan/argmax.tsv" "argmax-shards: the jobs' result"
    # 8 shards of 60 words (60 blocks of 1): too few blocks for a calibration
    # of 1/64, so it calibrates with 1/8 and says so in the prediction
    expect_exit 0 "argmax-shards: 8 shards of 60 words" AS --shards 8 --out scan8 --bias b.npy W.npy
    expect_grep '^#SBATCH --array=0-7$' "$T/scan8/slurm/shards.sbatch" "argmax-shards: 8 shards, an array of 8"
    expect_exit 2 "60 words in 61 shards" "$ABS/sbw-argmax" -q --shard 1/61 "$T/W.npy"
    expect_grep 'make 60 block\(s\) of 1' "$T/err" "more shards than blocks: says how many"
else
    echo "test_argmax_shard.sh: the argmax-shards.sh checks skipped: no GNU time (/usr/bin/time)"
fi
finish
