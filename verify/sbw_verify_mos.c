/* sbw_verify_mos.c -- MoS Property 1, Property 2, Proposition 1 and
 * Corollary 1 on generated languages (sbw_synth), with spectra and bounds
 * from analysis/ and fits from models/. */
#include "sbw_verify_mos.h"

#include "sbw_bound.h"
#include "sbw_error.h"
#include "sbw_reduce.h"
#include "sbw_synth.h"
#include "sbw_verify_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define EPS DBL_EPSILON

/* Every helper frees what it allocates; `mats` frees a list at once. */
static void free_mats(sbw_mat *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sbw_mat_free(&m[i]);
}

/* x += scale * N(0,1) entrywise from stream (seed, stream); a no-op at 0. */
static int add_noise(sbw_mat *x, double scale, uint64_t seed, uint64_t stream)
{
    if (scale == 0)
        return SBW_OK;
    sbw_mat e = {0};
    int st = sbw_mat_alloc(&e, x->rows, x->cols);
    st = st ? st : sbw_verify_util_gauss(&e, scale, seed, stream);
    for (size_t i = 0; !st && i < x->rows; i++)
        for (size_t j = 0; j < x->cols; j++)
            SBW_MAT_AT(x, i, j) += SBW_MAT_AT(&e, i, j);
    sbw_mat_free(&e);
    return st;
}

static int lowrank(sbw_mat *a, size_t n, size_t m, size_t r, bool ones, uint64_t seed)
{
    int st = sbw_mat_alloc(a, n, m);
    st = st ? st : sbw_synth_lowrank(a, r, 1.0, ones, seed);
    return st;
}

/* ---- Property 1 ----------------------------------------------------------- */

static const char P1[] = "property1";

/* softmax(A + Lambda J) = softmax(A), compared as log-softmax, A ~ N(0, 25),
 * Lambda ~ N(0, 1e4): the error is rounding of A + lambda_i and of the
 * log-sum-exp, so the tolerance is 8 eps (max |A| + max |lambda| + log M). */
static int p1_shift(const sbw_verify_opts *o, size_t n, size_t m, unsigned i, sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, P1, i);
    sbw_mat mm[5] = {{0}}, *a = &mm[0], *lam = &mm[1], *b = &mm[2], *la = &mm[3], *lb = &mm[4];
    int st = sbw_mat_alloc(a, n, m);
    st = st ? st : sbw_mat_alloc(lam, n, 1);
    st = st ? st : sbw_mat_alloc(b, n, m);
    st = st ? st : sbw_mat_alloc(la, n, m);
    st = st ? st : sbw_mat_alloc(lb, n, m);
    st = st ? st : sbw_verify_util_gauss(a, 5.0, seed, 1);
    st = st ? st : sbw_verify_util_gauss(lam, 100.0, seed, 2);
    for (size_t r = 0; !st && r < n; r++)
        for (size_t j = 0; j < m; j++)
            SBW_MAT_AT(b, r, j) = SBW_MAT_AT(a, r, j) + lam->data[r];
    st = st ? st : add_noise(b, o->perturb, seed, 3);
    double err = 0, tol = 0;
    if (!st) {
        sbw_verify_util_log_softmax(a, la);
        sbw_verify_util_log_softmax(b, lb);
        st = sbw_mat_max_abs_diff(la, lb, &err);
        tol = 8 * EPS * (sbw_verify_util_maxabs(a) + sbw_verify_util_maxabs(lam) + log((double)m)) *
              o->tol_scale;
    }
    st =
        st ? st
           : sbw_verify_add(out, P1, "max |log softmax(A+LJ) - log softmax(A)|", err, SBW_VERIFY_LE,
                            tol, "A %zux%zu ~ N(0,5^2), Lambda ~ N(0,100^2), seed=%llu", n, m,
                            (unsigned long long)seed);
    free_mats(mm, 5);
    return st;
}

/* Converse, exact: A'' = the truncated-SVD logits at d = d* (softmax(A'') =
 * P* to rounding).  A'' - A = -rowmean 1^T + (A_c V V^T - A_c), whose
 * second term is rounding of the projection: 64 eps sigma_0. */
