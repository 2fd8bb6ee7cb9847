# tests/cli/test_mixtape.sh -- the Mixtape head (Yang et al. 2019) in the
# tools: sbw-lm train --head mixtape (K = 4 by default; rank_bound D + F +
# 2 from gate sharing, F = ceil(M/10), measured by sbw-rank on the
# exported log Q: above the Softmax bound D + 2), eval --export's blocks,
# SIGTERM then --resume equal to an uninterrupted run bit for bit; sbw-fit
# --model mixtape (default K = 4, rank of its log Q above D + 2) and its
# --resume byte for byte.
. tests/cli/lib.sh
LM=$BIN/sbw-lm
FIT=$BIN/sbw-fit
C=$T/corpus
sh tests/fixtures/make_lm_corpus.sh "$C" 2000

# ---- sbw-lm: a quick Mixtape model and the rank of its outputs ------------------------------
expect_exit 0 "quick mixtape" "$LM" train --data "$C" --quick --head mixtape --epochs 2 \
    --ckpt "$T/mt" -q
cp "$T/out" "$T/mt.tsv"
expect_eq "$(tsv_field "$T/mt.tsv" head) k=$(tsv_field "$T/mt.tsv" k)" "mixtape k=4" \
    "--head mixtape without --k: the paper's K = 4"
# 200 words and <eos>: M = 201, F = 21 words with their own gates; D = 16 at --quick
expect_eq "$(tsv_field "$T/mt.tsv" rank_bound)" 39 "rank_bound D + F + 2 = 16 + 21 + 2"
"$LM" eval --data "$C" --ckpt "$T/mt" --tokens 300 --logprobs - -q 2>/dev/null |
    "$BIN/sbw-rank" - >"$T/rank.tsv" 2>"$T/rank.err"
r=$(tsv_field "$T/rank.tsv" rank)
if [ -n "$r" ] && [ "$r" -gt 18 ] && [ "$r" -le 39 ]; then ok; else
    bad "mixtape K=4 D=16: rank '$r' not in (D + 2, D + F + 2] = (18, 39]"
fi

expect_exit 0 "eval --export" "$LM" eval --data "$C" --ckpt "$T/mt" --export "$T/exp" -q
expect_eq "$(tsv_rows "$T/exp/params.tsv" | cut -f1 | tr '\n' ' ')" "name W b U V GU GV GB " \
    "params.tsv lists Mixtape's blocks"
for f in W b U V GU GV GB; do
    if [ -s "$T/exp/$f.npy" ]; then ok; else bad "--export wrote no $f.npy"; fi
done

# ---- sbw-lm: SIGTERM, then --resume: the same parameters as an uninterrupted run ------------
ARGS="--data $C --quick --head mixtape --d 8 --hidden 24,16 --epochs 100 --max-steps 600"
ARGS="$ARGS --threads 2 --dropout-in 0.2 -q"
# shellcheck disable=SC2086
"$LM" train $ARGS --ckpt "$T/ref" >/dev/null 2>"$T/run.err" ||
    bad "uninterrupted reference run failed (exit $?): $(tail -n 3 "$T/run.err")"
# shellcheck disable=SC2086
"$LM" train $ARGS --ckpt "$T/kill" --ckpt-every 0 --log "$T/kill.tsv" --log-every 50 \
    >/dev/null 2>"$T/kill.err" &
signal_when TERM $! logged "$T/kill.tsv"
expect_eq "$rc" 130 "SIGTERM: exit 130"
step=$(sed -n 's/^step=//p' "$T/kill/checkpoint.tsv")
if [ -n "$step" ] && [ "$step" -gt 0 ] && [ "$step" -lt 600 ]; then ok; else
    bad "checkpoint step '$step' not inside the run"
fi
expect_exit 0 "--resume" "$LM" train --data "$C" --ckpt "$T/kill" --resume --threads 2 -q
if cmp -s "$T/ref/ckpt-600-theta.npy" "$T/kill/ckpt-600-theta.npy"; then ok; else
    bad "resumed Mixtape parameters differ from the uninterrupted run's"
fi

# ---- sbw-fit --model mixtape -----------------------------------------------------------------
"$BIN/sbw-synth" dirichlet --n 200 --m 60 --alpha 0.3 --seed 4 -o "$T/D.npy" >/dev/null 2>&1
expect_exit 0 "sbw-fit --model mixtape" "$FIT" "$T/D.npy" --model mixtape --d 4 --steps 200 \
    --lr 0.03 -o "$T/Q.npy" -q
expect_eq "$(tsv_field "$T/out" model) k=$(tsv_field "$T/out" k)" "mixtape k=4" \
    "sbw-fit --model mixtape without --k: K = 4"
expect_grep "^# rank_bound=11$" "$T/out" "rank_bound D + F + 1 = 4 + 6 + 1 (no bias)"
expect_exit 0 "sbw-rank on the fit" "$BIN/sbw-rank" "$T/Q.npy"
r=$(tsv_field "$T/out" rank)
if [ -n "$r" ] && [ "$r" -gt 5 ] && [ "$r" -le 11 ]; then ok; else
    bad "fitted mixtape D=4: rank '$r' not in (D + 1, D + F + 1] = (5, 11]"
fi
FARGS="--model mixtape --d 4 --steps 800 --batch 50 --lr 0.01 --threads 2 -q"
# shellcheck disable=SC2086
"$FIT" "$T/D.npy" $FARGS -o "$T/Qref.npy" >/dev/null 2>&1 || bad "uninterrupted mixtape fit failed"
# shellcheck disable=SC2086
"$FIT" "$T/D.npy" $FARGS -o "$T/Qk.npy" --checkpoint "$T/fck" --checkpoint-every 0.05 \
    >/dev/null 2>"$T/fkill.err" &
signal_when TERM $! test -f "$T/fck/checkpoint.tsv"
expect_eq "$rc" 130 "sbw-fit SIGTERM: exit 130 after a checkpoint"
expect_exit 0 "sbw-fit --resume" "$FIT" "$T/D.npy" --resume "$T/fck" --steps 800 --threads 2 \
    -q -o "$T/Qk.npy"
if cmp -s "$T/Qref.npy" "$T/Qk.npy"; then ok; else bad "resumed mixtape fit's log Q differs"; fi

finish
