# tests/cli/test_ptb_report.sh -- the report's equal-perplexity comparison
# (sbw-lm curves, sbw-lm order) on made-up curves whose
# answers are worked out by hand: interpolation linear in log perplexity,
# nan outside a curve's measured range (no extrapolation), unsorted curves,
# the words for above / below / crossing / missing, and bad input refused
# with one line naming the file.
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
    awk -F'\t' -v p="$2" -v c="$3" '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next }
        $1 == p { print $k }' "$1"
}
# a: kld 1 at ppl 100, 3 at ppl 400, listed late-to-early; in log ppl, 200
# is halfway (1 + 2 * log 2 / log 4 = 2), 300 at log 3 / log 4
curve "$T/a.tsv" "400 3" "100 1"
# b: 2.5 flat from 150 to 250: above a below 200 (a < 2), below after
curve "$T/b.tsv" "250 2.5" "150 2.5"
LM=$BIN/sbw-lm
expect_exit 0 "curves a, b" "$LM" curves --step 50 --names a,b "$T/a.tsv" "$T/b.tsv" -o "$T/k.tsv"
expect_eq "$(tsv_rows "$T/k.tsv" | head -n 1)" "$(printf 'ppl\ta\tb')" "header: ppl and the model names"
expect_grep "^# command=sbw-lm curves --step 50 --names a,b " "$T/k.tsv" "the table names its command"
expect_eq "$(at "$T/k.tsv" 200 a)" 2.0000 "a at 200: halfway in log perplexity"
want=$(awk 'BEGIN { printf "%.4f", 1 + 2 * log(3) / log(4) }')
expect_eq "$(at "$T/k.tsv" 300 a)" "$want" "a at 300: 1 + 2 log 3 / log 4"
expect_eq "$(at "$T/k.tsv" 100 a)" 1.0000 "a at its own first point"
expect_eq "$(at "$T/k.tsv" 400 a)" 3.0000 "a at its own last point"
expect_eq "$(at "$T/k.tsv" 100 b)" nan "b below its range: nan, not extrapolated"
expect_eq "$(at "$T/k.tsv" 300 b)" nan "b above its range: nan"
expect_eq "$(at "$T/k.tsv" 150 b)" 2.5000 "b at 150"
expect_eq "$(tsv_rows "$T/k.tsv" | cut -f1 | tr '\n' ' ')" "ppl 100 150 200 250 300 350 400 " "grid every 50 over the union of ranges"

order() { "$LM" order --pairs "$1" --labels "a=A,b=B,c=C" "$2"; }
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
"$LM" curves --step 50 --names a,c "$T/a.tsv" "$T/c.tsv" >"$T/k2.tsv"
order "c:a" "$T/k2.tsv" >"$T/o"
expect_grep "^- \*\*C above A at 2 of 7\*\* .*changes sign between 150 and 200" "$T/o" "C crosses A between 150 and 200"
order "c:a,b:a" "$T/k2.tsv" >"$T/o"
expect_grep "^- B against A: no perplexity measured for both yet" "$T/o" "a missing curve is named"
expect_grep "does not hold" "$T/o" "a broken pair breaks the chain, a missing curve beside it or not"
order "b:a" "$T/k2.tsv" >"$T/o"
expect_grep "cannot be read yet" "$T/o" "a missing curve alone leaves the chain unread"
# the whole words of the crossing case, worked out by hand: c - a at 100 ..
# 400 is 0.9, 0.3150 (1.9 - 1.5850), -0.1, -0.4219, -0.6925, -0.9144, -1.1
order "c:a" "$T/k2.tsv" >"$T/o"
expect_eq "$(head -n 1 "$T/o")" "- **C above A at 2 of 7** common perplexities (the grid points from 100 to 400, where both curves were measured); the difference runs from -1.100 to 0.900 nats and changes sign between 150 and 200." "the crossing line in full"
# the same comparisons as a table (--tsv, what the recipes read): the
# values worked out above, the order word per pair and the chain
ordert() { "$LM" order --tsv --pairs "$1" "$2" | tsv_rows /dev/stdin | tail -n +2; }
expect_eq "$(ordert "b:a" "$T/k.tsv" | cut -f 1-6,9,10 | tr '\t' ' ')" "b a 3 3 150 250 0 above" "--tsv: b above a at 150..250"
expect_eq "$("$LM" order --tsv --pairs "b:a" "$T/k.tsv" | tsv_meta /dev/stdin chain)" holds "--tsv: a chain that holds"
expect_eq "$(ordert "a:b" "$T/k.tsv" | cut -f 10)" below "--tsv: a below b"
expect_eq "$("$LM" order --tsv --pairs "a:b" "$T/k.tsv" | tsv_meta /dev/stdin chain)" broken "--tsv: the chain fails"
expect_eq "$(ordert "c:a" "$T/k2.tsv" | awk -F'\t' '{ printf "%s %s %s %s %.4f %.4f %s %s", $3, $4, $5, $6, $7, $8, $9, $10 }')" \
    "7 2 100 400 -1.1000 0.9000 1 mixed" "--tsv: c crosses a once, between 150 and 200"
