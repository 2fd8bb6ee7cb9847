/* test_synth.c -- the generators of synth/, the machinery: kernels against
 * their naive twins, the Dirichlet sampler against GSL draw by draw,
 * reproducibility (seeds, threads, prefixes and blocks, streams,
 * wrappers).  The kinds (lowrank, topics, zipf), streamed files and error
 * paths are in test_synth_kinds.c, the statistical laws of the Dirichlet
 * sampler in test_synth_stats.c; shared helpers in synth_util.h. */
#include "synth_util.h"

#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_synth_kern.h"
#include "sbw_synth_ref.h"

#include <gsl/gsl_randist.h>
#include <omp.h>
#include <stdlib.h>

/* ---- kernels against their naive twins ----------------------------------- */

static void test_kern_log_boost(void **state)
{
    (void)state;
    size_t sizes[] = {1, 3, 7, 257, 1001};
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 11, 0));
    for (size_t s = 0; s < 5; s++) {
        size_t n = sizes[s];
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *u = malloc(n * sizeof *u);
        double inv_a = 1.0 / (s == 0 ? 1e-4 : 0.37 * (double)s);
        for (size_t j = 0; j < n; j++) {
            x[j] = y[j] = gsl_ran_gamma(r, 1.3, 1.0);
            u[j] = gsl_rng_uniform_pos(r);
        }
        sbw_synth_kern_log_boost(x, u, inv_a, n);
        sbw_synth_ref_log_boost(y, u, inv_a, n);
        /* each term to a few eps of its magnitude */
        SBW_ASSERT_CLOSE(x, y, n, 8 * EPS * (1 + 23 * inv_a), 0);
        free(x);
        free(y);
        free(u);
    }
    sbw_rng_free(r);
}

static void test_kern_normalise(void **state)
{
    (void)state;
    /* odd s: spread 3, every term counts (100004: a long sum); even s:
     * spread 3000, most terms underflow */
    size_t sizes[] = {1, 2, 7, 255, 257, 1001, 100003, 100004};
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 12, 0));
    for (size_t s = 0; s < 8; s++) {
        size_t n = sizes[s];
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        double *o = malloc(n * sizeof *o);
        double spread = s % 2 ? 3.0 : 3000.0; /* overlapping and underflowing terms */
        for (size_t j = 0; j < n; j++)
            x[j] = y[j] = spread * gsl_ran_gaussian(r, 1.0) - 50;
        double want = lse_accurate(x, n);
        /* Oracle: o_j = (x_j - max) - log sum_k exp(x_k - max); the shift
         * is the same double subtraction both paths make, the log-sum (in
         * [0, log n]) is exact to long double. */
        double mx = x[0];
        for (size_t j = 1; j < n; j++)
            mx = x[j] > mx ? x[j] : mx;
        for (size_t j = 0; j < n; j++)
            o[j] = x[j] - mx;
        long double ls = lse_accurate_l(o, n);
        for (size_t j = 0; j < n; j++)
            o[j] = (double)((long double)o[j] - ls);
        double l1 = sbw_synth_kern_normalise(x, n);
        double l2 = sbw_synth_ref_normalise(y, n);
        /* Naive twin: recursive summation of n nonnegative terms, relative
         * error <= (n-1) eps/2 (Higham 2002, (4.4)) plus eps from exp; its
         * log is off by that much, independent of the magnitudes. */
        double naive = ((double)n / 2 + 2) * EPS;
        SBW_ASSERT_NEAR(l1, want, 4 * EPS * (fabs(want) + 20));
        SBW_ASSERT_NEAR(l2, want, naive + 2 * EPS * fabs(want));
        /* each log p_j: rounding (eps |log p_j|) plus the log-sum's error,
         * a few eps of log n for the pairwise kernel */
        SBW_ASSERT_CLOSE(x, o, n, 4 * EPS * (1 + (double)ls), 2 * EPS);
        SBW_ASSERT_CLOSE(y, o, n, naive, 2 * EPS);
        free(o);
        /* after normalisation, logsumexp = 0 to a few eps of the largest |log p| */
        SBW_ASSERT_NEAR(lse_accurate(x, n), 0.0, 4 * EPS * (max_abs(x, n) + 20));
        free(x);
        free(y);
    }
    sbw_rng_free(r);
}

static void test_kern_mix(void **state)
{
    (void)state;
    size_t ks[] = {1, 2, 5}, ms[] = {1, 3, 257};
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 13, 0));
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++) {
            size_t k = ks[a], m = ms[b], ld = m + 3;
            double *w = malloc(k * sizeof *w), *phi = malloc(k * ld * sizeof *phi);
            double *o1 = malloc(m * sizeof *o1), *o2 = malloc(m * sizeof *o2);
            double *scr = malloc(m * sizeof *scr);
            for (size_t t = 0; t < k; t++)
                w[t] = -5 * gsl_rng_uniform(r);
            for (size_t i = 0; i < k * ld; i++)
                phi[i] = -800 * gsl_rng_uniform(r); /* terms far below exp's range too */
            sbw_synth_kern_mix(w, phi, k, m, ld, o1, scr);
            sbw_synth_ref_mix(w, phi, k, m, ld, o2);
            SBW_ASSERT_CLOSE(o1, o2, m, 0, 8 * EPS);
            free(w);
            free(phi);
            free(o1);
            free(o2);
            free(scr);
        }
    sbw_rng_free(r);
}

