/* sbw_kl.c -- exact expected pairwise KL in one pass (see sbw_kl.h). */
#include "sbw_kl.h"

#include "sbw_error.h"
#include "sbw_kl_kern.h"
#include "sbw_num.h"

#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { KL_GROUP = 64, KL_TILE = 512 };

struct sbw_kl_acc {
    size_t cols, group, n;
    double *sp, *sp_c;       /* column sums of p and their TwoSum compensation (cols) */
    double *sl, *sl_c;       /* column sums of log p */
    double *cm, *cm_c;       /* column co-moments sum_c (p - pbar)(l - lbar) */
    double pl, pl_c;         /* sum over rows of sum_x p log p */
    double *shift;           /* KL_TILE workspace: exp of a group's first row */
    double *gsp, *gsl, *gcm; /* one group's tile statistics (KL_TILE) */
    double *rowpl, *rowsum;  /* per row of a group (group) */
    double *mem;
};

/* s + x with the rounding error of the addition collected in c: Knuth's
 * branch-free TwoSum (exact error term), so the loops below vectorise. */
static inline void twosum(double *s, double *c, double x)
{
    double t = *s + x, z = t - *s;
    *c += (*s - (t - z)) + (x - z);
    *s = t;
}

int sbw_kl_acc_alloc(sbw_kl_acc **out, size_t cols, size_t group)
{
    *out = NULL;
    if (cols == 0)
        return SBW_ERROR(SBW_ESHAPE, "pairwise KL needs at least one column");
    group = group ? group : KL_GROUP;
    sbw_kl_acc *a = calloc(1, sizeof *a);
    size_t tile = KL_TILE, total = 6 * cols + 4 * tile + 2 * group;
    if (a && cols < SIZE_MAX / 8 / 6 && group < SIZE_MAX / 8 / 2 - 4 * (size_t)KL_TILE)
        a->mem = malloc(total * sizeof *a->mem);
    if (!a || !a->mem) {
        free(a);
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate the pairwise-KL state (%zu columns)", cols);
    }
    double *p = a->mem;
    double **arrays[] = {&a->sp, &a->sp_c, &a->sl, &a->sl_c, &a->cm, &a->cm_c};
    for (size_t i = 0; i < 6; i++, p += cols)
        *arrays[i] = p;
    a->shift = p;
    p += tile;
    a->gsp = p;
    a->gsl = p + tile;
    a->gcm = p + 2 * tile;
    a->rowpl = p + 3 * tile;
    a->rowsum = a->rowpl + group;
    a->cols = cols;
    a->group = group;
    *out = a;
    return SBW_OK;
}

void sbw_kl_acc_free(sbw_kl_acc *a)
{
    if (!a)
        return;
    free(a->mem);
    free(a);
}

void sbw_kl_acc_reset(sbw_kl_acc *a)
{
    a->n = 0;
    a->pl = a->pl_c = 0.0;
}

/* Folds nb rows with column sums sp, sl and co-moment cm (about their own
 * means) into columns [x0, x0 + w) of a, whose a->n rows came first. */
static void merge_cols(sbw_kl_acc *a, size_t x0, size_t w, const double *sp, const double *sl,
                       const double *cm, size_t nb)
{
    if (a->n == 0) {
        memcpy(a->sp + x0, sp, w * sizeof *sp);
        memcpy(a->sl + x0, sl, w * sizeof *sl);
        memcpy(a->cm + x0, cm, w * sizeof *cm);
        memset(a->sp_c + x0, 0, w * sizeof *sp);
        memset(a->sl_c + x0, 0, w * sizeof *sl);
        memset(a->cm_c + x0, 0, w * sizeof *cm);
        return;
    }
    double na = (double)a->n, nbd = (double)nb;
    double f = na * nbd / (na + nbd), ia = 1.0 / na, ib = 1.0 / nbd;
    double *asp = a->sp + x0, *aspc = a->sp_c + x0, *asl = a->sl + x0, *aslc = a->sl_c + x0;
    double *acm = a->cm + x0, *acmc = a->cm_c + x0;
#pragma omp simd
    for (size_t x = 0; x < w; x++) {
        double dp = sp[x] * ib - (asp[x] + aspc[x]) * ia;
        double dl = sl[x] * ib - (asl[x] + aslc[x]) * ia;
        twosum(&acm[x], &acmc[x], cm[x]);
        twosum(&acm[x], &acmc[x], dp * dl * f);
        twosum(&asp[x], &aspc[x], sp[x]);
        twosum(&asl[x], &aslc[x], sl[x]);
    }
}

