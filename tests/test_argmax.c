/* test_argmax.c -- sbw_argmax against a brute-force hull: in d = 2 and 3
 * a word is not strictly argmaxable iff some simplex of d + 1 other rows
 * contains w_i with interpolated bias >= b_i (Caratheodory: the LP's
 * optimum is attained on such a simplex), enumerated here by solving each
 * (d+1) x (d+1) barycentric system; planted interior words in d = 8;
 * duplicates, dominated copies and ties on a hull edge; every certificate
 * re-checked, and corrupted ones caught; the LP-only path against the
 * pre-filter; the same answers for 1 and 2 threads; the error paths.
 * Invariances, labels, boundary cases and sbw_maxprob are in
 * test_argmax_label.c; the shared helpers in argmax_brute.h. */
#include "argmax_brute.h"
#include "sbw_argmax_lp.h"

#include "sbw_error.h"

#include <omp.h>

/* d = 2 and 3, with and without a bias, prefilter + LP and LP only: the
 * verdicts are the brute-force hull's. */
static void test_vs_brute_force(void **state)
{
    (void)state;
    const size_t ms[] = {23, 14}, ds[] = {2, 3};
    for (size_t c = 0; c < 2; c++) {
        size_t m = ms[c], d = ds[c];
        for (int bias = 0; bias < 2; bias++) {
            gsl_rng *g = rng_for(10 * c + (uint64_t)bias);
            double *w = gauss(g, m * d, 1.0), *b = bias ? gauss(g, m, 0.7) : NULL;
            size_t nvert = 0;
            for (int lp_only = 0; lp_only < 2; lp_only++) {
                run_out r;
                run_all(w, m, d, b, lp_only, &r);
                for (size_t i = 0; i < m; i++) {
                    int want = brute_argmaxable(w, m, d, b, i);
                    SBW_ASSERT_EQ(r.out[i].argmaxable, want);
                    nvert += (size_t)want;
                    SBW_ASSERT_EQ(r.out[i].word, i);
                    if (!want && b) { /* the label is the optimum's: the hull's height */
                        double above = brute_height(w, m, d, b, i) - b[i];
                        SBW_ASSERT_EQ(r.out[i].reason,
                                      above > 1e-6 ? SBW_ARGMAX_BELOW : SBW_ARGMAX_IN_HULL);
                    } else if (!want) {
                        SBW_ASSERT_EQ(r.out[i].reason, SBW_ARGMAX_IN_HULL);
                    }
                }
                if (lp_only)
                    SBW_ASSERT_EQ(r.sum.by_prefilter, 0);
                run_free(&r);
            }
            /* both kinds occur, so the comparison means something */
            SBW_ASSERT_GT(nvert, 0);
            SBW_ASSERT_LT(nvert, 2 * m);
            free(w);
            free(b);
            gsl_rng_free(g);
        }
    }
}

/* d = 8: words planted as convex combinations of three others (with a
 * bias, at or below their interpolated bias) are found; the answers are
 * the same with the pre-filter and LP only. */
static void test_planted(void **state)
{
    (void)state;
    const size_t m = 120, d = 8, nplant = 6;
    for (int bias = 0; bias < 2; bias++) {
        gsl_rng *g = rng_for(100 + (uint64_t)bias);
        double *w = gauss(g, m * d, 1.0), *b = bias ? gauss(g, m, 0.5) : NULL;
        size_t planted[6];
        for (size_t p = 0; p < nplant; p++) {
            size_t i = 17 * p + 5, src[3] = {(i + 1) % m, (i + 40) % m, (i + 77) % m};
            double l[3] = {gsl_rng_uniform_pos(g), gsl_rng_uniform_pos(g), gsl_rng_uniform_pos(g)};
            double sl = l[0] + l[1] + l[2];
            for (size_t k = 0; k < d; k++) {
                w[i * d + k] = 0;
                for (size_t u = 0; u < 3; u++)
                    w[i * d + k] += l[u] / sl * w[src[u] * d + k];
            }
            if (b) { /* half exactly on the interpolated bias, half below */
                b[i] = 0;
                for (size_t u = 0; u < 3; u++)
                    b[i] += l[u] / sl * b[src[u]];
                b[i] -= p % 2 ? 0.25 : 0.0;
            }
            planted[p] = i;
        }
        run_out r1, r2;
        run_all(w, m, d, b, false, &r1);
        run_all(w, m, d, b, true, &r2);
        for (size_t p = 0; p < nplant; p++) {
            size_t i = planted[p];
            SBW_ASSERT_EQ(r1.out[i].argmaxable, 0);
            if (b && p % 2)
                SBW_ASSERT_EQ(r1.out[i].reason, SBW_ARGMAX_BELOW);
        }
        for (size_t i = 0; i < m; i++)
            SBW_ASSERT_EQ(r1.out[i].argmaxable, r2.out[i].argmaxable);
        SBW_ASSERT_GE(r1.sum.unargmaxable, nplant);
        SBW_ASSERT_EQ(r1.sum.undecided, 0);
        SBW_ASSERT_GT(r1.sum.by_prefilter, 0);
        run_free(&r1);
        run_free(&r2);
        free(w);
        free(b);
        gsl_rng_free(g);
    }
}

