/* sbw_synth.c -- generators of synthetic languages (see sbw_synth.h). */
#include "sbw_synth.h"

#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_synth_kern.h"

#include "sbw_synth_blas.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Stream indices of the shared parameters, far above any row group. */
#define STREAM_SHARED   UINT64_MAX
#define STREAM_TOPIC(t) (UINT64_MAX - 1 - (uint64_t)(t))

/* Per-thread scratch. */
typedef struct synth_ws {
    gsl_rng *rng;
    double *u;      /* M uniforms (dirichlet), M sums (topics) */
    double *h;      /* lowrank: group_rows x R Gaussians */
    double *logits; /* lowrank: group_rows x M */
    double *logw;   /* topics: K log mixture weights; K uniforms after */
} synth_ws;

struct sbw_synth {
    sbw_synth_params p;
    double *alpha_vec; /* owned copy, or NULL */
    double *inv_alpha; /* asymmetric: 1/a_j when a_j < 1, else 0 */
    sbw_mat shared;    /* lowrank W (M x R); topics log phi (K x M); zipf 1 x M */
    size_t group_rows;
    int nws;
    synth_ws *ws;
};

/* ---- parameters ---------------------------------------------------------- */

void sbw_synth_params_init(sbw_synth_params *p, sbw_synth_kind kind, size_t n, size_t m)
{
    *p = (sbw_synth_params){.kind = kind,
                            .n = n,
                            .m = m,
                            .seed = SBW_RNG_DEFAULT_SEED,
                            .alpha = 0.1,
                            .rank = 10,
                            .scale = 1.0,
                            .exponent = 1.0,
                            .sigma = 1.0,
                            .k = 10,
                            .mix_alpha = 1.0};
}

const char *sbw_synth_kind_name(sbw_synth_kind kind)
{
    static const char *const names[] = {"dirichlet", "lowrank", "zipf", "topics"};
    return (unsigned)kind < 4 ? names[kind] : "unknown";
}

static int check_alpha(double a, const char *what)
{
    if (!(a >= SBW_SYNTH_ALPHA_MIN && a <= SBW_SYNTH_ALPHA_MAX))
        return SBW_ERROR(SBW_EINVAL, "%s must be a finite number in [%g, %g], got %g", what,
                         SBW_SYNTH_ALPHA_MIN, SBW_SYNTH_ALPHA_MAX, a);
    return SBW_OK;
}

static int check_kind(const sbw_synth_params *p)
{
    size_t lim = p->n < p->m ? p->n : p->m;
    switch (p->kind) {
    case SBW_SYNTH_DIRICHLET:
        if (!p->alpha_vec)
            return check_alpha(p->alpha, "alpha");
        for (size_t j = 0; j < p->m; j++)
            if (check_alpha(p->alpha_vec[j], "alpha"))
                return SBW_ERROR(SBW_EINVAL,
                                 "alpha[%zu] must be a finite number in [%g, %g], got %g", j,
                                 SBW_SYNTH_ALPHA_MIN, SBW_SYNTH_ALPHA_MAX, p->alpha_vec[j]);
        return SBW_OK;
    case SBW_SYNTH_LOWRANK:
        if (p->rank < 1 || p->rank > lim)
            return SBW_ERROR(SBW_EINVAL, "rank must be in [1, min(n, m) = %zu], got %zu", lim,
                             p->rank);
        if (!(p->scale > 0 && isfinite(p->scale)))
            return SBW_ERROR(SBW_EINVAL, "scale must be finite and > 0, got %g", p->scale);
        return SBW_OK;
    case SBW_SYNTH_ZIPF:
        if (!(p->exponent >= 0 && isfinite(p->exponent)))
            return SBW_ERROR(SBW_EINVAL, "exponent must be finite and >= 0, got %g", p->exponent);
        if (!(p->sigma >= 0 && isfinite(p->sigma)))
            return SBW_ERROR(SBW_EINVAL, "sigma must be finite and >= 0, got %g", p->sigma);
        return SBW_OK;
    case SBW_SYNTH_TOPICS:
        if (p->k < 1 || p->k > 100000)
            return SBW_ERROR(SBW_EINVAL, "k must be in [1, 100000], got %zu", p->k);
        int st = check_alpha(p->alpha, "alpha");
        return st ? st : check_alpha(p->mix_alpha, "mix-alpha");
    }
    return SBW_ERROR(SBW_EINVAL, "unknown kind of language %d", (int)p->kind);
}

