/* test_lm.c -- the LSTM language model (lm/sbw_lm.h, sbw_lm_eval.h,
 * sbw_lm_train.h): gradients through the whole language-model path against
 * central differences for every head, the float path against the double
 * one, evaluation against the exported matrix read back, rank bounds of the
 * exported log Q, overfitting a 200-token text, and errors. */
#include "sbw_test.h"

#include "head_cases.h"
#include "lm_fixture.h"
#include "sbw_corpus.h"
#include "sbw_error.h"
#include "sbw_lm.h"
#include "sbw_lm_eval.h"
#include "sbw_lm_train.h"
#include "sbw_npy.h"
#include "sbw_rank.h"
#include "sbw_rng.h"
#include "sbw_svd.h"

#include <float.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { B = 2, T = 3 };

/* The tiny architecture of head case hc: 2 layers (4, 3), D = E = 3. */
static sbw_lm_arch tiny_arch(const head_case *hc, bool tied)
{
    sbw_lm_arch a = {.model = hc->model,
                     .k = hc->k ? hc->k : 1,
                     .knots = hc->knots ? hc->knots : 1,
                     .plif_t = 3,
                     .bias = hc->bias,
                     .d = 3,
                     .emb = 3,
                     .nlayers = 2,
                     .hidden = {4, 3, 0},
                     .tied = tied};
    return a;
}

/* A tiny model of head case hc over vocabulary m. */
static void tiny(sbw_lm *lm, const head_case *hc, size_t m, bool tied)
{
    sbw_lm_arch a = tiny_arch(hc, tied);
    SBW_ASSERT_OK(sbw_lm_setup(lm, &a, m));
}

/* Random ids in [0, m). */
static void random_ids(size_t *ids, size_t n, size_t m, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < n; i++)
        ids[i] = gsl_rng_uniform_int(r, m);
    gsl_rng_free(r);
}

/* theta from the documented init, then perturbed so that biases and the
 * map's parameters are not at special values. */
static void random_theta(const sbw_lm *lm, double *theta, unsigned long seed)
{
    SBW_ASSERT_OK(sbw_lm_init(lm, theta, seed));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed + 1);
    for (size_t i = 0; i < lm->nparam; i++)
        theta[i] += 0.3 * (gsl_rng_uniform(r) - 0.5);
    gsl_rng_free(r);
}

/* The fixture for head case hc (tiny's architecture), dropout on
 * everywhere but the last layer's own probability. */
static void fd_alloc(lm_fixture *f, const head_case *hc, bool tied, bool single)
{
    sbw_lm_arch a = tiny_arch(hc, tied);
    sbw_lm_dropout d = {.emb = 0.3, .in = 0.3, .layer = 0.3, .latent = 0.3, .last = -1};
    lm_fixture_setup(f, &a, single, &d);
}

/* Every entry of the analytic gradient against central differences. */
static void check_fd(const head_case *hc, bool tied)
{
    lm_fixture f;
    fd_alloc(&f, hc, tied, false);
    free(lm_fixture_grad_fd(&f));
    lm_fixture_free(&f);
}

static void test_gradient_fd_every_head(void **state)
{
    (void)state;
    for (size_t c = 0; c < HEAD_NCASES; c++)
        check_fd(&head_cases[c], false);
}

static void test_gradient_fd_tied(void **state)
{
    (void)state;
    check_fd(&head_cases[1], true); /* softmax with bias */
    check_fd(&head_cases[5], true); /* mos with bias */
}

/* The float path against the double path on the same theta, state and
 * masks, at float tolerance. */
static void test_float_matches_double(void **state)
{
    (void)state;
    for (size_t c = 0; c < HEAD_NCASES; c++) {
        lm_fixture d, s;
        fd_alloc(&d, &head_cases[c], false, false);
        fd_alloc(&s, &head_cases[c], false, true);
        double ld = lm_fixture_objective(&d, d.theta), ls = lm_fixture_objective(&s, s.theta),
               gmax = 0;
        for (size_t i = 0; i < d.lm.nparam; i++)
            gmax = fabs(d.grad[i]) > gmax ? fabs(d.grad[i]) : gmax;
        SBW_ASSERT_NEAR(ls, ld, 1e-5 * (1 + fabs(ld)));
        SBW_ASSERT_CLOSE(s.grad, d.grad, d.lm.nparam, 1e-5 * (1 + gmax), 1e-4);
        lm_fixture_free(&d);
        lm_fixture_free(&s);
    }
}

