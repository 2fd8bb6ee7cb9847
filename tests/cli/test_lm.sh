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
expect_grep "^head	d	k	rank_bound	params	steps	epochs	tokens	seconds	tokens_per_s	train_ppl	valid_ppl	stop$" \
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
# --single: a float32 forward pass, its matrix exported as float32 (what a
# float32 implementation ranks): the same perplexity to float's rounding,
# rows normalised to float's precision, and sbw-rank reads it at float32's eps
expect_exit 0 "eval --single --logprobs" "$LM" eval --data "$C" --ckpt "$T/sm" --tokens 300 \
    --single --logprobs "$T/lq32.npy" -q
expect_eq "$(tsv_field "$T/out" precision)" single "eval --single's table says single"
expect_num_near "$(tsv_field "$T/out" ppl)" "$p_lq" "$(awk -v p="$p_lq" 'BEGIN { print 1e-5 * p }')" \
    "the float32 forward pass's perplexity is the double one's to float's rounding"
expect_exit 0 "sbw-info on the float32 export" "$BIN/sbw-info" "$T/lq32.npy"
expect_eq "$(tsv_field "$T/out" dtype) $(tsv_field "$T/out" rows) x $(tsv_field "$T/out" cols)" \
    "float32 300 x 201" "--single --logprobs writes float32, T x M"
expect_eq "$(tsv_field "$T/out" rows_logprob)" 300 "every float32 row is a normalised log row"
lse=$(tsv_field "$T/out" max_abs_logsumexp)
if awk -v x="$lse" 'BEGIN { exit !(x < 64 * 1.2e-7) }'; then ok; else bad "float32 rows normalised only to $lse"; fi
"$BIN/sbw-rank" "$T/lq32.npy" -q >"$T/r32.tsv" 2>"$T/rank.err" || bad "sbw-rank on the float32 export"
expect_eq "$(tsv_meta "$T/r32.tsv" eps_source) $(tsv_field "$T/r32.tsv" eps)" "float32 data 1.1920928955078125e-07" \
    "sbw-rank reads the float32 export at float32's eps"

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
expect_eq "$(tsv_field "$T/train.tsv" rank_bound)" "$(tsv_field "$T/rank.tsv" rank)" \
    "train's rank_bound is the rank sbw-rank measures (softmax with a bias)"
expect_eq "$(rank_of "$T/sm" --center)" 17 "--center recovers D+1 with a bias"
"$LM" train --data "$C" --quick --max-steps 40 --no-bias --ckpt "$T/nb" -q >"$T/nb.tsv" 2>"$T/run.err" ||
    bad "softmax --no-bias training failed (exit $?): $(tail -n 3 "$T/run.err")"
expect_eq "$(rank_of "$T/nb")" 17 "softmax D=16 without a bias: rank D+1"
expect_eq "$(tsv_field "$T/nb.tsv" rank_bound)" "$(tsv_field "$T/rank.tsv" rank)" \
    "train's rank_bound is the rank sbw-rank measures (softmax --no-bias)"
expect_eq "$(rank_of "$T/nb" --center)" 16 "--center recovers D without a bias"
"$LM" train --data "$C" --quick --head moc --k 3 --max-steps 40 --ckpt "$T/moc" -q >/dev/null 2>"$T/run.err" ||
    bad "moc training failed (exit $?): $(tail -n 3 "$T/run.err")"
r=$(rank_of "$T/moc")
if [ -n "$r" ] && [ "$r" -le 18 ]; then ok; else bad "moc K=3 D=16: rank '$r' above D+2"; fi
"$LM" train --data "$C" --quick --head mos --k 3 --epochs 2 --ckpt "$T/mos" -q >"$T/mos.tsv" 2>"$T/run.err" ||
    bad "mos training failed (exit $?): $(tail -n 3 "$T/run.err")"
r=$(rank_of "$T/mos")
if [ -n "$r" ] && [ "$r" -gt 18 ]; then ok; else bad "trained mos K=3 D=16: rank '$r' not above D+2"; fi
expect_eq "$(tsv_field "$T/mos.tsv" rank_bound)" none "mos K=3: train's rank_bound is none"

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
signal_when TERM $! logged "$T/kill.tsv" # once the log shows the run under way
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
# the one conflict check (sbw_ckpt_resume_check): sbw-fit's message form, one line, no usage
expect_grep "^sbw-lm train: --resume .*/kill: the command line contradicts the checkpoint \(drop these options or start afresh\): --d 9 given, 8 in the checkpoint$" \
    "$T/err" "conflict message in the form sbw-fit gives"
