#!/bin/sh
# CLI checks of sbw-rank on the fixtures of make_rank_fixtures.py, whose
# ranks are known by construction (see that script).
. tests/cli/lib.sh
. tests/cli/npy.sh
R="$BIN/sbw-rank"

# ranks: log-softmax of rank-3 logits -> 4; centred -> 3 (both paths)
expect_exit 0 "rank_ls" "$R" -q "$FIX/rank_ls.npy"
expect_eq "$(tsv_field "$T/out" rank)" 4 "rank_ls rank"
expect_eq "$(tsv_field "$T/out" m)" 48 "rank_ls m"
expect_eq "$(tsv_field "$T/out" n)" 20 "rank_ls n"
expect_eq "$(tsv_field "$T/out" dtype)" float64 "rank_ls dtype"
expect_eq "$(tsv_field "$T/out" rank_numpy)" 4 "rank_ls numpy rank"
expect_eq "$(tsv_field "$T/out" rank_gap)" 4 "rank_ls gap rank"
expect_grep '^# method=tsqr' "$T/out" "rank_ls: 48 > 1.5 x 20 -> tsqr"
expect_grep '^# eps_source=float64 data' "$T/out" "eps source"
expect_grep '^# matrix=A \(as stored\)' "$T/out" "matrix label"
expect_grep '^# file=.*rank_ls.npy' "$T/out" "file in header"
# tsh is 0.5 sqrt(m+n+1) w0 eps
w0=$(tsv_field "$T/out" w0)
tsh=$(tsv_field "$T/out" tsh)
want=$(awk -v w="$w0" 'BEGIN { printf "%.17g", 0.5 * sqrt(69) * w * 2.220446049250313e-16 }')
expect_num_near "$tsh" "$want" "$(awk -v t="$want" 'BEGIN { print t * 1e-12 }')" "tsh formula"
expect_exit 0 "rank_ls --center" "$R" -q --center "$FIX/rank_ls.npy"
expect_eq "$(tsv_field "$T/out" rank)" 3 "rank_ls centred"
expect_grep '^# center=rows' "$T/out" "center in header"
expect_exit 0 "rank_ls --method direct" "$R" -q --method direct "$FIX/rank_ls.npy"
expect_eq "$(tsv_field "$T/out" rank)" 4 "rank_ls direct"
expect_grep '^# method=direct' "$T/out" "direct path"
expect_exit 0 "rank_tall" "$R" -q "$FIX/rank_tall.npy"
expect_eq "$(tsv_field "$T/out" rank)" 4 "rank_tall"
expect_grep '^# method=tsqr' "$T/out" "tall -> tsqr"
expect_exit 0 "rank_tall --center --method direct" "$R" -q --center --method direct "$FIX/rank_tall.npy"
expect_eq "$(tsv_field "$T/out" rank)" 3 "rank_tall centred direct"
expect_exit 0 "rank_tall --center tsqr, 1 thread, tiny blocks" \
    "$R" -q --center --threads 1 --block-rows 7 "$FIX/rank_tall.npy"
expect_eq "$(tsv_field "$T/out" rank)" 3 "rank_tall centred tsqr"
expect_grep '^# block_rows=7' "$T/out" "block rows in header"
# a biased head of dimension 2: row-centred 3, double-centred 2
expect_exit 0 "rank_bias --bias" "$R" -q --bias "$FIX/rank_bias.npy"
expect_eq "$(tsv_field "$T/out" rank)" 2 "rank_bias double-centred"
expect_grep '^# center=both' "$T/out" "center=both"

