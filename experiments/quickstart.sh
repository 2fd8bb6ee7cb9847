#!/bin/sh
# make demo: the workbench end to end in well under a minute on 2 cores.
#
#  1. A Dirichlet(0.1) language (N = 1000 contexts, M = 300 words): its rank,
#     the minimal Softmax dimension d*, the singular spectrum (MoS Figure 1)
#     and the expected pairwise KL (MoS Table 11's quantity).
#  2. Softmax, MoS (K = 10), LMS (K = 10) and PLIF (100 intervals) heads
#     fitted at D = 5..40: mean KL(P*||Q), mode match (LMS paper, section
#     5.1), perplexity and top-5 overlap against the truth (sbw-compare), and
#     each fit's error against the Eckart-Young bounds (LMS Theorem 1 and the
#     shift-aware bound).
#  3. The bottleneck itself: a language of known rank (d* = 10) is fitted
#     exactly by a Softmax head with D = 10 and not with D = 9 (MoS
#     Proposition 1 / Corollary 1).
#  4. sbw-verify's quick run: the papers' claims as checks that can fail.
#
# Everything lands in out/quickstart/: the .npy matrices, one TSV per tool
# run (each with its "# command=" line), fits.tsv and bottleneck.tsv
# collecting the fits, five figures drawn by sbw-plot (each with the .gp
# script and .dat data that redraw it), verify.md, summary.txt and
# report.md, which embeds the figures and every table; each table in it
# names the TSV its numbers come from and the command that wrote that TSV.
# Only the tools are chained here; no number is computed in this script.
#
# Environment (for the CLI test; the defaults are the demo):
#   QUICKSTART_OUT [out/quickstart]   QUICKSTART_N [1000]   QUICKSTART_M [300]
#   QUICKSTART_STEPS [300]            QUICKSTART_DS ["5 10 20 40"]
#   QUICKSTART_LBFGS_STEPS [500] (the fits of section 3)
# QUICKSTART_OUT and SBW_BIN are the caller's paths (a relative one is read
# from the folder quickstart.sh was started in) and may hold spaces and
# commas.  SIGINT or SIGTERM stops the running tool and exits 130 or 143.
set -eu
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/.."
. scripts/tsv.sh
. scripts/recipe.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi
O=$(recipe_abs "${QUICKSTART_OUT:-}")
O=${O:-out/quickstart}
N=${QUICKSTART_N:-1000}
M=${QUICKSTART_M:-300}
STEPS=${QUICKSTART_STEPS:-300}
DS=${QUICKSTART_DS:-5 10 20 40}
LBFGS_STEPS=${QUICKSTART_LBFGS_STEPS:-500}
K=10
KNOTS=100
mkdir -p "$O"
say() { printf '%s\n' "$*"; }
cleanup() { rm -f "$O/report.md.tmp" "$O/summary.txt.tmp"; }
recipe_traps quickstart.sh cleanup
# in_out CMD...: CMD run inside $O, where the files have names of ours
# (sbw-plot splits --rank, --fits and --labels at commas; $O may hold some)
in_out() { cd "$O" && "$@"; }
# table FILE: a TSV aligned for reading, numbers to 4 significant digits.
table() {
    awk -F'\t' '{ printf " ";
        for (i = 1; i <= NF; i++)
            if (NR > 1 && $i ~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) printf " %-11.4g", $i; else printf " %-11s", $i;
        print "" }' "$1"
}
# kfor MODEL: the K of a head as the legends name it (0: none).
kfor() {
    case $1 in softmax) echo 0 ;; plif) echo $KNOTS ;; *) echo $K ;; esac
}

