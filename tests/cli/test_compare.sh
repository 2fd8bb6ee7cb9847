#!/bin/sh
# CLI checks of sbw-compare on the fixtures of tests/fixtures/make_kl_fixtures.py;
# expected values come from its NumPy computation (kl_expected.tsv).
. tests/cli/lib.sh
CMP="$BIN/sbw-compare"
want() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$FIX/kl_expected.tsv"; }
near() { expect_num_near "$1" "$2" "$(awk -v w="$2" -v r="$3" 'BEGIN { if (w < 0) w = -w; printf "%.17g", r * w + 1e-300 }')" "$4"; }

expect_exit 0 "help" "$CMP" --help
expect_grep "mode_match" "$T/out" "help names the columns"
expect_grep "Example" "$T/out" "help has an example"
expect_exit 0 "version" "$CMP" --version
expect_exit 2 "one argument" "$CMP" "$FIX/kl_p.npy"
expect_exit 2 "both from stdin" "$CMP" - -
expect_exit 2 "unknown option" "$CMP" --bogus "$FIX/kl_p.npy" "$FIX/kl_q.npy"

expect_exit 0 "compare" "$CMP" --per-row "$T/rows.tsv" "$FIX/kl_p.npy" "$FIX/kl_q.npy"
for pair in kl_mean:cmp_kl_mean kl_median:cmp_kl_median cross_entropy:cmp_ce entropy:cmp_h \
    perplexity:cmp_ppl mode_match:cmp_mode_match rank_mean:cmp_rank_mean top5_overlap:cmp_top5 \
    frob_rms:cmp_frob_rms max_row_err:cmp_max_row_err; do
    col=${pair%%:*}
    near "$(tsv_field "$T/out" "$col")" "$(want "${pair#*:}")" 1e-12 "$col"
done
expect_eq "$(tsv_field "$T/out" mode_matches)" 8 "mode_matches"
# Files are mapped from the page cache, a pipe is read: same numbers.
cp "$T/out" "$T/files.tsv"
expect_exit 0 "P from a pipe" sh -c "cat '$FIX/kl_p.npy' | '$CMP' - '$FIX/kl_q.npy'"
for col in kl_mean cross_entropy mode_match rank_mean frob_rms max_row_err; do
    expect_eq "$(tsv_field "$T/out" $col)" "$(tsv_field "$T/files.tsv" $col)" "$col: pipe = file"
done
cp "$T/files.tsv" "$T/out"
expect_grep "^# p_file=.*kl_p.npy" "$T/out" "P named in the header"
expect_grep "^# q_file=.*kl_q.npy" "$T/out" "Q named in the header"
expect_lines 28 "$T/rows.tsv" "per-row: 18 header lines, column names, 9 rows"
expect_eq "$(tsv_field "$T/rows.tsv" row 1)" 0 "per-row starts at row 0"
near "$(tsv_field "$T/rows.tsv" kl 1)" "$(want cmp_kl_row0)" 1e-12 "per-row kl of row 0"
expect_grep "^row	kl	cross_entropy	entropy	mode_p	mode_q	mode_match" "$T/rows.tsv" "per-row columns"

# H(P,Q) = H(P) + KL on the printed means
ce=$(tsv_field "$T/out" cross_entropy)
hk=$(awk -v a="$(tsv_field "$T/out" entropy)" -v b="$(tsv_field "$T/out" kl_mean)" 'BEGIN { printf "%.17g", a + b }')
near "$ce" "$hk" 1e-14 "cross_entropy = entropy + kl_mean"

# P against itself: KL 0, every mode matches, rank 1.
expect_exit 0 "self" "$CMP" --probs "$FIX/kl_p_probs.npy" "$FIX/kl_p_probs.npy"
expect_eq "$(tsv_field "$T/out" kl_mean)" 0 "KL(P||P) = 0"
expect_eq "$(tsv_field "$T/out" mode_match)" 1 "self mode match"
expect_eq "$(tsv_field "$T/out" rank_mean)" 1 "self rank"
expect_eq "$(tsv_field "$T/out" top10_overlap)" 1 "self top-10"

# Hand-made ties: P modes 1 (tied), 0 (all tied), 0; Q modes 1, 0 (tied), 1.
expect_exit 0 "ties" "$CMP" --per-row "$T/tie.tsv" "$FIX/tie_p.npy" "$FIX/tie_q.npy"
expect_eq "$(tsv_field "$T/out" mode_matches)" 2 "tie mode matches"
expect_eq "$(tsv_field "$T/out" ties_p)" 2 "ties in P counted"
expect_eq "$(tsv_field "$T/out" ties_q)" 1 "ties in Q counted"
expect_eq "$(tsv_field "$T/tie.tsv" mode_p 1),$(tsv_field "$T/tie.tsv" mode_q 1)" "1,1" "row 0 modes"
expect_eq "$(tsv_field "$T/tie.tsv" mode_p 2),$(tsv_field "$T/tie.tsv" tie_p 2)" "0,1" "row 1: all tied, lowest index"
expect_eq "$(tsv_field "$T/tie.tsv" rank 3)" 2 "row 2: P's mode is second under Q"

expect_exit 0 "stdin" sh -c "'$CMP' - '$FIX/kl_q.npy' < '$FIX/kl_p.npy'"
near "$(tsv_field "$T/out" kl_mean)" "$(want cmp_kl_mean)" 1e-12 "stdin gives the same"
expect_exit 0 "--json" "$CMP" --json "$FIX/kl_p.npy" "$FIX/kl_q.npy"
expect_grep '"kl_mean": ' "$T/out" "json key"
expect_grep '"mode_match": ' "$T/out" "json mode_match"
expect_exit 0 "--quiet" "$CMP" -q "$FIX/kl_p.npy" "$FIX/kl_q.npy"
expect_lines 0 "$T/err" "--quiet is silent"

# Bad data: one clear line, exit 1, nothing written.
expect_exit 1 "shape mismatch" "$CMP" -o "$T/o.tsv" --per-row "$T/pr.tsv" "$FIX/kl_p.npy" "$FIX/kl_q_shape.npy"
expect_grep "kl_p.npy is 9 x 7 but .*kl_q_shape.npy is 9 x 6" "$T/err" "both shapes named"
expect_lines 1 "$T/err" "one line"
expect_absent "$T/o.tsv" "no table after a shape mismatch"
expect_absent "$T/pr.tsv" "no per-row file after a shape mismatch"
expect_exit 1 "unnormalised" "$CMP" "$FIX/kl_p.npy" "$FIX/kl_unnorm.npy"
expect_grep "kl_unnorm.npy: row 4 \(0-based\) is not normalised: logsumexp = 0.003" "$T/err" "names row and amount"
expect_exit 0 "--normalize" "$CMP" --normalize "$FIX/kl_p.npy" "$FIX/kl_unnorm.npy"
expect_num_near "$(tsv_field "$T/out" kl_mean)" 0 1e-15 "renormalised copy matches P"
expect_exit 1 "NaN" "$CMP" "$FIX/kl_nan.npy" "$FIX/kl_q.npy"
expect_grep "kl_nan.npy: row 5, column 2 \(0-based\) is NaN" "$T/err" "names the NaN"
expect_exit 1 "-inf" "$CMP" "$FIX/kl_p.npy" "$FIX/kl_neginf.npy"
expect_grep "is -inf, a zero probability" "$T/err" "names the zero"
expect_exit 1 "+inf in P" "$CMP" "$FIX/kl_posinf.npy" "$FIX/kl_q.npy"
expect_grep "kl_posinf.npy: row 3, column 1 \(0-based\) is \+inf$" "$T/err" "names the +inf in P"
expect_lines 1 "$T/err" "+inf: one line"
expect_exit 1 "+inf in Q" "$CMP" "$FIX/kl_p.npy" "$FIX/kl_posinf.npy"
expect_grep "kl_posinf.npy: row 3, column 1 \(0-based\) is \+inf$" "$T/err" "names the +inf in Q"
expect_exit 1 "probabilities read as logs" "$CMP" "$FIX/kl_p_probs.npy" "$FIX/kl_p_probs.npy"
expect_grep "not normalised.*look like probabilities: pass --probs" "$T/err" "suggests --probs"
finish
