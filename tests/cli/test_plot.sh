#!/bin/sh
# CLI checks of sbw-plot: every kind in every format writes a non-empty
# figure, its data and a script that gnuplot runs by itself from another
# folder; the sweep's error bars are the seeds' mean and sd; bad input
# gives one line, exit 1 or 2, and no file.
. tests/cli/lib.sh
P="$BIN/sbw-plot"
ABS=$(cd "$BIN" && pwd)

# ---- inputs made by the tools on a tiny language ------------------------------------------
"$BIN/sbw-synth" dirichlet --n 40 --m 30 --alpha 0.1 --seed 1 -q -o "$T/p.npy" >"$T/synth.tsv"
"$BIN/sbw-synth" dirichlet --n 40 --m 30 --alpha 1 --seed 1 -q -o "$T/p1.npy" >"$T/synth1.tsv"
"$BIN/sbw-info" -q --per-row "$T/h.tsv" --sorted "$T/s.tsv" "$T/p.npy" >/dev/null
"$BIN/sbw-info" -q --per-row "$T/h1.tsv" --sorted "$T/s1.tsv" "$T/p1.npy" >/dev/null
"$BIN/sbw-rank" -q --spectrum "$T/spec.tsv" "$T/p.npy" >"$T/rank.tsv"
"$BIN/sbw-rank" -q --center --spectrum "$T/specc.tsv" "$T/p.npy" >"$T/rankc.tsv"
"$BIN/sbw-bound" -q --d 1:10 "$T/p.npy" >"$T/bound.tsv"
"$BIN/sbw-fit" -q --model plif --k 4 --d 2 --steps 12 --log "$T/log.tsv" --save "$T/plif" \
    -o "$T/q.npy" "$T/p.npy" >/dev/null
"$BIN/sbw-fit" -q --model lms --k 3 --d 2 --steps 12 --log "$T/log2.tsv" --save "$T/lms" \
    -o "$T/q2.npy" "$T/p.npy" >/dev/null
# a sweep table: two seeds per cell; mos at D=4, M=30 has mode_match 0.2 and 0.4
printf '# made by hand\nmodel\tk\tm\td\tseed\tkl_mean\tmode_match\tfit_error\trank\tperplexity\n' >"$T/res.tsv"
for m in 30 60; do
    for d in 2 4; do
        printf 'softmax\t0\t%s\t%s\t1\t1.5\t0.1\t20\t%s\t9\n' $m $d $((d + 1)) >>"$T/res.tsv"
        printf 'softmax\t0\t%s\t%s\t2\t1.25\t0.3\t21\t%s\t8\n' $m $d $((d + 1)) >>"$T/res.tsv"
        printf 'mos\t%s\t%s\t%s\t1\t1.0\t0.2\t19\t%s\t7\n' $d $m $d $((3 * d)) >>"$T/res.tsv"
        printf 'mos\t%s\t%s\t%s\t2\t0.75\t0.4\t18\t%s\t6\n' $d $m $d $((3 * d)) >>"$T/res.tsv"
    done
done

# expect_refused CODE WHAT PATTERN NAME cmd...: exit CODE, the reason on the first line,
# nothing written under NAME (defined before its first use)
expect_refused() {
    code=$1
    what=$2
    pat=$3
    name=$4
    shift 4
    expect_exit "$code" "$what" "$@"
    # the reason is the first line; a usage error adds the usage line and a hint
    head -n 1 "$T/err" >"$T/err1"
    expect_grep "$pat" "$T/err1" "$what: reason on the first line"
    expect_lines $([ "$code" = 2 ] && grep -q '^Usage: sbw-plot' "$T/err" && echo 3 || echo 1) "$T/err" "$what: one line (+ usage)"
    for e in png gp dat; do expect_absent "$name.$e" "$what: no $e"; done
    if ls -a "$(dirname "$name")" | grep -q '\.plot\.'; then bad "$what: temporary folder left"; else ok; fi
}

