/* test_argmax_trunc.c -- basis-aware truncation (sbw_argmax_trunc) against
 * an exact twin: GLPK's rational simplex (glp_exact) on the feasibility
 * problem written plainly, with phat as fixed columns so no sum is
 * rounded:
 *   A^T q - A^T r = 0,  q_j - sigma r_j <= 0,  r_j = phat_j,  q_i = 0,  q >= 0
 * (no bound rows when sigma = inf).  Every certified answer must be the
 * twin's, every certificate passes its check, corrupted ones are caught,
 * the threshold rule is the certificate y = e_d, the exact path decides
 * a g(y) a few ulps from 0, and the error paths are provoked. */
#include "sbw_argmax_cert.h"
#include "sbw_argmax_trunc.h"
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_rng.h"

#include <glpk.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* n N(0, s^2) values of stream (caller frees). */
static double *gauss(uint64_t stream, size_t n, double s)
{
    gsl_rng *g = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&g, 3131, stream));
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_ran_gaussian(g, s);
    gsl_rng_free(g);
    return x;
}

/* n contexts: logp rows = log softmax(W h_c), h_c of scale hs (n x m). */
static double *outputs(const double *w, size_t m, size_t d, size_t n, double hs, uint64_t stream)
{
    double *h = gauss(stream, n * d, hs), *l = malloc(n * m * sizeof *l);
    assert_non_null(l);
    for (size_t c = 0; c < n; c++) {
        double mx = -INFINITY, s = 0;
        for (size_t j = 0; j < m; j++) {
            double z = 0;
            for (size_t k = 0; k < d; k++)
                z += w[j * d + k] * h[c * d + k];
            l[c * m + j] = z;
            mx = fmax(mx, z);
        }
        for (size_t j = 0; j < m; j++)
            s += exp(l[c * m + j] - mx);
        for (size_t j = 0; j < m; j++)
            l[c * m + j] -= mx + log(s);
    }
    free(h);
    return l;
}

/* The twin: 1 when F_i is empty (p*_i > 0 proven), 0 when not, by GLPK's
 * exact rational simplex on the problem as written in the header (with
 * exact false, its double simplex on the same problem: for sizes where
 * the rational one takes minutes). */
static int twin_keep(const double *w, size_t m, size_t d, const double *p, double sigma, size_t i,
                     bool exact)
{
    glp_prob *P = glp_create_prob();
    int bounded = !isinf(sigma), nrow = (int)(d + 1) + (bounded ? (int)m : 0);
    glp_add_rows(P, nrow);
    glp_add_cols(P, 2 * (int)m); /* q_j: 1..m, r_j: m+1..2m */
    int *ind = malloc((size_t)(nrow + 1) * sizeof *ind);
    double *val = malloc((size_t)(nrow + 1) * sizeof *val);
    for (int r = 1; r <= nrow; r++)
        glp_set_row_bnds(P, r, r <= (int)d + 1 ? GLP_FX : GLP_UP, 0.0, 0.0);
    for (size_t j = 0; j < m; j++) {
        for (int side = 0; side < 2; side++) {
            int n = 0;
            for (size_t k = 0; k <= d; k++) {
                double a = k < d ? w[j * d + k] : 1.0;
                ind[++n] = (int)k + 1;
                val[n] = side ? -a : a;
            }
            if (bounded) {
                ind[++n] = (int)(d + 2 + j);
                val[n] = side ? -sigma : 1.0;
            }
            int col = (int)j + 1 + (side ? (int)m : 0);
            glp_set_mat_col(P, col, n, ind, val);
            if (side)
                glp_set_col_bnds(P, col, GLP_FX, p[j], p[j]);
            else
                glp_set_col_bnds(P, col, j == i ? GLP_FX : GLP_LO, 0.0, 0.0);
        }
    }
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    glp_std_basis(P);
    int rc = exact ? glp_exact(P, &parm) : glp_simplex(P, &parm), stat = glp_get_status(P);
    assert_int_equal(rc, 0);
    assert_true(stat == GLP_OPT || stat == GLP_NOFEAS);
    glp_delete_prob(P);
    free(ind);
    free(val);
    return stat == GLP_NOFEAS;
}

static int exact_keep(const double *w, size_t m, size_t d, const double *p, double sigma, size_t i)
{
    return twin_keep(w, m, d, p, sigma, i, true);
}

/* Runs sbw_argmax_trunc_run on every token (caller frees the answers). */
static sbw_argmax_trunc_tok *run(const double *w, size_t m, size_t d, const double *l, size_t n,
                                 double sigma, double tol, sbw_argmax_trunc_summary *s)
{
    sbw_argmax_trunc_tok *out = malloc(n * m * sizeof *out);
    assert_non_null(out);
    sbw_argmax_trunc_opts o = {.sigma = sigma, .tol = tol};
    SBW_ASSERT_OK(sbw_argmax_trunc_run(w, m, d, d, l, n, m, NULL, m, &o, out, s));
    return out;
}

