/* test_hidden.c -- sbw-rank --hidden-size (analysis/sbw_hidden): the
 * hidden size D of a Softmax head recovered from its log-probabilities,
 * with and without a bias, stored as float64 values rounded here to
 * float32, float16 or bfloat16 (the rounding done by this file: C casts,
 * a search over binary16's bit patterns and bit arithmetic, not the
 * module), with and without added noise: D exact, checked against the
 * truth of the construction and an SVD of the double-centred matrix done
 * here (LAPACKE); a mixture of softmaxes (full rank) and too few queries
 * decide nothing. */
#include "sbw_hidden.h"
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"
#include "sbw_safet.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Binary16 pattern u's value, exactly (sbw_safet_f16_to_f32, checked on
 * every pattern by test_safet); 0x7c00 (inf) stands for 2^16, the step
 * past the largest finite value 65504, as IEEE rounding treats it. */
static double f16_value(unsigned u)
{
    return u == 0x7c00 ? 0x1p16 : (double)sbw_safet_f16_to_f32((uint16_t)u);
}

/* x rounded to binary16 (nearest, ties to even: the even pattern) by
 * bisection over the positive patterns 0 .. 0x7c00, which increase with
 * their values; 2^16 becomes inf.  Midpoints of neighbours (12 bits) are
 * exact in double, so the comparisons are too. */
static double round_f16(double x)
{
    double ax = fabs(x);
    if (!(ax < 0x1p16))
        return isnan(x) ? x : copysign(INFINITY, x);
    unsigned lo = 0, hi = 0x7c00; /* f16_value(lo) <= ax < f16_value(hi) */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (f16_value(mid) <= ax)
            lo = mid;
        else
            hi = mid;
    }
    double half = (f16_value(lo) + f16_value(hi)) / 2;
    unsigned u = ax < half ? lo : ax > half ? hi : (lo % 2 == 0 ? lo : hi);
    return copysign(u == 0x7c00 ? INFINITY : f16_value(u), x);
}

/* x rounded to bfloat16 (nearest, ties to even) on double's bits: 8
 * significant bits kept of the 53 (bf16's subnormal range, below
 * 2^-126, through float's bits, where no test value needs one rounding). */
static double round_bf16(double x)
{
    if (fabs(x) < 0x1p-126) {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
        memcpy(&f, &u, 4);
        return f;
    }
    uint64_t u;
    memcpy(&u, &x, 8);
    u = (u + (1ULL << 44) - 1 + ((u >> 45) & 1)) & ~((1ULL << 45) - 1);
    memcpy(&x, &u, 8);
    return fabs(x) > 0x1.fep127 ? copysign(INFINITY, x) : x;
}

static double round_to(sbw_hidden_prec p, double x)
{
    switch (p) {
    case SBW_HPREC_F32:
        return (float)x;
    case SBW_HPREC_F16:
        return round_f16(x);
    case SBW_HPREC_BF16:
        return round_bf16(x);
    default:
        return x;
    }
}

/* N x M log-softmax rows of H W^T (+ b), W M x D, H N x D Gaussian (logit
 * scale 1.5), plus Gaussian noise of sd tau, rounded to p. */
static sbw_mat softmax_outputs(size_t n, size_t m, size_t d, bool bias, double tau,
                               sbw_hidden_prec p, uint64_t seed)
{
    gsl_rng *r = NULL;
    sbw_mat a = {0};
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, 0));
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    double *w = malloc(m * d * sizeof *w), *h = malloc(n * d * sizeof *h),
           *b = malloc(m * sizeof *b);
    assert_non_null(w);
    assert_non_null(h);
    assert_non_null(b);
    for (size_t i = 0; i < m * d; i++)
        w[i] = gsl_ran_gaussian(r, 1.5 / sqrt((double)d));
    for (size_t i = 0; i < n * d; i++)
        h[i] = gsl_ran_gaussian(r, 1.0);
    for (size_t j = 0; j < m; j++)
        b[j] = bias ? gsl_ran_gaussian(r, 2.0) : 0;
    for (size_t i = 0; i < n; i++) {
        double *row = a.data + i * m, mx = -INFINITY, z = 0;
        for (size_t j = 0; j < m; j++) {
            row[j] = b[j];
            for (size_t k = 0; k < d; k++)
                row[j] += h[i * d + k] * w[j * d + k];
            mx = fmax(mx, row[j]);
        }
        for (size_t j = 0; j < m; j++)
            z += exp(row[j] - mx);
        for (size_t j = 0; j < m; j++)
            row[j] = round_to(p, row[j] - mx - log(z) + (tau > 0 ? gsl_ran_gaussian(r, tau) : 0));
    }
    free(w);
    free(h);
    free(b);
    gsl_rng_free(r);
    return a;
}

