#!/bin/sh
# experiments/precision/run.sh -- one Penn Treebank epoch in float32 and in
# bfloat16 GEMMs (sbw-lm train --precision bf16, issue 27) from the same
# seed, for a Softmax model (--preset awd) and a MoS K = 15 model (--preset
# mos): does bfloat16 training change what the reproduction measures?
#
# usage: experiments/precision/run.sh [train | rank | report | all] [RUN...]
#   RUN    softmax-single softmax-bf16 mos-single mos-bf16 (default: all four);
#          MODEL-PRECISION-seedS is the same run from seed S (a float32
#          run's seed 2 shows the spread a different start alone gives)
#   train  one epoch (sbw-lm --epochs 1, --seed 1, --threads $THREADS) into
#          $STATE/RUN, in steps of at most STEP_HOURS: sbw-lm is stopped by
#          SIGTERM (it writes its checkpoint) and the next call resumes it.
#          A finished run's table and log go to results/RUN/{train,log}.tsv.
#   rank   the NR rank at float64's and float32's eps of the model's log Q
#          (float64, sbw-lm eval --logprobs) on the first RANK_T validation
#          predictions: results/RUN/rank-f64.tsv, rank-f32.tsv (sbw-rank).
#   report results/summary.tsv: per run its precision, validation
#          perplexity after the epoch (computed in float32 for both, by the
#          training run), tokens per second and the two ranks, copied from
#          the runs' tables.
# Each result is written once (a rerun skips it) through a temporary.
#
# Environment: PTB (../shared/data/ptb), STATE (/var/tmp/sbw/precision),
# RES (experiments/precision/results), BIN (bin), THREADS (1), STEP_HOURS
# (2), RANK_T (2000).  Two runs on one thread each fill two cores:
#   for r in softmax-single softmax-bf16; do
#       experiments/precision/run.sh train $r &
#   done; wait
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
PTB=${PTB:-$repo/../shared/data/ptb}
STATE=${STATE:-/var/tmp/sbw/precision}
RES=${RES:-$here/results}
BIN=${BIN:-$repo/bin}
THREADS=${THREADS:-1}
RANK_T=${RANK_T:-2000}
RUNS="softmax-single softmax-bf16 mos-single mos-bf16"

# opts_of RUN: the sbw-lm options of a run: MODEL-PRECISION[-seedS]
# (seed 1 unless -seedS: another seed of the same run, for the spread that
# a different start alone gives).
opts_of() {
    case $1 in
    softmax-single | softmax-bf16 | softmax-single-seed[0-9]* | softmax-bf16-seed[0-9]*)
        printf '%s' "--preset awd" ;;
    mos-single | mos-bf16 | mos-single-seed[0-9]* | mos-bf16-seed[0-9]*)
        printf '%s' "--preset mos" ;;
    *)
        echo "run.sh: unknown run '$1' (MODEL-PRECISION[-seedS] of: $RUNS)" >&2
        return 2
        ;;
    esac
    p=${1#*-}
    printf ' --precision %s --seed %s' "${p%%-*}" "$(seed_of "$1")"
}

# seed_of RUN: S of a -seedS run, else 1.
seed_of() {
    case $1 in
    *-seed*) printf '%s' "${1##*-seed}" ;;
    *) printf 1 ;;
    esac
}

# into FILE CMD...: CMD's stdout becomes FILE only when CMD succeeds.
into() {
    f=$1
    shift
    "$@" >"$f.tmp.$$" || {
        rc=$?
        rm -f "$f.tmp.$$"
        return $rc
    }
    mv "$f.tmp.$$" "$f"
}

