# CLI checks of sbw-info: fixtures, stdin, JSON, malformed files, usage.
. tests/cli/lib.sh

for f in f8_c f4_c f8_f f4_f f8_be f4_be_f f8_v2 f8_v3; do
    expect_exit 0 "info $f" "$BIN/sbw-info" "$FIX/$f.npy"
    expect_eq "$(tsv_field "$T/out" rows)x$(tsv_field "$T/out" cols)" "3x4" "$f shape"
    expect_eq "$(tsv_field "$T/out" min) $(tsv_field "$T/out" max)" "-0.625 0.75" "$f range"
done
# Layout of every fixture sbw-info accepts, as the make_*fixtures.py scripts
# wrote it: dtype from .astype() ('<f4' / '>f8' / ...; float64 otherwise),
# order F for np.asfortranarray (C otherwise; 1-d is C), version from
# write_array(version=...) (np.save and write_array default to 1.0).
cat >"$T/layouts" <<'EOF'
# make_fixtures.py
f8_c        float64 little C 1.0
f8_f        float64 little F 1.0
f4_c        float32 little C 1.0
f4_f        float32 little F 1.0
f8_be       float64 big    C 1.0
f4_be_f     float32 big    F 1.0
f8_v2       float64 little C 2.0
f8_v3       float64 little C 3.0
vec_f8      float64 little C 1.0
logp        float64 little C 1.0
probs       float64 little C 1.0
logp_zero   float64 little C 1.0
nonfinite   float64 little C 1.0
# make_kl_fixtures.py
kl_p        float64 little C 1.0
kl_q        float64 little C 1.0
kl_p_probs  float64 little C 1.0
kl_unnorm   float64 little C 1.0
kl_nan      float64 little C 1.0
kl_neginf   float64 little C 1.0
kl_posinf   float64 little C 1.0
kl_probs_bad float64 little C 1.0
kl_q_shape  float64 little C 1.0
kl_1row     float64 little C 1.0
tie_p       float64 little C 1.0
tie_q       float64 little C 1.0
# make_rank_fixtures.py
rank_ls     float64 little C 1.0
rank_ls_f4  float32 little C 1.0
rank_tall   float64 little C 1.0
rank_bias   float64 little C 1.0
rank_zero_sv float64 little C 1.0
# make_rank_measures.py
rm_graded   float64 little C 1.0
rm_decay    float64 little C 1.0
# make_io_fixtures.py
logp_f4     float32 little C 1.0
logp_f4_as_f8 float64 little C 1.0
logp_f4_unnorm float32 little C 1.0
# make_fit_fixtures.py
fit_nan     float64 little C 1.0
fit_posinf  float64 little C 1.0
# make_argmax_fixtures.py
argmax_square float64 little C 1.0
argmax_square_f4 float32 little C 1.0
argmax_square_bias float64 little C 1.0
argmax_bias6 float64 little C 1.0
argmax_nan  float64 little C 1.0
argmax_1row float64 little C 1.0
# make_trunc_fixtures.py
trunc_square float64 little C 1.0
trunc_square_unnorm float64 little C 1.0
EOF
while read -r f dtype bo order ver; do
    case "$f" in '#'* | '') continue ;; esac
    expect_exit 0 "layout $f" "$BIN/sbw-info" "$FIX/$f.npy"
    expect_eq "$(tsv_field "$T/out" dtype) $(tsv_field "$T/out" byte_order) $(tsv_field "$T/out" order) $(tsv_field "$T/out" npy_version)" \
        "$dtype $bo $order $ver" "$f: dtype byte_order order npy_version"
