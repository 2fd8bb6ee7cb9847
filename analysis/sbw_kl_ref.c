/* sbw_kl_ref.c -- naive twins of sbw_kl_kern.c and of the exact expected
 * pairwise KL: plain loops, libm's exp, the O(T^2 M) definition.  Test
 * oracles only: production code calls none of them. */
#include "sbw_kl_ref.h"

#include "sbw_error.h"
#include "sbw_num.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
