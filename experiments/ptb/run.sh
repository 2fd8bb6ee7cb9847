#!/bin/sh
# experiments/ptb/run.sh -- MoS Tables 6, 7 and 11 and Figure 1 on Penn
# Treebank, beside the papers' numbers (issue 15), by chaining sbw-lm,
# sbw-rank, sbw-kl and sbw-plot.
#
# usage: experiments/ptb/run.sh [--quick | --long] [STEP] [MODEL...]
#   STEP   train | traj | eval | measure | report | all (default: all =
#          train, eval, report; with --long: train, traj, eval; --long
#          report writes long/report.md, the runs along training:
#          report_long.sh; measure is never part of all)
#   MODEL  any of the names below (default: every model, in this order)
#
# measure (issue 31's newer questions, for experiments/newer/report.sh,
# and issue 28's float32 ranks, for report.sh): for each model trained and
# evaluated here (its final checkpoint in $STATE/MODEL, its results in
# $RES/MODEL), three files more in $RES/MODEL/:
#   gradneck.tsv  the gradient bottleneck (Godey and Artzi 2026: sbw-lm
#                 eval --gradneck) of the first GRADNECK_T test predictions,
#                 one row each under the summary (gradneck_mean, _q05 ..
#                 _q95); a Softmax head's is one map, the other heads'
#                 Jacobians have closed forms but Mixtape's and
#                 MoS+PLIF's, which cost M head passes per prediction
#                 (hence GRADNECK_T);
#   decay.tsv     sbw-rank --center --decay DECAY on the rank step's matrix
#                 (the first RANK_T test predictions), row-centred as
#                 rank-center.tsv's: the power-law fit sigma_i ~ i^-alpha
#                 (Golowich, Liu and Shetty 2025; row-centring removes each
#                 row's log-normaliser, so logits and log-probabilities
#                 give the same matrix) in its header (decay_alpha, _se,
#                 _lo, _hi, _r2), with that matrix's spectrum in
#                 spectrum-center.tsv;
#   rank-f32.tsv  sbw-rank on the same rows from a float32 forward pass,
#                 stored as float32 (sbw-lm eval --single --logprobs), so at
#                 float32's eps: the rank a float32 implementation measures
#                 (Parthiban et al. 2021's way), beside rank.tsv's
#                 rank_single, the float64 matrix's at float32's eps.
# Each file is written once (a rerun skips it) and appears whole or not at
# all.  A model without a final checkpoint here ("not trained here") or
# without its evaluation ("not evaluated yet") is named in one line and
# skipped, not an error.  Before measuring, the checkpoint's perplexity on
# the first RANK_T test predictions must be the one in
# $RES/MODEL/eval-rank-rows.tsv (8 digits): a checkpoint of another
# training than the results in RES (a retrain whose RES is elsewhere) is
# refused.  GRADNECK_T (100; 300 with --quick) and DECAY (auto = 1:the
# centred rank) may be set in the environment.
#
# --long: issue 28's runs, the papers' recipes (sbw-lm --preset awd and
# --preset mos, with the deviations stated beside MODELS below) trained for
# up to 25 epochs or until validation perplexity is at most 85 (Table 6
# and 11's three models) and 8 epochs (Table 7's MoS K), a snapshot at the
# end of every epoch, into experiments/ptb/long/ and /var/tmp/sbw/ptb-long.
# traj measures every snapshot once (traj.tsv, one row per epoch): the
# validation perplexity, and on the first TRAJ_T = 10,000 validation
# predictions the NR rank at float64's and float32's eps, d* (the rank of
# the row-centred matrix) and the exact expected pairwise KL.
#
# Each model is a step of its own: `train` runs sbw-lm for at most
# STEP_HOURS (default 2) and stops it with SIGTERM, which writes a
# checkpoint; rerunning the recipe resumes it where it stopped.  A finished
# model's small results (the log, the final table, perplexities, ranks,
# spectra, KL, the curve along training, a plif head's learned f in f/)
# go to $RES/MODEL/ and are never redone; checkpoints, snapshots and the
# full export (parameters: large) stay in $STATE,
# outside the work tree, and log-probability matrices are never stored (a
# PTB test matrix is 6.6 GB): they stream from sbw-lm eval into sbw-rank and
# sbw-kl through pipes.
#
# Environment: PTB (../shared/data/ptb), STATE (/var/tmp/sbw/ptb), RES
# (experiments/ptb/results), BIN (bin), STEP_HOURS (2), THREADS (2),
# GRADNECK_T and DECAY (measure, above), PRECISION (--long: bf16, or
# single for float32 on a CPU without AVX-512 BF16).
# On two cores, two models at a time on one thread each get through more
# work than one model on two threads (an LSTM step's products are too small
# for a second BLAS thread to double the speed); that is how MoS K = 3, 5,
# 10 and 20 were run:
#   for m in mos-k3 mos-k5; do
#       (THREADS=1 experiments/ptb/run.sh train $m && THREADS=1 experiments/ptb/run.sh eval $m) &
#   done; wait; experiments/ptb/run.sh report
# --quick: the whole pipeline at toy scale on a generated corpus
# (tests/fixtures/make_lm_corpus.sh) in out/ptb-quick, in well under a
# minute: what `make ptb-quick` and the CLI tests run.
# Paths given in PTB, STATE, RES, OUTQ and BIN are the caller's (a relative
# one is read from the folder run.sh was started in; the defaults are the
# repository's); spaces and commas in them are kept.  Any step that fails
# (a tool, either side of a pipe, a snapshot of the KLD curve, an export, a
# figure) makes the run exit non-zero, and what it would have written is
# not written.  SIGINT or SIGTERM stops the running tools (sbw-lm train
# writes its checkpoint first), removes the step's temporaries and exits
# 130 or 143.
set -eu
# -h or --help anywhere: the comment above, exit 0 (before anything runs)
for a in "$@"; do
    case $a in -h | --help)
        sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    esac
