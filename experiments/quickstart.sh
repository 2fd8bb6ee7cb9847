#!/bin/sh
# experiments/quickstart.sh -- make demo: the softmax bottleneck shown end
# to end in a few minutes on 2 cores, its point made on the first screen of
# out/quickstart/report.md.
#
# usage: experiments/quickstart.sh [-h | --help]
#
# Steps (every number is a tool's; this script only chains and selects):
#  1. A Dirichlet(0.1) language (N = 1000 contexts, M = 300 words): its rank,
#     d* (the rank of the row-centred matrix: the smallest Softmax that
#     represents it, MoS Proposition 1), the singular spectrum (MoS
#     Figure 1), the expected pairwise KL (MoS Table 11's quantity) and the
#     Eckart-Young bounds on any Softmax fit.
#  2. A language of K = 3 topics (N = 300, M = 100): p_i = sum_k theta_ik
#     phi_k, exact for a 3-component MoS with D = 3, while its log has full
#     rank, so no small Softmax comes close.  Softmax and MoS (K = 3) heads
#     fitted at D = 2, 3, 4 by L-BFGS in double precision: the NR rank of each
#     fitted log Q (sbw-rank; Softmax's is D + 1, sbw-fit's rank bound),
#     KL and mode match against the truth (sbw-compare), and the Frobenius
#     error ||A - log Q||_F against the Eckart-Young bounds on any Softmax
#     of that D (sbw-bound: LMS Theorem 1 and the shift-aware bound).  MoS
#     goes below them; no Softmax can.
#  3. The bottleneck itself: a language of rank-10 logits (d* = 10) fitted by
#     Softmax heads with D = 8..11 (L-BFGS, double): KL at rounding level
#     from D = d* on, not below (MoS Proposition 1 / Corollary 1).
#  4. sbw-verify's quick run: the papers' claims as checks that can fail.
#  5. Figures (sbw-plot, when gnuplot is installed) and report.md, whose first
#     screen says what the run shows: Softmax's rank, where the bottleneck
#     sits, MoS below the Softmax bound, which fits converged and which
#     stopped at their step limit, and one line per sbw-verify claim.
#
# Everything lands in out/quickstart/: the .npy languages, one TSV per tool
# run (each with its "# command=" line), fits.tsv and bottleneck.tsv
# collecting the fits, the figures (each with the .gp script and .dat data
# that redraw it), verify.md, summary.txt and report.md; each table in the
# report names the TSV its numbers come from and the command that wrote it.
#
# Environment (the defaults are the demo; the CLI tests run it smaller):
#   QUICKSTART_OUT [out/quickstart]   SBW_BIN [bin]
#   QUICKSTART_N [1000]  QUICKSTART_M [300]   the Dirichlet and rank-10 languages
#   QUICKSTART_TOPIC_N [300]  QUICKSTART_TOPIC_M [100]   the topic language
#   QUICKSTART_DS ["2 3 4"]   the D of the topic fits
#   QUICKSTART_FIT_STEPS [1000]   L-BFGS steps at most, topic fits
#   QUICKSTART_LBFGS_STEPS [1500]  L-BFGS steps at most, rank-10 fits
# QUICKSTART_OUT and SBW_BIN are the caller's paths (a relative one is read
# from the folder quickstart.sh was started in) and may hold spaces and
# commas.  Exit status: 0 when every step ran and sbw-verify passed, 1 when
# a step failed or a claim failed, 2 for a bad argument; SIGINT or SIGTERM
# stops the running tool and exits 130 or 143.
set -eu
case ${1:-} in
-h | --help)
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
'') ;;
*)
    echo "quickstart.sh: unknown argument '$1' (see --help)" >&2
    exit 2
    ;;
