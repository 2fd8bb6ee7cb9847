#!/bin/sh
# CLI checks of experiments/tables-synthetic.sh and experiments/quickstart.sh
# at a tiny size.  tables-synthetic: the Softmax rank of log Q is D + 2 with
# a bias, MoC's at most D + 2, MoS's grows with K (K = 1 is a Softmax of
# tanh features, at D + 2) and exceeds the bound; a rerun skips finished
# fits, a fit left half-done is redone, other settings in the same folder
# are refused.  quickstart: report.md's first screen says what the run
# shows, each verdict checked here against the TSVs (Softmax's rank is D + 1,
# exact from d* on, MoS below the Softmax bound where its TSVs say so, the
# fits that did not converge named, one line per sbw-verify claim); it
# embeds at least four figures that exist, every table names a TSV of the
# folder and that TSV's own "# command=" line, its numbers are the TSVs'.
# Both run from another folder with a relative output folder holding a
# space and a comma; SIGTERM to either recipe while a tool runs stops the
# tool and leaves no temporary (exit 143).
. tests/cli/lib.sh
. tests/cli/recipe.sh
ABS=$(cd "$BIN" && pwd)
export SBW_BIN="$ABS"
ROOT=$(pwd)

# ---- tables-synthetic -------------------------------------------------------------------------
# TS ARG...: tables-synthetic.sh run from $T (so --out "ts dir,1" is $T's)
TS() { (cd "$T" && sh "$ROOT/experiments/tables-synthetic.sh" "$@"); }
DS=8
DM=6
SIZE="--n 200 --m 100 --topics 5 --d-softmax $DS --d-mix $DM --ks 1,2,4 --k6 4 --steps 60 --threads 2"
O="$T/ts dir,1"
# shellcheck disable=SC2086
expect_exit 0 "tables-synthetic" TS $SIZE --out "ts dir,1"
for f in table6.tsv table7.tsv table11.tsv report.md rank_k.png rank_k.gp spectrum.png spectrum.gp; do
    if [ -s "$O/$f" ]; then ok; else bad "tables-synthetic: $f missing or empty"; fi
