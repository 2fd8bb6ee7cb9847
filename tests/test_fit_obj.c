/* test_fit_obj.c -- the blocked, threaded objective (sbw_obj) against the
 * naive objective (sbw_obj_ref_eval) for every head, in double and single
 * precision, with 1 and 2 threads, both parallel schemes, and block sizes
 * that do not divide N; log Q against the naive log Q; error paths. */
#include "sbw_test.h"

#include "head_cases.h"

#include "sbw_error.h"
#include "sbw_obj_ref.h"
#include "sbw_head.h"
#include "sbw_num.h"
#include "sbw_obj.h"
#include "sbw_rng.h"
#include "sbw_target.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sizes as size_t constants, so products never widen from int. */
#define N ((size_t)23)
#define M ((size_t)19)
#define D ((size_t)4)

typedef struct fixture {
    sbw_mat logp;
    sbw_target t64, t32;
} fixture;

static void random_fill(double *x, size_t n, double sd, uint64_t seed, uint64_t stream)
{
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, stream));
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_ran_gaussian(r, sd);
    sbw_rng_free(r);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    SBW_ASSERT_OK(sbw_mat_alloc(&f->logp, N, M));
    random_fill(f->logp.data, N * M, 2.0, 31, 0);
    for (size_t i = 0; i < N; i++)
        sbw_num_log_softmax(f->logp.data + i * M, f->logp.data + i * M, M);
    SBW_ASSERT_OK(sbw_target_from_logp(&f->t64, &f->logp, false, 1e-9));
    SBW_ASSERT_OK(sbw_target_from_logp(&f->t32, &f->logp, true, 1e-9));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sbw_target_free(&f->t64);
    sbw_target_free(&f->t32);
    sbw_mat_free(&f->logp);
    free(f);
    return 0;
}

static double *make_theta(const sbw_head *h, uint64_t seed)
{
    double *theta = malloc(h->nparam * sizeof *theta), *jit = malloc(h->nparam * sizeof *jit);
    SBW_ASSERT_OK(sbw_head_init(h, theta, seed, 0.8));
    random_fill(jit, h->nparam, 0.3, seed, 99);
    for (size_t i = 0; i < h->nparam; i++)
        theta[i] += jit[i];
    free(jit);
    return theta;
}

/* Whether context r is in rows[0..nrows) (every context when rows is NULL). */
static bool in_set(const size_t *rows, size_t nrows, size_t r)
{
    for (size_t i = 0; rows && i < nrows; i++)
        if (rows[i] == r)
            return true;
    return !rows;
}

/* The fast gradient g (nparam) against the naive gref over the shared
 * prefix and the set's rows of dH, with tolerances rtol * 10 scaled by the
 * largest naive entry; the rows outside the set must be bit for bit
 * before (sbw_obj_eval leaves them alone). */
static void check_grad(const sbw_head *h, const double *g, const double *gref, const double *before,
                       const size_t *rows, size_t nrows, double rtol)
{
    double gmax = 0;
    for (size_t i = 0; i < h->nparam; i++)
        gmax = fmax(gmax, fabs(gref[i]));
    SBW_ASSERT_CLOSE(g, gref, h->nshared, rtol * 10 * gmax, rtol * 10);
    for (size_t r = 0; r < N; r++) {
        size_t at = h->off_h + r * D;
        if (in_set(rows, nrows, r))
            SBW_ASSERT_CLOSE(g + at, gref + at, D, rtol * 10 * gmax, rtol * 10);
        else
            assert_memory_equal(g + at, before + at, D * sizeof *g);
    }
}