esac
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/.."
. scripts/tsv.sh
. scripts/recipe.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi
O=$(recipe_abs "${QUICKSTART_OUT:-}")
O=${O:-out/quickstart}
N=${QUICKSTART_N:-1000}
M=${QUICKSTART_M:-300}
TN=${QUICKSTART_TOPIC_N:-300}
TM=${QUICKSTART_TOPIC_M:-100}
DS=${QUICKSTART_DS:-2 3 4}
FIT_STEPS=${QUICKSTART_FIT_STEPS:-1000}
LBFGS_STEPS=${QUICKSTART_LBFGS_STEPS:-1500}
TOPICS=3 # the topic language's K, and the MoS heads' K
EXACT=1e-8 # a KL at or below this is "exact" (sbw-verify's proposition1 uses the same)
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
# vs VALUE BOUND: below, equal or above: sbw-series compares, not this script
vs() {
    v=$(printf 'x\t%s\n' "$1" | "$B/sbw-series" -q --against "$2")
    case $(printf '%s\n' "$v" | tsv_field /dev/stdin below)$(printf '%s\n' "$v" | tsv_field /dev/stdin equal) in
    10) echo below ;;
    01) echo equal ;;
    *) echo above ;;
    esac
}
# fit_state FIT.tsv: "converged", or how the fit stopped and its warning codes
fit_state() {
    s=$(tsv_field "$1" stop)
    w=$(sed -n 's/^# warning=\([a-z_]*\):.*/\1/p' "$1" | tr '\n' ' ')
    case $s in steps) s="stopped at --steps $(tsv_field "$1" steps)" ;; esac
    printf '%s%s' "$s" "${w:+, ${w% }}"
}
# words LIST: "a, b and c"
words() { printf '%s\n' "$*" | sed 's/ /, /g; s/, \([^,]*\)$/ and \1/'; }

# ---- 1. a Dirichlet language --------------------------------------------------------------------
say "1. A Dirichlet(0.1) language, N=$N contexts x M=$M words -> $O/dirichlet.npy"
recipe_run "$B/sbw-synth" dirichlet --n "$N" --m "$M" --alpha 0.1 --seed 1 -q -o "$O/dirichlet.npy" >"$O/synth.tsv"
recipe_run "$B/sbw-info" -q "$O/dirichlet.npy" >"$O/info.tsv"
recipe_run "$B/sbw-rank" -q --spectrum "$O/spectrum.tsv" "$O/dirichlet.npy" >"$O/rank.tsv"
recipe_run "$B/sbw-rank" -q --center --spectrum "$O/spectrum_centered.tsv" "$O/dirichlet.npy" >"$O/rank_centered.tsv"
recipe_run "$B/sbw-kl" -q "$O/dirichlet.npy" >"$O/kl.tsv"
recipe_run "$B/sbw-bound" -q --d 1:60 "$O/dirichlet.npy" >"$O/bound.tsv"
say "   rank $(tsv_field "$O/rank.tsv" rank), d* $(tsv_field "$O/rank_centered.tsv" rank)," \
    "expected pairwise KL $(tsv_field "$O/kl.tsv" expected_pairwise_kl) nats"

# ---- 2. a topic language: Softmax against MoS ------------------------------------------------------
say "2. A language of $TOPICS topics, N=$TN x M=$TM; softmax and mos (K=$TOPICS) fitted at D = $DS (L-BFGS)"
recipe_run "$B/sbw-synth" topics --n "$TN" --m "$TM" --k $TOPICS --alpha 1 --seed 4 -q \
    -o "$O/topics.npy" >"$O/topics.tsv"
