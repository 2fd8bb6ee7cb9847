/* test_verify.c -- the papers' claims as checks that can fail: every claim
 * passes at the quick sizes, and every claim FAILs when its check is
 * broken on purpose (a perturbed construction, a wrong threshold, a
 * shifted bound, a fit stopped early, an offset rank), so none passes
 * vacuously; the registry, selection and result relations; the helpers
 * against matrices of known rank; seeds reproduce. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_reduce.h"
#include "sbw_rng.h"
#include "sbw_synth.h"
#include "sbw_verify.h"
#include "sbw_verify_argmax.h"
#include "sbw_verify_frob.h"
#include "sbw_verify_util.h"

#include <gsl/gsl_randist.h>

#include <float.h>
#include <math.h>
#include <string.h>

static size_t count_claim(const sbw_verify_list *l, const char *name, size_t *failed)
{
    size_t n = 0;
    *failed = 0;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->r[i].claim, name) == 0) {
            n++;
            *failed += !l->r[i].pass;
        }
    return n;
}

/* Every claim, as stated, at the quick sizes and the default seed. */
static void test_all_claims_pass(void **state)
{
    (void)state;
    sbw_verify_opts o;
    sbw_verify_opts_init(&o);
    o.threads = 2;
    for (size_t i = 0; i < sbw_verify_nclaims; i++) {
        sbw_verify_list l = {0};
        const char *name = sbw_verify_claims[i].name;
        SBW_ASSERT_OK(sbw_verify_run(&sbw_verify_claims[i], &o, &l, NULL));
        size_t failed = 0, n = count_claim(&l, name, &failed);
        for (size_t k = 0; k < l.n; k++)
            if (!l.r[k].pass)
                print_message("%s FAILED: %s = %g %s %g (%s)\n", name, l.r[k].quantity,
                              l.r[k].value, sbw_verify_rel_name(l.r[k].rel), l.r[k].limit,
                              l.r[k].setting);
        SBW_ASSERT_GE(n, (size_t)2);
        SBW_ASSERT_EQ(failed, (size_t)0);
        assert_true(sbw_verify_claim_passed(&l, name));
        sbw_verify_list_free(&l);
    }
}

/* One way to break a claim: the knob and its value. */
typedef struct breaker {
    const char *claim, *what;
    double tol_scale, perturb, bound_shift;
    long offset;
    size_t fit_steps;
} breaker;

static const breaker breakers[] = {
    {"property1", "shift not a row constant", 1, 1e-6, 0, 0, 0},
    {"property2", "rank-one non-constant shift", 1, 1, 0, 0, 0},
    {"proposition1", "perturbed construction", 1, 1e-6, 0, 0, 0},
    {"proposition1", "bound doubled", 1, 0, 1, 0, 0},
    {"proposition1", "fit stopped after 3 steps", 1, 0, 0, 0, 3},
    {"corollary1", "claimed rank(A) - d* off by one", 1, 0, 0, 1, 0},
    {"corollary1", "perturbed construction", 1, 1e-6, 0, 0, 0},
    {"moc", "limit D + 1 - 1", 1, 0, 0, -1, 0},
    {"mixtape", "lower limit raised past D + F + 1", 1, 0, 0, 4, 0},
    {"mixtape", "gate-sharing bound lowered by one", 1, 0, 0, -1, 0},
    {"theorem1", "fit at d + 4, bounds at d", 1, 0, 0, 4, 0},
    {"theorem1", "bounds doubled", 1, 0, 1, 0, 0},
    {"theorem1", "bounds raised by 5%", 1, 0, 0.05, 0, 0},
    {"theorem1", "bounds lowered by 5%", 1, 0, -0.05, 0, 0},
    {"theorem1", "fits stopped after 20 iterations", 1, 0, 0, 0, 20},
    {"theorem5", "bound minus one", 1, 0, 0, -1, 0},
    {"theorem5", "bound plus one (not tight)", 1, 0, 0, 1, 0},
    {"theorem6", "rank threshold times 1e14", 1e14, 0, 0, 0, 0},
    {"theorem2", "optimisers stopped after 1 step", 1, 0, 0, 0, 1},
    {"theorem2", "one side shifted by 1e-6", 1, 0, 1e-6, 0, 0},
    {"monotone", "log Q perturbed", 1, 1, 0, 0, 0},
    {"model-rank", "claimed rank D + 2", 1, 0, 0, 1, 0},
    {"hidden-size", "claimed D + 1", 1, 0, 0, 1, 0},
    {"hidden-size", "claimed D - 1 (below the proven lower bound)", 1, 0, 0, -1, 0},
    {"hidden-size", "log Q perturbed by 1e-3 (noise above the rounding)", 1, 1e-3, 0, 0, 0},
    {"argmax-monotone", "f(W h + b) perturbed", 1, 1, 0, 0, 0},
    {"argmax-mos", "components' W perturbed (no longer shared)", 1, 1, 0, 0, 0},
    {"argmax-mos", "exhibit with K - 1 = 1 component (a Softmax)", 1, 0, 0, -1, 0},
};

