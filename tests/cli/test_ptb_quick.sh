# tests/cli/test_ptb_quick.sh -- experiments/ptb/run.sh --quick: the whole
# issue-15 pipeline (train every model, evaluate through pipes, write the
# report and its figures) at toy scale on a generated corpus; the ranks it
# reports obey the heads' bounds; PLIF's exported f (params.tsv against the
# folder, sbw-plot monotone, the report's figure and slope range); a rerun
# redoes nothing; an evaluated model gets its f without a new evaluation,
# and without its checkpoint from the folder's own parameters (sbw-fit --map);
# a model whose results were deleted is finished from its checkpoint, not
# retrained; a failed or terminated evaluation step leaves no file of its
# own and no temporary; a snapshot whose sbw-lm eval fails after its rows
# were read fails the run and leaves no eval.done.  Everything runs from another
# folder with OUTQ relative to it and a space and a comma in its name.
. tests/cli/lib.sh
# Not under sanitizers (make asan; about two minutes of CI's twenty): the
# recipe is shell over the tools, and every tool path it takes runs under
# ASan in a suite of its own (train with snapshots and eval --export in
# test_lm, --gradneck in test_lm_gradneck, curves and order in
# test_ptb_report, fit --map in test_fit and test_plot, plot monotone in
# test_lm, rank --decay in test_rank_hidden); make check runs it.
if ldd "$BIN/sbw-info" 2>/dev/null | grep -q libasan; then
    echo "test_ptb_quick: skipped under sanitizers (make check runs it; its tools' paths run under ASan in their own suites)"
    finish
fi
ROOT=$(pwd)
BINA=$(cd "$BIN" && pwd)
Q="$T/ptb q,1"
run() { (cd "$T" && OUTQ="ptb q,1" QUIET=1 BIN="$BINA" sh "$ROOT/experiments/ptb/run.sh" --quick "$@"); }
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
expect_grep "^\| Softmax \| [0-9]+ epochs, adam \| 16 \| 18 \| 400 \| 17 \| 18 \| [0-9.]+ \| 18 \|$" "$Q/report.md" "Table 6's Softmax row"
expect_grep "^## Table 11" "$Q/report.md" "report has Table 11"
expect_grep "figures/figure1.png" "$Q/report.md" "report embeds Figure 1"
expect_eq "$(tsv_rows "$R/kld-at-ppl.tsv" | head -n 1)" "$(printf 'ppl\tsoftmax\tmoc\tmos-k3\tsigsoftmax\tplif\tmixtape')" \
    "KLD at equal perplexity: one column per curve"
expect_grep "^- \*\*(MoC|Softmax) (above|below)" "$Q/report.md" "report says MoC against Softmax at equal perplexity"
expect_grep "^## How far from convergence" "$Q/report.md" "report says how far from convergence"
# Table 7's figure: per K, the float64 rank is MODEL/rank.tsv's, and the
# float32 one (a larger threshold on the same spectrum) is no larger
# rk SERIES K: the rank rank-k.tsv gives that series at K
rk() {
    case $1 in float64) s='ours (float64)' ;; *) s="ours at float32's eps" ;; esac
    awk -F'\t' -v s="$s" -v k="$2" '$1 == s && $2 == k { print $3 }' "$R/rank-k.tsv"
}
for k in 2 3; do
    r64=$(rk float64 $k)
    r32=$(rk float32 $k)
    expect_eq "$r64" "$(tsv_field "$R/mos-k$k/rank.tsv" rank)" "rank-k.tsv: K=$k's float64 rank"
    if [ -n "$r32" ] && [ "$r32" -le "$r64" ]; then ok; else bad "rank-k.tsv: K=$k float32 rank '$r32' above float64's '$r64'"; fi
done
r2=$(rk float32 2)
r3=$(rk float32 3)
w=$([ "${r3:-0}" -gt "${r2:-0}" ] && echo rises || echo "does not rise steadily")
expect_grep "^At float64's eps .* At float32's eps \(K = 2: $r2 and K = 3: $r3\) the rank $w with K" "$Q/report.md" \
    "Table 7 in words: the float32 ranks and whether they rise"
n=$(grep -vc '^#' "$R/mos-k3/curve.tsv")
if [ "$n" -ge 3 ]; then ok; else bad "KLD curve has $n lines"; fi
# Mixtape (issue 31) is one of the quick models: its rows in Tables 6 and 11
rk_mix=$(tsv_field "$R/mixtape/rank.tsv" rank)
expect_grep "^\| Mixtape \| [0-9]+ epochs, adam \| 12 \| $rk_mix \| — \| $(tsv_field "$R/mixtape/rank-center.tsv" rank) \|" "$Q/report.md" \
    "Table 6's Mixtape row: its rank and d*"
expect_grep "^\| Mixtape \| [0-9]+ epochs, adam \| $(printf '%.3f' "$(tsv_field "$R/mixtape/kl-valid.tsv" expected_pairwise_kl)") \| — \|" \
    "$Q/report.md" "Table 11's Mixtape row: its KLD"
