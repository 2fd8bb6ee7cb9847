#!/bin/sh
# CLI checks of `sbw-plot table`: markdown tables from hand-written TSVs
# against markdown written out by hand: columns chosen and renamed, rows
# filtered, inputs joined on a key or stacked, number formats (integers
# untouched), the `# command=` line of every source below the table; cells
# that would be markup escaped; bad usage exit 2, bad data exit 1, no file.
. tests/cli/lib.sh
P="$BIN/sbw-plot"
TAB=$(printf '\t')
# tsv FILE COMMAND LINE...: a table; "|" in LINE stands for a tab
tsv() {
    f=$1 c=$2
    shift 2
    { [ -z "$c" ] || printf '# command=%s\n' "$c"; for l in "$@"; do printf '%s\n' "$l" | tr '|' "$TAB"; done; } >"$f"
}
# same FILE "what": $T/out is FILE's text exactly
same() { if cmp -s "$T/out" "$1"; then ok; else bad "$2: got$(printf '\n%s' "$(cat "$T/out")")"; fi; }
cd "$T" || exit 1
P=$(cd "$OLDPWD" && cd "$(dirname "$P")" && pwd)/sbw-plot

tsv ours.tsv "sbw-rank -q x.npy" "model|k|rank|w0|ppl" "mos-k3|3|12|176235.11328236802|137.44229125666382" \
    "mos-k5|5|20|1.5e-05|nan" "mos-k10|10|30|2e+05|131.5"
tsv paper.tsv "" "# source=MoS (Yang et al. 2018), Table 7, p. 8" "k|rank|ppl" "3|6467|58.62" "5|8930|57.36" \
    "20|9981|56.17"

# columns renamed, a format on every column: reals formatted, integers and nan as written
expect_exit 0 "columns and format" "$P" table ours.tsv --columns "model,k,rank=rank (ours),w0,ppl" --format %.4g
cat >want <<'EOF'
| model | k | rank (ours) | w0 | ppl |
|---|---|---|---|---|
| mos-k3 | 3 | 12 | 1.762e+05 | 137.4 |
| mos-k5 | 5 | 20 | 1.5e-05 | nan |
| mos-k10 | 10 | 30 | 2e+05 | 131.5 |

<sub>From `ours.tsv`: `sbw-rank -q x.npy`</sub>
EOF
same want "columns renamed, %.4g on reals only"

# every column of the first input when --columns is absent, --format on all of them
expect_exit 0 "default columns" "$P" table paper.tsv --format %.1f --no-cite
printf '| k | rank | ppl |\n|---|---|---|\n| 3 | 6467 | 58.6 |\n| 5 | 8930 | 57.4 |\n| 20 | 9981 | 56.2 |\n' >want
same want "every column, %.1f on the reals only"

# per-column formats override the default; --where keeps alternatives of one column
expect_exit 0 "where and per-column format" "$P" table ours.tsv --columns k,ppl --where k=3,k=10 \
    --format ppl=%.1f,%.2e --no-cite
printf '| k | ppl |\n|---|---|\n| 3 | 137.4 |\n| 10 | 131.5 |\n' >want
same want "--where k=3,k=10 and ppl=%.1f"

# joined on k: every row of the first input, the paper's where it has one
expect_exit 0 "join" "$P" table ours.tsv paper.tsv --join k --columns "k,1:rank=ours,2:rank=paper,2:ppl=paper ppl"
cat >want <<'EOF'
| k | ours | paper | paper ppl |
|---|---|---|---|
| 3 | 12 | 6467 | 58.62 |
| 5 | 20 | 8930 | 57.36 |
| 10 | 30 | — | — |

<details><summary>The command behind each number</summary>

- `ours.tsv`: `sbw-rank -q x.npy`
- `paper.tsv`: no `# command=` line

</details>
EOF
same want "--join k: the paper's cells beside ours, — where it has none"

# a long table joined twice, each copy narrowed to one quantity by --where I:COL=V
tsv long.tsv "typed" "table|model|quantity|value" "11|MoS|kl_valid|5.400" "11|MoS|kl_test|5.284" \
    "11|Softmax|kl_valid|4.869" "11|Softmax|kl_test|4.763" "6|MoS|kl_valid|0"
tsv kl.tsv "sbw-kl" "model|kl" "Softmax|4.12345" "MoC|4.5" "MoS|4.9"
expect_exit 0 "join a long table twice" "$P" table kl.tsv long.tsv long.tsv --join model \
    --where 2:table=11,2:quantity=kl_valid,3:table=11,3:quantity=kl_test \
    --columns "model,1:kl=ours,2:value=paper valid,3:value=paper test" --format kl=%.3f --no-cite
