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
#    OpenBLAS, 2 threads; target >= 0.75), peak memory; then with
#    --precision bf16 on a CPU with AVX-512 BF16: seconds per step (target
#    >= 1.5x float32's rate) and its GEMM rate against the bfloat16 peak
#    (bench/bf16_peak.c, oneDNN; target >= 0.75).  FIT_BIG=0 skips it (an
#    8 GB file).
# 3. The parallel scheme: seconds per step with --parallel blocks and
#    --parallel blas, softmax and mos, one run each.
# Everything runs with the environment's OpenBLAS kernel choice
# (OPENBLAS_CORETYPE); when that variable forces one, softmax and the sgemm
# peak are also measured with OpenBLAS's own choice, for information.
# Without torch (or numpy) the PyTorch lines and the KL self-check are
# skipped with a note; sbw's figures are still printed.
# BENCH_QUICK=1: N=300 M=100 D=5, 5 steps, the big size N=2000 M=500 D=10.
# Exit 1 when a run fails or a figure is missing; a missed target is noted
# (bench/lib.sh: bench_missed).
set -u
. bench/lib.sh
N=${FIT_N:-$(quick 10000 300)}
M=${FIT_M:-$(quick 1000 100)}
D=${FIT_D:-$(quick 20 5)}
K=10
STEPS=${FIT_STEPS:-$(quick 30 5)}
LR=0.01
dir=$BENCH_TMP/fit
mkdir -p "$dir"
P=$dir/P.npy

torch=0
have_py torch numpy && torch=1
sgemm_peak_build "$dir" || { bench_fail "fit: cannot compile bench/sgemm_peak.c"; exit 1; }

# kopt MODEL: the --k option MODEL takes (sbw-fit refuses --k for softmax,
# which has no components)
kopt() {
    case $1 in
    softmax) ;;
    *) echo "--k $K" ;;
    esac
}