expect_grep "rank $rk_mix here, against\$" "$Q/report.md" "Table 6's words on Mixtape's rank"
# run.sh measure (issue 31): for every model trained here, gradneck.tsv (the
# first 300 test predictions, a row each) and decay.tsv on the rank step's
# matrix centred (its rank is rank-center.tsv's), with its spectrum
expect_exit 0 "measure" run measure
expect_eq "$(grep -c ': measuring$' "$T/out")" 7 "measure: every model measured"
for m in softmax moc mos-k2 mos-k3 sigsoftmax plif mixtape; do
    for f in gradneck.tsv decay.tsv spectrum-center.tsv rank-f32.tsv; do
        if [ -s "$R/$m/$f" ]; then ok; else bad "measure wrote no $m/$f"; fi
    done
    # the float32 forward pass's matrix is float32 and ranked at its eps;
    # the float32 noise (about 1e-7 relative) lies far below that threshold,
    # so its rank is the float64 matrix's at float32's eps within one
    expect_eq "$(tsv_field "$R/$m/rank-f32.tsv" dtype) $(tsv_field "$R/$m/rank-f32.tsv" m)" "float32 300" \
        "$m: rank-f32.tsv ranks the 300 rows as float32"
    r32=$(tsv_field "$R/$m/rank-f32.tsv" rank) rs=$(tsv_field "$R/$m/rank.tsv" rank_single)
    if [ -n "$r32" ] && [ $((r32 - rs)) -le 1 ] && [ $((rs - r32)) -le 1 ]; then ok; else
        bad "$m: float32 forward pass rank '$r32', the float64 matrix's at float32's eps $rs"
    fi
    expect_eq "$(tsv_meta "$R/$m/gradneck.tsv" gradneck_n) $(tsv_rows "$R/$m/gradneck.tsv" | sed 1d | wc -l | tr -d ' ')" \
        "300 300" "$m: gradneck.tsv summarises its 300 rows"
    expect_eq "$(tsv_field "$R/$m/decay.tsv" rank)" "$(tsv_field "$R/$m/rank-center.tsv" rank)" \
        "$m: decay.tsv's matrix has rank-center.tsv's rank"
    expect_eq "$(tsv_meta "$R/$m/decay.tsv" decay_lo):$(tsv_meta "$R/$m/decay.tsv" decay_hi)" \
        "1:$(tsv_field "$R/$m/rank-center.tsv" rank)" "$m: --decay auto fits 1..the centred rank"
    # alpha against a least-squares fit of ln sigma_i on ln i done here, on
    # spectrum-center.tsv (index is 0-based)
    lo=$(tsv_meta "$R/$m/decay.tsv" decay_lo)
    hi=$(tsv_meta "$R/$m/decay.tsv" decay_hi)
    a=$(tsv_rows "$R/$m/spectrum-center.tsv" | awk -F'\t' -v lo="$lo" -v hi="$hi" '
        NR > 1 && $1 + 1 >= lo && $1 + 1 <= hi { x = log($1 + 1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
        END { printf "%.17g", -(n * sxy - sx * sy) / (n * sxx - sx * sx) }')
    b=$(tsv_meta "$R/$m/decay.tsv" decay_alpha)
    if awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-12) }'; then ok; else
        bad "$m: decay_alpha $b, a fit of spectrum-center.tsv gives $a"
    fi
done
expect_eq "$(tsv_meta "$R/softmax/gradneck.tsv" gradneck_path)" "single_map (C1 W)" "Softmax's gradient bottleneck: one map"
expect_eq "$(tsv_meta "$R/mixtape/gradneck.tsv" gradneck_path)" jacobian "Mixtape's: each context's Jacobian"
expect_grep "^# pipeline=experiments/ptb/run.sh --quick measure mos-k3: sbw-lm eval --split test --tokens 300 " \
    "$R/mos-k3/decay.tsv" "decay.tsv says what fed sbw-rank"
expect_grep "^# pipeline=experiments/ptb/run.sh --quick measure mos-k3: sbw-lm eval --single --split test --tokens 300 " \
    "$R/mos-k3/rank-f32.tsv" "rank-f32.tsv says a float32 forward pass fed sbw-rank"
# Softmax's shares per row against sbw-gradneck on files: its head exported,
# the same 300 rows of log Q, the words of gradneck.tsv as targets
"$BIN/sbw-lm" eval --data "$Q/corpus" --ckpt "$Q/state/softmax" --tokens 1 --export "$T/smx" -q >/dev/null
"$BIN/sbw-lm" eval --data "$Q/corpus" --ckpt "$Q/state/softmax" --split test --tokens 300 --logprobs "$T/q300.npy" -q >/dev/null
expect_exit 0 "sbw-gradneck on the exported head" "$BIN/sbw-gradneck" "$T/smx/W.npy" "$T/q300.npy" \
    --targets "$R/softmax/gradneck.tsv" -o "$T/gn.tsv" -q
tsv_rows "$R/softmax/gradneck.tsv" | cut -f 2,3 >"$T/gn.ref"
tsv_rows "$T/gn.tsv" | cut -f 2,3 | paste - "$T/gn.ref" | awk -F'\t' 'NR > 1 { d = $2 - $4; if (d < 0) d = -d; if ($1 != $3 || d > 1e-9) bad++ } END { exit bad > 0 }' &&
    ok || bad "run.sh measure's softmax/gradneck.tsv differs from sbw-gradneck's shares"
# the report, after measure: the Parthiban heads ranked as a float32
# implementation ranks them, each row's ranks those of its files
expect_exit 0 "report after measure" run report
expect_grep "^### Ranked as a float32 implementation ranks them$" "$Q/report.md" "the float32 ranks' section"
expect_grep "^\| PLIF \| results/plif \| [0-9.]+ \| $(tsv_field "$R/plif/rank.tsv" rank) \| $(tsv_field "$R/plif/rank.tsv" rank_single) \| $(tsv_field "$R/plif/rank-f32.tsv" rank) \| [-+]?[0-9.]+ \| 496 \|$" \
    "$Q/report.md" "PLIF's row: its ranks, the float32 pass's, Parthiban's 496"
expect_grep "^- \`results/plif/rank-f32.tsv\`: experiments/ptb/run.sh --quick measure plif: sbw-lm eval --single " \
    "$Q/report.md" "the float32 rank cites its pipeline"
expect_grep "^So computing in float32 does not explain those differences" "$Q/report.md" "the verdict on float32 arithmetic"
# a rerun measures nothing; a model without a checkpoint here is named and skipped
cp "$R/mos-k3/decay.tsv" "$T/decay.ref"
expect_exit 0 "measure rerun" run measure
expect_eq "$(grep -c ': measured$' "$T/out")" 7 "measure rerun: every model already measured"
mv "$Q/state/sigsoftmax" "$T/sig-state"
expect_exit 0 "measure without a checkpoint" run measure sigsoftmax
expect_grep "^== sigsoftmax: not trained here: run.sh train sigsoftmax$" "$T/out" "a model without a checkpoint is named"
mv "$T/sig-state" "$Q/state/sigsoftmax"
# the checkpoint of another training than RES's results (mos-k2's under
# mos-k3's name) is refused before anything is written
rm "$R/mos-k3/decay.tsv" "$R/mos-k3/gradneck.tsv" "$R/mos-k3/spectrum-center.tsv" "$R/mos-k3/rank-f32.tsv"
mv "$Q/state/mos-k3" "$T/k3-state"
cp -r "$Q/state/mos-k2" "$Q/state/mos-k3"
expect_exit 1 "measure on another training's checkpoint" run measure mos-k3
expect_grep "mos-k3: the checkpoint in .* gives test perplexity .*: it is of another training" "$T/err" "the mismatch is named"
for f in decay.tsv gradneck.tsv spectrum-center.tsv rank-f32.tsv; do expect_absent "$R/mos-k3/$f" "a refused measure writes no $f"; done
rm -r "$Q/state/mos-k3"
mv "$T/k3-state" "$Q/state/mos-k3"
# a failing sbw-rank (decay) or sbw-lm --gradneck leaves neither its file
# nor the spectrum nor a temporary; a rerun makes the same decay.tsv
MB=$T/measurebin
mkdir "$MB"
for t in "$BINA"/sbw-*; do ln -s "$t" "$MB/"; done
rm "$MB/sbw-rank" "$MB/sbw-lm"
printf '#!/bin/sh\necho "sbw-rank: -: made to fail" >&2\nexit 1\n' >"$MB/sbw-rank"
cat >"$MB/sbw-lm" <<EOS
#!/bin/sh
case "\$*" in *--gradneck*) echo "sbw-lm: made to fail" >&2; exit 1 ;; esac
exec "$BINA/sbw-lm" "\$@"
EOS
chmod +x "$MB/sbw-rank" "$MB/sbw-lm"
runm() { (cd "$T" && OUTQ="ptb q,1" QUIET=1 BIN=measurebin sh "$ROOT/experiments/ptb/run.sh" --quick "$@"); }
mtemps() { find "$R/mos-k3" -name '*.tmp' -o -name '.measure-*' -o -name '.gradneck-*' | wc -l | tr -d ' '; }
expect_exit 1 "measure with a failing sbw-rank" runm measure mos-k3
expect_grep "sbw-rank: -: made to fail" "$T/err" "the failing sbw-rank is shown"
for f in decay.tsv spectrum-center.tsv gradneck.tsv; do expect_absent "$R/mos-k3/$f" "a failed decay step leaves no $f"; done
expect_eq "$(mtemps)" 0 "a failed decay step leaves no temporary"
rm "$MB/sbw-rank" && ln -s "$BINA/sbw-rank" "$MB/"
expect_exit 1 "measure with a failing sbw-lm --gradneck" runm measure mos-k3
expect_grep "sbw-lm: made to fail" "$T/err" "the failing sbw-lm is shown"
expect_absent "$R/mos-k3/gradneck.tsv" "a failed gradneck step leaves no gradneck.tsv"
expect_eq "$(mtemps)" 0 "a failed gradneck step leaves no temporary"
if [ -s "$R/mos-k3/decay.tsv" ]; then ok; else bad "the decay step before the failed one is not kept"; fi
# the float32 pass's sbw-lm failing after its rows (sbw-rank succeeds on
# them): no rank-f32.tsv, no temporary
cat >"$MB/sbw-lm" <<EOS
#!/bin/sh
case "\$*" in *--single*) "$BINA/sbw-lm" "\$@"; echo "sbw-lm: made to fail after its rows" >&2; exit 1 ;; esac
exec "$BINA/sbw-lm" "\$@"
EOS
expect_exit 1 "measure with a failing float32 pass" runm measure mos-k3
expect_grep "mos-k3: sbw-lm eval --split test failed" "$T/err" "the failing float32 pass is named"
expect_absent "$R/mos-k3/rank-f32.tsv" "a failed float32 pass leaves no rank-f32.tsv"
expect_eq "$(mtemps)" 0 "a failed float32 pass leaves no temporary"
expect_exit 0 "measure rerun after the failures" run measure mos-k3
if [ -s "$R/mos-k3/rank-f32.tsv" ]; then ok; else bad "the rerun wrote no rank-f32.tsv"; fi
expect_eq "$(tsv_meta "$R/mos-k3/decay.tsv" decay_alpha)" "$(tsv_meta "$T/decay.ref" decay_alpha)" "the rerun's decay is the first one's"
if [ -s "$R/mos-k3/gradneck.tsv" ]; then ok; else bad "the rerun wrote no gradneck.tsv"; fi
# experiments/newer/report.sh on these results, from another folder with
# relative paths; TRUNC the truncation table of experiments/newer/truncation.sh
# on the Softmax model's first 3 test outputs
env SBW_BIN="$BINA" sh experiments/newer/truncation.sh --ckpt "$Q/state/softmax" --data "$Q/corpus" --n 3 \
    -o "$T/trq" >/dev/null 2>&1 || bad "truncation.sh on the quick Softmax"
