#!/bin/sh
# make_corpus.sh [BIN]: writes the seed corpus of every fuzz target under
# tests/fuzz/corpus/TARGET/ (small valid and broken inputs, a few KB per
# target; committed).  npy: the .npy fixtures of tests/fixtures; ckpt: a
# real sbw-fit checkpoint (made with BIN/sbw-fit, default bin/, stopped by
# SIGINT) and hand-made tables; the others by printf.  Run from the
# repository's root.  Multi-file inputs separate their files with a line
# "%%" (tests/fuzz/fuzz_util.h, fuzz_split).
set -eu
bin=${1:-bin}
c=tests/fuzz/corpus
rm -rf "$c"
mkdir -p "$c/npy" "$c/safet" "$c/ckpt" "$c/tsv" "$c/cli" "$c/corpus" "$c/plotscript"
sep='\n%%%%\n'

# ---- npy: valid files of each kind, and broken ones
for f in f8_c f8_f f8_be f8_v2 f8_v3 f4_c f4_f f4_be_f i8 c16 f8_0d f8_3d vec_f8 rank_empty \
    logp logp_f4 logp_f4_unnorm probs nonfinite kl_p_probs kl_probs_bad logp_zero; do
    cp "tests/fixtures/$f.npy" "$c/npy/"
done
head -c 100 tests/fixtures/f8_c.npy >"$c/npy/truncated_payload.npy"
head -c 40 tests/fixtures/f8_c.npy >"$c/npy/truncated_header.npy"
{ cat tests/fixtures/f8_c.npy; printf 'xx'; } >"$c/npy/trailing.npy"

