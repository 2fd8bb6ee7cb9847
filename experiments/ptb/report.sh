#!/bin/sh
# experiments/ptb/report.sh -- report.md from the TSVs experiments/ptb/run.sh
# wrote: MoS Tables 6, 7 and 11 and Parthiban et al.'s Table 2 in the
# papers' layout, our number beside the paper's in every cell, Figure 1, the
# KLD-against-perplexity curve and the training curves through sbw-plot, and
# the scale we ran at.  A model not yet trained or evaluated shows "—".
# Every number is read from a file under $RES whose `# command=` line says
# how it was made.  A figure that sbw-plot fails to draw is left out of the
# report, which is still written, and the script exits 1.  RES and the
# figures' folder may hold spaces and commas: sbw-plot runs inside RES,
# given the models' own (plain) names.
#
# usage: RES=DIR [QUICK=1] [BIN=DIR] experiments/ptb/report.sh
#   (experiments/ptb/run.sh report calls it so)
# Environment: RES, the results folder [experiments/ptb/results]; QUICK=1
# for run.sh --quick's results (report.md and figures/ beside RES, the
# toy models' names; otherwise experiments/ptb/report.md and figures/);
# BIN, the folder of the sbw tools [bin]; MEASURED, a retrain's results
# folder (run.sh's RES of a retrain with the same recipe, relative to the
# repository or absolute) whose MODEL/rank-f32.tsv (run.sh measure) is read
# before RES's [none]; LONG, issue 28's long runs (run.sh --long's results
# folder, after report_long.sh) [experiments/ptb/long; none with QUICK=1],
# whose evaluated models join the tables beside the 2-epoch ones and whose
# trajectories, orderings and extrapolation decide the papers' claims;
# KEPOCH [8], the epoch Table 7's K runs are compared at.
set -eu
# -h or --help: the comment above, exit 0 (it is run by run.sh, not by hand)
case ${1:-} in -h | --help)
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
esac
cd "$(dirname "$0")/../.."
. scripts/tsv.sh
. scripts/recipe.sh
BIN=${BIN:-bin}
ROOT=$(pwd)
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
QUICK=${QUICK:-0}
RES=${RES:-experiments/ptb/results}
if [ "$QUICK" = 1 ]; then
    DOC=$(dirname "$RES")/report.md
    FIG=$(dirname "$RES")/figures
    SM=softmax MOC=moc MOS=mos-k3 KS="2 3"
else
    DOC=experiments/ptb/report.md
    FIG=experiments/ptb/figures
    SM=softmax MOC=moc MOS=mos-k15 KS="3 5 10 15 20"
fi
# LONG: the default may not exist yet (no long run started); a folder
# given that does not exist is a mistake
long_given=${LONG:+1}
if [ "$QUICK" = 1 ]; then LONG=${LONG:-}; else LONG=${LONG-experiments/ptb/long}; fi
if [ -n "$LONG" ] && [ ! -d "$LONG" ]; then
    [ -z "$long_given" ] || { echo "report.sh: LONG=$LONG: no such folder" >&2; exit 2; }
    LONG=
fi
KEPOCH=${KEPOCH:-8}
mkdir -p "$FIG"
FIG=$(cd "$FIG" && pwd)
FIGREL=$(basename "$FIG")
RESA=$(cd "$RES" && pwd)
TAB=$(mktemp -d "${TMPDIR:-/tmp}/sbw-report-XXXXXX")
trap 'rm -rf "$TAB"' EXIT
trap 'rm -rf "$TAB"; exit 130' INT
trap 'rm -rf "$TAB"; exit 143' TERM
rfail=0
# plot NAME ARG...: sbw-plot ARG... -q -o FIG/NAME run inside RES; NAME joins
# the figures when it worked, and the report fails when it did not;
# plot_in DIR NAME ARG...: the same run inside DIR
plot() { plot_in "$RESA" "$@"; }
plot_in() {
    pd=$1 pn=$2
    shift 2
    if (cd "$pd" && "$BIN/sbw-plot" "$@" -q -o "$FIG/$pn"); then
        figs="$figs $pn"
    else
        echo "report.sh: sbw-plot could not draw $pn" >&2
        rfail=1
    fi
}

# vin BASE FILE COLUMN [FORMAT]: a value of the first row of BASE/FILE, or
# — when missing; v FILE COLUMN [FORMAT]: the same in RES
vin() {
    if [ -s "$1/$2" ]; then
        x=$(tsv_field "$1/$2" "$3")
        [ -n "$x" ] && { printf "${4:-%s}" "$x"; return; }
    fi
    printf '—'
}
v() { vin "$RES" "$@"; }
# rank32 MODEL: the NR rank of MODEL's matrix at float32's eps (sbw-rank's
# rank_single: the same rule and w0 with eps = FLT_EPSILON, what the
# threshold gives a matrix stored in float32, as the papers' PyTorch models
# were); — when missing (a rank.tsv written before sbw-rank had the column)
rank32() { v "$1/rank.tsv" rank_single; }
# paper TABLE MODEL K QUANTITY: a number of the papers' tables, read from
# experiments/ptb/paper.tsv (its # source= lines say where each comes from)
PAPER=$ROOT/experiments/ptb/paper.tsv
paper() {
    awk -F'\t' -v t="$1" -v m="$2" -v k="$3" -v q="$4" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        $c["table"] == t && $c["model"] == m && $c["k"] == k && $c["quantity"] == q { x = $c["value"] }
        END { printf "%s", x == "" ? "—" : x }' "$PAPER"
}
# bound MODEL: the head's rank bound (D + 2 for a Softmax or MoC head with
# a bias), sbw-lm train's rank_bound
bound() { v "$1/train.tsv" rank_bound; }
# series ARG...: sbw-series ARG... on stdin's "LABEL<TAB>VALUE" lines (sums,
# changes, ratios, trends and orders are computed there); sf TABLE COLUMN:
# a column of its one row
series() { "$BIN/sbw-series" -q "$@"; }
sf() { printf '%s\n' "$1" | tsv_field /dev/stdin "$2"; }
# pct A B: sbw-series' change_pct from A to B, 100 (B / A - 1)
pct() { sf "$(printf 'a\t%s\nb\t%s\n' "$1" "$2" | series)" change_pct; }
mos_name() { if [ "$1" = 15 ] && [ "$QUICK" = 0 ]; then echo mos-k15; else echo "mos-k$1"; fi; }

# Figure 1 from the 2-epoch models and the long runs that finished, each
# model's folder linked into one folder under a plain name (MODEL, and
# MODEL-long), where sbw-plot runs: RES and LONG may hold commas
mkdir "$TAB/fig1"
spectra=""
labels=""
ranks=""
# spectrum_of DIR LABEL: DIR's spectrum and rank (when both are there)
# drawn as LABEL
spectrum_of() {
    [ -s "$1/spectrum.tsv" ] && [ -s "$1/rank.tsv" ] || return 0
    ln -s "$(cd "$1" && pwd)" "$TAB/fig1/$2"
    spectra="$spectra $2/spectrum.tsv"
    labels="$labels${labels:+,}$2"
    ranks="$ranks${ranks:+,}$2/rank.tsv"
}
for m in $SM $MOC $MOS; do
    spectrum_of "$RESA/$m" "$m"
    [ -z "$LONG" ] || spectrum_of "$LONG/$m" "$m-long"
done
figs=""
if [ -n "$spectra" ]; then
    # log x: the normalised singular values of the three heads lie decades apart
    # shellcheck disable=SC2086
    plot_in "$TAB/fig1" figure1 spectrum $spectra --labels "$labels" --rank "$ranks" --logx
