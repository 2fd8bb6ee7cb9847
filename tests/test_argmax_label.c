/* test_argmax_label.c -- sbw_argmax's verdicts where they are hard: the
 * same verdicts and labels under every change the answer cannot depend on
 * (a common bias shift, W and b scaled together), in_hull against
 * below_hull against the brute-force height, words a hair outside a face,
 * exact certificates (--tol 0), extreme magnitudes; and sbw_maxprob (the
 * largest probability a word reaches over ||h|| <= R) against closed forms
 * and a polar grid.  Shared helpers: argmax_brute.h. */
#include "argmax_brute.h"
#include "sbw_maxprob.h"

static const double PI = 3.14159265358979323846;

/* Verdicts and labels of a run, as a string ("V" vertex, "h" in_hull, "b"
 * below_hull, "d" duplicate/dominated, "?" undecided). */
static void verdicts(const run_out *r, size_t m, char *v)
{
    static const char code[] = "?Vhbd";
    for (size_t i = 0; i < m; i++) {
        const sbw_argmax_word *o = &r->out[i];
        size_t c = o->argmaxable < 0                 ? 0
                   : o->argmaxable == 1              ? 1
                   : o->reason == SBW_ARGMAX_IN_HULL ? 2
                   : o->reason == SBW_ARGMAX_BELOW   ? 3
                                                     : 4;
        v[i] = code[c];
    }
    v[m] = '\0';
}

/* w2 = mul w (m x d) and b2 = mul b + shift: the same head scaled and
 * shifted together. */
static void scaled_head(const double *w, const double *b, size_t m, size_t d, double mul,
                        double shift, double *w2, double *b2)
{
    for (size_t k = 0; k < m * d; k++)
        w2[k] = w[k] * mul;
    for (size_t j = 0; j < m; j++)
        b2[j] = b[j] * mul + shift;
}

/* Nothing the answer cannot depend on changes a verdict or a label: the
 * same constant added to every bias (1e3, 1e10: the biases are multiples
 * of 2^-16, so b + c is exact), W and b scaled together (1e-3, 1e3).
 * The old code turned 8 of 29 vertices of the first head into in_hull at
 * + 1e10 (its tolerance was 1e-9 x (max |w| + max |b|) = 10). */
static void test_invariance(void **state)
{
    (void)state;
    const size_t m = 40;
    char v0[41], v1[41];
    for (uint64_t seed = 0; seed < 6; seed++) {
        size_t d = seed % 2 ? 5 : 3;
        gsl_rng *g = rng_for(700 + seed);
        double *w = gauss(g, m * d, 1.0), *b = gauss(g, m, 0.7);
        double *w2 = malloc(m * d * sizeof *w2), *b2 = malloc(m * sizeof *b2);
        assert_non_null(b2);
        for (size_t j = 0; j < m; j++)
            b[j] = round(b[j] * 65536) / 65536;
        for (int lp_only = 0; lp_only < 2; lp_only++) {
            run_out r;
            run_all(w, m, d, b, lp_only, &r);
            verdicts(&r, m, v0);
            SBW_ASSERT_EQ(r.sum.undecided, 0);
            SBW_ASSERT_GT(r.sum.argmaxable, 0);
            SBW_ASSERT_GT(r.sum.unargmaxable, 0);
            run_free(&r);
            const double shift[] = {1e3, 1e10, 0, 0}, mul[] = {1, 1, 1e-3, 1e3};
            for (size_t c = 0; c < 4; c++) {
                scaled_head(w, b, m, d, mul[c], shift[c], w2, b2);
                run_all(w2, m, d, b2, lp_only, &r);
                verdicts(&r, m, v1);
                assert_string_equal(v1, v0);
                run_free(&r);
            }
        }
        free(w);
        free(b);
        free(w2);
        free(b2);
        gsl_rng_free(g);
    }
}

/* The label in_hull vs below_hull is the optimum's (the height of the
 * upper hull above w_i, by brute force), not that of whichever lambda the
 * solver returned first; random heads in d = 2 at three scales. */
