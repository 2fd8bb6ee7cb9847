/* sbw_verify_argmax.c -- argmaxable words under monotone maps and
 * mixtures (issue 17): heads with planted interior words (sbw_synth_head), sbw_argmax_run's
 * certificates, sampled and aimed contexts.  See sbw_verify_argmax.h for
 * the construction and the MoS proof. */
#include "sbw_verify_argmax.h"

#include "sbw_argmax.h"
#include "sbw_argmax_cert.h"
#include "sbw_error.h"
#include "sbw_head_kern.h"
#include "sbw_maxprob.h"
#include "sbw_rng.h"
#include "sbw_synth_head.h"

#include <gsl/gsl_randist.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

/* z = W h + b (W (m, d), leading dim d); returns max |z|. */
static double logits(const double *w, size_t m, size_t d, const double *b, const double *h,
                     double *z)
{
    double big = 0;
    for (size_t j = 0; j < m; j++) {
        double s = b ? b[j] : 0;
        for (size_t k = 0; k < d; k++)
            s += w[j * d + k] * h[k];
        z[j] = s;
        big = fmax(big, fabs(s));
    }
    return big;
}

void sbw_verify_argmax_mixture(const double *w, size_t stride, size_t m, size_t d, const double *b,
                               const double *h, const double *pi, size_t nc, double *z, double *p)
{
    for (size_t j = 0; j < m; j++)
        p[j] = 0;
    for (size_t c = 0; c < nc; c++) {
        logits(w + c * stride, m, d, b, h + c * d, z);
        double top = -INFINITY, s = 0;
        for (size_t j = 0; j < m; j++)
            top = fmax(top, z[j]);
        for (size_t j = 0; j < m; j++)
            s += z[j] = exp(z[j] - top);
        for (size_t j = 0; j < m; j++)
            p[j] += pi[c] * z[j] / s;
    }
}

/* The strict argmax of y (m >= 2): true with *a when y_a exceeds every
 * other entry by more than tie. */
static bool strict_top(const double *y, size_t m, double tie, size_t *a)
{
    size_t t = 0;
    for (size_t j = 1; j < m; j++)
        if (y[j] > y[t])
            t = j;
    double second = -INFINITY;
    for (size_t j = 0; j < m; j++)
        if (j != t)
            second = fmax(second, y[j]);
    *a = t;
    return y[t] - second > tie;
}

/* sbw_argmax_run on a whole head with the h certificates (hc: m x d) or
 * the lambda certificates (idx, lam: m x cap; kk: m), any may be NULL. */
static int decide(const sbw_synth_head *h, const size_t *words, size_t nw, sbw_argmax_word *ans,
                  double *hc, size_t *idx, double *lam, size_t *kk, size_t cap, double *scale)
{
    sbw_argmax_opts ao = sbw_argmax_defaults();
    sbw_argmax_certs cs = {.h = hc, .idx = idx, .lambda = lam, .k = kk, .cap = cap};
    sbw_argmax_summary sum = {0};
    int st = sbw_argmax_run(h->w, h->m, h->d, h->d, h->b, words, nw, &ao, ans, &cs, &sum);
    *scale = sum.scale;
    return st;
}

/* ---- monotone maps keep the argmaxable set ------------------------------- */

static const char MONO[] = "argmax-monotone";

#define MAP_UNITS 4
#define MAP_KNOTS 24

/* A random strictly increasing map: LMS (MAP_UNITS sigmoids plus a linear
 * term, so the slope is >= lambda > 0) or PLIF (MAP_KNOTS positive slopes
 * on [-t, t], extended linearly). */
typedef struct mono_map {
    bool plif;
    double u[MAP_UNITS], v[MAP_UNITS], c[MAP_UNITS], lambda;
    double s[MAP_KNOTS], cum[MAP_KNOTS], t;
    double *fp, *sig; /* scratch: m, 2 MAP_UNITS m */
} mono_map;

