/* test_lm_reg.c -- the papers' regularisers in the language model
 * (lm/sbw_lm.h: sbw_lm_dropout's last, wdrop, alpha, beta): gradients of
 * loss + AR + TAR against central differences in double with the masks
 * fixed, for weight drop, AR and TAR alone and together; the AR and TAR
 * values and the weight-drop masks against a naive twin (sbw_lstm_ref,
 * the masks drawn again from the documented stream); float against
 * double; options that are off change no bit; and the presets. */
#include "sbw_test.h"

#include "head_cases.h"
#include "lm_fixture.h"
#include "sbw_error.h"
#include "sbw_lm.h"
#include "sbw_lm_opts.h"
#include "sbw_lstm_ref.h"
#include "sbw_rng.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SEED = LMF_SEED, STREAM = LMF_STREAM };
#define B LMF_B
#define T LMF_T

/* A tiny model of head case hc (the fixture's): 2 layers (4, 3), D = E =
 * 3, untied. */
static void setup(lm_fixture *f, const head_case *hc, bool single, const sbw_lm_dropout *drop)
{
    sbw_lm_arch a = {.model = hc->model,
                     .k = hc->k ? hc->k : 1,
                     .knots = hc->knots ? hc->knots : 1,
                     .plif_t = 3,
                     .bias = hc->bias,
                     .d = 3,
                     .emb = 3,
                     .nlayers = 2,
                     .hidden = {4, 3, 0}};
    lm_fixture_setup(f, &a, single, drop);
}

/* Every entry of the gradient against central differences (double); AR
 * and TAR are on when asked and each moves the gradient far beyond the
 * tolerance; weight drop zeroes some of Wh's gradient, not all. */
static void check_fd(const head_case *hc, const sbw_lm_dropout *drop)
{
    lm_fixture f;
    setup(&f, hc, false, drop);
    size_t n = f.lm.nparam;
    double *g = lm_fixture_grad_fd(&f);
    if (drop->alpha > 0)
        SBW_ASSERT_GT(f.ar, 1e-5);
    if (drop->beta > 0)
        SBW_ASSERT_GT(f.tar, 1e-5);
    for (int term = 0; term < 2; term++) {
        double *w = term ? &f.drop.beta : &f.drop.alpha, keep = *w, dmax = 0;
        if (keep <= 0)
            continue;
        *w = 0;
        lm_fixture_objective(&f, f.theta);
        for (size_t i = 0; i < n; i++)
            dmax = fabs(g[i] - f.grad[i]) > dmax ? fabs(g[i] - f.grad[i]) : dmax;
        SBW_ASSERT_GT(dmax, 1e-5);
        *w = keep;
    }
    if (drop->wdrop > 0) { /* dropped entries of Wh get no gradient, kept ones do */
        size_t zero = 0, nwh = 0;
        for (size_t l = 0; l < 2; l++) {
            size_t H = f.lm.a.hidden[l];
            for (size_t i = 0; i < 4 * H * H; i++, nwh++)
                zero += g[f.lm.off_wh[l] + i] == 0.0;
        }
        SBW_ASSERT_GT(zero, (size_t)0);
        SBW_ASSERT_LT(zero, nwh);
    }
    free(g);
    lm_fixture_free(&f);
}

static const sbw_lm_dropout WD = {.last = -1, .wdrop = 0.4};
static const sbw_lm_dropout AR = {.last = -1, .alpha = 2};
static const sbw_lm_dropout TAR = {.last = -1, .beta = 1};
static const sbw_lm_dropout ALL = {.emb = 0.2,
                                   .in = 0.3,
                                   .layer = 0.25,
                                   .last = 0.4,
                                   .latent = 0.3,
                                   .wdrop = 0.5,
                                   .alpha = 2,
                                   .beta = 1};

static void test_fd_wdrop(void **state)
{
    (void)state;
    check_fd(&head_cases[1], &WD); /* softmax with bias */
    check_fd(&head_cases[5], &WD); /* mos with bias */
}

static void test_fd_ar(void **state)
{
    (void)state;
    check_fd(&head_cases[1], &AR);
    check_fd(&head_cases[5], &AR);
}

static void test_fd_tar(void **state)
{
    (void)state;
    check_fd(&head_cases[1], &TAR);
    check_fd(&head_cases[5], &TAR);
}