# kind NAME ARGS...: the arguments of each kind
run_kind() {
    kind=$1
    out=$2
    shift 2
    case $kind in
    spectrum) "$P" -q spectrum "$T/spec.tsv" "$T/specc.tsv" --rank "$T/rank.tsv,$T/rankc.tsv" -o "$out" "$@" ;;
    sweep) "$P" -q sweep "$T/res.tsv" -o "$out" "$@" ;;
    alpha) "$P" -q alpha "$T/synth.tsv" "$T/synth1.tsv" --entropy "$T/h.tsv,$T/h1.tsv" \
        --sorted "$T/s.tsv,$T/s1.tsv" --rows 5 -o "$out" "$@" ;;
    bound) "$P" -q bound "$T/bound.tsv" --fits "$T/res.tsv" -o "$out" "$@" ;;
    train) "$P" -q train "$T/log.tsv" "$T/log2.tsv" -o "$out" "$@" ;;
    monotone) "$P" -q monotone "$T/plif" "$T/lms" -o "$out" "$@" ;;
    rank-k) "$P" -q rank-k "$T/res.tsv" --x k --where model=mos -o "$out" "$@" ;;
    esac
}

mkdir "$T/figs" "$T/elsewhere"
for kind in spectrum sweep alpha bound train monotone rank-k; do
    for fmt in png pdf svg tex; do
        name="$T/figs/${kind}_$fmt"
        expect_exit 0 "$kind $fmt" run_kind $kind "$name" --format $fmt
        ext=$fmt
        [ $fmt = tex ] && ext=pdf
        for f in "$name.$ext" "$name.gp" "$name.dat"; do
            if [ -s "$f" ]; then ok; else bad "$kind $fmt: $f missing or empty"; fi
        done
        if [ $fmt = tex ]; then
            if [ -s "$name.tex" ]; then ok; else bad "$kind tex: no .tex"; fi
            expect_grep 'includegraphics.*\{'"${kind}_tex"'\}' "$name.tex" "$kind tex: includes its pdf by bare name"
        fi
        # the script alone redraws the figure, from another folder, without a word
        rm -f "$name.$ext"
        (cd "$T/elsewhere" && gnuplot "$name.gp") >"$T/gp.out" 2>"$T/gp.err"
        st=$?
        if [ $st -eq 0 ] && [ ! -s "$T/gp.err" ] && [ -s "$name.$ext" ]; then ok; else
            bad "$kind $fmt: gnuplot $name.gp alone: exit $st, $(head -c 300 "$T/gp.err")"
        fi
    done
    if ls -a "$T/figs" | grep -q '\.plot\.'; then bad "$kind: a temporary folder left"; else ok; fi
done
if [ -z "$(ls -A "$T/elsewhere")" ]; then ok; else bad "the scripts wrote into the current folder"; fi

# figure types are what they claim
expect_eq "$(head -c 4 "$T/figs/sweep_png.png" | od -An -c | tr -d ' ')" '211PNG' "png magic"
expect_eq "$(head -c 4 "$T/figs/sweep_pdf.pdf")" '%PDF' "pdf magic"
expect_grep '<svg' "$T/figs/sweep_svg.svg" "svg"
# tex: labels in LaTeX (the % of the spectrum's y label escaped)
expect_grep '\\%' "$T/figs/spectrum_tex.tex" "tex: % escaped"

# ---- what is drawn ------------------------------------------------------------------------
# sweep: one panel per M, one block per (M, head); mos K=4 at D=4, M=30: mean 0.3, sd sqrt(0.02)
d="$T/figs/sweep_png.dat"
expect_grep '^# index 0: panel 1 \(M = 30\), softmax$' "$d" "sweep: first block softmax"
expect_grep '^# index 1: panel 1 \(M = 30\), mos K=2$' "$d" "sweep: K in the legend"
expect_eq "$(grep -c '^# index' "$d")" 6 "sweep: 2 panels x (softmax, mos K=2, mos K=4)"
row=$(awk '/^# index 2:/ { b = 1; next } b && /^4\t/ { print; exit }' "$d")
expect_num_near "$(echo "$row" | cut -f2)" 0.3 1e-12 "sweep mean over seeds"
expect_num_near "$(echo "$row" | cut -f3)" 0.14142135623730953 1e-12 "sweep sd over seeds"
expect_grep "set multiplot layout 1,2" "$T/figs/sweep_png.gp" "sweep: a panel per M"
expect_grep "'M = 30' noenhanced" "$T/figs/sweep_png.gp" "sweep: panel title"
expect_grep "yerrorlines" "$T/figs/sweep_png.gp" "sweep: error bars"
# --where and --y choose rows and the metric
expect_exit 0 "sweep --where --y" "$P" -q sweep "$T/res.tsv" --where m=60,model=softmax --y kl_mean \
    --logy -o "$T/w"
