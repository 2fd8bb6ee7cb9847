/* test_rsvd.c -- the randomized top-K spectrum (sbw_rsvd) against sbw-rank's
 * exact path (sbw_spectra_compute: gesdd on the matrix or its TSQR
 * factor) on matrices with slow, fast and step-like spectral decay, with
 * centring and float32 files; against its naive twin (sbw_rsvd_ref) on
 * small odd sizes; reproducibility from the seed; the single-pass sketch
 * of a stream (sbw_rsvd_sp) within its bound; and the counting
 * ranks' exact-or-at-least logic (sbw_rsvd_rank) on sketches built by
 * hand. */
#include "sbw_rsvd.h"
#include "sbw_rsvd_rank.h"
#include "sbw_spectra.h"
#include "sbw_test.h"

#include "sbw_test_mats.h"
#include "spectra_io.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static gsl_rng *rng_for(uint64_t stream)
{
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 2911, stream));
    return r;
}

typedef enum decay { SLOW, FAST, STEP } decay;

/* s[k]: slow (power law j^-1/2), fast (0.6^j) or a step (1 for j < 12,
 * then 1e-3 (j + 1)^-1). */
static void spectrum(decay d, double *s, size_t k)
{
    for (size_t j = 0; j < k; j++)
        s[j] = d == SLOW   ? 1 / sqrt((double)j + 1)
               : d == FAST ? pow(0.6, (double)j)
               : j < 12    ? 1.0
                           : 1e-3 / ((double)j + 1);
}

/* a (n x m) = U diag(s) V^T with Haar-like U, V (k = min(n, m) - 1
 * columns each: the last singular value is 0). */
static void with_spectrum(sbw_mat *a, size_t n, size_t m, decay d, uint64_t stream)
{
    size_t k = sbw_num_min_sz(n, m) - 1; /* tm_orthonormal needs a row more */
    double *s = malloc(k * sizeof *s);
    sbw_mat u = {0}, v = {0};
    gsl_rng *r = rng_for(stream);
    assert_non_null(s);
    spectrum(d, s, k);
    SBW_ASSERT_OK(tm_orthonormal(&u, n, k, -1, r));
    SBW_ASSERT_OK(tm_orthonormal(&v, m, k, -1, r));
    SBW_ASSERT_OK(tm_usv(a, &u, s, &v));
    sbw_mat_free(&u);
    sbw_mat_free(&v);
    gsl_rng_free(r);
    free(s);
}

/* sbw_rsvd_run on the file at path. */
static int rsvd_of(const char *path, const sbw_rsvd_opts *o, sbw_rsvd *rs)
{
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, path);
    st = st ? st : sbw_rsvd_run(r, o, rs);
    sbw_npy_close(r);
    return st;
}

/* The exact path's spectrum of variant v of the file (a new array). */
static double *exact_of(const char *path, sbw_reduce_variant v, double *w0u)
{
    sbw_spectra sp = {0};
    sbw_reduce_opts ro = {0};
    SBW_ASSERT_OK(spectra_of(path, &ro, 1u << v, &sp));
    double *s = malloc(sp.k * sizeof *s);
    assert_non_null(s);
    memcpy(s, sp.s[v], sp.k * sizeof *s);
    if (w0u)
        *w0u = sp.w0_uncentred[v];
    sbw_spectra_free(&sp);
    return s;
}

/* Every exact value of the top K within the sketch's interval, the
 * interval's width at most what the estimate says (hi - s), and the
 * exact Frobenius norm equal to the exact spectrum's. */
static void check_within(const sbw_rsvd *rs, const double *exact, size_t k)
{
    double lo[512], hi[512], f2 = 0;
    assert_true(rs->sketch <= 512);
    sbw_rsvd_bounds(rs, rs->sketch, lo, hi);
    for (size_t j = 0; j < rs->top; j++) {
        SBW_ASSERT_LE(lo[j], exact[j]);
        SBW_ASSERT_GE(hi[j], exact[j]);
    }
    for (size_t j = k; j-- > 0;)
        f2 += exact[j] * exact[j];
    SBW_ASSERT_NEAR(rs->fro2, f2, 1e-12 * f2 + 1e-300);
}

