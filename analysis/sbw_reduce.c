/* sbw_reduce.c -- one pass over a .npy matrix to something with the same
 * singular values as its plain and centred variants: the matrix itself, or
 * the triangle of a streaming TSQR run by several workers. */
#include "sbw_reduce.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_tsqr.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_BYTES  (8u << 20)  /* rows read per call in the direct path */
#define BLOCK_BYTES (16u << 20) /* default TSQR block */
#define MIN_BLOCK   512 /* rows: GEMM-sized updates in tpqrt (measured: 128 rows cost 25% more) */

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }
static size_t max_sz(size_t a, size_t b) { return a > b ? a : b; }

const char *sbw_reduce_variant_name(sbw_reduce_variant v)
{
    static const char *const names[] = {"none", "rows", "cols", "both"};
    return (unsigned)v < SBW_NVARIANT ? names[v] : "?";
}

const char *sbw_reduce_method_name(sbw_reduce_method m)
{
    return m == SBW_METHOD_DIRECT ? "direct" : m == SBW_METHOD_TSQR ? "tsqr" : "auto";
}

int sbw_reduce_method_parse(const char *s, sbw_reduce_method *m)
{
    for (int i = SBW_METHOD_AUTO; i <= SBW_METHOD_TSQR; i++)
        if (strcmp(s, sbw_reduce_method_name((sbw_reduce_method)i)) == 0) {
            *m = (sbw_reduce_method)i;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "--method: '%s' is not one of auto, direct, tsqr", s);
}

/* ---- reading: non-finite entries, transformations, column sums --------- */

/* Reads rows [row0, row0 + nr) into a (nr x cols) and shows them to the
 * hook, untransformed. */
static int fetch_block(sbw_npy_reader *r, const sbw_reduce_opts *o, double *a, size_t row0,
                       size_t nr, size_t cols)
{
    int st = sbw_npy_read_rows(r, a, nr, cols);
    if (!st && o->hook)
        st = o->hook(o->hook_ctx, a, row0, nr, cols);
    return st;
}

/* Subtracts the mean from row[0..m) in two passes (the second removes
 * what rounding left of the first, so the result sums to zero at the
 * scale of the centred values, not of the mean); returns the mean. */
static double centre_row(double *row, size_t m)
{
    double mu = 0, mu2 = 0;
    for (size_t j = 0; j < m; j++)
        mu += row[j];
    mu /= (double)m;
    for (size_t j = 0; j < m; j++)
        mu2 += row[j] - mu;
    mu2 /= (double)m;
    for (size_t j = 0; j < m; j++)
        row[j] = row[j] - mu - mu2;
    return mu + mu2;
}

/* exp (if asked), the non-finite scan, and column sums of a block; with
 * last (the TSQR path), each row a_i then becomes [a_i - m_i 1 | sqrt(M)
 * m_i]: same Gram as a_i's rows (the centred part is orthogonal to 1), and
 * its first M columns are the row-centred matrix (see load_tsqr). */
static void prep_block(const sbw_reduce_opts *o, double *a, size_t row0, size_t nr, size_t cols,
                       sbw_check_bad *bad, double *sums, double *last)
{
    size_t n = nr * cols;
    if (o->exp)
        for (size_t i = 0; i < n; i++)
            a[i] = exp(a[i]);
    sbw_check_bad_rows(bad, a, row0, nr, cols, cols);
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < cols; j++)
            sums[j] += a[i * cols + j];
    for (size_t i = 0; last && i < nr; i++)
        last[i] = sqrt((double)cols) * centre_row(a + i * cols, cols);
}

static void progress(const sbw_reduce_opts *o, size_t done)
{
    if (o->progress)
        sbw_progress_update(o->progress, (double)done);
}

/* ---- the direct path: the whole matrix in memory ------------------------ */