/* Log-probabilities of a K-component mixture of softmaxes (each its own
 * rank-d logits): full rank. */
static sbw_mat mos_outputs(size_t n, size_t m, size_t d, size_t kc, uint64_t seed)
{
    sbw_mat a = softmax_outputs(n, m, d, false, 0, SBW_HPREC_F64, seed);
    for (size_t c = 1; c < kc; c++) {
        sbw_mat o = softmax_outputs(n, m, d, true, 0, SBW_HPREC_F64, seed + 100 * c);
        for (size_t i = 0; i < n * m; i++) {
            double x = a.data[i], y = o.data[i], hi = fmax(x, y);
            a.data[i] = hi + log(exp(x - hi) + exp(y - hi)); /* equal weights, normalised below */
        }
        sbw_mat_free(&o);
    }
    for (size_t i = 0; i < n * m; i++)
        a.data[i] -= log((double)kc);
    return a;
}

/* The hidden size through the tool's path: the file written (float64),
 * read once with the scan as the hook, the variant's spectrum, then
 * sbw_hidden_of at the observed precision (or p when given). */
static sbw_hidden hidden_of(const sbw_mat *a, sbw_reduce_variant v, int p, double *s_out)
{
    const char *path = sbw_test_path("hidden.npy");
    sbw_npy_reader *r = NULL;
    sbw_spectra sp;
    sbw_hidden_scan sc;
    sbw_hidden h;
    sbw_hidden_scan_init(&sc);
    sbw_reduce_opts o = {.hook = sbw_hidden_scan_hook, .hook_ctx = &sc};
    SBW_ASSERT_OK(sbw_npy_save(path, a, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    SBW_ASSERT_OK(sbw_spectra_compute(r, &o, 1u << v, &sp));
    sbw_hidden_prec prec = p < 0 ? sbw_hidden_scan_observed(&sc) : (sbw_hidden_prec)p;
    SBW_ASSERT_OK(sbw_hidden_of(&sp, v, &sc, prec, &h));
    sbw_hidden_scan_free(&sc);
    if (s_out)
        memcpy(s_out, sp.s[v], sp.k * sizeof *s_out);
    sbw_spectra_free(&sp);
    sbw_npy_close(r);
    return h;
}

/* The singular values of (I - 11^T/N) A (I - 11^T/M), computed here. */
static void centred_svd(const sbw_mat *a, double *s)
{
    size_t n = a->rows, m = a->cols;
    double *c = malloc(n * m * sizeof *c), *cm = calloc(m, sizeof *cm);
    assert_non_null(c);
    assert_non_null(cm);
    for (size_t i = 0; i < n; i++) {
        double mu = 0;
        for (size_t j = 0; j < m; j++)
            mu += a->data[i * m + j];
        mu /= (double)m;
        for (size_t j = 0; j < m; j++)
            c[i * m + j] = a->data[i * m + j] - mu;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            cm[j] += c[i * m + j] / (double)n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            c[i * m + j] -= cm[j];
    /* row-major N x M read as its column-major M x N transpose */
    assert_int_equal(LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', (lapack_int)m, (lapack_int)n, c,
                                    (lapack_int)m, s, NULL, 1, NULL, 1),
                     0);
    free(c);
    free(cm);
}

/* The rounding helpers above and the module's precision test agree: a
 * rounded value is held, its float64 neighbour is not. */
static void test_precision_holds(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 5, 0));
    for (int p = SBW_HPREC_F32; p < SBW_HPREC_N; p++)
        for (int i = 0; i < 2000; i++) {
            double x = round_to((sbw_hidden_prec)p, -20 * gsl_rng_uniform(r));
            assert_true(sbw_hidden_prec_holds((sbw_hidden_prec)p, x));
            if (x != 0)
                assert_false(sbw_hidden_prec_holds((sbw_hidden_prec)p, nextafter(x, 0)));
        }
    assert_true(sbw_hidden_prec_holds(SBW_HPREC_F16, 0x1p-24));      /* smallest subnormal */
    assert_false(sbw_hidden_prec_holds(SBW_HPREC_F16, 0x1p-25));     /* below it */
    assert_false(sbw_hidden_prec_holds(SBW_HPREC_F16, 65520.0));     /* rounds to inf */
    assert_true(sbw_hidden_prec_holds(SBW_HPREC_BF16, -0x1.fep127)); /* its largest */
    assert_false(sbw_hidden_prec_holds(SBW_HPREC_BF16, 1 + 0x1p-8)); /* 9 bits */
    assert_true(sbw_hidden_prec_holds(SBW_HPREC_F16, 1 + 0x1p-10));  /* 11 bits */
    assert_false(sbw_hidden_prec_holds(SBW_HPREC_F16, 1 + 0x1p-11));
    gsl_rng_free(r);
}

