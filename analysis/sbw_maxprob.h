/* sbw_maxprob.h -- the largest probability a Softmax head can give word i
 * with a context vector of norm at most R:
 *   p*(R) = max_{||h||_2 <= R} softmax(W h + b)_i.
 * log p_i(h) = z_i - logsumexp(z) is concave in h (logsumexp of an affine
 * map is convex), so this is a smooth concave maximisation over a ball,
 * solved by accelerated projected gradient ascent (FISTA with backtracking
 * and adaptive restart; Beck & Teboulle 2009, O'Donoghue & Candes 2015).
 * Certificate: for the h returned and g = grad log p_i(h), concavity gives
 * log p*(R) <= log p_i(h) + max_{||u|| <= R} g.(u - h)
 *            = log p_i(h) + R ||g|| - g.h          (the Frank-Wolfe gap),
 * so p_i(h) <= p*(R) <= p_upper, both computed in double from h.  For a word
 * that is not strictly argmaxable p*(R) stays below 1 as R grows (Demeter et
 * al. 2020's "stolen probability"); for a vertex it tends to 1.
 * W is (m, d), leading dimension ldw; b NULL or m values. */
#ifndef SBW_MAXPROB_H
#define SBW_MAXPROB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_maxprob_res {
    double p;       /* p_i(h) at the h returned: a lower bound of p*(R) */
    double p_upper; /* exp(log p_i(h) + gap), capped at 1: an upper bound */
    double gap;     /* the Frank-Wolfe gap in log-probability */
    double h_norm;  /* ||h||_2 <= R */
    int iters;
    bool converged; /* gap <= tol */
} sbw_maxprob_res;

/* Doubles of scratch sbw_maxprob_word needs. */
size_t sbw_maxprob_ws_size(size_t m, size_t d);

/* p*(R) for word i < m, R >= 0, to a gap of tol (> 0) in log-probability
 * or max_iter iterations.  h (d values) is the start on entry (projected
 * onto the ball; zeros are fine) and the maximiser on exit.  ws has
 * sbw_maxprob_ws_size(m, d) doubles.  Errors: SBW_EINVAL (every argument
 * is checked first: h, ws and *res untouched on failure). */
int sbw_maxprob_word(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                     double R, double tol, int max_iter, double *h, double *ws,
                     sbw_maxprob_res *res);

/* A ladder of radii for many words (sbw_maxprob_words). */
typedef struct sbw_maxprob_ladder {
    const double *R; /* nr radii, each > 0 */
    size_t nr;
    double tol;        /* the gap in log p (> 0) */
    int max_iter;      /* per word and radius */
    const char *label; /* progress and cost line: "sbw-argmax: --max-prob" */
    bool quiet;        /* neither */
} sbw_maxprob_ladder;

/* For each of the n words words[t] with want[t] (want NULL: all), p*(R)
 * for every radius of l, the radii in order, each started from the
 * previous radius's maximiser (the first from h = 0): pm[t nr + k] = p,
 * pu[t nr + k] = p_upper (n x nr each; nan for the words not wanted).
 * *unconverged counts the pairs whose gap stayed above l->tol.  Unless
 * l->quiet, first one line on stderr with the worst case ("LABEL: N
 * word(s) x K radius(es); each pair at most I iterations of ~8 M D flops,
 * ..."), then progress (sbw_progress) over the pairs.  Errors: SBW_ENOMEM,
 * those of sbw_maxprob_word.  On failure pm and pu hold the pairs before
 * it (nan from the failed pair on in that word; later words unwritten) and
 * *unconverged counts those: discard them. */
int sbw_maxprob_words(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                      const size_t *words, const bool *want, size_t n, const sbw_maxprob_ladder *l,
                      double *pm, double *pu, size_t *unconverged);

/* log softmax(W h + b)_i and its gradient g (d values) with respect to h;
 * z is m values of scratch.  The plain evaluation the certificate uses. */
double sbw_maxprob_eval(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                        const double *h, double *z, double *g);

#endif
