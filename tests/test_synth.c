/* test_synth.c -- the generators of synth/: samplers against GSL draw by
 * draw, reproducibility, lowrank ranks (LAPACK), topics factorisation,
 * zipf law, streamed files, error paths.  The statistical laws of the
 * Dirichlet sampler are in test_synth_stats.c. */
#include "sbw_test.h"

#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"
#include "sbw_synth.h"
#include "sbw_synth_io.h"
#include "sbw_synth_kern.h"
#include "sbw_synth_ref.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const double EPS = DBL_EPSILON;

/* logsumexp in long double: an oracle whose own error is far below eps. */
static long double lse_accurate_l(const double *x, size_t n)
{
    long double mx = -INFINITY, s = 0;
    for (size_t j = 0; j < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    for (size_t j = 0; j < n; j++)
        s += expl((long double)x[j] - mx);
    return mx + logl(s);
}

static double lse_accurate(const double *x, size_t n) { return (double)lse_accurate_l(x, n); }

static double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t j = 0; j < n; j++)
        m = fabs(x[j]) > m ? fabs(x[j]) : m;
    return m;
}

static bool all_finite(const sbw_mat *a)
{
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++)
            if (!isfinite(SBW_MAT_AT(a, i, j)))
                return false;
    return true;
}

static bool same_bytes(const sbw_mat *a, const sbw_mat *b)
{
    if (a->rows != b->rows || a->cols != b->cols)
        return false;
    for (size_t i = 0; i < a->rows; i++)
        if (memcmp(a->data + i * a->ld, b->data + i * b->ld, a->cols * sizeof(double)) != 0)
            return false;
    return true;
}

static sbw_synth_params params(sbw_synth_kind kind, size_t n, size_t m, uint64_t seed)
{
    sbw_synth_params p;
    sbw_synth_params_init(&p, kind, n, m);
    p.seed = seed;
    p.rank = 3;
    p.k = 4;
    return p;
}

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

/* ---- lowrank: measured ranks (LAPACK) equal the stated ones --------------- */

/* Numerical rank of a row-major rows x cols matrix (NR 3rd ed. threshold
 * 0.5 sqrt(m+n+1) w0 eps), given to LAPACK as its column-major transpose;
 * *w0 gets the largest singular value.  w_ref > 0 replaces w0 in the
 * threshold: for the row-centred A, whose entries carry the rounding of
 * A's (relative to |A|, not to the centred values), w_ref = w0(A). */
static size_t nr_rank_ref(const double *a, size_t rows, size_t cols, double w_ref, double *w0)
{
    size_t k = rows < cols ? rows : cols;
    double *c = malloc(rows * cols * sizeof *c), *s = malloc(k * sizeof *s);
    memcpy(c, a, rows * cols * sizeof *c);
    lapack_int info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', (lapack_int)cols, (lapack_int)rows, c,
                                     (lapack_int)cols, s, NULL, 1, NULL, 1);
    assert_int_equal(info, 0);
    double tsh = 0.5 * sqrt((double)(rows + cols + 1)) * (w_ref > 0 ? w_ref : s[0]) * EPS;
    size_t r = 0;
    while (r < k && s[r] > tsh)
        r++;
    *w0 = s[0];
    free(c);
    free(s);
    return r;
}

static size_t nr_rank(const double *a, size_t rows, size_t cols, double *w0)
{
    return nr_rank_ref(a, rows, cols, 0.0, w0);
}