recipe_run "$B/sbw-rank" -q --spectrum "$O/topics_spectrum.tsv" "$O/topics.npy" >"$O/topics_rank.tsv"
recipe_run "$B/sbw-rank" -q --center "$O/topics.npy" >"$O/topics_rank_centered.tsv"
recipe_run "$B/sbw-bound" -q --d 1:8 "$O/topics.npy" >"$O/topics_bound.tsv"
{
    say "# fits.tsv: one row per fit to topics.npy, assembled by experiments/quickstart.sh from"
    say "# fit_MODEL_D.tsv (sbw-fit), rank_MODEL_D.tsv (sbw-rank of the fitted log Q),"
    say "# compare_MODEL_D.tsv (sbw-compare) and bound_MODEL_D.tsv (sbw-bound)"
    printf 'model\tk\td\tkl_mean\tmode_match\trank_logq\trank_bound\tfit_error\tlms_bound\tshift_bound\tstop\tsteps\tseconds\n'
} >"$O/fits.tsv"
for model in softmax mos; do
    for d in $DS; do
        q="$O/q_${model}_$d.npy"
        f="$O/fit_${model}_$d.tsv"
        kopt="--k $TOPICS"
        [ $model = softmax ] && kopt="" # no components: sbw-fit refuses --k
        # shellcheck disable=SC2086
        recipe_run "$B/sbw-fit" -q --model $model --d "$d" $kopt --optimizer lbfgs --precision double \
            --steps "$FIT_STEPS" --seed 2 -o "$q" --log "$O/log_${model}_$d.tsv" "$O/topics.npy" >"$f"
        r="$O/rank_${model}_$d.tsv"
        c="$O/compare_${model}_$d.tsv"
        b="$O/bound_${model}_$d.tsv"
        recipe_run "$B/sbw-rank" -q "$q" >"$r"
        recipe_run "$B/sbw-compare" -q "$O/topics.npy" "$q" >"$c"
        recipe_run "$B/sbw-bound" -q --d "$d" --fit "$q" --fit-d "$d" "$O/topics.npy" >"$b"
        k=$TOPICS
        [ $model = softmax ] && k=0
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $model $k "$d" \
            "$(tsv_field "$c" kl_mean)" "$(tsv_field "$c" mode_match)" \
            "$(tsv_field "$r" rank)" "$(tsv_meta "$f" rank_bound)" \
            "$(tsv_field "$b" fit_error)" "$(tsv_field "$b" lms_bound)" "$(tsv_field "$b" shift_bound)" \
            "$(tsv_field "$f" stop)" "$(tsv_field "$f" steps)" "$(tsv_field "$f" seconds)" >>"$O/fits.tsv"
        rm -f "$q"
        say "   $model D=$d: rank(log Q) $(tsv_field "$r" rank), ||A - log Q||_F $(tsv_field "$b" fit_error)" \
            "(Softmax bound $(tsv_field "$b" shift_bound)), mean KL $(tsv_field "$c" kl_mean), $(fit_state "$f")"
    done
done

# ---- 3. the bottleneck at d* --------------------------------------------------------------------
say "3. The bottleneck: a language of rank-10 logits (d* = 10), softmax fitted at D = 8..11"
recipe_run "$B/sbw-synth" lowrank --n "$N" --m "$M" --rank 10 --scale 1 --seed 3 -q -o "$O/lowrank.npy" >"$O/lowrank.tsv"
recipe_run "$B/sbw-rank" -q "$O/lowrank.npy" >"$O/lowrank_rank.tsv"
recipe_run "$B/sbw-rank" -q --center "$O/lowrank.npy" >"$O/lowrank_rank_centered.tsv"
{
    say "# bottleneck.tsv: one row per Softmax fit, assembled by experiments/quickstart.sh from"
    say "# lowrank_rank_centered.tsv (sbw-rank --center: d_star) and compare_lowrank_D.tsv (sbw-compare)"
    printf 'model\td\td_star\tkl_mean\tmode_match\tstop\n'
} >"$O/bottleneck.tsv"
for d in 8 9 10 11; do
    recipe_run "$B/sbw-fit" -q --model softmax --d $d --optimizer lbfgs --precision double --steps "$LBFGS_STEPS" --seed 2 \
        -o "$O/q_lowrank_$d.npy" "$O/lowrank.npy" >"$O/fit_lowrank_$d.tsv"
    recipe_run "$B/sbw-compare" -q "$O/lowrank.npy" "$O/q_lowrank_$d.npy" >"$O/compare_lowrank_$d.tsv"
    printf 'softmax (L-BFGS)\t%s\t%s\t%s\t%s\t%s\n' $d "$(tsv_field "$O/lowrank_rank_centered.tsv" rank)" \
        "$(tsv_field "$O/compare_lowrank_$d.tsv" kl_mean)" \
        "$(tsv_field "$O/compare_lowrank_$d.tsv" mode_match)" \
        "$(tsv_field "$O/fit_lowrank_$d.tsv" stop)" >>"$O/bottleneck.tsv"
    rm -f "$O/q_lowrank_$d.npy"
