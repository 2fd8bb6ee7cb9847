/* test_compare.c -- model-versus-truth metrics (analysis/sbw_compare*.c):
 * kernels against their naive twins on odd sizes and tie-heavy rows,
 * hand-made mode-match cases with ties, identities (KL(P||P) = 0,
 * KL >= 0 up to roundoff, H(P,Q) = H(P) + KL), the summary on a
 * hand-computed case, files with threads, and the refusals. */
#include "sbw_test.h"

#include "logp_rand.h"
#include "sbw_compare.h"
#include "sbw_compare_kern.h"
#include "sbw_error.h"
#include "sbw_logp.h"
#include "sbw_npy.h"
#include "sbw_num.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sbw_mat make_logp(size_t t, size_t m, double alpha, uint64_t seed)
{
    sbw_mat l = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&l, t, m));
    rand_logp_dirichlet(&l, alpha, seed);
    return l;
}

/* Rows drawn from a handful of values, so ties are everywhere. */
static void fill_ties(double *x, size_t m, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t j = 0; j < m; j++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x[j] = -(double)((s >> 33) % 4);
    }
}

static void assert_rows_equal(const sbw_compare_row *a, const sbw_compare_row *b, double tol)
{
    assert_int_equal(a->mode_p, b->mode_p);
    assert_int_equal(a->mode_q, b->mode_q);
    assert_int_equal(a->tie_p, b->tie_p);
    assert_int_equal(a->tie_q, b->tie_q);
    assert_int_equal(a->rank, b->rank);
    assert_memory_equal(a->overlap, b->overlap, sizeof a->overlap);
    SBW_ASSERT_NEAR(a->kl, b->kl, tol);
    SBW_ASSERT_NEAR(a->cross_entropy, b->cross_entropy, tol);
    SBW_ASSERT_NEAR(a->entropy, b->entropy, tol);
    SBW_ASSERT_NEAR(a->row_err, b->row_err, tol);
    SBW_ASSERT_NEAR(a->max_abs, b->max_abs, 0);
}

/* ---- kernels against twins --------------------------------------------- */

static void test_topk_and_rank_match_naive(void **state)
{
    (void)state;
    const size_t ms[] = {1, 2, 3, 7, 63, 64, 65, 129, 640, 1001};
    const size_t ks[] = {1, 5, 10, 64};
    double *ws = malloc(64 * sizeof *ws);
    for (size_t a = 0; a < 10; a++)
        for (int ties = 0; ties < 2; ties++) {
            size_t m = ms[a];
            sbw_mat l = make_logp(1, m, 0.2, 50 + a);
            if (ties)
                fill_ties(l.data, m, 99 + a);
            for (size_t b = 0; b < 4; b++) {
                size_t fast[64], slow[64], nf, ns;
                nf = sbw_compare_kern_topk(l.data, m, ks[b], fast, ws);
                SBW_ASSERT_OK(sbw_compare_ref_topk(l.data, m, ks[b], slow, &ns));
                assert_int_equal(nf, ns);
                assert_memory_equal(fast, slow, nf * sizeof *fast);
            }
            for (size_t i = 0; i < m; i += 1 + m / 17) {
                size_t want;
                SBW_ASSERT_OK(sbw_compare_ref_rank(l.data, m, i, &want));
                assert_int_equal(sbw_compare_kern_rank(l.data, m, i), want);
            }
            sbw_mat_free(&l);
        }
    free(ws);
}

