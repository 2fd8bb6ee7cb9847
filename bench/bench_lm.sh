#!/bin/sh
# bench_lm.sh -- sbw-lm training speed against a PyTorch reference of the
# same model (bench/ref_lm_torch.py: embedding, LSTM, latent tanh(P x + p0),
# softmax or MoS head, truncated BPTT, SGD with clipping 0.25, dropout off,
# float32, torch.set_num_threads(2)), on Penn Treebank (issue 14, Speed).
#
# One LSTM, batch and BPTT length for both models: embedding $LM_EMB (400),
# one LSTM layer of $LM_HIDDEN (960), batch $LM_BATCH (12), BPTT $LM_BPTT
# (70); heads softmax D=400 and MoS D=280 K=15.
# 1. Training tokens per second: sbw from its --log-every 1 log (per-step
#    differences of the cumulative tokens and seconds columns, without the
#    first two rows, warm-up; median), torch as the median of B*T / step
#    time over the steps after two warm-up steps; one run each.  Target:
#    sbw >= 2x torch for both heads.
# 2. The MoS head's GEMM rate: GEMM flops per step (6*N*K*D*M + 6*N*K*D*D
#    + 6*N*K*D, N = B*T: forward, dX and dW of logits, U and V) over the
#    per-step difference of the log's head_seconds (median), as a fraction
#    of the sgemm peak measured here (bench/sgemm_peak.c, n=4000, 2 threads,
#    the same OpenBLAS).  Target >= 60%.  torch's head alone (forward +
#    backward on a fixed B*T x D input, ref_lm_torch.py --head-only) is
#    given beside it.
# 3. sbw-lm eval --logprobs - into a pipe, for $LM_EVAL_TOKENS and twice as
#    many rows of the validation split, from a one-step checkpoint: rows
#    per second (wall time of the whole command, start-up included) and
#    peak RSS.  Check: the peak grows by less than half of the float32
#    T x M matrix that the extra rows would add if the tool held it, and
#    stays below the float64 T x M size.
# Everything runs in the environment's OpenBLAS kernel choice
# (OPENBLAS_CORETYPE or OpenBLAS's detection), the same for both sides:
# Debian's torch links the system libblas.so.3 (OpenBLAS), noted below.
# PTB: $SBW_PTB (default /work/shared/data/ptb, else ../shared/data/ptb);
# without it the bench is skipped.  Exit 1 when a run fails or a target
# is missed.
set -u
. bench/lib.sh
EMB=${LM_EMB:-400}
HIDDEN=${LM_HIDDEN:-960}
B=${LM_BATCH:-12}
T=${LM_BPTT:-70}
K=15
SM_STEPS=${LM_SOFTMAX_STEPS:-30}
MOS_STEPS=${LM_MOS_STEPS:-8}
HEAD_STEPS=${LM_HEAD_STEPS:-10}
EVAL_T=${LM_EVAL_TOKENS:-5000}
status=0
dir=$BENCH_TMP/lm
mkdir -p "$dir"

PTB=${SBW_PTB:-/work/shared/data/ptb}
[ -n "${SBW_PTB:-}" ] || [ -d "$PTB" ] || PTB=../shared/data/ptb
if [ ! -f "$PTB/ptb.train.txt" ] && [ ! -f "$PTB/train.txt" ]; then
    bench_note "lm: no Penn Treebank under $PTB (set SBW_PTB); bench skipped"
    exit 0
fi
if ! $PY -c 'import torch' 2>/dev/null; then
    bench_note "lm: $PY has no torch (apt-get install python3-torch); bench skipped"
    exit 1
fi
cc -O2 -o "$dir/sgemm_peak" bench/sgemm_peak.c -lopenblas || exit 1

json_field() { $PY -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# log_rates LOG FLOPS_PER_TOKEN: "TOKENS_PER_S HEAD_GFLOPS" from a sbw-lm
# --log-every 1 log: medians over the steps after the first two rows of
# the per-step rates; rows with a validation (valid_ppl not nan) or no new
# tokens (an epoch-end row) are left out.
log_rates() {
    awk -F'\t' -v fpt="$2" '
        function med(v, n,   i, j, x) {
            for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
            return n ? v[int((n - 1) / 2)] : 0
        }
        BEGIN { n = 0 }
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { r++; tok = $c["tokens"]; sec = $c["seconds"]; hs = $c["head_seconds"]
          if (r > 2 && tolower($c["valid_ppl"]) ~ /nan/ && tok > tok0 && sec > sec0 && hs > hs0) {
              rate[n] = (tok - tok0) / (sec - sec0); gf[n] = fpt * (tok - tok0) / (hs - hs0) / 1e9; n++ }
          tok0 = tok; sec0 = sec; hs0 = hs }
        END { printf "%.1f %.1f\n", med(rate, n), med(gf, n) }' "$1"
}

met() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? "met" : "NOT met" }'; }