newer() { (cd "$T" && RES="ptb q,1/results" OUT="ptb q,1/newer" QUICK=1 BIN="$BINA" "$@" sh "$ROOT/experiments/newer/report.sh"); }
expect_exit 0 "the newer report" newer env TRUNC=trq/trunc.tsv
NR=$Q/newer/report.md
for f in decay truncation; do
    if [ -s "$Q/newer/figures/$f.png" ]; then ok; else bad "the newer report drew no $f.png"; fi
    expect_grep "figures/$f.png" "$NR" "the newer report embeds $f.png"
done
f3() { printf '%.3f' "$1"; }
expect_grep "^\| Mixtape K=2 \| 12 \| 2 \| .* \| $rk_mix \| $(tsv_field "$R/mixtape/train.tsv" rank_bound) \| $(tsv_field "$R/mixtape/rank-center.tsv" rank) \| $(f3 "$(tsv_field "$R/mixtape/kl-valid.tsv" expected_pairwise_kl)") \|" \
    "$NR" "newer: Mixtape's row beside Softmax and MoS"
expect_grep "^\| MoS K=3 \| 12 \| 3 \| " "$NR" "newer: MoS's row"
g=$R/softmax/gradneck.tsv
expect_grep "^\| Softmax \| single_map \(C1 W\) \| 300 \| $(f3 "$(tsv_meta "$g" gradneck_mean)") \| $(f3 "$(tsv_meta "$g" gradneck_sd)") \| $(f3 "$(tsv_meta "$g" gradneck_q05)") \|" \
    "$NR" "newer: Softmax's gradient-bottleneck row from gradneck.tsv"
