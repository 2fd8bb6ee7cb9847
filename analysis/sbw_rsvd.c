/* sbw_rsvd.c -- the randomized range finder with power iterations over
 * row blocks of a .npy file (Halko, Martinsson and Tropp 2011, Algorithms
 * 4.4 and 5.1), its exact Frobenius norm and its residual estimate; see
 * sbw_rsvd.h.  Tall factors are kept column-major (Y, Q: N x c with
 * leading dimension N; Z: M x c with leading dimension M), as LAPACK's QR
 * takes them; a block of A is row-major (nr x M), which BLAS reads as the
 * column-major M x nr block A^T. */
#include "sbw_rsvd.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_preflight.h"
#include "sbw_rng.h"
#include "sbw_rsvd_draw.h"
#include "sbw_blas.h"
#include "sbw_svd.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES (64u << 20)            /* default block of rows: 64 MiB of float64 */
#define SQRT_2_PI   0.79788456080286535588 /* sqrt(2 / pi) */
/* rows: the inner dimension of Z += A_b^T Q_b, which rewrites Z (M x l)
 * for every block: 2 b M l flops against 16 M l bytes, so b below a few
 * hundred leaves the update bound by memory */
#define MIN_BLOCK 512

sbw_rsvd_opts sbw_rsvd_defaults(size_t top)
{
    return (sbw_rsvd_opts){.top = top,
                           .oversample = SBW_RSVD_OVERSAMPLE,
                           .power = SBW_RSVD_POWER,
                           .seed = SBW_RNG_DEFAULT_SEED};
}

void sbw_rsvd_free(sbw_rsvd *rs)
{
    if (!rs)
        return;
    free(rs->s);
    *rs = (sbw_rsvd){0};
}

/* ---- what the fast path and the twin share ------------------------------ */

int sbw_rsvd_plan(const sbw_rsvd_opts *o, size_t n, size_t m, const char *path, sbw_rsvd *out)
{
    size_t k = sbw_num_min_sz(n, m);
    if (o->top < 1 || o->top > k)
        return SBW_ERROR(SBW_EINVAL,
                         "%s: --top %zu is not in 1..min(N, M) = %zu for this %zu x %zu matrix",
                         path, o->top, k, n, m);
    if (n > INT_MAX || m > INT_MAX)
        return SBW_ERROR(SBW_ENOMEM, "%s: %zu x %zu is beyond BLAS's 32-bit dimensions", path, n,
                         m);
    out->rows = n;
    out->cols = m;
    out->top = o->top;
    out->sketch = sbw_num_min_sz(o->top + sbw_num_min_sz(o->oversample, k), k);
    out->tests = SBW_RSVD_TESTS;
    return SBW_OK;
}

int sbw_rsvd_orth(double *y, size_t rows, size_t c, double *tau)
{
    lapack_int info =
        LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)rows, (lapack_int)c, y, (lapack_int)rows, tau);
    if (info == LAPACK_WORK_MEMORY_ERROR)
        return SBW_ERROR(SBW_ENOMEM, "dgeqrf: out of memory");
    if (info)
        return sbw_blas_lapack_fail("dgeqrf", info);
    info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)rows, (lapack_int)c, (lapack_int)c, y,
                          (lapack_int)rows, tau);
    if (info == LAPACK_WORK_MEMORY_ERROR)
        return SBW_ERROR(SBW_ENOMEM, "dorgqr: out of memory");
    return info ? sbw_blas_lapack_fail("dorgqr", info) : SBW_OK;
}

/* R = (I - QQ^T) T in place (t: N x tests, the products A g_i), Q's
 * projection removed twice (classical Gram-Schmidt with
 * reorthogonalisation), w (sketch x tests) scratch; test_max the largest
 * column norm. */
static void project_out(sbw_rsvd *rs, const double *q, double *t, double *w)
{
    size_t n = rs->rows, l = rs->sketch, nt = rs->tests;
    for (int rep = 0; rep < 2; rep++) {
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, (int)l, (int)nt, (int)n, 1.0, q,
                    (int)n, t, (int)n, 0.0, w, (int)l);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)nt, (int)l, -1.0, q,
                    (int)n, w, (int)l, 1.0, t, (int)n);
    }
    rs->test_max = 0;
    for (size_t i = 0; i < nt; i++)
        rs->test_max = fmax(rs->test_max, cblas_dnrm2((int)n, t + i * n, 1));
}

