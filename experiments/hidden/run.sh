#!/bin/sh
# experiments/hidden/run.sh -- recovering a language model's hidden size
# from its outputs (issue 31; Carlini et al. 2024, "Stealing Part of a
# Production Language Model"; Finlayson, Ren and Swayamdipta 2024, "Logits
# of API-Protected LLMs Leak Proprietary Information"): sbw-lm models of
# known head dimension D are trained briefly, their full log-probability
# vectors for the first N validation positions exported (sbw-lm eval
# --logprobs), rounded as an API storing float32, float16 or bfloat16 would
# return them (sbw-rank --round), and sbw-rank --hidden-size reads D off the
# drop of the double-centred spectrum.  Softmax and MoC heads, with and
# without a word bias, should give D exactly once N >= D + 2; MoS and PLIF
# heads are not bounded by D and should show no drop.  Only the tools are
# chained: hidden.tsv copies each sbw-rank header's hidden_* values.
#
# usage: experiments/hidden/run.sh [options]
#   --data DIR      a corpus ({train,valid,test}.txt or ptb.*.txt)
#                   [a generated 200-word corpus: tests/fixtures/make_lm_corpus.sh]
#   --d D           the heads' dimension [16]
#   --k K           mixture components of MoC and MoS [4]
#   --n LIST        the numbers of queries N, comma-separated [8,16,17,18,19,24,32,64,128,256,512]
#   --prec LIST     the precisions [f64,f32,f16,bf16]
#   --heads LIST    of softmax, softmax-nobias, moc, moc-nobias, mos, plif [all six]
#   --epochs E      training epochs (sbw-lm --quick's 20k tokens each) [1]
#   -o DIR          where everything goes [out/hidden]
#   --threads N     for the tools [2]
#
# Each model is trained with sbw-lm train --quick (LSTM 32, no dropout) at
# --d D, Adam at lr 0.01 for --epochs, seed 1; N queries are its log Q
# (float64) at the first N validation positions (sbw-lm eval --tokens N
# --logprobs DIR/logp/MODEL-N.npy).
# DIR/hidden.tsv: model head bias d n precision hidden_size status
# hidden_min ratio gap_log10 next_gap_log10 margin, one row per (model,
# precision, N), under its "# command=" line; DIR/rank/ keeps every
# sbw-rank table it copies from.  At the default scale the whole run takes
# a few minutes on a loaded 2-core machine.  Rerunning skips every model
# and table already there.  SIGINT or SIGTERM stops the running tool and
# exits 130 or 143.
#
# Example: experiments/hidden/run.sh --heads softmax,mos --n 16,18,32
set -eu
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/../.."
. scripts/tsv.sh
. scripts/recipe.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi
CMDLINE="experiments/hidden/run.sh $*"

usage() {
    if [ "${1:-2}" = 0 ]; then
        sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
    fi
    sed -n '15,25p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
DATA="" D=16 K=4 NS=8,16,17,18,19,24,32,64,128,256,512 PRECS=f64,f32,f16,bf16 EPOCHS=1 THREADS=2 OUT=""
HEADS=softmax,softmax-nobias,moc,moc-nobias,mos,plif
while [ $# -gt 0 ]; do
    case $1 in
    --data) DATA=$2 && shift ;;
    --d) D=$2 && shift ;;
    --k) K=$2 && shift ;;
    --n) NS=$2 && shift ;;
    --prec) PRECS=$2 && shift ;;
    --heads) HEADS=$2 && shift ;;
    --epochs) EPOCHS=$2 && shift ;;
    -o) OUT=$2 && shift ;;
    --threads) THREADS=$2 && shift ;;
    -h | --help) usage 0 ;;
    *) echo "run.sh: unknown option '$1'" >&2 && usage ;;
    esac
    shift
done
for v in "$D" "$K" "$EPOCHS" "$THREADS"; do
    case $v in '' | *[!0-9]*) echo "run.sh: '$v' is not a whole number" >&2 && exit 2 ;; esac
done
for n in $(printf '%s' "$NS" | tr ',' ' '); do
    case $n in '' | *[!0-9]*) echo "run.sh: --n: '$n' is not a whole number" >&2 && exit 2 ;; esac
done
for p in $(printf '%s' "$PRECS" | tr ',' ' '); do
    case $p in f64 | f32 | f16 | bf16) ;; *) echo "run.sh: --prec: '$p' is not f64, f32, f16 or bf16" >&2 && exit 2 ;; esac
done
for h in $(printf '%s' "$HEADS" | tr ',' ' '); do
    case $h in softmax | softmax-nobias | moc | moc-nobias | mos | plif) ;;
    *) echo "run.sh: --heads: '$h' is not one of softmax, softmax-nobias, moc, moc-nobias, mos, plif" >&2 && exit 2 ;;
    esac
