# tests/cli/test_lm.sh -- sbw-lm on a generated corpus (tests/fixtures/
# make_lm_corpus.sh; CI has no Penn Treebank): quick training, the log and
# the table; eval's perplexity against the exported matrix; the exported
# matrix's rank against the head's bound through sbw-rank (D+2 / D+1, MoC
# within it, a trained MoS beyond it, --center recovering D); --export;
# SIGTERM then --resume equal to an uninterrupted run bit for bit; every
# bad-data and bad-usage case with its exit status and message.
. tests/cli/lib.sh
LM=$BIN/sbw-lm
C=$T/corpus
sh tests/fixtures/make_lm_corpus.sh "$C" 2000

# ---- training at quick scale ------------------------------------------------------------
expect_exit 0 "quick softmax" "$LM" train --data "$C" --quick --epochs 4 --log "$T/log.tsv" \
    --ckpt "$T/sm" -q
cp "$T/out" "$T/train.tsv"
expect_grep "^# command=sbw-lm train --data" "$T/train.tsv" "table names the command"
expect_grep "^head	d	k	params	steps	epochs	tokens	seconds	tokens_per_s	train_ppl	valid_ppl	stop$" \
    "$T/train.tsv" "table columns"
ppl=$(tsv_field "$T/train.tsv" valid_ppl)
# 200 words; the chain's successors make it far better than uniform
expect_num_near "$ppl" 30 30 "validation perplexity below 60 after 4 epochs"
expect_grep "^step	epoch	tokens	seconds	lr	loss	ppl	valid_ppl	head_seconds$" "$T/log.tsv" "log columns"
expect_grep "^# command=sbw-lm train" "$T/log.tsv" "log names the command"
nvalid=$(awk -F'\t' '!/^#/ && NR > 1 && $8 != "nan" && $8 != "valid_ppl"' "$T/log.tsv" | wc -l)
expect_eq "$nvalid" 4 "one validation row per epoch"

# ---- eval: perplexity from the matrix it exports ------------------------------------------
# training validated on the first 4000 tokens (3999 predictions) in 4 columns
expect_exit 0 "eval valid" "$LM" eval --data "$C" --ckpt "$T/sm" --split valid --eval-batch 4 \
    --tokens 3999 -q
p_all=$(tsv_field "$T/out" ppl)
expect_num_near "$p_all" "$ppl" "$(awk -v p="$ppl" 'BEGIN { print 1e-3 * p }')" \
    "eval's valid perplexity equals training's last (same columns; double vs float)"
expect_exit 0 "eval --logprobs" "$LM" eval --data "$C" --ckpt "$T/sm" --tokens 300 \
    --logprobs "$T/lq.npy" -q
p_lq=$(tsv_field "$T/out" ppl)
expect_exit 0 "sbw-info on the export" "$BIN/sbw-info" "$T/lq.npy"
expect_eq "$(tsv_field "$T/out" rows) x $(tsv_field "$T/out" cols)" "300 x 201" \
    "exported shape T x M (200 words and <eos>)"
expect_eq "$(tsv_field "$T/out" rows_logprob)" 300 "every exported row is a normalised log row"
lse=$(tsv_field "$T/out" max_abs_logsumexp)
expect_num_near "$lse" 0 1e-12 "rows normalised to double precision"

# ---- rank of the exported matrix against the head's bound -----------------------------------
# rank_of CKPT [--center]: the NR rank sbw-rank prints for 300 exported rows
rank_of() {
    ck=$1
    shift
    "$LM" eval --data "$C" --ckpt "$ck" --tokens 300 --logprobs - -q 2>/dev/null |
        "$BIN/sbw-rank" - "$@" >"$T/rank.tsv" 2>"$T/rank.err"
    tsv_field "$T/rank.tsv" rank
}
expect_eq "$(rank_of "$T/sm")" 18 "softmax D=16 with a bias: rank D+2"
expect_eq "$(rank_of "$T/sm" --center)" 17 "--center recovers D+1 with a bias"
"$LM" train --data "$C" --quick --max-steps 40 --no-bias --ckpt "$T/nb" -q >/dev/null 2>"$T/run.err" ||
    bad "softmax --no-bias training failed (exit $?): $(tail -n 3 "$T/run.err")"