static void check_lowrank(size_t n, size_t m, size_t rank, bool ones, double scale)
{
    sbw_mat a, c;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_mat_alloc(&c, n, m));
    SBW_ASSERT_OK(sbw_synth_lowrank(&a, rank, scale, ones, 21));
    for (size_t i = 0; i < n; i++) { /* row-centred copy A (I - 11^T/M) */
        double mean = 0;
        for (size_t j = 0; j < m; j++)
            mean += SBW_MAT_AT(&a, i, j) / (double)m;
        for (size_t j = 0; j < m; j++)
            SBW_MAT_AT(&c, i, j) = SBW_MAT_AT(&a, i, j) - mean;
    }
    size_t ra, ds;
    sbw_synth_lowrank_ranks(n, m, rank, ones, &ra, &ds);
    double w0, wc;
    assert_int_equal(nr_rank(a.data, n, m, &w0), ra);
    size_t dc = nr_rank_ref(c.data, n, m, w0, &wc);
    if (ds > 0)
        assert_int_equal(dc, ds);
    else /* rows are uniform: the centred matrix is rounding noise */
        assert_true(wc <= 8 * EPS * w0 * sqrt((double)(n + m)));
    sbw_mat_free(&a);
    sbw_mat_free(&c);
}

static void test_lowrank_rank_and_dstar(void **state)
{
    (void)state;
    check_lowrank(40, 30, 5, false, 1.0); /* rank 6, d* 5 */
    check_lowrank(40, 30, 5, true, 1.0);  /* rank 5, d* 4 */
    check_lowrank(30, 40, 7, false, 4.0);
    check_lowrank(30, 40, 7, true, 0.3);
    check_lowrank(30, 40, 29, false, 1.0); /* rank capped at 30, d* 29 */
    check_lowrank(20, 20, 20, false, 1.0); /* rank 20, d* 19 */
    check_lowrank(25, 17, 1, true, 1.0);   /* uniform rows: rank 1, d* 0 */
    check_lowrank(53, 19, 2, false, 2.0);
}

static void test_lowrank_rank_formula(void **state)
{
    (void)state;
    size_t ra, ds;
    sbw_synth_lowrank_ranks(100, 50, 10, false, &ra, &ds);
    assert_true(ra == 11 && ds == 10);
    sbw_synth_lowrank_ranks(100, 50, 10, true, &ra, &ds);
    assert_true(ra == 10 && ds == 9);
    sbw_synth_lowrank_ranks(100, 50, 50, false, &ra, &ds);
    assert_true(ra == 50 && ds == 49);
    sbw_synth_lowrank_ranks(8, 50, 8, false, &ra, &ds);
    assert_true(ra == 8 && ds == 8);
    sbw_synth_lowrank_ranks(8, 1, 1, false, &ra, &ds);
    assert_true(ra == 0 && ds == 0);
}

/* W has the promised shape and, with ones, an all-ones last column. */
static void test_lowrank_w(void **state)
{
    (void)state;
    sbw_synth_params p = params(SBW_SYNTH_LOWRANK, 10, 12, 3);
    p.rank = 4;
    p.with_ones = true;
    sbw_synth *g;
    sbw_mat w;
    SBW_ASSERT_OK(sbw_synth_alloc(&g, &p));
    SBW_ASSERT_OK(sbw_synth_lowrank_w(g, &w));
    assert_true(w.rows == 12 && w.cols == 4);
    for (size_t j = 0; j < 12; j++)
        assert_true(SBW_MAT_AT(&w, j, 3) == 1.0 && SBW_MAT_AT(&w, j, 0) != 1.0);
    assert_int_equal(sbw_synth_topics_logphi(g, &w), SBW_EINVAL);
    sbw_synth_free(g);
}

/* ---- topics: P = Theta Phi with Theta on the simplex ---------------------- */