/* Fast against naive for one head, one configuration, a row set. */
static void compare(const fixture *f, const head_case *c, const sbw_obj_opts *opt,
                    const size_t *rows, size_t nrows, double rtol)
{
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, c->model, N, M, D, c->k, c->knots, 1.2, c->bias, c->linear));
    double *theta = make_theta(&h, 41);
    double *g1 = malloc(h.nparam * sizeof *g1), *g2 = malloc(h.nparam * sizeof *g2);
    double *g0 = malloc(h.nparam * sizeof *g0);
    for (size_t i = 0; i < h.nparam; i++) /* a sentinel where the fast gradient is not written */
        g0[i] = g1[i] = 1e300;
    sbw_obj *o;
    sbw_obj_result r1, r2;
    SBW_ASSERT_OK(sbw_obj_alloc(&o, &h, opt->single ? &f->t32 : &f->t64, opt));
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, rows, nrows, &r1, g1));
    SBW_ASSERT_OK(
        sbw_obj_ref_eval(&h, theta, opt->single ? &f->t32 : &f->t64, rows, nrows, &r2, g2));
    SBW_ASSERT_NEAR(r1.loss, r2.loss, rtol * 4 * r2.loss);
    SBW_ASSERT_NEAR(r1.kl, r2.kl, rtol * 4 * r2.loss);
    SBW_ASSERT_NEAR(r1.mode_match, r2.mode_match, 1e-15);
    check_grad(&h, g1, g2, g0, rows, nrows, rtol);
    /* evaluation without gradient gives the same loss */
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, rows, nrows, &r2, NULL));
    SBW_ASSERT_NEAR(r1.loss, r2.loss, 1e-15 * r1.loss);
    sbw_obj_free(o);
    free(theta), free(g0), free(g1), free(g2);
}

static void test_double_matches_naive(void **state)
{
    const fixture *f = *state;
    sbw_obj_opts opt[] = {{false, 1, 5, SBW_PASS_PAR_BLOCKS, false},
                          {false, 2, 4, SBW_PASS_PAR_BLOCKS, false},
                          {false, 2, 7, SBW_PASS_PAR_BLAS, false},
                          {false, 2, 0, SBW_PASS_PAR_BLOCKS, false}};
    for (size_t i = 0; i < HEAD_NCASES; i++)
        for (size_t j = 0; j < sizeof opt / sizeof *opt; j++)
            compare(f, &head_cases[i], &opt[j], NULL, 0, 1e-12);
}

static void test_single_matches_naive(void **state)
{
    const fixture *f = *state;
    sbw_obj_opts opt[] = {{true, 1, 6, SBW_PASS_PAR_BLOCKS, false},
                          {true, 2, 5, SBW_PASS_PAR_BLAS, false}};
    /* float GEMMs: logits carry ~ FLT_EPSILON * |w||x| relative error */
    for (size_t i = 0; i < HEAD_NCASES; i++)
        for (size_t j = 0; j < sizeof opt / sizeof *opt; j++)
            compare(f, &head_cases[i], &opt[j], NULL, 0, 50 * FLT_EPSILON);
}

static void test_row_subsets(void **state)
{
    const fixture *f = *state;
    size_t rows[] = {22, 3, 0, 17, 9, 10, 4};
    sbw_obj_opts opt = {false, 2, 3, SBW_PASS_PAR_BLOCKS, false};
    for (size_t i = 0; i < HEAD_NCASES; i++)
        compare(f, &head_cases[i], &opt, rows, 7, 1e-12);
}

/* A minibatch gradient written into a buffer that an earlier minibatch
 * (overlapping rows and others) left dirty: the prefix and the batch's
 * rows equal the naive gradient of the batch (so nothing stale from the
 * earlier call survives in them), and the other rows are untouched. */
static void check_reused_buffer(const fixture *f, const head_case *c, const sbw_obj_opts *opt,
                                double rtol)
{
    size_t a[] = {22, 3, 0, 17, 9, 10, 4}, b[] = {3, 5, 17, 11, 0, 21};
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, c->model, N, M, D, c->k, c->knots, 1.2, c->bias, c->linear));
    const sbw_target *t = opt->single ? &f->t32 : &f->t64;
    double *theta = make_theta(&h, 47), *g = malloc(h.nparam * sizeof *g);
    double *gref = malloc(h.nparam * sizeof *g), *before = malloc(h.nparam * sizeof *g);
    for (size_t i = 0; i < h.nparam; i++)
        g[i] = 1e200;
    sbw_obj *o;
    sbw_obj_result r;
    SBW_ASSERT_OK(sbw_obj_alloc(&o, &h, t, opt));
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, a, 7, &r, g));
    for (size_t i = 0; i < h.nparam; i++) /* make the earlier gradient stand out */
        g[i] = g[i] * 1e3 + 1.0;
    memcpy(before, g, h.nparam * sizeof *g);
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, b, 6, &r, g));
    SBW_ASSERT_OK(sbw_obj_ref_eval(&h, theta, t, b, 6, &r, gref));
    check_grad(&h, g, gref, before, b, 6, rtol);
    sbw_obj_free(o);
    free(theta), free(g), free(gref), free(before);
}

