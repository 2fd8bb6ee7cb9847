/* test_head_ctx.c -- heads whose context width C differs from D
 * (sbw_head_set_context), with the component bias c_k in g_k = tanh(U_k h
 * + c_k) and a fixed mask on g_k (sbw_pass_loss_masked): for moc, mos and
 * mos+plif, with C smaller and larger than D, with and without the bias
 * and the mask, the fast pass against its naive twin (double: to
 * rounding; single: at float tolerances) and against central finite
 * differences of itself in H and theta; the refusals for the heads that
 * take their logits from h itself. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_head.h"
#include "sbw_pass.h"
#include "sbw_pass_ref.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define M    ((size_t)11)
#define D    ((size_t)3)
#define ROWS ((size_t)5)
#define CMAX ((size_t)5)
#define LDH  (CMAX + 2)
#define NSEQ ((size_t)2) /* the mask's period: row r uses mask row r % 2 */

static const size_t ids[ROWS] = {3, 0, 10, 3, 7};

typedef struct ctx_case {
    sbw_head_model model;
    size_t k, knots, c;
    bool bias, cbias, mask;
} ctx_case;

static void gaussian(double *x, size_t n, double sd, uint64_t seed)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 1));
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_ran_gaussian(r, sd);
    sbw_rng_free(r);
}

/* The head of case c with its parameters off the initialisation (the
 * component bias included, so its gradient is not at a symmetric point),
 * H (ROWS x C, leading dim LDH, NaN padding the pass must never read)
 * and a dropout-like mask (NSEQ x K D: 0 or 1/(1-0.3)). */
static void setup(const ctx_case *c, sbw_head *h, double **theta, double *H, double *mask)
{
    SBW_ASSERT_OK(sbw_head_setup(h, c->model, 0, M, D, c->k, c->knots, 1.5, c->bias, false));
    SBW_ASSERT_OK(sbw_head_set_context(h, c->c, c->cbias));
    assert_int_equal(h->c, c->c);
    *theta = malloc(h->nshared * sizeof **theta);
    double *jit = malloc(h->nshared * sizeof *jit);
    SBW_ASSERT_OK(sbw_head_init(h, *theta, 11, 0.7));
    gaussian(jit, h->nshared, 0.3, 12);
    for (size_t i = 0; i < h->nshared; i++)
        (*theta)[i] += jit[i];
    free(jit);
    gaussian(H, ROWS * LDH, 0.8, 13);
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = c->c; j < LDH; j++)
            H[i * LDH + j] = NAN;
    size_t kd = c->k * D;
    for (size_t i = 0; i < NSEQ * kd; i++)
        mask[i] = (i * 7 + 3) % 4 == 0 ? 0.0 : 1.0 / 0.7;
}

static sbw_pass_ws *workspace(const sbw_head *h, bool single, size_t block)
{
    sbw_pass_opts opts = {single, 2, block, SBW_PASS_PAR_BLOCKS, false};
    sbw_pass_ws *ws = NULL;
    SBW_ASSERT_OK(sbw_pass_ws_alloc(&ws, h, &opts));
    return ws;
}

static double loss_at(sbw_pass_ws *ws, const double *theta, const double *H,
                      const sbw_pass_mask *mk)
{
    sbw_pass_target tg = {.ids = ids};
    sbw_pass_result res;
    SBW_ASSERT_OK(sbw_pass_loss_masked(ws, theta, H, ROWS, LDH, mk, &tg, &res, NULL, 0, NULL));
    return res.loss;
}

/* Central differences of the fast pass's loss in the entries of x (n)
 * whose column (at % stride) is below width (width 0: every entry). */
