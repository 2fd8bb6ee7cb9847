# traj-epoch.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot traj-epoch.gp` redraws it
# from any folder: it reads traj-epoch.dat and writes traj-epoch.png beside itself.
# command: /work/main/bin/sbw-plot train mos-k15/traj.tsv softmax/traj.tsv --x epoch --y valid_ppl,rank,rank_single,d_star,expected_pairwise_kl --labels mos-k15,softmax --logy-of rank,rank_single,d_star --title Along training, per epoch (first validation predictions) -q -o figures/traj-epoch
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'traj-epoch.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 1800,840 font ',11' linewidth 1.2
output = here.'traj-epoch.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 2,3 title 'Along training, per epoch (first validation predictions)' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'epoch' noenhanced
set ylabel 'validation perplexity' noenhanced
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics (1, 2, 3, 4, 5, 6)
set ytics 25
plot data index 0 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 1 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'epoch' noenhanced
set ylabel 'numerical rank of log Q (NR threshold)' noenhanced
set logscale y
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics (1, 2, 3, 4, 5, 6)
set ytics autofreq
set ytics (500, 1000, 2000, 5000, 10000)
plot data index 2 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 3 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'epoch' noenhanced
set ylabel 'numerical rank at float32''s eps' noenhanced
set logscale y
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics (1, 2, 3, 4, 5, 6)
set ytics autofreq
set ytics (500, 1000, 2000, 4200)
plot data index 4 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 5 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'epoch' noenhanced
set ylabel 'd* (rank of the row-centred log P)' noenhanced
set logscale y
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics (1, 2, 3, 4, 5, 6)
set ytics autofreq
set ytics (500, 1000, 2000, 5000, 10000)
plot data index 6 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 7 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'epoch' noenhanced
set ylabel 'expected pairwise KL (nats)' noenhanced
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics (1, 2, 3, 4, 5, 6)
set ytics 0.5
plot data index 8 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 9 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset multiplot
unset output
