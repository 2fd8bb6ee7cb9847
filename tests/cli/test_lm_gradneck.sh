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
finish
