# figure1.gp -- a figure by sbw-plot spectrum.  Edit freely; `gnuplot figure1.gp` redraws it
# from any folder: it reads figure1.dat and writes figure1.png beside itself.
# command: /work/main/bin/sbw-plot spectrum softmax/spectrum.tsv moc/spectrum.tsv mos-k15/spectrum.tsv --labels softmax,moc,mos-k15 --rank softmax/rank.tsv,moc/rank.tsv,mos-k15/rank.tsv --logx -q -o /work/main/experiments/ptb/figures/figure1
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'figure1.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 1200,420 font ',11' linewidth 1.2
output = here.'figure1.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,2 title 'Singular spectra' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title 'Cumulative spectrum (cf. MoS Figure 1)' noenhanced
set xlabel 'normalised singular value (σ/σ₀)' noenhanced
set ylabel '% of singular values ≤ x' noenhanced
set logscale x
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
unset arrow
set xtics autofreq
set format x '10^{%T}'
set ytics 20
plot data index 0 using 1:2 with steps lc rgb '#0072B2' lw 1.5 dt 1 title 'softmax' noenhanced, \
     data index 1 using 1:2 with steps lc rgb '#000000' lw 1.5 dt 4 title 'moc' noenhanced, \
     data index 2 using 1:2 with steps lc rgb '#D55E00' lw 1.5 dt 2 title 'mos-k15' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title 'Singular values' noenhanced
set xlabel 'index j' noenhanced
set ylabel 'singular value σ (log scale)' noenhanced
set logscale x
set logscale y
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
unset arrow
set xtics autofreq
set format x '10^{%T}'
set ytics autofreq
set format y '10^{%T}'
plot data index 3 using 1:2 with lines lc rgb '#0072B2' lw 1.5 dt 1 title 'softmax' noenhanced, \
     3.388991950512876e-09 with lines lc rgb '#0072B2' lw 1.2 dt 2 title 'NR threshold, softmax' noenhanced, \
     data index 4 using 1:2 with lines lc rgb '#000000' lw 1.5 dt 4 title 'moc' noenhanced, \
     3.450757993827936e-09 with lines lc rgb '#000000' lw 1.2 dt 2 title 'NR threshold, moc' noenhanced, \
     data index 5 using 1:2 with lines lc rgb '#D55E00' lw 1.5 dt 2 title 'mos-k15' noenhanced, \
     3.3940459437772735e-09 with lines lc rgb '#D55E00' lw 1.2 dt 2 title 'NR threshold, mos-k15' noenhanced
unset multiplot
unset output