/* Two calls from the same state give the same bits; the carried state
 * after a chunk is the state the next chunk starts from. */
static void test_deterministic_and_carried(void **state)
{
    (void)state;
    lm_fixture f;
    fd_alloc(&f, &head_cases[5], false, true);
    size_t n = f.lm.nparam, sl = sbw_lm_state_len(f.ws);
    double *g1 = malloc(n * sizeof *g1), *s1 = malloc(sl * sizeof *s1),
           *s2 = malloc(sl * sizeof *s2);
    double l1 = lm_fixture_objective(&f, f.theta);
    memcpy(g1, f.grad, n * sizeof *g1);
    sbw_lm_state_get(f.ws, s1);
    double l2 = lm_fixture_objective(&f, f.theta);
    sbw_lm_state_get(f.ws, s2);
    assert_memory_equal(&l1, &l2, sizeof l1);
    assert_memory_equal(g1, f.grad, n * sizeof *g1);
    assert_memory_equal(s1, s2, sl * sizeof *s1);
    SBW_ASSERT_GT(fabs(s1[0] - f.state0[0]), 0.0); /* the state moved */
    free(g1);
    free(s1);
    free(s2);
    lm_fixture_free(&f);
}

/* ---- evaluation ---------------------------------------------------------- */

/* log Q of the first rows predictions written to a file, read back. */
static double *export_rows(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t rows,
                           size_t m, sbw_lm_eval_result *res)
{
    char path[] = "/tmp/sbw-test-lm-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    sbw_npy_writer *w = NULL;
    SBW_ASSERT_OK(sbw_npy_create(&w, path, rows, m, 2, SBW_F64));
    SBW_ASSERT_OK(sbw_lm_eval_logprobs(ws, theta, ids, rows, w, NULL, res));
    SBW_ASSERT_OK(sbw_npy_finish(w));
    sbw_mat lq;
    SBW_ASSERT_OK(sbw_npy_load(path, &lq, NULL));
    unlink(path);
    SBW_ASSERT_EQ(lq.rows, rows);
    SBW_ASSERT_EQ(lq.cols, m);
    return lq.data;
}

/* eval's perplexity is exp of the mean -log Q read back from the exported
 * matrix at the observed tokens; every row is normalised; the perplexity
 * without an export (other code path) agrees. */
static void test_eval_matches_export(void **state)
{
    (void)state;
    enum { M = 11, N = 40 };
    for (size_t c = 0; c < HEAD_NCASES; c++) {
        sbw_lm lm;
        tiny(&lm, &head_cases[c], M, false);
        double *theta = malloc(lm.nparam * sizeof *theta);
        random_theta(&lm, theta, 9);
        size_t ids[N];
        random_ids(ids, N, M, 10);
        sbw_lm_ws *ws = NULL;
        sbw_lm_ws_opts o = {3,    4,    false, 1,     0,
                            NULL, NULL, NULL,  false, false}; /* 3 columns of 13, chunks of 4 */
        SBW_ASSERT_OK(sbw_lm_ws_alloc(&ws, &lm, &o));
        sbw_lm_eval_result re, rn;
        double *lq = export_rows(ws, theta, ids, N - 1, M, &re);
        double sum = 0;
        for (size_t i = 0; i + 1 < N; i++) {
            double z = 0;
            for (size_t j = 0; j < M; j++)
                z += exp(lq[i * M + j]);
            SBW_ASSERT_NEAR(z, 1.0, 1e-12);
            sum -= lq[i * M + ids[i + 1]];
        }
        SBW_ASSERT_EQ(re.tokens, (size_t)(N - 1));
        SBW_ASSERT_NEAR(re.ppl, exp(sum / (N - 1)), 1e-12 * re.ppl);
        SBW_ASSERT_OK(sbw_lm_eval_nll(ws, theta, ids, N, NULL, &rn));
        SBW_ASSERT_EQ(rn.tokens, (size_t)(N - 1));
        SBW_ASSERT_NEAR(rn.nll, re.nll, 1e-10);
        free(lq);
        free(theta);
        sbw_lm_ws_free(ws);
    }
}