int sbw_synth_check(const sbw_synth_params *p)
{
    size_t bytes;
    if (p->n < 1 || p->m < 1)
        return SBW_ERROR(SBW_EINVAL, "n and m must be >= 1, got n = %zu, m = %zu", p->n, p->m);
    if (sbw_mat_bytes(p->n, p->m, sizeof(double), &bytes))
        return SBW_ERROR(SBW_EINVAL, "n x m = %zu x %zu doubles overflows the address space", p->n,
                         p->m);
    return check_kind(p);
}

void sbw_synth_lowrank_ranks(size_t n, size_t m, size_t rank, bool with_ones, size_t *rank_a,
                             size_t *d_star)
{
    size_t ra = with_ones ? rank : rank + 1, ds = with_ones ? rank - 1 : rank;
    ra = ra < n ? ra : n;
    ra = ra < m ? ra : m;
    ds = ds < n ? ds : n;
    ds = ds < m - 1 ? ds : m - 1;
    if (m == 1)
        ra = ds = 0;
    *rank_a = ra;
    *d_star = ds;
}

/* ---- sampling ------------------------------------------------------------ */

/* x (n) = log of n independent Gamma(alpha, 1) variates, each drawn as GSL's
 * gsl_ran_gamma draws it (for alpha < 1: U first, then X ~ Gamma(alpha+1),
 * G = X U^(1/alpha)), but with the product taken in log space so that it
 * never underflows.  u is scratch for n doubles. */
static void log_gamma_sym(gsl_rng *r, double alpha, double *x, double *u, size_t n)
{
    if (alpha < 1.0) {
        double a1 = alpha + 1.0;
        for (size_t j = 0; j < n; j++) {
            u[j] = gsl_rng_uniform_pos(r);
            x[j] = gsl_ran_gamma(r, a1, 1.0);
        }
        sbw_synth_kern_log_boost(x, u, 1.0 / alpha, n);
    } else {
        for (size_t j = 0; j < n; j++)
            x[j] = gsl_ran_gamma(r, alpha, 1.0);
        sbw_synth_kern_log(x, n);
    }
}

/* The same with one alpha_j per entry; inv_a_j = 1/a_j for a_j < 1, else 0. */
static void log_gamma_vec(gsl_rng *r, const double *alpha, const double *inv_a, double *x,
                          double *u, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (alpha[j] < 1.0) {
            u[j] = gsl_rng_uniform_pos(r);
            x[j] = gsl_ran_gamma(r, alpha[j] + 1.0, 1.0);
        } else {
            u[j] = 1.0;
            x[j] = gsl_ran_gamma(r, alpha[j], 1.0);
        }
    }
    sbw_synth_kern_log_boost_vec(x, u, inv_a, n);
}

/* One Dirichlet row x (M) in log space. */
static void row_dirichlet(const sbw_synth *g, synth_ws *w, double *x)
{
    size_t m = g->p.m;
    if (g->alpha_vec)
        log_gamma_vec(w->rng, g->alpha_vec, g->inv_alpha, x, w->u, m);
    else
        log_gamma_sym(w->rng, g->p.alpha, x, w->u, m);
    sbw_synth_kern_normalise(x, m);
}

/* One zipf row: log unigram + sigma z, normalised. */
static void row_zipf(const sbw_synth *g, synth_ws *w, double *x)
{
    const double *lu = g->shared.data, sigma = g->p.sigma;
    for (size_t j = 0; j < g->p.m; j++)
        x[j] = lu[j] + (sigma > 0 ? sigma * gsl_ran_gaussian_ziggurat(w->rng, 1.0) : 0.0);
    sbw_synth_kern_normalise(x, g->p.m);
}

