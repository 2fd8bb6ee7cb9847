/* sbw_rsvd_sp.c -- the single-pass sketch of a streamed matrix (Tropp,
 * Yurtsever, Udell and Cevher 2017, Algorithm 3); see sbw_rsvd.h.  Layouts
 * as in sbw_rsvd.c: Y, Q column-major N x k (leading dimension N); W kept
 * as W^T, column-major M x l (leading dimension M), which is W row-major; a
 * block of A row-major (nr x M), read by BLAS as the column-major M x nr
 * A_b^T; a block of Psi column-major l x nr (column i for row row0 + i). */
#include "sbw_rsvd.h"

#include "sbw_blas.h"
#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_preflight.h"
#include "sbw_rsvd_draw.h"
#include "sbw_svd.h"

#include <assert.h>
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SP_BLOCK_BYTES (16u << 20) /* a block of rows: 16 MiB of float64 */
#define PSI_STREAM     (UINT64_C(1) << 32)
#define SQRT_2_PI      0.79788456080286535588 /* sqrt(2 / pi) */

/* The buffers of the pass. */
typedef struct sp_bufs {
    double *y, *wt, *omega, *blk, *psi, *psi1;
    double *csum, *cmean, *cm2; /* column sums of A; the centred variant's means and M2 */
    double *pq, *tau;
    double *g, *t, *xg; /* G (M x tests), T = A G (N x tests), X G (sketch x tests) */
} sp_bufs;

static void sp_free(sp_bufs *b)
{
    double *all[] = {b->y,     b->wt,  b->omega, b->blk, b->psi, b->psi1, b->csum,
                     b->cmean, b->cm2, b->pq,    b->tau, b->g,   b->t,    b->xg};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(all[i]);
}

/* Every buffer, after the memory preflight of their sum (and of dgels's
 * copy of W in LAPACKE's row-major interface). */
static int sp_alloc(sp_bufs *b, const sbw_rsvd *rs, size_t nb)
{
    double n = (double)rs->rows, m = (double)rs->cols, k = (double)rs->sketch,
           l = (double)rs->corange, B = (double)nb, t = (double)rs->tests;
    double bytes = 8.0 * (n * k + 2 * m * l + m * k + B * m + l * B + l + 4 * m + 2 * l * k + k +
                          (n + m + k) * t);
    char what[160];
    snprintf(what, sizeof what, "a single-pass sketch (%zu + %zu) of a %zu x %zu stream",
             rs->sketch, rs->corange, rs->rows, rs->cols);
    int st = sbw_preflight_memory(bytes, what);
    if (st)
        return st;
    size_t N = rs->rows, M = rs->cols, K = rs->sketch, L = rs->corange;
    b->y = malloc(N * K * sizeof(double));
    b->wt = calloc(M * L, sizeof(double));
    b->omega = malloc(M * K * sizeof(double));
    b->blk = malloc(nb * M * sizeof(double));
    b->psi = malloc(L * nb * sizeof(double));
    b->psi1 = calloc(L, sizeof(double));
    b->csum = calloc(M, sizeof(double));
    b->cmean = calloc(M, sizeof(double));
    b->cm2 = calloc(M, sizeof(double));
    b->pq = calloc(L * K, sizeof(double));
    b->tau = malloc(K * sizeof(double));
    b->g = malloc(M * rs->tests * sizeof(double));
    b->t = malloc(N * rs->tests * sizeof(double));
    b->xg = malloc(K * rs->tests * sizeof(double));
    if (!b->y || !b->wt || !b->omega || !b->blk || !b->psi || !b->psi1 || !b->csum || !b->cmean ||
        !b->cm2 || !b->pq || !b->tau || !b->g || !b->t || !b->xg)
        return SBW_ERROR(SBW_ENOMEM, "out of memory for %s", what);
    return SBW_OK;
}

/* What the pass learns besides the sketches. */
typedef struct sp_scan {
    sbw_check_bad bad;
    sbw_reduce_f32scan f32;
    double fro2, rowmean_sq;
    size_t seen; /* rows combined into cmean, cm2 */
} sp_scan;

/* Column means and sums of squared deviations of the block a (nr x m)
 * combined into the running ones (Chan, Golub and LeVeque's pairwise
 * update): cm2's sum is ||A - 1 c^T||_F^2 without the cancellation of
 * ||A||_F^2 - N ||c||^2. */
