/* sbw_obj_ref.c -- sbw-fit's objective, naively (see sbw_obj_ref.h). */
#include "sbw_obj_ref.h"

#include "sbw_error.h"
#include "sbw_mat.h"
#include "sbw_pass_ref.h"

#include <stdlib.h>
#include <string.h>

int sbw_obj_ref_eval(const sbw_head *h, const double *theta, const sbw_target *t,
                     const size_t *rows, size_t nrows, sbw_obj_result *res, double *grad)
{
    if (t->n != h->n || t->m != h->m)
        return SBW_ERROR(SBW_ESHAPE, "target is %zu x %zu, head expects %zu x %zu", t->n, t->m,
                         h->n, h->m);
    nrows = rows ? nrows : h->n;
    size_t d = h->d, bytes = 0;
    int st = sbw_mat_bytes(nrows + 1, d, sizeof(double), &bytes);
    if (st)
        return st;
    double *hb = calloc(1, bytes), *dhb = calloc(1, bytes);
    if (!hb || !dhb) {
        free(hb), free(dhb);
        return SBW_ERROR(SBW_ENOMEM, "out of memory (naive objective)");
    }
    for (size_t i = 0; i < nrows; i++) /* a bad row is refused by the pass */
        if (!rows || rows[i] < h->n)
            memcpy(hb + i * d, theta + h->off_h + (rows ? rows[i] : i) * d, d * sizeof *hb);
    sbw_pass_target tg = {.p = t, .rows = rows};
    st = sbw_pass_ref_loss(h, theta, hb, nrows, d, &tg, res, grad ? dhb : NULL, d, grad);
    if (!st && grad) {
        memset(grad + h->off_h, 0, h->n * d * sizeof *grad);
        for (size_t i = 0; i < nrows; i++) /* a repeated row gets the sum */
            for (size_t j = 0; j < d; j++)
                grad[h->off_h + (rows ? rows[i] : i) * d + j] += dhb[i * d + j];
    }
    free(hb), free(dhb);
    return st;
}

int sbw_obj_ref_logq(const sbw_head *h, const double *theta, size_t r, double *lq)
{
    if (r >= h->n)
        return SBW_ERROR(SBW_EINVAL, "row %zu out of range (N = %zu)", r, h->n);
    return sbw_pass_ref_logq(h, theta, theta + h->off_h + r * h->d, lq);
}
