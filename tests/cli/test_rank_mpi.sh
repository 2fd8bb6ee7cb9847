#!/bin/sh
# sbw-rank-mpi (issue 29) against sbw-rank, run by mpirun at 1, 2 and 4
# processes (oversubscribed: this machine may have fewer cores; shared
# memory and loopback only):
#   - the same rank (every rank column) and the same singular values
#     (--spectrum, each within max(m, n) eps sigma_0: two backward-stable
#     SVDs) on a square random matrix, a tall one (QR first), a wide one
#     (LQ first), a log-softmax of known rank with --center and --bias, a
#     float32 file (float32's eps: the rank at FLT_EPSILON) and the same
#     float32 data as a safetensors tensor;
#   - a wide matrix above SBW_MAX_MEMORY is refused by sbw-rank and by one
#     process, and measured by 4 (each holds a quarter), equal to sbw-rank
#     without the limit;
#   - the refusals: sbw-rank's options that do not apply (exit 2), stdin,
#     a missing file and a NaN (exit 1, one line naming the file), and no
#     --spectrum file left behind by a failed run;
#   - docs/cluster/sbw-rank-mpi.sbatch's command, with srun standing in
#     for mpirun, writes what the tool writes run directly;
#   - the comparison itself fails on a spectrum moved by 1e-10 of sigma_0.
# Skipped with a note when mpirun or the tool (make builds it when mpicc
# links ScaLAPACK: scripts/deps.sh --mpi) is missing.
. tests/cli/lib.sh
# the tool: $(BUILD)/mpi/sbw-rank-mpi, BUILD being BIN's parent (bin -> build)
case "$BIN" in
bin | ./bin) MPI_TOOL=build/mpi/sbw-rank-mpi ;;
*) MPI_TOOL="${BIN%/bin}/mpi/sbw-rank-mpi" ;;
esac
MPI_TOOL=${SBW_RANK_MPI:-$MPI_TOOL}
if ! command -v mpirun >/dev/null 2>&1 || [ ! -x "$MPI_TOOL" ]; then
    echo "test_rank_mpi.sh: skipped: mpirun or $MPI_TOOL missing (scripts/deps.sh --mpi, then make)"
    rm -rf "$T"
    exit 0
fi
MPI_TOOL="$(cd "${MPI_TOOL%/*}" && pwd)/${MPI_TOOL##*/}"
R="$BIN/sbw-rank"
# Open MPI: root allowed (CI runs as root), shared memory between the
# processes, its daemon on the loopback interface, quiet about exit codes
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
MPIRUN="mpirun -q --oversubscribe --bind-to none"
MPIRUN0=$MPIRUN
# Under AddressSanitizer (make asan): Open MPI's libraries have no frame
# pointers, so the fast unwinder gives LeakSanitizer stacks it cannot
# attribute, and the exact unwinder takes about a minute per run here.  So
# the runs check memory errors with leak checking off, and one run (below,
# "leaks") checks leaks exactly, with Open MPI's and PMIx's components kept
# loaded and their own leaks suppressed by library name (none of sbw's).
LEAKS=""
if nm "$MPI_TOOL" 2>/dev/null | grep -q __asan_init; then
    export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
    printf 'leak:%s\n' libmpi.so libopen-pal.so libopen-rte.so mca_ libpmix libhwloc libevent >"$T/lsan.supp"
    LEAKS="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$T/lsan.supp"
    MPIRUN="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 $MPIRUN"
fi

