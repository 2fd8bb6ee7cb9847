#!/bin/sh
# Numerical honesty (issue 16): a result that may be untrustworthy is said
# so in the output itself -- a "# warning=CODE: ..." header line in the TSV,
# the "warnings" array in --json (present and empty otherwise), and once on
# stderr:
#   rank_near_threshold  sbw-rank on diag(1, 1/2, 1/4, 1/8), whose singular
#                        values are exact, with --eps (or --atol) putting a
#                        cut 0.2-0.4% from one of them; and 8% away: nothing
#   svd_not_converged    sbw-rank and sbw-bound with SBW_TEST_SVD_INFO, the
#                        hook that makes LAPACK's answer report info > 0
#   max_prob_unconverged sbw-argmax --max-prob whose Frank-Wolfe gap stayed
#                        above --prob-tol (p_max is then a lower bound only)
#   fit_still_improving  sbw-fit stopped by --steps while its KL still fell
#                        (rank 5, D = 5, 100 steps); stopped by --tol, or
#                        settled (D = 1, 2000 steps): nothing
. tests/cli/lib.sh
. tests/cli/npy.sh
R="$BIN/sbw-rank"

# diag(1, 0.5, 0.25, 0.125) in float64, little-endian
npy_header '<f8' '(4, 4)' "$T/diag.npy"
z='\000\000\000\000\000\000\000\000'
h='\000\000\000\000\000\000'
printf "$h\360\077$z$z$z" >>"$T/diag.npy"
printf "$z$h\340\077$z$z" >>"$T/diag.npy"
printf "$z$z$h\320\077$z" >>"$T/diag.npy"
printf "$z$z$z$h\300\077" >>"$T/diag.npy"
expect_exit 0 "diag: no cut near" "$R" --eps 0.18 "$T/diag.npy"
expect_grep '^2	4	4	' "$T/out" "diag: nr rank 2 (tsh 0.27)"
if grep -q '^# warning=' "$T/out"; then bad "a warning where no cut is near: $(grep warning "$T/out")"; else ok; fi
if grep -q 'warning' "$T/err"; then bad "a warning on stderr: $(cat "$T/err")"; else ok; fi
expect_exit 0 "diag --json" "$R" --json --eps 0.18 "$T/diag.npy"
expect_grep '"warnings": \[\], ' "$T/out" "json: an empty warnings array"

# nr: tsh = 0.5 sqrt(9) eps = 1.5 eps = 0.251, 0.4% above 0.25
expect_exit 0 "nr cut at 0.251" "$R" --eps 0.16733 "$T/diag.npy"
expect_grep '^# warning=rank_near_threshold: nr rank 2: its threshold 0.25099.* singular value 3 \(0.25\)' "$T/out" "nr: the header says so"
expect_eq "$(grep -c '^# warning=' "$T/out")" 1 "nr: only nr (numpy's 0.669 is far)"
expect_grep '^sbw-rank: warning: rank_near_threshold: nr ' "$T/err" "nr: stderr too"
expect_exit 0 "nr --json" "$R" --json --eps 0.16733 "$T/diag.npy"
expect_grep '"warnings": \["rank_near_threshold: nr rank 2: ' "$T/out" "nr: json"
expect_exit 0 "nr --spectrum" "$R" -q --eps 0.16733 --spectrum "$T/spec.tsv" "$T/diag.npy"
expect_grep '^# warning=rank_near_threshold: nr ' "$T/spec.tsv" "nr: the spectrum file too"
# numpy: tol = 4 eps = 0.5015, 0.3% above 0.5
expect_exit 0 "numpy cut at 0.5015" "$R" --eps 0.125375 "$T/diag.npy"
expect_grep '^# warning=rank_near_threshold: numpy rank 1: ' "$T/out" "numpy: the header says so"
expect_eq "$(grep -c '^# warning=' "$T/out")" 1 "numpy: only numpy"
# --measures: PyTorch's atol 0.2505 beside 0.25, every other cut far
expect_exit 0 "--measures atol" "$R" --measures --eps 0.18 --atol 0.2505 "$T/diag.npy"
expect_grep '^# warning=rank_near_threshold: pytorch rank 2: ' "$T/out" "measures: pytorch flagged"
expect_eq "$(grep -c '^# warning=' "$T/out")" 1 "measures: only pytorch"

