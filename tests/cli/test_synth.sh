#!/bin/sh
# CLI checks of sbw-synth: every kind writes a normalised, finite
# log-probability matrix (read back by sbw-info); reproducibility across
# seeds and thread counts; the header; stdout output; bad input exits 2
# (bad data 1) with a message and writes nothing.  The head kind: its
# files read back (sbw-argmax finds exactly the planted words, named in*),
# the same seed the same bytes, W to stdout with the table on stderr, bad
# sizes exit 2 and an unwritable output 1, leaving none of its files.
. tests/cli/lib.sh
S=$BIN/sbw-synth
I=$BIN/sbw-info

# --- each kind, read back by sbw-info -----------------------------------------
for kind in "dirichlet --alpha 1e-4" "lowrank --rank 4" "zipf --sigma 2" "topics --k 3 --alpha 0.01"; do
    name=${kind%% *}
    expect_exit 0 "$name runs" $S $kind --n 37 --m 1001 -q -o "$T/$name.npy"
    expect_grep "^$T/$name.npy	37	1001	" "$T/out" "$name: table row"
    expect_exit 0 "$name: sbw-info" $I --tol 1e-12 "$T/$name.npy"
    expect_eq "$(tsv_field "$T/out" kind)" "log-probabilities" "$name: rows normalised to 1e-12"
    expect_eq "$(tsv_field "$T/out" neginf)" "0" "$name: no -inf"
    expect_eq "$(tsv_field "$T/out" nan)" "0" "$name: no NaN"
    expect_eq "$(tsv_field "$T/out" rows)" "37" "$name: rows"
done

# --- alpha = 1e-4, M = 100000: still no -inf (NumPy's dirichlet has half zeros) --
expect_exit 0 "tiny alpha, big M" $S dirichlet --n 3 --m 100000 --alpha 1e-4 -q -o "$T/tiny.npy"
expect_eq "$(tsv_field "$T/out" nonfinite)" "0" "tiny alpha: nonfinite column"
expect_exit 0 "tiny alpha: sbw-info" $I "$T/tiny.npy"
expect_eq "$(tsv_field "$T/out" neginf)" "0" "tiny alpha: no -inf in the file"

# --- reproducibility -------------------------------------------------------------
# Thread counts are explicit (1 and 3): the default equals 1 on a 1-core
# machine, and OpenMP runs 3 threads on any number of cores.
expect_exit 0 "seed 5, 1 thread" $S dirichlet --n 300 --m 999 --seed 5 --threads 1 -q -o "$T/a.npy"
expect_exit 0 "seed 5 again, 3 threads" $S dirichlet --n 300 --m 999 --seed 5 --threads 3 -q -o "$T/b.npy"
expect_grep "^# threads=3$" "$T/out" "3 threads in the header"
expect_exit 0 "seed 6" $S dirichlet --n 300 --m 999 --seed 6 -q -o "$T/c.npy"
if cmp -s "$T/a.npy" "$T/b.npy"; then ok; else bad "same seed, 1 vs 3 threads: files differ"; fi
if cmp -s "$T/a.npy" "$T/c.npy"; then bad "different seeds: files equal"; else ok; fi
expect_exit 0 "lowrank 1 thread" $S lowrank --n 500 --m 700 --rank 30 --threads 1 -q -o "$T/l1.npy"
expect_exit 0 "lowrank 3 threads" $S lowrank --n 500 --m 700 --rank 30 --threads 3 -q -o "$T/l2.npy"
if cmp -s "$T/l1.npy" "$T/l2.npy"; then ok; else bad "lowrank: 1 vs 3 threads differ"; fi

# --- header: every parameter, seed, ranks ------------------------------------------
expect_exit 0 "lowrank with ones" $S lowrank --n 40 --m 30 --rank 5 --with-ones --scale 2 --seed 9 -q -o "$T/l.npy"
for kv in "seed=9" "kind=lowrank" "n=40" "m=30" "rank=5" "scale=2" "with_ones=true" "rank_a=5" "d_star=4" "output=$T/l.npy"; do
    expect_grep "^# $kv\$" "$T/out" "lowrank header $kv"
