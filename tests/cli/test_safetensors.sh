#!/bin/sh
# CLI checks of FILE.safetensors:NAME inputs and sbw-info's listing.  The
# safetensors files are written here: an 8-byte little-endian header length,
# the JSON header, then raw little-endian data (payloads taken from the
# float32 .npy fixtures, whose last bytes are exactly that).
. tests/cli/lib.sh

. tests/cli/safetensors.sh
# payload FILE.npy BYTES: the last BYTES bytes (the data of a C-order .npy)
payload() { tail -c "$2" "$1"; }

payload "$FIX/f4_c.npy" 48 >"$T/f4c.bin"         # 3 x 4 float32
payload "$FIX/rank_ls_f4.npy" 3840 >"$T/rls.bin" # 48 x 20 float32, rank 4
payload "$FIX/logp_f4.npy" 48 >"$T/lp.bin"       # 3 x 4 float32 log P
printf '\000\074\000\300\001\000\000\200\377\173\000\176' >"$T/h.bin" # F16 1 -2 2^-24 -0 65504 NaN
J='{"__metadata__": {"format": "pt"}, "A": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 48]}, "L": {"dtype": "F32", "shape": [48, 20], "data_offsets": [48, 3888]}, "P": {"dtype": "F32", "shape": [3, 4], "data_offsets": [3888, 3936]}, "H": {"dtype": "F16", "shape": [2, 3], "data_offsets": [3936, 3948]}, "ids": {"dtype": "I64", "shape": [1], "data_offsets": [3948, 3956]}}'
printf '\001\000\000\000\000\000\000\000' >"$T/i64.bin"
M="$T/m.safetensors"
st_write "$M" "$J   " "$T/f4c.bin" "$T/rls.bin" "$T/lp.bin" "$T/h.bin" "$T/i64.bin"

# sbw-info lists the tensors
expect_exit 0 "info lists" "$BIN/sbw-info" "$M"
expect_eq "$(tsv_rows "$T/out" | wc -l)" 6 "five tensors and the header"
expect_eq "$(tsv_field "$T/out" tensor 2) $(tsv_field "$T/out" dtype 2) $(tsv_field "$T/out" shape 2)" \
    "L F32 [48, 20]" "second tensor"
expect_eq "$(tsv_field "$T/out" readable 5) $(tsv_field "$T/out" readable 4)" "no yes" "I64 not readable, F16 readable"
expect_eq "$(tsv_field "$T/out" bytes 3)" 48 "bytes"
expect_exit 0 "info lists --json" "$BIN/sbw-info" --json "$M"
expect_grep '"tensor": *"H"' "$T/out" "json listing"
expect_exit 2 "info: a listing mixed with a matrix" "$BIN/sbw-info" "$M" "$FIX/f4_c.npy"

# a tensor reads as the .npy it came from
expect_exit 0 "info A" "$BIN/sbw-info" "$M:A"
expect_eq "$(tsv_field "$T/out" rows)x$(tsv_field "$T/out" cols)" 3x4 "A shape"
expect_eq "$(tsv_field "$T/out" min) $(tsv_field "$T/out" max)" "-0.625 0.75" "A range as f4_c.npy"
expect_eq "$(tsv_field "$T/out" dtype) $(tsv_field "$T/out" npy_version)" "float32 safetensors" "A dtype"
expect_exit 0 "info H" "$BIN/sbw-info" "$M:H"
expect_eq "$(tsv_field "$T/out" dtype)" float16 "H dtype"
expect_eq "$(tsv_field "$T/out" min) $(tsv_field "$T/out" max) $(tsv_field "$T/out" nan)" "-2 65504 1" "F16 values exact"
expect_eq "$(tsv_field "$T/out" first_nonfinite)" "1,2" "F16 NaN found"

