#!/bin/sh
# experiments/ptb/report_long.sh -- $RES/report.md: issue 28's long runs
# along training, from what `run.sh --long train` and `traj` wrote (each
# model's log.tsv and traj.tsv): how far each run has got, its per-epoch
# trajectory (validation perplexity, NR rank at float64's and float32's
# eps, d*, exact expected pairwise KL on the first 10,000 validation
# predictions), the trajectory figures, Table 11's ordering at every
# common epoch and at equal perplexity, the extrapolation of each head's
# KLD to the paper's perplexity (labelled as such), and Table 7's K at
# epoch 8.  Every number is read from a TSV whose `# command=` line says
# how it was made; selection only, the arithmetic is sbw-series' and
# sbw-lm curves'.  A figure sbw-plot fails to draw is left out and the
# script exits 1 (the report is still written).
#
# usage: experiments/ptb/report_long.sh   (or experiments/ptb/run.sh --long report)
# Environment: RES (experiments/ptb/long), BIN (bin), QUICK (0; 1: the
# quick pipeline's model names, test_ptb_quick.sh), KEPOCH (8: the epoch
# Table 7 compares at), FIT_LAST (4: the epochs the extrapolation fits).
set -eu
# -h or --help: the comment above, exit 0
case ${1:-} in -h | --help)
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
esac
cd "$(dirname "$0")/../.."
. scripts/tsv.sh
ROOT=$(pwd)
BIN=${BIN:-bin}
case $BIN in /*) ;; *) BIN=$ROOT/$BIN ;; esac
RES=${RES:-experiments/ptb/long}
QUICK=${QUICK:-0}
KEPOCH=${KEPOCH:-8}
FIT_LAST=${FIT_LAST:-4}
if [ "$QUICK" = 1 ]; then
    TRIO="softmax moc mos-k3" KALL="mos-k2 mos-k3"
else
    TRIO="softmax moc mos-k15" KALL="mos-k3 mos-k5 mos-k10 mos-k15 mos-k20" # by K
fi
DOC=$RES/report.md
mkdir -p "$RES/figures"
RESA=$(cd "$RES" && pwd)
PAPER=$ROOT/experiments/ptb/paper.tsv
TAB=$(mktemp -d "${TMPDIR:-/tmp}/sbw-report-long-XXXXXX")
trap 'rm -rf "$TAB"' EXIT
trap 'rm -rf "$TAB"; exit 130' INT
trap 'rm -rf "$TAB"; exit 143' TERM
rfail=0
figs=""

# rows MODEL: MODEL's traj.tsv data rows (none when absent)
rows() { if [ -s "$RES/$1/traj.tsv" ]; then tsv_rows "$RES/$1/traj.tsv" | tail -n +2; fi; }
nrows() { rows "$1" | grep -c . || true; }
# col MODEL COLUMN EPOCH: the value of COLUMN in MODEL's row of EPOCH
col() { traj_col "$RES/$1/traj.tsv" "$2" "$3"; }
# traj_col TRAJ COLUMN EPOCH: the same from the trajectory file TRAJ
traj_col() { tsv_where "$1" epoch "$3" "$2"; }
# paper MODEL QUANTITY: Yang et al.'s number (experiments/ptb/paper.tsv)
paper() {
    awk -F'\t' -v m="$1" -v q="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        $c["paper"] == "Yang et al. 2018" && $c["model"] == m && $c["quantity"] == q { x = $c["value"] }
        END { printf "%s", x == "" ? "—" : x }' "$PAPER"
}
role() { case $1 in softmax) echo Softmax ;; moc) echo MoC ;; *) echo MoS ;; esac; }
# plot NAME ARG...: sbw-plot ARG... inside RES into figures/NAME
plot() {
    pn=$1
    shift
    if (cd "$RESA" && "$BIN/sbw-plot" "$@" -q -o "figures/$pn"); then
        figs="$figs $pn"
    else
        echo "report_long.sh: sbw-plot could not draw $pn" >&2
        rfail=1
    fi
}

# lost_runs: a paragraph naming each run that restarted from scratch
# because its checkpoints were lost (run.sh keep_lost's lost-DATE/
# folders: how far it had got, where its log and trajectory are kept).
lost_runs() {
    any=0
    for l in "$RES"/*/lost-*/; do
        [ -d "$l" ] || continue
        m=$(basename "$(dirname "$l")") lb=$(basename "$l")
        ne=0
        [ -s "$l/traj.tsv" ] && ne=$(tsv_rows "$l/traj.tsv" | tail -n +2 | grep -c . || true)
        tok=$(tsv_column "$l/log.tsv" tokens 2>/dev/null | tail -n 1)
        [ $any = 1 ] || echo "Restarted runs (their checkpoints were lost with the machine they trained on):"
        [ $any = 1 ] || echo
        any=1
        echo "- $m restarted from scratch with the same recipe and seed; the earlier run had reached ${tok:-0} tokens ($ne epochs measured). Its log and trajectory are kept in \`$(basename "$RES")/$m/$lb/\` and are not mixed with the new run's."
    done
    [ $any = 0 ] || echo
}

