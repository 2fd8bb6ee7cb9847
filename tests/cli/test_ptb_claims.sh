# tests/cli/test_ptb_claims.sh -- experiments/ptb/report.sh's verdicts on
# the MoS paper's three claims (Table 6's ranks, Table 7's rise with K,
# Table 11's KLD order) and the long runs' rows beside the 2-epoch ones,
# on made-up results folders whose verdicts follow from the stated rules
# by hand: each verdict of each claim, and undecided for each kind of
# missing input, is reached by changing one number or file.  QUICK=1
# (the toy names softmax, moc, mos-k3, K = 2 and 3; the report beside
# RES, never experiments/ptb/report.md).
. tests/cli/lib.sh
BINA=$(cd "$BIN" && pwd)
Q=$T/q
R=$Q/results
L=$Q/long
# one FILE "COL..." "VALUE...": a one-row tool table
one() {
    printf '# command=test\n%s\n%s\n' "$(echo "$2" | tr ' ' '\t')" "$(echo "$3" | tr ' ' '\t')" >"$1"
}
# model BASE NAME EPOCHS BOUND RANK RANK_SINGLE KLD: a trained and evaluated model
model() {
    mkdir -p "$1/$2"
    printf '# command=sbw-lm train --optim adam --epochs %s\nhead\td\tk\trank_bound\tepochs\tstop\n%s\t16\t0\t%s\t%s\tepochs\n' \
        "$3" "$2" "$4" "$3" >"$1/$2/train.tsv"
    one "$1/$2/rank.tsv" "rank rank_single n m" "$5 $6 10000 20000"
    one "$1/$2/kl-valid.tsv" "expected_pairwise_kl" "$7"
    one "$1/$2/eval-valid.tsv" "ppl" "150"
    one "$1/$2/eval-test.tsv" "ppl" "140"
    echo "seconds=1" >"$1/$2/eval.done"
}
# traj BASE NAME RANK...: one trajectory row per epoch, those ranks
traj() {
    f=$1/$2/traj.tsv
    shift 2
    printf '# command=test\nepoch\ttokens\tvalid_ppl\trows\trank\trank_single\td_star\texpected_pairwise_kl\n' >"$f"
    e=0
    for r in "$@"; do
        e=$((e + 1))
        printf '%s\t%s\t%s\t10000\t%s\t%s\t%s\t2\n' "$e" "$e" "$((300 - e))" "$r" "$r" "$r" >>"$f"
    done
}
# chain VALUE: LONG's order-at-ppl.tsv with that chain
chain() { printf '# command=test\n# chain=%s\na\tb\tcommon\tabove\torder\n' "$1" >"$L/order-at-ppl.tsv"; }
status() {
    printf '# command=test\nmodel\tpreset\td\tprecision\tmax_epochs\tstop_ppl\tepoch\ttokens\tvalid_ppl\trank\trank_single\td_star\texpected_pairwise_kl\tstate\n' >"$L/status.tsv"
    for m in softmax moc mos-k3; do printf '%s\tawd\t16\tbf16\t25\t85\t3\t9\t90\t1\t1\t1\t2\tfinished (epochs)\n' "$m" >>"$L/status.tsv"; done
}
# kat RANK_K2 RANK_SINGLE_K2 [RANK_K3 RANK_SINGLE_K3]: LONG's k-at-epoch.tsv at epoch 3
kat() {
    printf '# command=test\n# epoch=3\nmodel\tk\trank\trank_single\td_star\tvalid_ppl\texpected_pairwise_kl\nmos-k2\t2\t%s\t%s\t1\t1\t1\n' "$1" "$2" >"$L/k-at-epoch.tsv"
    [ $# -lt 4 ] || printf 'mos-k3\t3\t%s\t%s\t1\t1\t1\n' "$3" "$4" >>"$L/k-at-epoch.tsv"
}
model "$R" softmax 2 18 18 18 1.0
model "$R" moc 2 17 17 17 1.2
model "$R" mos-k3 2 0 10000 200 1.1
model "$R" mos-k2 2 0 10000 100 1.1
model "$L" softmax 25 18 18 18 1.0
model "$L" moc 25 17 17 17 2.0
model "$L" mos-k3 25 0 10000 300 3.0
traj "$L" softmax 18 18 18
traj "$L" moc 17 17 17
traj "$L" mos-k3 10000 9999 10000
status
chain holds
report() { expect_exit 0 "report.sh: $1" env RES="$R" LONG="$L" QUICK=1 BIN="$BINA" KEPOCH=3 sh experiments/ptb/report.sh; }
D=$Q/report.md
verdict() { grep "^- \*\*Table $1 " "$D" | sed 's/^- \*\*Table [0-9]* ([^)]*): //; s/\*\*:.*//'; }

report "the long runs finished, MoS below the paper's rank at float32's eps"
expect_eq "$(verdict 6)" "reproduced at float64's eps only" "Table 6: MoS 10000 >= 9981 at float64's eps, 300 < 9981 at float32's"
expect_eq "$(verdict 11)" reproduced "Table 11: MoS 3.0 > MoC 2.0 > Softmax 1.0 at the end, the chain holds"
expect_eq "$(verdict 7)" "reproduced at float32's eps only" "Table 7: 10000, 10000 at float64's eps; 100 < 200 at float32's"
expect_grep "^- \*\*Table 7 .*At float64's eps every K is at the full rank 10000, which cannot rise" "$D" "Table 7: the full rank is said"
expect_eq "$(grep -c '^| Softmax | 25 epochs, adam |' "$D")" 3 "the long Softmax joins Tables 6, 11 and Parthiban's"
expect_eq "$(grep -c '^| Softmax | 2 epochs, adam |' "$D")" 3 "beside the 2-epoch row"
expect_grep "^\| Softmax test perplexity \| 140\.0 \(2 epochs, adam\); 140\.0 \(25 epochs, adam\) \|" "$D" \
    "the scale table: the long run's test perplexity beside the 2-epoch one"
expect_grep "Softmax at its bound at 3 of 3 epochs measured, MoC at 3 of 3, MoS at full rank \(10000\) at 2 of 3" "$D" \
    "Table 6 along the long runs: the epochs at the bound, counted"
expect_grep "^- \*\*Table 6 .*MoS's is 10000 / 300 of 10000 \(the long run\) against the paper's 9981" "$D" "Table 6 names where MoS's ranks come from"
expect_grep "^At the end of training, on the whole valid set .*: MoS 3\.000 > MoC 2\.000 > Softmax 1\.000\.$" "$D" \
    "Table 11 along the long runs: the end, in order"
model "$L" mos-k3 25 0 10000 9990 3.0
report "MoS at least the paper's rank at both eps"
expect_eq "$(verdict 6)" reproduced "Table 6: MoS 10000 and 9990 >= 9981"

chain broken
report "the end in the paper's order, equal perplexity not"
expect_eq "$(verdict 11)" "undecided" "Table 11: the end and equal perplexity disagree"
expect_grep "^- \*\*Table 11 .*undecided\*\*: the end of training and equal perplexity disagree" "$D" "Table 11: why undecided"
chain incomplete
report "a curve without a common perplexity"
expect_grep "^- \*\*Table 11 .*undecided\*\*: the order at equal perplexity cannot be read \(chain: incomplete\)" "$D" \
    "Table 11: an unreadable chain is not a disagreement"
chain broken
model "$L" softmax 25 18 18 18 3.5
report "Softmax highest at the end, chain broken"
expect_eq "$(verdict 11)" "not reproduced" "Table 11: Softmax 3.5 > MoS 3.0 > MoC 2.0 and the chain broken"
rm "$L/mos-k3/kl-valid.tsv"
report "a final KLD missing"
expect_grep "^- \*\*Table 11 .*undecided\*\*: a final KLD is missing" "$D" "Table 11: a missing KLD is undecided, not an order"
model "$L" mos-k3 25 0 10000 9990 3.0
rm "$L/moc/eval.done"
report "MoC finished, not evaluated"
expect_eq "$(verdict 11)" "undecided at this budget" "Table 11: a long run not evaluated"
expect_grep "^- \*\*Table 11 .*moc: epoch 3 \(valid ppl 90\.0\), finished \(epochs\), not yet evaluated" "$D" "the runs' state is said"
expect_eq "$(grep -c '^| MoC | 25 epochs, adam |' "$D")" 0 "an unevaluated long run has no table row"
expect_grep "^- \*\*Table 6 .*MoC's 17 / 17 against 17 \(the 2-epoch model\)" "$D" "Table 6: MoC from its 2-epoch model, said"
mv "$R/moc/rank.tsv" "$T/moc-rank.tsv"
report "MoC evaluated nowhere"
expect_grep "^- \*\*Table 6 \(the ranks\): undecided\*\*: not all three heads are evaluated yet" "$D" "Table 6: a head missing"
mv "$T/moc-rank.tsv" "$R/moc/rank.tsv"
printf '# command=test\nhead\tepochs\nsoftmax\t25\n' >"$L/softmax/train.tsv"
report "Softmax's bound missing"
expect_grep "^- \*\*Table 6 \(the ranks\): undecided\*\*: a rank or bound is missing" "$D" "Table 6: a missing bound is undecided, not a failure"
model "$L" softmax 25 18 19 18 3.5
report "Softmax above its bound"
expect_eq "$(verdict 6)" "reproduced at float32's eps only" "Table 6: Softmax 19 > 18 at float64's eps; 18 and MoS 9990 at float32's"
model "$L" softmax 25 18 18 18 3.5
model "$L" mos-k3 25 0 9000 300 3.0
report "the long MoS below the paper's rank"
expect_eq "$(verdict 6)" "not reproduced" "Table 6: MoS 9000 < 9981 (and 300)"
model "$R" mos-k3 2 0 10000 10000 1.1
report "the 2-epoch MoS at full rank (the long one decides)"
expect_eq "$(verdict 6)" "not reproduced" "Table 6: the long MoS decides, not the 2-epoch one"

# Table 7 from the long runs once every K has its epoch
kat 9000 50
report "one K at epoch 3"
expect_grep "^- \*\*Table 7 .*from the 2-epoch models .*the long runs at their epoch 3: 1 of 2\." "$D" "Table 7: the 2-epoch models until every K has the epoch"
kat 9000 50 9500 40
report "every K at epoch 3"
expect_eq "$(verdict 7)" "reproduced at float64's eps only" "Table 7: 9000 < 9500 at float64's eps, 50 > 40 at float32's"
expect_grep "^- \*\*Table 7 .*from the long runs after 3 epochs" "$D" "Table 7 from the long runs, the epoch from the file"
kat 9000 50 8000 40
report "K = 3 below K = 2 at both eps"
expect_eq "$(verdict 7)" "not reproduced" "Table 7: 9000 > 8000 and 50 > 40"
expect_eq "$(grep -c "which cannot rise" "$D")" 0 "Table 7: no full-rank sentence when the ranks are not full"
kat 9000 50 9000 60
report "flat at float64's eps, rising at float32's"
expect_eq "$(verdict 7)" "reproduced at float32's eps only" "Table 7: 9000 = 9000 is constant, not a rise; 50 < 60"
kat 9000 50 9500 60
report "rising at both eps"
expect_eq "$(verdict 7)" reproduced "Table 7: 9000 < 9500 and 50 < 60"
rm "$L/k-at-epoch.tsv" "$R/mos-k2/rank.tsv"
report "one K measured"
expect_grep "^- \*\*Table 7 \(rank rising with K\): undecided\*\*: fewer than two K measured" "$D" "Table 7: one K is undecided"

expect_exit 0 "report.sh without long runs" env RES="$R" QUICK=1 BIN="$BINA" sh experiments/ptb/report.sh
expect_grep "^- \*\*Table 11 \(the KLD ordering MoS > MoC > Softmax\): undecided\*\*: no long run has been measured yet" "$D" \
    "Table 11 without long runs"
expect_exit 2 "LONG naming no folder" env RES="$R" LONG="$T/nowhere" QUICK=1 BIN="$BINA" sh experiments/ptb/report.sh
expect_grep "LONG=.*nowhere: no such folder" "$T/err" "the missing folder is named"
finish