# ---- safetensors: 8-byte little-endian header length, JSON, data
le64() { # the 8 bytes of $1, little-endian
    n=$1
    for _ in 1 2 3 4 5 6 7 8; do
        printf "\\$(printf %03o $((n % 256)))"
        n=$((n / 256))
    done
}
safet() { # safet NAME JSON DATA-BYTES
    { le64 ${#2}; printf '%s' "$2"; head -c "$3" /dev/zero | tr '\0' '\077'; } >"$c/safet/$1"
}
safet f32.safetensors '{"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}' 24
safet f16_bf16.safetensors '{"__metadata__":{"format":"pt"},"a":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[8,16]}}' 16
safet f64.safetensors '{"x":{"dtype":"F64","shape":[1,2],"data_offsets":[0,16]}}' 16
safet i64_3d.safetensors '{"i":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},"t":{"dtype":"F32","shape":[1,1,2],"data_offsets":[8,16]}}' 16
safet overlap.safetensors '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}' 12
safet hole.safetensors '{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}' 8
safet past_end.safetensors '{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}' 8
safet bad_json.safetensors '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]' 4
safet dup_key.safetensors '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}' 4
safet empty.safetensors '{}' 0
printf 'short' >"$c/safet/short.safetensors"

# ---- ckpt: checkpoint.tsv, "%%", the generation's theta array
t=$(mktemp -d)
"$bin/sbw-synth" dirichlet --n 4 --m 3 --seed 1 -o "$t/p.npy" >/dev/null
"$bin/sbw-fit" "$t/p.npy" --d 1 --steps 1000000000 --threads 1 -o "$t/q.npy" >/dev/null 2>&1 &
sleep 1
kill -INT $! && wait $! || true
{ cat "$t/q.npy.ckpt/checkpoint.tsv"; printf "$sep"; cat "$t"/q.npy.ckpt/ckpt-*-theta.npy; } >"$c/ckpt/fit"
rm -rf "$t"
every='sbw_checkpoint=2\ngeneration=7\nz=12\nu=18446744073709551615\ni=3\nd=-0x1.8p-1\ninf=-inf\nb=1\nnb=on\ne=blue\n'
{ printf "$every"; printf "$sep"; cat tests/fixtures/f8_c.npy; } >"$c/ckpt/every"
printf "$every" | sed 's/^d=.*/d=2/' >"$c/ckpt/out_of_range"
printf 'sbw_checkpoint=1\ngeneration=1\n' >"$c/ckpt/old_version"
printf 'sbw_checkpoint=2\ngeneration=0\n' >"$c/ckpt/gen_zero"
printf 'sbw_checkpoint=2\ngeneration=1\nnot a line\n' >"$c/ckpt/malformed"

# ---- tsv: tables as the tools write them, and broken ones
printf '# tool=sbw-rank\n# n=4\n# m=3\nindex\tsigma\tcum_pct\n0\t2.5\t80\n1\t0.5\t100\n' >"$c/tsv/spectrum.tsv"
printf '# tool=sbw-sweep\nM\tD\tmodel\tseed\tkl_mean\n100\t2\tsoftmax\t1\t0.5\n100\t2\tsoftmax\t2\t0.7\n100\t4\tmos\t1\t0.2\n' >"$c/tsv/sweep.tsv"
printf '# tool=sbw-fit\nstep\tloss\tkl_mean\tlr\n0\t3.2\t1.5\t0.01\n10\t2.1\t0.9\t0.01\n' >"$c/tsv/train.tsv"
printf '# tool=sbw-bound\n# n=8\n# m=6\nd\tbound\tshift_bound\n1\t2.0\t1.5\n2\t1.0\t0.5\n' >"$c/tsv/bound.tsv"
printf 'k\trank\tppl\n1\t10\t120.5\n2\t20\t110\n' >"$c/tsv/rank_k.tsv"
printf '# alpha=0.1\nrow\talpha\tentropy\n0\t0.1\t1.2\n' >"$c/tsv/alpha.tsv"
# sbw-synth's and sbw-info's tables in one (alpha joins the file with itself;
# 98 bytes: size % 6 = 2 picks the alpha kind)
printf '###\n# alpha=0.1\n# m=3\n# output=p.npy\n# file=p.npy\nrank\tprob\tentropy\n1\t0.5\t1.0\n2\t0.3\t0.9\n3\t0.2\t1.1\n' >"$c/tsv/alpha_joined.tsv"
printf 'a\tb\n1\n' >"$c/tsv/ragged.tsv"
printf 'a\ta\n1\t2\n' >"$c/tsv/dup_col.tsv"
printf '# only=meta\n' >"$c/tsv/no_header.tsv"
printf 'a\tb\r\n1e999\tnan\r\n' >"$c/tsv/crlf.tsv"
# sbw-lm's curve.tsv and grid table, and a saved PLIF head's params.tsv (read as a table and
# by sbw_head_io_map_regen)
printf '# command=run.sh eval plif\ntokens\tvalid_ppl\texpected_pairwise_kl\n1\t200\t0.5\n2\t100\t0.7\n' >"$c/tsv/curve.tsv"
printf '# step=10\nppl\tplif\tsoftmax\n100\t0.5000\tnan\n110\t0.6000\t0.7000\n' >"$c/tsv/grid.tsv"
{ printf '# tool=sbw-fit\n# command=sbw-fit P.npy --save d\n# warning=fit_still_improving: x\n# model=plif\n'
  printf '# n=0\n# m=2\n# d=1\n# k=0\n# knots=2\n# plif_t=1\n# bias=false\n# linear=false\n# parameters=4\n'
  printf 'name\tfile\trows\tcols\tmeaning\nplif_slope\tplif_slope.npy\t2\t1\tPLIF slopes s_i > 0\n'; } >"$c/tsv/params.tsv"

# ---- cli: argv items separated by NUL bytes
cli() { printf -- "$2" >"$c/cli/$1"; }
cli plain 'in.npy\0--n\0005\0--x\0000.5\0-o\0out.npy'
cli eq '--l=-3\0--u=18446744073709551615\0--s=x\0a\0b'
cli flags '--flag\0--json\0--quiet\0--threads\0002\0--seed\0007\0a'
cli help '--help'
cli version '--version'
cli dashdash '--\0--n\0a'
cli bad_num '--n\0001.5\0a'
cli range '--l\00011\0a'
cli unknown '--nope\0a'
cli missing_val 'a\0--n'
cli list '1,2,5:10\0002:100:2\0001e5\0-1\0nan\00x10\0inf'

# ---- corpus: train, valid, test separated by "%%" lines
printf "the cat sat\nthe dog sat\n${sep}the cat\n${sep}the dog\n" >"$c/corpus/small"
printf "a b <unk>\n\n<unk> a\n${sep}a\n${sep}b <unk>\n" >"$c/corpus/unk_empty_line"
printf "a b\n${sep}a z\n${sep}b\n" >"$c/corpus/oov"
printf "a\r\nb\n${sep}a\n${sep}b\n" >"$c/corpus/crlf"
printf "a \377 b\n${sep}a\n${sep}b\n" >"$c/corpus/not_utf8"
printf "caf\303\251 na\303\257ve\n${sep}caf\303\251\n${sep}na\303\257ve\n" >"$c/corpus/utf8"
printf "a b\n${sep}a\n" >"$c/corpus/no_test"
printf "\n${sep}\n${sep}\n" >"$c/corpus/empty"
printf "\357\273\277a b\n${sep}a\n${sep}b\n" >"$c/corpus/bom"
printf "a b\n${sep}\357\273\277a\n${sep}b\n" >"$c/corpus/bom_valid"
printf "a b\357\273\277 c\n${sep}b\357\273\277\n${sep}a\n" >"$c/corpus/bom_inside"
printf "a w\342\200\213x\n${sep}a\n${sep}w\342\200\213y \342\200\256z\n" >"$c/corpus/invisible"

# ---- ckpt (sbw-lm): a checkpoint of a 20-parameter model (d = emb = hidden
# = 1) of a two-word corpus whose fingerprint the target sets to 0; "%%",
# theta (the target writes the same bytes as avg): good, NaN, absurd
lm_ckpt() { # lm_ckpt AVERAGING: checkpoint.tsv of such a model
    printf 'sbw_checkpoint=2\ngeneration=4\nmodel=softmax\nk=15\nknots=100\nplif_t=0x1.4p+3\n'
    printf 'bias=1\nd=1\nemb=1\nlayers=1\nhidden1=1\nhidden2=0\nhidden3=0\ntied=0\nbatch=1\n'
    printf 'bptt=2\neval_batch=10\ntrain_tokens=0\nvalid_tokens=0\nseed=20180101\n'
    printf 'optimizer=sgd\nlr=0x1.4p+4\nclip=0x1p-2\nwdecay=0x1.421f5f40d8376p-20\n'
    printf 'beta1=0x1.ccccccccccccdp-1\nbeta2=0x1.ff7ced916872bp-1\neps=0x1.5798ee2308c3ap-27\n'
    printf 'asgd=1\nnonmono=5\ndropout_emb=0x0p+0\ndropout_in=0x0p+0\ndropout_layer=0x0p+0\n'
    printf 'dropout_latent=0x0p+0\nprecision=single\nepochs=1\nmax_steps=0\nlog_every=10\n'
    printf 'eval_every=0\nckpt_every=0x1.2cp+9\nthreads=2\nstep=4\nepoch=1\npos=0\ntokens=7\n'
    printf 'nvalid=1\nnlog=1\navg_count=1\nseconds=0x0p+0\nhead_seconds=0x0p+0\naveraging=%s\n' "$1"
    printf 'corpus_hash=0\nadam_t=0\nrun_loss=0x0p+0\nrun_tokens=0\nsnapshot=0\n'
}
lm_theta() { # lm_theta FIRST: a (20,) float64 .npy, FIRST then 19 zeros
    h="{'descr': '<f8', 'fortran_order': False, 'shape': (20,), }"
    printf '\223NUMPY\001\000\166\000%s%*s\n' "$h" $((117 - ${#h})) ''
    printf "$1"
    i=1
    while [ $i -lt 20 ]; do
        printf '\000\000\000\000\000\000\000\000'
        i=$((i + 1))
    done
}
{ lm_ckpt 0; printf "$sep"; lm_theta '\000\000\000\000\000\000\360\077'; } >"$c/ckpt/lm_ok"
{ lm_ckpt 1; printf "$sep"; lm_theta '\000\000\000\000\000\000\360\077'; } >"$c/ckpt/lm_avg"
{ lm_ckpt 0; printf "$sep"; lm_theta '\000\000\000\000\000\000\370\177'; } >"$c/ckpt/lm_nan"
{ lm_ckpt 0; printf "$sep"; lm_theta '\000\000\000\000\000\000\360\107'; } >"$c/ckpt/lm_huge"

# ---- plotscript: a flags byte, then the string slots separated by "%%" lines
# (kind, figure title, --title, command, stem, panel 1 title/x/y, panel 2
# title/x/y, three labels, a note, a key position: fuzz_plotscript.c)
ps() { # ps NAME FLAGS SLOT...
    name=$1
    flags=$2
    shift 2
    {
        printf "\\$(printf %03o "$flags")"
        first=1
        for a in "$@"; do
            [ $first = 1 ] || printf "$sep"
            first=0
            printf '%s' "$a"
        done
    } >"$c/plotscript/$name"
}
nl='
'
ps plain 32 sweep 'Title' 'My title' 'sbw-plot sweep r.tsv -o fig' fig 'M = 30' 'embedding size D' \
    'KL (nats)' '' 'index j' 'σ (log scale)' 'softmax' 'mos K=10' 'identity f(x) = x' 'a note' 'top left'
ps newline 33 x "a${nl}system(\"touch M\")${nl}#" "b'${nl}!touch M" 'c\' "sbw-plot x -o f${nl}g" \
    "f${nl}g" y x y t x y "l1${nl}set output '|touch M'" l2 l3 'n\' center
ps quotes 34 "\`touch M\`" "'' . system('touch M') . ''" '"; system("touch M"); "' '@m' '<touch M' \
    '$data' x y "'" "''" "'''" "a'b" '\' '\\' '@@' 'bottom right; !touch M'
ps unicode 35 "$(printf 'a\342\200\256b')" "$(printf 'z\342\200\213w\357\273\277')" \
    "$(printf '\302\205\342\200\250')" "$(printf '\377\376\300\257\355\240\200')" \
    "$(printf 'st\033[2J')" 'σ/σ₀' 'α ≤ λ' '50% of a_b' '{x}^#&$~' "$(printf 'tab\there')" y \
    "$(printf 'cr\rlf\nend')" "$(printf '\001\002\177')" l n ''
ps long 48 train "$(printf 'word %.0s' $(seq 40))" t c fig t x y t x y \
    "$(printf 'x%.0s' $(seq 300))" 'a_sixty_character_legend_label_______________________________' \
    "$(printf 'ab cd %.0s' $(seq 50))" '' below

# ---- argmax: W.npy, then b.npy (empty: none), then the --vocab text, separated by "%%" lines
mkdir -p "$c/argmax"
F=tests/fixtures
cp "$F/argmax_square.npy" "$c/argmax/square"
cp "$F/argmax_nan.npy" "$c/argmax/nan"
cp "$F/argmax_1row.npy" "$c/argmax/one_row"
{ cat "$F/argmax_square.npy"; printf "$sep"; cat "$F/argmax_square_bias.npy"; printf "$sep"; cat "$F/argmax_vocab.txt"; } >"$c/argmax/square_bias_vocab"
{ cat "$F/argmax_square_f4.npy"; printf "$sep$sep"; printf 'caf\351\nb\nc\nd\ne\nf\n\342\202\n'; } >"$c/argmax/square_f4_latin1"
{ cat "$F/argmax_square.npy"; printf "$sep"; cat "$F/argmax_bias6.npy"; } >"$c/argmax/bias_short"
{ cat "$F/argmax_square.npy"; printf "$sep$sep"; printf 'a\nb\0c\nc\nd\ne\nf\ng\n'; } >"$c/argmax/vocab_nul"

# ---- argmax_merge: sbw-argmax --shard tables (made with BIN/sbw-argmax), separated by "%%" lines
argmax_merge_corpus() {
    d="$c/argmax_merge"
    t=$(mktemp -d)
    mkdir -p "$d"
    F=tests/fixtures
    for i in 1 2 3; do
        "$bin/sbw-argmax" -q --threads 1 --shard $i/3 --vocab "$F/argmax_vocab.txt" -o "$t/v$i.tsv" "$F/argmax_square.npy"
    done
    for i in 1 2; do
        "$bin/sbw-argmax" -q --threads 1 --shard $i/2 --words 6,0:3 --max-prob 1,10 -o "$t/p$i.tsv" "$F/argmax_square.npy"
    done
    "$bin/sbw-argmax" -q --threads 1 --shard 1/1 --bias "$F/argmax_square_bias.npy" -o "$t/one.tsv" "$F/argmax_square.npy"
    { cat "$t/v1.tsv"; printf "$sep"; cat "$t/v2.tsv"; printf "$sep"; cat "$t/v3.tsv"; } >"$d/vocab_3"
    { cat "$t/p2.tsv"; printf "$sep"; cat "$t/p1.tsv"; } >"$d/maxprob_2"
    cp "$t/one.tsv" "$d/bias_1"
    { cat "$t/v1.tsv"; printf "$sep"; cat "$t/v3.tsv"; } >"$d/missing"
    { cat "$t/v1.tsv"; printf "$sep"; cat "$t/p2.tsv"; } >"$d/mixed"
    { cat "$t/v1.tsv"; printf "$sep"; sed 's/^# argmaxable=.*/# argmaxable=0/' "$t/v2.tsv"; printf "$sep"; cat "$t/v3.tsv"; } >"$d/bad_summary"
    rm -rf "$t"
}
argmax_merge_corpus