static int load_direct(sbw_npy_reader *r, const sbw_reduce_opts *o, sbw_reduce *red,
                       sbw_check_bad *bad)
{
    size_t n = red->rows, m = red->cols, b = min_sz(n, max_sz(1, READ_BYTES / (8 * m)));
    bool f32 = red->prec == SBW_F32;
    double *panel = NULL;
    /* a pipe's matrix grows as its rows arrive: its header is not trusted
     * with the allocation (a regular file's size was checked at open) */
    size_t cap = sbw_npy_reader_seekable(r)
                     ? n
                     : sbw_mat_stream_rows(n, m, f32 ? sizeof(float) : sizeof(double));
    int st = f32 ? sbw_mat_f32_alloc(&red->xf, cap, m) : sbw_mat_alloc(&red->x, cap, m);
    if (!st && f32 && !(panel = malloc((b * m > 0 ? b * m : 1) * sizeof *panel)))
        st = SBW_ERROR(SBW_ENOMEM, "%s: out of memory", red->path);
    for (size_t row0 = 0; !st && row0 < n; row0 += b) {
        size_t nr = min_sz(b, n - row0);
        st = f32 ? sbw_mat_f32_reserve(&red->xf, row0 + nr, n)
                 : sbw_mat_reserve(&red->x, row0 + nr, n);
        if (st)
            break;
        double *a = f32 ? panel : red->x.data + row0 * m;
        st = fetch_block(r, o, a, row0, nr, m);
        if (st)
            break;
        prep_block(o, a, row0, nr, m, bad, red->mean, NULL);
        for (size_t i = 0; f32 && i < nr * m; i++)
            red->xf.data[row0 * m + i] = (float)a[i];
        progress(o, row0 + nr);
    }
    free(panel);
    return st;
}

/* ---- the TSQR path: workers share the reader, each has its own R -------- */

typedef struct tsqr_job {
    sbw_npy_reader *r;
    const sbw_reduce_opts *o;
    size_t rows, cols, block, next;
    bool bad_seen; /* some worker met a NaN/Inf: stop factorising */
    int st;        /* the first failure, and its reason */
    char reason[512];
} tsqr_job;

typedef struct tsqr_worker {
    sbw_tsqr *q;
    double *panel; /* block x cols */
    double *last;  /* block: sqrt(M) times the row means */
    double *sums;  /* column sums of the rows this worker took */
    sbw_check_bad bad;
} tsqr_worker;

/* Claims and reads the next block under the reader's lock; *nr = 0 when
 * the input is exhausted or another worker failed. */
static int claim_block(tsqr_job *job, tsqr_worker *w, size_t *row0, size_t *nr, bool *skip)
{
    int st = SBW_OK;
#pragma omp critical(sbw_reduce_reader)
    {
        job->bad_seen |= w->bad.any;
        *skip = job->bad_seen;
        *row0 = job->next;
        *nr = job->st ? 0 : min_sz(job->block, job->rows - job->next);
        if (*nr) {
            st = fetch_block(job->r, job->o, w->panel, *row0, *nr, job->cols);
            job->next += *nr;
            progress(job->o, job->next);
        }
    }
    return st;
}

static void fail_job(tsqr_job *job, int st)
{
#pragma omp critical(sbw_reduce_reader)
    if (!job->st) {
        job->st = st;
        snprintf(job->reason, sizeof job->reason, "%s", sbw_error_reason());
    }
}

static void run_worker(tsqr_job *job, tsqr_worker *w)
{
    for (;;) {
        size_t row0, nr;
        bool skip;
        int st = claim_block(job, w, &row0, &nr, &skip);
        if (!st && nr == 0)
            return;
        if (!st) {
            prep_block(job->o, w->panel, row0, nr, job->cols, &w->bad, w->sums, w->last);
            if (!skip && !w->bad.any)
                st = sbw_tsqr_add(w->q, w->panel, nr, job->cols, w->last);
        }
        if (st) {
            fail_job(job, st);
            return;
        }
    }
}

/* Runs nw workers; with several, each calls single-threaded BLAS (the
 * parallelism is across blocks, so the Householder panels, which BLAS
 * cannot thread well, run in parallel too). */
