#!/bin/sh
# CLI checks of sbw-argmax on the heads of make_argmax_fixtures.py, whose
# answers are known by geometry (see that script): verdicts, reasons, the
# summary header, --bias, --vocab, --words, --json, --max-prob (the square's
# centre is 1/7 at h = 0 and never reaches 1), -o, every bad input.
. tests/cli/lib.sh
A="$BIN/sbw-argmax"
SQ=$FIX/argmax_square.npy

expect_exit 0 "square" "$A" -q "$SQ"
expect_eq "$(tsv_meta "$T/out" argmaxable)/$(tsv_meta "$T/out" unargmaxable)/$(tsv_meta "$T/out" undecided)" \
    3/4/0 "square: 3 vertices, 4 not"
expect_eq "$(tsv_meta "$T/out" m)/$(tsv_meta "$T/out" d)" 7/2 "square: shape in the header"
expect_grep '^# lp_solver=GLPK' "$T/out" "solver named"
v=""
for r in 1 2 3 4 5 6 7; do
    v="$v$(tsv_field "$T/out" argmaxable $r)"
done
expect_eq "$v" 0111000 "square: verdicts by word"
expect_eq "$(tsv_field "$T/out" reason 1)/$(tsv_field "$T/out" other 1)" duplicate/4 "word 0: copy of 4"
expect_eq "$(tsv_field "$T/out" reason 5)/$(tsv_field "$T/out" other 5)" duplicate/0 "word 4: copy of 0"
expect_eq "$(tsv_field "$T/out" reason 6)" in_hull "edge middle: in the hull (ties)"
expect_eq "$(tsv_field "$T/out" reason 7)" in_hull "centre: in the hull"
expect_eq "$(tsv_field "$T/out" stage 2)" prefilter "corner 1 by the pre-filter"
# the margin of an h certificate is above its rounding bound
m=$(tsv_field "$T/out" margin 2)
bd=$(tsv_field "$T/out" bound 2)
if awk -v m="$m" -v b="$bd" 'BEGIN { exit !(m > b && m > 0) }'; then ok; else bad "margin $m <= bound $bd"; fi
# float32 file: the same answers
expect_exit 0 "square float32" "$A" -q "$FIX/argmax_square_f4.npy"
expect_eq "$(tsv_meta "$T/out" argmaxable)/$(tsv_meta "$T/out" unargmaxable)" 3/4 "float32: same counts"
# LP only: the same verdicts
expect_exit 0 "square --lp-only" "$A" -q --lp-only "$SQ"
expect_eq "$(tsv_meta "$T/out" by_prefilter)/$(tsv_meta "$T/out" argmaxable)" 0/3 "--lp-only"

# --tol 0: exact lambdas only; the square's edge middle and centre have
# them (found by exact rational arithmetic on the LP's support): residual 0
expect_exit 0 "--tol 0" "$A" -q --tol 0 "$SQ"
expect_eq "$(tsv_meta "$T/out" unargmaxable)/$(tsv_meta "$T/out" undecided)" 4/0 "--tol 0: exact"
expect_eq "$(tsv_field "$T/out" bound 6)/$(tsv_field "$T/out" bound 7)" 0/0 "--tol 0: residual 0"

# bias: 4 dominated by 0 (0 a vertex again), the centre lifted to a vertex
expect_exit 0 "square --bias" "$A" -q --bias "$FIX/argmax_square_bias.npy" "$SQ"
expect_eq "$(tsv_meta "$T/out" argmaxable)" 5 "bias: 5 vertices"
expect_eq "$(tsv_field "$T/out" reason 5)/$(tsv_field "$T/out" other 5)/$(tsv_field "$T/out" margin 5)" \
    dominated/0/-0.5 "bias: word 4 dominated by 0, gap -0.5"
expect_eq "$(tsv_field "$T/out" argmaxable 7)" 1 "bias: centre a vertex"

