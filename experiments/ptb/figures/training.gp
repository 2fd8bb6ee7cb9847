# training.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot training.gp` redraws it
# from any folder: it reads training.dat and writes training.png beside itself.
# command: /work/main/bin/sbw-plot train softmax/log.tsv moc/log.tsv mos-k15/log.tsv sigsoftmax/log.tsv plif/log.tsv mixtape/log.tsv --x tokens --y loss -q -o /work/main/experiments/ptb/figures/training
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'training.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 600,420 font ',11' linewidth 1.2
output = here.'training.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,1 title 'Training curves' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'tokens' noenhanced
set ylabel 'loss (nats)' noenhanced
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
unset arrow
set xtics 500000
set ytics 1
plot data index 0 using 1:2 with lines lc rgb '#882255' lw 1.5 dt 1 title 'log' noenhanced
unset multiplot
unset output
