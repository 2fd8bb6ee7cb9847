#!/bin/sh
# make demo: the workbench end to end in about a minute on 2 cores.
#
#  1. A Dirichlet(0.1) language (N = 1000 contexts, M = 300 words): its rank,
#     the minimal Softmax dimension d*, the singular spectrum (MoS Figure 1)
#     and the expected pairwise KL (MoS Table 11's quantity).
#  2. Softmax, MoS (K = 10) and LMS (K = 10) heads fitted at D = 5..40:
#     mean KL(P*||Q) and mode-match rate (LMS paper, section 5.1), and each
#     Softmax fit's error against the Eckart-Young bounds (LMS Theorem 1 and
#     the shift-aware bound).
#  3. The bottleneck itself: a language of known rank (d* = 10) is fitted
#     exactly by a Softmax head with D = 10 and not with D = 9 (MoS
#     Proposition 1 / Corollary 1).
#
# Everything lands in out/quickstart/: the .npy matrices, one TSV per step,
# fits.tsv and bottleneck.tsv collecting the fits, five figures drawn by
# sbw-plot (each with the .gp script and .dat data that redraw it), and
# summary.txt.  Only the tools are chained here; no number is computed in
# this script.
set -eu
cd "$(dirname "$0")/.."
. scripts/tsv.sh
B=${SBW_BIN:-bin}
O=${QUICKSTART_OUT:-out/quickstart}
N=1000
M=300
STEPS=300
mkdir -p "$O"
say() { printf '%s\n' "$*"; }
# table FILE: a TSV aligned for reading, numbers to 4 significant digits.
table() {
    awk -F'\t' '{ printf " ";
        for (i = 1; i <= NF; i++)
            if (NR > 1 && $i ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) printf " %-11.4g", $i; else printf " %-11s", $i;
        print "" }' "$1"
}

say "1. A Dirichlet(0.1) language, N=$N contexts x M=$M words -> $O/dirichlet.npy"
"$B/sbw-synth" dirichlet --n $N --m $M --alpha 0.1 --seed 1 -q -o "$O/dirichlet.npy" >"$O/synth.tsv"
"$B/sbw-info" -q "$O/dirichlet.npy" >"$O/info.tsv"
"$B/sbw-rank" -q --spectrum "$O/spectrum.tsv" "$O/dirichlet.npy" >"$O/rank.tsv"
"$B/sbw-rank" -q --center --spectrum "$O/spectrum_centered.tsv" "$O/dirichlet.npy" >"$O/rank_centered.tsv"
"$B/sbw-kl" -q "$O/dirichlet.npy" >"$O/kl.tsv"
"$B/sbw-bound" -q --d 1:60 "$O/dirichlet.npy" >"$O/bound.tsv"
say "   rank $(tsv_field "$O/rank.tsv" rank), d* $(tsv_field "$O/rank_centered.tsv" rank)," \
    "expected pairwise KL $(tsv_field "$O/kl.tsv" expected_pairwise_kl) nats"

say "2. Fitting softmax, mos and lms heads at D = 5, 10, 20, 40 ($STEPS Adam steps each)"
printf 'model\td\tkl_mean\tmode_match\tfit_error\tshift_bound\tseconds\n' >"$O/fits.tsv"
for model in softmax mos lms; do
    for d in 5 10 20 40; do
        q="$O/q_${model}_$d.npy"
        "$B/sbw-fit" -q --model $model --d $d --k 10 --steps $STEPS --seed 2 -o "$q" \
            --log "$O/log_${model}_$d.tsv" \
            "$O/dirichlet.npy" >"$O/fit_${model}_$d.tsv"
        "$B/sbw-compare" -q "$O/dirichlet.npy" "$q" >"$O/compare_${model}_$d.tsv"
        "$B/sbw-bound" -q --d $d --fit "$q" --fit-d $d "$O/dirichlet.npy" >"$O/bound_${model}_$d.tsv"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $model $d \
            "$(tsv_field "$O/compare_${model}_$d.tsv" kl_mean)" \
            "$(tsv_field "$O/compare_${model}_$d.tsv" mode_match)" \
            "$(tsv_field "$O/bound_${model}_$d.tsv" fit_error)" \
            "$(tsv_field "$O/bound_${model}_$d.tsv" shift_bound)" \
            "$(tsv_field "$O/fit_${model}_$d.tsv" seconds)" >>"$O/fits.tsv"
        rm -f "$q"
        say "   $model D=$d: mean KL $(tsv_field "$O/compare_${model}_$d.tsv" kl_mean)," \
            "mode match $(tsv_field "$O/compare_${model}_$d.tsv" mode_match)"
    done