# vocab, words, json, -o
expect_exit 0 "--vocab --words" "$A" -q --vocab "$FIX/argmax_vocab.txt" --words 6,1:2 "$SQ"
expect_eq "$(tsv_field "$T/out" name 1)/$(tsv_field "$T/out" word 1)" centre/6 "names and order"
expect_eq "$(tsv_meta "$T/out" checked)" 3 "--words: 3 checked"
expect_exit 0 "--json" "$A" -q --json --words 5 "$SQ"
expect_grep '"reason": ?"in_hull"' "$T/out" "json row"
expect_grep '"unargmaxable": ?1' "$T/out" "json summary"
# a vocabulary in Latin-1 (and an invalid UTF-8 tail): the JSON stays UTF-8,
# each bad byte U+FFFD (test_table parses such output with Jansson)
printf 'caf\351\nb\nc\nd\ne\nf\n\342\202\n' >"$T/latin1.txt"
expect_exit 0 "--vocab Latin-1 --json" "$A" -q --json --vocab "$T/latin1.txt" "$SQ"
expect_grep '"name": ?"caf\\ufffd"' "$T/out" "Latin-1 name as U+FFFD"
if LC_ALL=C grep -q "$(printf '[\200-\377]')" "$T/out"; then bad "--json: a byte >= 0x80 left raw"; else ok; fi
expect_exit 0 "-o" "$A" -q -o "$T/a.tsv" "$SQ"
expect_grep '^# unargmaxable=4' "$T/a.tsv" "-o file"

# --max-prob: the centre's best is at h = 0 (1/7) for every R, below 1
expect_exit 0 "--max-prob" "$A" -q --max-prob 0.5,5,50 --words 6 "$SQ"
for R in 0.5 5 50; do
    p=$(tsv_field "$T/out" p_max_R$R)
    u=$(tsv_field "$T/out" p_upper_R$R)
    if awk -v p="$p" -v u="$u" 'BEGIN { exit !(p <= u && u < 0.2 && p > 0.14) }'; then ok; else
        bad "centre at R=$R: p $p, upper $u"
    fi
done
expect_exit 0 "--max-prob on a vertex: skipped" "$A" -q --max-prob 5 --words 1 "$SQ"
expect_eq "$(tsv_field "$T/out" p_max_R5)" nan "vertex skipped without --max-prob-all"
expect_exit 0 "--max-prob-all" "$A" -q --max-prob 50 --max-prob-all --words 1 "$SQ"
p=$(tsv_field "$T/out" p_max_R50)
if awk -v p="$p" 'BEGIN { exit !(p > 0.999) }'; then ok; else bad "vertex at R=50: p $p"; fi

# --max-prob says what it will cost before it starts (and shows progress)
expect_exit 0 "--max-prob: the cost first" "$A" --max-prob 5,50 --words 5,6 "$SQ"
expect_grep 'sbw-argmax: --max-prob: 2 word\(s\) x 2 radius\(es\); each pair at most 100000 iterations' \
    "$T/err" "--max-prob: cost estimate on stderr"
expect_exit 0 "--max-prob -q: silent" "$A" -q --max-prob 5 --words 6 "$SQ"
expect_lines 0 "$T/err" "--max-prob -q: nothing on stderr"

# the memory preflight counts every copy: W (800 kB) fits 1.2 MB, W and its
# normalised copy do not; refused before reading, naming the file
"$BIN/sbw-synth" lowrank -q --n 2000 --m 50 --seed 3 -o "$T/big.npy" >/dev/null 2>&1
export SBW_MAX_MEMORY=1200000
expect_exit 1 "preflight: W and its copy over the limit" "$A" -q --words 0:9 "$T/big.npy"
expect_lines 1 "$T/err" "preflight: one line"
expect_grep 'big.npy: sbw-argmax on this 2000 x 50 head .*needs' "$T/err" "preflight: names the file"
export SBW_MAX_MEMORY=256M
expect_exit 0 "preflight: fits 256M" "$A" -q --words 0:9 "$T/big.npy"
unset SBW_MAX_MEMORY