# prec_of LOG: the precision a run trained in: its log's "# precision="
# line, or for a log written before sbw-lm had --precision bf16, single
# unless its command says --double.
prec_of() {
    pp=$(tsv_meta "$1" precision 2>/dev/null || true)
    [ -n "$pp" ] || case $(tsv_meta "$1" command 2>/dev/null || true) in
    *--double*) pp=double ;;
    *) pp=single ;;
    esac
    printf '%s' "$pp"
}
# pct A B: sbw-series' change_pct of the two values A then B: 100 (B / A - 1)
pct() { printf 'a\t%s\nb\t%s\n' "$1" "$2" | "$BIN/sbw-series" -q | tsv_field /dev/stdin change_pct; }

# vs_lost FILE: a restarted run trained in another precision than its lost
# run, compared at every epoch both measured (same recipe and seed): one
# row each into FILE (a table with its # command= line); none when no run
# restarted in another precision.
vs_lost() {
    printf '# command=experiments/ptb/report_long.sh (per restarted model: the rows of MODEL/lost-DATE/traj.tsv and MODEL/traj.tsv at the epochs both have; precision from each log.tsv; change_pct: sbw-series, 100 (new / lost - 1))\nmodel\tepoch\tlost_precision\tprecision\tlost_valid_ppl\tvalid_ppl\tppl_change_pct\tlost_rank\trank\tlost_rank_single\trank_single\tlost_kld\tkld\tkld_change_pct\n' >"$1"
    for l in "$RES"/*/lost-*/; do
        [ -s "$l/traj.tsv" ] || continue
        vm=$(basename "$(dirname "$l")")
        [ -s "$RES/$vm/traj.tsv" ] && [ -s "$RES/$vm/log.tsv" ] || continue
        pa=$(prec_of "$l/log.tsv") pb=$(prec_of "$RES/$vm/log.tsv")
        [ "$pa" != "$pb" ] || continue
        for e in $(rows "$vm" | cut -f 1); do
            a=$(traj_col "$l/traj.tsv" valid_ppl "$e")
            [ -n "$a" ] || continue
            b=$(col "$vm" valid_ppl "$e") ka=$(traj_col "$l/traj.tsv" expected_pairwise_kl "$e")
            kb=$(col "$vm" expected_pairwise_kl "$e")
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$vm" "$e" "$pa" "$pb" "$a" "$b" \
                "$(pct "$a" "$b")" "$(traj_col "$l/traj.tsv" rank "$e")" "$(col "$vm" rank "$e")" \
                "$(traj_col "$l/traj.tsv" rank_single "$e")" "$(col "$vm" rank_single "$e")" "$ka" "$kb" \
                "$(pct "$ka" "$kb")" >>"$1"
        done
    done
}

