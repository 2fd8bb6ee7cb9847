# CLI checks of the one input checker and the one output preflight, across
# every tool: empty and 1-D inputs (exit 1, one line, the same reason),
# an output that is an input or another output (exit 2, input untouched),
# uncreatable outputs (fail before any work), float32 log-probabilities.
. tests/cli/lib.sh
. tests/cli/npy.sh
ABS=$(cd "$BIN" && pwd)

# ---- empty and 1-D inputs --------------------------------------------------------------
npy_header '<f8' '(3, 0)' "$T/n0.npy"
npy_header '<f8' '(0, 4)' "$T/z4.npy"
npy_header '<f4' '(0, 4)' "$T/z4f.npy"
npy_header '<f8' '(0,)' "$T/v0.npy"
P=$FIX/kl_p.npy

# expect_refused WHAT PATTERN cmd...: exit 1, one line on stderr matching PATTERN
expect_refused() {
    what=$1
    pat=$2
    shift 2
    expect_exit 1 "$what" "$@"
    expect_lines 1 "$T/err" "$what: one line"
    expect_grep "$pat" "$T/err" "$what: reason"
}
for f in n0 z4 z4f; do
    case $f in n0) pat='empty matrix \(3 x 0\): it has no columns$' ;; *) pat='empty matrix \(0 x 4\): it has no rows$' ;; esac
    expect_refused "info $f" "$pat" "$BIN/sbw-info" "$T/$f.npy"
    cp "$T/err" "$T/want"
    sed 's/^sbw-info: //' "$T/want" >"$T/want.msg"
    expect_refused "rank $f" "$pat" "$BIN/sbw-rank" -q "$T/$f.npy"
    expect_refused "bound $f" "$pat" "$BIN/sbw-bound" -q "$T/$f.npy"
    expect_refused "argmax $f" "$pat" "$BIN/sbw-argmax" -q "$T/$f.npy"
    expect_refused "kl $f" "$pat" "$BIN/sbw-kl" -q "$T/$f.npy"
    expect_refused "kl --pairs $f" "$pat" "$BIN/sbw-kl" -q --pairs 5 "$T/$f.npy"
    expect_refused "compare P $f" "$pat" "$BIN/sbw-compare" "$T/$f.npy" "$P"
    expect_refused "compare Q $f" "$pat" "$BIN/sbw-compare" "$P" "$T/$f.npy"
    expect_refused "fit $f" "$pat" "$BIN/sbw-fit" -q --d 1 --steps 1 "$T/$f.npy"
    expect_refused "fit --dry-run $f" "$pat" "$BIN/sbw-fit" -q --dry-run "$T/$f.npy"
    # the same reason, word for word, from every tool
    sed 's/^sbw-fit: //' "$T/err" >"$T/got.msg"
    if cmp -s "$T/want.msg" "$T/got.msg"; then ok; else bad "$f: sbw-fit and sbw-info differ: $(cat "$T/got.msg") / $(cat "$T/want.msg")"; fi
    expect_refused "synth --alpha-file $f" "$pat" "$BIN/sbw-synth" dirichlet --n 3 -q \
        --alpha-file "$T/$f.npy" -o "$T/x.npy"
    expect_absent "$T/x.npy" "synth --alpha-file $f: nothing written"
done
expect_refused "info (0,)" 'v0.npy: empty array \(0 items\)$' "$BIN/sbw-info" "$T/v0.npy"
expect_refused "synth --alpha-file (0,)" 'v0.npy: empty array \(0 items\)$' \
    "$BIN/sbw-synth" dirichlet --n 3 -q --alpha-file "$T/v0.npy" -o "$T/x.npy"
