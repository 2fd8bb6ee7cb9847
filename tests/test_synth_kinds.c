/* test_synth_kinds.c -- the generators of synth/, kind by kind: lowrank
 * ranks measured by LAPACK, topics factorisation, the zipf law, streamed
 * files equal to memory, and the error paths (bad parameters, a failed
 * fill).  The machinery (kernels, draws, reproducibility) is in
 * test_synth.c; shared helpers in synth_util.h. */
#include "synth_util.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_synth_io.h"

#include <lapacke.h>
#include <stdlib.h>

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
        SBW_ASSERT_LE(wc, 8 * EPS * w0 * sqrt((double)(n + m)));
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
    SBW_ASSERT_EQ(ra, 11);
    SBW_ASSERT_EQ(ds, 10);
    sbw_synth_lowrank_ranks(100, 50, 10, true, &ra, &ds);
    SBW_ASSERT_EQ(ra, 10);
    SBW_ASSERT_EQ(ds, 9);
    sbw_synth_lowrank_ranks(100, 50, 50, false, &ra, &ds);
    SBW_ASSERT_EQ(ra, 50);
    SBW_ASSERT_EQ(ds, 49);
    sbw_synth_lowrank_ranks(8, 50, 8, false, &ra, &ds);
    SBW_ASSERT_EQ(ra, 8);
    SBW_ASSERT_EQ(ds, 8);
    sbw_synth_lowrank_ranks(8, 1, 1, false, &ra, &ds);
    SBW_ASSERT_EQ(ra, 0);
    SBW_ASSERT_EQ(ds, 0);
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
    SBW_ASSERT_EQ(w.rows, 12);
    SBW_ASSERT_EQ(w.cols, 4);
    for (size_t j = 0; j < 12; j++) {
        SBW_ASSERT_EQ(SBW_MAT_AT(&w, j, 3), 1.0);
        SBW_ASSERT_NE(SBW_MAT_AT(&w, j, 0), 1.0);
    }
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
    SBW_ASSERT_GT(dstar, k);
    free(c);
    /* least squares Phi^T theta_i = p_i for every row (M x K, N right sides) */
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)m, (lapack_int)k,
                                    (lapack_int)n, phi.data, (lapack_int)m, pt, (lapack_int)m);
    assert_int_equal(info, 0);
    for (size_t i = 0; i < n; i++) {
        double sum = 0, *th = pt + i * m;
        for (size_t t = 0; t < k; t++) {
            SBW_ASSERT_GT(th[t], -1e-10);
            sum += th[t];
        }
        SBW_ASSERT_NEAR(sum, 1.0, 1e-10);
        double rss = 0; /* residual of the over-determined rows */
        for (size_t j = k; j < m; j++)
            rss += th[j] * th[j];
        SBW_ASSERT_LT(sqrt(rss), 1e-12);
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
    SBW_ASSERT_LE(st.max, 0);
    SBW_ASSERT_LE(st.min, st.max);
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