static void map_draw(gsl_rng *r, mono_map *f)
{
    for (size_t c = 0; c < MAP_UNITS; c++) {
        f->u[c] = 0.5 + 1.5 * gsl_rng_uniform(r);
        f->v[c] = 0.5 + 1.5 * gsl_rng_uniform(r);
        f->c[c] = gsl_ran_gaussian(r, 1.0);
    }
    f->lambda = 0.05;
    f->t = 4;
    double delta = 2 * f->t / MAP_KNOTS;
    for (size_t i = 0; i < MAP_KNOTS; i++) {
        f->s[i] = 0.2 + 1.8 * gsl_rng_uniform(r);
        f->cum[i] = i ? f->cum[i - 1] + delta * f->s[i - 1] : 0;
    }
}

/* y = f(z), and the tie below which two values of y count as equal: the
 * maps are monotone to a few ulps only (sbw_head_kern.h). */
static double map_apply(const mono_map *f, const double *z, double *y, size_t m)
{
    double big = 1, vs = 0;
    if (f->plif)
        sbw_head_kern_plif(z, y, f->fp, m, f->s, f->cum, MAP_KNOTS, f->t);
    else
        sbw_head_kern_lms(z, y, f->fp, f->sig, m, f->u, f->v, f->c, MAP_UNITS, f->lambda);
    for (size_t c = 0; !f->plif && c < MAP_UNITS; c++)
        vs += f->v[c];
    for (size_t j = 0; j < m; j++)
        big = fmax(big, fabs(y[j]));
    return 8 * EPS * (big + vs);
}

typedef struct mono_set {
    bool plif, bias;
    size_t m, d, k, samples;
} mono_set;

/* What one setting counts. */
typedef struct mono_count {
    size_t wrong, cert_bad, samp_bad, reorder, reached, strict;
} mono_count;

/* Work arrays of a setting. */
typedef struct mono_ws {
    sbw_synth_head h;
    sbw_argmax_word *ans;
    double *hc, *z, *y, *hv, *mean;
    bool *reached;
    gsl_rng *r;
    mono_map f;
} mono_ws;

static void mono_ws_free(mono_ws *x)
{
    sbw_synth_head_free(&x->h);
    free(x->ans), free(x->hc), free(x->z), free(x->y), free(x->hv), free(x->mean);
    free(x->reached), free(x->f.fp), free(x->f.sig);
    sbw_rng_free(x->r);
}

static int mono_ws_alloc(mono_ws *x, const mono_set *s, uint64_t seed)
{
    size_t m = s->m, d = s->d;
    int st = sbw_synth_head_plant(&x->h, m, d, s->k, s->bias, seed);
    x->ans = malloc(m * sizeof *x->ans);
    x->hc = calloc(m * d, sizeof *x->hc);
    x->z = malloc(m * sizeof *x->z), x->y = malloc(m * sizeof *x->y);
    x->hv = malloc(d * sizeof *x->hv), x->mean = calloc(d, sizeof *x->mean);
    x->reached = calloc(m, sizeof *x->reached);
    x->f.fp = malloc(m * sizeof *x->f.fp);
    x->f.sig = malloc(m * 2 * MAP_UNITS * sizeof *x->f.sig);
    x->f.plif = s->plif;
    bool ok =
        x->ans && x->hc && x->z && x->y && x->hv && x->mean && x->reached && x->f.fp && x->f.sig;
    st = st ? st : ok ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory for a %zu-word check", m);
    st = st ? st : sbw_rng_alloc(&x->r, seed, 1);
    if (!st)
        map_draw(x->r, &x->f);
    return st;
}

/* f(W h + b) with the sabotage noise; returns the tie. */
static double mono_eval(mono_ws *x, const double *h, double perturb)
{
    logits(x->h.w, x->h.m, x->h.d, x->h.b, h, x->z);
    double tie = map_apply(&x->f, x->z, x->y, x->h.m);
    for (size_t j = 0; perturb != 0 && j < x->h.m; j++)
        x->y[j] += perturb * gsl_ran_gaussian(x->r, 1.0);
    return tie;
}

