#!/bin/sh
# bench_fit.sh -- sbw-fit against a PyTorch reference (bench/ref_fit_torch.py:
# the same head, loss, Adam settings and initial parameters, autograd,
# float32, torch.set_num_threads(2)).
#
# 1. N=10000, M=1000, D=20 (a Dirichlet(0.1) language), float32 GEMMs,
#    full-batch Adam lr 0.01, $FIT_STEPS steps from the parameters that
#    `sbw-fit --steps 0 --save` writes (both sides load them): seconds per
#    Adam step for softmax, mos K=10 and lms K=10 (sbw: median step interval
#    of its --log-every 1 log; torch: median step time; each the median of
#    $BENCH_REPS runs), the ratio torch/sbw (target >= 8), and the final mean
#    KL(P*||Q) of both computed in float64.  Self-check (exit 1): sbw's
#    final KL is no worse than torch's (relative slack 1e-4).
# 2. The paper's scale, N=100000, M=10000, D=100, softmax: seconds per step,
#    the GEMM rate it implies (3 GEMMs of 2NMD flops per step) as a fraction
#    of the machine's sgemm peak measured here (bench/sgemm_peak.c, same
#    OpenBLAS, 2 threads), peak memory.  FIT_BIG=0 skips it (an 8 GB file).
# Everything runs with the environment's OpenBLAS kernel choice
# (OPENBLAS_CORETYPE); when that variable forces one, softmax and the sgemm
# peak are also measured with OpenBLAS's own choice, for information.
set -u
. bench/lib.sh
N=${FIT_N:-10000}
M=${FIT_M:-1000}
D=${FIT_D:-20}
K=10
STEPS=${FIT_STEPS:-30}
LR=0.01
status=0
dir=$BENCH_TMP/fit
mkdir -p "$dir"
P=$dir/P.npy

if ! $PY -c 'import torch' 2>/dev/null; then
    bench_note "fit: $PY has no torch (apt-get install python3-torch); bench skipped"
    exit 1
fi
cc -O2 -o "$dir/sgemm_peak" bench/sgemm_peak.c -lopenblas || exit 1