static void test_topics_factorise(void **state)
{
    (void)state;
    size_t n = 60, m = 35, k = 4;
    sbw_synth_params p = params(SBW_SYNTH_TOPICS, n, m, 17);
    p.k = k;
    p.alpha = 0.5;
    p.mix_alpha = 0.7;
    sbw_synth *g;
    sbw_mat a, phi, lphi;
    SBW_ASSERT_OK(sbw_synth_alloc(&g, &p));
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_synth_fill(g, 0, &a));
    SBW_ASSERT_OK(sbw_synth_topics_logphi(g, &lphi));
    SBW_ASSERT_OK(sbw_mat_alloc(&phi, k, m));
    for (size_t i = 0; i < k * m; i++)
        phi.data[i] = exp(lphi.data[i]);
    double *pt = malloc(n * m * sizeof *pt), w0;
    for (size_t i = 0; i < n * m; i++)
        pt[i] = exp(a.data[i]);
    assert_int_equal(nr_rank(pt, n, m, &w0), k); /* P has rank K */
    /* ... but log P does not factor: its row-centred form has numerical
     * rank d* > K, so no Softmax head of dimension K represents it (MoS
     * Proposition 1).  Threshold relative to w0(log P), as for lowrank. */
    double *c = malloc(n * m * sizeof *c), wa, wc;
    for (size_t i = 0; i < n; i++) {
        double mean = 0;
        for (size_t j = 0; j < m; j++)
            mean += SBW_MAT_AT(&a, i, j) / (double)m;
        for (size_t j = 0; j < m; j++)
            c[i * m + j] = SBW_MAT_AT(&a, i, j) - mean;
    }
    nr_rank(a.data, n, m, &wa);
    size_t dstar = nr_rank_ref(c, n, m, wa, &wc);
    if (dstar <= k)
        print_error("topics: centred log P has numerical rank %zu <= K = %zu\n", dstar, k);
    assert_true(dstar > k);
    free(c);
    /* least squares Phi^T theta_i = p_i for every row (M x K, N right sides) */
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)m, (lapack_int)k,
                                    (lapack_int)n, phi.data, (lapack_int)m, pt, (lapack_int)m);
    assert_int_equal(info, 0);
    for (size_t i = 0; i < n; i++) {
        double sum = 0, *th = pt + i * m;
        for (size_t t = 0; t < k; t++) {
            assert_true(th[t] > -1e-10);
            sum += th[t];
        }
        SBW_ASSERT_NEAR(sum, 1.0, 1e-10);
        double rss = 0; /* residual of the over-determined rows */
        for (size_t j = k; j < m; j++)
            rss += th[j] * th[j];
        assert_true(sqrt(rss) < 1e-12);
    }
    free(pt);
    sbw_mat_free(&phi);
    sbw_mat_free(&a);
    sbw_synth_free(g);
}

/* One topic: every row is the topic (up to the renormalisation's rounding). */
static void test_topics_one_topic(void **state)
{
    (void)state;
    sbw_synth_params p = params(SBW_SYNTH_TOPICS, 9, 500, 2);
    p.k = 1;
    p.alpha = 1e-3;
    sbw_synth *g;
    sbw_mat a, lphi;
    SBW_ASSERT_OK(sbw_synth_alloc(&g, &p));
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 9, 500));
    SBW_ASSERT_OK(sbw_synth_fill(g, 0, &a));
    SBW_ASSERT_OK(sbw_synth_topics_logphi(g, &lphi));
    double mag = max_abs(lphi.data, 500);
    for (size_t i = 0; i < 9; i++)
        SBW_ASSERT_CLOSE(a.data + i * a.ld, lphi.data, 500, 8 * EPS * mag, 0);
    assert_true(all_finite(&a));
    sbw_mat_free(&a);
    sbw_synth_free(g);
}

/* ---- zipf ----------------------------------------------------------------- */

static void test_zipf_exact_law(void **state)
{
    (void)state;
    size_t n = 4, m = 1003;
    sbw_synth_params p = params(SBW_SYNTH_ZIPF, n, m, 1);
    p.sigma = 0;
    p.exponent = 1.1;
    sbw_mat a;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_synth_generate(&p, &a));
    long double h = 0;
    for (size_t j = 0; j < m; j++)
        h += powl((long double)(j + 1), -1.1L);
    double *want = malloc(m * sizeof *want);
    for (size_t j = 0; j < m; j++)
        want[j] = (double)(-1.1L * logl((long double)(j + 1)) - logl(h));
    for (size_t i = 0; i < n; i++)
        SBW_ASSERT_CLOSE(a.data + i * m, want, m, 8 * EPS * (max_abs(want, m) + 10), 0);
    free(want);
    sbw_mat_free(&a);
}

