/* test_kl.c -- expected pairwise KL (analysis/sbw_kl*.c): the one-pass
 * closed form against the O(T^2 M) brute force, the kernels against their
 * naive twins, the sampled estimator's interval coverage, the KL matrix,
 * identities (KL(P||P) = 0, KL >= 0 up to roundoff) and every error path. */
#include "sbw_test.h"

#include "logp_rand.h"
#include "sbw_error.h"
#include "sbw_kl.h"
#include "sbw_kl_kern.h"
#include "sbw_kl_matrix.h"
#include "sbw_kl_pairs.h"
#include "sbw_logp.h"
#include "sbw_npy.h"
#include "sbw_num.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double alphas[] = {0.001, 0.01, 0.1, 1.0, 10.0, 100.0};
#define NALPHA (sizeof alphas / sizeof *alphas)

/* Odd (and one even) shapes, one wider than a 512-column tile. */
static const size_t shapes[][2] = {{2, 3}, {3, 5}, {7, 17}, {31, 53}, {13, 601}, {40, 9}};
#define NSHAPE (sizeof shapes / sizeof *shapes)

static sbw_mat make_logp(size_t t, size_t m, double alpha, uint64_t seed)
{
    sbw_mat l = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&l, t, m));
    rand_logp_dirichlet(&l, alpha, seed);
    return l;
}

static void assert_exact_close(const sbw_kl_exact *got, const sbw_kl_exact *want, double rtol)
{
    assert_int_equal(got->rows, want->rows);
    assert_int_equal(got->cols, want->cols);
    SBW_ASSERT_CLOSE(&got->expected_kl, &want->expected_kl, 1, 1e-300, rtol);
    SBW_ASSERT_CLOSE(&got->mean_entropy, &want->mean_entropy, 1, 1e-300, rtol);
    SBW_ASSERT_CLOSE(&got->entropy_of_mean, &want->entropy_of_mean, 1, 1e-300, rtol);
}

/* ---- kernels against their naive twins ----------------------------------- */

static const double group_alphas[] = {0.3, 0.001, 1e4, 1e8}; /* 1e8: near-identical rows */
#define NGALPHA (sizeof group_alphas / sizeof *group_alphas)

static void test_kern_group_matches_naive(void **state)
{
    (void)state;
    const size_t gs[] = {1, 2, 3, 7, 32, 64}, ns[] = {1, 3, 13, 37, 512};
    for (size_t a = 0; a < 6; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t k = 0; k < NGALPHA; k++) {
                size_t g = gs[a], n = ns[b], ld = n + 3, len = 4 * n + 2 * g;
                sbw_mat l = make_logp(g, ld, group_alphas[k], 100 + a * 20 + b * 4 + k);
                double *f = calloc(2 * len, sizeof *f), *v = f + len;
                assert_false(sbw_kl_kern_group(l.data, g, n, ld, f, f + n, f + 2 * n, f + 3 * n,
                                               f + 4 * n, f + 4 * n + g));
                sbw_kl_ref_group(l.data, g, n, ld, v, v + n, v + 2 * n, v + 3 * n, v + 4 * n,
                                   v + 4 * n + g);
                double mag = max_abs_entry(&l);
                /* p, column sums of p, row sums of p: relative, plus what
                 * flushing results under DBL_MIN to 0 may lose; log sums and
                 * p log p sums scale with |log p|; co-moments with p |log p|
                 * (their relative error: the next test). */
                SBW_ASSERT_CLOSE(f, v, n, 1e-300, 4 * DBL_EPSILON);
                SBW_ASSERT_CLOSE(f + n, v + n, n, 1e-300, 8 * g * DBL_EPSILON);
                SBW_ASSERT_CLOSE(f + 2 * n, v + 2 * n, n, 8 * g * mag * DBL_EPSILON, 0);
                SBW_ASSERT_CLOSE(f + 3 * n, v + 3 * n, n, 16 * g * mag * DBL_EPSILON, 0);
                SBW_ASSERT_CLOSE(f + 4 * n, v + 4 * n, g, 8 * n * DBL_EPSILON, 0);
                SBW_ASSERT_CLOSE(f + 4 * n + g, v + 4 * n + g, g, n * DBL_MIN, 8 * n * DBL_EPSILON);
                free(f);
                sbw_mat_free(&l);
            }
}

/* The shifted one-pass co-moment against a two-pass one in long double on
 * the same p values (the kernel's own exp), relative to the co-moment:
 * within 2 g (g + 1) eps, the bound sbw_kl_kern.c derives -- including
 * near-identical rows, where the co-moment is tiny beside p |log p|. */