fi
curves=""
clabels=""
logs=""
for m in $SM $MOC $MOS sigsoftmax plif mixtape; do
    [ -s "$RES/$m/curve.tsv" ] && [ "$(grep -vc '^#' "$RES/$m/curve.tsv")" -gt 1 ] &&
        curves="$curves $m/curve.tsv" && clabels="$clabels${clabels:+,}$m"
    [ -s "$RES/$m/log.tsv" ] && logs="$logs $m/log.tsv"
done
# the long runs' trajectories join the figure (issue 28: the whole range
# of perplexity covered); their files by absolute path, labelled "(long)"
set --
flabels=$clabels
if [ -n "$LONG" ]; then
    LONGA=$(cd "$LONG" && pwd)
    for m in $SM $MOC $MOS; do
        [ -s "$LONG/$m/traj.tsv" ] && set -- "$@" "$LONGA/$m/traj.tsv" && flabels="$flabels${flabels:+,}$m (long)"
    done
fi
if [ -n "$curves" ]; then
    # shellcheck disable=SC2086 # the 2-epoch curves: plain names
    plot kld-ppl train $curves "$@" --x valid_ppl --y expected_pairwise_kl --labels "$flabels" \
        --title "Expected pairwise KL against perplexity along training"
fi
# Table 11 at equal perplexity: every curve interpolated onto one grid
kap=$RES/kld-at-ppl.tsv
if [ -n "$curves" ]; then
    # shellcheck disable=SC2086
    (cd "$RESA" && "$BIN/sbw-lm" curves --step 10 --names "$clabels" $curves -o "$(basename "$kap")")
fi
# MoS Table 7 as a figure: rank (at float64's and float32's eps) and test
# perplexity against K, ours beside the paper's
rk=$RES/rank-k.tsv
printf '# command=experiments/ptb/report.sh (from MODEL/rank.tsv, MODEL/eval-test.tsv; the paper'"'"'s rows from experiments/ptb/paper.tsv, its Table 7)\nmodel\tk\trank\tperplexity\n' >"$rk.tmp"
nk=0
for k in $KS; do
    n=$(mos_name "$k")
    [ -s "$RES/$n/rank.tsv" ] && [ -s "$RES/$n/eval-test.tsv" ] || continue
    p=$(tsv_field "$RES/$n/eval-test.tsv" ppl)
    printf 'ours (float64)\t%s\t%s\t%s\n' "$k" "$(tsv_field "$RES/$n/rank.tsv" rank)" "$p" >>"$rk.tmp"
    printf "ours at float32's eps\t%s\t%s\tnan\n" "$k" "$(rank32 "$n")" >>"$rk.tmp"
    nk=$((nk + 1))
done
if [ "$QUICK" != 1 ]; then
    for k in $KS; do
        printf 'Yang et al. 2018\t%s\t%s\t%s\n' "$k" "$(paper 7 MoS "$k" rank)" "$(paper 7 MoS "$k" test_ppl)"
    done >>"$rk.tmp"
fi
mv "$rk.tmp" "$rk"
if [ $nk -gt 1 ]; then
    plot rank-k rank-k rank-k.tsv
fi
if [ -n "$logs" ]; then
    # shellcheck disable=SC2086
    plot training train $logs --x tokens --y loss
fi
# PLIF's learned f (LMS Figure 4) from the parameters run.sh exported to
# plif/f/; its slopes' range through sbw-info (the command is in the text)
pf=$RES/plif/f
plif_f=""
if [ -s "$pf/params.tsv" ] && [ -s "$pf/plif_slope.npy" ]; then
    pk=$(tsv_meta "$pf/params.tsv" knots)
    pt=$(tsv_meta "$pf/params.tsv" plif_t)
    figs0=$figs
    plot plif-f monotone "$RESA/plif/f" --labels "PLIF ($pk intervals)"
    figs=$figs0 # drawn in its own section, not among the figures
    if [ -s "$FIG/plif-f.png" ] && info=$("$BIN/sbw-info" "$pf/plif_slope.npy") &&
        smin=$(printf '%s\n' "$info" | tsv_field /dev/stdin min) &&
        smax=$(printf '%s\n' "$info" | tsv_field /dev/stdin max) &&
        [ -n "$smin" ] && [ -n "$smax" ]; then
        plif_f=1
    else
        echo "report.sh: no slopes of PLIF's learned f from $pf" >&2
        rfail=1
    fi
fi