/* sbw-rank --round's rounding equals the casts and bit arithmetic here,
 * on values of every magnitude, ties, subnormals and overflow. */
static void test_round(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 6, 0));
    for (int p = SBW_HPREC_F32; p < SBW_HPREC_N; p++) {
        for (int i = 0; i < 20000; i++) {
            double x = (gsl_rng_uniform(r) - 0.5) * pow(2.0, 60 * gsl_rng_uniform(r) - 40);
            double want = round_to((sbw_hidden_prec)p, x);
            if (sbw_hidden_round((sbw_hidden_prec)p, x) != want)
                print_error("%s: %a -> %a, want %a\n", sbw_hidden_prec_name((sbw_hidden_prec)p), x,
                            sbw_hidden_round((sbw_hidden_prec)p, x), want);
            assert_true(sbw_hidden_round((sbw_hidden_prec)p, x) == want);
        }
        const double edge[] = {1 + 0x1p-8, 1 + 0x1p-11, 1 + 3 * 0x1p-12, 65519.0, 65520.0,
                               0x1.8p-25,  0x1p-150,    -0x1.fep127,     3e38,    1e300};
        for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
            assert_true(sbw_hidden_round((sbw_hidden_prec)p, edge[i]) ==
                        round_to((sbw_hidden_prec)p, edge[i]));
    }
    gsl_rng_free(r);
}

#ifdef __FLT16_MANT_DIG__
/* x rounded by the compiler's conversion to _Float16 (GCC has one on
 * x86-64 and AArch64; clang 14 on x86-64 has not, hence round_f16). */
static double cast_f16(double x)
{
    __extension__ _Float16 h = (_Float16)x; /* a GCC/Clang extension */
    return (double)h;
}

/* round_f16 equals the compiler's conversion: on values of every
 * magnitude, and on the midpoints of neighbouring patterns (ties) and the
 * doubles either side of them, subnormals and overflow included. */