static void test_kern_group_comoment_error_bound(void **state)
{
    (void)state;
    const size_t gs[] = {2, 3, 7, 32, 64}, ns[] = {13, 512};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 2; b++)
            for (size_t k = 0; k < NGALPHA; k++) {
                size_t g = gs[a], n = ns[b];
                sbw_mat l = make_logp(g, n, group_alphas[k], 300 + a * 8 + b * 4 + k);
                double *p = malloc((g * n + 4 * n + 2 * g) * sizeof *p), *f = p + g * n, pl;
                for (size_t r = 0; r < g; r++)
                    sbw_kl_kern_exp(l.data + r * n, p + r * n, n, &pl);
                memset(f + 4 * n, 0, 2 * g * sizeof *f);
                assert_false(sbw_kl_kern_group(l.data, g, n, n, f, f + n, f + 2 * n, f + 3 * n,
                                               f + 4 * n, f + 4 * n + g));
                for (size_t x = 0; x < n; x++) {
                    long double mp = 0, ml = 0, cm = 0;
                    for (size_t r = 0; r < g; r++) {
                        mp += p[r * n + x];
                        ml += l.data[r * n + x];
                    }
                    mp /= (long double)g;
                    ml /= (long double)g;
                    for (size_t r = 0; r < g; r++)
                        cm += (p[r * n + x] - mp) * (l.data[r * n + x] - ml);
                    double want = (double)cm;
                    SBW_ASSERT_CLOSE(&f[3 * n + x], &want, 1, 1e-300,
                                     2.0 * (double)(g * (g + 1)) * DBL_EPSILON);
                }
                free(p);
                sbw_mat_free(&l);
            }
}

/* A NaN or an infinity anywhere -- every row of the group (the first, the
 * pairs' either side, the odd last), first, middle and last column -- is
 * reported; a finite group is not. */
static void test_kern_group_flags_nonfinite(void **state)
{
    (void)state;
    const size_t gs[] = {1, 2, 3, 4, 7}, n = 37;
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t a = 0; a < 5; a++) {
        size_t g = gs[a], cols[] = {0, n / 2, n - 1};
        sbw_mat l = make_logp(g, n, 0.3, 500 + a);
        double *f = malloc((4 * n + 2 * g) * sizeof *f);
        for (size_t r = 0; r < g; r++)
            for (size_t c = 0; c < 3; c++)
                for (size_t v = 0; v < 3; v++) {
                    double keep = l.data[r * n + cols[c]];
                    l.data[r * n + cols[c]] = bad[v];
                    assert_true(sbw_kl_kern_group(l.data, g, n, n, f, f + n, f + 2 * n, f + 3 * n,
                                                  f + 4 * n, f + 4 * n + g));
                    l.data[r * n + cols[c]] = keep;
                }
        assert_false(sbw_kl_kern_group(l.data, g, n, n, f, f + n, f + 2 * n, f + 3 * n, f + 4 * n,
                                       f + 4 * n + g));
        free(f);
        sbw_mat_free(&l);
    }
}

static void test_kern_exp_pair_match_naive(void **state)
{
    (void)state;
    const size_t ns[] = {1, 2, 7, 63, 1001};
    for (size_t i = 0; i < 5; i++) {
        size_t n = ns[i];
        sbw_mat l = make_logp(2, n, 0.05, 7 + i);
        double *p = malloc(2 * n * sizeof *p), pl_f, pl_n;
        double sf = sbw_kl_kern_exp(l.data, p, n, &pl_f);
        double sn = sbw_kl_ref_exp(l.data, p + n, n, &pl_n);
        SBW_ASSERT_CLOSE(p, p + n, n, 1e-300, 4 * DBL_EPSILON);
        SBW_ASSERT_NEAR(sf, sn, 4 * n * DBL_EPSILON);
        SBW_ASSERT_NEAR(pl_f, pl_n, 4 * n * max_abs_entry(&l) * DBL_EPSILON);
        double kf = sbw_kl_kern_pair(p, l.data, l.data + n, n);
        double kn = sbw_kl_ref_pair(p, l.data, l.data + n, n);
        SBW_ASSERT_NEAR(kf, kn, 4 * n * 2 * max_abs_entry(&l) * DBL_EPSILON);
        SBW_ASSERT_NEAR(kf, sbw_num_kl(l.data, l.data + n, n),
                        8 * n * 2 * max_abs_entry(&l) * DBL_EPSILON);
        free(p);
        sbw_mat_free(&l);
    }
    /* the vectorised inline exp over the whole range a log-probability can
     * take, into and past the subnormals (flushed to 0 below DBL_MIN) */
    enum { NWIDE = 4099 };
    double *l = malloc(2 * NWIDE * sizeof *l), *p = l + NWIDE, pl;
    for (size_t i = 0; i < NWIDE; i++)
        l[i] = -760.0 * (double)i / (NWIDE - 1);
    sbw_kl_kern_exp(l, p, NWIDE, &pl);
    for (size_t i = 0; i < NWIDE; i++)
        l[i] = exp(l[i]);
    SBW_ASSERT_CLOSE(p, l, NWIDE, DBL_MIN, 4 * DBL_EPSILON);
    free(l);
}

/* ---- the closed form against the brute force ------------------------------ */

