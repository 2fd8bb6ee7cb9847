# tests/cli/npy.sh -- sourced by CLI tests that need .npy files made on the
# spot (POSIX sh, no Python): npy_header writes a version 1.0 header.

# npy_header DESCR SHAPE FILE: FILE becomes the header of a C-order array,
# e.g. npy_header '<f8' '(3, 0)' "$T/e.npy"; append the payload after it.
npy_header() {
    dict="{'descr': '$1', 'fortran_order': False, 'shape': $2, }"
    # magic (6) + version (2) + length (2) + dict + padding + '\n' = 64 k
    pad=$(((64 - (10 + ${#dict} + 1) % 64) % 64))
    hlen=$((${#dict} + pad + 1))
    {
        printf '\223NUMPY\001\000'
        printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
        printf '%s%*s\n' "$dict" "$pad" ''
    } >"$3"
}