static void test_sums_match_naive(void **state)
{
    (void)state;
    const size_t ms[] = {1, 3, 17, 255, 1001};
    for (size_t a = 0; a < 5; a++) {
        size_t m = ms[a];
        sbw_mat l = make_logp(2, m, 0.05, 3 + a);
        double f[SBW_CMP_NSUMS], n[SBW_CMP_NSUMS];
        assert_true(sbw_compare_kern_sums(l.data, l.data + m, m, f));
        sbw_compare_ref_sums(l.data, l.data + m, m, n);
        double mag = max_abs_entry(&l), tol = 8.0 * (double)m * mag * DBL_EPSILON;
        SBW_ASSERT_NEAR(f[SBW_CMP_SUM_P], n[SBW_CMP_SUM_P], 4 * m * DBL_EPSILON);
        SBW_ASSERT_NEAR(f[SBW_CMP_SUM_Q], n[SBW_CMP_SUM_Q], 4 * m * DBL_EPSILON);
        SBW_ASSERT_NEAR(f[SBW_CMP_PLP], n[SBW_CMP_PLP], tol);
        SBW_ASSERT_NEAR(f[SBW_CMP_PLQ], n[SBW_CMP_PLQ], tol);
        SBW_ASSERT_NEAR(f[SBW_CMP_KL], n[SBW_CMP_KL], 2 * tol);
        SBW_ASSERT_CLOSE(&f[SBW_CMP_SQ], &n[SBW_CMP_SQ], 1, 0, 4 * m * DBL_EPSILON);
        SBW_ASSERT_NEAR(f[SBW_CMP_MAXABS], n[SBW_CMP_MAXABS], 0);
        /* a NaN or an infinity anywhere in either row is reported */
        const double bad[] = {NAN, INFINITY, -INFINITY};
        for (size_t b = 0; b < 3; b++)
            for (size_t row = 0; row < 2; row++) {
                double keep = l.data[row * m + m / 2];
                l.data[row * m + m / 2] = bad[b];
                assert_false(sbw_compare_kern_sums(l.data, l.data + m, m, f));
                l.data[row * m + m / 2] = keep;
            }
        sbw_mat_free(&l);
    }
}

static void test_row_fast_matches_naive(void **state)
{
    (void)state;
    const size_t ms[] = {1, 2, 5, 11, 97, 640, 1003};
    for (size_t a = 0; a < 7; a++)
        for (int ties = 0; ties < 2; ties++) {
            size_t m = ms[a];
            sbw_mat l = make_logp(2, m, 0.3, 20 + a);
            if (ties) {
                fill_ties(l.data, m, 5 + a);
                fill_ties(l.data + m, m, 7 + a);
                sbw_num_log_softmax(l.data, l.data, m);
                sbw_num_log_softmax(l.data + m, l.data + m, m);
            }
            double *ws = malloc(sbw_compare_ws(m) * sizeof *ws), sums[2];
            sbw_compare_row f, n;
            sbw_compare_row_fast(l.data, l.data + m, m, ws, &f, sums);
            SBW_ASSERT_OK(sbw_compare_ref_row(l.data, l.data + m, m, &n));
            assert_rows_equal(&f, &n, 16.0 * (double)m * max_abs_entry(&l) * DBL_EPSILON);
            SBW_ASSERT_NEAR(sums[0], 1.0, 4 * m * DBL_EPSILON);
            SBW_ASSERT_NEAR(sums[1], 1.0, 4 * m * DBL_EPSILON);
            free(ws);
            sbw_mat_free(&l);
        }
}

/* ---- hand-made modes with ties -------------------------------------------- */

static sbw_compare_row row_of(const double *p, const double *q, size_t m)
{
    double lp[8], lq[8], ws[32];
    for (size_t j = 0; j < m; j++) {
        lp[j] = log(p[j]);
        lq[j] = log(q[j]);
    }
    sbw_compare_row r, n;
    sbw_compare_row_fast(lp, lq, m, ws, &r, NULL);
    SBW_ASSERT_OK(sbw_compare_ref_row(lp, lq, m, &n));
    assert_rows_equal(&r, &n, 1e-14);
    return r;
}