/* Random heads and outputs, four bounds: every answer certified and the
 * exact twin's; both answers occur. */
static void test_vs_exact_twin(void **state)
{
    (void)state;
    const size_t ms[] = {7, 12, 9}, ds[] = {2, 3, 4};
    const double sigmas[] = {INFINITY, 1 / (1 - 0.05), 2, 8};
    size_t kept = 0, dropped = 0, by_lp_keep = 0;
    for (size_t c = 0; c < 3; c++) {
        size_t m = ms[c], d = ds[c], n = 3;
        double *w = gauss(c, m * d, 1.0), *l = outputs(w, m, d, n, 1.5, 10 + c);
        for (size_t s = 0; s < 4; s++) {
            sbw_argmax_trunc_summary sum;
            sbw_argmax_trunc_tok *out = run(w, m, d, l, n, sigmas[s], 0, &sum);
            SBW_ASSERT_EQ(sum.undecided, (size_t)0);
            SBW_ASSERT_EQ(sum.checked, n * m);
            for (size_t t = 0; t < n * m; t++) {
                double p[16];
                for (size_t j = 0; j < m; j++)
                    p[j] = exp(l[out[t].context * m + j]);
                int want = exact_keep(w, m, d, p, sigmas[s], out[t].token);
                SBW_ASSERT_EQ(out[t].keep, want);
                if (want) {
                    SBW_ASSERT_GT(out[t].margin, out[t].bound);
                    by_lp_keep += out[t].reason == SBW_ARGMAX_TRUNC_FARKAS;
                } else {
                    assert_true(out[t].residual == 0); /* tol 0: exact witnesses only */
                }
                kept += (size_t)want;
                dropped += (size_t)!want;
            }
            free(out);
        }
        free(w);
        free(l);
    }
    SBW_ASSERT_GT(kept, (size_t)0);
    SBW_ASSERT_GT(dropped, (size_t)0);
    SBW_ASSERT_GT(by_lp_keep, (size_t)0); /* not only the threshold rule */
}

/* The default tolerance on a larger head (d = 32: no exact witness, the
 * double one with its exact residual): the twin's answers still (its
 * double simplex: the rational one takes minutes here). */
static void test_double_witness(void **state)
{
    (void)state;
    size_t m = 40, d = 32, n = 1;
    double *w = gauss(7, m * d, 1.0), *l = outputs(w, m, d, n, 0.4, 8);
    sbw_argmax_trunc_summary sum;
    sbw_argmax_trunc_tok *out = run(w, m, d, l, n, 4, 1e-9, &sum);
    size_t witness = 0;
    for (size_t t = 0; t < n * m; t++) {
        double p[40];
        for (size_t j = 0; j < m; j++)
            p[j] = exp(l[out[t].context * m + j]);
        if (out[t].keep >= 0)
            SBW_ASSERT_EQ(out[t].keep, twin_keep(w, m, d, p, 4, out[t].token, false));
        if (out[t].keep == 1)
            SBW_ASSERT_GT(out[t].margin, out[t].bound);
        if (out[t].keep == 0)
            SBW_ASSERT_LE(out[t].residual, 1e-9 * sum.scale);
        witness += out[t].reason == SBW_ARGMAX_TRUNC_WITNESS;
    }
    SBW_ASSERT_GT(witness, (size_t)0);
    SBW_ASSERT_LE(sum.undecided, n * m / 20);
    free(out);
    free(w);
    free(l);
}

/* The threshold rule: a token with phat_i > 1 - 1/sigma is kept by the
 * certificate y = e_d, before any LP; tokens below it never are. */
static void test_threshold(void **state)
{
    (void)state;
    size_t m = 10, d = 3, n = 4;
    double *w = gauss(21, m * d, 1.0), *l = outputs(w, m, d, n, 3.0, 22);
    double sigma = 1 / (1 - 0.3);
    sbw_argmax_trunc_summary sum;
    sbw_argmax_trunc_tok *out = run(w, m, d, l, n, sigma, 1e-9, &sum);
    size_t above = 0;
    for (size_t t = 0; t < n * m; t++) {
        double pi = exp(l[out[t].context * m + out[t].token]);
        bool th = out[t].reason == SBW_ARGMAX_TRUNC_THRESHOLD;
        if (pi > 1 - 1 / sigma + 1e-12)
            assert_true(th);
        if (pi < 1 - 1 / sigma - 1e-12)
            assert_false(th);
        above += pi > 1 - 1 / sigma;
        if (th)
            assert_true(isnan(out[t].lp_obj)); /* no LP ran */
    }
    SBW_ASSERT_GT(above, (size_t)0);
    SBW_ASSERT_EQ(sum.by_threshold, above);
    free(out);
    free(w);
    free(l);
}