/* log p_ij - log p_i0 = -s log(j+1) + sigma (z_ij - z_i0): mean and
 * variance 2 sigma^2 within 5 standard errors. */
static void test_zipf_perturbations(void **state)
{
    (void)state;
    size_t n = 20000, m = 6;
    double s = 0.8, sigma = 1.5;
    sbw_synth_params p = params(SBW_SYNTH_ZIPF, n, m, 31);
    p.exponent = s;
    p.sigma = sigma;
    sbw_mat a;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_synth_generate(&p, &a));
    double var = 2 * sigma * sigma;
    for (size_t j = 1; j < m; j++) {
        double mean = 0, m2 = 0;
        for (size_t i = 0; i < n; i++)
            mean += (SBW_MAT_AT(&a, i, j) - SBW_MAT_AT(&a, i, 0)) / (double)n;
        for (size_t i = 0; i < n; i++) {
            double d = SBW_MAT_AT(&a, i, j) - SBW_MAT_AT(&a, i, 0) - mean;
            m2 += d * d / (double)(n - 1);
        }
        SBW_ASSERT_NEAR(mean, -s * log((double)(j + 1)), 5 * sqrt(var / (double)n));
        SBW_ASSERT_NEAR(m2, var, 5 * var * sqrt(2.0 / (double)(n - 1)));
    }
    sbw_mat_free(&a);
}

/* ---- streamed files ------------------------------------------------------- */

static void check_file_is_memory(sbw_synth_kind kind, size_t n, size_t m, bool probs)
{
    char lp[512], pp[512];
    snprintf(lp, sizeof lp, "%s", sbw_test_path("logp.npy"));
    snprintf(pp, sizeof pp, "%s", sbw_test_path("probs.npy"));
    sbw_synth_params p = params(kind, n, m, 77);
    p.alpha = 0.02;
    sbw_synth_io_stats st;
    SBW_ASSERT_OK(sbw_synth_io_write(&p, lp, probs ? pp : NULL, NULL, &st));
    sbw_mat want, got;
    SBW_ASSERT_OK(sbw_mat_alloc(&want, n, m));
    SBW_ASSERT_OK(sbw_synth_generate(&p, &want));
    SBW_ASSERT_OK(sbw_npy_load(lp, &got, NULL));
    assert_true(same_bytes(&got, &want));
    assert_int_equal(st.rows, n);
    assert_int_equal(st.nonfinite, 0);
    assert_true(st.max <= 0 && st.min <= st.max);
    /* max_abs_lse against a brute-force max_i |logsumexp(row i)| (long
     * double).  The statistic's own error: mx + log S with S in [1, m]
     * and mx ~ -log S, so a few eps of 1 + log m, whatever the entries. */
    double brute = 0;
    for (size_t i = 0; i < n; i++) {
        const double *row = want.data + i * want.ld;
        double l = fabs(lse_accurate(row, m));
        /* every row normalised to a few eps of its largest |log p| */
        SBW_ASSERT_NEAR(l, 0.0, 4 * EPS * (max_abs(row, m) + 1));
        brute = l > brute ? l : brute;
    }
    SBW_ASSERT_NEAR(st.max_abs_lse, brute, 4 * EPS * (1 + log((double)m)));
    if (probs) {
        sbw_mat pr;
        SBW_ASSERT_OK(sbw_npy_load(pp, &pr, NULL));
        for (size_t i = 0; i < n * m; i++)
            want.data[i] = exp(want.data[i]);
        SBW_ASSERT_CLOSE(pr.data, want.data, n * m, 0, 4 * EPS);
        sbw_mat_free(&pr);
    }
    sbw_mat_free(&want);
    sbw_mat_free(&got);
}

