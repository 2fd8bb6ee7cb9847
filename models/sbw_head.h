/* sbw_head.h -- the model zoo: which head, its sizes, and where each
 * parameter lives in the one flat parameter vector theta.  How a head is
 * evaluated on context vectors is sbw_pass.h; its kernels sbw_head_kern.h.
 *
 * Every head maps per-context vectors h_j (rows of H, N x C) and shared
 * word vectors w_i (rows of W, M x D), plus an optional word bias b (M), to
 * next-word distributions Q_j over M words.  z = W x + b are the logits of
 * a context vector x.  C, the context width, is D unless
 * sbw_head_set_context sets it: only the context-mixing heads (moc, mos,
 * mos+plif) map h through U_k and V and may take C != D; the others use h
 * as x and need C = D.
 *
 *   softmax     Q = softmax(z),                  x = h
 *   sigsoftmax  Q = softmax(ss(z)), ss(z) = 2z - softplus(z)  (Kanai 2018)
 *   moc (K)     Q = softmax(W hbar + b), hbar = sum_k pi_k g_k  (MoS 2.5)
 *   mos (K)     Q = sum_k pi_k softmax(W g_k + b)          (MoS eq. 2; LMS 11)
 *               pi = softmax(V h), g_k = tanh(U_k h [+ c_k]), U_k D x C,
 *               V K x C, c_k (D) the optional component bias (cbias; MoS
 *               code's latent Linear has one)
 *   lms (K)     Q = softmax(f(z)), f(x) = sum_i v_i sigma(u_i x + c_i)
 *               [+ lambda x with --linear]  (LMS eq. 14; u, v, lambda > 0
 *               through softplus; the constant of eq. 14 cancels in the
 *               softmax and is not a parameter)
 *   plif (K)    Q = softmax(f(z)), f piecewise linear and increasing on K
 *               equal intervals of [-T, T], slopes s_i = softplus(a_i),
 *               continuous, extended linearly outside with the end slopes
 *               (LMS section 4; f(-T) = 0, the free offset cancels)
 *   mos+plif    Q = sum_k pi_k softmax(f(W g_k + b))   (LMS 5.2)
 *   mixtape (K) Q = softmax(z), z_x = sum_k pi_{x,k} (w_x^T g_k) + b_x
 *               (Yang, Luong, Salakhutdinov and Le, NeurIPS 2019): g_k
 *               as MoS's; per context AND word, the gate priors pi_{x,.}
 *               are the K leaves of a sigmoid tree (K - 1 sigmoids:
 *               heap-ordered, node j's children 2j+1 (weight gamma_j)
 *               and 2j+2 (1 - gamma_j), leaf k node K-1+k; K = 4 is the
 *               paper's pi_1 = g1 g2, pi_2 = g1 (1-g2), pi_3 = (1-g1) g3,
 *               pi_4 = (1-g1)(1-g3)), gamma_{x,j} = sigma(l_{x,j}) with
 *               the gate logits l_{x,j} = v_x^T tanh(GU_j h) + u_j^T h +
 *               b_{x,j} for the F most frequent words (ids < F) and the
 *               shared l_j = u_j^T h for the rest (gate sharing);
 *               u_j the K - 1 rows of V, GU_j d1 x C, v_x (d1) the rows
 *               of GV (F x d1), b_{x,j} GB (F x (K-1)); d1 = ceil(D/4)
 *               and F = ceil(M/10) (sbw_head_setup, docs/DESIGN.md)
 *
 * theta layout (doubles): [ W (M*D) | b (M) | U (K*D*C) | V (K*C) |
 * U_bias (K*D, with cbias) | GU ((K-1)*d1*C) | GV (F*d1) | GB (F*(K-1)) |
 * lms (3K [+1]) | plif (knots) | H (N*C) ] (V has K - 1 rows for mixtape),
 * absent blocks have length 0 (so with C = D and no cbias the layout is
 * the one every saved head and checkpoint has).
 * Everything before H is the head's own (the "shared prefix", nshared
 * doubles, what sbw_pass takes as theta); H is stored after it only by a
 * caller that owns the context vectors as free parameters (sbw-fit, N =
 * contexts); a caller that computes H (a language model) sets N = 0.
 */
