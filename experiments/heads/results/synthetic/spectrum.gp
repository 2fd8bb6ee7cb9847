# spectrum.gp -- a figure by sbw-plot spectrum.  Edit freely; `gnuplot spectrum.gp` redraws it
# from any folder: it reads spectrum.dat and writes spectrum.png beside itself.
# command: /work/main/bin/sbw-plot -q spectrum spectrum.tsv --rank rank.tsv --labels synthetic W --title Singular spectrum of synthetic's W -o spectrum
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'spectrum.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 1200,420 font ',11' linewidth 1.2
output = here.'spectrum.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set style line 1 lc rgb '#0072B2' pt 7 ps 0.9 lw 1.5
set style line 2 lc rgb '#D55E00' pt 5 ps 0.9 lw 1.5
set style line 3 lc rgb '#009E73' pt 9 ps 0.9 lw 1.5
set style line 4 lc rgb '#CC79A7' pt 13 ps 0.9 lw 1.5
set style line 5 lc rgb '#E69F00' pt 11 ps 0.9 lw 1.5
set style line 6 lc rgb '#56B4E9' pt 6 ps 0.9 lw 1.5
set style line 7 lc rgb '#000000' pt 4 ps 0.9 lw 1.5
set style line 8 lc rgb '#0072B2' pt 8 ps 0.9 lw 1.5
set style line 9 lc rgb '#D55E00' pt 10 ps 0.9 lw 1.5
set style line 10 lc rgb '#009E73' pt 12 ps 0.9 lw 1.5
set style line 99 lc rgb '#000000' pt 1 ps 0.9 lw 1.5
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,2 title 'Singular spectrum of synthetic''s W' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title 'Cumulative spectrum (cf. MoS Figure 1)' noenhanced
set xlabel 'normalised singular value (σ/σ₀)' noenhanced
set ylabel '% of singular values ≤ x' noenhanced
set key inside bottom right
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
set xtics autofreq
set ytics autofreq
plot data index 0 using 1:2 with steps ls 1 dt 1 title 'synthetic W' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title 'Singular values' noenhanced
set xlabel 'index j' noenhanced
set ylabel 'singular value σ (log scale)' noenhanced
set logscale y
set key inside center
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
set xtics autofreq
set ytics autofreq
set ytics autofreq
set ytics (6.14, 6.68, 7.28, 7.92)
plot data index 1 using 1:2 with lines ls 1 dt 1 title 'synthetic W' noenhanced, \
     2.8088379455480674e-14 with lines ls 1 dt 2 lw 1.2 title 'NR threshold, synthetic W' noenhanced
unset multiplot
unset output
