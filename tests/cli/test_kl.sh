#!/bin/sh
# CLI checks of sbw-kl on the tiny fixtures of tests/fixtures/make_kl_fixtures.py;
# expected values come from its NumPy brute force (kl_expected.tsv).
. tests/cli/lib.sh
KL="$BIN/sbw-kl"
want() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$FIX/kl_expected.tsv"; }
# near VALUE WANT RTOL what: |v - w| <= rtol |w|
near() { expect_num_near "$1" "$2" "$(awk -v w="$2" -v r="$3" 'BEGIN { if (w < 0) w = -w; printf "%.17g", r * w }')" "$4"; }

expect_exit 0 "help" "$KL" --help
expect_grep "expected_pairwise_kl" "$T/out" "help names the columns"
expect_grep "Example" "$T/out" "help has an example"
expect_exit 0 "version" "$KL" --version
expect_exit 2 "no argument" "$KL"
expect_exit 2 "unknown option" "$KL" --frobnicate "$FIX/kl_p.npy"
expect_exit 2 "bad --rows" "$KL" --rows 3 "$FIX/kl_p.npy"
expect_grep "A:B" "$T/err" "bad --rows says the form"
expect_exit 2 "backwards --rows" "$KL" --rows 5:3 "$FIX/kl_p.npy"
expect_exit 2 "--rows past the end" "$KL" --rows 0:10 "$FIX/kl_p.npy"
expect_exit 0 "--rows A:" "$KL" --rows 7: "$FIX/kl_p.npy"
expect_grep "^# row_range=7:9$" "$T/out" "open end"
expect_exit 0 "--rows :B" "$KL" --rows :2 "$FIX/kl_p.npy"
expect_grep "^# row_range=0:2$" "$T/out" "open start"
expect_exit 2 "one row selected" "$KL" --rows 3:4 "$FIX/kl_p.npy"
expect_exit 2 "too many sampled rows" "$KL" --sample-rows 10 "$FIX/kl_p.npy"
expect_exit 2 "--matrix beyond the cap" "$KL" --matrix "$T/K.npy" --max-matrix-rows 5 "$FIX/kl_p.npy"
expect_absent "$T/K.npy" "no matrix after a usage error"
expect_exit 2 "--pairs from a pipe" sh -c "cat '$FIX/kl_p.npy' | '$KL' --pairs 10 -"
expect_grep "regular file" "$T/err" "pipe refusal says why"

# The exact value against NumPy's brute-force double loop.
expect_exit 0 "exact" "$KL" "$FIX/kl_p.npy"
near "$(tsv_field "$T/out" expected_pairwise_kl)" "$(want kl_all)" 1e-12 "expected_pairwise_kl"
near "$(tsv_field "$T/out" mean_entropy)" "$(want h_all)" 1e-12 "mean_entropy"
near "$(tsv_field "$T/out" entropy_of_mean)" "$(want hm_all)" 1e-12 "entropy_of_mean"
expect_eq "$(tsv_field "$T/out" rows)" 9 "rows"
expect_grep "^# file=.*kl_p.npy" "$T/out" "input named in the header"
expect_grep "^# seed=" "$T/out" "seed in the header"
expect_grep "^# tol=1e-06" "$T/out" "tolerance in the header"
cp "$T/out" "$T/exact.tsv"
# A regular file is mapped from the page cache, a pipe is read: same numbers.
expect_exit 0 "exact from a pipe" sh -c "cat '$FIX/kl_p.npy' | '$KL' -"
for col in expected_pairwise_kl mean_entropy entropy_of_mean; do
    expect_eq "$(tsv_field "$T/out" $col)" "$(tsv_field "$T/exact.tsv" $col)" "$col: pipe = file"
done

expect_exit 0 "--rows 2:8" "$KL" --rows 2:8 "$FIX/kl_p.npy"
near "$(tsv_field "$T/out" expected_pairwise_kl)" "$(want kl_2_8)" 1e-12 "rows 2:8"
near "$(tsv_field "$T/out" entropy_of_mean)" "$(want hm_2_8)" 1e-12 "rows 2:8 entropy of mean"
expect_grep "^# row_range=2:8" "$T/out" "row range in the header"

expect_exit 0 "--probs" "$KL" --probs "$FIX/kl_p_probs.npy"
near "$(tsv_field "$T/out" expected_pairwise_kl)" "$(want kl_all)" 1e-12 "--probs gives the same"

expect_exit 0 "stdin" sh -c "'$KL' - < '$FIX/kl_p.npy'"
near "$(tsv_field "$T/out" expected_pairwise_kl)" "$(want kl_all)" 1e-12 "stdin gives the same"

expect_exit 0 "--sample-rows" "$KL" --sample-rows 5 --seed 3 "$FIX/kl_p.npy"
expect_eq "$(tsv_field "$T/out" rows)" 5 "5 sampled rows"
expect_grep "^# seed=3$" "$T/out" "seed recorded"
expect_grep "^# sample_rows=5$" "$T/out" "sample size recorded"