/* Every argmaxable word's certificate h must put it strictly first under f. */
static void mono_certs(mono_ws *x, double perturb, mono_count *c)
{
    for (size_t j = 0; j < x->h.m; j++) {
        if (x->ans[j].argmaxable != (x->h.planted[j] ? 0 : 1))
            c->wrong++;
        if (x->ans[j].argmaxable != 1)
            continue;
        size_t a = 0;
        double tie = mono_eval(x, x->hc + j * x->h.d, perturb);
        c->cert_bad += !strict_top(x->y, x->h.m, tie, &a) || a != j;
    }
}

/* Context s: Gaussian at a ladder of scales, every fourth one aimed along
 * w_p - mean(w) at a planted word p. */
static void mono_context(mono_ws *x, size_t s, double *h)
{
    static const double ladder[] = {0.3, 1, 3, 10, 30};
    size_t d = x->h.d, np = 0, want = (s / 4) % (x->h.k ? x->h.k : 1), p = 0;
    double sc = ladder[s % 5];
    for (size_t k = 0; k < d; k++)
        h[k] = sc * gsl_ran_gaussian(x->r, 1.0);
    if (s % 4 != 3 || !x->h.k)
        return;
    for (size_t j = 0; j < x->h.m; j++)
        if (x->h.planted[j] && np++ == want)
            p = j;
    for (size_t k = 0; k < d; k++)
        h[k] = sc * (x->h.w[p * d + k] - x->mean[k]) + 0.05 * h[k];
}

static void mono_samples(mono_ws *x, size_t n, double perturb, mono_count *c)
{
    size_t m = x->h.m, d = x->h.d;
    for (size_t j = 0; j < m; j++)
        for (size_t k = 0; k < d; k++)
            x->mean[k] += x->h.w[j * d + k] / (double)m;
    for (size_t s = 0; s < n; s++) {
        size_t a = 0, az = 0;
        mono_context(x, s, x->hv);
        double tie = mono_eval(x, x->hv, perturb);
        if (!strict_top(x->y, m, tie, &a))
            continue;
        c->strict++;
        c->reached += !x->reached[a];
        x->reached[a] = true;
        c->samp_bad += x->ans[a].argmaxable != 1;
        double big = 0;
        for (size_t j = 0; j < m; j++)
            big = fmax(big, fabs(x->z[j]));
        c->reorder += strict_top(x->z, m, 8 * EPS * fmax(1, big), &az) && az != a;
    }
}

static int mono_report(const mono_set *s, const mono_count *c, uint64_t seed, sbw_verify_list *out)
{
    const char *map = s->plif ? "plif" : "lms", *b = s->bias ? " bias" : "";
    unsigned long long sd = (unsigned long long)seed;
    int st = sbw_verify_add(out, MONO, "words whose sbw-argmax verdict is not the planted truth",
                            (double)c->wrong, SBW_VERIFY_EQ, 0,
                            "M=%zu D=%zu%s, %zu planted interior words, seed=%llu", s->m, s->d, b,
                            s->k, sd);
    st = st ? st
            : sbw_verify_add(out, MONO, "argmaxable words whose certificate h is not first under f",
                             (double)c->cert_bad, SBW_VERIFY_EQ, 0,
                             "%s map, M=%zu D=%zu%s, %zu argmaxable words, seed=%llu", map, s->m,
                             s->d, b, s->m - s->k, sd);
    st = st ? st
            : sbw_verify_add(out, MONO, "contexts whose strict argmax under f is unargmaxable",
                             (double)c->samp_bad, SBW_VERIFY_EQ, 0,
                             "%s map, %zu contexts (%zu with a strict argmax, %zu words reached; "
                             "every 4th aimed at a planted word), seed=%llu",
                             map, s->samples, c->strict, c->reached, sd);
    st = st ? st
            : sbw_verify_add(out, MONO, "contexts whose strict argmax under f is not W h + b's",
                             (double)c->reorder, SBW_VERIFY_EQ, 0,
                             "%s map, %zu contexts, seed=%llu", map, s->samples, sd);
    return st;
}

