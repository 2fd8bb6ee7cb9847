# rank-k.gp -- a figure by sbw-plot rank-k.  Edit freely; `gnuplot rank-k.gp` redraws it
# from any folder: it reads rank-k.dat and writes rank-k.png beside itself.
# command: /work/main/bin/sbw-plot rank-k rank-k.tsv -q -o /work/main/experiments/ptb/figures/rank-k
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'rank-k.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 1200,420 font ',11' linewidth 1.2
output = here.'rank-k.png'
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
set multiplot layout 1,2 title 'Rank and fit against the number of mixture components' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'mixture components K' noenhanced
set ylabel 'numerical rank of log Q (NR threshold)' noenhanced
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set xtics (3, 5, 10, 15, 20)
set ytics autofreq
plot data index 0 using 1:2 with linespoints ls 1 title 'ours (float64)' noenhanced, \
     data index 1 using 1:2 with linespoints ls 2 title 'ours at float32''s eps' noenhanced, \
     data index 2 using 1:2 with linespoints ls 3 title 'Yang et al. 2018' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'mixture components K' noenhanced
set ylabel 'perplexity' noenhanced
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set xtics (3, 5, 10, 15, 20)
set ytics autofreq
plot data index 3 using 1:2 with linespoints ls 1 title 'ours (float64)' noenhanced, \
     data index 4 using 1:2 with linespoints ls 3 title 'Yang et al. 2018' noenhanced
unset multiplot
unset output