done
# cell MODEL COL FILE: the value of COL in the row of MODEL
cell() { awk -F'\t' -v m="$1" -v c="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) at[$i] = i; h = 1; next }
    $1 == m { print $(at[c]); exit }' "$3"; }
expect_eq "$(cell Softmax rank "$O/table6.tsv")" $((DS + 2)) "Table 6: Softmax rank = D + 2 (bias)"
rmoc=$(cell MoC rank "$O/table6.tsv")
if [ -n "$rmoc" ] && [ "$rmoc" -le $((DM + 2)) ]; then ok; else bad "Table 6: MoC rank '$rmoc' above D + 2 = $((DM + 2))"; fi
rmos=$(cell MoS rank "$O/table6.tsv")
if [ -n "$rmos" ] && [ "$rmos" -gt $((DM + 2)) ]; then ok; else bad "Table 6: MoS rank '$rmos' not above D + 2"; fi
expect_eq "$(cell "true log P*" rank "$O/table6.tsv")" 100 "Table 6: the truth is full rank"
# the bounds are sbw-fit's # rank_bound= (D + 2 with the bias), and the
# verdicts on them (sbw-series --against) say so
expect_eq "$(cell Softmax bound "$O/table6.tsv")" $((DS + 2)) "Table 6: Softmax bound D + 2 from sbw-fit"
expect_eq "$(cell MoC bound "$O/table6.tsv")" $((DM + 2)) "Table 6: MoC bound D + 2 from sbw-fit"
expect_grep "^- Softmax: rank $((DS + 2)), bound $((DS + 2)): at its bound\.$" "$O/report.md" \
    "report: the Softmax rank at its bound"
expect_grep "^- MoC: rank $rmoc, bound $((DM + 2)): within its bound\.$" "$O/report.md" \
    "report: the MoC rank within its bound"
# Table 7: the MoS ranks by K, as the paper's Table 7
ranks=$(awk -F'\t' '/^#/ || !h++ { next } { printf "%s ", $3 }' "$O/table7.tsv")
# shellcheck disable=SC2086
set -- $ranks
expect_eq "$#" 3 "Table 7: one row per K"
expect_eq "$1" $((DM + 2)) "Table 7: MoS K=1 is at the Softmax bound"
if [ "$2" -ge "$1" ] && [ "$3" -ge "$2" ] && [ "$3" -gt $((DM + 2)) ]; then ok; else
    bad "Table 7: MoS ranks $ranks do not grow with K past D + 2"
fi
# in words: K -> rank, grows (sbw-series' trend), full from the first K at 100
full=none # the first K whose rank is min(N, M) = 100
[ "$3" = 100 ] && full=4
[ "$2" = 100 ] && full=2
[ "$1" = 100 ] && full=1
w="grows with K"
[ "$full" = none ] || w="$w, full \\(min\\(N, M\\) = 100\\) from K = $full on"
expect_grep "^- MoS rank against K \(K→rank: 1→$1, 2→$2, 4→$3\): $w\.$" "$O/report.md" \
    "report: how the MoS rank moves with K"
expect_grep '^\| MoS \| 6 \| 4 \| [0-9]+ \| [0-9]+ \| 100 \| 9981 \|$' "$O/report.md" "report: Table 6 beside the paper"
expect_grep '^\| Softmax \| [0-9.e-]+ \| [0-9.e-]+ \| [0-9.e+]+ \| 4.869 \| 4.763 \|$' "$O/report.md" "report: Table 11 beside the paper"
expect_grep '^- Expected pairwise KL: ' "$O/report.md" "report: says how the KLD ordering came out"
expect_grep 'A note on scale' "$O/report.md" "report: the note on scale"
expect_grep '!\[.*\]\(rank_k.png\)' "$O/report.md" "report embeds rank_k"
# four spectra: both legends below the panels, none inside over the lines
expect_eq "$(grep -c '^set key below$' "$O/spectrum.gp")" 2 "spectrum of 4: legends below"
expect_eq "$(grep -c '^set key inside' "$O/spectrum.gp")" 0 "spectrum of 4: no legend inside"
# a rerun skips every finished fit and rewrites none
ls -i "$O"/*/fit.tsv | sort >"$T/ino1"
# shellcheck disable=SC2086
expect_exit 0 "tables-synthetic rerun" TS $SIZE --out "ts dir,1"
expect_eq "$(grep -c 'done (skipped)' "$T/out")" 5 "rerun: 5 fits skipped"
ls -i "$O"/*/fit.tsv | sort >"$T/ino2"
if cmp -s "$T/ino1" "$T/ino2"; then ok; else bad "rerun rewrote a finished fit"; fi
# a fit killed half-way (its temporary folder left, no final one) is redone, alone
mv "$O/mos_d6_k2" "$O/.mos_d6_k2.tmp"
rm "$O/.mos_d6_k2.tmp/compare.tsv"
# shellcheck disable=SC2086
expect_exit 0 "tables-synthetic resume" TS $SIZE --out "ts dir,1"
expect_eq "$(grep -c 'done (skipped)' "$T/out")" 4 "resume: the 4 others skipped"
expect_grep '^  mos_d6_k2: rank ' "$T/out" "resume: the half-done fit redone"
if [ -s "$O/mos_d6_k2/compare.tsv" ] && [ ! -e "$O/.mos_d6_k2.tmp" ]; then ok; else bad "resume: mos_d6_k2 not redone whole"; fi
# shellcheck disable=SC2086
expect_exit 2 "tables-synthetic other settings" TS $SIZE --steps 61 --out "ts dir,1"
expect_grep 'holds tables of other settings' "$T/err" "other settings: reason"
expect_exit 2 "tables-synthetic bad option" TS --bogus
expect_exit 2 "tables-synthetic bad count" TS --ks 3,x --out "$T/none"
if [ -e "$ROOT/ts dir,1" ]; then bad "tables-synthetic: --out resolved against the repository"; else ok; fi

# ---- quickstart ---------------------------------------------------------------------------------
Q="$T/qs dir,1"
expect_exit 0 "quickstart" sh -c 'cd "$1" && shift && env "$@"' sh "$T" QUICKSTART_OUT="qs dir,1" QUICKSTART_N=200 \
    QUICKSTART_M=80 QUICKSTART_TOPIC_N=100 QUICKSTART_TOPIC_M=40 QUICKSTART_DS="2 3" QUICKSTART_FIT_STEPS=60 \
    QUICKSTART_LBFGS_STEPS=200 sh "$ROOT/experiments/quickstart.sh"
if [ -e "$ROOT/qs dir,1" ]; then bad "quickstart: QUICKSTART_OUT resolved against the repository"; else ok; fi
R="$Q/report.md"
nfig=0
for p in $(sed -n 's/^!\[[^]]*\](\([^)]*\.png\))$/\1/p' "$R"); do
    if [ -s "$Q/$p" ] && [ -s "$Q/${p%.png}.gp" ]; then nfig=$((nfig + 1)); else bad "quickstart: $p embedded but missing"; fi
done
if [ "$nfig" -ge 4 ]; then ok; else bad "quickstart: $nfig figures embedded, want >= 4"; fi
# each cited TSV is in the folder and the cited command is its own
ncite=0
sed -n 's/^<sub>From `\([^`]*\)`: `\(.*\)`<\/sub>$/\1\t\2/p; s/^- `\([^`]*\)`: `\(.*\)`$/\1\t\2/p' "$R" >"$T/cites"
while IFS='	' read -r f c; do
    ncite=$((ncite + 1))
    expect_eq "$(tsv_meta "$Q/$f" command)" "$c" "quickstart: the command cited for $f"
done <"$T/cites"
if [ "$ncite" -ge 20 ]; then ok; else bad "quickstart: only $ncite tables cite their TSV and command"; fi
# numbers in the report are the TSVs' (4 significant digits)
fmt() { awk -v v="$1" 'BEGIN { printf "%.4g", v }'; }
expect_grep "^\| $(tsv_field "$Q/rank_centered.tsv" rank) \| " "$R" "report: d* from rank_centered.tsv"
expect_grep "^\| 200 \| 80 \| $(fmt "$(tsv_field "$Q/kl.tsv" expected_pairwise_kl)") \| " "$R" "report: pairwise KL from kl.tsv"
expect_grep "^\| mos \| 3 \| 3 \| $(fmt "$(tsv_field "$Q/compare_mos_3.tsv" kl_mean)") \| " "$R" "report: mos D=3 KL from its compare TSV"
# the registry's size, from sbw-verify --list (one row per claim)
NCLAIMS=$("$ABS/sbw-verify" --list | grep -v '^#' | sed 1d | grep -c .)
if [ "$NCLAIMS" -ge 15 ]; then ok; else bad "sbw-verify --list: $NCLAIMS claims"; fi
expect_grep "^- Result: $NCLAIMS of $NCLAIMS claims pass\$" "$R" "report: sbw-verify's quick report"
expect_grep '^### property1: PASS$' "$R" "report: sbw-verify's claims, headings one level down"
# three spectra: the legends below the panels
expect_eq "$(grep -c '^set key below$' "$Q/spectrum.gp")" 2 "spectrum of 3: legends below"
# ---- the first screen: what the run shows, each verdict against the TSVs --------------------------
head -n 40 "$R" >"$T/screen"
expect_grep '^## What this run shows$' "$T/screen" "first screen: the summary"
# Softmax's log Q has rank D + 1 (theory: H W^T - lse 1^T), MoS's more
for d in 2 3; do
    expect_eq "$(tsv_field "$Q/rank_softmax_$d.tsv" rank)" $((d + 1)) "softmax D=$d: rank(log Q) = D + 1"
done
expect_grep "^- \*\*Softmax's rank is D \+ 1\.\*\* Softmax heads fitted at D = 2 and 3 have log Q of NR rank 3 and 4: D \+ 1 each" \
    "$T/screen" "first screen: Softmax's rank"
# exact (KL <= 1e-8) from d* = 10 on and not below, or the report says it did not show
ex() { awk -v v="$(tsv_field "$Q/compare_lowrank_$1.tsv" kl_mean)" 'BEGIN { exit !(v <= 1e-8) }'; }
if ! ex 8 && ! ex 9 && ex 10 && ex 11; then
    expect_grep '^- \*\*The bottleneck sits exactly at d\\\* = 10\.\*\*' "$T/screen" "first screen: the bottleneck at d*"
else
    expect_grep '^- \*\*The bottleneck did NOT show at d\\\* = 10 here:\*\*' "$T/screen" "first screen: the bottleneck not shown, said so"
fi
# MoS below the Softmax bound at the D where its TSVs say so; Softmax never
below=""
for d in 2 3; do
    expect_eq "$(awk -v e="$(tsv_field "$Q/bound_softmax_$d.tsv" fit_error)" -v b="$(tsv_field "$Q/bound_softmax_$d.tsv" shift_bound)" \
        'BEGIN { print (e >= b) ? "above" : "below" }')" above "softmax D=$d: never below the Softmax bound"
    awk -v e="$(tsv_field "$Q/bound_mos_$d.tsv" fit_error)" -v b="$(tsv_field "$Q/bound_mos_$d.tsv" shift_bound)" \
        'BEGIN { exit !(e < b) }' && below="$below $d"
done
case $below in
" 2 3") expect_grep 'MoS \(K = 3\) goes below it at D = 2 and 3 ' "$T/screen" "first screen: MoS below the bound" ;;
" 2" | " 3") expect_grep "MoS \(K = 3\) goes below it at D =$below " "$T/screen" "first screen: MoS below the bound" ;;
*) expect_grep '^- \*\*MoS did not break the bound here' "$T/screen" "first screen: MoS not below, said so" ;;
esac
# every fit that did not converge is named with how it stopped, and no other
for f in softmax_2 softmax_3 mos_2 mos_3 lowrank_8 lowrank_9 lowrank_10 lowrank_11; do
    n=$(echo "$f" | sed 's/^lowrank/rank-10 softmax/; s/_/ D=/')
    if [ "$(tsv_field "$Q/fit_$f.tsv" stop)" = converged ]; then
        if grep -q "$n (stopped" "$T/screen"; then bad "first screen: $n converged but listed as not"; else ok; fi
    else
        expect_grep "$n \(stopped at --steps [0-9]+" "$T/screen" "first screen: $n named as not converged"
    fi
