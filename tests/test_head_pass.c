/* test_head_pass.c -- the head API (sbw_pass.h) driven the way a language
 * model drives it: the test owns the context vectors H (with a padded
 * leading dimension, the head storing none, N = 0), supplies targets as
 * P* rows or as word ids, and checks loss, dH and the head's gradient
 * against central finite differences of the pass itself and against the
 * naive twin (sbw_pass_ref.h), for every head. */
#include "sbw_test.h"

#include "head_cases.h"

#include "sbw_error.h"
#include "sbw_head.h"
#include "sbw_mat.h"
#include "sbw_pass.h"
#include "sbw_pass_ref.h"
#include "sbw_rng.h"
#include "sbw_target.h"
#include "logp_rand.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sizes as size_t constants, so products never widen from int. */
#define M    ((size_t)11)
#define D    ((size_t)3)
#define ROWS ((size_t)5)
#define LDH  (D + 2)
#define NP   ((size_t)6)

/* Word ids of the ROWS contexts (repeats on purpose) and the P* rows they
 * are scored against (repeats on purpose too). */
static const size_t ids[ROWS] = {3, 0, 10, 3, 7};
static const size_t prow[ROWS] = {4, 1, 1, 0, 5};

static void gaussian(double *x, size_t n, double sd, uint64_t seed)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 1));
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_ran_gaussian(r, sd);
    sbw_rng_free(r);
}

/* A head with no stored H, its parameters moved off the initialisation
 * (so no gradient vanishes by symmetry), and H (ROWS x D, leading dim
 * LDH; the padding holds NaN, which the pass must never read). */
static void setup(const head_case *c, sbw_head *h, double **theta, double *H)
{
    SBW_ASSERT_OK(sbw_head_setup(h, c->model, 0, M, D, c->k, c->knots, 1.5, c->bias, c->linear));
    assert_int_equal(h->nparam, h->nshared);
    *theta = malloc(h->nshared * sizeof **theta);
    double *jit = malloc(h->nshared * sizeof *jit);
    SBW_ASSERT_OK(sbw_head_init(h, *theta, 11, 0.7));
    gaussian(jit, h->nshared, 0.3, 12);
    for (size_t i = 0; i < h->nshared; i++)
        (*theta)[i] += jit[i];
    free(jit);
    gaussian(H, ROWS * LDH, 0.8, 13);
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = D; j < LDH; j++)
            H[i * LDH + j] = NAN;
}

/* A random language (rows x cols) of Dirichlet(alpha) rows. */
static void random_logp(sbw_mat *a, size_t rows, size_t cols, double alpha, uint64_t seed)
{
    SBW_ASSERT_OK(sbw_mat_alloc(a, rows, cols));
    rand_logp_dirichlet(a, alpha, seed);
}

static sbw_pass_ws *workspace_par(const sbw_head *h, bool single, int threads, size_t block,
                                  sbw_pass_par par)
{
    sbw_pass_opts opts = {single, threads, block, par, false};
    sbw_pass_ws *ws = NULL;
    SBW_ASSERT_OK(sbw_pass_ws_alloc(&ws, h, &opts));
    return ws;
}

static sbw_pass_ws *workspace(const sbw_head *h, bool single, int threads, size_t block)
{
    return workspace_par(h, single, threads, block, SBW_PASS_PAR_BLOCKS);
}

/* Fills x (n) with a value no computation produces. */
static void fill_sentinel(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = -12345.5;
}

/* The padding columns [D, LDH) of dH (ROWS x D, leading dim LDH) still
 * hold the sentinel: the pass writes D entries per row, no more. */
static void check_padding(const double *x)
{
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = D; j < LDH; j++)
            SBW_ASSERT_EQ(x[i * LDH + j], -12345.5);
}

static double loss_at(sbw_pass_ws *ws, const double *theta, const double *H,
                      const sbw_pass_target *tg)
{
    sbw_pass_result res;
    SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, tg, &res, NULL, 0, NULL));
    return res.loss;
}

/* Central differences of the fast pass's loss in every entry of x (n). */
static void fd_grad(sbw_pass_ws *ws, double *theta, double *H, const sbw_pass_target *tg, double *x,
                    size_t n, size_t stride, size_t width, double *fd)
{
    for (size_t i = 0, at = 0; at < n; at++) {
        if (width && at % stride >= width)
            continue; /* H's padding */
        double x0 = x[at], step = 1e-5 * fmax(1.0, fabs(x0));
        x[at] = x0 + step;
        double fp = loss_at(ws, theta, H, tg);
        x[at] = x0 - step;
        double fm = loss_at(ws, theta, H, tg);
        x[at] = x0;
        fd[i++] = (fp - fm) / (2 * step);
    }
}