static void test_io_file_equals_memory(void **state)
{
    (void)state;
    for (int kind = 0; kind < 4; kind++)
        check_file_is_memory((sbw_synth_kind)kind, 37, 1001, kind == 0);
    /* 4500 x 1000 doubles: two 32 MB blocks, the second partial */
    assert_int_equal(sbw_synth_io_block_rows(1000, 65, (size_t)32 << 20), 4160);
    assert_int_equal(sbw_synth_io_block_rows(100000, 1, 1000), 1);
    check_file_is_memory(SBW_SYNTH_DIRICHLET, 4500, 1000, false);
    check_file_is_memory(SBW_SYNTH_LOWRANK, 4500, 1000, true);
}

static void test_io_failures_leave_nothing(void **state)
{
    (void)state;
    char lp[512], pp[512];
    snprintf(lp, sizeof lp, "%s", sbw_test_path("bad.npy"));
    snprintf(pp, sizeof pp, "%s", sbw_test_path("badp.npy"));
    sbw_synth_params p = params(SBW_SYNTH_DIRICHLET, 10, 10, 1);
    assert_int_equal(sbw_synth_io_write(&p, "/nonexistent-dir/x.npy", NULL, NULL, NULL), SBW_EIO);
    assert_int_equal(sbw_synth_io_write(&p, lp, "/nonexistent-dir/p.npy", NULL, NULL), SBW_EIO);
    assert_int_equal(sbw_synth_io_write(&p, lp, lp, NULL, NULL), SBW_EINVAL);
    p.alpha = 0;
    assert_int_equal(sbw_synth_io_write(&p, lp, pp, NULL, NULL), SBW_EINVAL);
    p.alpha = 1;
    /* /dev/full: the data write fails (ENOSPC); the probs file is not kept */
    assert_int_equal(sbw_synth_io_write(&p, "/dev/full", pp, NULL, NULL), SBW_EIO);
    FILE *f = fopen(lp, "rb");
    assert_null(f);
    f = fopen(pp, "rb");
    assert_null(f);
}

static void test_io_load_alpha(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("alpha.npy"));
    double v[5] = {0.1, 1e-4, 2, 30, 0.5}, *got;
    size_t m;
    SBW_ASSERT_OK(sbw_npy_save_vector(path, v, 5, SBW_F64));
    SBW_ASSERT_OK(sbw_synth_io_load_alpha(path, &got, &m));
    assert_int_equal(m, 5);
    SBW_ASSERT_CLOSE(got, v, 5, 0, 0);
    free(got);
    v[3] = 0;
    SBW_ASSERT_OK(sbw_npy_save_vector(path, v, 5, SBW_F64));
    assert_int_equal(sbw_synth_io_load_alpha(path, &got, &m), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "alpha[3]"));
    v[3] = NAN;
    SBW_ASSERT_OK(sbw_npy_save_vector(path, v, 5, SBW_F64));
    assert_int_equal(sbw_synth_io_load_alpha(path, &got, &m), SBW_EDATA);
    sbw_mat sq;
    SBW_ASSERT_OK(sbw_mat_alloc(&sq, 2, 2));
    SBW_ASSERT_OK(sbw_npy_save(path, &sq, SBW_F64));
    assert_int_equal(sbw_synth_io_load_alpha(path, &got, &m), SBW_ESHAPE);
    assert_non_null(strstr(sbw_error_reason(), "got shape 2 x 2"));
    sbw_mat_free(&sq);
    SBW_ASSERT_OK(sbw_npy_save_vector(path, v, 0, SBW_F64));
    assert_int_equal(sbw_synth_io_load_alpha(path, &got, &m), SBW_ESHAPE);
    assert_int_equal(sbw_synth_io_load_alpha("/nonexistent-dir/a.npy", &got, &m), SBW_EIO);
    assert_null(got);
}

/* ---- bad parameters --------------------------------------------------------- */

static void expect_invalid(sbw_synth_params p, const char *word)
{
    sbw_synth *g = (sbw_synth *)1;
    assert_int_equal(sbw_synth_check(&p), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), word));
    assert_int_equal(sbw_synth_alloc(&g, &p), SBW_EINVAL);
    assert_null(g);
}