# the float32 trap: float32 eps by default, near full rank with --eps double
expect_exit 0 "f32" "$R" -q "$FIX/rank_ls_f4.npy"
expect_eq "$(tsv_field "$T/out" rank)" 4 "float32 rank with float32 eps"
expect_eq "$(tsv_field "$T/out" dtype)" float32 "float32 dtype"
expect_eq "$(tsv_field "$T/out" precision)" float64 "promoted to double"
expect_grep '^# eps_source=float32 data' "$T/out" "float32 eps source"
expect_exit 0 "f32 --eps double" "$R" -q --eps double "$FIX/rank_ls_f4.npy"
expect_eq "$(tsv_field "$T/out" rank)" 20 "float32 data at double eps: full rank"
# rank_single: the NR rank at float32's eps beside the main one, the rank a
# float32 copy of the matrix has (rank_ls_f4.npy is rank_ls.npy in float32)
expect_eq "$(tsv_field "$T/out" rank_single)" 4 "float32 data at double eps: rank_single 4"
expect_exit 0 "rank_ls rank_single" "$R" -q "$FIX/rank_ls.npy"
expect_eq "$(tsv_field "$T/out" rank_single)" 4 "rank_ls: rank_single"
expect_exit 0 "rank_ls --eps single" "$R" -q --eps single "$FIX/rank_ls.npy"
expect_eq "$(tsv_field "$T/out" rank_single)" "$(tsv_field "$T/out" rank)" "rank_single is the rank at --eps single"
expect_exit 0 "f32 --single" "$R" -q --single "$FIX/rank_ls_f4.npy"
expect_eq "$(tsv_field "$T/out" rank)" 4 "sgesdd rank"
expect_eq "$(tsv_field "$T/out" precision)" float32 "computed in float32"
expect_exit 0 "--eps 1e-3" "$R" -q --eps 1e-3 "$FIX/rank_ls.npy"
expect_eq "$(tsv_field "$T/out" eps)" 0.001 "--eps number"

# a pipe gives the same answer as the file
cat "$FIX/rank_tall.npy" | "$R" -q --center - >"$T/pipe" 2>"$T/err"
expect_eq "$(tsv_field "$T/pipe" rank)" 3 "pipe input"
"$R" -q --center "$FIX/rank_tall.npy" >"$T/file" 2>"$T/err"
expect_eq "$(tsv_field "$T/pipe" w0)" "$(tsv_field "$T/file" w0)" "pipe w0 = file w0"

# sbw-synth lowrank piped in: rank(A) = rank_a and --center = d_star as the
# synth header prints them, which are R + 1 and R (R and R - 1 with
# --with-ones, MoS Corollary 1); wide (N < M, direct) and tall (N > M, the
# streaming TSQR) inputs.  Each run regenerates the same bytes from --seed;
# the synth table goes to stderr with -o - (not -q: that silences it).
synth_rank() { # N M R ONES(0|1) what
    ones=""
    [ "$4" = 1 ] && ones=--with-ones
    for c in "" --center; do
        # shellcheck disable=SC2086 # $ones and $c: empty or one word
        "$BIN/sbw-synth" lowrank --n "$1" --m "$2" --rank "$3" --scale 2 $ones --seed 11 -o - \
            2>"$T/synth.tsv" | "$R" -q $c - >"$T/srank.tsv" 2>"$T/err"
        expect_eq "$?" 0 "$5 $c: exit"
        if [ -z "$c" ]; then key=rank_a want=$(($3 + 1 - $4)); else key=d_star want=$(($3 - $4)); fi
        expect_eq "$(tsv_meta "$T/synth.tsv" "$key")" "$want" "$5: synth header $key"
        expect_eq "$(tsv_field "$T/srank.tsv" rank)" "$(tsv_meta "$T/synth.tsv" "$key")" "$5 $c: rank = $key"
    done
}
synth_rank 40 90 7 0 "lowrank wide"
synth_rank 40 90 7 1 "lowrank wide --with-ones"
synth_rank 200 30 5 0 "lowrank tall"
synth_rank 200 30 5 1 "lowrank tall --with-ones"
expect_grep '^# method=tsqr' "$T/srank.tsv" "tall pipe -> tsqr"

# --exp analyses P: a positive matrix, labelled so
expect_exit 0 "--exp" "$R" -q --exp "$FIX/rank_ls.npy"
expect_grep '^# matrix=P = exp\(A\)' "$T/out" "exp label"

# --json
expect_exit 0 "--json" "$R" -q --json "$FIX/rank_ls.npy"
expect_grep '"rank": 4' "$T/out" "json rank"
expect_grep '"rank_numpy": 4' "$T/out" "json numpy rank"