expect_lines 1 "$T/err" "a conflict is one line (no usage line)"
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

# ---- nothing a user owns is overwritten or lost ---------------------------------------------
# outputs against the corpus and the checkpoint: exit 2 naming both, the input untouched
# (the corpus is put back after each case, so one failure does not hide the next)
mkdir -p "$T/keep" && cp "$C"/*.txt "$T/keep/"
restore_corpus() { rm -f "$C"/*; cp "$T/keep"/*.txt "$C/"; }
cp "$C/train.txt" "$T/train.keep"
expect_exit 2 "--logprobs onto the corpus" "$LM" eval --data "$C" --ckpt "$T/sm" --tokens 5 \
    --logprobs "$C/train.txt" -q
expect_grep "train.txt: --logprobs would be the corpus file train.txt of --data" "$T/err" \
    "names the output and the input"
if cmp -s "$C/train.txt" "$T/train.keep"; then ok; else bad "--logprobs overwrote train.txt"; fi
restore_corpus
expect_exit 2 "--log onto the corpus" "$LM" train --data "$C" --quick --max-steps 1 \
    --log "$C/valid.txt" --ckpt "$T/pf1" -q
restore_corpus
expect_exit 2 "--log named as a split the reader would take" "$LM" train --data "$C" --quick \
    --max-steps 1 --log "$C/ptb.train.txt" -q
expect_absent "$C/ptb.train.txt" "--log ptb.train.txt beside train.txt"
restore_corpus
expect_exit 2 "--ckpt is the --data folder" "$LM" train --data "$C" --quick --max-steps 1 \
    --ckpt "$C" -q
expect_grep "^sbw-lm train: .*--ckpt is the --data folder" "$T/err" "--ckpt = --data: message"
expect_absent "$C/checkpoint.tsv" "--ckpt = --data writes nothing"
restore_corpus
expect_exit 2 "--log onto the checkpoint's table" "$LM" train --data "$C" --ckpt "$T/sm" --resume \
    --log "$T/sm/checkpoint.tsv" -q
expect_grep "checkpoint.tsv: --log would be the checkpoint's own file checkpoint.tsv" "$T/err" \
    "--log = checkpoint.tsv: message"
ln -s "$C/test.txt" "$T/link.npy"
expect_exit 2 "--logprobs onto a link to the corpus" "$LM" eval --data "$C" --ckpt "$T/sm" \
    --tokens 5 --logprobs "$T/link.npy" -q
expect_grep "link.npy: --logprobs is the input .*test.txt \(the same file\)" "$T/err" \
    "a link to a corpus file: message"
restore_corpus
expect_exit 2 "--log named as a checkpoint array" "$LM" train --data "$C" --quick --max-steps 1 \
    --ckpt "$T/pf2" --log "$T/pf2/ckpt-1-theta.npy" -q
expect_grep "checkpoint's own file ckpt-1-theta.npy" "$T/err" "--log = a checkpoint array: message"
expect_exit 2 "--export into the checkpoint" "$LM" eval --data "$C" --ckpt "$T/sm" --tokens 1 \
    --export "$T/sm" -q
expect_grep "--export is the --ckpt folder" "$T/err" "--export = --ckpt: message"
expect_exit 2 "--export into the corpus" "$LM" eval --data "$C" --ckpt "$T/sm" --tokens 1 \
    --export "$C" -q
expect_eq "$(ls "$C" | tr '\n' ' ')" "test.txt train.txt valid.txt " "the corpus folder untouched"
restore_corpus
mkdir -p "$T/mine" && echo "notes" >"$T/mine/notes.md"
expect_exit 2 "--export into a folder with other files" "$LM" eval --data "$C" --ckpt "$T/sm" \
    --tokens 1 --export "$T/mine" -q
expect_grep "holds notes.md, which an export does not write" "$T/err" "a foreign file: message"
expect_eq "$(ls "$T/mine")" "notes.md" "a foreign folder untouched"

# --export replaces an earlier export whole: a softmax export over a mos one
# leaves no U.npy / V.npy of the mixture beside params.tsv's W and b
expect_exit 0 "softmax --export over a mos export" "$LM" eval --data "$C" --ckpt "$T/sm" --tokens 1 \
    --export "$T/exp" -q
expect_eq "$(ls "$T/exp" | tr '\n' ' ')" "W.npy b.npy params.tsv vocab.txt " \
    "the re-export holds exactly its own files"
if ls -a "$T" | grep -q '\.exp\.export\.'; then bad "a temporary export folder was left"; else ok; fi
# a signal while the export is written: no folder under the name, no temporary
mkdir -p "$T/sig"
run_stopped TERM temp "$LM" eval --data "$C" --ckpt "$T/mos" --tokens 1 --export "$T/sig/ex" -q
expect_eq "$rc" 143 "SIGTERM during --export: exit 143"
expect_eq "$(ls -A "$T/sig")" "" "SIGTERM during --export leaves nothing (no partial folder)"

# one writer per checkpoint folder: a second sbw-lm train (or sbw-fit) is refused
# naming the folder and the process holding it; the first runs on undisturbed
"$LM" train --data "$C" --quick --epochs 1000 --ckpt "$T/lk" --ckpt-every 0 --log "$T/lk.tsv" \
    -q >/dev/null 2>"$T/lk.err" &
pid=$!
wait_for grep -q '^[0-9]' "$T/lk.tsv" 2>/dev/null
expect_exit 1 "a second writer on a locked folder" "$LM" train --data "$C" --quick --max-steps 5 \
    --ckpt "$T/lk" -q
expect_grep "^sbw-lm train: .*lk: the checkpoint folder is in use by process $pid " "$T/err" \
    "names the folder and the process holding it"
expect_lines 1 "$T/err" "one line"
expect_exit 1 "--resume on a locked folder" "$LM" train --data "$C" --ckpt "$T/lk" --resume -q
expect_exit 1 "sbw-fit on sbw-lm's locked folder" "$BIN/sbw-fit" -q --d 1 --steps 1 \
    --checkpoint "$T/lk" -o "$T/lkfit.npy" "$FIX/logp.npy"
expect_grep "^sbw-fit: .*lk: the checkpoint folder is in use by process $pid " "$T/err" \
    "sbw-fit shares the lock"
kill -INT $pid 2>/dev/null
wait $pid
expect_eq "$?" 130 "the first writer ends normally (SIGINT: 130)"
step=$(sed -n 's/^step=//p' "$T/lk/checkpoint.tsv")
if [ -n "$step" ] && [ "$step" -gt 5 ]; then ok; else bad "the first writer's checkpoint: step '$step'"; fi
expect_exit 0 "the lock is free once its holder ended" "$LM" train --data "$C" --ckpt "$T/lk" \
    --resume --max-steps $((step + 2)) -q
# a holder killed outright leaves its lock file, which binds nobody
"$LM" train --data "$C" --quick --epochs 1000 --ckpt "$T/lk9" --ckpt-every 0 -q >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 1000 ] && ! [ -s "$T/lk9/.sbw-lock" ]; do
    sleep 0.02
    i=$((i + 1))
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
expect_exit 0 "a lock left by kill -9 is taken over" "$LM" train --data "$C" --quick --max-steps 3 \
    --ckpt "$T/lk9" -q

# the corpus is checked as it is read: a NUL at the start of a pipe that never
# ends fails at once (the reader does not wait for the rest), and SIGINT during
# a load is honoured (130); `timeout` only keeps a broken reader from hanging
mkdir -p "$T/ff"
cp "$C/valid.txt" "$C/test.txt" "$T/ff/"
mkfifo "$T/ff/train.txt"
{ printf 'w1 \000 w2\n' && yes 'w1 w2 w3'; } >"$T/ff/train.txt" 2>/dev/null &
wp=$!
expect_exit 1 "a NUL near the start of an endless corpus" timeout 60 "$LM" train --data "$T/ff" \
    --quick -q
expect_grep "train.txt: line 1 has a NUL byte" "$T/err" "the NUL is reported"
kill $wp 2>/dev/null
wait $wp 2>/dev/null
yes 'w1 w2 w3' >"$T/ff/train.txt" 2>/dev/null &
wp=$!
timeout 60 "$LM" train --data "$T/ff" --quick -q >/dev/null 2>"$T/ff.err" &
pid=$!
# signal sbw-lm itself (timeout's child; $pid is timeout's, whose own fds
# never show the corpus) once it is reading the corpus
reading() {
    lp=$(ps -o pid= --ppid "$pid" | tr -d ' ' | head -n 1)
    [ -n "$lp" ] && ls -l "/proc/$lp/fd" 2>/dev/null | grep -q 'train.txt'
}
wait_for reading
kill -INT "${lp:-$pid}" 2>/dev/null
wait $pid
expect_eq "$?" 130 "SIGINT while reading the corpus: exit 130"
expect_grep "train.txt: interrupted while reading the corpus" "$T/ff.err" "SIGINT during the load: message"
kill $wp 2>/dev/null
wait $wp 2>/dev/null

# ---- silent wrong results: none ----------------------------------------------------------------
# divergence stops the run (exit 1, the step named), the last checkpoint stays a good one
expect_exit 0 "ten good steps at a high --lr" "$LM" train --data "$C" --quick --lr 3000 \
    --max-steps 10 --ckpt "$T/dv" -q
expect_exit 1 "a run that diverges" "$LM" train --data "$C" --ckpt "$T/dv" --resume \
    --max-steps 100000 -q
expect_grep "^sbw-lm train: diverged at step [0-9]+: .*; the last good checkpoint is .*dv \(step 10\)$" \
    "$T/err" "divergence: the step and the last good checkpoint"
expect_eq "$(sed -n 's/^step=//p' "$T/dv/checkpoint.tsv")" 10 "the checkpoint on disk is the good one"
if grep -q 'inf' "$T/out"; then bad "a diverged run printed a result: $(cat "$T/out")"; else ok; fi
expect_exit 0 "the good checkpoint evaluates" "$LM" eval --data "$C" --ckpt "$T/dv" -q
ppl=$(tsv_field "$T/out" ppl)
case "$ppl" in '' | *inf* | *nan*) bad "the good checkpoint's perplexity: '$ppl'" ;; *) ok ;; esac
expect_exit 1 "a huge --lr" "$LM" train --data "$C" --quick --lr 1e6 --clip 0 --max-steps 50 \
    --ckpt "$T/dv2" -q
expect_grep "diverged at step [0-9]+: the training loss is .*; no checkpoint was written" "$T/err" \
    "a huge --lr: message"
if [ -e "$T/dv2/checkpoint.tsv" ]; then bad "a checkpoint of diverged parameters"; else ok; fi

# checkpoints are checked when loaded: NaN, infinite or absurd parameters, and a
# missing or damaged averaged file when the checkpoint says it is averaging
poke() { # poke FILE ITEM BYTES: overwrite float64 ITEM of a 128-byte-header .npy
    printf "$3" | dd of="$1" bs=1 seek=$((128 + 8 * $2)) conv=notrunc 2>/dev/null
}
g=$(sed -n 's/^generation=//p' "$T/av1/checkpoint.tsv")
cp -r "$T/av1" "$T/avn" && rm "$T/avn/ckpt-$g-avg.npy"
expect_exit 1 "averaging checkpoint without its avg file" "$LM" eval --data "$C" --ckpt "$T/avn" -q
expect_grep "ckpt-$g-avg.npy: .*says NT-ASGD is averaging" "$T/err" "names the missing avg file"
cp -r "$T/av1" "$T/avd" && poke "$T/avd/ckpt-$g-avg.npy" 3 '\000\000\000\000\000\000\370\177'
expect_exit 1 "a NaN in the averaged parameters" "$LM" eval --data "$C" --ckpt "$T/avd" -q
expect_grep "ckpt-$g-avg.npy: value 4 of [0-9]+ is nan" "$T/err" "names the damaged avg file"
cp -r "$T/sm" "$T/smi"
gs=$(sed -n 's/^generation=//p' "$T/sm/checkpoint.tsv")
poke "$T/smi/ckpt-$gs-theta.npy" 0 '\000\000\000\000\000\000\360\177'
expect_exit 1 "an infinite parameter" "$LM" eval --data "$C" --ckpt "$T/smi" -q
expect_grep "ckpt-$gs-theta.npy: value 1 of [0-9]+ is inf" "$T/err" "an infinite parameter: message"
expect_exit 1 "resuming from an infinite parameter" "$LM" train --data "$C" --ckpt "$T/smi" \
    --resume --epochs 5 -q
poke "$T/smi/ckpt-$gs-theta.npy" 0 '\000\000\000\000\000\000\360\107' # 2^128 = 3.4e38
expect_exit 1 "an absurd parameter" "$LM" eval --data "$C" --ckpt "$T/smi" -q
expect_grep "value 1 of [0-9]+ is 3.40282.*e\+38, beyond the 1e\+15" "$T/err" "an absurd parameter: message"
# a snapshot of an averaging run holds the mean as its theta: it evaluates
AVS="--data $C --quick --d 8 --hidden 16 --epochs 8 --nonmono 1 --lr 40 --threads 2 -q"
# shellcheck disable=SC2086
"$LM" train $AVS --ckpt "$T/avs" --eval-every 150000 >/dev/null 2>"$T/run.err" ||
    bad "averaging run with snapshots failed: $(tail -n 2 "$T/run.err")"
snap=$(ls -d "$T/avs"/snap-* 2>/dev/null | tail -n 1)
expect_eq "$(sed -n 's/^averaging=//p' "$snap/checkpoint.tsv")" 1 "the snapshot was taken while averaging"
expect_exit 0 "eval of a snapshot taken while averaging" "$LM" eval --data "$C" --ckpt "$snap" -q

# the memory preflight refuses a model that does not fit, before allocating it
expect_exit 1 "a model beyond SBW_MAX_MEMORY" env SBW_MAX_MEMORY=1M "$LM" train --data "$C" \
    --quick --max-steps 1 -q
expect_grep "training this model \([0-9]+ parameters.*needs .* GiB, more than SBW_MAX_MEMORY's" \
    "$T/err" "the training preflight: message"
expect_exit 1 "latents beyond SBW_MAX_MEMORY" env SBW_MAX_MEMORY=200K "$LM" eval --data "$C" \
    --ckpt "$T/sm" --logprobs "$T/big.npy" -q
expect_grep "evaluating [0-9]+ tokens with their latents for --logprobs .* more than SBW_MAX_MEMORY's" \
    "$T/err" "the eval preflight: message"
expect_absent "$T/big.npy" "nothing written when the preflight refuses"
expect_exit 0 "SBW_MAX_MEMORY=any" env SBW_MAX_MEMORY=any "$LM" train --data "$C" --quick \
    --max-steps 1 -q

# ---- messages ---------------------------------------------------------------------------------
expect_exit 2 "eval's --eval-batch x --bptt too large" "$LM" eval --data "$C" --ckpt "$T/sm" \
    --eval-batch 1000000 --bptt 100000 -q
expect_grep "^sbw-lm eval: --eval-batch 1000000 x --bptt 100000 is too large" "$T/err" \
    "names --eval-batch, the option given"
expect_exit 2 "--quick's --train-tokens too few for --batch" "$LM" train --data "$C" --quick \
    --batch 15000 -q
expect_grep "20000 training tokens \(--train-tokens\) \(set by --quick\) make columns of 1 with --batch 15000;" \
    "$T/err" "a limit from --quick says so"
mkdir -p "$T/tiny" && printf 'a b c\nb c a\n' >"$T/tiny/train.txt" && printf 'a b\n' >"$T/tiny/valid.txt"
printf 'a c\n' >"$T/tiny/test.txt"
expect_exit 2 "--quick's --d beyond a 4-word vocabulary" "$LM" train --data "$T/tiny" --quick -q
expect_grep "^sbw-lm train: --d 16 exceeds the vocabulary size M = 4 \(--d 16 from --quick\)$" "$T/err" \
    "a head check's limit from --quick says so"
mkdir -p "$T/bom" && cp "$C"/*.txt "$T/bom/"
{ printf '\357\273\277' && cat "$C/train.txt"; } >"$T/bom/train.txt"
expect_exit 1 "a corpus with a BOM" "$LM" train --data "$T/bom" --quick -q
expect_grep "train.txt: starts with a byte-order mark \(U\+FEFF\)" "$T/err" "BOM: message"
mkdir -p "$T/zw" && cp "$C"/*.txt "$T/zw/"
printf 'w1 w\342\200\213x \342\200\256abc\n' >>"$T/zw/test.txt"
expect_exit 1 "an unknown word with a zero-width space" "$LM" train --data "$T/zw" --quick -q
expect_grep "word 'w\\\\u{200B}x' is not in the vocabulary" "$T/err" "the zero-width space is shown escaped"
if LC_ALL=C grep -q "$(printf '\342\200')" "$T/err"; then bad "an invisible character reached the message"; else ok; fi

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

# --snap-epochs keeps one snapshot per epoch, each after its validation;
# --stop-ppl X stops after the first epoch whose validation perplexity is
# <= X (stop-ppl), never when none is (stop epochs); a resumed stopped run
# stops at once; a checkpoint written before these options resumes as off
Q="--quick --optim adam --lr 0.01 --seed 3 -q"
# shellcheck disable=SC2086 # Q: options, split on purpose
expect_exit 0 "--snap-epochs" "$LM" train --data "$C" $Q --epochs 3 --snap-epochs --ckpt "$T/se" --log "$T/se.tsv"
expect_eq "$(ls -d "$T"/se/snap-* | wc -l)" 3 "--snap-epochs: one snapshot per epoch"
expect_eq "$(for s in "$T"/se/snap-*; do sed -n 's/^epoch=//p' "$s/checkpoint.tsv"; done | tr '\n' ' ')" "1 2 3 " \
    "--snap-epochs: each at an epoch's end"
expect_eq "$(for s in "$T"/se/snap-*; do sed -n 's/^nvalid=//p' "$s/checkpoint.tsv"; done | tr '\n' ' ')" "1 2 3 " \
    "--snap-epochs: each after that epoch's validation"
v1=$(grep -v '^#' "$T/se.tsv" | awk -F'\t' '$8 != "nan" && NR > 1 { print $8; exit }')
# shellcheck disable=SC2086
expect_exit 0 "--stop-ppl above epoch 1's" "$LM" train --data "$C" $Q --epochs 3 --stop-ppl "$v1" --ckpt "$T/sp"
expect_eq "$(tsv_field "$T/out" stop)/$(tsv_field "$T/out" epochs)" stop-ppl/1 "--stop-ppl: stops after epoch 1 (ppl $v1 <= $v1)"
s1=$(tsv_field "$T/out" steps)
# shellcheck disable=SC2086
expect_exit 0 "--resume a stopped run" "$LM" train --data "$C" $Q --epochs 3 --stop-ppl "$v1" --ckpt "$T/sp" --resume
expect_eq "$(tsv_field "$T/out" stop)/$(tsv_field "$T/out" steps)" "stop-ppl/$s1" "--resume: stops at once"
# shellcheck disable=SC2086
expect_exit 0 "--stop-ppl never met" "$LM" train --data "$C" $Q --epochs 2 --stop-ppl 1.0001
expect_eq "$(tsv_field "$T/out" stop)/$(tsv_field "$T/out" epochs)" epochs/2 "--stop-ppl 1.0001: every epoch"
# shellcheck disable=SC2086
expect_exit 0 "a short run to resume" "$LM" train --data "$C" $Q --epochs 2 --max-steps 30 --ckpt "$T/old2"
grep -Ev '^(snap_epochs|stop_ppl)=' "$T/old2/checkpoint.tsv" >"$T/ck2.tsv" && mv "$T/ck2.tsv" "$T/old2/checkpoint.tsv"
# shellcheck disable=SC2086
expect_exit 0 "--resume of a checkpoint without the rows" "$LM" train --data "$C" $Q --epochs 2 --max-steps 100000 --ckpt "$T/old2" --resume
expect_eq "$(tsv_field "$T/out" stop)/$(tsv_field "$T/out" epochs)" epochs/2 "old checkpoint: no stop, no snapshots"
expect_eq "$(ls -d "$T"/old2/snap-* 2>/dev/null | wc -l)" 0 "old checkpoint: --snap-epochs off"
# shellcheck disable=SC2086
expect_exit 2 "--snap-epochs without --ckpt" "$LM" train --data "$C" $Q --snap-epochs
expect_grep "snap-epochs needs --ckpt" "$T/err" "the option is named"

finish
