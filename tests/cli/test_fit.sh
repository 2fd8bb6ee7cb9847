#!/bin/sh
# CLI checks of sbw-fit: outputs and their shapes, header and JSON keys,
# a softmax log Q of rank D+1, usage errors (exit 2), bad data (exit 1,
# nothing written), a diverging fit (exit 1 naming the step, no bad
# checkpoint), --dry-run, --lr auto in the header and the log's header,
# SIGTERM or SIGINT + --resume equal to an uninterrupted run byte for byte,
# and --resume refusing options that contradict the checkpoint; --map DIR
# writing a saved folder's map.tsv again, as --save wrote it but the
# command line, and refusing a bad folder or other options.
. tests/cli/lib.sh

FIT=$BIN/sbw-fit
"$BIN/sbw-synth" lowrank --n 300 --m 40 --rank 3 --seed 3 -o "$T/P.npy" >/dev/null 2>&1 ||
    bad "sbw-synth lowrank failed"

# ---- help and version ----------------------------------------------------------
expect_exit 0 "--help" "$FIT" --help
expect_grep "kl_mean" "$T/out" "--help names the output columns"
expect_grep "mos\+plif" "$T/out" "--help lists the heads"
expect_grep "--decay G +multiplicative learning-rate decay \(not weight decay\): step t uses" \
    "$T/out" "--help: --decay is a multiplicative lr decay"
expect_exit 0 "--version" "$FIT" --version

# ---- a fit and its outputs ---------------------------------------------------------
expect_exit 0 "fit" "$FIT" "$T/P.npy" --model mos --k 2 --d 3 --steps 30 --bias \
    -o "$T/Q.npy" --log "$T/train.tsv" --save "$T/params" -q
expect_grep "^# model=mos$" "$T/out" "header: model"
expect_grep "^# rank_bound=none$" "$T/out" "header: a MoS of K = 2 has no rank bound"
expect_grep "^# convergence=30 steps$" "$T/out" "header: convergence criterion"
expect_grep "^# lr_mode=fixed$" "$T/out" "header: lr mode"
expect_eq "$(tsv_field "$T/out" steps)" 30 "steps done"
expect_eq "$(tsv_field "$T/out" stop)" steps "stop reason"
"$BIN/sbw-info" "$T/Q.npy" >"$T/info" 2>/dev/null
expect_eq "$(tsv_field "$T/info" rows)" 300 "log Q rows"
expect_eq "$(tsv_field "$T/info" cols)" 40 "log Q cols"
expect_eq "$(tsv_field "$T/info" dtype)" float64 "log Q is float64"
expect_eq "$(tsv_field "$T/info" kind)" log-probabilities "log Q rows are normalised"
expect_grep "^step	epoch	loss	kl_mean	mode_match	lr	seconds$" "$T/train.tsv" "log columns"
expect_grep "^30	" "$T/train.tsv" "log has the final step"
expect_grep "^# lr=0.01$" "$T/train.tsv" "log header: lr"
for f in H W b U V params.tsv; do
    case $f in *.tsv) p=$T/params/$f ;; *) p=$T/params/$f.npy ;; esac
    if [ -f "$p" ]; then ok; else bad "--save wrote no $p"; fi
done
expect_eq "$(tsv_field "$T/params/params.tsv" rows 1)" 300 "params.tsv: H rows"
expect_absent "$T/Q.npy.ckpt" "the default checkpoint is removed after success"

# a single-precision softmax fit's log Q is recomputed in float64: rank D+1
expect_exit 0 "softmax fit" "$FIT" "$T/P.npy" --d 2 --steps 30 -o "$T/Qsoft.npy" -q
"$BIN/sbw-rank" "$T/Qsoft.npy" >"$T/rank" 2>/dev/null || bad "sbw-rank of the fitted log Q failed"
expect_eq "$(tsv_field "$T/rank" rank)" 3 "softmax --d 2: log Q has rank D+1 = 3"
expect_eq "$(tsv_meta "$T/out" rank_bound)" "$(tsv_field "$T/rank" rank)" \
    "softmax --d 2: # rank_bound= is the rank sbw-rank measures"