/* Slow, fast and step-like decay, each at a size where K < min(N, M). */
static void test_decay_vs_exact(void **state)
{
    (void)state;
    const decay ds[] = {SLOW, FAST, STEP};
    const size_t ns[] = {700, 300, 1200}, ms[] = {300, 500, 250};
    for (size_t i = 0; i < 3; i++) {
        sbw_mat a = {0};
        with_spectrum(&a, ns[i], ms[i], ds[i], 10 + i);
        char *p = save_tmp("decay.npy", &a, SBW_F64);
        double *ex = exact_of(p, SBW_VAR_PLAIN, NULL);
        sbw_rsvd_opts o = sbw_rsvd_defaults(20);
        o.block_rows = 97;
        sbw_rsvd rs = {0};
        SBW_ASSERT_OK(rsvd_of(p, &o, &rs));
        assert_true(rs.mapped);
        assert_int_equal(rs.passes, 6);
        check_within(&rs, ex, sbw_num_min_sz(ns[i], ms[i]));
        /* fast decay: the top K to a few eps of sigma_1; step: the
         * values above the step */
        for (size_t j = 0; ds[i] != SLOW && j < (ds[i] == FAST ? rs.top : 12); j++)
            SBW_ASSERT_ABS_LE(rs.s[j] - ex[j], 1e-12);
        sbw_rsvd_free(&rs);
        free(ex);
        free(p);
        sbw_mat_free(&a);
    }
}

/* The residual estimate bounds the true residual: without power
 * iterations and with little oversampling on slow decay the intervals
 * are wide, and still hold; and the true ||E||_2 (computed from the exact
 * spectrum: sigma_1(A)^2 - s_1^2 <= ||E||^2) is below it. */
static void test_estimate_bounds(void **state)
{
    (void)state;
    for (int d = 0; d < 3; d++) {
        sbw_mat a = {0};
        with_spectrum(&a, 400, 300, (decay)d, 20 + (uint64_t)d);
        char *p = save_tmp("est.npy", &a, SBW_F64);
        double *ex = exact_of(p, SBW_VAR_PLAIN, NULL);
        for (uint64_t seed = 1; seed <= 5; seed++) {
            sbw_rsvd_opts o = sbw_rsvd_defaults(10);
            o.power = 0;
            o.oversample = 2;
            o.seed = seed;
            sbw_rsvd rs = {0};
            SBW_ASSERT_OK(rsvd_of(p, &o, &rs));
            check_within(&rs, ex, 300);
            for (size_t j = 0; j < rs.top; j++)
                SBW_ASSERT_LE(ex[j] * ex[j] - rs.s[j] * rs.s[j], rs.resid * rs.resid * (1 + 1e-12));
            /* the estimate is an estimate: not more than 100 x the
             * smallest error it must cover */
            SBW_ASSERT_LE(rs.resid_test, 100 * sqrt(rs.fro2));
            sbw_rsvd_free(&rs);
        }
        free(ex);
        free(p);
        sbw_mat_free(&a);
    }
}

/* The fast path against its twin on small odd shapes, every variant,
 * with and without exp, blocks of 1, 7 and all rows. */