expect_eq "$(rank_of "$T/nb")" 17 "softmax D=16 without a bias: rank D+1"
expect_eq "$(rank_of "$T/nb" --center)" 16 "--center recovers D without a bias"
"$LM" train --data "$C" --quick --head moc --k 3 --max-steps 40 --ckpt "$T/moc" -q >/dev/null 2>"$T/run.err" ||
    bad "moc training failed (exit $?): $(tail -n 3 "$T/run.err")"
r=$(rank_of "$T/moc")
if [ -n "$r" ] && [ "$r" -le 18 ]; then ok; else bad "moc K=3 D=16: rank '$r' above D+2"; fi
"$LM" train --data "$C" --quick --head mos --k 3 --epochs 2 --ckpt "$T/mos" -q >/dev/null 2>"$T/run.err" ||
    bad "mos training failed (exit $?): $(tail -n 3 "$T/run.err")"
r=$(rank_of "$T/mos")
if [ -n "$r" ] && [ "$r" -gt 18 ]; then ok; else bad "trained mos K=3 D=16: rank '$r' not above D+2"; fi

# ---- --export -------------------------------------------------------------------------------
expect_exit 0 "eval --export" "$LM" eval --data "$C" --ckpt "$T/mos" --export "$T/exp" --threads 1 -q
expect_eq "$(tsv_meta "$T/exp/params.tsv" threads)" 1 "params.tsv records the --threads given"
for f in W b U V; do
    if [ -s "$T/exp/$f.npy" ]; then ok; else bad "--export wrote no $f.npy"; fi
done
expect_eq "$(wc -l <"$T/exp/vocab.txt")" 201 "vocab.txt: one word per line"
expect_eq "$(tsv_meta "$T/exp/params.tsv" model) k=$(tsv_meta "$T/exp/params.tsv" k)" "mos k=3" \
    "params.tsv names the head"
expect_eq "$(tsv_rows "$T/exp/params.tsv" | cut -f1 | tr '\n' ' ')" "name W b U V " \
    "params.tsv lists the mixture's blocks (PLIF's: test_ptb_quick.sh)"

# ---- SIGTERM, then --resume: the same parameters as an uninterrupted run ----------------------
ARGS="--data $C --quick --d 8 --hidden 24,16 --epochs 100 --max-steps 3000 --threads 2 --dropout-in 0.2 -q"
# shellcheck disable=SC2086
"$LM" train $ARGS --ckpt "$T/ref" >/dev/null 2>"$T/run.err" ||
    bad "uninterrupted reference run failed (exit $?): $(tail -n 3 "$T/run.err")"
# shellcheck disable=SC2086
"$LM" train $ARGS --ckpt "$T/kill" --ckpt-every 0 --log "$T/kill.tsv" --log-every 100 \
    >/dev/null 2>"$T/kill.err" &
pid=$!
i=0 # kill once the log shows the run under way
while [ $i -lt 400 ] && ! grep -q '^[0-9]' "$T/kill.tsv" 2>/dev/null; do
    sleep 0.02
    i=$((i + 1))
done
kill -TERM $pid 2>/dev/null
wait $pid
rc=$?
expect_eq "$rc" 130 "SIGTERM: exit 130"
expect_grep "interrupted at step [0-9]+; checkpoint written" "$T/kill.err" "SIGTERM message"
step=$(sed -n 's/^step=//p' "$T/kill/checkpoint.tsv")
if [ -n "$step" ] && [ "$step" -gt 0 ] && [ "$step" -lt 3000 ]; then ok; else
    bad "checkpoint step '$step' not inside the run"
fi
expect_exit 0 "--resume" "$LM" train --data "$C" --ckpt "$T/kill" --resume --threads 2 -q
if cmp -s "$T/ref/ckpt-3000-theta.npy" "$T/kill/ckpt-3000-theta.npy"; then ok; else
    bad "resumed parameters differ from the uninterrupted run's"
fi
# stop and resume across the switch to averaged SGD: the validation history,
# the mean and its count come back from the checkpoint
AV="--data $C --quick --d 8 --hidden 16 --epochs 8 --nonmono 1 --lr 40 --threads 2 -q"
# shellcheck disable=SC2086
"$LM" train $AV --ckpt "$T/av1" >"$T/av1.tsv" 2>/dev/null || bad "averaging reference run failed"
expect_eq "$(tsv_meta "$T/av1.tsv" averaging)" true "the reference run switched to averaging"
# shellcheck disable=SC2086
"$LM" train $AV --ckpt "$T/av2" --max-steps 900 >/dev/null 2>"$T/half.err" ||
    bad "first half failed (exit $?): $(tail -n 3 "$T/half.err")"