static void test_mode_match_hand_cases(void **state)
{
    (void)state;
    /* P ties at 1 and 2 -> mode 1 (lowest index), tie counted. */
    const double p[] = {0.1, 0.4, 0.4, 0.1};
    const double q1[] = {0.1, 0.3, 0.5, 0.1};     /* Q's mode 2: no match */
    const double q2[] = {0.1, 0.5, 0.3, 0.1};     /* Q's mode 1: match */
    const double q3[] = {0.25, 0.25, 0.25, 0.25}; /* all tied: mode 0 */
    const double q4[] = {0.1, 0.4, 0.4, 0.1};     /* same ties: match */
    sbw_compare_row r = row_of(p, q1, 4);
    assert_int_equal(r.mode_p, 1);
    assert_true(r.tie_p);
    assert_int_equal(r.mode_q, 2);
    assert_false(r.tie_q);
    assert_int_equal(r.rank, 2); /* q[1] = 0.3 is second */
    assert_int_equal(r.overlap[0], 0);
    r = row_of(p, q2, 4);
    assert_int_equal(r.mode_q, 1);
    assert_int_equal(r.rank, 1);
    assert_int_equal(r.overlap[0], 1);
    r = row_of(p, q3, 4);
    assert_int_equal(r.mode_q, 0);
    assert_true(r.tie_q);
    assert_int_equal(r.rank, 2); /* index 1 ties with index 0, which goes first */
    r = row_of(p, q4, 4);
    assert_int_equal(r.mode_q, 1);
    assert_true(r.tie_q);
    assert_int_equal(r.rank, 1);
    /* top-5 of 4 words is everything: full overlap */
    assert_int_equal(r.overlap[1], 4);
    assert_int_equal(r.overlap[2], 4);
    /* a unique mode, no ties */
    const double u[] = {0.7, 0.2, 0.1}, v[] = {0.2, 0.7, 0.1};
    r = row_of(u, v, 3);
    assert_int_equal(r.mode_p, 0);
    assert_int_equal(r.mode_q, 1);
    assert_false(r.tie_p || r.tie_q);
    assert_int_equal(r.rank, 2);
}

/* Top-5 with ties at the boundary: lower indices win. */
static void test_topk_tie_boundary(void **state)
{
    (void)state;
    double x[200], ws[8];
    for (size_t j = 0; j < 200; j++)
        x[j] = -5.0;
    x[150] = -1.0;
    x[3] = -2.0;
    x[199] = -2.0; /* ties with 3, comes later */
    size_t idx[5];
    assert_int_equal(sbw_compare_kern_topk(x, 200, 5, idx, ws), 5);
    const size_t want[] = {150, 3, 199, 0, 1};
    assert_memory_equal(idx, want, sizeof want);
}

/* ---- identities ----------------------------------------------------------- */

static void test_identities(void **state)
{
    (void)state;
    const double alphas[] = {0.001, 0.1, 1.0, 100.0};
    for (size_t a = 0; a < 4; a++) {
        size_t m = 47;
        sbw_mat l = make_logp(3, m, alphas[a], 600 + a);
        double *ws = malloc(sbw_compare_ws(m) * sizeof *ws);
        /* row 1 := row 0 perturbed by ~1e-9 and renormalised */
        for (size_t j = 0; j < m; j++)
            l.data[m + j] = l.data[j] + 1e-9 * cos((double)j);
        sbw_num_log_softmax(l.data + m, l.data + m, m);
        double mag = max_abs_entry(&l), tol = 16.0 * (double)m * mag * DBL_EPSILON;
        sbw_compare_row r;
        sbw_compare_row_fast(l.data, l.data, m, ws, &r, NULL);
        assert_true(r.kl == 0.0); /* p (lp - lp) is exactly 0 */
        assert_true(r.row_err == 0.0 && r.rank == 1 && r.mode_p == r.mode_q);
        SBW_ASSERT_NEAR(r.cross_entropy, r.entropy, 0);
        sbw_compare_row_fast(l.data, l.data + m, m, ws, &r, NULL);
        assert_true(r.kl >= -tol);
        for (size_t i = 0; i < 3; i++)
            for (size_t k = 0; k < 3; k++) {
                sbw_compare_row_fast(l.data + i * m, l.data + k * m, m, ws, &r, NULL);
                assert_true(r.kl >= -tol);
                /* H(P,Q) = H(P) + KL(P||Q), to the roundoff of sums of
                 * p |log p| and p |log q| */
                SBW_ASSERT_NEAR(r.cross_entropy, r.entropy + r.kl, tol);
            }
        free(ws);
        sbw_mat_free(&l);
    }
}

