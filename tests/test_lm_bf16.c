/* test_lm_bf16.c -- sbw_lm with bfloat16 GEMM inputs (ws opts bf16):
 * the loss and gradient of a chunk against the float32 path from the same
 * parameters, state and dropout masks, within what bfloat16's 8-bit
 * significand predicts; the same bits on a repeated call; a workspace
 * refused with the reason on a CPU without AVX-512 BF16.  Skipped with a
 * note on such a CPU (but for the refusal). */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_gemm.h"
#include "sbw_lm.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 300, B = 4, T = 6 };

/* One model, its two workspaces (float32, bf16), parameters and data. */
typedef struct pair {
    sbw_lm lm;
    sbw_lm_ws *wf, *wb;
    double *theta, *gf, *gb, *state;
    size_t x[B * T], y[B * T];
} pair;

static void pair_setup(pair *p, sbw_head_model model, size_t k)
{
    memset(p, 0, sizeof *p);
    sbw_lm_arch a = {.model = model,
                     .k = k,
                     .knots = 20,
                     .plif_t = 5,
                     .bias = true,
                     .d = 24,
                     .emb = 32,
                     .nlayers = 2,
                     .hidden = {64, 40}};
    SBW_ASSERT_OK(sbw_lm_setup(&p->lm, &a, M));
    sbw_lm_ws_opts o = {B, T, true, 1, 0, NULL, NULL, NULL, false, false}, ob = o;
    ob.bf16 = true;
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&p->wf, &p->lm, &o));
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&p->wb, &p->lm, &ob));
    size_t n = p->lm.nparam, sl = sbw_lm_state_len(p->wf);
    p->theta = malloc(n * sizeof *p->theta);
    p->gf = malloc(n * sizeof *p->gf);
    p->gb = malloc(n * sizeof *p->gb);
    p->state = malloc(sl * sizeof *p->state);
    assert_non_null(p->theta);
    assert_non_null(p->gf);
    assert_non_null(p->gb);
    assert_non_null(p->state);
    SBW_ASSERT_OK(sbw_lm_init(&p->lm, p->theta, 5));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 27);
    for (size_t i = 0; i < n; i++)
        p->theta[i] += 0.2 * (gsl_rng_uniform(r) - 0.5);
    for (size_t i = 0; i < (size_t)B * T; i++)
        p->x[i] = gsl_rng_uniform_int(r, M), p->y[i] = gsl_rng_uniform_int(r, M);
    for (size_t i = 0; i < sl; i++)
        p->state[i] = 0.8 * (gsl_rng_uniform(r) - 0.5);
    gsl_rng_free(r);
}

static void pair_free(pair *p)
{
    sbw_lm_ws_free(p->wf);
    sbw_lm_ws_free(p->wb);
    free(p->theta), free(p->gf), free(p->gb), free(p->state);
}

/* The chunk's loss from the fixed state with dropout on, gradient into g. */
static double loss(pair *p, sbw_lm_ws *w, double *g)
{
    sbw_lm_dropout drop = {.emb = 0.1, .in = 0.2, .layer = 0.2, .last = -1, .latent = 0.2};
    sbw_lm_chunk ch = {p->x, p->y, T};
    sbw_pass_result r;
    sbw_lm_state_set(w, p->state);
    SBW_ASSERT_OK(sbw_lm_loss(w, p->theta, &ch, &drop, 3, 4, &r, g));
    return r.loss;
}

static double norm(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * x[i];
    return sqrt(s);
}

/* The bound: a GEMM with both inputs rounded to bfloat16 (relative
 * error u = 2^-8 each) moves each output by at most (2u + u^2) sum |a b|.
 * The chunk's gradient passes through G GEMM stages in sequence (each
 * layer, the latent and the head, forward and back: G = 2 (L + 2)); to
 * first order the stages' errors add, so with sum |a b| of the order of
 * |sum a b| the gradient's normwise relative error is at most
 * G (2u + u^2) (= 0.063 here); random rounding signs keep it far below.
 * The loss, a mean of log-probabilities, moves by at most that share. */