static void test_round_f16_twin(void **state)
{
    (void)state;
    gsl_rng *r = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&r, 7, 0));
    for (int i = 0; i < 200000; i++) {
        double x = (gsl_rng_uniform(r) - 0.5) * pow(2.0, 50 * gsl_rng_uniform(r) - 30);
        if (i % 2) {
            unsigned u = (unsigned)gsl_rng_uniform_int(r, 0x7c00);
            x = (f16_value(u) + f16_value(u + 1)) / 2;
            x = i % 3 == 0 ? x : nextafter(x, i % 3 == 1 ? 0 : INFINITY);
            x = i % 4 == 1 ? -x : x;
        }
        if (round_f16(x) != cast_f16(x))
            print_error("%a -> %a, _Float16 %a\n", x, round_f16(x), cast_f16(x));
        assert_true(round_f16(x) == cast_f16(x));
    }
    const double edge[] = {0,     -0.0,     0x1p-25, 0x1.8p-25, 0x1p-24, 0x1.8p-24,
                           65504, 65519.99, 65520,   -1e5,      1e300};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        assert_true(round_f16(edge[i]) == cast_f16(edge[i]));
        assert_true(!signbit(round_f16(edge[i])) == !signbit(cast_f16(edge[i])));
    }
    gsl_rng_free(r);
}
#endif

/* Closed-form spectra: the largest gap, the margin rule and the floor. */
static void test_estimate_closed_form(void **state)
{
    (void)state;
    const double s[] = {10, 9, 8, 7, 1e-3, 9e-4, 8e-4, 0};
    sbw_hidden h;
    SBW_ASSERT_OK(sbw_hidden_estimate(s, 8, 7, 1e-2, 0, &h));
    assert_int_equal(h.hidden, 4);
    assert_int_equal(h.hidden_min, 4);
    assert_int_equal(h.status, SBW_HIDDEN_CERTIFIED);
    SBW_ASSERT_NEAR(h.gap_log10, log10(7e3), 1e-12);
    SBW_ASSERT_NEAR(h.next_log10, log10(8.0 / 7), 1e-12);
    /* the same drop with the floor below the tail: decided, not certified */
    SBW_ASSERT_OK(sbw_hidden_estimate(s, 8, 7, 1e-5, 0, &h));
    assert_int_equal(h.status, SBW_HIDDEN_CLEAR);
    assert_int_equal(h.hidden_min, 7);
    /* a second gap a third as large fails the margin */
    const double t[] = {10, 1, 0.9, 1e-2, 9e-3, 8e-3};
    SBW_ASSERT_OK(sbw_hidden_estimate(t, 6, 6, 0, 0, &h));
    assert_int_equal(h.hidden, 3);
    assert_int_equal(h.status, SBW_HIDDEN_TOO_FEW);
    SBW_ASSERT_OK(sbw_hidden_estimate(t, 6, 6, 5e-2, 0, &h));
    assert_int_equal(h.status, SBW_HIDDEN_NO_DROP);
    /* a drop with one value past it and the tail above the floor: a gap
     * among signal values could look like this (N <= D + 1): undecided */
    const double one[] = {10, 9, 8, 7, 1e-2};
    SBW_ASSERT_OK(sbw_hidden_estimate(one, 5, 5, 1e-5, 0, &h));
    assert_int_equal(h.hidden, 4);
    assert_int_equal(h.status, SBW_HIDDEN_TOO_FEW);
    SBW_ASSERT_OK(sbw_hidden_estimate(one, 5, 5, 0.1, 0, &h)); /* within the floor: certified */
    assert_int_equal(h.status, SBW_HIDDEN_CERTIFIED);
    /* no gap passes the margin (a second gap inside the signal), but the
     * typical floor cuts at the largest: probable */
    const double sig[] = {30, 10, 9, 8, 0.5, 0.45, 0.4, 0.35};
    SBW_ASSERT_OK(sbw_hidden_estimate(sig, 8, 8, 1e3, 0, &h));
    assert_int_equal(h.hidden, 4);
    assert_int_equal(h.status, SBW_HIDDEN_NO_DROP);
    SBW_ASSERT_OK(sbw_hidden_estimate(sig, 8, 8, 1e3, 2.0, &h));
    assert_int_equal(h.status, SBW_HIDDEN_PROBABLE);
    SBW_ASSERT_OK(sbw_hidden_estimate(sig, 8, 8, 1e3, 5.0, &h)); /* 8 < 2 x 5 */
    assert_int_equal(h.status, SBW_HIDDEN_NO_DROP);
    SBW_ASSERT_OK(sbw_hidden_estimate(sig, 8, 5, 1e3, 2.0, &h)); /* one value past it */
    assert_int_equal(h.status, SBW_HIDDEN_NO_DROP);
    const double bad[] = {1, 2, 3};
    assert_int_equal(sbw_hidden_estimate(bad, 3, 3, 0, 0, &h), SBW_EINVAL);
    assert_int_equal(sbw_hidden_estimate(s, 8, 9, 0, 0, &h), SBW_EINVAL);
}