# bad usage: exit 2
expect_exit 2 "--words bad" "$A" --words 3,x "$SQ"
expect_exit 2 "--max-prob bad" "$A" --max-prob 1,-2 "$SQ"
expect_exit 2 "--max-prob-all alone" "$A" --max-prob-all "$SQ"
expect_exit 2 "--tol negative" "$A" --tol -1 "$SQ"
expect_exit 2 "no file" "$A"
expect_exit 2 "--words out of range" "$A" --words 7 "$SQ"
expect_lines 1 "$T/err" "out of range: one line"
expect_grep 'word 7 is out of range' "$T/err" "out of range: says which"
expect_exit 2 "-o is the input" "$A" -o "$SQ" "$SQ"
# bad data: exit 1, one line naming the file
expect_exit 1 "NaN" "$A" "$FIX/argmax_nan.npy"
expect_lines 1 "$T/err" "NaN: one line"
expect_grep 'argmax_nan.npy: .*row 2, column 1' "$T/err" "NaN: where"
expect_exit 1 "one word" "$A" "$FIX/argmax_1row.npy"
expect_grep 'argmax_1row.npy: a head of 1 word' "$T/err" "one word: says why"
expect_exit 1 "bias of the wrong length" "$A" --bias "$FIX/argmax_bias6.npy" "$SQ"
expect_grep 'argmax_bias6.npy: 6 bias values for a head of 7 words' "$T/err" "bias length"
expect_exit 1 "bias a matrix" "$A" --bias "$SQ" "$SQ"
expect_grep 'not a vector' "$T/err" "bias shape"
printf 'a\nb\n' >"$T/v.txt"
expect_exit 1 "vocab too short" "$A" --vocab "$T/v.txt" "$SQ"
expect_grep 'v.txt: 2 names for a head of 7 words' "$T/err" "vocab length"
expect_exit 1 "vocab missing" "$A" --vocab "$T/none.txt" "$SQ"
expect_exit 1 "missing file" "$A" "$T/none.npy"
expect_lines 1 "$T/err" "missing file: one line"
expect_exit 1 "1-D input" "$A" "$FIX/argmax_bias6.npy"
expect_grep 'not a matrix' "$T/err" "1-D input"
expect_exit 1 "-o uncreatable" "$A" -q -o /nonexistent/dir/a.tsv "$SQ"
expect_grep '/nonexistent/dir/a.tsv: cannot create' "$T/err" "-o uncreatable: names the path"
# the same rows for 1 and 2 threads (LP words in parallel)
"$A" -q --lp-only --threads 1 "$SQ" | tsv_rows - >"$T/t1" 2>/dev/null
"$A" -q --lp-only --threads 2 "$SQ" | tsv_rows - >"$T/t2" 2>/dev/null
if [ -s "$T/t1" ] && cmp -s "$T/t1" "$T/t2"; then ok; else bad "rows differ between 1 and 2 threads"; fi
# --truncation (basis-aware truncation) on the square and the outputs of
# make_trunc_fixtures.py, whose answers are known by geometry (see there):
# no bound, every token may be zero (exact witnesses); sigma = 1, every
# token kept by the threshold rule; --threshold 0.9, word 0 of row 1 (0.94)
TR=$FIX/trunc_square.npy
expect_exit 0 "--truncation, no bound" "$A" -q --truncation "$TR" --vocab "$FIX/argmax_vocab.txt" "$SQ"
expect_eq "$(tsv_meta "$T/out" checked)/$(tsv_meta "$T/out" keep)/$(tsv_meta "$T/out" may_drop)/$(tsv_meta "$T/out" undecided)" \
    14/0/14/0 "no bound: every token may be zero"
expect_eq "$(tsv_meta "$T/out" sigma)/$(tsv_meta "$T/out" contexts)" inf/2 "no bound: sigma inf, 2 contexts"
r=$(tsv_field "$T/out" residual 9)
if awk -v r="$r" 'BEGIN { exit !(r >= 0 && r <= 1e-9) }'; then ok; else bad "row 1, word 1: residual $r > tol"; fi
expect_exit 0 "--truncation --tol 0: exact witnesses" "$A" -q --tol 0 --truncation "$TR" --vocab "$FIX/argmax_vocab.txt" "$SQ"
expect_eq "$(tsv_meta "$T/out" exact_witnesses)/$(tsv_meta "$T/out" undecided)" 14/0 "--tol 0: 14 exact witnesses"
expect_eq "$(tsv_field "$T/out" reason 9)/$(tsv_field "$T/out" residual 9)/$(tsv_field "$T/out" name 9)" \
    witness_exact/0/nw "row 1, word 1: an exact witness"
expect_grep '^# command=.*--truncation' "$T/out" "truncation: # command= line"
expect_exit 0 "--threshold 0: sigma 1" "$A" -q --truncation "$TR" --threshold 0 "$SQ"
expect_eq "$(tsv_meta "$T/out" keep)/$(tsv_meta "$T/out" by_threshold)/$(tsv_meta "$T/out" lp_solves)" \
    14/14/0 "sigma 1: every token kept by the threshold, no LP"
expect_exit 0 "--threshold 0.9" "$A" -q --truncation "$TR" --threshold 0.9 "$SQ"
expect_eq "$(tsv_meta "$T/out" keep)/$(tsv_meta "$T/out" may_drop)" 1/13 "--threshold 0.9: one kept"
expect_eq "$(tsv_field "$T/out" context 8)/$(tsv_field "$T/out" token 8)/$(tsv_field "$T/out" keep 8)/$(tsv_field "$T/out" reason 8)" \
    1/0/1/threshold "--threshold 0.9: row 1's 0.94 kept by the threshold"