static int mono_setting(const sbw_verify_opts *o, const mono_set *s, unsigned i,
                        sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MONO, i);
    mono_ws x = {0};
    mono_count c = {0};
    double scale = 0;
    int st = mono_ws_alloc(&x, s, seed);
    st = st ? st : decide(&x.h, NULL, s->m, x.ans, x.hc, NULL, NULL, NULL, 0, &scale);
    if (!st) {
        mono_certs(&x, o->perturb, &c);
        mono_samples(&x, s->samples, o->perturb, &c);
    }
    st = st ? st : mono_report(s, &c, seed, out);
    mono_ws_free(&x);
    return st;
}

int sbw_verify_argmax_monotone(const sbw_verify_opts *o, sbw_verify_list *out)
{
    size_t n = o->full ? 40000 : 4000;
    mono_set sets[] = {{false, false, 60, 4, 6, n},
                       {true, true, 60, 4, 6, n},
                       {false, true, 400, 8, 20, n},
                       {true, false, 400, 8, 20, n}};
    size_t ns = o->full ? 4 : 2;
    int st = SBW_OK;
    for (size_t i = 0; i < ns && !st; i++)
        st = mono_setting(o, &sets[i], (unsigned)i, out);
    return st;
}

/* ---- a shared-W MoS cannot, per-component embeddings can ------------------- */

static const char MOS[] = "argmax-mos";

#define MOS_RADII 3

typedef struct mos_set {
    bool bias;
    size_t m, d, k, comps, samples;
} mos_set;

/* Work arrays of the shared-W check. */
typedef struct mos_ws {
    sbw_synth_head h;
    sbw_argmax_word *ans;
    size_t *idx, *kk, *pl, cap;
    double *lam, *wk, *aim, *hs, *pi, *alpha, *z, *p, *mpws;
    double *res, *gap; /* (m) each planted word's lambda certificate: ||r||_inf, gap */
    gsl_rng *r;
} mos_ws;

static void mos_ws_free(mos_ws *x)
{
    sbw_synth_head_free(&x->h);
    free(x->ans), free(x->idx), free(x->kk), free(x->pl), free(x->lam), free(x->wk);
    free(x->aim), free(x->hs), free(x->pi), free(x->alpha), free(x->z), free(x->p), free(x->mpws);
    free(x->res), free(x->gap);
    sbw_rng_free(x->r);
}

static int mos_ws_alloc(mos_ws *x, const mos_set *s, uint64_t seed)
{
    size_t m = s->m, d = s->d, nc = s->comps, k = s->k;
    x->cap = d + 2;
    int st = sbw_synth_head_plant(&x->h, m, d, k, s->bias, seed);
    x->ans = malloc(m * sizeof *x->ans);
    x->idx = calloc(m * x->cap, sizeof *x->idx), x->kk = calloc(m, sizeof *x->kk);
    x->pl = malloc((k + 1) * sizeof *x->pl), x->lam = calloc(m * x->cap, sizeof *x->lam);
    x->wk = malloc(nc * m * d * sizeof *x->wk);
    x->aim = calloc((k + 1) * MOS_RADII * d, sizeof *x->aim);
    x->hs = malloc(nc * d * sizeof *x->hs), x->pi = malloc(nc * sizeof *x->pi);
    x->alpha = malloc(nc * sizeof *x->alpha);
    x->z = malloc(m * sizeof *x->z), x->p = malloc(m * sizeof *x->p);
    x->mpws = malloc(sbw_maxprob_ws_size(m, d) * sizeof *x->mpws);
    x->res = calloc(m, sizeof *x->res), x->gap = calloc(m, sizeof *x->gap);
    bool ok = x->ans && x->idx && x->kk && x->pl && x->lam && x->wk && x->aim && x->hs && x->pi &&
              x->alpha && x->z && x->p && x->mpws && x->res && x->gap;
    st = st ? st : ok ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory for a %zu-word mixture", m);
    st = st ? st : sbw_rng_alloc(&x->r, seed, 2);
    return st;
}

