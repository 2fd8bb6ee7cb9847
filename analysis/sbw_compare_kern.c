/* sbw_compare_kern.c -- fast inner loops of sbw_compare.c (finite inputs
 * only; see sbw_compare_kern.h).  exp is inline (sbw_vexp.h), so the sums
 * take one loop and no stored exp(). */
#include "sbw_compare_kern.h"

#include "sbw_vexp.h"

#include <math.h>
#include <stdint.h>

bool sbw_compare_kern_sums(const double *lp, const double *lq, size_t m, double *sums)
{
    double sp = 0.0, sq = 0.0, plp = 0.0, plq = 0.0, kl = 0.0, sq2 = 0.0, mx = 0.0;
    uint64_t ok = UINT64_MAX;
#pragma omp simd reduction(+ : sp, sq, plp, plq, kl, sq2) reduction(max : mx) reduction(min : ok)
    for (size_t x = 0; x < m; x++) {
        uint64_t mp = sbw_vexp_missing_exp(lp[x]), mq = sbw_vexp_missing_exp(lq[x]),
                 mpq = mp < mq ? mp : mq;
        ok = ok < mpq ? ok : mpq;
        double p = sbw_vexp(lp[x]), d = lp[x] - lq[x], a = fabs(d);
        sp += p;
        sq += sbw_vexp(lq[x]);
        plp += p * lp[x];
        plq += p * lq[x];
        kl += p * d;
        sq2 += d * d;
        mx = a > mx ? a : mx;
    }
    sums[SBW_CMP_SUM_P] = sp;
    sums[SBW_CMP_SUM_Q] = sq;
    sums[SBW_CMP_PLP] = plp;
    sums[SBW_CMP_PLQ] = plq;
    sums[SBW_CMP_KL] = kl;
    sums[SBW_CMP_SQ] = sq2;
    sums[SBW_CMP_MAXABS] = mx;
    return ok != 0;
}

/* Inserts (v, j) into the sorted top list of *cnt <= k entries; j is larger
 * than every index already there, so it goes after equal values. */
static void insert(double *val, size_t *idx, size_t *cnt, size_t k, double v, size_t j)
{
    size_t pos = *cnt < k ? (*cnt)++ : k - 1;
    while (pos > 0 && val[pos - 1] < v) {
        val[pos] = val[pos - 1];
        idx[pos] = idx[pos - 1];
        pos--;
    }
    val[pos] = v;
    idx[pos] = j;
}

static double block_max(const double *x, size_t n)
{
    double mx = x[0];
#pragma omp simd reduction(max : mx)
    for (size_t j = 1; j < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    return mx;
}

/* ws[b] = max of block b of x, for the nb blocks of SBW_CMP_TOPK_BLOCK
 * (the last may be short).  Full blocks have a constant length, so each
 * becomes straight-line vector code and the blocks overlap in flight. */
static void block_maxima(const double *x, size_t m, size_t nb, double *ws)
{
    size_t full = m / SBW_CMP_TOPK_BLOCK;
    for (size_t b = 0; b < full; b++) {
        const double *xb = x + b * SBW_CMP_TOPK_BLOCK;
        double mx = xb[0];
#pragma omp simd reduction(max : mx)
        for (size_t j = 0; j < SBW_CMP_TOPK_BLOCK; j++)
            mx = xb[j] > mx ? xb[j] : mx;
        ws[b] = mx;
    }
    if (full < nb)
        ws[full] = block_max(x + full * SBW_CMP_TOPK_BLOCK, m - full * SBW_CMP_TOPK_BLOCK);
}

/* Values only: v joins the k largest values seen (descending). */
static void insert_value(double *val, size_t *cnt, size_t k, double v)
{
    size_t pos = *cnt < k ? (*cnt)++ : k - 1;
    while (pos > 0 && val[pos - 1] < v) {
        val[pos] = val[pos - 1];
        pos--;
    }
    val[pos] = v;
}

/* Plain insertion over entries [j0, j1) that reach floor (no entry below
 * it can be in the list) and beat the list. */
static void scan_range(const double *x, size_t j0, size_t j1, double floor, size_t k, double *val,
                       size_t *idx, size_t *cnt)
{
    for (size_t j = j0; j < j1; j++)
        if (x[j] >= floor && (*cnt < k || x[j] > val[k - 1]))
            insert(val, idx, cnt, k, x[j], j);
}

size_t sbw_compare_kern_topk(const double *x, size_t m, size_t k, size_t *idx, double *ws)
{
    double val[64], tau[64];
    size_t cnt = 0, nt = 0, nb = (m + SBW_CMP_TOPK_BLOCK - 1) / SBW_CMP_TOPK_BLOCK;
    k = k < m ? k : m;
    k = k < 64 ? k : 64;
    if (k == 0)
        return 0;
    if (nb < k) {
        scan_range(x, 0, m, -INFINITY, k, val, idx, &cnt);
        return cnt;
    }
    /* The k-th largest block maximum: k distinct entries reach it, so it
     * bounds the k-th largest entry from below. */
    block_maxima(x, m, nb, ws);
    for (size_t b = 0; b < nb; b++)
        if (nt < k || ws[b] > tau[k - 1])
            insert_value(tau, &nt, k, ws[b]);
    /* a block whose maximum cannot beat a full list is skipped unread */
    for (size_t b = 0; b < nb; b++)
        if (ws[b] >= tau[k - 1] && (cnt < k || ws[b] > val[k - 1])) {
            size_t j0 = b * SBW_CMP_TOPK_BLOCK;
            size_t j1 = m - j0 < SBW_CMP_TOPK_BLOCK ? m : j0 + SBW_CMP_TOPK_BLOCK;
            scan_range(x, j0, j1, tau[k - 1], k, val, idx, &cnt);
        }
    return cnt;
}

size_t sbw_compare_kern_rank(const double *x, size_t m, size_t i)
{
    double v = x[i];
    size_t above = 0, tied = 0;
#pragma omp simd reduction(+ : above)
    for (size_t j = 0; j < m; j++)
        above += x[j] > v;
#pragma omp simd reduction(+ : tied)
    for (size_t j = 0; j < i; j++)
        tied += x[j] == v;
    return 1 + above + tied;
}