# ---- an SVD that did not converge -----------------------------------------------------------
expect_exit 0 "rank, no convergence" env SBW_TEST_SVD_INFO=2 "$R" --eps 0.18 "$T/diag.npy"
expect_grep '^# warning=svd_not_converged: dgesdd did not converge \(LAPACK info 2\)' "$T/out" "svd: the header says so"
expect_grep '^2	4	4	' "$T/out" "svd: the values LAPACK gave are still printed"
expect_grep '^sbw-rank: warning: svd_not_converged' "$T/err" "svd: stderr"
expect_exit 0 "rank --json, no convergence" env SBW_TEST_SVD_INFO=2 "$R" --json "$FIX/rank_ls.npy"
expect_grep '"warnings": \["svd_not_converged: ' "$T/out" "svd: json"
expect_exit 0 "bound, no convergence" env SBW_TEST_SVD_INFO=1 "$BIN/sbw-bound" --d 2 "$FIX/rank_tall.npy"
expect_grep '^# warning=svd_not_converged: ' "$T/out" "bound: the header says so"

# ---- sbw-argmax: a --max-prob that stopped short of its gap ------------------------------
A="$BIN/sbw-argmax"
SQ=$FIX/argmax_square.npy
expect_exit 0 "argmax --prob-tol 1e-15" "$A" -q --max-prob 50 --max-prob-all --prob-tol 1e-15 "$SQ"
n=$(tsv_meta "$T/out" max_prob_unconverged)
if [ "${n:-0}" -gt 0 ]; then ok; else bad "argmax: no unconverged pair at --prob-tol 1e-15"; fi
expect_grep "^# warning=max_prob_unconverged: $n word/radius pair\(s\) " "$T/out" "argmax: the header says so, with the count"
expect_exit 0 "argmax, every gap closed" "$A" -q --max-prob 0.5,5 --words 6 --json "$SQ"
expect_grep '"max_prob_unconverged": 0, .*"warnings": \[\]' "$T/out" "argmax: nothing to say"

# ---- a fit stopped while still improving --------------------------------------------------
# rank 5 with D = 5: the KL still falls fast at step 100 (by ~14% over the
# last 10 steps); D = 1 on a Dirichlet language at 2000 steps: settled
"$BIN/sbw-synth" lowrank --n 200 --m 50 --rank 5 --seed 3 -q -o "$T/L.npy" >/dev/null
"$BIN/sbw-synth" dirichlet --n 50 --m 20 --alpha 1 --seed 1 -q -o "$T/P.npy" >/dev/null
F="$BIN/sbw-fit $T/L.npy --d 5 --steps 100 --threads 1 -q"
# shellcheck disable=SC2086
expect_exit 0 "fit 100 steps" $F --log "$T/log.tsv"
expect_grep '^# warning=fit_still_improving: stopped by --steps 100 while the mean KL was still falling: .* at step 90, .* at step 100 ' "$T/out" "fit: the header says so"
expect_grep '^# warning=fit_still_improving: ' "$T/log.tsv" "fit: the log too"
expect_grep '^sbw-fit: warning: fit_still_improving' "$T/err" "fit: stderr"
# shellcheck disable=SC2086
expect_exit 0 "fit --json" $F --json
expect_grep '"warnings": \["fit_still_improving: ' "$T/out" "fit: json"
# the rule's arithmetic from the log itself: KL(90) - KL(100) > 0.001 KL(100)
kl() { tsv_rows "$T/log.tsv" | awk -F'\t' -v s="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["step"] == s { print $c["kl_mean"] }'; }
a=$(kl 90)
b=$(kl 100)
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a - b > 1e-3 * b) }'; then ok; else bad "log: KL $a at 90, $b at 100: not still improving"; fi
# --tol 0.5: stopped by the rule, not the limit: no warning
# shellcheck disable=SC2086
expect_exit 0 "fit stopped by --tol" $F --tol 0.5 --tol-window 5 --json
expect_grep '"stop": "tol"' "$T/out" "fit: stopped by tol"
expect_grep '"warnings": \[\]' "$T/out" "fit: tol stop, no warning"
expect_exit 0 "fit settled" "$BIN/sbw-fit" "$T/P.npy" --d 1 --lr 0.05 --steps 2000 --threads 1 -q --json --log "$T/log1.tsv"
expect_grep '"warnings": \[\]' "$T/out" "fit: settled, no warning"
log1() { tsv_rows "$T/log1.tsv" | awk -F'\t' -v s="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["step"] == s { print $c["kl_mean"] }'; }
a=$(log1 1800)
b=$(log1 2000)
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a - b <= 1e-3 * b) }'; then ok; else bad "log: KL $a at 1800, $b at 2000: still improving"; fi
finish