/* The square (+-1, +-1), a copy of a corner, the middle of an edge (a tie
 * with both its corners for h = (0, 1)) and the centre; with a bias, a
 * copy with a smaller bias is dominated. */
static void test_duplicates_and_ties(void **state)
{
    (void)state;
    double w[] = {1, 1, -1, 1, -1, -1, 1, -1, /* 0-3 corners */
                  1, 1,                       /* 4: copy of 0 */
                  0, 1,                       /* 5: middle of the edge 0-1 */
                  0, 0};                      /* 6: centre */
    const size_t m = 7, d = 2;
    run_out r;
    run_all(w, m, d, NULL, false, &r);
    for (size_t i = 1; i < 4; i++)
        SBW_ASSERT_EQ(r.out[i].argmaxable, 1);
    SBW_ASSERT_EQ(r.out[0].argmaxable, 0);
    SBW_ASSERT_EQ(r.out[0].reason, SBW_ARGMAX_DUPLICATE);
    SBW_ASSERT_EQ(r.out[0].other, 4);
    SBW_ASSERT_EQ(r.out[4].reason, SBW_ARGMAX_DUPLICATE);
    SBW_ASSERT_EQ(r.out[4].other, 0);
    SBW_ASSERT_EQ(r.out[5].argmaxable, 0);
    SBW_ASSERT_EQ(r.out[5].reason, SBW_ARGMAX_IN_HULL);
    SBW_ASSERT_EQ(r.out[6].argmaxable, 0);
    SBW_ASSERT_EQ(r.sum.unargmaxable, 4);
    assert_string_equal(sbw_argmax_reason_name(r.out[0].reason), "duplicate");
    run_free(&r);
    /* bias: the copy 4 has a smaller bias, so 0 is a vertex again */
    double b[] = {0, 0, 0, 0, -0.5, 0, 0};
    run_all(w, m, d, b, false, &r);
    SBW_ASSERT_EQ(r.out[0].argmaxable, 1);
    SBW_ASSERT_EQ(r.out[4].argmaxable, 0);
    SBW_ASSERT_EQ(r.out[4].reason, SBW_ARGMAX_DOMINATED);
    SBW_ASSERT_EQ(r.out[4].other, 0);
    SBW_ASSERT_NEAR(r.out[4].margin, -0.5, 0.0);
    run_free(&r);
    /* a large bias lifts the centre above the upper hull */
    b[6] = 3;
    run_all(w, m, d, b, false, &r);
    SBW_ASSERT_EQ(r.out[6].argmaxable, 1);
    run_free(&r);
}

/* A corrupted certificate is caught: an h moved off its word, a lambda
 * with one weight changed, a negative weight, the word itself in lambda. */
