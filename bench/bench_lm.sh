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
# 2b. bfloat16 (issue 27), on a CPU with AVX-512 BF16 (else a note): the
#    bfloat16 GEMM peak (bench/bf16_peak.c: oneDNN's matmul, n=4000, 2
#    threads); both models again with sbw-lm --precision bf16, their tokens/s
#    against sbw float32 (target >= 1.6x), PyTorch float32 (>= 3x) and
#    PyTorch under torch.autocast("cpu", bfloat16) (ref_lm_torch.py
#    --autocast; >= 2x); the MoS head's rate (GEMM flops over head seconds,
#    as in 2) against the bfloat16 peak (>= 75%).
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
# without it the bench is skipped.  Without torch the PyTorch lines are
# skipped with a note and sbw's figures are still printed.
# BENCH_QUICK=1: a generated corpus (tests/fixtures/make_lm_corpus.sh, 201
# words) instead of PTB, emb 16, LSTM 32, batch 4, BPTT 10, Softmax D=16 and
# MoS D=12 K=3, 3 steps: seconds.  The same-size block compares Softmax,
# MoS (K) and Mixtape (K = 4) at D = MOS_D (Mixtape's efficiency claim).
# Exit 1 when a run fails or a figure is missing; a missed target is noted
# (bench/lib.sh: bench_missed).
#
# The models are the `model` calls below; a new line (another head, or
# sbw-lm options such as a regulariser, passed after the step count) adds
# its row of figures and its eval row.  head_opts gives each head the
# options it takes: sbw-lm refuses --k for a head without components.
set -u
. bench/lib.sh
EMB=${LM_EMB:-$(quick 400 16)}
HIDDEN=${LM_HIDDEN:-$(quick 960 32)}
B=${LM_BATCH:-$(quick 12 4)}
T=${LM_BPTT:-$(quick 70 10)}
K=${LM_K:-$(quick 15 3)}
SM_D=${LM_SOFTMAX_D:-$(quick 400 16)}
MOS_D=${LM_MOS_D:-$(quick 280 12)}
SM_STEPS=${LM_SOFTMAX_STEPS:-$(quick 30 3)}
MOS_STEPS=${LM_MOS_STEPS:-$(quick 8 3)}
HEAD_STEPS=${LM_HEAD_STEPS:-$(quick 10 2)}
EVAL_T=${LM_EVAL_TOKENS:-$(quick 5000 200)}
dir=$BENCH_TMP/lm
mkdir -p "$dir"

if [ "$BENCH_QUICK" = 1 ]; then
    PTB=$dir/corpus
    sh tests/fixtures/make_lm_corpus.sh "$PTB" 1000 || { bench_fail "lm: corpus"; exit 1; }
else
    PTB=${SBW_PTB:-/work/shared/data/ptb}
    [ -n "${SBW_PTB:-}" ] || [ -d "$PTB" ] || PTB=../shared/data/ptb
    if [ ! -f "$PTB/ptb.train.txt" ] && [ ! -f "$PTB/train.txt" ]; then
        bench_skip "lm: no Penn Treebank under $PTB (set SBW_PTB)"
        exit 0
    fi
fi
torch=0
have_py torch numpy && torch=1
sgemm_peak_build "$dir" || { bench_fail "lm: cannot compile bench/sgemm_peak.c"; exit 1; }

# head_opts HEAD: the sbw-lm options that HEAD takes beyond --d
head_opts() {
    case $1 in
    moc | mos | mos+plif) echo "--k $K" ;;
    mixtape) echo "--k 4" ;;
    esac
}

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

if [ $torch = 1 ]; then
    ver=$($PY -c 'import torch; print(torch.__version__)')
    lib=$($PY -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))')
    tblas=$(ldd "$lib" | awk '$1 ~ /^lib(open)?blas/ { printf "%s%s -> %s", s, $1, $3; s = ", " }')
    bench_note "PyTorch $ver (float32, 2 threads): libtorch_cpu.so links $tblas ($(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3))"
fi
# shellcheck disable=SC2046 # "GFLOPS CORENAME", split on purpose
set -- $("$dir/sgemm_peak" "$BENCH_PEAK_N" 2) || true
peak=${1:-} core=${2:-}
if bench_num "lm: sgemm peak" "$peak"; then
    bench_fig "sgemm peak (n=$BENCH_PEAK_N, 2 threads, $(basename "$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0)"), kernels $core, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}): $peak GFLOPS"