/* Planted words whose lambda certificate checks (sbw_argmax_cert_lambda,
 * independently of the solver) within tol * scale; each one's residual and
 * gap kept for mos_check's tolerance (NaN when invalid: no bound). */
static size_t mos_certified(mos_ws *x, double scale)
{
    const sbw_synth_head *h = &x->h;
    size_t good = 0, np = 0;
    double tol = sbw_argmax_defaults().tol * scale;
    for (size_t i = 0; i < h->m; i++) {
        if (!h->planted[i])
            continue;
        x->pl[np++] = i;
        sbw_argmax_cert_l_res lr;
        sbw_argmax_cert_lambda(h->w, h->m, h->d, h->d, h->b, i, x->idx + i * x->cap,
                               x->lam + i * x->cap, x->kk[i], &lr);
        good += x->ans[i].argmaxable == 0 && lr.valid && lr.residual <= tol && lr.gap <= tol;
        x->res[i] = lr.valid ? lr.residual : NAN;
        x->gap[i] = lr.valid ? lr.gap : NAN;
    }
    return good;
}

/* The components' embeddings: W each (shared), or W + perturb E_c. */
static void mos_components(mos_ws *x, size_t nc, double perturb)
{
    size_t md = x->h.m * x->h.d;
    for (size_t c = 0; c < nc; c++)
        for (size_t t = 0; t < md; t++)
            x->wk[c * md + t] =
                x->h.w[t] + (perturb != 0 ? perturb * gsl_ran_gaussian(x->r, 1.0) : 0);
}

/* Aimed contexts: the h maximising a planted word's probability over
 * ||h|| <= R (sbw_maxprob), R in {1, 4, 16}. */
static int mos_aim(mos_ws *x)
{
    static const double radii[MOS_RADII] = {1, 4, 16};
    const sbw_synth_head *h = &x->h;
    int st = SBW_OK;
    for (size_t t = 0; t < h->k && !st; t++)
        for (size_t r = 0; r < MOS_RADII && !st; r++) {
            sbw_maxprob_res res;
            double *hv = x->aim + (t * MOS_RADII + r) * h->d;
            st = sbw_maxprob_word(h->w, h->m, h->d, h->d, h->b, x->pl[t], radii[r], 1e-8, 2000, hv,
                                  x->mpws, &res);
        }
    return st;
}

/* One random mixture: pi ~ Dirichlet(1), each h_c Gaussian at a random
 * scale, an aimed context, or near 0 (near-uniform components). */
static void mos_draw(mos_ws *x, size_t nc)
{
    static const double ladder[] = {0.1, 1, 4, 16};
    size_t d = x->h.d;
    for (size_t c = 0; c < nc; c++)
        x->alpha[c] = 1;
    gsl_ran_dirichlet(x->r, nc, x->alpha, x->pi);
    for (size_t c = 0; c < nc; c++) {
        double *hc = x->hs + c * d;
        unsigned long mode = gsl_rng_uniform_int(x->r, 3);
        double sc = mode == 2 ? 0.01 : ladder[gsl_rng_uniform_int(x->r, 4)];
        for (size_t k = 0; k < d; k++)
            hc[k] = sc * gsl_ran_gaussian(x->r, 1.0);
        if (mode == 1 && x->h.k) {
            size_t a = gsl_rng_uniform_int(x->r, x->h.k * MOS_RADII);
            for (size_t k = 0; k < d; k++)
                hc[k] = x->aim[a * d + k] + 0.01 * hc[k];
        }
    }
}

typedef struct mos_count {
    size_t jensen_bad;
    double excess, best; /* max P_i - sum lambda P_j; max P_i - max_{j != i} P_j */
    double cert;         /* the largest certificate term of a tolerance */
} mos_count;