static void fd_grad(sbw_pass_ws *ws, double *theta, double *H, const sbw_pass_mask *mk, double *x,
                    size_t n, size_t stride, size_t width, double *fd)
{
    for (size_t i = 0, at = 0; at < n; at++) {
        if (width && at % stride >= width)
            continue;
        double x0 = x[at], step = 1e-5 * fmax(1.0, fabs(x0));
        x[at] = x0 + step;
        double fp = loss_at(ws, theta, H, mk);
        x[at] = x0 - step;
        double fm = loss_at(ws, theta, H, mk);
        x[at] = x0;
        fd[i++] = (fp - fm) / (2 * step);
    }
}

/* dH (ROWS x C, leading dim LDH) packed to ROWS x C. */
static void pack(const double *x, size_t c, double *out)
{
    for (size_t i = 0; i < ROWS; i++)
        memcpy(out + i * c, x + i * LDH, c * sizeof *out);
}

static void check_case(const ctx_case *c)
{
    sbw_head h;
    double H[ROWS * LDH], dH[ROWS * LDH], dHr[ROWS * LDH], mask[NSEQ * 3 * D];
    double g[ROWS * CMAX], gr[ROWS * CMAX], fdh[ROWS * CMAX], *theta;
    setup(c, &h, &theta, H, mask);
    sbw_pass_mask mk = {mask, NSEQ}, *pm = c->mask ? &mk : NULL;
    double *dt = malloc(h.nshared * sizeof *dt), *dtr = malloc(h.nshared * sizeof *dtr);
    double *fdt = malloc(h.nshared * sizeof *fdt);
    sbw_pass_target tg = {.ids = ids};
    sbw_pass_result res, ref;
    sbw_pass_ws *ws = workspace(&h, false, 2);
    for (size_t i = 0; i < ROWS * LDH; i++)
        dH[i] = -12345.5;
    SBW_ASSERT_OK(sbw_pass_loss_masked(ws, theta, H, ROWS, LDH, pm, &tg, &res, dH, LDH, dt));
    for (size_t i = 0; i < ROWS; i++) /* C entries per row written, no more */
        for (size_t j = c->c; j < LDH; j++)
            SBW_ASSERT_EQ(dH[i * LDH + j], -12345.5);
    SBW_ASSERT_OK(sbw_pass_ref_loss_masked(&h, theta, H, ROWS, LDH, pm, &tg, &ref, dHr, LDH, dtr));
    SBW_ASSERT_NEAR(res.loss, ref.loss, 1e-12 * (1 + fabs(ref.loss)));
    pack(dH, c->c, g), pack(dHr, c->c, gr);
    SBW_ASSERT_CLOSE(g, gr, ROWS * c->c, 1e-13, 1e-10);
    SBW_ASSERT_CLOSE(dt, dtr, h.nshared, 1e-13, 1e-10);
    if (c->cbias) { /* the bias's gradient is there and not zero */
        double s = 0;
        for (size_t i = 0; i < c->k * D; i++)
            s += fabs(dt[h.off_ub + i]);
        assert_true(s > 1e-6);
    }
    fd_grad(ws, theta, H, pm, H, ROWS * LDH, LDH, c->c, fdh);
    SBW_ASSERT_CLOSE(g, fdh, ROWS * c->c, 2e-8, 1e-6);
    fd_grad(ws, theta, H, pm, theta, h.nshared, 1, 0, fdt);
    SBW_ASSERT_CLOSE(dt, fdt, h.nshared, 2e-8, 1e-6);
    sbw_pass_ws_free(ws);
    /* single precision: the float GEMMs against the same naive twin */
    ws = workspace(&h, true, 3);
    SBW_ASSERT_OK(sbw_pass_loss_masked(ws, theta, H, ROWS, LDH, pm, &tg, &res, dH, LDH, dt));
    SBW_ASSERT_NEAR(res.loss, ref.loss, 1e-5 * (1 + fabs(ref.loss)));
    pack(dH, c->c, g);
    SBW_ASSERT_CLOSE(g, gr, ROWS * c->c, 1e-5, 1e-3);
    SBW_ASSERT_CLOSE(dt, dtr, h.nshared, 1e-5, 1e-3);
    sbw_pass_ws_free(ws);
    free(theta), free(dt), free(dtr), free(fdt);
}

