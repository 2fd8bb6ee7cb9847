/* sbw_head.c -- head specifications, parameter layout, initialisation and
 * the constrained map parameters. */
#include "sbw_head.h"

#include "sbw_error.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *const model_names[SBW_NMODEL] = {"softmax", "sigsoftmax", "moc",      "mos",
                                                    "lms",     "plif",       "mos+plif", "mixtape"};

int sbw_head_model_parse(const char *name, sbw_head_model *model)
{
    for (int i = 0; i < SBW_NMODEL; i++)
        if (strcmp(name, model_names[i]) == 0) {
            *model = (sbw_head_model)i;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL,
                     "unknown model '%s' (softmax, sigsoftmax, moc, mos, lms, plif, mos+plif, "
                     "mixtape)",
                     name);
}

const char *sbw_head_model_name(sbw_head_model model)
{
    return (unsigned)model < SBW_NMODEL ? model_names[model] : "?";
}

size_t sbw_head_nx(const sbw_head *h) { return h->mixture || h->vgate ? h->k : 1; }

size_t sbw_head_nv(const sbw_head *h) { return h->vgate ? h->k - 1 : h->context_mix ? h->k : 0; }

size_t sbw_head_rank_bound(const sbw_head *h)
{
    bool k1 = h->model == SBW_MODEL_MOS || h->model == SBW_MODEL_MIXTAPE;
    bool one_softmax =
        h->model == SBW_MODEL_SOFTMAX || h->model == SBW_MODEL_MOC || (k1 && h->k == 1);
    if (!one_softmax && !h->vgate)
        return 0;
    size_t r = h->d + 1 + (h->bias ? 1 : 0) + (h->vgate ? h->nfreq : 0);
    r = r < h->m ? r : h->m;
    return h->n > 0 && h->n < r ? h->n : r;
}

double sbw_head_softplus(double x) { return fmax(x, 0.0) + log1p(exp(-fabs(x))); }

double sbw_head_softplus_inv(double y) { return y + log(-expm1(-y)); }