/* With one column the export is the model run over the whole text, carried
 * from chunk to chunk: the chunk length (5 or 7 steps) changes nothing. */
static void test_eval_one_column_is_sequential(void **state)
{
    (void)state;
    enum { M = 9, N = 41 };
    sbw_lm lm;
    tiny(&lm, &head_cases[1], M, false);
    double *theta = malloc(lm.nparam * sizeof *theta);
    random_theta(&lm, theta, 21);
    size_t ids[N];
    random_ids(ids, N, M, 22);
    sbw_lm_ws *w1 = NULL, *w7 = NULL;
    sbw_lm_ws_opts o1 = {1, 5, false, 1, 0, NULL, NULL, NULL, false, false},
                   o7 = {1, 7, false, 1, 0, NULL, NULL, NULL, false, false};
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&w1, &lm, &o1));
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&w7, &lm, &o7));
    sbw_lm_eval_result r1, r7;
    double *a = export_rows(w1, theta, ids, N - 1, M, &r1);
    double *b = export_rows(w7, theta, ids, N - 1, M, &r7);
    /* chunk length does not change a forward pass: same numbers */
    SBW_ASSERT_CLOSE(a, b, (size_t)(N - 1) * M, 1e-13, 1e-13);
    free(a);
    free(b);
    free(theta);
    sbw_lm_ws_free(w1);
    sbw_lm_ws_free(w7);
}

/* The column cut against a brute-force twin: with B = 3 columns, the rows
 * of segment j equal an export of that segment's tokens alone in one
 * column from a zero state (segments of 13, 13 and 12 predictions for 38). */
static void test_eval_columns_twin(void **state)
{
    (void)state;
    enum { M = 9, N = 39, NB = 3 };
    sbw_lm lm;
    tiny(&lm, &head_cases[5], M, false);
    double *theta = malloc(lm.nparam * sizeof *theta);
    random_theta(&lm, theta, 51);
    size_t ids[N];
    random_ids(ids, N, M, 52);
    sbw_lm_ws *wb = NULL, *w1 = NULL;
    sbw_lm_ws_opts ob = {NB, 4, false, 1, 0, NULL, NULL, NULL, false, false},
                   o1 = {1, 4, false, 1, 0, NULL, NULL, NULL, false, false};
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&wb, &lm, &ob));
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&w1, &lm, &o1));
    sbw_lm_eval_result r;
    double *all = export_rows(wb, theta, ids, N - 1, M, &r);
    size_t lens[NB] = {13, 13, 12}, start = 0; /* (N - 1) = 38 = 13 + 13 + 12 */
    for (size_t j = 0; j < NB; j++) {
        double *seg = export_rows(w1, theta, ids + start, lens[j], M, &r);
        SBW_ASSERT_CLOSE(all + start * M, seg, lens[j] * M, 1e-13, 1e-13);
        free(seg);
        start += lens[j];
    }
    SBW_ASSERT_EQ(start, (size_t)(N - 1));
    free(all);
    free(theta);
    sbw_lm_ws_free(wb);
    sbw_lm_ws_free(w1);
}

/* NR rank of a matrix. */
static size_t nr_rank(double *a, size_t rows, size_t cols)
{
    size_t k = rows < cols ? rows : cols;
    double *s = malloc(k * sizeof *s);
    sbw_mat m = {rows, cols, cols, a, false};
    SBW_ASSERT_OK(sbw_svd_values(&m, s));
    sbw_rank_est e;
    SBW_ASSERT_OK(sbw_rank_estimate(s, k, rows, cols, DBL_EPSILON, &e));
    free(s);
    return e.rank;
}

/* A Softmax head's exported log Q has rank D+2 with a word bias and D+1
 * without (MoS Property 2's matrix: W h + b - lse(h) 1); MoC's never more
 * than the same bound; MoS's (K = 3) more. */