/* The spread by brute force: mean_i KL(p_i || pbar), pbar the mean row
 * (it equals H(pbar) - mean_i H(p_i): sum_i KL(p_i || pbar) = sum_i sum_x
 * p_i log p_i - T sum_x pbar log pbar).  *scale := the largest row sum of
 * |p_ix| (|log p_ix| + |log pbar_x|), the magnitude its terms and the
 * library's entropies are summed at. */
static double brute_spread(const sbw_mat *l, double *scale)
{
    size_t t = l->rows, m = l->cols;
    double *pbar = calloc(m, sizeof *pbar), acc = 0;
    for (size_t i = 0; i < t; i++)
        for (size_t x = 0; x < m; x++)
            pbar[x] += exp(SBW_MAT_AT(l, i, x)) / (double)t;
    *scale = 0;
    for (size_t i = 0; i < t; i++) {
        double kl = 0, mag = 0;
        for (size_t x = 0; x < m; x++) {
            double p = exp(SBW_MAT_AT(l, i, x));
            if (p == 0) /* the limit p log p -> 0 */
                continue;
            kl += p * (SBW_MAT_AT(l, i, x) - log(pbar[x]));
            mag += p * (fabs(SBW_MAT_AT(l, i, x)) + fabs(log(pbar[x])));
        }
        acc += kl;
        *scale = fmax(*scale, mag);
    }
    free(pbar);
    return acc / (double)t;
}

static void test_exact_matches_brute_force(void **state)
{
    (void)state;
    const size_t groups[] = {0, 1, 3};
    for (size_t s = 0; s < NSHAPE; s++)
        for (size_t a = 0; a < NALPHA; a++) {
            sbw_mat l = make_logp(shapes[s][0], shapes[s][1], alphas[a], 1000 + 10 * s + a);
            sbw_kl_exact want, got;
            SBW_ASSERT_OK(sbw_kl_ref_exact(&l, &want));
            double scale, spread = brute_spread(&l, &scale);
            /* sums of m terms (and pbar of t) at that magnitude */
            double stol = 8.0 * (double)(shapes[s][0] + shapes[s][1]) * DBL_EPSILON * (scale + 1);
            for (size_t g = 0; g < 3; g++) {
                sbw_kl_opts o = {.group = groups[g]};
                SBW_ASSERT_OK(sbw_kl_exact_mat(&l, &o, &got));
                assert_exact_close(&got, &want, 1e-12);
                SBW_ASSERT_NEAR(got.js_spread, spread, stol);
            }
            sbw_mat_free(&l);
        }
}

/* Nearly uniform rows (alpha up to 1e7, E ~ 1e-7): the bracket of the
 * closed form is a difference of two sums that agree to 7-9 digits, where
 * evaluating it as written loses them (1e-10 .. 1e-7 relative); the
 * co-moment form keeps 1e-12. */
static void test_exact_near_uniform(void **state)
{
    (void)state;
    const double big[] = {1e3, 1e5, 1e7};
    const size_t sz[][2] = {{31, 53}, {61, 257}};
    for (size_t s = 0; s < 2; s++)
        for (size_t a = 0; a < 3; a++) {
            sbw_mat l = make_logp(sz[s][0], sz[s][1], big[a], 70 + 3 * s + a);
            sbw_kl_exact want, got;
            SBW_ASSERT_OK(sbw_kl_ref_exact(&l, &want));
            sbw_kl_opts o = {.group = 5};
            SBW_ASSERT_OK(sbw_kl_exact_mat(&l, &o, &got));
            assert_exact_close(&got, &want, 1e-12);
            sbw_mat_free(&l);
        }
}

/* The brute force itself, on a case with a known answer: two rows
 * p = (1/2, 1/2), q = (1/4, 3/4): E = (KL(p||q) + KL(q||p)) / 2. */
static void test_exact_hand_case(void **state)
{
    (void)state;
    double d[] = {log(0.5), log(0.5), log(0.25), log(0.75)};
    sbw_mat l = sbw_mat_view(d, 2, 2, 2);
    double kpq = 0.5 * log(0.5 / 0.25) + 0.5 * log(0.5 / 0.75);
    double kqp = 0.25 * log(0.25 / 0.5) + 0.75 * log(0.75 / 0.5);
    double hp = log(2.0), hq = -(0.25 * log(0.25) + 0.75 * log(0.75));
    double hm = -(0.375 * log(0.375) + 0.625 * log(0.625));
    sbw_kl_exact e, n;
    SBW_ASSERT_OK(sbw_kl_exact_mat(&l, NULL, &e));
    SBW_ASSERT_OK(sbw_kl_ref_exact(&l, &n));
    SBW_ASSERT_NEAR(e.expected_kl, (kpq + kqp) / 2, 4 * DBL_EPSILON);
    SBW_ASSERT_NEAR(n.expected_kl, (kpq + kqp) / 2, 4 * DBL_EPSILON);
    SBW_ASSERT_NEAR(e.mean_entropy, (hp + hq) / 2, 4 * DBL_EPSILON);
    SBW_ASSERT_NEAR(e.entropy_of_mean, hm, 4 * DBL_EPSILON);
}