static int p1_construct(const sbw_verify_opts *o, size_t n, size_t m, size_t r, unsigned i,
                        sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, P1, i);
    sbw_mat a = {0}, lg = {0};
    size_t k = n < m ? n : m;
    double *sc = malloc(k * sizeof *sc);
    int st = sc ? lowrank(&a, n, m, r, false, seed) : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : sbw_verify_util_truncate(&a, r, &lg, sc);
    st = st ? st : add_noise(&lg, o->perturb, seed, 3);
    if (!st) {
        double spread = sbw_verify_util_row_spread(&lg, &a);
        st = sbw_verify_add(out, P1, "max row spread of A'' - A", spread, SBW_VERIFY_LE,
                            64 * EPS * sc[0] * o->tol_scale,
                            "A'' = truncated SVD at d = d* = %zu; lowrank %zux%zu R=%zu, seed=%llu",
                            r, n, m, r, (unsigned long long)seed);
    }
    sbw_mat_free(&a);
    sbw_mat_free(&lg);
    free(sc);
    return st;
}

/* Converse, fitted: a Softmax fit at d = d* converges to P*; its logits
 * (log Q up to each row's log Z) minus A is a row constant to the fit's
 * accuracy, 1e-3. */
static int p1_fit(const sbw_verify_opts *o, size_t n, size_t m, size_t r, unsigned i,
                  sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, P1, i);
    sbw_mat a = {0}, lq = {0};
    sbw_target t = {0};
    sbw_fit *f = NULL;
    double kl = NAN;
    sbw_verify_util_fit_args fa = {.model = SBW_MODEL_SOFTMAX,
                                   .d = r,
                                   .steps = 500,
                                   .fit_steps = o->fit_steps,
                                   .seed = seed,
                                   .threads = o->threads};
    int st = lowrank(&a, n, m, r, false, seed);
    st = st ? st : sbw_verify_util_fit(&a, &fa, &t, &f, &lq, &kl);
    st = st ? st : add_noise(&lq, o->perturb, seed, 3);
    st =
        st ? st
           : sbw_verify_add(out, P1, "max row spread of A'' - A",
                            sbw_verify_util_row_spread(&lq, &a), SBW_VERIFY_LE, 1e-3 * o->tol_scale,
                            "A'' = softmax fit at d = d* = %zu (L-BFGS, KL %.2g); lowrank %zux%zu, "
                            "seed=%llu",
                            r, kl, n, m, (unsigned long long)seed);
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    sbw_mat_free(&lq);
    return st;
}

int sbw_verify_mos_property1(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = p1_shift(o, 50, 20, 0, out);
    st = st ? st : p1_shift(o, 200, 100, 1, out);
    if (o->full)
        st = st ? st : p1_shift(o, 1000, 500, 2, out);
    st = st ? st : p1_construct(o, 60, 30, 4, 3, out);
    st = st ? st : p1_construct(o, 100, 50, 8, 4, out);
    if (o->full)
        st = st ? st : p1_construct(o, 500, 200, 20, 5, out);
    st = st ? st : p1_fit(o, 60, 30, 4, 6, out);
    if (o->full)
        st = st ? st : p1_fit(o, 150, 60, 6, 7, out);
    return st;
}

/* ---- Property 2 ----------------------------------------------------------- */

static const char P2[] = "property2";

typedef struct p2_ctx {
    const sbw_verify_opts *o;
    const sbw_mat *a; /* the language A */
    sbw_mat work, g, u, v;
    void *rank_ws; /* sbw_verify_util_rank_work's, for A's shape */
    size_t rank_bytes;
    uint64_t seed;
} p2_ctx;

/* rank of A + Lambda J with Lambda = -centre rowmean(A) + shift g_col (g's
 * column col), plus perturb u v^T (u's column col) when broken.  The
 * centring is sbw_reduce_centre_rows's two passes: a row mean
 * rounded to one double leaves a row constant of eps |A| per row, whose
 * rank-one term is near the NR threshold of the centred matrix. */