models=""
for d in "$RES"/*/; do
    m=$(basename "$d")
    [ "$(nrows "$m")" -gt 0 ] && models="$models $m"
done
tjs="" labs=""
for m in $models; do tjs="$tjs $m/traj.tsv" && labs="$labs${labs:+,}$m"; done
if [ -n "$models" ]; then
    # shellcheck disable=SC2086 # plain model names
    plot traj-epoch train $tjs --x epoch --y valid_ppl,rank,rank_single,d_star,expected_pairwise_kl --labels "$labs" \
        --logy-of rank,rank_single,d_star \
        --title "Along training, per epoch (first validation predictions)"
    # shellcheck disable=SC2086
    plot traj-ppl train $tjs --x valid_ppl --y expected_pairwise_kl,rank_single --labels "$labs" --logy-of rank_single \
        --title "KLD and float32 rank against validation perplexity"
fi

# Table 11 at equal perplexity: the trio's traj.tsv on one grid (sbw-lm curves)
trio_tj="" trio_n=""
for m in $TRIO; do
    [ "$(nrows "$m")" -gt 0 ] && trio_tj="$trio_tj $m/traj.tsv" && trio_n="$trio_n${trio_n:+,}$m"
done
# trio_order ARG...: sbw-lm order ARG... of Table 11's pairs (MoS above
# MoC, MoC above Softmax, MoS above Softmax) on kld-at-ppl.tsv, inside RES
trio_order() {
    # shellcheck disable=SC2086 # plain model names
    set -- $TRIO "$@"
    s=$1 c=$2 x=$3
    shift 3
    (cd "$RESA" && "$BIN/sbw-lm" order "$@" --pairs "$x:$c,$c:$s,$x:$s" --labels "$x=MoS,$c=MoC,$s=Softmax" kld-at-ppl.tsv)
}
# the grid and its order are made together or not at all: a stale pair
# of files would decide Table 11 in report.sh from an older trajectory
kap=""
rm -f "$RES/kld-at-ppl.tsv" "$RES/order-at-ppl.tsv"
if [ -n "$trio_tj" ]; then
    # shellcheck disable=SC2086
    if (cd "$RESA" && "$BIN/sbw-lm" curves -q --step 5 --names "$trio_n" $trio_tj -o kld-at-ppl.tsv); then
        kap=$RES/kld-at-ppl.tsv
    else
        echo "report_long.sh: sbw-lm curves failed on$trio_tj" >&2
        rfail=1
    fi
fi

# the extrapolation of each of the trio's KLD to its paper's perplexity:
# sbw-series --fit log over the last FIT_LAST epochs, into extrapolation.tsv
ex=$RES/extrapolation.tsv
printf '# command=experiments/ptb/report_long.sh (per model: sbw-series --column expected_pairwise_kl --label valid_ppl --fit log --last %s --at PAPER_VALID_PPL MODEL/traj.tsv; the perplexity of the paper'"'"'s Table 5, its KLD of Table 11, from experiments/ptb/paper.tsv)\nmodel\tepochs\tform\tfrom\tto\tslope\tse_slope\trms_residual\tat\tvalue_at\tse_at\tpaper_kl_valid\n' "$FIT_LAST" >"$TAB/ex"
for m in $TRIO; do
    [ "$(nrows "$m")" -ge 3 ] || continue
    r=$("$BIN/sbw-series" -q --column expected_pairwise_kl --label valid_ppl --fit log --last "$FIT_LAST" \
        --at "$(paper "$(role "$m")" valid_ppl)" "$RES/$m/traj.tsv" 2>/dev/null) || continue
    f() { printf '%s\n' "$r" | tsv_field /dev/stdin "$1"; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$(f n)" "$(f form)" "$(f from)" "$(f to)" \
        "$(f slope)" "$(f se_slope)" "$(f rms_residual)" "$(f at)" "$(f value_at)" "$(f se_at)" \
        "$(paper "$(role "$m")" kl_valid)" >>"$TAB/ex"
done
mv "$TAB/ex" "$ex"
# status.tsv: how far each run has got (its last measured epoch, the
# tokens of its log, and whether it finished: train.tsv's stop), for this
# report and report.sh's
st=$RES/status.tsv
# opt_of LOG OPTION: the value OPTION has in LOG's command line (— if none)
opt_of() {
    ov=$(tsv_meta "$1" command 2>/dev/null | sed -n "s/.* $2 \([^ ]*\).*/\1/p")
    printf '%s' "${ov:-—}"
}
printf '# command=experiments/ptb/report_long.sh (per model: the last row of MODEL/traj.tsv; the tokens of the last row of MODEL/log.tsv, its d and precision lines and its command'"'"'s --preset, --epochs and --stop-ppl; the stop of MODEL/train.tsv when it finished)\nmodel\tpreset\td\tprecision\tmax_epochs\tstop_ppl\tepoch\ttokens\tvalid_ppl\trank\trank_single\td_star\texpected_pairwise_kl\tstate\n' >"$TAB/st"
for m in $models; do
    e=$(rows "$m" | tail -n 1 | cut -f 1)
    lg=$RES/$m/log.tsv
    tok=$(tsv_column "$lg" tokens 2>/dev/null | tail -n 1)
    stt=training
    [ -s "$RES/$m/train.tsv" ] && stt="finished ($(tsv_field "$RES/$m/train.tsv" stop))"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$(opt_of "$lg" --preset)" \
        "$(tsv_meta "$lg" d 2>/dev/null || echo —)" "$(prec_of "$lg")" "$(opt_of "$lg" --epochs)" "$(opt_of "$lg" --stop-ppl)" \
        "$e" "${tok:-—}" "$(col "$m" valid_ppl "$e")" "$(col "$m" rank "$e")" "$(col "$m" rank_single "$e")" \
        "$(col "$m" d_star "$e")" "$(col "$m" expected_pairwise_kl "$e")" "$stt" >>"$TAB/st"