/* Merging accumulators in any split equals adding all rows to one. */
static void test_acc_merge_splits(void **state)
{
    (void)state;
    sbw_mat l = make_logp(29, 23, 0.2, 77);
    sbw_kl_exact want, got;
    SBW_ASSERT_OK(sbw_kl_ref_exact(&l, &want));
    const size_t cuts[] = {1, 2, 5, 14, 28};
    for (size_t c = 0; c < 5; c++) {
        sbw_kl_acc *a, *b;
        SBW_ASSERT_OK(sbw_kl_acc_alloc(&a, l.cols, 4));
        SBW_ASSERT_OK(sbw_kl_acc_alloc(&b, l.cols, 4));
        SBW_ASSERT_OK(sbw_kl_acc_add(a, l.data, cuts[c], l.ld, NULL));
        SBW_ASSERT_OK(sbw_kl_acc_add(b, l.data + cuts[c] * l.ld, l.rows - cuts[c], l.ld, NULL));
        SBW_ASSERT_OK(sbw_kl_acc_merge(a, b));
        SBW_ASSERT_OK(sbw_kl_acc_result(a, &got));
        assert_exact_close(&got, &want, 1e-12);
        assert_int_equal(sbw_kl_acc_result(b, &got), SBW_ESHAPE); /* b was reset */
        sbw_kl_acc_free(a);
        sbw_kl_acc_free(b);
    }
    sbw_mat_free(&l);
}

/* A large T in many small groups: the compensated merges keep the
 * closed form at the brute force's accuracy. */
static void test_exact_many_merges(void **state)
{
    (void)state;
    sbw_mat l = make_logp(300, 11, 0.5, 5);
    sbw_kl_exact want, got;
    SBW_ASSERT_OK(sbw_kl_ref_exact(&l, &want));
    sbw_kl_opts o = {.group = 1};
    SBW_ASSERT_OK(sbw_kl_exact_mat(&l, &o, &got));
    assert_exact_close(&got, &want, 1e-12);
    sbw_mat_free(&l);
}

/* A long stream of two alternating, close distributions p, q (T = 2n):
 * E = n (KL(p||q) + KL(q||p)) / (2 (2n - 1)) exactly, here computed in long
 * double from the same stored log-probabilities.  With 50,000 groups
 * merged, the compensated sums keep E within 3e-14 relative (measured
 * ~1e-14); without the compensation the merges drift to ~8e-14. */
static void test_exact_long_stream_compensated(void **state)
{
    (void)state;
    enum { N = 100000, T = 2 * N };
    const double lp[3] = {log(0.2), log(0.3), log(0.5)};
    const double lq[3] = {log(0.201), log(0.297), log(0.502)};
    sbw_mat l;
    SBW_ASSERT_OK(sbw_mat_alloc(&l, T, 3));
    for (size_t i = 0; i < T; i++)
        memcpy(l.data + i * 3, i % 2 ? lq : lp, sizeof lp);
    long double kpq = 0, kqp = 0;
    for (int j = 0; j < 3; j++) {
        long double a = lp[j], b = lq[j];
        kpq += expl(a) * (a - b);
        kqp += expl(b) * (b - a);
    }
    double want = (double)((long double)N * (kpq + kqp) / (2.0L * (2.0L * N - 1)));
    sbw_kl_opts o = {.group = 4};
    sbw_kl_exact e;
    SBW_ASSERT_OK(sbw_kl_exact_mat(&l, &o, &e));
    SBW_ASSERT_CLOSE(&e.expected_kl, &want, 1, 0, 3e-14);
    sbw_mat_free(&l);
}

/* ---- files, selections, threads ------------------------------------------ */

static sbw_logp_reader *open_saved(const sbw_mat *l, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path(name));
    SBW_ASSERT_OK(sbw_npy_save(path, l, SBW_F64));
    sbw_logp_opts o = {.tol = 1e-9};
    sbw_logp_reader *r;
    SBW_ASSERT_OK(sbw_logp_open(&r, path, &o));
    return r;
}

static void test_exact_file_threads_and_chunks(void **state)
{
    (void)state;
    sbw_mat l = make_logp(57, 19, 0.3, 9);
    sbw_logp_reader *r = open_saved(&l, "kl57.npy");
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, l.rows);
    sbw_kl_exact want, got, first;
    SBW_ASSERT_OK(sbw_kl_ref_exact(&l, &want));
    const size_t chunks[] = {0, 1, 4, 10};
    for (size_t c = 0; c < 4; c++)
        for (int t = 1; t <= 3; t++) {
            sbw_kl_opts o = {.threads = t, .group = 2, .chunk = chunks[c]};
            SBW_ASSERT_OK(sbw_kl_exact_file(r, &s, &o, NULL, &got));
            assert_exact_close(&got, &want, 1e-12);
            if (t == 1)
                first = got;
            /* the same plan gives the same bits whatever the thread count */
            assert_memory_equal(&got, &first, sizeof got);
        }
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