say "1. A Dirichlet(0.1) language, N=$N contexts x M=$M words -> $O/dirichlet.npy"
recipe_run "$B/sbw-synth" dirichlet --n "$N" --m "$M" --alpha 0.1 --seed 1 -q -o "$O/dirichlet.npy" >"$O/synth.tsv"
recipe_run "$B/sbw-info" -q "$O/dirichlet.npy" >"$O/info.tsv"
recipe_run "$B/sbw-rank" -q --spectrum "$O/spectrum.tsv" "$O/dirichlet.npy" >"$O/rank.tsv"
recipe_run "$B/sbw-rank" -q --center --spectrum "$O/spectrum_centered.tsv" "$O/dirichlet.npy" >"$O/rank_centered.tsv"
recipe_run "$B/sbw-kl" -q "$O/dirichlet.npy" >"$O/kl.tsv"
recipe_run "$B/sbw-bound" -q --d 1:60 "$O/dirichlet.npy" >"$O/bound.tsv"
say "   rank $(tsv_field "$O/rank.tsv" rank), d* $(tsv_field "$O/rank_centered.tsv" rank)," \
    "expected pairwise KL $(tsv_field "$O/kl.tsv" expected_pairwise_kl) nats"

say "2. Fitting softmax, mos, lms and plif heads at D = $DS ($STEPS Adam steps each)"
{
    say "# fits.tsv: one row per fit, assembled by experiments/quickstart.sh from"
    say "# fit_MODEL_D.tsv (sbw-fit), compare_MODEL_D.tsv (sbw-compare) and bound_MODEL_D.tsv (sbw-bound)"
    printf 'model\tk\td\tkl_mean\tmode_match\tperplexity\ttop5_overlap\tfit_error\tlms_bound\tshift_bound\tseconds\n'
} >"$O/fits.tsv"
for model in softmax mos lms plif; do
    for d in $DS; do
        q="$O/q_${model}_$d.npy"
        kopt="--k $K"
        [ $model = plif ] && kopt="--knots $KNOTS"
        [ $model = softmax ] && kopt="" # no components: sbw-fit refuses --k
        # shellcheck disable=SC2086
        recipe_run "$B/sbw-fit" -q --model $model --d "$d" $kopt --steps "$STEPS" --seed 2 -o "$q" \
            --log "$O/log_${model}_$d.tsv" \
            "$O/dirichlet.npy" >"$O/fit_${model}_$d.tsv"
        c="$O/compare_${model}_$d.tsv"
        b="$O/bound_${model}_$d.tsv"
        recipe_run "$B/sbw-compare" -q "$O/dirichlet.npy" "$q" >"$c"
        recipe_run "$B/sbw-bound" -q --d "$d" --fit "$q" --fit-d "$d" "$O/dirichlet.npy" >"$b"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $model "$(kfor $model)" "$d" \
            "$(tsv_field "$c" kl_mean)" "$(tsv_field "$c" mode_match)" \
            "$(tsv_field "$c" perplexity)" "$(tsv_field "$c" top5_overlap)" \
            "$(tsv_field "$b" fit_error)" "$(tsv_field "$b" lms_bound)" "$(tsv_field "$b" shift_bound)" \
            "$(tsv_field "$O/fit_${model}_$d.tsv" seconds)" >>"$O/fits.tsv"
        rm -f "$q"
        say "   $model D=$d: mean KL $(tsv_field "$c" kl_mean), mode match $(tsv_field "$c" mode_match)"
    done
done