static void test_corrupted(void **state)
{
    (void)state;
    const size_t m = 30, d = 4;
    gsl_rng *g = rng_for(300);
    double *w = gauss(g, m * d, 1.0);
    for (size_t k = 0; k < d; k++) /* word 0 is the midpoint of 1 and 2 */
        w[k] = 0.5 * (w[d + k] + w[2 * d + k]);
    run_out r;
    run_all(w, m, d, NULL, false, &r);
    SBW_ASSERT_EQ(r.out[0].argmaxable, 0);
    size_t i = 3;
    while (r.out[i].argmaxable != 1)
        i++;
    double *h = r.cs.h + i * d;
    sbw_argmax_cert_h_res hr;
    sbw_argmax_cert_h(w, m, d, d, NULL, i, h, &hr);
    SBW_ASSERT_GT(hr.margin, hr.bound);
    for (size_t k = 0; k < d; k++) /* the direction of the rival */
        h[k] = w[hr.rival * d + k] - w[i * d + k];
    sbw_argmax_cert_h(w, m, d, d, NULL, i, h, &hr);
    SBW_ASSERT_LT(hr.margin, 0.0);
    sbw_argmax_cert_l_res lr;
    size_t *idx = r.cs.idx;
    double *lam = r.cs.lambda;
    sbw_argmax_cert_lambda(w, m, d, d, NULL, 0, idx, lam, r.cs.k[0], &lr);
    assert_true(lr.valid);
    SBW_ASSERT_LE(lr.residual, 1e-12);
    lam[0] *= 1.01;
    sbw_argmax_cert_lambda(w, m, d, d, NULL, 0, idx, lam, r.cs.k[0], &lr);
    SBW_ASSERT_GT(lr.residual, 1e-4);
    lam[0] = -lam[0];
    sbw_argmax_cert_lambda(w, m, d, d, NULL, 0, idx, lam, r.cs.k[0], &lr);
    assert_false(lr.valid);
    lam[0] = 1;
    idx[0] = 0;
    sbw_argmax_cert_lambda(w, m, d, d, NULL, 0, idx, lam, 1, &lr);
    assert_false(lr.valid);
    run_free(&r);
    free(w);
    gsl_rng_free(g);
}

/* The ray: the s found works (checked directly), and impossible rays are
 * refused. */
static void test_ray(void **state)
{
    (void)state;
    double a[] = {1, 2, -1, 0.5}, c[] = {-1, 0, 3, 1}, s;
    assert_true(sbw_argmax_cert_ray(a, c, 4, 100.0, &s)); /* s in (1, 3) */
    for (size_t j = 0; j < 4; j++)
        SBW_ASSERT_GT(s * a[j] + c[j], 0.0);
    SBW_ASSERT_NEAR(s, 2.0, 1e-15);
    assert_true(sbw_argmax_cert_ray(a, c, 4, 1.5, &s));
    SBW_ASSERT_NEAR(s, 1.5, 0.0);
    double c2[] = {-4, 0, 3, 1}; /* s > 4 and s < 3 */
    assert_false(sbw_argmax_cert_ray(a, c2, 4, 1.0, &s));
    double a3[] = {1, 0}, c3[] = {1, 0};
    assert_false(sbw_argmax_cert_ray(a3, c3, 2, 1.0, &s));
    assert_false(sbw_argmax_cert_ray(a, NULL, 4, 1.0, &s)); /* a_2 < 0, no bias */
}

/* The same answers for 1 and 2 threads and for a subset of words. */
static void test_threads_and_subset(void **state)
{
    (void)state;
    const size_t m = 90, d = 5;
    gsl_rng *g = rng_for(400);
    double *w = gauss(g, m * d, 1.0), *b = gauss(g, m, 2.0);
    int nt = omp_get_max_threads();
    run_out r1, r2;
    omp_set_num_threads(1);
    run_all(w, m, d, b, true, &r1);
    omp_set_num_threads(2);
    run_all(w, m, d, b, true, &r2);
    omp_set_num_threads(nt);
    for (size_t i = 0; i < m; i++) {
        SBW_ASSERT_EQ(r1.out[i].argmaxable, r2.out[i].argmaxable);
        SBW_ASSERT_EQ(r1.out[i].margin, r2.out[i].margin);
    }
    SBW_ASSERT_GT(r1.sum.unargmaxable, 0);
    size_t words[] = {89, 3, 3, 40};
    sbw_argmax_word out[4];
    sbw_argmax_summary sum;
    sbw_argmax_opts o = sbw_argmax_defaults();
    SBW_ASSERT_OK(sbw_argmax_run(w, m, d, d, b, words, 4, &o, out, NULL, &sum));
    for (size_t t = 0; t < 4; t++) {
        SBW_ASSERT_EQ(out[t].word, words[t]);
        SBW_ASSERT_EQ(out[t].argmaxable, r1.out[words[t]].argmaxable);
    }
    SBW_ASSERT_EQ(sum.checked, 4);
    run_free(&r1);
    run_free(&r2);
    free(w);
    free(b);
    gsl_rng_free(g);
}