static void test_exact_file_row_range_and_sample(void **state)
{
    (void)state;
    sbw_mat l = make_logp(40, 13, 1.0, 21);
    sbw_logp_reader *r = open_saved(&l, "kl40.npy");
    sbw_logp_sel s;
    sbw_kl_exact want, got;
    sbw_kl_opts o = {.threads = 2, .group = 3, .chunk = 6};
    /* rows 11..28 */
    sbw_logp_sel_range(&s, 11, 29);
    sbw_mat sub = sbw_mat_rows(&l, 11, 18);
    SBW_ASSERT_OK(sbw_kl_ref_exact(&sub, &want));
    SBW_ASSERT_OK(sbw_kl_exact_file(r, &s, &o, NULL, &got));
    assert_exact_close(&got, &want, 1e-12);
    /* 9 random rows of 5..34, gathered by hand for the brute force */
    SBW_ASSERT_OK(sbw_logp_sel_sample(&s, 5, 35, 9, 3));
    sbw_mat g;
    SBW_ASSERT_OK(sbw_mat_alloc(&g, 9, l.cols));
    for (size_t i = 0; i < 9; i++)
        memcpy(g.data + i * g.ld, l.data + s.list[i] * l.ld, l.cols * sizeof(double));
    SBW_ASSERT_OK(sbw_kl_ref_exact(&g, &want));
    SBW_ASSERT_OK(sbw_kl_exact_file(r, &s, &o, NULL, &got));
    assert_exact_close(&got, &want, 1e-12);
    sbw_logp_sel_free(&s);
    sbw_mat_free(&g);
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

/* Two bad rows in different chunks: the first in file order is reported,
 * whatever the thread count. */
static void test_exact_file_first_bad_row(void **state)
{
    (void)state;
    sbw_mat l = make_logp(30, 7, 1.0, 2);
    l.data[21 * l.ld + 2] = NAN;
    for (size_t j = 0; j < l.cols; j++)
        l.data[6 * l.ld + j] += 0.01; /* unnormalised by 0.01 */
    sbw_logp_reader *r = open_saved(&l, "kl_bad.npy");
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, l.rows);
    for (int t = 1; t <= 3; t++) {
        sbw_kl_opts o = {.threads = t, .group = 1, .chunk = 3};
        sbw_kl_exact e;
        assert_int_equal(sbw_kl_exact_file(r, &s, &o, NULL, &e), SBW_EDATA);
        assert_non_null(strstr(sbw_error_reason(), "row 6 (0-based) is not normalised"));
        assert_non_null(strstr(sbw_error_reason(), "logsumexp = 0.01"));
    }
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

/* ---- identities ------------------------------------------------------------ */

/* Identical rows: KL(P||P) = 0 in every form, up to roundoff scaled by eps
 * and the magnitudes (sum_x p |log p|). */
static void test_identical_rows_give_zero(void **state)
{
    (void)state;
    for (size_t a = 0; a < NALPHA; a++) {
        sbw_mat one = make_logp(1, 37, alphas[a], 300 + a), l;
        SBW_ASSERT_OK(sbw_mat_alloc(&l, 9, 37));
        for (size_t i = 0; i < 9; i++)
            memcpy(l.data + i * l.ld, one.data, 37 * sizeof(double));
        double scale = -sbw_num_entropy(one.data, 37);
        double tol = 64 * 37 * DBL_EPSILON * (fabs(scale) + 1e-300);
        sbw_kl_exact e;
        SBW_ASSERT_OK(sbw_kl_exact_mat(&l, NULL, &e));
        SBW_ASSERT_NEAR(e.expected_kl, 0.0, tol);
        SBW_ASSERT_NEAR(e.js_spread, 0.0, tol + 64 * 37 * DBL_EPSILON);
        sbw_mat k;
        SBW_ASSERT_OK(sbw_kl_matrix_mat(&l, &k));
        for (size_t i = 0; i < 9; i++) {
            assert_true(k.data[i * k.ld + i] == 0.0);
            for (size_t j = 0; j < 9; j++)
                SBW_ASSERT_NEAR(k.data[i * k.ld + j], 0.0, tol);
        }
        size_t pa[] = {0, 3}, pb[] = {5, 8};
        double kl[2];
        SBW_ASSERT_OK(sbw_kl_pairs_mat(&l, pa, pb, 2, kl));
        assert_true(kl[0] == 0.0 && kl[1] == 0.0);
        sbw_mat_free(&k);
        sbw_mat_free(&l);
        sbw_mat_free(&one);
    }
}

/* Nearly identical rows (relative perturbations of 1e-9): every KL is >= 0
 * up to a few eps times the magnitudes involved. */
static void test_kl_nonnegative_up_to_roundoff(void **state)
{
    (void)state;
    sbw_mat l = make_logp(11, 29, 0.5, 41);
    for (size_t i = 1; i < l.rows; i++) {
        for (size_t j = 0; j < l.cols; j++)
            l.data[i * l.ld + j] = l.data[j] + 1e-9 * sin((double)(i * 31 + j));
        sbw_num_log_softmax(l.data + i * l.ld, l.data + i * l.ld, l.cols);
    }
    double mag = max_abs_entry(&l), tol = 16.0 * (double)l.cols * mag * DBL_EPSILON;
    sbw_kl_exact e;
    SBW_ASSERT_OK(sbw_kl_exact_mat(&l, NULL, &e));
    assert_true(e.expected_kl >= -tol);
    sbw_mat k;
    SBW_ASSERT_OK(sbw_kl_matrix_mat(&l, &k));
    for (size_t i = 0; i < k.rows * k.cols; i++)
        assert_true(k.data[i] >= -tol);
    size_t a[50], b[50];
    double kl[50];
    SBW_ASSERT_OK(sbw_kl_pairs_draw(l.rows, 50, 1, a, b));
    SBW_ASSERT_OK(sbw_kl_pairs_mat(&l, a, b, 50, kl));
    for (size_t i = 0; i < 50; i++)
        assert_true(kl[i] >= -tol);
    sbw_mat_free(&k);
    sbw_mat_free(&l);
}

/* ---- the matrix ------------------------------------------------------------- */

static void test_matrix_matches_brute_force(void **state)
{
    (void)state;
    for (size_t s = 0; s < NSHAPE; s++)
        for (size_t a = 0; a < NALPHA; a += 2) {
            size_t t = shapes[s][0], m = shapes[s][1];
            sbw_mat l = make_logp(t, m, alphas[a], 500 + 10 * s + a), k;
            SBW_ASSERT_OK(sbw_kl_matrix_mat(&l, &k));
            double mag = max_abs_entry(&l);
            for (size_t i = 0; i < t; i++)
                for (size_t j = 0; j < t; j++) {
                    double want = sbw_num_kl(l.data + i * l.ld, l.data + j * l.ld, m);
                    /* GEMM form: roundoff of h_i - (P L^T)_ij, both of size
                     * up to max|log p| */
                    SBW_ASSERT_NEAR(k.data[i * k.ld + j], want, 8 * m * mag * DBL_EPSILON);
                }
            sbw_mat_free(&k);
            sbw_mat_free(&l);
        }
}

static void test_matrix_file(void **state)
{
    (void)state;
    sbw_mat l = make_logp(23, 15, 0.7, 8), k, back;
    sbw_logp_reader *r = open_saved(&l, "klm.npy");
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 4, 19);
    char out[512];
    snprintf(out, sizeof out, "%s", sbw_test_path("K.npy"));
    SBW_ASSERT_OK(sbw_kl_matrix_file(r, &s, out, NULL));
    sbw_mat sub = sbw_mat_rows(&l, 4, 15);
    SBW_ASSERT_OK(sbw_kl_matrix_mat(&sub, &k));
    SBW_ASSERT_OK(sbw_npy_load(out, &back, NULL));
    assert_int_equal(back.rows, 15);
    assert_int_equal(back.cols, 15);
    SBW_ASSERT_CLOSE(back.data, k.data, (size_t)15 * 15, 0, 0);
    assert_int_equal(sbw_kl_matrix_block(&sub, 10, 6, k.data, back.data), SBW_EINVAL);
    sbw_mat_free(&back);
    sbw_mat_free(&k);
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

/* ---- the sampled estimator --------------------------------------------------- */

static void test_pairs_draw(void **state)
{
    (void)state;
    enum { N = 7, S = 70000 };
    size_t *a = malloc(S * sizeof *a), *b = malloc(S * sizeof *b), ca[N] = {0}, cb[N] = {0};
    SBW_ASSERT_OK(sbw_kl_pairs_draw(N, S, 12, a, b));
    for (size_t k = 0; k < S; k++) {
        assert_true(a[k] < N && b[k] < N && a[k] != b[k]);
        ca[a[k]]++;
        cb[b[k]]++;
    }
    /* each index is a binomial(S, 1/N) count: within 5 sigma */
    double mu = (double)S / N, sd = sqrt(S * (1.0 / N) * (1 - 1.0 / N));
    for (size_t i = 0; i < N; i++) {
        assert_true(fabs((double)ca[i] - mu) < 5 * sd);
        assert_true(fabs((double)cb[i] - mu) < 5 * sd);
    }
    size_t a2[5], b2[5];
    SBW_ASSERT_OK(sbw_kl_pairs_draw(N, 5, 12, a2, b2));
    assert_memory_equal(a2, a, sizeof a2); /* reproducible from the seed */
    assert_int_equal(sbw_kl_pairs_draw(1, 5, 12, a2, b2), SBW_EINVAL);
    free(a);
    free(b);
}

static void test_pairs_match_brute_force(void **state)
{
    (void)state;
    sbw_mat l = make_logp(17, 31, 0.05, 90);
    enum { S = 300 };
    size_t a[S], b[S];
    double kl[S], kf[S];
    SBW_ASSERT_OK(sbw_kl_pairs_draw(l.rows, S, 4, a, b));
    SBW_ASSERT_OK(sbw_kl_pairs_mat(&l, a, b, S, kl));
    double mag = max_abs_entry(&l);
    for (size_t k = 0; k < S; k++)
        SBW_ASSERT_NEAR(kl[k], sbw_num_kl(l.data + a[k] * l.ld, l.data + b[k] * l.ld, l.cols),
                        8 * l.cols * mag * DBL_EPSILON);
    sbw_logp_reader *r = open_saved(&l, "klp.npy");
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, l.rows);
    for (int t = 1; t <= 2; t++) {
        memset(kf, 0, sizeof kf);
        SBW_ASSERT_OK(sbw_kl_pairs_file(r, &s, a, b, S, t, NULL, kf));
        SBW_ASSERT_CLOSE(kf, kl, S, 0, 0); /* same kernels, same bits, draw order */
    }
    a[7] = 17;
    assert_int_equal(sbw_kl_pairs_mat(&l, a, b, S, kl), SBW_EINVAL);
    assert_int_equal(sbw_kl_pairs_file(r, &s, a, b, S, 1, NULL, kf), SBW_EINVAL);
    sbw_logp_close(r);
    sbw_mat_free(&l);
}