say "3. The bottleneck: a language of known rank (R = 10, so d* = 10)"
recipe_run "$B/sbw-synth" lowrank --n "$N" --m "$M" --rank 10 --scale 3 --seed 3 -q -o "$O/lowrank.npy" >"$O/lowrank.tsv"
recipe_run "$B/sbw-rank" -q "$O/lowrank.npy" >"$O/lowrank_rank.tsv"
recipe_run "$B/sbw-rank" -q --center "$O/lowrank.npy" >"$O/lowrank_rank_centered.tsv"
{
    say "# bottleneck.tsv: one row per Softmax fit, assembled by experiments/quickstart.sh from"
    say "# lowrank_rank_centered.tsv (sbw-rank --center: d_star) and compare_lowrank_D.tsv (sbw-compare)"
    printf 'model\td\td_star\tkl_mean\tmode_match\n'
} >"$O/bottleneck.tsv"
for d in 8 9 10 11; do
    recipe_run "$B/sbw-fit" -q --model softmax --d $d --optimizer lbfgs --precision double --steps "$LBFGS_STEPS" --seed 2 \
        -o "$O/q_lowrank_$d.npy" "$O/lowrank.npy" >"$O/fit_lowrank_$d.tsv"
    recipe_run "$B/sbw-compare" -q "$O/lowrank.npy" "$O/q_lowrank_$d.npy" >"$O/compare_lowrank_$d.tsv"
    printf 'softmax (L-BFGS)\t%s\t%s\t%s\t%s\n' $d "$(tsv_field "$O/lowrank_rank_centered.tsv" rank)" \
        "$(tsv_field "$O/compare_lowrank_$d.tsv" kl_mean)" \
        "$(tsv_field "$O/compare_lowrank_$d.tsv" mode_match)" >>"$O/bottleneck.tsv"
    rm -f "$O/q_lowrank_$d.npy"
done
say "   rank(A) $(tsv_field "$O/lowrank_rank.tsv" rank), d* $(tsv_field "$O/lowrank_rank_centered.tsv" rank);" \
    "softmax mean KL at D=9: $(tsv_field "$O/bottleneck.tsv" kl_mean 2), at D=10: $(tsv_field "$O/bottleneck.tsv" kl_mean 3)"

say "4. The papers' claims (sbw-verify, quick sizes) -> $O/verify.md"
vst=0
recipe_run "$B/sbw-verify" -q --report "$O/verify.md" >"$O/verify.tsv" || vst=$?
say "   $(grep -c '	PASS	' "$O/verify.tsv" || true) rows PASS, $(grep -c '	FAIL	' "$O/verify.tsv" || true) FAIL"

FIGS=""
if command -v gnuplot >/dev/null 2>&1; then
    say "5. Figures (sbw-plot): spectrum, fits, bound, training, bottleneck (.png, each with its .gp and .dat)"
    recipe_run in_out "$B/sbw-plot" -q spectrum spectrum.tsv spectrum_centered.tsv \
        --rank rank.tsv,rank_centered.tsv --labels "A = log P*,row-centred A" \
        --title "Singular spectra of a Dirichlet(0.1) language, N=$N, M=$M" -o spectrum
    recipe_run in_out "$B/sbw-plot" -q sweep fits.tsv --y kl_mean,mode_match \
        --title "Heads fitted to the Dirichlet(0.1) language, N=$N, M=$M ($STEPS Adam steps)" -o fits
    recipe_run in_out "$B/sbw-plot" -q bound bound.tsv --fits fits.tsv \
        --title "Eckart–Young lower bounds on any Softmax fit, and the fits" --size 640x520 -o bound
    dl=$(echo "$DS" | awk '{ print $(NF > 2 ? 3 : NF) }')
    recipe_run in_out "$B/sbw-plot" -q train "log_softmax_$dl.tsv" "log_mos_$dl.tsv" "log_lms_$dl.tsv" \
        "log_plif_$dl.tsv" \
        --labels "softmax D=$dl,MoS K=$K D=$dl,LMS K=$K D=$dl,PLIF K=$KNOTS D=$dl" \
        --title "Training curves at D=$dl (Adam, lr 0.01, all $N contexts per step)" -o training
    recipe_run in_out "$B/sbw-plot" -q sweep bottleneck.tsv --y kl_mean,mode_match \
        --title "A language of rank d* = 10: Softmax fits by D" -o bottleneck
    FIGS="spectrum fits bound training bottleneck"
else
    say "5. gnuplot not found: no figures (the TSVs plot as they are)"
fi

