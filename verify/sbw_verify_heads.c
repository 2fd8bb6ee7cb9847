/* sbw_verify_heads.c -- claims about fitted heads: the rank of MoC's and
 * MoS's log Q (MoS section 2.5), the order of logits under LMS and PLIF
 * (LMS section 4), and the rank of a Softmax head's log Q in float64 and
 * in float32 storage.  Heads are fitted by sbw_fit (models/) to Dirichlet
 * languages (synth/) and exported in double. */
#include "sbw_verify_heads.h"

#include "sbw_error.h"
#include "sbw_synth.h"
#include "sbw_verify_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define EPS DBL_EPSILON

static int dirichlet(sbw_mat *a, size_t n, size_t m, uint64_t seed)
{
    int st = sbw_mat_alloc(a, n, m);
    return st ? st : sbw_synth_dirichlet(a, 0.5, seed);
}

/* ---- MoC is Softmax in disguise ------------------------------------------- */

static const char MOC[] = "moc";

static int moc_setting(const sbw_verify_opts *o, sbw_head_model model, size_t k, bool bias,
                       unsigned i, sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MOC, i);
    size_t n = o->full ? 120 : 48, m = o->full ? 60 : 24, d = 3, rank = 0;
    sbw_mat a = {0}, lq = {0};
    sbw_target t = {0};
    sbw_fit *f = NULL;
    double kl = NAN;
    sbw_verify_util_fit_args fa = {.model = model,
                                   .d = d,
                                   .k = k,
                                   .bias = bias,
                                   .steps = 40,
                                   .fit_steps = o->fit_steps,
                                   .seed = seed,
                                   .threads = o->threads};
    int st = dirichlet(&a, n, m, seed);
    st = st ? st : sbw_verify_util_fit(&a, &fa, &t, &f, &lq, &kl);
    st = st ? st : sbw_verify_util_rank(&lq, EPS, o->tol_scale, &rank);
    double lim = (double)(d + 1 + bias) + (double)o->offset;
    bool moc = model == SBW_MODEL_MOC;
    st = st ? st
            : sbw_verify_add(out, MOC, moc ? "NR rank(log Q) of MoC" : "NR rank(log Q) of MoS",
                             (double)rank, moc ? SBW_VERIFY_LE : SBW_VERIFY_GT, lim,
                             "%s K=%zu D=%zu%s, dirichlet %zux%zu (KL %.3g), seed=%llu",
                             sbw_head_model_name(model), k, d, bias ? " bias" : "", n, m, kl,
                             (unsigned long long)seed);
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    sbw_mat_free(&lq);
    return st;
}

int sbw_verify_heads_moc(const sbw_verify_opts *o, sbw_verify_list *out)
{
    static const size_t ks[] = {1, 2, 4, 8};
    size_t nk = o->full ? 4 : 3;
    int st = SBW_OK;
    for (size_t i = 0; i < nk && !st; i++)
        st = moc_setting(o, SBW_MODEL_MOC, ks[i], false, (unsigned)i, out);
    st = st ? st : moc_setting(o, SBW_MODEL_MOC, 2, true, 10, out);
    st = st ? st : moc_setting(o, SBW_MODEL_MOS, 4, false, 11, out);
    st = st ? st : moc_setting(o, SBW_MODEL_MOS, 4, true, 12, out);
    return st;
}

/* ---- Mixtape breaks the Softmax bound ------------------------------------- */

static const char MIXTAPE[] = "mixtape";

/* One fitted Mixtape head (K = 4, the paper's tree): NR rank(log Q) above
 * D + 1 (+1 with a bias), and at most the gate-sharing bound D + F + 1
 * (+1), F = ceil(M/10) words with their own gates; offset moves both
 * limits up. */