/* One group of g <= a->group rows, L is (g, cols) with leading dim ld.
 * Returns whether every entry was finite (else a is unusable). */
static bool add_group(sbw_kl_acc *a, const double *l, size_t g, size_t ld)
{
    bool bad = false;
    for (size_t r = 0; r < g; r++)
        a->rowpl[r] = a->rowsum[r] = 0.0;
    for (size_t x0 = 0; x0 < a->cols; x0 += KL_TILE) {
        size_t w = a->cols - x0 < KL_TILE ? a->cols - x0 : KL_TILE;
        bad |= sbw_kl_kern_group(l + x0, g, w, ld, a->shift, a->gsp, a->gsl, a->gcm, a->rowpl,
                                 a->rowsum);
        merge_cols(a, x0, w, a->gsp, a->gsl, a->gcm, g);
    }
    for (size_t r = 0; r < g; r++)
        twosum(&a->pl, &a->pl_c, a->rowpl[r]);
    a->n += g;
    return !bad;
}

int sbw_kl_acc_add(sbw_kl_acc *a, const double *l, size_t nr, size_t ld, double *sums)
{
    if (ld < a->cols)
        return SBW_ERROR(SBW_EINVAL, "leading dimension %zu < %zu columns", ld, a->cols);
    for (size_t i = 0; i < nr; i += a->group) {
        size_t g = nr - i < a->group ? nr - i : a->group;
        if (!add_group(a, l + i * ld, g, ld))
            return SBW_ERROR(SBW_EDATA, "a NaN or infinite entry in rows %zu..%zu", i, i + g - 1);
        if (sums)
            memcpy(sums + i, a->rowsum, g * sizeof *sums);
    }
    return SBW_OK;
}

int sbw_kl_acc_merge(sbw_kl_acc *a, sbw_kl_acc *b)
{
    if (a->cols != b->cols)
        return SBW_ERROR(SBW_ESHAPE, "cannot merge pairwise-KL states of %zu and %zu columns",
                         a->cols, b->cols);
    if (b->n == 0)
        return SBW_OK;
    for (size_t x = 0; x < b->cols; x++) {
        b->sp[x] += b->sp_c[x];
        b->sl[x] += b->sl_c[x];
        b->cm[x] += b->cm_c[x];
    }
    merge_cols(a, 0, a->cols, b->sp, b->sl, b->cm, b->n);
    twosum(&a->pl, &a->pl_c, b->pl + b->pl_c);
    a->n += b->n;
    sbw_kl_acc_reset(b);
    return SBW_OK;
}

int sbw_kl_acc_result(const sbw_kl_acc *a, sbw_kl_exact *out)
{
    if (a->n < 2)
        return SBW_ERROR(SBW_ESHAPE, "expected pairwise KL needs at least 2 rows, got %zu", a->n);
    double t = (double)a->n, e = 0.0, ec = 0.0, h = 0.0, hc = 0.0;
    for (size_t x = 0; x < a->cols; x++) {
        twosum(&e, &ec, a->cm[x] + a->cm_c[x]);
        double pb = (a->sp[x] + a->sp_c[x]) / t;
        if (pb > 0.0)
            twosum(&h, &hc, -pb * log(pb));
    }
    *out = (sbw_kl_exact){.rows = a->n, .cols = a->cols};
    out->expected_kl = (e + ec) / (t - 1.0);
    out->mean_entropy = -(a->pl + a->pl_c) / t;
    out->entropy_of_mean = h + hc;
    out->js_spread = out->entropy_of_mean - out->mean_entropy;
    return SBW_OK;
}

int sbw_kl_exact_mat(const sbw_mat *l, const sbw_kl_opts *o, sbw_kl_exact *out)
{
    sbw_kl_acc *a;
    int st = sbw_kl_acc_alloc(&a, l->cols, o ? o->group : 0);
    if (st)
        return st;
    st = sbw_kl_acc_add(a, l->data, l->rows, l->ld, NULL);
    if (!st)
        st = sbw_kl_acc_result(a, out);
    sbw_kl_acc_free(a);
    return st;
}

/* ---- the streaming pass over a file ------------------------------------- */

typedef struct kl_plan {
    size_t cols, group, block, chunk, nchunks, rows;
} kl_plan;

typedef struct kl_worker {
    sbw_kl_acc *acc;
    double *buf, *sums; /* block x cols, block */
} kl_worker;

/* Blocks of about 1 MB are read and added at once, chunks of about 16 MB
 * are the units of parallel work; both are multiples of the group, so
 * groups fall on the same rows whatever the thread count. */