done
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/../.."
. scripts/tsv.sh
. scripts/recipe.sh
if [ -n "${BIN:-}" ]; then BIN=$(recipe_abs "$BIN"); else BIN=$(pwd)/bin; fi
THREADS=${THREADS:-2}
QUICK=0 LONG=0
[ "${1:-}" = --quick ] && QUICK=1 && shift
[ "${1:-}" = --long ] && [ $QUICK = 0 ] && LONG=1 && shift
STEP=${1:-all}
[ $# -gt 0 ] && shift
case $STEP in train | traj | eval | measure | report | all) ;; *)
    echo "run.sh: unknown step '$STEP' (train, traj, eval, measure, report, all)" >&2
    exit 2
    ;;
esac

if [ $QUICK = 1 ]; then
    OUTQ=$(recipe_abs "${OUTQ:-}")
    OUTQ=${OUTQ:-out/ptb-quick}
    STATE=$OUTQ/state
    RES=$OUTQ/results
    PTB=$OUTQ/corpus
    [ -f "$PTB/train.txt" ] || recipe_run sh tests/fixtures/make_lm_corpus.sh "$PTB" 2000
    # name|head options: toy sizes, two mixture sizes
    MODELS="softmax|--head softmax --d 16
moc|--head moc --k 3 --d 12
mos-k2|--head mos --k 2 --d 12
mos-k3|--head mos --k 3 --d 12
sigsoftmax|--head sigsoftmax --d 16
plif|--head plif --d 16 --knots 20
mixtape|--head mixtape --k 2 --d 12"
    COMMON="--quick --epochs 3 --optim adam --lr 0.01 --eval-every 10000 --ckpt-every 0 --seed 1"
    RANK_T=300 CURVE_T=300 TRAJ_T=300 FULL_RANK=mos-k3 GRADNECK_T=${GRADNECK_T:-300}
elif [ $LONG = 1 ]; then
    PTB=$(recipe_abs "${PTB:-}") STATE=$(recipe_abs "${STATE:-}") RES=$(recipe_abs "${RES:-}")
    PTB=${PTB:-../shared/data/ptb}
    STATE=${STATE:-/var/tmp/sbw/ptb-long}
    RES=${RES:-experiments/ptb/long}
    # Table 6 and 11's three models at the papers' recipes (AWD-LSTM's for
    # Softmax, the MoS code's for MoC and MoS): 25 epochs or validation
    # perplexity 85, whichever comes first; Table 7's MoS K for 8 epochs,
    # against mos-k15's epoch-8 snapshot.
    MODELS="softmax|--preset awd --epochs 25 --stop-ppl 85
