/* lm_fixture.h -- the language-model fixture the lm suites share
 * (header-only, static): a tiny model of a given architecture, theta from
 * the documented init and then perturbed (so that biases and the maps'
 * parameters are not at special values), random tokens, a random carried
 * state, and the objective whose gradient sbw_lm_loss returns -- the mean
 * cross-entropy + AR + TAR from that state with every dropout mask fixed
 * by (LMF_SEED, LMF_STREAM) -- with its central-difference check. */
#ifndef LM_FIXTURE_H
#define LM_FIXTURE_H

#include "sbw_lm.h"
#include "sbw_test.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

enum { LMF_M = 7, LMF_SEED = 7, LMF_STREAM = 11 };
#define LMF_B ((size_t)2) /* sequences */
#define LMF_T ((size_t)4) /* steps */

typedef struct lm_fixture {
    sbw_lm lm;
    sbw_lm_ws *ws; /* LMF_B x LMF_T, holds the weight-drop masks */
    double *theta, *grad, *state0;
    size_t x[LMF_B * LMF_T], y[LMF_B * LMF_T];
    sbw_lm_dropout drop;
    double ar, tar; /* the last objective's AR and TAR */
} lm_fixture;

/* Sets up f for architecture a over LMF_M words (float GEMMs when
 * single) with dropout drop; fails the test on any error.  Free with
 * lm_fixture_free. */
static inline void lm_fixture_setup(lm_fixture *f, const sbw_lm_arch *a, bool single,
                                    const sbw_lm_dropout *drop)
{
    memset(f, 0, sizeof *f);
    SBW_ASSERT_OK(sbw_lm_setup(&f->lm, a, LMF_M));
    sbw_lm_ws_opts o = {LMF_B, LMF_T, single, 1, 0, NULL, NULL, NULL, true, false};
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&f->ws, &f->lm, &o));
    size_t n = f->lm.nparam, sl = sbw_lm_state_len(f->ws);
    f->theta = malloc(n * sizeof *f->theta);
    f->grad = malloc(n * sizeof *f->grad);
    f->state0 = malloc(sl * sizeof *f->state0);
    assert_non_null(f->theta);
    assert_non_null(f->grad);
    assert_non_null(f->state0);
    SBW_ASSERT_OK(sbw_lm_init(&f->lm, f->theta, 3));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (size_t i = 0; i < n; i++)
        f->theta[i] += 0.3 * (gsl_rng_uniform(r) - 0.5);
    for (size_t i = 0; i < LMF_B * LMF_T; i++)
        f->x[i] = gsl_rng_uniform_int(r, LMF_M), f->y[i] = gsl_rng_uniform_int(r, LMF_M);
    for (size_t i = 0; i < sl; i++)
        f->state0[i] = 0.8 * (gsl_rng_uniform(r) - 0.5); /* a carried state, not zero */
    gsl_rng_free(r);
    f->drop = *drop;
}

/* Frees what lm_fixture_setup allocated. */
static inline void lm_fixture_free(lm_fixture *f)
{
    sbw_lm_ws_free(f->ws);
    free(f->theta);
    free(f->grad);
    free(f->state0);
}

/* loss + AR + TAR at theta from the fixed state (the gradient into
 * f->grad, AR and TAR into f->ar, f->tar). */
static inline double lm_fixture_objective(lm_fixture *f, const double *theta)
{
    sbw_lm_chunk ch = {f->x, f->y, LMF_T};
    sbw_pass_result r;
    sbw_lm_state_set(f->ws, f->state0);
    SBW_ASSERT_OK(sbw_lm_loss(f->ws, theta, &ch, &f->drop, LMF_SEED, LMF_STREAM, &r, f->grad));
    sbw_lm_ws_reg(f->ws, &f->ar, &f->tar);
    return r.loss + f->ar + f->tar;
}

/* lm_fixture_objective for SBW_ASSERT_GRAD_FD. */
static inline double lm_fixture_objective_fd(void *ctx, const double *theta)
{
    return lm_fixture_objective(ctx, theta);
}

/* Checks every entry of the gradient at f->theta against central
 * differences and returns it (caller frees); f->ar, f->tar are those at
 * f->theta. */
static inline double *lm_fixture_grad_fd(lm_fixture *f)
{
    size_t n = f->lm.nparam;
    double *g = malloc(n * sizeof *g), *th = malloc(n * sizeof *th);
    assert_non_null(g);
    assert_non_null(th);
    lm_fixture_objective(f, f->theta);
    memcpy(g, f->grad, n * sizeof *g);
    memcpy(th, f->theta, n * sizeof *th);
    double ar = f->ar, tar = f->tar;
    SBW_ASSERT_GRAD_FD(lm_fixture_objective_fd, f, th, g, n);
    f->ar = ar, f->tar = tar;
    free(th);
    return g;
}

#endif