cat >want <<'EOF2'
| model | ours | paper valid | paper test |
|---|---|---|---|
| Softmax | 4.123 | 4.869 | 4.763 |
| MoC | 4.500 | — | — |
| MoS | 4.900 | 5.400 | 5.284 |
EOF2
same want "each copy of the long table gives one quantity; MoC has none"
expect_exit 1 "a join left ambiguous" "$P" table kl.tsv long.tsv --join model --where 2:table=11
expect_grep "long.tsv: key model 'Softmax' on more than one row .*--where 2:COL=VALUE" "$T/err" \
    "an ambiguous join names the input to narrow"

# stacked (no --join): a column an input lacks is --missing
expect_exit 0 "stack" "$P" table ours.tsv paper.tsv --columns model,k,rank --where k=3 --missing n/a --no-cite
printf '| model | k | rank |\n|---|---|---|\n| mos-k3 | 3 | 12 |\n| n/a | 3 | 6467 |\n' >want
same want "stacked rows, a missing cell"

# --cite: the commands of the tables a table was assembled from
expect_exit 0 "cite" "$P" table paper.tsv --columns k --where k=20 --cite ours.tsv
printf '| k |\n|---|\n| 20 |\n\n<sub>From `ours.tsv`: `sbw-rank -q x.npy`</sub>\n' >want
same want "--cite names the other table's command"

# nothing from input becomes markup: cells, headers and the command
tsv evil.tsv 'x --t "`a`" | b' 'a|b_c|_d' '*x*|[l](u) <b>&amp;|x_y_z' 'a\b|http://e.com www.x.org|$m$ ~s~ @u' \
    'line|'"$(printf 'c\001d')"'|_e_'
expect_exit 0 "escaping" "$P" table evil.tsv
cat >want <<'EOF'
| a | b_c | \_d |
|---|---|---|
| \*x\* | \[l\](u) \<b\>\&amp; | x_y_z |
| a\\b | http\://e.com www\.x.org | \$m\$ \~s\~ \@u |
| line | c\\x01d | \_e\_ |

<sub>From `evil.tsv`: ``x --t "`a`" | b``</sub>
EOF
same want "markup characters escaped, a control byte shown, the command in a longer fence"
printf 'v\na\tb\n' >bad.tsv
expect_exit 1 "a row with a cell too many" "$P" table bad.tsv
expect_grep "bad.tsv" "$T/err" "the bad row's file is named"
printf '# command=c\nv\nx | y\n' >pipe.tsv
expect_exit 0 "a pipe in a cell" "$P" table pipe.tsv --no-cite
printf '| v |\n|---|\n| x \\| y |\n' >want
same want "| escaped"

# an empty command is a code span of one space (two backticks would be literal text)
printf '# command=\nv\n1\n' >empty.tsv
expect_exit 0 "an empty command" "$P" table empty.tsv
printf '| v |\n|---|\n| 1 |\n\n<sub>From `empty.tsv`: ` `</sub>\n' >want
same want "an empty command cited as a span"

# -o: written whole; bad usage and bad data: one line, no file
expect_exit 0 "-o" "$P" table ours.tsv --columns k -o t.md -q
printf '| k |\n|---|\n| 3 |\n| 5 |\n| 10 |\n\n<sub>From `ours.tsv`: `sbw-rank -q x.npy`</sub>\n' >want
if cmp -s t.md want; then ok; else bad "-o t.md: $(cat t.md)"; fi
expect_exit 2 "bad format" "$P" table ours.tsv --columns k --format '%n' -o u.md
expect_grep "not a number format" "$T/err" "bad format named"
expect_absent u.md "bad format: no file"
expect_exit 2 "format with a width too long" "$P" table ours.tsv --columns k --format '%100.4g'
expect_exit 2 "format of a column not shown" "$P" table ours.tsv --columns k --format w0=%.2f
expect_exit 2 "bad where" "$P" table ours.tsv --where k
expect_exit 2 "input out of range" "$P" table ours.tsv --columns 2:k
expect_exit 2 "--cite and --no-cite" "$P" table ours.tsv --cite paper.tsv --no-cite
expect_exit 2 "no input" "$P" table
expect_exit 1 "unknown column" "$P" table ours.tsv --columns kk -o u.md
expect_grep "^sbw-plot: ours.tsv: no column 'kk'" "$T/err" "unknown column named with its file"
expect_absent u.md "unknown column: no file"
expect_exit 1 "no row left" "$P" table ours.tsv --where k=7
expect_grep "no row left" "$T/err" "an empty selection is an error"
tsv dup.tsv "" "k|rank" "3|1" "3|2"
expect_exit 1 "a key twice" "$P" table ours.tsv dup.tsv --join k
expect_grep "dup.tsv: key k '3' on more than one row" "$T/err" "a repeated key named"
expect_exit 1 "missing input" "$P" table nosuch.tsv
expect_exit 2 "output is an input" "$P" table ours.tsv -o ours.tsv
expect_exit 0 "--help" "$P" table --help
expect_grep "computes nothing" "$T/out" "help says what it does"
expect_exit 0 "sbw-plot --help names table" "$P" --help
expect_grep "table TABLE.tsv" "$T/out" "the kind is listed"
finish