fi
# the bfloat16 peak through oneDNN (bench/bf16_peak.c); bf16=0 without
# AVX-512 BF16, when the bfloat16 rows are skipped with a note
bf16=0
if bf16_peak_build "$dir"; then
    # shellcheck disable=SC2046 # "GFLOPS IMPL", split on purpose
    set -- $("$dir/bf16_peak" "$BENCH_PEAK_N" 2) || true
    bpeak=${1:-} bimpl=${2:-}
    if [ "$bpeak" = none ]; then
        bench_note "lm: this CPU has no AVX-512 BF16: the bfloat16 rows (sbw-lm --precision bf16) are skipped"
    elif bench_num "lm: bf16 peak" "$bpeak"; then
        bf16=1
        bench_fig "bf16 GEMM peak (n=$BENCH_PEAK_N, 2 threads, oneDNN $bimpl, float32 output): $bpeak GFLOPS = $(ratio "$bpeak" "$peak")x the sgemm peak"
    fi
else
    bench_fail "lm: cannot compile bench/bf16_peak.c"
fi
if [ "$core" = Prescott ] && grep -q avx512f /proc/cpuinfo; then
    bench_note "  (OpenBLAS chose Prescott kernels on an AVX-512 CPU, a misdetection: OPENBLAS_CORETYPE=SkylakeX gives the real peak)"
fi
lstm="emb $EMB, LSTM $HIDDEN, batch $B, BPTT $T"
bench_note "sbw-lm$([ $torch = 1 ] && echo ' vs PyTorch') on $PTB: $lstm, SGD, clip 0.25, no dropout"

# sbw_train LOG STEPS SBW-LM-OPTION...: sbw-lm train on the bench's network
# (embedding, LSTM, batch, BPTT, seed 1, two threads) for STEPS steps after
# two warm-up steps, a log row each into LOG; the options given choose the
# head and the regularisation.  sbw-lm's status; its stdout is the caller's.
sbw_train() {
    slog=$1 ssteps=$2
    shift 2
    "$BIN/sbw-lm" train --data "$PTB" --emb "$EMB" --hidden "$HIDDEN" --batch "$B" --bptt "$T" \
        --seed 1 --max-steps $((ssteps + 2)) --log-every 1 --log "$slog" -q --threads 2 "$@"
}

# fpt_of HEAD D: the head's GEMM flops per token (forward, dX, dW) over
# the vocabulary $m: 6 K D (M + D + 1) for mos, 6 D M otherwise.
fpt_of() {
    if [ "$1" = mos ]; then echo $((6 * K * $2 * (m + $2 + 1))); else echo $((6 * $2 * m)); fi
}

# model NAME HEAD D STEPS [SBW-LM OPTION...]: one training run on each side
# (the options after STEPS go to sbw-lm only); sets $m (the vocabulary) and
# $sbw_gf (the head's GEMM GFLOPS) for the caller.  False if a run failed.
model() {
    name=$1 head=$2 d=$3 steps=$4
    shift 4
    rm -f "$dir/log.tsv" "$dir/train.tsv" "$dir/torch.json"
    # shellcheck disable=SC2046 # head_opts: words, split on purpose
    sbw_train "$dir/log.tsv" "$steps" --head "$head" $(head_opts "$head") --d "$d" --no-dropout "$@" \
        >"$dir/train.tsv" 2>"$dir/sbw.err" || {
        cat "$dir/sbw.err"
        bench_fail "lm $name: sbw-lm train"
        return 1
    }
    m=$(tsv_meta "$dir/train.tsv" vocab)
    fpt=$(fpt_of "$head" "$d")
    # shellcheck disable=SC2046
    set -- $(log_rates "$dir/log.tsv" "$fpt")
    s=${1:-} sbw_gf=${2:-}
    rows=$(tsv_rows "$dir/log.tsv" | wc -l)
    loss=$(tsv_field "$dir/log.tsv" loss $((rows - 1)))
    bench_num "lm $name: sbw tokens/s, head GFLOPS, loss" "$s" "$sbw_gf" "$loss" || return 1
    eval "f32_$head=\$s"
    if [ $torch = 0 ]; then
        bench_fig "lm $name: sbw $s tok/s (median of $steps steps; no torch: speedup not measured); last step's loss $loss"
        return 0
    fi
    $PY bench/ref_lm_torch.py --data "$PTB" --head "$head" --k "$K" --d "$d" --emb "$EMB" \
        --hidden "$HIDDEN" --batch "$B" --bptt "$T" --steps "$steps" >"$dir/torch.json" \
        2>"$dir/torch.err" || {
        cat "$dir/torch.err"
        bench_fail "lm $name: torch run"
        return 1
    }
    t=$(json_field "$dir/torch.json" tokens_per_s | awk '{ printf "%.1f", $1 }')
    tloss=$(json_field "$dir/torch.json" loss)
    tm=$(json_field "$dir/torch.json" m)
    bench_num "lm $name: torch tokens/s, loss" "$t" "$tloss" || return 1
    [ "$tm" = "$m" ] || bench_fail "lm $name: vocabulary: sbw-lm $m words, torch $tm"
    r=$(ratio "$s" "$t")
    v=$(met "$r" 2)
    [ "$v" = met ] || bench_missed "lm $name: speedup ${r}x < 2x"
    bench_fig "lm $name: sbw $s tok/s, torch $t tok/s: speedup ${r}x (target >= 2x: $v; median of $steps steps)"
    bench_note "lm $name: last step's loss: sbw $loss, torch $tloss (information: different initial values)"
    eval "torch_$head=\$t"
}