# a 1-D file is the same "not a matrix" everywhere (exit 1: bad data)
for v in v0 vec; do
    f=$T/v0.npy
    [ $v = vec ] && f=$FIX/vec_f8.npy
    expect_refused "rank 1-D $v" '1-D array of [05] items, not a matrix' "$BIN/sbw-rank" -q "$f"
    expect_refused "bound 1-D $v" '1-D array of [05] items, not a matrix' "$BIN/sbw-bound" -q "$f"
    expect_refused "argmax 1-D $v" '1-D array of [05] items, not a matrix' "$BIN/sbw-argmax" -q "$f"
    expect_refused "kl 1-D $v" '1-D array of [05] items, not a matrix' "$BIN/sbw-kl" -q "$f"
    expect_refused "compare 1-D $v" '1-D array of [05] items, not a matrix' "$BIN/sbw-compare" "$P" "$f"
    expect_refused "fit 1-D $v" '1-D array of [05] items, not a matrix' "$BIN/sbw-fit" -q --steps 1 "$f"
done
expect_refused "bound --fit empty" 'z4.npy: empty matrix \(0 x 4\)' \
    "$BIN/sbw-bound" -q --fit "$T/z4.npy" "$FIX/rank_ls.npy"
expect_refused "info rank_empty" 'rank_empty.npy: empty matrix \(0 x 5\)' "$BIN/sbw-info" "$FIX/rank_empty.npy"

# ---- an output that is an input: exit 2, the input byte for byte as it was ---------------
cp "$FIX/kl_p.npy" "$T/P.npy"
cp "$FIX/kl_q.npy" "$T/Q.npy"
cp "$T/P.npy" "$T/P.orig"
cp "$T/Q.npy" "$T/Q.orig"
ln "$T/P.npy" "$T/P_hard.npy"
ln -s P.npy "$T/P_sym.npy"
"$BIN/sbw-synth" dirichlet --n 1 --m 6 --alpha 2 --probs "$T/alpha.npy" -q -o "$T/unused.npy" >/dev/null
cp "$T/alpha.npy" "$T/alpha.orig"

# expect_kept WHAT cmd...: exit 2, one line, P, Q and alpha untouched
expect_kept() {
    what=$1
    shift
    expect_exit 2 "$what" "$@"
    expect_lines 1 "$T/err" "$what: one line"
    expect_grep "same (file|stream)|is the input" "$T/err" "$what: says why"
    for f in P Q alpha; do
        if cmp -s "$T/$f.npy" "$T/$f.orig"; then ok; else bad "$what: $f.npy changed"; fi
    done
}
expect_kept "fit -o P" "$BIN/sbw-fit" -q --d 1 --steps 2 "$T/P.npy" -o "$T/P.npy"
expect_kept "fit -o hard link" "$BIN/sbw-fit" -q --d 1 --steps 2 "$T/P.npy" -o "$T/P_hard.npy"
expect_kept "fit symlink -o P" "$BIN/sbw-fit" -q --d 1 --steps 2 "$T/P_sym.npy" -o "$T/P.npy"
expect_kept "fit -o ./P (relative)" sh -c "cd '$T' && '$ABS/sbw-fit' -q --d 1 --steps 2 P.npy -o ./P.npy"
expect_kept "fit --log P" "$BIN/sbw-fit" -q --d 1 --steps 2 "$T/P.npy" --log "$T/./P.npy"
expect_kept "fit --save P" "$BIN/sbw-fit" -q --d 1 --steps 2 "$T/P.npy" --save "$T/P.npy"
expect_kept "fit -o = --log" "$BIN/sbw-fit" -q --d 1 --steps 2 "$T/P.npy" -o "$T/q1.npy" --log "$T/q1.npy"
expect_kept "kl -o P" "$BIN/sbw-kl" "$T/P.npy" -o "$T/P.npy"
expect_kept "kl --matrix P" "$BIN/sbw-kl" "$T/P.npy" --matrix "$T/P_hard.npy"
expect_kept "kl -o = --matrix" "$BIN/sbw-kl" "$T/P.npy" -o "$T/k.npy" --matrix "$T/./k.npy"
expect_kept "kl --matrix - -o - (both on stdout)" "$BIN/sbw-kl" "$T/P.npy" --matrix - -o -
expect_kept "compare -o Q" "$BIN/sbw-compare" "$T/P.npy" "$T/Q.npy" -o "$T/Q.npy"
expect_kept "compare --per-row P" "$BIN/sbw-compare" "$T/P.npy" "$T/Q.npy" --per-row "$T/P_sym.npy"
expect_kept "compare -o = --per-row" "$BIN/sbw-compare" "$T/P.npy" "$T/Q.npy" -o "$T/c.tsv" --per-row "$T/c.tsv"
expect_kept "argmax -o P" "$BIN/sbw-argmax" -q "$T/P.npy" -o "$T/P_hard.npy"
expect_kept "rank --spectrum P" "$BIN/sbw-rank" -q "$T/P.npy" --spectrum "$T/P.npy"
expect_kept "bound -o P" "$BIN/sbw-bound" -q --construct 1 "$T/P.npy" -o "$T/P.npy"
expect_kept "bound -o --fit Q" "$BIN/sbw-bound" -q --construct 1 --fit "$T/Q.npy" "$T/P.npy" -o "$T/Q.npy"
expect_kept "synth -o alpha" "$BIN/sbw-synth" dirichlet --n 3 -q --alpha-file "$T/alpha.npy" -o "$T/alpha.npy"
expect_kept "synth --probs alpha" "$BIN/sbw-synth" dirichlet --n 3 -q --alpha-file "$T/alpha.npy" \
    -o "$T/x.npy" --probs "$T/alpha.npy"