moc|--preset mos --head moc --epochs 25 --stop-ppl 85
mos-k15|--preset mos --epochs 25 --stop-ppl 85
mos-k3|--preset mos --k 3 --epochs 8
mos-k5|--preset mos --k 5 --epochs 8
mos-k10|--preset mos --k 10 --epochs 8
mos-k20|--preset mos --k 20 --epochs 8"
    # Adam at 2e-3 for every head: the pilots of experiments/ptb/pilot/ at
    # --preset mos (SGD at lr 20 against Adam, the MoS code's network) put
    # Adam 0.4 nats lower after 245 steps, SGD still on the unigram plateau.
    # bfloat16 GEMMs (--precision bf16, issue 27; float32 weights, optimiser
    # and pointwise work, float64 evaluation), about 1.8 times float32's
    # tokens/s on one thread: after one epoch at --preset awd, bf16 and
    # float32 from one seed were 2.6% apart, less than two float32 seeds
    # (3.2%: experiments/precision/results/summary.tsv), ranks equal; each
    # epoch is compared with the float32 runs started on 2026-11-27 from
    # the same seed and recipe (long/MODEL/lost-*/traj.tsv) in the report.
    # Needs a CPU with AVX-512 BF16 (sbw-lm refuses otherwise): set
    # PRECISION=single to train in float32.
    COMMON="--optim adam --lr 0.002 --precision ${PRECISION:-bf16} --snap-epochs --ckpt-every 600 --log-every 20 --seed 1"
    RANK_T=20000 CURVE_T=20000 TRAJ_T=10000 FULL_RANK=mos-k15
else
    PTB=$(recipe_abs "${PTB:-}") STATE=$(recipe_abs "${STATE:-}") RES=$(recipe_abs "${RES:-}")
    PTB=${PTB:-../shared/data/ptb}
    STATE=${STATE:-/var/tmp/sbw/ptb}
    RES=${RES:-experiments/ptb/results}
    # Table 6's three models (Softmax D = 400; MoC and MoS D = 280, K = 15),
    # Table 7's MoS K, Parthiban et al.'s Sigsoftmax and PLIF (D = 400), and
    # Mixtape (Yang et al. 2019) at MoS's D = 280 with the paper's K = 4 (its
    # results come from `run.sh train mixtape && run.sh eval mixtape`;
    # report.sh lists it in Tables 6 and 11, and experiments/newer/report.sh
    # beside Softmax and MoS)
    MODELS="softmax|--head softmax --d 400
moc|--head moc --k 15 --d 280
mos-k15|--head mos --k 15 --d 280
mos-k3|--head mos --k 3 --d 280
mos-k5|--head mos --k 5 --d 280
mos-k10|--head mos --k 10 --d 280
mos-k20|--head mos --k 20 --d 280
sigsoftmax|--head sigsoftmax --d 400
plif|--head plif --d 400 --knots 100
mixtape|--head mixtape --k 4 --d 280"
    # One network and one optimiser for every head, sized for 2 cores (the
    # scale is stated in the report): embedding 400, two LSTM layers (960,
    # 620), batch 20, BPTT 70, light AWD dropout, two epochs, a snapshot
    # every quarter epoch for the KLD curve.  Adam at 2e-3 with clipping
    # 0.25: in pilots of MoS K = 15 at this size (experiments/ptb/pilot/),
    # SGD at lr 20 stayed at 9.2-10.5 nats for 60 steps (uniform: 9.21), SGD
    # at lr 5 reached 6.80 by step 80 and Adam at 2e-3 6.64 by step 50;
    # Softmax trains under SGD at lr 20 (AWD-LSTM's setting; its pilot log is
    # there too) but one optimiser for all keeps the heads comparable.
    COMMON="--emb 400 --hidden 960,620 --batch 20 --bptt 70 --epochs 2 --optim adam --lr 0.002
--clip 0.25 --dropout-emb 0.05 --dropout-in 0.2 --dropout-layer 0.15 --dropout-latent 0.2
--eval-every 232390 --ckpt-every 600 --seed 1"
    RANK_T=20000 CURVE_T=20000 TRAJ_T=10000 FULL_RANK=mos-k15
fi
# measure's gradient bottleneck: a Softmax head's basis is one SVD of
# W, then M x D per prediction (seconds for 20,000); every other head
# needs each context's M x C Jacobian and its SVD per prediction.  MoS's,
# MoC's and PLIF's Jacobians have closed forms (at most K products of M x
# D x C; seconds a prediction); Mixtape's comes from M = 10,000 head
# passes, about K D M^2 multiply-adds three times over (forward and
# backward): about a minute per prediction on one core here.  100
# predictions keep it under two hours (--quick: 300, a toy head); set
# GRADNECK_T for more.
GRADNECK_T=${GRADNECK_T:-100}
DECAY=${DECAY:-auto}
if [ ! -d "$PTB" ]; then
    echo "run.sh: no corpus at $PTB (set PTB=DIR: Mikolov's ptb.{train,valid,test}.txt)" >&2
    exit 1
fi
names() { echo "$MODELS" | cut -d'|' -f1; }
opts_of() { echo "$MODELS" | awk -F'|' -v n="$1" '$1 == n { print $2 }'; }
for n in "$@"; do
    [ -n "$(opts_of "$n")" ] || { echo "run.sh: unknown model '$n' ($(names | tr '\n' ' '))" >&2; exit 2; }
done
mkdir -p "$STATE" "$RES"