# --spectrum: k rows, normalisation labelled, cum_pct from 100 down to 100/k
expect_exit 0 "--spectrum" "$R" -q --spectrum "$T/spec.tsv" "$FIX/rank_ls.npy"
expect_eq "$(grep -vc '^#' "$T/spec.tsv")" 21 "spectrum: header + 20 rows"
expect_grep '^# normalisation=sigma/sigma0' "$T/spec.tsv" "normalisation label"
expect_grep '^index	sigma	sigma_rel	log10_sigma	normalised	cum_pct$' "$T/spec.tsv" "spectrum columns"
expect_eq "$(tsv_field "$T/spec.tsv" sigma_rel 1)" 1 "sigma_rel of sigma0"
expect_eq "$(tsv_field "$T/spec.tsv" cum_pct 1)" 100 "cum_pct at sigma0"
expect_eq "$(tsv_field "$T/spec.tsv" cum_pct 20)" 5 "cum_pct of the smallest"
expect_eq "$(tsv_field "$T/spec.tsv" sigma 1)" "$w0" "spectrum sigma0 = w0"
expect_exit 0 "--norm minmax" "$R" -q --norm minmax --spectrum "$T/spec2.tsv" "$FIX/rank_ls.npy"
expect_grep '^# normalisation=\(sigma-sigma_min\)/\(sigma0-sigma_min\)' "$T/spec2.tsv" "minmax label"
expect_eq "$(tsv_field "$T/spec2.tsv" normalised 20)" 0 "minmax: smallest is 0"

# an exactly zero singular value (a column of zeros, direct path): its
# log10_sigma is nan, which gnuplot skips and pandas reads, never -inf
expect_exit 0 "zero sigma" "$R" -q --method direct --spectrum "$T/zero.tsv" "$FIX/rank_zero_sv.npy"
expect_eq "$(tsv_field "$T/out" rank)" 3 "rank with a zero column"
expect_eq "$(tsv_field "$T/zero.tsv" sigma 4)" 0 "the zero sigma is exact"
expect_eq "$(tsv_field "$T/zero.tsv" log10_sigma 4)" nan "log10 of 0 is nan"
expect_eq "$(tsv_field "$T/zero.tsv" log10_sigma 3 | grep -c nan)" 0 "log10 of a positive sigma is a number"
if grep -q inf "$T/zero.tsv"; then bad "no inf in the spectrum: $(grep inf "$T/zero.tsv")"; else ok; fi

# --measures against NumPy and PyTorch on the stored matrices
# (tests/fixtures/make_rank_measures.py wrote rank_measures_expected.tsv)
E="$FIX/rank_measures_expected.tsv"
# measure_of FILE NAME: the rank column of the row whose measure is NAME
measure_of() { awk -F'\t' -v m="$2" '!/^#/ && $1 == m { print $2 }' "$1"; }
for f in rm_graded rm_decay; do
    expect_exit 0 "$f --measures" "$R" -q --measures "$FIX/$f.npy"
    cp "$T/out" "$T/m_default"
    expect_exit 0 "$f --measures --atol 5e-14" "$R" -q --measures --atol 5e-14 "$FIX/$f.npy"
    cp "$T/out" "$T/m_atol"
    expect_eq "$(grep -vc '^#' "$T/m_default")" 11 "$f: ten measures and the header"
    awk -F'\t' -v f="$f" '$1 == f { print $2, $3 }' "$E" >"$T/want"
    while read -r m want; do
        case $m in
        pytorch_atol) got=$(measure_of "$T/m_atol" pytorch) ;;
        *) got=$(measure_of "$T/m_default" "$m") ;;
        esac
        case $m in
        stable | entropy)
            expect_num_near "$got" "$want" "$(awk -v w="$want" 'BEGIN { print w * 1e-10 }')" "$f $m" ;;
        *) expect_eq "$got" "$want" "$f $m (NumPy/PyTorch)" ;;
        esac
    done <"$T/want"
done
expect_eq "$(awk -F'\t' '$1 == "rm_graded" { n++ } END { print n }' "$E")" 10 "fixture rows read"
expect_grep '^# atol=5e-14' "$T/m_atol" "atol in header"
expect_grep '^eps_eff_1e-4	[0-9]+	0.0001	tail_energy	' "$T/m_atol" "eps_eff row: threshold and kind"
expect_grep '^stable	[0-9.]+	nan	none	' "$T/m_atol" "stable has no threshold"
expect_exit 2 "negative --atol" "$R" --measures --atol -1 "$FIX/rm_graded.npy"