/* ---- the summary ----------------------------------------------------------- */

static void test_summary_hand_case(void **state)
{
    (void)state;
    sbw_compare_row rows[4] = {
        {.kl = 0.5,
         .cross_entropy = 2.5,
         .entropy = 2.0,
         .row_err = 3.0,
         .max_abs = 1.5,
         .mode_p = 1,
         .mode_q = 1,
         .rank = 1,
         .tie_p = 1,
         .overlap = {1, 3, 7}},
        {.kl = 0.1,
         .cross_entropy = 1.1,
         .entropy = 1.0,
         .row_err = 4.0,
         .max_abs = 2.0,
         .mode_p = 2,
         .mode_q = 0,
         .rank = 4,
         .tie_q = 1,
         .overlap = {0, 2, 6}},
        {.kl = 0.3,
         .cross_entropy = 1.3,
         .entropy = 1.0,
         .row_err = 0.0,
         .max_abs = 0.0,
         .mode_p = 5,
         .mode_q = 5,
         .rank = 1,
         .overlap = {1, 5, 10}},
        {.kl = 0.9,
         .cross_entropy = 3.9,
         .entropy = 3.0,
         .row_err = 2.0,
         .max_abs = 1.0,
         .mode_p = 0,
         .mode_q = 3,
         .rank = 9,
         .overlap = {0, 0, 1}},
    };
    sbw_compare_summary s;
    SBW_ASSERT_OK(sbw_compare_summarize(rows, 4, 12, &s));
    SBW_ASSERT_NEAR(s.kl_mean, 0.45, 1e-15);
    SBW_ASSERT_NEAR(s.kl_median, 0.4, 1e-15);
    SBW_ASSERT_NEAR(s.cross_entropy, 2.2, 1e-15);
    SBW_ASSERT_NEAR(s.entropy, 1.75, 1e-15);
    SBW_ASSERT_NEAR(s.perplexity, exp(2.2), 1e-14);
    assert_int_equal(s.mode_matches, 2);
    SBW_ASSERT_NEAR(s.mode_match, 0.5, 0);
    assert_int_equal(s.ties_p, 1);
    assert_int_equal(s.ties_q, 1);
    SBW_ASSERT_NEAR(s.top_overlap[0], 0.5, 0);
    SBW_ASSERT_NEAR(s.top_overlap[1], 10.0 / 20.0, 1e-15);
    SBW_ASSERT_NEAR(s.top_overlap[2], 24.0 / 40.0, 1e-15);
    SBW_ASSERT_NEAR(s.rank_mean, 15.0 / 4.0, 1e-15);
    SBW_ASSERT_NEAR(s.rank_median, 2.5, 0);
    SBW_ASSERT_NEAR(s.frob_rms, sqrt(29.0 / 4.0), 1e-15);
    SBW_ASSERT_NEAR(s.max_row_err, 4.0, 0);
    assert_int_equal(s.max_row_err_row, 1);
    SBW_ASSERT_NEAR(s.max_abs_err, 2.0, 0);
    /* 3 words: the top-5 and top-10 overlaps divide by 3 */
    SBW_ASSERT_OK(sbw_compare_summarize(rows + 2, 1, 3, &s));
    SBW_ASSERT_NEAR(s.top_overlap[1], 5.0 / 3.0, 1e-15);
    assert_int_equal(sbw_compare_summarize(rows, 0, 3, &s), SBW_EINVAL);
}

/* ---- files ----------------------------------------------------------------- */

static sbw_logp_reader *open_saved(const sbw_mat *l, const char *name, double tol)
{
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path(name));
    SBW_ASSERT_OK(sbw_npy_save(path, l, SBW_F64));
    sbw_logp_opts o = {.tol = tol};
    sbw_logp_reader *r;
    SBW_ASSERT_OK(sbw_logp_open(&r, path, &o));
    return r;
}