/* ---- the Dirichlet sampler draw by draw ---------------------------------- */

/* Rows [0, n) of a Dirichlet(alpha_j) language rebuilt the naive way:
 * G_j = gsl_ran_gamma(alpha_j) from stream (seed, row / group_rows) in row
 * order, log p = log(G / sum G).  Valid while no G underflows. */
static void naive_dirichlet(sbw_mat *want, const double *alpha, uint64_t seed)
{
    size_t m = want->cols, gr = SBW_SYNTH_GROUP_ENTRIES / m;
    gr = gr ? gr : 1;
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 0));
    for (size_t i = 0; i < want->rows; i++) {
        if (i % gr == 0)
            sbw_rng_reseed(r, seed, i / gr);
        double *row = want->data + i * want->ld, s = 0;
        for (size_t j = 0; j < m; j++)
            s += row[j] = gsl_ran_gamma(r, alpha[j], 1.0);
        for (size_t j = 0; j < m; j++)
            row[j] = log(row[j] / s);
    }
    sbw_rng_free(r);
}

static void check_against_naive(size_t n, size_t m, const double *alpha, bool sym)
{
    sbw_mat got, want;
    SBW_ASSERT_OK(sbw_mat_alloc(&got, n, m));
    SBW_ASSERT_OK(sbw_mat_alloc(&want, n, m));
    sbw_synth_params p = params(SBW_SYNTH_DIRICHLET, n, m, 99);
    if (sym)
        p.alpha = alpha[0];
    else
        p.alpha_vec = alpha;
    SBW_ASSERT_OK(sbw_synth_generate(&p, &got));
    naive_dirichlet(&want, alpha, 99);
    double mag = max_abs(want.data, n * m);
    SBW_ASSERT_CLOSE(got.data, want.data, n * m, 64 * EPS * (mag + 1), 0);
    sbw_mat_free(&got);
    sbw_mat_free(&want);
}

static void test_dirichlet_matches_gsl(void **state)
{
    (void)state;
    double as[] = {0.05, 0.5, 1.0, 3.7};
    for (size_t a = 0; a < 4; a++) {
        double alpha[20000];
        for (size_t j = 0; j < 20000; j++)
            alpha[j] = as[a];
        check_against_naive(5, 7, alpha, true);
        check_against_naive(5, 20000, alpha, true); /* 3 rows per stream: crosses groups */
    }
}

static void test_dirichlet_asymmetric_matches_gsl(void **state)
{
    (void)state;
    double alpha[11];
    for (size_t j = 0; j < 11; j++)
        alpha[j] = 0.05 + 0.4 * (double)j; /* below and above 1 */
    check_against_naive(9, 11, alpha, false);
}

/* ---- reproducibility ------------------------------------------------------ */

static void gen(sbw_synth_kind kind, size_t n, size_t m, uint64_t seed, sbw_mat *out)
{
    SBW_ASSERT_OK(sbw_mat_alloc(out, n, m));
    sbw_synth_params p = params(kind, n, m, seed);
    p.alpha = 0.01;
    SBW_ASSERT_OK(sbw_synth_generate(&p, out));
}

static void test_same_seed_same_bytes(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; kind++) {
        sbw_mat a, b, c;
        gen((sbw_synth_kind)kind, 37, 1001, 5, &a);
        gen((sbw_synth_kind)kind, 37, 1001, 5, &b);
        gen((sbw_synth_kind)kind, 37, 1001, 6, &c);
        assert_true(same_bytes(&a, &b));
        assert_false(same_bytes(&a, &c));
        assert_true(all_finite(&a));
        sbw_mat_free(&a);
        sbw_mat_free(&b);
        sbw_mat_free(&c);
    }
}

/* 1 or 3 OpenMP threads, 1 or 2 OpenBLAS threads (sbw_cli_threads sets
 * both): the same bytes.  lowrank at rank 30 on 93-row panels is where
 * OpenBLAS would split a dgemm differently by its thread count. */
static void test_threads_do_not_matter(void **state)
{
    (void)state;
    int saved = omp_get_max_threads();
    for (int kind = 0; kind < 4; kind++) {
        sbw_mat a, b;
        sbw_synth_params p = params((sbw_synth_kind)kind, 301, 700, 8);
        p.rank = 30;
        SBW_ASSERT_OK(sbw_mat_alloc(&a, 301, 700));
        SBW_ASSERT_OK(sbw_mat_alloc(&b, 301, 700));
        sbw_cli_threads(1);
        SBW_ASSERT_OK(sbw_synth_generate(&p, &a));
        sbw_cli_threads(2);
        omp_set_num_threads(3);
        SBW_ASSERT_OK(sbw_synth_generate(&p, &b));
        assert_true(same_bytes(&a, &b));
        sbw_mat_free(&a);
        sbw_mat_free(&b);
    }
    sbw_cli_threads(saved);
}