/* The end: from u = A^T R (M x tests) test2_max, from z = B^T (M x l,
 * overwritten) ||B||_F^2 and the singular values of B, then the
 * residual bounds. */
static int finish(sbw_rsvd *rs, const double *u, double *z)
{
    size_t m = rs->cols, l = rs->sketch;
    rs->test2_max = 0;
    for (size_t i = 0; i < rs->tests; i++)
        rs->test2_max = fmax(rs->test2_max, cblas_dnrm2((int)m, u + i * m, 1));
    rs->b_fro2 = 0;
    for (size_t i = 0; i < m * l; i++)
        rs->b_fro2 += z[i] * z[i];
    sbw_rsvd_residual(rs);
    if (!(rs->s = malloc(l * sizeof *rs->s)))
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    sbw_mat b = sbw_mat_view(z, l, m, m); /* B row-major = B^T column-major */
    return sbw_svd_values(&b, rs->s);
}

void sbw_rsvd_residual(sbw_rsvd *rs)
{
    double alpha = pow(10.0, 10.0 / (double)rs->tests); /* alpha^-t = SBW_RSVD_FAILURE */
    rs->resid_test =
        fmin(alpha * SQRT_2_PI * rs->test_max, sqrt(alpha * SQRT_2_PI * rs->test2_max));
    double slack = 8.0 * (double)(rs->rows + rs->cols) * DBL_EPSILON * rs->fro2;
    rs->resid_fro = sqrt(fmax(0.0, rs->fro2 - rs->b_fro2) + slack);
    rs->resid = fmin(rs->resid_test, rs->resid_fro);
}

double sbw_rsvd_bounds(const sbw_rsvd *rs, size_t n, double *lo, double *hi)
{
    double w = rs->sketch ? fmax(rs->s[0], rs->w0_uncentred) : 0;
    double d = 0.25 * sqrt((double)(rs->rows + rs->cols + 1)) * DBL_EPSILON * w;
    for (size_t j = 0; j < n && j < rs->sketch; j++) {
        lo[j] = fmax(0.0, rs->s[j] - d - (rs->single_pass ? rs->resid : 0));
        hi[j] = (rs->single_pass ? rs->s[j] + rs->resid : hypot(rs->s[j], rs->resid)) + d;
    }
    return d;
}

/* ---- the passes ----------------------------------------------------------- */

/* What one pass does with each block of the analysed matrix. */
typedef struct rs_pass {
    bool sums_only;  /* pass 0: column sums of the row-transformed matrix into sums */
    bool stats;      /* pass 1: the scan, column sums of A, norms */
    const double *x; /* y (N x cx) = A x, x (M x cx); NULL: no such product */
    size_t cx;
    double *y;
    const double *q; /* z (M x cq) = A^T q, q (N x cq); NULL: none */
    size_t cq;
    double *z;
    const double *x2; /* a second right product in the same pass: y2 = A x2 */
    size_t cx2;
    double *y2;
    const double *q2; /* a second left product: z2 = A^T q2 */
    size_t cq2;
    double *z2;
} rs_pass;

/* The run's state shared by its passes. */
typedef struct rs_job {
    sbw_npy_reader *r;
    const sbw_rsvd_opts *o;
    const char *path;
    size_t n, m, b;
    double *buf;   /* b x m */
    double *sums;  /* m: pass 0's or pass 1's column sums */
    double *cmean; /* m: the column means a cols variant subtracts; NULL until known */
    bool mapped;
    size_t read; /* rows read over every pass, for the progress */
    /* pass 1's findings */
    sbw_check_bad bad;
    sbw_reduce_f32scan f32;
    double fro2, rowmean_sq;
} rs_job;

/* Rows [row0, row0 + nr) of the file: a mapped view (*v set, *a its rows)
 * or read into job->buf (v->map NULL). */
static int get_block(rs_job *job, size_t row0, size_t nr, sbw_npy_view *v, const double **a)
{
    *v = (sbw_npy_view){0};
    if (job->mapped && sbw_npy_view_rows(job->r, row0, nr, v)) {
        *a = v->rows;
        return SBW_OK;
    }
    *a = job->buf;
    int st = sbw_npy_seek_row(job->r, row0);
    return st ? st : sbw_npy_read_rows(job->r, job->buf, nr, job->m);
}

/* Pass 1's scan of the block as stored (raw) and, after exp, of what it
 * holds (a): float32 values, non-finite entries, column sums of A. */