/* One topics row: log theta ~ log Dirichlet_K(mix_alpha), then the mixture
 * of the K topics in log space, renormalised (it sums to 1 up to rounding). */
static void row_topics(const sbw_synth *g, synth_ws *w, double *x)
{
    size_t k = g->p.k, m = g->p.m;
    log_gamma_sym(w->rng, g->p.mix_alpha, w->logw, w->logw + k, k);
    sbw_synth_kern_normalise(w->logw, k);
    sbw_synth_kern_mix(w->logw, g->shared.data, k, m, g->shared.ld, x, w->u);
    sbw_synth_kern_normalise(x, m);
}

/* Rows of one lowrank group: H (nr x R) Gaussian, logits = s H W^T / sqrt(R)
 * computed for a full group_rows x R panel (rows past nr zero) so that every
 * row goes through the same dgemm shape wherever the group ends. */
static void group_lowrank(const sbw_synth *g, synth_ws *w, size_t nr, double *x, size_t ld)
{
    size_t r = g->p.rank, m = g->p.m, gr = g->group_rows;
    for (size_t i = 0; i < gr * r; i++)
        w->h[i] = i < nr * r ? gsl_ran_gaussian_ziggurat(w->rng, 1.0) : 0.0;
    double s = g->p.scale / sqrt((double)r);
    sbw_synth_blas_logits(gr, m, r, s, w->h, g->shared.data, g->shared.ld, w->logits, m);
    for (size_t i = 0; i < nr; i++) {
        memcpy(x + i * ld, w->logits + i * m, m * sizeof(double));
        sbw_synth_kern_normalise(x + i * ld, m);
    }
}

/* Rows [0, nr) of a group, drawn in order from the group's stream. */
static void fill_group(const sbw_synth *g, synth_ws *w, size_t nr, double *x, size_t ld)
{
    switch (g->p.kind) {
    case SBW_SYNTH_LOWRANK:
        group_lowrank(g, w, nr, x, ld);
        return;
    case SBW_SYNTH_DIRICHLET:
        for (size_t i = 0; i < nr; i++)
            row_dirichlet(g, w, x + i * ld);
        return;
    case SBW_SYNTH_ZIPF:
        for (size_t i = 0; i < nr; i++)
            row_zipf(g, w, x + i * ld);
        return;
    case SBW_SYNTH_TOPICS:
        for (size_t i = 0; i < nr; i++)
            row_topics(g, w, x + i * ld);
        return;
    }
}

/* ---- shared parameters ---------------------------------------------------- */

/* lowrank: W (M x R) standard Gaussian from the shared stream; with ones,
 * its last column is 1. */
static int shared_lowrank(sbw_synth *g, gsl_rng *r)
{
    size_t m = g->p.m, k = g->p.rank;
    int st = sbw_mat_alloc(&g->shared, m, k);
    if (st)
        return st;
    for (size_t i = 0; i < m * k; i++)
        g->shared.data[i] = gsl_ran_gaussian_ziggurat(r, 1.0);
    if (g->p.with_ones)
        for (size_t i = 0; i < m; i++)
            g->shared.data[i * k + k - 1] = 1.0;
    return SBW_OK;
}

/* topics: log phi_t ~ log Dirichlet_M(alpha), topic t from its own stream. */
static int shared_topics(sbw_synth *g, gsl_rng *r)
{
    size_t m = g->p.m, k = g->p.k;
    double *u = malloc(m * sizeof *u);
    if (!u)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = sbw_mat_alloc(&g->shared, k, m);
    for (size_t t = 0; !st && t < k; t++) {
        double *row = g->shared.data + t * m;
        sbw_rng_reseed(r, g->p.seed, STREAM_TOPIC(t));
        log_gamma_sym(r, g->p.alpha, row, u, m);
        sbw_synth_kern_normalise(row, m);
    }
    free(u);
    return st;
}

/* zipf: log unigram -s log(j + 1) (unnormalised; rows are normalised). */
static int shared_zipf(sbw_synth *g)
{
    int st = sbw_mat_alloc(&g->shared, 1, g->p.m);
    for (size_t j = 0; !st && j < g->p.m; j++)
        g->shared.data[j] = -g->p.exponent * log((double)(j + 1));
    return st;
}