/* Largest ||h_c||_1 over the nc contexts of the mixture in x->hs. */
static double mos_h1(const mos_ws *x, size_t nc)
{
    double top = 0;
    for (size_t c = 0; c < nc; c++) {
        double s = 0;
        for (size_t k = 0; k < x->h.d; k++)
            s += fabs(x->hs[c * x->h.d + k]);
        top = fmax(top, s);
    }
    return top;
}

double sbw_verify_argmax_jensen_tol(double rounding, double residual, double gap, double h1,
                                    double mix)
{
    double cert = expm1(residual * h1 + fmax(gap, 0)) * mix;
    return rounding + (isnan(cert) ? 0 : cert);
}

/* The inequality P_i <= sum_j lambda_j P_j <= max_{j != i} P_j for every
 * planted word i of the mixture in x->p, lambda normalised to sum 1,
 * within tol plus the certificate's own error
 * (sbw_verify_argmax_jensen_tol). */
static void mos_check(const mos_ws *x, size_t nc, double tol, mos_count *c)
{
    size_t m = x->h.m;
    double h1 = mos_h1(x, nc);
    for (size_t t = 0; t < x->h.k; t++) {
        size_t i = x->pl[t];
        double mix = 0, lsum = 0, top = -INFINITY;
        for (size_t u = 0; u < x->kk[i]; u++) {
            mix += x->lam[i * x->cap + u] * x->p[x->idx[i * x->cap + u]];
            lsum += x->lam[i * x->cap + u];
        }
        mix = lsum > 0 ? mix / lsum : 0;
        for (size_t j = 0; j < m; j++)
            if (j != i)
                top = fmax(top, x->p[j]);
        double cert = sbw_verify_argmax_jensen_tol(0, x->res[i], x->gap[i], h1, mix);
        c->cert = fmax(c->cert, cert);
        c->excess = fmax(c->excess, x->p[i] - mix - cert);
        c->best = fmax(c->best, x->p[i] - top);
        c->jensen_bad += x->p[i] - mix > tol + cert;
    }
}

static int mos_report(const mos_set *s, size_t good, const mos_count *c, double tol, uint64_t seed,
                      sbw_verify_list *out)
{
    const char *b = s->bias ? " bias" : "";
    unsigned long long sd = (unsigned long long)seed;
    int st = sbw_verify_add(out, MOS, "planted words with a checked lambda certificate",
                            (double)good, SBW_VERIFY_EQ, (double)s->k,
                            "shared W, M=%zu D=%zu%s, seed=%llu", s->m, s->d, b, sd);
    st = st ? st
            : sbw_verify_add(out, MOS, "(mixture, word) pairs with P_i > sum_j lambda_j P_j + tol",
                             (double)c->jensen_bad, SBW_VERIFY_EQ, 0,
                             "shared W, K=%zu, %zu random and aimed mixtures x %zu words (largest "
                             "P_i - sum lambda P_j - certificate term: %.3g; tol = %.3g + "
                             "certificate term up to %.3g), seed=%llu",
                             s->comps, s->samples, s->k, c->excess, tol, c->cert, sd);
    st = st ? st
            : sbw_verify_add(out, MOS, "largest P_i - max_{j != i} P_j of a planted word", c->best,
                             SBW_VERIFY_LE, tol + c->cert,
                             "shared W, K=%zu%s: never the strict argmax (limit: rounding %.3g + "
                             "largest certificate term), seed=%llu",
                             s->comps, b, tol, sd);
    return st;
}