static void test_fd_all_together(void **state)
{
    (void)state;
    for (size_t c = 0; c < HEAD_NCASES; c++)
        check_fd(&head_cases[c], &ALL);
}

/* The last layer's outputs (T*B x 3) by the naive twin: embedding rows,
 * then sbw_lstm_ref_forward per layer from the carried state, each Wh
 * times keep[l] (NULL: as is). */
static void twin_outputs(const lm_fixture *f, unsigned char *const keep[2], double scale,
                         double *out)
{
    const sbw_lm *lm = &f->lm;
    double x[B * T * 4], hs[B * T * 4], cs[B * T * 4], gates[B * T * 16], wh[16 * 4];
    for (size_t i = 0; i < B * T; i++)
        memcpy(x + i * 3, f->theta + lm->off_emb + f->x[i] * 3, 3 * sizeof *x);
    const double *st = f->state0;
    for (size_t l = 0; l < 2; l++) {
        size_t H = lm->a.hidden[l], in = lm->in[l];
        for (size_t i = 0; i < 4 * H * H; i++)
            wh[i] = f->theta[lm->off_wh[l] + i] * (keep ? keep[l][i] * scale : 1.0);
        sbw_lstm_shape s = {in, H, B, T, NULL};
        SBW_ASSERT_OK(sbw_lstm_ref_forward(&s, f->theta + lm->off_wx[l], wh,
                                           f->theta + lm->off_b[l], x, st, st + B * H, hs, cs,
                                           gates));
        st += 2 * B * H;
        memcpy(x, hs, B * T * H * sizeof *x);
    }
    memcpy(out, hs, B * T * 3 * sizeof *out);
}

/* AR = alpha mean(h^2) and TAR = beta mean((h_t - h_{t-1})^2) of the
 * twin's last-layer outputs h (no dropout: xl = h). */
static void twin_reg(const double *h, double alpha, double beta, double *ar, double *tar)
{
    double a = 0, t = 0;
    for (size_t i = 0; i < B * T * 3; i++)
        a += h[i] * h[i];
    for (size_t i = B * 3; i < B * T * 3; i++)
        t += (h[i] - h[i - B * 3]) * (h[i] - h[i - B * 3]);
    *ar = alpha * a / (B * T * 3);
    *tar = beta * t / ((T - 1) * B * 3);
}

/* The values of AR and TAR against the twin, without and with weight
 * drop, whose masks are drawn again from (SEED, STREAM): every dropout
 * probability 0 draws nothing, so the stream starts at layer 0's flags. */
static void test_values_against_twin(void **state)
{
    (void)state;
    double h[B * T * 3], ar, tar;
    for (int wd = 0; wd < 2; wd++) {
        sbw_lm_dropout d = {.last = -1, .alpha = 2, .beta = 1, .wdrop = wd ? 0.5 : 0};
        lm_fixture f;
        setup(&f, &head_cases[1], false, &d);
        lm_fixture_objective(&f, f.theta);
        unsigned char k0[64], k1[36], *keep[2] = {k0, k1};
        gsl_rng *r = NULL;
        SBW_ASSERT_OK(sbw_rng_alloc(&r, SEED, STREAM));
        for (size_t i = 0; i < 64; i++)
            k0[i] = gsl_rng_uniform(r) >= 0.5;
        for (size_t i = 0; i < 36; i++)
            k1[i] = gsl_rng_uniform(r) >= 0.5;
        sbw_rng_free(r);
        twin_outputs(&f, wd ? keep : NULL, 2.0, h);
        twin_reg(h, 2, 1, &ar, &tar);
        SBW_ASSERT_NEAR(f.ar, ar, 1e-12 * ar);
        SBW_ASSERT_NEAR(f.tar, tar, 1e-12 * tar);
        SBW_ASSERT_GT(ar, 1e-3);
        SBW_ASSERT_GT(tar, 1e-4);
        lm_fixture_free(&f);
    }
}