static void test_pairs_stats_known_values(void **state)
{
    (void)state;
    double v[] = {5, 1, 4, 2, 3};
    sbw_kl_pairs_sample s;
    SBW_ASSERT_OK(sbw_kl_pairs_stats(v, 5, &s));
    SBW_ASSERT_NEAR(s.mean, 3.0, 0);
    SBW_ASSERT_NEAR(s.sd, sqrt(2.5), 2 * DBL_EPSILON);
    SBW_ASSERT_NEAR(s.se, sqrt(0.5), 2 * DBL_EPSILON);
    /* t_{0.975, 4} = 2.7764451051977987 (e.g. scipy.stats.t.ppf) */
    SBW_ASSERT_NEAR(s.ci_hi, 3.0 + 2.7764451051977987 * sqrt(0.5), 1e-12);
    SBW_ASSERT_NEAR(s.ci_lo, 3.0 - 2.7764451051977987 * sqrt(0.5), 1e-12);
    /* linear interpolation, numpy's default: q at p = 1 + 4p */
    SBW_ASSERT_NEAR(s.q05, 1.2, 4 * DBL_EPSILON);
    SBW_ASSERT_NEAR(s.q25, 2.0, 0);
    SBW_ASSERT_NEAR(s.median, 3.0, 0);
    SBW_ASSERT_NEAR(s.q75, 4.0, 0);
    SBW_ASSERT_NEAR(s.q95, 4.8, 4 * DBL_EPSILON);
    assert_true(s.min == 1.0 && s.max == 5.0);
    SBW_ASSERT_OK(sbw_kl_pairs_stats(v, 1, &s));
    assert_true(s.mean == 5.0 && isnan(s.se) && isnan(s.ci_lo));
    assert_int_equal(sbw_kl_pairs_stats(v, 0, &s), SBW_EINVAL);
}

