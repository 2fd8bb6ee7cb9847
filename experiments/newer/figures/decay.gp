# decay.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot decay.gp` redraws it
# from any folder: it reads decay.dat and writes decay.png beside itself.
# command: /work/main/bin/sbw-plot train decay-softmax.tsv decay-softmax-fit.tsv decay-moc.tsv decay-moc-fit.tsv decay-mos-k15.tsv decay-mos-k15-fit.tsv decay-mixtape.tsv decay-mixtape-fit.tsv decay-plif.tsv decay-plif-fit.tsv --x i --y log10_sigma --logx --labels Softmax,Softmax fit,MoC,MoC fit,MoS K=15,MoS K=15 fit,Mixtape K=4,Mixtape K=4 fit,PLIF,PLIF fit --title Centred spectra of log Q and their power-law fits -q -o decay
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'decay.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 600,420 font ',11' linewidth 1.2
output = here.'decay.png'
if (strstrt(plain, output[1:1]) == 0) { output = './'.output }
set output output
set grid lc rgb '#d9d9d9' lw 0.6
set key noopaque samplen 2.5 spacing 1.15 width 2 reverse Left
set datafile separator "\t"
set samples 500
set multiplot layout 1,1 title 'Centred spectra of log Q and their power-law fits' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'i' noenhanced
set ylabel 'log10_sigma' noenhanced
set logscale x
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
unset arrow
set xtics autofreq
set format x '10^{%T}'
set ytics 5
plot data index 0 using 1:2 with lines lc rgb '#0072B2' lw 1.5 dt 1 title 'Softmax' noenhanced, \
     data index 1 using 1:2 with linespoints lc rgb '#0072B2' lw 1.5 dt 2 pt 6 ps 0.9 title 'Softmax fit' noenhanced, \
     data index 2 using 1:2 with lines lc rgb '#000000' lw 1.5 dt 4 title 'MoC' noenhanced, \
     data index 3 using 1:2 with linespoints lc rgb '#000000' lw 1.5 dt 5 pt 8 ps 0.9 title 'MoC fit' noenhanced, \
     data index 4 using 1:2 with lines lc rgb '#D55E00' lw 1.5 dt 2 title 'MoS K=15' noenhanced, \
     data index 5 using 1:2 with linespoints lc rgb '#D55E00' lw 1.5 dt 4 pt 4 ps 0.9 title 'MoS K=15 fit' noenhanced, \
     data index 6 using 1:2 with lines lc rgb '#E69F00' lw 1.5 dt 4 title 'Mixtape K=4' noenhanced, \
     data index 7 using 1:2 with linespoints lc rgb '#E69F00' lw 1.5 dt 5 pt 3 ps 0.9 title 'Mixtape K=4 fit' noenhanced, \
     data index 8 using 1:2 with lines lc rgb '#CC79A7' lw 1.5 dt 2 title 'PLIF' noenhanced, \
     data index 9 using 1:2 with linespoints lc rgb '#CC79A7' lw 1.5 dt 4 pt 14 ps 0.9 title 'PLIF fit' noenhanced
unset multiplot
unset output
