#!/bin/sh
# CLI checks of experiments/heads/run.sh at a tiny size (a second or two):
# --quick plants 4 interior words in a 200 x 5 head with a bias and the
# report finds exactly them (sbw-argmax's unargmaxable words = planted.txt),
# with their largest probabilities below 1 for every R, the rank measures
# (5 = D for every counting rule), both figures and the traceability lines;
# the head (sbw-synth head, head.tsv) reads back with the right shape; the
# same --seed draws the same bytes and another seed another head; a
# table's warning is shown under its source line; a rerun
# skips every step; a head with nothing planted says there is no
# unargmaxable word and draws no max-prob figure, also when given as HEAD
# (whose report lists the longest certificates, sorted), and a safetensors
# head gives the same words; bad usage exits 2 (sizes sbw-synth refuses
# too, leaving no head/); the recipes draw nothing and write no .npy
# themselves (no rand, no NUMPY header, no sqrt in experiments/heads/).
# A head without --vocab (its words named by index), relative paths (the
# caller's) with spaces and commas; SIGTERM to run.sh itself while
# sbw-argmax runs stops it and leaves no temporary (exit 143).
. tests/cli/lib.sh
. tests/cli/safetensors.sh
. tests/cli/recipe.sh
ABS=$(cd "$BIN" && pwd)
export SBW_BIN="$ABS"
R=experiments/heads/run.sh
O=$T/quick

expect_exit 0 "--quick" $R --quick -o "$O"
for f in report.md argmax.tsv maxprob.tsv measures.tsv rank.tsv spectrum.tsv spectrum.png \
    maxprob.png maxprob.gp head/W.npy head/b.npy head/planted.txt head/vocab.txt; do
    if [ -s "$O/$f" ]; then ok; else bad "--quick: $f missing or empty"; fi
done
expect_eq "$(tsv_meta "$O/argmax.tsv" m)/$(tsv_meta "$O/argmax.tsv" d)" 200/5 "head shape"
expect_eq "$(wc -l <"$O/head/planted.txt" | tr -d ' ')" 4 "4 planted words"
expect_eq "$(tsv_meta "$O/argmax.tsv" unargmaxable)/$(tsv_meta "$O/argmax.tsv" undecided)" 4/0 \
    "sbw-argmax: 4 unargmaxable, none undecided"
# the unargmaxable words are exactly the planted ones, with their names
found=$(awk -F'\t' '/^#/ { next } !h { h = 1; next } $3 != 1 { print $1 }' "$O/argmax.tsv" | sort -n | tr '\n' ' ')
planted=$(sort -n "$O/head/planted.txt" | tr '\n' ' ')
expect_eq "$found" "$planted" "unargmaxable = planted"
expect_eq "$(awk -F'\t' '/^#/ { next } !h { h = 1; next } $3 != 1 && $2 !~ /^in/' "$O/argmax.tsv" | wc -l | tr -d ' ')" \
    0 "unargmaxable words are named in*"
expect_grep '^- planted_found=exact' "$O/report.md" "report: planted words found exactly"
# largest probability: below 1 at every R, p_max <= p_upper, one row per (word, R)
expect_eq "$(tsv_rows "$O/maxprob.tsv" | tail -n +2 | wc -l | tr -d ' ')" 12 "maxprob: 4 words x 3 radii"
if tsv_rows "$O/maxprob.tsv" | tail -n +2 | awk -F'\t' '!($4 > 0 && $4 <= $5 && $5 < 0.5) { bad = 1 } END { exit bad }'; then
    ok
else bad "maxprob: a p_max not in (0, p_upper] or p_upper >= 0.5"; fi
# rank measures: every counting rule says D = 5 for a generic 200 x 5 head
for m in nr numpy pytorch julia gap eps_eff_1e-5; do
    r=$(awk -F'\t' -v m=$m '$1 == m { print $2 }' "$O/measures.tsv")
    expect_eq "$r" 5 "measure $m"
done
# traceability and figures
expect_grep '^Source: `argmax.tsv`, written by `.*sbw-argmax .*--max-prob 1,10,100 --bias ' "$O/report.md" \
    "report: argmax command"
expect_grep '^Source: `measures.tsv`, written by `.*sbw-rank .*--measures ' "$O/report.md" "report: measures command"
expect_grep '!\[spectrum\]\(spectrum.png\)' "$O/report.md" "report embeds the spectrum"
expect_grep '!\[largest attainable probability\]\(maxprob.png\)' "$O/report.md" "report embeds max-prob"
expect_grep '^- Synthetic .*drawn by `sbw-synth head -q --m 200 --d 5 --k 4 --seed 1 -o ' "$O/report.md" \
    "report: the head's command"
# sbw-synth head's files read back: float64, 200 x 5; b 200 values
expect_exit 0 "sbw-info W" "$BIN/sbw-info" -q "$O/head/W.npy"
expect_eq "$(tsv_field "$T/out" rows)/$(tsv_field "$T/out" cols)/$(tsv_field "$T/out" dtype)" 200/5/float64 \
    "W.npy as written"