static int mos_shared(const sbw_verify_opts *o, const mos_set *s, unsigned i, sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MOS, i);
    mos_ws x = {0};
    mos_count c = {.excess = -INFINITY, .best = -INFINITY, .cert = 0};
    double scale = 0, tol = 16 * (double)(s->comps + s->d + 2) * EPS;
    size_t good = 0;
    int st = mos_ws_alloc(&x, s, seed);
    st = st ? st : decide(&x.h, NULL, s->m, x.ans, NULL, x.idx, x.lam, x.kk, x.cap, &scale);
    if (!st) {
        good = mos_certified(&x, scale);
        mos_components(&x, s->comps, o->perturb);
        st = mos_aim(&x);
    }
    for (size_t t = 0; t < s->samples && !st; t++) {
        mos_draw(&x, s->comps);
        sbw_verify_argmax_mixture(x.wk, s->m * s->d, s->m, s->d, x.h.b, x.hs, x.pi, s->comps, x.z,
                                  x.p);
        mos_check(&x, s->comps, tol, &c);
    }
    st = st ? st : mos_report(s, good, &c, tol, seed, out);
    mos_ws_free(&x);
    return st;
}

/* The exhibit's vertices a_c: a_0 = word 0, then each the base word whose
 * largest cosine to those chosen is smallest (spread out). */
static void spread(const double *w, size_t nb, size_t d, size_t nc, size_t *a)
{
    a[0] = 0;
    for (size_t c = 1; c < nc; c++) {
        double best = INFINITY;
        for (size_t j = 0; j < nb; j++) {
            double worst = -INFINITY;
            for (size_t l = 0; l < c; l++) {
                double dot = 0;
                for (size_t k = 0; k < d; k++)
                    dot += w[j * d + k] * w[a[l] * d + k];
                worst = fmax(worst, a[l] == j ? INFINITY : dot);
            }
            if (worst < best)
                best = worst, a[c] = j;
        }
    }
}

#define EX_MAXC  8
#define EX_DELTA 0.1

/* Per-component embeddings: the base words (rows 0..nb) shared, word i = nb
 * at (1 - delta) w_{a_c} + delta mean(w) in component c: strictly inside
 * the hull of every W_c, but near a different vertex in each. */
static void ex_components(const sbw_synth_head *base, size_t nc, const size_t *a, double *wk)
{
    size_t nb = base->m, d = base->d, m = nb + 1;
    for (size_t c = 0; c < nc; c++) {
        double *w = wk + c * m * d;
        memcpy(w, base->w, nb * d * sizeof *w);
        for (size_t k = 0; k < d; k++) {
            double mean = 0;
            for (size_t j = 0; j < nb; j++)
                mean += base->w[j * d + k] / (double)nb;
            w[nb * d + k] = (1 - EX_DELTA) * base->w[a[c] * d + k] + EX_DELTA * mean;
        }
    }
}

/* Components in which word i = m - 1 is not argmaxable, each with its
 * lambda certificate checked independently of the solver. */
static int ex_unargmaxable(double *wk, size_t m, size_t d, size_t nc, size_t *count)
{
    size_t i = m - 1, cap = d + 2, idx[64], kk = 0;
    double lam[64], scale = 0;
    *count = 0;
    int st = SBW_OK;
    for (size_t c = 0; c < nc && !st; c++) {
        sbw_synth_head h = {.m = m, .d = d, .w = wk + c * m * d};
        sbw_argmax_word ans;
        st = decide(&h, &i, 1, &ans, NULL, idx, lam, &kk, cap, &scale);
        if (st)
            break;
        sbw_argmax_cert_l_res lr;
        sbw_argmax_cert_lambda(h.w, m, d, d, NULL, i, idx, lam, kk, &lr);
        double tol = sbw_argmax_defaults().tol * scale;
        *count += ans.argmaxable == 0 && lr.valid && lr.residual <= tol && lr.gap <= tol;
    }
    return st;
}

typedef struct ex_best {
    double margin, s, pi, pnext;
    size_t next;
} ex_best;

/* pi = 1/nc, h_c = s w_{a_c} over a ladder of s: the largest margin
 * P_i - max_{j != i} P_j of word i = m - 1. */