done
if [ -n "$OUT" ]; then O=$(recipe_abs "$OUT"); else O=out/hidden; fi
mkdir -p "$O/models" "$O/logp" "$O/rank"
say() { printf '%s\n' "$*"; }
tmp=""
cleanup() { [ -z "$tmp" ] || rm -rf "$tmp"; }
recipe_traps run.sh cleanup

# the corpus
if [ -n "$DATA" ]; then
    DATA=$(recipe_abs "$DATA")
else
    DATA=$O/corpus
    [ -s "$DATA/test.txt" ] || recipe_run sh tests/fixtures/make_lm_corpus.sh "$DATA"
fi

# head_opts NAME: sbw-lm train's head options for a model name
head_opts() {
    case $1 in
    softmax) echo "--head softmax" ;;
    softmax-nobias) echo "--head softmax --no-bias" ;;
    moc) echo "--head moc --k $K" ;;
    moc-nobias) echo "--head moc --k $K --no-bias" ;;
    mos) echo "--head mos --k $K" ;;
    plif) echo "--head plif" ;;
    esac
}

for name in $(printf '%s' "$HEADS" | tr ',' ' '); do
    ck=$O/models/$name
    if [ ! -s "$ck/train.tsv" ]; then
        say "== $name: training (D = $D, $EPOCHS epoch(s))"
        tmp=$ck.tmp.$$
        rm -rf "$tmp"
        # shellcheck disable=SC2046
        recipe_run "$B/sbw-lm" train -q --data "$DATA" --quick --d "$D" $(head_opts "$name") \
            --optim adam --lr 0.01 --epochs "$EPOCHS" --ckpt-every 0 --seed 1 \
            --threads "$THREADS" --ckpt "$tmp" >"$tmp.tsv"
        mv "$tmp.tsv" "$tmp/train.tsv"
        mv "$tmp" "$ck"
        tmp=""
    fi
    for n in $(printf '%s' "$NS" | tr ',' ' '); do
        ln=$O/logp/$name-$n.npy
        if [ ! -s "$ln" ]; then
            recipe_run "$B/sbw-lm" eval -q --data "$DATA" --ckpt "$ck" --split valid --tokens "$n" \
                --threads "$THREADS" --logprobs "$ln" >/dev/null
        fi
        for p in $(printf '%s' "$PRECS" | tr ',' ' '); do
            r=$O/rank/$name-$n-$p.tsv
            [ -s "$r" ] && continue
            set -- --round "$p"
            [ "$p" != f64 ] || set --
            recipe_run "$B/sbw-rank" -q --threads "$THREADS" --hidden-size "$@" "$ln" >"$r.tmp.$$" 2>/dev/null ||
                { rc=$? && rm -f "$r.tmp.$$" && exit $rc; }
            mv "$r.tmp.$$" "$r"
        done
    done
done

# hidden.tsv: the hidden_* header values of every sbw-rank table, copied
say "== hidden.tsv"
{
    say "# hidden.tsv: sbw-rank --hidden-size [--round P] on the first N validation outputs of each model (DIR/rank/MODEL-N-P.tsv)"
    say "# command=$CMDLINE"
    say "# d=$D"
    say "# k=$K"
    printf 'model\thead\tbias\td\tn\tprecision\thidden_size\tstatus\thidden_min\tratio\tgap_log10\tnext_gap_log10\tmargin\n'
    for name in $(printf '%s' "$HEADS" | tr ',' ' '); do
        t=$O/models/$name/train.tsv
        head=$(tsv_field "$t" head 2>/dev/null || echo "$name")
        bias=yes
        case $name in *-nobias) bias=no ;; esac
        for n in $(printf '%s' "$NS" | tr ',' ' '); do
            for p in $(printf '%s' "$PRECS" | tr ',' ' '); do
                r=$O/rank/$name-$n-$p.tsv
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$head" "$bias" "$D" "$n" "$p" \
                    "$(tsv_meta "$r" hidden_size)" "$(tsv_meta "$r" hidden_status)" "$(tsv_meta "$r" hidden_min)" \
                    "$(tsv_meta "$r" hidden_ratio)" "$(tsv_meta "$r" hidden_gap_log10)" \
                    "$(tsv_meta "$r" hidden_next_gap_log10)" "$(tsv_meta "$r" hidden_margin)"
            done
        done
    done
} >"$O/hidden.tsv.tmp"
mv "$O/hidden.tsv.tmp" "$O/hidden.tsv"
say "== $O/hidden.tsv"