/* Corrupted certificates: a proven y negated, random y for a token that
 * has a witness (no y may prove it), witnesses off their box or moved. */
static void test_corrupted(void **state)
{
    (void)state;
    size_t m = 8, d = 2;
    double *w = gauss(31, m * d, 1.0), *l = outputs(w, m, d, 1, 1.0, 32), p[8];
    for (size_t j = 0; j < m; j++)
        p[j] = exp(l[j]);
    double sigma = 3;
    size_t drop = m;
    for (size_t i = 0; i < m && drop == m; i++)
        if (!exact_keep(w, m, d, p, sigma, i))
            drop = i;
    assert_true(drop < m);
    double *ys = gauss(33, 200 * (d + 1), 1.0);
    for (size_t r = 0; r < 200; r++) { /* sound: nothing proves a token that may be zero */
        sbw_argmax_cert_f_res f;
        sbw_argmax_cert_farkas(w, m, d, d, p, sigma, drop, ys + r * (d + 1), &f);
        assert_false(f.proven);
    }
    double y[3] = {0, 0, 1}; /* the threshold's y for the largest token */
    size_t top = 0;
    for (size_t j = 1; j < m; j++)
        top = p[j] > p[top] ? j : top;
    sbw_argmax_cert_f_res f;
    sbw_argmax_cert_farkas(w, m, d, d, p, 1.0, top, y, &f); /* sigma 1: phat_i > 0 suffices */
    assert_true(f.proven);
    y[2] = -1;
    sbw_argmax_cert_farkas(w, m, d, d, p, 1.0, top, y, &f);
    assert_false(f.proven);
    /* witnesses: phat itself with q_i moved onto the others is off the
     * constraints; q_i != 0 and q_j above sigma phat_j are invalid */
    sbw_argmax_cert_ctx *cc = NULL;
    SBW_ASSERT_OK(sbw_argmax_cert_ctx_alloc(&cc, w, m, d, d, p));
    double q[8];
    memcpy(q, p, sizeof q);
    sbw_argmax_cert_w_res r;
    sbw_argmax_cert_witness(cc, sigma, drop, q, &r);
    assert_false(r.valid); /* q_i = phat_i != 0 */
    q[drop] = 0;
    sbw_argmax_cert_witness(cc, sigma, drop, q, &r);
    assert_true(r.valid);
    SBW_ASSERT_GT(r.residual, 0.5 * p[drop]); /* the ones row is off by phat_i */
    size_t other = (drop + 1) % m;
    q[other] = nextafter(sigma * p[other], INFINITY) * 1.0000001;
    sbw_argmax_cert_witness(cc, sigma, drop, q, &r);
    assert_false(r.valid);
    memcpy(q, p, sizeof q); /* phat as a witness for a token... exact residual 0 */
    sbw_argmax_cert_witness(cc, sigma, m, q, &r);
    assert_false(r.valid); /* token out of range */
    sbw_argmax_cert_ctx_free(cc);
    free(ys);
    free(w);
    free(l);
}

/* g(y) = 0 and 2^-51 exactly, far inside double's rounding bound: the
 * exact evaluation decides (the threshold rule at its edge). */
static void test_exact_edge(void **state)
{
    (void)state;
    double w[3] = {1, 2, 3}, y[2] = {0, 1};
    double p0[3] = {0.5, 0.25, 0.25}, p1[3] = {0.5 + 0x1p-52, 0.25, 0.25 - 0x1p-52};
    sbw_argmax_cert_f_res f;
    sbw_argmax_cert_farkas(w, 3, 1, 1, p0, 2, 0, y, &f); /* 2 (1/2) - 1 = 0 */
    assert_false(f.proven);
    assert_true(f.exact);
    SBW_ASSERT_EQ(f.value, 0.0);
    sbw_argmax_cert_farkas(w, 3, 1, 1, p1, 2, 0, y, &f); /* 2 (1/2 + 2^-52) - 1 */
    assert_true(f.proven);
    assert_true(f.exact);
    SBW_ASSERT_EQ(f.value, 0x1p-51);
    SBW_ASSERT_EQ(f.bound, 0.0);
}

/* One thread and two: the same verdicts. */
static void test_threads(void **state)
{
    (void)state;
    size_t m = 11, d = 3, n = 2;
    double *w = gauss(41, m * d, 1.0), *l = outputs(w, m, d, n, 1.0, 42);
    int nt = omp_get_max_threads();
    sbw_argmax_trunc_summary s1, s2;
    omp_set_num_threads(1);
    sbw_argmax_trunc_tok *a = run(w, m, d, l, n, 2, 1e-9, &s1);
    omp_set_num_threads(2);
    sbw_argmax_trunc_tok *b = run(w, m, d, l, n, 2, 1e-9, &s2);
    omp_set_num_threads(nt);
    for (size_t t = 0; t < n * m; t++) {
        SBW_ASSERT_EQ(a[t].keep, b[t].keep);
        SBW_ASSERT_EQ(a[t].token, b[t].token);
    }
    SBW_ASSERT_EQ(s1.keep, s2.keep);
    free(a);
    free(b);
    free(w);
    free(l);
}

