# maxprob.gp -- a figure by sbw-plot train.  Edit freely; `gnuplot maxprob.gp` redraws it
# from any folder: it reads maxprob.dat and writes maxprob.png beside itself.
# command: /work/main/bin/sbw-plot -q train maxprob.tsv --x R --y p_max --series name --logx --title Largest attainable probability of the unargmaxable words over ||h|| <= R -o maxprob
here = ''
if (exists("ARG0")) { n = strlen(ARG0); while (n > 0 && ARG0[n:n] ne '/') { n = n - 1 }; if (n > 0) { here = ARG0[1:n] } }
if (here eq './') { here = '' }
plain = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./'
data = here.'maxprob.dat'
if (strstrt(plain, data[1:1]) == 0) { data = './'.data }
set terminal pngcairo enhanced size 600,420 font ',11' linewidth 1.2
output = here.'maxprob.png'
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
set multiplot layout 1,1 title 'Largest attainable probability of the unargmaxable words over ||h|| <= R' noenhanced
unset logscale
set autoscale
set format x '% h'
set format y '% h'
set title '' noenhanced
set xlabel 'R' noenhanced
set ylabel 'p_max' noenhanced
set logscale x
set key below
set key spacing 1.15 width 2
set autoscale fix
set offsets 0, 0, graph 0.05, graph 0.05
set xtics (1, 3, 10, 30, 100)
set ytics autofreq
plot data index 0 using 1:2 with lines ls 1 dt 1 title 'in184' noenhanced, \
     data index 1 using 1:2 with lines ls 2 dt 2 title 'in196' noenhanced, \
     data index 2 using 1:2 with lines ls 3 dt 4 title 'in275' noenhanced, \
     data index 3 using 1:2 with lines ls 4 dt 5 title 'in278' noenhanced, \
     data index 4 using 1:2 with lines ls 5 dt 1 title 'in291' noenhanced, \
     data index 5 using 1:2 with lines ls 6 dt 2 title 'in470' noenhanced, \
     data index 6 using 1:2 with lines ls 7 dt 4 title 'in543' noenhanced, \
     data index 7 using 1:2 with lines ls 8 dt 5 title 'in615' noenhanced, \
     data index 8 using 1:2 with lines ls 9 dt 1 title 'in698' noenhanced, \
     data index 9 using 1:2 with lines ls 10 dt 2 title 'in909' noenhanced
unset multiplot
unset output
