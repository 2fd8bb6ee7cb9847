# tests/cli/safetensors.sh -- sourced by CLI tests that write safetensors
# files on the spot (POSIX sh): an 8-byte little-endian header length, the
# JSON header, then the raw little-endian data.

# le8 N: N as 8 little-endian bytes
le8() {
    n=$1
    i=0
    while [ $i -lt 8 ]; do
        printf "\\$(printf '%03o' $((n % 256)))"
        n=$((n / 256))
        i=$((i + 1))
    done
}
# st_write OUT JSON [DATA...]: a safetensors file
st_write() {
    out=$1
    json=$2
    shift 2
    le8 ${#json} >"$out"
    printf '%s' "$json" >>"$out"
    [ $# -gt 0 ] && cat "$@" >>"$out"
    return 0
}
