#!/bin/sh
# bench/ab.sh OLD_BIN NEW_BIN [REPS]: a refactor's speed check, two builds of
# sbw in one invocation, alternated REPS times (default 3): sbw-lm train's
# tokens/s (median over steps 3..8 of bench_lm's network: emb 400, LSTM
# 960, batch 12, BPTT 70; MoS D=280 K=15 and Softmax D=400, on PTB) and
# sbw-fit's seconds per step (median of 12 Adam steps on a 20,000 x 2,000
# Dirichlet language; softmax and mos K=10, D=50).  Prints one line per run:
# SIDE MEASURE VALUE.  Not part of make bench (it needs two builds); issue 26
# used it to show that its refactor left the speed unchanged.
set -u
O=$1 N=$2 R=${3:-3}
PTB=${SBW_PTB:-../shared/data/ptb}
W=/tmp/ab; rm -rf $W; mkdir -p $W
$N/sbw-synth dirichlet --n 20000 --m 2000 --alpha 0.1 --seed 1 -q -o $W/p.npy >/dev/null
lm() { # BIN HEAD D -> tokens/s median over logged steps (skip first 2)
  kopt=""; [ $2 = mos ] && kopt="--k 15"
  $1/sbw-lm train --data $PTB --head $2 $kopt --d $3 --emb 400 --hidden 960 --batch 12 --bptt 70 --no-dropout --seed 1 \
     --max-steps 8 --log-every 1 --log $W/log.tsv -q --threads 2 >/dev/null 2>$W/err || { cat $W/err; echo FAIL; return; }
  awk -F'\t' '/^#/ {next} !h { for (i=1;i<=NF;i++) c[$i]=i; h=1; next } { n++; t=$(c["tokens"]); x=$(c["seconds"]); if (n>2 && x>px) v[++k]=(t-pt)/(x-px); pt=t; px=x } END { for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (v[j]<v[i]) { tmp=v[i]; v[i]=v[j]; v[j]=tmp } print v[int((k+1)/2)] }' $W/log.tsv
}
fit() { # BIN MODEL -> seconds/step median
  kopt=""; [ $2 = mos ] && kopt="--k 10"
  $1/sbw-fit $W/p.npy --model $2 $kopt --d 50 --steps 12 --lr 0.01 --log-every 1 --log $W/flog.tsv -q >/dev/null 2>$W/err || { cat $W/err; echo FAIL; return; }
  awk -F'\t' '/^#/ {next} !h { for (i=1;i<=NF;i++) c[$i]=i; h=1; next } { if (NR>1 && p!="") v[++k]=$(c["seconds"])-p; p=$(c["seconds"]) } END { for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (v[j]<v[i]) { tmp=v[i]; v[i]=v[j]; v[j]=tmp } print v[int((k+1)/2)] }' $W/flog.tsv
}
i=0
while [ $i -lt $R ]; do
  for side in old new; do B=$O; [ $side = new ] && B=$N
    echo "$side lm-mos $(lm $B mos 280)"; echo "$side lm-softmax $(lm $B softmax 400)"
    echo "$side fit-softmax $(fit $B softmax)"; echo "$side fit-mos $(fit $B mos)"
  done; i=$((i+1))
done