expect_exit 0 "sbw-info b" "$BIN/sbw-info" -q "$O/head/b.npy"
expect_eq "$(tsv_field "$T/out" rows)/$(tsv_field "$T/out" dtype)" 200/float64 "b.npy as written"
expect_eq "$(tsv_field "$O/head/head.tsv" planted)" 4 "head.tsv: 4 planted"
# the same seed draws the same bytes; another seed another head
expect_exit 0 "--quick again elsewhere" $R --quick -o "$T/again"
for f in W.npy b.npy planted.txt vocab.txt; do
    if cmp -s "$O/head/$f" "$T/again/head/$f"; then ok; else bad "same seed: $f differs"; fi
done
expect_exit 0 "--seed 2" $R --synthetic --m 200 --d 5 --k 4 --seed 2 --radii 1 -o "$T/seed2"
if cmp -s "$O/head/W.npy" "$T/seed2/head/W.npy"; then bad "seed 2: the same W"; else ok; fi
expect_grep '^- planted_found=exact' "$T/seed2/report.md" "seed 2: planted words found exactly"
# a tool's warning reaches the report (a copy of the run, one warning added)
cp -r "$O" "$T/warn"
awk '/^# threads=/ { print "# warning=made_up: a test warning" } { print }' "$O/rank.tsv" >"$T/warn/rank.tsv"
expect_exit 0 "report.sh on a warned table" sh experiments/heads/report.sh "$T/warn" warn "$T/warn/head/W.npy" 1
expect_grep '^- \*\*Warning\*\* \(from the tool\): made_up: a test warning$' "$T/warn/report.md" \
    "report: the table's warning shown"