static int p2_rank(p2_ctx *c, double centre, double shift, size_t col, bool broken, size_t *rank)
{
    const sbw_mat *a = c->a;
    int st = sbw_mat_copy(&c->work, a);
    if (!st && centre != 0)
        sbw_reduce_centre_rows(&c->work);
    for (size_t i = 0; !st && i < a->rows; i++) {
        double lam = shift * SBW_MAT_AT(&c->g, i, col);
        double uu = broken ? c->o->perturb * SBW_MAT_AT(&c->u, i, col) : 0;
        for (size_t j = 0; j < a->cols; j++)
            SBW_MAT_AT(&c->work, i, j) += lam + uu * SBW_MAT_AT(&c->v, col, j);
    }
    return st ? st
              : sbw_verify_util_rank_work(&c->work, EPS, c->o->tol_scale, false, c->rank_ws,
                                          c->rank_bytes, rank);
}

/* Many random members of F(A): each pair (A1, A2) has Lambda_k = -c_k
 * rowmean + s_k g with c_k, s_k in {0, 1} (pair 0: A_c against a random
 * shift of A); the largest |rank(A1) - rank(A2)|. */
static int p2_pairs(p2_ctx *c, size_t pairs, size_t *worst)
{
    *worst = 0;
    int st = SBW_OK;
    for (size_t t = 0; t < pairs && !st; t++) {
        unsigned bits =
            t == 0 ? 0x1u | 0x8u : (unsigned)(sbw_verify_seed(c->o, P2, (unsigned)t) & 15u);
        size_t r1 = 0, r2 = 0;
        st = p2_rank(c, bits & 1u ? 1.0 : 0.0, bits & 2u ? 1.0 : 0.0, 2 * t, false, &r1);
        st = st ? st
                : p2_rank(c, bits & 4u ? 1.0 : 0.0, bits & 8u ? 1.0 : 0.0, 2 * t + 1, true, &r2);
        size_t d = r1 > r2 ? r1 - r2 : r2 - r1;
        *worst = d > *worst ? d : *worst;
    }
    return st;
}

static int p2_setting(const sbw_verify_opts *o, size_t n, size_t m, size_t r, size_t pairs,
                      unsigned i, sbw_verify_list *out)
{
    p2_ctx c = {.o = o, .seed = sbw_verify_seed(o, P2, 1000 + i)};
    sbw_mat a = {0};
    int st = lowrank(&a, n, m, r, false, c.seed);
    st = st ? st : sbw_mat_alloc(&c.work, n, m);
    st = st ? st : sbw_mat_alloc(&c.g, n, 2 * pairs);
    st = st ? st : sbw_mat_alloc(&c.u, n, 2 * pairs);
    st = st ? st : sbw_mat_alloc(&c.v, 2 * pairs, m);
    st = st ? st : sbw_verify_util_gauss(&c.g, 3.0, c.seed, 1);
    st = st ? st : sbw_verify_util_gauss(&c.u, 1.0, c.seed, 2);
    st = st ? st : sbw_verify_util_gauss(&c.v, 1.0, c.seed, 3);
    st = st ? st : sbw_verify_util_rank_work_size(n, m, &c.rank_bytes);
    if (!st && !(c.rank_ws = malloc(c.rank_bytes)))
        st = SBW_ERROR(SBW_ENOMEM, "%s: no memory for %zu bytes", P2, c.rank_bytes);
    c.a = &a;
    size_t worst = 0, r_c = 0, r_cs = 0, r_a = 0, r_ac = 0;
    st = st ? st : p2_pairs(&c, pairs, &worst);
    /* +1: A_c (ones orthogonal to its rows) and a random shift of it */
    st = st ? st : p2_rank(&c, 1, 0, 0, false, &r_c);
    st = st ? st : p2_rank(&c, 1, 1, 0, true, &r_cs);
    /* -1: A (ones in its row space) and its shift by -rowmean, A_c */
    st = st ? st : p2_rank(&c, 0, 0, 1, false, &r_a);
    st = st ? st : p2_rank(&c, 1, 0, 1, true, &r_ac);
    unsigned long long sd = (unsigned long long)c.seed;
    st = st ? st
            : sbw_verify_add(out, P2, "max |rank(A1) - rank(A2)|", (double)worst, SBW_VERIFY_LE, 1,
                             "%zu random pairs in F(A), lowrank %zux%zu R=%zu, seed=%llu", pairs, n,
                             m, r, sd);
    st = st ? st
            : sbw_verify_add(out, P2, "rank(A_c + LJ) - rank(A_c)", (double)r_cs - (double)r_c,
                             SBW_VERIFY_EQ, 1,
                             "ones not in the row space of A_c: +1 (ranks %zu, %zu), seed=%llu",
                             r_c, r_cs, sd);
    st = st ? st
            : sbw_verify_add(
                  out, P2, "rank(A - mean J) - rank(A)", (double)r_ac - (double)r_a, SBW_VERIFY_EQ,
                  -1, "ones in the row space of A: -1 (ranks %zu, %zu), seed=%llu", r_a, r_ac, sd);
    sbw_mat mm[5] = {a, c.work, c.g, c.u, c.v};
    free_mats(mm, 5);
    free(c.rank_ws);
    return st;
}