# sigmas SPECTRUM: the sigma column of a --spectrum table
sigmas() { tsv_rows "$1" | awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sigma") c = i; next } { print $c }'; }
# same_sigmas A B M N: every sigma of B within max(M, N) eps sigma_0 of A's
# (and as many); prints the first that is not
same_sigmas() {
    sigmas "$1" >"$T/s1"
    sigmas "$2" >"$T/s2"
    paste "$T/s1" "$T/s2" | awk -F '\t' -v m="$3" -v n="$4" '
        NR == 1 { tol = (m > n ? m : n) * 2.220446049250313e-16 * $1 }
        # check-recipes: allow a test comparing two spectra within a tolerance
        { d = $1 - $2; if (d < 0) d = -d; if (NF != 2 || $2 == "" || d > tol) { print NR - 1, $1, $2, tol; exit 1 } }
        END { if (NR == 0) exit 1 }'
}
# the rank columns of a table, tab-separated
rank_cols() {
    for f in rank rank_numpy rank_gap rank_single m n dtype precision; do printf '%s\t' "$(tsv_field "$1" $f)"; done
}

# compare NAME M N FILE [OPTIONS...]: sbw-rank, then sbw-rank-mpi at 1, 2
# and 4 processes, the same ranks and singular values
compare() {
    name=$1 m=$2 n=$3 f=$4
    shift 4
    expect_exit 0 "$name: sbw-rank" "$R" -q "$@" --spectrum "$T/ser.tsv" "$f"
    cp "$T/out" "$T/ser.out"
    for np in 1 2 4; do
        expect_exit 0 "$name: $np processes" $MPIRUN -np $np "$MPI_TOOL" "$@" --spectrum "$T/mpi.tsv" "$f"
        expect_eq "$(rank_cols "$T/out")" "$(rank_cols "$T/ser.out")" "$name: $np processes: ranks"
        expect_eq "$(tsv_field "$T/out" eps)" "$(tsv_field "$T/ser.out" eps)" "$name: $np processes: eps"
        expect_grep "^# processes=$np\$" "$T/out" "$name: $np processes in the header"
        if same_sigmas "$T/ser.tsv" "$T/mpi.tsv" "$m" "$n" >"$T/diff"; then ok; else
            bad "$name: $np processes: sigma $(cat "$T/diff") (index, serial, mpi, tolerance)"
        fi
    done
}

S="$BIN/sbw-synth"
"$S" dirichlet --n 200 --m 200 --seed 3 -o "$T/sq.npy" >/dev/null
"$S" dirichlet --n 500 --m 40 --seed 4 -o "$T/tall.npy" >/dev/null
"$S" dirichlet --n 40 --m 500 --seed 5 -o "$T/wide.npy" >/dev/null
# log-softmax of rank-8 logits: rank 9, centred 8 (d* = R), double-centred 8
"$S" lowrank --n 300 --m 90 --rank 8 --seed 6 -o "$T/ls.npy" >/dev/null

compare square 200 200 "$T/sq.npy"
expect_grep '^# reduction=none' "$T/out" "square: pdgesvd on the matrix"
compare "square --exp --bias" 200 200 "$T/sq.npy" --exp --bias
expect_grep '^# matrix=\(I - 11\^T/N\) P \(I - 11\^T/M\), double-centred, P = exp\(A\)' "$T/out" "--exp: P analysed"
compare tall 500 40 "$T/tall.npy"
expect_grep '^# reduction=qr' "$T/out" "tall: QR first"
compare wide 40 500 "$T/wide.npy"
expect_grep '^# reduction=lq' "$T/out" "wide: LQ first"
compare "log-softmax --center" 300 90 "$T/ls.npy" --center
expect_eq "$(tsv_field "$T/out" rank)" 8 "log-softmax of rank-8 logits, centred: 8"
compare "log-softmax --bias" 300 90 "$T/ls.npy" --bias
expect_eq "$(tsv_field "$T/out" rank)" 8 "log-softmax of rank-8 logits, double-centred: 8"
if [ -n "$LEAKS" ]; then
    expect_exit 0 "leaks: --bias, QR path, 2 processes" $LEAKS $MPIRUN0 -np 2 "$MPI_TOOL" --bias "$T/ls.npy"
    if grep -q LeakSanitizer "$T/err"; then bad "leaks: $(grep -A6 'Direct leak' "$T/err" | head -n 8)"; else ok; fi
fi
compare "log-softmax plain" 300 90 "$T/ls.npy"
expect_eq "$(tsv_field "$T/out" rank)" 9 "log-softmax of rank-8 logits: 9"
compare "log-softmax --measures" 300 90 "$T/ls.npy" --center --measures
# the counting and energy ranks are integers; stable and entropy within 1e-12
measures() { tsv_rows "$1" | grep -v -E '^(stable|entropy)' | cut -f1,2 | tr '\t\n' ':,'; }
expect_eq "$(measures "$T/out")" "$(measures "$T/ser.out")" "--measures: every counting rank as sbw-rank's"
for q in stable entropy; do
    want=$(tsv_rows "$T/ser.out" | awk -F '\t' -v q=$q '$1 == q { print $2 }')
    expect_num_near "$(tsv_rows "$T/out" | awk -F '\t' -v q=$q '$1 == q { print $2 }')" "$want" \
        "$(awk -v w="$want" 'BEGIN { print w * 1e-12 }')" "--measures: $q as sbw-rank's"
done
# float32: rank_ls_f4.npy (48 x 20, a log-softmax of rank 4) at FLT_EPSILON
compare float32 48 20 "$FIX/rank_ls_f4.npy"
expect_eq "$(tsv_field "$T/out" rank) $(tsv_field "$T/out" eps)" "4 1.1920928955078125e-07" "float32: rank 4 at FLT_EPSILON"
expect_grep '^# eps_source=float32 data' "$T/out" "float32: eps from the data"
. tests/cli/safetensors.sh
tail -c 3840 "$FIX/rank_ls_f4.npy" >"$T/rls.bin"
st_write "$T/m.safetensors" '{"L": {"dtype": "F32", "shape": [48, 20], "data_offsets": [0, 3840]}}' "$T/rls.bin"
compare "safetensors F32" 48 20 "$T/m.safetensors:L" --center
expect_eq "$(tsv_field "$T/out" rank)" 3 "safetensors: the centred rank of rank_ls_f4"
# the float32_values warning, from the distributed scan
compare "float32 values in float64" 3 4 "$FIX/logp_f4_as_f8.npy"
expect_grep '^# warning=float32_values' "$T/out" "float32_values warned as sbw-rank does"

# the comparison can fail: sigma_0 moved by 1e-10 of itself
awk -F '\t' 'BEGIN { OFS = "\t" } /^#/ || !done { if (!/^#/ && NR > 1 && $1 == "0") { $2 = $2 * (1 + 1e-10); done = 1 } print; next } { print }' \
    "$T/ser.tsv" >"$T/moved.tsv"
if same_sigmas "$T/ser.tsv" "$T/moved.tsv" 3 4 >/dev/null; then bad "a spectrum moved by 1e-10 passed"; else ok; fi

# SBW_MAX_MEMORY per process: a 100 x 84000 float64 matrix (67 MB, over
# sbw's 64 MiB preflight size) at a 48 MiB limit
"$S" dirichlet --n 100 --m 84000 --seed 7 -o "$T/big.npy" >/dev/null
expect_exit 1 "over the limit: sbw-rank refuses" env SBW_MAX_MEMORY=48M "$R" -q "$T/big.npy"
expect_grep 'SBW_MAX_MEMORY' "$T/err" "sbw-rank names the limit"
expect_exit 1 "over the limit: one process refuses" env SBW_MAX_MEMORY=48M $MPIRUN -np 1 "$MPI_TOOL" "$T/big.npy"
expect_lines 1 "$T/err" "one process: one line"
expect_grep "big.npy: process 0 of 1.*SBW_MAX_MEMORY" "$T/err" "one process: names the file, the process and the limit"
expect_exit 0 "sbw-rank without the limit" env SBW_MAX_MEMORY=any "$R" -q --spectrum "$T/ser.tsv" "$T/big.npy"
cp "$T/out" "$T/ser.out"
expect_exit 0 "over the limit: 4 processes measure it" env SBW_MAX_MEMORY=48M $MPIRUN -np 4 "$MPI_TOOL" --spectrum "$T/mpi.tsv" "$T/big.npy"
expect_eq "$(rank_cols "$T/out")" "$(rank_cols "$T/ser.out")" "4 processes: the ranks"
if same_sigmas "$T/ser.tsv" "$T/mpi.tsv" 100 84000 >"$T/diff"; then ok; else bad "4 processes: sigma $(cat "$T/diff")"; fi

# refusals
for o in --single "--method tsqr" "--workers 2" "--block-rows 64" "--top 3"; do
    # shellcheck disable=SC2086
    expect_exit 2 "$o refused" $MPIRUN -np 2 "$MPI_TOOL" $o "$T/sq.npy"
    expect_grep "does not apply to sbw-rank-mpi" "$T/err" "$o: why"
done
expect_exit 2 "stdin refused" $MPIRUN -np 2 "$MPI_TOOL" - <"$T/sq.npy"
expect_exit 2 "a bad --eps" $MPIRUN -np 2 "$MPI_TOOL" --eps nonsense "$T/sq.npy"
expect_exit 1 "a missing file" $MPIRUN -np 2 "$MPI_TOOL" --spectrum "$T/none.tsv" "$T/missing.npy"
expect_lines 1 "$T/err" "a missing file: one line"
expect_grep "missing.npy" "$T/err" "a missing file: named"
expect_absent "$T/none.tsv" "a missing file: no --spectrum left"
expect_exit 1 "a NaN (row 1, column 2)" $MPIRUN -np 4 "$MPI_TOOL" --spectrum "$T/none.tsv" "$FIX/kl_nan.npy"
expect_lines 1 "$T/err" "a NaN: one line"
"$R" -q "$FIX/kl_nan.npy" 2>"$T/ser.err" >/dev/null
expect_eq "$(sed 's/^sbw-rank-mpi: //' "$T/err")" "$(sed 's/^sbw-rank: //' "$T/ser.err")" "a NaN: sbw-rank's reason"
expect_absent "$T/none.tsv" "a NaN: no --spectrum left"
# bad files: sbw-rank's exit status and reason, from rank 0 only
head -c 2000 "$T/sq.npy" >"$T/trunc.npy"
for f in "$FIX/rank_empty.npy" "$FIX/f8_3d.npy" "$FIX/i8.npy" "$FIX/c16.npy" "$T/trunc.npy"; do
    "$R" -q "$f" >/dev/null 2>"$T/ser.err"
    want=$?
    expect_exit $want "${f##*/}: as sbw-rank" $MPIRUN -np 2 "$MPI_TOOL" "$f"
    expect_eq "$(sed 's/^sbw-rank-mpi: //' "$T/err")" "$(sed 's/^sbw-rank: //' "$T/ser.err")" "${f##*/}: sbw-rank's reason"
done
expect_exit 2 "--spectrum onto the input" $MPIRUN -np 2 "$MPI_TOOL" --spectrum "$T/sq.npy" "$T/sq.npy"
expect_lines 1 "$T/err" "--spectrum onto the input: one line"
expect_exit 0 "--help" $MPIRUN -np 2 "$MPI_TOOL" --help
expect_eq "$(grep -c '^Usage: sbw-rank-mpi' "$T/out")" 1 "--help printed once"

# interrupted: rank 0 stops itself once its --spectrum temporary exists
# (SBW_TEST_STOP=temp), every process then gets SIGINT (as a terminal's ^C
# reaches them all): exit 130, no temporary and no table left
(cd "$T" && SBW_TEST_STOP=temp exec $MPIRUN -np 2 "$MPI_TOOL" --spectrum int.tsv sq.npy) >"$T/out" 2>"$T/err" &
job=$!
wait_for sh -c 'ls -a "$1" | grep -q "^\.int\.tsv"' sh "$T"
kids=$(pgrep -P $job)
# shellcheck disable=SC2086
kill -INT $kids 2>/dev/null
# shellcheck disable=SC2086
kill -CONT $kids 2>/dev/null
wait $job
expect_eq "$?" 130 "interrupted: exit 130"
if ls -a "$T" | grep -q 'int\.tsv'; then bad "interrupted: left $(ls -a "$T" | grep int.tsv)"; else ok; fi

# the batch script's command, mpirun standing in for srun
mkdir -p "$T/fake"
cat >"$T/fake/srun" <<EOF
#!/bin/sh
# srun as the script calls it: srun [--ntasks=N] ... COMMAND...
n=1
while [ \$# -gt 0 ]; do
    case "\$1" in
    --ntasks=*) n=\${1#--ntasks=} ;;
    --*) ;;
    *) break ;;
    esac
    shift