static void test_errors(void **state)
{
    (void)state;
    double w[6] = {1, 0, 0, 1, -1, -1};
    sbw_argmax_word out[3];
    sbw_argmax_summary sum;
    sbw_argmax_opts o = sbw_argmax_defaults();
    size_t bad[] = {3};
    assert_int_equal(sbw_argmax_run(w, 3, 2, 2, NULL, bad, 1, &o, out, NULL, &sum), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "word 3 is out of range"));
    assert_int_equal(sbw_argmax_run(w, 1, 2, 2, NULL, NULL, 1, &o, out, NULL, &sum), SBW_EINVAL);
    assert_int_equal(sbw_argmax_run(w, 3, 2, 1, NULL, NULL, 3, &o, out, NULL, &sum), SBW_EINVAL);
    assert_int_equal(sbw_argmax_run(w, 3, 2, 2, NULL, NULL, 2, &o, out, NULL, &sum), SBW_EINVAL);
    o.max_rounds = 0;
    assert_int_equal(sbw_argmax_run(w, 3, 2, 2, NULL, NULL, 3, &o, out, NULL, &sum), SBW_EINVAL);
    /* a list of no words decides nothing, successfully (no malloc(0),
     * whose NULL a libc may return, taken for a lack of memory: this suite
     * runs on tests/malloc0_null.c's malloc, see the Makefile) */
    o = sbw_argmax_defaults();
    SBW_ASSERT_OK(sbw_argmax_run(w, 3, 2, 2, NULL, bad, 0, &o, out, NULL, &sum));
    SBW_ASSERT_EQ(sum.checked, 0);
    sbw_argmax_lp *lp = NULL;
    assert_int_equal(sbw_argmax_lp_alloc(&lp, 1, 2), SBW_EINVAL);
    assert_null(lp);
}

/* The answers do not depend on the head's scale (1e-9 and 1e9 times a
 * head give the brute force's verdicts: the LP sees W / scale), and rows
 * in a 2-D plane of R^5 (W = X P) are decided as the 2-D points X are. */
static void test_scale_and_subspace(void **state)
{
    (void)state;
    const size_t m = 20;
    gsl_rng *g = rng_for(600);
    double *x = gauss(g, m * 2, 1.0), *p = gauss(g, 10, 1.0), *b = gauss(g, m, 0.5);
    double *w = calloc(m * 5, sizeof *w), *ws = calloc(m * 2, sizeof *ws);
    double *bs = calloc(m, sizeof *bs);
    assert_non_null(bs);
    for (size_t i = 0; i < m; i++)
        for (size_t c = 0; c < 5; c++)
            for (size_t k = 0; k < 2; k++)
                w[i * 5 + c] += x[i * 2 + k] * p[k * 5 + c];
    for (int bias = 0; bias < 2; bias++) {
        run_out r;
        run_all(w, m, 5, bias ? b : NULL, true, &r);
        for (size_t i = 0; i < m; i++)
            SBW_ASSERT_EQ(r.out[i].argmaxable, brute_argmaxable(x, m, 2, bias ? b : NULL, i));
        run_free(&r);
        for (int e = -9; e <= 9; e += 18) {
            for (size_t k = 0; k < 2 * m; k++)
                ws[k] = x[k] * pow(10.0, e);
            for (size_t k = 0; k < m; k++)
                bs[k] = b[k] * pow(10.0, e);
            run_all(ws, m, 2, bias ? bs : NULL, true, &r);
            for (size_t i = 0; i < m; i++)
                SBW_ASSERT_EQ(r.out[i].argmaxable, brute_argmaxable(x, m, 2, bias ? b : NULL, i));
            SBW_ASSERT_EQ(r.sum.undecided, 0);
            run_free(&r);
        }
    }
    free(x);
    free(p);
    free(b);
    free(w);
    free(ws);
    free(bs);
    gsl_rng_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_brute_force),
        cmocka_unit_test(test_planted),
        cmocka_unit_test(test_duplicates_and_ties),
        cmocka_unit_test(test_corrupted),
        cmocka_unit_test(test_ray),
        cmocka_unit_test(test_threads_and_subset),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_scale_and_subspace),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