expect_eq "$(grep -c '^# index' "$T/w.dat")" 1 "where: one block"
row=$(grep '^2	' "$T/w.dat")
expect_num_near "$(echo "$row" | cut -f2)" 1.375 1e-12 "where: softmax mean at D=2, M=60"
expect_num_near "$(echo "$row" | cut -f3)" 0.17677669529663687 1e-12 "where: softmax sd at D=2, M=60"
expect_grep "set logscale y" "$T/w.gp" "--logy"
# spectrum: cum_pct against normalised as sbw-rank wrote them, and the NR threshold
tsh=$(tsv_field "$T/rank.tsv" tsh)
expect_grep " $tsh with lines" "$T/figs/spectrum_png.gp" "spectrum: threshold from --rank"
expect_eq "$(awk '/^# index 0:/ { b = 1; next } b && !/^#/ { print; exit }' "$T/figs/spectrum_png.dat" | cut -f2)" \
    "$(tsv_rows "$T/spec.tsv" | tail -n 1 | cut -f6)" "spectrum: the smallest value's cum_pct"
# a .npy of singular values is refused: the curve is sbw-rank's (one
# implementation, sbw_rank_normalise), read from its --spectrum table
. tests/cli/npy.sh
npy_header '<f8' '(4,)' "$T/sv.npy"
printf '\000\000\000\000\000\000\010\100\000\000\000\000\000\000\000\100\000\000\000\000\000\000\360\077\000\000\000\000\000\000\360\077' >>"$T/sv.npy"
expect_refused 1 "spectrum of a .npy" "sv.npy: sbw-plot draws spectra from sbw-rank --spectrum's table" \
    "$T/svfig" "$P" -q spectrum "$T/sv.npy" -o "$T/svfig"
printf 'index\tsigma\n0\t3\n1\t1\n' >"$T/nocum.tsv"
expect_refused 1 "spectrum without cum_pct" "nocum.tsv: no 'normalised' and 'cum_pct' columns" \
    "$T/svfig" "$P" -q spectrum "$T/nocum.tsv" -o "$T/svfig"
# a log axis over three decades or more is labelled 10^k, not gnuplot's
# crowded 1x10^k: singular values 1, 2^-20, 2^-40, 2^-40 (12 decades, a
# table made by hand as sbw-rank --spectrum writes it), drawn on gnuplot's
# text terminal, where the format shows as written
printf 'index\tsigma\tnormalised\tcum_pct\n0\t1\t1\t100\n1\t9.5367431640625e-07\t9.5367431640625e-07\t75\n2\t9.094947017729282e-13\t9.094947017729282e-13\t50\n3\t9.094947017729282e-13\t9.094947017729282e-13\t50\n' >"$T/wide.tsv"
expect_exit 0 "spectrum over 12 decades" "$P" -q spectrum "$T/wide.tsv" --logx -o "$T/wide"
sed -e 's/^set terminal .*/set terminal dumb size 200,40/' -e "s|^set output .*|set output '$T/wide.txt'|" \
    "$T/wide.gp" >"$T/wide-dumb.gp"
expect_exit 0 "the wide spectrum drawn as text" gnuplot "$T/wide-dumb.gp"
expect_grep '10\^\{-12\}' "$T/wide.txt" "12 decades: a tic labelled 10^{-12}"
if grep -q '[0-9]e-[0-9]\|x10' "$T/wide.txt"; then
    bad "12 decades: a tic labelled 1e-k or 1x10^k: $(grep '[0-9]e-[0-9]\|x10' "$T/wide.txt" | head -n 1)"
else ok; fi
# monotone: the figure draws each folder's map.tsv (the head's kernels on
# a grid, tested against the naive twins in test_head_io) as it stands:
# no formula in the script, the data block is map.tsv's rows
expect_eq "$(grep -c '^array \|^[a-z][a-z0-9]*(x) = ' "$T/figs/monotone_png.gp")" 0 "monotone: no formula in the script"
expect_eq "$(awk '/^# index 1:/ { exit } !/^#/ && NF' "$T/figs/monotone_png.dat" | cut -f1,2 | cksum)" \
    "$(tsv_rows "$T/plif/map.tsv" | sed 1d | cksum)" "monotone: the PLIF block is map.tsv's rows"
