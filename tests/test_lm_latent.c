/* test_lm_latent.c -- sbw-lm's --latent none (lm/sbw_lm.h): the last LSTM
 * layer's output feeds the head directly, a mixture with the component
 * bias and its dropout on g_k.  Gradients of loss + AR + TAR against
 * central differences in double with every mask fixed (softmax with H_L
 * = D; moc and mos with H_L > D and < D), float against double, the
 * layout (no P, p0; the head's context width H_L; the workspace's bytes
 * as the preflight counts them), the documented
 * initialisation, the refusals, and the presets' architecture. */
#include "sbw_test.h"

#include "lm_fixture.h"
#include "sbw_error.h"
#include "sbw_lm.h"
#include "sbw_lm_opts.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { M = LMF_M, SEED = LMF_SEED, STREAM = LMF_STREAM };
#define B LMF_B
#define T LMF_T

static sbw_lm_arch arch(sbw_head_model model, size_t hl)
{
    sbw_lm_arch a = {.model = model,
                     .k = 3,
                     .knots = 1,
                     .plif_t = 3,
                     .bias = true,
                     .d = 3,
                     .emb = 3,
                     .nlayers = 2,
                     .hidden = {4, hl, 0},
                     .latent = SBW_LM_LATENT_NONE};
    return a;
}

/* A tiny 2-layer model (4, hl), D = E = 3, --latent none (the
 * fixture's). */
static void setup(lm_fixture *f, sbw_head_model model, size_t hl, bool single,
                  const sbw_lm_dropout *drop)
{
    sbw_lm_arch a = arch(model, hl);
    lm_fixture_setup(f, &a, single, drop);
}

/* Every entry of the gradient against central differences (double); the
 * component bias's gradient is there (mixtures). */
static void check_fd(sbw_head_model model, size_t hl, const sbw_lm_dropout *drop)
{
    lm_fixture f;
    setup(&f, model, hl, false, drop);
    double *g = lm_fixture_grad_fd(&f);
    const sbw_head *hd = &f.lm.head;
    double sb = 0;
    for (size_t i = hd->off_ub; i < hd->off_lms; i++)
        sb += fabs(g[f.lm.off_head + i]);
    if (hd->context_mix)
        SBW_ASSERT_GT(sb, 1e-6);
    free(g);
    lm_fixture_free(&f);
}

static void test_fd(void **state)
{
    (void)state;
    sbw_lm_dropout none = {.last = -1};
    sbw_lm_dropout all = {.emb = 0.2,
                          .in = 0.3,
                          .layer = 0.25,
                          .last = 0.4,
                          .wdrop = 0.3,
                          .alpha = 2,
                          .beta = 1}; /* no latent: softmax has nothing to drop there */
    sbw_lm_dropout mixd = all;
    mixd.latent = 0.35; /* on g_k */
    check_fd(SBW_MODEL_SOFTMAX, 3, &none);
    check_fd(SBW_MODEL_SOFTMAX, 3, &all);
    const sbw_head_model mix[] = {SBW_MODEL_MOC, SBW_MODEL_MOS};
    for (size_t i = 0; i < 2; i++) {
        check_fd(mix[i], 5, &none);
        check_fd(mix[i], 5, &mixd);
        check_fd(mix[i], 2, &mixd);
    }
}

/* The dropout on g_k changes the loss (it is applied), and a step with
 * it is a pure function of (seed, stream): two calls give the same bits. */
static void test_gmask_applied(void **state)
{
    (void)state;
    sbw_lm_dropout off = {.last = -1}, on = {.last = -1, .latent = 0.5};
    lm_fixture f;
    setup(&f, SBW_MODEL_MOS, 5, false, &off);
    double l0 = lm_fixture_objective(&f, f.theta);
    f.drop = on;
    double l1 = lm_fixture_objective(&f, f.theta), l2 = lm_fixture_objective(&f, f.theta);
    SBW_ASSERT_GT(fabs(l1 - l0), 1e-6);
    SBW_ASSERT_EQ(l1, l2);
    lm_fixture_free(&f);
}