static void test_files_match_mats(void **state)
{
    (void)state;
    /* 23 rows of 40,000 words: several ~1 MB blocks, spread over workers */
    size_t n = 23, m = 40000;
    sbw_mat p = make_logp(n, m, 0.5, 1), q = make_logp(n, m, 0.5, 2);
    sbw_compare_row *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    SBW_ASSERT_OK(sbw_compare_mats(&p, &q, a));
    sbw_logp_reader *rp = open_saved(&p, "P.npy", 1e-9), *rq = open_saved(&q, "Q.npy", 1e-9);
    for (int t = 1; t <= 3; t++) {
        memset(b, 0, n * sizeof *b);
        SBW_ASSERT_OK(sbw_compare_files(rp, rq, t, NULL, b));
        for (size_t i = 0; i < n; i++)
            assert_rows_equal(&b[i], &a[i], 0); /* same kernels, same bits */
    }
    sbw_logp_close(rp);
    sbw_logp_close(rq);
    sbw_mat_free(&p);
    sbw_mat_free(&q);
    free(a);
    free(b);
}

static void test_file_refusals(void **state)
{
    (void)state;
    sbw_mat p = make_logp(9, 6, 1.0, 4), q = make_logp(9, 6, 1.0, 5), q2 = make_logp(9, 5, 1.0, 6);
    sbw_compare_row rows[9];
    sbw_logp_reader *rp = open_saved(&p, "P.npy", 1e-6), *rq = open_saved(&q2, "Q2.npy", 1e-6);
    assert_int_equal(sbw_compare_files(rp, rq, 1, NULL, rows), SBW_ESHAPE);
    assert_non_null(strstr(sbw_error_reason(), "P.npy is 9 x 6 but"));
    assert_non_null(strstr(sbw_error_reason(), "Q2.npy is 9 x 5"));
    assert_int_equal(sbw_compare_mats(&p, &q2, rows), SBW_ESHAPE);
    sbw_logp_close(rq);
    /* an unnormalised row of Q, named with its amount */
    for (size_t j = 0; j < 6; j++)
        q.data[(size_t)3 * 6 + j] += 1e-4;
    rq = open_saved(&q, "Qu.npy", 1e-6);
    assert_int_equal(sbw_compare_files(rp, rq, 2, NULL, rows), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "Qu.npy: row 3 (0-based) is not normalised: "
                                               "logsumexp = 0.0001"));
    sbw_logp_close(rp);
    /* a NaN in P */
    p.data[7 * 6 + 1] = NAN;
    rp = open_saved(&p, "Pn.npy", 1e-6);
    assert_int_equal(sbw_compare_files(rp, rq, 2, NULL, rows), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "Pn.npy: row 7, column 1 (0-based) is NaN"));
    sbw_logp_close(rp);
    /* +inf in P in the NaN's place: named as +inf, not as a zero probability */
    p.data[7 * 6 + 1] = INFINITY;
    rp = open_saved(&p, "Pi.npy", 1e-6);
    assert_int_equal(sbw_compare_files(rp, rq, 2, NULL, rows), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "Pi.npy: row 7, column 1 (0-based) is +inf"));
    sbw_logp_close(rp);
    sbw_logp_close(rq);
    sbw_mat_free(&p);
    sbw_mat_free(&q);
    sbw_mat_free(&q2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_topk_and_rank_match_naive),
        cmocka_unit_test(test_sums_match_naive),
        cmocka_unit_test(test_row_fast_matches_naive),
        cmocka_unit_test(test_mode_match_hand_cases),
        cmocka_unit_test(test_topk_tie_boundary),
        cmocka_unit_test(test_identities),
        cmocka_unit_test(test_summary_hand_case),
        cmocka_unit_test(test_files_match_mats),
        cmocka_unit_test(test_file_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