# ---- issue 25: centred thresholds, float32 values, determinism, measures' matrix ----------
# A centred rank is decided against the uncentred matrix's roundoff: the
# header gives sigma_1 of the analysed matrix, the one-pass lower bound on
# the uncentred one's, and the larger, which tsh multiplies
expect_exit 0 "rank_ls plain scales" "$R" -q "$FIX/rank_ls.npy"
w0p=$(tsv_field "$T/out" w0)
expect_eq "$(tsv_meta "$T/out" w0_analysed)" "$w0p" "plain: w0_analysed is w0"
expect_eq "$(tsv_meta "$T/out" w0_uncentred)" "$w0p" "plain: nothing was centred"
expect_eq "$(tsv_meta "$T/out" w0_threshold)" "$w0p" "plain: the threshold's scale is w0"
for c in --center --bias; do
    expect_exit 0 "rank_ls $c scales" "$R" -q $c "$FIX/rank_ls.npy"
    wa=$(tsv_meta "$T/out" w0_analysed)
    wu=$(tsv_meta "$T/out" w0_uncentred)
    wt=$(tsv_meta "$T/out" w0_threshold)
    expect_eq "$wa" "$(tsv_field "$T/out" w0)" "$c: w0_analysed is the row's w0"
    expect_eq "$wt" "$(awk -v a="$wa" -v u="$wu" 'BEGIN { print (a + 0 > u + 0 ? a : u) }')" "$c: w0_threshold is the larger"
    # the uncentred bound lies in [w0/sqrt(3), w0] of the plain matrix
    expect_eq "$(awk -v u="$wu" -v p="$w0p" 'BEGIN { print (u <= p * (1 + 1e-12) && u >= p / sqrt(3)) }')" 1 \
        "$c: w0_uncentred $wu within [w0/sqrt 3, w0] of $w0p"
    want=$(awk -v w="$wt" 'BEGIN { printf "%.17g", 0.5 * sqrt(69) * w * 2.220446049250313e-16 }')
    expect_num_near "$(tsv_field "$T/out" tsh)" "$want" "$(awk -v t="$want" 'BEGIN { print t * 1e-12 }')" "$c: tsh = 0.5 sqrt(m+n+1) eps w0_threshold"
    expect_grep '^# threshold_rule=tsh = 0.5 sqrt\(m\+n\+1\) eps max\(w0_analysed, w0_uncentred\)' "$T/out" "$c: the rule in the header"
done
expect_grep '^# matrix=\(I - 11\^T/N\) A \(I - 11\^T/M\), double-centred' "$T/out" "--bias: the matrix named"
expect_exit 0 "rank_ls --center label" "$R" -q --center "$FIX/rank_ls.npy"
expect_grep '^# matrix=A \(I - 11\^T/M\), row-centred' "$T/out" "--center: the matrix named"

# A float64 file whose every entry is a float32 value (an export rounded to
# float32 and cast back): 40 x 12 values in [1, 2) whose significands end 29
# zero bits early (made here byte by byte); with one bit more (LOWBIT=1) it is
# a genuine float64 file.  f32_npy FILE SEED LOWBIT
f32_npy() {
    npy_header '<f8' '(40, 12)' "$1"
    printf "$(awk -v seed="$2" -v low="$3" 'BEGIN {
        srand(seed)
        for (i = 0; i < 480; i++) {
            k = int(rand() * 8388608)
            printf "\\%03o\\000\\000\\%03o\\%03o\\%03o\\%03o\\077", low, (k % 8) * 32,
                int(k / 8) % 256, int(k / 2048) % 256, 240 + int(k / 524288) % 16
        }
    }')" >>"$1"
}
f32_npy "$T/f32v.npy" 5 0
f32_npy "$T/f64v.npy" 5 1
expect_exit 0 "float32 values" "$R" "$T/f32v.npy"
expect_grep '^# warning=float32_values: every entry of this float64 file is a float32 value.*--eps single.*float64' "$T/out" "float32 values: the header warns and says what to do"
expect_grep '^sbw-rank: warning: float32_values' "$T/err" "float32 values: stderr too"
expect_exit 0 "float32 values, --eps single" "$R" --eps single "$T/f32v.npy"
if grep -q 'float32_values' "$T/out"; then bad "--eps single still warns"; else ok; fi
for f in "$T/f64v.npy" "$FIX/rank_ls.npy"; do
    expect_exit 0 "genuine float64 $f" "$R" "$f"
    if grep -q 'float32_values' "$T/out"; then bad "a genuine float64 file flagged: $f"; else ok; fi
done