# into FILE CMD...: CMD's stdout goes to FILE.tmp and becomes FILE only when
# CMD succeeds; otherwise the temporary is removed and CMD's status
# returned.  So a failed or interrupted step (see the trap below) leaves
# no FILE, and a rerun, which skips the FILEs that exist, redoes it.
into() {
    into_tmp=$1.tmp
    shift
    irc=0
    recipe_run "$@" >"$into_tmp" || irc=$?
    if [ $irc = 0 ]; then mv "$into_tmp" "${into_tmp%.tmp}"; else rm -f "$into_tmp"; fi
    into_tmp=
    return $irc
}

# keep_lost NAME: a run of NAME was started (its log or trajectory has
# rows) but STATE has no checkpoint of it (a new machine, a cleared
# /var/tmp): its log.tsv and traj.tsv move to RES/NAME/lost-DATE/, kept
# and committed, so that the restart from scratch neither mixes its rows
# with theirs nor overwrites them; said on stdout, and by report_long.sh.
keep_lost() {
    out=$RES/$1
    [ -s "$out/traj.tsv" ] || [ "$(tsv_rows "$out/log.tsv" 2>/dev/null | grep -c .)" -gt 1 ] || return 0
    lost=$out/lost-$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p "$lost"
    for f in log.tsv traj.tsv; do
        if [ -f "$out/$f" ]; then mv "$out/$f" "$lost/$f"; fi
    done
    echo "== $1: no checkpoint in $STATE/$1 but $out has a run of it: its log and trajectory are kept in $lost, and it restarts from scratch"
}

# ---- train: one model, resumable, at most STEP_HOURS per call -----------------------------
train() {
    name=$1
    out=$RES/$name
    mkdir -p "$out"
    if [ -s "$out/train.tsv" ]; then
        echo "== $name: trained ($(grep -v '^#' "$out/train.tsv" | tail -n 1 | cut -f6-7 | tr '\t' ' ') epochs, tokens)"
        return 0
    fi
    ck=$STATE/$name
    resume=""
    [ -f "$ck/checkpoint.tsv" ] && resume="--resume"
    [ -z "$resume" ] && keep_lost "$name"
    echo "== $name: training${resume:+ (resuming)} into $ck"
    rc=0
    # shellcheck disable=SC2046,SC2086 # the option lists split on purpose
    # check-recipes: allow an option's hours in seconds (timeout's argument), not a result
    into "$out/train.tsv" timeout -s TERM "$(awk -v h="${STEP_HOURS:-2}" 'BEGIN { printf "%d", h * 3600 }')" \
        "$BIN/sbw-lm" train --data "$PTB" $(opts_of "$name") $COMMON --threads "$THREADS" \
        --ckpt "$ck" $resume --log "$out/log.tsv" ${QUIET:+-q} || rc=$?
    [ $rc = 0 ] && return 0
    if [ $rc = 124 ]; then
        echo "== $name: stopped after ${STEP_HOURS:-2} h with a checkpoint; rerun to continue"
        return 3
    fi
    if [ $rc = 130 ]; then
        echo "== $name: interrupted; rerun to continue from the checkpoint"
        return 3
    fi
    echo "run.sh: $name: sbw-lm train failed (exit $rc)" >&2
    return 1
}

# ---- eval: perplexities, rank, spectrum, pairwise KL, the curve ----------------------------
# logq NAME CKPT SPLIT TOKENS: the log-probability rows on stdout, the
# eval table on fd 3.
logq() {
    "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$2" --split "$3" ${4:+--tokens "$4"} \
        ${logq_single:+"$logq_single"} --logprobs - --threads "$THREADS" -q 2>&3
}
logq_single='' # --single: rank_f32_table's float32 forward pass

# piped STATUSFILE TOOL ARG... (after logq's arguments): logq NAME CKPT
# SPLIT TOKENS piped into $BIN/TOOL ARG...; fails when either side fails.
# A pipe's status is only its consumer's (dash has no pipefail), and a
# consumer can succeed on a stream its producer then failed to finish
# (its table on fd 3, say), so sbw-lm's status is written to STATUSFILE
# and checked.
piped() {
    pst=$1 pname=$2 pck=$3 psplit=$4 ptok=$5 ptool=$6
    shift 6
    prc=0
    rm -f "$pst"
    { logq "$pname" "$pck" "$psplit" "$ptok" || echo $? >"$pst"; } | "$BIN/$ptool" "$@" || prc=$?
    if [ -s "$pst" ]; then
        echo "run.sh: $pname: sbw-lm eval --split $psplit failed (exit $(cat "$pst"))" >&2
        [ $prc != 0 ] || prc=1
    fi
    rm -f "$pst"
    return $prc
}