/* Softmax heads of D = 3, 10, 24, with and without a bias, at every
 * precision, with and without noise: D exact; certified without noise. */
static void test_softmax_recovered(void **state)
{
    (void)state;
    const size_t n = 90, m = 140, ds[] = {3, 10, 24};
    double *s = malloc(n * sizeof *s), *s_ref = malloc(n * sizeof *s_ref);
    assert_non_null(s);
    assert_non_null(s_ref);
    uint64_t seed = 1;
    for (size_t di = 0; di < 3; di++)
        for (int bias = 0; bias < 2; bias++)
            for (int p = 0; p < SBW_HPREC_N; p++)
                for (int noisy = 0; noisy < 2; noisy++) {
                    double tau = noisy ? 1e-4 : 0;
                    sbw_mat a =
                        softmax_outputs(n, m, ds[di], bias, tau, (sbw_hidden_prec)p, seed++);
                    sbw_hidden h = hidden_of(&a, SBW_VAR_BOTH, -1, s);
                    centred_svd(&a, s_ref);
                    /* the module's spectrum is the one computed here */
                    SBW_ASSERT_CLOSE(s, s_ref, ds[di] + 1, 1e-9 * s_ref[0], 0);
                    if (h.hidden != ds[di] || (!noisy && h.status != SBW_HIDDEN_CERTIFIED) ||
                        (noisy && h.status > SBW_HIDDEN_PROBABLE))
                        print_error("D %zu bias %d %s noise %g: got %zu (%s), gap %g next %g "
                                    "floor %g s_D %g s_D+1 %g\n",
                                    ds[di], bias, sbw_hidden_prec_name((sbw_hidden_prec)p), tau,
                                    h.hidden, sbw_hidden_status_name(h.status), h.gap_log10,
                                    h.next_log10, h.floor, s_ref[ds[di] - 1], s_ref[ds[di]]);
                    assert_int_equal(h.hidden, ds[di]);
                    assert_int_equal(h.prec, p); /* observed from the stored values */
                    if (!noisy)
                        assert_int_equal(h.status, SBW_HIDDEN_CERTIFIED);
                    else
                        assert_true(h.status <= SBW_HIDDEN_PROBABLE);
                    /* the proven lower bound never exceeds the truth */
                    assert_true(h.hidden_min <= ds[di] || noisy);
                    sbw_mat_free(&a);
                }
    free(s);
    free(s_ref);
}

/* The typical floor holds the actual rounding errors' spectral norm
 * (computed here: E = round(A) - A, LAPACK) and is within a factor 4 of
 * it, for log-softmax outputs rounded to f16 and bf16. */
static void test_typical_floor(void **state)
{
    (void)state;
    for (int p = SBW_HPREC_F16; p < SBW_HPREC_N; p++)
        for (uint64_t seed = 0; seed < 3; seed++) {
            size_t n = 70 + 40 * seed, m = 150;
            sbw_mat a = softmax_outputs(n, m, 8, true, 0, SBW_HPREC_F64, 300 + seed);
            double *e = malloc(n * m * sizeof *e), *sv = malloc(m * sizeof *sv);
            assert_non_null(e);
            assert_non_null(sv);
            sbw_hidden_scan sc;
            sbw_hidden_scan_init(&sc);
            for (size_t i = 0; i < n * m; i++) {
                double r = round_to((sbw_hidden_prec)p, a.data[i]);
                e[i] = r - a.data[i];
                a.data[i] = r;
            }
            SBW_ASSERT_OK(sbw_hidden_scan_hook(&sc, a.data, 0, n, m));
            double ty = sbw_hidden_typical(&sc, (sbw_hidden_prec)p, n, m);
            assert_int_equal(LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', (lapack_int)m, (lapack_int)n, e,
                                            (lapack_int)m, sv, NULL, 1, NULL, 1),
                             0);
            print_message("%s n %zu: ||E|| %g, typical %g\n",
                          sbw_hidden_prec_name((sbw_hidden_prec)p), n, sv[0], ty);
            assert_true(sv[0] <= ty);
            assert_true(ty <= 4 * sv[0]);
            sbw_hidden_scan_free(&sc);
            free(e);
            free(sv);
            sbw_mat_free(&a);
        }
}