static double compare(pair *p, const char *name, const char *when)
{
    size_t n = p->lm.nparam;
    double lf = loss(p, p->wf, p->gf), lb = loss(p, p->wb, p->gb);
    double u = 0x1p-8, bound = 2.0 * (double)(p->lm.a.nlayers + 2) * (2 * u + u * u);
    double d2 = 0;
    for (size_t i = 0; i < n; i++)
        d2 += (p->gb[i] - p->gf[i]) * (p->gb[i] - p->gf[i]);
    double rel = sqrt(d2) / norm(p->gf, n);
    printf("note: %s, %s: loss float32 %.9f, bf16 %.9f; gradient relative error %.3g (bound "
           "%.3g)\n",
           name, when, lf, lb, rel, bound);
    SBW_ASSERT_LE(rel, bound);
    SBW_ASSERT_GT(rel, 0.0); /* the bfloat16 path is not float32 in disguise */
    SBW_ASSERT_LE(fabs(lb - lf), bound * fabs(lf));
    return lb;
}

/* At theta; the same call again gives the same bits; then at new
 * parameters, where a kept copy of the old weights would show (the
 * workspace must drop its copies when theta changes). */
static void check_head(sbw_head_model model, size_t k, const char *name)
{
    pair p;
    pair_setup(&p, model, k);
    size_t n = p.lm.nparam;
    double lb = compare(&p, name, "at theta");
    double *g = malloc(n * sizeof *g);
    assert_non_null(g);
    memcpy(g, p.gb, n * sizeof *g);
    SBW_ASSERT_EQ(loss(&p, p.wb, p.gb), lb);
    assert_memory_equal(g, p.gb, n * sizeof *g);
    for (size_t i = 0; i < n; i++)
        p.theta[i] *= -1.5; /* far from theta: stale copies would be far off */
    compare(&p, name, "at -1.5 theta");
    free(g);
    pair_free(&p);
}

static bool have_bf16(void)
{
    char why[256];
    if (sbw_gemm_bf16_supported(why, sizeof why))
        return true;
    printf("note: bfloat16 language-model tests skipped: %s\n", why);
    return false;
}

static void test_softmax(void **state)
{
    (void)state;
    if (have_bf16())
        check_head(SBW_MODEL_SOFTMAX, 1, "softmax");
}

static void test_mos(void **state)
{
    (void)state;
    if (have_bf16())
        check_head(SBW_MODEL_MOS, 3, "mos K=3");
}

static void test_plif(void **state)
{
    (void)state;
    if (have_bf16())
        check_head(SBW_MODEL_PLIF, 1, "plif");
}

/* Without AVX-512 BF16 the workspace is refused with the reason. */
static void test_refused_without_bf16(void **state)
{
    (void)state;
    char why[256];
    if (sbw_gemm_bf16_supported(why, sizeof why)) {
        printf("note: this CPU has AVX-512 BF16; the refusal is tested by the CLI suite under "
               "ONEDNN_MAX_CPU_ISA\n");
        return;
    }
    sbw_lm lm;
    sbw_lm_arch a = {
        .model = SBW_MODEL_SOFTMAX, .bias = true, .d = 8, .emb = 8, .nlayers = 1, .hidden = {8}};
    SBW_ASSERT_OK(sbw_lm_setup(&lm, &a, 20));
    sbw_lm_ws_opts o = {2, 3, true, 1, 0, NULL, NULL, NULL, false, true};
    sbw_lm_ws *w = NULL;
    SBW_ASSERT_EQ(sbw_lm_ws_alloc(&w, &lm, &o), SBW_EINVAL);
    assert_null(w);
    assert_non_null(strstr(sbw_error_reason(), "AVX-512 BF16"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_mos),
        cmocka_unit_test(test_plif),
        cmocka_unit_test(test_refused_without_bf16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
