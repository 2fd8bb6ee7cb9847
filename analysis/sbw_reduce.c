/* sbw_reduce.c -- one pass over a .npy matrix to something with the same
 * singular values as its plain and centred variants: the matrix itself, or
 * the triangle of a streaming TSQR run by several workers. */
#include "sbw_reduce.h"

#include "sbw_blas.h"
#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_tsqr.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READ_BYTES  (8u << 20)  /* rows read per call in the direct path */
#define BLOCK_BYTES (16u << 20) /* default TSQR block */
#define MIN_BLOCK   512 /* rows: GEMM-sized updates in tpqrt (measured: 128 rows cost 25% more) */

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

/* Reads rows [row0, row0 + nr) into a (nr x cols), rounds them when
 * asked (o->round), and shows them to the hook, untransformed. */
static int fetch_block(sbw_npy_reader *r, const sbw_reduce_opts *o, double *a, size_t row0,
                       size_t nr, size_t cols)
{
    int st = sbw_npy_read_rows(r, a, nr, cols);
    if (!st && o->round)
        o->round(o->round_ctx, a, nr * cols);
    if (!st && o->hook)
        st = o->hook(o->hook_ctx, a, row0, nr, cols);
    return st;
}

/* The centring, double and float (sbw_reduce_tmpl.h). */
/* defines: row_mean_d(), centre_row_d(), centre_rows_d(), centre_cols_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_reduce_tmpl.h"

/* defines: row_mean_f(), centre_row_f(), centre_rows_f(), centre_cols_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_reduce_tmpl.h"

/* What one pass learns besides the values: sum_i M m_i^2 (m_i the row
 * means of the analysed matrix), and whether every entry is a float32
 * value (sbw_reduce_f32scan).  Kept per worker, merged in worker order. */
typedef struct pass_stats {
    double rowmean_sq;
    sbw_reduce_f32scan f32;
} pass_stats;

void sbw_reduce_scan_f32(sbw_reduce_f32scan *s, const double *a, size_t n)
{
    for (size_t i = 0; i < n && !s->not_f32; i++) {
        if (!(fabs(a[i]) <= FLT_MAX)) { /* (float) of it would be undefined (C11 6.3.1.5) */
            s->not_f32 = true;
            break;
        }
        float f = (float)a[i];
        if ((double)f != a[i]) {
            s->not_f32 = true;
            break;
        }
        if (!s->f32_full) {
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            s->f32_full = (u & 1u) != 0; /* the last significand bit */
        }
    }
}

bool sbw_reduce_f32_values(const sbw_reduce_f32scan *s, sbw_npy_dtype dtype)
{
    return dtype == SBW_F64 && !s->not_f32 && s->f32_full;
}

double sbw_reduce_centre_row(double *row, size_t m) { return centre_row_d(row, m); }

double sbw_reduce_row_mean(const double *row, size_t m)
{
    double mu, mu2;
    row_mean_d(row, m, &mu, &mu2);
    return mu + mu2;
}

static void merge_stats(pass_stats *into, const pass_stats *b)
{
    into->rowmean_sq += b->rowmean_sq;
    into->f32.not_f32 |= b->f32.not_f32;
    into->f32.f32_full |= b->f32.f32_full;
}

/* The float32 scan (of the values as read), exp (if asked), the
 * non-finite scan, column sums and the row means' energy of a block; with
 * last (the TSQR path), each row a_i then becomes [a_i - m_i 1 | sqrt(M)
 * m_i]: same Gram as a_i's rows (the centred part is orthogonal to 1), and
 * its first M columns are the row-centred matrix (see load_tsqr). */
static void prep_block(const sbw_reduce_opts *o, double *a, size_t row0, size_t nr, size_t cols,
                       sbw_check_bad *bad, pass_stats *ps, double *sums, double *last)
{
    size_t n = nr * cols;
    sbw_reduce_scan_f32(&ps->f32, a, n);
    if (o->exp)
        for (size_t i = 0; i < n; i++)
            a[i] = exp(a[i]);
    sbw_check_bad_rows(bad, a, row0, nr, cols, cols);
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < cols; j++)
            sums[j] += a[i * cols + j];
    for (size_t i = 0; i < nr; i++) {
        double mu, mu2;
        if (last)
            mu = centre_row_d(a + i * cols, cols);
        else {
            row_mean_d(a + i * cols, cols, &mu, &mu2);
            mu += mu2;
        }
        ps->rowmean_sq += (double)cols * mu * mu;
        if (last)
            last[i] = sqrt((double)cols) * mu;
    }
}

static void progress(const sbw_reduce_opts *o, size_t done)
{
    if (o->progress)
        sbw_progress_update(o->progress, (double)done);
}

/* ---- the direct path: the whole matrix in memory ------------------------ */