# every tool: sbw-rank, sbw-bound, sbw-kl, sbw-compare
expect_exit 0 "rank L" "$BIN/sbw-rank" -q "$M:L"
expect_eq "$(tsv_field "$T/out" rank)" 4 "rank of L as rank_ls_f4.npy"
expect_grep '^# eps_source=float32 data' "$T/out" "eps from F32"
expect_grep "^# file=.*m.safetensors:L" "$T/out" "file names the tensor"
expect_exit 0 "rank --measures L" "$BIN/sbw-rank" -q --measures "$M:L"
expect_exit 0 "bound L" "$BIN/sbw-bound" -q --d 2 "$M:L"
"$BIN/sbw-kl" -q "$FIX/logp_f4.npy" >"$T/kl_npy" 2>"$T/err"
expect_exit 0 "kl P" "$BIN/sbw-kl" -q "$M:P"
expect_eq "$(tsv_rows "$T/out")" "$(tsv_rows "$T/kl_npy")" "sbw-kl: tensor = .npy"
expect_exit 0 "compare P P" "$BIN/sbw-compare" -q "$M:P" "$FIX/logp_f4.npy"
expect_exit 1 "rank H (NaN)" "$BIN/sbw-rank" -q "$M:H"
expect_grep 'm.safetensors:H: 1 non-finite entry' "$T/err" "NaN rejected by the checker"
st_write "$T/h16.safetensors" '{"H": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}}' "$T/h.bin"
head -c 8 "$T/h.bin" >"$T/h8.bin"
st_write "$T/h16.safetensors" '{"H": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}}' "$T/h8.bin"
expect_exit 0 "rank of an F16 tensor" "$BIN/sbw-rank" -q "$T/h16.safetensors:H"
expect_grep '^# eps_source=float16 data' "$T/out" "F16 eps"
expect_eq "$(tsv_field "$T/out" eps)" 0.0009765625 "eps 2^-10"

# bad input: exit 1 and one line naming the file
bad_file() { # bad_file WHAT JSON DATA_BYTES PATTERN
    head -c "$3" /dev/zero >"$T/zero.bin"
    st_write "$T/bad.safetensors" "$2" "$T/zero.bin"
    expect_exit 1 "$1" "$BIN/sbw-rank" -q "$T/bad.safetensors:A"
    expect_grep "$4" "$T/err" "$1: reason"
    expect_eq "$(wc -l <"$T/err")" 1 "$1: one line"
    expect_grep 'bad.safetensors' "$T/err" "$1: names the file"
    expect_exit 1 "$1 (info)" "$BIN/sbw-info" "$T/bad.safetensors"
}
bad_file "JSON error" '{"A": {"dtype": "F32", "shape": [1, 1], "data_offsets": [0, 4]}' 4 'invalid JSON'
bad_file "unknown dtype" '{"A": {"dtype": "F31", "shape": [1, 1], "data_offsets": [0, 4]}}' 4 'unknown dtype "F31"'
bad_file "offsets outside" '{"A": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}}' 4 'outside the 4-byte data section'
bad_file "overlap" '{"A": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}, "B": {"dtype": "F32", "shape": [1, 1], "data_offsets": [4, 8]}}' 8 'overlap'
bad_file "hole" '{"A": {"dtype": "F32", "shape": [1, 1], "data_offsets": [4, 8]}}' 8 'belong to no tensor'
bad_file "size mismatch" '{"A": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 4]}}' 4 'need 8'
le8 1000 >"$T/bad.safetensors"
printf '{}' >>"$T/bad.safetensors"
expect_exit 1 "bad length" "$BIN/sbw-rank" -q "$T/bad.safetensors:A"
expect_grep 'bad safetensors header length 1000' "$T/err" "bad length: reason"
printf 'abc' >"$T/bad.safetensors"
expect_exit 1 "too short" "$BIN/sbw-info" "$T/bad.safetensors"
expect_grep 'shorter than the 8-byte' "$T/err" "too short: reason"
expect_exit 1 "missing tensor" "$BIN/sbw-rank" -q "$M:W"
expect_grep "no tensor named 'W' \(it holds 5: 'A', 'L', 'P', 'H'" "$T/err" "missing tensor: names the tensors"
expect_exit 1 "int64 tensor" "$BIN/sbw-rank" -q "$M:ids"
expect_grep 'unsupported dtype I64' "$T/err" "I64 refused"
expect_exit 1 "missing file" "$BIN/sbw-rank" -q "$T/none.safetensors:A"
expect_grep 'none.safetensors: cannot open' "$T/err" "missing file: reason"

# usage: a bare file where a matrix goes, a missing name, an output over the input
expect_exit 2 "bare file" "$BIN/sbw-rank" -q "$M"
expect_grep 'read one as .*m.safetensors:NAME' "$T/err" "bare file: the hint"
expect_exit 2 "empty name" "$BIN/sbw-rank" -q "$M:"
expect_exit 2 "output over the input" "$BIN/sbw-rank" -q --spectrum "$M" "$M:L"
expect_grep 'is the input' "$T/err" "preflight sees the file"

finish
