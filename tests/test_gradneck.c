/* test_gradneck.c -- the gradient bottleneck (models/sbw_gradneck) against
 * an independent computation: for every head of head_cases.h, random
 * parameters and contexts, the Jacobian d log q / d h by central finite
 * differences of the naive twin's log q (sbw_pass_ref_logq), centred,
 * and the projection of g = q - e_y onto its range by least squares
 * (LAPACK dgelsd: ||C J x - g|| minimal, passed = ||C J x|| / ||g||); the
 * Softmax single-map path against the general (Jacobian) path on the same
 * head; closed forms: a head of full centred rank passes everything, a
 * word whose q is one-hot passes 0; the summary against sorted values;
 * MoS's and MoC's closed-form Jacobians at a language model's shape (C
 * != D, a component bias) and with columns of h they ignore (J
 * rank-deficient); the pointwise maps' (sigsoftmax, LMS, PLIF) through
 * head_cases. */
#include "head_cases.h"
#include "sbw_gradneck.h"
#include "sbw_pass_ref.h"
#include "sbw_test.h"

#include "sbw_error.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define M 12
#define D 4

/* The twin: passed share of context hv, word y, by a finite-difference
 * Jacobian and dgelsd. */
static double twin_share(const sbw_head *h, const double *theta, const double *hv, size_t y)
{
    size_t c = h->c;
    double lq[M], lp[M], lm[M], q[M], g[M], x[M], jac[M * 16] = {0}, hp[16];
    assert_true(c <= 16);
    SBW_ASSERT_OK(sbw_pass_ref_logq(h, theta, hv, lq));
    for (size_t j = 0; j < M; j++) {
        q[j] = exp(lq[j]);
        g[j] = q[j] - (j == y);
    }
    for (size_t k = 0; k < c; k++) {
        double step = 1e-5 * fmax(1.0, fabs(hv[k]));
        memcpy(hp, hv, c * sizeof *hp);
        hp[k] = hv[k] + step;
        SBW_ASSERT_OK(sbw_pass_ref_logq(h, theta, hp, lp));
        hp[k] = hv[k] - step;
        SBW_ASSERT_OK(sbw_pass_ref_logq(h, theta, hp, lm));
        double mu = 0;
        for (size_t j = 0; j < M; j++) {
            jac[j + k * M] = (lp[j] - lm[j]) / (2 * step); /* column-major M x c */
            mu += jac[j + k * M] / M;
        }
        for (size_t j = 0; j < M; j++)
            jac[j + k * M] -= mu;
    }
    double a[M * 16], s[16], gg = 0, pp = 0;
    memcpy(a, jac, M * c * sizeof *a);
    memcpy(x, g, sizeof g);
    lapack_int rank;
    assert_int_equal(
        LAPACKE_dgelsd(LAPACK_COL_MAJOR, M, (lapack_int)c, 1, a, M, x, M, s, 1e-7, &rank), 0);
    for (size_t j = 0; j < M; j++) {
        double v = 0;
        for (size_t k = 0; k < c; k++)
            v += jac[j + k * M] * x[k];
        pp += v * v;
        gg += g[j] * g[j];
    }
    return sqrt(pp / gg);
}

static void setup_head(const head_case *hc, sbw_head *h, double **theta, uint64_t seed)
{
    SBW_ASSERT_OK(
        sbw_head_setup(h, hc->model, 0, M, D, hc->k, hc->knots, 3.0, hc->bias, hc->linear));
    *theta = malloc(h->nshared * sizeof **theta);
    assert_non_null(*theta);
    SBW_ASSERT_OK(sbw_head_init(h, *theta, seed, 0.8));
    if (h->bias)
        for (size_t j = 0; j < M; j++)
            (*theta)[h->off_b + j] = 0.3 * sin((double)(j + seed));
}

/* Every head: the module's share equals the twin's within the finite
 * differences' error. */
