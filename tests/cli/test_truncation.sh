#!/bin/sh
# tests/cli/test_truncation.sh -- experiments/newer/truncation.sh (issue
# 31: basis-aware truncation on a trained sbw-lm Softmax model) on a tiny
# model of the generated corpus: the three outputs made, the table's
# decisions as many as predictions x tokens and each one certified, its
# outputs the tools' own (the recipe only chains them: the log Q is
# sbw-lm eval's and the table sbw-argmax's run on the same files), a rerun
# that starts nothing, a MoS head refused with one line, bad options
# refused before any work.
. tests/cli/lib.sh
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
L="$BIN/sbw-lm"
R=experiments/newer/truncation.sh
sh tests/fixtures/make_lm_corpus.sh "$T/corpus" 300 || bad "corpus"
for h in softmax "mos --k 2"; do
    # shellcheck disable=SC2086
    "$L" train -q --data "$T/corpus" --quick --d 6 --head $h --max-steps 20 --optim adam \
        --lr 0.01 --ckpt-every 0 --ckpt "$T/${h%% *}" >/dev/null || bad "train $h"
done

expect_exit 0 "recipe" env SBW_BIN="$BIN" sh "$R" --ckpt "$T/softmax" --data "$T/corpus" --split valid \
    --n 3 --words 0:9 --threshold 0.01 -o "$T/tr dir"
O="$T/tr dir"
for f in head/W.npy head/vocab.txt q.npy eval.tsv trunc.tsv; do
    if [ -s "$O/$f" ]; then ok; else bad "no $f"; fi
done
expect_grep '^# command=(.*/)?sbw-argmax --truncation q.npy --threshold 0.01 --words 0:9 --vocab head/vocab.txt --threads 1 -o trunc.tsv head/W.npy$' "$O/trunc.tsv" \
    "the table's command: plain names inside the output folder"
expect_eq "$(tsv_meta "$O/trunc.tsv" checked)" 30 "3 predictions x 10 tokens"
expect_eq "$(tsv_meta "$O/trunc.tsv" undecided)" 0 "every decision certified"
n=$(($(tsv_meta "$O/trunc.tsv" keep) + $(tsv_meta "$O/trunc.tsv" may_drop)))
expect_eq "$n" 30 "keep + may drop = checked"
expect_grep '^valid	3	' "$O/eval.tsv" "the evaluation of the 3 predictions"
# the tools' own outputs: the same commands by hand give the same bytes
"$L" eval -q --data "$T/corpus" --ckpt "$T/softmax" --split valid --tokens 3 --logprobs "$T/q.npy" \
    >/dev/null || bad "logprobs by hand"
if cmp -s "$T/q.npy" "$O/q.npy"; then ok; else bad "q.npy is not sbw-lm eval's"; fi
(cd "$O" && "$BIN/sbw-argmax" -q --truncation q.npy --threshold 0.01 --words 0:9 --vocab head/vocab.txt \
    --threads 1 head/W.npy) | tsv_rows - >"$T/hand.tsv"
tsv_rows "$O/trunc.tsv" >"$T/rec.tsv"
if [ -s "$T/hand.tsv" ] && cmp -s "$T/hand.tsv" "$T/rec.tsv"; then ok; else bad "trunc.tsv's rows are not sbw-argmax's"; fi

# a rerun skips every step: no tool starts (stand-ins that leave a mark)
mkdir -p "$T/fake"
for t in lm argmax; do
    printf '#!/bin/sh\ntouch "%s/ran"\nexit 1\n' "$T" >"$T/fake/sbw-$t"
    chmod +x "$T/fake/sbw-$t"
done
expect_exit 0 "rerun" env SBW_BIN="$T/fake" sh "$R" --ckpt "$T/softmax" --data "$T/corpus" -o "$O"
expect_absent "$T/ran" "rerun: nothing started"

expect_exit 1 "a MoS head" env SBW_BIN="$BIN" sh "$R" --ckpt "$T/mos" --data "$T/corpus" -o "$T/m"
expect_lines 1 "$T/err" "MoS: one line"
expect_grep 'a mos head; the truncation program needs a Softmax head' "$T/err" "MoS: says why"
expect_absent "$T/m/q.npy" "MoS: no log Q computed"
expect_exit 2 "no --ckpt" sh "$R" -o "$T/x"
expect_exit 2 "--n 0" sh "$R" --ckpt "$T/softmax" --n 0 -o "$T/x"
expect_exit 2 "--split train" sh "$R" --ckpt "$T/softmax" --split train -o "$T/x"
expect_exit 2 "--words with a space" sh "$R" --ckpt "$T/softmax" --words '0 1' -o "$T/x"
expect_exit 2 "--words without a value" sh "$R" --ckpt "$T/softmax" --words
expect_exit 1 "no such checkpoint" sh "$R" --ckpt "$T/none" -o "$T/x"
expect_absent "$T/x" "bad usage: nothing made"
finish