# each evaluated K as "K<TAB>rank<TAB>rank at float32's eps<TAB>columns", for
# the summary and Table 7's sentence
kranks=$(for k in $KS; do
    n=$(mos_name "$k")
    if [ -s "$RES/$n/rank.tsv" ]; then
        printf '%s\t%s\t%s\t%s\n' "$k" "$(tsv_field "$RES/$n/rank.tsv" rank)" "$(rank32 "$n")" \
            "$(tsv_field "$RES/$n/rank.tsv" n)"
    fi
done)
# The numbers of the tables below, gathered (selection only) from MODEL/*.tsv
# into three tables that sbw-plot table renders beside experiments/ptb/paper.tsv:
# roles.tsv, one row per head the papers name (Softmax, MoC, Sigsoftmax, PLIF,
# MoS: the order of the papers' rows); by-k.tsv, one row per K of Table 7;
# trained.tsv, one row per model trained.  A value not there yet is —.
# f32dir MODEL: the results folder holding MODEL/rank-f32.tsv, MEASURED's
# first, else RES's; nothing when neither has it.
MEASURED=${MEASURED:-}
f32dir() {
    for b in ${MEASURED:+"$MEASURED"} "$RES"; do
        [ -s "$b/$1/rank-f32.tsv" ] && printf '%s' "$b" && return 0
    done
    return 0
}
# float32_ranks: the heads of Parthiban et al.'s Table 2 ranked as a
# float32 implementation ranks them (run.sh measure's rank-f32.tsv) beside
# the float64 matrix of the same model and rows at float32's eps; how far
# the float32 arithmetic moves the rank, and how far theirs lie from ours,
# both as sbw-series' change_pct.  Nothing when no model has rank-f32.tsv.
float32_ranks() {
    printf 'model\tfolder\tppl_test\trank\trank_single\trank_f32\tf32_change_pct\n' >"$TAB/f32.tsv"
    cites="" worst=0 far="" missing=""
    for r in "Softmax $SM" "Sigsoftmax sigsoftmax" "PLIF plif" "MoS $MOS"; do
        m=${r#* } b=$(f32dir "${r#* }")
        if [ -z "$b" ]; then
            missing="$missing${missing:+, }${r% *} (\`run.sh train $m\`, \`eval\`, \`measure\`)"
            continue
        fi
        rs=$(tsv_field "$b/$m/rank.tsv" rank_single) r32=$(tsv_field "$b/$m/rank-f32.tsv" rank)
        c=$(pct "$rs" "$r32")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${r% *}" "$(basename "$b")/$m" \
            "$(tsv_field "$b/$m/eval-test.tsv" ppl)" "$(tsv_field "$b/$m/rank.tsv" rank)" "$rs" "$r32" "$c" >>"$TAB/f32.tsv"
        worst=$(awk -v w="$worst" -v c="$c" 'BEGIN { c = c < 0 ? -c : c; print (c > w ? c : w) }')
        theirs=$(paper 2 "${r% *}" - rank)
        [ "$theirs" = — ] || far="$far${far:+; }${r% *} $(printf '%+.0f' "$(pct "$rs" "$theirs")")%"
        cites="$cites- \`$(basename "$b")/$m/rank-f32.tsv\`: $(sed -n 's/^# pipeline=//; s/ (the command below)$//p' "$b/$m/rank-f32.tsv")
"
    done
    [ -n "$cites" ] || return 0
    echo "### Ranked as a float32 implementation ranks them"
    echo
    echo "Parthiban et al. ranked the float32 log-probability matrix of float32 PyTorch models at float32's"
    echo "eps. \`run.sh measure\` does the same (rank-f32.tsv: \`sbw-lm eval --single --logprobs\`, a float32"
    echo "forward pass stored as float32, ranked by sbw-rank at float32's eps), beside the float64 matrix of"
    echo "the same model and rows at float32's eps (rank.tsv's rank_single); a model measured on a retrain"
    echo "with the same recipe (MEASURED) names its folder, and its perplexity and ranks are the retrain's."
    echo
    "$BIN/sbw-plot" table "$TAB/f32.tsv" "$PAPER" --join model --where 2:table=2,2:quantity=rank \
        --columns "model=head,folder=measured in,ppl_test=test ppl,rank=rank (f64 eps),rank_single=f64 matrix at f32 eps,rank_f32=float32 forward pass (f32 eps),f32_change_pct=change %,2:value=rank (Parthiban)" \
        --format ppl_test=%.1f,f32_change_pct=%+.2f --no-cite
    echo
    printf '%s' "$cites"
    echo
    if [ -n "$missing" ]; then
        echo "Not measured so yet (no checkpoint of the model here): $missing."
        echo
    fi
    echo "The float32 arithmetic moves the rank at float32's eps by at most $(printf '%.2f' "$worst")% here, while Parthiban et al.'s"
    echo "ranks lie from ours at float32's eps by: ${far:-(none of these heads)}."
    awk -v w="$worst" 'BEGIN { if (w < 1) print "So computing in float32 does not explain those differences (its rounding, about 1e-7 of each entry, lies far below the threshold at float32'"'"'s eps): they come from the models themselves (their training, size and budget against ours), not from the arithmetic."; else print "So computing in float32 itself moves the rank by as much as the change column shows; set it beside those differences." }'
    echo
}
# ---- issue 28's long runs (LONG: run.sh --long, report_long.sh's TSVs) ----
# lfield FILE COLUMN: a column of LONG/FILE's first row
lfield() { tsv_field "$LONG/$1" "$2"; }
# lstate MODEL COLUMN: COLUMN of MODEL's row of LONG's status.tsv
lstate() { tsv_where "$LONG/status.tsv" model "$1" "$2"; }
# lsay MODEL: "MODEL: epoch E (valid ppl P), STATE" or "MODEL: not started"
lsay() {
    x=$(lstate "$1" state)
    if [ -n "$x" ]; then
        printf '%s: epoch %s (valid ppl %.1f), %s' "$1" "$(lstate "$1" epoch)" "$(lstate "$1" valid_ppl)" "$x"
        case $x in finished*) ldone "$1" && printf ' and evaluated' || printf ', not yet evaluated' ;; esac
    else
        printf '%s: not started' "$1"
    fi
}
# trio_order GRID [ARG...]: sbw-lm order ARG... of Table 11's pairs (MoS
# above MoC, MoC above Softmax, MoS above Softmax) on the grid table GRID
trio_order() {
    tg=$1
    shift
    "$BIN/sbw-lm" order "$@" --pairs "$MOS:$MOC,$MOC:$SM,$MOS:$SM" --labels "$MOS=MoS,$MOC=MoC,$SM=Softmax" "$tg"
}
# ltable FILE ARG...: sbw-plot table ARG... of LONG/FILE, run inside LONG
ltable() {
    lt=$1
    shift
    (cd "$LONG" && "$BIN/sbw-plot" table "$lt" "$@")
}
# long_table11: Table 11 along the long runs: the order at the end (or at
# the last epoch all three reached), at equal perplexity, and the
# extrapolation to the paper's perplexity
long_table11() {
    echo "### Table 11 along the long runs"
    echo
    if ldone "$SM" && ldone "$MOC" && ldone "$MOS"; then
        printf 'At the end of training, on the whole valid set (MODEL/kl-valid.tsv): '
        for m in "$SM Softmax" "$MOC MoC" "$MOS MoS"; do
            printf '%s\t%s\n' "${m#* }" "$(lfield "${m% *}/kl-valid.tsv" expected_pairwise_kl)"
        done | recipe_order desc %.3f
    else
        le=$(for m in $SM $MOC $MOS; do
            [ -s "$LONG/$m/traj.tsv" ] && tsv_column "$LONG/$m/traj.tsv" epoch | tail -n 1
        done | sort -n | head -n 1)
        printf 'Not all three have finished and been evaluated (%s; %s; %s).' "$(lsay "$SM")" "$(lsay "$MOC")" "$(lsay "$MOS")"
        if [ -n "$le" ]; then
            printf ' At epoch %s, the last epoch every started model has reached (first validation predictions): ' "$le"
            for m in "$SM Softmax" "$MOC MoC" "$MOS MoS"; do
                x=$(tsv_where "$LONG/${m% *}/traj.tsv" epoch "$le" expected_pairwise_kl)
                [ -z "$x" ] || printf '%s\t%s\n' "${m#* }" "$x"
            done | recipe_order desc %.3f
        else
            echo
        fi
    fi
    echo
    echo "At equal validation perplexity (\`$(basename "$LONG")/kld-at-ppl.tsv\`: each trajectory interpolated"
    echo "linearly in log perplexity onto a grid every 5; nothing extrapolated):"
    echo
    if [ -s "$LONG/kld-at-ppl.tsv" ]; then
        trio_order "$LONG/kld-at-ppl.tsv"
    else
        echo "(no trajectory yet)"
    fi
    echo
    echo "Extrapolated to the paper's validation perplexity of each head (**not a measurement**: KLD = a + b ln(ppl),"
    echo "least squares over each model's last epochs; se is the line's standard error there, which does not include"
    echo "the error of the line's form):"
    echo
    if [ -s "$LONG/extrapolation.tsv" ] && [ "$(tsv_rows "$LONG/extrapolation.tsv" | grep -c .)" -gt 1 ]; then
        ltable extrapolation.tsv --columns "model,epochs=epochs fitted,from=from ppl,to=to ppl,slope=b,rms_residual=rms residual,at=at ppl,value_at=KLD there (extrapolated),se_at=se,paper_kl_valid=paper" \
            --format from=%.1f,to=%.1f,slope=%.3f,rms_residual=%.4f,value_at=%.3f,se_at=%.3f
    else
        echo "(not yet: a fit needs three epochs of a model)"
    fi
    echo
}
# long_section: the long runs' state, Table 7 at equal training and
# Table 11 along them
long_section() {
    echo "## Along training: issue 28's long runs"
    echo
    if [ -z "$LONG" ] || [ ! -s "$LONG/status.tsv" ]; then
        echo "No long run measured yet (\`experiments/ptb/run.sh --long\`, then \`run.sh --long report\`)."
        echo
        return 0
    fi
    lb=$(basename "$LONG")
    echo "The papers' networks and regularisation (\`sbw-lm --preset awd\`: AWD-LSTM's, for Softmax; \`--preset mos\`:"
    echo "the MoS code's, for MoC and MoS), with Adam, each trained until its validation perplexity reaches the stop"
    echo "or its epochs run out (both in the table, from each run's command); experiments/ptb/README.md states every"
    echo "deviation from the papers. Each epoch's snapshot is measured: the perplexity on the whole validation set;"
    echo "the NR rank at float64's and float32's eps, d* and the KLD on the first validation predictions."
    echo "\`$lb/report.md\` has every trajectory, the runs restarted on a new machine and the precision comparison;"
    echo "a finished model is evaluated as the 2-epoch ones were (\`run.sh --long eval MODEL\`) and joins the tables above."
    echo
    ltable status.tsv --columns "model,preset,d=D,precision,max_epochs=epochs at most,stop_ppl=stop at valid ppl,epoch=epochs measured,valid_ppl=last valid ppl,rank=rank (f64 eps),rank_single=rank (f32 eps),d_star=d*,expected_pairwise_kl=KLD,state" \
        --format valid_ppl=%.1f,expected_pairwise_kl=%.3f
    echo
    ke=$(kepoch_long)
    echo "### Table 7 at equal training: MoS by K after ${ke:-$KEPOCH} epochs"
    echo
    if [ -s "$LONG/k-at-epoch.tsv" ]; then
        ltable k-at-epoch.tsv "$PAPER" --join k --where 2:table=7,2:quantity=rank \
            --columns "k=K,rank=rank (f64 eps),rank_single=rank (f32 eps),2:value=rank (paper),d_star=d*,valid_ppl=valid ppl,expected_pairwise_kl=KLD" \
            --format valid_ppl=%.1f,expected_pairwise_kl=%.3f
    else
        echo "Not yet: no MoS run has reached epoch $KEPOCH ($(for k in $KS; do lsay "$(mos_name "$k")"; printf '; '; done | sed 's/; $//'))."
    fi
    echo
    long_table11
}
# ---- the papers' three claims: reproduced, not reproduced or undecided ----
# best MODEL: the folder of MODEL's longest-trained evaluation: LONG's when
# it finished there, else RES's (nothing when neither evaluated it)
best() {
    if ldone "$1"; then printf '%s' "$LONG"; elif [ -s "$RES/$1/rank.tsv" ]; then printf '%s' "$RES"; fi
}
# source_of DIR: how the models in DIR were trained, in words
source_of() { if [ "$1" = "$LONG" ]; then printf 'the long run'; else printf 'the 2-epoch model'; fi; }
# isnum X: X is a number as the tools write them (not —, empty, nan)
isnum() { case $1 in '' | — | nan | *[!0-9.eE+-]*) return 1 ;; esac; }
# count OP X: of stdin's "label<TAB>value" lines, how many are OP (below,
# equal, above) X (sbw-series --against); empty when that fails
count() { sf "$("$BIN/sbw-series" -q --against "$2" 2>/dev/null)" "$1" 2>/dev/null || true; }
# ordered: stdin's "label<TAB>value" lines ordered by value, highest first,
# as "A>B>C" (sbw-series' relations between neighbours, = for a tie)
ordered() {
    "$BIN/sbw-series" -q --order desc | tsv_rows /dev/stdin |
        awk -F'\t' 'NR > 1 { printf "%s%s", (NR > 2 ? $3 : ""), $1 } END { print "" }'
}
# along MODEL COLUMN X: "E of N" epochs of LONG's MODEL whose COLUMN is X
along() {
    a=$("$BIN/sbw-series" -q --column "$2" --label epoch --against "$3" "$LONG/$1/traj.tsv" 2>/dev/null) || return 0
    printf '%s of %s' "$(sf "$a" equal)" "$(sf "$a" n)"
}
# claim6_at COLUMN: Table 6's test at one eps (rank: float64's,
# rank_single: float32's) on the folders bs bc bm: 1 when Softmax and MoC
# are at most their bounds and MoS at least the paper's rank, 0 when not,
# empty when a number is missing
claim6_at() {
    xs=$(tsv_field "$bs/$SM/rank.tsv" "$1") xc=$(tsv_field "$bc/$MOC/rank.tsv" "$1") xm=$(tsv_field "$bm/$MOS/rank.tsv" "$1")
    isnum "$xs" && isnum "$xc" && isnum "$xm" || return 0
    os=$(printf 's\t%s\n' "$xs" | count above "$ks") oc=$(printf 'c\t%s\n' "$xc" | count above "$kc")
    om=$(printf 'm\t%s\n' "$xm" | count below "$pm")
    [ -n "$os" ] && [ -n "$oc" ] && [ -n "$om" ] || return 0
    if [ "$os$oc$om" = 000 ]; then printf 1; else printf 0; fi
}
# claim6: Table 6, Softmax and MoC at most their bound, MoS at least the
# paper's rank, at float64's and at float32's eps
claim6() {
    bs=$(best "$SM") bc=$(best "$MOC") bm=$(best "$MOS")
    printf -- '- **Table 6 (the ranks): '
    if [ -z "$bs" ] || [ -z "$bc" ] || [ -z "$bm" ]; then
        echo "undecided**: not all three heads are evaluated yet."
        return 0
    fi
    ks=$(tsv_field "$bs/$SM/train.tsv" rank_bound) kc=$(tsv_field "$bc/$MOC/train.tsv" rank_bound) pm=$(paper 6 MoS - rank)
    r64="" r32=""
    if isnum "$ks" && isnum "$kc" && isnum "$pm"; then r64=$(claim6_at rank) r32=$(claim6_at rank_single); fi
    case $r64$r32 in
    11) printf 'reproduced**: ' ;;
    10) printf "reproduced at float64's eps only**: " ;;
    01) printf "reproduced at float32's eps only**: " ;;
    00) printf 'not reproduced**: ' ;;
    *)
        echo "undecided**: a rank or bound is missing (rank.tsv's rank and rank_single, train.tsv's rank_bound, the paper's MoS rank)."
        return 0
        ;;
    esac
    printf "at float64's / float32's eps Softmax's rank is %s / %s against its bound D + 2 = %s (%s) and MoC's %s / %s against %s (%s)," \
        "$(tsv_field "$bs/$SM/rank.tsv" rank)" "$(tsv_field "$bs/$SM/rank.tsv" rank_single)" "$ks" "$(source_of "$bs")" \
        "$(tsv_field "$bc/$MOC/rank.tsv" rank)" "$(tsv_field "$bc/$MOC/rank.tsv" rank_single)" "$kc" "$(source_of "$bc")"
    printf " bounds of the heads whatever their training; MoS's is %s / %s of %s (%s) against the paper's %s; the ranks of the first %s test predictions" \
        "$(tsv_field "$bm/$MOS/rank.tsv" rank)" "$(tsv_field "$bm/$MOS/rank.tsv" rank_single)" "$(tsv_field "$bm/$MOS/rank.tsv" n)" \
        "$(source_of "$bm")" "$pm" "$(tsv_field "$bm/$MOS/rank.tsv" m)"
    if [ -n "$LONG" ] && [ -s "$LONG/$SM/traj.tsv" ]; then
        printf '. Along the long runs: Softmax at its bound at %s epochs measured' "$(along "$SM" rank "$ks")"
        [ -s "$LONG/$MOC/traj.tsv" ] && printf ', MoC at %s' "$(along "$MOC" rank "$kc")"
        if [ -s "$LONG/$MOS/traj.tsv" ]; then
            nr=$(tsv_column "$LONG/$MOS/traj.tsv" rows | tail -n 1)
            printf ', MoS at full rank (%s) at %s' "$nr" "$(along "$MOS" rank "$nr")"
        fi
    fi
    echo "."
}
# kepoch_long: the epoch of LONG's k-at-epoch.tsv (its # epoch= line)
kepoch_long() { tsv_meta "$LONG/k-at-epoch.tsv" epoch 2>/dev/null || true; }
# claim7: Table 7, MoS's rank rising with K: the long runs at one epoch
# when every K has it, else the 2-epoch models; at float64's and
# float32's eps
claim7() {
    # shellcheck disable=SC2086 # K values
    set -- $KS
    nk=$#
    printf -- '- **Table 7 (rank rising with K): '
    lk=0
    [ -n "$LONG" ] && [ -s "$LONG/k-at-epoch.tsv" ] && lk=$(tsv_rows "$LONG/k-at-epoch.tsv" | tail -n +2 | grep -c . || true)
    if [ "$lk" = "$nk" ]; then
        src="the long runs after $(kepoch_long) epochs (first validation predictions)"
        tsv_rows "$LONG/k-at-epoch.tsv" | tail -n +2 | cut -f 2-4 >"$TAB/k7"
        kfull=$(tsv_column "$LONG/$MOS/traj.tsv" rows 2>/dev/null | tail -n 1)
    else
        src="the 2-epoch models (first test predictions)"
        printf '%s' "$kranks" | awk -F'\t' '$2 != "—" && $3 != "—"' | cut -f 1-3 >"$TAB/k7"
        kfull=$(printf '%s' "$kranks" | tail -n 1 | cut -f 4)
        [ -z "$LONG" ] || src="$src; the long runs at their epoch $KEPOCH: $lk of $nk"
    fi
    if [ "$(grep -c . "$TAB/k7")" -lt 2 ]; then
        echo "undecided**: fewer than two K measured ($src)."
        return 0
    fi
    t64=$(sf "$(cut -f 1,2 "$TAB/k7" | series)" trend 2>/dev/null || true)
    t32=$(sf "$(cut -f 1,3 "$TAB/k7" | series)" trend 2>/dev/null || true)
    if [ -z "$t64" ] || [ -z "$t32" ]; then
        echo "undecided**: a rank is not a number ($src)."
        return 0
    fi
    # the paper's own ranks end flat (9981 at K = 15 and 20): rising or
    # nondecreasing (some step up, none down) is what it shows
    case $t64 in rising | nondecreasing) u64=1 ;; *) u64=0 ;; esac
    case $t32 in rising | nondecreasing) u32=1 ;; *) u32=0 ;; esac
    case $u64$u32 in
    11) printf 'reproduced**: ' ;;
    10) printf "reproduced at float64's eps only**: " ;;
    01) printf "reproduced at float32's eps only**: " ;;
    *) printf 'not reproduced**: ' ;;
    esac
    printf "at float64's eps the ranks are %s (%s), at float32's eps %s (%s), by K = %s; from %s." \
        "$(cut -f 2 "$TAB/k7" | paste -sd, - | sed 's/,/, /g')" "$t64" "$(cut -f 3 "$TAB/k7" | paste -sd, - | sed 's/,/, /g')" "$t32" \
        "$(cut -f 1 "$TAB/k7" | paste -sd, - | sed 's/,/, /g')" "$src"
    full=$(cut -f 1,2 "$TAB/k7" | count equal "${kfull:-—}")
    if [ $u64 = 0 ] && [ -n "$full" ] && [ "$full" = "$(grep -c . "$TAB/k7")" ]; then
        printf " At float64's eps every K is at the full rank %s, which cannot rise; the paper does not say at which eps it ranked (its %s)." \
            "$kfull" "$(for k in $KS; do printf '%s, ' "$(paper 7 MoS "$k" rank)"; done | sed 's/, $//')"
    fi
    echo
}
# claim11: Table 11, MoS > MoC > Softmax in KLD, at the end of the long
# runs and at equal perplexity along them; undecided while they train
claim11() {
    printf -- '- **Table 11 (the KLD ordering MoS > MoC > Softmax): '
    chain=""
    [ -n "$LONG" ] && [ -s "$LONG/order-at-ppl.tsv" ] && chain=$(tsv_meta "$LONG/order-at-ppl.tsv" chain 2>/dev/null || true)
    if [ -z "$LONG" ] || [ ! -s "$LONG/status.tsv" ]; then
        printf 'undecided**: no long run has been measured yet'
    elif ! { ldone "$SM" && ldone "$MOC" && ldone "$MOS"; }; then
        printf 'undecided at this budget**: not all three long runs have finished and been evaluated (%s; %s; %s), and the paper'"'"'s validation perplexities (%s, %s, %s) lie below ours' \
            "$(lsay "$SM")" "$(lsay "$MOC")" "$(lsay "$MOS")" "$(paper 5 Softmax - valid_ppl)" "$(paper 5 MoC - valid_ppl)" "$(paper 5 MoS - valid_ppl)"
        printf '; at equal perplexity so far the chain %s' "$(case $chain in holds) echo holds ;; broken) echo "does not hold" ;; incomplete) echo "cannot be read yet (a curve is missing)" ;; *) echo "is not computed (no order-at-ppl.tsv: run.sh --long report)" ;; esac)"
    else
        end=$(for m in "$SM Softmax" "$MOC MoC" "$MOS MoS"; do
            printf '%s\t%s\n' "${m#* }" "$(lfield "${m% *}/kl-valid.tsv" expected_pairwise_kl)"
        done | ordered 2>/dev/null || true)
        case $end in *Softmax* | *MoC* | *MoS*) ;; *) end="" ;; esac
        if [ -z "$end" ] || { [ "$chain" != holds ] && [ "$chain" != broken ]; }; then
            printf 'undecided**: %s' "$([ -z "$end" ] && echo "a final KLD is missing (MODEL/kl-valid.tsv)" || echo "the order at equal perplexity cannot be read (chain: ${chain:-no order-at-ppl.tsv})")"
        else
            if [ "$end" = "MoS>MoC>Softmax" ] && [ "$chain" = holds ]; then
                printf 'reproduced**: '
            elif [ "$end" != "MoS>MoC>Softmax" ] && [ "$chain" = broken ]; then
                printf 'not reproduced**: '
            else
                printf 'undecided**: the end of training and equal perplexity disagree: '
            fi
            printf 'at the end of the long runs the order is %s; at equal perplexity along them the chain %s' "$(echo "$end" | sed 's/>/ > /g; s/=/ = /g')" \
                "$([ "$chain" = holds ] && echo "holds at every common perplexity" || echo "does not hold at every common perplexity")"
        fi
    fi
    printf '. The 2-epoch models: %s at the end' "$(for m in "$SM Softmax" "$MOC MoC" "$MOS MoS"; do
        x=$(v "${m% *}/kl-valid.tsv" expected_pairwise_kl)
        isnum "$x" && printf '%s\t%s\n' "${m#* }" "$x"
    done | ordered 2>/dev/null | sed 's/>/ > /g; s/=/ = /g')"
    if [ -s "$kap" ] && trio_order "$kap" --tsv >"$TAB/o2" 2>/dev/null; then
        printf ', and the chain at equal perplexity %s' "$(tsv_meta "$TAB/o2" chain)"
    fi
    echo "."
}
# claims: the section of the three verdicts
claims() {
    echo "## The paper's three claims at this budget"
    echo
    echo "Each claim is read off the longest-trained measurement there is (a long run once it has finished and been"
    echo "evaluated, else the 2-epoch models), by the rules stated with it; a verdict names where each number comes from."
    echo
    claim6
    claim7
    claim11
    echo
    echo "Rules: Table 6 is reproduced when Softmax's and MoC's ranks are at most their bound D + 2 and MoS's is at"
    echo "least the paper's; Table 7 when the ranks rise with K, never falling (sbw-series' trend rising or"
    echo "nondecreasing, as the paper's own ranks do). Both are tested at float64's eps and at float32's (the paper"
    echo "does not say which it used): reproduced at both, at one eps only (named), or not reproduced at either."
    echo "Table 11 is reproduced when at the end of the long runs the KLDs order MoS > MoC > Softmax and that order"
    echo "holds at every common perplexity along them (sbw-lm order), not reproduced when neither holds, and"
    echo "undecided when the two disagree, when one cannot be read, or while the runs train. A missing number makes"
    echo "a verdict undecided."
    echo
}
row() { (IFS='	' && printf '%s\n' "$*"); }
# trained_as BASE MODEL: how BASE/MODEL was trained, from its train.tsv:
# "E epochs, OPTIMISER" (with the preset and precision when its command
# names them); — when it has none
trained_as() {
    [ -s "$1/$2/train.tsv" ] || { printf '—'; return 0; }
    tc=$(tsv_meta "$1/$2/train.tsv" command 2>/dev/null || true)
    to=$(printf '%s' "$tc" | sed -n 's/.*--optim \([a-z]*\).*/\1/p')
    tp=$(printf '%s' "$tc" | sed -n 's/.*--preset \([a-z]*\).*/, preset \1/p')
    tq=$(printf '%s' "$tc" | sed -n 's/.*--precision \([a-z0-9]*\).*/, \1/p')
    printf '%s epochs, %s%s%s' "$(vin "$1" "$2/train.tsv" epochs)" "${to:-sgd}" "$tp" "$tq"
}
# role_row BASE ROLE MODEL: ROLE's row of roles.tsv from BASE/MODEL
role_row() {
    m=$3
    row "$2" "$(trained_as "$1" "$m")" "$(vin "$1" "$m/train.tsv" d)" "$(vin "$1" "$m/rank.tsv" rank)" \
        "$(vin "$1" "$m/rank-center.tsv" rank)" "$(vin "$1" "$m/rank.tsv" rank_gap)" \
        "$(vin "$1" "$m/rank.tsv" gap_decades)" "$(vin "$1" "$m/rank.tsv" rank_single)" \
        "$(vin "$1" "$m/eval-valid.tsv" ppl)" "$(vin "$1" "$m/eval-test.tsv" ppl)" \
        "$(vin "$1" "$m/kl-valid.tsv" expected_pairwise_kl)" "$(vin "$1" "$m/kl-test.tsv" expected_pairwise_kl)"
}
# ldone MODEL: LONG's MODEL has finished training and been evaluated
ldone() { [ -n "$LONG" ] && [ -s "$LONG/$1/eval.done" ]; }
# ppl_cell MODEL: its test perplexity, and the long run's beside it once
# that finished (each with its training)
ppl_cell() {
    printf '%s' "$(v "$1/eval-test.tsv" ppl %.1f)"
    if ldone "$1"; then
        printf ' (%s); %s (%s)' "$(trained_as "$RES" "$1")" "$(vin "$LONG" "$1/eval-test.tsv" ppl %.1f)" "$(trained_as "$LONG" "$1")"
    fi
}
{
    row model training d rank rank_center rank_gap gap_decades rank_single ppl_valid ppl_test kl_valid kl_test
    for r in "Softmax $SM" "MoC $MOC" "Sigsoftmax sigsoftmax" "PLIF plif" "MoS $MOS" "Mixtape mixtape"; do
        role_row "$RES" "${r% *}" "${r#* }"
        if ldone "${r#* }"; then role_row "$LONG" "${r% *}" "${r#* }"; fi
    done
} >"$TAB/roles.tsv"
{
    row k rank rank_single ppl
    for k in $KS; do
        n=$(mos_name "$k")
        row "$k" "$(v "$n/rank.tsv" rank)" "$(rank32 "$n")" "$(v "$n/eval-test.tsv" ppl)"
    done
} >"$TAB/by-k.tsv"
{
    row model head d k params epochs tokens threads seconds tokens_per_s ppl_valid ppl_test
    for d in "$RES"/*/; do
        m=$(basename "$d")
        [ -s "$RES/$m/train.tsv" ] || continue
        row "$m" "$(v "$m/train.tsv" head)" "$(v "$m/train.tsv" d)" "$(v "$m/train.tsv" k)" \
            "$(v "$m/train.tsv" params)" "$(v "$m/train.tsv" epochs)" "$(v "$m/train.tsv" tokens)" \
            "$(tsv_meta "$RES/$m/train.tsv" threads 2>/dev/null || echo —)" "$(v "$m/train.tsv" seconds)" \
            "$(v "$m/train.tsv" tokens_per_s)" "$(v "$m/eval-valid.tsv" ppl)" "$(v "$m/eval-test.tsv" ppl)"
    done
} >"$TAB/trained.tsv"
# table TABLE ARG...: TABLE (of $TAB) and ARG as a markdown table (sbw-plot
# table; the report says where its numbers come from, so no citation here)
table() {
    t=$1
    shift
    "$BIN/sbw-plot" table "$TAB/$t" "$@" --no-cite
}
# the verdicts, before the document: its summary names them
CLAIMS=$(claims)
# the valid predictions each curve point was measured on (its # command= line)
curve_t=$(sed -n '1s/.*--tokens \([0-9]*\).*/\1/p' "$RES/$SM/curve.tsv" 2>/dev/null || true)
{
    echo "# MoS Tables 6, 7, 11 and Figure 1 on Penn Treebank, beside the papers"
    echo
    if [ "$QUICK" = 1 ]; then
        echo "**Quick mode**: a generated 200-word corpus and toy models; the pipeline, not the science."
        echo
    fi
    echo "Made by \`experiments/ptb/run.sh\` (then \`experiments/ptb/report.sh\`); every number below"
    echo "is read from a TSV in \`$RES/MODEL/\` (the long runs' in \`${LONG:-LONG}/\`) whose \`# command=\` line says how it was made."
    echo "Ranks are Numerical Recipes ranks (MoS Appendix C.1) of the float64 log-probability"
    echo "matrix of the first $(v "$SM/rank.tsv" m) test predictions; d* is the rank of the"
    echo "row-centred matrix (MoS Proposition 1). A Softmax or MoC head with a word bias is bounded"
    echo "by D + 2 (D + 1 after centring) whatever its training."
    echo
    echo "## In short"
    echo
    echo "- Rank (Table 6): Softmax $(v "$SM/rank.tsv" rank) (bound D + 2 = $(bound "$SM")),"
    echo "  MoC $(v "$MOC/rank.tsv" rank) (bound $(bound "$MOC")), MoS ($MOS) $(v "$MOS/rank.tsv" rank) of $(v "$MOS/rank.tsv" n) (no bound: a mixture of softmaxes is not low-rank)."
    printf -- "- Test perplexity after the same training, lowest first: "
    for d in "$RES"/*/; do
        m=$(basename "$d")
        x=$(v "$m/eval-test.tsv" ppl %.1f)
        [ "$x" != — ] && printf '%s\t%s\n' "$m" "$x"
    done | recipe_order asc %.1f "(none yet)."
    echo "  The papers' models are near 56 after 1000 epochs (next section); ours are far from converged."
    printf -- "- MoS rank by K (Table 7), at float64's eps / at float32's:"
    printf '%s' "$kranks" | awk -F'\t' '{ printf "%s K = %s: %s / %s", (NR > 1 ? ";" : ""), $1, $2, $3 }
        END { print NR ? "." : " (none evaluated yet)." }'
    echo "  The paper's: $(for k in 3 5 10 15 20; do printf '%s, ' "$(paper 7 MoS $k rank)"; done | sed 's/, $//') for K = 3, 5, 10, 15, 20."
    echo "- Expected pairwise KL (Table 11): see the words below the table, at the end of training and at"
    echo "  equal perplexity along it."
    printf -- "- The paper's three claims at this budget (their section below): %s.\n" \
        "$(printf '%s\n' "$CLAIMS" | sed -n 's/^- \*\*\(Table [0-9]*\) ([^)]*): \([^*]*\)\*\*.*/\1 \2/p' | paste -sd ';' - | sed 's/;/; /g')"
    echo
    echo "## Scale: ours beside the papers'"
    echo
    echo "| | ours | MoS paper (Yang et al. 2018) |"
    echo "|---|---|---|"
    echo "| network | $(tsv_meta "$RES/$SM/train.tsv" hidden 2>/dev/null || echo —) LSTM, embedding and latent as in the table rows | 3-layer LSTM 960/960/620 (MoS), AWD-LSTM 1150/1150/400 (Softmax) |"
    echo "| training | see the next table | 1000 epochs + fine-tuning on GPUs |"
    echo "| Softmax test perplexity | $(ppl_cell "$SM") | $(paper - AWD-LSTM - test_ppl) (AWD-LSTM, Merity et al. 2018) |"
    echo "| MoS (K = 15) test perplexity | $(ppl_cell "$MOS") | $(paper 7 MoS 15 test_ppl) |"
    echo
    echo "Every model, as trained here (from MODEL/train.tsv):"
    echo
    if [ "$(grep -c . "$TAB/trained.tsv")" -gt 1 ]; then
        table trained.tsv --columns "model,head,d=D,k=K,params=parameters,epochs,tokens=training tokens,threads,seconds,tokens_per_s=tokens/s,ppl_valid=valid ppl,ppl_test=test ppl" \
            --format seconds=%.0f,tokens_per_s=%.0f,ppl_valid=%.1f,ppl_test=%.1f
    else
        echo "(none trained yet)"
    fi
    # the runs' time: training (MODEL/train.tsv's seconds) and recorded
    # evaluation (MODEL/eval.done's seconds=) as "MODEL<TAB>seconds" lines,
    # summed in hours by sbw-series, against the issue's budget
    for d in "$RES"/*/; do
        m=$(basename "$d")
        [ -s "$RES/$m/train.tsv" ] && printf '%s\t%s\n' "$m" "$(v "$m/train.tsv" seconds)"
    done | grep -v '	—$' >"$TAB/train-seconds" || true
    for d in "$RES"/*/; do
        m=$(basename "$d")
        [ -s "$RES/$m/eval.done" ] && awk -F= -v m="$m" '$1 == "seconds" { print m "\t" $2 }' "$RES/$m/eval.done"
    done >"$TAB/eval-seconds" || true
    if [ -s "$TAB/train-seconds" ]; then
        h=$(series --scale 1/3600 "$TAB/train-seconds")
        n=$(sf "$h" n)
        printf "\nTraining time, all %d model%s trained: %.2f h on this machine (wall time; some runs shared the cores with other work; threads: the run's BLAS and OpenMP threads, of its last leg when resumed)." \
            "$n" "$([ "$n" = 1 ] || echo s)" "$(sf "$h" sum)"
    fi
    [ "$QUICK" = 1 ] || printf " MoS K = 3, 5, 10 and 20 were trained two at a time, one thread each (see run.sh)."
    if [ -s "$TAB/eval-seconds" ]; then
        h=$(series --scale 1/3600 "$TAB/eval-seconds")
        n=$(sf "$h" n)
        printf " Evaluation time, recorded for %d model%s (eval.done): %.2f h." "$n" "$([ "$n" = 1 ] || echo s)" "$(sf "$h" sum)"
    fi
    if [ "$QUICK" != 1 ] && { [ -s "$TAB/train-seconds" ] || [ -s "$TAB/eval-seconds" ]; }; then
        cat "$TAB/train-seconds" "$TAB/eval-seconds" >"$TAB/all-seconds"
        printf " Together %.2f h summed over the runs; the runs two at a time overlapped, so the machine was busy for between half of that (%.2f h) and all of it, against the issue's budget of about 8 h." \
            "$(sf "$(series --scale 1/3600 "$TAB/all-seconds")" sum)" "$(sf "$(series --scale 1/7200 "$TAB/all-seconds")" sum)"
    fi
    echo
    echo
    echo "## Table 6: rank of log P (NR threshold, M = 10,000)"
    echo
    table roles.tsv "$PAPER" --join model --where model=Softmax,model=MoC,model=MoS,model=Mixtape,2:table=6,2:quantity=rank \
        --columns "model,training,d=D,1:rank=rank (ours),2:value=rank (paper),rank_center=d* (ours),rank_gap=rank at the largest gap,gap_decades=its size (decades),rank_single=rank at float32's eps" \
        --format gap_decades=%.1f
    echo
    # Mixtape (Yang et al. 2019): its row, or why it is empty
    if [ -s "$RES/mixtape/rank.tsv" ]; then
        echo "Mixtape (Yang et al. 2019; K = $(v mixtape/train.tsv k), D = $(v mixtape/train.tsv d)) mixes K logit vectors with gates that"
        echo "vary with the context and the word, so Softmax's D + 2 does not bound it: rank $(v mixtape/rank.tsv rank) here, against"
        echo "the bound $(bound mixtape) that its gate sharing leaves (sbw-lm train's rank_bound: D + F + 2, F = ceil(M/10) words"
        echo "with their own gates; sbw-verify's claim \`mixtape\`). The MoS paper has no Mixtape row (—)."
    else
        echo "Mixtape: not evaluated here yet (\`experiments/ptb/run.sh train mixtape\`, then \`eval mixtape\`); its row is — until then."
    fi
    echo
    echo "\"Rank at the largest gap\" and its size are sbw-rank's check on the threshold: the rank where"
    echo "the singular values drop most (in log10) and by how many decades; when it equals the NR rank,"
    echo "the cut is not a matter of where the threshold sits. A row-centred matrix has rank at most"
    echo "M - 1 = 9999. Our matrices are float64 (sbw-lm eval computes in double), so float64's eps is"
    echo "their threshold; the last column applies the same rule with float32's eps to the same"
    echo "spectrum (MODEL/spectrum.tsv), the threshold a matrix stored in float32 would need."
    echo
    full=$(v "$MOS/rank-full.tsv" rank)
    echo "On $MOS the whole test set ($(v "$MOS/rank-full.tsv" m) predictions) gives rank $full against"
    echo "$(v "$MOS/rank.tsv" rank) on the first $(v "$MOS/rank.tsv" m): the shorter matrix is what the other rows use."
    echo
    echo "## Table 7: MoS rank and test perplexity by K"
    echo
    table by-k.tsv "$PAPER" "$PAPER" "$PAPER" --join k \
        --where "2:table=7,2:quantity=rank,3:table=supp. 4,3:quantity=rank,4:table=7,4:quantity=test_ppl" \
        --columns "k=K,1:rank=rank (ours),2:value=rank (paper),3:value=rank (Parthiban supp. T4),1:rank_single=rank at float32's eps (ours),1:ppl=test ppl (ours),4:value=test ppl (paper)" \
        --format ppl=%.2f
    # in words: each K's two ranks; whether every float64 rank is the full
    # rank (sbw-series --against the column count) and whether the float32
    # one rises with K (sbw-series' trend)
    printf '%s' "$kranks" | awk -F'\t' '$3 != "—"' >"$TAB/kranks"
    if [ "$(grep -c . "$TAB/kranks")" -gt 1 ]; then
        m=$(tail -n 1 "$TAB/kranks" | cut -f 4)
        full=$(awk -F'\t' '{ print $1 "\t" $2 }' "$TAB/kranks" | series --against "$m")
        up=$(sf "$(awk -F'\t' '{ print $1 "\t" $3 }' "$TAB/kranks" | series)" trend)
        l=$(awk -F'\t' '{ k[NR] = $1; r[NR] = $3 } END {
                for (i = 1; i <= NR; i++) printf "%s", (i == 1 ? "" : i == NR ? " and " : ", ") "K = " k[i] ": " r[i] }' "$TAB/kranks")
        printf "\nAt float64's eps %s. At float32's eps (%s) the rank %s with K" \
            "$(if [ "$(sf "$full" equal)" = "$(sf "$full" n)" ]; then echo "every K measured gives the full rank $m"; else echo "the ranks are those of the table"; fi)" \
            "$l" "$([ "$up" = rising ] && echo rises || echo "does not rise steadily")"
        if [ "$up" = rising ]; then
            echo ", as the paper's does (the paper does not say in which precision it computed its ranks)."
        else
            echo "."
        fi
    fi
    echo
    echo "## Table 11: expected pairwise KL divergence (nats), valid / test"
    echo
    table roles.tsv "$PAPER" "$PAPER" --join model \
        --where "model=Softmax,model=MoC,model=MoS,model=Mixtape,2:table=11,2:quantity=kl_valid,3:table=11,3:quantity=kl_test" \
        --columns "model,training,kl_valid=ours valid,2:value=paper valid,kl_test=ours test,3:value=paper test,ppl_valid=ours valid ppl" \
        --format kl_valid=%.3f,kl_test=%.3f,ppl_valid=%.1f
    echo
    echo "The paper's ordering is MoS > MoC > Softmax; ours at the end of training, on the whole valid set:"
    for m in "$SM Softmax" "$MOC MoC" "$MOS MoS" "mixtape Mixtape"; do
        x=$(v "${m% *}/kl-valid.tsv" expected_pairwise_kl %.3f)
        [ "$x" != — ] && printf '%s\t%s\n' "${m#* }" "$x"
    done | recipe_order desc %.3f "(none evaluated yet)."
    echo "Our final models differ in perplexity, so the"
    echo "table compares them at different points of training. The KLD-against-perplexity figure"
    echo "measures KLD along training instead (the snapshots sbw-lm kept every --eval-every tokens, a quarter epoch here, on"
    echo "the first $curve_t valid predictions: a subset, so its perplexities differ from the"
    echo "full-set ones above). \`$(basename "$RES")/kld-at-ppl.tsv\` interpolates each curve linearly in log"
    echo "perplexity onto a grid every 10, between snapshots a quarter epoch apart. At equal perplexity:"
    echo
    if [ -s "$kap" ]; then
        trio_order "$kap"
    else
        echo "(no curve yet)"
    fi
    echo
    echo "## How far from convergence"
    echo
    echo "\"Stopped by\" is sbw-lm's reason for stopping (epochs: the epoch budget ran out). The last quarter epoch's change"
    echo "(the last two rows of MODEL/curve.tsv, first $curve_t valid predictions) says how fast each was still moving:"
    echo
    echo "| model | stopped by | tokens | valid ppl, a quarter epoch before the end | at the end | change | KLD at the first snapshot | at the end |"
    echo "|---|---|---|---|---|---|---|---|"
    grew=0 nc=0
    for d in "$RES"/*/; do
        m=$(basename "$d")
        [ -s "$RES/$m/curve.tsv" ] && [ -s "$RES/$m/train.tsv" ] || continue
        # the curve's rows (tokens, valid_ppl, expected_pairwise_kl): the last
        # two perplexities and the first and last KLD, their change by sbw-series
        tsv_rows "$RES/$m/curve.tsv" | tail -n +2 >"$TAB/curve"
        [ "$(grep -c . "$TAB/curve")" -gt 1 ] || continue
        pc=$(tail -n 2 "$TAB/curve" | cut -f 2 | series)
        kc=$(sed -n '1p;$p' "$TAB/curve" | cut -f 3 | series)
        printf '| %s | %s | %s | %.1f | %.1f | %+.1f%% | %.3f | %.3f |\n' "$m" "$(v "$m/train.tsv" stop)" \
            "$(tail -n 1 "$TAB/curve" | cut -f 1)" "$(sf "$pc" first)" "$(sf "$pc" last)" "$(sf "$pc" change_pct)" \
            "$(sf "$kc" first)" "$(sf "$kc" last)"
        nc=$((nc + 1))
        [ "$(sf "$kc" trend)" = rising ] && grew=$((grew + 1))
    done
    echo
    echo "The papers' models reached a test perplexity near 56 after about 1000 epochs; ours stop at"
    echo "the test perplexities of the training table after $(v "$SM/train.tsv" epochs) epochs. KLD grew from the first snapshot to the end"
    echo "in $grew of $nc models, so where it did, our KLD values sit below the papers' in part because"
    echo "our models are less trained. The ranks of Softmax and MoC are bounds that hold at any point"
    echo "of training; MoS's rank is not."
    echo
    long_section
    printf '%s\n\n' "$CLAIMS"
    echo "## Parthiban et al. 2021, Table 2 (PTB test, NR threshold)"
    echo
    table roles.tsv "$PAPER" --join model --where model=Softmax,model=Sigsoftmax,model=PLIF,model=MoS,2:table=2,2:quantity=rank \
        --columns "model=head,training,1:rank=rank (ours),2:value=rank (Parthiban),rank_single=rank at float32's eps (ours),ppl_test=test ppl (ours)" \
        --format ppl_test=%.1f
    echo
    float32_ranks
    if [ -n "$plif_f" ]; then
        echo "PLIF's learned f (LMS Figure 4), drawn by \`sbw-plot monotone\` from \`$(basename "$RES")/plif/f/\`"
        echo "(its map.tsv: f on a grid, evaluated by the head's own kernels when \`sbw-lm eval --export\` saved the"
        echo "evaluated checkpoint's head, or by \`sbw-fit --map\` from that folder's params.tsv and plif_slope.npy):"
        echo "$pk equal intervals of [-T, T] = [-$pt, $pt] (params.tsv's \`# knots=\` and \`# plif_t=\`), and"
        echo "the learned slopes lie between $(awk -v x="$smin" 'BEGIN { printf "%.3g", x }') and $(awk -v x="$smax" 'BEGIN { printf "%.3g", x }') (columns min and max of"
        echo "\`sbw-info $pf/plif_slope.npy\`). f is increasing and its slope varies by a factor of"
        ratio=$(sf "$(printf 'min\t%s\nmax\t%s\n' "$smin" "$smax" | series)" max_over_min)
        echo "$(awk -v x="$ratio" 'BEGIN { printf "%.3g", x }') over the span, so f is not affine: f(XWᵀ) does not keep the rank D + 1 of XWᵀ"
        echo "(with its bias), and nothing bounds its rank."
        echo
        echo "![plif-f]($FIGREL/plif-f.png)"
        echo
    fi
    echo "## Figures"
    echo
    for f in $figs; do
        case $f in
        figure1) echo "Figure 1 (MoS Appendix C.1): cumulative percentage of normalised singular values (σ/σ₀, on a log axis: on a linear one all three curves reach nearly 100 % within the first hundredth, σ₀ being about 20 times σ₁), and the singular values by index with each matrix's NR threshold; MODEL-long is a long run's final model, beside the 2-epoch MODEL." ;;
        kld-ppl) echo "Expected pairwise KL (valid) against validation perplexity along training: the 2-epoch models every quarter epoch (perplexity and KLD on their first $curve_t valid predictions) and, marked (long), issue 28's long runs every epoch (perplexity on the whole validation set, KLD on its first predictions)." ;;
        training) echo "Training loss (nats per token) against training tokens." ;;
        rank-k) echo "MoS Table 7 as a figure: rank (NR threshold at float64's eps and at float32's) and test perplexity against K, beside the paper's (results/rank-k.tsv)." ;;
        esac
        echo
        echo "![$f]($FIGREL/$f.png)"
        echo
    done
    [ -n "$figs" ] || echo "(none yet: no model has been evaluated)"
    # the long runs' per-epoch figure, drawn by report_long.sh, linked
    # when LONG lies beside this report
    if [ -n "$LONG" ] && [ -s "$LONG/figures/traj-epoch.png" ] &&
        [ "$(cd "$(dirname "$LONG")" && pwd)" = "$(cd "$(dirname "$DOC")" && pwd)" ]; then
        echo "The long runs per epoch (drawn by report_long.sh): validation perplexity, NR rank at float64's and float32's eps, d* and KLD."
        echo
        echo "![traj-epoch]($(basename "$LONG")/figures/traj-epoch.png)"
        echo
    fi
} >"$DOC.tmp"
mv "$DOC.tmp" "$DOC"
echo "report: $DOC"
exit $rfail
