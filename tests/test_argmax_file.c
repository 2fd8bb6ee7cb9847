/* test_argmax_file.c -- what sbw-argmax's tool used to do itself, now in
 * the library: sbw_maxprob_words (the --max-prob ladder over many words)
 * against the same ladder written out with sbw_maxprob_word, and
 * sbw_argmax_file (W, b and the names read, the memory preflight, the
 * words checked, the run, the ladder) against sbw_argmax_run on the same
 * arrays, with its error paths. */
#include "sbw_argmax.h"
#include "sbw_maxprob.h"
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n N(0, 1) values of the stream (caller frees). */
static double *gauss(uint64_t stream, size_t n)
{
    gsl_rng *g = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&g, 2626, stream));
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_ran_gaussian(g, 1.0);
    gsl_rng_free(g);
    return x;
}

/* The ladder by hand: per word, h from 0, each radius warm-started from
 * the previous one's maximiser; words not wanted are nan. */
static void test_maxprob_words_twin(void **state)
{
    (void)state;
    enum { M = 9, D = 3, NW = 4, NR = 3 };
    double *w = gauss(1, (size_t)M * D), *b = gauss(2, M);
    const size_t words[NW] = {0, 2, 5, 8};
    const bool want[NW] = {true, false, true, true};
    const double R[NR] = {0.5, 2, 8};
    sbw_maxprob_ladder l = {R, NR, 1e-10, 20000, "test", true};
    double pm[NW * NR], pu[NW * NR];
    size_t unconv = 99;
    SBW_ASSERT_OK(sbw_maxprob_words(w, M, D, D, b, words, want, NW, &l, pm, pu, &unconv));
    double h[D], ws[M + 5 * D];
    size_t unconv_twin = 0;
    for (size_t t = 0; t < NW; t++) {
        memset(h, 0, sizeof h);
        for (size_t k = 0; k < NR; k++) {
            if (!want[t]) {
                assert_true(isnan(pm[t * NR + k]) && isnan(pu[t * NR + k]));
                continue;
            }
            sbw_maxprob_res r;
            SBW_ASSERT_OK(sbw_maxprob_word(w, M, D, D, b, words[t], R[k], 1e-10, 20000, h, ws, &r));
            assert_true(pm[t * NR + k] == r.p && pu[t * NR + k] == r.p_upper);
            unconv_twin += !r.converged;
            SBW_ASSERT_LE(r.p, r.p_upper);
        }
    }
    SBW_ASSERT_EQ(unconv, unconv_twin);
    /* want NULL: every word, the same numbers for the wanted ones */
    double pm2[NW * NR], pu2[NW * NR];
    SBW_ASSERT_OK(sbw_maxprob_words(w, M, D, D, b, words, NULL, NW, &l, pm2, pu2, &unconv));
    for (size_t i = 0; i < (size_t)NW * NR; i++) {
        assert_true(pm2[i] == pm2[i]); /* not nan */
        if (want[i / (size_t)NR])
            assert_true(pm2[i] == pm[i] && pu2[i] == pu[i]);
    }
    free(w);
    free(b);
}