#ifndef SBW_HEAD_H
#define SBW_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sbw_head_model {
    SBW_MODEL_SOFTMAX = 0,
    SBW_MODEL_SIGSOFTMAX,
    SBW_MODEL_MOC,
    SBW_MODEL_MOS,
    SBW_MODEL_LMS,
    SBW_MODEL_PLIF,
    SBW_MODEL_MOS_PLIF,
    SBW_MODEL_MIXTAPE,
    SBW_NMODEL
} sbw_head_model;

/* The pointwise map applied to the logits before normalisation. */
typedef enum sbw_head_map {
    SBW_MAP_IDENTITY = 0,
    SBW_MAP_SS,
    SBW_MAP_LMS,
    SBW_MAP_PLIF
} sbw_head_map;

typedef struct sbw_head {
    sbw_head_model model;
    size_t n, m, d; /* contexts stored in theta (0: none), words, embedding size */
    size_t k;       /* components (moc, mos, mos+plif) or hidden units (lms); else 0 */
    size_t knots;   /* PLIF intervals (plif, mos+plif); else 0 */
    double plif_t;  /* PLIF knots span [-T, T] */
    bool bias;      /* word bias b */
    bool linear;    /* lms: the positive linear term lambda x */
    size_t c;       /* context width C: rows of H, columns of U_k and V (= d by default) */
    bool cbias;     /* context-mixing heads: component bias c_k in g_k = tanh(U_k h + c_k) */
    /* derived by sbw_head_setup */
    sbw_head_map map; /* pointwise map of the logits */
    bool mixture;     /* mos, mos+plif: K softmaxes mixed by pi */
    bool context_mix; /* moc, mos, mos+plif, mixtape: g_k = tanh(U_k h), V h */
    bool vgate;       /* mixtape: per-word sigmoid-tree gates on the K logit rows */
    size_t gd, nfreq; /* mixtape: gate embedding size d1, words with their own gates F */
    size_t lms_len;   /* 3K (+1 with linear) */
    size_t off_w, off_b, off_u, off_v, off_ub, off_gu, off_gv, off_gb, off_lms, off_plif, off_h;
    size_t nshared; /* = off_h: parameters shared by all contexts */
    size_t nparam;  /* = off_h + N*C */
} sbw_head;

/* A named block of theta, for --save and for messages. */
typedef struct sbw_head_block {
    const char *name; /* file stem: "W", "b", "U", "V", "lms_u_raw", ... */
    size_t off, rows, cols;
    const char *meaning; /* one line for params.tsv */
} sbw_head_block;

#define SBW_HEAD_MAX_BLOCKS 10

/* The largest K of a mixtape head (its sigmoid tree lives on the stack). */
#define SBW_HEAD_MIXTAPE_KMAX 64

/* Model name ("softmax", "sigsoftmax", "moc", "mos", "lms", "plif",
 * "mos+plif", "mixtape") to enum.  Errors: SBW_EINVAL naming the unknown model;
 * *model untouched on failure. */
int sbw_head_model_parse(const char *name, sbw_head_model *model);

/* The enum's name as above. */
const char *sbw_head_model_name(sbw_head_model model);

/* Logit rows per context the head forms before its per-word work: K for
 * mos, mos+plif and mixtape (W g_k), else 1. */
size_t sbw_head_nx(const sbw_head *h);

/* Rows of V: K for moc, mos, mos+plif (pi = softmax(V h)), K - 1 for
 * mixtape (the shared gate vectors u_j), else 0. */
size_t sbw_head_nv(const sbw_head *h);

/* The head's theoretical bound on the rank of log Q (any parameters, any
 * contexts), or 0 when it has none.  Softmax, MoC, MoS and Mixtape with K = 1:
 * log Q = Z - log Z 1^T with Z = X W^T (+ 1 b^T), so rank <= D + 1
 * without a word bias and D + 2 with one (MoS Property 2; MoC mixes the
 * contexts before its one softmax, MoS K = 1 is a softmax of tanh
 * features), capped at M and, when the head stores contexts (n > 0), at
 * N.  Mixtape with K > 1: the words that share their gates have logits
 * w_x^T hbar, hbar = sum_k pi_k g_k in R^D, the F others any: rank <=
 * D + F + 1 (+ 1 with a bias), above D + 2 since F >= 1 (same caps).
 * Sigsoftmax, MoS (K > 1), LMS, PLIF and MoS+PLIF apply a nonlinear
 * map or mix after the softmax: no bound below min(N, M), 0.  What
 * sbw-lm train writes as rank_bound and sbw-fit as # rank_bound=. */
