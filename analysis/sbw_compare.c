/* sbw_compare.c -- model-versus-truth metrics per context (see
 * sbw_compare.h). */
#include "sbw_compare.h"

#include "sbw_compare_kern.h"
#include "sbw_error.h"
#include "sbw_num.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

size_t sbw_compare_ws(size_t m) { return (m + SBW_CMP_TOPK_BLOCK - 1) / SBW_CMP_TOPK_BLOCK; }

size_t sbw_compare_k(size_t i)
{
    static const size_t k[SBW_COMPARE_NK] = {1, 5, 10};
    return i < SBW_COMPARE_NK ? k[i] : 0;
}

/* |{a[0..k)} ∩ {b[0..k)}| for index lists of distinct entries. */
static unsigned char overlap(const size_t *a, const size_t *b, size_t k)
{
    unsigned char n = 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++)
            n += a[i] == b[j];
    return n;
}

/* Modes, ties, overlaps from the top lists tp, tq (kk >= 1 entries each). */
static void fill_ranks(const double *lp, const double *lq, const size_t *tp, const size_t *tq,
                       size_t kk, sbw_compare_row *out)
{
    if (kk == 0) /* no words: nothing to rank (callers need m >= 1) */
        return;
    out->mode_p = tp[0];
    out->mode_q = tq[0];
    out->tie_p = kk > 1 && lp[tp[1]] == lp[tp[0]];
    out->tie_q = kk > 1 && lq[tq[1]] == lq[tq[0]];
    for (size_t i = 0; i < SBW_COMPARE_NK; i++) {
        size_t k = sbw_compare_k(i);
        out->overlap[i] = overlap(tp, tq, k < kk ? k : kk);
    }
}

/* The 1-based rank of entry i when it is in the top list t (kk entries,
 * ordered by value descending, index ascending: the order of the rank's
 * definition), else 0. */
static size_t rank_from_top(const size_t *t, size_t kk, size_t i)
{
    for (size_t r = 0; r < kk; r++)
        if (t[r] == i)
            return r + 1;
    return 0;
}

static void fill_sums(const double *s, sbw_compare_row *out)
{
    out->kl = s[SBW_CMP_KL];
    out->cross_entropy = -s[SBW_CMP_PLQ];
    out->entropy = -s[SBW_CMP_PLP];
    out->row_err = sqrt(s[SBW_CMP_SQ]);
    out->max_abs = s[SBW_CMP_MAXABS];
}

bool sbw_compare_row_fast(const double *lp, const double *lq, size_t m, double *ws,
                          sbw_compare_row *out, double sums[2])
{
    double s[SBW_CMP_NSUMS];
    size_t tp[SBW_COMPARE_KMAX], tq[SBW_COMPARE_KMAX];
    if (!sbw_compare_kern_sums(lp, lq, m, s))
        return false;
    fill_sums(s, out);
    size_t kk = sbw_compare_kern_topk(lp, m, SBW_COMPARE_KMAX, tp, ws);
    sbw_compare_kern_topk(lq, m, SBW_COMPARE_KMAX, tq, ws);
    fill_ranks(lp, lq, tp, tq, kk, out);
    out->rank = rank_from_top(tq, kk, out->mode_p);
    if (out->rank == 0) /* P's mode is not in Q's top list: count */
        out->rank = sbw_compare_kern_rank(lq, m, out->mode_p);
    if (sums) {
        sums[0] = s[SBW_CMP_SUM_P];
        sums[1] = s[SBW_CMP_SUM_Q];
    }
    return true;
}

int sbw_compare_mats(const sbw_mat *p, const sbw_mat *q, sbw_compare_row *rows)
{
    if (p->rows != q->rows || p->cols != q->cols || p->cols == 0)
        return SBW_ERROR(SBW_ESHAPE, "cannot compare a %zu x %zu matrix with a %zu x %zu one",
                         p->rows, p->cols, q->rows, q->cols);
    double *ws = malloc(sbw_compare_ws(p->cols) * sizeof *ws);
    if (!ws)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = SBW_OK;
    for (size_t i = 0; i < p->rows && !st; i++)
        if (!sbw_compare_row_fast(p->data + i * p->ld, q->data + i * q->ld, p->cols, ws, &rows[i],
                                  NULL))
            st = SBW_ERROR(SBW_EDATA, "row %zu of P or Q has a NaN or infinite entry", i);
    free(ws);
    return st;
}

/* ---- from files ---------------------------------------------------------- */