/* The first n rows of an N-row language are the n-row language, and a
 * block-by-block fill gives the whole. */
static void test_prefix_and_blocks(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; kind++) {
        sbw_mat big, small, blocks;
        gen((sbw_synth_kind)kind, 100, 3000, 9, &big); /* 21 rows per group */
        gen((sbw_synth_kind)kind, 50, 3000, 9, &small);
        sbw_mat top = sbw_mat_rows(&big, 0, 50);
        assert_true(same_bytes(&top, &small));
        SBW_ASSERT_OK(sbw_mat_alloc(&blocks, 100, 3000));
        sbw_synth_params p = params((sbw_synth_kind)kind, 100, 3000, 9);
        p.alpha = 0.01;
        sbw_synth *g;
        SBW_ASSERT_OK(sbw_synth_alloc(&g, &p));
        size_t gr = sbw_synth_group_rows(g);
        assert_int_equal(gr, kind == SBW_SYNTH_LOWRANK ? SBW_SYNTH_LOWRANK_GROUP_MIN : 21);
        for (size_t r0 = 0; r0 < 100; r0 += 2 * gr) {
            size_t nr = 100 - r0 < 2 * gr ? 100 - r0 : 2 * gr;
            sbw_mat v = sbw_mat_rows(&blocks, r0, nr);
            SBW_ASSERT_OK(sbw_synth_fill(g, r0, &v));
        }
        assert_true(same_bytes(&big, &blocks));
        sbw_synth_free(g);
        sbw_mat_free(&big);
        sbw_mat_free(&small);
        sbw_mat_free(&blocks);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The row groups of one seed never share an RNG sequence: the first two
 * 32-bit draws of 300000 streams are all distinct.  (A 32-bit hash of
 * (seed, stream) would repeat about k^2/2^33 = 10 times here.) */
static void test_streams_distinct(void **state)
{
    (void)state;
    size_t k = 300000;
    uint64_t *first = malloc(k * sizeof *first);
    gsl_rng *r;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 12345, 0));
    for (size_t b = 0; b < k; b++) {
        sbw_rng_reseed(r, 12345, b);
        uint64_t hi = gsl_rng_get(r);
        first[b] = hi << 32 | gsl_rng_get(r);
    }
    qsort(first, k, sizeof *first, cmp_u64);
    size_t dup = 0;
    for (size_t b = 1; b < k; b++)
        dup += first[b] == first[b - 1];
    assert_int_equal(dup, 0);
    sbw_rng_free(r);
    free(first);
}

/* The three stable entry points are the generic generator with defaults. */
static void test_wrappers(void **state)
{
    (void)state;
    sbw_mat a, b;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 13, 17));
    SBW_ASSERT_OK(sbw_mat_alloc(&b, 13, 17));
    sbw_synth_params p;
    sbw_synth_params_init(&p, SBW_SYNTH_DIRICHLET, 13, 17);
    p.alpha = 0.3;
    p.seed = 4;
    SBW_ASSERT_OK(sbw_synth_dirichlet(&a, 0.3, 4));
    SBW_ASSERT_OK(sbw_synth_generate(&p, &b));
    assert_true(same_bytes(&a, &b));
    sbw_synth_params_init(&p, SBW_SYNTH_LOWRANK, 13, 17);
    p.rank = 5;
    p.scale = 2;
    p.with_ones = true;
    p.seed = 4;
    SBW_ASSERT_OK(sbw_synth_lowrank(&a, 5, 2.0, true, 4));
    SBW_ASSERT_OK(sbw_synth_generate(&p, &b));
    assert_true(same_bytes(&a, &b));
    sbw_synth_params_init(&p, SBW_SYNTH_TOPICS, 13, 17);
    p.k = 3;
    p.alpha = 0.2;
    p.seed = 4;
    SBW_ASSERT_OK(sbw_synth_topics(&a, 3, 0.2, 4));
    SBW_ASSERT_OK(sbw_synth_generate(&p, &b));
    assert_true(same_bytes(&a, &b));
    assert_int_equal(sbw_synth_dirichlet(&a, 0.0, 4), SBW_EINVAL);
    assert_int_equal(sbw_synth_lowrank(&a, 14, 1.0, false, 4), SBW_EINVAL);
    assert_int_equal(sbw_synth_topics(&a, 0, 0.1, 4), SBW_EINVAL);
    sbw_mat_free(&a);
    sbw_mat_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kern_log_boost),
        cmocka_unit_test(test_kern_normalise),
        cmocka_unit_test(test_kern_mix),
        cmocka_unit_test(test_dirichlet_matches_gsl),
        cmocka_unit_test(test_dirichlet_asymmetric_matches_gsl),
        cmocka_unit_test(test_same_seed_same_bytes),
        cmocka_unit_test(test_threads_do_not_matter),
        cmocka_unit_test(test_prefix_and_blocks),
        cmocka_unit_test(test_streams_distinct),
        cmocka_unit_test(test_wrappers),
    };
    sbw_error_gsl_quiet();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