static void scan_block(rs_job *job, const double *raw, const double *a, size_t row0, size_t nr)
{
    size_t m = job->m;
    sbw_reduce_scan_f32(&job->f32, raw, nr * m);
    sbw_check_bad_rows(&job->bad, a, row0, nr, m, m);
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < m; j++)
            job->sums[j] += a[i * m + j];
}

/* The block a (nr x m, in job->buf) made the analysed matrix's rows: exp
 * (done by the caller), each row centred (rows variants), the column
 * means subtracted (cols variants, once known); pass 1 learns the row
 * means' energy on the way and, at the end, the Frobenius norm. */
static void transform(rs_job *job, const rs_pass *p, double *a, size_t nr)
{
    size_t m = job->m;
    bool rows = (job->o->var & SBW_VAR_ROWS) != 0;
    double fro = 0;
    for (size_t i = 0; i < nr; i++) {
        double *row = a + i * m, mu = 0, f = 0;
        if (rows)
            mu = sbw_reduce_centre_row(row, m);
        else if (p->stats)
            mu = sbw_reduce_row_mean(row, m);
        if (p->stats)
            job->rowmean_sq += (double)m * mu * mu;
        if (job->cmean)
            for (size_t j = 0; j < m; j++)
                row[j] -= job->cmean[j];
        if (p->sums_only)
            for (size_t j = 0; j < m; j++)
                job->sums[j] += row[j];
        for (size_t j = 0; p->stats && j < m; j++)
            f += row[j] * row[j];
        fro += f;
    }
    job->fro2 += fro;
}

/* The products of one block a (nr x m, rows [row0, row0 + nr)). */
static void products(const rs_job *job, const rs_pass *p, const double *a, size_t row0, size_t nr)
{
    int n = (int)job->n, m = (int)job->m, b = (int)nr;
    if (p->x)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, b, (int)p->cx, m, 1.0, a, m, p->x, m,
                    0.0, p->y + row0, n);
    if (p->x2)
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, b, (int)p->cx2, m, 1.0, a, m, p->x2, m,
                    0.0, p->y2 + row0, n);
    if (p->q)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, (int)p->cq, b, 1.0, a, m,
                    p->q + row0, n, 1.0, p->z, m);
    if (p->q2)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, (int)p->cq2, b, 1.0, a, m,
                    p->q2 + row0, n, 1.0, p->z2, m);
}

/* One block: fetched, scanned (pass 1), transformed when the variant or
 * exp asks (in job->buf; a view is copied there first), multiplied. */
static int do_block(rs_job *job, const rs_pass *p, size_t row0, size_t nr)
{
    sbw_npy_view v;
    const double *raw;
    int st = get_block(job, row0, nr, &v, &raw);
    if (st)
        return st;
    bool change = job->o->exp || job->o->var != SBW_VAR_PLAIN;
    double *a = job->buf;
    if (raw != a && (change || p->stats))
        memcpy(a, raw, nr * job->m * sizeof *a);
    for (size_t i = 0; job->o->exp && i < nr * job->m; i++)
        a[i] = exp(a[i]);
    if (p->stats)
        scan_block(job, raw, a, row0, nr);
    if (!job->bad.any)
        transform(job, p, a, nr);
    if (!job->bad.any && !p->sums_only)
        products(job, p, change || p->stats ? a : raw, row0, nr);
    if (v.map)
        sbw_npy_view_release(&v);
    return SBW_OK;
}

/* One pass over the file, block by block in file order: p's left
 * products zeroed first, then accumulated; progress counted over passes. */
static int run_pass(rs_job *job, const rs_pass *p)
{
    if (p->q)
        memset(p->z, 0, job->m * p->cq * sizeof *p->z);
    if (p->q2)
        memset(p->z2, 0, job->m * p->cq2 * sizeof *p->z2);
    for (size_t row0 = 0; row0 < job->n; row0 += job->b) {
        size_t nr = sbw_num_min_sz(job->b, job->n - row0);
        int st = do_block(job, p, row0, nr);
        if (st)
            return st;
        job->read += nr;
        if (job->o->progress)
            sbw_progress_update(job->o->progress, (double)job->read);
    }
    return SBW_OK;
}

/* ---- the run ------------------------------------------------------------- */

/* The buffers of a run: Y/Q (N x l), Z (M x l: Omega, then A^T Q, then
 * B^T), T (N x t), G (M x t), the block, sums and scratch. */
