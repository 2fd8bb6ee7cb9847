#!/bin/sh
# sbw-plot's figures for papers (issue 30): every figure gives a head the
# same colour and marker whatever the order of its series, other series
# none of the heads' styles; reference lines (y = A x + B, y = Y, x = X)
# with checked numbers and escaped labels; one y column per panel with its
# own log axis; tic density from range and panel size; titles that say how
# many seeds a point averages; a one-point series drawn as a point; the
# spectrum's sigma_1 view; the .dat holds the numbers drawn.  Checked in
# the scripts and data files sbw-plot writes, not in pixels.
. tests/cli/lib.sh
P="$BIN/sbw-plot"

# style GP LABEL: the colour (and marker, when drawn) of the plot element
# titled LABEL in script GP
style() {
    grep -F "title '$2' noenhanced" "$1" | head -n 1 |
        sed -n "s/.* lc rgb '\(#[0-9A-F]*\)' lw [0-9.]* dt [0-9]*\( pt [0-9]*\)\{0,1\}.*/\1\2/p"
}

# ---- one head, one style ------------------------------------------------------------------
# two sweeps with the heads in different orders (and in different numbers)
hdr='model\tk\tm\td\tseed\tkl_mean\tmode_match\tfit_error\n'
printf "$hdr" >"$T/a.tsv"
for h in softmax mos lms; do
    for d in 2 4; do printf '%s\t2\t30\t%s\t1\t1.5\t0.25\t3\n%s\t2\t30\t%s\t2\t1.25\t0.5\t2\n' $h $d $h $d >>"$T/a.tsv"; done
done
printf "$hdr" >"$T/b.tsv"
for h in lms plif mixtape mos softmax moc sigsoftmax; do
    for d in 2 4; do printf '%s\t0\t30\t%s\t1\t1.5\t0.25\t1\n' $h $d >>"$T/b.tsv"; done
done
expect_exit 0 "sweep a" "$P" -q sweep "$T/a.tsv" -o "$T/a"
expect_exit 0 "sweep b" "$P" -q sweep "$T/b.tsv" -o "$T/b"
for h in softmax mos lms; do
    sa=$(style "$T/a.gp" "$h K=2")
    sb=$(style "$T/b.gp" $h)
    if [ -n "$sa" ] && [ "$sa" = "$sb" ]; then ok; else bad "$h: '$sa' in one sweep, '$sb' in the other"; fi
    case $sa in *' pt '*) ok ;; *) bad "$h: no marker in '$sa'" ;; esac
