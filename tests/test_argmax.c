/* test_argmax.c -- sbw_argmax against a brute-force hull: in d = 2 and 3
 * a word is not strictly argmaxable iff some simplex of d + 1 other rows
 * contains w_i with interpolated bias >= b_i (Caratheodory: the LP's
 * optimum is attained on such a simplex), enumerated here by solving each
 * (d+1) x (d+1) barycentric system; planted interior words in d = 8;
 * duplicates, dominated copies and ties on a hull edge; every certificate
 * re-checked, and corrupted ones caught; the LP-only path against the
 * pre-filter; the same answers for 1 and 2 threads; the error paths. */
#include "sbw_argmax.h"
#include "sbw_argmax_cert.h"
#include "sbw_argmax_lp.h"
#include "sbw_maxprob.h"
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 1717, stream));
    return r;
}

/* Solves the n x n system a x = y (row-major, destroyed) by Gaussian
 * elimination with partial pivoting; false when singular. */
static bool solve_small(double *a, double *y, size_t n, double *x)
{
    for (size_t c = 0; c < n; c++) {
        size_t p = c;
        for (size_t r = c + 1; r < n; r++)
            if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
                p = r;
        if (fabs(a[p * n + c]) < 1e-12)
            return false;
        for (size_t k = 0; k < n; k++) {
            double t = a[c * n + k];
            a[c * n + k] = a[p * n + k];
            a[p * n + k] = t;
        }
        double t = y[c];
        y[c] = y[p];
        y[p] = t;
        for (size_t r = c + 1; r < n; r++) {
            double f = a[r * n + c] / a[c * n + c];
            for (size_t k = c; k < n; k++)
                a[r * n + k] -= f * a[c * n + k];
            y[r] -= f * y[c];
        }
    }
    for (size_t c = n; c-- > 0;) {
        double s = y[c];
        for (size_t k = c + 1; k < n; k++)
            s -= a[c * n + k] * x[k];
        x[c] = s / a[c * n + c];
    }
    return true;
}

/* Brute force (d = 2 or 3): the height of the upper hull of the other
 * lifted rows above w_i (the largest interpolated bias of a simplex that
 * contains w_i; -inf when none does; 0 without a bias). */
static double brute_height(const double *w, size_t m, size_t d, const double *b, size_t i)
{
    size_t s[4], n = d + 1;
    double best = -INFINITY;
    for (s[0] = 0; s[0] < m; s[0]++)
        for (s[1] = s[0] + 1; s[1] < m; s[1]++)
            for (s[2] = s[1] + 1; s[2] < m; s[2]++)
                for (s[3] = d == 3 ? s[2] + 1 : 0; s[3] < (d == 3 ? m : 1); s[3]++) {
                    double a[16], y[4], x[4];
                    bool skip = false;
                    for (size_t c = 0; c < n; c++)
                        skip = skip || s[c] == i;
                    if (skip)
                        continue;
                    for (size_t r = 0; r < n; r++) {
                        for (size_t c = 0; c < n; c++)
                            a[r * n + c] = r < d ? w[s[c] * d + r] : 1.0;
                        y[r] = r < d ? w[i * d + r] : 1.0;
                    }
                    if (!solve_small(a, y, n, x))
                        continue;
                    bool in = true;
                    double bi = 0;
                    for (size_t c = 0; c < n; c++) {
                        in = in && x[c] >= -1e-13;
                        bi += x[c] * (b ? b[s[c]] : 0.0);
                    }
                    if (in)
                        best = fmax(best, bi);
                }
    return best;
}

/* Brute force (d = 2 or 3): 1 when word i is a strict argmax for some h. */
static int brute_argmaxable(const double *w, size_t m, size_t d, const double *b, size_t i)
{
    return !(brute_height(w, m, d, b, i) >= (b ? b[i] : 0.0));
}

/* The brute-force twin of sbw_argmax_cert: margins and residuals in
 * binary128 (a product of two doubles is exact there, a sum of a few
 * hundred loses about 2^-113 relative), no GMP, no error bound. */
#ifdef __SIZEOF_FLOAT128__
__extension__ typedef __float128 quad;
#else
typedef long double quad;
#endif

static double twin_margin(const double *w, size_t m, size_t d, const double *b, size_t i,
                          const double *h)
{
    quad best = 1e300;
    for (size_t j = 0; j < m; j++) {
        if (j == i)
            continue;
        quad z = b ? (quad)b[i] - (quad)b[j] : 0;
        for (size_t k = 0; k < d; k++)
            z += (quad)w[i * d + k] * h[k] - (quad)w[j * d + k] * h[k];
        if (z < best)
            best = z;
    }
    return (double)best;
}