static void test_against_twin(void **state)
{
    (void)state;
    double H[5 * D];
    size_t y[5];
    for (size_t ci = 0; ci < HEAD_NCASES; ci++) {
        sbw_head h;
        double *theta, passed[5];
        setup_head(&head_cases[ci], &h, &theta, 10 + ci);
        for (size_t i = 0; i < sizeof H / sizeof *H; i++)
            H[i] = 1.5 * sin(0.7 * (double)(i + 3 * ci) + 0.3);
        for (size_t i = 0; i < 5; i++)
            y[i] = (3 * i + ci) % M;
        sbw_gradneck_ws *ws = NULL;
        SBW_ASSERT_OK(sbw_gradneck_ws_alloc(&ws, &h, theta));
        SBW_ASSERT_OK(sbw_gradneck_rows(ws, H, 5, D, y, passed));
        for (size_t i = 0; i < 5; i++) {
            double want = twin_share(&h, theta, H + i * D, y[i]);
            if (fabs(passed[i] - want) > 1e-6)
                print_error("%s (case %zu) row %zu: %.10f, twin %.10f\n",
                            sbw_head_model_name(h.model), ci, i, passed[i], want);
            SBW_ASSERT_ABS_LE(passed[i] - want, 1e-6);
            assert_true(passed[i] >= 0 && passed[i] <= 1);
        }
        sbw_gradneck_ws_free(ws);
        free(theta);
    }
}

/* A Softmax head through both paths: the single map's fixed basis and the
 * Jacobian of the pass (a MoS with K = 1 has the same log q as a function
 * of its own context, but its Jacobian path: compare a Softmax head with
 * itself by forcing the general path through sbw_gradneck_share on a
 * basis made here from the pass's Jacobian). */
static void test_linear_path(void **state)
{
    (void)state;
    sbw_head h;
    double *theta, H[6 * D], passed[6];
    size_t y[6];
    setup_head(&head_cases[1], &h, &theta, 77); /* softmax with a bias */
    for (size_t i = 0; i < sizeof H / sizeof *H; i++)
        H[i] = cos(1.3 * (double)i);
    for (size_t i = 0; i < 6; i++)
        y[i] = (5 * i + 1) % M;
    sbw_gradneck_ws *ws = NULL;
    SBW_ASSERT_OK(sbw_gradneck_ws_alloc(&ws, &h, theta));
    assert_true(sbw_gradneck_linear(ws));
    SBW_ASSERT_OK(sbw_gradneck_rows(ws, H, 6, D, y, passed));
    for (size_t i = 0; i < 6; i++)
        SBW_ASSERT_ABS_LE(passed[i] - twin_share(&h, theta, H + i * D, y[i]), 1e-6);
    sbw_gradneck_ws_free(ws);
    /* D = M - 1: the centred W spans all of 1-perp, g is in it: passed 1 */
    sbw_head hf;
    SBW_ASSERT_OK(sbw_head_setup(&hf, SBW_MODEL_SOFTMAX, 0, M, M - 1, 0, 0, 1, false, false));
    double *tf = malloc(hf.nshared * sizeof *tf), hv[M - 1];
    assert_non_null(tf);
    SBW_ASSERT_OK(sbw_head_init(&hf, tf, 3, 1.0));
    for (size_t k = 0; k < M - 1; k++)
        hv[k] = 0.1 * (double)k;
    SBW_ASSERT_OK(sbw_gradneck_ws_alloc(&ws, &hf, tf));
    SBW_ASSERT_OK(sbw_gradneck_rows(ws, hv, 1, M - 1, (size_t[]){4}, passed));
    SBW_ASSERT_NEAR(passed[0], 1.0, 1e-12);
    size_t bad = M;
    assert_int_equal(sbw_gradneck_rows(ws, hv, 1, M - 1, &bad, passed), SBW_EINVAL);
    sbw_gradneck_ws_free(ws);
    free(tf);
    free(theta);
}

/* MoS and MoC as sbw-lm's head has them (component bias, word bias) at
 * C = 7 > D and C = 3 < D (MoC's J = (I - 1q^T) W A has the range of W
 * whenever A = d hbar/dh has rank D, so only C < D tests A), through
 * their closed-form Jacobians, against the twin; then with the last two
 * columns of every U_k and of V zeroed, so that J loses rank and the
 * range's threshold decides. */