# bf16_model NAME HEAD D STEPS: the float32 model above again with
# sbw-lm --precision bf16, against sbw in float32 (target >= 1.6x), PyTorch
# in float32 (>= 3x) and PyTorch under torch.autocast bfloat16 (>= 2x);
# for mos, the head's bfloat16 GEMM rate against the bfloat16 peak (>= 75%).
bf16_model() {
    name=$1 head=$2 d=$3 steps=$4
    eval "s32=\${f32_$head:-} t32=\${torch_$head:-}"
    rm -f "$dir/log.tsv"
    # shellcheck disable=SC2046 # head_opts: words, split on purpose
    sbw_train "$dir/log.tsv" "$steps" --head "$head" $(head_opts "$head") --d "$d" --no-dropout \
        --precision bf16 >"$dir/train.tsv" 2>"$dir/sbw.err" || {
        cat "$dir/sbw.err"
        bench_fail "lm $name bf16: sbw-lm train --precision bf16"
        return 1
    }
    fpt=$(fpt_of "$head" "$d")
    # shellcheck disable=SC2046
    set -- $(log_rates "$dir/log.tsv" "$fpt")
    sb=${1:-} gb=${2:-}
    bench_num "lm $name bf16: sbw tokens/s, head GFLOPS" "$sb" "$gb" || return 1
    r32=$(ratio "$sb" "$s32")
    v=$(met "$r32" 1.6)
    [ "$v" = met ] || bench_missed "lm $name bf16: ${r32}x sbw float32 < 1.6x"
    line="lm $name bf16: sbw $sb tok/s = ${r32}x sbw float32's $s32 (target >= 1.6x: $v)"
    if [ $torch = 1 ]; then
        $PY bench/ref_lm_torch.py --data "$PTB" --head "$head" --k "$K" --d "$d" --emb "$EMB" \
            --hidden "$HIDDEN" --batch "$B" --bptt "$T" --steps "$steps" --autocast \
            >"$dir/torch.json" 2>"$dir/torch.err" || {
            cat "$dir/torch.err"
            bench_fail "lm $name: torch --autocast run"
            return 1
        }
        ta=$(json_field "$dir/torch.json" tokens_per_s | awk '{ printf "%.1f", $1 }')
        bench_num "lm $name: torch autocast tokens/s" "$ta" || return 1
        rt=$(ratio "$sb" "$t32") ra=$(ratio "$sb" "$ta")
        vt=$(met "$rt" 3) va=$(met "$ra" 2)
        [ "$vt" = met ] || bench_missed "lm $name bf16: ${rt}x torch float32 < 3x"
        [ "$va" = met ] || bench_missed "lm $name bf16: ${ra}x torch autocast bf16 < 2x"
        line="$line, ${rt}x torch float32's $t32 (target >= 3x: $vt), ${ra}x torch autocast bf16's $ta (target >= 2x: $va)"
    fi
    bench_fig "$line (median of $steps steps)"
    [ "$head" = mos ] || return 0
    p=$(awk -v a="$gb" -v b="$bpeak" 'BEGIN { printf "%.0f", 100 * a / b }')
    v=$(met "$p" 75)
    [ "$v" = met ] || bench_missed "lm $name bf16 head: $p% < 75% of the bf16 peak"
    bench_fig "lm $name bf16 head (GEMMs and the per-context work, N=$((B * T)), K=$K, D=$d, M=$m): $gb GFLOPS = $p% of the bf16 peak $bpeak (target >= 75%: $v)"
}