done
# without --seed: the header names the default that --help documents, and
# that seed reproduces the file
expect_exit 0 "dirichlet --help" $S dirichlet --help
defseed=$(sed -n 's/^ *--seed S .*\[\([0-9][0-9]*\)\]$/\1/p' "$T/out")
if [ -n "$defseed" ]; then ok; else bad "--help documents no default seed"; fi
expect_exit 0 "no --seed" $S zipf --n 6 --m 9 -q -o "$T/ds.npy"
expect_grep "^# seed=$defseed\$" "$T/out" "default seed in the header"
expect_exit 0 "the default seed given" $S zipf --n 6 --m 9 --seed "$defseed" -q -o "$T/ds2.npy"
if cmp -s "$T/ds.npy" "$T/ds2.npy"; then ok; else bad "no --seed differs from --seed $defseed"; fi
expect_exit 0 "lowrank" $S lowrank --n 40 --m 30 --rank 5 -q -o "$T/l.npy"
expect_grep "^# rank_a=6$" "$T/out" "lowrank rank_a = R + 1"
expect_grep "^# d_star=5$" "$T/out" "lowrank d_star = R"
expect_exit 0 "topics json" $S topics --n 10 --m 20 --k 2 --mix-alpha 0.5 --json -q -o "$T/t.npy"
expect_grep '"k": ?2' "$T/out" "topics json k"
expect_grep '"mix_alpha": ?0.5' "$T/out" "topics json mix_alpha"

# --- probabilities, stdout, alpha file ------------------------------------------------
expect_exit 0 "probs" $S dirichlet --n 20 --m 30 --alpha 0.5 --probs "$T/p.npy" -q -o "$T/lp.npy"
expect_exit 0 "probs: sbw-info" $I "$T/p.npy"
expect_eq "$(tsv_field "$T/out" kind)" "probabilities" "probs file holds probabilities"
$S zipf --n 7 --m 11 -o - 2>"$T/err" | $I - >"$T/out"
expect_eq "$(tsv_field "$T/out" rows)" "7" "-o - streams to stdout"
expect_grep "^# kind=zipf" "$T/err" "-o -: table on stderr"
# a positive (1, 50) vector of concentrations, made by the tool itself
expect_exit 0 "alpha vector" $S dirichlet --n 1 --m 50 --alpha 2 --probs "$T/alpha.npy" -q -o "$T/unused.npy"
expect_exit 0 "alpha file" $S dirichlet --n 5 --alpha-file "$T/alpha.npy" -q -o "$T/af.npy"
expect_eq "$(tsv_field "$T/out" cols)" "50" "alpha file sets M"
expect_grep "^# alpha_file=$T/alpha.npy$" "$T/out" "alpha file in the header"
expect_exit 0 "alpha file: sbw-info" $I "$T/af.npy"
expect_eq "$(tsv_field "$T/out" kind)" "log-probabilities" "alpha file: normalised rows"
expect_exit 0 "alpha file, matching --m" $S dirichlet --n 5 --m 50 --alpha-file "$T/alpha.npy" -q -o "$T/af2.npy"
if cmp -s "$T/af.npy" "$T/af2.npy"; then ok; else bad "alpha file: --m 50 changes the output"; fi
expect_exit 2 "alpha file, wrong --m" $S dirichlet --n 5 --m 51 --alpha-file "$T/alpha.npy" -q -o "$T/x.npy"
expect_absent "$T/x.npy" "wrong --m: nothing written"
expect_exit 1 "alpha file with a zero" $S dirichlet --n 5 --alpha-file "$FIX/vec_f8.npy" -q -o "$T/x.npy"
expect_grep "vec_f8.npy: alpha\[0\]" "$T/err" "zero concentration named with its file and index"
expect_absent "$T/x.npy" "zero concentration: nothing written"
expect_exit 1 "alpha file not a vector" $S dirichlet --n 5 --alpha-file "$FIX/logp.npy" -q -o "$T/x.npy"
expect_grep "logp.npy: .*got shape 3 x 4" "$T/err" "matrix as alpha file: named with its real shape"
expect_absent "$T/x.npy" "matrix as alpha file: nothing written"
expect_exit 1 "alpha file missing" $S dirichlet --n 5 --alpha-file "$T/none.npy" -q -o "$T/x.npy"
expect_absent "$T/x.npy" "missing alpha file: nothing written"