# rerun: every step skipped, nothing rewritten
ls -i "$O"/*.tsv "$O"/*.png "$O"/head/* | sort >"$T/ino1"
expect_exit 0 "--quick rerun" $R --quick -o "$O"
expect_eq "$(grep -c 'done (skipped)' "$T/out")" 4 "rerun: 4 tool steps skipped"
expect_grep 'head.tsv: done \(skipped\)' "$T/out" "rerun: head kept"
ls -i "$O"/*.tsv "$O"/*.png "$O"/head/* | sort >"$T/ino2"
if cmp -s "$T/ino1" "$T/ino2"; then ok; else bad "rerun rewrote a result"; fi

# the same head from a safetensors file (8-byte length, JSON, raw data: the
# .npy payloads, float64 little endian), HEAD as FILE.safetensors:NAME
mkdir -p "$T/st"
J='{"W": {"dtype": "F64", "shape": [200, 5], "data_offsets": [0, 8000]}, "b": {"dtype": "F64", "shape": [200], "data_offsets": [8000, 9600]}}'
tail -c 8000 "$O/head/W.npy" >"$T/st/W.bin"
tail -c 1600 "$O/head/b.npy" >"$T/st/b.bin"
st_write "$T/st/head.safetensors" "$J" "$T/st/W.bin" "$T/st/b.bin"
expect_exit 0 "HEAD as safetensors" $R "$T/st/head.safetensors:W" --bias "$T/st/head.safetensors:b" \
    --vocab "$O/head/vocab.txt" -o "$T/stout"
found2=$(awk -F'\t' '/^#/ { next } !h { h = 1; next } $3 != 1 { print $1 }' "$T/stout/argmax.tsv" | sort -n | tr '\n' ' ')
expect_eq "$found2" "$planted" "safetensors: the same unargmaxable words"
expect_grep '^# Head report: st$' "$T/stout/report.md" "safetensors: named after its folder"

# words named with '#' and '|' (sbw-argmax quotes a cell holding '#'): the
# report's tables show each name as given, the '|' escaped for markdown
sed 's/^/#|/' "$O/head/vocab.txt" >"$T/vocab_hash.txt"
expect_exit 0 "a vocabulary of '#|' names" $R "$O/head/W.npy" --bias "$O/head/b.npy" \
    --vocab "$T/vocab_hash.txt" -o "$T/hash"
w=$(echo "$planted" | cut -d' ' -f1)
expect_grep "^\| $w \| #\\\\\|$(sed -n "$((w + 1))p" "$O/head/vocab.txt") \| below_hull" "$T/hash/report.md" \
    "'#|' names: the unargmaxable word's name as given in the report"

# nothing planted: no unargmaxable word, no max-prob figure; the same head as HEAD
expect_exit 0 "--synthetic --k 0" $R --synthetic --m 40 --d 3 --k 0 -o "$T/none"
expect_grep '^\*\*No word is unargmaxable\*\*' "$T/none/report.md" "k = 0: none unargmaxable"
if [ -e "$T/none/maxprob.png" ]; then bad "k = 0: a max-prob figure"; else ok; fi
expect_exit 0 "HEAD mode" $R "$T/none/head/W.npy" --vocab "$T/none/head/vocab.txt" -o "$T/asfile"
expect_eq "$(tsv_meta "$T/asfile/argmax.tsv" argmaxable)" 40 "HEAD mode: 40 argmaxable"
expect_grep '^- Head: `.*/none/head/W.npy`: M = 40 words, D = 3, vocabulary ' "$T/asfile/report.md" \
    "HEAD mode: head named"
# its longest certificates: 20 rows, the first the largest cert_norm of argmax.tsv
expect_grep '^\| word \| name \| cert_norm \|$' "$T/asfile/report.md" "HEAD mode: certificate table"
expect_eq "$(awk '/\| cert_norm \|$/ { t = 1; next } t && /^\|---/ { next } t && /^\|/ { n++ } t && !/^\|/ { t = 0 } END { print n }' \
    "$T/asfile/report.md")" 20 "HEAD mode: 20 longest certificates"
top=$(awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) at[$i] = i; h = 1; next }
    $(at["cert_norm"]) + 0 > big + 0 { big = $(at["cert_norm"]) } END { print big }' "$T/asfile/argmax.tsv")
expect_eq "$(awk '/\| cert_norm \|$/ { getline; getline; print $6; exit }' "$T/asfile/report.md")" "$top" \
    "HEAD mode: the longest certificate first"

# without --vocab, from another folder, every path relative to it and with a
# space and a comma: the words are named by their index, the same ones found
ROOT=$(pwd)
mkdir -p "$T/in dir,1"
cp "$O/head/W.npy" "$O/head/b.npy" "$T/in dir,1/"
expect_exit 0 "no --vocab, relative paths with a space and a comma" \
    sh -c 'cd "$1" && sh "$2/experiments/heads/run.sh" "in dir,1/W.npy" --bias "in dir,1/b.npy" -o "out dir,2"' \
    sh "$T" "$ROOT"
N=$T/out\ dir,2
for f in report.md argmax.tsv maxprob.tsv spectrum.png maxprob.png; do
    if [ -s "$N/$f" ]; then ok; else bad "no --vocab: $f missing or empty"; fi
done
found3=$(awk -F'\t' '/^#/ { next } !h { h = 1; next } $2 != 1 { print $1 }' "$N/argmax.tsv" | sort -n | tr '\n' ' ')
expect_eq "$found3" "$planted" "no --vocab: the same unargmaxable words"
expect_eq "$(tsv_rows "$N/maxprob.tsv" | head -n 1)" "$(printf 'word\tname\tR\tp_max\tp_upper')" "no --vocab: maxprob columns"
expect_eq "$(tsv_rows "$N/maxprob.tsv" | awk -F'\t' 'NR > 1 && (NF != 5 || $1 != $2) { n++ } END { print n + 0 }')" 0 \
    "no --vocab: maxprob rows name each word by its index"
expect_eq "$(tsv_rows "$N/maxprob.tsv" | tail -n +2 | wc -l | tr -d ' ')" 20 "no --vocab: 4 words x 5 radii"
expect_grep "^# command=.*sbw-argmax .*--bias $T/in dir,1/b.npy $T/in dir,1/W.npy\$" "$N/argmax.tsv" \
    "no --vocab: the caller's paths, whole"
if [ -e "$ROOT/out dir,2" ] || [ -e "$ROOT/in dir,1" ]; then bad "paths resolved against the repository"; else ok; fi

# SIGTERM to run.sh itself while sbw-argmax runs (a stand-in that waits on
# a child of its own): both stopped, no temporary, exit 143
FB=$T/fakebin
fake_bin "$FB" sbw-argmax "$T/argmax.pid"
SBW_BIN="$FB" sh $R --quick -o "$T/sig" >"$T/sig.out" 2>&1 &
pid=$!
argmax_running() { [ -s "$T/argmax.pid" ]; }
wait_for argmax_running || bad "SIGTERM: the stand-in sbw-argmax never started"
expect_terminated "$pid" "$T/sig.out" run.sh "$T/argmax.pid" "$T/sig" "heads/run.sh"
expect_absent "$T/sig/argmax.tsv" "SIGTERM: no argmax.tsv"

# --help teaches; bad usage exits 2
expect_exit 0 "--help" $R --help
expect_grep 'planted interior words' "$T/out" "--help explains the synthetic mode"
expect_exit 2 "no head" $R -o "$T/x"
expect_exit 2 "--synthetic with a head" $R --synthetic "$T/none/head/W.npy"
expect_exit 2 "too many planted" $R --synthetic --m 10 --d 5 --k 6 -o "$T/x"
expect_grep 'sbw-synth head: planted head: need 2 <= d' "$T/err" "too many planted: sbw-synth says why"
expect_absent "$T/x/head" "too many planted: no head folder"
expect_exit 2 "D = 1" $R --synthetic --m 10 --d 1 --k 1 -o "$T/x"
expect_exit 2 "bad number" $R --synthetic --m ten -o "$T/x"
expect_exit 2 "unknown option" $R --frob

# the recipes chain tools: no random numbers, no .npy header, no square root,
# log or exp of their own outside comments and the text they print
# (sbw-synth head draws the head; the tables carry the numbers)
if grep -anE 'rand\(|NUMPY|sqrt\(|log\(|exp\(' experiments/heads/run.sh experiments/heads/report.sh |
    grep -avE '^[^:]*:[0-9]+: *(#|say )' >"$T/calc"; then
    bad "experiments/heads computes: $(head -n 1 "$T/calc")"
else ok; fi

finish