static void check_mixing(sbw_head_model model, size_t c)
{
    enum { R = 4, CMAX = 7 };
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, model, 0, M, D, 3, 0, 1, true, false));
    SBW_ASSERT_OK(sbw_head_set_context(&h, c, true));
    double *theta = malloc(h.nshared * sizeof *theta), H[R * CMAX], passed[R];
    assert_non_null(theta);
    SBW_ASSERT_OK(sbw_head_init(&h, theta, 41, 0.9));
    for (size_t i = 0; i < M; i++)
        theta[h.off_b + i] = 0.4 * cos((double)i);
    for (size_t i = 0; i < h.k * D; i++)
        theta[h.off_ub + i] = 0.5 * sin(1.7 * (double)i);
    for (size_t i = 0; i < sizeof H / sizeof *H; i++)
        H[i] = 1.2 * sin(0.9 * (double)i + 0.4);
    size_t y[R] = {0, 5, 11, 7};
    for (int pass = 0; pass < 2; pass++) {
        sbw_gradneck_ws *ws = NULL;
        SBW_ASSERT_OK(sbw_gradneck_ws_alloc(&ws, &h, theta));
        assert_false(sbw_gradneck_linear(ws));
        SBW_ASSERT_OK(sbw_gradneck_rows(ws, H, R, c, y, passed));
        for (size_t i = 0; i < R; i++) {
            double want = twin_share(&h, theta, H + i * c, y[i]);
            if (fabs(passed[i] - want) > 1e-6)
                print_error("%s C = %zu pass %d row %zu: %.10f, twin %.10f\n",
                            sbw_head_model_name(model), c, pass, i, passed[i], want);
            SBW_ASSERT_ABS_LE(passed[i] - want, 1e-6);
        }
        sbw_gradneck_ws_free(ws);
        for (size_t r = 0; r < h.k * D + h.k; r++) { /* U's K D rows, then V's K */
            double *row = theta + (r < h.k * D ? h.off_u + r * c : h.off_v + (r - h.k * D) * c);
            row[c - 1] = row[c - 2] = 0;
        }
    }
    free(theta);
}

static void test_mixing_context(void **state)
{
    (void)state;
    check_mixing(SBW_MODEL_MOS, 7);
    check_mixing(SBW_MODEL_MOS, 3);
    check_mixing(SBW_MODEL_MOC, 7);
    check_mixing(SBW_MODEL_MOC, 3);
}

/* The share's closed forms and the summary. */
static void test_share_summary(void **state)
{
    (void)state;
    double q[4] = {0, 1, 0, 0}, vt[4] = {1, 0, 0, 0};
    assert_true(sbw_gradneck_share(q, 4, 1, vt, 1, 1) == 0); /* g = 0 */
    double q2[4] = {0.25, 0.25, 0.25, 0.25}, e[4] = {0.5, 0.5, -0.5, -0.5};
    /* g = (0.25, -0.75, 0.25, 0.25), ||g||^2 = 0.75, e.g = 0 - ... */
    double want = fabs(0.5 * 0.25 - 0.5 * 0.75 - 0.5 * 0.25 - 0.5 * 0.25) / sqrt(0.75);
    SBW_ASSERT_NEAR(sbw_gradneck_share(q2, 4, 1, e, 1, 1), want, 1e-15);
    const double v[] = {0.9, 0.1, 0.5, 0.3, 0.7};
    sbw_gradneck_summary s;
    SBW_ASSERT_OK(sbw_gradneck_summarise(v, 5, &s));
    SBW_ASSERT_NEAR(s.mean, 0.5, 1e-15);
    SBW_ASSERT_NEAR(s.q50, 0.5, 1e-15);
    SBW_ASSERT_NEAR(s.q25, 0.3, 1e-15);
    SBW_ASSERT_NEAR(s.q05, 0.1 + 0.2 * 0.2, 1e-15);
    SBW_ASSERT_NEAR(s.min, 0.1, 0);
    SBW_ASSERT_NEAR(s.max, 0.9, 0);
    assert_int_equal(sbw_gradneck_summarise(v, 0, &s), SBW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_twin),
        cmocka_unit_test(test_linear_path),
        cmocka_unit_test(test_mixing_context),
        cmocka_unit_test(test_share_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