# --init DIR: the saved parameters reproduce the fit's log Q exactly
expect_exit 0 "--init" "$FIT" "$T/P.npy" --model mos --k 2 --d 3 --bias --init "$T/params" \
    --steps 0 -o "$T/Q0.npy" -q
if cmp -s "$T/Q.npy" "$T/Q0.npy"; then ok; else bad "--init from --save: log Q differs"; fi
expect_exit 1 "--init with another head" "$FIT" "$T/P.npy" --model mos --k 3 --d 3 --bias \
    --init "$T/params" --steps 0 -q
expect_exit 1 "--init from a missing directory" "$FIT" "$T/P.npy" --init "$T/none" --steps 0 -q

# ---- --map DIR: map.tsv written again from a saved folder --------------------------------------
# a plif and an lms --linear head saved, then their map.tsv and raw blocks removed (as a folder
# saved before map.tsv existed): --map writes the same bytes but the command line, and reads
# nothing but params.tsv and the positive values
for h in "plif --k 7 --plif-t 2" "lms --k 3 --linear"; do
    name=${h%% *}
    # shellcheck disable=SC2086
    expect_exit 0 "$name fit --save" "$FIT" "$T/P.npy" --model $h --d 3 --steps 20 --save "$T/$name" -q
    cp "$T/$name/map.tsv" "$T/$name.map0"
    cp "$T/$name/params.tsv" "$T/$name.params0"
    rm -f "$T/$name/map.tsv" "$T/$name/W.npy" "$T/$name/H.npy" "$T/$name"/*_raw.npy
    expect_exit 0 "--map $name" "$FIT" --map "$T/$name"
    expect_lines 0 "$T/out" "--map $name prints nothing on stdout"
    grep -v '^# command=' "$T/$name.map0" >"$T/want"
    grep -v '^# command=' "$T/$name/map.tsv" >"$T/got"
    if cmp -s "$T/want" "$T/got"; then ok; else bad "--map $name: map.tsv differs from --save's"; fi
    expect_grep "^# command=.*sbw-fit --map $T/$name$" "$T/$name/map.tsv" "--map $name: its command line"
    if cmp -s "$T/$name.params0" "$T/$name/params.tsv"; then ok; else bad "--map $name changed params.tsv"; fi
done
expect_exit 2 "--map with LOGP.npy" "$FIT" --map "$T/plif" "$T/P.npy"
expect_grep "unexpected argument .*--map DIR only writes DIR/map.tsv" "$T/err" "--map with LOGP.npy: why"
expect_exit 2 "--map with a fit option" "$FIT" --map "$T/plif" --steps 3
expect_grep "^sbw-fit: --steps does not apply to --map" "$T/err" "--map with --steps: names it"
expect_exit 2 "neither LOGP.npy nor --map" "$FIT" -q
expect_grep "missing argument: LOGP.npy \(or --map DIR alone\)" "$T/err" "no input: names both forms"
expect_exit 1 "--map on a head without a learned map" "$FIT" --map "$T/params"
expect_grep "params.tsv: a mos head has no learned monotone map" "$T/err" "--map on mos: why"
expect_absent "$T/params/map.tsv" "--map on mos writes nothing"
printf '\000\000\000\000\000\000\000\000' | dd of="$T/plif/plif_slope.npy" bs=1 seek=128 conv=notrunc status=none
rm -f "$T/plif/map.tsv"
expect_exit 1 "--map with a slope of 0" "$FIT" --map "$T/plif"
expect_grep "plif_slope.npy: entry 0 is 0, but PLIF slopes" "$T/err" "--map: the bad slope named"
expect_absent "$T/plif/map.tsv" "a failed --map writes no map.tsv"

# -o -: log Q on stdout, the table on stderr; P* from stdin
"$FIT" - --d 3 --steps 5 -q -o - <"$T/P.npy" >"$T/Qs.npy" 2>"$T/tab" || bad "stdin/stdout fit"
"$BIN/sbw-info" "$T/Qs.npy" >"$T/info" 2>/dev/null
expect_eq "$(tsv_field "$T/info" rows)" 300 "-o -: a clean .npy on stdout"
expect_grep "^model	d	k	steps" "$T/tab" "-o -: the table on stderr"

expect_exit 0 "--json" "$FIT" "$T/P.npy" --d 3 --steps 5 --json -q
expect_grep '"kl_mean": ' "$T/out" "JSON kl_mean"
expect_grep '"mode_match": ' "$T/out" "JSON mode_match"

# every head runs
for m in softmax sigsoftmax moc mos lms plif mos+plif; do
    kopt="--k 3" # softmax and sigsoftmax have no K: sbw-fit refuses --k (test_bad_input.sh)
    case $m in softmax | sigsoftmax) kopt="" ;; esac
    # shellcheck disable=SC2086
    expect_exit 0 "model $m" "$FIT" "$T/P.npy" --model "$m" $kopt --d 2 --steps 3 -q
done
expect_exit 0 "lms --linear" "$FIT" "$T/P.npy" --model lms --k 2 --linear --d 2 --steps 3 -q
expect_exit 0 "lbfgs double" "$FIT" "$T/P.npy" --optimizer lbfgs --precision double --d 3 \
    --steps 5 -q
expect_exit 0 "minibatch" "$FIT" "$T/P.npy" --batch 64 --d 3 --steps 10 -q
expect_grep "^# batch=64$" "$T/out" "header: batch"

expect_exit 0 "--lr auto" "$FIT" "$T/P.npy" --d 3 --steps 5 --lr auto --log "$T/auto.tsv" -q
expect_grep "^# lr_mode=auto$" "$T/out" "header: lr_mode=auto"
expect_grep "^# lr_auto_grid=0.001,0.003,0.01,0.03,0.1,0.3$" "$T/out" "header: lr grid"
expect_grep "^# lr_auto_kl=(([0-9.e+-]+|inf),){5}([0-9.e+-]+|inf)$" "$T/out" "header: KL of each grid point"
expect_grep "^# lr_mode=auto$" "$T/auto.tsv" "log header: lr_mode=auto"
expect_grep "^# lr_auto_grid=0.001,0.003,0.01,0.03,0.1,0.3$" "$T/auto.tsv" "log header: lr grid"
expect_eq "$(grep '^# lr_auto_kl=' "$T/auto.tsv")" "$(grep '^# lr_auto_kl=' "$T/out")" \
    "log header: the same KL of each grid point"
expect_eq "$(grep '^# lr=' "$T/auto.tsv")" "$(grep '^# lr=' "$T/out")" "log header: the chosen lr"

expect_exit 0 "--dry-run" "$FIT" "$T/P.npy" --model mos --k 4 --d 3 --dry-run -o "$T/dry.npy"
expect_grep "^total	" "$T/out" "dry run: total"
expect_grep "^P\* \(float32\)	55200	" "$T/out" "dry run: P* in float32 is 4NM + 24N bytes"
expect_absent "$T/dry.npy" "dry run writes no output"

# ---- usage errors: exit 2 ------------------------------------------------------------
expect_exit 2 "unknown model" "$FIT" "$T/P.npy" --model softmaxx -o "$T/x.npy"
expect_grep "unknown model 'softmaxx'" "$T/err" "names the unknown model"
expect_exit 2 "D < 1" "$FIT" "$T/P.npy" --d 0 -o "$T/x.npy"
expect_exit 2 "K < 1" "$FIT" "$T/P.npy" --model mos --k 0 -o "$T/x.npy"
expect_exit 2 "D > M" "$FIT" "$T/P.npy" --d 41 -o "$T/x.npy"
expect_grep "exceeds the vocabulary size M = 40" "$T/err" "D > M message"
expect_exit 2 "bad --lr" "$FIT" "$T/P.npy" --lr fast
expect_exit 2 "bad optimizer" "$FIT" "$T/P.npy" --optimizer sgd
expect_exit 2 "bad precision" "$FIT" "$T/P.npy" --precision half
expect_exit 2 "lr auto with lbfgs" "$FIT" "$T/P.npy" --optimizer lbfgs --lr auto
expect_exit 2 "batch with lbfgs" "$FIT" "$T/P.npy" --optimizer lbfgs --batch 10
expect_exit 2 "--linear on mos" "$FIT" "$T/P.npy" --model mos --linear
expect_exit 2 "no input" "$FIT" --d 3
expect_absent "$T/x.npy" "usage errors write nothing"

# ---- bad data: exit 1, nothing written ------------------------------------------------
expect_exit 1 "NaN in P*" "$FIT" "$FIX/fit_nan.npy" --d 2 -o "$T/x.npy"
expect_grep "fit_nan.npy: row 1, column 3 \(0-based\) is NaN" "$T/err" "names the first non-finite entry"
expect_exit 1 "+inf in P*" "$FIT" "$FIX/fit_posinf.npy" --d 2 -o "$T/x.npy"
expect_grep "row 1, column 3 \(0-based\) is \+inf" "$T/err" "names the +inf entry"
expect_exit 1 "-inf in P*" "$FIT" "$FIX/logp_zero.npy" --d 2 -o "$T/x.npy"
expect_grep "column 2 \(0-based\) is -inf" "$T/err" "names the -inf entry"
expect_exit 1 "probabilities, not log" "$FIT" "$FIX/probs.npy" --d 2 -o "$T/x.npy"
expect_grep "looks like probabilities" "$T/err" "says the rows are probabilities"
expect_exit 1 "unnormalised" "$FIT" "$FIX/f8_c.npy" --d 2 -o "$T/x.npy"
expect_grep "row 0 \(0-based\) is not normalised" "$T/err" "names the unnormalised row"
expect_exit 1 "missing file" "$FIT" "$T/nope.npy" --d 2 -o "$T/x.npy"
expect_absent "$T/x.npy" "bad data writes nothing"
expect_absent "$T/x.npy.ckpt" "bad data leaves no checkpoint"

# a diverging fit: from fit_diverge's parameters (finite; W ~ 1e36, H = 0)
# one Adam step of --lr 1e4 overflows the float32 logits while every
# parameter stays finite.  Exit 1 naming the step; the checkpoint due after
# that step is not written, since its loss is not finite.
DIV=$FIX/fit_diverge
expect_exit 1 "diverging fit" "$FIT" "$DIV/P.npy" --d 2 --init "$DIV" --lr 1e4 --steps 10 \
    --checkpoint "$T/divck" --checkpoint-every 1e-9 -o "$T/div.npy" --log "$T/div.tsv"
expect_grep "the loss became -?(nan|inf) at step 1 .*no checkpoint was written" "$T/err" \
    "divergence: names the step"
expect_absent "$T/divck" "divergence: no checkpoint of the diverged parameters"
expect_absent "$T/div.npy" "divergence: no log Q"
expect_grep "^0	0	1.609" "$T/div.tsv" "divergence: the log keeps the finite step 0"
expect_exit 0 "the same fit in float64 stays finite" "$FIT" "$DIV/P.npy" --d 2 --init "$DIV" \
    --lr 1e4 --steps 10 --precision double -q

# ---- SIGTERM or SIGINT, then --resume: the same bytes as an uninterrupted run -------------
# run_killed SIG DIR ERR ARGS...: sbw-fit ARGS in the background with
# checkpoints every 0.05 s into DIR (stderr to ERR); SIG once the first
# checkpoint exists; its exit status in rc.
run_killed() {
    sig=$1 ck=$2 errf=$3
    shift 3
    "$FIT" "$@" --checkpoint "$ck" --checkpoint-every 0.05 >/dev/null 2>"$errf" &
    signal_when "$sig" $! test -f "$ck/checkpoint.tsv"
}

"$BIN/sbw-synth" dirichlet --n 500 --m 120 --alpha 0.3 --seed 4 -o "$T/D.npy" >/dev/null 2>&1
ARGS="--model lms --k 3 --d 4 --steps 3000 --batch 100 --lr 0.01 --threads 2 -q"
# shellcheck disable=SC2086
"$FIT" "$T/D.npy" $ARGS -o "$T/Qref.npy" --log "$T/ref.tsv" >/dev/null 2>&1 ||
    bad "uninterrupted reference fit failed"
# shellcheck disable=SC2086
run_killed TERM "$T/ck" "$T/kill.err" "$T/D.npy" $ARGS -o "$T/Qk.npy"
expect_eq "$rc" 130 "SIGTERM: exit 130 after writing a checkpoint"
expect_grep "interrupted at step [0-9]+; checkpoint written to" "$T/kill.err" "SIGTERM message"
expect_absent "$T/Qk.npy" "an interrupted fit writes no log Q"
step=$(sed -n 's/^step=//p' "$T/ck/checkpoint.tsv")
if [ -n "$step" ] && [ "$step" -gt 0 ] && [ "$step" -lt 3000 ]; then ok; else
    bad "checkpoint step '$step' not inside the run"
fi
expect_exit 0 "--resume" "$FIT" "$T/D.npy" --resume "$T/ck" --steps 3000 --threads 2 -q \
    -o "$T/Qk.npy" --log "$T/res.tsv"
if cmp -s "$T/Qref.npy" "$T/Qk.npy"; then ok; else bad "resumed log Q differs from uninterrupted"; fi
expect_grep "^# resumed_at_step=$step$" "$T/res.tsv" "log header: resumed step"
cut -f1-6 "$T/ref.tsv" | grep -v '^#' >"$T/a"
cut -f1-6 "$T/res.tsv" | grep -v '^#' >"$T/b"
if cmp -s "$T/a" "$T/b"; then ok; else bad "resumed training log differs"; fi
expect_exit 0 "resume, other thread count" "$FIT" "$T/D.npy" --resume "$T/ck" --steps 3001 \
    --threads 1 -o "$T/Q1.npy"
expect_grep "the checkpoint ran on 2 thread" "$T/err" "notes the thread count changed"
ls "$T/ck" >"$T/ckls"
expect_lines 5 "$T/ckls" "one generation in the checkpoint directory (4 arrays + checkpoint.tsv)"
# options that contradict the checkpoint (lms, K=3, D=4) are refused before any work, all of
# them named with both values on one line; options equal to the checkpoint's are fine
expect_exit 2 "--resume with a conflicting --model and --d" "$FIT" "$T/D.npy" --resume "$T/ck" \
    --model mos --d 20 --k 3 -o "$T/x.npy"
expect_grep "^sbw-fit: --resume .*--model mos given, lms in the checkpoint; --d 20 given, 4 in the checkpoint$" \
    "$T/err" "names both conflicts with both values"
expect_lines 1 "$T/err" "one line"
expect_absent "$T/x.npy" "a refused resume writes nothing"
expect_exit 2 "--resume with a conflicting --model" "$FIT" "$T/D.npy" --resume "$T/ck" \
    --model softmax -o "$T/x.npy"
expect_grep "--model softmax given, lms in the checkpoint" "$T/err" "names the model conflict"
expect_exit 2 "--resume with a conflicting --d" "$FIT" "$T/D.npy" --resume "$T/ck" --d 5 \
    -o "$T/x.npy"
expect_grep "--d 5 given, 4 in the checkpoint" "$T/err" "names the --d conflict"
# the one conflict check (sbw_ckpt_resume_check), shared with sbw-lm train: the reason goes
# through sbw_cli_fail, so a checkpoint folder's name is escaped as every reason is
mkdir "$T/ck$(printf '\033')x"
cp "$T/ck"/* "$T/ck$(printf '\033')x/"
expect_exit 2 "--resume with a conflict, folder name with ESC" "$FIT" "$T/D.npy" --resume \
    "$T/ck$(printf '\033')x" --d 5 -o "$T/x.npy"
expect_grep "^sbw-fit: --resume .*/ck\\\\x1bx: the command line contradicts the checkpoint \(drop these options or start afresh\): --d 5 given, 4 in the checkpoint$" \
    "$T/err" "one line in the shared form, the name escaped"