int sbw_verify_mos_property2(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = p2_setting(o, 60, 40, 5, o->full ? 100 : 20, 0, out);
    st = st ? st : p2_setting(o, 80, 50, 12, o->full ? 100 : 20, 1, out);
    if (o->full)
        st = st ? st : p2_setting(o, 300, 200, 30, 50, 2, out);
    return st;
}

/* ---- Lemma 1 / Proposition 1 ---------------------------------------------- */

static const char PR1[] = "proposition1";

/* The construction at d: max |A - log softmax(logits)| and the spectrum of
 * A_c (k values). */
static int construct_err(const sbw_verify_opts *o, const sbw_mat *a, size_t d, uint64_t seed,
                         double *err, double *sc)
{
    sbw_mat lg = {0};
    int st = sbw_verify_util_truncate(a, d, &lg, sc);
    st = st ? st : add_noise(&lg, o->perturb, seed, 3);
    if (!st) {
        sbw_verify_util_log_softmax(&lg, &lg);
        st = sbw_mat_max_abs_diff(&lg, a, err);
    }
    sbw_mat_free(&lg);
    return st;
}

/* The construction's tolerance: rounding of the projection (64 eps
 * sigma_0) and of the log-softmax (8 eps max|A|). */
static double construct_tol(const sbw_verify_opts *o, const sbw_mat *a, double s0)
{
    return (64 * EPS * s0 + 8 * EPS * sbw_verify_util_maxabs(a)) * o->tol_scale;
}

/* A fit at d: the Frobenius error ||A - log Q||_F and the KL. */
static int fit_err(const sbw_verify_opts *o, const sbw_mat *a, size_t d, size_t steps,
                   uint64_t seed, double *err, double *kl)
{
    sbw_mat lq = {0};
    sbw_target t = {0};
    sbw_fit *f = NULL;
    sbw_verify_util_fit_args fa = {.model = SBW_MODEL_SOFTMAX,
                                   .d = d,
                                   .steps = steps,
                                   .fit_steps = o->fit_steps,
                                   .seed = seed,
                                   .threads = o->threads};
    int st = sbw_verify_util_fit(a, &fa, &t, &f, &lq, kl);
    if (!st) {
        for (size_t i = 0; i < lq.rows * lq.cols; i++)
            lq.data[i] -= a->data[i];
        *err = sbw_verify_util_frob(&lq);
    }
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_mat_free(&lq);
    return st;
}

