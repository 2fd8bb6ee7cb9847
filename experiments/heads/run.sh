#!/bin/sh
# experiments/heads/run.sh -- what a Softmax head can say (issue 17): its
# singular spectrum and every named rank measure (sbw-rank --measures,
# --spectrum), the words it can never predict (sbw-argmax, exact, with
# certificates and names from the vocabulary) with the largest probability
# each can reach over a ladder of context norms R (--max-prob), figures
# (sbw-plot) and report.md, every table naming its TSV and that TSV's
# "# command=" line.  Only the tools are chained; the script reshapes their
# tables and computes nothing (the synthetic head is sbw-synth head's).
#
# usage: experiments/heads/run.sh HEAD [--bias b.npy] [--vocab FILE] [options]
#        experiments/heads/run.sh --synthetic [--m M] [--d D] [--k K] [--seed S] [options]
#   HEAD            W.npy (M x D, one row per word) or FILE.safetensors:NAME
#   --bias FILE     the word biases b (M values)
#   --vocab FILE    word names, one per line
#   --synthetic     a random head with planted interior words (below)
#   --m, --d, --k   its size: M words in D dimensions, K planted [1000, 20, 10]
#   --seed S        its seed [1]
#   --radii LIST    the ladder of R for --max-prob [1,3,10,30,100]
#   --name NAME     the run's name [synthetic, or the head's folder]
#   -o DIR          where everything goes [out/heads/NAME]
#   --threads N     for the tools [2]
#   --quick         --synthetic at M = 200, D = 5, K = 4 (the CLI test)
#
# Synthetic mode (sbw-synth head, which --help describes in full): M - K
# words uniform on the unit sphere of R^D (each a vertex of the hull, with
# or without a bias, since h = R w_j puts w_j first as R grows) with biases
# b_j ~ N(0, 1/4), and K planted words, each a convex combination of D + 1
# sphere words (weights > 1/(3(D+1))) with its bias 0 to 0.1 below the
# same combination of theirs: never the strict argmax.  Needs D >= 2.  The
# same --seed gives the same head on every machine (GSL's MT19937).  The
# head (W.npy, b.npy), planted.txt, vocab.txt (v17 for a sphere word, in17
# for a planted one) and sbw-synth's table head.tsv go to DIR/head/; the
# report checks that sbw-argmax finds exactly the planted words.
#
# Examples (a head exported by `sbw-lm eval --export DIR`; the planted case):
#   experiments/heads/run.sh DIR/W.npy --bias DIR/b.npy --vocab DIR/vocab.txt -o out/heads/ptb
#   experiments/heads/run.sh --synthetic --m 1000 --d 20 --k 10
#
# Rerunning skips every step whose output exists (each is written under a
# temporary name and renamed when complete).  W itself is never copied.
# Paths (HEAD, --bias, --vocab, -o, SBW_BIN) are the caller's: relative ones
# are read from the folder run.sh was started in; spaces and commas in them
# are kept.  SIGINT or SIGTERM stops the running tool, removes the step's
# temporary and exits 130 or 143; a rerun goes on from the finished steps.
set -eu
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/../.."
. scripts/tsv.sh
. scripts/recipe.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi

# usage [STATUS]: the usage lines above; on stdout for --help (0), else on stderr (2)
usage() {
    if [ "${1:-2}" = 0 ]; then
        sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
    fi
    sed -n '11,23p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
HEAD="" BIAS="" VOCAB="" SYN=0 M=1000 D=20 K=10 SEED=1 RADII=1,3,10,30,100 NAME="" OUT="" THREADS=2
while [ $# -gt 0 ]; do
    case $1 in
    --bias) BIAS=$2 && shift ;;
    --vocab) VOCAB=$2 && shift ;;
    --synthetic) SYN=1 ;;
    --quick) SYN=1 M=200 D=5 K=4 RADII=1,10,100 ;;
    --m) M=$2 && shift ;;
    --d) D=$2 && shift ;;
    --k) K=$2 && shift ;;
    --seed) SEED=$2 && shift ;;
    --radii) RADII=$2 && shift ;;
    --name) NAME=$2 && shift ;;
    -o) OUT=$2 && shift ;;
    --threads) THREADS=$2 && shift ;;
    -h | --help) usage 0 ;;
    -*) echo "run.sh: unknown option '$1'" >&2 && usage ;;
    *) [ -z "$HEAD" ] || { echo "run.sh: one HEAD only ('$HEAD', '$1')" >&2 && exit 2; } && HEAD=$1 ;;
    esac
    shift
done
for v in "$M" "$D" "$K" "$SEED" "$THREADS"; do
    case $v in '' | *[!0-9]*) echo "run.sh: '$v' is not a whole number" >&2 && exit 2 ;; esac
done
if [ $SYN = 1 ]; then
    [ -z "$HEAD" ] || { echo "run.sh: --synthetic takes no HEAD" >&2 && exit 2; }
    NAME=${NAME:-synthetic}
else
    [ -n "$HEAD" ] || { echo "run.sh: no HEAD (W.npy or FILE.safetensors:NAME), or --synthetic" >&2 && usage; }
    HEAD=$(recipe_abs "$HEAD")
    NAME=${NAME:-$(basename "$(dirname "${HEAD%%:*}")")}
fi
BIAS=$(recipe_abs "$BIAS") VOCAB=$(recipe_abs "$VOCAB")
if [ -n "$OUT" ]; then O=$(recipe_abs "$OUT"); else O=out/heads/$NAME; fi
mkdir -p "$O"
say() { printf '%s\n' "$*"; }