/* Float training path against double: same loss and gradient to float
 * rounding, dropout on g_k included. */
static void test_single_vs_double(void **state)
{
    (void)state;
    sbw_lm_dropout d = {.emb = 0.2, .in = 0.3, .layer = 0.25, .last = 0.4, .latent = 0.3};
    const sbw_head_model models[] = {SBW_MODEL_SOFTMAX, SBW_MODEL_MOS};
    for (size_t i = 0; i < 2; i++) {
        lm_fixture fd, fs;
        if (i == 0)
            d.latent = 0;
        setup(&fd, models[i], i ? 5 : 3, false, &d);
        setup(&fs, models[i], i ? 5 : 3, true, &d);
        double ld = lm_fixture_objective(&fd, fd.theta), ls = lm_fixture_objective(&fs, fs.theta);
        SBW_ASSERT_NEAR(ls, ld, 1e-5 * (1 + fabs(ld)));
        SBW_ASSERT_CLOSE(fs.grad, fd.grad, fd.lm.nparam, 1e-5, 1e-3);
        lm_fixture_free(&fd);
        lm_fixture_free(&fs);
        d.latent = 0.3;
    }
}

/* No P or p0 in theta; the head's context width is H_L; a mixture has the
 * component bias; the documented initialisation. */
static void test_layout_and_init(void **state)
{
    (void)state;
    sbw_lm lm;
    sbw_lm_arch a = arch(SBW_MODEL_MOS, 5);
    SBW_ASSERT_OK(sbw_lm_setup(&lm, &a, M));
    SBW_ASSERT_EQ(lm.off_p0, lm.off_p);
    SBW_ASSERT_EQ(lm.off_head, lm.off_p0);
    SBW_ASSERT_EQ(lm.head.c, (size_t)5);
    assert_true(lm.head.cbias);
    SBW_ASSERT_EQ(lm.nparam, lm.off_head + lm.head.nshared);
    for (int single = 0; single <= 1; single++) { /* the preflight counts H, dH and the g mask */
        sbw_lm_ws_opts o = {B, T, single, 1, 0, NULL, NULL, NULL, true, false};
        sbw_lm_ws *ws = NULL;
        SBW_ASSERT_OK(sbw_lm_ws_alloc(&ws, &lm, &o));
        SBW_ASSERT_EQ(sbw_lm_ws_bytes(&lm, &o), sbw_lm_ws_allocated(ws));
        sbw_lm_ws_free(ws);
    }
    double *th = malloc(lm.nparam * sizeof *th);
    SBW_ASSERT_OK(sbw_lm_init(&lm, th, 9));
    const sbw_head *h = &lm.head;
    const double *p = th + lm.off_head, a5 = 1 / sqrt(5.0);
    double wmax = 0, umax = 0;
    for (size_t i = 0; i < h->m * h->d; i++)
        wmax = fmax(wmax, fabs(p[h->off_w + i]));
    for (size_t i = h->off_u; i < h->off_ub; i++)
        umax = fmax(umax, fabs(p[i]));
    SBW_ASSERT_LT(wmax, 0.1);
    SBW_ASSERT_GT(wmax, 0.05); /* uniform on (-0.1, 0.1), not N(0, 0.01) */
    SBW_ASSERT_LT(umax, a5);
    SBW_ASSERT_GT(umax, 0.5 * a5);
    for (size_t i = h->off_ub; i < h->off_lms; i++)
        SBW_ASSERT_EQ(p[i], 0.0);
    for (size_t i = 0; i < M; i++)
        SBW_ASSERT_EQ(p[h->off_b + i], 0.0);
    unsigned char *mask = malloc(lm.nparam);
    sbw_lm_decay_mask(&lm, mask);
    for (size_t i = h->off_ub; i < h->off_lms; i++)
        SBW_ASSERT_EQ(mask[lm.off_head + i], 0);
    SBW_ASSERT_EQ(mask[lm.off_head + h->off_u], 1);
    free(mask);
    free(th);
}

