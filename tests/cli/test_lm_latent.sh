# tests/cli/test_lm_latent.sh -- sbw-lm train --latent none and the presets
# that build the papers' networks (issue 28), at tiny sizes: --preset mos
# (the last layer straight to K components with a bias, dropout on g_k) and
# --preset awd (softmax on the last layer) train and learn; the table, the
# log and the checkpoint name the architecture; eval's perplexity equals
# training's last validation; --export writes the head with its context
# width and component bias; --max-steps then --resume equals an
# uninterrupted run bit for bit; a checkpoint written before --latent
# resumes as tanh; the usage errors.
. tests/cli/lib.sh
LM=$BIN/sbw-lm
C=$T/corpus
sh tests/fixtures/make_lm_corpus.sh "$C" 2000
Q="--data $C --quick --threads 2 -q"

# ---- --preset mos at tiny sizes: the MoS code's network --------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "tiny --preset mos" "$LM" train $Q --preset mos --optim adam --lr 0.01 --epochs 2 \
    --log "$T/mos.tsv" --ckpt "$T/mos"
cp "$T/out" "$T/mos.out"
expect_grep "^# latent=none$" "$T/mos.out" "the table names --latent none"
expect_grep "^# latent=none$" "$T/mos.tsv" "so does the log's header"
expect_grep "^latent=none$" "$T/mos/checkpoint.tsv" "and the checkpoint"
expect_grep "^sbw_checkpoint=5$" "$T/mos/checkpoint.tsv" "checkpoint format 5"
# params (--quick: D 16, K 3, one layer of 32): E tied 201x16; LSTM 16->32
# (4H(I+H+1)); U 48x32 + c 48; V 3x32; b 201
want=$((201 * 16 + 128 * 49 + 48 * 32 + 48 + 3 * 32 + 201))
expect_eq "$(tsv_field "$T/mos.out" params)" "$want" "params: no P, p0; U_k 16 x 32, c_k, V 3 x 32"
ppl=$(tsv_field "$T/mos.out" valid_ppl)
if awk -v p="$ppl" 'BEGIN { exit !(p > 1 && p < 120) }'; then ok; else
    bad "--preset mos (latent none) at tiny scale: valid_ppl '$ppl' not well below uniform's 201"
fi
expect_exit 0 "eval valid" "$LM" eval --data "$C" --ckpt "$T/mos" --split valid --eval-batch 4 \
    --tokens 3999 -q
expect_num_near "$(tsv_field "$T/out" ppl)" "$ppl" "$(awk -v p="$ppl" 'BEGIN { print 1e-3 * p }')" \
    "eval's perplexity equals training's last validation (double vs float)"
expect_exit 0 "eval --export" "$LM" eval --data "$C" --ckpt "$T/mos" --export "$T/exp" -q
expect_eq "$(tsv_meta "$T/exp/params.tsv" c) $(tsv_meta "$T/exp/params.tsv" cbias)" "32 true" \
    "params.tsv: context width 32 (the last layer), component bias"
expect_eq "$(tsv_rows "$T/exp/params.tsv" | cut -f1 | tr '\n' ' ')" "name W b U V U_bias " \
    "the export lists U_bias"
expect_eq "$(tsv_rows "$T/exp/params.tsv" | awk -F'\t' '$1 == "U" { print $3 "x" $4 }')" "48x32" \
    "U is K D x C"
expect_exit 0 "eval --logprobs" "$LM" eval --data "$C" --ckpt "$T/mos" --tokens 300 \
    --logprobs "$T/lq.npy" -q
expect_exit 0 "sbw-info on the log-probabilities" "$BIN/sbw-info" "$T/lq.npy"
expect_eq "$(tsv_field "$T/out" rows_logprob)" 300 "every exported row is a normalised log row"

# ---- --preset awd at tiny sizes: AWD-LSTM's network ------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "tiny --preset awd" "$LM" train $Q --preset awd --max-steps 60 --ckpt "$T/awd"
cp "$T/out" "$T/awd.out"
expect_eq "$(tsv_field "$T/awd.out" head) $(tsv_field "$T/awd.out" d)" "softmax 16" \
    "--preset awd: softmax, --quick's D"
expect_grep "^# hidden=16$" "$T/awd.out" "--quick's one layer is D wide under --latent none"
# params: E tied 201x16; LSTM 16->16; b 201
expect_eq "$(tsv_field "$T/awd.out" params)" "$((201 * 16 + 64 * 33 + 201))" \
    "params: no P, p0 (logits = W h + b)"