done
# a third kind (train, lines; markers on few points): the same colour and
# marker for the same head
printf 'step\tkl_mean\n1\t2\n2\t1\n' >"$T/l1.tsv"
cp "$T/l1.tsv" "$T/l2.tsv"
expect_exit 0 "train with labels" "$P" -q train "$T/l1.tsv" "$T/l2.tsv" --labels "PLIF K=4,MoS K=2" -o "$T/tr"
expect_eq "$(style "$T/tr.gp" 'MoS K=2')" "$(style "$T/b.gp" mos)" "train: MoS in MoS's colour and marker"
expect_eq "$(style "$T/tr.gp" 'PLIF K=4')" "$(style "$T/b.gp" plif)" "train: PLIF in PLIF's colour and marker"
# the seven heads: seven colours, seven markers (Mixtape's reserved too)
: >"$T/hs"
for h in lms plif mixtape mos softmax moc sigsoftmax; do style "$T/b.gp" $h >>"$T/hs"; done
expect_eq "$(cut -d' ' -f1 "$T/hs" | sort -u | wc -l | tr -d ' ')" 7 "seven heads, seven colours"
expect_eq "$(cut -d' ' -f3 "$T/hs" | sort -u | wc -l | tr -d ' ')" 7 "seven heads, seven markers"
# series that name no head: none of the heads' colours or markers
printf "$hdr" >"$T/c.tsv"
for h in a b c d e f g h i; do printf '%s\t0\t30\t2\t1\t1\t0.5\t1\n%s\t0\t30\t4\t1\t1\t0.5\t1\n' $h $h >>"$T/c.tsv"; done
expect_exit 0 "sweep of nine series that are no head" "$P" -q sweep "$T/c.tsv" -o "$T/c"
for h in a b c d e f g h i; do
    s=$(style "$T/c.gp" $h)
    c=${s%% *}
    m=${s##* }
    if [ -n "$s" ] && ! grep -q "^$c " "$T/hs" && ! grep -q " pt $m\$" "$T/hs"; then ok; else
        bad "series $h: '$s' is a head's colour or marker"
    fi
done
# a bound's "LMS Theorem 1 bound" curve is not the LMS head
"$BIN/sbw-synth" dirichlet --n 30 --m 20 --alpha 0.1 --seed 1 -q -o "$T/p.npy" >/dev/null
"$BIN/sbw-bound" -q --d 1:6 "$T/p.npy" >"$T/bound.tsv"
expect_exit 0 "bound with fits" "$P" -q bound "$T/bound.tsv" --fits "$T/a.tsv" -o "$T/bd"
c=$(style "$T/bd.gp" "LMS Theorem 1 bound" | cut -d' ' -f1)
if [ -n "$c" ] && ! grep -q "^$c " "$T/hs"; then ok; else bad "the LMS bound drawn in a head's colour '$c'"; fi
expect_eq "$(style "$T/bd.gp" "lms K=2 fits")" "$(style "$T/b.gp" lms)" "bound: the LMS fits in LMS's style"

# ---- reference lines ----------------------------------------------------------------------
expect_exit 0 "--line --hline --vline" "$P" -q sweep "$T/a.tsv" --y mode_match --line 1:1 --hline 0.375 \
    --vline "3:d* = 3" -o "$T/r"
expect_grep '^ref_line\(x\) = 1 \* x \+ 1$' "$T/r.gp" "--line: the function, numbers only"
expect_grep "ref_line\(x\) with lines .* title 'y = x \+ 1' noenhanced" "$T/r.gp" "--line: drawn, labelled"
expect_grep "0.375 with lines .* title 'y = 0.375' noenhanced" "$T/r.gp" "--hline: drawn, labelled"
expect_grep '^set arrow from first 3.0, graph 0 to first 3.0, graph 1 nohead' "$T/r.gp" "--vline: a line at x = 3"
expect_grep "NaN with lines .* title 'd\* = 3' noenhanced" "$T/r.gp" "--vline: its legend entry"
# outside the data (D = 2, 4): the x range reaches it
expect_exit 0 "--vline outside the data" "$P" -q sweep "$T/a.tsv" --y mode_match --vline 10 -o "$T/r2"
expect_grep '^set xrange \[2.0:10.0\]' "$T/r2.gp" "--vline 10: the x range reaches it"
# only the panels named
expect_exit 0 "--ref-panels" "$P" -q sweep "$T/a.tsv" --y kl_mean,mode_match --hline 1 --ref-panels 2 -o "$T/r3"
expect_eq "$(grep -c "^plot .*title 'y = 1' noenhanced\|^     1 with lines" "$T/r3.gp")" 1 "--ref-panels 2: one panel gets it"
# labels are escaped like every label; the numbers are checked
M="$T/MARK"
SBWMARK="$M"
export SBWMARK
nl='
'
expect_exit 0 "a label with quotes and a newline" "$P" -q sweep "$T/a.tsv" \
    --vline "3:x' . system(\"touch \$SBWMARK\") . '${nl}system(\"touch \$SBWMARK\")" -o "$T/r4"
(cd "$T" && gnuplot r4.gp) >/dev/null 2>&1
if [ -e "$M" ]; then bad "a --vline label ran a command"; else ok; fi
expect_grep "title 'x'' . system" "$T/r4.gp" "the label's quote doubled"
for bad in "--line 1" "--line 1:x" "--hline inf" "--vline nan" "--vline" "--hline 1e999" "--ref-panels 0"; do
    # shellcheck disable=SC2086
    expect_exit 2 "$bad" "$P" -q sweep "$T/a.tsv" $bad -o "$T/bad"
    expect_absent "$T/bad.gp" "$bad: nothing written"
done
expect_exit 2 "--vline 0 on a log x axis" "$P" -q sweep "$T/a.tsv" --logx --vline 0 -o "$T/bad"
expect_grep "log x axis" "$T/err" "--vline 0 on a log axis: says why"
expect_exit 2 "--ref-panels past the figure" "$P" -q sweep "$T/a.tsv" --hline 1 --ref-panels 3 -o "$T/bad"
expect_grep "panel 3, but the figure has 1" "$T/err" "--ref-panels 3: says why"

# ---- one y column per panel, each with its own axis -----------------------------------------
expect_exit 0 "--y two columns, --logy-of one" "$P" -q sweep "$T/a.tsv" --y kl_mean,mode_match \
    --logy-of kl_mean -o "$T/y"
expect_grep "multiplot layout 1,2 title 'kl_mean and mode_match against D" "$T/y.gp" "the title names both columns"
got=$(awk '/^set ylabel/ { y = $0 } /^set logscale y/ { print y }' "$T/y.gp")
expect_eq "$got" "set ylabel 'mean KL(P*‖Q) (nats)' noenhanced" "a log y axis on kl_mean's panel only"
expect_exit 2 "--logy-of a column not drawn" "$P" -q sweep "$T/a.tsv" --y kl_mean --logy-of mode_match -o "$T/bad"
expect_grep "'mode_match' is not one of the y columns" "$T/err" "--logy-of: says why"

# ---- tic density: from the range and the panel's size ---------------------------------------
# a run of 1,000,000 steps logged every 50,000 (more x values than a list of tics takes)
printf 'step\tloss\n' >"$T/long.tsv"
for s in $(seq 0 50000 1000000); do printf '%s\t%s\n' $s 1 >>"$T/long.tsv"; done
for size in 300x200 1200x800; do
    expect_exit 0 "tics at $size" "$P" -q train "$T/long.tsv" --size $size -o "$T/t$size"
    step=$(sed -n 's/^set xtics \([0-9.e+]*\)$/\1/p' "$T/t$size.gp")
    if [ -n "$step" ]; then ok; else bad "$size: no tic step for the x axis: $(grep xtics "$T/t$size.gp")"; fi
    eval "n$size=$(awk -v s="${step:-1}" 'BEGIN { print int(1000000 / s + 1e-9) + 1 }')"
done
# 7-character labels ("1000000"): at 300 pixels (170 for the axis) at
# most 3 fit side by side with a gap; at 1200 pixels 6 (0 to 1000000 by 200000)
if [ "$n300x200" -le 3 ]; then ok; else bad "300 pixels wide: $n300x200 tic labels of 7 characters"; fi
if [ "$n1200x800" -ge 5 ]; then ok; else bad "1200 pixels wide: only $n1200x800 tic labels"; fi
# a constant line far from the data widens gnuplot's range: the tics count it
expect_exit 0 "--hline far above the data" "$P" -q sweep "$T/a.tsv" --y mode_match --hline 10 -o "$T/hf"
step=$(sed -n 's/^set ytics \([0-9.e+]*\)$/\1/p' "$T/hf.gp")
n=$(awk -v s="${step:-0}" 'BEGIN { print (s > 0 ? int(9.75 / s) + 1 : 999) }')
if [ "$n" -le 12 ]; then ok; else bad "--hline 10 over data in [0.25, 0.5]: $n y tics (step '$step')"; fi
# a sweep's D values as tics: thinned on a small panel, the largest kept
printf "$hdr" >"$T/d.tsv"
for d in 1 2 4 8 16 32 64 128 256 512; do printf 'softmax\t0\t30\t%s\t1\t1\t0.5\t1\n' $d >>"$T/d.tsv"; done
expect_exit 0 "sweep of D = 1..512 at 300x200" "$P" -q sweep "$T/d.tsv" --size 300x200 -o "$T/dd"
tics=$(sed -n 's/^set xtics (\(.*\))$/\1/p' "$T/dd.gp")
n=$(echo "$tics" | tr ',' '\n' | grep -c .)
if [ "$n" -ge 2 ] && [ "$n" -le 4 ]; then ok; else bad "D = 1..512 on 300 pixels: tics ($tics)"; fi
case "$tics" in *512) ok ;; *) bad "the largest D is not a tic: ($tics)" ;; esac
expect_exit 0 "the same at 1200x800" "$P" -q sweep "$T/d.tsv" --size 1200x800 --logx -o "$T/dl"
expect_grep '^set xtics \(1, 2, 4, 8, 16, 32, 64, 128, 256, 512\)$' "$T/dl.gp" "a log axis of 1200 pixels labels every D"

