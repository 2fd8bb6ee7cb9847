/* sbw-rank-mpi: sbw-rank's exact rank and spectrum over MPI processes,
 * with ScaLAPACK (docs/cluster.md, "sbw-rank-mpi").  The matrix is
 * distributed block-cyclically by rows over a P x 1 process grid: each
 * process reads only its own row blocks of the file (through core's reader,
 * so every dtype, byte order and safetensors tensor sbw-rank reads), and no
 * process ever holds the whole matrix.  Row centring is local to a row,
 * the column means of --bias and the data statistics are distributed
 * reductions; a tall matrix is reduced by ScaLAPACK's QR (pdgeqrf), a wide
 * one by its LQ (pdgelqf), and pdgesvd gives the singular values only.
 * Then rank 0 hands them to sbw_rank_report, sbw-rank's own code for
 * everything after the singular values: the same rules, thresholds,
 * warnings, --spectrum file and table. */
#include "sbw.h"
#include "sbw_rank.h"
#include "sbw_rank_report.h"
#include "sbw_reduce.h"
#include "sbw_spectra.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* BLACS and ScaLAPACK (Debian's libscalapack-openmpi ships no header). */
void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctx, int what, int *val);
void Cblacs_gridinit(int *ctx, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctx, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctx);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
               const int *irsrc, const int *icsrc, const int *ctx, const int *lld, int *info);
void pdgeqrf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              double *tau, double *work, const int *lwork, int *info);
void pdgelqf_(const int *m, const int *n, double *a, const int *ia, const int *ja, const int *desca,
              double *tau, double *work, const int *lwork, int *info);
void pdlacpy_(const char *uplo, const int *m, const int *n, const double *a, const int *ia,
              const int *ja, const int *desca, double *b, const int *ib, const int *jb,
              const int *descb);
void pdgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
              const int *ia, const int *ja, const int *desca, double *s, double *u, const int *iu,
              const int *ju, const int *descu, double *vt, const int *ivt, const int *jvt,
              const int *descvt, double *work, const int *lwork, int *info);

static const char details[] =
    "sbw-rank's exact rank and spectrum of the N x M matrix in FILE, computed by\n"
    "the MPI processes it is started as (mpirun -np P, or srun) with ScaLAPACK:\n"
    "rows in blocks of B (--block; 64, or N/P if smaller) dealt to the processes\n"
    "in turn (a P x 1 block-cyclic grid); each process reads only its own\n"
    "blocks, so the matrix is never whole in one process's memory.  --center\n"
    "centres each row (its two-pass mean, as sbw-rank), --bias also the columns\n"
    "(their means summed over the processes); a tall matrix (N > 1.5 M) is reduced by ScaLAPACK's\n"
    "QR (pdgeqrf) and a wide one (M > 1.5 N) by its LQ (pdgelqf) to a square\n"
    "triangle, and pdgesvd gives the singular values (no vectors), in float64.\n"
    "Everything after the singular values is sbw-rank's own code: the rank\n"
    "rules, thresholds, warnings, --spectrum file and table (see sbw-rank\n"
    "--help); the header adds processes, grid, block and reduction.  The\n"
    "same options mean the same; --single, --method, --block-rows, --workers\n"
    "and --top are sbw-rank's and refused here (exit 2).\n\n"
    "Memory: each process checks its share (about N M / P float64, the\n"
    "triangle's share and ScaLAPACK's workspace) against physical memory or\n"
    "SBW_MAX_MEMORY, which is per process.  FILE must be a regular file\n"
    "(every process opens it: on a cluster, a shared file system); N and M\n"
    "at most 2^31 - 1 (ScaLAPACK's integers).  Rank 0 writes the table and\n"
    "--spectrum; a failure in any process is one line from rank 0, and every\n"
    "process exits with its status (1 bad data, 2 usage, 130 interrupted).\n\n"
    "Examples:\n"
    "  mpirun -np 4 sbw-rank-mpi --center logP.npy\n"
    "  srun --ntasks=16 sbw-rank-mpi --bias --spectrum spec.tsv logP.npy\n";

typedef struct mpi_args {
    bool center, bias, exp, measures, single;
    double atol;
    const char *eps, *spectrum, *norm, *method;
    size_t block, block_rows, top;
    long workers;
    FILE *table;
} mpi_args;

