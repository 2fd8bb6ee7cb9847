/* sbw_target.c -- P* held once for a fit, with its per-row constants. */
#include "sbw_target.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double sbw_target_bytes(size_t n, size_t m, bool single)
{
    double cells = (double)n * (double)m;
    return cells * (single ? 4.0 : 8.0) + (double)n * 24.0;
}

/* P's storage as the owned contiguous matrix it is (pd or pf, n x m), so
 * that it is allocated and grown by sbw_mat, under its memory preflight. */
static sbw_mat p_double(const sbw_target *t)
{
    return (sbw_mat){.rows = t->n, .cols = t->m, .ld = t->m, .data = t->pd, .owner = true};
}

static sbw_mat_f32 p_float(const sbw_target *t)
{
    return (sbw_mat_f32){.rows = t->n, .cols = t->m, .ld = t->m, .data = t->pf, .owner = true};
}

int sbw_target_alloc(sbw_target *t, size_t n, size_t m, bool single)
{
    *t = (sbw_target){.n = n, .m = m, .single = single, .tol = SBW_CHECK_TOL};
    sbw_mat pd = {0};
    sbw_mat_f32 pf = {0};
    int st = single ? sbw_mat_f32_alloc(&pf, n, m) : sbw_mat_alloc(&pd, n, m);
    if (st) {
        *t = (sbw_target){0}; /* zeroed on failure, as promised: no sizes without data */
        return st;
    }
    t->pf = pf.data;
    t->pd = pd.data;
    t->psum = calloc(n ? n : 1, sizeof *t->psum);
    t->ent = calloc(n ? n : 1, sizeof *t->ent);
    t->mode = calloc(n ? n : 1, sizeof *t->mode);
    if (t->psum && t->ent && t->mode)
        return SBW_OK;
    sbw_target_free(t);
    return SBW_ERROR(SBW_ENOMEM, "cannot allocate P* (%zu x %zu, %.3g GB)", n, m,
                     sbw_target_bytes(n, m, single) / 1e9);
}

void sbw_target_free(sbw_target *t)
{
    if (!t)
        return;
    free(t->pf);
    free(t->pd);
    free(t->psum);
    free(t->ent);
    free(t->mode);
    *t = (sbw_target){0};
}

/* The one checker's verdict on row x (0-based file row row): finite
 * entries (from the bits), |logsumexp| within the row's tolerance for the
 * file's dtype (sbw_check_row_tol); its messages otherwise. */
static int check_row(const sbw_target *t, const double *x, size_t row, const char *what)
{
    size_t m = t->m;
    if (!sbw_check_all_finite(x, m)) {
        size_t first = 0;
        sbw_num_count_nonfinite(x, m, NULL, NULL, NULL, &first);
        return sbw_check_entry_error(what, row, first, x[first], false);
    }
    double lse = sbw_num_logsumexp(x, m);
    if (fabs(lse) <= t->tol)
        return SBW_OK;
    double tol = sbw_check_row_tol(t->dtype, t->tol, sbw_check_amax(x, m));
    if (fabs(lse) <= tol)
        return SBW_OK;
    return sbw_check_unnormalised(what, row, x, m, lse, tol,
                                  "the row looks like probabilities: give log P*, not P*",
                                  "give log P* with rows summing to 1");
}

/* Stores row r from its log-probabilities x, which have passed check_row. */
static void store_row(sbw_target *t, size_t r, const double *x)
{
    size_t m = t->m, best = 0;
    double sum = 0, ent = 0;
    for (size_t j = 0; j < m; j++) {
        double p = exp(x[j]);
        /* pf or pd holds n x m > 0 entries here (rows are stored only then);
         * the analyzer cannot see sbw_mat_alloc's contract */
        if (t->single) {
            float pf = (float)p;
            // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
            t->pf[r * m + j] = pf;
            p = (double)pf;
        } else {
            // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
            t->pd[r * m + j] = p;
        }
        sum += p;
        if (p > 0)
            ent -= p * log(p);
        if (x[j] > x[best])
            best = j;
    }
    t->psum[r] = sum;
    t->ent[r] = ent;
    t->mode[r] = best;
}

int sbw_target_set_rows(sbw_target *t, size_t r0, const double *logp, size_t nr, size_t ld,
                        const char *what)
{
    if (r0 > t->n || nr > t->n - r0 || ld < t->m)
        return SBW_ERROR(SBW_EINVAL, "rows %zu..%zu out of range (N = %zu)", r0, r0 + nr, t->n);
    for (size_t i = 0; i < nr; i++) {
        int st = check_row(t, logp + i * ld, r0 + i, what);
        if (st)
            return st;
        store_row(t, r0 + i, logp + i * ld);
    }
    return SBW_OK;
}