ver=$($PY -c 'import torch; print(torch.__version__)')
lib=$($PY -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')
tblas=$(ldd "$lib" | awk '$1 ~ /^lib(open)?blas/ { printf "%s%s -> %s", s, $1, $3; s = ", " }')
bench_note "PyTorch $ver (float32, 2 threads): libtorch_cpu.so links $tblas ($(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3))"
# shellcheck disable=SC2046 # "GFLOPS CORENAME", split on purpose
set -- $("$dir/sgemm_peak" 4000 2)
peak=$1 core=$2
bench_note "sgemm peak (n=4000, 2 threads, $(basename "$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0)"), kernels $core, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}): $peak GFLOPS"
if [ "$core" = Prescott ] && grep -q avx512f /proc/cpuinfo; then
    bench_note "  (OpenBLAS chose Prescott kernels on an AVX-512 CPU, a misdetection: OPENBLAS_CORETYPE=SkylakeX gives the real peak)"
fi
lstm="emb $EMB, LSTM $HIDDEN, batch $B, BPTT $T"
bench_note "sbw-lm vs PyTorch on PTB ($PTB): $lstm, SGD, clip 0.25, no dropout"

# model NAME HEAD D STEPS: one training run on each side; sets $m and the
# MoS head's GFLOPS ($sbw_gf) for the caller.
model() {
    name=$1 head=$2 d=$3 steps=$4
    $PY bench/ref_lm_torch.py --data "$PTB" --head "$head" --k $K --d "$d" --emb "$EMB" \
        --hidden "$HIDDEN" --batch "$B" --bptt "$T" --steps "$steps" >"$dir/torch.json" \
        2>"$dir/torch.err" || { cat "$dir/torch.err"; bench_note "lm $name: FAIL: torch run"; status=1; return 1; }
    m=$(json_field "$dir/torch.json" m)
    "$BIN/sbw-lm" train --data "$PTB" --head "$head" --k $K --d "$d" --emb "$EMB" \
        --hidden "$HIDDEN" --batch "$B" --bptt "$T" --no-dropout --seed 1 \
        --max-steps $((steps + 2)) --log-every 1 --log "$dir/log.tsv" -q --threads 2 \
        >"$dir/train.tsv" 2>"$dir/sbw.err" || { cat "$dir/sbw.err"; bench_note "lm $name: FAIL: sbw-lm train"; status=1; return 1; }
    if [ "$head" = mos ]; then
        fpt=$((6 * K * d * (m + d + 1)))
    else
        fpt=$((6 * d * m))
    fi
    # shellcheck disable=SC2046
    set -- $(log_rates "$dir/log.tsv" "$fpt")
    s=$1 sbw_gf=$2
    t=$(json_field "$dir/torch.json" tokens_per_s | awk '{ printf "%.1f", $1 }')
    r=$(ratio "$s" "$t")
    v=$(met "$r" 2)
    [ "$v" = met ] || status=1
    bench_note "lm $name: sbw $s tok/s, torch $t tok/s: speedup ${r}x (target >= 2x: $v; median of $steps steps)"
    rows=$(tsv_rows "$dir/log.tsv" | wc -l)
    bench_note "lm $name: last step's loss: sbw $(tsv_field "$dir/log.tsv" loss $((rows - 1))), torch $(json_field "$dir/torch.json" loss) (information: different initial values)"
}

model "softmax D=400" softmax 400 "$SM_STEPS"
model "mos D=280 K=15" mos 280 "$MOS_STEPS" && {
    $PY bench/ref_lm_torch.py --data "$PTB" --head mos --k $K --d 280 --batch "$B" --bptt "$T" \
        --steps "$HEAD_STEPS" --head-only >"$dir/head.json" 2>"$dir/torch.err" || {
        cat "$dir/torch.err"
        status=1
    }
    tg=$(json_field "$dir/head.json" head_gflops | awk '{ printf "%.1f", $1 }')
    p=$(awk -v a="$sbw_gf" -v b="$peak" 'BEGIN { printf "%.0f", 100 * a / b }')
    q=$(awk -v a="$tg" -v b="$peak" 'BEGIN { printf "%.0f", 100 * a / b }')
    v=$(met "$p" 60)
    [ "$v" = met ] || status=1
    bench_note "lm mos head GEMMs (N=$((B * T)), K=$K, D=280, M=$m): sbw $sbw_gf GFLOPS = $p% of sgemm peak (target >= 60%: $v); torch head alone: $tg GFLOPS = $q%"
}

# eval_peak CKPT ROWS: "SECONDS PEAK_KB BYTES" of eval --logprobs - into a
# pipe; fails if sbw-lm fails.
eval_peak() {
    # shellcheck disable=SC2046,SC2016 # sh -c expands its own arguments
    set -- $(run_once sh -c '{ "$0" eval --data "$1" --ckpt "$2" --logprobs - --tokens "$3"; echo $? >"$4.rc"; } | wc -c >"$4"' \
        "$BIN/sbw-lm" "$PTB" "$1" "$2" "$dir/bytes") "$(cat "$dir/bytes")"
    [ "$(cat "$dir/bytes.rc")" = 0 ] || { cat "$BENCH_OUT/last.err" >&2; return 1; }
    echo "$@"
}