/* Every context-mixing head with C < D and C > D, with and without the
 * component bias and the mask. */
static void test_fd_and_twin(void **state)
{
    (void)state;
    const sbw_head_model models[] = {SBW_MODEL_MOC, SBW_MODEL_MOS, SBW_MODEL_MOS_PLIF};
    const size_t widths[] = {2, 5};
    for (size_t i = 0; i < 3; i++)
        for (size_t w = 0; w < 2; w++)
            for (int f = 0; f < 4; f++) {
                ctx_case c = {models[i], i == 2 ? 2 : 3, i == 2 ? 5 : 0, widths[w],
                              i != 1,    f & 1,          (f & 2) != 0};
                check_case(&c);
            }
}

/* C = D with no bias and no mask is the default head: the same layout
 * and the same bits as a head never given a context width. */
static void test_default_is_unchanged(void **state)
{
    (void)state;
    sbw_head a, b;
    SBW_ASSERT_OK(sbw_head_setup(&a, SBW_MODEL_MOS, 0, M, D, 3, 0, 0, true, false));
    b = a;
    SBW_ASSERT_OK(sbw_head_set_context(&b, 0, false));
    assert_memory_equal(&a, &b, sizeof a);
    SBW_ASSERT_OK(sbw_head_set_context(&b, D, false));
    assert_memory_equal(&a, &b, sizeof a);
}

/* Heads whose logits are W h need C = D and have no component bias; a
 * mask needs a context-mixing head and a period. */
static void test_refusals(void **state)
{
    (void)state;
    const sbw_head_model direct[] = {SBW_MODEL_SOFTMAX, SBW_MODEL_SIGSOFTMAX, SBW_MODEL_LMS,
                                     SBW_MODEL_PLIF};
    for (size_t i = 0; i < 4; i++) {
        sbw_head h, h0;
        SBW_ASSERT_OK(sbw_head_setup(&h, direct[i], 0, M, D, 2, 3, 1.0, true, false));
        h0 = h;
        assert_int_equal(sbw_head_set_context(&h, D + 1, false), SBW_EINVAL);
        assert_int_equal(sbw_head_set_context(&h, D, true), SBW_EINVAL);
        assert_memory_equal(&h, &h0, sizeof h);
        SBW_ASSERT_OK(sbw_head_set_context(&h, D, false));
        double H[ROWS * LDH] = {0}, *theta = calloc(h.nshared, sizeof *theta), mask[D] = {1, 1, 1};
        sbw_pass_ws *ws = workspace(&h, false, 2);
        sbw_pass_target tg = {.ids = ids};
        sbw_pass_mask mk = {mask, 1};
        sbw_pass_result r;
        assert_int_equal(sbw_pass_loss_masked(ws, theta, H, ROWS, LDH, &mk, &tg, &r, NULL, 0, NULL),
                         SBW_EINVAL);
        sbw_pass_ws_free(ws);
        free(theta);
    }
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_MOS, 0, M, D, 2, 0, 0, true, false));
    SBW_ASSERT_OK(sbw_head_set_context(&h, 4, true));
    double H[ROWS * LDH] = {0}, *theta = calloc(h.nshared, sizeof *theta), mask[2 * D] = {0};
    sbw_pass_ws *ws = workspace(&h, false, 2);
    sbw_pass_target tg = {.ids = ids};
    sbw_pass_mask zero = {mask, 0};
    sbw_pass_result r;
    assert_int_equal(sbw_pass_loss_masked(ws, theta, H, ROWS, LDH, &zero, &tg, &r, NULL, 0, NULL),
                     SBW_EINVAL);
    assert_int_equal(sbw_pass_loss(ws, theta, H, ROWS, 3, &tg, &r, NULL, 0, NULL), SBW_EINVAL);
    sbw_pass_ws_free(ws);
    free(theta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd_and_twin),
        cmocka_unit_test(test_default_is_unchanged),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