# rows_into TABLE NAME CKPT SPLIT TOKENS TOOL ARG...: logq's rows piped into
# $BIN/TOOL ARG...; sbw-lm's eval table becomes TABLE (through a temporary)
# when the pipe succeeds, or is dropped when TABLE is -; when the pipe
# fails, sbw-lm's messages go to stderr and its status is returned.
rows_into() {
    rtab=$1 rname=$2 rck=$3 rsplit=$4 rtok=$5 rtool=$6
    shift 6
    table_tmp=$RES/$rname/.eval-table.tmp
    rrc=0
    piped "$RES/$rname/.eval-status.tmp" "$rname" "$rck" "$rsplit" "$rtok" "$rtool" "$@" 3>"$table_tmp" ||
        rrc=$?
    if [ $rrc != 0 ]; then
        grep '^sbw-lm' "$table_tmp" >&2 || :
        rm -f "$table_tmp"
    elif [ "$rtab" = - ]; then
        rm -f "$table_tmp"
    else
        mv "$table_tmp" "$rtab" || rrc=$?
    fi
    table_tmp=
    return $rrc
}

evaluate() {
    name=$1
    out=$RES/$name
    ck=$STATE/$name
    [ -s "$out/train.tsv" ] || { echo "== $name: not trained yet"; return 0; }
    if [ -f "$out/eval.done" ]; then
        echo "== $name: evaluated"
        learned_f "$name"
        return
    fi
    echo "== $name: evaluating"
    t0=$(date +%s)
    for s in valid test; do
        [ -s "$out/eval-$s.tsv" ] ||
            into "$out/eval-$s.tsv" "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$ck" --split $s \
                --threads "$THREADS" -q
    done
    [ -s "$out/rank.tsv" ] || into "$out/rank.tsv" rows_into "$out/eval-rank-rows.tsv" \
        "$name" "$ck" test "$RANK_T" sbw-rank - --spectrum "$out/spectrum.tsv" -q
    [ -s "$out/rank-center.tsv" ] || into "$out/rank-center.tsv" rows_into - \
        "$name" "$ck" test "$RANK_T" sbw-rank - --center -q
    if [ "$name" = "$FULL_RANK" ] && [ ! -s "$out/rank-full.tsv" ]; then
        into "$out/rank-full.tsv" rows_into - "$name" "$ck" test "" sbw-rank - -q
    fi
    for s in valid test; do
        [ -s "$out/kl-$s.tsv" ] || into "$out/kl-$s.tsv" rows_into - "$name" "$ck" $s "" sbw-kl - -q
    done
    if [ $LONG = 0 ]; then # --long: traj measures every epoch's snapshot instead
        curve "$name" || { echo "run.sh: $name: the KLD curve is incomplete; rerun to finish it" >&2; return 1; }
    fi
    # the wall time of this call (a resumed evaluation counts only its last part)
    printf 'seconds=%s\n' "$(($(date +%s) - t0))" >"$out/eval.done"
    learned_f "$name"
}

# learned_f NAME: for a head with a learned f (plif, mos+plif), the
# parameters of the checkpoint the evaluation used, exported once into
# $STATE/NAME/export (W.npy is 32 MB on PTB: it stays there); its small
# map.tsv (f on a grid, all `sbw-plot monotone` needs), plif_slope.npy and
# params.tsv are copied to $RES/NAME/f/, params.tsv last and through a
# temporary, so a failure leaves no params.tsv and a rerun tries again (as
# does a folder copied before exports had map.tsv).  Such a folder whose
# checkpoint is gone (the committed results, on another machine) gets its
# map.tsv from its own params.tsv and plif_slope.npy: sbw-fit --map, the
# same bytes as an export writes but the command line.
learned_f() {
    name=$1
    f=$RES/$name/f
    case " $(opts_of "$name") " in *" --head plif "* | *" --head mos+plif "*) ;; *) return 0 ;; esac
    [ -s "$f/params.tsv" ] && [ -s "$f/map.tsv" ] && return 0
    if [ ! -f "$STATE/$name/checkpoint.tsv" ] && [ -s "$f/params.tsv" ] && [ -s "$f/plif_slope.npy" ]; then
        if recipe_run "$BIN/sbw-fit" --map "$f" -q; then
            echo "== $name: learned f's map.tsv written again from $f (no checkpoint to export)"
        else
            echo "run.sh: $name: writing map.tsv from $f/params.tsv failed" >&2
            ffail=1
        fi
        return 0
    fi
    rm -f "$f/params.tsv" # written last: there only when the rest is
    x=$STATE/$name/export
    if ! recipe_run "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$STATE/$name" --tokens 1 --export "$x" \
        --threads "$THREADS" -q >/dev/null; then
        echo "run.sh: $name: exporting the learned f failed" >&2
        ffail=1
        return 0
    fi
    mkdir -p "$f"
    cp "$x/map.tsv" "$f/.map.tsv.tmp" && mv "$f/.map.tsv.tmp" "$f/map.tsv" &&
        cp "$x/plif_slope.npy" "$f/.plif_slope.npy.tmp" && mv "$f/.plif_slope.npy.tmp" "$f/plif_slope.npy" &&
        cp "$x/params.tsv" "$f/.params.tsv.tmp" && mv "$f/.params.tsv.tmp" "$f/params.tsv" &&
        echo "== $name: learned f exported to $f" && return 0
    rm -f "$f/.map.tsv.tmp" "$f/.plif_slope.npy.tmp" "$f/.params.tsv.tmp"
    echo "run.sh: $name: copying the learned f to $f failed" >&2
    ffail=1
}