expect_exit 0 "--resume past the switch" "$LM" train --data "$C" --ckpt "$T/av2" --resume \
    --max-steps 1000000 -q
for a in theta avg; do
    if cmp -s "$T/av1/ckpt-1000-$a.npy" "$T/av2/ckpt-1000-$a.npy"; then ok; else
        bad "$a after resuming past the switch differs from the uninterrupted run's"
    fi
done
expect_exit 2 "--resume with a different --d" "$LM" train --data "$C" --ckpt "$T/kill" --resume \
    --d 9 -q
expect_grep "d 9 given, 8 in the checkpoint" "$T/err" "conflict message"
expect_exit 2 "--ckpt holding a checkpoint without --resume" "$LM" train --data "$C" --quick \
    --ckpt "$T/kill" -q
expect_grep "holds a checkpoint" "$T/err" "existing checkpoint message"

# ---- bad data: one line naming the file, exit 1 ---------------------------------------------
mkdir -p "$T/bad"
bad_case() { # bad_case NAME "what" PATTERN: train on $T/bad/NAME
    expect_exit 1 "$2" "$LM" train --data "$T/bad/$1" --quick --max-steps 1 -q
    expect_grep "$3" "$T/err" "$2: message"
    if [ "$(wc -l <"$T/err")" -eq 1 ]; then ok; else bad "$2: $(wc -l <"$T/err") lines on stderr"; fi
}
mk() { mkdir -p "$T/bad/$1" && cp "$C"/*.txt "$T/bad/$1/"; }
bad_case missing "missing directory" "train.txt"
mk empty && : >"$T/bad/empty/valid.txt"
bad_case empty "empty valid file" "valid.txt"
mk oov && printf 'w1 w2 zebra w3\n' >>"$T/bad/oov/test.txt"
bad_case oov "out-of-vocabulary word" "test.txt:201: word 'zebra' is not in the vocabulary"
mk crlf && printf 'w1 w2\r\n' >>"$T/bad/crlf/train.txt"
bad_case crlf "CRLF text" "carriage return"
mk utf && printf 'w1 \377w2\n' >>"$T/bad/utf/valid.txt"
bad_case utf "non-UTF-8 text" "UTF-8"
mk blank && printf '\n\n' >"$T/bad/blank/train.txt"
bad_case blank "training file without words" "train.txt"
mk eos && printf '<eos>\n<eos>\n' >"$T/bad/eos/train.txt"
bad_case eos "empty vocabulary (only <eos>)" "vocabulary"

# ---- bad usage: exit 2 ----------------------------------------------------------------------
expect_exit 2 "no command" "$LM"
expect_exit 2 "unknown command" "$LM" fly
expect_exit 2 "train without --data" "$LM" train --quick
expect_exit 2 "four layers" "$LM" train --data "$C" --hidden 8,8,8,8
expect_exit 2 "--tied with E != D" "$LM" train --data "$C" --quick --tied --emb 8
expect_exit 2 "--resume without --ckpt" "$LM" train --data "$C" --resume
expect_exit 2 "unknown head" "$LM" train --data "$C" --head cnn
# an option the head or optimiser would ignore: reported as sbw-fit does (one
# line naming it and why, then the usage hint); the cases are in tests/badinput
expect_exit 2 "--plif-t with --head mos" "$LM" train --data "$C" --head mos --plif-t 3 -q
expect_grep "^sbw-lm train: --plif-t does not apply to --head mos: only plif and mos\+plif " \
    "$T/err" "names the option, the head and why"
expect_grep "^Usage: sbw-lm train " "$T/err" "the usage line, as sbw-fit prints it"
expect_exit 2 "bad --split" "$LM" eval --data "$C" --ckpt "$T/sm" --split train
expect_exit 2 "eval without --ckpt" "$LM" eval --data "$C"
expect_exit 1 "eval of a directory without a checkpoint" "$LM" eval --data "$C" --ckpt "$T"
expect_exit 0 "--help" "$LM" train --help
expect_grep "Example" "$T/out" "--help teaches with an example"
expect_exit 0 "eval --help" "$LM" eval --help
expect_grep "^--export DIR writes .*params\.tsv|params\.tsv listing" "$T/out" "eval --help: --export writes params.tsv"
expect_grep "sbw-plot monotone DIR. draws a plif or mos\+plif" "$T/out" "eval --help: sbw-plot monotone draws f"

finish