/* W (m x d), b and a vocabulary of m lines (or lines) into the test folder. */
static void write_head(const double *w, const double *b, size_t m, size_t d, size_t lines)
{
    sbw_mat a = {.data = (double *)w, .rows = m, .cols = d, .ld = d};
    SBW_ASSERT_OK(sbw_npy_save(sbw_test_path("W.npy"), &a, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_save_vector(sbw_test_path("b.npy"), b, m, SBW_F64));
    FILE *f = fopen(sbw_test_path("vocab.txt"), "w");
    assert_non_null(f);
    for (size_t i = 0; i < lines; i++)
        fprintf(f, "w%zu\n", i);
    fclose(f);
}

/* The whole run on files equals the run on the arrays; names, the ladder
 * and the answers' order follow --words. */
static void test_file_vs_arrays(void **state)
{
    (void)state;
    enum { M = 12, D = 3 };
    double *w = gauss(3, (size_t)M * D), *b = gauss(4, M);
    for (size_t k = 0; k < D; k++) /* word 7 at the centre: not argmaxable without a bias */
        w[(size_t)7 * D + k] = 0;
    write_head(w, b, M, D, M);
    char wp[4096], bp[4096], vp[4096];
    snprintf(wp, sizeof wp, "%s", sbw_test_path("W.npy"));
    snprintf(bp, sizeof bp, "%s", sbw_test_path("b.npy"));
    snprintf(vp, sizeof vp, "%s", sbw_test_path("vocab.txt"));
    const size_t words[] = {7, 0, 11, 3};
    const double R[] = {1, 10};
    for (int bias = 0; bias < 2; bias++) {
        sbw_argmax_file_opts o = {.bias = bias ? bp : NULL,
                                  .vocab = vp,
                                  .words = words,
                                  .nwords = 4,
                                  .run = sbw_argmax_defaults(),
                                  .radii = R,
                                  .nr = 2,
                                  .prob_tol = 1e-9,
                                  .max_prob_iters = 20000,
                                  .quiet = true};
        sbw_argmax_file_res res;
        SBW_ASSERT_OK(sbw_argmax_file(wp, &o, &res));
        sbw_argmax_word out[4];
        sbw_argmax_summary sum;
        SBW_ASSERT_OK(
            sbw_argmax_run(w, M, D, D, bias ? b : NULL, words, 4, &o.run, out, NULL, &sum));
        SBW_ASSERT_EQ(res.nwords, (size_t)4);
        SBW_ASSERT_EQ(res.w.rows, (size_t)M);
        assert_true(bias ? res.b != NULL : res.b == NULL);
        SBW_ASSERT_EQ(res.sum.argmaxable, sum.argmaxable);
        SBW_ASSERT_EQ(res.sum.unargmaxable, sum.unargmaxable);
        for (size_t t = 0; t < 4; t++) {
            SBW_ASSERT_EQ(res.out[t].word, words[t]);
            SBW_ASSERT_EQ(res.out[t].argmaxable, out[t].argmaxable);
            assert_true(res.out[t].reason == out[t].reason);
            char name[16];
            snprintf(name, sizeof name, "w%zu", words[t]);
            assert_string_equal(res.names[words[t]], name);
            bool asked = out[t].argmaxable == 0;
            assert_true(asked == !isnan(res.pm[t * 2]) && asked == !isnan(res.pu[t * 2 + 1]));
        }
        if (!bias) /* the centre of a head with no bias is never ahead */
            SBW_ASSERT_EQ(res.out[0].argmaxable, 0);
        sbw_argmax_file_free(&res);
        assert_null(res.out);
    }
    free(w);
    free(b);
}

/* A word out of range, a vocabulary of the wrong length, a run that does
 * not fit in memory: each one reason naming the file or option. */
static void test_file_errors(void **state)
{
    (void)state;
    enum { M = 5, D = 2 };
    double *w = gauss(5, (size_t)M * D), *b = gauss(6, M);
    write_head(w, b, M, D, M + 1);
    char wp[4096], vp[4096];
    snprintf(wp, sizeof wp, "%s", sbw_test_path("W.npy"));
    snprintf(vp, sizeof vp, "%s", sbw_test_path("vocab.txt"));
    const size_t far[] = {1, 5};
    sbw_argmax_file_opts o = {.words = far, .nwords = 2, .run = sbw_argmax_defaults()};
    sbw_argmax_file_res res;
    assert_int_equal(sbw_argmax_file(wp, &o, &res), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "--words: word 5 is out of range"));
    sbw_argmax_file_free(&res);
    o = (sbw_argmax_file_opts){.vocab = vp, .run = sbw_argmax_defaults()};
    assert_int_equal(sbw_argmax_file(wp, &o, &res), SBW_EDATA);
    assert_non_null(strstr(sbw_error_reason(), "6 names for a head of 5 words"));
    assert_null(res.names);
    sbw_argmax_file_free(&res);
    setenv("SBW_MAX_MEMORY", "1K", 1);
    o = (sbw_argmax_file_opts){.run = sbw_argmax_defaults()};
    assert_int_equal(sbw_argmax_file(wp, &o, &res), SBW_ENOMEM);
    assert_non_null(strstr(sbw_error_reason(), "sbw-argmax on this 5 x 2 head"));
    assert_null(res.w.data); /* refused before W was read */
    unsetenv("SBW_MAX_MEMORY");
    sbw_argmax_file_free(&res);
    free(w);
    free(b);
}

/* The shares against their definition, by brute force: for every list of
 * 1..300 words and every shard count up to the number of blocks, the
 * shards' positions are each block's positions once (block j to shard
 * j mod n, in order), their counts add to the list, and a list of 64 or
 * more words has at least 64 blocks. */
static void test_share_brute_force(void **state)
{
    (void)state;
    static int seen[300];
    for (size_t len = 1; len <= 300; len++) {
        size_t b = sbw_argmax_share_block(len, 256);
        assert_true(b >= 1 && b <= 256);
        size_t nb = (len + b - 1) / b;
        assert_true(nb >= (len < 64 ? len : 64));
        for (size_t n = 1; n <= nb; n++) {
            memset(seen, 0, sizeof seen);
            size_t total = 0;
            for (size_t sh = 0; sh < n; sh++) {
                size_t c = sbw_argmax_share_count(sh, n, b, len), last = 0;
                for (size_t k = 0; k < c; k++) {
                    size_t p = sbw_argmax_share_pos(sh, n, b, k);
                    assert_true(p < len);
                    assert_int_equal((p / b) % n, sh);
                    assert_true(k == 0 || p > last);
                    last = p;
                    seen[p]++;
                }
                total += c;
            }
            assert_int_equal(total, len);
            for (size_t p = 0; p < len; p++)
                assert_int_equal(seen[p], 1);
        }
    }
    assert_int_equal(sbw_argmax_share_block(100000, 256), 256);
    assert_int_equal(sbw_argmax_share_count(5, 3, 4, 10), 0); /* past the 3 blocks */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_maxprob_words_twin),
        cmocka_unit_test(test_file_vs_arrays),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_share_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
