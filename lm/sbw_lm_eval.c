/* sbw_lm_eval.c -- perplexity and exported log-probabilities (see
 * sbw_lm_eval.h). */
#include "sbw_lm_eval.h"

#include "sbw_gradneck.h"

#include "sbw_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns of a text of npred predictions: segment j starts at
 * start(j) and has len(j) predictions. */
typedef struct cols {
    size_t B, base, rem;
} cols;

static size_t col_len(const cols *c, size_t j) { return c->base + (j < c->rem); }
static size_t col_start(const cols *c, size_t j) { return j * c->base + (j < c->rem ? j : c->rem); }

/* One pass over the columns in chunks of T steps; calls each(ctx, lat,
 * ch, c, t0) with the chunk's latents (steps*B x D) and the step t0 of
 * its first row. */
typedef int (*chunk_fn)(void *ctx, const double *lat, const sbw_lm_chunk *ch, const cols *c,
                        size_t t0);

static int run_columns(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t npred,
                       sbw_progress *p, chunk_fn each, void *ctx)
{
    sbw_lm_ws_opts o = sbw_lm_ws_options(ws);
    size_t B = o.batch, T = o.steps, D = sbw_lm_ws_model(ws)->head.c;
    cols c = {B, npred / B, npred % B};
    size_t S = c.base + (c.rem > 0);
    size_t *x = malloc(2 * B * T * sizeof *x);
    double *lat = malloc(B * T * D * sizeof *lat);
    int st = x && lat ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    sbw_lm_ws_reset(ws);
    for (size_t t0 = 0; !st && t0 < S; t0 += T) {
        sbw_lm_chunk ch = {x, x + B * T, S - t0 < T ? S - t0 : T};
        for (size_t t = 0; t < ch.steps; t++)
            for (size_t j = 0; j < B; j++) {
                bool in = t0 + t < col_len(&c, j);
                size_t at = col_start(&c, j) + t0 + t;
                x[t * B + j] = in ? ids[at] : 0;
                x[B * T + t * B + j] = in ? ids[at + 1] : 0;
            }
        st = sbw_lm_latent(ws, theta, &ch, lat);
        st = st ? st : each(ctx, lat, &ch, &c, t0);
        if (p)
            sbw_progress_update(
                p, (double)((t0 + ch.steps) * B < npred ? (t0 + ch.steps) * B : npred));
    }
    free(x);
    free(lat);
    return st;
}

/* ---- perplexity ---------------------------------------------------------- */

typedef struct nll_ctx {
    sbw_lm_ws *ws;
    const double *theta;
    double *hc; /* (B*T, D) the chunk's scored rows, compacted */
    size_t *yc; /* their targets */
    double sum; /* sum of -log Q */
    size_t count;
} nll_ctx;

static int nll_chunk(void *vctx, const double *lat, const sbw_lm_chunk *ch, const cols *c,
                     size_t t0)
{
    nll_ctx *n = vctx;
    const sbw_lm *lm = sbw_lm_ws_model(n->ws);
    size_t D = lm->head.c, k = 0;
    for (size_t t = 0; t < ch->steps; t++)
        for (size_t j = 0; j < c->B; j++)
            if (t0 + t < col_len(c, j)) {
                memcpy(n->hc + k * D, lat + (t * c->B + j) * D, D * sizeof *lat);
                n->yc[k++] = ch->y[t * c->B + j];
            }
    if (!k)
        return SBW_OK;
    sbw_pass_target tg = {.ids = n->yc};
    sbw_pass_result r;
    int st = sbw_pass_loss(sbw_lm_ws_pass(n->ws), n->theta + lm->off_head, n->hc, k, D, &tg, &r,
                           NULL, 0, NULL);
    if (st)
        return st;
    n->sum += r.loss * (double)k;
    n->count += k;
    return SBW_OK;
}

static int check_ids(const sbw_lm_ws *ws, const size_t *ids, size_t n)
{
    size_t m = sbw_lm_ws_model(ws)->m;
    if (n < 2)
        return SBW_ERROR(SBW_EINVAL, "a text of %zu token(s) has no prediction to score", n);
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= m)
            return SBW_ERROR(SBW_EINVAL, "token %zu is word id %zu; the vocabulary has %zu", i,
                             ids[i], m);
    return SBW_OK;
}

int sbw_lm_eval_nll(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t n,
                    sbw_progress *p, sbw_lm_eval_result *res)
{
    int st = check_ids(ws, ids, n);
    if (st)
        return st;
    sbw_lm_ws_opts o = sbw_lm_ws_options(ws);
    size_t rows = o.batch * o.steps, D = sbw_lm_ws_model(ws)->head.c;
    nll_ctx c = {ws, theta, malloc(rows * D * sizeof(double)), malloc(rows * sizeof(size_t)), 0, 0};
    st = c.hc && c.yc ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    st = st ? st : run_columns(ws, theta, ids, n - 1, p, nll_chunk, &c);
    free(c.hc);
    free(c.yc);
    if (!st) {
        res->tokens = c.count;
        res->nll = c.sum / (double)c.count;
        res->ppl = exp(res->nll);
    }
    return st;
}