# --- bad usage: exit 2, a message, nothing written -----------------------------------
bad_usage() {
    what=$1
    shift
    expect_exit 2 "$what" "$@"
    expect_grep "sbw-synth" "$T/err" "$what: message"
    expect_absent "$T/x.npy" "$what: nothing written"
}
bad_usage "alpha 0" $S dirichlet --n 5 --m 5 --alpha 0 -o "$T/x.npy"
bad_usage "alpha negative" $S dirichlet --n 5 --m 5 --alpha -1 -o "$T/x.npy"
bad_usage "alpha nan" $S dirichlet --n 5 --m 5 --alpha nan -o "$T/x.npy"
bad_usage "alpha inf" $S dirichlet --n 5 --m 5 --alpha inf -o "$T/x.npy"
bad_usage "topics alpha 0" $S topics --n 5 --m 5 --alpha 0 -o "$T/x.npy"
bad_usage "n 0" $S dirichlet --n 0 --m 5 -o "$T/x.npy"
bad_usage "m 0" $S zipf --n 5 --m 0 -o "$T/x.npy"
bad_usage "n missing" $S dirichlet --m 5 -o "$T/x.npy"
bad_usage "n x m overflows" $S dirichlet --n 1e15 --m 1e15 -o "$T/x.npy"
expect_grep "overflows" "$T/err" "overflow: says so"
bad_usage "rank > min(n, m)" $S lowrank --n 10 --m 8 --rank 9 -o "$T/x.npy"
expect_grep "rank" "$T/err" "rank: says so"
bad_usage "rank > min(n, m), n < m" $S lowrank --n 8 --m 10 --rank 9 -o "$T/x.npy"
expect_grep "rank" "$T/err" "rank, n < m: says so"
bad_usage "rank 0" $S lowrank --n 10 --m 8 --rank 0 -o "$T/x.npy"
bad_usage "scale 0" $S lowrank --n 10 --m 8 --rank 2 --scale 0 -o "$T/x.npy"
bad_usage "k 0" $S topics --n 10 --m 8 --k 0 -o "$T/x.npy"
bad_usage "sigma negative" $S zipf --n 10 --m 8 --sigma -1 -o "$T/x.npy"
bad_usage "no -o" $S dirichlet --n 5 --m 5
bad_usage "alpha and alpha file" $S dirichlet --n 5 --alpha 1 --alpha-file "$T/alpha.npy" -o "$T/x.npy"
bad_usage "same file twice" $S dirichlet --n 5 --m 5 --probs "$T/x.npy" -o "$T/x.npy"
bad_usage "unknown option" $S dirichlet --n 5 --m 5 --beta 1 -o "$T/x.npy"
bad_usage "positional" $S dirichlet --n 5 --m 5 extra -o "$T/x.npy"
bad_usage "unknown kind" $S gaussian --n 5 --m 5 -o "$T/x.npy"
bad_usage "no kind" $S
expect_exit 1 "unwritable output" $S dirichlet --n 5 --m 5 -q -o /nonexistent-dir/x.npy
expect_grep "nonexistent-dir" "$T/err" "unwritable: names the path"

# --- help ----------------------------------------------------------------------------
expect_exit 0 "--help" $S --help
expect_grep "lowrank" "$T/out" "--help lists kinds"
for kind in dirichlet lowrank zipf topics; do
    expect_exit 0 "$kind --help" $S $kind --help
    expect_grep "Example" "$T/out" "$kind --help has an example"
done
expect_exit 0 "--version" $S --version

