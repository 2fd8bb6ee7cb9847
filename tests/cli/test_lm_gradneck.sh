#!/bin/sh
# CLI checks of sbw-lm eval --gradneck (issue 31; the share of the logit
# gradient a head passes back, models/sbw_gradneck, whose numbers
# test_gradneck checks against a finite-difference twin): one row per
# prediction, passed in [0, 1], suppressed = 1 - passed, the summary's
# mean against awk's mean of the column, the path named, exclusive with
# --logprobs, the output written whole.
. tests/cli/lib.sh
L="$BIN/sbw-lm"
sh tests/fixtures/make_lm_corpus.sh "$T/corpus" 300 || bad "corpus"
for h in softmax "mos --k 2"; do
    # shellcheck disable=SC2086
    "$L" train -q --data "$T/corpus" --quick --d 6 --head $h --max-steps 20 --optim adam \
        --lr 0.01 --ckpt-every 0 --ckpt "$T/${h%% *}" >/dev/null || bad "train $h"
done

expect_exit 0 "gradneck softmax" "$L" eval -q --data "$T/corpus" --ckpt "$T/softmax" --split valid \
    --tokens 40 --gradneck "$T/gs.tsv"
expect_grep '^# gradneck_path=single_map' "$T/out" "softmax: one map"
expect_grep '^# gradneck_n=40$' "$T/out" "40 predictions"
expect_eq "$(grep -vc '^#' "$T/gs.tsv")" 41 "header + 40 rows"
expect_eq "$(awk -F '\t' '!/^#/ && $1 != "position" && ($3 < 0 || $3 > 1) { n++ } END { print n + 0 }' "$T/gs.tsv")" 0 \
    "passed in [0, 1]"
# check-recipes does not read tests; this awk is the test's independent sum
mean=$(awk -F '\t' '!/^#/ && $1 != "position" { s += $3; n++ } END { printf "%.17g", s / n }' "$T/gs.tsv")
expect_num_near "$(sed -n 's/^# gradneck_mean=//p' "$T/gs.tsv")" "$mean" 1e-12 "mean = awk's mean"
expect_eq "$(awk -F '\t' '!/^#/ && $1 != "position" { d = $3 + $4 - 1; if (d < 0) d = -d; if (d > 1e-12) n++ } END { print n + 0 }' "$T/gs.tsv")" 0 \
    "suppressed = 1 - passed"
expect_exit 0 "gradneck mos" "$L" eval -q --data "$T/corpus" --ckpt "$T/mos" --split valid \
    --tokens 10 --gradneck -
expect_grep '^# gradneck_path=jacobian' "$T/out" "mos: its Jacobian"
expect_grep '^valid' "$T/err" "the eval table on stderr with --gradneck -"
expect_exit 2 "gradneck with logprobs" "$L" eval -q --data "$T/corpus" --ckpt "$T/mos" \
    --gradneck "$T/x.tsv" --logprobs "$T/x.npy"
expect_absent "$T/x.tsv" "nothing written on a usage error"

# sbw-gradneck from files (the exported W, the stored log Q, the words of
# the table above) gives the rows sbw-lm eval --gradneck gave from the
# latents through the head pass
G="$BIN/sbw-gradneck"
"$L" eval -q --data "$T/corpus" --ckpt "$T/softmax" --tokens 1 --export "$T/head" >/dev/null || bad "export"
"$L" eval -q --data "$T/corpus" --ckpt "$T/softmax" --split valid --tokens 40 --logprobs "$T/q.npy" \
    >/dev/null || bad "logprobs"
expect_exit 0 "sbw-gradneck" "$G" -q "$T/head/W.npy" "$T/q.npy" --targets "$T/gs.tsv" -o "$T/g2.tsv"
grep -v '^#' "$T/gs.tsv" >"$T/a.txt"
grep -v '^#' "$T/g2.tsv" >"$T/b.txt"
expect_eq "$(paste "$T/a.txt" "$T/b.txt" | awk -F '\t' '!/^#/ && $1 != "position" { d = $3 - $7; if (d < 0) d = -d; if (d > 1e-10) n++ } END { print n + 0 }')" 0 \
    "files = eval's rows"
expect_grep '^# basis_rank=6$' "$T/g2.tsv" "rank D of the centred W"
expect_exit 2 "sbw-gradneck without --targets" "$G" -q "$T/head/W.npy" "$T/q.npy"
head -n 30 "$T/gs.tsv" >"$T/short.tsv"
expect_exit 1 "sbw-gradneck: too few targets" "$G" -q "$T/head/W.npy" "$T/q.npy" --targets "$T/short.tsv"
expect_grep 'rows, but the log Q file has 40' "$T/err" "count named"
sed 's/^\(0\t\)[0-9]*/\19999/' "$T/gs.tsv" >"$T/bad.tsv"
expect_exit 1 "sbw-gradneck: a word out of range" "$G" -q "$T/head/W.npy" "$T/q.npy" --targets "$T/bad.tsv"
expect_grep "'9999' is not a word id below M" "$T/err" "bad id named"
expect_exit 1 "sbw-gradneck: W of the wrong size" "$G" -q "$T/q.npy" "$T/q.npy" --targets "$T/gs.tsv"
expect_exit 1 "sbw-gradneck: not log-probabilities" "$G" -q "$T/head/W.npy" "$T/head/W.npy" --targets "$T/gs.tsv"
finish