done
say "   rank(A) $(tsv_field "$O/lowrank_rank.tsv" rank), d* $(tsv_field "$O/lowrank_rank_centered.tsv" rank);" \
    "softmax mean KL at D=9: $(tsv_field "$O/bottleneck.tsv" kl_mean 2), at D=10: $(tsv_field "$O/bottleneck.tsv" kl_mean 3)"

# ---- 4. sbw-verify --------------------------------------------------------------------------------
say "4. The papers' claims (sbw-verify, quick sizes) -> $O/verify.md"
vst=0
recipe_run "$B/sbw-verify" -q --report "$O/verify.md" >"$O/verify.tsv" || vst=$?
say "   $(sed -n 's/^- Result: //p' "$O/verify.md")"

# ---- 5. figures -------------------------------------------------------------------------------------
FIGS=""
# shellcheck disable=SC2086 # DS splits on purpose: its second D, or its only one
set -- $DS
dmid=${2:-$1}
if command -v gnuplot >/dev/null 2>&1; then
    say "5. Figures (sbw-plot): bound, spectrum, fits, bottleneck, training (.png, each with its .gp and .dat)"
    recipe_run in_out "$B/sbw-plot" -q bound topics_bound.tsv --fits fits.tsv \
        --title "Topic language: no Softmax fit goes below the bound, MoS does" \
        --size 640x520 -o bound
    recipe_run in_out "$B/sbw-plot" -q spectrum spectrum.tsv spectrum_centered.tsv topics_spectrum.tsv \
        --rank rank.tsv,rank_centered.tsv,topics_rank.tsv \
        --labels "Dirichlet(0.1) A,Dirichlet(0.1) row-centred A,topics A" \
        --title "Singular spectra: a Dirichlet(0.1) language (N=$N, M=$M) and the topic language" -o spectrum
    recipe_run in_out "$B/sbw-plot" -q sweep fits.tsv --y kl_mean,rank_logq \
        --title "Softmax and MoS (K=$TOPICS) fitted to the topic language, N=$TN, M=$TM (L-BFGS)" -o fits
    recipe_run in_out "$B/sbw-plot" -q sweep bottleneck.tsv --y kl_mean,mode_match --logy \
        --title "A language of rank d* = 10: Softmax fits by D" -o bottleneck
    recipe_run in_out "$B/sbw-plot" -q train "log_softmax_$dmid.tsv" "log_mos_$dmid.tsv" \
        --labels "softmax D=$dmid,MoS K=$TOPICS D=$dmid" --y kl_mean --logy \
        --title "Topic language, D=$dmid: Softmax stops at its best, MoS goes on" -o training
    FIGS="bound spectrum fits bottleneck training"
else
    say "5. gnuplot not found: no figures (the TSVs plot as they are)"
fi

# ---- the verdicts of the first screen (sbw-series compares; this script words) --------------------
# Softmax's rank against D + 1 (sbw-fit's rank_bound), per D
rank_words="" rank_off=""
mos_ranks=""
for d in $DS; do
    r=$(tsv_field "$O/rank_softmax_$d.tsv" rank)
    rank_words="$rank_words $r"
    [ "$(vs "$r" "$(tsv_meta "$O/fit_softmax_$d.tsv" rank_bound)")" = equal ] || rank_off="$rank_off $d"
    mos_ranks="$mos_ranks $(tsv_field "$O/rank_mos_$d.tsv" rank)"
