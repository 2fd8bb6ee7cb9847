/* test_head_bound.c -- sbw_head_rank_bound against the rank of log Q
 * itself: for every head of the zoo, log Q of random parameters on more
 * contexts than D + 2 is computed by the pass (sbw_pass_logq) and its
 * rank counted from LAPACK's singular values.  A bounded head (Softmax,
 * MoC, MoS and Mixtape with one component) must reach its bound exactly (generic parameters), an
 * unbounded one must exceed D + 2 (so no bound of that form holds for it). */
#include "sbw_test.h"

#include "head_cases.h"

#include "sbw_head.h"
#include "sbw_pass.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#define M    ((size_t)11)
#define D    ((size_t)3)
#define ROWS ((size_t)9)

/* x (n) ~ N(0, sd^2), deterministic in seed. */
static void gaussian(double *x, size_t n, double sd, uint64_t seed)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 1));
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_ran_gaussian(r, sd);
    sbw_rng_free(r);
}

/* The numerical rank of a (rows x cols, row-major; overwritten): singular
 * values above 1e-9 times the largest (far above double's rounding of
 * these O(1) entries, far below any generic singular value here). */
static size_t rank_of(double *a, size_t rows, size_t cols)
{
    double s[M], superb[M];
    int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', (lapack_int)rows, (lapack_int)cols, a,
                              (lapack_int)cols, s, NULL, 1, NULL, 1, superb);
    assert_int_equal(info, 0);
    size_t k = rows < cols ? rows : cols, r = 0;
    while (r < k && s[r] > 1e-9 * s[0])
        r++;
    return r;
}

/* log Q (ROWS x M) of head case c with random parameters and contexts. */
static void logq_of(const head_case *c, sbw_head *h, double *lq)
{
    SBW_ASSERT_OK(sbw_head_setup(h, c->model, 0, M, D, c->k, c->knots, 1.5, c->bias, c->linear));
    double *theta = malloc(h->nshared * sizeof *theta), *jit = malloc(h->nshared * sizeof *jit);
    double H[ROWS * D];
    assert_non_null(theta);
    assert_non_null(jit);
    SBW_ASSERT_OK(sbw_head_init(h, theta, 21, 0.9));
    gaussian(jit, h->nshared, 0.5, 22);
    for (size_t i = 0; i < h->nshared; i++)
        theta[i] += jit[i];
    gaussian(H, ROWS * D, 1.0, 23);
    sbw_pass_opts opts = {false, 1, 4, SBW_PASS_PAR_BLOCKS, false};
    sbw_pass_ws *ws = NULL;
    SBW_ASSERT_OK(sbw_pass_ws_alloc(&ws, h, &opts));
    SBW_ASSERT_OK(sbw_pass_logq(ws, theta, H, ROWS, D, lq, M, NULL, NULL, 0, NULL));
    sbw_pass_ws_free(ws);
    free(jit);
    free(theta);
}

static void test_bound_is_the_rank(void **state)
{
    (void)state;
    for (size_t i = 0; i < HEAD_NCASES; i++) {
        const head_case *c = &head_cases[i];
        sbw_head h;
        double lq[ROWS * M];
        logq_of(c, &h, lq);
        size_t r = rank_of(lq, ROWS, M), b = sbw_head_rank_bound(&h);
        bool k1 = c->model == SBW_MODEL_MOS || c->model == SBW_MODEL_MIXTAPE;
        bool bounded =
            c->model == SBW_MODEL_SOFTMAX || c->model == SBW_MODEL_MOC || (k1 && c->k == 1);
        bool gated = c->model == SBW_MODEL_MIXTAPE && c->k > 1; /* F = ceil(M/10) = 2 */
        if (gated) {
            /* above the softmax bound, at the gate-sharing bound D + F + 1 (+1) */
            assert_int_equal(b, D + 2 + 1 + (c->bias ? 1 : 0));
            assert_int_equal(r, b);
            assert_true(r > D + 2);
        } else if (bounded) {
            /* the bound holds, and is reached: it is the rank, not a ceiling */
            assert_int_equal(b, D + 1 + (c->bias ? 1 : 0));
            assert_int_equal(r, b);
        } else {
            assert_int_equal(b, 0);
            assert_true(r > D + 2);
        }
    }
}

/* The caps: at most M words and, when the head stores contexts, N. */
static void test_bound_caps(void **state)
{
    (void)state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, 0, 5, 4, 0, 0, 1.0, true, false));
    assert_int_equal(sbw_head_rank_bound(&h), 5); /* D + 2 = 6 > M = 5 */
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_MOC, 3, 20, 4, 2, 0, 1.0, true, false));
    assert_int_equal(sbw_head_rank_bound(&h), 3); /* N = 3 contexts stored */
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_SOFTMAX, 30, 20, 4, 0, 0, 1.0, false, false));
    assert_int_equal(sbw_head_rank_bound(&h), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_is_the_rank),
        cmocka_unit_test(test_bound_caps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