# ---- report.md ------------------------------------------------------------------------------
# md_table FILE COL,... [sbw-plot table options]: FILE's columns as a
# markdown table, numbers with a fraction or exponent to 4 significant
# digits, and below it the file and the `# command=` line that wrote it
# (sbw-plot table, run inside $O so the file is named as in the folder).
md_table() {
    f=$(basename "$1") c=$2
    shift 2
    (cd "$O" && "$B/sbw-plot" table "$f" --columns "$c" --format %.4g "$@")
}
# cite_many FILE...: the files and commands behind a table assembled from
# several tool runs (fits.tsv, bottleneck.tsv).
cite_many() {
    say ""
    say "<details><summary>The command behind each number</summary>"
    say ""
    for f in "$@"; do say "- \`$(basename "$f")\`: \`$(tsv_meta "$f" command)\`"; done
    say ""
    say "</details>"
}
figure() {
    if [ -f "$O/$1.png" ]; then say "" && say "![$2]($1.png)"; fi
}

{
    say "# sbw quickstart"
    say ""
    say "$(tsv_meta "$O/rank.tsv" version | sed 's/^/sbw /'), $(tsv_meta "$O/rank.tsv" blas | cut -d' ' -f1-2)," \
        "$(tsv_meta "$O/rank.tsv" threads) threads; run on $(date -u +%Y-%m-%d) by \`experiments/quickstart.sh\`" \
        "(\`make demo\`). Every number below is read from a TSV in this folder; each table names the file and" \
        "the \`# command=\` line that wrote it, which reproduces it."
    say ""
    say "## 1. The language"
    say ""
    say "A Dirichlet(0.1) language: each of the N rows of P* is drawn from a symmetric Dirichlet over M words."
    say ""
    md_table "$O/synth.tsv" rows,cols,min_logp,max_logp,mean_max_logp,max_abs_logsumexp
    say ""
    say "Its rank by the Numerical Recipes threshold (\`tsh\`; NumPy's and the largest-gap estimate beside it), and"
    say "d*, the rank of the row-centred matrix: the smallest Softmax dimension that can represent it (MoS Proposition 1)."
    say ""
    md_table "$O/rank.tsv" rank,rank_numpy,rank_gap,w0,w_min,tsh
    say ""
    md_table "$O/rank_centered.tsv" rank,rank_numpy,rank_gap,w0,w_min,tsh
    say ""
    say "The expected pairwise KL between contexts (MoS Table 11's measure of how context-dependent a language is), in nats:"
    say ""
    md_table "$O/kl.tsv" rows,cols,expected_pairwise_kl,mean_entropy,entropy_of_mean,js_spread
    figure spectrum "Singular spectra"
    say ""
    say "## 2. Heads fitted to it"
    say ""
    say "Each head gets one free context vector per row and shared word embeddings (LMS section 5.1), fitted" \
        "with $(tsv_meta "$O/fit_softmax_$(echo "$DS" | cut -d' ' -f1).tsv" steps) Adam steps; the" \
        "fitted log Q is compared with the truth row by row (sbw-compare) and its distance" \
        "\`fit_error\` = ‖A − log Q‖_F set against the two Eckart–Young lower bounds on any Softmax of that D" \
        "(sbw-bound; they bind Softmax only — MoS, LMS and PLIF may go below them)."
    say ""
    md_table "$O/fits.tsv" model,k,d,kl_mean,mode_match,perplexity,top5_overlap,fit_error,lms_bound,shift_bound,seconds --no-cite
    say ""
    say "<sub>From \`fits.tsv\`, assembled from the tool runs below.</sub>"
    set --
    for model in softmax mos lms plif; do for d in $DS; do
        set -- "$@" "$O/fit_${model}_$d.tsv" "$O/compare_${model}_$d.tsv" "$O/bound_${model}_$d.tsv"
    done; done
    cite_many "$@"
    figure fits "Mean KL and mode match against D"
    figure training "Training curves"
    say ""
    say "## 3. The Eckart–Young bounds"
    say ""
    say "LMS Theorem 1 and the shift-aware bound (row-centred A) against d; the fits of section 2 as points."
    say ""
    md_table "$O/bound.tsv" d,lms_bound,shift_bound --where "d=$(echo "$DS" | sed 's/ /,d=/g')"
    figure bound "Eckart–Young bounds and the fits"
    say ""
    say "## 4. The bottleneck"
    say ""
    say "A language of known rank: log-softmax of rank-10 Gaussian logits."
    say ""
    md_table "$O/lowrank_rank.tsv" rank,rank_numpy,rank_gap,tsh
    say ""
    md_table "$O/lowrank_rank_centered.tsv" rank,rank_numpy,rank_gap,tsh
    say ""
    say "Softmax heads fitted to it by L-BFGS in double precision: exact (KL at rounding level) from D = d* on, not below."
    say ""
    md_table "$O/bottleneck.tsv" model,d,d_star,kl_mean,mode_match --no-cite
    say ""
    say "<sub>From \`bottleneck.tsv\`, assembled from the tool runs below.</sub>"
    set -- "$O/lowrank_rank_centered.tsv"
    for d in 8 9 10 11; do set -- "$@" "$O/fit_lowrank_$d.tsv" "$O/compare_lowrank_$d.tsv"; done
    cite_many "$@"
    figure bottleneck "Softmax fits of a rank-10 language"
    say ""
    say "## 5. The papers' claims (sbw-verify)"
    say ""
    say "sbw-verify's quick run, its report as written to \`verify.md\` (one row per claim and setting also in \`verify.tsv\`)."
    say ""
    sed -e '1d' -e 's/^##/###/' "$O/verify.md"
    say ""
    say "## Files"
    say ""
    say "Figures: $(for f in $FIGS; do printf '`%s.png` ' "$f"; done)— each with the \`.gp\` script and \`.dat\` data that redraw it" \
        "(\`gnuplot $O/spectrum.gp\` from any folder). Matrices: \`dirichlet.npy\`, \`lowrank.npy\`."
    say "Training logs: \`log_MODEL_D.tsv\`. A plain-text digest: \`summary.txt\`."
} >"$O/report.md.tmp"
mv "$O/report.md.tmp" "$O/report.md"