train() {
    r=$1 out=$RES/$1 ck=$STATE/$1
    [ -f "$out/train.tsv" ] && {
        echo "== $r: trained (results/$r/train.tsv)"
        return 0
    }
    o=$(opts_of "$r")
    mkdir -p "$out" "$STATE"
    resume=""
    [ -f "$ck/checkpoint.tsv" ] && resume="--resume"
    echo "== $r: training${resume:+ (resuming)} into $ck"
    rc=0
    hours=${STEP_HOURS:-2}
    # shellcheck disable=SC2086 # the options are words
    timeout -s TERM "${hours}h" "$BIN/sbw-lm" train --data "$PTB" $o --epochs 1 \
        --threads "$THREADS" --ckpt "$ck" $resume --log "$out/log.tsv" -q \
        >"$STATE/$r.train.tsv" || rc=$?
    case $rc in
    0) mv "$STATE/$r.train.tsv" "$out/train.tsv" ;;
    124 | 130) echo "== $r: stopped after $hours h; run again to resume" ;;
    *)
        echo "run.sh: $r: sbw-lm train failed (exit $rc)" >&2
        return 1
        ;;
    esac
}

rank() {
    r=$1 out=$RES/$1 q=$STATE/$1.logq.npy
    [ -f "$out/rank-f32.tsv" ] && return 0
    [ -f "$out/train.tsv" ] || {
        echo "== $r: not trained yet"
        return 0
    }
    echo "== $r: rank of log Q on $RANK_T validation predictions"
    "$BIN/sbw-lm" eval --data "$PTB" --ckpt "$STATE/$r" --split valid --tokens "$RANK_T" \
        --logprobs "$q" --threads "$THREADS" -q >/dev/null
    into "$out/rank-f64.tsv" "$BIN/sbw-rank" "$q" --eps double --threads "$THREADS" -q &&
        into "$out/rank-f32.tsv" "$BIN/sbw-rank" "$q" --eps single --threads "$THREADS" -q
    rc=$?
    rm -f "$q"
    return $rc
}

# header FILE KEY: the value of "# KEY=VALUE" in FILE.
header() { sed -n "s/^# $2=//p" "$1" | head -n 1; }

# column FILE NAME: NAME's value in FILE's first data row.
column() {
    awk -F'\t' -v n="$2" '/^#/ { next } !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { print $c[n]; exit }' "$1"
}

report() {
    {
        printf '# command=experiments/precision/run.sh report\n'
        printf 'run\tprecision\tseed\tvalid_ppl\ttokens_per_s\tnr_rank_f64\tnr_rank_f32\n'
        for t in "$RES"/*/train.tsv; do
            [ -f "$t" ] || continue
            r=$(basename "$(dirname "$t")") k=$(dirname "$t")/rank
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$(header "$t" precision)" "$(header "$t" seed)" \
                "$(column "$t" valid_ppl)" "$(column "$t" tokens_per_s)" \
                "$([ -f "$k-f64.tsv" ] && column "$k-f64.tsv" rank)" \
                "$([ -f "$k-f32.tsv" ] && column "$k-f32.tsv" rank)"
        done
    } >"$RES/summary.tsv.tmp.$$"
    mv "$RES/summary.tsv.tmp.$$" "$RES/summary.tsv"
    cat "$RES/summary.tsv"
}

# The whole script is read before it runs (main, then exit on the same
# line): an edit of this file while a long train step runs cannot change
# what the running shell does next.
main() {
    case ${1:-} in
    -h | --help)
        sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"
        exit 0
        ;;
    esac
    step=${1:-all}
    [ $# -gt 0 ] && shift
    [ $# -gt 0 ] || set -- $RUNS
    for r in "$@"; do opts_of "$r" >/dev/null || exit 2; done
    case $step in
    train) for r in "$@"; do train "$r"; done ;;
    rank) for r in "$@"; do rank "$r"; done ;;
    report) report ;;
    all)
        for r in "$@"; do train "$r" && rank "$r"; done
        report
        ;;
    *)
        echo "usage: experiments/precision/run.sh [train|rank|report|all] [RUN...]" >&2
        exit 2
        ;;
    esac
}
main "$@"; exit $?