# The expected pairwise KL and the perplexity on the first CURVE_T valid
# predictions at every snapshot along training (and the final model).  A
# snapshot whose evaluation fails adds no row and makes curve fail (after
# trying the others), so evaluate writes no eval.done and a rerun tries it
# again.
curve() {
    name=$1
    out=$RES/$name
    cfail=0
    c=$out/curve.tsv
    [ -s "$c" ] || printf '# command=experiments/ptb/run.sh eval %s (sbw-lm eval --split valid --tokens %s --logprobs - | sbw-kl -)\ntokens\tvalid_ppl\texpected_pairwise_kl\n' \
        "$name" "$CURVE_T" >"$c"
    for snap in "$STATE/$name"/snap-* "$STATE/$name"; do
        [ -f "$snap/checkpoint.tsv" ] || continue
        tok=$(sed -n 's/^tokens=//p' "$snap/checkpoint.tsv")
        awk -F'\t' -v t="$tok" '$1 == t { f = 1 } END { exit !f }' "$c" && continue
        # a failed evaluation adds no row, so a rerun tries that snapshot again
        if ! recipe_run piped "$out/.curve-status.tmp" "$name" "$snap" valid "$CURVE_T" sbw-kl - -q \
            3>"$out/.curve-eval.tsv" >"$out/.curve-kl.tsv"; then
            echo "run.sh: $name: evaluating $snap failed" >&2
            cfail=1
            continue
        fi
        kld=$(tsv_field "$out/.curve-kl.tsv" expected_pairwise_kl)
        ppl=$(tsv_field "$out/.curve-eval.tsv" ppl)
        if [ -z "$kld" ] || [ -z "$ppl" ]; then
            echo "run.sh: $name: no perplexity or KL for $snap" >&2
            cfail=1
            continue
        fi
        printf '%s\t%s\t%s\n' "$tok" "$ppl" "$kld" >>"$c"
    done
    rm -f "$out/.curve-eval.tsv" "$out/.curve-kl.tsv"
    { sed -n '1,2p' "$c"; sed '1,2d' "$c" | sort -n -u; } >"$c.tmp" && mv "$c.tmp" "$c"
    return $cfail
}