/* The residual and gap of lambda in binary128, which the exact upper
 * bounds of sbw_argmax_cert_lambda must not undercut by more than the
 * twin's own rounding. */
static void twin_lambda(const double *w, size_t d, const double *b, size_t i, const size_t *idx,
                        const double *lam, size_t k, double residual, double gap)
{
    quad s = 0, r = 0, g = b ? (quad)b[i] : 0;
    for (size_t t = 0; t < k; t++)
        s += lam[t];
    for (size_t c = 0; c < d; c++) {
        quad x = -(quad)w[i * d + c];
        for (size_t t = 0; t < k; t++)
            x += (quad)lam[t] / s * w[idx[t] * d + c];
        if ((x < 0 ? -x : x) > r)
            r = x < 0 ? -x : x;
    }
    for (size_t t = 0; b && t < k; t++)
        g -= (quad)lam[t] / s * b[idx[t]];
    SBW_ASSERT_GE(residual, (double)r * (1 - 1e-12) - 1e-300);
    SBW_ASSERT_GE(gap, (double)g - 1e-25 * (1 + fabs((double)g)));
}

/* Re-checks every certificate of a run independently. */
static void check_certs(const double *w, size_t m, size_t d, const double *b,
                        const sbw_argmax_word *out, const sbw_argmax_certs *cs, size_t n,
                        double scale)
{
    for (size_t t = 0; t < n; t++) {
        size_t i = out[t].word;
        SBW_ASSERT_GE(out[t].argmaxable, 0);
        if (out[t].argmaxable == 1) {
            sbw_argmax_cert_h_res r;
            sbw_argmax_cert_h(w, m, d, d, b, i, cs->h + t * d, &r);
            assert_true(r.proven);
            SBW_ASSERT_GT(r.margin, r.bound);
            SBW_ASSERT_GT(r.margin, 0.0);
            SBW_ASSERT_GT(twin_margin(w, m, d, b, i, cs->h + t * d), 0.0);
        } else {
            sbw_argmax_cert_l_res r;
            sbw_argmax_cert_lambda(w, m, d, d, b, i, cs->idx + t * cs->cap,
                                   cs->lambda + t * cs->cap, cs->k[t], &r);
            assert_true(r.valid);
            SBW_ASSERT_LE(r.residual, 1e-9 * scale);
            SBW_ASSERT_LE(r.gap, 1e-9 * scale);
            twin_lambda(w, d, b, i, cs->idx + t * cs->cap, cs->lambda + t * cs->cap, cs->k[t],
                        r.residual, r.gap);
        }
    }
}

typedef struct run_out {
    sbw_argmax_word *out;
    sbw_argmax_certs cs;
    sbw_argmax_summary sum;
} run_out;

static void run_all(const double *w, size_t m, size_t d, const double *b, bool lp_only, run_out *r)
{
    r->out = calloc(m, sizeof *r->out);
    r->cs.cap = d + 2;
    r->cs.h = calloc(m * d, sizeof *r->cs.h);
    r->cs.idx = calloc(m * r->cs.cap, sizeof *r->cs.idx);
    r->cs.lambda = calloc(m * r->cs.cap, sizeof *r->cs.lambda);
    r->cs.k = calloc(m, sizeof *r->cs.k);
    assert_non_null(r->out);
    assert_non_null(r->cs.k);
    sbw_argmax_opts o = sbw_argmax_defaults();
    o.no_prefilter = lp_only;
    o.block = 7; /* odd blocks */
    SBW_ASSERT_OK(sbw_argmax_run(w, m, d, d, b, NULL, m, &o, r->out, &r->cs, &r->sum));
    check_certs(w, m, d, b, r->out, &r->cs, m, r->sum.scale);
}

static void run_free(run_out *r)
{
    free(r->out);
    free(r->cs.h);
    free(r->cs.idx);
    free(r->cs.lambda);
    free(r->cs.k);
}

static double *gauss(gsl_rng *g, size_t n, double sd)
{
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t k = 0; k < n; k++)
        x[k] = gsl_ran_gaussian(g, sd);
    return x;
}

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
        cmocka_unit_test(test_vs_brute_force),
        cmocka_unit_test(test_planted),
        cmocka_unit_test(test_duplicates_and_ties),
        cmocka_unit_test(test_corrupted),
        cmocka_unit_test(test_ray),
        cmocka_unit_test(test_threads_and_subset),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_scale_and_subspace),
        cmocka_unit_test(test_invariance),
        cmocka_unit_test(test_label),
        cmocka_unit_test(test_near_boundary),
        cmocka_unit_test(test_cert_exact),
        cmocka_unit_test(test_extreme),
        cmocka_unit_test(test_exact_lambda),
        cmocka_unit_test(test_maxprob_analytic),
        cmocka_unit_test(test_maxprob_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