/* Each breaker makes its claim FAIL; every claim has one. */
static void test_every_claim_can_fail(void **state)
{
    (void)state;
    size_t nb = sizeof breakers / sizeof *breakers;
    for (size_t i = 0; i < sbw_verify_nclaims; i++) {
        bool covered = false;
        for (size_t b = 0; b < nb; b++)
            covered |= strcmp(breakers[b].claim, sbw_verify_claims[i].name) == 0;
        if (!covered)
            fail_msg("claim %s has no breaker", sbw_verify_claims[i].name);
    }
    for (size_t b = 0; b < nb; b++) {
        const breaker *k = &breakers[b];
        sbw_verify_opts o;
        sbw_verify_opts_init(&o);
        o.threads = 2, o.tol_scale = k->tol_scale, o.perturb = k->perturb;
        o.bound_shift = k->bound_shift, o.offset = k->offset, o.fit_steps = k->fit_steps;
        const sbw_verify_claim *c = sbw_verify_find(k->claim);
        assert_non_null(c);
        sbw_verify_list l = {0};
        SBW_ASSERT_OK(sbw_verify_run(c, &o, &l, NULL));
        size_t failed = 0;
        SBW_ASSERT_GE(count_claim(&l, k->claim, &failed), (size_t)1);
        if (failed == 0)
            fail_msg("%s still passes when broken by: %s", k->claim, k->what);
        assert_false(sbw_verify_claim_passed(&l, k->claim));
        sbw_verify_list_free(&l);
    }
}

static void test_registry(void **state)
{
    (void)state;
    bool sel[64];
    SBW_ASSERT_EQ(sbw_verify_nclaims, (size_t)15);
    for (size_t i = 0; i < sbw_verify_nclaims; i++) {
        const sbw_verify_claim *c = &sbw_verify_claims[i];
        assert_ptr_equal(sbw_verify_find(c->name), c);
        assert_non_null(strstr(sbw_verify_names(), c->name));
        assert_true(c->statement[0] && c->source[0] && c->fails[0] && c->breaks[0]);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(c->name, sbw_verify_claims[j].name);
    }
    assert_null(sbw_verify_find("theorem3"));
    SBW_ASSERT_OK(sbw_verify_select(NULL, sel));
    for (size_t i = 0; i < sbw_verify_nclaims; i++)
        assert_true(sel[i]);
    SBW_ASSERT_OK(sbw_verify_select("theorem6,property1", sel));
    for (size_t i = 0; i < sbw_verify_nclaims; i++)
        SBW_ASSERT_EQ(sel[i], strcmp(sbw_verify_claims[i].name, "theorem6") == 0 ||
                                  strcmp(sbw_verify_claims[i].name, "property1") == 0);
    SBW_ASSERT_EQ(sbw_verify_select("property1,nope", sel), (int)SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "unknown claim 'nope'"));
    assert_non_null(strstr(sbw_error_reason(), "model-rank"));
    SBW_ASSERT_EQ(sbw_verify_select("property", sel), (int)SBW_EINVAL); /* no prefixes */
}

