/* sbw_check.c -- the one input checker (see sbw_check.h). */
#include "sbw_check.h"

#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_vexp.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* ---- shape -------------------------------------------------------------- */

static int empty_error(const sbw_npy_info *in, const char *path)
{
    if (in->ndim == 1)
        return SBW_ERROR(SBW_ESHAPE, "%s: empty array (0 items)", path);
    const char *what = in->rows == 0 && in->cols == 0 ? "rows or columns"
                       : in->rows == 0                ? "rows"
                                                      : "columns";
    return SBW_ERROR(SBW_ESHAPE, "%s: empty matrix (%zu x %zu): it has no %s", path, in->rows,
                     in->cols, what);
}

int sbw_check_shape(const sbw_npy_info *in, const char *path, sbw_check_shape_kind kind)
{
    if (kind == SBW_SHAPE_MATRIX && in->ndim != 2)
        return SBW_ERROR(SBW_ESHAPE,
                         "%s: a 1-D array of %zu items, not a matrix: save it as one row "
                         "(a.reshape(1, -1)) or one column (a.reshape(-1, 1))",
                         path, in->rows);
    if (in->rows == 0 || in->cols == 0)
        return empty_error(in, path);
    if (kind == SBW_SHAPE_VECTOR && in->rows != 1 && in->cols != 1)
        return SBW_ERROR(SBW_ESHAPE,
                         "%s: not a vector: got shape %zu x %zu (one row, one column or a 1-D "
                         "array needed)",
                         path, in->rows, in->cols);
    return SBW_OK;
}

int sbw_check_open(sbw_npy_reader **r, const char *path, sbw_check_shape_kind kind)
{
    int st = sbw_npy_open(r, path);
    st = st ? st : sbw_check_shape(sbw_npy_reader_info(*r), path, kind);
    if (st && *r) {
        sbw_npy_close(*r);
        *r = NULL;
    }
    return st;
}

/* ---- tolerance ---------------------------------------------------------- */

double sbw_check_eps(sbw_npy_dtype dtype)
{
    switch (dtype) {
    case SBW_F32:
        return FLT_EPSILON;
    case SBW_F16:
        return 0x1p-10; /* binary16: 10 fraction bits */
    case SBW_BF16:
        return 0x1p-7; /* bfloat16: 7 fraction bits */
    default:
        return DBL_EPSILON;
    }
}

double sbw_check_row_tol(sbw_npy_dtype dtype, double tol, double amax)
{
    double floor = SBW_CHECK_ULPS * sbw_check_eps(dtype) * fmax(1.0, amax);
    return fmax(tol, floor);
}

double sbw_check_amax(const double *x, size_t n)
{
    double a = 0.0;
    for (size_t j = 0; j < n; j++) {
        double v = fabs(x[j]);
        if (v > a && v < INFINITY) /* NaN and inf compare false or are skipped */
            a = v;
    }
    return a;
}

/* ---- finiteness ----------------------------------------------------------- */

bool sbw_check_all_finite(const double *x, size_t n)
{
    uint64_t m0 = UINT64_MAX, m1 = UINT64_MAX, m2 = UINT64_MAX, m3 = UINT64_MAX;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) { /* four lanes keep the min-reduction in flight */
        uint64_t e0 = sbw_vexp_missing_exp(x[j]), e1 = sbw_vexp_missing_exp(x[j + 1]);
        uint64_t e2 = sbw_vexp_missing_exp(x[j + 2]), e3 = sbw_vexp_missing_exp(x[j + 3]);
        m0 = e0 < m0 ? e0 : m0;
        m1 = e1 < m1 ? e1 : m1;
        m2 = e2 < m2 ? e2 : m2;
        m3 = e3 < m3 ? e3 : m3;
    }
    for (; j < n; j++) {
        uint64_t e = sbw_vexp_missing_exp(x[j]);
        m0 = e < m0 ? e : m0;
    }
    m0 = m1 < m0 ? m1 : m0;
    m2 = m3 < m2 ? m3 : m2;
    return (m2 < m0 ? m2 : m0) != 0;
}

void sbw_check_bad_rows(sbw_check_bad *b, const double *a, size_t row0, size_t rows, size_t cols,
                        size_t ld)
{
    for (size_t i = 0; i < rows; i++) {
        const double *x = a + i * ld;
        if (sbw_check_all_finite(x, cols))
            continue;
        size_t nan, pinf, ninf, first;
        sbw_num_count_nonfinite(x, cols, &nan, &pinf, &ninf, &first);
        sbw_check_bad one = {nan, pinf, ninf, row0 + i, first, true};
        sbw_check_bad_merge(b, &one);
    }
}

void sbw_check_bad_merge(sbw_check_bad *into, const sbw_check_bad *b)
{
    if (!b->any)
        return;
    into->nan += b->nan;
    into->posinf += b->posinf;
    into->neginf += b->neginf;
    if (!into->any || b->row < into->row || (b->row == into->row && b->col < into->col)) {
        into->row = b->row;
        into->col = b->col;
    }
    into->any = true;
}

int sbw_check_bad_error(const sbw_check_bad *b, const char *path, const char *where)
{
    if (!b->any)
        return SBW_OK;
    size_t total = b->nan + b->posinf + b->neginf;
    return SBW_ERROR(SBW_EDATA,
                     "%s: %zu non-finite entr%s%s (%zu NaN, %zu +Inf, %zu -Inf), the first at "
                     "row %zu, column %zu (0-based)%s",
                     path, total, total == 1 ? "y" : "ies", where ? where : "", b->nan, b->posinf,
                     b->neginf, b->row, b->col,
                     b->neginf ? "; a -inf log-probability is a zero probability, and sbw needs "
                                 "every probability > 0: smooth the rows first"
                               : "");
}

int sbw_check_entry_error(const char *path, size_t row, size_t col, double v, bool probs)
{
    if (isnan(v))
        return SBW_ERROR(SBW_EDATA, "%s: row %zu, column %zu (0-based) is NaN", path, row, col);
    if (v > 0)
        return SBW_ERROR(SBW_EDATA, "%s: row %zu, column %zu (0-based) is +inf", path, row, col);
    return SBW_ERROR(SBW_EDATA,
                     "%s: row %zu, column %zu (0-based) is %s, a zero probability: sbw needs "
                     "every probability > 0 (as the papers assume); smooth the rows first",
                     path, row, col, probs ? "0" : "-inf");
}

/* ---- normalisation --------------------------------------------------------- */

bool sbw_check_looks_like_probs(const double *x, size_t n, sbw_npy_dtype dtype, double tol)
{
    double sum = 0.0;
    for (size_t j = 0; j < n; j++) {
        if (!(x[j] >= 0.0 && x[j] <= 1.0))
            return false;
        sum += x[j];
    }
    return n > 0 && fabs(sum - 1.0) <= sbw_check_row_tol(dtype, tol, 1.0);
}

int sbw_check_unnormalised(const char *path, size_t row, const double *x, size_t n, double lse,
                           double tol, const char *if_probs, const char *otherwise)
{
    bool probs = sbw_check_looks_like_probs(x, n, SBW_F64, tol);
    const char *hint = probs ? if_probs : otherwise;
    return SBW_ERROR(
        SBW_EDATA,
        "%s: row %zu (0-based) is not normalised: logsumexp = %.6g, |.| > tol %.3g%s%s%s", path,
        row, lse, tol, hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}