expect_lines 1 "$T/err" "a conflict is one line (no usage line)"
expect_exit 2 "--resume with a conflicting --precision and --lr" "$FIT" "$T/D.npy" --resume \
    "$T/ck" --precision double --lr 0.02 -o "$T/x.npy"
expect_grep "--lr 0.02 given, 0.01 in the checkpoint; --precision double given, single in the" \
    "$T/err" "names --lr and --precision"
# a hand-edited checkpoint out of range: exit 1 naming the key and the value
mkdir "$T/ckbad"
cp "$T/ck"/* "$T/ckbad/"
sed 's/^step=.*/step=-5/' "$T/ck/checkpoint.tsv" >"$T/ckbad/checkpoint.tsv"
expect_exit 1 "--resume from a negative step" "$FIT" "$T/D.npy" --resume "$T/ckbad" -o "$T/x.npy"
expect_grep "checkpoint.tsv: step=-5: not an unsigned integer" "$T/err" "names the bad step"
sed 's/^sbw_checkpoint=.*/sbw_checkpoint=99/' "$T/ck/checkpoint.tsv" >"$T/ckbad/checkpoint.tsv"
expect_exit 1 "--resume from another format version" "$FIT" "$T/D.npy" --resume "$T/ckbad"
expect_grep "sbw_checkpoint=99: unknown checkpoint format version" "$T/err" "names the version"
# a NaN in the saved parameters: exit 1 naming the array's file, never resumed from
cp "$T/ck/checkpoint.tsv" "$T/ckbad/checkpoint.tsv"
th=$(ls "$T/ckbad"/*theta.npy)
sz=$(wc -c <"$th")
printf '\000\000\000\000\000\000\370\177' | dd of="$th" bs=1 seek=$((sz - 8)) conv=notrunc 2>/dev/null
expect_exit 1 "--resume from parameters with a NaN" "$FIT" "$T/D.npy" --resume "$T/ckbad" -o "$T/x.npy"
expect_grep "theta.npy: value .* is nan" "$T/err" "names the file and the NaN"
expect_absent "$T/x.npy" "no output from a damaged checkpoint"
expect_exit 0 "a fresh fit into an old checkpoint directory" "$FIT" "$T/D.npy" --model lms \
    --k 3 --d 4 --steps 3 --checkpoint "$T/ck" --checkpoint-every 1e-9 -o "$T/Q2.npy"
expect_grep "holds a checkpoint of an earlier fit" "$T/err" "notes the earlier checkpoint"
expect_grep "^step=3$" "$T/ck/checkpoint.tsv" "the new fit's checkpoint replaced it"
ls "$T/ck" >"$T/ckls"
expect_lines 5 "$T/ckls" "no files of the earlier fit's generations remain"
expect_exit 1 "resume on other data" "$FIT" "$T/P.npy" --resume "$T/ck" -o "$T/x.npy"
expect_grep "checkpoint is for 500 x 120 data" "$T/err" "names the data mismatch"

# SIGINT (Ctrl-C) too, on a shorter fit
ARGS="--model lms --k 3 --d 4 --steps 1000 --batch 100 --lr 0.01 --threads 2 -q"
# shellcheck disable=SC2086
"$FIT" "$T/D.npy" $ARGS -o "$T/Qref2.npy" >/dev/null 2>&1 || bad "second reference fit failed"
# shellcheck disable=SC2086
run_killed INT "$T/cki" "$T/int.err" "$T/D.npy" $ARGS -o "$T/Qi.npy"
expect_eq "$rc" 130 "SIGINT: exit 130 after writing a checkpoint"
expect_grep "interrupted at step [0-9]+; checkpoint written to" "$T/int.err" "SIGINT message"
expect_absent "$T/Qi.npy" "a fit stopped by SIGINT writes no log Q"
expect_exit 0 "--resume after SIGINT" "$FIT" "$T/D.npy" --resume "$T/cki" --steps 1000 \
    --threads 2 -q -o "$T/Qi.npy"
if cmp -s "$T/Qref2.npy" "$T/Qi.npy"; then ok; else bad "log Q resumed after SIGINT differs"; fi

finish