static void test_relations(void **state)
{
    (void)state;
    sbw_verify_list l = {0};
    static const struct {
        double v, lim;
        sbw_verify_rel rel;
        bool pass;
    } cases[] = {{1, 1, SBW_VERIFY_LE, true},    {1, 1, SBW_VERIFY_LT, false},
                 {2, 1, SBW_VERIFY_GE, true},    {1, 1, SBW_VERIFY_GT, false},
                 {3, 3, SBW_VERIFY_EQ, true},    {3, 4, SBW_VERIFY_EQ, false},
                 {NAN, 1, SBW_VERIFY_LE, false}, {NAN, 1, SBW_VERIFY_GE, false}};
    size_t nc = sizeof cases / sizeof *cases;
    for (size_t i = 0; i < nc; i++)
        SBW_ASSERT_OK(
            sbw_verify_add(&l, "x", "q", cases[i].v, cases[i].rel, cases[i].lim, "case %zu", i));
    SBW_ASSERT_EQ(l.n, nc);
    for (size_t i = 0; i < nc; i++)
        SBW_ASSERT_EQ(l.r[i].pass, cases[i].pass);
    assert_string_equal(l.r[3].setting, "case 3");
    assert_false(sbw_verify_claim_passed(&l, "x"));
    assert_false(sbw_verify_claim_passed(&l, "absent"));
    char big[400];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    SBW_ASSERT_OK(sbw_verify_add(&l, "y", "q", 0, SBW_VERIFY_EQ, 0, "%s", big));
    SBW_ASSERT_EQ(strlen(l.r[l.n - 1].setting), sizeof l.r[0].setting - 1);
    assert_true(sbw_verify_claim_passed(&l, "y"));
    assert_string_equal(sbw_verify_rel_name(SBW_VERIFY_GE), ">=");
    sbw_verify_list_free(&l);
    SBW_ASSERT_EQ(l.n, (size_t)0);
}

/* The helpers on matrices whose ranks are known by construction. */
/* sbw_verify_util_rank_work (the claims' repeated ranks) answers as the
 * allocating rules do, for both rules over thresholds swept across the
 * whole spectrum (scale 10^-2 .. 10^17 puts the cut between every pair of
 * values of this rank-5 matrix and the roundoff tail), in one dirty
 * workspace at a misaligned start; one byte short is SBW_EINVAL with
 * *rank untouched. */
static void test_rank_work(void **state)
{
    (void)state;
    const size_t shapes[][2] = {{70, 30}, {30, 70}, {60, 40}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = shapes[i][0], m = shapes[i][1], bytes = 0;
        sbw_mat a = {0};
        SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
        SBW_ASSERT_OK(sbw_synth_lowrank(&a, 4, 1.0, false, 3 + i));
        SBW_ASSERT_OK(sbw_verify_util_rank_work_size(n, m, &bytes));
        unsigned char *buf = malloc(bytes + 8);
        assert_non_null(buf);
        memset(buf, 0x5a, bytes + 8);
        for (int e = 0; e < 40; e++) {
            double scale = 1e-2 * pow(3.0, e); /* up to 1.2e17 */
            size_t r = 0, rw = 99, rn = 0, rnw = 99;
            SBW_ASSERT_OK(sbw_verify_util_rank(&a, DBL_EPSILON, scale, &r));
            SBW_ASSERT_OK(
                sbw_verify_util_rank_work(&a, DBL_EPSILON, scale, false, buf + 8, bytes, &rw));
            SBW_ASSERT_EQ(rw, r);
            SBW_ASSERT_OK(sbw_verify_util_rank_numpy(&a, scale, &rn));
            SBW_ASSERT_OK(sbw_verify_util_rank_work(&a, 0, scale, true, buf + 8, bytes, &rnw));
            SBW_ASSERT_EQ(rnw, rn);
        }
        size_t keep = 77;
        assert_int_equal(
            sbw_verify_util_rank_work(&a, DBL_EPSILON, 1, false, buf, bytes - 1, &keep),
            SBW_EINVAL);
        SBW_ASSERT_EQ(keep, (size_t)77);
        free(buf);
        sbw_mat_free(&a);
    }
}