/* A subset of tokens, in the caller's order. */
static void test_subset(void **state)
{
    (void)state;
    size_t m = 9, d = 2, n = 2;
    double *w = gauss(51, m * d, 1.0), *l = outputs(w, m, d, n, 1.0, 52);
    sbw_argmax_trunc_summary s;
    sbw_argmax_trunc_tok *all = run(w, m, d, l, n, 2, 0, &s), out[4];
    const size_t tok[2] = {7, 2};
    sbw_argmax_trunc_opts o = {.sigma = 2, .tol = 0};
    SBW_ASSERT_OK(sbw_argmax_trunc_run(w, m, d, d, l, n, m, tok, 2, &o, out, &s));
    SBW_ASSERT_EQ(s.checked, (size_t)4);
    for (size_t c = 0; c < n; c++)
        for (size_t t = 0; t < 2; t++) {
            SBW_ASSERT_EQ(out[c * 2 + t].token, tok[t]);
            SBW_ASSERT_EQ(out[c * 2 + t].context, c);
            SBW_ASSERT_EQ(out[c * 2 + t].keep, all[c * m + tok[t]].keep);
        }
    free(all);
    free(w);
    free(l);
}

/* The iteration limit: at one simplex iteration per solve no LP reaches
 * its optimum, so every token the threshold rule does not settle is
 * undecided (never a wrong answer); the default limit decides them all. */
static void test_iteration_limit(void **state)
{
    (void)state;
    size_t m = 12, d = 3, n = 2;
    double *w = gauss(61, m * d, 1.0), *l = outputs(w, m, d, n, 1.5, 62);
    sbw_argmax_trunc_summary s, s1;
    sbw_argmax_trunc_tok *all = run(w, m, d, l, n, 2, 0, &s), out[24];
    SBW_ASSERT_EQ(s.undecided, (size_t)0);
    SBW_ASSERT_GT(s.lp_solves, (size_t)0);
    sbw_argmax_trunc_opts o = {.sigma = 2, .tol = 0, .max_iter = 1};
    SBW_ASSERT_OK(sbw_argmax_trunc_run(w, m, d, d, l, n, m, NULL, m, &o, out, &s1));
    SBW_ASSERT_EQ(s1.by_threshold, s.by_threshold);
    SBW_ASSERT_EQ(s1.undecided, n * m - s.by_threshold);
    for (size_t t = 0; t < n * m; t++)
        assert_true(out[t].keep == -1 || out[t].keep == all[t].keep);
    free(all);
    free(w);
    free(l);
}

static void test_errors(void **state)
{
    (void)state;
    double w[6] = {1, 0, 0, 1, 1, 1}, l[3] = {log(0.2), log(0.3), log(0.5)};
    sbw_argmax_trunc_tok out[3];
    sbw_argmax_trunc_summary s;
    sbw_argmax_trunc_opts o = {.sigma = 2, .tol = 1e-9};
    size_t bad = 3;
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 3, 2, 2, l, 1, 3, &bad, 1, &o, out, &s), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 1, 2, 2, l, 1, 3, NULL, 1, &o, out, &s), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 3, 2, 2, l, 1, 3, NULL, 2, &o, out, &s), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 3, 2, 2, l, 0, 3, NULL, 3, &o, out, &s), SBW_EINVAL);
    o.sigma = 0.5;
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 3, 2, 2, l, 1, 3, NULL, 3, &o, out, &s), SBW_EINVAL);
    o.sigma = NAN;
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 3, 2, 2, l, 1, 3, NULL, 3, &o, out, &s), SBW_EINVAL);
    o.sigma = 2;
    o.tol = -1;
    SBW_ASSERT_EQ(sbw_argmax_trunc_run(w, 3, 2, 2, l, 1, 3, NULL, 3, &o, out, &s), SBW_EINVAL);
    assert_string_equal(sbw_argmax_trunc_reason_name(SBW_ARGMAX_TRUNC_EXACT), "witness_exact");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_exact_twin),   cmocka_unit_test(test_double_witness),
        cmocka_unit_test(test_threshold),       cmocka_unit_test(test_corrupted),
        cmocka_unit_test(test_exact_edge),      cmocka_unit_test(test_threads),
        cmocka_unit_test(test_subset),          cmocka_unit_test(test_errors),
        cmocka_unit_test(test_iteration_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