done
# the fit errors against the Softmax bound, per model and D
below_softmax="" below_mos="" above_mos=""
for d in $DS; do
    b=$O/bound_softmax_$d.tsv
    [ "$(vs "$(tsv_field "$b" fit_error)" "$(tsv_field "$b" shift_bound)")" = above ] || below_softmax="$below_softmax $d"
    b=$O/bound_mos_$d.tsv
    if [ "$(vs "$(tsv_field "$b" fit_error)" "$(tsv_field "$b" shift_bound)")" = below ]; then
        below_mos="$below_mos $d"
    else
        above_mos="$above_mos $d"
    fi
done
# the rank-10 fits that are exact (KL <= EXACT) and those that are not
exact="" inexact=""
for d in 8 9 10 11; do
    if [ "$(vs "$(tsv_field "$O/compare_lowrank_$d.tsv" kl_mean)" $EXACT)" = above ]; then
        inexact="$inexact $d"
    else
        exact="$exact $d"
    fi
done
# which fits converged (L-BFGS's own test) and which did not
conv="" notconv=""
for f in $(for m in softmax mos; do for d in $DS; do echo "${m}_$d"; done; done) lowrank_8 lowrank_9 lowrank_10 lowrank_11; do
    n=$(echo "$f" | sed 's/^lowrank/rank-10 softmax/; s/_/ D=/')
    if [ "$(fit_state "$O/fit_$f.tsv")" = converged ]; then
        conv="$conv${conv:+, }$n"
    else
        notconv="$notconv${notconv:+; }$n ($(fit_state "$O/fit_$f.tsv"))"
    fi