static void test_vs_twin(void **state)
{
    (void)state;
    gsl_rng *r = rng_for(3);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_lowrank_logp(&a, 37, 23, 6, 1.5, false, r));
    char *p = save_tmp("twin.npy", &a, SBW_F64);
    const size_t blocks[] = {1, 7, 0};
    for (int v = 0; v < SBW_NVARIANT; v++)
        for (int e = 0; e < 2; e++)
            for (size_t b = 0; b < 3; b++) {
                sbw_rsvd_opts o = sbw_rsvd_defaults(5);
                o.oversample = 3;
                o.power = 1;
                o.var = (sbw_reduce_variant)v;
                o.exp = e;
                o.block_rows = blocks[b];
                sbw_rsvd f = {0}, t = {0};
                SBW_ASSERT_OK(rsvd_of(p, &o, &f));
                SBW_ASSERT_OK(sbw_rsvd_ref(&a, &o, &t));
                assert_int_equal(f.sketch, 8);
                assert_int_equal(f.passes, (v & SBW_VAR_COLS) ? 5u : 4u);
                SBW_ASSERT_CLOSE(f.s, t.s, f.sketch, 1e-12 * t.s[0], 0);
                SBW_ASSERT_NEAR(f.fro2, t.fro2, 1e-13 * t.fro2);
                SBW_ASSERT_NEAR(f.rowmean_sq, t.rowmean_sq, 1e-13 * t.rowmean_sq);
                SBW_ASSERT_NEAR(f.w0_uncentred, t.w0_uncentred, 1e-12 * t.w0_uncentred);
                SBW_ASSERT_NEAR(f.resid_test, t.resid_test, 1e-6 * t.resid_test + 1e-12 * t.s[0]);
                sbw_rsvd_free(&f);
                sbw_rsvd_free(&t);
            }
    free(p);
    sbw_mat_free(&a);
    gsl_rng_free(r);
}

/* The same seed gives the same bits (file read twice, mapped or not);
 * another seed other values; K and p beyond min(N, M). */
static void test_seed(void **state)
{
    (void)state;
    sbw_mat a = {0};
    with_spectrum(&a, 200, 90, SLOW, 5);
    char *p = save_tmp("seed.npy", &a, SBW_F64);
    sbw_rsvd_opts o = sbw_rsvd_defaults(8);
    o.seed = 42;
    sbw_rsvd r1 = {0}, r2 = {0}, r3 = {0};
    SBW_ASSERT_OK(rsvd_of(p, &o, &r1));
    SBW_ASSERT_OK(rsvd_of(p, &o, &r2));
    assert_memory_equal(r1.s, r2.s, r1.sketch * sizeof(double));
    assert_memory_equal(&r1.resid, &r2.resid, sizeof(double));
    o.seed = 43;
    SBW_ASSERT_OK(rsvd_of(p, &o, &r3));
    assert_true(memcmp(r1.s, r3.s, r1.sketch * sizeof(double)) != 0);
    sbw_rsvd_free(&r1);
    sbw_rsvd_free(&r2);
    sbw_rsvd_free(&r3);
    /* K = min(N, M): the sketch is the whole range, the values exact */
    o = sbw_rsvd_defaults(90);
    SBW_ASSERT_OK(rsvd_of(p, &o, &r1));
    assert_int_equal(r1.sketch, 90);
    double *ex = exact_of(p, SBW_VAR_PLAIN, NULL);
    SBW_ASSERT_CLOSE(r1.s, ex, 90, 1e-13, 0);
    sbw_rsvd_free(&r1);
    o.top = 91;
    assert_int_equal(rsvd_of(p, &o, &r1), SBW_EINVAL);
    o.top = 0;
    assert_int_equal(rsvd_of(p, &o, &r1), SBW_EINVAL);
    free(ex);
    free(p);
    sbw_mat_free(&a);
}

/* A float32 file (read by sbw_npy_read_rows, not mapped) against the exact
 * path's spectrum of the same file, and against the float64 file of the
 * same values; --center and --bias on a biased head against the exact
 * path's centred spectra. */