done
exec $MPIRUN -np "\$n" "\$@"
EOF
chmod +x "$T/fake/srun"
mkdir -p "$T/mpibin"
ln -s "$MPI_TOOL" "$T/mpibin/sbw-rank-mpi"
(cd "$T" && PATH="$T/fake:$PATH" SBW_MPI_BIN="$T/mpibin" SLURM_JOB_ID=7 SLURM_NTASKS=4 SLURM_MEM_PER_CPU=200 \
    bash "$OLDPWD/docs/cluster/sbw-rank-mpi.sbatch" ls.npy rank.tsv --center --spectrum spec.tsv) >"$T/out" 2>"$T/err"
expect_eq "$?" 0 "sbatch script: exit 0 ($(cat "$T/err"))"
$MPIRUN -np 4 "$MPI_TOOL" --center "$T/ls.npy" >"$T/direct.out" 2>/dev/null
expect_eq "$(rank_cols "$T/rank.tsv")" "$(rank_cols "$T/direct.out")" "sbatch script: the table as run directly"
expect_grep '^# processes=4$' "$T/rank.tsv" "sbatch script: SLURM_NTASKS processes"
[ -s "$T/spec.tsv" ] && ok || bad "sbatch script: --spectrum written"
expect_absent "$T/rank.tsv.part.7" "sbatch script: no partial table"
finish
