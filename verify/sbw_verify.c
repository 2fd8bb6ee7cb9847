/* sbw_verify.c -- the registry of claims, results, selection. */
#include "sbw_verify.h"

#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_verify_argmax.h"
#include "sbw_verify_heads.h"
#include "sbw_verify_hidden.h"
#include "sbw_verify_lms.h"
#include "sbw_verify_mos.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sbw_verify_claim sbw_verify_claims[] = {
    {"property1",
     "softmax(A + Lambda J) = softmax(A); and logits A'' with softmax(A'') = softmax(A) differ "
     "from A by a row constant",
     "MoS Property 1 (section 2.2, proof in appendix A)",
     "a shift that is not a row constant (max |log softmax error| or a row's spread of A'' - A "
     "above its eps-scaled tolerance)",
     "perturb: adds perturb * N(0,1) to every entry of the shifted A and of A''",
     sbw_verify_mos_property1},
    {"property2", "|rank(A1) - rank(A2)| <= 1 for A1, A2 in F(A), and both +1 and -1 occur",
     "MoS Property 2 (section 2.2, proof in appendix A)",
     "two row shifts of A whose numerical ranks differ by 2 or more; or no shift that raises "
     "(ones vector outside the row space) or lowers (inside) the rank by exactly 1",
     "perturb: adds a random rank-one perturb * u v^T (not a row constant) to the shifts",
     sbw_verify_mos_property2},
    {"proposition1",
     "Softmax reproduces P* exactly iff d >= d* = rank(A_c): truncated SVD exact at d*, "
     "shift-aware bound > 0 and never beaten by a fit below d*, fit KL ~ 0 at d*",
     "MoS Lemma 1 / Proposition 1 (section 2.2); LMS Theorem 1 (shift-aware form)",
     "the construction at d* off by more than a small multiple of eps sigma_0, a zero bound "
     "below d*, a fit error below the bound, or a fit at d* with KL above 1e-8",
     "perturb (construction's logits + noise), bound_shift (bound raised), fit_steps (fit at d* "
     "stopped early)",
     sbw_verify_mos_proposition1},
    {"corollary1",
     "the threshold d < rank(A) - 1 is tight for Softmax-generated languages (rank(A) = d* + 1) "
     "and not for a wide Dirichlet language (N < M: rank(A) = d* = N)",
     "MoS Corollary 1 (section 2.2) with Property 2",
     "rank(A) != d* + 1 on a Softmax language, the construction at rank(A) - 1 inexact, or a "
     "wide Dirichlet language with rank(A) != N, d* != N or a zero bound at rank(A) - 1",
     "offset: the claimed rank(A) = d* + 1 + offset; perturb: noise on the construction",
     sbw_verify_mos_corollary1},
    {"moc",
     "a fitted MoC head's log Q has rank <= D + 1 (D + 2 with a word bias) for every K; a MoS "
     "head's exceeds it",
     "MoS section 2.5 (Mixture of Contexts is Softmax in disguise)",
     "an MoC log Q with numerical rank above D + 1 (D + 2), or an MoS log Q that does not "
     "exceed it",
     "offset: the limit becomes D + 1 + offset (D + 2 + offset)", sbw_verify_heads_moc},
    {"mixtape",
     "a fitted Mixtape head's log Q (K = 4) has rank above D + 1 (D + 2 with a word bias): the "
     "Softmax bound does not hold; with gate sharing it stays <= D + F + 1 (+1), F = ceil(M/10)",
     "Yang, Luong, Salakhutdinov and Le, NeurIPS 2019 (Mixtape: Breaking the Softmax "
     "Bottleneck Efficiently), section 3; the gate-sharing bound is sbw's (docs/DESIGN.md)",
     "a Mixtape log Q with numerical rank at or below D + 1 (D + 2), or above D + F + 1 (+1)",
     "offset: both limits raised by offset (F + 1 puts the lower one above the rank)",
     sbw_verify_heads_mixtape},
    {"theorem1",
     "every Softmax fit's Frobenius error is >= sqrt(sum_{i>=d+2} sigma_i^2) and >= the "
     "shift-aware bound, and the shift-aware bound is attained: a BFGS fit of ||A - H W^T - "
     "c 1^T||_F from a random start lands on it",
     "LMS Theorem 1 (section 3, proof in appendix A; the paper's left side is the norm)",
     "a fit (trained on KL, or on the Frobenius error as a Softmax head) whose ||A - log Q||_F "
     "is below either bound, or a Frobenius fit with a free row shift more than 1e-7 relative "
     "away from the shift-aware bound (above or below)",
     "offset: the fit uses dimension d + offset while the bounds stay at d; bound_shift (both "
     "bounds times 1 + bound_shift: 0.05 or -0.05 fails); fit_steps (the fits stopped early)",
     sbw_verify_lms_theorem1},
    {"theorem5",
     "rank(A^{op}) <= min(N, M, C(d+p-1, p)) for rank-d A, p = 1..5, with equality for "
     "generic A",
     "LMS Theorem 5 (Amini et al. 2012), section 4",
     "a Hadamard power whose numerical rank exceeds the bound, or a generic one below it",
     "offset: the bound becomes min(N, M, C(d+p-1, p)) + offset", sbw_verify_lms_theorem5},
    {"theorem6",
     "x^2 pointwise makes a generic rank-(N-1) N x N matrix full rank for N >= 3; at N = 2 a "
     "rank-1 matrix squared stays rank 1 (the paper's N > 1 is a counterexample there)",
     "LMS Theorem 6 (section 4, proof in appendix E)",
     "a sample of rank N - 1 whose square is not full rank (N >= 3), or an N = 2 square of rank "
     "other than 1",
     "tol_scale: the rank threshold (NumPy's rule on exact integer factors) times tol_scale",
     sbw_verify_lms_theorem6},
    {"theorem2",
     "min_h H(P*, Q_h) equals the maximum entropy under the d + 1 constraints sum R = 1, "
     "E_R[w] = E_P*[w], and the maximiser is Q_h*",
     "LMS Theorem 2 (section 3, proof in appendix B)",
     "the two optima (each solved numerically) differ by more than 1e-9 (1 + |H|), the "
     "maximiser violates a constraint, or H(P*, Q) < H(P*)",
     "fit_steps (both optimisers stopped after that many iterations), bound_shift (one side "
     "shifted by bound_shift)",
     sbw_verify_lms_theorem2},
    {"monotone",
     "LMS and PLIF heads never reverse the order of a context's logits: the argmax of W h is an "
     "argmax of Q",
     "LMS section 4 (increasing f preserves the ranking of logits)",
     "a context with z_i > z_j but log Q_i < log Q_j - tie (tie = 8 eps max(1, |log Q|): equal "
     "values from saturation count as ties, not reversals)",
     "perturb: adds perturb * N(0,1) to log Q before the comparison", sbw_verify_heads_monotone},
    {"model-rank",
     "the NR rank of a Softmax head's exported log Q is D + 1 (D + 2 with bias) in float64; the "
     "same matrix stored in float32 is full rank at double eps and D + 1 at float eps",
     "MoS Appendix C.1 (the NR rank); sbw-rank's dtype-aware eps",
     "a float64 export whose rank is not D + 1 (D + 2), a float32 copy not full rank at "
     "DBL_EPSILON, or not D + 1 (D + 2) at FLT_EPSILON",
     "offset: the claimed rank becomes D + 1 + offset", sbw_verify_heads_model_rank},
    {"hidden-size",
     "a Softmax head's hidden size D is read off its outputs: the double-centred log Q of N "
     "contexts drops after D values, found exactly with a certificate from float64 outputs and "
     "as D (certified or probable) from bfloat16-rounded ones; the proven lower bound never "
     "exceeds D",
     "Carlini et al. 2024 (Stealing Part of a Production Language Model), section 4; Finlayson, "
     "Ren and Swayamdipta 2024 (Logits of API-Protected LLMs Leak Proprietary Information); the "
     "rounding floor is sbw's (analysis/sbw_hidden.h)",
     "a recovered size other than D, a float64 verdict that is not certified (bfloat16: neither "
     "certified nor probable), or a proven lower bound above D",
     "offset: the claimed D becomes D + offset; perturb: adds perturb * N(0,1) to log Q (noise "
     "above the rounding)",
     sbw_verify_hidden_size},
    {"argmax-monotone",
     "a strictly increasing pointwise map f (LMS, PLIF) keeps a head's argmaxable set: the words "
     "some context makes the strict argmax of f(W h + b) are exactly sbw-argmax's words of "
     "W h + b",
     "LMS section 4 (order preservation) with Grivas et al. 2022 (argmaxable words); issue 17",
     "a planted interior word not found or a sphere word called interior, an argmaxable word whose "
     "certificate h does not put it strictly first under f, or a sampled context whose strict "
     "argmax under f is unargmaxable or differs from the argmax of W h + b",
     "perturb: adds perturb * N(0,1) to f(W h + b) before every comparison",
     sbw_verify_argmax_monotone},
    {"argmax-mos",
     "a MoS with a shared output embedding, sum_k pi_k softmax(W h_k + b), never makes a "
     "Softmax-unargmaxable word the strict argmax (w_i = sum_j lambda_j w_j gives P_i <= "
     "sum_j lambda_j P_j by Jensen in each component); with per-component embeddings W_k it can, "
     "even for a word inside every W_k's hull (exhibited)",
     "issue 17's MoS claim, corrected (MoS Yang et al. 2018 section 3; Grivas et al. 2022)",
     "a shared-W mixture with P_i > sum_j lambda_j P_j + tol or a planted word strictly first; "
     "or no pi, h_k found that puts a word unargmaxable in every W_k strictly first",
     "perturb (components use W + perturb E_k: no longer shared), offset (the exhibit uses "
     "K + offset components; K = 1 is a Softmax)",
     sbw_verify_argmax_mos},
};
const size_t sbw_verify_nclaims = sizeof sbw_verify_claims / sizeof *sbw_verify_claims;

