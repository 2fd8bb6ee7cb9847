# truncation.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot truncation.gp` redraws it
# from any folder: it reads truncation.dat and writes truncation.png beside itself.
# command: /work/main/bin/sbw-plot train truncation-context0.tsv --x by_prob --y logp --series decision --logx --title One context's tokens by probability: what a truncation may drop -q -o truncation
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'truncation.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 600,420 font ',11' linewidth 1.2
output = here.'truncation.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,1 title 'One context''s tokens by probability: what a truncation may drop' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'by_prob' noenhanced
set ylabel 'logp' noenhanced
set logscale x
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
unset arrow
set xtics (1, 2, 3, 4, 5, 6, 7, 9)
set ytics 2
plot data index 0 using 1:2 with points lc rgb '#882255' lw 1.5 dt 1 pt 6 ps 0.9 title 'kept: threshold' noenhanced, \
     data index 1 using 1:2 with linespoints lc rgb '#332288' lw 1.5 dt 1 pt 4 ps 0.9 title 'kept: proven (LP dual)' noenhanced
unset multiplot
unset output
