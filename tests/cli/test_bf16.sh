# tests/cli/test_bf16.sh -- sbw-lm train and sbw-fit --precision bf16 (issue 27):
# the usage errors; the refusal on a CPU without AVX-512 BF16 (here forced
# with ONEDNN_MAX_CPU_ISA, so it runs on every machine); and, where the CPU
# has it, a run that names its precision in the table, the log and the
# checkpoint, resumes bit for bit, refuses a resume in another precision,
# and is not the float32 run; sbw-fit's runs, reports its precision, ends
# near float32's KL and reads a checkpoint written before the bf16 row.
# (The numerics: tests/test_gemm.c, tests/test_lm_bf16.c.)
. tests/cli/lib.sh
LM=$BIN/sbw-lm
C=$T/corpus
sh tests/fixtures/make_lm_corpus.sh "$C" 2000
Q="--data $C --quick --threads 2 -q"

# ---- usage --------------------------------------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 2 "--precision half" "$LM" train $Q --precision half
expect_grep "precision 'half': single, double or bf16" "$T/err" "names the choices"
# shellcheck disable=SC2086
expect_exit 2 "--double with --precision bf16" "$LM" train $Q --double --precision bf16
expect_grep "disagree" "$T/err" "says they disagree"

# ---- no AVX-512 BF16: refused, exit 2, before any file is written ---------------------------------
# shellcheck disable=SC2086
expect_exit 2 "bf16 on an AVX-512 VNNI CPU" env ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI "$LM" train $Q \
    --precision bf16 --ckpt "$T/refused" --log "$T/refused.tsv"
expect_grep "AVX-512 BF16" "$T/err" "the reason names the instructions"
if [ -e "$T/refused/checkpoint.tsv" ] || [ -e "$T/refused.tsv" ]; then
    bad "a refused run left a checkpoint or a log"
else ok; fi

# ---- on a CPU with it ----------------------------------------------------------------------------
# shellcheck disable=SC2086
if ! "$LM" train $Q --precision bf16 --max-steps 1 >/dev/null 2>"$T/probe"; then
    if grep -q "AVX-512 BF16" "$T/probe"; then
        echo "note: this CPU has no AVX-512 BF16; the bf16 training checks are skipped"
        finish
        exit 0
    fi
    bad "bf16 probe run failed: $(head -c 300 "$T/probe")"
fi
O="$Q --epochs 100 --precision bf16"
# shellcheck disable=SC2086
expect_exit 0 "bf16 reference, 40 steps" "$LM" train $O --max-steps 40 --ckpt "$T/ref" \
    --log "$T/ref.tsv"
cp "$T/out" "$T/ref.out"
expect_grep "^# precision=bf16$" "$T/ref.out" "the table names bf16"
expect_grep "^# precision=bf16$" "$T/ref.tsv" "so does the log"
expect_grep "^bf16=1$" "$T/ref/checkpoint.tsv" "and the checkpoint"
# shellcheck disable=SC2086
"$LM" train $O --max-steps 20 --ckpt "$T/part" >/dev/null 2>&1 || bad "bf16 first half failed"
expect_exit 0 "--resume a bf16 run" "$LM" train --data "$C" --ckpt "$T/part" --resume \
    --max-steps 40 --threads 2 -q
if cmp -s "$T/ref/ckpt-40-theta.npy" "$T/part/ckpt-40-theta.npy"; then ok; else
    bad "a resumed bf16 run differs from the uninterrupted one"
fi
expect_exit 2 "--resume a bf16 run in float32" "$LM" train --data "$C" --ckpt "$T/part" --resume \
    --max-steps 60 --threads 2 -q --precision single
expect_grep "contradicts the checkpoint" "$T/err" "the conflict is named"
# a float32 run from the same seed is another run (its table says single)
# shellcheck disable=SC2086
expect_exit 0 "float32 twin, 40 steps" "$LM" train $Q --epochs 100 --max-steps 40 --ckpt "$T/f32"
expect_grep "^# precision=single$" "$T/out" "the float32 table says single"
if cmp -s "$T/ref/ckpt-40-theta.npy" "$T/f32/ckpt-40-theta.npy"; then
    bad "bf16 and float32 runs gave the same parameters"
else ok; fi

# ---- sbw-fit --precision bf16 ---------------------------------------------------------------------
FIT=$BIN/sbw-fit
"$BIN/sbw-synth" lowrank --n 400 --m 300 --rank 6 --seed 3 -o "$T/P.npy" >/dev/null 2>&1 ||
    bad "sbw-synth lowrank failed"
expect_exit 2 "sbw-fit bf16 on an AVX-512 VNNI CPU" env ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI "$FIT" \
    "$T/P.npy" --d 4 --steps 5 --precision bf16 -q
expect_grep "AVX-512 BF16" "$T/err" "sbw-fit's refusal names the instructions"
expect_exit 0 "sbw-fit --precision bf16" "$FIT" "$T/P.npy" --d 4 --steps 200 --precision bf16 -q
cp "$T/out" "$T/fb.tsv"
expect_grep "^# precision=bf16$" "$T/fb.tsv" "sbw-fit's table names bf16"
expect_exit 0 "sbw-fit float32 twin" "$FIT" "$T/P.npy" --d 4 --steps 200 -q
# the final KL (recomputed in float64 from the parameters) within 2% of
# float32's: 200 Adam steps whose gradients differ by ~2^-8 relative
kb=$(tsv_field "$T/fb.tsv" kl_mean) kf=$(tsv_field "$T/out" kl_mean)
# check-recipes: allow a test's tolerance on two tools' results
if awk -v a="$kb" -v b="$kf" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.02 * b) }'; then
    ok
else bad "sbw-fit bf16 KL $kb against float32's $kf: more than 2% apart"; fi
# a checkpoint written before the bf16 row (format 4) resumes, as float32
# (a run stopped by SIGTERM keeps its checkpoint)
timeout -s TERM 1 "$FIT" "$T/P.npy" --d 4 --steps 100000000 --checkpoint "$T/fck" -q \
    >/dev/null 2>&1
[ -f "$T/fck/checkpoint.tsv" ] || bad "sbw-fit stopped by SIGTERM left no checkpoint"
grep -v '^bf16=' "$T/fck/checkpoint.tsv" | sed 's/^sbw_checkpoint=5$/sbw_checkpoint=4/' >"$T/fck.tsv"
mv "$T/fck.tsv" "$T/fck/checkpoint.tsv"
at=$(sed -n 's/^step=//p' "$T/fck/checkpoint.tsv")
expect_exit 0 "--resume a format-4 sbw-fit checkpoint" "$FIT" "$T/P.npy" --resume "$T/fck" \
    --steps $((at + 10)) -q
expect_grep "^# precision=single$" "$T/out" "resumed as float32"
finish