done <"$T/layouts"
# a fixture added later, and accepted, must join the table
for p in "$FIX"/*.npy; do
    f=$(basename "$p" .npy)
    "$BIN/sbw-info" "$p" >/dev/null 2>&1 || continue
    if grep -q "^$f " "$T/layouts"; then ok; else bad "fixture $f.npy is accepted but missing from the layout table"; fi
done
expect_exit 0 "logp" "$BIN/sbw-info" "$FIX/logp.npy" "$FIX/probs.npy" "$FIX/f8_c.npy"
expect_eq "$(tsv_field "$T/out" kind 1)/$(tsv_field "$T/out" kind 2)/$(tsv_field "$T/out" kind 3)" \
    "log-probabilities/probabilities/other" "kinds"
expect_exit 0 "nonfinite" "$BIN/sbw-info" "$FIX/nonfinite.npy"
expect_eq "$(tsv_field "$T/out" nan) $(tsv_field "$T/out" posinf) $(tsv_field "$T/out" neginf) $(tsv_field "$T/out" first_nonfinite)" \
    "1 1 1 1,2" "nonfinite counts"
expect_exit 0 "vector" "$BIN/sbw-info" "$FIX/vec_f8.npy"
expect_eq "$(tsv_field "$T/out" ndim) $(tsv_field "$T/out" rows)" "1 5" "vector shape"

# stdin, JSON, headers
cat "$FIX/f8_be.npy" | "$BIN/sbw-info" --json - >"$T/json" 2>"$T/err"
expect_eq "$?" 0 "stdin json exit"
expect_grep '^\{"tool": "sbw-info", .*"rows": 3, "cols": 4, .*"kind": "other"' "$T/json" "json object"
expect_lines 1 "$T/json" "json is one line"
expect_exit 0 "header" "$BIN/sbw-info" "$FIX/f8_c.npy"
expect_grep '^# version=' "$T/out" "version header"
expect_grep '^# blas=OpenBLAS' "$T/out" "blas header"
expect_grep '^# threads=[0-9]+$' "$T/out" "threads header"
expect_grep '^# command=.*sbw-info' "$T/out" "command header"

# malformed files: exit 1, one line naming the file
printf 'not a numpy file at all' >"$T/magic.npy"
head -c 150 "$FIX/f8_c.npy" >"$T/trunc.npy"
cat "$FIX/f8_c.npy" >"$T/trail.npy"; printf 'xx' >>"$T/trail.npy"
sed "s/'shape': (3, 4)/'shape': (3, 4/" "$FIX/f8_c.npy" >"$T/dict.npy"
sed "s/'shape': (3, 4)/'shape': (9999999999999999999999, 4)/" "$FIX/f8_c.npy" >"$T/over.npy"
for f in magic trunc trail dict over; do
    expect_exit 1 "malformed $f" "$BIN/sbw-info" "$T/$f.npy"
    expect_lines 1 "$T/err" "$f: one line"
    expect_grep "$T/$f.npy" "$T/err" "$f: names the file"
done
for f in i8 f8_3d f8_0d c16; do
    expect_exit 1 "unsupported $f" "$BIN/sbw-info" "$FIX/$f.npy"
    expect_grep "(unsupported dtype|arrays are not supported)" "$T/err" "$f reason"
    expect_lines 1 "$T/err" "unsupported $f: one line"
    expect_grep "$FIX/$f.npy" "$T/err" "unsupported $f: names the file"
done
expect_exit 1 "missing file" "$BIN/sbw-info" "$T/nope.npy"
head -c 150 "$FIX/f8_c.npy" | "$BIN/sbw-info" - >"$T/out" 2>"$T/err"
expect_eq "$?" 1 "truncated stdin exit"
expect_grep "<stdin>: truncated" "$T/err" "truncated stdin reason"
"$BIN/sbw-info" "$FIX/f8_c.npy" >/dev/full 2>"$T/err"
expect_eq "$?" 1 "write error exit"
expect_grep "cannot write" "$T/err" "write error reason"

# usage
expect_exit 2 "no args" "$BIN/sbw-info"
expect_grep "^Usage: sbw-info" "$T/err" "usage on stderr"
expect_exit 2 "unknown option" "$BIN/sbw-info" --frobnicate "$FIX/f8_c.npy"
expect_exit 2 "bad tol" "$BIN/sbw-info" --tol abc "$FIX/f8_c.npy"
expect_exit 2 "tol range" "$BIN/sbw-info" --tol 5 "$FIX/f8_c.npy"
expect_exit 0 "help" "$BIN/sbw-info" --help
expect_grep "^Usage: sbw-info" "$T/out" "help on stdout"
expect_exit 0 "version" "$BIN/sbw-info" --version
expect_grep "^sbw-info \(sbw\) [0-9]" "$T/out" "version text"
# a .safetensors file lists its tensors; FILE:NAME reads one (BF16 1, -2)
j='{"w": {"dtype": "BF16", "shape": [1, 2], "data_offsets": [0, 4]}}'
{ printf "\\$(printf '%03o' ${#j})\\000\\000\\000\\000\\000\\000\\000"; printf '%s' "$j"; printf '\200\077\000\300'; } >"$T/s.safetensors"
expect_exit 0 "info safetensors listing" "$BIN/sbw-info" "$T/s.safetensors"
expect_eq "$(tsv_field "$T/out" tensor) $(tsv_field "$T/out" dtype) $(tsv_field "$T/out" shape)" "w BF16 [1, 2]" "listing row"
expect_exit 0 "info safetensors tensor" "$BIN/sbw-info" "$T/s.safetensors:w"
expect_eq "$(tsv_field "$T/out" dtype) $(tsv_field "$T/out" min) $(tsv_field "$T/out" max)" "bfloat16 -2 1" "BF16 tensor values"


# --per-row and --sorted (the values of LMS Figure 5): checked against
# sbw-compare's per-row entropy and mode of the same rows, and against
# themselves (a permutation of the row, p = exp(log p), sum 1, the entropy)
"$BIN/sbw-synth" dirichlet --n 30 --m 25 --alpha 0.3 --seed 2 -q -o "$T/d.npy" >/dev/null
"$BIN/sbw-compare" -q --per-row "$T/cmp.tsv" "$T/d.npy" "$T/d.npy" >/dev/null
expect_exit 0 "per-row and sorted" "$BIN/sbw-info" --per-row "$T/rows.tsv" --sorted "$T/sorted.tsv" \
    --sorted-row 7 "$T/d.npy"
expect_eq "$(tsv_field "$T/out" kind)" log-probabilities "per-row: the file's row on stdout"
expect_grep "^# command=.*--per-row" "$T/rows.tsv" "per-row: its command line"
expect_eq "$(tsv_meta "$T/sorted.tsv" row)" 7 "sorted: the row in the header"
expect_eq "$(tsv_rows "$T/rows.tsv" | head -1) $(tsv_rows "$T/sorted.tsv" | head -1)" \
    "$(printf 'row\tentropy rank\tword\tlog_prob\tprob')" "per-row and sorted: columns"
expect_lines 30 "$(tsv_rows "$T/rows.tsv" | sed 1d >"$T/r"; echo "$T/r")" "per-row: one line a row"
paste "$T/r" "$(tsv_rows "$T/cmp.tsv" | sed 1d >"$T/c"; echo "$T/c")" >"$T/rc"
col=$(tsv_rows "$T/cmp.tsv" | head -1 | tr '\t' '\n' | grep -n '^entropy$' | cut -d: -f1)
expect_eq "$(awk -F'\t' -v c=$((col + 2)) '$1 != $3 || ($2 - $c)^2 > 1e-24 { print "row " $1 ": " $2 " vs " $c }' "$T/rc")" "" \
    "per-row entropy = sbw-compare's"
expect_eq "$(tsv_field "$T/sorted.tsv" word)" "$(tsv_field "$T/cmp.tsv" mode_p 8)" "sorted: rank 1 is the row's mode"
expect_eq "$(tsv_rows "$T/sorted.tsv" | awk -F'\t' 'NR > 1 {
        if ($1 != NR - 1) print "rank " $1 " at line " NR
        if (NR > 2 && $3 > last) print "rank " $1 ": log_prob rises"
        d = $4 - exp($3); if (d * d > 1e-30 * $4 * $4) print "rank " $1 ": prob is not exp(log_prob)"
        last = $3; s += $4; h -= $4 * $3; seen[$2]++
    } END {
        for (j = 0; j < 25; j++) if (seen[j] != 1) print "word " j " seen " seen[j] + 0 " times"
        if ((s - 1)^2 > 1e-26) print "sum " s
        printf "%.12f\n", h
    }')" "$(printf '%.12f' "$(tsv_field "$T/rows.tsv" entropy 8)")" "sorted: a permutation of row 7, p = exp(log p), sum 1, its entropy"
expect_exit 0 "per-row to stdout" "$BIN/sbw-info" --per-row - "$T/d.npy"
expect_eq "$(tsv_rows "$T/out" | sed -n 2p)" "$(tsv_rows "$T/rows.tsv" | sed -n 2p)" "per-row -: the rows on stdout"
expect_grep "log-probabilities" "$T/err" "per-row -: the file's row on stderr"
for f in probs nonfinite; do
    expect_exit 1 "per-row of $f" "$BIN/sbw-info" --per-row "$T/bad_rows.tsv" --sorted "$T/bad_s.tsv" "$FIX/$f.npy"
    expect_lines 1 "$T/err" "per-row of $f: one line"
    expect_grep "^sbw-info: $FIX/$f.npy: " "$T/err" "per-row of $f: names the file"
    expect_absent "$T/bad_rows.tsv" "per-row of $f: no table"
    expect_absent "$T/bad_s.tsv" "per-row of $f: no sorted table"
done
expect_exit 2 "sorted row beyond the file" "$BIN/sbw-info" --sorted "$T/bad_s.tsv" --sorted-row 30 "$T/d.npy"
expect_grep "row 30 asked for, but it has 30 rows" "$T/err" "sorted row beyond: said"
expect_absent "$T/bad_s.tsv" "sorted row beyond: no table"
expect_exit 2 "sorted-row without sorted" "$BIN/sbw-info" --sorted-row 3 "$T/d.npy"
expect_exit 2 "per-row of two files" "$BIN/sbw-info" --per-row "$T/bad_rows.tsv" "$T/d.npy" "$T/d.npy"
expect_exit 2 "per-row over its input" "$BIN/sbw-info" --per-row "$T/d.npy" "$T/d.npy"
expect_exit 2 "two tables on stdout" "$BIN/sbw-info" --per-row - --sorted - "$T/d.npy"
expect_exit 1 "per-row of a vector" "$BIN/sbw-info" --per-row "$T/bad_rows.tsv" "$FIX/vec_f8.npy"
expect_grep "not a matrix" "$T/err" "per-row of a vector: said"

finish