# ... and it is the head's f: heads saved at their documented
# initialisation (sbw_head.h): PLIF slopes 1, f(x) = x + T (T = 10); LMS
# K = 1 with --linear, u = 1, c = 0, v = 4, lambda = 1: f(x) = 4 sigmoid(x) + x
"$BIN/sbw-fit" -q --model plif --k 4 --d 2 --steps 0 --save "$T/plif0" -o "$T/q0.npy" "$T/p.npy" >/dev/null
"$BIN/sbw-fit" -q --model lms --k 1 --linear --d 2 --steps 0 --save "$T/lms0" -o "$T/q1.npy" "$T/p.npy" >/dev/null
expect_exit 0 "monotone of heads at their initialisation" "$P" -q monotone "$T/plif0" "$T/lms0" -o "$T/mono"
expect_eq "$(awk '/^# index 0:/ { b = 0 } /^# index 1:/ { b = 1 } /^# index 2:/ { b = 2 } !/^#/ && NF && b < 2 {
        n[b]++; w = b ? 4 / (1 + exp(-$1)) + $1 : $1 + 10; d = $2 - w; if (d < 0) d = -d
        if (d > 1e-13 * (1 + (w < 0 ? -w : w))) bad++ }
        END { printf "%d %d %d", n[0], n[1], bad }' "$T/mono.dat")" "2049 2049 0" \
    "monotone: f = x + 10 (PLIF) and 4 sigmoid(x) + x (LMS) at every grid point"
