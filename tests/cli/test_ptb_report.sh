# tests/cli/test_ptb_report.sh -- the report's equal-perplexity comparison
# (experiments/ptb/kld_at_ppl.awk, kld_order.awk) on made-up curves whose
# answers are worked out by hand: interpolation linear in log perplexity,
# nan outside a curve's measured range (no extrapolation), unsorted curves,
# and the words for above / below / crossing / missing.
. tests/cli/lib.sh
curve() { # curve FILE "ppl kld" ...: a curve.tsv
    f=$1
    shift
    printf '# command=test\ntokens\tvalid_ppl\texpected_pairwise_kl\n' >"$f"
    i=0
    for pk in "$@"; do
        i=$((i + 1))
        printf '%s\t%s\t%s\n' "$i" "${pk% *}" "${pk#* }" >>"$f"
    done
}
at() { # at TABLE PPL COLUMN
    awk -F'\t' -v p="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
        $1 == p { print $k }' "$1"
}
# a: kld 1 at ppl 100, 3 at ppl 400, listed late-to-early; in log ppl, 200
# is halfway (1 + 2 * log 2 / log 4 = 2), 300 at log 3 / log 4
curve "$T/a.tsv" "400 3" "100 1"
# b: 2.5 flat from 150 to 250: above a below 200 (a < 2), below after
curve "$T/b.tsv" "250 2.5" "150 2.5"
awk -v names="a b" -v step=50 -f experiments/ptb/kld_at_ppl.awk "$T/a.tsv" "$T/b.tsv" >"$T/k.tsv"
expect_eq "$(head -n 1 "$T/k.tsv")" "$(printf 'ppl\ta\tb')" "header: ppl and the model names"
expect_eq "$(at "$T/k.tsv" 200 a)" 2.0000 "a at 200: halfway in log perplexity"
want=$(awk 'BEGIN { printf "%.4f", 1 + 2 * log(3) / log(4) }')
expect_eq "$(at "$T/k.tsv" 300 a)" "$want" "a at 300: 1 + 2 log 3 / log 4"
expect_eq "$(at "$T/k.tsv" 100 a)" 1.0000 "a at its own first point"
expect_eq "$(at "$T/k.tsv" 400 a)" 3.0000 "a at its own last point"
expect_eq "$(at "$T/k.tsv" 100 b)" nan "b below its range: nan, not extrapolated"
expect_eq "$(at "$T/k.tsv" 300 b)" nan "b above its range: nan"
expect_eq "$(at "$T/k.tsv" 150 b)" 2.5000 "b at 150"
expect_eq "$(tsv_rows "$T/k.tsv" | cut -f1 | tr '\n' ' ')" "ppl 100 150 200 250 300 350 400 " "grid every 50 over the union of ranges"

order() { awk -v pairs="$1" -v labels="a=A b=B c=C" -f experiments/ptb/kld_order.awk "$2"; }
# a against b at 150, 200, 250: a = 1.585, 2, 2.322 against 2.5: below at all three
order "b:a" "$T/k.tsv" >"$T/o"
expect_grep "^- \*\*B above A\*\* at all 3 common perplexities \(the grid points from 150 to 250" "$T/o" "B above A at 150..250"
expect_grep "by 0\.178 to 0\.915 nats" "$T/o" "B above A: smallest and largest gap (2.5 - 2.322, 2.5 - 1.585)"
expect_grep "holds at every perplexity" "$T/o" "a one-pair chain that holds"
order "a:b" "$T/k.tsv" >"$T/o"
expect_grep "^- \*\*A below B\*\* at all 3 .*reverse of the paper's order" "$T/o" "A below B"
expect_grep "does not hold" "$T/o" "the chain fails"
# c crosses a: 1.9 flat from 100 to 400: above a at 100 and 150, below from 200
curve "$T/c.tsv" "100 1.9" "400 1.9"
awk -v names="a c" -v step=50 -f experiments/ptb/kld_at_ppl.awk "$T/a.tsv" "$T/c.tsv" >"$T/k2.tsv"
order "c:a" "$T/k2.tsv" >"$T/o"
expect_grep "^- \*\*C above A at 2 of 7\*\* .*changes sign between 150 and 200" "$T/o" "C crosses A between 150 and 200"
order "c:a b:a" "$T/k2.tsv" >"$T/o"
expect_grep "^- B against A: no perplexity measured for both yet" "$T/o" "a missing curve is named"
expect_grep "cannot be read yet" "$T/o" "a missing curve leaves the chain unread"
finish