static void sp_colstats(sp_scan *sc, sp_bufs *b, const double *a, size_t nr, size_t m)
{
    double nb = (double)nr, na = (double)sc->seen;
    for (size_t j = 0; j < m; j++) {
        double mu = 0, q = 0;
        for (size_t i = 0; i < nr; i++)
            mu += a[i * m + j];
        mu /= nb;
        for (size_t i = 0; i < nr; i++) {
            double e = a[i * m + j] - mu;
            q += e * e;
        }
        double delta = mu - b->cmean[j];
        b->cmean[j] += delta * nb / (na + nb);
        b->cm2[j] += q + delta * delta * na * nb / (na + nb);
    }
    sc->seen += nr;
}

/* One block of rows [row0, row0 + nr), in b->blk: scanned, exp, centred
 * (rows variants), its statistics, then Y_b = A_b Omega, W^T += A_b^T
 * Psi_b^T and Psi 1. */
static int sp_block(const sbw_rsvd_opts *o, sbw_rsvd *rs, sp_bufs *b, sp_scan *sc, size_t row0,
                    size_t nr)
{
    size_t m = rs->cols, k = rs->sketch, l = rs->corange;
    double *a = b->blk;
    sbw_reduce_scan_f32(&sc->f32, a, nr * m);
    for (size_t i = 0; o->exp && i < nr * m; i++)
        a[i] = exp(a[i]);
    sbw_check_bad_rows(&sc->bad, a, row0, nr, m, m);
    if (sc->bad.any)
        return SBW_OK; /* reported at the end, with every bad entry counted */
    for (size_t i = 0; i < nr; i++) {
        double *row = a + i * m, mu;
        for (size_t j = 0; j < m; j++)
            b->csum[j] += row[j];
        mu = (o->var & SBW_VAR_ROWS) ? sbw_reduce_centre_row(row, m) : sbw_reduce_row_mean(row, m);
        sc->rowmean_sq += (double)m * mu * mu;
        for (size_t j = 0; !(o->var & SBW_VAR_COLS) && j < m; j++)
            sc->fro2 += row[j] * row[j];
    }
    if (o->var & SBW_VAR_COLS)
        sp_colstats(sc, b, a, nr, m);
    int st = sbw_rsvd_draw(b->psi, l, nr, o->seed, PSI_STREAM + row0);
    if (st)
        return st;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)nr, (int)k, (int)m, 1.0, a, (int)m,
                b->omega, (int)m, 0.0, b->y + row0, (int)rs->rows);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)nr, (int)rs->tests, (int)m, 1.0, a,
                (int)m, b->g, (int)m, 0.0, b->t + row0, (int)rs->rows);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, (int)m, (int)l, (int)nr, 1.0, a, (int)m,
                b->psi, (int)l, 1.0, b->wt, (int)m);
    for (size_t i = 0; i < nr; i++)
        for (size_t r = 0; r < l; r++)
            b->psi1[r] += b->psi[i * l + r];
    return SBW_OK;
}

/* The pass: every block of the stream, in order.  SBW_OK only when every
 * block was combined into Y, T and W^T: once a non-finite entry is met,
 * the rest are only scanned (to count them) and the pass fails. */
static int sp_pass(sbw_npy_reader *r, const sbw_rsvd_opts *o, sbw_rsvd *rs, sp_bufs *b, sp_scan *sc)
{
    size_t n = rs->rows, m = rs->cols;
    for (size_t row0 = 0; row0 < n; row0 += rs->block_rows) {
        size_t nr = sbw_num_min_sz(rs->block_rows, n - row0);
        int st = sbw_npy_read_rows(r, b->blk, nr, m);
        st = st ? st : sp_block(o, rs, b, sc, row0, nr);
        if (st)
            return st;
        if (o->progress)
            sbw_progress_update(o->progress, (double)(row0 + nr));
    }
    if (!sc->bad.any)
        return SBW_OK;
    int st = sbw_check_bad_error(&sc->bad, sbw_npy_reader_path(r), o->exp ? " in exp(A)" : NULL);
    assert(st != SBW_OK); /* the sketches lack the blocks from the first bad one on */
    return st;
}