done
g4() { awk -v v="$1" 'BEGIN { printf "%.4g", v }'; }
errs() { for d in $DS; do printf '%s%s→%s' "${2:-}" "$d" "$(g4 "$(tsv_field "$O/bound_$1_$d.tsv" fit_error)")"; set -- "$1" ", "; done; }
bounds() { for d in $DS; do printf '%s%s→%s' "${1:-}" "$d" "$(g4 "$(tsv_field "$O/bound_softmax_$d.tsv" shift_bound)")"; set -- ", "; done; }
klat() { g4 "$(tsv_field "$O/compare_lowrank_$1.tsv" kl_mean)"; }

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
    say "# sbw demo: the softmax bottleneck"
    say ""
    say "$(tsv_meta "$O/rank.tsv" version | sed 's/^/sbw /'), $(tsv_meta "$O/rank.tsv" blas | cut -d' ' -f1-2)," \
        "$(tsv_meta "$O/rank.tsv" threads) threads; $(date -u +%Y-%m-%d), \`make demo\` (\`experiments/quickstart.sh\`)." \
        "Every number is read from a TSV in this folder; the sections below name each file and its \`# command=\`."
    say ""
    say "## What this run shows"
    say ""
    if [ -z "$rank_off" ]; then
        say "- **Softmax's rank is D + 1.** Softmax heads fitted at D = $(words $DS) have log Q of NR rank" \
            "$(words $rank_words): D + 1 each, sbw-fit's bound. MoS (K = $TOPICS) at the same D: rank" \
            "$(words $mos_ranks) (min(N, M) = $(tsv_field "$O/topics.tsv" cols))."
    else
        say "- **Softmax's rank is NOT D + 1 at D = $(words $rank_off)**: ranks $(words $rank_words) at D = $(words $DS)."
    fi
    # exactly at d*: exact from D = d* = 10 on (the language's R), not below
    dstar=$(tsv_field "$O/lowrank_rank_centered.tsv" rank)
    if [ "$dstar:$exact:$inexact" = "10: 10 11: 8 9" ]; then
        say "- **The bottleneck sits exactly at d\* = $dstar.** Softmax fits to a language of rank-10 logits are exact" \
            "(mean KL ≤ $EXACT) at D = 10 and 11, not at D = 8 and 9 (mean KL at D = 9: $(klat 9), at D = 10: $(klat 10))."
    else
        say "- **The bottleneck did NOT show at d\* = $dstar here:** Softmax fits to a language of rank-10 logits are exact" \
            "(mean KL ≤ $EXACT) at D = $(words ${exact:-(none)}), not at D = $(words ${inexact:-(none)})" \
            "(mean KL at D = 9: $(klat 9), at D = 10: $(klat 10); see the fits' convergence below)."
    fi
    if [ -z "$below_softmax" ] && [ -n "$below_mos" ]; then
        say "- **MoS breaks it.** On a language of $TOPICS topics (full rank, d* = $(tsv_field "$O/topics_rank_centered.tsv" rank))," \
            "‖A − log Q‖_F of Softmax stays above the Softmax Eckart–Young bound at every D, as it must" \
            "(D→error: $(errs softmax); bound: $(bounds)); MoS (K = $TOPICS) goes below it at D = $(words $below_mos)" \
            "(D→error: $(errs mos))${above_mos:+; not at D = $(words $above_mos)}."
    else
        say "- **MoS did not break the bound here**: Softmax below its bound at D = $(words ${below_softmax:-none})," \
            "MoS below it at D = $(words ${below_mos:-none}) (errors: Softmax $(errs softmax), MoS $(errs mos); bound $(bounds))."
    fi
    if [ -z "$notconv" ]; then
        say "- **Every fit converged** (L-BFGS's own test): $conv."
    else
        say "- **Fits that did not converge** (their errors and KLs are what a longer fit would lower):" \
            "$notconv. Converged (L-BFGS's own test): ${conv:-none}."
    fi
    say "- **The papers' claims** (sbw-verify, quick sizes): $(sed -n 's/^- Result: //p' "$O/verify.md"); one line per claim:"
    say ""
    sed -n '/^| claim | source | settings | result |$/,/^$/p' "$O/verify.md" | sed '$d'
    say ""
    say "Sections: [1. a Dirichlet language](#1-a-dirichlet-language) ·" \
        "[2. Softmax against MoS on a topic language](#2-softmax-against-mos-on-a-topic-language) ·" \
        "[3. the bottleneck at d\*](#3-the-bottleneck-at-d) · [4. sbw-verify](#4-the-papers-claims-sbw-verify) · [files](#files)"
    figure bound "Eckart–Young bounds on any Softmax of the topic language, and the fits"
    say ""
    say "## 1. A Dirichlet language"
    say ""
    say "Each of the N rows of P* is drawn from a symmetric Dirichlet(0.1) over M words."
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
    say ""
    say "The Eckart–Young lower bounds on ‖A − log Q‖_F of any Softmax head of dimension d (LMS Theorem 1 and the shift-aware bound):"
    say ""
    md_table "$O/bound.tsv" d,lms_bound,shift_bound --where "d=1,d=5,d=10,d=20,d=40,d=60"
    figure spectrum "Singular spectra"
    say ""
    say "## 2. Softmax against MoS on a topic language"
    say ""
    say "p_i = Σ_k θ_ik φ_k over $TOPICS topics (\`sbw-synth topics\`): a $TOPICS-component MoS represents it exactly" \
        "from D = $TOPICS, while log P* has full rank, so every Softmax of small D is far from it."
    say ""
    md_table "$O/topics_rank.tsv" rank,rank_numpy,rank_gap,w0,tsh
    say ""
    md_table "$O/topics_rank_centered.tsv" rank,rank_numpy,rank_gap,w0,tsh
    say ""
    say "Each head gets one free context vector per row and shared word embeddings (LMS section 5.1), fitted by" \
        "L-BFGS in double precision (at most $FIT_STEPS steps; \`stop\` says whether it converged). \`rank_logq\`: the NR rank" \
        "of the fitted log Q (sbw-rank); \`rank_bound\`: sbw-fit's bound on it (D + 1 for Softmax; none for MoS)." \
        "\`fit_error\` = ‖A − log Q‖_F against the two Eckart–Young bounds on any Softmax of that D (sbw-bound): MoS may go below them, a Softmax cannot."
    say ""
    md_table "$O/fits.tsv" model,k,d,kl_mean,mode_match,rank_logq,rank_bound,fit_error,lms_bound,shift_bound,stop,steps,seconds --no-cite
    say ""
    say "<sub>From \`fits.tsv\`, assembled from the tool runs below.</sub>"
    set --
    for model in softmax mos; do for d in $DS; do
        set -- "$@" "$O/fit_${model}_$d.tsv" "$O/rank_${model}_$d.tsv" "$O/compare_${model}_$d.tsv" "$O/bound_${model}_$d.tsv"
    done; done
    cite_many "$@"
    say ""
    say "The bounds at every d:"
    say ""
    md_table "$O/topics_bound.tsv" d,lms_bound,shift_bound
    figure fits "Mean KL and rank of log Q against D"
    figure training "Training curves"
    say ""
    say "## 3. The bottleneck at d*"
    say ""
    say "A language of known rank: log-softmax of rank-10 Gaussian logits."
    say ""
    md_table "$O/lowrank_rank.tsv" rank,rank_numpy,rank_gap,tsh
    say ""
    md_table "$O/lowrank_rank_centered.tsv" rank,rank_numpy,rank_gap,tsh
    say ""
    say "Softmax heads fitted to it by L-BFGS in double precision (at most $LBFGS_STEPS steps):"
    say ""
    md_table "$O/bottleneck.tsv" model,d,d_star,kl_mean,mode_match,stop --no-cite
    say ""
    say "<sub>From \`bottleneck.tsv\`, assembled from the tool runs below.</sub>"
    set -- "$O/lowrank_rank_centered.tsv"
    for d in 8 9 10 11; do set -- "$@" "$O/fit_lowrank_$d.tsv" "$O/compare_lowrank_$d.tsv"; done
    cite_many "$@"
    figure bottleneck "Softmax fits of a rank-10 language"
    say ""
    say "## 4. The papers' claims (sbw-verify)"
    say ""
    say "sbw-verify's quick run, its report as written to \`verify.md\` (one row per claim and setting also in \`verify.tsv\`)."
    say ""
    sed -e '1d' -e 's/^##/###/' "$O/verify.md"
    say ""
    say "## Files"
    say ""
    say "Figures: $(for f in $FIGS; do printf '`%s.png` ' "$f"; done)— each with the \`.gp\` script and \`.dat\` data that redraw it" \
        "(\`gnuplot $O/spectrum.gp\` from any folder). Languages: \`dirichlet.npy\`, \`topics.npy\`, \`lowrank.npy\`."
    say "Training logs: \`log_MODEL_D.tsv\`. A plain-text digest: \`summary.txt\`."
} >"$O/report.md.tmp"
mv "$O/report.md.tmp" "$O/report.md"