/* Room for at least need of limit rows of t, the rows so far kept: P by
 * the one growth rule (sbw_mat_reserve), the row constants to match;
 * t->n is the rows held. */
static int target_reserve(sbw_target *t, size_t need, size_t limit)
{
    sbw_mat pd = p_double(t);
    sbw_mat_f32 pf = p_float(t);
    int st = t->single ? sbw_mat_f32_reserve(&pf, need, limit) : sbw_mat_reserve(&pd, need, limit);
    if (st)
        return st;
    t->pd = pd.data;
    t->pf = pf.data;
    size_t n = t->single ? pf.rows : pd.rows;
    double *ps = realloc(t->psum, n * sizeof *ps);
    if (ps)
        t->psum = ps;
    double *en = ps ? realloc(t->ent, n * sizeof *en) : NULL;
    if (en)
        t->ent = en;
    size_t *mo = en ? realloc(t->mode, n * sizeof *mo) : NULL;
    if (mo)
        t->mode = mo;
    if (!mo) /* P grew, the row constants did not: the caller frees t */
        return SBW_ERROR(SBW_ENOMEM, "cannot grow P* to %zu x %zu (%.3g GB)", n, t->m,
                         sbw_target_bytes(n, t->m, t->single) / 1e9);
    t->n = n;
    return SBW_OK;
}

int sbw_target_load(sbw_target *t, sbw_npy_reader *r, bool single, double tol,
                    sbw_progress *progress)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    size_t r0 = sbw_npy_reader_row(r), n = in->rows - r0, m = in->cols;
    size_t block = sbw_scan_block_rows(m, (size_t)8 << 20);
    /* a pipe's P* grows as its rows arrive: the header's claim is not
     * allocated before the data is there (a file's size was checked) */
    bool stream = !sbw_npy_reader_seekable(r);
    size_t first = stream ? sbw_mat_stream_rows(n, m, single ? sizeof(float) : sizeof(double)) : n;
    int st = sbw_target_alloc(t, first, m, single);
    if (st)
        return st;
    t->tol = tol;
    t->dtype = in->dtype;
    double *buf = malloc(block * m * sizeof *buf);
    if (!buf) {
        sbw_target_free(t);
        return SBW_ERROR(SBW_ENOMEM, "out of memory reading %s", sbw_npy_reader_path(r));
    }
    for (size_t i = 0; i < n && !st; i += block) {
        size_t nr = n - i < block ? n - i : block;
        st = target_reserve(t, i + nr, n);
        st = st ? st : sbw_npy_read_rows(r, buf, nr, m);
        if (!st)
            st = sbw_target_set_rows(t, i, buf, nr, m, sbw_npy_reader_path(r));
        if (progress)
            sbw_progress_update(progress, (double)(i + nr));
    }
    free(buf);
    if (st)
        sbw_target_free(t);
    return st;
}

int sbw_target_from_logp(sbw_target *t, const sbw_mat *logp, bool single, double tol)
{
    int st = sbw_target_alloc(t, logp->rows, logp->cols, single);
    if (st)
        return st;
    t->tol = tol;
    st = sbw_target_set_rows(t, 0, logp->data, logp->rows, logp->ld, "log P*");
    if (st)
        sbw_target_free(t);
    return st;
}

int sbw_target_subset(sbw_target *sub, const sbw_target *t, const size_t *rows, size_t n)
{
    *sub = (sbw_target){0};
    if (n == 0)
        return SBW_ERROR(SBW_EINVAL, "empty subsample");
    for (size_t i = 0; i < n; i++)
        if (rows[i] >= t->n)
            return SBW_ERROR(SBW_EINVAL, "row %zu out of range (N = %zu)", rows[i], t->n);
    int st = sbw_target_alloc(sub, n, t->m, t->single);
    if (st)
        return st;
    sub->tol = t->tol;
    sub->dtype = t->dtype;
    size_t m = t->m;
    for (size_t i = 0; i < n; i++) {
        size_t r = rows[i];
        if (t->single)
            memcpy(sub->pf + i * m, t->pf + r * m, m * sizeof(float));
        else
            memcpy(sub->pd + i * m, t->pd + r * m, m * sizeof(double));
        sub->psum[i] = t->psum[r];
        sub->ent[i] = t->ent[r];
        sub->mode[i] = t->mode[r];
    }
    return SBW_OK;
}

const double *sbw_target_row(const sbw_target *t, size_t r, double *out)
{
    if (!t->single)
        return t->pd + r * t->m;
    const float *src = t->pf + r * t->m;
    for (size_t j = 0; j < t->m; j++)
        out[j] = (double)src[j];
    return out;
}