size_t sbw_head_rank_bound(const sbw_head *h);

/* Checks the sizes and fills in map, flags and the theta layout.  k is
 * read for moc, mos, mos+plif, mixtape and lms (mixtape: 1 <= K <=
 * SBW_HEAD_MIXTAPE_KMAX; its d1 and F follow from D and M), knots and plif_t for plif and
 * mos+plif, linear for lms only.  n may be 0 (no H in theta).  Errors
 * (SBW_EINVAL): m or d < 1,
 * d > m, k < 1, knots < 1, plif_t not finite and > 0, linear on a head
 * other than lms, or sizes whose parameter count overflows.  *h untouched
 * on failure. */
int sbw_head_setup(sbw_head *h, sbw_head_model model, size_t n, size_t m, size_t d, size_t k,
                   size_t knots, double plif_t, bool bias, bool linear);

/* Sets the context width C (0: C = D) and the component bias of a head
 * sbw_head_setup made, and lays theta out again (the default head has C
 * = D and no component bias).  Errors (SBW_EINVAL): C != D or cbias on a
 * head that is not context-mixing (softmax, sigsoftmax, lms, plif take
 * their logits from h itself), a parameter count that overflows.  *h
 * untouched on failure. */
int sbw_head_set_context(sbw_head *h, size_t c, bool cbias);

/* Documented initialisation of theta (nparam doubles), deterministic in
 * seed; each block draws from its own sbw_rng stream:
 *   H, W, V entries ~ N(0, scale^2); b = 0; U entries ~ N(0, 1/C); the
 *   component bias 0; mixtape: GU ~ N(0, 1/C), GV ~ N(0, scale^2), GB 0;
 *   lms: u_i = 1, c_i evenly spaced on [-4, 4] (0 when K = 1), v_i equal to
 *   that spacing (8/(K-1), or 4 when K = 1) so that f'(0) is about 1, and
 *   lambda = 1 with --linear;  plif: every slope 1 (f(x) = x + T inside).
 * Errors: SBW_ENOMEM (generator), SBW_EINVAL (scale not finite or < 0);
 * both come before anything is written: theta untouched on failure. */
int sbw_head_init(const sbw_head *h, double *theta, uint64_t seed, double scale);

/* Lists the blocks of theta that the head uses (at most
 * SBW_HEAD_MAX_BLOCKS) into blocks; returns how many. */
size_t sbw_head_blocks(const sbw_head *h, sbw_head_block *blocks);

/* softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|), and its inverse
 * log(e^y - 1) = y + log(-expm1(-y)) for y > 0 (both without overflow). */
double sbw_head_softplus(double x);
double sbw_head_softplus_inv(double y);

/* sigma(x) = 1 / (1 + e^-x), evaluated without overflow. */
double sbw_head_sigmoid(double x);

/* The head's constrained pointwise parameters from theta: LMS u, v (K, as
 * softplus of the raw), c (K), lambda; PLIF slopes s (knots) = softplus of
 * the raw, cum (knots) = delta * prefix sums.  Arrays sized by the head
 * (u, v, c: k; s, cum: knots); unused ones may be NULL. */
void sbw_head_map_params(const sbw_head *h, const double *theta, double *u, double *v, double *c,
                         double *lambda, double *s, double *cum);

/* The PLIF prefix sums of sbw_head_map_params from the slopes s (knots):
 * cum[i] = delta (s_0 + ... + s_{i-1}), delta = 2T/knots (cum[0] = 0), so
 * a caller holding the positive slopes (a saved head's plif_slope.npy)
 * gets the same doubles as one holding theta. */
void sbw_head_plif_cum(const sbw_head *h, const double *s, double *cum);

/* Chains the gradients of the constrained map parameters (gu, gv, gc,
 * glambda for LMS; gsum, gx for PLIF as sbw_head_kern_plif_back leaves
 * them) into grad (nshared: the lms and plif blocks are overwritten), at
 * theta.  Used by sbw_pass and its naive twin alike. */
void sbw_head_map_chain(const sbw_head *h, const double *theta, const double *gu, const double *gv,
                        const double *gc, double glambda, const double *gsum, const double *gx,
                        double *grad);

#endif