# a log axis under three decades: every listed tic inside the range gnuplot
# shows (its own GPVAL_Y_MIN/MAX after the plot: the offsets widen the data's
# range by a share of its decades), at least three of them, and each end of
# the data within a fifth of its decades of one (once: 401..9999 had no tic
# above 5000; 126.6..11918 listed 100, outside the axis, so two showed)
for r in 401:9999 402:1455 126.6:11918 0.0123:0.9 3.3:4.1; do
    lo=${r%:*} hi=${r#*:}
    printf 'step\tloss\n1\t%s\n2\t%s\n' "$lo" "$hi" >"$T/lg.tsv"
    expect_exit 0 "log tics over $r" "$P" -q train "$T/lg.tsv" --logy -o "$T/lg"
    tics=$(sed -n 's/^set ytics (\(.*\))$/\1/p' "$T/lg.gp" | tr -d ' ')
    shown=$(cd "$T" && { cat lg.gp && echo 'print GPVAL_Y_MIN, GPVAL_Y_MAX'; } | gnuplot 2>&1 | tail -n 1)
    verdict=$(echo "$shown" | awk -v t="$tics" -v lo="$lo" -v hi="$hi" '{ n = split(t, v, ","); k = 0; dl = dh = 99; s = log(hi / lo) / log(10)
        for (i = 1; i <= n; i++) { if (v[i] < $1 * (1 - 1e-9) || v[i] > $2 * (1 + 1e-9)) { print "tic " v[i] " outside [" $1 ", " $2 "]"; exit }
            a = log(v[i] / lo) / log(10); a = a < 0 ? -a : a; if (a < dl) dl = a
            b = log(v[i] / hi) / log(10); b = b < 0 ? -b : b; if (b < dh) dh = b; k++ }
        if (k < 3) { print "only " k " tics"; exit }
        if (dl > 0.2 * s || dh > 0.2 * s) { print "an end far from every tic"; exit }
        print "ok" }')
    if [ "$verdict" = ok ]; then ok; else bad "log y over $r: ($tics) shown as [$shown]: $verdict"; fi
done

# ---- titles say what a point averages -------------------------------------------------------
expect_grep "title 'mode_match against D \(mean ± sd over 2 seeds\)'" "$T/a.gp" "two seeds"
expect_grep "title 'mode_match against D \(one seed\)'" "$T/b.gp" "one seed"
if grep -q '±' "$T/b.gp"; then bad "one seed: a ± in the script"; else ok; fi
printf 'softmax\t2\t30\t2\t3\t1\t0.75\t1\n' >>"$T/a.tsv"
expect_exit 0 "two or three seeds, --title" "$P" -q sweep "$T/a.tsv" --title "Fits" -o "$T/a3"
expect_grep "title 'Fits \(mean ± sd over 2 to 3 seeds\)'" "$T/a3.gp" "2 to 3 seeds, under --title"

# ---- a one-point series is drawn as a point ----------------------------------------------------
printf 'step\tloss\n1\t4.5\n' >"$T/one.tsv"
printf 'step\tloss\n1\t5\n2\t4\n' >"$T/two.tsv"
expect_exit 0 "train: a run of one step" "$P" -q train "$T/one.tsv" "$T/two.tsv" -o "$T/o"
expect_grep "^plot data index 0 using 1:2 with points .* pt [0-9]+" "$T/o.gp" "one point: with points, a marker"
expect_grep "data index 1 using 1:2 with linespoints .* pt [0-9]+" "$T/o.gp" "two points: a line with its markers"
# a training log of more than 40 points: a line without markers
awk 'BEGIN { print "step\tloss"; for (i = 1; i <= 41; i++) print i "\t" 5 - i / 100 }' >"$T/many.tsv"
head -n 41 "$T/many.tsv" >"$T/forty.tsv"
expect_exit 0 "train: 41 and 40 points" "$P" -q train "$T/many.tsv" "$T/forty.tsv" -o "$T/o2"
expect_grep "^plot data index 0 using 1:2 with lines lc rgb '#[0-9A-F]+' lw 1.5 dt [0-9]+ title" "$T/o2.gp" \
    "41 points: a line, no marker"
expect_grep "data index 1 using 1:2 with linespoints .* pt [0-9]+" "$T/o2.gp" "40 points: with markers"

# ---- the spectrum's sigma_1 view, and the .dat holds the numbers drawn ----------------------
"$BIN/sbw-rank" -q --spectrum "$T/spec.tsv" "$T/p.npy" >/dev/null
expect_exit 0 "spectrum --norm sigma1" "$P" -q spectrum "$T/spec.tsv" --norm sigma1 -o "$T/s1"
expect_grep "σⱼ/σ₁, σ₀ left out" "$T/s1.gp" "the axis says how it is normalised"
# block 0 against sigma_j / sigma_1 (j >= 1, ascending) and cum_pct from sbw-rank's table
tsv_rows "$T/spec.tsv" | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { s[NR - 2] = $c["sigma"]; p[NR - 2] = $c["cum_pct"]; n = NR - 1 }
    END { for (j = n - 1; j >= 1; j--) printf "%.17g\t%.17g\n", s[j] / s[1], p[j] }' >"$T/want"
awk '/^# index 1:/ { exit } !/^#/ && NF { print $1 "\t" $2 }' "$T/s1.dat" >"$T/got"
expect_eq "$(wc -l <"$T/got" | tr -d ' ')" "$(wc -l <"$T/want" | tr -d ' ')" "sigma1: one row per sigma_j, j >= 1"
expect_eq "$(paste "$T/got" "$T/want" | awk -F'\t' '{ d = $1 - $3; if (d < 0) d = -d; if (d > 1e-15 * $3 || $2 != $4) bad++ } END { print bad + 0 }')" 0 \
    "sigma1: the .dat holds sigma_j/sigma_1 and sbw-rank's cum_pct"
expect_exit 2 "--norm of another kind" "$P" -q sweep "$T/a.tsv" --norm sigma1 -o "$T/bad"
expect_exit 2 "--norm nonsense" "$P" -q spectrum "$T/spec.tsv" --norm sigma2 -o "$T/bad"
# every data element reads its block's two or three columns as written: no
# expression in a 'using', one block per element
for g in "$T"/*.gp; do
    if grep -q 'using [^ ]*(' "$g"; then bad "$g: an expression in a using"; else ok; fi
    d=${g%.gp}.dat
    expect_eq "$(grep -o 'data index [0-9]*' "$g" | wc -l | tr -d ' ')" "$(grep -c '^# index' "$d")" "$g: one block per element"
done
expect_exit 0 "--help" "$P" --help
for o in --line --hline --vline --ref-panels --logy-of --norm; do
    if grep -q -e "$o " "$T/out"; then ok; else bad "--help does not list $o"; fi
done
finish