{
    say "sbw quickstart ($(date -u +%Y-%m-%d), $("$B/sbw-info" --version | head -n 1))"
    say ""
    say "Dirichlet(0.1) language, N=$N x M=$M:"
    say "  rank (NR threshold)       $(tsv_field "$O/rank.tsv" rank)"
    say "  d* (row-centred rank)     $(tsv_field "$O/rank_centered.tsv" rank)"
    say "  expected pairwise KL      $(tsv_field "$O/kl.tsv" expected_pairwise_kl) nats"
    say ""
    say "Fits ($STEPS Adam steps; fit_error and the bounds are Frobenius norms):"
    table "$O/fits.tsv" | grep -v '^ *# '
    say ""
    say "Low-rank language (R=10): rank $(tsv_field "$O/lowrank_rank.tsv" rank), d* $(tsv_field "$O/lowrank_rank_centered.tsv" rank); softmax fits (L-BFGS):"
    table "$O/bottleneck.tsv" | grep -v '^ *# '
    say ""
    say "sbw-verify (quick): $(grep -c '	PASS	' "$O/verify.tsv" || true) rows PASS, $(grep -c '	FAIL	' "$O/verify.tsv" || true) FAIL (verify.md)"
} >"$O/summary.txt.tmp"
mv "$O/summary.txt.tmp" "$O/summary.txt"
say ""
cat "$O/summary.txt"
say ""
say "Report: $O/report.md (figures, tables and their commands); TSVs, *.png with their *.gp and *.dat in $O/."
[ $vst -eq 0 ] || { say "sbw-verify reported a failing claim (exit $vst): see $O/verify.md" >&2; exit 1; }