static int load_direct(sbw_npy_reader *r, const sbw_reduce_opts *o, sbw_reduce *red,
                       sbw_check_bad *bad, pass_stats *ps)
{
    size_t n = red->rows, m = red->cols,
           b = sbw_num_min_sz(n, sbw_num_max_sz(1, READ_BYTES / (8 * m)));
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
        size_t nr = sbw_num_min_sz(b, n - row0);
        st = f32 ? sbw_mat_f32_reserve(&red->xf, row0 + nr, n)
                 : sbw_mat_reserve(&red->x, row0 + nr, n);
        if (st)
            break;
        double *a = f32 ? panel : red->x.data + row0 * m;
        st = fetch_block(r, o, a, row0, nr, m);
        if (st)
            break;
        prep_block(o, a, row0, nr, m, bad, ps, red->mean, NULL);
        for (size_t i = 0; f32 && i < nr * m; i++)
            red->xf.data[row0 * m + i] = (float)a[i];
        progress(o, row0 + nr);
    }
    free(panel);
    return st;
}

/* ---- the TSQR path: workers share the reader, each has its own R -------- */

/* Deterministic for a given worker count W: block b (of block_rows rows,
 * in file order) always goes to worker b mod W, blocks are read in file
 * order (a file and a pipe alike), each worker stacks its blocks in that
 * order, and the workers' triangles are merged in worker order; so the
 * same input gives the same bits, however the threads are scheduled. */

typedef struct tsqr_job {
    sbw_npy_reader *r;
    const sbw_reduce_opts *o;
    size_t rows, cols, block, nblocks;
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
    pass_stats ps;
} tsqr_worker;

/* Reads block b into w->panel; called in file order (in the worker's
 * turn, or by the serial loop).  *nr = 0 once some worker has failed. */
static int read_block(tsqr_job *job, tsqr_worker *w, size_t b, size_t *nr, bool *skip)
{
    size_t row0 = b * job->block;
    bool stop;
#pragma omp critical(sbw_reduce_job)
    {
        job->bad_seen |= w->bad.any;
        *skip = job->bad_seen;
        stop = job->st != 0;
    }
    *nr = stop ? 0 : sbw_num_min_sz(job->block, job->rows - row0);
    if (*nr == 0)
        return SBW_OK;
    int st = fetch_block(job->r, job->o, w->panel, row0, *nr, job->cols);
    if (!st)
        progress(job->o, row0 + *nr);
    return st;
}

static void fail_job(tsqr_job *job, int st)
{
#pragma omp critical(sbw_reduce_job)
    if (!job->st) {
        job->st = st;
        snprintf(job->reason, sizeof job->reason, "%s", sbw_error_reason());
    }
}

/* Worker w's share of block b once read (st: the read's status). */
static void work_block(tsqr_job *job, tsqr_worker *w, size_t b, size_t nr, bool skip, int st)
{
    if (!st && nr) {
        prep_block(job->o, w->panel, b * job->block, nr, job->cols, &w->bad, &w->ps, w->sums,
                   w->last);
        if (!skip && !w->bad.any)
            st = sbw_tsqr_add(w->q, w->panel, nr, job->cols, w->last);
    }
    if (st)
        fail_job(job, st);
}

/* Every block on one thread, block b to worker b mod nw: the same
 * arithmetic as the parallel loop. */
static void run_serial(tsqr_job *job, tsqr_worker *w, int nw)
{
    for (size_t b = 0; b < job->nblocks; b++) {
        size_t nr;
        bool skip;
        tsqr_worker *wb = &w[b % (size_t)nw];
        int st = read_block(job, wb, b, &nr, &skip);
        work_block(job, wb, b, nr, skip, st);
    }
}

/* The turn of the reader: block b may be read once blocks 0..b-1 have
 * been.  A waiting worker sleeps on the condition (no spinning: the
 * machine may be shared, and a spinning thread takes the core its
 * predecessor needs to finish). */
typedef struct tsqr_turn {
    pthread_mutex_t lock;
    pthread_cond_t moved;
    size_t next; /* the block to read next */
} tsqr_turn;

/* Worker t of nw: blocks t, t + nw, t + 2 nw, ..., each read in its turn
 * and stacked on the worker's own factor. */
static void run_worker(tsqr_job *job, tsqr_turn *turn, tsqr_worker *w, int t, int nw)
{
    for (size_t b = (size_t)t; b < job->nblocks; b += (size_t)nw) {
        size_t nr;
        bool skip;
        pthread_mutex_lock(&turn->lock);
        while (turn->next != b)
            pthread_cond_wait(&turn->moved, &turn->lock);
        pthread_mutex_unlock(&turn->lock);
        int st = read_block(job, w, b, &nr, &skip);
        pthread_mutex_lock(&turn->lock);
        turn->next = b + 1;
        pthread_cond_broadcast(&turn->moved);
        pthread_mutex_unlock(&turn->lock);
        work_block(job, w, b, nr, skip, st);
    }
}

/* Runs nw workers; with several, each calls single-threaded BLAS (the
 * parallelism is across blocks, so the Householder panels, which BLAS
 * cannot thread well, run in parallel too).  Worker t takes blocks b = t
 * mod nw, read in file order (tsqr_turn).  A team smaller than asked
 * runs the serial loop, which gives the same bits. */