/* Where this process stands: MPI rank and size, the BLACS grid. */
typedef struct mpi_grid {
    int rank, size, ctx;
    int nb; /* the block of rows (and columns) */
} mpi_grid;

/* ---- agreement: one status for all processes, its reason on rank 0 ------ */

/* Every process passes its status st; all return the status of the lowest
 * failing rank (SBW_OK when none failed), and rank 0 holds its reason
 * (sent from that rank when it is not 0).  A collective call. */
static int agree(const mpi_grid *g, int st)
{
    int me = st ? g->rank : g->size, first = g->size;
    MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == g->size)
        return SBW_OK;
    int code = st;
    MPI_Bcast(&code, 1, MPI_INT, first, MPI_COMM_WORLD);
    if (first != 0) {
        char reason[600] = "";
        if (g->rank == first) {
            snprintf(reason, sizeof reason, "%s", sbw_error_reason());
            MPI_Send(reason, (int)sizeof reason, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        } else if (g->rank == 0) {
            MPI_Recv(reason, (int)sizeof reason, MPI_CHAR, first, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            reason[sizeof reason - 1] = '\0';
            SBW_ERROR(code, "%s", reason);
        }
    }
    return code;
}

/* ---- the distributed matrix ---------------------------------------------- */

/* This process's share of an N x M matrix on the P x 1 grid: local rows,
 * column-major with leading dimension lld, and its descriptor. */
typedef struct mpi_mat {
    int n, m, lrows, lld;
    int desc[9];
    double *a;
} mpi_mat;

static void mat_free(mpi_mat *x)
{
    free(x->a);
    x->a = NULL;
}

/* The descriptor and local size of an n x m matrix (nothing allocated). */
static int mat_plan(const mpi_grid *g, int n, int m, mpi_mat *x)
{
    int zero = 0, info = 0, myrow = g->rank;
    *x = (mpi_mat){.n = n, .m = m};
    x->lrows = numroc_(&n, &g->nb, &myrow, &zero, &g->size);
    x->lld = x->lrows > 1 ? x->lrows : 1;
    descinit_(x->desc, &n, &m, &g->nb, &g->nb, &zero, &zero, &g->ctx, &x->lld, &info);
    return info ? SBW_ERROR(SBW_EINVAL, "ScaLAPACK descinit: argument %d", -info) : SBW_OK;
}

static int mat_alloc(mpi_mat *x)
{
    x->a = calloc((size_t)x->lld * (size_t)x->m, sizeof *x->a);
    return x->a ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
}

/* ---- reading: this process's row blocks ---------------------------------- */

/* What the reading learns besides the matrix (sbw_reduce's pass: the
 * non-finite entries, the float32 scan, the column sums, the row means'
 * energy), summed over the processes by gather_stats. */
typedef struct mpi_stats {
    sbw_check_bad bad;
    sbw_reduce_f32scan f32;
    double *sums; /* M column sums of the analysed matrix, before centring */
    double rowmean_sq;
} mpi_stats;

/* One block of rows as read (nr x M in buf): the scan of the values as
 * stored, exp, the non-finite check, the column sums, each row's mean
 * (and, with rows, its centring by sbw-rank's own two-pass rule). */
static void prep_rows(const mpi_args *a, double *buf, size_t row0, size_t nr, size_t m,
                      mpi_stats *ps)
{
    sbw_reduce_scan_f32(&ps->f32, buf, nr * m);
    if (a->exp)
        for (size_t i = 0; i < nr * m; i++)
            buf[i] = exp(buf[i]);
    sbw_check_bad_rows(&ps->bad, buf, row0, nr, m, m);
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < m; j++)
            ps->sums[j] += buf[i * m + j];
    bool rows = a->center || a->bias;
    for (size_t i = 0; i < nr; i++) {
        double mu =
            rows ? sbw_reduce_centre_row(buf + i * m, m) : sbw_reduce_row_mean(buf + i * m, m);
        ps->rowmean_sq += (double)m * mu * mu;
    }
}

#define READ_BYTES (4u << 20) /* rows read at a time: at most this, or one row */

/* Reads this process's row blocks b = rank, rank + P, ... of r into x
 * (local block b / P), through a row-major buffer of at most READ_BYTES
 * (or one row). */