static void test_label(void **state)
{
    (void)state;
    const size_t m = 25, d = 2;
    size_t nbelow = 0, nhull = 0;
    for (uint64_t seed = 0; seed < 8; seed++) {
        gsl_rng *g = rng_for(800 + seed);
        double *w = gauss(g, m * d, 1.0), *b = gauss(g, m, 0.3);
        double *w2 = malloc(m * d * sizeof *w2), *b2 = malloc(m * sizeof *b2);
        assert_non_null(b2);
        /* word 0 at the midpoint of 1 and 2 with their mean bias: a tie
         * there, maybe below the hull of others */
        for (size_t k = 0; k < d; k++)
            w[k] = 0.5 * (w[d + k] + w[2 * d + k]);
        b[0] = 0.5 * (b[1] + b[2]);
        const double mul[] = {1, 1e-3, 1e3};
        for (size_t c = 0; c < 3; c++) {
            scaled_head(w, b, m, d, mul[c], 0.0, w2, b2);
            for (int lp_only = 0; lp_only < 2; lp_only++) {
                run_out r;
                run_all(w2, m, d, b2, lp_only, &r);
                for (size_t i = 0; i < m; i++) {
                    if (r.out[i].argmaxable != 0 || r.out[i].stage != 2)
                        continue;
                    double above = brute_height(w2, m, d, b2, i) - b2[i];
                    bool below = above > 1e-6 * mul[c];
                    SBW_ASSERT_EQ(r.out[i].reason, below ? SBW_ARGMAX_BELOW : SBW_ARGMAX_IN_HULL);
                    nbelow += below;
                    nhull += !below;
                }
                run_free(&r);
            }
        }
        free(w);
        free(b);
        free(w2);
        free(b2);
        gsl_rng_free(g);
    }
    SBW_ASSERT_GT(nbelow, 0);
    SBW_ASSERT_GT(nhull, 0);
}

/* A word 1e-11 outside a face of the (upper) hull is a vertex, with an h
 * whose margins the twin confirms; 1e-11 inside it is never a vertex.
 * With a bias: the d + 1 lifted rows 0..d carry the largest biases, so
 * they make the top face above word m - 1, which sits at their convex
 * combination with the interpolated bias +- 1e-11.  Without: the square
 * turned by 0.3 rad, a point 1e-11 beyond (or short of) its top edge. */
static void test_near_boundary(void **state)
{
    (void)state;
    for (int bias = 0; bias < 2; bias++)
        for (int side = -1; side <= 1; side += 2) {
            const size_t d = bias ? 4 : 2, m = bias ? 30 : 5, i = m - 1;
            gsl_rng *g = rng_for(900 + (uint64_t)(bias * 2 + (side > 0)));
            double *w = gauss(g, m * d, 1.0), *b = gauss(g, m, 0.3);
            double delta = side * 1e-11;
            if (bias) {
                double l[5], sl = 0;
                for (size_t j = 0; j <= d; j++)
                    sl += l[j] = gsl_rng_uniform_pos(g) + 0.5;
                for (size_t j = 0; j < m; j++)
                    b[j] = j <= d ? 3 + b[j] : -fabs(b[j]);
                b[i] = 0;
                for (size_t k = 0; k < d; k++)
                    w[i * d + k] = 0;
                for (size_t j = 0; j <= d; j++) {
                    for (size_t k = 0; k < d; k++)
                        w[i * d + k] += l[j] / sl * w[j * d + k];
                    b[i] += l[j] / sl * b[j];
                }
                b[i] += delta;
            } else {
                const double pts[] = {1, 1, -1, 1, -1, -1, 1, -1, 0.3, 1 + delta};
                double cs = cos(0.3), sn = sin(0.3);
                for (size_t j = 0; j < m; j++) {
                    w[j * d] = cs * pts[2 * j] - sn * pts[2 * j + 1];
                    w[j * d + 1] = sn * pts[2 * j] + cs * pts[2 * j + 1];
                }
            }
            for (int lp_only = 0; lp_only < 2; lp_only++) {
                run_out r;
                run_all(w, m, d, bias ? b : NULL, lp_only, &r);
                if (side > 0)
                    SBW_ASSERT_EQ(r.out[i].argmaxable, 1);
                else
                    SBW_ASSERT_NE(r.out[i].argmaxable, 1);
                run_free(&r);
            }
            free(w);
            free(b);
            gsl_rng_free(g);
        }
}

/* The h check is exact where rounding cannot decide: margins 2, 0 and -2
 * hidden under terms of 1e16 (the double bound is about 7), and one of
 * 1e-300. */
