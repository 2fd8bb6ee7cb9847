# Figures of make demo (experiments/quickstart.sh); call with -e "dir='out/quickstart'".
# Reads only the TSVs the tools wrote.
set terminal pngcairo size 720,480 font ",11"
set datafile separator "\t"
set datafile commentschars "#"
set key autotitle columnhead
set grid

set output dir.'/spectrum.png'
set title "Singular spectra of a Dirichlet(0.1) language, N=1000, M=300 (cf. MoS Figure 1)"
set xlabel "normalised singular value (sigma / sigma_0)"
set ylabel "% of singular values below"
set key bottom right
plot dir.'/spectrum.tsv' using 5:6 with steps lw 2 title "A = log P*", \
     dir.'/spectrum_centered.tsv' using 5:6 with steps lw 2 title "A (I - 11^T/M), row-centred"

set output dir.'/fits.png'
set title "Mean KL(P*||Q) of fitted heads, Dirichlet(0.1) language"
set xlabel "embedding size D"
set ylabel "mean KL (nats)"
set logscale y
set key top right
f = dir.'/fits.tsv'
plot f using 2:(strcol(1) eq 'softmax' ? $3 : NaN) with linespoints lw 2 title 'softmax', \
     f using 2:(strcol(1) eq 'mos' ? $3 : NaN) with linespoints lw 2 title 'MoS K=10', \
     f using 2:(strcol(1) eq 'lms' ? $3 : NaN) with linespoints lw 2 title 'LMS K=10'
unset logscale y

set output dir.'/bound.png'
set title "Eckart-Young lower bounds on ||A - log Q||_F and Softmax fits"
set xlabel "embedding size d"
set ylabel "Frobenius norm"
plot dir.'/bound.tsv' using 1:2 with lines lw 2 title 'LMS Theorem 1', \
     dir.'/bound.tsv' using 1:3 with lines lw 2 title 'shift-aware bound', \
     f using 2:(strcol(1) eq 'softmax' ? $5 : NaN) with points pt 7 ps 1.5 title 'softmax fits'