# Median step interval from a --log-every 1 training log: differences of
# the seconds column, without the first two (warm-up) and the last (the
# final evaluation has no backward pass).  Prints nothing when the log is
# missing or too short (bench_num then fails the figure).
step_median() {
    [ -f "$1" ] || return 1
    awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { t[n++] = $c["seconds"] }
        END { m = 0; for (i = 3; i < n - 1; i++) v[m++] = t[i] - t[i - 1]
              for (i = 0; i < m; i++) for (j = i + 1; j < m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
              if (m) printf "%.6f\n", v[int((m - 1) / 2)] }' "$1"
}

# fit_log MODEL LOG [OPTION...]: one sbw-fit training run of $STEPS steps
# on $P with a --log-every 1 log (removed first, so that a failed run
# leaves no stale log); its table goes to $dir/out.tsv.
fit_log() {
    model=$1 log=$2
    shift 2
    rm -f "$log"
    # shellcheck disable=SC2046 # kopt: words, split on purpose
    "$BIN/sbw-fit" "$P" --model "$model" $(kopt "$model") --d "$D" --steps "$STEPS" --lr $LR \
        --log-every 1 --log "$log" -q "$@" >"$dir/out.tsv" 2>"$dir/err" || {
        cat "$dir/err"
        return 1
    }
}

median3() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

json_field() { $PY -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

"$BIN/sbw-synth" dirichlet --n "$N" --m "$M" --alpha 0.1 --seed 1 -q -o "$P" >/dev/null || {
    bench_fail "fit: sbw-synth dirichlet"
    exit 1
}
tv=""
[ $torch = 1 ] && tv=" vs PyTorch $($PY -c 'import torch; print(torch.__version__)')"
bench_note "sbw-fit$tv (float32, 2 threads), N=$N M=$M D=$D, Adam lr $LR, $STEPS steps, median of $BENCH_REPS"

# versus MODEL: sbw-fit and torch from the same initial parameters,
# $BENCH_REPS runs each; seconds per step and final KLs.
versus() {
    model=$1
    init=$dir/init_$model
    rm -rf "$init"
    # shellcheck disable=SC2046 # kopt: words, split on purpose
    "$BIN/sbw-fit" "$P" --model "$model" $(kopt "$model") --d "$D" --steps 0 --save "$init" -q \
        >/dev/null || { bench_fail "$model: sbw-fit --steps 0 --save"; return 1; }
    sbw_t="" torch_t=""
    i=0
    while [ $i -lt "$BENCH_REPS" ]; do
        fit_log "$model" "$dir/log.tsv" || { bench_fail "$model: sbw-fit"; return 1; }
        st=$(step_median "$dir/log.tsv")
        bench_num "$model: sbw seconds per step" "$st" || return 1
        sbw_t="$sbw_t $st"
        if [ $torch = 1 ]; then
            $PY bench/ref_fit_torch.py "$P" "$init" "$model" $K "$STEPS" $LR >"$dir/torch.json" ||
                { bench_fail "$model: torch run"; return 1; }
            tt=$(json_field "$dir/torch.json" sec_per_step)
            bench_num "$model: torch seconds per step" "$tt" || return 1
            torch_t="$torch_t $tt"
        fi
        i=$((i + 1))
    done
    # shellcheck disable=SC2086
    s=$(median3 $sbw_t)
    kl_sbw=$(tsv_field "$dir/out.tsv" kl_mean)
    bench_num "$model: sbw final KL" "$kl_sbw" || return 1
    if [ $torch = 0 ]; then
        bench_fig "$model: sbw ${s}s/step (no torch: speedup not measured); final mean KL after $STEPS steps: $kl_sbw"
        return 0
    fi
    # shellcheck disable=SC2086
    t=$(median3 $torch_t)
    kl_torch=$(json_field "$dir/torch.json" kl)
    bench_num "$model: torch final KL" "$kl_torch" || return 1
    r=$(ratio "$t" "$s")
    met=$(awk -v r="$r" 'BEGIN { print (r >= 8) ? "met" : "NOT met" }')
    [ "$met" = met ] || bench_missed "fit $model: speedup torch/sbw ${r}x < 8x"
    bench_fig "$model: sbw ${s}s/step, torch ${t}s/step: speedup torch/sbw = ${r}x (target 8x: $met)"
    bench_fig "$model: final mean KL after $STEPS steps: sbw $kl_sbw, torch $kl_torch"
    if ! awk -v a="$kl_sbw" -v b="$kl_torch" 'BEGIN { exit !(a <= b * (1 + 1e-4) + 1e-9) }'; then
        bench_fail "$model: sbw's final KL is worse than torch's"
    fi
}
for model in softmax mos lms; do
    versus $model
done

# The parallel scheme, measured: OpenMP over blocks with single-threaded
# BLAS per block (the default) against blocks in sequence with threaded BLAS
# and OpenMP over each block's contexts (--parallel blas).
for model in softmax mos; do
    line="$model, seconds per step (one run each):"
    for par in blocks blas; do
        if fit_log "$model" "$dir/log_$par.tsv" --parallel $par &&
            st=$(step_median "$dir/log_$par.tsv") && bench_num "$model --parallel $par" "$st"; then
            line="$line --parallel $par $st"
        else
            bench_fail "$model --parallel $par: sbw-fit or its log"
            line=""
            break
        fi
    done
    [ -z "$line" ] || bench_fig "$line"
done

# Information: the GEMM kernels OpenBLAS uses come from OPENBLAS_CORETYPE
# when it is set, else from its own CPU detection.  When the environment
# forces a kernel set, softmax (the head whose step is mostly GEMM) is rerun
# once on both sides with OpenBLAS's own choice (torch links the same
# libopenblas), in a subshell so that nothing after it is affected but the
# exit status.
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    (
        unset OPENBLAS_CORETYPE
        core=$("$dir/sgemm_peak" 200 1 | cut -d' ' -f2)
        fit_log softmax "$dir/log.tsv" && s=$(step_median "$dir/log.tsv") &&
            bench_num "softmax, OPENBLAS_CORETYPE unset" "$s" || { bench_fail "softmax, OPENBLAS_CORETYPE unset: sbw-fit"; exit 1; }
        if [ $torch = 1 ]; then
            $PY bench/ref_fit_torch.py "$P" "$dir/init_softmax" softmax $K "$STEPS" $LR \
                >"$dir/torch.json" && t=$(json_field "$dir/torch.json" sec_per_step) &&
                bench_num "softmax torch, OPENBLAS_CORETYPE unset" "$t" || { bench_fail "softmax, OPENBLAS_CORETYPE unset: torch"; exit 1; }
            bench_fig "softmax with OPENBLAS_CORETYPE unset (OpenBLAS chooses $core; one run, information): sbw ${s}s/step, torch ${t}s/step: speedup $(ratio "$t" "$s")x"
        else
            bench_fig "softmax with OPENBLAS_CORETYPE unset (OpenBLAS chooses $core; one run, information): sbw ${s}s/step"
        fi
    ) || status=1
fi
rm -rf "$P" "$dir"/log*.tsv "$dir/out.tsv" "$dir/torch.json" "$dir"/init_*

# shellcheck disable=SC2046 # "GFLOPS CORENAME", split on purpose
set -- $("$dir/sgemm_peak" "$BENCH_PEAK_N" 2) || true
peak=${1:-}
if bench_num "fit: sgemm peak" "$peak"; then
    bench_fig "sgemm peak (n=$BENCH_PEAK_N, 2 threads, $(basename "$(readlink -f /usr/lib/x86_64-linux-gnu/libopenblas.so.0)"), kernels ${2:-}, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}): $peak GFLOPS"
fi
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
    bench_note "sgemm peak with OPENBLAS_CORETYPE unset: $(env -u OPENBLAS_CORETYPE "$dir/sgemm_peak" "$BENCH_PEAK_N" 2) (information)"
fi

# big_bf16 SECONDS: the big size again with --precision bf16 (issue 27), on
# a CPU with AVX-512 BF16 (else a note): seconds per step against float32's
# SECONDS (target >= 1.5x) and the step's GEMM rate against the bfloat16
# peak (bench/bf16_peak.c, oneDNN, 2 threads; target >= 0.75).
big_bf16() {
    s32=$1
    bf16_peak_build "$dir" || { bench_fail "fit: cannot compile bench/bf16_peak.c"; return 1; }
    # shellcheck disable=SC2046 # "GFLOPS IMPL", split on purpose
    set -- $("$dir/bf16_peak" "$BENCH_PEAK_N" 2) || true
    if [ "${1:-}" = none ]; then
        bench_note "big size: this CPU has no AVX-512 BF16: sbw-fit --precision bf16 not measured"
        return 0
    fi
    bp=${1:-}
    bench_num "fit: bf16 peak" "$bp" || return 1
    rm -f "$dir/big16.tsv"
    "$BIN/sbw-fit" "$BP" --model softmax --d "$BD" --steps "$BS" --lr $LR --precision bf16 \
        --log-every 1 --log "$dir/big16.tsv" -q >/dev/null 2>"$dir/big16.err" || {
        cat "$dir/big16.err"
        bench_fail "big size: sbw-fit --precision bf16"
        return 1
    }
    sb=$(step_median "$dir/big16.tsv")
    bench_num "big size bf16: seconds per step" "$sb" || return 1
    gb=$(awk -v s="$sb" -v n="$BN" -v m="$BM" -v d="$BD" 'BEGIN { printf "%.1f", 6 * n * m * d / s / 1e9 }')
    fb=$(ratio "$gb" "$bp") r=$(ratio "$s32" "$sb")
    vf=$(met "$fb" 0.75) vr=$(met "$r" 1.5)
    [ "$vf" = met ] || bench_missed "big size: bf16 step at $fb of the bf16 peak < 0.75"
    [ "$vr" = met ] || bench_missed "big size: bf16 ${r}x float32's step rate < 1.5x"
    bench_fig "N=$BN M=$BM D=$BD softmax --precision bf16: ${sb}s/step = ${r}x float32's rate (target >= 1.5x: $vr), $gb GFLOPS = $fb of the bf16 peak $bp GFLOPS (oneDNN ${2:-}; target >= 0.75: $vf)"
    rm -f "$dir/big16.tsv" "$dir/big16.err"
}

# The paper's scale (N=100000, M=10000, D=100; FIT_BIG_N, FIT_BIG_M,
# FIT_BIG_D change it, the quick mode shrinks it), softmax.
if [ "${FIT_BIG:-1}" != 0 ]; then
    BN=${FIT_BIG_N:-$(quick 100000 2000)} BM=${FIT_BIG_M:-$(quick 10000 500)}
    BD=${FIT_BIG_D:-$(quick 100 10)} BS=${FIT_BIG_STEPS:-6}
    BP=$dir/P_big.npy
    rm -f "$dir/big.tsv"
    if ! "$BIN/sbw-synth" dirichlet --n "$BN" --m "$BM" --alpha 0.1 --seed 2 -q -o "$BP" >/dev/null; then
        bench_fail "big size: sbw-synth dirichlet"
    elif ! tk=$(run_once "$BIN/sbw-fit" "$BP" --model softmax --d "$BD" --steps "$BS" --lr $LR \
        --log-every 1 --log "$dir/big.tsv" -q); then
        cat "$BENCH_OUT/last.err"
        bench_fail "big size: sbw-fit"
    else
        kb=${tk#* }
        s=$(step_median "$dir/big.tsv")
        if bench_num "big size: seconds per step, peak KB" "$s" "$kb"; then
            gflops=$(awk -v s="$s" -v n="$BN" -v m="$BM" -v d="$BD" 'BEGIN { printf "%.1f", 6 * n * m * d / s / 1e9 }')
            f=$(ratio "$gflops" "${peak:-0}")
            v=$(met "$f" 0.75)
            [ "$v" = met ] || bench_missed "big size: float32 step at $f of the sgemm peak < 0.75"
            bench_fig "N=$BN M=$BM D=$BD softmax$([ "$BN.$BM.$BD" = 100000.10000.100 ] && echo ' (the paper scale)'): ${s}s/step (median of $((BS - 2)) steps), $gflops GFLOPS in the step = $f of the sgemm peak (target >= 0.75: $v); peak memory $((kb / 1024)) MB (P* alone: $((BN * BM * 4 / 1048576)) MB in float32)"
            big_bf16 "$s"
        fi
    fi
    rm -f "$BP" "$dir/big.tsv"
fi
exit $status