for head in softmax mos; do
    d=400
    [ $head = mos ] && d=280
    ck=$dir/ckpt_$head
    rm -rf "$ck"
    "$BIN/sbw-lm" train --data "$PTB" --head $head --k $K --d $d --emb "$EMB" --hidden "$HIDDEN" \
        --batch "$B" --bptt "$T" --no-dropout --max-steps 1 --ckpt "$ck" -q --threads 2 \
        >/dev/null 2>"$dir/sbw.err" || { cat "$dir/sbw.err"; bench_note "lm eval $head: FAIL: checkpoint"; status=1; continue; }
    if ! r1=$(eval_peak "$ck" "$EVAL_T") || ! r2=$(eval_peak "$ck" $((2 * EVAL_T))); then
        bench_note "lm eval $head: FAIL: sbw-lm eval"
        status=1
        continue
    fi
    # shellcheck disable=SC2086 # six numbers: seconds, peak KB, bytes of each run
    set -- $r1 $r2
    rows=$(awk -v n=$((2 * EVAL_T)) -v s="$4" 'BEGIN { printf "%.0f", (s > 0) ? n / s : 0 }')
    grow=$((($5 - $2) / 1024))
    held=$((EVAL_T * ${m:-10000} * 4 / 1048576))
    full=$((2 * EVAL_T * ${m:-10000} * 8 / 1048576))
    v=met
    if [ $((grow * 2)) -ge "$held" ] || [ $(($5 / 1024)) -ge "$full" ]; then
        v="NOT met"
        status=1
    fi
    bench_note "lm eval --logprobs $head D=$d: $((2 * EVAL_T)) rows in $4 s = $rows rows/s ($(($6 / 1048576)) MB written); peak RSS $(($2 / 1024)) MB at $EVAL_T rows, $(($5 / 1024)) MB at $((2 * EVAL_T)) (T x M float64: $full MB); growth $grow MB where holding the matrix would add >= $held MB (target < $((held / 2)) MB: $v)"
done
rm -rf "$dir/log.tsv" "$dir/train.tsv" "$dir/torch.json" "$dir/head.json" "$dir"/ckpt_* "$dir"/bytes*
# ---- issue 28 (wt-reg): the papers' regularisation, on against off ----------------------------
# The MoS bench model above (emb $EMB, LSTM $HIDDEN, batch $B, BPTT $T, D=280,
# K=15), training tokens per second (log_rates: median per step after two
# warm-up rows) three ways: no dropout; the locked and word dropouts at
# --preset mos's values; and those plus --preset mos's weight drop 0.5, AR
# alpha 2, TAR beta 1 and variable BPTT.  Information, no target: what the
# regularisers cost.  LM_REG_STEPS steps each (default 8).
REG_STEPS=${LM_REG_STEPS:-8}
reg_drop="--dropout-emb 0.1 --dropout-in 0.4 --dropout-layer 0.225 --dropout-last 0.4 --dropout-latent 0.29"
reg_new="--wdrop 0.5 --alpha 2 --beta 1 --var-bptt"
for reg in off dropouts all; do
    case $reg in
    off) opts="--no-dropout" ;;
    dropouts) opts=$reg_drop ;;
    all) opts="$reg_drop $reg_new" ;;
    esac
    # shellcheck disable=SC2086 # opts are options, split on purpose
    "$BIN/sbw-lm" train --data "$PTB" --head mos --k $K --d 280 --emb "$EMB" --hidden "$HIDDEN" \
        --batch "$B" --bptt "$T" $opts --seed 1 --max-steps $((REG_STEPS + 2)) --log-every 1 \
        --log "$dir/reg.tsv" -q --threads 2 >/dev/null 2>"$dir/sbw.err" ||
        { cat "$dir/sbw.err"; bench_note "lm regularisation $reg: FAIL: sbw-lm train"; status=1; continue; }
    # shellcheck disable=SC2046
    set -- $(log_rates "$dir/reg.tsv" 1)
    case $reg in
    off) reg_off=$1 ;;
    dropouts) reg_dropouts=$1 ;;
    all) reg_all=$1 ;;
    esac
    bench_note "lm mos D=280 K=15, regularisation $reg: sbw $1 tok/s (median of $REG_STEPS steps)"
done
bench_note "lm mos regularisation cost: dropouts $(ratio "${reg_dropouts:-0}" "${reg_off:-0}")x, all $(ratio "${reg_all:-0}" "${reg_off:-0}")x the tokens/s without (information)"
rm -f "$dir/reg.tsv"
# ---- end of issue 28's block ------------------------------------------------------------------
exit $status