expect_grep "^set xrange \[-12.5:12.5\]" "$T/mono.gp" "monotone: +-1.25 T around a PLIF head"
rm -f "$T"/elsewhere/*
# -o with an extension means the stem; --size and --title reach the script
expect_exit 0 "-o x.png" "$P" -q bound "$T/bound.tsv" -o "$T/b.png" --size 500x300 --title "My title"
expect_grep "size 500,300" "$T/b.gp" "--size"
expect_grep "'My title'" "$T/b.gp" "--title"
expect_exit 0 "train of an sbw-lm style log" sh -c \
    "printf 'step\tepoch\ttokens\tseconds\tlr\tloss\tppl\tvalid_ppl\thead_seconds\n1\t0\t10\t1\t0.1\t5\t148\tnan\t0.1\n2\t0\t20\t2\t0.1\t4\t54\t60\t0.1\n' >'$T/lm.tsv' && '$P' -q train '$T/lm.tsv' -o '$T/lm'"
expect_grep "'validation perplexity'" "$T/lm.gp" "train: sbw-lm's valid_ppl by default"
# a trajectory of a few epochs is drawn with its markers, so its ends get
# the x margin that keeps a marker off the border; a long log stays a line
# without one (the margin once looked at the declared style only)
printf 'epoch\tv\n1\t5\n2\t4\n3\t3.5\n' >"$T/few.tsv"
expect_exit 0 "train of 3 epochs" "$P" -q train "$T/few.tsv" --x epoch --y v -o "$T/few"
expect_grep "with linespoints" "$T/few.gp" "3 epochs: drawn with markers"
expect_grep "^set offsets graph 0.03, graph 0.03," "$T/few.gp" "3 epochs: an x margin for the end markers"
awk 'BEGIN { print "step\tv"; for (i = 1; i <= 100; i++) print i "\t" 1 / i }' >"$T/many.tsv"
expect_exit 0 "train of 100 steps" "$P" -q train "$T/many.tsv" --x step --y v -o "$T/many"
expect_grep "^set offsets 0, 0," "$T/many.gp" "100 steps: a line to the border"

# ---- nothing from input becomes gnuplot code (issue 25) -----------------------------------
# Each payload tries to make gnuplot run a shell command: a newline that ends
# a string or a comment, then system(); a quote, a backquote, an @macro; a
# trailing backslash that continues a comment line onto the next statement;
# a file name that gnuplot would open as a pipe ('<cmd' as data, '|cmd' as
# output).  The marker must never appear, neither while sbw-plot draws nor
# when the script is run again by hand (by bare name in its folder, where
# the old script read a '<' data name as a pipe, and from another folder).
M="$T/MARK"
SBWMARK="$M"
export SBWMARK
cmd='system("touch $SBWMARK")'
nl='
'
S="$T/sec"
mkdir "$S" "$S/elsewhere"
printf 'step\tloss\n1\t3\n2\t2\n3\t1.5\n' >"$S/log.tsv"
# expect_inert WHAT NAME cmd...: exit 0 (or 2: a name refused), no marker
expect_inert() {
    what=$1
    name=$2
    shift 2
    rm -f "$M"
    "$@" >"$T/out" 2>"$T/err"
    st=$?
    if [ $st -eq 0 ] || [ $st -eq 2 ]; then ok; else bad "$what: exit $st: $(head -c 300 "$T/err")"; fi
    if [ -e "$M" ]; then bad "$what: sbw-plot made gnuplot run a command"; else ok; fi
    if [ -f "$name.gp" ]; then
        (cd "$(dirname "$name")" && gnuplot "$(basename "$name").gp") >/dev/null 2>&1
        (cd "$S/elsewhere" && gnuplot "$name.gp") >/dev/null 2>&1
        if [ -e "$M" ]; then bad "$what: gnuplot $name.gp ran a command"; else ok; fi
    fi
    rm -f "$M"
}
expect_inert "--title with a newline" "$S/t1" "$P" -q train "$S/log.tsv" -o "$S/t1" --title "x${nl}${cmd}${nl}#"
if grep -Fq "title 'x?system(\"touch \$SBWMARK\")?#' noenhanced" "$S/t1.gp"; then ok; else
    bad "--title with a newline: not kept as one literal: $(grep multiplot "$S/t1.gp")"
fi
expect_inert "--title with quotes" "$S/t2" "$P" -q train "$S/log.tsv" -o "$S/t2" \
    --title "x' . ${cmd} . '\" . ${cmd} . \"\`touch \$SBWMARK\`@cmd"
expect_inert "--labels with a newline" "$S/t3" "$P" -q train "$S/log.tsv" -o "$S/t3" --labels "l${nl}${cmd}${nl}#"
cp "$S/log.tsv" "$S/a${nl}${cmd}${nl}#.tsv"
expect_inert "an input file name with newlines" "$S/t4" "$P" -q train "$S/a${nl}${cmd}${nl}#.tsv" -o "$S/t4"
expect_inert "-o with newlines" "$S/o${nl}${cmd}${nl}#" "$P" -q train "$S/log.tsv" -o "$S/o${nl}${cmd}${nl}#"
expect_inert "-o naming a pipe as data" "$S/<touch \$SBWMARK;x" "$P" -q train "$S/log.tsv" -o "$S/<touch \$SBWMARK;x"
expect_inert "-o naming a pipe as output" "$S/|touch \$SBWMARK;x" "$P" -q train "$S/log.tsv" -o "$S/|touch \$SBWMARK;x"
printf 'model\td\tm\tmode_match\n' >"$S/res.tsv"
# the last value is the text "system(""touch ..."")" in quotes, as sbw_table
# writes a cell holding '"' (docs/formats.md); sbw-plot reads it unquoted
qcmd=$(printf '%s' "\"$cmd\"" | sed 's/"/""/g')
for v in "x' . $cmd . '" "\`touch \$SBWMARK\`" "@cmd" 'back\' "\"$qcmd\""; do
    printf '%s\t2\t%s\t0.5\n%s\t4\t%s\t0.75\n' "$v" "$v" "$v" "$v" >>"$S/res.tsv"
done
expect_inert "table values: quotes, backquotes, @, backslash" "$S/t5" "$P" -q sweep "$S/res.tsv" -o "$S/t5" --panel m
expect_eq "$(grep -c '^plot ' "$S/t5.gp")" 5 "table values: one plot per panel value"
# a trailing backslash in the command line (here: the title) continued the
# '# command:' comment over the next statement, and gnuplot then failed
expect_exit 0 "a title ending with a backslash" "$P" -q train "$S/log.tsv" -o "$S/t6" --title 'x\'
(cd "$S/elsewhere" && gnuplot "$S/t6.gp") >"$T/out" 2>"$T/err"
expect_eq "$?:$(head -c 200 "$T/err")" "0:" "a title ending with a backslash: the script runs"
# map.tsv: a folder named with newlines, and meta values with quotes
cp -r tests/fixtures/monotone_plif "$S/p${nl}${cmd}${nl}#"
sed "s/^# knots=.*/# knots=4' . $cmd . '\\\\/" tests/fixtures/monotone_plif/map.tsv >"$S/p${nl}${cmd}${nl}#/map.tsv"
expect_inert "a monotone folder and map.tsv values" "$S/t7" "$P" -q monotone "$S/p${nl}${cmd}${nl}#" -o "$S/t7"
expect_grep "intervals" "$S/t7.gp" "map.tsv: the label is drawn"
# every string is in a '...' literal or a comment: no line of any script
# written above begins with anything but the template's statements
for g in "$S"/*.gp; do
    if grep -Evq "^(#|if \(|set |unset |plot |     (data |x |[a-zA-Z][a-zA-Z0-9_]*\(x\)|[-0-9.])|array |[a-zA-Z][a-zA-Z0-9_]*( = |\()|$)" "$g"; then
        bad "statement not from the template in $g: $(grep -Ev "^(#|if \(|set |unset |plot |     (data |x |[a-zA-Z][a-zA-Z0-9_]*\(x\)|[-0-9.])|array |[a-zA-Z][a-zA-Z0-9_]*( = |\()|$)" "$g" | head -n 1)"
    else ok; fi
    if grep -q '^system\|^ *!\|^load\|^call' "$g"; then bad "$g: a command line"; else ok; fi
done

# ---- bad input: one line, exit 1 or 2, nothing written -----------------------------------
mkdir "$T/bad"
B="$T/bad/fig"
printf '# tool=x\nmodel\td\tm\tmode_match\n' >"$T/empty.tsv"
printf 'model\td\n' >"$T/nocols.tsv"
: >"$T/zero.tsv"
printf '\000\001binary' >"$T/bin.tsv"
expect_refused 2 "unknown kind" "unknown kind 'pie' \(kinds: spectrum sweep" "$B" "$P" pie "$T/res.tsv" -o "$B"
expect_refused 2 "no -o" "-o NAME is required" "$B" "$P" sweep "$T/res.tsv"
expect_refused 2 "no input" "sweep: no input given" "$B" "$P" sweep -o "$B"
expect_refused 2 "bad format" "--format: 'jpg' is not one of png, pdf, svg, tex" "$B" "$P" sweep "$T/res.tsv" --format jpg -o "$B"
expect_refused 2 "bad size" "--size: 'big' is not WxH" "$B" "$P" sweep "$T/res.tsv" --size big -o "$B"
expect_refused 2 "bad --where" "--where: 'model' is not COLUMN=VALUE" "$B" "$P" sweep "$T/res.tsv" --where model -o "$B"
expect_refused 2 "labels count" "--labels: 1 labels for 2 inputs" "$B" "$P" train "$T/log.tsv" "$T/log2.tsv" --labels a -o "$B"
expect_refused 1 "missing column" "res.tsv: no column 'nosuch' \(columns: model k m d" "$B" "$P" sweep "$T/res.tsv" --y nosuch -o "$B"
expect_refused 1 "empty table" "empty.tsv: no data rows" "$B" "$P" sweep "$T/empty.tsv" -o "$B"
expect_refused 1 "empty file" "zero.tsv: no column-name line" "$B" "$P" train "$T/zero.tsv" -o "$B"
expect_refused 1 "columns missing" "nocols.tsv: no data rows" "$B" "$P" rank-k "$T/nocols.tsv" -o "$B"
expect_refused 1 "not a table" "bin.tsv: column 1 of the header line has no name" "$B" "$P" train "$T/bin.tsv" -o "$B"
expect_refused 1 "missing file" "nofile.tsv: cannot open" "$B" "$P" bound "$T/nofile.tsv" -o "$B"
expect_refused 1 "no rows after --where" "no row with finite d and mode_match where model=lms" "$B" \
    "$P" sweep "$T/res.tsv" --where model=lms -o "$B"
expect_refused 1 "not positive on a log axis" "series 'softmax': no point to draw .*log" "$B" \
    "$P" sweep "$T/res.tsv" --where model=softmax --y k --logy -o "$B"
expect_refused 1 "monotone of a softmax" "model 'softmax' has no learned monotone function" "$B" \
    sh -c "'$BIN/sbw-fit' -q --model softmax --d 2 --steps 1 --save '$T/sm' -o '$T/q3.npy' '$T/p.npy' >/dev/null && '$P' -q monotone '$T/sm' -o '$B'"
expect_refused 1 "alpha of another table" "bound.tsv: no '# alpha=' and '# m=' lines" "$B" "$P" alpha "$T/bound.tsv" \
    --entropy "$T/h.tsv" --sorted "$T/s.tsv" -o "$B"
expect_refused 2 "alpha without sbw-info's tables" "--entropy and --sorted give one sbw-info --per-row and --sorted table per language" \
    "$B" "$P" alpha "$T/synth.tsv" -o "$B"
expect_refused 1 "alpha, tables in another order" "h1.tsv: a table of .*p1.npy, but .*synth.tsv's language is .*p.npy" \
    "$B" "$P" alpha "$T/synth.tsv" "$T/synth1.tsv" --entropy "$T/h1.tsv,$T/h.tsv" --sorted "$T/s.tsv,$T/s1.tsv" -o "$B"
expect_refused 1 "alpha, --entropy not sbw-info's" "res.tsv: no '# file=' line" \
    "$B" "$P" alpha "$T/synth.tsv" --entropy "$T/res.tsv" --sorted "$T/s.tsv" -o "$B"
expect_refused 1 "spectrum, --rank without tsh" "rank.tsv: no column 'tsh'|no column 'tsh'" "$B" \
    "$P" spectrum "$T/spec.tsv" --rank "$T/bound.tsv" -o "$B"
expect_refused 2 "output is an input" "is an input|same file" "$T/res" "$P" sweep "$T/res.dat" -o "$T/res"
cp "$T/res.tsv" "$T/res.dat"
expect_exit 2 "output .dat is the input" "$P" sweep "$T/res.dat" -o "$T/res"
expect_eq "$(cmp "$T/res.tsv" "$T/res.dat" && echo same)" same "input untouched"
expect_exit 1 "uncreatable folder" "$P" sweep "$T/res.tsv" -o "$T/no/such/dir/fig"
# a run that fails at gnuplot leaves nothing either: gnuplot missing from PATH
expect_exit 1 "no gnuplot" env PATH=/nonexistent "$ABS/sbw-plot" -q sweep "$T/res.tsv" -o "$B"
expect_grep "gnuplot not found" "$T/err" "no gnuplot: reason"
for e in png gp dat; do expect_absent "$B.$e" "no gnuplot: no $e"; done
# ---- edges (issue 25) ---------------------------------------------------------------------
# a log axis over data below 1e-300, down to the smallest subnormal: the tics'
# decade loop multiplied 10^-324 = 0 by ten for ever (a timeout fails it)
printf 'step\tloss\n1\t4.9406564584124654e-324\n2\t1e-323\n3\t1.5e-323\n' >"$S/tiny.tsv"
expect_exit 0 "a log axis below 1e-300 ends" timeout -k 10 120 "$P" -q train "$S/tiny.tsv" --logy -o "$S/tiny"
printf 'step\tloss\n1\t1e-310\n2\t3e-310\n3\t9e-310\n' >"$S/tiny2.tsv"
expect_exit 0 "a log axis at 1e-310 ends" timeout -k 10 120 "$P" -q train "$S/tiny2.tsv" --logy -o "$S/tiny2"
# -o -name: the option's value may begin with '-'; gnuplot read -name.gp as an option
st=$(cd "$S" && "$ABS/sbw-plot" -q train log.tsv -o -name >"$T/out" 2>"$T/err"; echo $?)
expect_eq "$st:$(head -c 200 "$T/err")" "0:" "-o -name"
for e in png gp dat; do if [ -s "$S/-name.$e" ]; then ok; else bad "-o -name: no -name.$e"; fi; done
rm -f "$S/-name.png"
st=$(cd "$S" && gnuplot ./-name.gp >/dev/null 2>"$T/err"; echo $?)
expect_eq "$st:$(head -c 200 "$T/err")" "0:" "gnuplot ./-name.gp redraws it"
if [ -s "$S/-name.png" ]; then ok; else bad "gnuplot ./-name.gp: no figure"; fi
# a 60-character legend label (gnuplot 5.4 warned "difficulty fitting plot
# titles into key" past about 55 under a 600-pixel panel); longer ones wrap
# over lines, and one that needs more than 8 lines ends with "..."
L60=a_sixty_character_legend_label_that_fills_the_key_below_it__
expect_eq "${#L60}" 60 "the label has 60 characters"
for fmt in png pdf svg tex; do
    expect_exit 0 "a 60-character label, $fmt" "$P" -q train "$S/log.tsv" "$S/log.tsv" --labels "$L60,x" \
        --format $fmt -o "$S/l60$fmt"
done
got=$(sed -n "s/^plot .* title '\(.*\)' noenhanced, .*/\1/p" "$S/l60png.gp" | sed "s/'\.\"\\\\n\"\.'//g")
expect_eq "$got" "$L60" "a 60-character label: whole, over lines"
long=$(printf 'word%s ' $(seq 100))
expect_exit 0 "a 600-character label, 2 panels at 300x200" "$P" -q train "$S/log.tsv" "$S/log.tsv" \
    --labels "$long,$L60" --x step --y loss,step --size 300x200 -o "$S/long"
