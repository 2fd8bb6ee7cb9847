/* sbw_synth_io.c -- streamed writing of synthetic languages. */
#include "sbw_synth_io.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_npy.h"
#include "sbw_num.h"
#include "sbw_synth_kern.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t sbw_synth_io_block_rows(size_t m, size_t group_rows, size_t bytes)
{
    size_t gr = group_rows ? group_rows : 1;
    size_t rows = bytes / (m * sizeof(double));
    rows = rows / gr * gr;
    return rows ? rows : gr;
}

/* Range, non-finite count and row maxima of a block (rows x m, ld). */
static void block_stats(sbw_synth_io_stats *s, const double *x, size_t rows, size_t m, size_t ld)
{
    double mn = s->min, mx = s->max, sum_max = 0.0, worst = s->max_abs_lse;
    size_t bad = 0;
#pragma omp parallel for reduction(min : mn) reduction(max : mx, worst) reduction(+ : bad, sum_max)
    for (size_t i = 0; i < rows; i++) {
        const double *r = x + i * ld;
        double rmax = -INFINITY;
        size_t rbad = 0;
        for (size_t j = 0; j < m; j++) {
            if (!isfinite(r[j])) {
                rbad++;
                continue;
            }
            mn = r[j] < mn ? r[j] : mn;
            rmax = r[j] > rmax ? r[j] : rmax;
        }
        mx = rmax > mx ? rmax : mx;
        sum_max += rmax;
        bad += rbad;
        double lse = fabs(rbad ? sbw_num_logsumexp(r, m) : sbw_synth_kern_logsumexp(r, m));
        worst = lse > worst || isnan(lse) ? lse : worst;
    }
    s->mean_max += (sum_max - (double)rows * s->mean_max) / (double)(s->rows + rows);
    s->min = mn;
    s->max = mx;
    s->nonfinite += bad;
    s->max_abs_lse = worst;
    s->rows += rows;
}

/* One block in flight: log-probabilities and, with --probs, their exp. */
typedef struct io_buf {
    sbw_mat blk, pblk;
    size_t nr;
} io_buf;

typedef struct io_job {
    sbw_synth *g;
    io_buf buf[2];
    sbw_npy_writer *wl, *wp;
    io_buf *pending; /* the block the writer thread is writing */
    int wst;         /* its status, and its reason (errors are per thread) */
    char reason[512];
} io_job;

/* Generates rows [r0, r0 + nr) into b, with stats and probabilities. */
static int prepare(io_job *j, io_buf *b, size_t r0, size_t nr, sbw_synth_io_stats *stats)
{
    size_t m = b->blk.cols;
    sbw_mat v = sbw_mat_rows(&b->blk, 0, nr);
    b->nr = nr;
    int st = sbw_synth_fill(j->g, r0, &v);
    if (st)
        return st;
    if (stats)
        block_stats(stats, v.data, nr, m, v.ld);
    if (j->wp) {
#pragma omp parallel for
        for (size_t i = 0; i < nr; i++)
            sbw_synth_kern_exp(v.data + i * v.ld, b->pblk.data + i * m, m);
    }
    return SBW_OK;
}

static void *writer_main(void *arg)
{
    io_job *j = arg;
    const io_buf *b = j->pending;
    j->wst = sbw_npy_write_rows(j->wl, b->blk.data, b->nr, b->blk.ld);
    if (!j->wst && j->wp)
        j->wst = sbw_npy_write_rows(j->wp, b->pblk.data, b->nr, b->pblk.ld);
    if (j->wst)
        snprintf(j->reason, sizeof j->reason, "%s", sbw_error_reason());
    return NULL;
}

/* Generates and writes every block: block k + 1 is generated (on every
 * OpenMP thread) while a writer thread writes block k, so the file system
 * and the generator overlap.  Memory: two blocks. */
static int write_blocks(io_job *j, size_t n, sbw_progress *progress, sbw_synth_io_stats *stats)
{
    size_t br = j->buf[0].blk.rows;
    int st = prepare(j, &j->buf[0], 0, br < n ? br : n, stats);
    for (size_t k = 0, r0 = 0; !st && r0 < n; k++, r0 += br) {
        pthread_t th;
        j->pending = &j->buf[k % 2];
        bool threaded = pthread_create(&th, NULL, writer_main, j) == 0;
        if (!threaded)
            writer_main(j);
        size_t next = r0 + br;
        if (next < n)
            st = prepare(j, &j->buf[(k + 1) % 2], next, n - next < br ? n - next : br, stats);
        if (threaded)
            pthread_join(th, NULL);
        if (j->wst && !st)
            st = SBW_ERROR(j->wst, "%s", j->reason);
        if (progress)
            sbw_progress_update(progress, (double)(r0 + j->pending->nr));
    }
    return st;
}