static int read_share(const mpi_grid *g, const mpi_args *a, sbw_npy_reader *r, mpi_mat *x,
                      mpi_stats *ps)
{
    size_t n = (size_t)x->n, m = (size_t)x->m, nb = (size_t)g->nb;
    size_t chunk = READ_BYTES / (8 * m);
    chunk = chunk < 1 ? 1 : chunk > nb ? nb : chunk;
    double *buf = malloc(chunk * m * sizeof *buf);
    int st = buf ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t b = (size_t)g->rank; !st && b * nb < n; b += (size_t)g->size) {
        size_t end = n - b * nb < nb ? n : b * nb + nb, lr0 = (b / (size_t)g->size) * nb;
        for (size_t row0 = b * nb; !st && row0 < end; row0 += chunk) {
            size_t nr = end - row0 < chunk ? end - row0 : chunk, lr = lr0 + row0 - b * nb;
            st = sbw_npy_seek_row(r, row0);
            st = st ? st : sbw_npy_read_rows(r, buf, nr, m);
            if (st)
                break;
            prep_rows(a, buf, row0, nr, m, ps);
            for (size_t j = 0; j < m; j++)
                for (size_t i = 0; i < nr; i++)
                    x->a[j * (size_t)x->lld + lr + i] = buf[i * m + j];
        }
    }
    free(buf);
    return st;
}

/* The statistics of every process summed (all processes get them): the
 * non-finite counts and the first position in row-major order, the
 * float32 scan, the column sums and the row means' energy. */