static void test_helpers(void **state)
{
    (void)state;
    sbw_mat a = {0}, lg = {0}, lq = {0};
    size_t r = 0, n = 70, m = 30;
    double sc[30];
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_mat_alloc(&lq, n, m));
    SBW_ASSERT_OK(sbw_synth_lowrank(&a, 4, 1.0, false, 3));
    SBW_ASSERT_OK(sbw_verify_util_rank(&a, DBL_EPSILON, 1, &r));
    SBW_ASSERT_EQ(r, (size_t)5); /* sbw_synth.h: rank(A) = R + 1 */
    SBW_ASSERT_OK(sbw_verify_util_rank_numpy(&a, 1, &r));
    SBW_ASSERT_EQ(r, (size_t)5);
    SBW_ASSERT_OK(sbw_verify_util_rank(&a, DBL_EPSILON, 1e20, &r));
    SBW_ASSERT_EQ(r, (size_t)0); /* threshold above w0 */
    /* the construction at d* = 4 reproduces A; its logits differ from A by
     * a row constant, at d = 3 they do not */
    SBW_ASSERT_OK(sbw_verify_util_truncate(&a, 4, &lg, sc));
    SBW_ASSERT_LT(sbw_verify_util_row_spread(&lg, &a), 1e3 * DBL_EPSILON * sc[0]);
    sbw_verify_util_log_softmax(&lg, &lq);
    double err = 0;
    SBW_ASSERT_OK(sbw_mat_max_abs_diff(&lq, &a, &err));
    SBW_ASSERT_LT(err, 1e3 * DBL_EPSILON * sc[0]);
    SBW_ASSERT_LT(sc[4], 1e3 * DBL_EPSILON * sc[0]);
    SBW_ASSERT_GT(sc[3], 1e-3 * sc[0]);
    sbw_mat_free(&lg);
    SBW_ASSERT_OK(sbw_verify_util_truncate(&a, 3, &lg, NULL));
    SBW_ASSERT_GT(sbw_verify_util_row_spread(&lg, &a), 1e-3);
    /* two-pass centring: rows sum to 0 at the scale of the centred values,
     * and the rank drops to d* = R (one pass leaves a rank-one row constant
     * of eps |A| per row, above the NR threshold of the centred matrix) */
    SBW_ASSERT_OK(sbw_mat_copy(&lq, &a));
    sbw_reduce_centre_rows(&lq); /* verify centres with the analysis one */
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t j = 0; j < m; j++)
            s += SBW_MAT_AT(&lq, i, j);
        SBW_ASSERT_LT(fabs(s), 4 * DBL_EPSILON * (double)m * 10);
    }
    SBW_ASSERT_OK(sbw_verify_util_rank(&lq, DBL_EPSILON, 1, &r));
    SBW_ASSERT_EQ(r, (size_t)4); /* d* = R */
    SBW_ASSERT_NEAR(sbw_verify_util_frob(&(sbw_mat){2, 2, 2, (double[]){3, 0, 0, -4}, false}), 5.0,
                    1e-15);
    SBW_ASSERT_NEAR(sbw_verify_util_maxabs(&(sbw_mat){1, 2, 2, (double[]){3, -4}, false}), 4.0, 0);
    sbw_mat_free(&a);
    sbw_mat_free(&lg);
    sbw_mat_free(&lq);
}

/* The same seed gives the same numbers; another seed other matrices; a
 * claim's seeds do not depend on which other claims run. */
static void test_seeds(void **state)
{
    (void)state;
    sbw_verify_opts o;
    sbw_verify_opts_init(&o);
    sbw_verify_list a = {0}, b = {0}, c = {0};
    const sbw_verify_claim *k = sbw_verify_find("property1");
    SBW_ASSERT_OK(sbw_verify_run(k, &o, &a, NULL));
    SBW_ASSERT_OK(sbw_verify_run(k, &o, &b, NULL));
    o.seed = 7;
    SBW_ASSERT_OK(sbw_verify_run(k, &o, &c, NULL));
    SBW_ASSERT_EQ(a.n, b.n);
    SBW_ASSERT_EQ(a.n, c.n);
    for (size_t i = 0; i < a.n; i++) {
        SBW_ASSERT_EQ(a.r[i].value, b.r[i].value);
        assert_string_equal(a.r[i].setting, b.r[i].setting);
        assert_string_not_equal(a.r[i].setting, c.r[i].setting);
    }
    SBW_ASSERT_NE(sbw_verify_seed(&o, "property1", 0), sbw_verify_seed(&o, "property2", 0));
    SBW_ASSERT_NE(sbw_verify_seed(&o, "property1", 0), sbw_verify_seed(&o, "property1", 1));
    sbw_verify_list_free(&a);
    sbw_verify_list_free(&b);
    sbw_verify_list_free(&c);
}