expect_kept "synth -o = --probs" "$BIN/sbw-synth" dirichlet --n 3 --m 4 -q -o "$T/s.npy" --probs "$T/./s.npy"
for f in q1 k c.tsv s x; do
    [ "$f" = c.tsv ] || f=$f.npy
    expect_absent "$T/$f" "refused runs wrote nothing ($f)"
done
# devices are not files: two outputs to /dev/null are fine
expect_exit 0 "compare -o /dev/null --per-row /dev/null" "$BIN/sbw-compare" "$T/P.npy" "$T/Q.npy" \
    -o /dev/null --per-row /dev/null

# ---- an uncreatable output fails before any work -------------------------------------------
cp "$FIX/kl_p.npy" "$T/F.npy" # a fresh input: 10^8 steps on it would take hours
now() { date +%s.%N; }
within() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { exit !(b - a <= s) }'; }
for opt in -o --log --save --checkpoint; do
    t0=$(now)
    expect_exit 1 "fit $opt /nonexistent" "$BIN/sbw-fit" -q --d 2 --steps 100000000 "$T/F.npy" \
        -o "$T/never.npy" "$opt" /nonexistent/dir/out
    t1=$(now)
    if within "$t0" "$t1" 1; then ok; else bad "fit $opt /nonexistent: took $t0 -> $t1, want < 1 s"; fi
    expect_lines 1 "$T/err" "fit $opt /nonexistent: one line"
    expect_grep "/nonexistent/dir/out: cannot create" "$T/err" "fit $opt /nonexistent: names the path"
done
expect_absent "$T/never.npy" "fit: nothing written"
expect_exit 1 "kl -o a directory" "$BIN/sbw-kl" "$T/P.npy" -o "$T"
expect_grep "is a directory" "$T/err" "kl -o a directory: says why"
expect_exit 1 "compare --per-row /nonexistent" "$BIN/sbw-compare" "$T/P.npy" "$T/Q.npy" --per-row /nonexistent/r.tsv
expect_exit 1 "rank --spectrum /nonexistent" "$BIN/sbw-rank" -q "$T/P.npy" --spectrum /nonexistent/s.tsv
expect_exit 1 "bound -o /nonexistent" "$BIN/sbw-bound" -q --construct 1 "$T/P.npy" -o /nonexistent/b.npy
expect_exit 1 "synth --probs /nonexistent" "$BIN/sbw-synth" zipf --n 3 --m 4 -q -o "$T/x.npy" --probs /nonexistent/p.npy
expect_absent "$T/x.npy" "synth: nothing written"