done
# one line per sbw-verify claim, in the first screen
expect_eq "$(grep -c '^| [a-z0-9-]* | .* | [0-9]* | PASS |$' "$T/screen")" "$NCLAIMS" "first screen: a line per claim"
if find "$Q" -name '*.tmp*' | grep -q .; then bad "quickstart: a temporary left"; else ok; fi

# ---- SIGTERM to the recipe itself while a tool runs ----------------------------------------------
# a stand-in sbw-synth (the first tool of both) that waits on a child of its own
FB=$T/fakebin
fake_bin "$FB" sbw-synth "$T/synth.pid"
synth_running() { [ -s "$T/synth.pid" ]; }
for r in quickstart tables-synthetic; do
    rm -f "$T/synth.pid"
    if [ $r = quickstart ]; then
        SBW_BIN="$FB" QUICKSTART_OUT="$T/sig-$r" sh experiments/quickstart.sh >"$T/sig.out" 2>&1 &
    else
        SBW_BIN="$FB" sh experiments/tables-synthetic.sh --out "$T/sig-$r" >"$T/sig.out" 2>&1 &
    fi
    pid=$!
    wait_for synth_running || bad "$r: the stand-in sbw-synth never started"
    expect_terminated "$pid" "$T/sig.out" "$r.sh" "$T/synth.pid" "$T/sig-$r" "$r"
    if find "$T/sig-$r" -name '*.tmp*' | grep -q .; then bad "$r SIGTERM: a temporary left"; else ok; fi
done
finish