static void test_cert_exact(void **state)
{
    (void)state;
    const double w[] = {1, 1, 0, 0};
    const double hs[][2] = {{1e16, -1e16 + 2}, {1e16, -1e16}, {1e16, -1e16 - 2}};
    const bool want[] = {true, false, false};
    for (size_t c = 0; c < 3; c++) {
        sbw_argmax_cert_h_res r;
        sbw_argmax_cert_h(w, 2, 2, 2, NULL, 0, hs[c], &r);
        SBW_ASSERT_EQ(r.proven, want[c]);
        SBW_ASSERT_EQ(r.exact, 1);
        SBW_ASSERT_NEAR(r.margin, 2.0 - 2.0 * (double)c, 0.0);
    }
    const double w2[] = {1e16, 1, 1e16, 0}, h2[] = {1, 1e-300};
    sbw_argmax_cert_h_res r;
    sbw_argmax_cert_h(w2, 2, 2, 2, NULL, 0, h2, &r);
    assert_true(r.proven);
    /* lambda: the midpoint of two dyadic rows is exact (residual 0) */
    const double w3[] = {0.5, 0.25, 1, 0, 0, 0.5}, b3[] = {0.5, 1, 0};
    const size_t idx[] = {1, 2};
    const double lam[] = {3, 3}; /* divided by their sum */
    sbw_argmax_cert_l_res lr;
    sbw_argmax_cert_lambda(w3, 3, 2, 2, b3, 0, idx, lam, 2, &lr);
    assert_true(lr.valid);
    SBW_ASSERT_EQ(lr.residual, 0.0);
    SBW_ASSERT_EQ(lr.gap, 0.0);
    const double lam2[] = {0.1, 0.1}; /* 0.1 is not dyadic, but the ratio is 1/2 */
    sbw_argmax_cert_lambda(w3, 3, 2, 2, b3, 0, idx, lam2, 2, &lr);
    SBW_ASSERT_EQ(lr.residual, 0.0);
    const double lam3[] = {0.1, 0.1000000001};
    sbw_argmax_cert_lambda(w3, 3, 2, 2, b3, 0, idx, lam3, 2, &lr);
    SBW_ASSERT_GT(lr.residual, 0.0);
    SBW_ASSERT_GT(lr.gap, 0.0);
}

/* Exact weights: w_3 = (w_0 + w_1 + w_2) / 3 with rows whose thirds are
 * exact is found as the integers (1, 1, 1); one ulp off the plane it has
 * none; a negative weight is refused.  Through the run with tol 0, an
 * exactly planted interior word is in_hull with residual 0. */
static void test_exact_lambda(void **state)
{
    (void)state;
    double w[] = {3, 0, 6, 0, 3, -3, -6, 3, 0, -1, 2, 1};
    const size_t idx[] = {0, 1, 2};
    double lam[3];
    assert_true(sbw_argmax_cert_exact_lambda(w, 4, 3, 3, 3, idx, 3, lam));
    for (size_t t = 0; t < 3; t++)
        SBW_ASSERT_EQ(lam[t], lam[0]);
    sbw_argmax_cert_l_res lr;
    sbw_argmax_cert_lambda(w, 4, 3, 3, NULL, 3, idx, lam, 3, &lr);
    SBW_ASSERT_EQ(lr.residual, 0.0);
    w[9] = nextafter(-1.0, 0.0);
    assert_false(sbw_argmax_cert_exact_lambda(w, 4, 3, 3, 3, idx, 3, lam));
    w[9] = -1;
    const size_t idx2[] = {0, 3}; /* w_1 is not on the line through w_0 and w_3 */
    assert_false(sbw_argmax_cert_exact_lambda(w, 4, 3, 3, 1, idx2, 2, lam));
    /* the run: word 5 = (w_0 + w_1 + w_2 + w_4) / 4, dyadic rows, tol 0 */
    const size_t m = 6, d = 3;
    double h[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1, -1, -1, -1, -1, 1, 1, 0, 0, 0};
    for (size_t k = 0; k < d; k++)
        h[5 * d + k] = 0.25 * (h[k] + h[d + k] + h[2 * d + k] + h[4 * d + k]);
    sbw_argmax_word out[6];
    sbw_argmax_summary sum;
    sbw_argmax_opts o = sbw_argmax_defaults();
    o.tol = 0;
    o.no_prefilter = true;
    SBW_ASSERT_OK(sbw_argmax_run(h, m, d, d, NULL, NULL, m, &o, out, NULL, &sum));
    SBW_ASSERT_EQ(out[5].argmaxable, 0);
    SBW_ASSERT_EQ(out[5].bound, 0.0);
    SBW_ASSERT_EQ(sum.undecided, 0);
}

/* Heads at the ends of the double range run to an answer (the old code
 * stopped with "GLPK failed": its LP saw -inf biases or 1/scale = inf):
 * subnormal rows (the origin is the centroid of the other three: in the
 * hull, a vertex with a subnormal bias above 0) and rows and biases of
 * +-1e308. */
static void test_extreme(void **state)
{
    (void)state;
    const double tm = 4.9406564584124654e-324;
    const double ws[] = {tm, 0, 0, tm, -tm, -tm, 0, 0}, bs[] = {0, 0, 0, tm};
    run_out r;
    run_all(ws, 4, 2, NULL, false, &r);
    char v[5];
    verdicts(&r, 4, v);
    assert_string_equal(v, "VVVh");
    run_free(&r);
    run_all(ws, 4, 2, bs, true, &r);
    verdicts(&r, 4, v);
    assert_string_equal(v, "VVVV");
    run_free(&r);
    const double wb[] = {1e308, -1e308, 0, 1, -1e308, 1e308, 0, -1}, bb[] = {1e308, -1e308, 0, 1};
    for (int bias = 0; bias < 2; bias++) {
        run_all(wb, 4, 2, bias ? bb : NULL, false, &r);
        SBW_ASSERT_EQ(r.sum.undecided, 0);
        SBW_ASSERT_EQ(r.out[0].argmaxable, 1);
        SBW_ASSERT_EQ(r.out[2].argmaxable, 1);
        run_free(&r);
    }
}