# ---- float32 log-probabilities are judged at float32 rounding ------------------------------
# logp_f4.npy is logp.npy rounded to float32 (rows off by 4.2e-8); logp_f4_as_f8.npy the
# same numbers in a float64 file; logp_f4_unnorm.npy has row 1 off by 1e-4.
expect_exit 0 "info float32" "$BIN/sbw-info" "$FIX/logp_f4.npy" "$FIX/logp_f4_unnorm.npy"
expect_eq "$(tsv_field "$T/out" kind 1)/$(tsv_field "$T/out" kind 2)" "log-probabilities/other" "float32 kinds"
expect_num_near "$(tsv_field "$T/out" max_abs_logsumexp 1)" 4.2e-8 1e-9 "float32 rows off by 4.2e-8"
for tol in 1e-9 1e-12; do
    expect_exit 0 "info --tol $tol" "$BIN/sbw-info" --tol $tol "$FIX/logp_f4.npy" "$FIX/logp_f4_as_f8.npy"
    expect_eq "$(tsv_field "$T/out" kind 1)/$(tsv_field "$T/out" kind 2)" "log-probabilities/other" \
        "--tol $tol: float32 at its rounding, the same numbers in float64 at the tolerance"
done
expect_exit 0 "kl float32 --tol 1e-9" "$BIN/sbw-kl" --tol 1e-9 "$FIX/logp_f4.npy"
expect_exit 1 "kl float64 --tol 1e-9" "$BIN/sbw-kl" --tol 1e-9 "$FIX/logp_f4_as_f8.npy"
expect_grep "row 0 \(0-based\) is not normalised" "$T/err" "kl float64: names the row"
expect_exit 1 "kl float32 unnormalised" "$BIN/sbw-kl" "$FIX/logp_f4_unnorm.npy"
expect_grep "logp_f4_unnorm.npy: row 1 \(0-based\) is not normalised" "$T/err" "kl float32: names row 1"
expect_exit 0 "compare float32 --tol 1e-9" "$BIN/sbw-compare" --tol 1e-9 "$FIX/logp_f4.npy" "$FIX/logp_f4.npy"
expect_exit 1 "compare float64 --tol 1e-9" "$BIN/sbw-compare" --tol 1e-9 "$FIX/logp_f4.npy" "$FIX/logp_f4_as_f8.npy"
expect_exit 0 "fit float32 --norm-tol 1e-9" "$BIN/sbw-fit" -q --d 1 --steps 2 --norm-tol 1e-9 "$FIX/logp_f4.npy"
expect_exit 1 "fit float64 --norm-tol 1e-9" "$BIN/sbw-fit" -q --d 1 --steps 2 --norm-tol 1e-9 "$FIX/logp_f4_as_f8.npy"
expect_exit 1 "fit float32 unnormalised" "$BIN/sbw-fit" -q --d 1 --steps 2 "$FIX/logp_f4_unnorm.npy"
expect_grep "row 1 \(0-based\) is not normalised" "$T/err" "fit float32: names row 1"
# ---- -o checked when the table goes to stderr beside a stream on stdout ----------------------
cp "$FIX/kl_p.npy" "$T/in.npy"
sum0=$(cksum <"$T/in.npy")
expect_exit 2 "kl --matrix - -o INPUT" "$BIN/sbw-kl" -q --matrix - -o "$T/in.npy" "$T/in.npy" >/dev/null
expect_eq "$(cksum <"$T/in.npy")" "$sum0" "kl --matrix - -o INPUT: the input is untouched"
expect_exit 2 "compare --per-row - -o INPUT" "$BIN/sbw-compare" -q --per-row - -o "$T/in.npy" \
    "$T/in.npy" "$FIX/kl_p.npy" >/dev/null
expect_eq "$(cksum <"$T/in.npy")" "$sum0" "compare --per-row - -o INPUT: the input is untouched"
# ---- sbw-info: any bad file is bad data (exit 1), whatever its reason -------------------------
printf '\002\000\000\000\000\000\000\000{}' >"$T/t.safetensors" # a valid file with no tensors
expect_exit 1 "info good + empty tensor name" "$BIN/sbw-info" "$FIX/kl_p.npy" "$T/t.safetensors:"
finish
