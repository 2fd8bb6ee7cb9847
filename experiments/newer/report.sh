#!/bin/sh
# experiments/newer/report.sh -- report.md for issue 31's newer questions,
# on sbw's own models: Mixtape beside Softmax and MoS at the common PTB
# budget, the gradient bottleneck, recovering a model's hidden size from its
# outputs, the spectral decay of the PTB models' log-probability matrices,
# and which tokens a truncation may drop.  It reads the TSVs the recipes and
# tools wrote and computes nothing itself: sbw-series fits and orders,
# sbw-plot draws and renders the tables, and every table cites the
# `# command=` line of each TSV its numbers come from.  A model or table not
# there yet is a "not yet measured" line with the command that makes it,
# never a number.
#
# usage: [RES=DIR] [HIDDEN=FILE] [BENCH=FILE] [TRUNC=FILE] [OUT=DIR]
#        [QUICK=1] [BIN=DIR] experiments/newer/report.sh
# Environment:
#   RES     experiments/ptb/run.sh's results folder [experiments/ptb/results]:
#           MODEL/train.tsv, eval-*.tsv, rank*.tsv, kl-*.tsv (run.sh train,
#           eval) and MODEL/gradneck.tsv, decay.tsv, spectrum-center.tsv
#           (run.sh measure)
#   MEASURED  a second results folder of run.sh (a retrain's RES) whose
#           models' measure files are read instead of RES's: a model's
#           gradient-bottleneck and decay rows, its rank and spectrum then
#           all come from MEASURED/MODEL [none: RES]
#   HIDDEN  experiments/hidden/run.sh's hidden.tsv
#           [experiments/hidden/results/hidden.tsv]
#   BENCH   a report of bench/bench_lm.sh (make bench: out/bench/report.txt),
#           whose same-size block times Softmax, MoS and Mixtape [none]
#   TRUNC   an sbw-argmax --truncation table [none]
#   OUT     where report.md and figures/ go [experiments/newer]
#   QUICK   1: RES is run.sh --quick's (MoS is mos-k3, Mixtape K = 2)
#   BIN     the folder of the sbw tools [bin]
# Paths may hold spaces and commas (sbw-plot runs inside RES and the
# figures' folder, given plain names).  A figure or table that a tool fails
# to make is left out, the report is still written, and the script exits 1.
#
# Example, once run.sh train, eval and measure have run:
#   experiments/newer/report.sh
#   RES=/var/tmp/sbw/ptb-res BENCH=out/bench/report.txt experiments/newer/report.sh
set -eu
# -h or --help: the comment above, exit 0 (before anything runs)
case ${1:-} in -h | --help)
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
esac
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/../.."
. scripts/tsv.sh
. scripts/recipe.sh
ROOT=$(pwd)
if [ -n "${BIN:-}" ]; then BIN=$(recipe_abs "$BIN"); else BIN=$ROOT/bin; fi
RES=$(recipe_abs "${RES:-}") HIDDEN=$(recipe_abs "${HIDDEN:-}") OUT=$(recipe_abs "${OUT:-}")
MEASURED=$(recipe_abs "${MEASURED:-}")
BENCH=$(recipe_abs "${BENCH:-}") TRUNC=$(recipe_abs "${TRUNC:-}")
RES=${RES:-experiments/ptb/results}
HIDDEN=${HIDDEN:-experiments/hidden/results/hidden.tsv}
OUT=${OUT:-experiments/newer}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then MOS=mos-k3; else MOS=mos-k15; fi
[ -d "$RES" ] || { echo "report.sh: no results folder $RES (set RES=DIR)" >&2; exit 1; }
[ -z "$MEASURED" ] || [ -d "$MEASURED" ] || { echo "report.sh: no results folder $MEASURED (MEASURED)" >&2; exit 1; }
for f in "$BENCH" "$TRUNC"; do
    [ -z "$f" ] || [ -s "$f" ] || { echo "report.sh: $f: no such file" >&2; exit 1; }