typedef struct cmp_worker {
    sbw_logp_reader *p, *q;
    double *bp, *bq, *ws, *sp, *sq; /* block x m twice, 2 m, block twice */
} cmp_worker;

/* About 1 MB of each file per block of rows. */
static size_t cmp_block(size_t m)
{
    size_t b = ((size_t)1 << 20) / (m * sizeof(double));
    return b ? b : 1;
}

static void cmp_workers_free(cmp_worker *w, int n)
{
    for (int i = 0; w && i < n; i++)
        free(w[i].bp);
    free(w);
}

static int cmp_workers_alloc(cmp_worker **out, sbw_logp_reader **tp, sbw_logp_reader **tq, int n,
                             size_t m)
{
    if (n < 1)
        return SBW_ERROR(SBW_EINVAL, "no workers");
    size_t b = cmp_block(m);
    cmp_worker *w = calloc((size_t)n, sizeof *w);
    int st = w ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (int i = 0; i < n && !st; i++) {
        double *mem = malloc((2 * b * m + sbw_compare_ws(m) + 2 * b) * sizeof *mem);
        if (!mem) {
            st = SBW_ERROR(SBW_ENOMEM, "cannot allocate a %zu-row block", b);
            break;
        }
        w[i] = (cmp_worker){.p = tp[i],
                            .q = tq[i],
                            .bp = mem,
                            .bq = mem + b * m,
                            .ws = mem + 2 * b * m,
                            .sp = mem + 2 * b * m + sbw_compare_ws(m),
                            .sq = mem + 2 * b * m + sbw_compare_ws(m) + b};
    }
    if (st) {
        cmp_workers_free(w, n);
        return st;
    }
    *out = w;
    return SBW_OK;
}

/* Rows [k0, k0 + nb) of both files, lp and lq (nb x m), compared and
 * checked. */
static int cmp_block_rows(cmp_worker *w, const sbw_logp_sel *s, size_t k0, size_t nb, size_t m,
                          const double *lp, const double *lq, sbw_compare_row *rows)
{
    int st = SBW_OK;
    for (size_t i = 0; i < nb && !st; i++) {
        double sums[2];
        const double *p = lp + i * m, *q = lq + i * m;
        if (sbw_compare_row_fast(p, q, m, w->ws, &rows[k0 + i], sums)) {
            w->sp[i] = sums[0];
            w->sq[i] = sums[1];
            continue;
        }
        st = sbw_logp_check_finite(w->p, s, k0 + i, 1, p); /* names the entry */
        st = st ? st : sbw_logp_check_finite(w->q, s, k0 + i, 1, q);
        st = st ? st : SBW_ERROR(SBW_EDATA, "row %zu: a NaN or infinite entry", k0 + i);
    }
    st = st ? st : sbw_logp_check_sums(w->p, s, k0, nb, lp, w->sp);
    return st ? st : sbw_logp_check_sums(w->q, s, k0, nb, lq, w->sq);
}

/* Blocks per unit of parallel work (about 16 MB of each file). */
enum { CMP_CHUNK_BLOCKS = 16 };

/* Rows [k0, k0 + len) of both files: straight from the page cache where a
 * file can be mapped (no copy), else read a block at a time. */
static int cmp_chunk(cmp_worker *w, const sbw_logp_sel *s, size_t k0, size_t len, size_t m,
                     sbw_compare_row *rows)
{
    sbw_npy_view vp = {0}, vq = {0};
    bool mp = sbw_logp_view(w->p, s, k0, len, &vp), mq = sbw_logp_view(w->q, s, k0, len, &vq);
    size_t b = cmp_block(m);
    int st = SBW_OK;
    for (size_t k = 0; k < len && !st; k += b) {
        size_t nb = len - k < b ? len - k : b;
        const double *lp = mp ? vp.rows + k * m : w->bp, *lq = mq ? vq.rows + k * m : w->bq;
        st = mp ? SBW_OK : sbw_logp_read_deferred(w->p, s, k0 + k, nb, w->bp);
        if (!st && !mq)
            st = sbw_logp_read_deferred(w->q, s, k0 + k, nb, w->bq);
        if (!st)
            st = cmp_block_rows(w, s, k0 + k, nb, m, lp, lq, rows);
    }
    sbw_npy_view_release(&vp);
    sbw_npy_view_release(&vq);
    return st;
}