static int pr1_below(const sbw_verify_opts *o, const sbw_mat *a, const double *tail, size_t k,
                     size_t d, size_t dstar, double s0, uint64_t seed, sbw_verify_list *out)
{
    double bound = sbw_bound_shift(tail, k, d), err = NAN, kl = NAN;
    int st = sbw_verify_add(out, PR1, "shift-aware bound at d < d*", bound, SBW_VERIFY_GT,
                            1e3 * EPS * s0 * o->tol_scale, "d = %zu, d* = %zu, seed=%llu", d, dstar,
                            (unsigned long long)seed);
    if (!o->full && d + 1 < dstar)
        return st; /* quick: the bound at every d < d*, a fit at d* - 1 */
    st = st ? st : fit_err(o, a, d, 300, seed, &err, &kl);
    st = st ? st
            : sbw_verify_add(out, PR1, "fit ||A - log Q||_F vs bound", err, SBW_VERIFY_GE,
                             bound * (1 + o->bound_shift),
                             "softmax fit at d = %zu < d* (L-BFGS, KL %.3g), seed=%llu", d, kl,
                             (unsigned long long)seed);
    return st;
}

static int pr1_setting(const sbw_verify_opts *o, size_t n, size_t m, size_t r, unsigned i,
                       sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, PR1, i);
    size_t k = n < m ? n : m, dstar = 0;
    sbw_mat a = {0}, ac = {0};
    double *sc = malloc(k * sizeof *sc), *tail = malloc((k + 1) * sizeof *tail);
    double err = NAN, kl = NAN, ferr = NAN;
    int st = sc && tail ? lowrank(&a, n, m, r, false, seed) : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : sbw_mat_alloc(&ac, n, m);
    st = st ? st : sbw_mat_copy(&ac, &a);
    if (!st)
        sbw_reduce_centre_rows(&ac);
    st = st ? st : sbw_verify_util_rank(&ac, EPS, o->tol_scale, &dstar);
    st = st ? st
            : sbw_verify_add(out, PR1, "d* = NR rank(A_c)", (double)dstar, SBW_VERIFY_EQ, (double)r,
                             "lowrank %zux%zu R=%zu (d* = R), seed=%llu", n, m, r,
                             (unsigned long long)seed);
    st = st ? st : construct_err(o, &a, r, seed, &err, sc);
    st =
        st ? st
           : sbw_verify_add(out, PR1, "construction max |log P - log Q|", err, SBW_VERIFY_LE,
                            construct_tol(o, &a, sc[0]), "truncated SVD at d = d* = %zu, seed=%llu",
                            r, (unsigned long long)seed);
    if (!st)
        sbw_bound_tails(sc, k, tail);
    for (size_t d = 1; !st && d < r; d++)
        st = pr1_below(o, &a, tail, k, d, r, sc[0], seed, out);
    st = st ? st : fit_err(o, &a, r, 500, seed, &ferr, &kl);
    st = st ? st
            : sbw_verify_add(out, PR1, "fit KL at d = d*", kl, SBW_VERIFY_LE, 1e-8 * o->tol_scale,
                             "softmax fit at d = %zu (L-BFGS%s), seed=%llu", r,
                             o->fit_steps ? ", steps capped" : "", (unsigned long long)seed);
    sbw_mat_free(&a);
    sbw_mat_free(&ac);
    free(sc);
    free(tail);
    return st;
}

int sbw_verify_mos_proposition1(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = pr1_setting(o, 64, 24, 3, 0, out);
    st = st ? st : pr1_setting(o, 100, 40, 6, 1, out);
    if (o->full)
        st = st ? st : pr1_setting(o, 300, 100, 10, 2, out);
    return st;
}

/* ---- Corollary 1 ---------------------------------------------------------- */

static const char C1[] = "corollary1";

/* NR ranks of A and of A_c. */
static int ranks(const sbw_verify_opts *o, const sbw_mat *a, size_t *ra, size_t *dstar)
{
    sbw_mat ac = {0};
    int st = sbw_verify_util_rank(a, EPS, o->tol_scale, ra);
    st = st ? st : sbw_mat_alloc(&ac, a->rows, a->cols);
    st = st ? st : sbw_mat_copy(&ac, a);
    if (!st)
        sbw_reduce_centre_rows(&ac);
    st = st ? st : sbw_verify_util_rank(&ac, EPS, o->tol_scale, dstar);
    sbw_mat_free(&ac);
    return st;
}

/* A Softmax-generated language: rank(A) = d* + 1, the construction at
 * d = rank(A) - 1 exact, the bound at rank(A) - 2 positive. */