/* dH (ROWS x D, leading dim LDH) packed to ROWS x D. */
static void pack(const double *x, double *out)
{
    for (size_t i = 0; i < ROWS; i++)
        memcpy(out + i * D, x + i * LDH, D * sizeof *out);
}

static void check_case(const head_case *c, const sbw_pass_target *tg)
{
    sbw_head h;
    double H[ROWS * LDH], dH[ROWS * LDH], dHr[ROWS * LDH], g[ROWS * D], fdh[ROWS * D];
    double *theta;
    setup(c, &h, &theta, H);
    double *dt = malloc(h.nshared * sizeof *dt), *dtr = malloc(h.nshared * sizeof *dtr);
    double *fdt = malloc(h.nshared * sizeof *fdt);
    sbw_pass_ws *ws = workspace(&h, false, 2, 2);
    sbw_pass_result res, ref;
    fill_sentinel(dH, ROWS * LDH);
    SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, tg, &res, dH, LDH, dt));
    check_padding(dH);
    /* the naive twin: same loss, KL, mode match and gradients */
    SBW_ASSERT_OK(sbw_pass_ref_loss(&h, theta, H, ROWS, LDH, tg, &ref, dHr, LDH, dtr));
    SBW_ASSERT_NEAR(res.loss, ref.loss, 1e-12 * (1 + fabs(ref.loss)));
    SBW_ASSERT_NEAR(res.kl, ref.kl, 1e-12 * (1 + fabs(ref.loss)));
    SBW_ASSERT_NEAR(res.mode_match, ref.mode_match, 0);
    pack(dH, g), pack(dHr, fdh);
    SBW_ASSERT_CLOSE(g, fdh, ROWS * D, 1e-13, 1e-10);
    SBW_ASSERT_CLOSE(dt, dtr, h.nshared, 1e-13, 1e-10);
    /* finite differences of the fast pass itself, in H and in theta:
     * truncation ~ step^2 |f'''|, rounding ~ eps |f| / step */
    fd_grad(ws, theta, H, tg, H, ROWS * LDH, LDH, D, fdh);
    SBW_ASSERT_CLOSE(g, fdh, ROWS * D, 2e-8, 1e-6);
    fd_grad(ws, theta, H, tg, theta, h.nshared, 1, 0, fdt);
    SBW_ASSERT_CLOSE(dt, fdt, h.nshared, 2e-8, 1e-6);
    sbw_pass_ws_free(ws);
    free(theta), free(dt), free(dtr), free(fdt);
}

static void test_fd_every_head_prows(void **state)
{
    (void)state;
    sbw_mat a;
    sbw_target t;
    random_logp(&a, NP, M, 1.5, 21);
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, false, 1e-9));
    sbw_pass_target tg = {.p = &t, .rows = prow};
    for (size_t i = 0; i < HEAD_NCASES; i++)
        check_case(&head_cases[i], &tg);
    sbw_target_free(&t);
    sbw_mat_free(&a);
}

static void test_fd_every_head_ids(void **state)
{
    (void)state;
    sbw_pass_target tg = {.ids = ids};
    for (size_t i = 0; i < HEAD_NCASES; i++)
        check_case(&head_cases[i], &tg);
}

/* P* rows that are one-hot at ids[] (never from a log P* file: log 0 is
 * refused there), with their row constants. */
static void onehot_target(sbw_target *t, bool single)
{
    SBW_ASSERT_OK(sbw_target_alloc(t, ROWS, M, single));
    for (size_t i = 0; i < ROWS; i++) {
        for (size_t j = 0; j < M; j++) {
            double p = j == ids[i] ? 1.0 : 0.0;
            if (single)
                t->pf[i * M + j] = (float)p;
            else
                t->pd[i * M + j] = p;
        }
        t->psum[i] = 1.0, t->ent[i] = 0.0, t->mode[i] = ids[i];
    }
}

/* The language-model loss (one observed word per row) is the P*-row loss
 * with one-hot rows: the same kernels see the same numbers, so loss, KL,
 * mode match, dH and the head's gradient agree bit for bit, in double and
 * in single, with threads over blocks or BLAS threads; the results are
 * finite, and the KL equals the loss (a one-hot has entropy 0). */
