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
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,2 title 'Rank and fit against the number of mixture components (one seed)' noenhanced
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
unset arrow
set xtics (3, 5, 10, 15, 20)
set ytics 2000
plot data index 0 using 1:2 with linespoints lc rgb '#882255' lw 1.5 dt 1 pt 6 ps 0.9 title 'ours (float64)' noenhanced, \
     data index 1 using 1:2 with linespoints lc rgb '#332288' lw 1.5 dt 1 pt 4 ps 0.9 title 'ours at float32''s eps' noenhanced, \
     data index 2 using 1:2 with linespoints lc rgb '#999933' lw 1.5 dt 1 pt 8 ps 0.9 title 'Yang et al. 2018' noenhanced
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
unset arrow
set xtics (3, 5, 10, 15, 20)
set ytics 20
plot data index 3 using 1:2 with linespoints lc rgb '#882255' lw 1.5 dt 1 pt 6 ps 0.9 title 'ours (float64)' noenhanced, \
     data index 4 using 1:2 with linespoints lc rgb '#999933' lw 1.5 dt 1 pt 8 ps 0.9 title 'Yang et al. 2018' noenhanced
unset multiplot
unset output