static void run_workers(tsqr_job *job, tsqr_worker *w, int nw)
{
    if (nw == 1) {
        run_worker(job, w);
        return;
    }
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);
#pragma omp parallel num_threads(nw)
    {
        int t = omp_get_thread_num();
        if (t < nw)
            run_worker(job, &w[t]);
    }
    openblas_set_num_threads(saved);
}

static void free_worker(tsqr_worker *w)
{
    sbw_tsqr_free(w->q);
    free(w->panel);
    free(w->last);
    free(w->sums);
    *w = (tsqr_worker){0};
}

static int alloc_worker(tsqr_worker *w, const sbw_reduce *red, size_t block, bool center)
{
    int st = sbw_tsqr_alloc(&w->q, red->cols + 1, block, center, red->prec);
    if (st)
        return st;
    w->panel = malloc(block * red->cols * sizeof *w->panel);
    w->last = malloc(block * sizeof *w->last);
    w->sums = calloc(red->cols, sizeof *w->sums);
    if (!w->panel || !w->last || !w->sums)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory for a block of %zu rows", red->path, block);
    return SBW_OK;
}

/* Workers, and rows per block, for this matrix and these options. */
static void tsqr_plan(const sbw_reduce_opts *o, sbw_reduce *red)
{
    size_t b = o->block_rows ? o->block_rows : max_sz(MIN_BLOCK, BLOCK_BYTES / (8 * red->cols));
    b = min_sz(b, red->rows);
    size_t nblocks = (red->rows + b - 1) / b;
    int nw = o->workers > 0 ? o->workers : openblas_get_num_threads();
    nw = nw < 1 ? 1 : nw;
    red->block_rows = b;
    red->workers = (size_t)nw > nblocks ? (int)nblocks : nw;
}

/* Merges every worker into the first, freeing each as it goes, and sums
 * their column sums and bad-entry counts into red->mean and *bad. */
static int merge_workers(tsqr_worker *w, int nw, sbw_reduce *red, sbw_check_bad *bad)
{
    int st = SBW_OK;
    for (int t = 0; t < nw; t++) {
        for (size_t j = 0; j < red->cols; j++)
            red->mean[j] += w[t].sums[j];
        sbw_check_bad_merge(bad, &w[t].bad);
        if (t > 0 && !st && !bad->any)
            st = sbw_tsqr_merge(w[0].q, w[t].q);
        if (t > 0)
            free_worker(&w[t]);
    }
    return st;
}

static int load_tsqr(sbw_npy_reader *r, const sbw_reduce_opts *o, bool center, sbw_reduce *red,
                     sbw_check_bad *bad)
{
    tsqr_plan(o, red);
    int nw = red->workers, st = SBW_OK;
    tsqr_worker *w = calloc((size_t)nw, sizeof *w);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", red->path);
    for (int t = 0; t < nw && !st; t++)
        st = alloc_worker(&w[t], red, red->block_rows, center);
    tsqr_job job = {.r = r, .o = o, .rows = red->rows, .cols = red->cols, .block = red->block_rows};
    if (!st) {
        run_workers(&job, w, nw);
        if (job.st)
            st = SBW_ERROR(job.st, "%s", job.reason);
    }
    if (!st)
        st = merge_workers(w, nw, red, bad);
    if (!st && !bad->any && center && !(red->mean_b = malloc((red->cols + 1) * sizeof(double))))
        st = SBW_ERROR(SBW_ENOMEM, "%s: out of memory", red->path);
    if (!st && !bad->any && center)
        sbw_tsqr_means(w[0].q, red->mean_b);
    if (!st && !bad->any)
        st = sbw_tsqr_take(w[0].q, &red->x);
    for (int t = 0; t < nw; t++)
        free_worker(&w[t]);
    free(w);
    red->cols_centred = center;
    return st;
}

/* ---- reduce -------------------------------------------------------------- */

