/* sbw_rowinfo.c -- per-row entropy and one row's sorted probabilities; see
 * the header. */
#include "sbw_rowinfo.h"

#include "sbw_error.h"
#include "sbw_num.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* sbw_scan_each_fn: the entropies of the block's rows, and row pick when
 * it is in the block. */
static int keep_rows(void *ctx, const double *a, size_t row0, size_t nr, size_t cols)
{
    sbw_rowinfo *ri = ctx;
    for (size_t i = 0; i < nr && ri->entropy; i++)
        ri->entropy[row0 + i] = sbw_num_entropy(a + i * cols, cols);
    if (ri->row && ri->pick >= row0 && ri->pick < row0 + nr)
        memcpy(ri->row, a + (ri->pick - row0) * cols, cols * sizeof *ri->row);
    return SBW_OK;
}

int sbw_rowinfo_reader(sbw_npy_reader *r, sbw_scan *s, sbw_progress *progress, sbw_rowinfo *ri)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    const char *path = sbw_npy_reader_path(r);
    if (ri->row && ri->pick >= in->rows)
        return SBW_ERROR(SBW_EINVAL, "%s: row %zu asked for, but it has %zu rows (0-based)", path,
                         ri->pick, in->rows);
    int st = sbw_scan_reader_each(r, s, progress, keep_rows, ri);
    if (!st && (s->nan || s->posinf))
        st = sbw_scan_check_finite(s, path);
    return st ? st : sbw_scan_check_logprob(s, path);
}

typedef struct ranked {
    double v;
    size_t j;
} ranked;

/* Decreasing value, then increasing column. */
static int by_value_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? 1 : -1;
    return (x->j > y->j) - (x->j < y->j);
}

int sbw_rowinfo_sorted(const double *logp, size_t m, size_t *word, double *prob)
{
    ranked *w = malloc((m ? m : 1) * sizeof *w);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "cannot sort a row of %zu entries", m);
    for (size_t j = 0; j < m; j++)
        w[j] = (ranked){logp[j], j};
    qsort(w, m, sizeof *w, by_value_desc);
    for (size_t k = 0; k < m; k++) {
        word[k] = w[k].j;
        prob[k] = exp(w[k].v);
    }
    free(w);
    return SBW_OK;
}