static int cmp_pass(cmp_worker *w, int nw, const sbw_logp_sel *s, size_t m, sbw_progress *pg,
                    sbw_compare_row *rows)
{
    sbw_logp_fail fail;
    sbw_logp_fail_init(&fail);
    size_t cb = cmp_block(m) * CMP_CHUNK_BLOCKS, nchunks = (s->n + cb - 1) / cb, done = 0;
#pragma omp parallel for num_threads(nw) schedule(dynamic, 1)
    for (size_t c = 0; c < nchunks; c++) {
        int t = omp_get_thread_num();
        size_t k0 = c * cb, len = s->n - k0 < cb ? s->n - k0 : cb;
        if (sbw_logp_fail_skip(&fail, c))
            continue;
        int st = cmp_chunk(&w[t], s, k0, len, m, rows);
        if (st)
            sbw_logp_fail_note(&fail, st, c);
#pragma omp critical(sbw_compare_progress)
        {
            done += len;
            if (pg)
                sbw_progress_update(pg, (double)done);
        }
    }
    return sbw_logp_fail_raise(&fail);
}

static int check_shapes(const sbw_logp_reader *p, const sbw_logp_reader *q)
{
    const sbw_npy_info *a = sbw_logp_info(p), *b = sbw_logp_info(q);
    if (a->rows != b->rows || a->cols != b->cols)
        return SBW_ERROR(SBW_ESHAPE,
                         "%s is %zu x %zu but %s is %zu x %zu: rows must be the same contexts "
                         "and columns the same words",
                         sbw_logp_path(p), a->rows, a->cols, sbw_logp_path(q), b->rows, b->cols);
    if (a->rows == 0 || a->cols == 0)
        return SBW_ERROR(SBW_ESHAPE, "%s is %zu x %zu: nothing to compare", sbw_logp_path(p),
                         a->rows, a->cols);
    return SBW_OK;
}

int sbw_compare_files(sbw_logp_reader *p, sbw_logp_reader *q, int threads, sbw_progress *pg,
                      sbw_compare_row *rows)
{
    int st = check_shapes(p, q), np = 0, nq = 0;
    sbw_logp_reader **tp = NULL, **tq = NULL;
    cmp_worker *w = NULL;
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, sbw_logp_info(p)->rows);
    if (!st)
        st = sbw_logp_team_open(p, threads, &tp, &np);
    if (!st)
        st = sbw_logp_team_open(q, np, &tq, &nq);
    int nw = np < nq ? np : nq;
    if (!st)
        st = cmp_workers_alloc(&w, tp, tq, nw, sbw_logp_info(p)->cols);
    if (!st)
        st = cmp_pass(w, nw, &s, sbw_logp_info(p)->cols, pg, rows);
    cmp_workers_free(w, nw);
    sbw_logp_team_close(tq, nq);
    sbw_logp_team_close(tp, np);
    return st;
}

/* ---- summary ------------------------------------------------------------ */

/* s + x with the exact rounding error collected in c (TwoSum). */
static void twosum(double *s, double *c, double x)
{
    double t = *s + x, z = t - *s;
    *c += (*s - (t - z)) + (x - z);
    *s = t;
}