expect_grep "^- \`ptb/softmax/gradneck.tsv\`: \`sbw-lm eval .*--gradneck -" "$NR" "newer: gradneck.tsv's command cited"
d=$R/plif/decay.tsv
expect_grep "^\| PLIF \| 200 \| 1 \| 200 \| 200 \| $(f3 "$(tsv_meta "$d" decay_alpha)") \| $(f3 "$(tsv_meta "$d" decay_alpha_se)") \|" \
    "$NR" "newer: PLIF's alpha +- se from decay.tsv"
# the figure's fitted line: its two ends lie on sbw-rank's fit (ln sigma =
# decay_log_c - alpha ln i), drawn in log10
for m in softmax mixtape; do
    d=$R/$m/decay.tsv
    tsv_rows "$Q/newer/figures/decay-$m-fit.tsv" | sed 1d | awk -F'\t' -v a="$(tsv_meta "$d" decay_alpha)" \
        -v c="$(tsv_meta "$d" decay_log_c)" '{ y = (c - a * log($1)) / log(10); e = y - $2; if (e < 0) e = -e; if (e > 1e-9) bad++; n++ }
        END { exit bad > 0 || n != 2 }' && ok || bad "$m: the drawn fit is not sbw-rank's line"
done
# hidden size: the first N giving D, as hidden.tsv has it
H=$ROOT/experiments/hidden/results/hidden.tsv
fn=$(tsv_rows "$H" | awk -F'\t' -v d="$(tsv_meta "$H" d)" '$1 == "softmax" && $6 == "bf16" && $7 == d { print $5; exit }')
expect_grep "^\| softmax \| softmax \| yes \| bf16 \| [0-9]* \| $fn \| " "$NR" "newer: softmax bf16's first N giving D"
expect_grep "^\| mos \| f64 \| -1 \(too.few.queries\) \|" "$NR" "newer: the by-N table"
expect_grep "$(tsv_meta "$T/trq/trunc.tsv" checked) \(context, token\) pairs checked" "$NR" "newer: the truncation table's counts"
expect_grep "^The outputs are the model's first 3 test predictions \(\`.*trq/eval.tsv\`: \`.*sbw-lm eval " "$NR" \
    "newer: the truncation's model and outputs named"
# MEASURED, a retrain's results folder: a model measured there is read and
# cited from there (measured/), its rank too
MS="$T/re train,2"
mkdir "$MS"
cp -r "$R/softmax" "$MS/softmax"
mv "$R/softmax/gradneck.tsv" "$T/sm-gn.tsv"
expect_exit 0 "the newer report with MEASURED" newer env MEASURED="re train,2"
expect_grep "^- \`measured/softmax/gradneck.tsv\`: \`sbw-lm eval .*--gradneck -" "$NR" "newer: MEASURED's gradneck.tsv cited"
expect_grep "^- \`measured/softmax/rank.tsv\`: " "$NR" "newer: MEASURED's rank.tsv beside it"
expect_grep "^\| Softmax \| single_map \(C1 W\) \| 300 \| $(f3 "$(tsv_meta "$MS/softmax/gradneck.tsv" gradneck_mean)") \|" "$NR" "newer: Softmax's row from MEASURED"
pv=$(printf '%.2f' "$(tsv_field "$MS/softmax/eval-valid.tsv" ppl)")
expect_grep "^- Softmax is measured on a retrain with the same recipe" "$NR" "newer: a retrain said to be one"
expect_grep "validation perplexity is $pv against $pv for the run" "$NR" "newer: both runs' perplexities"
mv "$T/sm-gn.tsv" "$R/softmax/gradneck.tsv"
# a model not trained (Mixtape's results moved away) is a line, not a number;
# ptb/report.sh's Table 6 says so too
mv "$R/mixtape" "$T/mixtape-res"
expect_exit 0 "the newer report without Mixtape" newer env
expect_grep "^- Mixtape \(mixtape\): not yet measured: not trained here \(\`experiments/ptb/run.sh --quick train mixtape\`" \
    "$NR" "newer: Mixtape not trained"