{
    say "sbw demo ($(date -u +%Y-%m-%d), $("$B/sbw-info" --version | head -n 1))"
    say ""
    say "Dirichlet(0.1) language, N=$N x M=$M: rank $(tsv_field "$O/rank.tsv" rank)," \
        "d* $(tsv_field "$O/rank_centered.tsv" rank), expected pairwise KL $(tsv_field "$O/kl.tsv" expected_pairwise_kl) nats"
    say ""
    say "Topic language ($TOPICS topics, N=$TN x M=$TM): d* $(tsv_field "$O/topics_rank_centered.tsv" rank); fits (L-BFGS):"
    table "$O/fits.tsv" | grep -v '^ *# '
    say ""
    say "Rank-10 language: rank $(tsv_field "$O/lowrank_rank.tsv" rank), d* $(tsv_field "$O/lowrank_rank_centered.tsv" rank); softmax fits (L-BFGS):"
    table "$O/bottleneck.tsv" | grep -v '^ *# '
    say ""
    say "sbw-verify (quick): $(sed -n 's/^- Result: //p' "$O/verify.md") (verify.md)"
} >"$O/summary.txt.tmp"
mv "$O/summary.txt.tmp" "$O/summary.txt"
say ""
cat "$O/summary.txt"
say ""
say "Report: $O/report.md (its first screen says what the run shows); TSVs, *.png with their *.gp and *.dat in $O/."
[ $vst -eq 0 ] || { say "sbw-verify reported a failing claim (exit $vst): see $O/verify.md" >&2; exit 1; }
