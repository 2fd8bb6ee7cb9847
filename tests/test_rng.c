/* test_rng.c -- seeded generators and per-block streams. */
#include "sbw_test.h"

#include "sbw_rng.h"

#include <math.h>

/* SplitMix64 reference outputs for state 1234567 (Vigna's splitmix64.c, the
 * seeding generator of xoshiro; widely reproduced test vector). */
static void test_mix_reference_values(void **state)
{
    (void)state;
    const uint64_t golden = UINT64_C(0x9e3779b97f4a7c15);
    const uint64_t want[3] = {UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),
                              UINT64_C(9817491932198370423)};
    for (uint64_t k = 0; k < 3; k++)
        assert_true(sbw_rng_mix(UINT64_C(1234567) + k * golden) == want[k]);
}

static void draw(uint64_t seed, uint64_t stream, unsigned long *out, int n)
{
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, stream));
    for (int k = 0; k < n; k++)
        out[k] = gsl_rng_get(r);
    sbw_rng_free(r);
}

static void test_streams_reproducible_and_distinct(void **state)
{
    (void)state;
    unsigned long a[16], b[16], c[16], d[16];
    draw(42, 3, a, 16);
    draw(42, 3, b, 16);
    draw(42, 4, c, 16);
    draw(43, 3, d, 16);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
    assert_memory_not_equal(a, d, sizeof a);
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 1, 1));
    sbw_rng_reseed(r, 42, 3);
    for (int k = 0; k < 16; k++)
        assert_true(gsl_rng_get(r) == a[k]);
    sbw_rng_free(r);
    sbw_rng_free(NULL);
}

/* The mean of n uniforms lies within 5 sigma (sigma = 1/sqrt(12 n)) of 1/2,
 * for each of several streams. */
static void test_uniform_mean(void **state)
{
    (void)state;
    const int n = 100000;
    for (uint64_t s = 0; s < 4; s++) {
        gsl_rng *r;
        SBW_ASSERT_OK(sbw_rng_alloc(&r, SBW_RNG_DEFAULT_SEED, s));
        double sum = 0;
        for (int k = 0; k < n; k++)
            sum += gsl_rng_uniform(r);
        sbw_rng_free(r);
        assert_true(fabs(sum / n - 0.5) < 5.0 / sqrt(12.0 * n));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mix_reference_values),
        cmocka_unit_test(test_streams_reproducible_and_distinct),
        cmocka_unit_test(test_uniform_mean),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
