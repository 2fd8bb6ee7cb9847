/* sbw_obj.c -- sbw-fit's objective over the head pass (see sbw_obj.h). */
#include "sbw_obj.h"

#include "sbw_error.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

struct sbw_obj {
    sbw_head h;
    const sbw_target *t;
    sbw_pass_ws *ws;
    size_t block;
    unsigned char *seen; /* (N) repeated-row check */
    double *hb, *dhb;    /* (cap, D) a minibatch's rows of H and their gradient */
    size_t cap;          /* rows hb and dhb hold (grown on demand) */
};

size_t sbw_obj_auto_block(const sbw_head *h, const sbw_obj_opts *opts)
{
    size_t nx = sbw_head_nx(h), item = opts->single ? 4 : 8;
    size_t nt = (size_t)(opts->threads > 0 ? opts->threads : omp_get_max_threads());
    size_t b = ((size_t)1 << 20) / (nx * h->m * item + 1);
    b = b < 64 ? 64 : b > 1024 ? 1024 : b;
    if (opts->par == SBW_PASS_PAR_BLAS)
        b *= nt;
    else /* equal blocks, a multiple of the thread count of them */
        b = (h->n + nt * ((h->n + nt * b - 1) / (nt * b)) - 1) /
            (nt * ((h->n + nt * b - 1) / (nt * b)));
    return b < h->n ? (b ? b : 1) : h->n;
}

/* The pass's options: the block resolved against N. */
static sbw_pass_opts pass_opts(const sbw_head *h, const sbw_obj_opts *opts)
{
    sbw_pass_opts po = *opts;
    po.block =
        opts->block ? (opts->block < h->n ? opts->block : h->n) : sbw_obj_auto_block(h, opts);
    return po;
}

double sbw_obj_workspace_bytes(const sbw_head *h, const sbw_obj_opts *opts)
{
    sbw_pass_opts po = pass_opts(h, opts);
    return sbw_pass_ws_bytes(h, &po) + (double)h->n;
}

int sbw_obj_alloc(sbw_obj **out, const sbw_head *h, const sbw_target *t, const sbw_obj_opts *opts)
{
    *out = NULL;
    if (t->n != h->n || t->m != h->m)
        return SBW_ERROR(SBW_ESHAPE, "P* is %zu x %zu, the head expects %zu x %zu", t->n, t->m,
                         h->n, h->m);
    sbw_obj *o = calloc(1, sizeof *o);
    if (!o)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    *o = (sbw_obj){.h = *h, .t = t};
    sbw_pass_opts po = pass_opts(h, opts);
    o->block = po.block;
    int st = sbw_pass_ws_alloc(&o->ws, h, &po);
    if (!st && !(o->seen = calloc(h->n, 1)))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (st) {
        sbw_obj_free(o);
        return st;
    }
    *out = o;
    return SBW_OK;
}

void sbw_obj_free(sbw_obj *o)
{
    if (!o)
        return;
    sbw_pass_ws_free(o->ws);
    free(o->seen);
    free(o->hb);
    free(o->dhb);
    free(o);
}

size_t sbw_obj_block(const sbw_obj *o) { return o->block; }

int sbw_obj_threads(const sbw_obj *o) { return sbw_pass_ws_opts(o->ws).threads; }

static int check_rows(sbw_obj *o, const size_t *rows, size_t nrows)
{
    if (nrows == 0)
        return SBW_ERROR(SBW_EINVAL, "no contexts to evaluate");
    if (!rows)
        return SBW_OK;
    int st = SBW_OK;
    for (size_t i = 0; i < nrows && !st; i++) {
        if (rows[i] >= o->h.n)
            st = SBW_ERROR(SBW_EINVAL, "context %zu out of range (N = %zu)", rows[i], o->h.n);
        else if (o->seen[rows[i]])
            st = SBW_ERROR(SBW_EINVAL, "context %zu repeated in a minibatch", rows[i]);
        else
            o->seen[rows[i]] = 1;
    }
    for (size_t i = 0; i < nrows; i++)
        if (rows[i] < o->h.n)
            o->seen[rows[i]] = 0;
    return st;
}

/* Room for a minibatch of n rows of H and dH.  Errors: SBW_ENOMEM. */
static int reserve_rows(sbw_obj *o, size_t n)
{
    if (n <= o->cap)
        return SBW_OK;
    size_t bytes = 0;
    int st = sbw_mat_bytes(n, o->h.d, sizeof(double), &bytes);
    if (st)
        return st;
    free(o->hb);
    free(o->dhb);
    o->hb = malloc(bytes);
    o->dhb = malloc(bytes);
    o->cap = o->hb && o->dhb ? n : 0;
    return o->cap ? SBW_OK
                  : SBW_ERROR(SBW_ENOMEM, "cannot allocate %.3g MB for a minibatch",
                              2 * (double)bytes / 1e6);
}

/* rows[0..n) of src (N x D) into dst (n x D), or back (scatter). */
static void gather_rows(const double *src, const size_t *rows, size_t n, size_t d, double *dst)
{
    for (size_t i = 0; i < n; i++)
        memcpy(dst + i * d, src + rows[i] * d, d * sizeof *dst);
}

static void scatter_rows(const double *src, const size_t *rows, size_t n, size_t d, double *dst)
{
    for (size_t i = 0; i < n; i++)
        memcpy(dst + rows[i] * d, src + i * d, d * sizeof *dst);
}

int sbw_obj_eval(sbw_obj *o, const double *theta, const size_t *rows, size_t nrows,
                 sbw_obj_result *res, double *grad)
{
    nrows = rows ? nrows : o->h.n;
    int st = check_rows(o, rows, nrows);
    if (st)
        return st;
    size_t d = o->h.d, off = o->h.off_h;
    sbw_pass_target tg = {.p = o->t, .rows = rows};
    if (!rows) /* every context in order: H and dH are theta's and grad's own rows */
        return sbw_pass_loss(o->ws, theta, theta + off, nrows, d, &tg, res,
                             grad ? grad + off : NULL, d, grad);
    if ((st = reserve_rows(o, nrows)))
        return st;
    gather_rows(theta + off, rows, nrows, d, o->hb);
    st = sbw_pass_loss(o->ws, theta, o->hb, nrows, d, &tg, res, grad ? o->dhb : NULL, d, grad);
    if (!st && grad)
        scatter_rows(o->dhb, rows, nrows, d, grad + off);
    return st;
}

int sbw_obj_logq(sbw_obj *o, const double *theta, size_t r0, size_t nr, double *lq,
                 const double *logp, sbw_obj_result *res)
{
    if (nr == 0 || r0 > o->h.n || nr > o->h.n - r0)
        return SBW_ERROR(SBW_EINVAL, "contexts %zu..%zu out of range (N = %zu)", r0, r0 + nr,
                         o->h.n);
    size_t d = o->h.d, m = o->h.m;
    sbw_pass_target tg = {.p = o->t, .r0 = r0};
    return sbw_pass_logq(o->ws, theta, theta + o->h.off_h + r0 * d, nr, d, lq, m, &tg, logp, m,
                         res);
}