/* The float path against the double path with everything on. */
static void test_float_matches_double(void **state)
{
    (void)state;
    for (size_t c = 0; c < HEAD_NCASES; c++) {
        lm_fixture d, s;
        setup(&d, &head_cases[c], false, &ALL);
        setup(&s, &head_cases[c], true, &ALL);
        double od = lm_fixture_objective(&d, d.theta), os = lm_fixture_objective(&s, s.theta),
               gmax = 0;
        for (size_t i = 0; i < d.lm.nparam; i++)
            gmax = fabs(d.grad[i]) > gmax ? fabs(d.grad[i]) : gmax;
        SBW_ASSERT_NEAR(os, od, 1e-5 * (1 + fabs(od)));
        SBW_ASSERT_NEAR(s.ar, d.ar, 1e-5 * (1 + d.ar));
        SBW_ASSERT_NEAR(s.tar, d.tar, 1e-5 * (1 + d.tar));
        SBW_ASSERT_CLOSE(s.grad, d.grad, d.lm.nparam, 1e-5 * (1 + gmax), 1e-4);
        lm_fixture_free(&d);
        lm_fixture_free(&s);
    }
}

/* Options that are off change no bit: last < 0 is the layer's
 * probability; wdrop, alpha, beta 0 on a workspace that holds the masks
 * equal a workspace without them; and a step is deterministic. */
static void test_off_is_unchanged(void **state)
{
    (void)state;
    for (int single = 0; single < 2; single++) {
        sbw_lm_dropout base = {.emb = 0.2, .in = 0.3, .layer = 0.25, .latent = 0.3, .last = -1};
        lm_fixture a, b;
        setup(&a, &head_cases[5], single, &base);
        setup(&b, &head_cases[5], single, &base);
        b.drop.last = 0.25;
        size_t n = a.lm.nparam;
        double la = lm_fixture_objective(&a, a.theta), lb = lm_fixture_objective(&b, b.theta);
        assert_memory_equal(&la, &lb, sizeof la);
        assert_memory_equal(a.grad, b.grad, n * sizeof *a.grad);
        sbw_lm_ws *plain = NULL;
        sbw_lm_ws_opts o = {B, T, single, 1, 0, NULL, NULL, NULL, false, false};
        SBW_ASSERT_OK(sbw_lm_ws_alloc(&plain, &a.lm, &o));
        double *g = malloc(n * sizeof *g);
        sbw_lm_chunk ch = {a.x, a.y, T};
        sbw_pass_result r;
        sbw_lm_state_set(plain, a.state0);
        SBW_ASSERT_OK(sbw_lm_loss(plain, a.theta, &ch, &base, SEED, STREAM, &r, g));
        assert_memory_equal(&r.loss, &la, sizeof la);
        assert_memory_equal(g, a.grad, n * sizeof *g);
        b.drop.last = 0.4; /* and it does act */
        lm_fixture_objective(&b, b.theta);
        assert_memory_not_equal(g, b.grad, n * sizeof *g);
        /* weight drop needs the masks */
        sbw_lm_dropout wd = base;
        wd.wdrop = 0.5;
        sbw_lm_state_set(plain, a.state0);
        assert_int_equal(sbw_lm_loss(plain, a.theta, &ch, &wd, SEED, STREAM, &r, g), SBW_EINVAL);
        assert_non_null(strstr(sbw_error_reason(), "without its masks"));
        free(g);
        sbw_lm_ws_free(plain);
        lm_fixture_free(&a);
        lm_fixture_free(&b);
    }
}

/* Another stream draws other weight-drop masks; the same one the same. */
static void test_masks_follow_the_stream(void **state)
{
    (void)state;
    lm_fixture f;
    setup(&f, &head_cases[1], false, &WD);
    size_t n = f.lm.nparam;
    double *g = malloc(n * sizeof *g);
    lm_fixture_objective(&f, f.theta);
    memcpy(g, f.grad, n * sizeof *g);
    lm_fixture_objective(&f, f.theta);
    assert_memory_equal(g, f.grad, n * sizeof *g);
    sbw_lm_chunk ch = {f.x, f.y, T};
    sbw_pass_result r;
    sbw_lm_state_set(f.ws, f.state0);
    SBW_ASSERT_OK(sbw_lm_loss(f.ws, f.theta, &ch, &f.drop, SEED, STREAM + 1, &r, f.grad));
    assert_memory_not_equal(g, f.grad, n * sizeof *g);
    free(g);
    lm_fixture_free(&f);
}

/* The memory preflight counts the weight-drop flags: what the workspace
 * allocates, and more than without them. */
