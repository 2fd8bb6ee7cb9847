/* sbw_rsvd_ref.c -- the naive twin of sbw_rsvd_run (a test oracle; see
 * sbw_rsvd.h): the whole matrix in memory, transformed and centred whole,
 * products by triple loops, the same random draws, LAPACK's QR and SVD. */
#include "sbw_rsvd.h"

#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_rsvd_draw.h"
#include "sbw_svd.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* c = a, exp'd and centred by plain loops (row means, then column means);
 * the row means' energy and the column means of the matrix before
 * centring into *rowmean_sq and mean[m]. */
static void ref_prepare(const sbw_mat *a, const sbw_rsvd_opts *o, double *c, double *rowmean_sq,
                        double *mean)
{
    size_t n = a->rows, m = a->cols;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            c[i * m + j] = o->exp ? exp(SBW_MAT_AT(a, i, j)) : SBW_MAT_AT(a, i, j);
    *rowmean_sq = 0;
    for (size_t j = 0; j < m; j++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += c[i * m + j];
        mean[j] = s / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        double s = 0;
        for (size_t j = 0; j < m; j++)
            s += c[i * m + j];
        *rowmean_sq += (double)m * (s / (double)m) * (s / (double)m);
        for (size_t j = 0; (o->var & SBW_VAR_ROWS) && j < m; j++)
            c[i * m + j] -= s / (double)m;
    }
    for (size_t j = 0; (o->var & SBW_VAR_COLS) && j < m; j++) {
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += c[i * m + j];
        for (size_t i = 0; i < n; i++)
            c[i * m + j] -= s / (double)n;
    }
}

/* y (n x k column-major) = c x, x (m x k column-major). */
static void ref_right(const double *c, size_t n, size_t m, const double *x, size_t k, double *y)
{
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < n; i++) {
            double s = 0;
            for (size_t l = 0; l < m; l++)
                s += c[i * m + l] * x[j * m + l];
            y[j * n + i] = s;
        }
}

/* z (m x k column-major) = c^T q, q (n x k column-major). */
static void ref_left(const double *c, size_t n, size_t m, const double *q, size_t k, double *z)
{
    for (size_t j = 0; j < k; j++)
        for (size_t l = 0; l < m; l++) {
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += c[i * m + l] * q[j * n + i];
            z[j * m + l] = s;
        }
}

/* y (rows x k column-major) replaced by the Q of its QR (LAPACK). */
static int ref_orth(double *y, size_t rows, size_t k, double *tau)
{
    lapack_int info =
        LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)rows, (lapack_int)k, y, (lapack_int)rows, tau);
    if (!info)
        info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)rows, (lapack_int)k, (lapack_int)k, y,
                              (lapack_int)rows, tau);
    return info ? SBW_ERROR(SBW_ENUMERIC, "QR failed (info %d)", (int)info) : SBW_OK;
}

/* t (n x nt) minus its projection on q (n x l), twice, column by column. */
static void ref_project_out(const double *q, size_t n, size_t l, double *t, size_t nt)
{
    for (int rep = 0; rep < 2; rep++)
        for (size_t i = 0; i < nt; i++)
            for (size_t j = 0; j < l; j++) {
                double d = 0;
                for (size_t r = 0; r < n; r++)
                    d += q[j * n + r] * t[i * n + r];
                for (size_t r = 0; r < n; r++)
                    t[i * n + r] -= d * q[j * n + r];
            }
}

/* The largest column norm of x (rows x k column-major). */
static double ref_max_norm(const double *x, size_t rows, size_t k)
{
    double mx = 0;
    for (size_t i = 0; i < k; i++) {
        double s = 0;
        for (size_t r = 0; r < rows; r++)
            s += x[i * rows + r] * x[i * rows + r];
        mx = fmax(mx, sqrt(s));
    }
    return mx;
}

/* The iterations and the residual on the prepared c; values into rs. */
static int ref_iterate(const double *c, const sbw_rsvd_opts *o, sbw_rsvd *rs, double *y, double *z,
                       double *t, double *g, double *tau)
{
    size_t n = rs->rows, m = rs->cols, l = rs->sketch, nt = rs->tests;
    ref_right(c, n, m, z, l, y);
    int st = ref_orth(y, n, l, tau);
    for (size_t it = 0; !st && it < o->power; it++) {
        ref_left(c, n, m, y, l, z);
        st = ref_orth(z, m, l, tau);
        if (!st)
            ref_right(c, n, m, z, l, y);
        st = st ? st : ref_orth(y, n, l, tau);
    }
    if (st)
        return st;
    ref_right(c, n, m, g, nt, t);
    ref_project_out(y, n, l, t, nt);
    ref_left(c, n, m, y, l, z);
    rs->test_max = ref_max_norm(t, n, nt);
    ref_left(c, n, m, t, nt, g); /* A^T R */
    rs->test2_max = ref_max_norm(g, m, nt);
    for (size_t i = 0; i < m * l; i++)
        rs->b_fro2 += z[i] * z[i];
    sbw_rsvd_residual(rs);
    sbw_mat b = sbw_mat_view(z, l, m, m);
    return sbw_svd_values(&b, rs->s);
}

int sbw_rsvd_ref(const sbw_mat *a, const sbw_rsvd_opts *o, sbw_rsvd *out)
{
    size_t n = a->rows, m = a->cols, k = sbw_num_min_sz(n, m);
    *out = (sbw_rsvd){0};
    if (o->top < 1 || o->top > k)
        return SBW_ERROR(SBW_EINVAL, "--top %zu is not in 1..%zu", o->top, k);
    sbw_rsvd rs = {.rows = n, .cols = m, .top = o->top, .tests = SBW_RSVD_TESTS};
    rs.sketch = sbw_num_min_sz(o->top + sbw_num_min_sz(o->oversample, k), k);
    size_t l = rs.sketch, nt = rs.tests;
    double *c = calloc(n * m, sizeof *c), *y = malloc(n * l * sizeof *y);
    double *z = malloc(m * l * sizeof *z), *t = malloc(n * nt * sizeof *t);
    double *g = malloc(m * nt * sizeof *g), *tau = malloc(l * sizeof *tau);
    double *mean = malloc(m * sizeof *mean);
    rs.s = malloc(l * sizeof *rs.s);
    int st = c && y && z && t && g && tau && mean && rs.s ? SBW_OK
                                                          : SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st) {
        st = sbw_rsvd_draw(z, m, l, o->seed, 0);
        st = st ? st : sbw_rsvd_draw(g, m, nt, o->seed, UINT64_C(1) << 31);
    }
    if (!st) {
        ref_prepare(a, o, c, &rs.rowmean_sq, mean);
        for (size_t i = 0; i < n * m; i++)
            rs.fro2 += c[i] * c[i];
        sbw_reduce red = {.rows = n, .cols = m, .mean = mean, .rowmean_sq = rs.rowmean_sq};
        rs.w0_uncentred = sbw_reduce_uncentred_w0(&red, o->var, 0.0);
        st = ref_iterate(c, o, &rs, y, z, t, g, tau);
    }
    free(c), free(y), free(z), free(t), free(g), free(tau), free(mean);
    if (st)
        sbw_rsvd_free(&rs);
    else
        *out = rs;
    return st;
}