/* mean, sd (n - 1) of v by two plain passes: the test's own twin. */
static void naive_mean_sd(const double *v, size_t n, double *mean, double *sd)
{
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - m) * (v[i] - m);
    *mean = m;
    *sd = sqrt(ss / (double)(n - 1));
}

/* The interval is mean -+ t_{0.975, S-1} sd / sqrt(S), with mean and sd
 * from the two-pass twin and t from GSL.  Positive terms: the summed mean
 * and sum of squares are within S eps relative of the exact ones (the
 * plain recursive bound), sd within S eps, so the half-width within
 * 2 S eps relative; halving ci_hi - ci_lo adds eps |ci| each side. */
static void assert_interval(const sbw_kl_pairs_sample *s, const double *kl, size_t n)
{
    double mean, sd, t = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1));
    naive_mean_sd(kl, n, &mean, &sd);
    double hw = t * sd / sqrt((double)n), rel = 2.0 * (double)n * DBL_EPSILON;
    double got = 0.5 * (s->ci_hi - s->ci_lo);
    SBW_ASSERT_NEAR(got, hw, rel * hw + 2 * DBL_EPSILON * (fabs(s->ci_hi) + fabs(s->ci_lo)));
    SBW_ASSERT_NEAR(0.5 * (s->ci_hi + s->ci_lo), mean,
                    (double)n * DBL_EPSILON * mean + 2 * DBL_EPSILON * fabs(s->ci_hi));
}

/* The sampled 95% interval covers the exact value in a binomially
 * plausible share of 200 seeds: expected 190 (sd 3.1); at least 180
 * (P(X <= 179) ~ 1e-3) and at most 198 (P(X >= 199 | p = .95, n = 200)
 * ~ 4e-4: an interval too wide, e.g. a t or sd off by a factor, covers
 * nearly always). */
