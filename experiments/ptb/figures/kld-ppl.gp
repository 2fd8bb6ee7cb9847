# kld-ppl.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot kld-ppl.gp` redraws it
# from any folder: it reads kld-ppl.dat and writes kld-ppl.png beside itself.
# command: /work/main/bin/sbw-plot train softmax/curve.tsv moc/curve.tsv mos-k15/curve.tsv sigsoftmax/curve.tsv plif/curve.tsv mixtape/curve.tsv /work/main/experiments/ptb/long/softmax/traj.tsv /work/main/experiments/ptb/long/mos-k15/traj.tsv --x valid_ppl --y expected_pairwise_kl --labels softmax,moc,mos-k15,sigsoftmax,plif,mixtape,softmax (long),mos-k15 (long) --title Expected pairwise KL against perplexity along training -q -o /work/main/experiments/ptb/figures/kld-ppl
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'kld-ppl.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 600,420 font ',11' linewidth 1.2
output = here.'kld-ppl.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,1 title 'Expected pairwise KL against perplexity along training' noenhanced
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
set xtics 25
set ytics 0.5
plot data index 0 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 1 pt 7 ps 0.9 title 'softmax' noenhanced, \
     data index 1 using 1:2 with linespoints lc rgb '#000000' lw 1.5 dt 4 pt 9 ps 0.9 title 'moc' noenhanced, \
     data index 2 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 2 pt 5 ps 0.9 title 'mos-k15' noenhanced, \
     data index 3 using 1:2 with linespoints lc rgb '#56B4E9' lw 1.5 dt 5 pt 11 ps 0.9 title 'sigsoftmax' noenhanced, \
     data index 4 using 1:2 with linespoints lc rgb '#CC79A7' lw 1.5 dt 2 pt 15 ps 0.9 title 'plif' noenhanced, \
     data index 5 using 1:2 with linespoints lc rgb '#E69F00' lw 1.5 dt 4 pt 3 ps 0.9 title 'mixtape' noenhanced, \
     data index 6 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 2 pt 6 ps 0.9 title 'softmax (long)' noenhanced, \
     data index 7 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 4 pt 4 ps 0.9 title 'mos-k15 (long)' noenhanced
unset multiplot
unset output