/* y (n x c, column-major) -= 1 (c^T x), x (m x c): a column-centred
 * variant's right sketch from the uncentred one; v c values of scratch. */
static void sp_centre_right(double *y, size_t n, const double *x, size_t m, size_t c,
                            const double *cmean, double *v)
{
    cblas_dgemv(CblasColMajor, CblasTrans, (int)m, (int)c, 1.0, x, (int)m, cmean, 1, 0.0, v, 1);
    for (size_t j = 0; j < c; j++)
        for (size_t i = 0; i < n; i++)
            y[j * n + i] -= v[j];
}

/* A column-centred variant's sketches of A - 1 c^T from those of A:
 * Y -= 1 (c^T Omega), T -= 1 (c^T G), W^T -= c (Psi 1)^T; its ||.||_F^2
 * from the M2s. */
static void sp_centre_cols(sbw_rsvd *rs, sp_bufs *b, sp_scan *sc)
{
    size_t n = rs->rows, m = rs->cols, l = rs->corange;
    sp_centre_right(b->y, n, b->omega, m, rs->sketch, b->cmean, b->tau);
    sp_centre_right(b->t, n, b->g, m, rs->tests, b->cmean, b->xg);
    cblas_dger(CblasColMajor, (int)m, (int)l, -1.0, b->cmean, 1, b->psi1, 1, b->wt, (int)m);
    sc->fro2 = 0;
    for (size_t j = 0; j < m; j++)
        sc->fro2 += b->cm2[j];
}

/* Psi Q (l x k, column-major) with Psi drawn again block by block. */
static int sp_psi_q(const sbw_rsvd_opts *o, const sbw_rsvd *rs, sp_bufs *b)
{
    size_t n = rs->rows, k = rs->sketch, l = rs->corange;
    for (size_t row0 = 0; row0 < n; row0 += rs->block_rows) {
        size_t nr = sbw_num_min_sz(rs->block_rows, n - row0);
        int st = sbw_rsvd_draw(b->psi, l, nr, o->seed, PSI_STREAM + row0);
        if (st)
            return st;
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)l, (int)k, (int)nr, 1.0, b->psi,
                    (int)l, b->y + row0, (int)n, 1.0, b->pq, (int)l);
    }
    return SBW_OK;
}

/* X = (Psi Q)^+ W by least squares (dgels on W row-major, l x M: its
 * first k rows become X, which is X^T column-major, M x k), then the k
 * singular values of X into rs->s and ||X||_F^2. */
static int sp_solve(sbw_rsvd *rs, sp_bufs *b)
{
    size_t m = rs->cols, k = rs->sketch, l = rs->corange;
    double *pqr = b->psi; /* l x k row-major copy of Psi Q (psi has l x block >= l x k) */
    for (size_t i = 0; i < l; i++)
        for (size_t j = 0; j < k; j++)
            pqr[i * k + j] = b->pq[j * l + i];
    lapack_int info = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', (lapack_int)l, (lapack_int)k,
                                    (lapack_int)m, pqr, (lapack_int)k, b->wt, (lapack_int)m);
    if (info == LAPACK_WORK_MEMORY_ERROR)
        return SBW_ERROR(SBW_ENOMEM, "dgels: out of memory");
    if (info)
        return info > 0 ? SBW_ERROR(SBW_ENUMERIC,
                                    "dgels: the sketch Psi Q is rank-deficient "
                                    "(column %d): no single-pass reconstruction",
                                    (int)info)
                        : sbw_blas_lapack_fail("dgels", info);
    rs->b_fro2 = 0;
    for (size_t i = 0; i < k * m; i++)
        rs->b_fro2 += b->wt[i] * b->wt[i];
    /* the test vectors' residuals r_i = A g_i - Q X g_i into T */
    size_t n = rs->rows, t = rs->tests;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)k, (int)t, (int)m, 1.0, b->wt, (int)m,
                b->g, (int)m, 0.0, b->xg, (int)k);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)t, (int)k, -1.0, b->y,
                (int)n, b->xg, (int)k, 1.0, b->t, (int)n);
    rs->test_max = 0;
    for (size_t i = 0; i < t; i++)
        rs->test_max = fmax(rs->test_max, cblas_dnrm2((int)n, b->t + i * n, 1));
    if (!(rs->s = malloc(k * sizeof *rs->s)))
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    sbw_mat x = sbw_mat_view(b->wt, k, m, m);
    return sbw_svd_values(&x, rs->s);
}