expect_eq "$(ordert "c:a,b:a" "$T/k2.tsv" | sed -n 2p | cut -f 1-5,10 | tr '\t' ' ')" "b a 0 0 nan none" "--tsv: no common point"
expect_eq "$("$LM" order --tsv --pairs "c:a,b:a" "$T/k2.tsv" | tsv_meta /dev/stdin chain)" broken "--tsv: a broken pair decides, a missing curve after it or not"
expect_eq "$("$LM" order --tsv --pairs "b:a,c:a" "$T/k2.tsv" | tsv_meta /dev/stdin chain)" broken "--tsv: the same pairs the other way round"
expect_eq "$("$LM" order --tsv --pairs "b:a" "$T/k2.tsv" | tsv_meta /dev/stdin chain)" incomplete "--tsv: only a missing curve: incomplete"
expect_grep "^# command=sbw-lm order --tsv --pairs c:a" /dev/stdin "--tsv names its command" <<EOF2
$("$LM" order --tsv --pairs "c:a" "$T/k2.tsv")
EOF2
# one point: measured only at its own perplexity, which lies on the grid
curve "$T/one.tsv" "200 0.5"
"$LM" curves --step 50 --names a,one "$T/a.tsv" "$T/one.tsv" >"$T/k3.tsv"
expect_eq "$(at "$T/k3.tsv" 200 one)" 0.5000 "a one-point curve at its point"
expect_eq "$(at "$T/k3.tsv" 250 one)" nan "a one-point curve elsewhere: nan"

# bad input: one line naming the file, exit 1; bad usage exit 2
printf 'tokens\tvalid_ppl\texpected_pairwise_kl\n1\t100\tnan\n' >"$T/nan.tsv"
expect_exit 1 "a nan KLD" "$LM" curves --step 10 --names x "$T/nan.tsv"
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "one line"
expect_grep "nan.tsv: line 2: 'nan' is not a finite number" "$T/err" "names the file and line"
printf 'tokens\tppl\n1\t100\n' >"$T/nocol.tsv"
expect_exit 1 "no valid_ppl column" "$LM" curves --step 10 --names x "$T/nocol.tsv"
expect_grep "nocol.tsv: line 1: the header has no valid_ppl column" "$T/err" "names the missing column"
printf 'tokens\tvalid_ppl\texpected_pairwise_kl\n1\t0\t1\n' >"$T/zero.tsv"
expect_exit 1 "a perplexity of 0" "$LM" curves --step 10 --names x "$T/zero.tsv"
printf 'tokens\tvalid_ppl\texpected_pairwise_kl\n' >"$T/empty.tsv"
expect_exit 1 "no points" "$LM" curves --step 10 --names x "$T/empty.tsv"
expect_grep "empty.tsv: no points" "$T/err" "no points: named"
expect_exit 2 "two names, one curve" "$LM" curves --step 10 --names x,y "$T/a.tsv"
expect_exit 2 "no --step" "$LM" curves --names x "$T/a.tsv"
expect_exit 2 "--step 0" "$LM" curves --step 0 --names x "$T/a.tsv"
expect_exit 2 "a pair not A:B" "$LM" order --pairs a "$T/k.tsv"
expect_exit 1 "order on a curve file" "$LM" order --pairs a:b "$T/a.tsv"
expect_exit 0 "curves --help" "$LM" curves --help
expect_grep "linearly in log perplexity" "$T/out" "--help says how it interpolates"
finish