static int mixtape_setting(const sbw_verify_opts *o, bool bias, unsigned i, sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MIXTAPE, i);
    size_t n = o->full ? 120 : 48, m = o->full ? 60 : 24, d = 3, k = 4, rank = 0;
    size_t nf = (m + 9) / 10;
    sbw_mat a = {0}, lq = {0};
    sbw_target t = {0};
    sbw_fit *f = NULL;
    double kl = NAN;
    sbw_verify_util_fit_args fa = {.model = SBW_MODEL_MIXTAPE,
                                   .d = d,
                                   .k = k,
                                   .bias = bias,
                                   .steps = 40,
                                   .fit_steps = o->fit_steps,
                                   .seed = seed,
                                   .threads = o->threads};
    int st = dirichlet(&a, n, m, seed);
    st = st ? st : sbw_verify_util_fit(&a, &fa, &t, &f, &lq, &kl);
    st = st ? st : sbw_verify_util_rank(&lq, EPS, o->tol_scale, &rank);
    double lo = (double)(d + 1 + bias) + (double)o->offset, hi = lo + (double)nf;
    st = st ? st
            : sbw_verify_add(out, MIXTAPE, "NR rank(log Q) of Mixtape", (double)rank, SBW_VERIFY_GT,
                             lo, "mixtape K=%zu D=%zu%s, dirichlet %zux%zu (KL %.3g), seed=%llu", k,
                             d, bias ? " bias" : "", n, m, kl, (unsigned long long)seed);
    st = st ? st
            : sbw_verify_add(out, MIXTAPE, "NR rank(log Q) of Mixtape, gate sharing", (double)rank,
                             SBW_VERIFY_LE, hi,
                             "mixtape K=%zu D=%zu%s F=%zu, dirichlet %zux%zu, seed=%llu", k, d,
                             bias ? " bias" : "", nf, n, m, (unsigned long long)seed);
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    sbw_mat_free(&lq);
    return st;
}

int sbw_verify_heads_mixtape(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = mixtape_setting(o, false, 0, out);
    return st ? st : mixtape_setting(o, true, 1, out);
}

/* ---- monotone heads preserve order ---------------------------------------- */

static const char MONO[] = "monotone";

typedef struct order_count {
    size_t reversals, ties, argmax_bad;
} order_count;

/* Row i: z (M logits), lq (M log Q).  A pair z_a > z_b reversed when
 * lq_a < lq_b - tie, tied when |lq_a - lq_b| <= tie (saturation). */
static void order_row(const double *z, const double *lq, size_t m, order_count *c)
{
    double top = -INFINITY, big = 1;
    size_t arg = 0;
    for (size_t j = 0; j < m; j++) {
        top = fmax(top, lq[j]);
        big = fmax(big, fabs(lq[j]));
        if (z[j] > z[arg])
            arg = j;
    }
    double tie = 8 * EPS * big;
    c->argmax_bad += lq[arg] < top - tie;
    for (size_t a = 0; a < m; a++)
        for (size_t b = 0; b < m; b++)
            if (z[a] > z[b]) {
                c->reversals += lq[a] < lq[b] - tie;
                c->ties += fabs(lq[a] - lq[b]) <= tie;
            }
}

/* The logits z = W h (+ b) of every context of a fit, row by row. */
static void logits_row(const sbw_fit *f, size_t i, double *z)
{
    const sbw_head *h = &f->head;
    const double *th = f->theta, *hv = th + h->off_h + i * h->d;
    for (size_t j = 0; j < h->m; j++) {
        double s = h->bias ? th[h->off_b + j] : 0;
        for (size_t k = 0; k < h->d; k++)
            s += th[h->off_w + j * h->d + k] * hv[k];
        z[j] = s;
    }
}

static int mono_setting(const sbw_verify_opts *o, sbw_head_model model, unsigned i,
                        sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MONO, i);
    size_t n = o->full ? 200 : 60, m = o->full ? 80 : 30;
    sbw_mat a = {0}, lq = {0};
    sbw_target t = {0};
    sbw_fit *f = NULL;
    double kl = NAN, *z = calloc(m, sizeof *z);
    sbw_verify_util_fit_args fa = {.model = model,
                                   .d = 3,
                                   .k = 4,
                                   .knots = 20,
                                   .steps = 60,
                                   .fit_steps = o->fit_steps,
                                   .seed = seed,
                                   .threads = o->threads};
    int st = z ? dirichlet(&a, n, m, seed) : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : sbw_verify_util_fit(&a, &fa, &t, &f, &lq, &kl);
    if (!st && o->perturb != 0) {
        sbw_mat e = {0};
        st = sbw_mat_alloc(&e, n, m);
        st = st ? st : sbw_verify_util_gauss(&e, o->perturb, seed, 9);
        for (size_t k = 0; !st && k < n * m; k++)
            lq.data[k] += e.data[k];
        sbw_mat_free(&e);
    }
    order_count c = {0};
    for (size_t r = 0; !st && r < n; r++) {
        logits_row(f, r, z);
        order_row(z, lq.data + r * m, m, &c);
    }
    unsigned long long sd = (unsigned long long)seed;
    const char *name = sbw_head_model_name(model);
    st = st ? st
            : sbw_verify_add(out, MONO, "pairs z_a > z_b with log Q_a < log Q_b - tie",
                             (double)c.reversals, SBW_VERIFY_EQ, 0,
                             "%s D=3, dirichlet %zux%zu (KL %.3g; %zu tied pairs), seed=%llu", name,
                             n, m, kl, c.ties, sd);
    st = st ? st
            : sbw_verify_add(out, MONO, "contexts whose argmax z is not an argmax of Q",
                             (double)c.argmax_bad, SBW_VERIFY_EQ, 0, "%s, %zu contexts, seed=%llu",
                             name, n, sd);
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    sbw_mat_free(&lq);
    free(z);
    return st;
}

