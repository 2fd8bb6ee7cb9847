/* sbw_argmax_trunc.h -- which tokens a truncation may drop: basis-aware
 * truncation (Finlayson, Hewitt, Koller, Swayamdipta and Sabharwal, ICLR
 * 2024, "Closing the Curious Case of Neural Text Degeneration").
 *
 * A model with a Softmax head outputs phat = softmax(W h + b).  If h is
 * the cross-entropy optimum for the true next-token distribution p*, the
 * gradient in h vanishes: W^T (phat - p*) = 0 (the bias and the context
 * do not enter; the authors' derivation, from the gradient of the
 * cross-entropy in h).  With the paper's bound on how much the model
 * underestimates a token, p*_j <= sigma phat_j (sigma = exp(delta) =
 * 1 / (1 - tau) for the threshold tau), the true distribution lies in
 *   F = { q : W^T q = W^T phat, 1^T q = 1^T phat, 0 <= q_j <= sigma phat_j }
 * and token i *may be zero* (a truncation may drop it) iff F_i = F with
 * q_i = 0 added is not empty; else p*_i > 0 is proven and a truncation
 * that drops i is wrong.  sigma = +inf drops the bound (only 0 <= q).
 * With 1^T phat = 1 this is the authors' program (their code's
 * constraints; 1^T q = 1^T phat keeps it exact for a stored phat whose
 * sum is 1 only to rounding).  The paper's own threshold rule is the
 * special certificate y = (0, ..., 0, 1): sigma phat_i > (sigma - 1)
 * 1^T phat (phat_i > tau when phat sums to 1).
 *
 * Each answer carries its proof, checked with no solver
 * (sbw_argmax_cert): "keep" a Farkas vector y with g(y) > 0 (the
 * threshold's, else the dual of the LP), "may drop" a witness q in F_i:
 * exact (rational, from the LP's basis) when the system is small, else a
 * double q with an exact residual bound <= tol * scale (scale =
 * max(1, max |w_jk|)): then F_i holds a q within that residual of every
 * constraint, the same standard as sbw-argmax's lambda certificates.
 * Anything else is undecided, never a verdict.
 *
 * The LP (GLPK, one per thread and context, warm-started token to token):
 *   minimise 1^T (s+ + s-)
 *   subject to A^T q + s+ - s- = A^T phat    (A = [W, 1]: d + 1 rows)
 *              0 <= q_j <= sigma phat_j,  q_i = 0,  s+, s- >= 0
 * whose optimum is 0 exactly when F_i is not empty; its row duals y are
 * the Farkas vector (|y| <= 1, dual objective g(y)). */
#ifndef SBW_ARGMAX_TRUNC_H
#define SBW_ARGMAX_TRUNC_H

#include "sbw_mat.h"

#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum sbw_argmax_trunc_reason {
    SBW_ARGMAX_TRUNC_THRESHOLD, /* keep: y = (0, ..., 0, 1), the paper's threshold rule */
    SBW_ARGMAX_TRUNC_FARKAS,    /* keep: the LP's dual y */
    SBW_ARGMAX_TRUNC_EXACT,     /* may drop: an exact rational witness */
    SBW_ARGMAX_TRUNC_WITNESS,   /* may drop: a double witness, residual <= tol * scale */
    SBW_ARGMAX_TRUNC_UNDECIDED  /* neither certificate passed */
} sbw_argmax_trunc_reason;

/* "threshold", "farkas", "witness_exact", "witness", "undecided". */
const char *sbw_argmax_trunc_reason_name(sbw_argmax_trunc_reason r);

/* One token of one context.  keep: 1 (p*_token > 0 proven), 0 (may be
 * zero), -1 (undecided).  margin: g(y) of the Farkas certificate (> bound,
 * its rounding bound, 0 when exact), nan otherwise; residual: the
 * witness's exact residual bound (0 for an exact witness), nan otherwise;
 * support: the witness's positive entries; lp_obj: the LP's optimum (nan
 * when no LP ran). */
typedef struct sbw_argmax_trunc_tok {
    size_t context, token;
    int keep;
    sbw_argmax_trunc_reason reason;
    double margin, bound, residual, lp_obj;
    size_t support;
} sbw_argmax_trunc_tok;

typedef struct sbw_argmax_trunc_opts {
    double sigma; /* p*_j <= sigma phat_j: >= 1, or INFINITY (no bound) */
    double tol;   /* a double witness needs residual <= tol * scale (1e-9; 0: exact only) */
    sbw_progress *progress; /* (context, token) pairs decided, or NULL; started by the caller */
    size_t max_iter;        /* simplex iterations per LP solve; 0: SBW_ARGMAX_TRUNC_ITER
                             * times the LP's columns (m + 2 (d + 1)) */
} sbw_argmax_trunc_opts;