/* dirichlet with alpha_vec: a copy and the reciprocals of the small ones. */
static int shared_alpha(sbw_synth *g)
{
    size_t m = g->p.m;
    g->alpha_vec = malloc(m * sizeof(double));
    g->inv_alpha = malloc(m * sizeof(double));
    if (!g->alpha_vec || !g->inv_alpha)
        return SBW_ERROR(SBW_ENOMEM, "out of memory for %zu concentrations", m);
    memcpy(g->alpha_vec, g->p.alpha_vec, m * sizeof(double));
    for (size_t j = 0; j < m; j++)
        g->inv_alpha[j] = g->alpha_vec[j] < 1.0 ? 1.0 / g->alpha_vec[j] : 0.0;
    g->p.alpha_vec = g->alpha_vec;
    return SBW_OK;
}

static int make_shared(sbw_synth *g)
{
    if (g->p.kind == SBW_SYNTH_ZIPF)
        return shared_zipf(g);
    if (g->p.kind == SBW_SYNTH_DIRICHLET)
        return g->p.alpha_vec ? shared_alpha(g) : SBW_OK;
    gsl_rng *r;
    int st = sbw_rng_alloc(&r, g->p.seed, STREAM_SHARED);
    if (st)
        return st;
    st = g->p.kind == SBW_SYNTH_LOWRANK ? shared_lowrank(g, r) : shared_topics(g, r);
    sbw_rng_free(r);
    return st;
}

/* ---- generator ----------------------------------------------------------- */

static int ws_alloc(synth_ws *w, const sbw_synth *g)
{
    size_t m = g->p.m, gr = g->group_rows;
    int st = sbw_rng_alloc(&w->rng, g->p.seed, 0);
    if (st)
        return st;
    w->u = malloc(m * sizeof(double));
    bool ok = w->u != NULL;
    if (g->p.kind == SBW_SYNTH_LOWRANK) {
        w->h = malloc(gr * g->p.rank * sizeof(double));
        w->logits = malloc(gr * m * sizeof(double));
        ok = ok && w->h && w->logits;
    }
    if (g->p.kind == SBW_SYNTH_TOPICS) {
        w->logw = malloc(2 * g->p.k * sizeof(double));
        ok = ok && w->logw;
    }
    return ok ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory for the workspaces");
}

static void ws_free(synth_ws *w)
{
    sbw_rng_free(w->rng);
    free(w->u);
    free(w->h);
    free(w->logits);
    free(w->logw);
}

int sbw_synth_alloc(sbw_synth **out, const sbw_synth_params *p)
{
    *out = NULL;
    int st = sbw_synth_check(p);
    if (st)
        return st;
    sbw_synth *g = calloc(1, sizeof *g);
    if (!g)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    g->p = *p;
    g->p.alpha_vec = NULL;
    if (p->kind == SBW_SYNTH_DIRICHLET)
        g->p.alpha_vec = p->alpha_vec;
    size_t gr = SBW_SYNTH_GROUP_ENTRIES / p->m;
    if (p->kind == SBW_SYNTH_LOWRANK && gr < SBW_SYNTH_LOWRANK_GROUP_MIN)
        gr = SBW_SYNTH_LOWRANK_GROUP_MIN;
    g->group_rows = gr ? gr : 1;
    g->nws = omp_get_max_threads();
    g->ws = calloc((size_t)g->nws, sizeof *g->ws);
    st = g->ws ? make_shared(g) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (int t = 0; !st && t < g->nws; t++)
        st = ws_alloc(&g->ws[t], g);
    if (st) {
        sbw_synth_free(g);
        return st;
    }
    *out = g;
    return SBW_OK;
}

void sbw_synth_free(sbw_synth *g)
{
    if (!g)
        return;
    for (int t = 0; g->ws && t < g->nws; t++)
        ws_free(&g->ws[t]);
    free(g->ws);
    free(g->alpha_vec);
    free(g->inv_alpha);
    sbw_mat_free(&g->shared);
    free(g);
}

