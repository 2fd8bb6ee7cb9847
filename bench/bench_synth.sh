#!/bin/sh
# bench_synth.sh -- sbw-synth dirichlet against NumPy (Generator.dirichlet +
# np.log + np.save), N = M = 10000, alpha 0.1 and 0.001, both writing an
# 800 MB float64 .npy file.  Median of $BENCH_REPS runs each; prints the
# ratio sbw/NumPy (< 1: sbw faster), the peak memory of both, and both
# sides' -inf counts (from the same reader, bench/synth_count.py).
# Self-checks (exit 1 on failure): sbw writes no -inf/NaN and every row is
# normalised; --threads 1 and the default give byte-identical files.
# SYNTH_N / SYNTH_M override the size.
set -u
. bench/lib.sh
N=${SYNTH_N:-10000}
M=${SYNTH_M:-10000}
SEED=1
status=0
if ! $PY -c 'import numpy' 2>/dev/null; then
    bench_note "synth: $PY has no numpy (apt-get install python3-numpy); NumPy side skipped"
    exit 1
fi
sbw_file=$BENCH_TMP/synth_sbw.npy
sbw1_file=$BENCH_TMP/synth_sbw1.npy
np_file=$BENCH_TMP/synth_np.npy
threads=$(nproc)
bench_note "sbw-synth dirichlet vs numpy $($PY -c 'import numpy; print(numpy.__version__)'), N=$N M=$M, median of $BENCH_REPS, seconds include writing the .npy"
for alpha in 0.1 0.001; do
    set -- $(bench_median "$BIN/sbw-synth" dirichlet --n "$N" --m "$M" --alpha "$alpha" \
        --seed $SEED -q -o "$sbw_file") || { status=1; continue; }
    t_sbw=$1 kb_sbw=$2
    set -- $(bench_median "$BIN/sbw-synth" dirichlet --n "$N" --m "$M" --alpha "$alpha" \
        --seed $SEED --threads 1 -q -o "$sbw1_file") || { status=1; continue; }
    t_sbw1=$1
    set -- $(bench_median $PY bench/synth_ref.py "$N" "$M" "$alpha" $SEED "$np_file") || {
        status=1
        continue
    }
    t_np=$1 kb_np=$2
    set -- $($PY bench/synth_count.py "$sbw_file")
    inf_sbw=$1 nan_sbw=$2 bad_sbw=$3
    set -- $($PY bench/synth_count.py "$np_file")
    inf_np=$1 nan_np=$2
    bench_note "alpha=$alpha: sbw ${t_sbw}s ($threads threads, peak $((kb_sbw / 1024)) MB), numpy ${t_np}s (peak $((kb_np / 1024)) MB): ratio sbw/numpy = $(ratio "$t_sbw" "$t_np")"
    bench_note "alpha=$alpha: sbw --threads 1 ${t_sbw1}s: ratio sbw1/numpy = $(ratio "$t_sbw1" "$t_np")"
    bench_note "alpha=$alpha: -inf entries: sbw $inf_sbw, numpy $inf_np (of $((N * M))); NaN: sbw $nan_sbw, numpy $nan_np"
    if [ "$inf_sbw" != 0 ] || [ "$nan_sbw" != 0 ] || [ "$bad_sbw" != 0 ]; then
        bench_note "alpha=$alpha: FAIL: sbw wrote $inf_sbw -inf, $nan_sbw NaN, $bad_sbw unnormalised rows"
        status=1
    fi
    if ! cmp -s "$sbw_file" "$sbw1_file"; then
        bench_note "alpha=$alpha: FAIL: --threads 1 and --threads $threads files differ"
        status=1
    fi
    if awk -v a="$t_sbw" -v b="$t_np" 'BEGIN { exit !(a > b) }'; then
        bench_note "alpha=$alpha: NOTE: sbw slower than numpy on this run (machine load?)"
    fi
    rm -f "$sbw_file" "$sbw1_file" "$np_file"
done
exit $status