# The sampled estimator: unbiased, so z = (mean - exact) / se is about
# standard normal; |z| < 5 (a 5-sigma bound) under a fixed seed.
expect_exit 0 "--pairs" "$KL" --pairs 20000 --seed 11 "$FIX/kl_p.npy"
expect_eq "$(tsv_field "$T/out" pairs)" 20000 "pairs column"
z=$(tsv_field "$T/out" sample_z)
expect_num_near "$z" 0 5 "sample_z within 5 sigma"
q=$(awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
    { print ($c["kl_min"] <= $c["kl_q05"] && $c["kl_q05"] <= $c["kl_q25"] && $c["kl_q25"] <= $c["kl_median"] &&
             $c["kl_median"] <= $c["kl_q75"] && $c["kl_q75"] <= $c["kl_q95"] && $c["kl_q95"] <= $c["kl_max"] &&
             $c["kl_ci95_lo"] < $c["kl_sample_mean"] && $c["kl_sample_mean"] < $c["kl_ci95_hi"]) ? "ordered" : "disordered"; exit }' "$T/out")
expect_eq "$q" ordered "quantiles and interval in order"
first=$(tsv_field "$T/out" kl_sample_mean)
expect_exit 0 "--pairs reproducible" "$KL" --pairs 20000 --seed 11 --threads 1 "$FIX/kl_p.npy"
expect_eq "$(tsv_field "$T/out" kl_sample_mean)" "$first" "same seed, same sample, any thread count"
expect_exit 0 "--pairs other seed" "$KL" --pairs 20000 --seed 12 "$FIX/kl_p.npy"
if [ "$(tsv_field "$T/out" kl_sample_mean)" != "$first" ]; then ok; else bad "another seed gives another sample"; fi

expect_exit 0 "--matrix" "$KL" --matrix "$T/K.npy" --quiet "$FIX/kl_p.npy"
expect_exit 0 "matrix readable" "$BIN/sbw-info" "$T/K.npy"
expect_eq "$(tsv_field "$T/out" rows),$(tsv_field "$T/out" cols)" "9,9" "matrix is 9 x 9"

expect_exit 0 "--json" "$KL" --json "$FIX/kl_p.npy"
expect_grep '"expected_pairwise_kl": ' "$T/out" "json key"
expect_exit 0 "-o" "$KL" -o "$T/res.tsv" "$FIX/kl_p.npy"
expect_grep "^rows" "$T/res.tsv" "-o writes the table"
expect_exit 0 "--quiet" "$KL" --quiet --pairs 100 "$FIX/kl_p.npy"
expect_lines 0 "$T/err" "--quiet is silent"

# Bad data: one clear line, exit 1, nothing under the output name.
expect_exit 1 "unnormalised row" "$KL" -o "$T/bad.tsv" "$FIX/kl_unnorm.npy"
expect_grep "kl_unnorm.npy: row 4 \(0-based\) is not normalised: logsumexp = 0.003" "$T/err" "names row and amount"
expect_grep "normalize" "$T/err" "points to --normalize"
expect_lines 1 "$T/err" "one line"
expect_absent "$T/bad.tsv" "no table after bad data"
expect_exit 0 "--normalize" "$KL" --normalize "$FIX/kl_unnorm.npy"
expect_grep "^# max_abs_logsumexp_row=4$" "$T/out" "correction's row"
expect_num_near "$(awk -F= '/^# max_abs_logsumexp=/ { print $2 }' "$T/out")" 0.003 1e-12 "correction's size"
near "$(tsv_field "$T/out" expected_pairwise_kl)" "$(want kl_all)" 1e-12 "renormalised = original"
expect_exit 0 "--tol loosened" "$KL" --tol 0.01 "$FIX/kl_unnorm.npy"
expect_exit 1 "NaN" "$KL" "$FIX/kl_nan.npy"
expect_grep "kl_nan.npy: row 5, column 2 \(0-based\) is NaN" "$T/err" "names the NaN"
expect_exit 1 "-inf" "$KL" "$FIX/kl_neginf.npy"
expect_grep "row 2, column 6 \(0-based\) is -inf, a zero probability" "$T/err" "names the zero"
expect_exit 1 "+inf" "$KL" "$FIX/kl_posinf.npy"
expect_grep "kl_posinf.npy: row 3, column 1 \(0-based\) is \+inf$" "$T/err" "names the +inf"
expect_lines 1 "$T/err" "+inf: one line"
expect_exit 1 "--probs, a negative entry" "$KL" --probs "$FIX/kl_probs_bad.npy"
expect_grep "kl_probs_bad.npy: row 2, column 3 \(0-based\) is -0.5, not a probability" "$T/err" \
    "the negative entry is named, not the NaN after it"
expect_exit 1 "+inf, sampled pairs" "$KL" --pairs 50 "$FIX/kl_posinf.npy"
expect_grep "kl_posinf.npy: row 3, column 1 \(0-based\) is \+inf$" "$T/err" "pairs name the +inf"
expect_exit 1 "one row" "$KL" "$FIX/kl_1row.npy"
expect_grep "at least 2 rows" "$T/err" "says why"
expect_exit 1 "missing file" "$KL" "$T/nope.npy"
expect_exit 1 "not a matrix" "$KL" "$FIX/i8.npy"
expect_exit 1 "matrix into a missing directory" "$KL" --matrix "$T/no/dir/K.npy" "$FIX/kl_p.npy"
finish