# mos_head NAME: the MoS head's GEMM rate (after `model ... mos`) against
# the sgemm peak, and torch's head alone.
mos_head() {
    p=$(awk -v a="$sbw_gf" -v b="$peak" 'BEGIN { printf "%.0f", 100 * a / b }')
    v=$(met "$p" 60)
    [ "$v" = met ] || bench_missed "lm mos head GEMMs: $p% < 60% of the sgemm peak"
    line="lm $1 head GEMMs (N=$((B * T)), K=$K, D=$MOS_D, M=$m): sbw $sbw_gf GFLOPS = $p% of sgemm peak (target >= 60%: $v)"
    if [ $torch = 0 ]; then
        bench_fig "$line"
        return 0
    fi
    $PY bench/ref_lm_torch.py --data "$PTB" --head mos --k "$K" --d "$MOS_D" --batch "$B" --bptt "$T" \
        --steps "$HEAD_STEPS" --head-only >"$dir/head.json" 2>"$dir/torch.err" || {
        cat "$dir/torch.err"
        bench_fail "lm $1: torch --head-only"
        return 1
    }
    tg=$(json_field "$dir/head.json" head_gflops | awk '{ printf "%.1f", $1 }')
    bench_num "lm $1: torch head GFLOPS" "$tg" || return 1
    q=$(awk -v a="$tg" -v b="$peak" 'BEGIN { printf "%.0f", 100 * a / b }')
    bench_fig "$line; torch head alone: $tg GFLOPS = $q%"
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

# eval_mem HEAD D: sbw-lm eval --logprobs - of a one-step checkpoint, for
# $EVAL_T and twice as many rows: rows per second and peak RSS.
eval_mem() {
    head=$1 d=$2
    ck=$dir/ckpt_$head
    rm -rf "$ck"
    # shellcheck disable=SC2046 # head_opts: words, split on purpose
    "$BIN/sbw-lm" train --data "$PTB" --head "$head" $(head_opts "$head") --d "$d" --emb "$EMB" \
        --hidden "$HIDDEN" --batch "$B" --bptt "$T" --no-dropout --max-steps 1 --ckpt "$ck" -q \
        --threads 2 >"$dir/ck.tsv" 2>"$dir/sbw.err" || {
        cat "$dir/sbw.err"
        bench_fail "lm eval $head: checkpoint"
        return 1
    }
    mv=$(tsv_meta "$dir/ck.tsv" vocab)
    if ! r1=$(eval_peak "$ck" "$EVAL_T") || ! r2=$(eval_peak "$ck" $((2 * EVAL_T))); then
        bench_fail "lm eval $head: sbw-lm eval"
        return 1
    fi
    # shellcheck disable=SC2086 # six numbers: seconds, peak KB, bytes of each run
    set -- $r1 $r2
    bench_num "lm eval $head: seconds, peak KB, bytes" "$@" "$mv" || return 1
    [ "$6" = $((128 + 2 * EVAL_T * mv * 8)) ] ||
        bench_fail "lm eval $head: $6 bytes written, want $((128 + 2 * EVAL_T * mv * 8)) (a $((2 * EVAL_T)) x $mv float64 .npy)"
    rows=$(awk -v n=$((2 * EVAL_T)) -v s="$4" 'BEGIN { printf "%.0f", (s > 0) ? n / s : 0 }')
    grow=$((($5 - $2) / 1024))
    held=$((EVAL_T * mv * 4 / 1048576))
    full=$((2 * EVAL_T * mv * 8 / 1048576))
    v=met
    if [ $((grow * 2)) -ge "$held" ] || [ $(($5 / 1024)) -ge "$full" ]; then
        v="NOT met"
        bench_missed "lm eval $head: peak RSS growth $grow MB (limit $((held / 2)) MB) or peak $(($5 / 1024)) MB (limit $full MB)"
    fi
    bench_fig "lm eval --logprobs $head D=$d: $((2 * EVAL_T)) rows in $4 s = $rows rows/s ($(($6 / 1048576)) MB written); peak RSS $(($2 / 1024)) MB at $EVAL_T rows, $(($5 / 1024)) MB at $((2 * EVAL_T)) (T x M float64: $full MB); growth $grow MB where holding the matrix would add >= $held MB (target < $((held / 2)) MB: $v)"
}

model "softmax D=$SM_D" softmax "$SM_D" "$SM_STEPS"
model "mos D=$MOS_D K=$K" mos "$MOS_D" "$MOS_STEPS" && mos_head mos
if [ $bf16 = 1 ]; then
    bf16_model "softmax D=$SM_D" softmax "$SM_D" "$SM_STEPS"
    bf16_model "mos D=$MOS_D K=$K" mos "$MOS_D" "$MOS_STEPS"
fi
eval_mem softmax "$SM_D"
eval_mem mos "$MOS_D"

# The papers' regularisation (issue 28), on against off: the MoS model above,
# training tokens per second (log_rates: median per step after two warm-up
# rows) three ways: no dropout; the locked and word dropouts at --preset
# mos's values; those plus its weight drop 0.5, AR alpha 2, TAR beta 1 and
# variable BPTT.  Information, no target: what the regularisers cost.
REG_STEPS=${LM_REG_STEPS:-$(quick 8 3)}
reg_drop="--dropout-emb 0.1 --dropout-in 0.4 --dropout-layer 0.225 --dropout-last 0.4 --dropout-latent 0.29"
reg_new="--wdrop 0.5 --alpha 2 --beta 1 --var-bptt"
reg_off=0 reg_dropouts=0 reg_all=0
for reg in off dropouts all; do
    case $reg in
    off) opts="--no-dropout" ;;
    dropouts) opts=$reg_drop ;;
    all) opts="$reg_drop $reg_new" ;;
    esac
    rm -f "$dir/reg.tsv"
    # shellcheck disable=SC2086 # opts are options, split on purpose
    sbw_train "$dir/reg.tsv" "$REG_STEPS" --head mos --k "$K" --d "$MOS_D" $opts >/dev/null 2>"$dir/sbw.err" || {
        cat "$dir/sbw.err"
        bench_fail "lm regularisation $reg: sbw-lm train"
        continue
    }
    # shellcheck disable=SC2046
    set -- $(log_rates "$dir/reg.tsv" 1)
    bench_num "lm regularisation $reg: tokens/s" "${1:-}" || continue
    eval "reg_$reg=\$1"
    bench_fig "lm mos D=$MOS_D K=$K, regularisation $reg: sbw $1 tok/s (median of $REG_STEPS steps)"