int sbw_verify_heads_monotone(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = mono_setting(o, SBW_MODEL_LMS, 0, out);
    st = st ? st : mono_setting(o, SBW_MODEL_PLIF, 1, out);
    return st;
}

/* ---- rank is a property of the model -------------------------------------- */

static const char MR[] = "model-rank";

static int mr_setting(const sbw_verify_opts *o, size_t n, size_t m, size_t d, bool bias, unsigned i,
                      sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, MR, i);
    sbw_mat a = {0}, lq = {0};
    sbw_mat_f32 lf = {0};
    sbw_target t = {0};
    sbw_fit *f = NULL;
    size_t r64 = 0, r32d = 0, r32f = 0, full = n < m ? n : m;
    double kl = NAN, want = (double)(d + 1 + bias) + (double)o->offset;
    sbw_verify_util_fit_args fa = {.model = SBW_MODEL_SOFTMAX,
                                   .d = d,
                                   .bias = bias,
                                   .steps = 40,
                                   .fit_steps = o->fit_steps,
                                   .seed = seed,
                                   .threads = o->threads};
    int st = dirichlet(&a, n, m, seed);
    st = st ? st : sbw_verify_util_fit(&a, &fa, &t, &f, &lq, &kl);
    st = st ? st : sbw_verify_util_rank(&lq, EPS, o->tol_scale, &r64);
    st = st ? st : sbw_mat_f32_alloc(&lf, n, m);
    st = st ? st : sbw_mat_to_float(&lf, &lq);
    st = st ? st : sbw_mat_f32_to_double(&lq, &lf);
    st = st ? st : sbw_verify_util_rank(&lq, EPS, o->tol_scale, &r32d);
    st = st ? st : sbw_verify_util_rank(&lq, FLT_EPSILON, o->tol_scale, &r32f);
    unsigned long long sd = (unsigned long long)seed;
    const char *b = bias ? " bias" : "";
    st = st ? st
            : sbw_verify_add(out, MR, "NR rank, float64 log Q, DBL_EPSILON", (double)r64,
                             SBW_VERIFY_EQ, want, "softmax D=%zu%s, %zux%zu (KL %.3g), seed=%llu",
                             d, b, n, m, kl, sd);
    st = st ? st
            : sbw_verify_add(out, MR, "NR rank, float32 copy, DBL_EPSILON (the trap)", (double)r32d,
                             SBW_VERIFY_EQ, (double)full,
                             "softmax D=%zu%s: float32 rounding looks full rank, seed=%llu", d, b,
                             sd);
    st = st ? st
            : sbw_verify_add(out, MR, "NR rank, float32 copy, FLT_EPSILON", (double)r32f,
                             SBW_VERIFY_EQ, want, "softmax D=%zu%s: the dtype-aware eps, seed=%llu",
                             d, b, sd);
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    sbw_mat_free(&lq);
    sbw_mat_f32_free(&lf);
    return st;
}

int sbw_verify_heads_model_rank(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = mr_setting(o, 64, 32, 4, false, 0, out);
    st = st ? st : mr_setting(o, 64, 32, 4, true, 1, out);
    if (o->full)
        st = st ? st : mr_setting(o, 400, 200, 20, false, 2, out);
    return st;
}