done
mkdir -p "$OUT/figures"
RESA=$(cd "$RES" && pwd)
FIG=$(cd "$OUT/figures" && pwd)
DOC=$OUT/report.md
TAB=$(mktemp -d "${TMPDIR:-/tmp}/sbw-newer-XXXXXX")
trap 'rm -rf "$TAB"; rm -f "$DOC.tmp"' EXIT
trap 'rm -rf "$TAB"; rm -f "$DOC.tmp"; exit 130' INT
trap 'rm -rf "$TAB"; rm -f "$DOC.tmp"; exit 143' TERM
rfail=0
# Every TSV is read through $SRC: ptb/ is RES, measured/ is MEASURED; the
# tables cite these names (sbw-plot splits --cite at commas, and RES may
# hold one), and the report says what they stand for.
SRC=$TAB/src
mkdir "$SRC"
ln -s "$RESA" "$SRC/ptb"
[ -z "$MEASURED" ] || ln -s "$(cd "$MEASURED" && pwd)" "$SRC/measured"

# v FILE COLUMN [FORMAT]: a value of FILE's first row (FILE relative to
# SRC: ptb/MODEL/... or measured/MODEL/...), or — when missing
v() {
    if [ -s "$SRC/$1" ]; then
        x=$(tsv_field "$SRC/$1" "$2")
        [ -n "$x" ] && { printf "${3:-%s}" "$x"; return; }
    fi
    printf '—'
}
# m FILE KEY [FORMAT]: a "# KEY=" value of FILE (relative to SRC), or —
m() {
    if [ -s "$SRC/$1" ]; then
        x=$(tsv_meta "$SRC/$1" "$2")
        [ -n "$x" ] && { printf "${3:-%s}" "$x"; return; }
    fi
    printf '—'
}
row() { (IFS='	' && printf '%s\n' "$*"); }
# table TSV CITES ARG...: sbw-plot table of $TAB/TSV, citing the
# comma-separated CITES (files relative to SRC) or none when empty
table() {
    tt=$1 tc=$2
    shift 2
    if [ -n "$tc" ]; then set -- --cite "$tc" "$@"; else set -- --no-cite "$@"; fi
    if (cd "$SRC" && "$BIN/sbw-plot" table "$TAB/$tt" "$@"); then :; else
        echo "report.sh: sbw-plot table could not render $tt" >&2
        echo "(the table could not be rendered)"
        rfail=1
    fi
}
# label NAME: the report's name for a model of run.sh (its first word is
# the head, which sbw-plot's styles read)
label() {
    case $1 in
    softmax) echo Softmax ;; moc) echo MoC ;; sigsoftmax) echo Sigsoftmax ;; plif) echo PLIF ;;
    mixtape) if [ -s "$RES/mixtape/train.tsv" ]; then echo "Mixtape K=$(v ptb/mixtape/train.tsv k)"; else echo Mixtape; fi ;;
    mos-k*) echo "MoS K=${1#mos-k}" ;;
    *) echo "$1" ;;
    esac
}
# the models of issue 31's questions, in the order of the tables
MODELS="softmax moc $MOS mixtape plif sigsoftmax"
# cites FILE...: those of FILE (relative to SRC) that exist, comma-separated
cites() {
    cl=""
    for f in "$@"; do [ -s "$SRC/$f" ] && cl="$cl${cl:+,}$f"; done
    printf '%s' "$cl"
}
# md MODEL: where MODEL's measurements are read: measured/MODEL when
# MEASURED has its gradneck.tsv or decay.tsv, else ptb/MODEL
md() {
    if [ -n "$MEASURED" ] && { [ -s "$SRC/measured/$1/gradneck.tsv" ] || [ -s "$SRC/measured/$1/decay.tsv" ]; }; then
        echo "measured/$1"
    else
        echo "ptb/$1"
    fi
}
# not_yet NAME WHAT: the line for a model without WHAT's files
not_yet() {
    if [ ! -s "$SRC/ptb/$1/train.tsv" ] && [ ! -s "$SRC/measured/$1/train.tsv" ]; then
        echo "- $(label "$1") ($1): not yet measured: not trained here (\`experiments/ptb/run.sh$([ "$QUICK" = 1 ] && echo ' --quick') train $1\`, then \`eval $1\`$([ "$2" = measure ] && echo " and \`measure $1\`"))."
    elif [ "$2" = measure ]; then
        echo "- $(label "$1") ($1): not yet measured (\`experiments/ptb/run.sh$([ "$QUICK" = 1 ] && echo ' --quick') measure $1\`, which needs its checkpoint)."
    else
        echo "- $(label "$1") ($1): not yet evaluated (\`experiments/ptb/run.sh$([ "$QUICK" = 1 ] && echo ' --quick') eval $1\`)."
    fi
}

# ---- 1. Mixtape against Softmax and MoS at the common budget ---------------------------
{
    row model d k params epochs tokens_per_s ppl_valid ppl_test rank rank_bound d_star kl_valid kl_test
    for n in softmax "$MOS" mixtape; do
        p=ptb/$n
        row "$(label "$n")" "$(v "$p/train.tsv" d)" "$(v "$p/train.tsv" k)" "$(v "$p/train.tsv" params)" \
            "$(v "$p/train.tsv" epochs)" "$(v "$p/train.tsv" tokens_per_s)" "$(v "$p/eval-valid.tsv" ppl)" \
            "$(v "$p/eval-test.tsv" ppl)" "$(v "$p/rank.tsv" rank)" "$(v "$p/train.tsv" rank_bound)" \
            "$(v "$p/rank-center.tsv" rank)" "$(v "$p/kl-valid.tsv" expected_pairwise_kl)" \
            "$(v "$p/kl-test.tsv" expected_pairwise_kl)"
    done
} >"$TAB/mixtape.tsv"
mix_cites=$(for n in softmax "$MOS" mixtape; do for f in train eval-valid eval-test rank rank-center kl-valid kl-test; do
    printf '%s\n' "ptb/$n/$f.tsv"
done; done | tr '\n' ' ')
# shellcheck disable=SC2086 # plain model and file names
mix_cites=$(cites $mix_cites)

# ---- 2. the gradient bottleneck ----------------------------------------------------------
{
    row model path n mean sd q05 q25 q50 q75 q95 suppressed rank
    for n in $MODELS; do
        f=$(md "$n")/gradneck.tsv
        [ -s "$SRC/$f" ] || continue
        row "$(label "$n")" "$(m "$f" gradneck_path)" "$(m "$f" gradneck_n)" "$(m "$f" gradneck_mean)" \
            "$(m "$f" gradneck_sd)" "$(m "$f" gradneck_q05)" "$(m "$f" gradneck_q25)" "$(m "$f" gradneck_q50)" \
            "$(m "$f" gradneck_q75)" "$(m "$f" gradneck_q95)" "$(m "$f" gradneck_suppressed_mean)" \
            "$(v "$(md "$n")/rank.tsv" rank)"
    done
} >"$TAB/gradneck.tsv"
gn_cites=""
for n in $MODELS; do
    [ -s "$SRC/$(md "$n")/gradneck.tsv" ] && gn_cites="$gn_cites $(md "$n")/gradneck.tsv $(md "$n")/rank.tsv"
done
# shellcheck disable=SC2086
gn_cites=$(cites $gn_cites)
# the two orders the question compares, as label sequences
for n in $MODELS; do
    p=$(md "$n")
    [ -s "$SRC/$p/gradneck.tsv" ] && [ -s "$SRC/$p/rank.tsv" ] &&
        printf '%s\t%s\n' "$(label "$n")" "$(m "$p/gradneck.tsv" gradneck_suppressed_mean)"
done >"$TAB/supp"
for n in $MODELS; do
    p=$(md "$n")
    [ -s "$SRC/$p/gradneck.tsv" ] && [ -s "$SRC/$p/rank.tsv" ] && printf '%s\t%s\n' "$(label "$n")" "$(v "$p/rank.tsv" rank)"
done >"$TAB/ranks"
seq_of() { "$BIN/sbw-series" -q --order "$2" "$1" | tsv_rows /dev/stdin | sed 1d | cut -f 1,3 | tr '\n' ' '; }
gn_verdict=""
if [ "$(grep -c . "$TAB/supp")" -gt 1 ]; then
    # suppressed, largest first, against rank, smallest first: the same
    # sequence (ties included) is "a higher rank suppresses less" on every model
    if [ "$(seq_of "$TAB/supp" desc | sed 's/\t[<>=-]//g')" = "$(seq_of "$TAB/ranks" asc | sed 's/\t[<>=-]//g')" ]; then
        gn_verdict="Yes on these models: ordered by rank, from the lowest, they are ordered by suppressed share, from the largest"
    else
        gn_verdict="Not as a rule on these models: their order by rank and their order by suppressed share differ"
    fi
fi

# ---- 3. hidden size from the outputs -----------------------------------------------------
hid=""
if [ -s "$HIDDEN" ]; then
    hid=1
    hd=$(tsv_meta "$HIDDEN" d)
    # per model and precision: the Ns measured, the first N whose
    # hidden_size is D and at how many Ns it is (sbw-series --against D),
    # and the status at the largest N
    {
        row model head bias precision ns first_n recovered other status_at_max
        tsv_rows "$HIDDEN" | sed 1d | cut -f 1-3,6 | awk '!s[$0]++' | while IFS='	' read -r hm hh hb hp; do
            tsv_rows "$HIDDEN" | awk -F'\t' -v a="$hm" -v p="$hp" 'NR == 1 || ($1 == a && $6 == p)' >"$TAB/hsel"
            s=$("$BIN/sbw-series" -q --column hidden_size --label n --against "$hd" "$TAB/hsel")
            fe=$(printf '%s\n' "$s" | tsv_field /dev/stdin first_equal)
            # the Ns whose answer is a size other than D (a wrong one), as "N: size"
            other=$(tsv_rows "$TAB/hsel" | sed 1d | awk -F'\t' -v d="$hd" '$7 != d && $7 != "-1" { printf "%s%s: %s", (n++ ? ", " : ""), $5, $7 }')
            row "$hm" "$hh" "$hb" "$hp" "$(printf '%s\n' "$s" | tsv_field /dev/stdin n)" \
                "$([ "$fe" = none ] && echo never || echo "$fe")" "$(printf '%s\n' "$s" | tsv_field /dev/stdin equal)" \
                "${other:-none}" "$(tsv_rows "$TAB/hsel" | tail -n 1 | cut -f 8)"
        done
    } >"$TAB/hidden-summary.tsv"
    # every (model, precision) against N: hidden_size (status)
    ns=$(tsv_rows "$HIDDEN" | sed 1d | cut -f 5 | awk '!s[$0]++' | tr '\n' ' ')
    {
        # shellcheck disable=SC2086
        row model precision $ns
        tsv_rows "$HIDDEN" | sed 1d | awk -F'\t' -v OFS='\t' '
            !(($1, $6) in seen) { seen[$1, $6] = 1; key[++nk] = $1 SUBSEP $6 }
            { cell[$1, $6, $5] = $7 " (" $8 ")"; if (!($5 in hn)) { hn[$5] = 1; n[++nn] = $5 } }
            END {
                for (i = 1; i <= nk; i++) {
                    split(key[i], k, SUBSEP)
                    line = k[1] OFS k[2]
                    for (j = 1; j <= nn; j++) line = line OFS ((k[1], k[2], n[j]) in cell ? cell[k[1], k[2], n[j]] : "—")
                    print line
                }
            }'
    } >"$TAB/hidden-by-n.tsv"
fi

# ---- 4. spectral decay: the figure and the table ------------------------------------------
figs=""
dec_series="" dec_labels="" dec_cites=""
{
    row model rank_center lo hi points alpha alpha_se r2 log_c
    for n in $MODELS; do
        p=$(md "$n")
        f=$p/decay.tsv
        [ -s "$SRC/$f" ] && [ -s "$SRC/$p/spectrum-center.tsv" ] || continue
        row "$(label "$n")" "$(v "$f" rank)" "$(m "$f" decay_lo)" "$(m "$f" decay_hi)" "$(m "$f" decay_points)" \
            "$(m "$f" decay_alpha)" "$(m "$f" decay_alpha_se)" "$(m "$f" decay_r2)" "$(m "$f" decay_log_c)"
        dec_cites="$dec_cites${dec_cites:+,}$f,$p/spectrum-center.tsv"
        # the spectrum by 1-based index (nl numbers the rows) and the fitted
        # line's two ends: sbw-series --fit log of log10 sigma on ln i over
        # the same indices (the same least squares, divided by ln 10)
        {
            printf 'i\tlog10_sigma\n'
            tsv_rows "$SRC/$p/spectrum-center.tsv" | sed 1d | cut -f 4 | nl -b a -w 1 -s '	'
        } >"$FIG/decay-$n.tsv"
        lo=$(tsv_meta "$SRC/$f" decay_lo)
        hi=$(tsv_meta "$SRC/$f" decay_hi)
        case $lo$hi in '' | *[!0-9]*)
            echo "report.sh: $f: decay_lo '$lo' or decay_hi '$hi' is not a whole number" >&2
            rfail=1
            continue
            ;;
        esac
        sed -n "1p;$((lo + 1)),$((hi + 1))p" "$FIG/decay-$n.tsv" >"$TAB/fitpts"
        if a=$("$BIN/sbw-series" -q --column log10_sigma --label i --fit log --at "$lo" "$TAB/fitpts") &&
            b=$("$BIN/sbw-series" -q --column log10_sigma --label i --fit log --at "$hi" "$TAB/fitpts"); then
            printf '# command=experiments/newer/report.sh: sbw-series --column log10_sigma --label i --fit log --at LO|HI over decay-%s.tsv rows %s..%s\ni\tlog10_sigma\n%s\t%s\n%s\t%s\n' \
                "$n" "$lo" "$hi" "$lo" "$(printf '%s\n' "$a" | tsv_field /dev/stdin value_at)" \
                "$hi" "$(printf '%s\n' "$b" | tsv_field /dev/stdin value_at)" >"$FIG/decay-$n-fit.tsv"
            printf '%s\t%s\n' "$n" "$(printf '%s\n' "$a" | tsv_field /dev/stdin slope)" >>"$TAB/slopes"
            dec_series="$dec_series decay-$n.tsv decay-$n-fit.tsv"
            dec_labels="$dec_labels${dec_labels:+,}$(label "$n"),$(label "$n") fit"
        else
            echo "report.sh: sbw-series could not fit $n's spectrum" >&2
            rfail=1
        fi
    done
} >"$TAB/decay.tsv"
if [ -n "$dec_series" ]; then
    # shellcheck disable=SC2086 # plain file names
    if (cd "$FIG" && "$BIN/sbw-plot" train $dec_series --x i --y log10_sigma --logx --labels "$dec_labels" \
        --title "Centred spectra of log Q and their power-law fits" -q -o decay); then
        figs="$figs decay"
    else
        echo "report.sh: sbw-plot could not draw the decay figure" >&2
        rfail=1
    fi
fi

# ---- 5. truncation ------------------------------------------------------------------------
tr_fig=""
if [ -n "$TRUNC" ]; then
    # the first context's tokens by probability, largest first, numbered
    # (nl), one series per decision: what the threshold keeps, what the LP
    # proves nonzero below it, what may be dropped
    {
        printf 'by_prob\tlogp\tdecision\n'
        tsv_rows "$TRUNC" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["context"] == 0 { print $c["logp"] "\t" ($c["keep"] == 1 ? ($c["reason"] == "threshold" ? "kept: threshold" : "kept: proven (LP dual)") : ($c["keep"] == 0 ? "may drop (witness)" : "undecided")) }' |
            sort -t '	' -k1,1gr | nl -b a -w 1 -s '	'
    } >"$FIG/truncation-context0.tsv"
    if (cd "$FIG" && "$BIN/sbw-plot" train truncation-context0.tsv --x by_prob --y logp --series decision --logx \
        --title "One context's tokens by probability: what a truncation may drop" -q -o truncation); then
        tr_fig=1
    else
        echo "report.sh: sbw-plot could not draw the truncation figure" >&2
        rfail=1
    fi
fi

# ---- the report -----------------------------------------------------------------------------
relpath() { case $1 in "$ROOT"/*) printf '%s' "${1#"$ROOT"/}" ;; *) printf '%s' "$1" ;; esac; }
{
    echo "# The field's newer questions on sbw's own models (issue 31)"
    echo
    if [ "$QUICK" = 1 ]; then
        echo "**Quick mode**: \`experiments/ptb/run.sh --quick\`'s toy models on a generated corpus; the pipeline, not the science."
        echo
    fi
    echo "Made by \`experiments/newer/report.sh\` from the TSVs of experiments/ptb/run.sh's train, eval and"
    echo "measure steps in \`$(relpath "$RES")\` (ptb/ below)$([ -n "$MEASURED" ] && echo " and, for the models measured there, \`$(relpath "$MEASURED")\` (measured/ below)")"
    echo "and \`$(relpath "$HIDDEN")\`. Under every table, the \`# command=\` line of each TSV its numbers come"
    echo "from. A model whose TSVs are not there yet is listed as not yet measured, with the command that measures it."
    echo
    echo "## 1. Mixtape (Yang, Luong, Salakhutdinov and Le, NeurIPS 2019)"
    echo
    echo "At the common budget of experiments/ptb (one network, optimiser and number of epochs for every head;"
    echo "experiments/ptb/run.sh's COMMON), Mixtape beside Softmax and MoS. Rank: the NR rank of the first"
    echo "$(v ptb/softmax/rank.tsv m) test predictions' float64 log Q; its bound is sbw-lm train's rank_bound (Softmax D + 2,"
    echo "Mixtape D + F + 2 from its gate sharing, F = ceil(M/10); none for MoS); d*: the row-centred rank; KLD: the"
    echo "expected pairwise KL divergence (MoS Table 11) on the whole split."
    echo
    table mixtape.tsv "$mix_cites" --columns "model,d=D,k=K,params=parameters,epochs,tokens_per_s=training tokens/s,ppl_valid=valid ppl,ppl_test=test ppl,rank,rank_bound=rank bound,d_star=d*,kl_valid=KLD valid,kl_test=KLD test" \
        --format tokens_per_s=%.0f,ppl_valid=%.2f,ppl_test=%.2f,kl_valid=%.3f,kl_test=%.3f
    echo
    for n in softmax "$MOS" mixtape; do [ -s "$RES/$n/eval-test.tsv" ] || not_yet "$n" eval; done
    echo
    printf 'Test perplexity, lowest first: '
    for n in softmax "$MOS" mixtape; do
        [ -s "$RES/$n/eval-test.tsv" ] && printf '%s\t%s\n' "$(label "$n")" "$(v "ptb/$n/eval-test.tsv" ppl)"
    done | recipe_order asc %.2f
    echo
    echo "Training speed (the paper: Mixtape 3.5 to 10.5 times MoS's speed, 20 to 34% slower than Softmax). The"
    echo "tokens/s above are each run's own (train.tsv; runs may have shared the cores, see experiments/ptb/report.md)."
    echo "The like-for-like measurement is \`make bench\`'s bench/bench_lm.sh, whose same-size block trains"
    echo "Softmax, MoS and Mixtape with one network at D = 280 one after another:"
    echo
    if [ -n "$BENCH" ]; then
        echo "From \`$(relpath "$BENCH")\`:"
        echo
        echo '```'
        grep -E '^lm (softmax|mos|mixtape) D=[0-9]+( --k [0-9]+)? \(emb |^lm mixtape K=' "$BENCH" || echo "(no same-size lines in this file)"
        echo '```'
    else
        echo "Not yet measured here: run \`make bench\` (or \`sh bench/bench_lm.sh\`, PTB at \$SBW_PTB) and rerun"
        echo "with \`BENCH=out/bench/report.txt experiments/newer/report.sh\`."
    fi
    echo
    echo "## 2. The gradient bottleneck (Godey and Artzi 2026)"
    echo
    echo "For each of the first test predictions (\`run.sh measure\`: \`sbw-lm eval --gradneck\`), the share of the"
    echo "logit-space gradient g = q - e_next that the head passes back to its context: passed = ||P g|| / ||g||,"
    echo "P the projector onto the range of C1 d(log q)/dh (C1 = I - 11ᵀ/M: logits are defined up to a shift)."
    echo "A Softmax head's range is C1 W, the same for every context (path single_map); for MoC, MoS, Mixtape,"
    echo "PLIF and Sigsoftmax the logits are not one linear map of h, and the analogue is each context's own"
    echo "Jacobian's range (path jacobian). Godey and Artzi report 95-99% of the gradient suppressed"
    echo "(passed 1-5%) for Softmax heads of large LMs. For scale: a g with no preferred direction in the"
    echo "(M - 1)-dimensional centred space would pass sqrt(r/(M - 1)) of its norm through a rank-r range, 0.20"
    echo "for r = 400 and 0.17 for r = 280 at M = 10,000. MoC's range is that of C1 W A with A = d hbar/dh (D x C):"
    echo "with C = D and A invertible it is C1 W's, so MoC passes exactly what its one map W would, a property"
    echo "of W as for Softmax (sbw_gradneck.c states each head's closed form). Mean, sd and quantiles of passed"
    echo "over the n predictions:"
    echo
    if [ "$(grep -c . "$TAB/gradneck.tsv")" -gt 1 ]; then
        table gradneck.tsv "$gn_cites" --columns "model,path,n,mean=passed: mean,sd,q05,q25,q50=median,q75,q95,suppressed=suppressed: mean,rank" \
            --format mean=%.3f,sd=%.3f,q05=%.3f,q25=%.3f,q50=%.3f,q75=%.3f,q95=%.3f,suppressed=%.3f
        echo
    fi
    for n in $MODELS; do [ -s "$SRC/$(md "$n")/gradneck.tsv" ] || not_yet "$n" measure; done
    echo
    # a model read from MEASURED is a retrain of ptb/'s (its checkpoint was
    # gone): say so, with both runs' validation perplexity
    for n in $MODELS; do
        case $(md "$n") in measured/*) ;; *) continue ;; esac
        [ -s "$SRC/measured/$n/eval-valid.tsv" ] || continue
        echo "- $(label "$n") is measured on a retrain with the same recipe (\`measured/$n/train.tsv\`), whose"
        echo "  validation perplexity is $(v "measured/$n/eval-valid.tsv" ppl %.2f) against $(v "ptb/$n/eval-valid.tsv" ppl %.2f) for the run of the tables above; its rank here is the retrain's."
    done
    echo
    printf 'Mean suppressed share, largest first: '
    recipe_order desc <"$TAB/supp"
    printf 'Rank of log Q, lowest first: '
    recipe_order asc %s <"$TAB/ranks"
    echo
    if [ -n "$gn_verdict" ]; then
        echo "Does a high-rank head suppress less? $gn_verdict."
        echo "What bounds one context's passed share is the rank of that context's Jacobian (M x C, so at most"
        echo "its context width C), not the rank of log Q over many contexts: a head whose log Q has full rank"
        echo "(PLIF, MoS) still passes each gradient through a range of dimension at most C."
    else
        echo "Does a high-rank head suppress less? Not yet answerable: fewer than two models measured."
    fi
    echo
    echo "## 3. Recovering a model's hidden size from its outputs (Carlini et al. 2024; Finlayson, Ren and Swayamdipta 2024)"
    echo
    if [ -n "$hid" ]; then
        echo "\`$(relpath "$HIDDEN")\` (experiments/hidden/run.sh): sbw-lm models with D = $hd, their full log-probability"
        echo "vectors for the first N validation positions, rounded as an API storing each precision would return"
        echo "them (sbw-rank --round), and \`sbw-rank --hidden-size\`: D read off the drop of the double-centred"
        echo "spectrum. Status certified: the values past the drop lie within the rounding (proven); probable: the"
        echo "largest gap sits at the typical rounding floor; no_drop: no decided drop (hidden_size -1);"
        echo "too_few_queries: N too small. Per model and precision (first N: the smallest N giving D = $hd,"
        echo "sbw-series --against $hd; then at how many of the Ns it is D, and where a size other than D and -1 came out):"
        echo
        "$BIN/sbw-plot" table "$TAB/hidden-summary.tsv" --cite "$HIDDEN" \
            --columns "model,head,bias,precision,ns=Ns measured,first_n=first N giving D,recovered=Ns giving D,other=Ns giving another size (N: size),status_at_max=status at the largest N" ||
            { echo "(the table could not be rendered)"; rfail=1; }
        echo
        echo "Every N, hidden_size (status):"
        echo
        "$BIN/sbw-plot" table "$TAB/hidden-by-n.tsv" --cite "$HIDDEN" || { echo "(the table could not be rendered)"; rfail=1; }
    else
        echo "Not yet measured: no \`$(relpath "$HIDDEN")\` (run \`experiments/hidden/run.sh\`, or set HIDDEN=FILE)."
    fi
    echo
    echo "## 4. Spectral decay (Golowich, Liu and Shetty 2025)"
    echo
    echo "σ_i ∝ i^(-α) fitted by least squares of ln σ_i on ln i (\`sbw-rank --center --decay\`) to the singular"
    echo "values of the row-centred log Q of the first $(v "$(md softmax)/rank.tsv" m) test predictions (\`run.sh measure\`: the"
    echo "rank step's matrix, centred as rank-center.tsv's; centring removes each row's log-normaliser, so it is also"
    echo "the centred logit matrix). The range is each decay.tsv's decay_lo..decay_hi: with DECAY=auto, 1 to the"
    echo "centred rank, so a head bounded by D + 1 is fitted over its D + 1 values and a full-rank head over all."
    echo "α ± se (se = sqrt(SSR/(n-2)/Sxx): the fit's uncertainty, not a confidence interval, for consecutive"
    echo "singular values are not independent):"
    echo
    if [ "$(grep -c . "$TAB/decay.tsv")" -gt 1 ]; then
        table decay.tsv "$dec_cites" --columns "model,rank_center=centred rank,lo=from i,hi=to i,points,alpha=α,alpha_se=se,r2=R²,log_c=ln C" \
            --format alpha=%.3f,alpha_se=%.3f,r2=%.3f,log_c=%.3f
        echo
    fi
    for n in $MODELS; do [ -s "$SRC/$(md "$n")/decay.tsv" ] || not_yet "$n" measure; done
    echo
    printf 'α, largest first: '
    for n in $MODELS; do
        [ -s "$SRC/$(md "$n")/decay.tsv" ] && printf '%s\t%s\n' "$(label "$n")" "$(m "$(md "$n")/decay.tsv" decay_alpha)"
    done | recipe_order desc
    echo
    case " $figs " in *" decay "*)
        echo "The figure: log10 σ_i against i (log axis) for each measured model (\`figures/decay-MODEL.tsv\`, the"
        echo "spectrum-center.tsv values numbered from 1), and its fitted line drawn between decay_lo and decay_hi"
        echo "(\`figures/decay-MODEL-fit.tsv\`: \`sbw-series --fit log\` of log10 σ on ln i over the same indices, the"
        echo "same least squares as sbw-rank's divided by ln 10; its slope × (-ln 10) is the table's α)."
        echo
        echo "![decay](figures/decay.png)"
        echo
        ;;
    esac
    echo "## 5. Which tokens a truncation may drop (Finlayson et al., ICLR 2024)"
    echo
    echo "Basis-aware truncation asks, for each token of a model output, whether its true probability could be"
    echo "zero given the head's W: a linear program per (context, token). \`sbw-argmax --truncation LOGP W.npy\`"
    echo "solves it with GLPK and proves each answer (a Farkas vector, checked in double with a rounding bound"
    echo "and exactly with GMP where needed, for a token that must be kept; a witness distribution for one that"
    echo "may be dropped). It is checked against SciPy's linprog on small heads (tests/test_argmax_trunc.c with"
    echo "tests/fixtures/make_trunc_fixtures.py) and timed against it in \`make bench\` (bench/bench_trunc.sh)."
    echo "experiments/heads has no truncation run: the tables there are the words a Softmax head can never"
    echo "predict (sbw-argmax without --truncation)."
    echo
    if [ -n "$TRUNC" ]; then
        sig=$(tsv_meta "$TRUNC" sigma)
        echo "From \`$(relpath "$TRUNC")\` (σ = $sig: p*_j <= σ p̂_j), $(tsv_meta "$TRUNC" contexts) contexts of"
        echo "M = $(tsv_meta "$TRUNC" m) tokens, D = $(tsv_meta "$TRUNC" d): $(tsv_meta "$TRUNC" checked) (context, token) pairs checked,"
        echo "$(tsv_meta "$TRUNC" keep) kept ($(tsv_meta "$TRUNC" by_threshold) by the threshold rule p̂_i > 1 - 1/σ, the rest"
        echo "by the LP's dual), $(tsv_meta "$TRUNC" may_drop) may be dropped, $(tsv_meta "$TRUNC" undecided) undecided; $(tsv_meta "$TRUNC" lp_solves) LPs in"
        echo "$(tsv_meta "$TRUNC" seconds | awk '{ printf "%.2f", $1 }') s. Its command: \`$(tsv_meta "$TRUNC" command | tr -d '`')\`."
        tr_eval=$(dirname "$TRUNC")/eval.tsv
        if [ -s "$tr_eval" ]; then
            echo "The outputs are the model's first $(tsv_field "$tr_eval" tokens) $(tsv_field "$tr_eval" split) predictions (\`$(relpath "$tr_eval")\`: \`$(tsv_meta "$tr_eval" command | tr -d '`')\`),"
            echo "made with the table by \`experiments/newer/truncation.sh\`."
        fi
        echo
        if [ -n "$tr_fig" ]; then
            echo "The figure: the first context's tokens by probability (largest first, on a log axis), one series per"
            echo "decision (\`figures/truncation-context0.tsv\`). Tokens below the threshold that the LP proves"
            echo "nonzero are what basis-aware truncation keeps and a plain threshold would drop."
            echo
            echo "![truncation](figures/truncation.png)"
        fi
    else
        echo "Not yet measured on a PTB model here: for a Softmax model (its word bias does not enter the program),"
        echo "\`experiments/newer/truncation.sh --ckpt CK --words 0:49 -o DIR\` (the head exported, the log Q of the first"
        echo "prediction, \`sbw-argmax --truncation\` at the paper's threshold 0.001), then rerun with TRUNC=DIR/trunc.tsv"
        echo "(one LP of D + 1 rows and M columns per token below the threshold, about a minute each at M = 10,000:"
        echo "choose few tokens)."
    fi
} >"$DOC.tmp"
mv "$DOC.tmp" "$DOC"
echo "report: $DOC"
exit $rfail