expect_grep "^\| Mixtape \| — \| — \|" "$NR" "newer: Mixtape's row is dashes"
expect_grep "^Not yet measured on a PTB model here" "$NR" "newer: no TRUNC, the commands instead"
expect_exit 0 "ptb report without Mixtape" run report
expect_grep "^Mixtape: not evaluated here yet" "$Q/report.md" "Table 6 says Mixtape is missing"
mv "$T/mixtape-res" "$R/mixtape"
expect_exit 0 "ptb report with Mixtape back" run report
# PLIF's learned f: sbw-lm eval --export's folder lists every .npy in it with
# the shape sbw-info reads, names the head and the --knots run.sh gave (20)
X=$Q/state/plif/export
expect_grep "^# model=plif$" "$X/params.tsv" "export's params.tsv names the head"
expect_eq "$(tsv_meta "$X/params.tsv" knots)" 20 "export's params.tsv: --knots as given"
expect_grep "^# command=sbw-lm eval .*--export" "$X/params.tsv" "export's params.tsv names sbw-lm's command"
n=0
for npy in "$X"/*.npy; do
    b=$(basename "$npy")
    "$BIN/sbw-info" "$npy" >"$T/info.tsv" 2>"$T/err" || bad "sbw-info $b failed: $(cat "$T/err")"
    got=$(awk -F'\t' -v f="$b" '!/^#/ && $2 == f { print $3 " x " $4 }' "$X/params.tsv")
    expect_eq "$got" "$(tsv_field "$T/info.tsv" rows) x $(tsv_field "$T/info.tsv" cols)" \
        "params.tsv lists $b with sbw-info's shape"
    n=$((n + 1))
done
expect_eq "$(tsv_rows "$X/params.tsv" | sed 1d | wc -l | tr -d ' ')" "$n" "params.tsv: one row per .npy, no more"
if [ "$n" -ge 4 ]; then ok; else bad "export holds $n .npy files (W, b, plif_slope_raw, plif_slope)"; fi
expect_exit 0 "sbw-plot monotone on the export" "$BIN/sbw-plot" monotone "$X" -q -o "$T/mono"
for e in gp png; do
    if [ -s "$T/mono.$e" ]; then ok; else bad "sbw-plot monotone wrote no mono.$e"; fi
done
# its small part is a result; the report draws it and states the slopes' range
expect_eq "$(tsv_meta "$R/plif/f/params.tsv" model)" plif "results/plif/f/params.tsv"
if cmp -s "$X/plif_slope.npy" "$R/plif/f/plif_slope.npy"; then ok; else bad "results/plif/f/plif_slope.npy differs from the export's"; fi
if cmp -s "$X/map.tsv" "$R/plif/f/map.tsv"; then ok; else bad "results/plif/f/map.tsv (what sbw-plot monotone draws) differs from the export's"; fi
for e in gp png; do
    if [ -s "$Q/figures/plif-f.$e" ]; then ok; else bad "no figure plif-f.$e"; fi
done
expect_grep "figures/plif-f.png" "$Q/report.md" "report embeds PLIF's f"
"$BIN/sbw-info" "$R/plif/f/plif_slope.npy" >"$T/info.tsv"
lo=$(tsv_field "$T/info.tsv" min)
hi=$(tsv_field "$T/info.tsv" max)
g3() { awk -v x="$1" 'BEGIN { printf "%.3g", x }' | sed 's/[.+]/\\&/g'; } # as a regex
expect_grep "slopes lie between $(g3 "$lo") and $(g3 "$hi") " "$Q/report.md" \
    "report: the slopes' min and max as sbw-info reads them"
expect_grep "^$(g3 "$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.17g", b / a }')") over the span, so f is not affine" \
    "$Q/report.md" "report: the factor max/min"
expect_grep "= \[-10, 10\]" "$Q/report.md" "report: the knot span from params.tsv"
# a rerun skips everything
expect_exit 0 "rerun" run
expect_eq "$(grep -c ': trained' "$T/out")" 7 "rerun: every model already trained"
expect_eq "$(grep -c ': evaluated' "$T/out")" 7 "rerun: every model already evaluated"
# a model evaluated before its f was exported gets it on a rerun, without
# evaluating again (as does a folder copied before exports had map.tsv); a
# failed export leaves no params.tsv and fails the run
rm "$R/plif/f/map.tsv" "$R/plif/f/plif_slope.npy"
rm "$X/plif_slope.npy" && mkdir "$X/plif_slope.npy"
expect_exit 1 "a failing export" run eval plif
expect_grep "plif: exporting the learned f failed" "$T/err" "the failure is named"
expect_absent "$R/plif/f/params.tsv" "a failed export leaves no params.tsv"
rmdir "$X/plif_slope.npy"
expect_exit 0 "rerun of an evaluated plif" run eval plif
expect_grep "plif: evaluated" "$T/out" "plif not evaluated again"
expect_grep "plif: learned f exported" "$T/out" "the learned f exported on the rerun"
if cmp -s "$X/plif_slope.npy" "$R/plif/f/plif_slope.npy"; then ok; else bad "re-exported slopes differ"; fi
if cmp -s "$X/map.tsv" "$R/plif/f/map.tsv"; then ok; else bad "re-exported map.tsv differs"; fi
# such a folder whose checkpoint is gone (the committed results on another
# machine) gets map.tsv from its own params.tsv and slopes (sbw-fit --map):
# the export's bytes but the command line; a bad slope fails the run naming
# the file and writes no map.tsv
mv "$Q/state/plif" "$T/plif-state"
rm "$R/plif/f/map.tsv"
expect_exit 0 "rerun of plif without its checkpoint" run eval plif
expect_grep "plif: learned f's map.tsv written again from .*no checkpoint" "$T/out" "map.tsv from the folder's own params"
grep -v '^# command=' "$T/plif-state/export/map.tsv" >"$T/want"
grep -v '^# command=' "$R/plif/f/map.tsv" >"$T/got"
if cmp -s "$T/want" "$T/got"; then ok; else bad "map.tsv from the folder differs from the export's"; fi
expect_grep "^# command=.*sbw-fit --map .*/plif/f -q$" "$R/plif/f/map.tsv" "map.tsv names sbw-fit --map"
cp "$R/plif/f/plif_slope.npy" "$T/slopes.npy"
printf '\000\000\000\000\000\000\000\000' | dd of="$R/plif/f/plif_slope.npy" bs=1 seek=128 conv=notrunc status=none
rm "$R/plif/f/map.tsv"
expect_exit 1 "a bad slope without a checkpoint" run eval plif
expect_grep "plif_slope.npy: entry 0 is 0" "$T/err" "the bad slope named"
expect_grep "plif: writing map.tsv from .* failed" "$T/err" "the failed step named"
expect_absent "$R/plif/f/map.tsv" "no map.tsv from a bad slope"
mv "$T/slopes.npy" "$R/plif/f/plif_slope.npy"
mv "$T/plif-state" "$Q/state/plif"
expect_exit 0 "rerun with the checkpoint back" run eval plif
if cmp -s "$X/map.tsv" "$R/plif/f/map.tsv"; then ok; else bad "map.tsv re-exported from the checkpoint differs"; fi
# a deleted result is finished from the checkpoint (no new training steps)
steps=$(tsv_field "$R/plif/train.tsv" steps)
rm "$R/plif/train.tsv" "$R/plif/eval.done"
expect_exit 0 "rerun after deleting plif's results" run train plif
expect_grep "plif: training \(resuming\)" "$T/out" "plif resumed from its checkpoint"
expect_eq "$(tsv_field "$R/plif/train.tsv" steps)" "$steps" "no step redone"
# a failed or terminated evaluation step leaves no result of its own and no
# temporary, keeps the steps before it, and a rerun finishes the rest;
# tools made to fail stand in for sbw-rank and sbw-kl (the rest of $BIN is linked)
r0=$(tsv_field "$R/softmax/rank.tsv" rank)
FB=$T/fakebin
mkdir "$FB"
for t in "$BINA"/sbw-*; do ln -s "$t" "$FB/"; done
runf() { (cd "$T" && OUTQ="ptb q,1" QUIET=1 BIN=fakebin sh "$ROOT/experiments/ptb/run.sh" --quick "$@"); }
temporaries() { find "$R/softmax" -name '*.tmp' -o -name '.curve-*' -o -name '.traj-*' | wc -l; }
(cd "$R/softmax" && rm eval.done rank.tsv eval-rank-rows.tsv kl-valid.tsv kl-test.tsv)
rm "$FB/sbw-rank"
printf '#!/bin/sh\necho "sbw-rank: -: made to fail" >&2\nexit 1\n' >"$FB/sbw-rank"
chmod +x "$FB/sbw-rank"
expect_exit 1 "an evaluation whose sbw-rank fails" runf eval softmax
expect_grep "sbw-rank: -: made to fail" "$T/err" "the failing tool's message is shown"
for f in rank.tsv eval-rank-rows.tsv eval.done; do
    expect_absent "$R/softmax/$f" "a failed rank step leaves no $f"