static void test_pairs_interval_coverage(void **state)
{
    (void)state;
    const double cov_alphas[] = {1.0, 0.1};
    for (size_t c = 0; c < 2; c++) {
        sbw_mat l = make_logp(31, 17, cov_alphas[c], 2024 + c);
        sbw_kl_exact e;
        SBW_ASSERT_OK(sbw_kl_exact_mat(&l, NULL, &e));
        enum { S = 2000 };
        size_t *a = malloc(S * sizeof *a), *b = malloc(S * sizeof *b), covered = 0;
        double *kl = malloc(S * sizeof *kl);
        for (uint64_t seed = 1; seed <= 200; seed++) {
            sbw_kl_pairs_sample s;
            SBW_ASSERT_OK(sbw_kl_pairs_draw(l.rows, S, seed, a, b));
            SBW_ASSERT_OK(sbw_kl_pairs_mat(&l, a, b, S, kl));
            SBW_ASSERT_OK(sbw_kl_pairs_stats(kl, S, &s));
            assert_interval(&s, kl, S);
            covered += s.ci_lo <= e.expected_kl && e.expected_kl <= s.ci_hi;
        }
        print_message("alpha %g: interval covered the exact value in %zu of 200 seeds\n",
                      cov_alphas[c], covered);
        assert_true(covered >= 180);
        assert_true(covered <= 198);
        free(a);
        free(b);
        free(kl);
        sbw_mat_free(&l);
    }
}

/* ---- error paths ------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    sbw_kl_acc *a;
    assert_int_equal(sbw_kl_acc_alloc(&a, 0, 0), SBW_ESHAPE);
    assert_null(a);
    SBW_ASSERT_OK(sbw_kl_acc_alloc(&a, 3, 0));
    double row[6] = {log(0.2), log(0.3), log(0.5), log(0.2), log(0.3), log(0.5)};
    sbw_kl_exact e;
    assert_int_equal(sbw_kl_acc_result(a, &e), SBW_ESHAPE);
    SBW_ASSERT_OK(sbw_kl_acc_add(a, row, 1, 3, NULL));
    assert_int_equal(sbw_kl_acc_result(a, &e), SBW_ESHAPE); /* one row: no pairs */
    assert_int_equal(sbw_kl_acc_add(a, row, 1, 2, NULL), SBW_EINVAL);
    sbw_kl_acc *b;
    SBW_ASSERT_OK(sbw_kl_acc_alloc(&b, 4, 0));
    assert_int_equal(sbw_kl_acc_merge(a, b), SBW_ESHAPE);
    sbw_kl_acc_free(a);
    sbw_kl_acc_free(b);
    sbw_mat one = sbw_mat_view(row, 1, 3, 3);
    assert_int_equal(sbw_kl_ref_exact(&one, &e), SBW_ESHAPE);
    assert_int_equal(sbw_kl_exact_mat(&one, NULL, &e), SBW_ESHAPE);
    sbw_mat two = sbw_mat_view(row, 2, 3, 3);
    sbw_logp_reader *r = open_saved(&two, "two.npy");
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 1, 2);
    assert_int_equal(sbw_kl_exact_file(r, &s, NULL, NULL, &e), SBW_ESHAPE);
    sbw_logp_sel_range(&s, 0, 2);
    SBW_ASSERT_OK(sbw_kl_exact_file(r, &s, NULL, NULL, &e));
    SBW_ASSERT_NEAR(e.expected_kl, 0.0, 8 * DBL_EPSILON);
    sbw_logp_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kern_group_matches_naive),
        cmocka_unit_test(test_kern_group_comoment_error_bound),
        cmocka_unit_test(test_kern_group_flags_nonfinite),
        cmocka_unit_test(test_kern_exp_pair_match_naive),
        cmocka_unit_test(test_exact_matches_brute_force),
        cmocka_unit_test(test_exact_near_uniform),
        cmocka_unit_test(test_exact_hand_case),
        cmocka_unit_test(test_acc_merge_splits),
        cmocka_unit_test(test_exact_many_merges),
        cmocka_unit_test(test_exact_long_stream_compensated),
        cmocka_unit_test(test_exact_file_threads_and_chunks),
        cmocka_unit_test(test_exact_file_row_range_and_sample),
        cmocka_unit_test(test_exact_file_first_bad_row),
        cmocka_unit_test(test_identical_rows_give_zero),
        cmocka_unit_test(test_kl_nonnegative_up_to_roundoff),
        cmocka_unit_test(test_matrix_matches_brute_force),
        cmocka_unit_test(test_matrix_file),
        cmocka_unit_test(test_pairs_draw),
        cmocka_unit_test(test_pairs_match_brute_force),
        cmocka_unit_test(test_pairs_stats_known_values),
        cmocka_unit_test(test_pairs_interval_coverage),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