static double median_of(double *v, size_t n)
{
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Means of the per-row values, compensated. */
static void summarize_means(const sbw_compare_row *rows, size_t n, size_t m, sbw_compare_summary *o)
{
    double s[5 + SBW_COMPARE_NK][2] = {{0}};
    for (size_t i = 0; i < n; i++) {
        const sbw_compare_row *r = &rows[i];
        twosum(&s[0][0], &s[0][1], r->kl);
        twosum(&s[1][0], &s[1][1], r->cross_entropy);
        twosum(&s[2][0], &s[2][1], r->entropy);
        twosum(&s[3][0], &s[3][1], (double)r->rank);
        twosum(&s[4][0], &s[4][1], r->row_err * r->row_err);
        for (size_t k = 0; k < SBW_COMPARE_NK; k++)
            twosum(&s[5 + k][0], &s[5 + k][1], (double)r->overlap[k]);
    }
    double dn = (double)n;
    o->kl_mean = (s[0][0] + s[0][1]) / dn;
    o->cross_entropy = (s[1][0] + s[1][1]) / dn;
    o->entropy = (s[2][0] + s[2][1]) / dn;
    o->perplexity = exp(o->cross_entropy);
    o->rank_mean = (s[3][0] + s[3][1]) / dn;
    o->frob_rms = sqrt((s[4][0] + s[4][1]) / dn);
    for (size_t k = 0; k < SBW_COMPARE_NK; k++) {
        size_t kk = sbw_compare_k(k) < m ? sbw_compare_k(k) : m;
        o->top_overlap[k] = (s[5 + k][0] + s[5 + k][1]) / dn / (double)kk;
    }
}

static void summarize_counts(const sbw_compare_row *rows, size_t n, sbw_compare_summary *o)
{
    for (size_t i = 0; i < n; i++) {
        const sbw_compare_row *r = &rows[i];
        o->mode_matches += r->mode_p == r->mode_q;
        o->ties_p += r->tie_p;
        o->ties_q += r->tie_q;
        if (r->row_err > o->max_row_err || i == 0) {
            o->max_row_err = r->row_err;
            o->max_row_err_row = i;
        }
        o->max_abs_err = r->max_abs > o->max_abs_err ? r->max_abs : o->max_abs_err;
    }
    o->mode_match = (double)o->mode_matches / (double)n;
}

int sbw_compare_summarize(const sbw_compare_row *rows, size_t n, size_t m, sbw_compare_summary *out)
{
    if (n == 0 || m == 0)
        return SBW_ERROR(SBW_EINVAL, "no rows to summarise");
    double *v = malloc(n * sizeof *v);
    if (!v)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    sbw_compare_summary o = {.rows = n, .cols = m};
    summarize_means(rows, n, m, &o);
    summarize_counts(rows, n, &o);
    for (size_t i = 0; i < n; i++)
        v[i] = rows[i].kl;
    o.kl_median = median_of(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = (double)rows[i].rank;
    o.rank_median = median_of(v, n);
    free(v);
    *out = o;
    return SBW_OK;
}

/* ---- naive twins -------------------------------------------------------- */

typedef struct ranked {
    double v;
    size_t j;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v)
        return x->v > y->v ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* Every index of x in the top-k order, as a new array. */
static int full_order(const double *x, size_t m, ranked **out)
{
    ranked *r = malloc((m ? m : 1) * sizeof *r);
    if (!r)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t j = 0; j < m; j++)
        r[j] = (ranked){x[j], j};
    qsort(r, m, sizeof *r, cmp_ranked);
    *out = r;
    return SBW_OK;
}

int sbw_compare_ref_topk(const double *x, size_t m, size_t k, size_t *idx, size_t *n)
{
    if (m == 0)
        return SBW_ERROR(SBW_EINVAL, "top-k of an empty row");
    ranked *r;
    int st = full_order(x, m, &r);
    if (st)
        return st;
    *n = k < m ? k : m;
    for (size_t i = 0; i < *n; i++)
        idx[i] = r[i].j;
    free(r);
    return SBW_OK;
}

int sbw_compare_ref_rank(const double *x, size_t m, size_t i, size_t *rank)
{
    if (i >= m)
        return SBW_ERROR(SBW_EINVAL, "rank of entry %zu of %zu", i, m);
    ranked *r;
    int st = full_order(x, m, &r);
    if (st)
        return st;
    for (size_t k = 0; k < m; k++)
        if (r[k].j == i)
            *rank = k + 1;
    free(r);
    return SBW_OK;
}

void sbw_compare_ref_sums(const double *lp, const double *lq, size_t m, double *sums)
{
    double sp = 0.0, sq = 0.0, sq2 = 0.0, mx = 0.0;
    for (size_t x = 0; x < m; x++) {
        double d = lp[x] - lq[x];
        sp += exp(lp[x]);
        sq += exp(lq[x]);
        sq2 += d * d;
        mx = fmax(mx, fabs(d));
    }
    sums[SBW_CMP_SUM_P] = sp;
    sums[SBW_CMP_SUM_Q] = sq;
    sums[SBW_CMP_PLP] = -sbw_num_entropy(lp, m);
    sums[SBW_CMP_PLQ] = -sbw_num_cross_entropy(lp, lq, m);
    sums[SBW_CMP_KL] = sbw_num_kl(lp, lq, m);
    sums[SBW_CMP_SQ] = sq2;
    sums[SBW_CMP_MAXABS] = mx;
}

int sbw_compare_ref_row(const double *lp, const double *lq, size_t m, sbw_compare_row *out)
{
    double s[SBW_CMP_NSUMS];
    size_t tp[SBW_COMPARE_KMAX], tq[SBW_COMPARE_KMAX], kk;
    sbw_compare_ref_sums(lp, lq, m, s);
    fill_sums(s, out);
    int st = sbw_compare_ref_topk(lp, m, SBW_COMPARE_KMAX, tp, &kk);
    st = st ? st : sbw_compare_ref_topk(lq, m, SBW_COMPARE_KMAX, tq, &kk);
    if (!st)
        fill_ranks(lp, lq, tp, tq, kk, out);
    return st ? st : sbw_compare_ref_rank(lq, m, out->mode_p, &out->rank);
}