/* The Jensen check's allowance against a certificate that is off by what
 * mos_certified accepts: word 0 = sum lambda_j w_j + delta u (residual
 * delta = 1e-9 along u); the other words share their component along u,
 * so at h = s u their logits tie, Jensen is tight and P_0 - sum lambda P_j
 * = expm1(delta s) mix, far above rounding.  Mixtures of such contexts (s
 * up to 16, every other trial with noise) stay within
 * sbw_verify_argmax_jensen_tol (the bound can fail if wrong), and some
 * pass the rounding term alone (16 (K + D + 2) eps): a check without the
 * certificate term would FAIL a true claim. */
static void test_argmax_jensen_tol(void **state)
{
    (void)state;
    enum { M = 6, D = 3, K = 3 };
    double w[M * D], lam[M] = {0, 0.2, 0.3, 0.1, 0.25, 0.15}, u[D] = {0.6, -0.8, 0};
    double delta = 1e-9, rounding = 16.0 * (K + D + 2) * DBL_EPSILON;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 5, 0));
    for (size_t j = 1; j < M; j++) { /* v_j orthogonal to u, plus 0.3 u */
        double al = gsl_ran_gaussian(r, 1.0), be = gsl_ran_gaussian(r, 1.0);
        w[j * D + 0] = 0.8 * al + 0.3 * u[0];
        w[j * D + 1] = 0.6 * al + 0.3 * u[1];
        w[j * D + 2] = be;
    }
    double res = 0;
    for (size_t k = 0; k < D; k++) {
        double c = 0;
        for (size_t j = 1; j < M; j++)
            c += lam[j] * w[j * D + k];
        w[k] = c + delta * u[k];
        res = fmax(res, fabs(c - w[k])); /* ||r||_inf as stored */
    }
    SBW_ASSERT_LE(res, 1e-9);
    double hs[K * D], pi[K], z[M], p[M], worst = -INFINITY, over_rounding = 0;
    for (int trial = 0; trial < 300; trial++) {
        double h1 = 0, alpha[K] = {1, 1, 1}, mix = 0, noise = trial % 2 ? 0.1 : 0;
        gsl_ran_dirichlet(r, K, alpha, pi);
        for (size_t c = 0; c < K; c++) {
            double s = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 4 : 16, n1 = 0;
            for (size_t k = 0; k < D; k++)
                n1 += fabs(hs[c * D + k] = s * u[k] + noise * gsl_ran_gaussian(r, 1.0));
            h1 = fmax(h1, n1);
        }
        sbw_verify_argmax_mixture(w, 0, M, D, NULL, hs, pi, K, z, p);
        for (size_t j = 1; j < M; j++)
            mix += lam[j] * p[j];
        double allow = sbw_verify_argmax_jensen_tol(rounding, res, 0, h1, mix);
        worst = fmax(worst, p[0] - mix - allow);
        over_rounding += p[0] - mix > rounding;
    }
    SBW_ASSERT_LE(worst, 0.0);
    SBW_ASSERT_GT(over_rounding, 0.0);
    SBW_ASSERT_EQ(sbw_verify_argmax_jensen_tol(rounding, NAN, NAN, 10, 0.5), rounding);
    SBW_ASSERT_GT(sbw_verify_argmax_jensen_tol(0, 0, 1e-6, 0, 0.5), 0.5e-6 * (1 - 1e-6));
    SBW_ASSERT_EQ(sbw_verify_argmax_jensen_tol(rounding, 0, -0.1, 10, 0.5), rounding);
    sbw_rng_free(r);
}