m=$(tsv_field "$T/out" margin 8)
bd=$(tsv_field "$T/out" bound 8)
if awk -v m="$m" -v b="$bd" 'BEGIN { exit !(m > b && m > 0.39 && m < 0.41) }'; then ok; else
    bad "threshold certificate: g $m (10 x 0.94 - 9 = 0.4), bound $bd"
fi
expect_eq "$(tsv_field "$T/out" keep 12)" 0 "--threshold 0.9: word 4 (a copy of 0) may be zero"
expect_exit 0 "--delta ln 10: the same sigma" "$A" -q --truncation "$TR" --delta 2.302585092994046 "$SQ"
expect_eq "$(tsv_meta "$T/out" keep)" 1 "--delta: one kept"
expect_exit 0 "--truncation --words --json" "$A" -q --json --truncation "$TR" --words 4,0 --threshold 0.9 "$SQ"
expect_grep '"checked": ?4' "$T/out" "--words: 2 tokens x 2 contexts"
expect_grep '"reason": ?"threshold"' "$T/out" "json row"
expect_exit 0 "--truncation -o" "$A" -q --truncation "$TR" -o "$T/tr.tsv" "$SQ"
expect_grep '^# may_drop=14' "$T/tr.tsv" "-o file"
# a long run shows its progress (pairs decided of contexts x tokens; a line
# every 5 s off a terminal, at every pair with the test hook); -q none
expect_exit 0 "--truncation: progress" env SBW_TEST_PROGRESS=1 "$A" --truncation "$TR" -o "$T/tr.tsv" "$SQ"
expect_grep '^sbw-argmax: --truncation: 1/14 pairs ' "$T/err" "progress: the first pair"
expect_grep '^sbw-argmax: --truncation: 14/14 pairs .*ETA 0s' "$T/err" "progress: the last line"
expect_exit 0 "--truncation -q: no progress" env SBW_TEST_PROGRESS=1 "$A" -q --truncation "$TR" -o "$T/tr.tsv" "$SQ"
expect_lines 0 "$T/err" "--truncation -q: nothing on stderr"
# bad input: one line, exit 1 for data, 2 for usage
expect_exit 1 "--truncation: not normalised" "$A" -q --truncation "$FIX/trunc_square_unnorm.npy" "$SQ"
expect_lines 1 "$T/err" "not normalised: one line"
expect_grep 'trunc_square_unnorm.npy: row 1 .*not normalised' "$T/err" "not normalised: says where"
expect_exit 0 "--truncation --normalize" "$A" -q --normalize --truncation "$FIX/trunc_square_unnorm.npy" "$SQ"
expect_eq "$(tsv_meta "$T/out" normalized)" 1 "--normalize in the header"
expect_exit 1 "--truncation: wrong width" "$A" -q --truncation "$SQ" "$SQ"
expect_grep 'argmax_square.npy: rows of 2 tokens for a head of 7' "$T/err" "wrong width: says why"
expect_exit 1 "--truncation: NaN" "$A" -q --truncation "$FIX/argmax_nan.npy" "$FIX/argmax_nan.npy"
expect_lines 1 "$T/err" "--truncation NaN: one line"
expect_exit 2 "--truncation --bias" "$A" -q --truncation "$TR" --bias "$FIX/argmax_square_bias.npy" "$SQ"
expect_grep 'does not involve b' "$T/err" "--bias refused: says why"
expect_exit 2 "--threshold without --truncation" "$A" -q --threshold 0.5 "$SQ"
expect_exit 2 "--threshold and --delta" "$A" -q --truncation "$TR" --threshold 0.5 --delta 1 "$SQ"
expect_exit 2 "--threshold 1" "$A" -q --truncation "$TR" --threshold 1 "$SQ"
expect_exit 2 "--truncation --max-prob" "$A" -q --truncation "$TR" --max-prob 1 "$SQ"
expect_exit 2 "--truncation -o its input" "$A" -q --truncation "$TR" -o "$TR" "$SQ"
expect_exit 0 "--help" "$A" --help
expect_grep 'Examples' "$T/out" "--help teaches"
expect_grep 'basis-aware truncation' "$T/out" "--help: truncation"
finish