# Every snapshot's measurements, once each (issue 28's trajectories):
# epoch and tokens from the snapshot's checkpoint.tsv, the validation
# perplexity of the whole split (sbw-lm eval), and on the first TRAJ_T
# validation predictions (streamed, never stored) the NR rank at float64's
# and float32's eps (sbw-rank's rank and rank_single), d* (sbw-rank
# --center) and the exact expected pairwise KL (sbw-kl).  A snapshot whose
# measurement fails adds no row and makes traj fail after trying the
# others, so a rerun tries it again.
traj() {
    name=$1
    out=$RES/$name
    mkdir -p "$out"
    tj=$out/traj.tsv
    tfail=0
    [ -s "$tj" ] || printf '# command=experiments/ptb/run.sh%s traj %s (each snapshot: sbw-lm eval --split valid; sbw-lm eval --split valid --tokens %s --logprobs - | sbw-rank -, | sbw-rank - --center, | sbw-kl -)\nepoch\ttokens\tvalid_ppl\trows\trank\trank_single\td_star\texpected_pairwise_kl\n' \
        "$([ $LONG = 1 ] && echo ' --long')$([ $QUICK = 1 ] && echo ' --quick')" "$name" "$TRAJ_T" >"$tj"
    for snap in "$STATE/$name"/snap-*; do
        [ -f "$snap/checkpoint.tsv" ] || continue
        tok=$(sed -n 's/^tokens=//p' "$snap/checkpoint.tsv")
        ep=$(sed -n 's/^epoch=//p' "$snap/checkpoint.tsv")
        awk -F'\t' -v t="$tok" '!/^#/ && $2 == t { f = 1 } END { exit !f }' "$tj" && continue
        echo "== $name: measuring the snapshot of epoch $ep ($tok tokens)"
        if ! into "$out/.traj-valid.tsv" "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$snap" --split valid \
            --threads "$THREADS" -q ||
            ! into "$out/.traj-rank.tsv" rows_into - "$name" "$snap" valid "$TRAJ_T" sbw-rank - -q ||
            ! into "$out/.traj-center.tsv" rows_into - "$name" "$snap" valid "$TRAJ_T" sbw-rank - --center -q ||
            ! into "$out/.traj-kl.tsv" rows_into - "$name" "$snap" valid "$TRAJ_T" sbw-kl - -q; then
            echo "run.sh: $name: measuring $snap failed" >&2
            tfail=1
            continue
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ep" "$tok" "$(tsv_field "$out/.traj-valid.tsv" ppl)" \
            "$(tsv_field "$out/.traj-rank.tsv" m)" "$(tsv_field "$out/.traj-rank.tsv" rank)" \
            "$(tsv_field "$out/.traj-rank.tsv" rank_single)" "$(tsv_field "$out/.traj-center.tsv" rank)" \
            "$(tsv_field "$out/.traj-kl.tsv" expected_pairwise_kl)" >>"$tj"
    done
    rm -f "$out/.traj-valid.tsv" "$out/.traj-rank.tsv" "$out/.traj-center.tsv" "$out/.traj-kl.tsv"
    { sed -n '1,2p' "$tj"; sed '1,2d' "$tj" | sort -n -k2,2 -u; } >"$tj.tmp" && mv "$tj.tmp" "$tj"
    return $tfail
}

# ---- measure: the gradient bottleneck and the spectral decay (issue 31) --------------------
# same_model NAME: whether STATE/NAME's checkpoint is the one RES/NAME was
# evaluated from: its perplexity on the first RANK_T test predictions
# against eval-rank-rows.tsv's (the rank step's eval table), to 8 digits
# (other threads may sum in another order); 1 with a message when not.
same_model() {
    name=$1
    into "$RES/$name/.measure-ppl.tsv" "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$STATE/$name" --split test \
        --tokens "$RANK_T" --threads "$THREADS" -q || return 1
    now=$(printf '%.8g' "$(tsv_field "$RES/$name/.measure-ppl.tsv" ppl)")
    was=$(printf '%.8g' "$(tsv_field "$RES/$name/eval-rank-rows.tsv" ppl)")
    rm -f "$RES/$name/.measure-ppl.tsv"
    [ "$now" = "$was" ] && return 0
    echo "run.sh: $name: the checkpoint in $STATE/$name gives test perplexity $now on the first $RANK_T predictions, $RES/$name/eval-rank-rows.tsv says $was: it is of another training (set RES to its results)" >&2
    return 1
}

# decay_table NAME: the decay step's table on stdout: a "# pipeline=" line
# (what fed sbw-rank), then sbw-rank --center --decay's table of the rank
# step's matrix; its spectrum into spectrum-center.tsv.
decay_table() {
    printf '# pipeline=experiments/ptb/run.sh%s measure %s: sbw-lm eval --split test --tokens %s --logprobs - | sbw-rank - --center --decay %s (the command below)\n' \
        "$([ $QUICK = 1 ] && echo ' --quick')" "$1" "$RANK_T" "$DECAY"
    rows_into - "$1" "$STATE/$1" test "$RANK_T" sbw-rank - --center --decay "$DECAY" \
        --spectrum "$RES/$1/spectrum-center.tsv" -q
}

# rank_f32_table NAME: the rank of the matrix a float32 implementation
# exports (sbw-lm eval --single --logprobs: a float32 forward pass, stored
# as float32) of the rank step's rows, read by sbw-rank at float32's eps:
# how Parthiban et al. 2021 measured their ranks; a "# pipeline=" line, then
# sbw-rank's table.
rank_f32_table() {
    printf '# pipeline=experiments/ptb/run.sh%s measure %s: sbw-lm eval --single --split test --tokens %s --logprobs - | sbw-rank - (the command below)\n' \
        "$([ $QUICK = 1 ] && echo ' --quick')" "$1" "$RANK_T"
    logq_single=--single
    frc=0
    rows_into - "$1" "$STATE/$1" test "$RANK_T" sbw-rank - -q || frc=$?
    logq_single=''
    return $frc
}

