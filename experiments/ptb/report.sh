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
# before RES's [none].
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
mkdir -p "$FIG"
FIG=$(cd "$FIG" && pwd)
FIGREL=$(basename "$FIG")
RESA=$(cd "$RES" && pwd)
rfail=0
# plot NAME ARG...: sbw-plot ARG... -q -o FIG/NAME run inside RES; NAME joins
# the figures when it worked, and the report fails when it did not
plot() {
    pn=$1
    shift
    if (cd "$RESA" && "$BIN/sbw-plot" "$@" -q -o "$FIG/$pn"); then
        figs="$figs $pn"
    else
        echo "report.sh: sbw-plot could not draw $pn" >&2
        rfail=1
    fi
}

# v FILE COLUMN [FORMAT]: a value of the first row, or — when missing
v() {
    if [ -s "$RES/$1" ]; then
        x=$(tsv_field "$RES/$1" "$2")
        [ -n "$x" ] && { printf "${3:-%s}" "$x"; return; }
    fi
    printf '—'
}
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

spectra=""
labels=""
ranks=""
for m in $SM $MOC $MOS; do
    [ -s "$RES/$m/spectrum.tsv" ] && [ -s "$RES/$m/rank.tsv" ] || continue
    spectra="$spectra $m/spectrum.tsv"
    labels="$labels${labels:+,}$m"
    ranks="$ranks${ranks:+,}$m/rank.tsv"
done
figs=""
if [ -n "$spectra" ]; then
    # log x: the normalised singular values of the three heads lie decades apart
    # shellcheck disable=SC2086
    plot figure1 spectrum $spectra --labels "$labels" --rank "$ranks" --logx
fi
curves=""
clabels=""
logs=""
for m in $SM $MOC $MOS sigsoftmax plif mixtape; do
    [ -s "$RES/$m/curve.tsv" ] && [ "$(grep -vc '^#' "$RES/$m/curve.tsv")" -gt 1 ] &&
        curves="$curves $m/curve.tsv" && clabels="$clabels${clabels:+,}$m"
    [ -s "$RES/$m/log.tsv" ] && logs="$logs $m/log.tsv"
done
if [ -n "$curves" ]; then
    # shellcheck disable=SC2086
    plot kld-ppl train $curves --x valid_ppl --y expected_pairwise_kl --labels "$clabels" \
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
TAB=$(mktemp -d "${TMPDIR:-/tmp}/sbw-report-XXXXXX")
trap 'rm -rf "$TAB"' EXIT
trap 'rm -rf "$TAB"; exit 130' INT
trap 'rm -rf "$TAB"; exit 143' TERM
row() { (IFS='	' && printf '%s\n' "$*"); }
{
    row model d rank rank_center rank_gap gap_decades rank_single ppl_valid ppl_test kl_valid kl_test
    for r in "Softmax $SM" "MoC $MOC" "Sigsoftmax sigsoftmax" "PLIF plif" "MoS $MOS" "Mixtape mixtape"; do
        m=${r#* }
        row "${r% *}" "$(v "$m/train.tsv" d)" "$(v "$m/rank.tsv" rank)" "$(v "$m/rank-center.tsv" rank)" \
            "$(v "$m/rank.tsv" rank_gap)" "$(v "$m/rank.tsv" gap_decades)" "$(rank32 "$m")" \
            "$(v "$m/eval-valid.tsv" ppl)" "$(v "$m/eval-test.tsv" ppl)" \
            "$(v "$m/kl-valid.tsv" expected_pairwise_kl)" "$(v "$m/kl-test.tsv" expected_pairwise_kl)"
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
    echo "is read from a TSV in \`$RES/MODEL/\` whose \`# command=\` line says how it was made."
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
    echo
    echo "## Scale: ours beside the papers'"
    echo
    echo "| | ours | MoS paper (Yang et al. 2018) |"
    echo "|---|---|---|"
    echo "| network | $(tsv_meta "$RES/$SM/train.tsv" hidden 2>/dev/null || echo —) LSTM, embedding and latent as in the table rows | 3-layer LSTM 960/960/620 (MoS), AWD-LSTM 1150/1150/400 (Softmax) |"
    echo "| training | see the next table | 1000 epochs + fine-tuning on GPUs |"
    echo "| Softmax test perplexity | $(v "$SM/eval-test.tsv" ppl %.1f) | $(paper - AWD-LSTM - test_ppl) (AWD-LSTM, Merity et al. 2018) |"
    echo "| MoS (K = 15) test perplexity | $(v "$MOS/eval-test.tsv" ppl %.1f) | $(paper 7 MoS 15 test_ppl) |"
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
        --columns "model,d=D,1:rank=rank (ours),2:value=rank (paper),rank_center=d* (ours),rank_gap=rank at the largest gap,gap_decades=its size (decades),rank_single=rank at float32's eps" \
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
        --columns "model,kl_valid=ours valid,2:value=paper valid,kl_test=ours test,3:value=paper test,ppl_valid=ours valid ppl" \
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
        "$BIN/sbw-lm" order --pairs "$MOS:$MOC,$MOC:$SM,$MOS:$SM" --labels "$MOS=MoS,$MOC=MoC,$SM=Softmax" "$kap"
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
    echo "## Parthiban et al. 2021, Table 2 (PTB test, NR threshold)"
    echo
    table roles.tsv "$PAPER" --join model --where model=Softmax,model=Sigsoftmax,model=PLIF,model=MoS,2:table=2,2:quantity=rank \
        --columns "model=head,1:rank=rank (ours),2:value=rank (Parthiban),rank_single=rank at float32's eps (ours),ppl_test=test ppl (ours)" \
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
        figure1) echo "Figure 1 (MoS Appendix C.1): cumulative percentage of normalised singular values (σ/σ₀, on a log axis: on a linear one all three curves reach nearly 100 % within the first hundredth, σ₀ being about 20 times σ₁), and the singular values by index with each matrix's NR threshold." ;;
        kld-ppl) echo "Expected pairwise KL (valid) against validation perplexity along training." ;;
        training) echo "Training loss (nats per token) against training tokens." ;;
        rank-k) echo "MoS Table 7 as a figure: rank (NR threshold at float64's eps and at float32's) and test perplexity against K, beside the paper's (results/rank-k.tsv)." ;;
        esac
        echo
        echo "![$f]($FIGREL/$f.png)"
        echo
    done
    [ -n "$figs" ] || echo "(none yet: no model has been evaluated)"
} >"$DOC.tmp"
mv "$DOC.tmp" "$DOC"
echo "report: $DOC"
exit $rfail