static kl_plan make_plan(const sbw_logp_reader *r, const sbw_logp_sel *s, const sbw_kl_opts *o)
{
    kl_plan p = {.cols = sbw_logp_info(r)->cols, .rows = s->n};
    p.group = o && o->group ? o->group : KL_GROUP;
    size_t rowbytes = p.cols * sizeof(double);
    size_t groups = ((size_t)1 << 20) / rowbytes / p.group;
    p.block = p.group * (groups ? groups : 1);
    if (o && o->chunk) {
        p.chunk = (o->chunk + p.group - 1) / p.group * p.group;
        p.block = p.block < p.chunk ? p.block : p.chunk;
    } else {
        size_t blocks = ((size_t)16 << 20) / (p.block * rowbytes);
        p.chunk = p.block * (blocks ? blocks : 1);
    }
    p.nchunks = (p.rows + p.chunk - 1) / p.chunk;
    return p;
}

static void workers_free(kl_worker *w, int n)
{
    for (int i = 0; w && i < n; i++) {
        sbw_kl_acc_free(w[i].acc);
        free(w[i].buf);
        free(w[i].sums);
    }
    free(w);
}

static int workers_alloc(kl_worker **out, int n, const kl_plan *p)
{
    if (n < 1)
        return SBW_ERROR(SBW_EINVAL, "no workers");
    kl_worker *w = calloc((size_t)n, sizeof *w);
    int st = w ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (int i = 0; i < n && !st; i++) {
        st = sbw_kl_acc_alloc(&w[i].acc, p->cols, p->group);
        w[i].buf = malloc(p->block * p->cols * sizeof *w[i].buf);
        w[i].sums = malloc(p->block * sizeof *w[i].sums);
        if (!st && (!w[i].buf || !w[i].sums))
            st = SBW_ERROR(SBW_ENOMEM, "cannot allocate a %zu-row block", p->block);
    }
    if (st) {
        workers_free(w, n);
        return st;
    }
    *out = w;
    return SBW_OK;
}

/* Adds and checks nb rows (selected rows k0 ..) into w->acc. */
static int add_rows(sbw_logp_reader *r, const sbw_logp_sel *s, const kl_plan *p, size_t k0,
                    size_t nb, const double *rows, kl_worker *w)
{
    int st = sbw_kl_acc_add(w->acc, rows, nb, p->cols, w->sums);
    if (st == SBW_EDATA) { /* the kernel met a NaN or inf: name the first */
        int at = sbw_logp_check_finite(r, s, k0, nb, rows);
        st = at ? at : st;
    }
    return st ? st : sbw_logp_check_sums(r, s, k0, nb, rows, w->sums);
}

/* Selected rows [k0, k0 + len) into w->acc: straight from the page cache
 * when the file can be mapped (no copy), else read block by block. */
static int run_chunk(sbw_logp_reader *r, const sbw_logp_sel *s, const kl_plan *p, size_t k0,
                     size_t len, kl_worker *w)
{
    int st = SBW_OK;
    sbw_kl_acc_reset(w->acc);
    sbw_npy_view v = {0};
    bool mapped = sbw_logp_view(r, s, k0, len, &v);
    for (size_t k = 0; k < len && !st; k += p->block) {
        size_t nb = len - k < p->block ? len - k : p->block;
        const double *rows = mapped ? v.rows + k * p->cols : w->buf;
        if (!mapped)
            st = sbw_logp_read_deferred(r, s, k0 + k, nb, w->buf);
        if (!st)
            st = add_rows(r, s, p, k0 + k, nb, rows, w);
    }
    sbw_npy_view_release(&v);
    return st;
}

/* Chunks in parallel, folded into total in chunk order. */
static int parallel_pass(sbw_logp_reader **team, int nteam, const sbw_logp_sel *s, const kl_plan *p,
                         kl_worker *w, sbw_kl_acc *total, sbw_progress *pg)
{
    sbw_logp_fail fail;
    sbw_logp_fail_init(&fail);
    size_t done = 0;
#pragma omp parallel num_threads(nteam)
    {
        int t = omp_get_thread_num();
#pragma omp for ordered schedule(dynamic, 1)
        for (size_t c = 0; c < p->nchunks; c++) {
            size_t k0 = c * p->chunk, len = p->rows - k0 < p->chunk ? p->rows - k0 : p->chunk;
            int st = SBW_OK;
            if (!sbw_logp_fail_skip(&fail, c))
                st = run_chunk(team[t], s, p, k0, len, &w[t]);
            if (st)
                sbw_logp_fail_note(&fail, st, c);
#pragma omp ordered
            {
                if (!st && !sbw_logp_fail_skip(&fail, c + 1))
                    sbw_kl_acc_merge(total, w[t].acc);
                done += len;
                if (pg)
                    sbw_progress_update(pg, (double)done);
            }
        }
    }
    return sbw_logp_fail_raise(&fail);
}