static void test_minibatch_reuses_buffer(void **state)
{
    const fixture *f = *state;
    sbw_obj_opts opt[] = {{false, 2, 2, SBW_PASS_PAR_BLOCKS, false},
                          {false, 2, 4, SBW_PASS_PAR_BLAS, false},
                          {true, 2, 3, SBW_PASS_PAR_BLOCKS, false}};
    for (size_t i = 0; i < HEAD_NCASES; i++)
        for (size_t j = 0; j < sizeof opt / sizeof *opt; j++)
            check_reused_buffer(f, &head_cases[i], &opt[j],
                                opt[j].single ? 50 * FLT_EPSILON : 1e-12);
}

/* Same thread count and block size: identical bits, every time. */
static void test_deterministic(void **state)
{
    const fixture *f = *state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_MOS, N, M, D, 3, 0, 0, true, false));
    double *theta = make_theta(&h, 5);
    double *g1 = malloc(h.nparam * sizeof *g1), *g2 = malloc(h.nparam * sizeof *g2);
    sbw_obj_opts opt = {true, 2, 4, SBW_PASS_PAR_BLOCKS, false};
    sbw_obj *o;
    sbw_obj_result r1, r2;
    SBW_ASSERT_OK(sbw_obj_alloc(&o, &h, &f->t32, &opt));
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, NULL, 0, &r1, g1));
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, NULL, 0, &r2, g2));
    assert_memory_equal(g1, g2, h.nparam * sizeof *g1);
    assert_memory_equal(&r1.loss, &r2.loss, sizeof r1.loss);
    sbw_obj_free(o);
    free(theta), free(g1), free(g2);
}

static void test_logq_matches_naive(void **state)
{
    const fixture *f = *state;
    for (size_t i = 0; i < HEAD_NCASES; i++) {
        sbw_head h;
        const head_case *c = &head_cases[i];
        SBW_ASSERT_OK(
            sbw_head_setup(&h, c->model, N, M, D, c->k, c->knots, 1.2, c->bias, c->linear));
        double *theta = make_theta(&h, 43), *lq = malloc(N * M * sizeof *lq);
        double *ref = malloc(N * M * sizeof *ref);
        sbw_obj_opts opt = {false, 2, 4, SBW_PASS_PAR_BLOCKS, false};
        sbw_obj *o;
        sbw_obj_result r1, r2;
        SBW_ASSERT_OK(sbw_obj_alloc(&o, &h, &f->t64, &opt));
        SBW_ASSERT_OK(sbw_obj_logq(o, theta, 2, N - 2, lq, f->logp.data + 2 * M, &r1));
        for (size_t r = 2; r < N; r++)
            SBW_ASSERT_OK(sbw_obj_ref_logq(&h, theta, r, ref + (r - 2) * M));
        SBW_ASSERT_CLOSE(lq, ref, (N - 2) * M, 1e-12, 1e-13);
        /* metrics against the exact log P*: KL = sum p (log p - log q) */
        double kl = 0;
        for (size_t r = 2; r < N; r++)
            kl += sbw_num_kl(f->logp.data + r * M, ref + (r - 2) * M, M);
        SBW_ASSERT_NEAR(r1.kl, kl / (N - 2), 1e-12);
        /* and agree with the naive objective's over the same rows against the
         * stored P* (float64: p = exp(log P*) to an ulp).  A row's loss moves
         * by at most psum (= 1) times the largest log Q difference, plus the
         * roundoff of exp(log p) and of the M-term sums, M eps max|log q|;
         * the entropy by the latter (log q -> log p). */
        size_t rows[N - 2];
        double dmax = 0, lmax = 0;
        for (size_t r = 2; r < N; r++)
            rows[r - 2] = r;
        for (size_t e = 0; e < (N - 2) * M; e++) {
            dmax = fmax(dmax, fabs(lq[e] - ref[e]));
            lmax = fmax(lmax, fmax(fabs(ref[e]), fabs(f->logp.data[2 * M + e])));
        }
        SBW_ASSERT_OK(sbw_obj_ref_eval(&h, theta, &f->t64, rows, N - 2, &r2, NULL));
        double tol = dmax + 4 * M * DBL_EPSILON * (1 + lmax);
        SBW_ASSERT_NEAR(r1.loss, r2.loss, tol);
        SBW_ASSERT_NEAR(r1.kl, r2.kl, tol + 4 * M * DBL_EPSILON * (1 + lmax));
        SBW_ASSERT_NEAR(r1.mode_match, r2.mode_match, 0);
        sbw_obj_free(o);
        free(theta), free(lq), free(ref);
    }
}