static void ex_search(const double *wk, size_t m, size_t d, size_t nc, const size_t *a,
                      ex_best *best)
{
    static const double ladder[] = {0.05, 0.1, 0.2, 0.5, 1, 2, 5};
    double hs[EX_MAXC * 16], pi[EX_MAXC], z[64], p[64];
    best->margin = -INFINITY;
    for (size_t t = 0; t < sizeof ladder / sizeof *ladder; t++) {
        for (size_t c = 0; c < nc; c++) {
            pi[c] = 1.0 / (double)nc;
            for (size_t k = 0; k < d; k++)
                hs[c * d + k] = ladder[t] * wk[a[c] * d + k];
        }
        sbw_verify_argmax_mixture(wk, m * d, m, d, NULL, hs, pi, nc, z, p);
        size_t nx = 0;
        for (size_t j = 1; j + 1 < m; j++)
            if (p[j] > p[nx])
                nx = j;
        if (p[m - 1] - p[nx] > best->margin)
            *best = (ex_best){p[m - 1] - p[nx], ladder[t], p[m - 1], p[nx], nx};
    }
}

static int mos_exhibit(const sbw_verify_opts *o, size_t d, size_t nb, size_t k, unsigned i,
                       sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MOS, i);
    long kl = (long)k + o->offset;
    size_t nc = kl < 1 ? 1 : kl > EX_MAXC ? EX_MAXC : (size_t)kl, m = nb + 1, a[EX_MAXC] = {0};
    size_t unarg = 0;
    ex_best best = {0};
    sbw_synth_head base = {0};
    double *wk = NULL;
    int st = nb + 1 > 64 || d > 16 ? SBW_ERROR(SBW_EINVAL, "exhibit: at most 63 words, D <= 16")
                                   : SBW_OK;
    st = st ? st : sbw_synth_head_plant(&base, nb, d, 0, false, seed);
    wk = st ? NULL : malloc(nc * m * d * sizeof *wk);
    st = st ? st : wk ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory for %zu components", nc);
    if (!st) {
        spread(base.w, nb, d, nc, a);
        ex_components(&base, nc, a, wk);
        st = ex_unargmaxable(wk, m, d, nc, &unarg);
    }
    if (!st)
        ex_search(wk, m, d, nc, a, &best);
    double bound = 16 * (double)(nc + m) * EPS;
    unsigned long long sd = (unsigned long long)seed;
    st = st ? st
            : sbw_verify_add(out, MOS, "components W_c in which word i is not argmaxable",
                             (double)unarg, SBW_VERIFY_EQ, (double)nc,
                             "per-component W_c, K=%zu D=%zu M=%zu: w_i = 0.9 w_(a_c) + 0.1 "
                             "mean(w), lambda certificates checked, seed=%llu",
                             nc, d, m, sd);
    st = st ? st
            : sbw_verify_add(out, MOS, "MoS margin P_i - max_{j != i} P_j (exhibit)", best.margin,
                             SBW_VERIFY_GT, bound,
                             "per-component W_c, K=%zu D=%zu: pi = 1/K, h_c = %g w_(a_c): P_i = "
                             "%.4f, next P_%zu = %.4f, seed=%llu",
                             nc, d, best.s, best.pi, best.next, best.pnext, sd);
    sbw_synth_head_free(&base);
    free(wk);
    return st;
}

int sbw_verify_argmax_mos(const sbw_verify_opts *o, sbw_verify_list *out)
{
    size_t n = o->full ? 40000 : 4000;
    mos_set sets[] = {{false, 40, 3, 5, 3, n}, {true, 40, 3, 5, 5, n}, {true, 200, 6, 10, 10, n}};
    size_t ns = o->full ? 3 : 2;
    int st = SBW_OK;
    for (size_t i = 0; i < ns && !st; i++)
        st = mos_shared(o, &sets[i], (unsigned)i, out);
    st = st ? st : mos_exhibit(o, 2, 7, 2, 10, out);
    st = st ? st : mos_exhibit(o, 5, 30, 3, 11, out);
    return st;
}