done

say "3. The bottleneck: a language of known rank (R = 10, so d* = 10)"
"$B/sbw-synth" lowrank --n $N --m $M --rank 10 --scale 3 --seed 3 -q -o "$O/lowrank.npy" >"$O/lowrank.tsv"
"$B/sbw-rank" -q "$O/lowrank.npy" >"$O/lowrank_rank.tsv"
"$B/sbw-rank" -q --center "$O/lowrank.npy" >"$O/lowrank_rank_centered.tsv"
printf 'd\td_star\tkl_mean\tmode_match\n' >"$O/bottleneck.tsv"
for d in 8 9 10 11; do
    "$B/sbw-fit" -q --model softmax --d $d --optimizer lbfgs --precision double --steps 500 --seed 2 \
        -o "$O/q_lowrank_$d.npy" "$O/lowrank.npy" >"$O/fit_lowrank_$d.tsv"
    "$B/sbw-compare" -q "$O/lowrank.npy" "$O/q_lowrank_$d.npy" >"$O/compare_lowrank_$d.tsv"
    printf '%s\t%s\t%s\t%s\n' $d "$(tsv_field "$O/lowrank_rank_centered.tsv" rank)" \
        "$(tsv_field "$O/compare_lowrank_$d.tsv" kl_mean)" \
        "$(tsv_field "$O/compare_lowrank_$d.tsv" mode_match)" >>"$O/bottleneck.tsv"
    rm -f "$O/q_lowrank_$d.npy"
done
say "   rank(A) $(tsv_field "$O/lowrank_rank.tsv" rank), d* $(tsv_field "$O/lowrank_rank_centered.tsv" rank);" \
    "softmax mean KL at D=9: $(tsv_field "$O/bottleneck.tsv" kl_mean 2), at D=10: $(tsv_field "$O/bottleneck.tsv" kl_mean 3)"

if command -v gnuplot >/dev/null 2>&1; then
    say "4. Figures (sbw-plot): spectrum, fits, bound, training, bottleneck (.png, each with its .gp and .dat)"
    "$B/sbw-plot" -q spectrum "$O/spectrum.tsv" "$O/spectrum_centered.tsv" \
        --rank "$O/rank.tsv,$O/rank_centered.tsv" --labels "A = log P*,row-centred A" \
        --title "Singular spectra of a Dirichlet(0.1) language, N=$N, M=$M" -o "$O/spectrum"
    "$B/sbw-plot" -q sweep "$O/fits.tsv" --y kl_mean,mode_match \
        --title "Heads fitted to the Dirichlet(0.1) language ($STEPS Adam steps)" -o "$O/fits"
    "$B/sbw-plot" -q bound "$O/bound.tsv" --fits "$O/fits.tsv" -o "$O/bound"
    "$B/sbw-plot" -q train "$O/log_softmax_20.tsv" "$O/log_mos_20.tsv" "$O/log_lms_20.tsv" \
        --labels "softmax D=20,MoS K=10 D=20,LMS K=10 D=20" -o "$O/training"
    "$B/sbw-plot" -q sweep "$O/bottleneck.tsv" --y kl_mean,mode_match --labels "softmax (L-BFGS)" \
        --title "A language of rank d* = 10: Softmax fits by D" -o "$O/bottleneck"
else
    say "4. gnuplot not found: no figures (the TSVs plot as they are)"
fi

{
    say "sbw quickstart ($(date -u +%Y-%m-%d), $("$B/sbw-info" --version | head -n 1))"
    say ""
    say "Dirichlet(0.1) language, N=$N x M=$M:"
    say "  rank (NR threshold)       $(tsv_field "$O/rank.tsv" rank)"
    say "  d* (row-centred rank)     $(tsv_field "$O/rank_centered.tsv" rank)"
    say "  expected pairwise KL      $(tsv_field "$O/kl.tsv" expected_pairwise_kl) nats"
    say ""
    say "Fits ($STEPS Adam steps; fit_error and shift_bound are Frobenius norms):"
    table "$O/fits.tsv"
    say ""
    say "Low-rank language (R=10): rank $(tsv_field "$O/lowrank_rank.tsv" rank), d* $(tsv_field "$O/lowrank_rank_centered.tsv" rank); softmax fits (L-BFGS):"
    table "$O/bottleneck.tsv"
} >"$O/summary.txt"
say ""
cat "$O/summary.txt"
say ""
say "Results in $O/ (summary.txt, *.tsv, *.png with their *.gp and *.dat)."