const sbw_synth_params *sbw_synth_get_params(const sbw_synth *g) { return &g->p; }

size_t sbw_synth_group_rows(const sbw_synth *g) { return g->group_rows; }

int sbw_synth_fill(sbw_synth *g, size_t r0, sbw_mat *block)
{
    size_t gr = g->group_rows, rows = block->rows;
    if (block->cols != g->p.m || block->ld < block->cols)
        return SBW_ERROR(SBW_ESHAPE, "block has %zu columns (ld %zu), the language %zu",
                         block->cols, block->ld, g->p.m);
    if (r0 % gr != 0 || r0 > g->p.n || rows > g->p.n - r0)
        return SBW_ERROR(SBW_EINVAL, "rows [%zu, %zu) are not a group-aligned range of [0, %zu)",
                         r0, r0 + rows, g->p.n);
    size_t ngroups = (rows + gr - 1) / gr;
    double *x = block->data;
    size_t ld = block->ld;
    bool blas = g->p.kind == SBW_SYNTH_LOWRANK;
    int blas_threads = blas ? sbw_synth_blas_serial_begin() : 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(g->nws)
    for (size_t b = 0; b < ngroups; b++) {
        synth_ws *w = &g->ws[omp_get_thread_num()];
        size_t i0 = b * gr, nr = rows - i0 < gr ? rows - i0 : gr;
        sbw_rng_reseed(w->rng, g->p.seed, (r0 + i0) / gr);
        fill_group(g, w, nr, x + i0 * ld, ld);
    }
    if (blas)
        sbw_synth_blas_serial_end(blas_threads);
    return SBW_OK;
}

int sbw_synth_topics_logphi(const sbw_synth *g, sbw_mat *view)
{
    if (g->p.kind != SBW_SYNTH_TOPICS)
        return SBW_ERROR(SBW_EINVAL, "not a topics language");
    *view = sbw_mat_view(g->shared.data, g->shared.rows, g->shared.cols, g->shared.ld);
    return SBW_OK;
}

int sbw_synth_lowrank_w(const sbw_synth *g, sbw_mat *view)
{
    if (g->p.kind != SBW_SYNTH_LOWRANK)
        return SBW_ERROR(SBW_EINVAL, "not a lowrank language");
    *view = sbw_mat_view(g->shared.data, g->shared.rows, g->shared.cols, g->shared.ld);
    return SBW_OK;
}

/* ---- in-memory entry points ----------------------------------------------- */

int sbw_synth_generate(const sbw_synth_params *p, sbw_mat *logp)
{
    sbw_synth_params q = *p;
    q.n = logp->rows;
    q.m = logp->cols;
    sbw_synth *g;
    int st = sbw_synth_alloc(&g, &q);
    if (st)
        return st;
    st = sbw_synth_fill(g, 0, logp);
    sbw_synth_free(g);
    return st;
}

int sbw_synth_dirichlet(sbw_mat *logp, double alpha, uint64_t seed)
{
    sbw_synth_params p;
    sbw_synth_params_init(&p, SBW_SYNTH_DIRICHLET, logp->rows, logp->cols);
    p.alpha = alpha;
    p.seed = seed;
    return sbw_synth_generate(&p, logp);
}

int sbw_synth_lowrank(sbw_mat *logp, size_t rank, double scale, bool with_ones, uint64_t seed)
{
    sbw_synth_params p;
    sbw_synth_params_init(&p, SBW_SYNTH_LOWRANK, logp->rows, logp->cols);
    p.rank = rank;
    p.scale = scale;
    p.with_ones = with_ones;
    p.seed = seed;
    return sbw_synth_generate(&p, logp);
}

int sbw_synth_topics(sbw_mat *logp, size_t k, double alpha, uint64_t seed)
{
    sbw_synth_params p;
    sbw_synth_params_init(&p, SBW_SYNTH_TOPICS, logp->rows, logp->cols);
    p.k = k;
    p.alpha = alpha;
    p.seed = seed;
    return sbw_synth_generate(&p, logp);
}