# The temporaries a signal removes: the step's and the reshaped table's (a
# tool removes its own).
out=""
cleanup() {
    [ -z "$out" ] || rm -f "$out.tmp.$$"
    rm -f "$O/maxprob.tsv.tmp" "$O/report.md.tmp"
}
recipe_traps run.sh cleanup

# step OUT CMD...: CMD's stdout into OUT, unless OUT is there already; CMD's
# status (a tool's 2 for bad usage stays 2)
step() {
    out=$1
    shift
    if [ -s "$out" ]; then
        say "   $(basename "$out"): done (skipped)"
        return 0
    fi
    recipe_run "$@" >"$out.tmp.$$" || { rc=$? && rm -f "$out.tmp.$$" && return $rc; }
    mv "$out.tmp.$$" "$out"
}

# ---- the synthetic head ----------------------------------------------------------------------
# sbw-synth head draws it (W, b, planted.txt, vocab.txt) and prints its
# table, kept as head.tsv (its "# command=" line goes into the report).
synthetic() {
    h=$O/head
    mkdir -p "$h"
    [ -s "$h/head.tsv" ] || say "== synthetic head: M=$M D=$D, $K planted interior words, seed $SEED -> $h"
    # the sizes are sbw-synth's to check (exit 2); a refused head leaves no head/
    step "$h/head.tsv" "$B/sbw-synth" head -q --m "$M" --d "$D" --k "$K" --seed "$SEED" \
        -o "$h/W.npy" --bias "$h/b.npy" --planted "$h/planted.txt" --vocab "$h/vocab.txt" ||
        { rc=$? && rmdir "$h" 2>/dev/null; exit $rc; }
}

if [ $SYN = 1 ]; then
    synthetic
    HEAD=$O/head/W.npy BIAS=$O/head/b.npy VOCAB=$O/head/vocab.txt
fi

# ---- spectrum and rank measures --------------------------------------------------------------
say "== $NAME: spectrum and rank measures of $HEAD"
step "$O/rank.tsv" "$B/sbw-rank" -q --threads "$THREADS" --spectrum "$O/spectrum.tsv" "$HEAD"
step "$O/measures.tsv" "$B/sbw-rank" -q --threads "$THREADS" --measures "$HEAD"

# ---- argmaxable words and their largest probabilities ----------------------------------------
say "== $NAME: argmaxable words (sbw-argmax, --max-prob $RADII)"
set -- "$HEAD"
[ -z "$VOCAB" ] || set -- --vocab "$VOCAB" "$@"
[ -z "$BIAS" ] || set -- --bias "$BIAS" "$@"
step "$O/argmax.tsv" "$B/sbw-argmax" -q --threads "$THREADS" --max-prob "$RADII" "$@"
A=$O/argmax.tsv
NUN=$(tsv_meta "$A" unargmaxable)
say "   $(tsv_meta "$A" argmaxable) argmaxable, $NUN not, $(tsv_meta "$A" undecided) undecided of $(tsv_meta "$A" checked)"

# maxprob.tsv: the unargmaxable words' p_max and p_upper per R, one row per
# (word, R), reshaped from argmax.tsv (numbers copied, none computed); a
# word's name is its index when there is no vocabulary.  A table without
# the columns this needs fails here, leaving no maxprob.tsv.
if [ ! -s "$O/maxprob.tsv" ]; then
    {
        say "# maxprob.tsv: the columns p_max_R*, p_upper_R* of argmax.tsv (unargmaxable words), one row per (word, R)"
        grep '^# command=' "$A"
        awk -F'\t' '/^#/ { next }
            !h { for (i = 1; i <= NF; i++) { col[$i] = i; if ($i ~ /^p_max_R/) r[++nr] = substr($i, 8) }
                 if (!("word" in col) || !("argmaxable" in col) || nr == 0) {
                     print FILENAME ": no word, argmaxable or p_max_R* column" > "/dev/stderr"; bad = 1; exit 1 }
                 nm = ("name" in col) ? col["name"] : col["word"]
                 print "word\tname\tR\tp_max\tp_upper"; h = 1; next }
            $(col["argmaxable"]) == 0 { for (t = 1; t <= nr; t++)
                print $(col["word"]) "\t" $nm "\t" r[t] "\t" $(col["p_max_R" r[t]]) "\t" $(col["p_upper_R" r[t]]) }
            END { exit bad }' "$A"
    } >"$O/maxprob.tsv.tmp" || { rm -f "$O/maxprob.tsv.tmp" && exit 1; }
    mv "$O/maxprob.tsv.tmp" "$O/maxprob.tsv"
fi

# ---- figures ---------------------------------------------------------------------------------
say "== $NAME: figures"
# in_out CMD...: CMD run in $O, where every file has a name of ours (sbw-plot
# splits --rank and --labels at commas; the folder's own name may hold some)
in_out() { cd "$O" && "$@"; }
# the legend is a --labels list: a comma in the run's name is not a separator
label=$(printf '%s W' "$NAME" | tr ',' ';')
[ -s "$O/spectrum.png" ] ||
    recipe_run in_out "$B/sbw-plot" -q spectrum spectrum.tsv --rank rank.tsv --labels "$label" \
        --title "Singular spectrum of $NAME's W" -o spectrum
if [ "$NUN" -gt 0 ] && [ ! -s "$O/maxprob.png" ]; then
    recipe_run in_out "$B/sbw-plot" -q train maxprob.tsv --x R --y p_max --series name --logx \
        --title "Largest attainable probability of the unargmaxable words over ||h|| <= R" -o maxprob
fi

# ---- report ----------------------------------------------------------------------------------
recipe_run env SBW_BIN="$B" sh experiments/heads/report.sh "$O" "$NAME" "$HEAD" "$SYN"
say "== $NAME: $O/report.md"