/* ---- export -------------------------------------------------------------- */

typedef struct keep_ctx {
    size_t D, rows;
    double *hall; /* (rows, D) latents in token order */
} keep_ctx;

static int keep_chunk(void *vctx, const double *lat, const sbw_lm_chunk *ch, const cols *c,
                      size_t t0)
{
    keep_ctx *k = vctx;
    for (size_t t = 0; t < ch->steps; t++)
        for (size_t j = 0; j < c->B; j++) {
            size_t at = col_start(c, j) + t0 + t;
            if (t0 + t < col_len(c, j) && at < k->rows)
                memcpy(k->hall + at * k->D, lat + (t * c->B + j) * k->D, k->D * sizeof *lat);
        }
    return SBW_OK;
}

/* Rows of log Q formed and written at a time. */
#define LOGQ_BLOCK 256

double sbw_lm_eval_bytes(const sbw_lm *lm, const sbw_lm_ws_opts *o, size_t rows, bool logprobs)
{
    double BT = (double)o->batch * (double)o->steps, D = (double)lm->head.c;
    double chunk = 2 * BT * sizeof(size_t) + BT * D * sizeof(double); /* run_columns */
    double pass = logprobs ? (double)rows * D * sizeof(double) +
                                 (double)LOGQ_BLOCK * (double)lm->m * sizeof(double)
                           : BT * D * sizeof(double) + BT * sizeof(size_t); /* nll_ctx */
    return sbw_lm_ws_bytes(lm, o) + chunk + pass;
}

/* log Q of the kept latents, blk rows at a time, written in order (out
 * NULL: only *sum, the summed -log Q of the next tokens). */
static int write_rows(sbw_lm_ws *ws, const double *theta, const keep_ctx *k, const size_t *ids,
                      sbw_npy_writer *out, double *sum)
{
    const sbw_lm *lm = sbw_lm_ws_model(ws);
    size_t m = lm->m, blk = LOGQ_BLOCK;
    double *lq = malloc(blk * m * sizeof *lq);
    int st = lq ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory for %zu x %zu rows", blk, m);
    *sum = 0;
    for (size_t r0 = 0; !st && r0 < k->rows; r0 += blk) {
        size_t nb = k->rows - r0 < blk ? k->rows - r0 : blk;
        st = sbw_pass_logq(sbw_lm_ws_pass(ws), theta + lm->off_head, k->hall + r0 * k->D, nb, k->D,
                           lq, m, NULL, NULL, 0, NULL);
        for (size_t i = 0; !st && i < nb; i++)
            *sum -= lq[i * m + ids[r0 + i + 1]];
        st = st || !out ? st : sbw_npy_write_rows(out, lq, nb, m);
    }
    free(lq);
    return st;
}

int sbw_lm_eval_logprobs(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t rows,
                         sbw_npy_writer *out, sbw_progress *p, sbw_lm_eval_result *res)
{
    int st = check_ids(ws, ids, rows + 1);
    if (st)
        return st;
    size_t D = sbw_lm_ws_model(ws)->head.c;
    keep_ctx k = {D, rows, malloc(rows * D * sizeof(double))};
    if (!k.hall)
        return SBW_ERROR(SBW_ENOMEM, "out of memory for the %zu x %zu latent vectors", rows, D);
    st = run_columns(ws, theta, ids, rows, p, keep_chunk, &k);
    double sum = 0;
    st = st ? st : write_rows(ws, theta, &k, ids, out, &sum);
    free(k.hall);
    if (!st) {
        res->tokens = rows;
        res->nll = sum / (double)rows;
        res->ppl = exp(res->nll);
    }
    return st;
}

int sbw_lm_eval_gradneck(sbw_lm_ws *ws, const double *theta, const size_t *ids, size_t rows,
                         sbw_progress *p, double *passed, bool *single_map, sbw_lm_eval_result *res)
{
    int st = check_ids(ws, ids, rows + 1);
    if (st)
        return st;
    const sbw_lm *lm = sbw_lm_ws_model(ws);
    size_t D = lm->head.c;
    keep_ctx k = {D, rows, malloc(rows * D * sizeof(double))};
    sbw_gradneck_ws *g = NULL;
    if (!k.hall)
        return SBW_ERROR(SBW_ENOMEM, "out of memory for the %zu x %zu latent vectors", rows, D);
    st = run_columns(ws, theta, ids, rows, p, keep_chunk, &k);
    double sum = 0;
    st = st ? st : write_rows(ws, theta, &k, ids, NULL, &sum);
    st = st ? st : sbw_gradneck_ws_alloc(&g, &lm->head, theta + lm->off_head);
    st = st ? st : sbw_gradneck_rows(g, k.hall, rows, D, ids + 1, passed);
    if (!st) {
        *single_map = sbw_gradneck_linear(g);
        res->tokens = rows;
        res->nll = sum / (double)rows;
        res->ppl = exp(res->nll);
    }
    sbw_gradneck_ws_free(g);
    free(k.hall);
    return st;
}