/* Row-centring only: D + 1 for a biased head, D without (the help's
 * statement about --center). */
static void test_row_centred(void **state)
{
    (void)state;
    for (int bias = 0; bias < 2; bias++) {
        sbw_mat a = softmax_outputs(60, 100, 7, bias, 0, SBW_HPREC_F32, 77 + (uint64_t)bias);
        sbw_hidden h = hidden_of(&a, SBW_VAR_ROWS, -1, NULL);
        assert_int_equal(h.hidden, 7 + (size_t)bias);
        sbw_mat_free(&a);
    }
}

/* A mixture of softmaxes is full rank: no drop; too few queries for a
 * head of D = 40 from N = 30: nothing decided. */
static void test_undecided(void **state)
{
    (void)state;
    for (int p = 0; p < SBW_HPREC_N; p++) {
        sbw_mat a = mos_outputs(90, 140, 6, 3, 500);
        for (size_t i = 0; i < a.rows * a.cols; i++)
            a.data[i] = round_to((sbw_hidden_prec)p, a.data[i]);
        sbw_hidden h = hidden_of(&a, SBW_VAR_BOTH, -1, NULL);
        if (h.status <= SBW_HIDDEN_PROBABLE)
            print_error("MoS %s: decided %zu (gap %g, next %g)\n",
                        sbw_hidden_prec_name((sbw_hidden_prec)p), h.hidden, h.gap_log10,
                        h.next_log10);
        assert_true(h.status > SBW_HIDDEN_PROBABLE);
        sbw_mat_free(&a);
    }
    sbw_mat a = softmax_outputs(30, 100, 40, true, 0, SBW_HPREC_F32, 900);
    sbw_hidden h = hidden_of(&a, SBW_VAR_BOTH, -1, NULL);
    assert_int_equal(h.status, SBW_HIDDEN_TOO_FEW);
    sbw_mat_free(&a);
}

/* A declared precision coarser than the data's: the floor grows with u;
 * float32 outputs declared bf16 still give D (the gap is the same). */
static void test_declared(void **state)
{
    (void)state;
    sbw_mat a = softmax_outputs(80, 120, 9, true, 0, SBW_HPREC_F32, 31);
    sbw_hidden h32 = hidden_of(&a, SBW_VAR_BOTH, -1, NULL);
    sbw_hidden hb = hidden_of(&a, SBW_VAR_BOTH, SBW_HPREC_BF16, NULL);
    assert_int_equal(h32.prec, SBW_HPREC_F32);
    assert_int_equal(hb.prec, SBW_HPREC_BF16);
    assert_true(hb.floor > 1000 * h32.floor);
    assert_int_equal(h32.hidden, 9);
    assert_int_equal(hb.hidden, 9);
    sbw_mat_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round),
#ifdef __FLT16_MANT_DIG__
        cmocka_unit_test(test_round_f16_twin),
#endif
        cmocka_unit_test(test_typical_floor),
        cmocka_unit_test(test_precision_holds),
        cmocka_unit_test(test_estimate_closed_form),
        cmocka_unit_test(test_softmax_recovered),
        cmocka_unit_test(test_row_centred),
        cmocka_unit_test(test_undecided),
        cmocka_unit_test(test_declared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
