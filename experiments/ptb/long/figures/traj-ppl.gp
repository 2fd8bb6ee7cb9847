# traj-ppl.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot traj-ppl.gp` redraws it
# from any folder: it reads traj-ppl.dat and writes traj-ppl.png beside itself.
# command: /work/main/bin/sbw-plot train mos-k15/traj.tsv softmax/traj.tsv --x valid_ppl --y expected_pairwise_kl,rank_single --labels mos-k15,softmax --logy-of rank_single --title KLD and float32 rank against validation perplexity -q -o figures/traj-ppl
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'traj-ppl.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 1200,420 font ',11' linewidth 1.2
output = here.'traj-ppl.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,2 title 'KLD and float32 rank against validation perplexity' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'validation perplexity' noenhanced
set ylabel 'expected pairwise KL (nats)' noenhanced
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics 20
set ytics 0.5
plot data index 0 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 1 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'validation perplexity' noenhanced
set ylabel 'numerical rank at float32''s eps' noenhanced
set logscale y
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
unset arrow
set xtics 20
set ytics autofreq
set ytics (500, 1000, 2000, 4200)
plot data index 2 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 3 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced
unset multiplot
unset output
