#!/bin/sh
# CLI checks of sbw-verify: --list, --only, exit codes (0 all pass; 2 for an
# unknown claim or bad sizes, with the valid names), --json as one object
# per claim per line, --report as markdown with the command and the seeds,
# --seed reproduces.  Runs only the quick claims (the unit suite runs all).
. tests/cli/lib.sh
V="$BIN/sbw-verify"
FAST=property1,theorem5,theorem6

expect_exit 0 "--help" "$V" --help
expect_grep 'sbw-verify --only property2,theorem6' "$T/out" "help has an example"

# --list: every claim, with its source and what would make it fail
expect_exit 0 "--list" "$V" --list
for c in property1 property2 proposition1 corollary1 moc mixtape theorem1 theorem5 theorem6 \
    theorem2 monotone model-rank argmax-monotone argmax-mos hidden-size; do
    expect_grep "^$c	" "$T/out" "--list names $c"
done
expect_grep '^claim	source	statement	fails_when	broken_by$' "$T/out" "--list columns"

# a run of some claims: exit 0, every row PASS, only those claims
expect_exit 0 "--only $FAST" "$V" -q --only "$FAST" --seed 3
expect_grep '^# claims_failed=0$' "$T/out" "no claim failed"
expect_grep '^# claims_passed=3$' "$T/out" "three claims passed"
expect_grep '^# seed=3$' "$T/out" "seed in header"
expect_grep '^claim	result	quantity	measured	relation	limit	setting$' "$T/out" "columns"
expect_absent_rows() {
    if grep -v '^#' "$T/out" | tail -n +2 | cut -f1 | grep -Evq '^(property1|theorem5|theorem6)$'; then
        bad "--only: other claims ran"
    else ok; fi
    if grep -v '^#' "$T/out" | tail -n +2 | cut -f2 | grep -vq '^PASS$'; then
        bad "--only: a row is not PASS"
    else ok; fi
}
expect_absent_rows
grep -v '^#' "$T/out" >"$T/rows1"
expect_exit 0 "same seed again" "$V" -q --only "$FAST" --seed 3
grep -v '^#' "$T/out" >"$T/rows2"
if cmp -s "$T/rows1" "$T/rows2"; then ok; else bad "--seed 3 twice: rows differ"; fi
expect_exit 0 "another seed" "$V" -q --only theorem5 --seed 4
if grep -q 'seed=' "$T/out" && ! grep -qF "$(grep theorem5 "$T/rows1" | head -1 | cut -f7)" "$T/out"; then ok; else
    bad "--seed 4 gives the same settings as --seed 3"
fi

# the argmax claims (issue 17): every row PASS; the MoS claim as it is true
# (shared W: never strictly first) and its exhibit (per-component W_c)
expect_exit 0 "--only argmax-monotone,argmax-mos" "$V" -q --only argmax-monotone,argmax-mos
expect_grep '^# claims_passed=2$' "$T/out" "argmax claims pass"
expect_grep '^argmax-monotone	PASS	words whose sbw-argmax verdict is not the planted truth	0	' "$T/out" \
    "planted words found"
expect_grep '^argmax-mos	PASS	largest P_i - max_\{j != i\} P_j of a planted word	-' "$T/out" \
    "shared-W MoS: planted word never first"
expect_grep '^argmax-mos	PASS	MoS margin P_i - max_\{j != i\} P_j \(exhibit\)	0\.[0-9]' "$T/out" \
    "per-component MoS: exhibit with a positive margin"
expect_exit 0 "--list argmax-mos" "$V" --list
expect_grep '^argmax-mos	.*shared output embedding.*per-component embeddings' "$T/out" \
    "--list states the corrected MoS claim"

# --json: one object per claim, one per line
expect_exit 0 "--json" "$V" -q --json --only "$FAST"
expect_lines 3 "$T/out" "--json: one line per claim"
n=0
while IFS= read -r line; do
    n=$((n + 1))
    case "$line" in
    \{*\}) ok ;;
    *) bad "--json line $n is not an object: $(echo "$line" | head -c 80)" ;;
    esac
done <"$T/out"
expect_grep '"claim": "property1".*"claim_result": "PASS".*"rows": \[' "$T/out" "--json property1"
expect_grep '"claim": "theorem6"' "$T/out" "--json theorem6"
# each object holds its rows: as many "result" keys as the TSV has rows of it
for c in property1 theorem5 theorem6; do
    want=$(grep -c "^$c	" "$T/rows1")
    got=$(grep "\"claim\": \"$c\"" "$T/out" | grep -o '"result": "PASS"' | wc -l)
    expect_eq "$got" "$want" "--json $c rows"
done

# --report: markdown with the command, the seed, each claim's failure condition
expect_exit 0 "--report" "$V" -q --only theorem6 --seed 11 --report "$T/r.md"
expect_grep '^# sbw-verify report' "$T/r.md" "report title"
expect_grep '^- Command: `.*sbw-verify -q --only theorem6 --seed 11 --report' "$T/r.md" "report command"
expect_grep '^- Seed: 11 ' "$T/r.md" "report seed"
expect_grep '^## theorem6: PASS' "$T/r.md" "report section"
expect_grep '^- Fails when: ' "$T/r.md" "report says what would fail"
expect_grep '^\| N = 3, rank\(A\) = N-1 \(50 samples\), seed=[0-9]+ \|' "$T/r.md" "report rows name seeds"
expect_exit 1 "--report into a missing directory" "$V" -q --only theorem6 --report "$T/no/r.md"
if [ -e "$T/no" ]; then bad "--report created a directory"; else ok; fi

# bad usage: exit 2 and the valid names
expect_exit 2 "unknown claim" "$V" -q --only property1,theorem9
expect_grep "unknown claim 'theorem9'; valid claims: property1, property2, .*model-rank" "$T/err" \
    "unknown claim lists the names"
expect_exit 2 "bad sizes" "$V" -q --sizes huge
expect_grep "unknown --sizes 'huge'; valid sizes: quick, full" "$T/err" "bad sizes lists the sizes"
expect_exit 2 "empty claim name" "$V" -q --only property1,,theorem5
expect_exit 2 "positional argument" "$V" -q extra
expect_exit 2 "bad seed" "$V" -q --seed x

finish