double sbw_head_sigmoid(double x)
{
    double e = exp(-fabs(x));
    return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

/* a * b + c without overflow into *out; false when it would overflow. */
static bool mul_add(size_t a, size_t b, size_t c, size_t *out)
{
    if (b != 0 && a > (SIZE_MAX / 4 - c) / b)
        return false;
    *out = a * b + c;
    return true;
}

static int check_sizes(sbw_head_model model, size_t n, size_t m, size_t d, size_t k, size_t knots,
                       double plif_t, bool linear)
{
    if ((unsigned)model >= SBW_NMODEL)
        return SBW_ERROR(SBW_EINVAL, "unknown model %d", (int)model);
    if (m < 1)
        return SBW_ERROR(SBW_EINVAL, "the head needs at least one word, got M = %zu (N = %zu)", m,
                         n);
    if (m >= UINT32_MAX) /* the float kernels index words in 32 bits */
        return SBW_ERROR(SBW_EINVAL, "M = %zu words: at most 2^32 - 2 are supported", m);
    if (d < 1)
        return SBW_ERROR(SBW_EINVAL, "--d must be >= 1, got %zu", d);
    if (d > m)
        return SBW_ERROR(SBW_EINVAL, "--d %zu exceeds the vocabulary size M = %zu", d, m);
    bool uses_k = model == SBW_MODEL_MOC || model == SBW_MODEL_MOS || model == SBW_MODEL_MOS_PLIF ||
                  model == SBW_MODEL_LMS || model == SBW_MODEL_MIXTAPE;
    bool uses_plif = model == SBW_MODEL_PLIF || model == SBW_MODEL_MOS_PLIF;
    if (uses_k && k < 1)
        return SBW_ERROR(SBW_EINVAL, "--k must be >= 1 for %s, got %zu", model_names[model], k);
    if (model == SBW_MODEL_MIXTAPE && k > SBW_HEAD_MIXTAPE_KMAX)
        return SBW_ERROR(SBW_EINVAL, "--k %zu: mixtape takes at most %d components", k,
                         SBW_HEAD_MIXTAPE_KMAX);
    if (uses_plif && knots < 1)
        return SBW_ERROR(SBW_EINVAL, "the PLIF needs >= 1 interval, got %zu", knots);
    if (uses_plif && !(plif_t > 0 && isfinite(plif_t)))
        return SBW_ERROR(SBW_EINVAL, "--plif-t must be finite and > 0, got %g", plif_t);
    if (linear && model != SBW_MODEL_LMS)
        return SBW_ERROR(SBW_EINVAL, "--linear applies to lms only, not %s", model_names[model]);
    return SBW_OK;
}

static void set_flags(sbw_head *h)
{
    static const sbw_head_map maps[SBW_NMODEL] = {
        SBW_MAP_IDENTITY, SBW_MAP_SS,   SBW_MAP_IDENTITY, SBW_MAP_IDENTITY,
        SBW_MAP_LMS,      SBW_MAP_PLIF, SBW_MAP_PLIF,     SBW_MAP_IDENTITY};
    h->map = maps[h->model];
    h->mixture = h->model == SBW_MODEL_MOS || h->model == SBW_MODEL_MOS_PLIF;
    h->vgate = h->model == SBW_MODEL_MIXTAPE;
    h->context_mix = h->mixture || h->vgate || h->model == SBW_MODEL_MOC;
    /* Mixtape's gate embedding size d1 and its words with their own gates
     * F (the ids below F: sbw-lm's vocabulary is sorted by frequency); the
     * paper leaves both to the task, Mesh TensorFlow's Mixtape keeps the
     * top 10% of the vocabulary (frequent_token_fraction = 0.1). */
    h->gd = h->vgate && h->k > 1 ? (h->d + 3) / 4 : 0;
    h->nfreq = h->vgate && h->k > 1 ? (h->m + 9) / 10 : 0;
    if (!h->context_mix && h->model != SBW_MODEL_LMS)
        h->k = 0;
    if (h->map != SBW_MAP_PLIF)
        h->knots = 0;
    h->lms_len = h->model == SBW_MODEL_LMS ? 3 * h->k + (h->linear ? 1 : 0) : 0;
}

/* theta's layout of s (sizes, flags, c and cbias set) into its offsets;
 * false when the count overflows. */
static bool layout(sbw_head *s)
{
    size_t ku = s->context_mix ? s->k : 0, kv = sbw_head_nv(s), kg = s->vgate ? s->k - 1 : 0;
    size_t kd, at = 0, t;
    bool ok = mul_add(s->m, s->d, 0, &at);
    s->off_b = at;
    ok = ok && mul_add(s->bias ? s->m : 0, 1, at, &at);
    s->off_u = at;
    ok = ok && mul_add(ku, s->d, 0, &kd) && mul_add(kd, s->c, at, &at);
    s->off_v = at;
    ok = ok && mul_add(kv, s->c, at, &at);
    s->off_ub = at;
    ok = ok && mul_add(s->cbias ? kd : 0, 1, at, &at);
    s->off_gu = at;
    ok = ok && mul_add(kg, s->gd, 0, &t) && mul_add(t, s->c, at, &at);
    s->off_gv = at;
    ok = ok && mul_add(s->nfreq, s->gd, at, &at);
    s->off_gb = at;
    ok = ok && mul_add(s->nfreq, kg, at, &at);
    s->off_lms = at;
    ok = ok && mul_add(s->lms_len, 1, at, &at);
    s->off_plif = at;
    ok = ok && mul_add(s->knots, 1, at, &at);
    s->off_h = s->nshared = at;
    return ok && mul_add(s->n, s->c, at, &s->nparam);
}

int sbw_head_setup(sbw_head *h, sbw_head_model model, size_t n, size_t m, size_t d, size_t k,
                   size_t knots, double plif_t, bool bias, bool linear)
{
    int st = check_sizes(model, n, m, d, k, knots, plif_t, linear);
    if (st)
        return st;
    sbw_head s = {.model = model,
                  .n = n,
                  .m = m,
                  .d = d,
                  .k = k,
                  .knots = knots,
                  .plif_t = plif_t,
                  .bias = bias,
                  .linear = linear,
                  .c = d};
    set_flags(&s);
    if (!layout(&s))
        return SBW_ERROR(SBW_EINVAL, "the parameter count of N=%zu M=%zu D=%zu K=%zu overflows", n,
                         m, d, k);
    *h = s;
    return SBW_OK;
}

int sbw_head_set_context(sbw_head *h, size_t c, bool cbias)
{
    sbw_head s = *h;
    s.c = c ? c : s.d;
    s.cbias = cbias;
    if (!s.context_mix && s.c != s.d)
        return SBW_ERROR(SBW_EINVAL,
                         "the %s head takes its logits from the context itself (W h): its "
                         "context width %zu must equal --d %zu (moc, mos, mos+plif, mixtape "
                         "map the context and take any width)",
                         model_names[s.model], s.c, s.d);
    if (!s.context_mix && cbias)
        return SBW_ERROR(SBW_EINVAL,
                         "a component bias belongs to moc, mos, mos+plif and mixtape (g_k = "
                         "tanh(U_k h + c_k)), not to %s",
                         model_names[s.model]);
    if (!layout(&s))
        return SBW_ERROR(SBW_EINVAL, "the parameter count of M=%zu D=%zu C=%zu K=%zu overflows",
                         s.m, s.d, s.c, s.k);
    *h = s;
    return SBW_OK;
}

static void fill_gaussian(gsl_rng *r, double *x, size_t n, double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = sd > 0 ? gsl_ran_gaussian(r, sd) : 0.0;
}

static void init_lms(const sbw_head *h, double *p)
{
    size_t k = h->k;
    double spacing = k > 1 ? 8.0 / (double)(k - 1) : 4.0;
    double one = sbw_head_softplus_inv(1.0), v = sbw_head_softplus_inv(spacing);
    for (size_t i = 0; i < k; i++) {
        p[i] = one;                                            /* u_i = 1 */
        p[k + i] = v;                                          /* v_i = spacing */
        p[2 * k + i] = k > 1 ? -4.0 + spacing * (double)i : 0; /* c_i */
    }
    if (h->linear)
        p[3 * k] = one; /* lambda = 1 */
}

int sbw_head_init(const sbw_head *h, double *theta, uint64_t seed, double scale)
{
    if (!(scale >= 0 && isfinite(scale)))
        return SBW_ERROR(SBW_EINVAL, "--init-scale must be finite and >= 0, got %g", scale);
    gsl_rng *r = NULL;
    int st = sbw_rng_alloc(&r, seed, 1);
    if (st)
        return st;
    memset(theta, 0, h->nparam * sizeof *theta);
    fill_gaussian(r, theta + h->off_w, h->m * h->d, scale);
    sbw_rng_reseed(r, seed, 2);
    fill_gaussian(r, theta + h->off_u, h->off_v - h->off_u, 1.0 / sqrt((double)h->c));
    sbw_rng_reseed(r, seed, 3);
    fill_gaussian(r, theta + h->off_v, h->off_ub - h->off_v, scale);
    sbw_rng_reseed(r, seed, 4);
    fill_gaussian(r, theta + h->off_h, h->n * h->c, scale);
    sbw_rng_reseed(r, seed, 5);
    fill_gaussian(r, theta + h->off_gu, h->off_gv - h->off_gu, 1.0 / sqrt((double)h->c));
    sbw_rng_reseed(r, seed, 6);
    fill_gaussian(r, theta + h->off_gv, h->off_gb - h->off_gv, scale);
    sbw_rng_free(r);
    if (h->model == SBW_MODEL_LMS)
        init_lms(h, theta + h->off_lms);
    double one = sbw_head_softplus_inv(1.0);
    for (size_t i = 0; i < h->knots; i++)
        theta[h->off_plif + i] = one;
    return SBW_OK;
}

static size_t add_block(sbw_head_block *b, size_t nb, const char *name, size_t off, size_t rows,
                        size_t cols, const char *meaning)
{
    if (rows * cols == 0)
        return nb;
    b[nb] = (sbw_head_block){name, off, rows, cols, meaning};
    return nb + 1;
}

size_t sbw_head_blocks(const sbw_head *h, sbw_head_block *b)
{
    size_t n = 0, k = h->k, kd = h->context_mix ? h->k * h->d : 0;
    n = add_block(b, n, "H", h->off_h, h->n, h->c, "context embeddings, one row per context");
    n = add_block(b, n, "W", h->off_w, h->m, h->d, "word embeddings, one row per word");
    n = add_block(b, n, "b", h->off_b, h->bias ? h->m : 0, 1, "word bias added to the logits");
    n = add_block(b, n, "U", h->off_u, kd, h->c,
                  h->cbias
                      ? "mixture projections: rows k*D..k*D+D-1 are U_k, g_k = tanh(U_k h + c_k)"
                      : "mixture projections: rows k*D..k*D+D-1 are U_k, g_k = tanh(U_k h)");
    n = add_block(b, n, "V", h->off_v, sbw_head_nv(h), h->c,
                  h->vgate ? "shared gate vectors: row j is u_j in the gate logit u_j^T h"
                           : "mixture prior: pi = softmax(V h)");
    n = add_block(b, n, "U_bias", h->off_ub, h->cbias ? k : 0, h->d,
                  "component biases: row k is c_k in g_k = tanh(U_k h + c_k)");
    size_t kg = h->vgate ? k - 1 : 0;
    n = add_block(b, n, "GU", h->off_gu, kg * h->gd, h->c,
                  "gate projections: rows j*d1..j*d1+d1-1 are GU_j in tanh(GU_j h)");
    n = add_block(b, n, "GV", h->off_gv, h->nfreq, h->gd,
                  "gate embeddings v_x of the F most frequent words (ids < F)");
    n = add_block(b, n, "GB", h->off_gb, h->nfreq, kg,
                  "gate biases b_{x,j} of the F most frequent words");
    if (h->model == SBW_MODEL_LMS) {
        n = add_block(b, n, "lms_u_raw", h->off_lms, k, 1, "u_i = softplus(raw)");
        n = add_block(b, n, "lms_v_raw", h->off_lms + k, k, 1, "v_i = softplus(raw)");
        n = add_block(b, n, "lms_c", h->off_lms + 2 * k, k, 1, "sigmoid biases c_i");
        n = add_block(b, n, "lms_lambda_raw", h->off_lms + 3 * k, h->linear ? 1 : 0, 1,
                      "linear slope lambda = softplus(raw)");
    }
    n = add_block(b, n, "plif_slope_raw", h->off_plif, h->knots, 1,
                  "PLIF slopes s_i = softplus(raw) on [-T + 2Ti/K, -T + 2T(i+1)/K]");
    return n;
}

void sbw_head_map_params(const sbw_head *h, const double *theta, double *u, double *v, double *c,
                         double *lambda, double *s, double *cum)
{
    const double *l = theta + h->off_lms, *a = theta + h->off_plif;
    size_t k = h->k;
    for (size_t i = 0; h->model == SBW_MODEL_LMS && i < k; i++) {
        u[i] = sbw_head_softplus(l[i]);
        v[i] = sbw_head_softplus(l[k + i]);
        c[i] = l[2 * k + i];
    }
    if (lambda)
        *lambda = h->linear ? sbw_head_softplus(l[3 * k]) : 0.0;
    for (size_t i = 0; i < h->knots; i++)
        s[i] = sbw_head_softplus(a[i]);
    sbw_head_plif_cum(h, s, cum);
}

void sbw_head_plif_cum(const sbw_head *h, const double *s, double *cum)
{
    double delta = h->knots ? 2 * h->plif_t / (double)h->knots : 0, acc = 0;
    for (size_t i = 0; i < h->knots; i++) {
        cum[i] = delta * acc;
        acc += s[i];
    }
}

void sbw_head_map_chain(const sbw_head *h, const double *theta, const double *gu, const double *gv,
                        const double *gc, double glambda, const double *gsum, const double *gx,
                        double *grad)
{
    const double *l = theta + h->off_lms, *a = theta + h->off_plif;
    double *gl = grad + h->off_lms, *ga = grad + h->off_plif;
    size_t k = h->k;
    for (size_t i = 0; h->model == SBW_MODEL_LMS && i < k; i++) {
        gl[i] = gu[i] * sbw_head_sigmoid(l[i]);
        gl[k + i] = gv[i] * sbw_head_sigmoid(l[k + i]);
        gl[2 * k + i] = gc[i];
    }
    if (h->model == SBW_MODEL_LMS && h->linear)
        gl[3 * k] = glambda * sbw_head_sigmoid(l[3 * k]);
    double delta = h->knots ? 2 * h->plif_t / (double)h->knots : 0, suffix = 0;
    for (size_t i = h->knots; i-- > 0;) {
        ga[i] = (gx[i] + delta * suffix) * sbw_head_sigmoid(a[i]);
        suffix += gsum[i];
    }
}