/* The error bound and the paper's estimate (sbw_rsvd.h): resid from the
 * test vectors (Halko et al.'s Lemma 4.1 on E = A - Q X), then Theorem
 * 4.3's right side with each tail bounded by the exact ||A||_F^2 minus the
 * intervals' lower ends squared. */
static void sp_estimate(sbw_rsvd *rs)
{
    double alpha = pow(10.0, 10.0 / (double)rs->tests); /* alpha^-t = 1e-10 */
    rs->resid_test = alpha * SQRT_2_PI * rs->test_max;
    rs->resid = rs->resid_test;
    rs->resid_fro = NAN;
    double k = (double)rs->sketch, l = (double)rs->corange, head = 0, best = INFINITY;
    for (size_t r = 0; r + 1 < rs->sketch; r++) {
        double tail = fmax(0.0, rs->fro2 - head), f = (double)r / (k - (double)r - 1),
               lo = fmax(0.0, rs->s[r] - rs->resid);
        best = fmin(best, (1 + f) * tail);
        head += lo * lo;
    }
    rs->expected_err = sqrt((1 + k / (l - k - 1)) * best);
}

int sbw_rsvd_sp(sbw_npy_reader *r, const sbw_rsvd_opts *o, sbw_rsvd *out)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    const char *path = sbw_npy_reader_path(r);
    *out = (sbw_rsvd){0};
    sbw_rsvd rs = {.dtype = in->dtype, .single_pass = true, .passes = 1};
    int st = sbw_check_shape(in, path, SBW_SHAPE_MATRIX);
    st = st ? st : sbw_rsvd_plan(o, in->rows, in->cols, path, &rs);
    rs.corange = sbw_num_min_sz(2 * rs.sketch + 1, rs.rows);
    if (!st && rs.corange < rs.sketch + 2)
        st = SBW_ERROR(SBW_EINVAL,
                       "%s: the single-pass sketch of a pipe needs N >= K + p + 2 rows (N = %zu, "
                       "K + p = %zu): give a smaller --top or --oversample, or a regular file",
                       path, rs.rows, rs.sketch);
    if (st)
        return st;
    double t0 = sbw_progress_now();
    size_t b = o->block_rows ? o->block_rows : SP_BLOCK_BYTES / (8 * rs.cols);
    rs.block_rows = sbw_num_max_sz(sbw_num_min_sz(b, rs.rows), sbw_num_min_sz(rs.sketch, rs.rows));
    sp_bufs bf = {0};
    sp_scan sc = {0};
    st = sp_alloc(&bf, &rs, rs.block_rows);
    st = st ? st : sbw_rsvd_draw(bf.omega, rs.cols, rs.sketch, o->seed, 0);
    st = st ? st : sbw_rsvd_draw(bf.g, rs.cols, rs.tests, o->seed, UINT64_C(1) << 31);
    st = st ? st : sp_pass(r, o, &rs, &bf, &sc);
    if (!st && (o->var & SBW_VAR_COLS))
        sp_centre_cols(&rs, &bf, &sc);
    if (!st) {
        rs.fro2 = sc.fro2;
        rs.rowmean_sq = sc.rowmean_sq;
        rs.f32_values = sbw_reduce_f32_values(&sc.f32, rs.dtype);
        for (size_t j = 0; j < rs.cols; j++)
            bf.csum[j] /= (double)rs.rows;
        sbw_reduce red = {
            .rows = rs.rows, .cols = rs.cols, .mean = bf.csum, .rowmean_sq = sc.rowmean_sq};
        rs.w0_uncentred = sbw_reduce_uncentred_w0(&red, o->var, 0.0);
    }
    st = st ? st : sbw_rsvd_orth(bf.y, rs.rows, rs.sketch, bf.tau);
    st = st ? st : sp_psi_q(o, &rs, &bf);
    st = st ? st : sp_solve(&rs, &bf);
    if (!st)
        sp_estimate(&rs);
    sp_free(&bf);
    rs.seconds = sbw_progress_now() - t0;
    if (st)
        sbw_rsvd_free(&rs);
    else
        *out = rs;
    return st;
}