/* The default iteration limit per LP solve, in units of the LP's columns.
 * A solve that reaches it is retried once from a fresh basis, then the
 * token is undecided (keep -1): on badly scaled outputs (probabilities down
 * to 1e-9 beside 0.1) GLPK's primal simplex was seen to cycle between its
 * phases on a PTB head for over 20 minutes without ending.  A bare
 * integer literal: sbw-argmax's --help spells it with SBW_ARGMAX_TRUNC_ITER_STR. */
#define SBW_ARGMAX_TRUNC_ITER          3
#define SBW_ARGMAX_TRUNC_ITER_STR_(x)  #x
#define SBW_ARGMAX_TRUNC_ITER_STR_X(x) SBW_ARGMAX_TRUNC_ITER_STR_(x)
#define SBW_ARGMAX_TRUNC_ITER_STR      SBW_ARGMAX_TRUNC_ITER_STR_X(SBW_ARGMAX_TRUNC_ITER)

typedef struct sbw_argmax_trunc_summary {
    size_t contexts, checked, keep, may_drop, undecided;
    size_t by_threshold, by_lp, exact_witnesses, lp_solves;
    double scale;   /* max(1, max |w_jk|): the unit of tol */
    double seconds; /* in the LPs and checks */
} sbw_argmax_trunc_summary;

/* Decides tokens[0..ntok) (all m when tokens is NULL; then ntok = m) for
 * each of the n contexts: log-probabilities logp (n x m, leading
 * dimension ldl; every entry finite, rows normalised: the caller checks),
 * head W (m x d, leading dimension ldw; m >= 2, d >= 1).  out has n ntok
 * entries, context-major.  Parallel over tokens (OpenMP, static blocks:
 * the same answers for a given thread count).  Errors: SBW_EINVAL (bad
 * sizes, a token >= m, sigma < 1 or nan, tol < 0), SBW_ENOMEM,
 * SBW_ENUMERIC (GLPK failed).  On failure *sum summarises what was done
 * and out[] is partly written: discard it.  o->progress, if set, is
 * updated (under a critical section) with the pairs decided so far. */
int sbw_argmax_trunc_run(const double *w, size_t m, size_t d, size_t ldw, const double *logp,
                         size_t n, size_t ldl, const size_t *tokens, size_t ntok,
                         const sbw_argmax_trunc_opts *o, sbw_argmax_trunc_tok *out,
                         sbw_argmax_trunc_summary *sum);

/* What sbw_argmax_trunc_file reads, besides W's path. */
typedef struct sbw_argmax_trunc_file_opts {
    const char *logp;     /* the model outputs: N x M log-probabilities (.npy) */
    const char *vocab;    /* token names, one a line (M lines), or NULL */
    const size_t *tokens; /* the tokens to decide, ntok of them; NULL: all M */
    size_t ntok;
    bool normalize; /* subtract each row's logsumexp instead of refusing a row off 1 */
    bool quiet;     /* no progress on stderr (else one line every few seconds, or a bar) */
    sbw_argmax_trunc_opts run; /* run.progress is set here: leave it NULL */
} sbw_argmax_trunc_file_opts;

/* What it gives; sbw_argmax_trunc_file_free frees it. */
typedef struct sbw_argmax_trunc_file_res {
    sbw_mat w, logp;
    char **names; /* NULL without --vocab */
    size_t ntok;  /* tokens per context */
    sbw_argmax_trunc_tok *out;
    sbw_argmax_trunc_summary sum;
    double max_abs_lse; /* the largest |logsumexp| of a row of logp */
} sbw_argmax_trunc_file_res;

/* sbw-argmax --truncation: W read (sbw_argmax_io), its memory and that of
 * the LPs checked, the log-probabilities read and checked (sbw_logp: a
 * matrix of M columns, every entry finite, each row normalised within the
 * checker's tolerance), the names, the tokens checked, then
 * sbw_argmax_trunc_run with its progress on stderr (unless o->quiet).
 * *res is zeroed first and holds what was made.
 * Errors: the readers' (SBW_ESHAPE for a logp whose columns are not W's
 * rows), SBW_EINVAL for a token >= M, those of sbw_argmax_trunc_run.  On
 * failure free *res with sbw_argmax_trunc_file_free. */
int sbw_argmax_trunc_file(const char *wpath, const sbw_argmax_trunc_file_opts *o,
                          sbw_argmax_trunc_file_res *res);

void sbw_argmax_trunc_file_free(sbw_argmax_trunc_file_res *res);

#endif