/* --latent none with a head that takes its logits from h needs H_L = D;
 * --dropout-latent there has nothing to drop. */
static void test_refusals(void **state)
{
    (void)state;
    sbw_lm lm;
    sbw_lm_arch a = arch(SBW_MODEL_SOFTMAX, 5);
    assert_int_equal(sbw_lm_setup(&lm, &a, M), SBW_EINVAL);
    a = arch(SBW_MODEL_SIGSOFTMAX, 4);
    assert_int_equal(sbw_lm_setup(&lm, &a, M), SBW_EINVAL);
    a.latent = SBW_LM_LATENT_TANH; /* with the latent any width goes */
    SBW_ASSERT_OK(sbw_lm_setup(&lm, &a, M));
    sbw_lm_dropout d = {.last = -1, .latent = 0.3};
    lm_fixture f;
    setup(&f, SBW_MODEL_SOFTMAX, 3, false, &d);
    sbw_lm_chunk ch = {f.x, f.y, T};
    sbw_pass_result r;
    assert_int_equal(sbw_lm_loss(f.ws, f.theta, &ch, &d, SEED, STREAM, &r, f.grad), SBW_EINVAL);
    lm_fixture_free(&f);
    sbw_lm_latent_kind k = SBW_LM_LATENT_NONE;
    assert_int_equal(sbw_lm_latent_parse("linear", &k), SBW_EINVAL);
    SBW_ASSERT_EQ(k, SBW_LM_LATENT_NONE);
    SBW_ASSERT_OK(sbw_lm_latent_parse("tanh", &k));
    SBW_ASSERT_EQ(k, SBW_LM_LATENT_TANH);
}

static bool nothing_given(void *ctx, const char *opt)
{
    (void)ctx, (void)opt;
    return false;
}

/* The presets build the papers' networks: MoS's 960,960,620 -> K x 280
 * with the component bias, AWD-LSTM's 1150,1150,400 -> softmax of 400,
 * both without a latent layer. */
static void test_presets(void **state)
{
    (void)state;
    sbw_lm_opts o;
    sbw_lm lm;
    sbw_lm_opts_init(&o);
    SBW_ASSERT_EQ(o.arch.latent, SBW_LM_LATENT_TANH);
    SBW_ASSERT_OK(sbw_lm_opts_preset(&o, "mos", nothing_given, NULL));
    o.arch.emb = o.arch.d;
    SBW_ASSERT_EQ(o.arch.latent, SBW_LM_LATENT_NONE);
    SBW_ASSERT_OK(sbw_lm_setup(&lm, &o.arch, 10000));
    SBW_ASSERT_EQ(lm.head.c, (size_t)620);
    SBW_ASSERT_EQ(lm.head.d, (size_t)280);
    assert_true(lm.head.cbias);
    SBW_ASSERT_EQ(o.drop.latent, 0.29);
    sbw_lm_opts_init(&o);
    SBW_ASSERT_OK(sbw_lm_opts_preset(&o, "awd", nothing_given, NULL));
    o.arch.emb = o.arch.d;
    SBW_ASSERT_EQ(o.arch.latent, SBW_LM_LATENT_NONE);
    SBW_ASSERT_OK(sbw_lm_setup(&lm, &o.arch, 10000));
    SBW_ASSERT_EQ(lm.head.c, (size_t)400);
    assert_false(lm.head.cbias);
    SBW_ASSERT_EQ(o.drop.latent, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd),
        cmocka_unit_test(test_gmask_applied),
        cmocka_unit_test(test_single_vs_double),
        cmocka_unit_test(test_layout_and_init),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_presets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