static void test_float32_and_centring(void **state)
{
    (void)state;
    gsl_rng *r = rng_for(7);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_biased_head_logp(&a, 900, 300, 12, 0.1, false, r));
    char *p32 = save_tmp("f32.npy", &a, SBW_F32);
    char *p64 = save_tmp("f64.npy", &a, SBW_F64);
    const sbw_reduce_variant vs[] = {SBW_VAR_PLAIN, SBW_VAR_ROWS, SBW_VAR_BOTH};
    for (size_t i = 0; i < 3; i++) {
        double w0u;
        double *ex = exact_of(p32, vs[i], &w0u);
        sbw_rsvd_opts o = sbw_rsvd_defaults(20);
        o.var = vs[i];
        sbw_rsvd rs = {0};
        SBW_ASSERT_OK(rsvd_of(p32, &o, &rs));
        assert_false(rs.mapped);
        assert_int_equal(rs.dtype, SBW_F32);
        check_within(&rs, ex, 300);
        SBW_ASSERT_NEAR(fmax(rs.s[0], rs.w0_uncentred), w0u, 1e-10 * w0u);
        sbw_rsvd_free(&rs);
        free(ex);
    }
    /* the float64 file of the float32 file's values: the same answer, and
     * flagged as float32 values */
    sbw_mat b = {0};
    SBW_ASSERT_OK(sbw_npy_load(p32, &b, NULL));
    char *pb = save_tmp("f64of32.npy", &b, SBW_F64);
    sbw_rsvd_opts o = sbw_rsvd_defaults(10);
    sbw_rsvd x = {0}, y = {0};
    SBW_ASSERT_OK(rsvd_of(p32, &o, &x));
    SBW_ASSERT_OK(rsvd_of(pb, &o, &y));
    assert_true(y.mapped);
    assert_true(y.f32_values);
    assert_false(x.f32_values);
    SBW_ASSERT_CLOSE(x.s, y.s, x.sketch, 1e-13 * x.s[0], 0);
    sbw_rsvd_free(&x);
    sbw_rsvd_free(&y);
    free(pb);
    free(p32);
    free(p64);
    sbw_mat_free(&a);
    sbw_mat_free(&b);
    gsl_rng_free(r);
}

/* A NaN is found in pass 1 with the shared message; a pipe is refused. */
static void test_errors(void **state)
{
    (void)state;
    sbw_mat a = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 20, 10));
    for (size_t i = 0; i < 200; i++)
        a.data[i] = (double)(i % 7) - 3;
    a.data[123] = NAN;
    char *p = save_tmp("nan.npy", &a, SBW_F64);
    sbw_rsvd_opts o = sbw_rsvd_defaults(3);
    sbw_rsvd rs = {0};
    assert_int_equal(rsvd_of(p, &o, &rs), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "row 12, column 3"));
    assert_null(rs.s);
    free(p);
    sbw_mat_free(&a);
}

/* sbw_rsvd_sp on the file at path (it reads in row order only,
 * as from a pipe). */
static int sp_of(const char *path, const sbw_rsvd_opts *o, sbw_rsvd *rs)
{
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, path);
    st = st ? st : sbw_rsvd_sp(r, o, rs);
    sbw_npy_close(r);
    return st;
}

/* The single-pass sketch (Tropp et al. 2017) against the exact spectra on
 * slow, fast and step-like decay, with centring (--center, --bias: the
 * column correction at the end) and a float32 file: every exact value of
 * the top K within s_j -+ resid (the test vectors' bound), the exact
 * ||A||_F^2, the paper's expected-error estimate above the largest error
 * of these draws; the same values for the same seed whatever the block,
 * others for another seed; N < k + 2 refused. */