/* p*(R) of one word (start at 0). */
static sbw_maxprob_res maxprob(const double *w, size_t m, size_t d, const double *b, size_t i,
                               double R, double *h)
{
    double ws[64];
    assert_true(sbw_maxprob_ws_size(m, d) <= 64);
    sbw_maxprob_res r;
    SBW_ASSERT_OK(sbw_maxprob_word(w, m, d, d, b, i, R, 1e-10, 20000, h, ws, &r));
    SBW_ASSERT_LE(r.p, r.p_upper);
    SBW_ASSERT_LE(r.h_norm, R * (1 + 1e-12));
    return r;
}

/* The square's centre: p* = 1/5 for every R (at h = 0, since the mean of
 * exp(+-h1 +- h2) is >= 1); the middle of an edge: p* rises to 1/3 as
 * h = (0, R) grows (p = 1 / (1 + 2 cosh h1 (1 + exp(-2 h2)))); a corner
 * tends to 1. */
static void test_maxprob_analytic(void **state)
{
    (void)state;
    double h[2];
    for (int e = 0; e < 4; e++) {
        double R = 0.5 * pow(3.0, e);
        h[0] = 0.3, h[1] = -0.2;
        double ws[64];
        sbw_maxprob_res r;
        const double wc[] = {1, 1, -1, 1, -1, -1, 1, -1, 0, 0};
        SBW_ASSERT_OK(sbw_maxprob_word(wc, 5, 2, 2, NULL, 4, R, 1e-12, 20000, h, ws, &r));
        SBW_ASSERT_NEAR(r.p, 0.2, 1e-10);
        assert_true(r.converged);
        h[0] = h[1] = 0;
        const double we[] = {1, 1, -1, 1, -1, -1, 1, -1, 0, 1};
        r = maxprob(we, 5, 2, NULL, 4, R, h);
        double want = 1 / (1 + 2 * (1 + exp(-2 * R)));
        SBW_ASSERT_NEAR(r.p, want, 1e-8);
        SBW_ASSERT_LT(r.p, 1.0 / 3);
        assert_true(r.converged);
        h[0] = h[1] = 0;
        r = maxprob(we, 5, 2, NULL, 0, R, h);
        double s2 = sqrt(2.0) * R; /* h = R (1, 1) / sqrt 2 reaches this */
        double at = 1 / (1 + 2 * exp(-s2) + exp(-2 * s2) + exp(-s2 / 2));
        SBW_ASSERT_GE(r.p, at * (1 - 1e-12));
        if (R > 10)
            SBW_ASSERT_GT(r.p, 0.9999);
    }
}

/* d = 2, a random head with a bias: the answer against a polar grid of
 * the disc (the grid's best is <= p_upper and >= p - a grid tolerance). */
static void test_maxprob_grid(void **state)
{
    (void)state;
    const size_t m = 6, d = 2;
    gsl_rng *g = rng_for(500);
    double *w = gauss(g, m * d, 1.0), *b = gauss(g, m, 1.0), z[6];
    for (size_t i = 0; i < m; i++) {
        double h[2] = {0, 0}, R = 2.5;
        sbw_maxprob_res r = maxprob(w, m, d, b, i, R, h);
        assert_true(r.converged);
        double best = 0;
        for (int a = 0; a < 1440; a++)
            for (int q = 0; q <= 100; q++) {
                double hh[2] = {R * q / 100 * cos(a * PI / 720), R * q / 100 * sin(a * PI / 720)};
                double zmax = -INFINITY, s = 0;
                for (size_t j = 0; j < m; j++) {
                    z[j] = b[j] + w[j * d] * hh[0] + w[j * d + 1] * hh[1];
                    zmax = fmax(zmax, z[j]);
                }
                for (size_t j = 0; j < m; j++)
                    s += exp(z[j] - zmax);
                best = fmax(best, exp(z[i] - zmax) / s);
            }
        SBW_ASSERT_LE(best, r.p_upper * (1 + 1e-12));
        SBW_ASSERT_GE(best, r.p * (1 - 1e-3)); /* grid spacing R pi / 720 */
    }
    free(w);
    free(b);
    gsl_rng_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invariance),       cmocka_unit_test(test_label),
        cmocka_unit_test(test_near_boundary),    cmocka_unit_test(test_cert_exact),
        cmocka_unit_test(test_extreme),          cmocka_unit_test(test_exact_lambda),
        cmocka_unit_test(test_maxprob_analytic), cmocka_unit_test(test_maxprob_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
