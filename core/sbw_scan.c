/* sbw_scan.c -- value range, non-finite entries and row normalisation. */
#include "sbw_scan.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_kern.h"
#include "sbw_num.h"

#include <math.h>
#include <stdlib.h>

void sbw_scan_init(sbw_scan *s, double tol)
{
    *s = (sbw_scan){.tol = tol, .min = INFINITY, .max = -INFINITY};
}

static void note_nonfinite(sbw_scan *s, const double *x, size_t n, size_t row)
{
    size_t nan, pos, neg, first;
    sbw_num_count_nonfinite(x, n, &nan, &pos, &neg, &first);
    s->nan += nan;
    s->posinf += pos;
    s->neginf += neg;
    if (first < n && !s->any_bad) {
        s->any_bad = true;
        s->bad_row = row;
        s->bad_col = first;
    }
}

/* Range, sum, largest |entry| and the [0,1] test over one row's finite
 * entries. */
static void row_stats(sbw_scan *s, const double *x, size_t n, double *sum, double *amax, bool *unit)
{
    double lo = INFINITY, hi = -INFINITY, acc = 0.0;
    bool in01 = true;
    for (size_t j = 0; j < n; j++) {
        double v = x[j];
        if (!isfinite(v)) {
            in01 = false;
            continue;
        }
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        in01 = in01 && v >= 0.0 && v <= 1.0;
        acc += v;
    }
    s->min = lo < s->min ? lo : s->min;
    s->max = hi > s->max ? hi : s->max;
    *sum = acc;
    *amax = lo <= hi ? fmax(fabs(lo), fabs(hi)) : 0.0;
    *unit = in01;
}

static void scan_row(sbw_scan *s, const double *x, size_t n, size_t row)
{
    double sum, amax;
    bool unit;
    size_t before = s->nan + s->posinf + s->neginf;
    note_nonfinite(s, x, n, row);
    bool finite = s->nan + s->posinf + s->neginf == before;
    row_stats(s, x, n, &sum, &amax, &unit);
    /* -inf entries are zero probabilities: the naive twin handles them. */
    double lse = finite ? sbw_kern_logsumexp(x, n) : sbw_num_logsumexp(x, n);
    if (!isnan(lse)) {
        double a = fabs(lse);
        if (a > s->max_abs_lse) {
            s->max_abs_lse = a;
            s->worst_lse_row = row;
            s->worst_lse_tol = sbw_check_row_tol(s->dtype, s->tol, amax);
        }
        if (a <= sbw_check_row_tol(s->dtype, s->tol, amax))
            s->rows_logprob++;
    }
    if (unit) {
        double dev = fabs(sum - 1.0);
        s->rows_unit++;
        s->max_abs_sum_dev = fmax(s->max_abs_sum_dev, dev);
        if (dev <= sbw_check_row_tol(s->dtype, s->tol, 1.0))
            s->rows_prob++;
    }
}

void sbw_scan_rows(sbw_scan *s, const double *a, size_t rows, size_t cols, size_t ld)
{
    s->cols = cols;
    for (size_t i = 0; i < rows; i++)
        if (cols)
            scan_row(s, a + i * ld, cols, s->rows + i);
    s->rows += rows;
}

const char *sbw_scan_kind(const sbw_scan *s)
{
    if (s->rows == 0 || s->cols == 0)
        return "empty";
    if (s->rows_logprob == s->rows)
        return "log-probabilities";
    if (s->rows_prob == s->rows)
        return "probabilities";
    return "other";
}

int sbw_scan_check_finite(const sbw_scan *s, const char *path)
{
    sbw_check_bad b = {s->nan, s->posinf, s->neginf, s->bad_row, s->bad_col, s->any_bad};
    return sbw_check_bad_error(&b, path, NULL);
}

int sbw_scan_check_logprob(const sbw_scan *s, const char *path)
{
    if (s->rows_logprob == s->rows)
        return SBW_OK;
    return SBW_ERROR(SBW_EDATA,
                     "%s: %zu of %zu rows are not normalised log-probabilities; the worst, row "
                     "%zu, has logsumexp %.3g (tolerance %.3g)",
                     path, s->rows - s->rows_logprob, s->rows, s->worst_lse_row, s->max_abs_lse,
                     s->worst_lse_tol);
}

size_t sbw_scan_block_rows(size_t cols, size_t bytes)
{
    size_t per = cols ? bytes / (cols * sizeof(double)) : bytes;
    return per ? per : 1;
}

int sbw_scan_reader(sbw_npy_reader *r, sbw_scan *s, sbw_progress *progress)
{
    return sbw_scan_reader_each(r, s, progress, NULL, NULL);
}

int sbw_scan_reader_each(sbw_npy_reader *r, sbw_scan *s, sbw_progress *progress,
                         sbw_scan_each_fn each, void *ctx)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    s->dtype = in->dtype;
    size_t block = sbw_scan_block_rows(in->cols, (size_t)8 << 20);
    size_t n = block * in->cols;
    double *buf = malloc((n > 0 ? n : 1) * sizeof *buf);
    if (!buf)
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate a %zu-row block", block);
    int st = SBW_OK;
    while (!st && sbw_npy_reader_row(r) < in->rows) {
        size_t nr = in->rows - sbw_npy_reader_row(r);
        nr = nr < block ? nr : block;
        size_t row0 = sbw_npy_reader_row(r);
        st = sbw_npy_read_rows(r, buf, nr, in->cols);
        if (!st)
            sbw_scan_rows(s, buf, nr, in->cols, in->cols);
        if (!st && each)
            st = each(ctx, buf, row0, nr, in->cols);
        if (!st && progress)
            sbw_progress_update(progress, (double)sbw_npy_reader_row(r));
    }
    free(buf);
    return st;
}