expect_eq "$(tsv_field "$T/awd.out" rank_bound)" 18 "rank bound D + 2"
expect_exit 0 "awd eval --export" "$LM" eval --data "$C" --ckpt "$T/awd" --export "$T/expa" -q
expect_absent "$T/expa/U_bias.npy" "a softmax head has no component bias"
if grep -q '^# c=' "$T/expa/params.tsv"; then bad "a C = D head's params.tsv carries c="; else ok; fi

# ---- --max-steps then --resume: bit for bit ---------------------------------------------------
R="$Q --preset mos --d 8 --hidden 24,16 --dropout-latent 0.29 --epochs 100"
# shellcheck disable=SC2086
"$LM" train $R --max-steps 90 --ckpt "$T/ref" >/dev/null 2>"$T/run.err" ||
    bad "reference run failed: $(tail -n 2 "$T/run.err")"
# shellcheck disable=SC2086
"$LM" train $R --max-steps 47 --ckpt "$T/part" >/dev/null 2>"$T/run.err" ||
    bad "--max-steps 47 failed: $(tail -n 2 "$T/run.err")"
expect_exit 0 "--resume to 90" "$LM" train --data "$C" --ckpt "$T/part" --resume --max-steps 90 \
    --threads 2 -q
if cmp -s "$T/ref/ckpt-90-theta.npy" "$T/part/ckpt-90-theta.npy"; then ok; else
    bad "--latent none: --max-steps then --resume differs from the uninterrupted run"
fi
# the dropout on g_k is applied: without it the same run ends elsewhere
# shellcheck disable=SC2086
"$LM" train $R --max-steps 90 --dropout-latent 0 --ckpt "$T/nog" >/dev/null 2>&1 || bad "run failed"
if cmp -s "$T/ref/ckpt-90-theta.npy" "$T/nog/ckpt-90-theta.npy"; then
    bad "--dropout-latent 0.29 on g_k changed nothing"
else ok; fi

# ---- a checkpoint written before --latent resumes as tanh -------------------------------------
O="$Q --d 8 --hidden 24 --epochs 100"
# shellcheck disable=SC2086
"$LM" train $O --max-steps 40 --ckpt "$T/oref" >/dev/null 2>&1 || bad "tanh reference failed"
# shellcheck disable=SC2086
"$LM" train $O --max-steps 20 --ckpt "$T/old" >/dev/null 2>&1 || bad "tanh part failed"
grep -Ev '^(latent|bf16)=' "$T/old/checkpoint.tsv" | sed 's/^sbw_checkpoint=5$/sbw_checkpoint=3/' >"$T/ck.tsv"
mv "$T/ck.tsv" "$T/old/checkpoint.tsv"
expect_exit 0 "--resume of a format-3 checkpoint" "$LM" train --data "$C" --ckpt "$T/old" --resume \
    --max-steps 40 --threads 2 -q
if cmp -s "$T/oref/ckpt-40-theta.npy" "$T/old/ckpt-40-theta.npy"; then ok; else
    bad "a checkpoint without the latent row resumed differently from the uninterrupted run"
fi
expect_grep "^latent=tanh$" "$T/old/checkpoint.tsv" "rewritten with latent=tanh"

# ---- usage ------------------------------------------------------------------------------------
expect_exit 2 "--latent none, softmax, last layer != D" "$LM" train --data "$C" --latent none \
    --d 8 --hidden 24 -q
expect_grep "--latent none feeds the last LSTM layer \(24 wide, --hidden\) to the softmax head's logits: it must equal --d 8" \
    "$T/err" "the message names --hidden and --d"
expect_exit 2 "--latent none, softmax, --dropout-latent" "$LM" train --data "$C" --latent none \
    --d 8 --hidden 8 --dropout-latent 0.3 -q
expect_grep "--dropout-latent does not apply to --latent none" "$T/err" "names --dropout-latent"
expect_exit 2 "--latent bogus" "$LM" train --data "$C" --latent linear -q
expect_grep "^sbw-lm train: --latent 'linear': tanh or none$" "$T/err" "names the choices"
expect_exit 2 "--resume with another --latent" "$LM" train --data "$C" --ckpt "$T/part" --resume \
    --latent tanh -q
expect_grep "contradicts the checkpoint.*--latent" "$T/err" "the conflict names --latent"
expect_exit 0 "--help" "$LM" train --help
expect_grep "--head mos --k 15 --latent none --d 280" "$T/out" "--help: mos's network"
expect_grep "--head softmax --latent none --d 400" "$T/out" "--help: awd's network"
finish