# gradneck_table NAME: sbw-lm eval --gradneck's table of the first
# GRADNECK_T test predictions on stdout; sbw-lm's eval table (its
# stderr) is shown only when it fails.
gradneck_table() {
    grc=0
    "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$STATE/$1" --split test --tokens "$GRADNECK_T" \
        --gradneck - --threads "$THREADS" -q 2>"$RES/$1/.gradneck-eval.tmp" || grc=$?
    [ $grc = 0 ] || grep '^sbw-lm' "$RES/$1/.gradneck-eval.tmp" >&2 || :
    rm -f "$RES/$1/.gradneck-eval.tmp"
    return $grc
}

measure() {
    name=$1
    out=$RES/$name
    if [ ! -f "$STATE/$name/checkpoint.tsv" ] || [ ! -s "$out/train.tsv" ]; then
        echo "== $name: not trained here: run.sh train $name"
        return 0
    fi
    if [ ! -s "$out/eval-rank-rows.tsv" ]; then
        echo "== $name: not evaluated yet: run.sh eval $name"
        return 0
    fi
    if [ -s "$out/gradneck.tsv" ] && [ -s "$out/decay.tsv" ] && [ -s "$out/rank-f32.tsv" ]; then
        echo "== $name: measured"
        return 0
    fi
    echo "== $name: measuring"
    same_model "$name" || return 1
    if [ ! -s "$out/decay.tsv" ]; then
        # the spectrum belongs to decay.tsv: there only when it is
        into "$out/decay.tsv" decay_table "$name" || { rm -f "$out/spectrum-center.tsv"; return 1; }
    fi
    [ -s "$out/gradneck.tsv" ] || into "$out/gradneck.tsv" gradneck_table "$name" || return 1
    [ -s "$out/rank-f32.tsv" ] || into "$out/rank-f32.tsv" rank_f32_table "$name"
}

# Ctrl-C (130) or SIGTERM (143) removes the temporaries of the step it
# stopped (after the running tool has exited: sbw-lm train checkpoints
# first); finished steps stay, and a rerun goes on from them.
into_tmp='' table_tmp='' out=''
# what a step may have left: the temporaries of this shell (into_tmp,
# table_tmp) and those a step's background subshell names from $out (its
# variables do not reach this shell; a signal may end it before it removes
# them, as it can end rows_into before .eval-table.tmp goes)
cleanup() {
    rm -f ${into_tmp:+"$into_tmp"} ${table_tmp:+"$table_tmp"}
    [ -z "$out" ] || rm -f "$out/.curve-eval.tsv" "$out/.curve-kl.tsv" "$out/curve.tsv.tmp" \
        "$out/f/.params.tsv.tmp" "$out/f/.plif_slope.npy.tmp" "$out/.eval-status.tmp" "$out/.curve-status.tmp" \
        "$out/.eval-table.tmp" "$out/.traj-valid.tsv" "$out/.traj-rank.tsv" "$out/.traj-center.tsv" \
        "$out/.traj-kl.tsv" "$out/traj.tsv.tmp" "$out/.measure-ppl.tsv" "$out/.gradneck-eval.tmp"
    # a spectrum without its decay.tsv is a step stopped half way
    [ -z "$out" ] || [ -s "$out/decay.tsv" ] || rm -f "$out/spectrum-center.tsv"
}
recipe_traps run.sh cleanup
status=0
ffail=0
# shellcheck disable=SC2046 # the names are single words
[ $# -gt 0 ] || set -- $(names)
if [ "$STEP" = train ] || [ "$STEP" = all ]; then
    for n in "$@"; do
        train "$n" || { s=$?; [ $s = 3 ] && status=3 && break; exit 1; }
    done
fi
if [ "$STEP" = traj ] || { [ "$STEP" = all ] && [ $LONG = 1 ]; }; then
    for n in "$@"; do traj "$n" || { echo "run.sh: $n: some snapshots are not measured; rerun to finish" >&2; status=1; }; done
fi
if [ "$STEP" = eval ] || [ "$STEP" = all ]; then
    for n in "$@"; do evaluate "$n"; done # not in an || list: set -e holds inside
fi
if [ "$STEP" = measure ]; then
    for n in "$@"; do measure "$n" || { echo "run.sh: $n: not measured; rerun to finish" >&2; status=1; }; done
fi
if [ "$STEP" = report ] && [ $LONG = 1 ]; then # the runs along training so far: long/report.md
    RES=$RES BIN=$BIN recipe_run sh experiments/ptb/report_long.sh || exit 1
elif [ "$STEP" = report ] || { [ "$STEP" = all ] && [ $LONG = 0 ]; }; then
    RES=$RES QUICK=$QUICK BIN=$BIN recipe_run sh experiments/ptb/report.sh || exit 1
fi
[ $status = 0 ] && [ $ffail = 1 ] && status=1
exit $status