/* The one-dimensional exhibit of sbw_verify_argmax.h by hand: W_1 = (1,
 * 0.99, -1), W_2 = (1, -0.99, -1), h = (1, -1), pi = 1/2: the middle word,
 * inside both hulls, is first (P = 0.267, 0.466, 0.267); with W_1 shared it
 * is not. */
static void test_argmax_mixture(void **state)
{
    (void)state;
    double w[6] = {1, 0.99, -1, 1, -0.99, -1}, h[2] = {1, -1}, pi[2] = {0.5, 0.5}, z[3], p[3];
    sbw_verify_argmax_mixture(w, 3, 3, 1, NULL, h, pi, 2, z, p);
    double zs = exp(1.0) + exp(0.99) + exp(-1.0);
    double want[3] = {0.5 * (exp(1.0) + exp(-1.0)) / zs, exp(0.99) / zs,
                      0.5 * (exp(1.0) + exp(-1.0)) / zs};
    SBW_ASSERT_CLOSE(p, want, 3, 0, 8 * DBL_EPSILON);
    SBW_ASSERT_GT(p[1] - p[0], 0.19);
    /* shared W_1: word 1 below the mean of its neighbours (Jensen) */
    sbw_verify_argmax_mixture(w, 0, 3, 1, NULL, h, pi, 2, z, p);
    SBW_ASSERT_LE(p[1], (1 - 0.995) * p[2] + 0.995 * p[0]);
    /* a bias is shared by the components: b = (0, 1, 0) lifts the middle word */
    double b[3] = {0, 1, 0};
    sbw_verify_argmax_mixture(w, 0, 3, 1, b, h, pi, 2, z, p);
    SBW_ASSERT_GT(p[1], p[0]);
}

/* The Frobenius fit recovers a matrix inside its class (error ~ 0 against
 * ||A||_F): H W^T + c 1^T with a free shift, log_softmax(H W^T) as a
 * Softmax head; a rank-d A is not fitted at d - 1; d = 0 is refused. */
static void test_frob_fit(void **state)
{
    (void)state;
    size_t n = 12, m = 9, d = 3;
    sbw_mat h = {0}, w = {0}, a = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&h, n, d));
    SBW_ASSERT_OK(sbw_mat_alloc(&w, m, d));
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_verify_util_gauss(&h, 1.0, 5, 1));
    SBW_ASSERT_OK(sbw_verify_util_gauss(&w, 1.0, 5, 2));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
            double z = 0;
            for (size_t k = 0; k < d; k++)
                z += SBW_MAT_AT(&h, i, k) * SBW_MAT_AT(&w, j, k);
            SBW_MAT_AT(&a, i, j) = z;
        }
    double err = NAN, norm = 0;
    sbw_verify_util_log_softmax(&a, &a);
    norm = sbw_verify_util_frob(&a);
    SBW_ASSERT_OK(sbw_verify_frob_fit(&a, d, SBW_VERIFY_FROB_SOFTMAX, 20000, 9, &err));
    SBW_ASSERT_LE(err, 1e-6 * norm);
    SBW_ASSERT_OK(sbw_verify_frob_fit(&a, d, SBW_VERIFY_FROB_FREE, 20000, 9, &err));
    SBW_ASSERT_LE(err, 1e-6 * norm);
    SBW_ASSERT_OK(sbw_verify_frob_fit(&a, d - 1, SBW_VERIFY_FROB_FREE, 20000, 9, &err));
    SBW_ASSERT_GT(err, 1e-3 * norm);
    SBW_ASSERT_EQ(sbw_verify_frob_fit(&a, 0, SBW_VERIFY_FROB_FREE, 10, 9, &err), (int)SBW_EINVAL);
    sbw_mat_free(&h);
    sbw_mat_free(&w);
    sbw_mat_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),        cmocka_unit_test(test_relations),
        cmocka_unit_test(test_helpers),         cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_all_claims_pass), cmocka_unit_test(test_every_claim_can_fail),
        cmocka_unit_test(test_argmax_mixture),  cmocka_unit_test(test_argmax_jensen_tol),
        cmocka_unit_test(test_frob_fit),        cmocka_unit_test(test_rank_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