static void test_export_rank_bounds(void **state)
{
    (void)state;
    enum { M = 30, N = 61 };
    const size_t cases[] = {0, 1, 3, 5}; /* softmax, softmax+b, moc+b, mos+b */
    for (size_t c = 0; c < 4; c++) {
        const head_case *hc = &head_cases[cases[c]];
        sbw_lm lm;
        tiny(&lm, hc, M, false);
        double *theta = malloc(lm.nparam * sizeof *theta);
        random_theta(&lm, theta, 31);
        for (size_t i = 0; i < lm.head.nshared; i++) /* logits of order 1, not 0.1 */
            theta[lm.off_head + i] *= 10;
        size_t ids[N];
        random_ids(ids, N, M, 32);
        sbw_lm_ws *ws = NULL;
        sbw_lm_ws_opts o = {2, 8, false, 1, 0, NULL, NULL, NULL, false, false};
        SBW_ASSERT_OK(sbw_lm_ws_alloc(&ws, &lm, &o));
        sbw_lm_eval_result r;
        double *lq = export_rows(ws, theta, ids, N - 1, M, &r);
        size_t rank = nr_rank(lq, N - 1, M), bound = lm.a.d + (hc->bias ? 2 : 1);
        if (hc->model == SBW_MODEL_MOS)
            SBW_ASSERT_GT(rank, bound);
        else if (hc->model == SBW_MODEL_MOC)
            SBW_ASSERT_LE(rank, bound);
        else
            SBW_ASSERT_EQ(rank, bound);
        free(lq);
        free(theta);
        sbw_lm_ws_free(ws);
    }
}

/* ---- training ------------------------------------------------------------ */

/* A corpus directory of one text repeated as train, valid and test. */
static char *write_corpus(const size_t *ids, size_t n, size_t per_line)
{
    char *dir = strdup("/tmp/sbw-test-lm-corpus-XXXXXX");
    assert_non_null(mkdtemp(dir));
    const char *names[] = {"train.txt", "valid.txt", "test.txt"};
    for (size_t f = 0; f < 3; f++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        for (size_t i = 0; i < n; i++)
            fprintf(fp, "w%zu%s", ids[i], (i + 1) % per_line == 0 ? "\n" : " ");
        fclose(fp);
    }
    return dir;
}

