#!/bin/sh
# experiments/newer/truncation.sh -- which tokens a truncation may drop
# (issue 31; Finlayson, Hewitt, Koller, Swayamdipta and Sabharwal, ICLR
# 2024, "Closing the Curious Case of Neural Text Degeneration"), on a
# trained sbw-lm Softmax model: its head exported (sbw-lm eval --export),
# the log Q of its first N predictions on a split (sbw-lm eval --logprobs),
# and sbw-argmax --truncation on them, which proves for each chosen token
# either that its true probability is nonzero (keep) or that it may be zero
# (a witness distribution).  Only the tools are chained.
#
# usage: experiments/newer/truncation.sh --ckpt DIR [options]
#   --ckpt DIR        an sbw-lm checkpoint (or snapshot) of a Softmax head
#   --data DIR        the corpus it was trained on [../shared/data/ptb]
#   --split NAME      valid or test [test]
#   --n N             the first N predictions of the split [1]
#   --words LIST      the tokens to decide, as sbw-argmax --words [all M]
#   --threshold T     the paper's threshold: p* <= phat / (1 - T) [0.001]
#   -o DIR            where everything goes [out/truncation]
#   --threads N       for the tools [1]
#
# DIR/head/ is the export (W.npy, b.npy, params.tsv, vocab.txt), DIR/q.npy
# the N x M float64 log Q and DIR/eval.tsv its evaluation (whose "# ckpt="
# names the model), DIR/trunc.tsv sbw-argmax's table under its
# "# command=" line: experiments/newer/report.sh reads it as TRUNC=.  A
# step whose output is there is skipped.  Cost: one LP of D + 1 rows and M
# columns per (prediction, token) below the threshold; on the PTB Softmax
# (M = 10,000, D = 400) at T = 0.001, about a minute each on one core of
# the 2-core machine here, so choose N and --words small.  SIGINT or
# SIGTERM stops the running tool and exits 130 or 143.
#
# Example: experiments/newer/truncation.sh --ckpt /var/tmp/sbw/ptb/softmax \
#            --words 0:49 -o experiments/newer/results/truncation
set -eu
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/../.."
. scripts/recipe.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi

usage() {
    if [ "${1:-2}" = 0 ]; then
        sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
    fi
    sed -n '11,19p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
CKPT="" DATA="" SPLIT=test N=1 WORDS="" THRESHOLD=0.001 OUT=out/truncation THREADS=1
while [ $# -gt 0 ]; do
    case $1 in
    --ckpt | --data | --split | --n | --words | --threshold | -o | --threads)
        [ $# -ge 2 ] || { echo "truncation.sh: $1 needs a value" >&2 && usage; }
        case $1 in
        --ckpt) CKPT=$2 ;;
        --data) DATA=$2 ;;
        --split) SPLIT=$2 ;;
        --n) N=$2 ;;
        --words) WORDS=$2 ;;
        --threshold) THRESHOLD=$2 ;;
        -o) OUT=$2 ;;
        --threads) THREADS=$2 ;;
        esac
        shift
        ;;
    -h | --help) usage 0 ;;
    *) echo "truncation.sh: unknown option '$1'" >&2 && usage ;;
    esac
    shift
done
[ -n "$CKPT" ] || { echo "truncation.sh: --ckpt DIR is required" >&2 && usage; }
for v in "$N" "$THREADS"; do
    case $v in '' | *[!0-9]* | 0) echo "truncation.sh: '$v' is not a positive whole number" >&2 && exit 2 ;; esac
done
case $SPLIT in valid | test) ;; *) echo "truncation.sh: --split: '$SPLIT' is not valid or test" >&2 && exit 2 ;; esac
case $WORDS in *[!0-9,:]*) echo "truncation.sh: --words: '$WORDS' is not a list such as 0,5,10:20" >&2 && exit 2 ;; esac
if [ -n "$DATA" ]; then DATA=$(recipe_abs "$DATA"); else DATA=$(pwd)/../shared/data/ptb; fi
CKPT=$(recipe_abs "$CKPT") OUT=$(recipe_abs "$OUT")
[ -d "$CKPT" ] || { echo "truncation.sh: $CKPT: no such checkpoint folder" >&2 && exit 1; }
cleanup() { rm -f "$OUT/eval.tsv.tmp"; }
recipe_traps truncation.sh cleanup
mkdir -p "$OUT"
cd "$OUT"
# the tools run inside OUT on plain names, so the tables' command lines are
# short and true wherever OUT is
if [ ! -s head/params.tsv ]; then
    recipe_run "$B/sbw-lm" eval --data "$DATA" --ckpt "$CKPT" --split "$SPLIT" --tokens 1 --export head \
        --threads "$THREADS" -q >/dev/null
fi
model=$(sed -n 's/^# model=//p' head/params.tsv)
[ "$model" = softmax ] || {
    echo "truncation.sh: $CKPT: a $model head; the truncation program needs a Softmax head (one W)" >&2
    exit 1
}
if [ ! -s eval.tsv ] || [ ! -s q.npy ]; then
    recipe_run "$B/sbw-lm" eval --data "$DATA" --ckpt "$CKPT" --split "$SPLIT" --tokens "$N" --logprobs q.npy \
        --threads "$THREADS" -q >eval.tsv.tmp
    mv eval.tsv.tmp eval.tsv
fi
if [ ! -s trunc.tsv ]; then
    set -- --truncation q.npy --threshold "$THRESHOLD"
    [ -z "$WORDS" ] || set -- "$@" --words "$WORDS"
    recipe_run "$B/sbw-argmax" "$@" --vocab head/vocab.txt --threads "$THREADS" -o trunc.tsv head/W.npy
fi
echo "truncation: $OUT/trunc.tsv"