static void check_onehot(const head_case *c, bool single, sbw_pass_par par)
{
    sbw_head h;
    sbw_target t;
    double H[ROWS * LDH], dH1[ROWS * LDH], dH2[ROWS * LDH], *theta;
    setup(c, &h, &theta, H);
    onehot_target(&t, single);
    double *d1 = malloc(h.nshared * sizeof *d1), *d2 = malloc(h.nshared * sizeof *d2);
    sbw_pass_ws *ws = workspace_par(&h, single, 2, 2, par);
    sbw_pass_target by_id = {.ids = ids}, by_row = {.p = &t};
    sbw_pass_result r1, r2;
    SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &by_id, &r1, dH1, LDH, d1));
    SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &by_row, &r2, dH2, LDH, d2));
    assert_true(isfinite(r1.loss));
    SBW_ASSERT_EQ(r1.loss, r2.loss);
    SBW_ASSERT_EQ(r1.kl, r2.kl);
    SBW_ASSERT_EQ(r1.kl, r1.loss);
    SBW_ASSERT_EQ(r1.mode_match, r2.mode_match);
    double p1[ROWS * D], p2[ROWS * D];
    pack(dH1, p1), pack(dH2, p2);
    for (size_t j = 0; j < ROWS * D; j++)
        assert_true(isfinite(p1[j]));
    for (size_t j = 0; j < h.nshared; j++)
        assert_true(isfinite(d1[j]));
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(d1, d2, h.nshared * sizeof *d1);
    sbw_pass_ws_free(ws);
    sbw_target_free(&t);
    free(theta), free(d1), free(d2);
}

static void test_ids_equal_onehot_rows(void **state)
{
    (void)state;
    for (int single = 0; single <= 1; single++)
        for (size_t i = 0; i < HEAD_NCASES; i++) {
            check_onehot(&head_cases[i], single, SBW_PASS_PAR_BLOCKS);
            check_onehot(&head_cases[i], single, SBW_PASS_PAR_BLAS);
        }
}

/* dH may overwrite H in place (same leading dimension): the result is the
 * one computed into a separate buffer. */
static void test_dh_in_place(void **state)
{
    (void)state;
    for (size_t i = 0; i < HEAD_NCASES; i++) {
        sbw_head h;
        double H[ROWS * LDH], dH[ROWS * LDH], *theta;
        setup(&head_cases[i], &h, &theta, H);
        double *d1 = malloc(h.nshared * sizeof *d1), *d2 = malloc(h.nshared * sizeof *d2);
        sbw_pass_ws *ws = workspace(&h, false, 2, 2);
        sbw_pass_target tg = {.ids = ids};
        sbw_pass_result r1, r2;
        SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tg, &r1, dH, LDH, d1));
        SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tg, &r2, H, LDH, d2));
        double p1[ROWS * D], p2[ROWS * D];
        pack(dH, p1), pack(H, p2);
        assert_memory_equal(p1, p2, sizeof p1);
        assert_memory_equal(d1, d2, h.nshared * sizeof *d1);
        sbw_pass_ws_free(ws);
        free(theta), free(d1), free(d2);
    }
}

/* The loss of an id is -log Q_id from the exported log Q, and the mode
 * match counts rows whose argmax Q is the id. */
static void test_ids_loss_is_minus_logq(void **state)
{
    (void)state;
    for (size_t i = 0; i < HEAD_NCASES; i++) {
        sbw_head h;
        double H[ROWS * LDH], lq[ROWS * (M + 1)], *theta;
        setup(&head_cases[i], &h, &theta, H);
        sbw_pass_ws *ws = workspace(&h, false, 1, 3);
        sbw_pass_target tg = {.ids = ids};
        sbw_pass_result res;
        SBW_ASSERT_OK(sbw_pass_logq(ws, theta, H, ROWS, LDH, lq, M + 1, NULL, NULL, 0, NULL));
        double loss = 0, hits = 0;
        for (size_t r = 0; r < ROWS; r++) {
            const double *q = lq + r * (M + 1);
            size_t best = 0;
            for (size_t j = 1; j < M; j++)
                best = q[j] > q[best] ? j : best;
            loss -= q[ids[r]];
            hits += best == ids[r];
            double ref[M];
            SBW_ASSERT_OK(sbw_pass_ref_logq(&h, theta, H + r * LDH, ref));
            SBW_ASSERT_CLOSE(q, ref, M, 1e-12, 1e-12);
        }
        SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tg, &res, NULL, 0, NULL));
        SBW_ASSERT_NEAR(res.loss, loss / ROWS, 1e-12 * (1 + fabs(loss)));
        SBW_ASSERT_NEAR(res.mode_match, hits / ROWS, 0);
        sbw_pass_ws_free(ws);
        free(theta);
    }
}

/* Single precision against the naive double twin, at float tolerances;
 * and a call keeps nothing: the same call after another gives the same
 * bits. */