static void test_bad_parameters(void **state)
{
    (void)state;
    sbw_synth_params d = params(SBW_SYNTH_DIRICHLET, 10, 10, 1), p;
    double bad_alpha[] = {0, -1, NAN, INFINITY, 1e-301, 1e11};
    for (size_t i = 0; i < 6; i++) {
        p = d;
        p.alpha = bad_alpha[i];
        expect_invalid(p, "alpha");
    }
    p = d;
    p.n = 0;
    expect_invalid(p, "n and m");
    p = d;
    p.m = 0;
    expect_invalid(p, "n and m");
    p = d;
    p.n = p.m = (size_t)1 << 31;
    expect_invalid(p, "overflows");
    double vec[10] = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1};
    p = d;
    p.alpha_vec = vec;
    expect_invalid(p, "alpha[7]");
    sbw_synth_params l = params(SBW_SYNTH_LOWRANK, 10, 8, 1);
    p = l;
    p.rank = 0;
    expect_invalid(p, "rank");
    p = l;
    p.rank = 9;
    expect_invalid(p, "rank");
    p = params(SBW_SYNTH_LOWRANK, 8, 10, 1); /* N < M: rank 9 > N */
    p.rank = 9;
    expect_invalid(p, "rank");
    p = l;
    p.scale = 0;
    expect_invalid(p, "scale");
    p = l;
    p.scale = NAN;
    expect_invalid(p, "scale");
    sbw_synth_params z = params(SBW_SYNTH_ZIPF, 10, 8, 1);
    p = z;
    p.exponent = -1;
    expect_invalid(p, "exponent");
    p = z;
    p.sigma = INFINITY;
    expect_invalid(p, "sigma");
    sbw_synth_params t = params(SBW_SYNTH_TOPICS, 10, 8, 1);
    p = t;
    p.k = 0;
    expect_invalid(p, "k");
    p = t;
    p.k = 100001;
    expect_invalid(p, "k");
    p = t;
    p.mix_alpha = 0;
    expect_invalid(p, "mix-alpha");
    p = t;
    p.kind = (sbw_synth_kind)9;
    expect_invalid(p, "kind");
}

static void test_bad_fill(void **state)
{
    (void)state;
    sbw_synth_params p = params(SBW_SYNTH_DIRICHLET, 100, 1000, 1); /* 65 rows per group */
    sbw_synth *g;
    sbw_mat a;
    SBW_ASSERT_OK(sbw_synth_alloc(&g, &p));
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 10, 1000));
    assert_int_equal(sbw_synth_fill(g, 1, &a), SBW_EINVAL);
    assert_int_equal(sbw_synth_fill(g, 130, &a), SBW_EINVAL); /* past N */
    SBW_ASSERT_OK(sbw_synth_fill(g, 65, &a));
    sbw_mat wrong = sbw_mat_view(a.data, 2, 999, 1000);
    assert_int_equal(sbw_synth_fill(g, 0, &wrong), SBW_ESHAPE);
    assert_int_equal(sbw_synth_lowrank_w(g, &wrong), SBW_EINVAL);
    sbw_mat_free(&a);
    sbw_synth_free(g);
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
        cmocka_unit_test(test_lowrank_rank_and_dstar),
        cmocka_unit_test(test_lowrank_rank_formula),
        cmocka_unit_test(test_lowrank_w),
        cmocka_unit_test(test_topics_factorise),
        cmocka_unit_test(test_topics_one_topic),
        cmocka_unit_test(test_zipf_exact_law),
        cmocka_unit_test(test_zipf_perturbations),
        cmocka_unit_test(test_io_file_equals_memory),
        cmocka_unit_test(test_io_failures_leave_nothing),
        cmocka_unit_test(test_io_load_alpha),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_bad_fill),
    };
    sbw_error_gsl_quiet();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