done
expect_eq "$(temporaries)" 0 "a failed rank step leaves no temporary"
rm "$FB/sbw-rank" && ln -s "$BINA/sbw-rank" "$FB/"
rm "$FB/sbw-kl"
# the fake sbw-kl terminates run.sh itself: its outermost ancestor running
# run.sh (a pipe's subshell between them shows the same command line); it
# then stays, so the step is still running when run.sh stops it and its
# background subshell ends by the signal, before it could remove its own
# temporaries (.eval-table.tmp was left so)
cat >"$FB/sbw-kl" <<'EOF'
#!/bin/sh
p=$PPID top=""
while [ "${p:-1}" -gt 1 ]; do
    case $(ps -o args= -p "$p") in *experiments/ptb/run.sh*) top=$p ;; esac
    p=$(ps -o ppid= -p "$p" | tr -d ' ')
done
[ -z "$top" ] || kill -TERM "$top"
sleep 30
exit 1
EOF
chmod +x "$FB/sbw-kl"
expect_exit 143 "an evaluation terminated in its KL step" runf eval softmax
expect_grep "run.sh: terminated" "$T/err" "the termination is named"
expect_eq "$(tsv_field "$R/softmax/rank.tsv" rank)" "$r0" "the rank step before it is kept"
expect_absent "$R/softmax/kl-valid.tsv" "a terminated KL step leaves no kl-valid.tsv"
expect_eq "$(temporaries)" 0 "a terminated step leaves no temporary"
expect_exit 0 "the rerun after them" run eval softmax
for f in eval.done kl-valid.tsv kl-test.tsv; do
    if [ -s "$R/softmax/$f" ]; then ok; else bad "the rerun did not write softmax's $f"; fi