static void gather_stats(mpi_stats *ps, size_t m)
{
    unsigned long long c[3] = {ps->bad.nan, ps->bad.posinf, ps->bad.neginf}, t[3];
    unsigned long long pos = ps->bad.any ? ps->bad.row * m + ps->bad.col : ULLONG_MAX, first;
    MPI_Allreduce(c, t, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&pos, &first, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    ps->bad = (sbw_check_bad){t[0], t[1], t[2], 0, 0, first != ULLONG_MAX};
    if (ps->bad.any) {
        ps->bad.row = (size_t)(first / m);
        ps->bad.col = (size_t)(first % m);
    }
    int f[2] = {ps->f32.not_f32, ps->f32.f32_full}, fa[2];
    MPI_Allreduce(f, fa, 2, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    ps->f32 = (sbw_reduce_f32scan){fa[0] != 0, fa[1] != 0};
    MPI_Allreduce(MPI_IN_PLACE, ps->sums, (int)m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ps->rowmean_sq, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* Column centring of the distributed x in two passes (sbw-rank's rule:
 * subtract the column means, then what rounding left of them), the
 * means summed over the processes.  work: M doubles. */
static void centre_cols(mpi_mat *x, double *work)
{
    size_t m = (size_t)x->m, lr = (size_t)x->lrows, ld = (size_t)x->lld;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t j = 0; j < m; j++) {
            double s = 0;
            for (size_t i = 0; i < lr; i++)
                s += x->a[j * ld + i];
            work[j] = s;
        }
        MPI_Allreduce(MPI_IN_PLACE, work, (int)m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (size_t j = 0; j < m; j++)
            for (size_t i = 0; i < lr; i++)
                x->a[j * ld + i] -= work[j] / (double)x->n;
    }
}

/* ---- the reduction and the SVD ------------------------------------------- */

typedef enum mpi_reduction { RED_NONE, RED_QR, RED_LQ } mpi_reduction;

static const char *reduction_name(mpi_reduction r)
{
    return r == RED_QR ? "qr (pdgeqrf)" : r == RED_LQ ? "lq (pdgelqf)" : "none";
}

/* sbw-rank's rule for a tall matrix (its TSQR), and the same for a wide. */
static mpi_reduction reduction_for(int n, int m)
{
    return 2.0 * n > 3.0 * m ? RED_QR : 2.0 * m > 3.0 * n ? RED_LQ : RED_NONE;
}

/* A ScaLAPACK workspace query's answer as a count of doubles. */
static int work_count(double q, const char *routine, int *lw)
{
    if (!(q >= 1.0) || q > (double)INT_MAX)
        return SBW_ERROR(SBW_ENOMEM, "%s: workspace query returned %g items", routine, q);
    *lw = (int)q + 1;
    return SBW_OK;
}

/* The workspace of the QR/LQ of x (lw_qr) and of the values-only SVD of
 * t (lw_svd: the triangle, or x itself), by ScaLAPACK's own queries. */
static int query_work(mpi_reduction red, mpi_mat *x, mpi_mat *t, int *lw_qr, int *lw_svd)
{
    int one = 1, query = -1, info = 0;
    double q = 0, dummy = 0, s = 0;
    *lw_qr = 0;
    if (red == RED_QR)
        pdgeqrf_(&x->n, &x->m, &dummy, &one, &one, x->desc, &dummy, &q, &query, &info);
    if (red == RED_LQ)
        pdgelqf_(&x->n, &x->m, &dummy, &one, &one, x->desc, &dummy, &q, &query, &info);
    int st = info ? SBW_ERROR(SBW_ENUMERIC, "ScaLAPACK QR query: argument %d", -info) : SBW_OK;
    if (!st && red != RED_NONE)
        st = work_count(q, red == RED_QR ? "pdgeqrf" : "pdgelqf", lw_qr);
    pdgesvd_("N", "N", &t->n, &t->m, &dummy, &one, &one, t->desc, &s, &dummy, &one, &one, t->desc,
             &dummy, &one, &one, t->desc, &q, &query, &info);
    if (!st && info)
        st = SBW_ERROR(SBW_ENUMERIC, "ScaLAPACK pdgesvd query: argument %d", -info);
    return st ? st : work_count(q, "pdgesvd", lw_svd);
}

/* The triangle of x's QR (upper, k = M) or LQ (lower, k = N) into t
 * (k x k, zeroed), x factorised in place.  tau, work: this process's
 * shares (lwork doubles). */
static int factor(mpi_reduction red, mpi_mat *x, mpi_mat *t, double *tau, double *work, int lwork)
{
    int one = 1, info = 0;
    if (red == RED_QR)
        pdgeqrf_(&x->n, &x->m, x->a, &one, &one, x->desc, tau, work, &lwork, &info);
    else
        pdgelqf_(&x->n, &x->m, x->a, &one, &one, x->desc, tau, work, &lwork, &info);
    if (info)
        return SBW_ERROR(SBW_ENUMERIC, "ScaLAPACK %s: info %d",
                         red == RED_QR ? "pdgeqrf" : "pdgelqf", info);
    pdlacpy_(red == RED_QR ? "U" : "L", &t->n, &t->m, x->a, &one, &one, x->desc, t->a, &one, &one,
             t->desc);
    return SBW_OK;
}

/* The singular values of t into s (k, descending, on every process); t
 * is destroyed.  Not converging is sbw-rank's warning, not an error, when
 * the values are finite (as sbw_svd). */
static int values(mpi_mat *t, double *s, double *work, int lwork)
{
    int one = 1, info = 0;
    double dummy = 0;
    pdgesvd_("N", "N", &t->n, &t->m, t->a, &one, &one, t->desc, s, &dummy, &one, &one, t->desc,
             &dummy, &one, &one, t->desc, work, &lwork, &info);
    if (info < 0)
        return SBW_ERROR(SBW_ENUMERIC, "ScaLAPACK pdgesvd: argument %d", -info);
    for (int j = 0; j < (t->n < t->m ? t->n : t->m); j++)
        if (!isfinite(s[j]))
            return SBW_ERROR(SBW_ENUMERIC, "ScaLAPACK pdgesvd failed (info %d)", info);
    if (info > 0)
        sbw_table_warn("svd_not_converged: pdgesvd did not converge (ScaLAPACK info %d): the "
                       "singular values, and every rank or bound computed from them, may be wrong",
                       info);
    return SBW_OK;
}

/* ---- the run --------------------------------------------------------------- */

/* Everything one process holds. */
typedef struct mpi_run {
    const char *path;
    sbw_npy_info info;
    mpi_reduction red;
    mpi_mat x, t; /* the matrix's share; the triangle's (x itself when red is none) */
    mpi_stats ps;
    double *tau, *work, *s;
    int lw_qr, lw_svd;
    double seconds_read, seconds_svd;
} mpi_run;

static void run_free(mpi_run *u)
{
    mat_free(&u->x);
    mat_free(&u->t);
    free(u->ps.sums);
    free(u->tau);
    free(u->work);
    free(u->s);
}

/* The shapes, workspaces and this process's memory check (per process:
 * SBW_MAX_MEMORY or physical memory). */
static int plan(const mpi_grid *g, mpi_run *u)
{
    if (u->info.rows > INT_MAX || u->info.cols > INT_MAX)
        return SBW_ERROR(SBW_ESHAPE, "%s: %zu x %zu: ScaLAPACK's indices stop at 2^31 - 1", u->path,
                         u->info.rows, u->info.cols);
    int n = (int)u->info.rows, m = (int)u->info.cols, k = n < m ? n : m;
    u->red = reduction_for(n, m);
    int st = mat_plan(g, n, m, &u->x);
    if (!st && u->red != RED_NONE)
        st = mat_plan(g, k, k, &u->t);
    else if (!st)
        u->t = u->x; /* the SVD of x itself (no buffer yet) */
    st = st ? st : query_work(u->red, &u->x, &u->t, &u->lw_qr, &u->lw_svd);
    if (st)
        return st;
    double tri = u->red == RED_NONE ? 0 : (double)u->t.lld * k;
    double doubles = (double)u->x.lld * m + tri + READ_BYTES / 8.0 + 2.0 * m + n + k +
                     (double)(u->lw_qr > u->lw_svd ? u->lw_qr : u->lw_svd);
    char what[300];
    snprintf(what, sizeof what,
             "%s: process %d of %d, its %d x %d share of the %d x %d matrix with ScaLAPACK's "
             "workspace,",
             u->path, g->rank, g->size, u->x.lrows, m, n, m);
    return sbw_preflight_memory(8 * doubles, what);
}

static int alloc_run(mpi_run *u)
{
    size_t n = (size_t)u->x.n, m = (size_t)u->x.m, k = n < m ? n : m;
    size_t lw = (size_t)(u->lw_qr > u->lw_svd ? u->lw_qr : u->lw_svd);
    int st = mat_alloc(&u->x);
    u->ps.sums = calloc(m, sizeof(double));
    u->tau = calloc(n + m, sizeof(double));               /* LOCc(M) for QR, LOCr(N) for LQ */
    u->work = malloc((lw > m ? lw : m) * sizeof(double)); /* also centre_cols' M doubles */
    u->s = malloc(k * sizeof(double));
    if (!st && (!u->ps.sums || !u->tau || !u->work || !u->s))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    return st;
}

/* Reading, the statistics, the non-finite check (one status everywhere). */
static int read_all(const mpi_grid *g, const mpi_args *a, sbw_npy_reader *r, mpi_run *u)
{
    double t0 = MPI_Wtime();
    int st = agree(g, read_share(g, a, r, &u->x, &u->ps));
    if (st)
        return st;
    gather_stats(&u->ps, (size_t)u->x.m);
    st = sbw_check_bad_error(&u->ps.bad, u->path, a->exp ? " in exp(A)" : NULL);
    if (!st && a->bias)
        centre_cols(&u->x, u->work); /* work holds at least M doubles */
    u->seconds_read = MPI_Wtime() - t0;
    return st;
}

/* The reduction (if any) and the SVD: u->s on every process. */
static int decompose(const mpi_grid *g, mpi_run *u)
{
    double t0 = MPI_Wtime();
    int st = SBW_OK, lw = u->lw_qr > u->lw_svd ? u->lw_qr : u->lw_svd;
    if (u->red != RED_NONE) {
        st = agree(g, mat_alloc(&u->t));
        st = st ? st : agree(g, factor(u->red, &u->x, &u->t, u->tau, u->work, lw));
        mat_free(&u->x);
    } else {
        u->t = u->x;
        u->x.a = NULL;
    }
    st = st ? st : agree(g, values(&u->t, u->s, u->work, lw));
    u->seconds_svd = MPI_Wtime() - t0;
    return st;
}

static void report_meta(sbw_table *t, void *ctx)
{
    const mpi_run *u = ctx;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sbw_table_meta_int(t, "processes", size);
    char grid[64];
    snprintf(grid, sizeof grid, "%d x 1", size);
    sbw_table_meta_str(t, "grid", grid);
    sbw_table_meta_int(t, "block", u->x.desc[4]);
    sbw_table_meta_str(t, "reduction", reduction_name(u->red));
}

/* Rank 0: sbw-rank's table from the values (sbw_rank_report). */
static int report(const mpi_args *a, const sbw_cli_common *c, mpi_run *u)
{
    sbw_reduce_variant var = a->bias ? SBW_VAR_BOTH : a->center ? SBW_VAR_ROWS : SBW_VAR_PLAIN;
    sbw_spectra sp = {.red = {.path = u->path,
                              .rows = u->info.rows,
                              .cols = u->info.cols,
                              .dtype = u->info.dtype,
                              .prec = SBW_F64,
                              .method = SBW_METHOD_DIRECT,
                              .mean = u->ps.sums,
                              .rowmean_sq = u->ps.rowmean_sq,
                              .f32_values = sbw_reduce_f32_values(&u->ps.f32, u->info.dtype)},
                      .k = (size_t)(u->t.n < u->t.m ? u->t.n : u->t.m),
                      .seconds_read = u->seconds_read,
                      .seconds_svd = u->seconds_svd};
    for (size_t j = 0; j < sp.red.cols; j++)
        u->ps.sums[j] /= (double)sp.red.rows; /* the column means */
    sp.s[var] = u->s;
    sp.w0_uncentred[var] = sbw_reduce_uncentred_w0(&sp.red, var, u->s[0]);
    const sbw_rank_report_opts o = {.tool = "sbw-rank-mpi",
                                    .var = var,
                                    .exp = a->exp,
                                    .measures = a->measures,
                                    .atol = a->atol,
                                    .eps = a->eps,
                                    .norm = a->norm,
                                    .spectrum = a->spectrum,
                                    .table = a->table,
                                    .method = "scalapack",
                                    .meta = report_meta,
                                    .meta_ctx = u};
    return sbw_rank_report(u->path, &o, c, &sp);
}

/* The whole computation on every process; rank 0 reports. */
static int run(mpi_grid *g, const mpi_args *a, const sbw_cli_common *c)
{
    mpi_run u = {.path = c->args[0]};
    sbw_npy_reader *r = NULL;
    int st = sbw_check_open(&r, u.path, SBW_SHAPE_MATRIX);
    if (!st && !sbw_npy_reader_seekable(r))
        st = SBW_ERROR(SBW_EIO, "%s: not a regular file: every process reads its own blocks of it",
                       u.path);
    if (!st)
        u.info = *sbw_npy_reader_info(r);
    st = agree(g, st);
    if (!st && !a->block) /* 64, or fewer so that every process has rows */
        g->nb = (int)(u.info.rows / (size_t)g->size < 64
                          ? (u.info.rows + (size_t)g->size - 1) / (size_t)g->size
                          : 64);
    st = st ? st : agree(g, plan(g, &u));
    st = st ? st : agree(g, alloc_run(&u));
    st = st ? st : read_all(g, a, r, &u);
    sbw_npy_close(r);
    st = st ? st : decompose(g, &u);
    if (!st && g->rank == 0)
        st = report(a, c, &u);
    st = agree(g, st);
    run_free(&u);
    return st;
}

/* ---- options --------------------------------------------------------------- */

/* Option values the parser cannot check, and sbw-rank's options that do
 * not apply here: a usage error before any reading. */
static int validate(const sbw_cli *cli, const sbw_cli_common *c, const mpi_args *a)
{
    double eps;
    const char *src;
    sbw_rank_norm norm;
    if (sbw_rank_eps(a->eps, SBW_F64, SBW_F64, &eps, &src) || sbw_rank_norm_parse(a->norm, &norm))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (strcmp(c->args[0], "-") == 0)
        return sbw_cli_usage_error(cli, "FILE: '-' (stdin) cannot be read by several processes: "
                                        "give a file");
    const char *me = "sbw-rank-mpi";
    const sbw_cli_applies rows[] = {
        {"--single", false, me, "ScaLAPACK computes in float64 here"},
        {"--method", false, me, "it always uses ScaLAPACK (QR or LQ first when not square)"},
        {"--block-rows", false, me, "its block is --block"},
        {"--workers", false, me, "its workers are the MPI processes"},
        {"--top", false, me,
         "it computes every singular value exactly (sbw-rank --method "
         "randomized gives a top-K spectrum)"}};
    return sbw_cli_check_applies(cli, c, rows, sizeof rows / sizeof *rows);
}

/* Ranks other than 0 print nothing: their output goes to /dev/null (what
 * they have to say reaches rank 0 through agree). */
static void silence(int rank)
{
    if (rank == 0)
        return;
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
        fflush(stdout);
        fflush(stderr);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
}

/* Parses and checks the command line (every process alike); 0 to go on,
 * else the exit status (SBW_CLI_DONE after --help: 0). */
static int options(const sbw_cli *cli, int argc, char **argv, const mpi_args *a, sbw_cli_common *c)
{
    int st = sbw_cli_parse(cli, argc, argv, c);
    if (st)
        return st == SBW_CLI_DONE ? -1 : st;
    return validate(cli, c, a);
}

static int finish(int code)
{
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    MPI_Init(&argc, &argv);
    mpi_grid g = {.nb = 64};
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.size);
    silence(g.rank);
    mpi_args a = {.eps = "auto", .norm = "max", .method = ""};
    const sbw_cli_opt opts[] = {
        {"--center", NULL, SBW_ARG_FLAG, &a.center, 0, 0, "analyse A (I - 11^T/M), row-centred"},
        {"--bias", NULL, SBW_ARG_FLAG, &a.bias, 0, 0, "centre rows and columns (biased heads)"},
        {"--exp", NULL, SBW_ARG_FLAG, &a.exp, 0, 0, "analyse P = exp(A) instead of A"},
        {"--eps", "E", SBW_ARG_STRING, &a.eps, 0, 0, "auto, double, single or a number"},
        {"--spectrum", "FILE", SBW_ARG_STRING, &a.spectrum, 0, 0, "write the spectrum TSV"},
        {"--norm", "N", SBW_ARG_STRING, &a.norm, 0, 0, "spectrum normalisation: max, minmax"},
        {"--measures", NULL, SBW_ARG_FLAG, &a.measures, 0, 0, "every named rank measure"},
        {"--atol", "A", SBW_ARG_DOUBLE, &a.atol, 0, 1e300, "PyTorch's atol (--measures)"},
        {"--block", "B", SBW_ARG_SIZE, &a.block, 0, 1e5,
         "rows (and columns) per block (0: 64, fewer for few rows)"},
        {"--single", NULL, SBW_ARG_FLAG, &a.single, 0, 0, "sbw-rank's: refused here"},
        {"--method", "M", SBW_ARG_STRING, &a.method, 0, 0, "sbw-rank's: refused here"},
        {"--block-rows", "B", SBW_ARG_SIZE, &a.block_rows, 0, 1e9, "sbw-rank's: refused here"},
        {"--workers", "W", SBW_ARG_LONG, &a.workers, 0, 4096, "sbw-rank's: refused here"},
        {"--top", "K", SBW_ARG_SIZE, &a.top, 1, 1e9, "sbw-rank's: refused here"},
        {0}};
    const sbw_cli cli = {"sbw-rank-mpi",
                         "FILE.npy|FILE.safetensors:NAME",
                         "Numerical rank and spectrum of a matrix, over MPI with ScaLAPACK.",
                         details,
                         opts,
                         1,
                         1,
                         SBW_CLI_JSON};
    sbw_cli_common c;
    int st = options(&cli, argc, argv, &a, &c);
    if (st)
        return finish(st < 0 ? SBW_EXIT_OK : st);
    const sbw_cli_stream data[] = {{"--spectrum", a.spectrum}};
    if ((st = sbw_cli_one_stream(&cli, data, 1, NULL, NULL, &a.table)) != 0)
        return finish(st);
    g.nb = (int)a.block; /* 0: run chooses */
    sbw_error_gsl_quiet();
    sbw_cli_threads(1); /* the processes are the parallelism */
    const char *in[] = {c.args[0]};
    const sbw_preflight_out out[] = {{"the table (stdout)", a.table == stderr ? NULL : "-", false},
                                     {"--spectrum", a.spectrum, false}};
    st = agree(&g, g.rank == 0 ? sbw_preflight(in, 1, out, 2) : SBW_OK);
    if (!st) {
        Cblacs_get(-1, 0, &g.ctx);
        Cblacs_gridinit(&g.ctx, "Row-major", g.size, 1);
        st = run(&g, &a, &c);
        Cblacs_gridexit(g.ctx);
    }
    /* every process exits with the status; only rank 0's line is seen */
    return finish(st ? sbw_cli_fail("sbw-rank-mpi", st) : SBW_EXIT_OK);
}