void sbw_reduce_free(sbw_reduce *red)
{
    if (!red)
        return;
    sbw_mat_free(&red->x);
    sbw_mat_f32_free(&red->xf);
    free(red->mean);
    free(red->mean_b);
    *red = (sbw_reduce){0};
}

int sbw_reduce_read(sbw_npy_reader *r, const sbw_reduce_opts *o, bool center_cols, sbw_reduce *red)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    const char *path = sbw_npy_reader_path(r);
    *red = (sbw_reduce){0};
    int st = sbw_check_shape(in, path, SBW_SHAPE_MATRIX);
    if (st)
        return st;
    *red = (sbw_reduce){.path = path,
                        .rows = in->rows,
                        .cols = in->cols,
                        .dtype = in->dtype,
                        .prec = o->single ? SBW_F32 : SBW_F64,
                        .method = o->method};
    if (red->method == SBW_METHOD_AUTO)
        red->method = 2 * red->rows > 3 * red->cols ? SBW_METHOD_TSQR : SBW_METHOD_DIRECT;
    if (!(red->mean = calloc(red->cols, sizeof *red->mean)))
        st = SBW_ERROR(SBW_ENOMEM, "%s: out of memory", path);
    sbw_check_bad bad = {0};
    if (!st && red->method == SBW_METHOD_TSQR)
        st = load_tsqr(r, o, center_cols, red, &bad);
    else if (!st)
        st = load_direct(r, o, red, &bad);
    if (!st)
        st = sbw_check_bad_error(&bad, path, o->exp ? " in exp(A)" : NULL);
    for (size_t j = 0; !st && j < red->cols; j++)
        red->mean[j] /= (double)red->rows;
    if (st)
        sbw_reduce_free(red);
    return st;
}

/* ---- variants ------------------------------------------------------------ */

static void centre_rows(sbw_mat *a)
{
    for (size_t i = 0; i < a->rows; i++)
        centre_row(a->data + i * a->ld, a->cols);
}

static void centre_rows_f32(sbw_mat_f32 *a)
{
    for (size_t i = 0; i < a->rows; i++) {
        float *row = a->data + i * a->ld;
        double mu = 0, mu2 = 0;
        for (size_t j = 0; j < a->cols; j++)
            mu += row[j];
        mu /= (double)a->cols;
        for (size_t j = 0; j < a->cols; j++)
            mu2 += row[j] - mu;
        mu2 /= (double)a->cols;
        for (size_t j = 0; j < a->cols; j++)
            row[j] = (float)(row[j] - mu - mu2);
    }
}

/* Column centring in place, in two passes: subtract the column means
 * (summed into work), then what rounding left of them. */
static void centre_cols(sbw_mat *a, double *work)
{
    for (int pass = 0; pass < 2; pass++) {
        memset(work, 0, a->cols * sizeof *work);
        for (size_t i = 0; i < a->rows; i++)
            for (size_t j = 0; j < a->cols; j++)
                work[j] += a->data[i * a->ld + j];
        for (size_t i = 0; i < a->rows; i++)
            for (size_t j = 0; j < a->cols; j++)
                a->data[i * a->ld + j] -= work[j] / (double)a->rows;
    }
}

static void centre_cols_f32(sbw_mat_f32 *a, double *work)
{
    for (int pass = 0; pass < 2; pass++) {
        memset(work, 0, a->cols * sizeof *work);
        for (size_t i = 0; i < a->rows; i++)
            for (size_t j = 0; j < a->cols; j++)
                work[j] += a->data[i * a->ld + j];
        for (size_t i = 0; i < a->rows; i++)
            for (size_t j = 0; j < a->cols; j++) {
                float *x = a->data + i * a->ld + j;
                *x = (float)(*x - work[j] / (double)a->rows);
            }
    }
}