static void test_single_pass(void **state)
{
    (void)state;
    const decay ds[] = {SLOW, FAST, STEP};
    const size_t ns[] = {700, 300, 1200}, ms[] = {300, 500, 250};
    for (size_t i = 0; i < 3; i++) {
        sbw_mat a = {0};
        with_spectrum(&a, ns[i], ms[i], ds[i], 40 + i);
        char *p = save_tmp("sp.npy", &a, SBW_F64);
        double *ex = exact_of(p, SBW_VAR_PLAIN, NULL), worst = 0;
        sbw_rsvd_opts o = sbw_rsvd_defaults(20);
        o.block_rows = 97;
        sbw_rsvd rs = {0};
        SBW_ASSERT_OK(sp_of(p, &o, &rs));
        assert_true(rs.single_pass);
        assert_int_equal(rs.passes, 1);
        assert_int_equal(rs.corange, 2 * rs.sketch + 1);
        check_within(&rs, ex, sbw_num_min_sz(ns[i], ms[i]));
        for (size_t j = 0; j < rs.top; j++)
            worst = fmax(worst, fabs(rs.s[j] - ex[j]));
        SBW_ASSERT_LE(worst, rs.expected_err);
        SBW_ASSERT_LE(worst, rs.resid);
        /* the same seed, another block: the same values to rounding */
        sbw_rsvd r2 = {0};
        o.block_rows = 500;
        SBW_ASSERT_OK(sp_of(p, &o, &r2));
        SBW_ASSERT_CLOSE(r2.s, rs.s, rs.sketch, 1e-9 * rs.s[0], 0);
        sbw_rsvd_free(&r2);
        sbw_rsvd_free(&rs);
        free(ex);
        free(p);
        sbw_mat_free(&a);
    }
    /* centring and float32 */
    gsl_rng *r = rng_for(8);
    sbw_mat a = {0};
    SBW_ASSERT_OK(tm_biased_head_logp(&a, 900, 300, 12, 0.1, false, r));
    char *p32 = save_tmp("spf32.npy", &a, SBW_F32);
    const sbw_reduce_variant vs[] = {SBW_VAR_PLAIN, SBW_VAR_ROWS, SBW_VAR_BOTH};
    for (size_t i = 0; i < 3; i++) {
        double w0u;
        double *ex = exact_of(p32, vs[i], &w0u);
        sbw_rsvd_opts o = sbw_rsvd_defaults(20);
        o.var = vs[i];
        sbw_rsvd rs = {0}, r2 = {0}, r3 = {0};
        SBW_ASSERT_OK(sp_of(p32, &o, &rs));
        check_within(&rs, ex, 300);
        /* w0 is sigma_1 when that is larger: the sketch's, within resid */
        SBW_ASSERT_NEAR(fmax(rs.s[0], rs.w0_uncentred), w0u, 1e-10 * w0u + rs.resid);
        SBW_ASSERT_OK(sp_of(p32, &o, &r2));
        assert_memory_equal(rs.s, r2.s, rs.sketch * sizeof(double));
        assert_memory_equal(&rs.resid, &r2.resid, sizeof(double));
        o.seed += 1;
        SBW_ASSERT_OK(sp_of(p32, &o, &r3));
        assert_true(memcmp(rs.s, r3.s, rs.sketch * sizeof(double)) != 0);
        sbw_rsvd_free(&rs);
        sbw_rsvd_free(&r2);
        sbw_rsvd_free(&r3);
        free(ex);
    }
    /* a wide matrix: no co-range sketch larger than the range's */
    sbw_mat w = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&w, 20, 40));
    for (size_t i = 0; i < 800; i++)
        w.data[i] = (double)(i % 13) - 6;
    char *pw = save_tmp("spwide.npy", &w, SBW_F64);
    sbw_rsvd_opts o = sbw_rsvd_defaults(15);
    sbw_rsvd rs = {0};
    assert_int_equal(sp_of(pw, &o, &rs), SBW_EINVAL);
    assert_null(rs.s);
    free(pw);
    sbw_mat_free(&w);
    free(p32);
    sbw_mat_free(&a);
    gsl_rng_free(r);
}

/* A sketch by hand: N = M = 100, K = 4 of l = 6, an exact residual. */
static sbw_rsvd hand(double *s, size_t l, double resid)
{
    sbw_rsvd rs = {.rows = 100,
                   .cols = 100,
                   .top = 4,
                   .sketch = l,
                   .tests = SBW_RSVD_TESTS,
                   .s = s,
                   .resid = resid};
    for (size_t j = 0; j < l; j++)
        rs.fro2 += s[j] * s[j];
    return rs;
}

static const sbw_rsvd_rank *find(const sbw_rsvd_rank *ms, const char *name)
{
    for (size_t i = 0; i < SBW_RANK_NMEASURES; i++)
        if (strcmp(ms[i].name, name) == 0)
            return &ms[i];
    fail_msg("no measure %s", name);
    return NULL;
}

/* The counting ranks: exact when the K+1-th value's bound is below the
 * threshold, "at least" otherwise; eps_eff decided within K or not. */