static void test_ws_bytes_with_masks(void **state)
{
    (void)state;
    lm_fixture f;
    setup(&f, &head_cases[5], true, &WD);
    for (int single = 0; single < 2; single++) {
        sbw_lm_ws_opts o = {3, 5, single, 1, 0, NULL, NULL, NULL, true, false}, n = o;
        n.wdrop = false;
        sbw_lm_ws *ws = NULL;
        SBW_ASSERT_OK(sbw_lm_ws_alloc(&ws, &f.lm, &o));
        SBW_ASSERT_EQ(sbw_lm_ws_bytes(&f.lm, &o), sbw_lm_ws_allocated(ws));
        SBW_ASSERT_GE(sbw_lm_ws_bytes(&f.lm, &o) - sbw_lm_ws_bytes(&f.lm, &n), 4.0 * (16 + 9));
        sbw_lm_ws_free(ws);
    }
    lm_fixture_free(&f);
}

static bool given_none(void *ctx, const char *opt)
{
    (void)ctx, (void)opt;
    return false;
}

static bool given_d_lr(void *ctx, const char *opt)
{
    (void)ctx;
    return strcmp(opt, "--d") == 0 || strcmp(opt, "--lr") == 0;
}

/* The presets set the papers' values (checked against the list,
 * not the code's table), given options win, an unknown name is refused. */
static void test_presets(void **state)
{
    (void)state;
    sbw_lm_opts o;
    sbw_lm_opts_init(&o);
    SBW_ASSERT_OK(sbw_lm_opts_preset(&o, "mos", given_none, NULL));
    assert_int_equal(o.arch.model, SBW_MODEL_MOS);
    SBW_ASSERT_EQ(o.arch.k, (size_t)15);
    SBW_ASSERT_EQ(o.arch.d, (size_t)280);
    SBW_ASSERT_EQ(o.arch.nlayers, (size_t)3);
    SBW_ASSERT_EQ(o.arch.hidden[0] + o.arch.hidden[1] + o.arch.hidden[2], (size_t)2540);
    assert_true(o.arch.tied && o.var_bptt);
    SBW_ASSERT_EQ(o.batch, (size_t)12);
    SBW_ASSERT_EQ(o.drop.in + o.drop.layer + o.drop.latent + o.drop.emb, 0.4 + 0.225 + 0.29 + 0.1);
    SBW_ASSERT_EQ(o.drop.last + o.drop.wdrop + o.drop.alpha + o.drop.beta, 0.4 + 0.5 + 2 + 1);
    SBW_ASSERT_EQ(o.lr, 20.0);
    sbw_lm_opts_init(&o);
    o.arch.d = 64, o.lr = 1;
    SBW_ASSERT_OK(sbw_lm_opts_preset(&o, "awd", given_d_lr, NULL));
    assert_int_equal(o.arch.model, SBW_MODEL_SOFTMAX);
    SBW_ASSERT_EQ(o.arch.d, (size_t)64);
    SBW_ASSERT_EQ(o.lr, 1.0);
    SBW_ASSERT_EQ(o.arch.hidden[0] + o.arch.hidden[1] + o.arch.hidden[2], (size_t)2700);
    SBW_ASSERT_EQ(o.batch, (size_t)20);
    SBW_ASSERT_EQ(o.drop.in + o.drop.layer + o.drop.last + o.drop.latent, 0.4 + 0.25 + 0.4 + 0.0);
    assert_int_equal(sbw_lm_opts_preset(&o, "Mos", given_none, NULL), SBW_EINVAL);
    char help[2048];
    sbw_lm_opts_preset_help(help, sizeof help);
    assert_non_null(strstr(help, "--preset mos"));
    assert_non_null(strstr(help, "--hidden 960,960,620"));
    assert_non_null(strstr(help, "--hidden 1150,1150,400"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd_wdrop),
        cmocka_unit_test(test_fd_ar),
        cmocka_unit_test(test_fd_tar),
        cmocka_unit_test(test_fd_all_together),
        cmocka_unit_test(test_values_against_twin),
        cmocka_unit_test(test_float_matches_double),
        cmocka_unit_test(test_off_is_unchanged),
        cmocka_unit_test(test_masks_follow_the_stream),
        cmocka_unit_test(test_ws_bytes_with_masks),
        cmocka_unit_test(test_presets),
    };
    if (getenv("SBW_TEST_FILTER"))
        cmocka_set_test_filter(getenv("SBW_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
