# tests/cli/test_lm_reg.sh -- sbw-lm train's papers' recipe at quick scale
# (issue 28): --preset mos and awd with --quick train and log sanely
# (variable chunk lengths, lr column the base rate, cross-entropy only);
# each new option changes the trajectory; a run stopped by --max-steps or
# SIGINT resumes bit for bit; a checkpoint written before the new rows
# resumes as it was trained; conflicts and bad values are usage errors;
# --help lists the presets.
. tests/cli/lib.sh
LM=$BIN/sbw-lm
C=$T/corpus
sh tests/fixtures/make_lm_corpus.sh "$C" 2000

# ---- --quick --preset mos: trains, the log is sane ------------------------------------------
Q="--data $C --quick --threads 2 -q"
# (SGD at lr 20 is erratic at this scale, with or without the new options:
# the learning check uses Adam; the SGD run checks the log)
# shellcheck disable=SC2086
expect_exit 0 "quick --preset mos, Adam" "$LM" train $Q --preset mos --optim adam --lr 0.01 --epochs 2
expect_eq "$(tsv_field "$T/out" head) $(tsv_field "$T/out" k)" "mos 3" "--head mos from the preset, K 3 from --quick"
ppl=$(tsv_field "$T/out" valid_ppl)
if awk -v p="$ppl" 'BEGIN { exit !(p > 1 && p < 120) }'; then ok; else
    bad "--preset mos at quick scale: valid_ppl '$ppl' not well below uniform's 201"
fi
if grep -q worse_than_uniform "$T/out"; then bad "a run that learnt carries a worse-than-uniform warning"; else ok; fi
# a run that blows up without overflowing (SGD at lr 100: validation
# perplexity ~1e9 against 201 words) still exits 0 but says so, in the
# table and on stderr
# shellcheck disable=SC2086
expect_exit 0 "quick --preset mos, SGD lr 100" "$LM" train $Q --preset mos --lr 100 --epochs 1
expect_grep "^# warning=worse_than_uniform: the last validation perplexity .* exceeds the vocabulary size 201" \
    "$T/out" "a perplexity above the vocabulary size is a warning in the table"
expect_grep "warning: worse_than_uniform" "$T/err" "and on stderr"
# shellcheck disable=SC2086
expect_exit 0 "quick --preset mos" "$LM" train $Q --preset mos --epochs 1 --log "$T/mos.tsv" \
    --log-every 1 --ckpt "$T/mos" --ckpt-every 0
# each row one step: token counts per step vary (B=8 x lengths ~ N(20, 5) or N(10, 5))
awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/ && $8 == "nan" { d = $3 - prev; prev = $3; n[d]++ }
    END { for (k in n) m++; print m }' "$T/mos.tsv" >"$T/nlen"
if [ "$(cat "$T/nlen")" -ge 5 ]; then ok; else bad "--var-bptt: only $(cat "$T/nlen") chunk sizes in the log"; fi
awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/ && ($5 != 20 || !($6 > 0 && $6 < 20))' "$T/mos.tsv" >"$T/badrows"
expect_lines 0 "$T/badrows" "every log row: lr 20 (the base rate), a finite positive loss"
expect_eq "$(awk -F'\t' '!/^#/ && $1 ~ /^[0-9]+$/' "$T/mos.tsv" | tail -n 1 | cut -f2,3)" "1	19992" \
    "the epoch ends where fixed-length chunks end it (B x (L-1) tokens)"
expect_grep "^wdrop=0x1p-1$" "$T/mos/checkpoint.tsv" "checkpoint: wdrop 0.5"
expect_grep "^var_bptt=1$" "$T/mos/checkpoint.tsv" "checkpoint: var_bptt"
expect_grep "^alpha=0x1p\+1$" "$T/mos/checkpoint.tsv" "checkpoint: alpha 2"
# shellcheck disable=SC2086
expect_exit 0 "quick --preset awd" "$LM" train $Q --preset awd --max-steps 20
expect_eq "$(tsv_field "$T/out" head) $(tsv_field "$T/out" d)" "softmax 16" "--preset awd: softmax; --quick's D"

# ---- each option changes the trajectory, and none is a no-op ----------------------------------
# shellcheck disable=SC2086
"$LM" train $Q --max-steps 12 --ckpt "$T/none" >/dev/null 2>&1 || bad "plain run failed"
for opt in "--wdrop 0.5" "--alpha 2" "--beta 1" "--var-bptt" "--dropout-last 0.4"; do
    d=$T/o$(echo "$opt" | tr -dc 'a-z')
    # shellcheck disable=SC2086
    "$LM" train $Q --max-steps 12 $opt --ckpt "$d" >/dev/null 2>"$T/run.err" ||
        bad "$opt run failed: $(tail -n 2 "$T/run.err")"
    f=$(ls "$d"/ckpt-*-theta.npy 2>/dev/null)
    if [ -n "$f" ] && ! cmp -s "$f" "$T/none/ckpt-12-theta.npy"; then ok; else
        bad "$opt: parameters equal a run without it"
    fi
done