# Median step interval from a --log-every 1 training log: differences of
# the seconds column, without the first two (warm-up) and the last (the
# final evaluation has no backward pass).
step_median() {
    awk -F'\t' '/^#/ || $1 == "step" { next } { t[n++] = $7 }
        END { m = 0; for (i = 3; i < n - 1; i++) v[m++] = t[i] - t[i - 1]
              for (i = 0; i < m; i++) for (j = i + 1; j < m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
              printf "%.6f\n", m ? v[int((m - 1) / 2)] : 0 }' "$1"
}

# tsv_col FILE COLUMN: the first data row's value of COLUMN
tsv_col() {
    awk -F'\t' -v col="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == col) c = i; h = 1; next } { print $c; exit }' "$1"
}

median3() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

json_field() { $PY -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

"$BIN/sbw-synth" dirichlet --n "$N" --m "$M" --alpha 0.1 --seed 1 -q -o "$P" >/dev/null || exit 1
bench_note "sbw-fit vs PyTorch $($PY -c 'import torch; print(torch.__version__)') (float32, 2 threads), N=$N M=$M D=$D, Adam lr $LR, $STEPS steps, median of $BENCH_REPS"
for model in softmax mos lms; do
    init=$dir/init_$model
    kopt="--k $K" # sbw-fit refuses --k for softmax, which has no components
    [ $model = softmax ] && kopt=""
    "$BIN/sbw-fit" "$P" --model $model $kopt --d "$D" --steps 0 --save "$init" -q >/dev/null ||
        { status=1; continue; }
    sbw_t="" torch_t=""
    i=0
    while [ $i -lt "$BENCH_REPS" ]; do
        "$BIN/sbw-fit" "$P" --model $model $kopt --d "$D" --steps "$STEPS" --lr $LR \
            --log-every 1 --log "$dir/log.tsv" -q >"$dir/out.tsv" || { status=1; break; }
        sbw_t="$sbw_t $(step_median "$dir/log.tsv")"
        $PY bench/ref_fit_torch.py "$P" "$init" $model $K "$STEPS" $LR >"$dir/torch.json" ||
            { status=1; break; }
        torch_t="$torch_t $(json_field "$dir/torch.json" sec_per_step)"
        i=$((i + 1))
    done
    [ $i -eq "$BENCH_REPS" ] || { bench_note "$model: FAIL: a run failed"; continue; }
    # shellcheck disable=SC2086
    s=$(median3 $sbw_t) t=$(median3 $torch_t)
    kl_sbw=$(tsv_col "$dir/out.tsv" kl_mean)
    kl_torch=$(json_field "$dir/torch.json" kl)
    r=$(ratio "$t" "$s")
    met=$(awk -v r="$r" 'BEGIN { print (r >= 8) ? "met" : "NOT met" }')
    bench_note "$model: sbw ${s}s/step, torch ${t}s/step: speedup torch/sbw = ${r}x (target 8x: $met)"
    bench_note "$model: final mean KL after $STEPS steps: sbw $kl_sbw, torch $kl_torch"
    if ! awk -v a="$kl_sbw" -v b="$kl_torch" 'BEGIN { exit !(a <= b * (1 + 1e-4) + 1e-9) }'; then
        bench_note "$model: FAIL: sbw's final KL is worse than torch's"
        status=1
    fi
done

# The parallel scheme, measured: OpenMP over blocks with single-threaded
# BLAS per block (the default) against blocks in sequence with threaded BLAS
# and OpenMP over each block's contexts (--parallel blas).
for model in softmax mos; do
    line="$model, seconds per step (one run each):"
    for par in blocks blas; do
        "$BIN/sbw-fit" "$P" --model $model $kopt --d "$D" --steps "$STEPS" --lr $LR \
            --parallel $par --log-every 1 --log "$dir/log.tsv" -q >/dev/null || status=1
        line="$line --parallel $par $(step_median "$dir/log.tsv")"
    done
    bench_note "$line"
done

# Information: the GEMM kernels OpenBLAS uses come from OPENBLAS_CORETYPE
# when it is set, else from its own CPU detection.  When the environment
# forces a kernel set, softmax (the head whose step is mostly GEMM) is rerun
# once on both sides with OpenBLAS's own choice (torch links the same
# libopenblas), in a subshell so that nothing after it is affected.
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    (
        unset OPENBLAS_CORETYPE
        core=$("$dir/sgemm_peak" 200 1 | cut -d' ' -f2)
        "$BIN/sbw-fit" "$P" --d "$D" --steps "$STEPS" --lr $LR --log-every 1 \
            --log "$dir/log.tsv" -q >/dev/null && s=$(step_median "$dir/log.tsv")
        $PY bench/ref_fit_torch.py "$P" "$dir/init_softmax" softmax $K "$STEPS" $LR \
            >"$dir/torch.json" && t=$(json_field "$dir/torch.json" sec_per_step)
        bench_note "softmax with OPENBLAS_CORETYPE unset (OpenBLAS chooses $core; one run, information): sbw ${s}s/step, torch ${t}s/step: speedup $(ratio "$t" "$s")x"
    )
fi
rm -f "$P" "$dir/log.tsv" "$dir/out.tsv" "$dir/torch.json"

set -- $("$dir/sgemm_peak" 4000 2)
peak=$1
bench_note "sgemm peak (n=4000, 2 threads, $(basename "$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0)"), kernels $2, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}): $peak GFLOPS"
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    bench_note "sgemm peak with OPENBLAS_CORETYPE unset: $(env -u OPENBLAS_CORETYPE "$dir/sgemm_peak" 4000 2) (information)"
fi

if [ "${FIT_BIG:-1}" != 0 ]; then
    BN=100000 BM=10000 BD=100 BS=${FIT_BIG_STEPS:-6}
    BP=$dir/P_big.npy
    "$BIN/sbw-synth" dirichlet --n $BN --m $BM --alpha 0.1 --seed 2 -q -o "$BP" >/dev/null ||
        exit 1
    set -- $(run_once "$BIN/sbw-fit" "$BP" --model softmax --d $BD --steps "$BS" --lr $LR \
        --log-every 1 --log "$dir/big.tsv" -q) || { status=1; set -- 0 0; }
    kb=$2
    s=$(step_median "$dir/big.tsv")
    gflops=$(awk -v s="$s" 'BEGIN { printf "%.1f", 6 * 1e5 * 1e4 * 100 / s / 1e9 }')
    bench_note "paper scale N=$BN M=$BM D=$BD softmax: ${s}s/step (median of $((BS - 2)) steps), $gflops GFLOPS in the step = $(ratio "$gflops" "$peak") of the sgemm peak; peak memory $((kb / 1024)) MB (P* alone: $((BN * BM * 4 / 1048576)) MB in float32)"
    rm -f "$BP" "$dir/big.tsv"
fi
exit $status