static void test_single_and_stateless(void **state)
{
    (void)state;
    for (size_t i = 0; i < HEAD_NCASES; i++) {
        sbw_head h;
        double H[ROWS * LDH], H2[ROWS * LDH], dH[ROWS * LDH], dHr[ROWS * LDH], *theta;
        setup(&head_cases[i], &h, &theta, H);
        memcpy(H2, H, sizeof H);
        for (size_t j = 0; j < ROWS * D; j++)
            H2[j / D * LDH + j % D] *= -1.5;
        double *d1 = malloc(h.nshared * sizeof *d1), *d2 = malloc(h.nshared * sizeof *d2);
        sbw_pass_ws *ws = workspace(&h, true, 2, 4);
        sbw_pass_target tg = {.ids = ids};
        sbw_pass_result r1, r2, ref;
        SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tg, &r1, dH, LDH, d1));
        SBW_ASSERT_OK(sbw_pass_ref_loss(&h, theta, H, ROWS, LDH, &tg, &ref, dHr, LDH, d2));
        SBW_ASSERT_NEAR(r1.loss, ref.loss, 1e-5 * (1 + fabs(ref.loss)));
        double p1[ROWS * D], p2[ROWS * D];
        pack(dH, p1), pack(dHr, p2);
        SBW_ASSERT_CLOSE(p1, p2, ROWS * D, 1e-5, 1e-3);
        SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H2, ROWS, LDH, &tg, &r2, dHr, LDH, d2));
        SBW_ASSERT_OK(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tg, &r2, dHr, LDH, d2));
        assert_memory_equal(&r1, &r2, sizeof r1);
        pack(dHr, p2);
        assert_memory_equal(p1, p2, sizeof p1); /* the padding is never written */
        assert_memory_equal(d1, d2, h.nshared * sizeof *d1);
        sbw_pass_ws_free(ws);
        free(theta), free(d1), free(d2);
    }
}

static void test_errors(void **state)
{
    (void)state;
    sbw_head h;
    sbw_mat a;
    sbw_target t;
    double H[ROWS * LDH], dH[ROWS * LDH], *theta, lq[ROWS * M];
    setup(&head_cases[0], &h, &theta, H);
    double *dt = malloc(h.nshared * sizeof *dt);
    random_logp(&a, NP, M + 1, 1.0, 5);
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, false, 1e-9));
    sbw_pass_opts zero = {false, 1, 0, SBW_PASS_PAR_BLOCKS, false};
    sbw_pass_ws *ws = NULL;
    assert_int_equal(sbw_pass_ws_alloc(&ws, &h, &zero), SBW_EINVAL);
    assert_null(ws);
    ws = workspace(&h, false, 1, 2);
    size_t bad_id[ROWS] = {0, 1, M, 2, 3}, bad_row[ROWS] = {0, 1, NP, 2, 3};
    sbw_pass_target tid = {.ids = ids}, none = {0}, both = {.p = &t, .ids = ids};
    sbw_pass_target wide = {.p = &t}, oob_id = {.ids = bad_id};
    sbw_pass_result r;
    assert_int_equal(sbw_pass_loss(ws, theta, H, 0, LDH, &tid, &r, NULL, 0, NULL), SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, D - 1, &tid, &r, NULL, 0, NULL), SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tid, &r, dH, D - 1, dt), SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &tid, &r, dH, LDH, NULL), SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &none, &r, NULL, 0, NULL), SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &both, &r, NULL, 0, NULL), SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &oob_id, &r, NULL, 0, NULL),
                     SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &wide, &r, NULL, 0, NULL), SBW_ESHAPE);
    assert_int_equal(sbw_pass_logq(ws, theta, H, ROWS, LDH, lq, M - 1, NULL, NULL, 0, NULL),
                     SBW_EINVAL);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    random_logp(&a, NP, M, 1.0, 5);
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, false, 1e-9));
    sbw_pass_target oob_row = {.p = &t, .rows = bad_row}, oob_r0 = {.p = &t, .r0 = NP - 2};
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &oob_row, &r, NULL, 0, NULL),
                     SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, LDH, &oob_r0, &r, NULL, 0, NULL),
                     SBW_EINVAL);
    sbw_pass_ws_free(ws);
    sbw_target_free(&t);
    sbw_mat_free(&a);
    free(theta), free(dt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd_every_head_prows),
        cmocka_unit_test(test_fd_every_head_ids),
        cmocka_unit_test(test_ids_equal_onehot_rows),
        cmocka_unit_test(test_dh_in_place),
        cmocka_unit_test(test_ids_loss_is_minus_logq),
        cmocka_unit_test(test_single_and_stateless),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