done
mv "$TAB/st" "$st"
# order-at-ppl.tsv: Table 11's pairs at equal perplexity as a table
# (sbw-lm order --tsv: each pair above, below or mixed; the chain)
if [ -n "$kap" ]; then
    if trio_order --tsv >"$TAB/order"; then
        mv "$TAB/order" "$RES/order-at-ppl.tsv"
    else
        echo "report_long.sh: sbw-lm order failed on $kap" >&2
        rm -f "$kap"
        kap="" rfail=1
    fi
fi
# k-at-epoch.tsv: Table 7's MoS runs at epoch KEPOCH (equal training)
printf '# command=experiments/ptb/report_long.sh (the epoch %s rows of MODEL/traj.tsv; k: the K of MODEL, mos-kK)\n# epoch=%s\nmodel\tk\trank\trank_single\td_star\tvalid_ppl\texpected_pairwise_kl\n' "$KEPOCH" "$KEPOCH" >"$TAB/k.tsv"
kn=0
for m in $KALL; do
    [ -n "$(col "$m" rank "$KEPOCH" 2>/dev/null)" ] || continue
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "${m#mos-k}" \
        "$(col "$m" rank "$KEPOCH")" "$(col "$m" rank_single "$KEPOCH")" "$(col "$m" d_star "$KEPOCH")" \
        "$(col "$m" valid_ppl "$KEPOCH")" "$(col "$m" expected_pairwise_kl "$KEPOCH")" >>"$TAB/k.tsv"
    kn=$((kn + 1))