typedef struct rs_bufs {
    sbw_mat y, z, t, g, blk;
    double *sums, *cmean, *tau, *w;
} rs_bufs;

/* Frees every buffer of bf (NULL members are fine). */
static void free_bufs(rs_bufs *bf)
{
    sbw_mat_free(&bf->y);
    sbw_mat_free(&bf->z);
    sbw_mat_free(&bf->t);
    sbw_mat_free(&bf->g);
    sbw_mat_free(&bf->blk);
    free(bf->sums);
    free(bf->cmean);
    free(bf->tau);
    free(bf->w);
}

/* Every buffer, after the memory preflight of their sum. */
static int alloc_bufs(rs_bufs *bf, const sbw_rsvd *rs)
{
    size_t n = rs->rows, m = rs->cols, l = rs->sketch, t = rs->tests;
    double bytes = 8.0 * ((double)(n + m) * (double)(l + t) + (double)rs->block_rows * (double)m +
                          2.0 * (double)m + (double)l * (double)(t + 1));
    char what[160];
    snprintf(what, sizeof what, "a randomized sketch of %zu columns of a %zu x %zu matrix", l, n,
             m);
    int st = sbw_preflight_memory(bytes, what);
    st = st ? st : sbw_mat_alloc(&bf->y, l, n);
    st = st ? st : sbw_mat_alloc(&bf->z, l, m);
    st = st ? st : sbw_mat_alloc(&bf->t, t, n);
    st = st ? st : sbw_mat_alloc(&bf->g, t, m);
    st = st ? st : sbw_mat_alloc(&bf->blk, rs->block_rows, m);
    if (!st &&
        (!(bf->sums = calloc(m, sizeof(double))) || !(bf->cmean = malloc(m * sizeof(double))) ||
         !(bf->tau = malloc(l * sizeof(double))) || !(bf->w = malloc(l * t * sizeof(double)))))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    return st;
}

/* Pass 0 of a column-centred variant: the column means it subtracts. */
static int pass_means(rs_job *job, double *cmean)
{
    rs_pass p0 = {.sums_only = true};
    int st = run_pass(job, &p0);
    for (size_t j = 0; !st && j < job->m; j++) {
        cmean[j] = job->sums[j] / (double)job->n;
        job->sums[j] = 0;
    }
    job->fro2 = 0;
    return st;
}

/* Pass 1: Y = A Omega and what the scan learns; NaN/Inf fail here. */
static int pass_first(rs_job *job, rs_bufs *bf, sbw_rsvd *rs)
{
    rs_pass p1 = {.stats = true, .x = bf->z.data, .cx = rs->sketch, .y = bf->y.data};
    if (job->o->power == 0) /* the last A-side pass: T = A G too */
        p1 = (rs_pass){.stats = true,
                       .x = bf->z.data,
                       .cx = rs->sketch,
                       .y = bf->y.data,
                       .x2 = bf->g.data,
                       .cx2 = rs->tests,
                       .y2 = bf->t.data};
    int st = run_pass(job, &p1);
    st = st ? st : sbw_check_bad_error(&job->bad, job->path, job->o->exp ? " in exp(A)" : NULL);
    if (st)
        return st;
    rs->fro2 = job->fro2;
    rs->rowmean_sq = job->rowmean_sq;
    rs->f32_values = sbw_reduce_f32_values(&job->f32, rs->dtype);
    for (size_t j = 0; j < job->m; j++)
        job->sums[j] /= (double)job->n; /* the column means of A (after exp) */
    sbw_reduce red = {
        .rows = job->n, .cols = job->m, .mean = job->sums, .rowmean_sq = job->rowmean_sq};
    rs->w0_uncentred = sbw_reduce_uncentred_w0(&red, job->o->var, 0.0);
    return sbw_rsvd_orth(bf->y.data, rs->rows, rs->sketch, bf->tau);
}

/* The q power iterations (the last A-side pass also forms T = A G), R =
 * (I - QQ^T) T, then the last pass: B^T = A^T Q and U = A^T R (into G's
 * buffer, no longer needed). */