/* *out = m (steal: the buffer moves) or a copy of it. */
static int take_or_copy(sbw_mat *m, bool steal, sbw_mat *out)
{
    if (steal) {
        *out = *m;
        *m = (sbw_mat){0};
        return SBW_OK;
    }
    int st = sbw_mat_alloc(out, m->rows, m->cols);
    return st ? st : sbw_mat_copy(out, m);
}

/* From R_c, the factor of the column-centred [A_c | sqrt(M) m]:
 * [R_c; sqrt(N) mu_b^T], whose Gram R_c^T R_c + N mu_b mu_b^T is the
 * uncentred one's. */
static int uncentre_factor(sbw_reduce *red, bool steal, sbw_mat *out)
{
    size_t n = red->x.cols;
    int st = sbw_mat_alloc(out, n + 1, n);
    if (st)
        return st;
    memcpy(out->data, red->x.data, n * n * sizeof(double));
    double w = sqrt((double)red->rows);
    for (size_t j = 0; j < n; j++)
        out->data[n * n + j] = w * red->mean_b[j];
    if (steal)
        sbw_mat_free(&red->x);
    return SBW_OK;
}

/* Variant v from the TSQR factor R of B = [A_c | sqrt(M) m] (A_c the
 * row-centred matrix, m the row means), column-centred or not: A A^T =
 * B B^T because A_c 1 = 0, so sigma(A) = sigma(B) = sigma(R); and B's first
 * M columns are A_c, whose factor is R's first M columns. */
static int variant_tsqr(sbw_reduce *red, sbw_reduce_variant v, bool steal, sbw_mat *out)
{
    bool cols = (v & SBW_VAR_COLS) != 0;
    if (cols && !red->cols_centred)
        return SBW_ERROR(SBW_EINVAL, "column-centred variant from an uncentred TSQR");
    int st = red->cols_centred && !cols ? uncentre_factor(red, steal, out)
                                        : take_or_copy(&red->x, steal, out);
    if (!st && (v & SBW_VAR_ROWS))
        out->cols = red->cols; /* drop the mean column: a view with ld = M + 1 */
    return st;
}

int sbw_reduce_matrix(sbw_reduce *red, sbw_reduce_variant v, bool steal, sbw_mat *out)
{
    *out = (sbw_mat){0};
    if ((unsigned)v >= SBW_NVARIANT || !red->x.data)
        return SBW_ERROR(SBW_EINVAL, "variant %d of a %s reduction", (int)v,
                         red->xf.data ? "float32 direct" : "released");
    if (red->method == SBW_METHOD_TSQR)
        return variant_tsqr(red, v, steal, out);
    double *work = malloc(red->cols * sizeof *work);
    int st = work ? take_or_copy(&red->x, steal, out) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    /* rows first: the row means of log-probabilities are what is large */
    if (!st && (v & SBW_VAR_ROWS))
        centre_rows(out);
    if (!st && (v & SBW_VAR_COLS))
        centre_cols(out, work);
    free(work);
    return st;
}

int sbw_reduce_matrix_f32(sbw_reduce *red, sbw_reduce_variant v, bool steal, sbw_mat_f32 *out)
{
    *out = (sbw_mat_f32){0};
    if ((unsigned)v >= SBW_NVARIANT || !red->xf.data)
        return SBW_ERROR(SBW_EINVAL, "float32 variant %d of a %s reduction", (int)v,
                         red->x.data ? "float64" : "released");
    int st = SBW_OK;
    if (steal) {
        *out = red->xf;
        red->xf = (sbw_mat_f32){0};
    } else if (!(st = sbw_mat_f32_alloc(out, red->xf.rows, red->xf.cols)))
        memcpy(out->data, red->xf.data, out->rows * out->cols * sizeof(float));
    double *work = st ? NULL : malloc(out->cols * sizeof *work);
    if (!st && !work)
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st && (v & SBW_VAR_ROWS))
        centre_rows_f32(out);
    if (!st && (v & SBW_VAR_COLS))
        centre_cols_f32(out, work);
    free(work);
    if (st)
        sbw_mat_f32_free(out);
    return st;
}