done
bench_note "lm mos regularisation cost: dropouts $(ratio "$reg_dropouts" "$reg_off")x, all $(ratio "$reg_all" "$reg_off")x the tokens/s without (information)"
# Mixtape's efficiency claim (Yang et al. 2019, section 4: 3.5x to 10.5x
# MoS's speed, 20% to 34% slower than Softmax): the same network and head
# size D = MOS_D, no dropout, training tokens per second (log_rates: median
# per step after two warm-up rows) of Softmax, MoS (K) and Mixtape (K = 4,
# the paper's).  Target: Mixtape faster than MoS.
MIX_STEPS=${LM_MIXTAPE_STEPS:-$(quick 8 3)}
mix_softmax=0 mix_mos=0 mix_mixtape=0
for head in softmax mos mixtape; do
    rm -f "$dir/mix.tsv"
    # shellcheck disable=SC2046 # head_opts: words, split on purpose
    sbw_train "$dir/mix.tsv" "$MIX_STEPS" --head "$head" $(head_opts "$head") --d "$MOS_D" \
        --no-dropout >/dev/null 2>"$dir/sbw.err" || {
        cat "$dir/sbw.err"
        bench_fail "lm same-size $head: sbw-lm train"
        continue
    }
    # shellcheck disable=SC2046
    set -- $(log_rates "$dir/mix.tsv" 1)
    bench_num "lm same-size $head: tokens/s" "${1:-}" || continue
    eval "mix_$head=\$1"
    bench_fig "lm $head D=$MOS_D$([ "$head" = softmax ] || echo " $(head_opts "$head")") ($lstm): sbw $1 tok/s (median of $MIX_STEPS steps)"
done
r_mos=$(ratio "$mix_mixtape" "$mix_mos")
r_sm=$(ratio "$mix_mixtape" "$mix_softmax")
v=$(met "$r_mos" 1)
[ "$v" = met ] || bench_missed "lm mixtape: ${r_mos}x MoS's tokens/s, not faster"
bench_fig "lm mixtape K=4 vs mos K=$K at D=$MOS_D: ${r_mos}x MoS's tokens/s (target >= 1x: $v; the paper: 3.5x-10.5x), ${r_sm}x Softmax's (the paper: 0.66x-0.80x)"
rm -rf "$dir/bf16_peak" "$dir/reg.tsv" "$dir/mix.tsv" "$dir/log.tsv" "$dir/train.tsv" "$dir/ck.tsv" "$dir/torch.json" "$dir/head.json" "$dir"/ckpt_* "$dir"/bytes* "$dir/corpus"
exit $status