# ---- --max-steps stop, then --resume: bit for bit ---------------------------------------------
R="$Q --preset mos --d 8 --hidden 24,16 --epochs 100"
# shellcheck disable=SC2086
"$LM" train $R --max-steps 160 --ckpt "$T/ref" >/dev/null 2>"$T/run.err" ||
    bad "reference run failed: $(tail -n 2 "$T/run.err")"
# shellcheck disable=SC2086
"$LM" train $R --max-steps 133 --ckpt "$T/part" >/dev/null 2>"$T/run.err" ||
    bad "--max-steps 133 failed: $(tail -n 2 "$T/run.err")"
expect_exit 0 "--resume to 160 (across the epoch's end)" "$LM" train --data "$C" --ckpt "$T/part" \
    --resume --max-steps 160 --threads 2 -q
if cmp -s "$T/ref/ckpt-160-theta.npy" "$T/part/ckpt-160-theta.npy"; then ok; else
    bad "--max-steps then --resume: parameters differ from the uninterrupted run's"
fi
expect_eq "$(sed -n 's/^offset=//p' "$T/part/checkpoint.tsv")" \
    "$(sed -n 's/^offset=//p' "$T/ref/checkpoint.tsv")" "the same place in the epoch"

# ---- SIGINT, then --resume: bit for bit -------------------------------------------------------
R="$Q --preset awd --d 8 --hidden 24,8 --epochs 100" # --latent none: the last layer D wide
# shellcheck disable=SC2086
"$LM" train $R --max-steps 1500 --ckpt "$T/ref3" >/dev/null 2>"$T/run.err" ||
    bad "reference run failed: $(tail -n 2 "$T/run.err")"
# shellcheck disable=SC2086
"$LM" train $R --max-steps 1500 --ckpt "$T/kill" --ckpt-every 0 --log "$T/kill.tsv" \
    --log-every 50 >/dev/null 2>"$T/kill.err" &
signal_when INT $! logged "$T/kill.tsv" # once the log shows the run under way
expect_eq "$rc" 130 "SIGINT: exit 130"
step=$(sed -n 's/^step=//p' "$T/kill/checkpoint.tsv")
if [ -n "$step" ] && [ "$step" -gt 0 ] && [ "$step" -lt 1500 ]; then ok; else
    bad "checkpoint step '$step' not inside the run"
fi
expect_exit 0 "--resume after SIGINT" "$LM" train --data "$C" --ckpt "$T/kill" --resume --threads 2 -q
if cmp -s "$T/ref3/ckpt-1500-theta.npy" "$T/kill/ckpt-1500-theta.npy"; then ok; else
    bad "SIGINT then --resume: parameters differ from the uninterrupted run's"
fi

# ---- a checkpoint written before the new rows resumes as it was trained -----------------------
O="$Q --d 8 --hidden 24 --dropout-layer 0.2 --epochs 100"
# shellcheck disable=SC2086
"$LM" train $O --max-steps 60 --ckpt "$T/oref" >/dev/null 2>&1 || bad "old-style reference failed"
# shellcheck disable=SC2086
"$LM" train $O --max-steps 25 --ckpt "$T/old" >/dev/null 2>&1 || bad "old-style part failed"
grep -Ev '^(dropout_last|wdrop|alpha|beta|var_bptt|offset|latent)=' "$T/old/checkpoint.tsv" >"$T/ck.tsv"
mv "$T/ck.tsv" "$T/old/checkpoint.tsv"
expect_exit 0 "--resume of a checkpoint without the new rows" "$LM" train --data "$C" --ckpt "$T/old" \
    --resume --max-steps 60 --threads 2 -q
if cmp -s "$T/oref/ckpt-60-theta.npy" "$T/old/ckpt-60-theta.npy"; then ok; else
    bad "an old checkpoint resumed differently from the uninterrupted run"
fi
expect_grep "^dropout_last=-0x1p\+0$" "$T/old/checkpoint.tsv" "rewritten with the new rows at their defaults"

# ---- usage ------------------------------------------------------------------------------------
expect_exit 2 "--resume with another --wdrop" "$LM" train --data "$C" --ckpt "$T/part" --resume \
    --wdrop 0.3 -q
expect_grep "the command line contradicts the checkpoint .*--wdrop 0.3 given, 0.5 in the checkpoint" \
    "$T/err" "the conflict names --wdrop"
expect_exit 2 "--preset unknown" "$LM" train --data "$C" --preset foo -q
expect_grep "^sbw-lm train: --preset 'foo': mos or awd$" "$T/err" "unknown preset message"
expect_exit 2 "--wdrop 1" "$LM" train --data "$C" --quick --wdrop 1 -q
expect_exit 2 "--alpha -1" "$LM" train --data "$C" --quick --alpha -1 -q
expect_exit 0 "--help" "$LM" train --help
expect_grep "^--preset mos: MoS" "$T/out" "--help lists --preset mos"
expect_grep "--hidden 960,960,620 --tied --batch 12 --bptt 70 --var-bptt" "$T/out" "mos's sizes"
expect_grep "--dropout-layer 0.225 --dropout-last 0.4 --dropout-latent 0.29 --wdrop 0.5 --alpha 2 --beta 1" \
    "$T/out" "mos's regularisation"
expect_grep "^--preset awd: AWD-LSTM" "$T/out" "--help lists --preset awd"
expect_grep "--lr 30 " "$T/out" "awd's learning rate"
finish
