# tests/cli/test_series.sh -- sbw-series on series whose verdicts are known
# by hand: the summary's numbers and trend words, --against's counts and
# first equal label, --scale's unit, --order's rows and relations with a
# tie, --help teaching each option; bad usage (exit 2) and bad data (exit
# 1) are in tests/badinput/MANIFEST.
. tests/cli/lib.sh
S=$BIN/sbw-series

expect_exit 0 "--help" "$S" --help
for o in --against --order --scale trend change_pct max_over_min first_equal relation; do
    expect_grep "[ ]$o" "$T/out" "--help names $o"
done

# a rank by K that rises, then reaches a ceiling: 30, 32, 1000, 1000
printf 'K=1\t30\nK=3\t32\nK=5\t1000\nK=10\t1000\n' >"$T/k.txt"
expect_exit 0 "summary" "$S" "$T/k.txt"
expect_eq "$(tsv_field "$T/out" n)" 4 "n"
expect_eq "$(tsv_field "$T/out" sum)" 2062 "sum"
expect_eq "$(tsv_field "$T/out" trend)" nondecreasing "30 32 1000 1000: nondecreasing"
expect_eq "$(tsv_field "$T/out" argmax)" K=5 "argmax: the first K at the largest value"
expect_eq "$(tsv_field "$T/out" change)" 970 "change = last - first"
expect_eq "$(tsv_field "$T/out" ups)/$(tsv_field "$T/out" downs)" 2/0 "two steps up, none down"
expect_exit 0 "--against" "$S" --against 1000 "$T/k.txt"
expect_eq "$(tsv_field "$T/out" below)/$(tsv_field "$T/out" equal)/$(tsv_field "$T/out" above)" \
    2/2/0 "--against 1000: 2 below, 2 equal, 0 above"
expect_eq "$(tsv_field "$T/out" first_equal)" K=5 "--against: the first K at the ceiling"
expect_exit 0 "--against none equal" "$S" --against 31 "$T/k.txt"
expect_eq "$(tsv_field "$T/out" first_equal)" none "--against 31: no value equals it"

# strictly rising, falling, constant, mixed; bare values labelled 1, 2, ...
for c in "1 2 3:rising" "3 2 1:falling" "2 2 2:constant" "1 3 2:mixed" "3 3 1:nonincreasing" "7:none"; do
    printf '%s\n' ${c%:*} | "$S" >"$T/t.tsv" 2>"$T/err" || bad "trend of ${c%:*} failed"
    expect_eq "$(tsv_field "$T/t.tsv" trend)" "${c#*:}" "trend of ${c%:*}"
done
expect_eq "$(tsv_field "$T/t.tsv" argmin)" 1 "a bare value is labelled by its count"

# perplexity over the last quarter epoch: 200 -> 190 is -5 %; slopes 0.5 .. 2 a factor 4
printf '200\n190\n' | "$S" >"$T/c.tsv"
expect_num_near "$(tsv_field "$T/c.tsv" change_pct)" -5 1e-12 "change_pct of 200 -> 190"
printf '2\n0.5\n1\n' | "$S" >"$T/c.tsv"
expect_eq "$(tsv_field "$T/c.tsv" max_over_min)" 4 "max_over_min of 2, 0.5, 1"
printf '0\n1\n' | "$S" >"$T/c.tsv"
expect_eq "$(tsv_field "$T/c.tsv" change_pct)/$(tsv_field "$T/c.tsv" max_over_min)" nan/nan \
    "first 0: no percentage; min 0: no ratio"

# seconds to hours: 5400 s + 1800 s = 2 h; the percentage is the values' own
printf 'a\t5400\nb\t1800\n' | "$S" --scale 1/3600 >"$T/h.tsv"
expect_eq "$(tsv_field "$T/h.tsv" sum)" 2 "--scale 1/3600: 7200 s is 2 h"
expect_eq "$(tsv_field "$T/h.tsv" first)" 1.5 "--scale applies to the values"
expect_grep "^# scale=1/3600$" "$T/h.tsv" "--scale is recorded"

# --order: largest first, a tie kept in input order and marked =
printf 'Softmax\t1.92\nMoC\t1.8\nMoS\t2.14\nMoC2\t1.92\n' >"$T/o.txt"
expect_exit 0 "--order desc" "$S" --order desc "$T/o.txt"
expect_eq "$(tsv_rows "$T/out" | awk -F'\t' 'NR > 1 { printf "%s%s%s ", $3, $1, $2 }')" \
    "-MoS2.14 >Softmax1.92 =MoC21.92 >MoC1.8 " "--order desc: rows, ties in input order, relations"
expect_exit 0 "--order asc" "$S" --order asc "$T/o.txt"
expect_eq "$(tsv_rows "$T/out" | awk -F'\t' 'NR > 1 { printf "%s%s ", $3, $1 }')" \
    "-MoC <Softmax =MoC2 <MoS " "--order asc"
# --column: a table's column, labelled by another, gives the same row as
# the column cut out and piped in (the twin); absent columns, a cell that
# is not a number and --label alone are refused with one line
printf '# command=x\nepoch\trank\tkl\n1\t400\t2.5\n2\t402\t2.9\n# note\n3\t402\t3.1\n' >"$T/tj.tsv"
"$S" --column rank --label epoch "$T/tj.tsv" >"$T/col.tsv"
grep -v '^#' "$T/tj.tsv" | awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' | "$S" >"$T/cut.tsv"
expect_eq "$(tsv_rows "$T/col.tsv")" "$(tsv_rows "$T/cut.tsv")" "--column --label: as the cut-out column"
expect_eq "$(tsv_field "$T/col.tsv" argmax)" 2 "--label names the rows"
"$S" --column kl <"$T/tj.tsv" >"$T/col.tsv"
expect_eq "$(tsv_field "$T/col.tsv" argmax)/$(tsv_field "$T/col.tsv" trend)" 3/rising \
    "--column from stdin, rows counted"
expect_exit 1 "--column absent" "$S" --column nope "$T/tj.tsv"
expect_grep "tj.tsv: no column 'nope'" "$T/err" "the absent column is named"
expect_exit 1 "--label absent" "$S" --column rank --label K "$T/tj.tsv"
printf 'epoch\trank\n1\tabc\n' >"$T/bad.tsv"
expect_exit 1 "--column: not a number" "$S" --column rank "$T/bad.tsv"
expect_grep "bad.tsv: row 1, column 'rank'" "$T/err" "the bad cell is named"
printf 'epoch\trank\n1\tinf\n' >"$T/bad.tsv"
expect_exit 1 "--column: not finite" "$S" --column rank "$T/bad.tsv"
expect_exit 2 "--label without --column" "$S" --label epoch "$T/tj.tsv"
expect_exit 0 "--json" "$S" --json "$T/k.txt"
expect_grep '"trend": *"nondecreasing"' "$T/out" "--json carries the trend"
finish