done
# a snapshot of the KLD curve whose sbw-lm eval fails after writing every
# row (the consumer, sbw-kl, succeeds): the run fails, no eval.done, and a
# rerun with the real tools finishes the curve
rm "$FB/sbw-kl" "$FB/sbw-lm" && ln -s "$BINA/sbw-kl" "$FB/"
cat >"$FB/sbw-lm" <<EOF
#!/bin/sh
"$BINA/sbw-lm" "\$@" || exit \$?
case "\$*" in *snap-*) echo "sbw-lm: made to fail after its rows" >&2; exit 1 ;; esac
EOF
chmod +x "$FB/sbw-lm"
nc0=$(grep -vc '^#' "$R/softmax/curve.tsv")
rm "$R/softmax/curve.tsv" "$R/softmax/eval.done"
expect_exit 1 "a curve snapshot whose sbw-lm eval fails" runf eval softmax
expect_grep "softmax: sbw-lm eval --split valid failed" "$T/err" "the failing producer is named"
expect_absent "$R/softmax/eval.done" "a failed curve snapshot leaves no eval.done"
expect_eq "$(temporaries)" 0 "a failed curve snapshot leaves no temporary"
expect_exit 0 "the rerun finishes the curve" run eval softmax
expect_eq "$(grep -vc '^#' "$R/softmax/curve.tsv")" "$nc0" "the rerun: every snapshot in the curve"
if [ -s "$R/softmax/eval.done" ]; then ok; else bad "the rerun wrote no eval.done"; fi
# issue 28's per-snapshot trajectory: one row per snapshot, Softmax D=16
# with a bias at its bound (rank D+2, d* D+1) at every snapshot, the
# float32 rank never above the float64 one, the KL positive; a rerun
# measures nothing again; a failing measurement adds no row and fails
expect_exit 0 "traj" run traj softmax mos-k3
TJ=$R/softmax/traj.tsv
expect_eq "$(grep -vc '^#' "$TJ")" "$(($(ls -d "$Q"/state/softmax/snap-* | wc -l) + 1))" "traj: a row per snapshot"
expect_eq "$(awk -F'\t' '!/^#/ && NR > 2 && ($5 != 18 || $7 != 17 || $6 > $5 || !($8 > 0) || $4 != 300)' "$TJ" | wc -l)" 0 \
    "traj: Softmax rank 18, d* 17, float32 rank <= float64 rank, KL > 0, 300 rows"
expect_grep "^# command=experiments/ptb/run.sh --quick traj softmax" "$TJ" "traj.tsv names its command"
expect_exit 0 "traj rerun" run traj softmax
expect_eq "$(grep -c 'measuring' "$T/out")" 0 "traj rerun: nothing measured again"
for t in sbw-lm sbw-rank; do rm -f "$FB/$t" && ln -s "$BINA/$t" "$FB/"; done
rm -f "$FB/sbw-kl" && printf '#!/bin/sh\necho "sbw-kl: -: made to fail" >&2\nexit 1\n' >"$FB/sbw-kl" && chmod +x "$FB/sbw-kl"
nt=$(grep -vc '^#' "$TJ")
sed -i '$d' "$TJ"
expect_exit 1 "traj with a failing sbw-kl" runf traj softmax
expect_eq "$(grep -vc '^#' "$TJ")" "$((nt - 1))" "traj: a failed measurement adds no row"
expect_eq "$(temporaries)" 0 "traj: a failed measurement leaves no temporary"
# the long runs' report along training (report_long.sh) from those
# trajectories, in a results folder whose name has a space and a comma
expect_exit 0 "traj again" run traj softmax
expect_exit 0 "report_long" env RES="$R" QUICK=1 BIN="$BINA" FIT_LAST=3 sh "$ROOT/experiments/ptb/report_long.sh"
LR=$R/report.md
expect_grep "^\| softmax \| — \| 16 \| single \| [0-9]+ \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| 18 \| 18 \| 17 \| finished \(epochs\) \|$" "$LR" \
    "report_long: softmax's progress row, rank 18 / 18, d* 17, finished"
expect_grep "^- epoch 1: " "$LR" "report_long: Table 11's order at a common epoch"
expect_grep "^\| softmax \| 3 \| " "$LR" "report_long: softmax's extrapolation over its last 3 epochs"
expect_eq "$(awk -F'\t' '$1 == "softmax" && $9 == 61.49' "$R/extrapolation.tsv" | wc -l)" 1 \
    "report_long: extrapolated to the paper's Table 5 perplexity of Softmax"
expect_grep "^### mos-k3$" "$LR" "report_long: mos-k3's trajectory"
if [ -s "$R/figures/traj-epoch.png" ] && [ -s "$R/figures/traj-ppl.png" ]; then ok; else bad "report_long drew no trajectory figure"; fi
# the tables report.sh reads: each run's state, Table 11's order as a
# table, Table 7's K at an epoch (KEPOCH=2: mos-k3's own epoch-2 row)
expect_eq "$(tsv_rows "$R/status.tsv" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    $1 == "softmax" { print $h["epoch"] "/" $h["rank"] "/" $h["state"] }')" \
    "$(tsv_rows "$TJ" | tail -n 1 | cut -f 1)/18/finished (epochs)" "status.tsv: softmax's last epoch, rank 18, finished"