# The TSQR gives the same bits on every run, from a file or a pipe: 20,000
# rows in blocks of 16 (1250 blocks) over 2 workers
"$BIN/sbw-synth" lowrank --n 20000 --m 40 --rank 30 --seed 3 -q -o "$T/det.npy" >/dev/null
for i in 1 2 3; do
    expect_exit 0 "determinism run $i" "$R" -q --workers 2 --block-rows 16 --bias --spectrum "$T/det$i.tsv" "$T/det.npy"
    grep -v '^#' "$T/det$i.tsv" >"$T/det$i.rows"
done
cat "$T/det.npy" | "$R" -q --workers 2 --block-rows 16 --bias --spectrum "$T/detp.tsv" - >"$T/out" 2>"$T/err"
grep -v '^#' "$T/detp.tsv" >"$T/detp.rows"
for i in 2 3 p; do
    if cmp -s "$T/det1.rows" "$T/det$i.rows"; then ok; else
        bad "--workers 2: spectrum $i differs from run 1 in $(paste "$T/det1.rows" "$T/det$i.rows" | awk -F'\t' '$2 != $8' | wc -l) rows"
    fi
done

# The measures name the matrix they describe; on an uncentred
# log-probability matrix the row means dominate, and the table says so
expect_exit 0 "--measures plain" "$R" -q --measures "$FIX/rank_ls.npy"
expect_grep '^measure	rank	threshold	on	rule	matrix$' "$T/out" "measures: a matrix column"
expect_grep '^stable	[0-9.e+-]+	nan	none	[^	]*	A$' "$T/out" "measures: of A"
expect_grep '^# warning=mean_dominated: the row means hold [0-9.]+% of \|\|A\|\|_F\^2.*--center' "$T/out" "measures: mean_dominated warning"
expect_exit 0 "--measures --center" "$R" -q --measures --center "$FIX/rank_ls.npy"
expect_grep '^stable	[0-9.e+-]+	nan	none	[^	]*	A row-centred$' "$T/out" "measures: of the row-centred A"
if grep -q 'mean_dominated' "$T/out"; then bad "--center: mean_dominated"; else ok; fi
expect_exit 0 "--measures --bias" "$R" -q --measures --bias "$FIX/rank_ls.npy"
expect_grep '^nr	3	[^	]*	sigma	[^	]*	A double-centred$' "$T/out" "measures: nr of the double-centred A"

# bad data: exit 1, one clear line, nothing written
expect_exit 1 "nonfinite" "$R" -q --spectrum "$T/bad.tsv" "$FIX/nonfinite.npy"
expect_grep '3 non-finite entries \(1 NaN, 1 \+Inf, 1 -Inf\), the first at row 1, column 2' "$T/err" "nonfinite count and position"
expect_grep '\-inf log-probability' "$T/err" "-inf hint"
expect_absent "$T/bad.tsv" "no spectrum on bad data"
expect_exit 1 "1-D" "$R" -q "$FIX/vec_f8.npy"
expect_grep '1-D array of 5 items' "$T/err" "1-D message"
expect_exit 1 "empty" "$R" -q "$FIX/rank_empty.npy"
expect_grep 'empty matrix \(0 x 5\)' "$T/err" "empty message"
expect_exit 1 "3-D" "$R" -q "$FIX/f8_3d.npy"
expect_exit 1 "int64" "$R" -q "$FIX/i8.npy"
expect_exit 1 "missing" "$R" -q "$T/none.npy"
printf 'garbage' | "$R" -q - >"$T/out" 2>"$T/err"
expect_eq "$?" 1 "garbage on stdin"

# bad usage: exit 2 with the usage line
expect_exit 2 "no file" "$R"
expect_grep '^Usage: sbw-rank' "$T/err" "usage line"
expect_exit 2 "two files" "$R" "$FIX/rank_ls.npy" "$FIX/rank_ls.npy"
expect_exit 2 "bad eps" "$R" --eps huge "$FIX/rank_ls.npy"
expect_exit 2 "eps out of range" "$R" --eps 2 "$FIX/rank_ls.npy"
expect_exit 2 "bad norm" "$R" --norm l2 "$FIX/rank_ls.npy"
expect_exit 2 "bad method" "$R" --method svd "$FIX/rank_ls.npy"
expect_exit 2 "unknown option" "$R" --frobnicate "$FIX/rank_ls.npy"
expect_exit 0 "--help" "$R" --help
expect_grep 'Numerical Recipes' "$T/out" "help explains the threshold"
expect_grep 'Example' "$T/out" "help has an example"
expect_exit 0 "--version" "$R" --version

finish