static void test_rank_logic(void **state)
{
    (void)state;
    sbw_rsvd_rank ms[SBW_RANK_NMEASURES];
    /* rank 3 of 100, tiny residual: nr = 3 exactly */
    double s1[6] = {4, 2, 1, 1e-30, 1e-31, 1e-32};
    sbw_rsvd rs = hand(s1, 6, 1e-30);
    SBW_ASSERT_OK(sbw_rsvd_rank_measures(&rs, DBL_EPSILON, 0, ms));
    const sbw_rsvd_rank *nr = find(ms, "nr");
    assert_string_equal(nr->status, "estimated");
    SBW_ASSERT_EQ(nr->rank, 3.0);
    SBW_ASSERT_EQ(nr->lower, 3.0);
    SBW_ASSERT_EQ(nr->upper, 3.0);
    assert_string_equal(find(ms, "gap")->status, "undecided");
    assert_true(isnan(find(ms, "entropy")->rank));
    /* the stable rank: 21/16, within its bounds */
    SBW_ASSERT_NEAR(find(ms, "stable")->rank, 21.0 / 16, 1e-15);
    /* every value above the threshold: at least K */
    double s2[6] = {4, 3, 2, 1, 0.5, 0.25};
    rs = hand(s2, 6, 1e-30);
    SBW_ASSERT_OK(sbw_rsvd_rank_measures(&rs, DBL_EPSILON, 0, ms));
    nr = find(ms, "nr");
    assert_string_equal(nr->status, "at_least");
    SBW_ASSERT_EQ(nr->rank, 4.0);
    assert_true(isnan(nr->upper));
    /* a residual above the threshold (0.5 sqrt(201) 1e-9 4 = 2.8e-8)
     * makes the K+1-th value undecidable: at least 3, not exactly 3 */
    double s3[6] = {4, 2, 1, 1e-30, 1e-31, 1e-32};
    rs = hand(s3, 6, 1e-7);
    SBW_ASSERT_OK(sbw_rsvd_rank_measures(&rs, 1e-9, 0, ms));
    nr = find(ms, "nr");
    assert_string_equal(nr->status, "at_least");
    SBW_ASSERT_EQ(nr->rank, 3.0);
    /* eps_eff: with F^2 = 21 (+ the tail 0.2 beyond K), 1e-3 needs the
     * whole tail inside K: here it is not */
    double s4[6] = {4, 2, 1, 0.1, 0.01, 0.001};
    rs = hand(s4, 6, 1e-30);
    rs.fro2 += 0.2;
    SBW_ASSERT_OK(sbw_rsvd_rank_measures(&rs, DBL_EPSILON, 0, ms));
    assert_string_equal(find(ms, "eps_eff_1e-3")->status, "at_least");
    SBW_ASSERT_EQ(find(ms, "eps_eff_1e-3")->rank, 5.0);
    rs.fro2 -= 0.2;
    SBW_ASSERT_OK(sbw_rsvd_rank_measures(&rs, DBL_EPSILON, 0, ms));
    /* 1e-3 of 21.0101... = 0.021: the tail after 3 is 0.0101 -> r = 3 */
    const sbw_rsvd_rank *ee = find(ms, "eps_eff_1e-3");
    assert_string_equal(ee->status, "estimated");
    SBW_ASSERT_EQ(ee->rank, 3.0);
    /* K = min(N, M): every rule decided */
    double s5[4] = {1, 1, 1, 1};
    rs = hand(s5, 4, 0);
    rs.rows = rs.cols = 4;
    SBW_ASSERT_OK(sbw_rsvd_rank_measures(&rs, DBL_EPSILON, 0, ms));
    assert_string_equal(find(ms, "nr")->status, "estimated");
    SBW_ASSERT_EQ(find(ms, "nr")->rank, 4.0);
    assert_int_equal(sbw_rsvd_rank_measures(&rs, 0, 0, ms), SBW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decay_vs_exact),
        cmocka_unit_test(test_estimate_bounds),
        cmocka_unit_test(test_vs_twin),
        cmocka_unit_test(test_seed),
        cmocka_unit_test(test_float32_and_centring),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_single_pass),
        cmocka_unit_test(test_rank_logic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
