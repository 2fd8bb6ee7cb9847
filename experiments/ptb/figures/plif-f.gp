# plif-f.gp -- a figure by sbw-plot monotone.  Edit freely; `gnuplot plif-f.gp` redraws it
# from any folder: it reads plif-f.dat and writes plif-f.png beside itself.
# command: /work/main/bin/sbw-plot monotone /work/main/experiments/ptb/results/plif/f --labels PLIF (100 intervals) -q -o /work/main/experiments/ptb/figures/plif-f
# f is drawn from each folder's map.tsv: the head's kernels evaluated on a grid (models/sbw_head_io.h); its additive constant cancels in the softmax; PLIF: f(-T) = 0
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'plif-f.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 600,420 font ',11' linewidth 1.2
output = here.'plif-f.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,1 title 'Learned monotone functions (cf. LMS Figure 4)' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'logit x' noenhanced
set ylabel 'f(x)' noenhanced
set key inside top left
set key spacing 1.15 width 2
set autoscale fix
set xrange [-12.5:12.5]
set offsets 0, 0, graph 0.05, graph 0.05
unset arrow
set xtics 2.5
set ytics 10
plot data index 0 using 1:2 with lines lc rgb '#CC79A7' lw 1.5 dt 2 title 'PLIF (100 intervals)' noenhanced, \
     x with lines lc rgb '#555555' lw 1.2 dt 2 title 'identity f(x) = x' noenhanced
unset multiplot
unset output