int sbw_kl_exact_file(sbw_logp_reader *r, const sbw_logp_sel *s, const sbw_kl_opts *o,
                      sbw_progress *pg, sbw_kl_exact *out)
{
    if (s->n < 2)
        return SBW_ERROR(SBW_ESHAPE, "%s: expected pairwise KL needs at least 2 rows, got %zu",
                         sbw_logp_path(r), s->n);
    kl_plan p = make_plan(r, s, o);
    sbw_logp_reader **team = NULL;
    kl_worker *w = NULL;
    sbw_kl_acc *total = NULL;
    int nopen = 0, want = o && o->threads > 0 ? o->threads : omp_get_max_threads();
    want = (size_t)want > p.nchunks ? (int)p.nchunks : want;
    int st = sbw_logp_team_open(r, want, &team, &nopen);
    int nteam = nopen;
    if (!st)
        st = workers_alloc(&w, nteam, &p);
    if (!st)
        st = sbw_kl_acc_alloc(&total, p.cols, p.group);
    if (!st)
        st = parallel_pass(team, nteam, s, &p, w, total, pg);
    if (!st)
        st = sbw_kl_acc_result(total, out);
    sbw_kl_acc_free(total);
    workers_free(w, nteam);
    sbw_logp_team_close(team, nopen);
    return st;
}

/* ---- naive twins -------------------------------------------------------- */

int sbw_kl_ref_exact(const sbw_mat *l, sbw_kl_exact *out)
{
    size_t t = l->rows, m = l->cols;
    if (t < 2 || m == 0)
        return SBW_ERROR(SBW_ESHAPE, "expected pairwise KL needs >= 2 rows and >= 1 column");
    double *pbar = calloc(m, sizeof *pbar);
    if (!pbar)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    double kl = 0.0, h = 0.0, hm = 0.0;
    for (size_t c = 0; c < t; c++) {
        const double *lc = l->data + c * l->ld;
        for (size_t d = 0; d < t; d++)
            if (d != c)
                kl += sbw_num_kl(lc, l->data + d * l->ld, m);
        h += sbw_num_entropy(lc, m);
        for (size_t x = 0; x < m; x++)
            pbar[x] += exp(lc[x]) / (double)t;
    }
    for (size_t x = 0; x < m; x++)
        if (pbar[x] > 0.0)
            hm -= pbar[x] * log(pbar[x]);
    free(pbar);
    *out = (sbw_kl_exact){.rows = t, .cols = m, .entropy_of_mean = hm};
    out->expected_kl = kl / ((double)t * (double)(t - 1));
    out->mean_entropy = h / (double)t;
    out->js_spread = hm - out->mean_entropy;
    return SBW_OK;
}

/* Two passes: the means first, then the co-moment about them. */
void sbw_kl_ref_group(const double *l, size_t g, size_t n, size_t ld, double *a, double *sp,
                        double *sl, double *cm, double *rowpl, double *rowsum)
{
    for (size_t x = 0; x < n; x++) {
        sp[x] = sl[x] = cm[x] = 0.0;
        a[x] = exp(l[x]);
    }
    for (size_t r = 0; r < g; r++)
        for (size_t x = 0; x < n; x++) {
            double v = l[r * ld + x], p = exp(v);
            sp[x] += p;
            sl[x] += v;
            rowpl[r] += p * v;
            rowsum[r] += p;
        }
    for (size_t r = 0; r < g; r++)
        for (size_t x = 0; x < n; x++)
            cm[x] += (exp(l[r * ld + x]) - sp[x] / (double)g) * (l[r * ld + x] - sl[x] / (double)g);
}

double sbw_kl_ref_exp(const double *l, double *p, size_t n, double *plogp)
{
    double s = 0.0, pl = 0.0;
    for (size_t x = 0; x < n; x++) {
        p[x] = exp(l[x]);
        s += p[x];
        pl += p[x] * l[x];
    }
    *plogp = pl;
    return s;
}

double sbw_kl_ref_pair(const double *pa, const double *la, const double *lb, size_t n)
{
    double s = 0.0;
    for (size_t x = 0; x < n; x++)
        s += pa[x] * (la[x] - lb[x]);
    return s;
}