# --- head: a Softmax head with planted interior words ---------------------------
H=$T/head
mkdir -p "$H"
expect_exit 0 "head" $S head --m 50 --d 4 --k 5 --seed 3 -o "$H/W.npy" --bias "$H/b.npy" \
    --planted "$H/planted.txt" --vocab "$H/vocab.txt"
expect_eq "$(tsv_field "$T/out" rows)/$(tsv_field "$T/out" cols)/$(tsv_field "$T/out" planted)" 50/4/5 "head: table row"
expect_eq "$(tsv_meta "$T/out" seed)/$(tsv_meta "$T/out" kind)" 3/head "head: header"
expect_eq "$(wc -l <"$H/planted.txt" | tr -d ' ')/$(wc -l <"$H/vocab.txt" | tr -d ' ')" 5/50 "head: planted and vocab lines"
expect_exit 0 "head: sbw-argmax" "$BIN/sbw-argmax" -q --bias "$H/b.npy" --vocab "$H/vocab.txt" "$H/W.npy"
expect_eq "$(tsv_meta "$T/out" unargmaxable)/$(tsv_meta "$T/out" undecided)" 5/0 "head: 5 unargmaxable"
found=$(tsv_rows "$T/out" | awk -F'\t' 'NR > 1 && $3 == 0 { print $1 }' | tr '\n' ' ')
expect_eq "$found" "$(tr '\n' ' ' <"$H/planted.txt")" "head: unargmaxable = planted"
expect_eq "$(tsv_rows "$T/out" | awk -F'\t' 'NR > 1 && ($3 == 0) != ($2 ~ /^in/) { n++ } END { print n + 0 }')" 0 \
    "head: the in* words are the unargmaxable ones"
expect_exit 0 "head again, W to stdout" $S head --m 50 --d 4 --k 5 --seed 3 -o -
if cmp -s "$T/out" "$H/W.npy"; then ok; else bad "head: same seed, other bytes (or stdout not W alone)"; fi
expect_grep '^# kind=head' "$T/err" "head: the table on stderr when W goes to stdout"
expect_exit 0 "head, seed 4" $S head --m 50 --d 4 --k 5 --seed 4 -q -o "$H/W4.npy"
if cmp -s "$H/W4.npy" "$H/W.npy"; then bad "head: seed 4 drew seed 3's W"; else ok; fi
bad_usage "head: D = 1" $S head --m 50 --d 1 --k 5 -o "$H/x.npy"
bad_usage "head: M - K < D + 1" $S head --m 10 --d 5 --k 6 -o "$H/x.npy"
expect_grep 'm - k >= d \+ 1' "$T/err" "head: says which sizes"
bad_usage "head: no --d" $S head --m 10 -o "$H/x.npy"
bad_usage "head: no -o" $S head --m 10 --d 2
bad_usage "head: two outputs on stdout" $S head --m 10 --d 2 -o - --bias -
bad_usage "head: an option of another kind" $S head --m 10 --d 2 --n 5 -o "$H/x.npy"
expect_exit 1 "head: unwritable vocab" $S head --m 10 --d 2 -o "$H/x.npy" --bias "$H/xb.npy" \
    --vocab /nonexistent-dir/v.txt
expect_grep "nonexistent-dir" "$T/err" "head: names the unwritable path"
expect_absent "$H/x.npy" "head: no W after a refused output"
expect_absent "$H/xb.npy" "head: no b after a refused output"
expect_exit 0 "head --help" $S head --help
expect_grep "never the" "$T/out" "head --help explains the construction"
expect_grep "Example" "$T/out" "head --help has an example"

# A failed logp commit removes a probs file it wrote, but never a FIFO or device.
mkfifo "$T/probs.fifo"
cat "$T/probs.fifo" >/dev/null &
expect_exit 1 "logp to a full device" "$BIN/sbw-synth" zipf --n 3 --m 4 -q -o /dev/full --probs "$T/probs.fifo"
wait
if [ -p "$T/probs.fifo" ]; then ok; else bad "the probs FIFO was removed"; fi
finish
