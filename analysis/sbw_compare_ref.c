/* sbw_compare_ref.c -- naive twins of sbw_compare_kern.c and of
 * sbw_compare_row_fast: plain loops, sbw_num_* sums, full sorts.  Test
 * oracles only: production code calls none of them. */
#include "sbw_compare_ref.h"

#include "sbw_compare_kern.h"
#include "sbw_error.h"
#include "sbw_num.h"

#include <math.h>
#include <stdlib.h>

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
    int st = sbw_compare_ref_topk(lp, m, SBW_COMPARE_KMAX, tp, &kk);
    st = st ? st : sbw_compare_ref_topk(lq, m, SBW_COMPARE_KMAX, tq, &kk);
    if (!st)
        sbw_compare_row_fill(lp, lq, s, tp, tq, kk, out);
    return st ? st : sbw_compare_ref_rank(lq, m, out->mode_p, &out->rank);
}