static void run_workers(tsqr_job *job, tsqr_worker *w, int nw)
{
    if (nw == 1) {
        run_serial(job, w, 1);
        return;
    }
    tsqr_turn turn = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int saved = sbw_blas_threads_push(1);
#pragma omp parallel num_threads(nw)
    {
        int t = omp_get_thread_num();
        if (omp_get_num_threads() != nw) {
            if (t == 0)
                run_serial(job, w, nw);
        } else
            run_worker(job, &turn, &w[t], t, nw);
    }
    sbw_blas_threads_pop(saved);
    pthread_cond_destroy(&turn.moved);
    pthread_mutex_destroy(&turn.lock);
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
    size_t b =
        o->block_rows ? o->block_rows : sbw_num_max_sz(MIN_BLOCK, BLOCK_BYTES / (8 * red->cols));
    b = sbw_num_min_sz(b, red->rows);
    size_t nblocks = (red->rows + b - 1) / b;
    int nw = o->workers > 0 ? o->workers : sbw_blas_threads();
    nw = nw < 1 ? 1 : nw;
    red->block_rows = b;
    red->workers = (size_t)nw > nblocks ? (int)nblocks : nw;
}

/* Merges every worker into the first in worker order, freeing each as it
 * goes, and sums their column sums, bad-entry counts and pass statistics
 * (in the same order) into red->mean, *bad and *ps. */
static int merge_workers(tsqr_worker *w, int nw, sbw_reduce *red, sbw_check_bad *bad,
                         pass_stats *ps)
{
    int st = SBW_OK;
    for (int t = 0; t < nw; t++) {
        for (size_t j = 0; j < red->cols; j++)
            red->mean[j] += w[t].sums[j];
        sbw_check_bad_merge(bad, &w[t].bad);
        merge_stats(ps, &w[t].ps);
        if (t > 0 && !st && !bad->any)
            st = sbw_tsqr_merge(w[0].q, w[t].q);
        if (t > 0)
            free_worker(&w[t]);
    }
    return st;
}

static int load_tsqr(sbw_npy_reader *r, const sbw_reduce_opts *o, bool center, sbw_reduce *red,
                     sbw_check_bad *bad, pass_stats *ps)
{
    tsqr_plan(o, red);
    int nw = red->workers, st = SBW_OK;
    tsqr_worker *w = calloc((size_t)nw, sizeof *w);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", red->path);
    for (int t = 0; t < nw && !st; t++)
        st = alloc_worker(&w[t], red, red->block_rows, center);
    tsqr_job job = {.r = r,
                    .o = o,
                    .rows = red->rows,
                    .cols = red->cols,
                    .block = red->block_rows,
                    .nblocks = (red->rows + red->block_rows - 1) / red->block_rows};
    if (!st) {
        run_workers(&job, w, nw);
        if (job.st)
            st = SBW_ERROR(job.st, "%s", job.reason);
    }
    if (!st)
        st = merge_workers(w, nw, red, bad, ps);
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
    pass_stats ps = {0};
    if (!st && red->method == SBW_METHOD_TSQR)
        st = load_tsqr(r, o, center_cols, red, &bad, &ps);
    else if (!st)
        st = load_direct(r, o, red, &bad, &ps);
    red->rowmean_sq = ps.rowmean_sq;
    red->f32_values = sbw_reduce_f32_values(&ps.f32, in->dtype);
    if (!st)
        st = sbw_check_bad_error(&bad, path, o->exp ? " in exp(A)" : NULL);
    for (size_t j = 0; !st && j < red->cols; j++)
        red->mean[j] /= (double)red->rows;
    if (st)
        sbw_reduce_free(red);
    return st;
}

/* ---- variants ------------------------------------------------------------ */

double sbw_reduce_uncentred_w0(const sbw_reduce *red, sbw_reduce_variant v, double w0)
{
    double l = w0, n = (double)red->rows, mbar = 0, mu2 = 0;
    if (v & SBW_VAR_ROWS) {
        l = fmax(l, sqrt(red->rowmean_sq));
        for (size_t j = 0; red->mean && j < red->cols; j++)
            mbar += red->mean[j]; /* the grand mean = the mean of the row means */
        mbar /= (double)red->cols;
    }
    if (!(v & SBW_VAR_COLS) || !red->mean)
        return l;
    for (size_t j = 0; j < red->cols; j++)
        mu2 += (red->mean[j] - mbar) * (red->mean[j] - mbar);
    return fmax(l, sqrt(n * mu2));
}

void sbw_reduce_centre_rows(sbw_mat *a) { centre_rows_d(a); }

void sbw_reduce_centre_cols(sbw_mat *a, double *work) { centre_cols_d(a, work); }

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
        sbw_reduce_centre_rows(out);
    if (!st && (v & SBW_VAR_COLS))
        sbw_reduce_centre_cols(out, work);
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
        centre_rows_f(out);
    if (!st && (v & SBW_VAR_COLS))
        centre_cols_f(out, work);
    free(work);
    if (st)
        sbw_mat_f32_free(out);
    return st;
}