expect_grep "\.\.\.' noenhanced" "$S/long.gp" "a label over 8 lines ends with ..."
# inf and nan: data errors naming the file, never gnuplot's "undefined variable"
printf 'step\tloss\n1\t3\n2\tinf\n3\t1\n' >"$S/inf.tsv"
expect_refused 1 "an infinite value" "inf.tsv: row 2, column 'loss' is inf" "$S/bad" \
    "$P" -q train "$S/inf.tsv" -o "$S/bad"
printf 'index\tsigma\tnormalised\tcum_pct\n0\t2\t1\t100\n1\tnan\tnan\t50\n' >"$S/nanspec.tsv"
expect_refused 1 "a nan singular value" "nanspec.tsv: row 2, column 'sigma' is nan" "$S/bad" \
    "$P" -q spectrum "$S/nanspec.tsv" -o "$S/bad"
printf 'rank\ttsh\n3\tnan\n' >"$S/nanrank.tsv"
expect_refused 1 "a nan threshold" "nanrank.tsv: row 1, column 'tsh' is nan" "$S/bad" \
    "$P" -q spectrum "$T/spec.tsv" --rank "$S/nanrank.tsv" -o "$S/bad"
# map.tsv with a nan f, with plif_t inf; a folder saved before map.tsv
mkmap() { # mkmap DIR SECOND-F T
    mkdir -p "$1"
    sed -e "s/^# plif_t=.*/# plif_t=$3/" -e "s/^-3\t0\$/-3\t$2/" tests/fixtures/monotone_plif/map.tsv >"$1/map.tsv"
}
mkmap "$S/pnan" nan 3
mkmap "$S/pinf" 0 inf
mkmap "$S/pok" 0 3
expect_refused 1 "a nan in map.tsv" "pnan/map.tsv: row 2, column 'f' is nan, not a finite number" \
    "$S/bad" "$P" -q monotone "$S/pnan" -o "$S/bad"