static void remove_corpus(char *dir)
{
    const char *names[] = {"train.txt", "valid.txt", "test.txt"};
    for (size_t f = 0; f < 3; f++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[f]);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

/* A tiny model memorises a 200-token text: the training loss goes to
 * near zero (from log 20 = 3.0 nats). */
static void test_overfits_200_tokens(void **state)
{
    (void)state;
    size_t ids[180];
    random_ids(ids, 180, 20, 41);
    char *dir = write_corpus(ids, 180, 9); /* 180 words + 20 <eos> = 200 tokens */
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    SBW_ASSERT_EQ(c->len[SBW_CORPUS_TRAIN], (size_t)200);
    sbw_lm_opts o;
    sbw_lm_opts_init(&o);
    o.arch = (sbw_lm_arch){.model = SBW_MODEL_SOFTMAX,
                           .k = 1,
                           .knots = 1,
                           .plif_t = 10,
                           .bias = true,
                           .d = 16,
                           .emb = 16,
                           .nlayers = 1,
                           .hidden = {64, 0, 0}};
    o.batch = 1, o.bptt = 20, o.eval_batch = 1, o.optimizer = SBW_LM_ADAM, o.lr = 0.01;
    o.clip = 1, o.wdecay = 0, o.drop = (sbw_lm_dropout){0}, o.epochs = 150;
    o.log_every = 10, o.threads = 1, o.quiet = true, o.ckpt_dir = NULL;
    sbw_lm_train_result r;
    SBW_ASSERT_OK(sbw_lm_train(c, &o, false, NULL, "test", &r));
    SBW_ASSERT_EQ(r.epochs, (size_t)150);
    SBW_ASSERT_LT(log(r.train_ppl), 0.05); /* nats per token */
    SBW_ASSERT_LT(log(r.valid_ppl), 0.05); /* valid is the same text */
    sbw_corpus_free(c);
    remove_corpus(dir);
}

/* A mixture head's component maps start at I + 0.5 G_k, G_k ~ N(0, 1/D):
 * the diagonal's mean is 1 and the off-diagonal entries' standard deviation
 * 0.5/sqrt(D), each within five standard errors; the maps differ. */
static void test_init_mixture_near_identity(void **state)
{
    (void)state;
    const sbw_head_model models[] = {SBW_MODEL_MOC, SBW_MODEL_MOS};
    for (size_t t = 0; t < 2; t++) {
        size_t d = 40, k = 5;
        sbw_lm_arch a = {.model = models[t],
                         .k = k,
                         .knots = 1,
                         .plif_t = 3,
                         .bias = true,
                         .d = d,
                         .emb = 8,
                         .nlayers = 1,
                         .hidden = {8, 0, 0}};
        sbw_lm lm;
        SBW_ASSERT_OK(sbw_lm_setup(&lm, &a, 50));
        double *theta = malloc(lm.nparam * sizeof *theta);
        SBW_ASSERT_OK(sbw_lm_init(&lm, theta, 9));
        const double *U = theta + lm.off_head + lm.head.off_u;
        double dsum = 0, osum2 = 0, diff2 = 0;
        size_t nd = k * d, no = k * d * (d - 1);
        for (size_t c = 0; c < k; c++)
            for (size_t i = 0; i < d; i++)
                for (size_t j = 0; j < d; j++) {
                    double u = U[(c * d + i) * d + j];
                    if (i == j)
                        dsum += u;
                    else
                        osum2 += u * u;
                    if (c > 0) {
                        double e = u - U[i * d + j];
                        diff2 += e * e;
                    }
                }
        double sd = SBW_LM_MIX_NOISE / sqrt((double)d);
        SBW_ASSERT_NEAR(dsum / (double)nd, 1.0, 5 * sd / sqrt((double)nd));
        /* the sample variance of no normals has relative sd sqrt(2/no) */
        SBW_ASSERT_NEAR(osum2 / (double)no / (sd * sd), 1.0, 5 * sqrt(2.0 / (double)no));
        /* U_c - U_0 has entries of variance 2 sd^2 */
        SBW_ASSERT_GT(diff2 / (double)((k - 1) * d * d), sd * sd);
        free(theta);
    }
}

/* ---- errors -------------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    sbw_lm lm;
    sbw_lm_arch a = {.model = SBW_MODEL_SOFTMAX, .d = 3, .emb = 4, .nlayers = 1, .hidden = {4}};
    a.tied = true;
    assert_int_equal(sbw_lm_setup(&lm, &a, 10), SBW_EINVAL); /* tied, E != D */
    a.tied = false, a.nlayers = 4;
    assert_int_equal(sbw_lm_setup(&lm, &a, 10), SBW_EINVAL);
    a.nlayers = 1, a.hidden[0] = 0;
    assert_int_equal(sbw_lm_setup(&lm, &a, 10), SBW_EINVAL);
    a.hidden[0] = 4;
    assert_int_equal(sbw_lm_setup(&lm, &a, 1), SBW_EINVAL); /* one word */
    a.d = 11;
    assert_int_equal(sbw_lm_setup(&lm, &a, 10), SBW_EINVAL); /* D > M */
    a.d = 3;
    SBW_ASSERT_OK(sbw_lm_setup(&lm, &a, 10));
    sbw_lm_ws *ws = NULL;
    sbw_lm_ws_opts o = {0, 3, false, 1, 0, NULL, NULL, NULL, false, false};
    assert_int_equal(sbw_lm_ws_alloc(&ws, &lm, &o), SBW_EINVAL);
    assert_null(ws);
    o.batch = 2;
    SBW_ASSERT_OK(sbw_lm_ws_alloc(&ws, &lm, &o));
    double *theta = calloc(lm.nparam, sizeof *theta), *g = calloc(lm.nparam, sizeof *g);
    size_t x[6] = {0, 1, 2, 3, 4, 10}, y[6] = {0};
    sbw_lm_chunk ch = {x, y, 3};
    sbw_pass_result r;
    assert_int_equal(sbw_lm_loss(ws, theta, &ch, NULL, 1, 1, &r, g), SBW_EINVAL); /* id 10 */
    assert_non_null(strstr(sbw_error_reason(), "word id 10"));
    x[5] = 1, ch.steps = 4;
    assert_int_equal(sbw_lm_loss(ws, theta, &ch, NULL, 1, 1, &r, g), SBW_EINVAL); /* steps > T */
    sbw_lm_eval_result er;
    assert_int_equal(sbw_lm_eval_nll(ws, theta, x, 1, NULL, &er), SBW_EINVAL); /* 1 token */
    free(theta);
    free(g);
    sbw_lm_ws_free(ws);
}

