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

finish