expect_refused 1 "an infinite plif_t" "pinf/map.tsv: '# plif_t=inf' is not a positive finite number" \
    "$S/bad" "$P" -q monotone "$S/pinf" -o "$S/bad"
expect_exit 0 "the same map with plif_t 3 draws" "$P" -q monotone "$S/pok" -o "$S/pok"
mkdir -p "$S/pold" && cp tests/fixtures/monotone_plif/params.tsv "$S/pold/"
expect_refused 1 "a folder saved before map.tsv" "pold: no map.tsv beside params.tsv .*sbw-fit --map .*/pold, or save the head again" \
    "$S/bad" "$P" -q monotone "$S/pold" -o "$S/bad"
expect_refused 2 "an infinite --xrange" "--xrange: '-inf:inf' is not A:B with finite A < B" "$S/bad" \
    "$P" -q monotone "$S/pok" --xrange -inf:inf -o "$S/bad"
# a 100,000-column table (the duplicate-name check compared every pair of
# names: 5e9 comparisons); a duplicate there is still found
awk 'BEGIN { for (r = 0; r < 3; r++) { for (c = 1; c <= 100000; c++) printf "%s%s", (c > 1 ? "\t" : ""), (r ? (r * c) % 97 + 1 : "c" c); print "" } }' >"$S/wide.tsv"
expect_exit 0 "a 100,000-column table" "$P" -q train "$S/wide.tsv" --x c1 --y c99999 --where c100000=84 -o "$S/wide"
expect_grep "^3	82	nan$" "$S/wide.dat" "100,000 columns: row 2 drawn (c1 = 3, c99999 = 2 * 99999 mod 97 + 1 = 82, c100000 = 84)"
sed '1s/c100000$/c5/' "$S/wide.tsv" >"$S/widedup.tsv"
expect_refused 1 "a 100,000-column table naming c5 twice" "widedup.tsv: column 'c5' appears twice" \
    "$S/bad" "$P" -q train "$S/widedup.tsv" --x c1 --y c2 -o "$S/bad"
expect_exit 0 "--help" "$P" --help
expect_grep "monotone DIR" "$T/out" "help lists the kinds"
finish