void sbw_verify_opts_init(sbw_verify_opts *o)
{
    *o = (sbw_verify_opts){.seed = SBW_RNG_DEFAULT_SEED, .tol_scale = 1.0};
}

const char *sbw_verify_rel_name(sbw_verify_rel rel)
{
    static const char *const names[] = {"<=", "<", ">=", ">", "=="};
    return (unsigned)rel < 5 ? names[rel] : "?";
}

static bool holds(double v, sbw_verify_rel rel, double lim)
{
    switch (rel) {
    case SBW_VERIFY_LE:
        return v <= lim;
    case SBW_VERIFY_LT:
        return v < lim;
    case SBW_VERIFY_GE:
        return v >= lim;
    case SBW_VERIFY_GT:
        return v > lim;
    case SBW_VERIFY_EQ:
        return v == lim;
    }
    return false;
}

int sbw_verify_add(sbw_verify_list *l, const char *claim, const char *quantity, double value,
                   sbw_verify_rel rel, double limit, const char *fmt, ...)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        sbw_verify_result *r = realloc(l->r, cap * sizeof *r);
        if (!r)
            return SBW_ERROR(SBW_ENOMEM, "no memory for %zu results", cap);
        l->r = r, l->cap = cap;
    }
    sbw_verify_result *r = &l->r[l->n++];
    r->claim = claim;
    snprintf(r->quantity, sizeof r->quantity, "%s", quantity);
    va_list ap;
    va_start(ap, fmt);
    /* clang-analyzer 14 misses the va_start above (a known false positive). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(r->setting, sizeof r->setting, fmt, ap);
    va_end(ap);
    r->value = value, r->rel = rel, r->limit = limit;
    r->pass = holds(value, rel, limit);
    return SBW_OK;
}

void sbw_verify_list_free(sbw_verify_list *l)
{
    free(l->r);
    *l = (sbw_verify_list){0};
}

const sbw_verify_claim *sbw_verify_find(const char *name)
{
    for (size_t i = 0; i < sbw_verify_nclaims; i++)
        if (strcmp(sbw_verify_claims[i].name, name) == 0)
            return &sbw_verify_claims[i];
    return NULL;
}

const char *sbw_verify_names(void)
{
    static char buf[512];
    if (!buf[0]) {
        size_t used = 0;
        for (size_t i = 0; i < sbw_verify_nclaims && used < sizeof buf; i++)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? ", " : "",
                                     sbw_verify_claims[i].name);
    }
    return buf;
}

int sbw_verify_select(const char *list, bool *sel)
{
    bool all = !list || !*list;
    for (size_t i = 0; i < sbw_verify_nclaims; i++)
        sel[i] = all;
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        bool found = false;
        for (size_t i = 0; i < sbw_verify_nclaims; i++)
            if (strlen(sbw_verify_claims[i].name) == len &&
                strncmp(sbw_verify_claims[i].name, p, len) == 0)
                sel[i] = found = true;
        if (!found)
            return SBW_ERROR(SBW_EINVAL, "unknown claim '%.*s'; valid claims: %s", (int)len, p,
                             sbw_verify_names());
        p += len + (p[len] == ',');
    }
    return SBW_OK;
}

int sbw_verify_run(const sbw_verify_claim *c, const sbw_verify_opts *o, sbw_verify_list *out,
                   sbw_progress *progress)
{
    int st = c->run(o, out);
    if (progress)
        sbw_progress_update(progress, progress->done + 1);
    return st;
}

bool sbw_verify_claim_passed(const sbw_verify_list *l, const char *name)
{
    size_t seen = 0;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->r[i].claim, name) == 0) {
            if (!l->r[i].pass)
                return false;
            seen++;
        }
    return seen > 0;
}

uint64_t sbw_verify_seed(const sbw_verify_opts *o, const char *name, unsigned i)
{
    uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a */
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
    return sbw_rng_mix(o->seed ^ sbw_rng_mix(h + i));
}