static int c1_softmax(const sbw_verify_opts *o, size_t n, size_t m, size_t r, bool ones, unsigned i,
                      sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, C1, i);
    unsigned long long sd = (unsigned long long)seed;
    size_t k = n < m ? n : m, ra = 0, dstar = 0;
    sbw_mat a = {0};
    double *sc = malloc(k * sizeof *sc), *tail = malloc((k + 1) * sizeof *tail), err = NAN;
    int st = sc && tail ? lowrank(&a, n, m, r, ones, seed) : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : ranks(o, &a, &ra, &dstar);
    st = st ? st
            : sbw_verify_add(out, C1, "rank(A) - d*", (double)ra - (double)dstar, SBW_VERIFY_EQ,
                             1.0 + (double)o->offset,
                             "softmax language (lowrank %zux%zu R=%zu%s): ranks %zu, %zu, "
                             "seed=%llu",
                             n, m, r, ones ? " with ones" : "", ra, dstar, sd);
    st = st ? st : construct_err(o, &a, ra - 1, seed, &err, sc);
    st = st ? st
            : sbw_verify_add(out, C1, "construction at d = rank(A)-1: max err", err, SBW_VERIFY_LE,
                             construct_tol(o, &a, sc[0]), "d = %zu is exact (tight), seed=%llu",
                             ra - 1, sd);
    if (!st && ra >= 2) {
        sbw_bound_tails(sc, k, tail);
        st = sbw_verify_add(out, C1, "shift-aware bound at d = rank(A)-2",
                            sbw_bound_shift(tail, k, ra - 2), SBW_VERIFY_GT,
                            1e3 * EPS * sc[0] * o->tol_scale,
                            "d = %zu < rank(A) - 1 is inexact, seed=%llu", ra - 2, sd);
    }
    sbw_mat_free(&a);
    free(sc);
    free(tail);
    return st;
}

/* A wide Dirichlet language (N < M): rank(A) = d* = N, so d = rank(A) - 1,
 * which the corollary does not exclude, is still inexact. */
static int c1_wide(const sbw_verify_opts *o, size_t n, size_t m, unsigned i, sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, C1, i);
    unsigned long long sd = (unsigned long long)seed;
    size_t ra = 0, dstar = 0;
    sbw_mat a = {0}, lg = {0};
    double *sc = malloc(n * sizeof *sc), *tail = malloc((n + 1) * sizeof *tail);
    int st = sc && tail ? sbw_mat_alloc(&a, n, m) : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : sbw_synth_dirichlet(&a, 1.0, seed);
    st = st ? st : ranks(o, &a, &ra, &dstar);
    st = st ? st
            : sbw_verify_add(out, C1, "rank(A) - d*", (double)ra - (double)dstar, SBW_VERIFY_EQ,
                             0.0 + (double)o->offset,
                             "wide dirichlet %zux%zu alpha=1: rank(A) = %zu, d* = %zu (N = %zu): "
                             "not tight, seed=%llu",
                             n, m, ra, dstar, n, sd);
    st = st ? st : sbw_verify_util_truncate(&a, 0, &lg, sc);
    if (!st) {
        sbw_bound_tails(sc, n, tail);
        st = sbw_verify_add(
            out, C1, "shift-aware bound at d = rank(A)-1", sbw_bound_shift(tail, n, ra - 1),
            SBW_VERIFY_GT, 1e3 * EPS * sc[0] * o->tol_scale,
            "d = %zu is not excluded by the corollary yet inexact, seed=%llu", ra - 1, sd);
    }
    sbw_mat_free(&a);
    sbw_mat_free(&lg);
    free(sc);
    free(tail);
    return st;
}

int sbw_verify_mos_corollary1(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = c1_softmax(o, 60, 30, 4, false, 0, out);
    st = st ? st : c1_softmax(o, 60, 30, 5, true, 1, out);
    if (o->full)
        st = st ? st : c1_softmax(o, 400, 150, 20, false, 2, out);
    st = st ? st : c1_wide(o, 20, 50, 3, out);
    if (o->full)
        st = st ? st : c1_wide(o, 100, 300, 4, out);
    return st;
}