static void test_errors(void **state)
{
    const fixture *f = *state;
    sbw_head h, h2;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, N, M, D, 0, 0, 0, false, false));
    SBW_ASSERT_OK(sbw_head_setup(&h2, SBW_MODEL_SOFTMAX, N + 1, M, D, 0, 0, 0, false, false));
    double *theta = make_theta(&h, 3), *g = malloc(h.nparam * sizeof *g), lq[M];
    sbw_obj_opts opt = {false, 1, 0, SBW_PASS_PAR_BLOCKS, false};
    sbw_obj *o;
    sbw_obj_result r;
    assert_int_equal(sbw_obj_alloc(&o, &h2, &f->t64, &opt), SBW_ESHAPE);
    assert_null(o);
    SBW_ASSERT_OK(sbw_obj_alloc(&o, &h, &f->t64, &opt));
    size_t rep[] = {1, 2, 1}, out[] = {0, N};
    assert_int_equal(sbw_obj_eval(o, theta, rep, 3, &r, g), SBW_EINVAL);
    assert_int_equal(sbw_obj_eval(o, theta, out, 2, &r, g), SBW_EINVAL);
    assert_int_equal(sbw_obj_eval(o, theta, rep, 0, &r, g), SBW_EINVAL);
    assert_int_equal(sbw_obj_logq(o, theta, N - 1, 2, lq, NULL, &r), SBW_EINVAL);
    /* the repeated-row check leaves no state behind */
    SBW_ASSERT_OK(sbw_obj_eval(o, theta, rep, 2, &r, g));
    sbw_obj_free(o);
    free(theta), free(g);
}

/* What is left after a failure (sbw_target.h, sbw_obj.h): a target whose
 * allocation fails is zeroed, not left with sizes and no data (it was:
 * n and m stayed set); a refused evaluation writes neither res nor the
 * gradient. */
static void test_failure_leaves(void **state)
{
    const fixture *f = *state;
    sbw_target t;
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(sbw_target_alloc(&t, SIZE_MAX / 4, 16, false), SBW_ENOMEM);
    assert_true(t.n == 0 && t.m == 0 && !t.pd && !t.pf && !t.psum);
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(sbw_target_alloc(&t, SIZE_MAX / 4, 16, true), SBW_ENOMEM);
    assert_true(t.n == 0 && t.m == 0 && !t.pd && !t.pf && !t.psum);
    sbw_target_free(&t); /* zeroed: freeing it again is harmless */
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, N, M, D, 0, 0, 0, false, false));
    double *theta = make_theta(&h, 3), *g = malloc(h.nparam * sizeof *g);
    for (size_t i = 0; i < h.nparam; i++)
        g[i] = -7;
    sbw_obj_opts opt = {false, 1, 0, SBW_PASS_PAR_BLOCKS, false};
    sbw_obj *o;
    sbw_obj_result r = {.loss = -7};
    SBW_ASSERT_OK(sbw_obj_alloc(&o, &h, &f->t64, &opt));
    size_t rep[] = {1, 2, 1};
    assert_int_equal(sbw_obj_eval(o, theta, rep, 3, &r, g), SBW_EINVAL);
    assert_true(r.loss == -7);
    for (size_t i = 0; i < h.nparam; i++)
        assert_true(g[i] == -7);
    sbw_obj_free(o);
    free(theta), free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double_matches_naive),
        cmocka_unit_test(test_single_matches_naive),
        cmocka_unit_test(test_row_subsets),
        cmocka_unit_test(test_minibatch_reuses_buffer),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_logq_matches_naive),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_failure_leaves),
    };
    return cmocka_run_group_tests_name("fit_obj", tests, setup, teardown);
}