/* Commits probs first, then logp; removes a committed probs file when the
 * logp file cannot be committed (a probs FIFO or device is left alone). */
static int finish_both(io_job *j, const char *probs_path)
{
    int st = j->wp ? sbw_npy_finish(j->wp) : SBW_OK;
    j->wp = NULL;
    if (st)
        return st;
    st = sbw_npy_finish(j->wl);
    j->wl = NULL;
    struct stat sb; /* only a regular file of ours: never a FIFO or a device */
    if (st && probs_path && !sbw_file_is_std(probs_path) && lstat(probs_path, &sb) == 0 &&
        S_ISREG(sb.st_mode))
        unlink(probs_path);
    return st;
}

static int open_all(io_job *j, const sbw_synth_params *p, const char *logp_path,
                    const char *probs_path)
{
    int st = sbw_synth_alloc(&j->g, p);
    if (st)
        return st;
    size_t m = p->m, br = sbw_synth_io_block_rows(m, sbw_synth_group_rows(j->g), (size_t)32 << 20);
    br = br < p->n ? br : p->n;
    for (int b = 0; b < 2 && !st; b++) {
        st = sbw_mat_alloc(&j->buf[b].blk, br, m);
        if (!st && probs_path)
            st = sbw_mat_alloc(&j->buf[b].pblk, br, m);
    }
    st = st ? st : sbw_npy_create(&j->wl, logp_path, p->n, m, 2, SBW_F64);
    if (!st && probs_path)
        st = sbw_npy_create(&j->wp, probs_path, p->n, m, 2, SBW_F64);
    return st;
}

int sbw_synth_io_write(const sbw_synth_params *p, const char *logp_path, const char *probs_path,
                       sbw_progress *progress, sbw_synth_io_stats *stats)
{
    if (probs_path && strcmp(probs_path, logp_path) == 0)
        return SBW_ERROR(SBW_EINVAL, "the log-probability and probability outputs are both '%s'",
                         logp_path);
    int st = sbw_synth_check(p);
    if (st)
        return st;
    if (stats)
        *stats = (sbw_synth_io_stats){.min = INFINITY, .max = -INFINITY};
    io_job j = {0};
    st = open_all(&j, p, logp_path, probs_path);
    st = st ? st : write_blocks(&j, p->n, progress, stats);
    st = st ? st : finish_both(&j, probs_path);
    sbw_npy_abort(j.wl);
    sbw_npy_abort(j.wp);
    for (int b = 0; b < 2; b++) {
        sbw_mat_free(&j.buf[b].blk);
        sbw_mat_free(&j.buf[b].pblk);
    }
    sbw_synth_free(j.g);
    return st;
}

int sbw_synth_io_load_alpha(const char *path, double **alpha, size_t *m)
{
    sbw_mat a = {0};
    sbw_npy_info info;
    *alpha = NULL;
    int st = sbw_npy_load(path, &a, &info);
    st = st ? st : sbw_check_shape(&info, path, SBW_SHAPE_VECTOR);
    if (st) {
        sbw_mat_free(&a);
        return st;
    }
    size_t n = a.rows * a.cols;
    for (size_t j = 0; j < n; j++) {
        double v = a.data[j];
        if (!(v >= SBW_SYNTH_ALPHA_MIN && v <= SBW_SYNTH_ALPHA_MAX)) {
            sbw_mat_free(&a);
            return SBW_ERROR(SBW_EDATA, "%s: alpha[%zu] = %g is not a finite number in [%g, %g]",
                             path, j, v, SBW_SYNTH_ALPHA_MIN, SBW_SYNTH_ALPHA_MAX);
        }
    }
    double *v = malloc((n ? n : 1) * sizeof *v); /* n >= 1: sbw_check_shape */
    if (v)
        memcpy(v, a.data, n * sizeof *v);
    sbw_mat_free(&a);
    if (!v)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", path);
    *alpha = v;
    *m = n;
    return SBW_OK;
}
