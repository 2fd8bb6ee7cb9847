#!/bin/sh
# tests/cli/test_tsv_pandas.sh -- every kind of table the tools write reads
# in pandas as the README and the guides say, pd.read_csv(f, sep="\t",
# comment="#"), into exactly the cells a plain reader finds (the "# " lines
# dropped, a header of column names, tab-separated rows): same column
# names, same number of rows, every cell the same text.  A '#' inside a
# cell (pandas' comment character cuts the line there), a ragged row or a
# header line pandas would take for data fails it.  A text cell may hold a
# '#' or a '"' (a vocabulary word such as "##ing" in sbw-argmax's name
# column): the tools quote such a cell ("##ing", '"' doubled inside), which
# pandas reads back whole; the plain reader here unquotes it by the same
# rule, and the words are checked to come back as given.  Needs python3 with
# pandas (Debian's /usr/bin/python3 with python3-pandas, as the benches
# use, or SBW_TEST_PY); without them it says so and passes (make check
# needs no Python).
. tests/cli/lib.sh
PY=${SBW_TEST_PY:-/usr/bin/python3}
if ! "$PY" -c 'import pandas' 2>/dev/null; then
    echo "note: $PY with pandas not installed: the pandas reading test is skipped (apt-get install python3-pandas)"
    ok
    finish
fi
D=$T/tables
mkdir -p "$D"
# run NAME CMD...: CMD's stdout into D/NAME.tsv, exit 0 wanted
run() {
    n=$1
    shift
    expect_exit 0 "$n" "$@"
    cp "$T/out" "$D/$n.tsv"
}
B=$BIN
run synth "$B/sbw-synth" dirichlet --n 60 --m 30 --alpha 0.1 --seed 1 -q -o "$T/p.npy"
run synth_head "$B/sbw-synth" head --m 40 --d 3 --k 2 --seed 1 -q -o "$T/W.npy" --bias "$T/b.npy" \
    --vocab "$T/vocab.txt" --planted "$D/planted.tsv"
run info "$B/sbw-info" -q --per-row "$D/info_per_row.tsv" --sorted "$D/info_sorted.tsv" "$T/p.npy"
run rank "$B/sbw-rank" -q --spectrum "$D/rank_spectrum.tsv" "$T/p.npy"
run rank_measures "$B/sbw-rank" -q --center --measures "$T/p.npy"
run bound "$B/sbw-bound" -q --d 1:5 "$T/p.npy"
run kl "$B/sbw-kl" -q --pairs 100 "$T/p.npy"
run fit "$B/sbw-fit" -q --model mos --k 2 --d 3 --steps 20 --seed 2 -o "$T/q.npy" --log "$D/fit_log.tsv" \
    --save "$T/params" "$T/p.npy"
cp "$T/params/params.tsv" "$D/fit_params.tsv" 2>/dev/null || :
run compare "$B/sbw-compare" -q "$T/p.npy" "$T/q.npy"
run bound_fit "$B/sbw-bound" -q --d 3 --fit "$T/q.npy" --fit-d 3 "$T/p.npy"
run argmax "$B/sbw-argmax" -q --bias "$T/b.npy" --vocab "$T/vocab.txt" "$T/W.npy"
printf 'K=3\t6467\nK=5\t8930\n' >"$T/series.txt"
run series "$B/sbw-series" -q "$T/series.txt"
run series_order "$B/sbw-series" -q --order desc "$T/series.txt"
run verify "$B/sbw-verify" -q --only property1
# vocabulary words with '#' and '"' in them, as real tokenizers have ("#",
# "##ing", a quote)
sed -e '1s/.*/##ing/' -e '2s/.*/"/' -e '3s/.*/a#"b/' "$T/vocab.txt" >"$T/vocab_hash.txt"
run argmax_hash_word "$B/sbw-argmax" -q --bias "$T/b.npy" --vocab "$T/vocab_hash.txt" "$T/W.npy"

cat >"$T/check.py" <<'EOF'
import sys
import pandas as pd


def unquote(cell):
    # sbw_table's rule: a cell holding '#' or '"' is "..." with '"' doubled
    if len(cell) >= 2 and cell[0] == '"' and cell[-1] == '"':
        return cell[1:-1].replace('""', '"')
    return cell


bad = 0
for path in sys.argv[1:]:
    lines = [l.rstrip("\n") for l in open(path, encoding="utf-8") if not l.startswith("#")]
    lines = [l for l in lines if l != ""]
    head = [unquote(c) for c in lines[0].split("\t")]
    rows = [[unquote(c) for c in l.split("\t")] for l in lines[1:]]
    try:
        df = pd.read_csv(path, sep="\t", comment="#", dtype=str, keep_default_na=False)
    except Exception as e:  # noqa: BLE001 -- any failure to read is the finding
        print(f"{path}: pandas cannot read it: {e}")
        bad += 1
        continue
    if list(df.columns) != head:
        print(f"{path}: columns {list(df.columns)[:6]} != {head[:6]}")
        bad += 1
    elif df.shape[0] != len(rows):
        print(f"{path}: {df.shape[0]} rows in pandas, {len(rows)} in the file")
        bad += 1
    else:
        for i, r in enumerate(rows):
            if list(df.iloc[i]) != r:
                print(f"{path}: row {i + 1} reads {list(df.iloc[i])[:6]}, the file has {r[:6]}")
                bad += 1
                break
# the last table: sbw-argmax with the words '##ing', '"' and 'a#"b' first
names = pd.read_csv(sys.argv[-1], sep="\t", comment="#", dtype=str, keep_default_na=False)["name"]
if list(names[:3]) != ["##ing", '"', 'a#"b']:
    print(f"the '#' and '\"' words read as {list(names[:3])}")
    bad += 1
print(f"checked {len(sys.argv) - 1} tables, {bad} bad")
sys.exit(1 if bad else 0)
EOF
n=$(ls "$D"/*.tsv | wc -l)
if [ "$n" -ge 18 ]; then ok; else bad "only $n tables made"; fi
# shellcheck disable=SC2046
if "$PY" "$T/check.py" $(ls "$D"/*.tsv | grep -v argmax_hash_word) "$D/argmax_hash_word.tsv" >"$T/py" 2>&1; then ok; else
    bad "pandas reads a table differently: $(cat "$T/py")"
fi
expect_grep '	"##ing"	' "$D/argmax_hash_word.tsv" "the '#' word is quoted in the table"

finish
