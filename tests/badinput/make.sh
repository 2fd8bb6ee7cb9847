#!/bin/sh
# tests/badinput/make.sh DIR -- writes the bad-input corpus's derived files
# into DIR (POSIX sh, printf and dd only: no Python in make check).  Each is
# a good fixture (tests/fixtures/kl_p.npy: 9 x 7 float64 log-probabilities,
# a 128-byte header) with one thing broken, or a header written here; the
# tiny hand-made files beside this script (tests/badinput/files/) are copied
# as they are.  tests/badinput/MANIFEST says what each tool must do with
# each file; tests/cli/test_bad_input.sh runs them all.
set -eu
D=$1
FIX=${SBW_FIXTURES:-tests/fixtures}
HERE=$(dirname "$0")
mkdir -p "$D"
cp "$HERE"/files/* "$D"/

# npy_raw DICT FILE [VERSION]: FILE becomes magic, version (default \001\000),
# header length and DICT padded with spaces to a multiple of 64 and '\n'.
npy_raw() {
    pad=$(((64 - (10 + ${#1} + 1) % 64) % 64))
    hlen=$((${#1} + pad + 1))
    {
        printf '\223NUMPY'
        printf "${3:-\\001\\000}"
        printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
        printf '%s%*s\n' "$1" "$pad" ''
    } >"$2"
}
# npy DESCR SHAPE FILE [FORTRAN]: a header of a 2-D or 1-D array
npy() { npy_raw "{'descr': '$1', 'fortran_order': ${4:-False}, 'shape': $2, }" "$3"; }
# poke FILE ITEM BYTES: overwrite the ITEM-th float64 of kl_p's payload
poke() { printf "$3" | dd of="$1" bs=1 seek=$((128 + 8 * $2)) conv=notrunc status=none; }
payload() { tail -c +129 "$FIX/kl_p.npy"; } # the 504 bytes of kl_p's 9 x 7 values

NAN='\000\000\000\000\000\000\370\177'
PINF='\000\000\000\000\000\000\360\177'
NINF='\000\000\000\000\000\000\360\377'
ZERO='\000\000\000\000\000\000\000\000'
LHALF='\357\071\372\376\102\056\346\277'    # log 0.5
LQUARTER='\357\071\372\376\102\056\366\277' # log 0.25
L3QUARTER='\222\333\064\021\142\151\322\277' # log 0.75

cp "$FIX/kl_p.npy" "$D/good.npy"
cp "$FIX/kl_q.npy" "$D/goodq.npy"
cp "$FIX/kl_p_probs.npy" "$D/probs.npy"
cp "$FIX/kl_q_shape.npy" "$D/shape_9x6.npy"
cp "$FIX/vec_f8.npy" "$D/vec.npy"
cp "$FIX/f8_0d.npy" "$D/dims0.npy"
cp "$FIX/f8_3d.npy" "$D/dims3.npy"
cp "$FIX/c16.npy" "$D/dtype_c16.npy"
cp "$FIX/i8.npy" "$D/dtype_i8.npy"
cp "$FIX/f4_be_f.npy" "$D/fortran_f4_be.npy"

# ---- truncated, wrong magic, broken headers --------------------------------------------
: >"$D/empty_file.npy"
head -c 4 "$FIX/kl_p.npy" >"$D/trunc_magic.npy"
head -c 60 "$FIX/kl_p.npy" >"$D/trunc_header.npy"
head -c 300 "$FIX/kl_p.npy" >"$D/trunc_payload.npy"
{ printf 'XNUMPY'; tail -c +7 "$FIX/kl_p.npy"; } >"$D/bad_magic.npy"
{ printf 'PK\003\004'; head -c 200 /dev/zero; } >"$D/zip_magic.npy"
npy_raw "{'descr': '<f8', 'fortran_order': False, 'shape': (9, 7), }" "$D/bad_version.npy" '\011\000'
payload >>"$D/bad_version.npy"
npy_raw "hello" "$D/bad_dict.npy"
npy_raw "{'descr': '<f8', 'fortran_order': False, }" "$D/no_shape.npy"
npy_raw "{'descr': '<f8', 'fortran_order': False, 'shape': (9, -7), }" "$D/neg_shape.npy"
{ printf '\223NUMPY\001\000\377\377'; head -c 100 /dev/zero; } >"$D/hlen_huge.npy"
{ cat "$FIX/kl_p.npy"; printf 'xyz'; } >"$D/trailing.npy"

# ---- the header lies about the shape -----------------------------------------------------
npy '<f8' '(10, 7)' "$D/shape_larger.npy"
payload >>"$D/shape_larger.npy"
npy '<f8' '(8, 7)' "$D/shape_smaller.npy"
payload >>"$D/shape_smaller.npy"
# a claim of 4e8 entries (3.2 GB) with 504 bytes behind it
npy '<f8' '(20000, 20000)' "$D/claims_huge.npy"
payload >>"$D/claims_huge.npy"
npy '<f8' '(20000, 20000)' "$D/claims_huge_f.npy" True
payload >>"$D/claims_huge_f.npy"
# dims whose product overflows 64 bits, or the byte count does
npy '<f8' '(4294967296, 4294967297)' "$D/overflow_dims.npy"
payload >>"$D/overflow_dims.npy"
npy '<f8' '(2305843009213693952, 4)' "$D/overflow_bytes.npy"
payload >>"$D/overflow_bytes.npy"
npy '<f8' '(99999999999999999999999, 1)' "$D/overflow_dim.npy"
payload >>"$D/overflow_dim.npy"

# ---- dtypes and layouts ------------------------------------------------------------------
for t in '<f2:f2' '|b1:b1' '<U3:U3' '|O:obj' '<i4:i4' '<f16:f16'; do
    npy "${t%%:*}" '(2, 2)' "$D/dtype_${t#*:}.npy"
    head -c 64 /dev/zero >>"$D/dtype_${t#*:}.npy"
done
# rows (log .5, log .5) and (log .25, log .75) stored column by column
npy '<f8' '(2, 2)' "$D/fortran_logp.npy" True
printf "$LHALF$LQUARTER$LHALF$L3QUARTER" >>"$D/fortran_logp.npy"

# ---- values ---------------------------------------------------------------------------------
cp "$FIX/kl_p.npy" "$D/nan.npy" && poke "$D/nan.npy" 9 "$NAN"
cp "$FIX/kl_p.npy" "$D/posinf.npy" && poke "$D/posinf.npy" 9 "$PINF"
cp "$FIX/kl_p.npy" "$D/neginf.npy" && poke "$D/neginf.npy" 9 "$NINF"
cp "$FIX/kl_p.npy" "$D/unnorm.npy" && poke "$D/unnorm.npy" 21 "$ZERO" # row 3 sums past 1

# ---- shapes -----------------------------------------------------------------------------------
npy '<f8' '(0, 7)' "$D/empty_rows.npy"
npy '<f8' '(7, 0)' "$D/empty_cols.npy"
npy '<f8' '(0, 0)' "$D/empty_both.npy"
npy '<f8' '(1, 1)' "$D/one_by_one.npy"
printf "$ZERO" >>"$D/one_by_one.npy" # log 1: one word, certain

# ---- singular values as a .npy, which sbw-plot spectrum refuses (it reads sbw-rank's table) ----------
npy '<f8' '(3,)' "$D/spectrum.npy"
printf '\000\000\000\000\000\000\010\100\000\000\000\000\000\000\000\100' >>"$D/spectrum.npy"
printf '\000\000\000\000\000\000\360\077' >>"$D/spectrum.npy"

# ---- a word-level corpus whose valid split has a NUL byte (sbw-lm) ------------------------------
mkdir -p "$D/corpus_nul"
printf 'a b c\nb c a\n' >"$D/corpus_nul/train.txt"
printf 'a \000b\n' >"$D/corpus_nul/valid.txt"
printf 'a c\n' >"$D/corpus_nul/test.txt"
mkdir -p "$D/corpus_ok"
cp "$D/corpus_nul/train.txt" "$D/corpus_nul/test.txt" "$D/corpus_ok/"
printf 'a b\n' >"$D/corpus_ok/valid.txt"

# a corpus whose training file starts with a UTF-8 byte-order mark
mkdir -p "$D/corpus_bom"
cp "$D/corpus_ok/valid.txt" "$D/corpus_ok/test.txt" "$D/corpus_bom/"
{ printf '\357\273\277' && cat "$D/corpus_ok/train.txt"; } >"$D/corpus_bom/train.txt"

# sbw-lm checkpoints of a 26-parameter model (d = emb = hidden = 1, batch 1,
# bptt 2) of corpus_ok, as `sbw-lm train --data corpus_ok --d 1 --emb 1
# --hidden 1 --batch 1 --bptt 2 --no-dropout` writes them (the settings and
# counters of such a run, the corpus fingerprint of corpus_ok): ckpt_nan's
# theta has a NaN; ckpt_avg says NT-ASGD is averaging but has no avg array.
ckpt_lm() { # ckpt_lm DIR AVERAGING FIRST: checkpoint.tsv and a theta of zeros after FIRST
    mkdir -p "$1"
    printf 'sbw_checkpoint=2\ngeneration=4\nmodel=softmax\nk=15\nknots=100\nplif_t=0x1.4p+3\n' >"$1/checkpoint.tsv"
    printf 'bias=1\nd=1\nemb=1\nlayers=1\nhidden1=1\nhidden2=0\nhidden3=0\ntied=0\nbatch=1\n' >>"$1/checkpoint.tsv"
    printf 'bptt=2\neval_batch=10\ntrain_tokens=0\nvalid_tokens=0\nseed=20180101\n' >>"$1/checkpoint.tsv"
    printf 'optimizer=sgd\nlr=0x1.4p+4\nclip=0x1p-2\nwdecay=0x1.421f5f40d8376p-20\n' >>"$1/checkpoint.tsv"
    printf 'beta1=0x1.ccccccccccccdp-1\nbeta2=0x1.ff7ced916872bp-1\neps=0x1.5798ee2308c3ap-27\n' >>"$1/checkpoint.tsv"
    printf 'asgd=1\nnonmono=5\ndropout_emb=0x0p+0\ndropout_in=0x0p+0\ndropout_layer=0x0p+0\n' >>"$1/checkpoint.tsv"
    printf 'dropout_latent=0x0p+0\nprecision=single\nepochs=1\nmax_steps=0\nlog_every=10\n' >>"$1/checkpoint.tsv"
    printf 'eval_every=0\nckpt_every=0x1.2cp+9\nthreads=2\nstep=4\nepoch=1\npos=0\ntokens=7\n' >>"$1/checkpoint.tsv"
    printf 'nvalid=1\nnlog=1\navg_count=1\nseconds=0x0p+0\nhead_seconds=0x0p+0\naveraging=%s\n' "$2" >>"$1/checkpoint.tsv"
    printf 'corpus_hash=14064430451769823141\nadam_t=0\nrun_loss=0x0p+0\nrun_tokens=0\nsnapshot=0\n' >>"$1/checkpoint.tsv"
    npy '<f8' '(26,)' "$1/ckpt-4-theta.npy"
    printf "$3" >>"$1/ckpt-4-theta.npy"
    i=1
    while [ $i -lt 26 ]; do
        printf "$ZERO" >>"$1/ckpt-4-theta.npy"
        i=$((i + 1))
    done
}
ckpt_lm "$D/ckpt_ok" 0 "$ZERO"
ckpt_lm "$D/ckpt_nan" 0 "$NAN"
ckpt_lm "$D/ckpt_avg" 1 "$ZERO"

# ---- control characters -------------------------------------------------------------------
# in a header's dtype and in an unknown key; in a file name (ESC sequence, BEL, newline)
npy_raw "{'descr': '<f8$(printf '\033')[31m', 'fortran_order': False, 'shape': (2, 2), }" "$D/ctl_descr.npy"
npy_raw "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x$(printf '\007\033')]0;t': 1, }" \
    "$D/ctl_key.npy"
cp "$D/trunc_payload.npy" "$D/$(printf 'ctl\033[31m\007\nname.npy')"
cp "$D/good.npy" "$D/$(printf 'ok\033[31mname.npy')"
mkdir -p "$D/dir.npy"
cp "$D/spectrum.tsv" "$D/s.dat" # an input whose name sbw-plot -o s would write

# ---- sbw-argmax heads: biases, names, the ends of the double range ------------------------------
P308='\240\310\353\205\363\314\341\177'  # 1e308
M308='\240\310\353\205\363\314\341\377'  # -1e308
ONE='\000\000\000\000\000\000\360\077'
MONE='\000\000\000\000\000\000\360\277'
TMIN='\001\000\000\000\000\000\000\000'  # 5e-324, the smallest subnormal
MTMIN='\001\000\000\000\000\000\000\200'
npy '<f8' '(9,)' "$D/argmax_bias_nan.npy"
printf "$ZERO$ZERO$ZERO$ZERO$NAN$ZERO$ZERO$ZERO$ZERO" >>"$D/argmax_bias_nan.npy"
npy '<f8' '(9,)' "$D/argmax_bias_inf.npy"
printf "$ZERO$ZERO$NINF$ZERO$ZERO$ZERO$ZERO$ZERO$ZERO" >>"$D/argmax_bias_inf.npy"
printf 'a\nb\nc\nd\ne\nf\ng\nh\n' >"$D/argmax_vocab8.txt"
printf 'a\nb\000x\nc\nd\ne\nf\ng\nh\ni\n' >"$D/argmax_vocab_nul.txt"
printf 'caf\351\n\377\nc\nd\ne\nf\ng\nh\n\342\202\n' >"$D/argmax_vocab_latin1.txt"
# rows and biases of +-1e308 (the old normalisation overflowed to -inf), subnormal rows
npy '<f8' '(4, 2)' "$D/argmax_huge.npy"
printf "$P308$M308$ZERO$ONE$M308$P308$ZERO$MONE" >>"$D/argmax_huge.npy"
npy '<f8' '(4,)' "$D/argmax_huge_b.npy"
printf "$P308$M308$ZERO$ONE" >>"$D/argmax_huge_b.npy"
npy '<f8' '(4, 2)' "$D/argmax_subnormal.npy"
printf "$TMIN$ZERO$ZERO$TMIN$MTMIN$MTMIN$ZERO$ZERO" >>"$D/argmax_subnormal.npy"

# ---- saved head folders for sbw-fit --map (params.tsv meta + the positive map values) ----------
# head_dir DIR MODEL K KNOTS PARAMETERS: a params.tsv as sbw-fit --save writes its meta (m = 2,
# d = 1, no bias), with no rows (--map reads the meta only)
head_dir() {
    mkdir -p "$1"
    printf '# tool=sbw-fit\n# version=0.1.0\n# command=sbw-fit P.npy --save %s\n' "$1" >"$1/params.tsv"
    printf '# model=%s\n# n=0\n# m=2\n# d=1\n# k=%s\n# knots=%s\n' "$2" "$3" "$4" >>"$1/params.tsv"
    printf '# plif_t=1\n# bias=false\n# linear=false\n# parameters=%s\n' "$5" >>"$1/params.tsv"
    printf 'name\tfile\trows\tcols\tmeaning\n' >>"$1/params.tsv"
}
slopes() { # slopes DIR N VALUES: DIR/plif_slope.npy of N float64 VALUES (printf escapes)
    npy '<f8' "($2,)" "$1/plif_slope.npy"
    printf "$3" >>"$1/plif_slope.npy"
}
head_dir "$D/map_ok" plif 0 2 4 && slopes "$D/map_ok" 2 "$ONE$ONE"
head_dir "$D/map_zero" plif 0 2 4 && slopes "$D/map_zero" 2 "$ONE$ZERO"
head_dir "$D/map_nan" plif 0 2 4 && slopes "$D/map_nan" 2 "$NAN$ONE"
head_dir "$D/map_short" plif 0 2 4 && slopes "$D/map_short" 1 "$ONE"
head_dir "$D/map_noslope" plif 0 2 4
head_dir "$D/map_count" plif 0 2 5 && slopes "$D/map_count" 2 "$ONE$ONE"
head_dir "$D/map_mos" mos 2 0 6
mkdir -p "$D/map_text"
printf '# model=plif\n#bad line\n' >"$D/map_text/params.tsv"

# ---- sbw-argmax --truncation (issue 31): a head of 7 words for good.npy's rows ----------
cp "$FIX/argmax_square.npy" "$D/square.npy"
