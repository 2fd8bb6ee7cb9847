# tests/cli/test_ptb_quick.sh -- experiments/ptb/run.sh --quick: the whole
# issue-15 pipeline (train every model, evaluate through pipes, write the
# report and its figures) at toy scale on a generated corpus; the ranks it
# reports obey the heads' bounds; a rerun redoes nothing; a model whose
# results were deleted is finished from its checkpoint, not retrained.
. tests/cli/lib.sh
Q=$T/ptbq
run() { OUTQ=$Q QUIET=1 BIN=$BIN sh experiments/ptb/run.sh --quick "$@"; }
expect_exit 0 "the quick pipeline" run
R=$Q/results
expect_eq "$(tsv_field "$R/softmax/rank.tsv" rank)" 18 "Softmax D=16 with a bias: rank D+2"
expect_eq "$(tsv_field "$R/softmax/rank-center.tsv" rank)" 17 "Softmax: d* = D+1"
r=$(tsv_field "$R/moc/rank.tsv" rank)
if [ -n "$r" ] && [ "$r" -le 14 ]; then ok; else bad "MoC D=12: rank '$r' above D+2"; fi
r=$(tsv_field "$R/mos-k3/rank.tsv" rank)
if [ -n "$r" ] && [ "$r" -gt 14 ]; then ok; else bad "MoS K=3 D=12: rank '$r' not above D+2"; fi
for f in figure1 kld-ppl training rank-k; do
    if [ -s "$Q/figures/$f.png" ]; then ok; else bad "no figure $f.png"; fi
done
expect_grep "^## Table 6" "$Q/report.md" "report has Table 6"
expect_grep "^\| Softmax \| 16 \| 18 \| 400 \| 17 \| 18 \| [0-9.]+ \| 18 \|$" "$Q/report.md" "Table 6's Softmax row"
expect_grep "^## Table 11" "$Q/report.md" "report has Table 11"
expect_grep "figures/figure1.png" "$Q/report.md" "report embeds Figure 1"
expect_eq "$(tsv_rows "$R/kld-at-ppl.tsv" | head -n 1)" "$(printf 'ppl\tsoftmax\tmoc\tmos-k3\tsigsoftmax\tplif')" \
    "KLD at equal perplexity: one column per curve"
expect_grep "^- \*\*(MoC|Softmax) (above|below)" "$Q/report.md" "report says MoC against Softmax at equal perplexity"
expect_grep "^## How far from convergence" "$Q/report.md" "report says how far from convergence"
n=$(grep -vc '^#' "$R/mos-k3/curve.tsv")
if [ "$n" -ge 3 ]; then ok; else bad "KLD curve has $n lines"; fi
# a rerun skips everything
expect_exit 0 "rerun" run
expect_eq "$(grep -c ': trained' "$T/out")" 6 "rerun: every model already trained"
expect_eq "$(grep -c ': evaluated' "$T/out")" 6 "rerun: every model already evaluated"
# a deleted result is finished from the checkpoint (no new training steps)
steps=$(tsv_field "$R/plif/train.tsv" steps)
rm "$R/plif/train.tsv" "$R/plif/eval.done"
expect_exit 0 "rerun after deleting plif's results" run train plif
expect_grep "plif: training \(resuming\)" "$T/out" "plif resumed from its checkpoint"
expect_eq "$(tsv_field "$R/plif/train.tsv" steps)" "$steps" "no step redone"
expect_exit 2 "unknown step" run fly
expect_exit 2 "unknown model" run train gpt
finish