done
if [ $kn -gt 0 ]; then mv "$TAB/k.tsv" "$RES/k-at-epoch.tsv"; else rm -f "$TAB/k.tsv" "$RES/k-at-epoch.tsv"; fi
vs_lost "$TAB/vs"
vsn=$(tsv_rows "$TAB/vs" | tail -n +2 | grep -c . || true)
if [ "$vsn" -gt 0 ]; then mv "$TAB/vs" "$RES/precision-vs-lost.tsv"; else rm -f "$TAB/vs" "$RES/precision-vs-lost.tsv"; fi

{
    echo "# Issue 28's long runs along training (MoS Tables 6, 7 and 11 at the papers' networks)"
    echo
    [ "$QUICK" = 1 ] && echo "**Quick mode**: toy models on a generated corpus; the pipeline, not the science." && echo
    echo "Made by \`experiments/ptb/run.sh --long\` (\`train\`, then \`traj\` after each epoch) and"
    echo "\`experiments/ptb/report_long.sh\`. The recipes, deviations from the papers and the wall-time"
    echo "plan are in experiments/ptb/README.md. Each row of a trajectory is one end-of-epoch snapshot:"
    echo "the validation perplexity (whole set), and on the first validation predictions the NR rank at"
    echo "float64's and float32's eps, d* (the rank of the row-centred matrix) and the exact expected"
    echo "pairwise KL (nats). This report is rewritten as the runs go on; the final tables go to"
    echo "experiments/ptb/report.md when the runs end."
    echo
    echo "## How far each run has got"
    echo
    if [ -n "$models" ]; then
        (cd "$RESA" && "$BIN/sbw-plot" table status.tsv \
            --columns "model,preset,d=D,precision,epoch=epochs measured,tokens=tokens trained (log.tsv),valid_ppl=last valid ppl,expected_pairwise_kl=its KLD,rank=rank (f64 eps),rank_single=rank (f32 eps),d_star=d*,state" \
            --format valid_ppl=%.1f,expected_pairwise_kl=%.3f)
    else
        echo "(none measured yet)"
    fi
    echo
    lost_runs
    if [ "$vsn" -gt 0 ]; then
        echo "## The restarted runs against their lost runs: another precision, the same recipe and seed"
        echo
        echo "Each restarted run trained in another precision than the run it replaces (the long runs train"
        echo "in bfloat16 GEMMs since 2026-11-28: experiments/ptb/README.md), from the same seed and recipe,"
        echo "on another machine. So every epoch both measured says how far the precision (with the"
        echo "machine's other rounding) moves what this report measures; issue 28 trains in bfloat16 if"
        echo "one epoch's validation perplexity is within 1% of float32's. change: 100 (new / lost - 1)."
        echo
        (cd "$RESA" && "$BIN/sbw-plot" table precision-vs-lost.tsv \
            --columns "model,epoch,lost_precision=lost run,precision=new run,lost_valid_ppl=its valid ppl,valid_ppl=valid ppl,ppl_change_pct=change %,lost_rank=its rank (f64 eps),rank=rank (f64 eps),lost_rank_single=its rank (f32 eps),rank_single=rank (f32 eps),lost_kld=its KLD,kld=KLD,kld_change_pct=KLD change %" \
            --format lost_valid_ppl=%.2f,valid_ppl=%.2f,ppl_change_pct=%+.2f,lost_kld=%.4f,kld=%.4f,kld_change_pct=%+.2f)
        echo
    fi
    echo "## Table 11 along training: expected pairwise KL"
    echo
    echo "The paper (valid): Softmax $(paper Softmax kl_valid), MoC $(paper MoC kl_valid), MoS $(paper MoS kl_valid) (MoS > MoC > Softmax),"
    echo "at validation perplexities near 60 (its Table 5: $(paper Softmax valid_ppl), $(paper MoC valid_ppl), $(paper MoS valid_ppl) without finetuning)."
    echo "Ours at each epoch that two or more of $(echo "$TRIO" | sed 's/ /, /g') have reached, highest first:"
    echo
    rows_any=0
    for e in $(for m in $TRIO; do rows "$m" | cut -f 1; done | sort -n | uniq -d); do
        printf -- '- epoch %s: ' "$e"
        for m in $TRIO; do
            x=$(col "$m" expected_pairwise_kl "$e")
            [ -n "$x" ] && printf '%s\t%s\n' "$m (ppl $(printf '%.1f' "$(col "$m" valid_ppl "$e")"))" "$x"
        done | "$BIN/sbw-series" -q --order desc | tsv_rows /dev/stdin |
            awk -F'\t' 'NR > 1 { printf "%s%s %.3f", (NR > 2 ? " " $3 " " : ""), $1, $2 } END { print "." }'
        rows_any=1
    done
    [ $rows_any = 1 ] || echo "- (no epoch reached by two models yet)"
    echo
    echo "At equal validation perplexity (\`$(basename "$RES")/kld-at-ppl.tsv\`: each trajectory interpolated linearly in"
    echo "log perplexity onto a grid every 5; nothing extrapolated):"
    echo
    if [ -n "$kap" ] && [ "$(echo "$trio_n" | tr ',' '\n' | grep -c .)" -ge 2 ]; then
        trio_order
    else
        echo "(fewer than two of the three models measured yet)"
    fi
    echo
    echo "## Extrapolation to the paper's perplexity (not a measurement)"
    echo
    if [ "$(grep -vc '^#' "$ex")" -gt 1 ]; then
        echo "KLD = a + b ln(valid ppl), least squares over each model's last $FIT_LAST epochs (fewer when fewer"
        echo "exist), evaluated at the paper's validation perplexity of the same head; se: the fitted line's"
        echo "standard error there, which does not include the error of the line's form."
        echo
        (cd "$RESA" && "$BIN/sbw-plot" table extrapolation.tsv --columns "model,epochs=epochs fitted,from=from ppl,to=to ppl,slope=b,se_slope=se(b),rms_residual=rms residual,at=at ppl,value_at=KLD there (extrapolated),se_at=se,paper_kl_valid=paper" \
            --format from=%.1f,to=%.1f,slope=%.3f,se_slope=%.3f,rms_residual=%.4f,value_at=%.3f,se_at=%.3f)
    else
        echo "Not yet: a fit needs three epochs of a model."
    fi
    echo
    echo "## Table 7 at equal training: MoS by K at epoch $KEPOCH"
    echo
    if [ -s "$RES/k-at-epoch.tsv" ]; then
        (cd "$RESA" && "$BIN/sbw-plot" table k-at-epoch.tsv --columns "model,k=K,rank=rank (f64 eps),rank_single=rank (f32 eps),d_star=d*,valid_ppl=valid ppl,expected_pairwise_kl=KLD" \
            --format valid_ppl=%.1f,expected_pairwise_kl=%.3f)
    else
        echo "Not yet: no MoS run has reached epoch $KEPOCH."
    fi
    echo
    echo "## Trajectories"
    for m in $models; do
        echo
        echo "### $m"
        echo
        (cd "$RESA" && "$BIN/sbw-plot" table "$m/traj.tsv" \
            --columns "epoch,tokens,valid_ppl=valid ppl,rows,rank=rank (f64 eps),rank_single=rank (f32 eps),d_star=d*,expected_pairwise_kl=KLD" \
            --format valid_ppl=%.2f,expected_pairwise_kl=%.4f)
    done
    echo
    echo "## Figures"
    echo
    for f in $figs; do
        case $f in
        traj-epoch) echo "Per epoch: validation perplexity, NR rank at float64's and float32's eps, d* and KLD (one panel each)." ;;
        traj-ppl) echo "KLD and the rank at float32's eps against validation perplexity (training goes right to left)." ;;
        esac
        echo
        echo "![$f](figures/$f.png)"
        echo
    done
    [ -n "$figs" ] || echo "(none yet)"
} >"$DOC.tmp"
mv "$DOC.tmp" "$DOC"
echo "report: $DOC"
exit $rfail