case $(tsv_meta "$R/order-at-ppl.tsv" chain) in holds | broken | incomplete) ok ;; *) bad "order-at-ppl.tsv has no chain" ;; esac
expect_eq "$(tsv_rows "$R/order-at-ppl.tsv" | tail -n +2 | cut -f 1,2 | tr '\t\n' ': ')" "mos-k3:moc moc:softmax mos-k3:softmax " \
    "order-at-ppl.tsv: Table 11's three pairs, MoS's against MoC first"
expect_exit 0 "report_long at KEPOCH 2" env RES="$R" QUICK=1 BIN="$BINA" FIT_LAST=3 KEPOCH=2 sh "$ROOT/experiments/ptb/report_long.sh"
expect_eq "$(tsv_rows "$R/k-at-epoch.tsv" | tail -n +2 | cut -f 1-3)" \
    "$(printf 'mos-k3\t3\t')$(tsv_rows "$R/mos-k3/traj.tsv" | awk -F'\t' '$1 == 2 { x = $5 } END { print x }')" \
    "k-at-epoch.tsv: mos-k3's (last) epoch-2 rank"
# report.sh with these as the long runs: their section and the three verdicts
expect_exit 0 "report.sh with LONG" env RES="$R" LONG="$R" QUICK=1 BIN="$BINA" KEPOCH=2 sh "$ROOT/experiments/ptb/report.sh"
expect_grep "^## Along training: issue 28's long runs$" "$Q/report.md" "the long runs' section"
expect_grep "title 'softmax-long'" "$Q/figures/figure1.gp" "Figure 1 draws a finished long run's spectrum beside the 2-epoch one"
expect_eq "$(find "$R" -type l | wc -l)" 0 "Figure 1's links stay in the report's temporary folder"
expect_eq "$(grep -Ec '^- \*\*Table (6|7|11) \([^)]*\): (reproduced|not reproduced|undecided)' "$Q/report.md")" 3 "a verdict on each claim"
# a started run whose checkpoints are gone (a new machine): train keeps
# its log and trajectory in MODEL/lost-*/, says so, restarts it from
# scratch without mixing rows, and report_long names the restart
rm "$R/mos-k3/train.tsv"
rm -r "$Q/state/mos-k3"
expect_exit 0 "train after the checkpoints were lost" run train mos-k3
expect_grep "mos-k3: no checkpoint in .* its log and trajectory are kept in .*/lost-" "$T/out" "the restart is said"
L=$(ls -d "$R"/mos-k3/lost-* 2>/dev/null | head -n 1)
if [ -n "$L" ] && [ -s "$L/traj.tsv" ] && [ "$(grep -vc '^#' "$L/log.tsv")" -gt 1 ]; then ok; else bad "the lost run's log and trajectory are not kept"; fi
expect_absent "$R/mos-k3/traj.tsv" "the restarted run's trajectory starts empty"
expect_eq "$(tsv_field "$R/mos-k3/train.tsv" epochs)" 3 "the restart trained from scratch to the end"
expect_exit 0 "report_long after the restart" env RES="$R" QUICK=1 BIN="$BINA" FIT_LAST=3 sh "$ROOT/experiments/ptb/report_long.sh"
expect_grep "^- mos-k3 restarted from scratch .* reached [0-9]+ tokens \([0-9]+ epochs measured\)\. Its log and trajectory are kept in \`results/mos-k3/lost-" \
    "$LR" "report_long names the restart and where the lost run is kept"
# a restart in the same precision is not compared; one in another
# precision is, at every epoch both measured.  Here the restart is the
# same deterministic training (the lost log is relabelled double), so a
# row paired with the wrong epoch would show as a change, and none may
expect_exit 0 "traj of the restarted run" run traj mos-k3
expect_exit 0 "report_long, restart in the same precision" env RES="$R" QUICK=1 BIN="$BINA" FIT_LAST=3 sh "$ROOT/experiments/ptb/report_long.sh"
expect_absent "$R/precision-vs-lost.tsv" "no precision comparison for a restart in the same precision"
sed -i '1a # precision=double' "$L/log.tsv"
expect_exit 0 "report_long, restart in another precision" env RES="$R" QUICK=1 BIN="$BINA" FIT_LAST=3 sh "$ROOT/experiments/ptb/report_long.sh"
PV=$R/precision-vs-lost.tsv
expect_eq "$(grep -vc '^#' "$PV" 2>/dev/null)" "$(($(grep -vc '^#' "$L/traj.tsv") ))" "a comparison row per epoch both measured (and the header)"
expect_eq "$(awk -F'\t' '!/^#/ && NR > 2 && ($1 != "mos-k3" || $3 != "double" || $4 != "single" || $5 != $6 || $7 != 0 || $14 != 0)' "$PV" | wc -l)" 0 \
    "the same training compared epoch by epoch: equal perplexities and KLDs, change 0"
expect_grep "^## The restarted runs against their lost runs" "$LR" "report_long compares the restart with its lost run"
expect_exit 2 "unknown step" run fly
expect_exit 2 "unknown model" run train gpt
expect_exit 2 "unknown model (eval)" run eval gpt
finish