/* The memory preflight's count is what the workspace allocates, for every
 * head, both precisions, and the eval bytes add exactly the documented
 * extra buffers (no allocation outside the count). */
static void test_ws_bytes_match_allocations(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof head_cases / sizeof *head_cases; c++) {
        if (head_cases[c].model == SBW_MODEL_LMS)
            continue;
        sbw_lm lm;
        tiny(&lm, &head_cases[c], 9, false);
        for (int single = 0; single < 2; single++) {
            sbw_lm_ws_opts o = {3, 5, single, 1, 0, NULL, NULL, NULL, false, false};
            sbw_lm_ws *ws = NULL;
            SBW_ASSERT_OK(sbw_lm_ws_alloc(&ws, &lm, &o));
            SBW_ASSERT_EQ(sbw_lm_ws_bytes(&lm, &o), sbw_lm_ws_allocated(ws));
            sbw_lm_ws_free(ws);
            SBW_ASSERT_GT(sbw_lm_eval_bytes(&lm, &o, 100, true), sbw_lm_ws_bytes(&lm, &o));
        }
    }
}

/* Messages name the option the value came from: a validation workspace's
 * B is --eval-batch, and a --quick value says so. */
static void test_messages_name_the_option(void **state)
{
    (void)state;
    sbw_lm lm;
    tiny(&lm, &head_cases[0], 9, false);
    sbw_lm_ws *ws = NULL;
    sbw_lm_ws_opts o = {1000000, 100000, false, 1, 0, "--eval-batch", NULL, " (set by --quick)",
                        false,   false};
    assert_int_equal(sbw_lm_ws_alloc(&ws, &lm, &o), SBW_EINVAL);
    assert_non_null(
        strstr(sbw_error_reason(), "--eval-batch 1000000 x --bptt 100000 (set by --quick)"));
    assert_null(strstr(sbw_error_reason(), "--batch "));
    sbw_lm_opts lo;
    sbw_lm_opts_init(&lo);
    lo.quick = "--d --batch --eval-batch";
    assert_string_equal(sbw_lm_opts_note(&lo, "--batch"), " (set by --quick)");
    assert_string_equal(sbw_lm_opts_note(&lo, "--eval-batch"), " (set by --quick)");
    assert_string_equal(sbw_lm_opts_note(&lo, "--bptt"), "");
    assert_string_equal(sbw_lm_opts_note(&lo, "--eval"), ""); /* whole names only */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_fd_every_head),
        cmocka_unit_test(test_gradient_fd_tied),
        cmocka_unit_test(test_float_matches_double),
        cmocka_unit_test(test_deterministic_and_carried),
        cmocka_unit_test(test_eval_matches_export),
        cmocka_unit_test(test_eval_one_column_is_sequential),
        cmocka_unit_test(test_eval_columns_twin),
        cmocka_unit_test(test_export_rank_bounds),
        cmocka_unit_test(test_overfits_200_tokens),
        cmocka_unit_test(test_init_mixture_near_identity),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_ws_bytes_match_allocations),
        cmocka_unit_test(test_messages_name_the_option),
    };
    if (getenv("SBW_TEST_FILTER")) /* e.g. SBW_TEST_FILTER='*fd*' */
        cmocka_set_test_filter(getenv("SBW_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