static int passes_rest(rs_job *job, rs_bufs *bf, sbw_rsvd *rs)
{
    size_t l = rs->sketch;
    int st = SBW_OK;
    for (size_t it = 0; !st && it < job->o->power; it++) {
        rs_pass pt = {.q = bf->y.data, .cq = l, .z = bf->z.data};
        st = run_pass(job, &pt);
        st = st ? st : sbw_rsvd_orth(bf->z.data, rs->cols, l, bf->tau);
        rs_pass pa = {.x = bf->z.data, .cx = l, .y = bf->y.data};
        if (it + 1 == job->o->power) {
            pa.x2 = bf->g.data;
            pa.cx2 = rs->tests;
            pa.y2 = bf->t.data;
        }
        st = st ? st : run_pass(job, &pa);
        st = st ? st : sbw_rsvd_orth(bf->y.data, rs->rows, l, bf->tau);
    }
    if (st)
        return st;
    project_out(rs, bf->y.data, bf->t.data, bf->w);
    rs_pass last = {.q = bf->y.data,
                    .cq = l,
                    .z = bf->z.data,
                    .q2 = bf->t.data,
                    .cq2 = rs->tests,
                    .z2 = bf->g.data};
    st = run_pass(job, &last);
    return st ? st : finish(rs, bf->g.data, bf->z.data);
}

/* The block size and whether blocks can be mapped. */
static void block_plan(rs_job *job, sbw_rsvd *rs)
{
    size_t b = job->o->block_rows ? job->o->block_rows
                                  : sbw_num_max_sz(MIN_BLOCK, BLOCK_BYTES / (8 * job->m));
    rs->block_rows = job->b = sbw_num_min_sz(b, job->n);
    sbw_npy_view v;
    job->mapped = sbw_npy_view_rows(job->r, 0, 1, &v);
    if (job->mapped)
        sbw_npy_view_release(&v);
    rs->mapped = job->mapped;
}

int sbw_rsvd_run(sbw_npy_reader *r, const sbw_rsvd_opts *o, sbw_rsvd *out)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    const char *path = sbw_npy_reader_path(r);
    *out = (sbw_rsvd){0};
    sbw_rsvd rs = {.dtype = in->dtype};
    int st = sbw_check_shape(in, path, SBW_SHAPE_MATRIX);
    st = st ? st : sbw_rsvd_plan(o, in->rows, in->cols, path, &rs);
    bool cols = (o->var & SBW_VAR_COLS) != 0;
    rs.passes = 2 * o->power + 2 + (cols ? 1 : 0);
    if (!st && !sbw_npy_reader_seekable(r))
        st = SBW_ERROR(SBW_EINVAL,
                       "%s: --method randomized reads the matrix %zu times, so it needs a "
                       "regular file, not a pipe (save the stream to a file first)",
                       path, rs.passes);
    if (st)
        return st;
    double t0 = sbw_progress_now();
    rs_job job = {.r = r, .o = o, .path = path, .n = rs.rows, .m = rs.cols};
    rs_bufs bf = {0};
    block_plan(&job, &rs);
    st = alloc_bufs(&bf, &rs);
    job.buf = bf.blk.data;
    job.sums = bf.sums;
    st = st ? st : sbw_rsvd_draw(bf.z.data, rs.cols, rs.sketch, o->seed, 0);
    st = st ? st : sbw_rsvd_draw(bf.g.data, rs.cols, rs.tests, o->seed, UINT64_C(1) << 31);
    if (!st && cols && !(st = pass_means(&job, bf.cmean)))
        job.cmean = bf.cmean;
    st = st ? st : pass_first(&job, &bf, &rs);
    st = st ? st : passes_rest(&job, &bf, &rs);
    free_bufs(&bf);
    rs.seconds = sbw_progress_now() - t0;
    if (st)
        sbw_rsvd_free(&rs);
    else
        *out = rs;
    return st;
}

int sbw_rsvd_file(const char *path, const sbw_rsvd_opts *o, const char *label, bool quiet,
                  sbw_rsvd *out)
{
    *out = (sbw_rsvd){0};
    sbw_npy_reader *r = NULL;
    int st = sbw_check_open(&r, path, SBW_SHAPE_MATRIX);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    bool pipe = !sbw_npy_reader_seekable(r);
    size_t passes = pipe ? 1 : 2 * o->power + 2 + ((o->var & SBW_VAR_COLS) ? 1 : 0);
    sbw_rsvd_opts ro = *o;
    sbw_progress p;
    sbw_progress_start(&p, label, "rows", (double)in->rows * (double)passes, quiet);
    ro.progress = &p;
    st = pipe ? sbw_rsvd_sp(r, &ro, out) : sbw_rsvd_run(r, &ro, out);
    sbw_progress_finish(&p);
    sbw_npy_close(r);
    return st;
}
