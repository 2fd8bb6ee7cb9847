/* sbw_bound.c -- Eckart-Young bounds for Softmax heads, fit errors, and the
 * exact rank-d Softmax solution. */
#include "sbw_bound.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_kern.h"
#include "sbw_num.h"
#include "sbw_rank.h"
#include "sbw_svd.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define READ_BYTES (8u << 20)

/* ---- bounds --------------------------------------------------------------- */

void sbw_bound_tails(const double *s, size_t k, double *tail)
{
    tail[k] = 0.0;
    for (size_t j = k; j-- > 0;)
        tail[j] = tail[j + 1] + s[j] * s[j];
}

double sbw_bound_lms(const double *tail, size_t k, size_t d, bool bias)
{
    size_t from = d + (bias ? 2 : 1);
    return from < k ? sqrt(tail[from]) : 0.0;
}

double sbw_bound_shift(const double *tail_c, size_t k, size_t d)
{
    return d < k ? sqrt(tail_c[d]) : 0.0;
}

/* ---- error terms of log Q against A ------------------------------------- */

typedef struct err_sums {
    double err2, centred2, norm2;
} err_sums;

/* Adds the rows of A - Q (nr x m; leading dimensions lda, ldq) to the
 * sums: ||D||^2, ||D (I - 11^T/m)||^2 and m * sum_i dbar_i^2. */
static void add_error(const double *a, size_t lda, const double *q, size_t ldq, size_t nr, size_t m,
                      err_sums *e)
{
    for (size_t i = 0; i < nr; i++) {
        const double *ai = a + i * lda, *qi = q + i * ldq;
        double mean = 0, c2 = 0, e2 = 0;
        for (size_t j = 0; j < m; j++)
            mean += ai[j] - qi[j];
        mean /= (double)m;
        for (size_t j = 0; j < m; j++) {
            double dv = ai[j] - qi[j];
            e2 += dv * dv;
            c2 += (dv - mean) * (dv - mean);
        }
        e->err2 += e2;
        e->centred2 += c2;
        e->norm2 += (double)m * mean * mean;
    }
}

static sbw_bound_fit_error error_of(const err_sums *e)
{
    return (sbw_bound_fit_error){sqrt(e->err2), sqrt(e->centred2), sqrt(e->norm2)};
}

struct sbw_bound_fit {
    sbw_npy_reader *r;
    size_t rows, cols, next;
    double *q;
    size_t cap; /* rows the buffer holds */
    err_sums sums;
    sbw_check_bad bad; /* non-finite entries of log Q */
};

void sbw_bound_fit_close(sbw_bound_fit *f)
{
    if (!f)
        return;
    sbw_npy_close(f->r);
    free(f->q);
    free(f);
}

int sbw_bound_fit_open(sbw_bound_fit **out, const char *path, size_t rows, size_t cols)
{
    *out = NULL;
    sbw_bound_fit *f = calloc(1, sizeof *f);
    if (!f)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = sbw_check_open(&f->r, path, SBW_SHAPE_MATRIX);
    const sbw_npy_info *in = st ? NULL : sbw_npy_reader_info(f->r);
    if (!st && (in->rows != rows || in->cols != cols))
        st = SBW_ERROR(SBW_ESHAPE, "%s: log Q is %zu x %zu, but A is %zu x %zu", path, in->rows,
                       in->cols, rows, cols);
    if (st) {
        sbw_bound_fit_close(f);
        return st;
    }
    f->rows = rows;
    f->cols = cols;
    *out = f;
    return SBW_OK;
}

static int fit_buffer(sbw_bound_fit *f, size_t nr)
{
    if (nr <= f->cap)
        return SBW_OK;
    double *q = realloc(f->q, nr * f->cols * sizeof *q);
    if (!q)
        return SBW_ERROR(SBW_ENOMEM, "out of memory for %zu rows of log Q", nr);
    f->q = q;
    f->cap = nr;
    return SBW_OK;
}

int sbw_bound_fit_rows(void *ctx, const double *a, size_t row0, size_t rows, size_t ld)
{
    sbw_bound_fit *f = ctx;
    if (row0 != f->next || rows > f->rows - f->next)
        return SBW_ERROR(SBW_EINVAL, "fit: rows %zu..%zu out of order (next %zu)", row0,
                         row0 + rows, f->next);
    int st = fit_buffer(f, rows);
    st = st ? st : sbw_npy_read_rows(f->r, f->q, rows, f->cols);
    if (st)
        return st;
    sbw_check_bad_rows(&f->bad, f->q, row0, rows, f->cols, f->cols);
    for (size_t i = 0; !f->bad.any && i < rows; i++)
        if (sbw_check_looks_like_probs(f->q + i * f->cols, f->cols,
                                       sbw_npy_reader_info(f->r)->dtype, SBW_CHECK_TOL))
            return SBW_ERROR(SBW_EDATA,
                             "%s: row %zu (0-based) of log Q looks like probabilities (entries "
                             "in [0, 1] summing to 1): --fit takes log Q; save np.log of it",
                             sbw_npy_reader_path(f->r), row0 + i);
    if (!f->bad.any)
        add_error(a, ld, f->q, f->cols, rows, f->cols, &f->sums);
    f->next += rows;
    return SBW_OK;
}

int sbw_bound_fit_result(const sbw_bound_fit *f, sbw_bound_fit_error *e)
{
    const char *path = sbw_npy_reader_path(f->r);
    if (f->bad.any)
        return sbw_check_bad_error(&f->bad, path, " in log Q");
    if (f->next != f->rows)
        return SBW_ERROR(SBW_EINVAL, "%s: only %zu of %zu rows compared", path, f->next, f->rows);
    *e = error_of(&f->sums);
    return SBW_OK;
}

int sbw_bound_dstar(const sbw_spectra *sp, bool bias, double eps, sbw_rank_est *e)
{
    sbw_reduce_variant v = bias ? SBW_VAR_BOTH : SBW_VAR_ROWS;
    if (!sp->s[v])
        return SBW_ERROR(SBW_EINVAL, "d*: the %s spectrum was not computed",
                         sbw_reduce_variant_name(v));
    return sbw_rank_estimate_scaled(sp->s[v], sp->k, sp->red.rows, sp->red.cols, eps,
                                    sp->w0_uncentred[v], e);
}

int sbw_bound_fit_dim(const char *path, bool bias, const sbw_reduce_opts *o, size_t *d)
{
    sbw_npy_reader *r = NULL;
    sbw_reduce_opts ro = *o;
    ro.hook = NULL;
    ro.progress = NULL;
    sbw_reduce_variant v = bias ? SBW_VAR_BOTH : SBW_VAR_ROWS;
    sbw_spectra sp = {0};
    sbw_rank_est e;
    double eps;
    const char *src;
    int st = sbw_npy_open(&r, path);
    st = st ? st : sbw_spectra_compute(r, &ro, 1u << v, &sp);
    st = st ? st : sbw_rank_eps(NULL, sp.red.dtype, sp.red.prec, &eps, &src);
    st = st ? st : sbw_bound_dstar(&sp, bias, eps, &e);
    if (!st)
        *d = e.rank;
    sbw_spectra_free(&sp);
    sbw_npy_close(r);
    return st;
}

/* ---- spectra for the bounds ---------------------------------------------- */

static int bound_values(sbw_spectra *sp, bool bias)
{
    sbw_reduce_variant vc = bias ? SBW_VAR_BOTH : SBW_VAR_ROWS;
    sp->k = sbw_num_min_sz(sp->red.rows, sp->red.cols);
    int st = sbw_spectra_variant(sp, SBW_VAR_PLAIN, false);
    return st ? st : sbw_spectra_variant(sp, vc, true);
}

int sbw_bound_spectra(sbw_npy_reader *r, bool bias, const char *fit_path, const sbw_reduce_opts *o,
                      sbw_spectra *sp, sbw_bound_fit_error *fit)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    sbw_reduce_opts ro = *o;
    sbw_bound_fit *f = NULL;
    *sp = (sbw_spectra){0};
    int st = SBW_OK;
    if (fit_path && in->ndim == 2) {
        st = sbw_bound_fit_open(&f, fit_path, in->rows, in->cols);
        ro.hook = sbw_bound_fit_rows;
        ro.hook_ctx = f;
    }
    double t0 = sbw_progress_now();
    st = st ? st : sbw_reduce_read(r, &ro, bias, &sp->red);
    if (!st && f)
        st = sbw_bound_fit_result(f, fit);
    double t1 = sbw_progress_now();
    if (!st)
        sbw_spectra_stage(o, &sp->red, 2);
    st = st ? st : bound_values(sp, bias);
    sbw_mat_free(&sp->red.x);
    sp->seconds_read = t1 - t0;
    sp->seconds_svd = sbw_progress_now() - t1;
    sbw_bound_fit_close(f);
    if (st)
        sbw_spectra_free(sp);
    return st;
}

/* ---- the exact rank-d Softmax solution ------------------------------------ */

static bool regular_file(const char *path)
{
    struct stat sb;
    return strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Top right singular vectors of the centred matrix (first pass). */
static int centred_basis(sbw_npy_reader *r, bool bias, const sbw_reduce_opts *o, sbw_reduce *red,
                         sbw_mat *vt)
{
    sbw_reduce_opts ro = *o;
    ro.hook = NULL;
    ro.single = false;
    sbw_mat c = {0};
    double *s = NULL;
    int st = sbw_reduce_read(r, &ro, bias, red);
    st = st ? st : sbw_reduce_matrix(red, bias ? SBW_VAR_BOTH : SBW_VAR_ROWS, true, &c);
    if (!st && !(s = malloc(sbw_num_min_sz(c.rows, c.cols) * sizeof *s)))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    st = st ? st : sbw_svd_right(&c, s, vt);
    free(s);
    sbw_mat_free(&c);
    return st;
}

typedef struct construct_ws {
    double *a, *l, *h; /* block of A, logits (b x m), H block (b x d) */
    size_t b;
} construct_ws;

/* logits for nr rows of A: ((a - mu) P V_d^T) V_d + mu, into ws->l. */
static void block_logits(construct_ws *ws, const sbw_mat *vt, size_t d, const double *mu, size_t nr,
                         size_t m)
{
    memcpy(ws->l, ws->a, nr * m * sizeof(double));
    for (size_t i = 0; i < nr; i++) {
        double *row = ws->l + i * m, mean = 0;
        for (size_t j = 0; mu && j < m; j++)
            row[j] -= mu[j];
        for (size_t j = 0; j < m; j++)
            mean += row[j];
        mean /= (double)m;
        for (size_t j = 0; j < m; j++)
            row[j] -= mean;
    }
    if (d == 0) {
        memset(ws->l, 0, nr * m * sizeof(double));
    } else {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nr, (int)d, (int)m, 1.0, ws->l,
                    (int)m, vt->data, (int)vt->ld, 0.0, ws->h, (int)d);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)nr, (int)m, (int)d, 1.0, ws->h,
                    (int)d, vt->data, (int)vt->ld, 0.0, ws->l, (int)m);
    }
    for (size_t i = 0; mu && i < nr; i++)
        for (size_t j = 0; j < m; j++)
            ws->l[i * m + j] += mu[j];
}

/* Second pass: log Q block by block, written and compared with A. */
static int construct_pass(sbw_npy_reader *r, sbw_npy_writer *w, const sbw_mat *vt, size_t d,
                          const double *mu, err_sums *e)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    size_t n = in->rows, m = in->cols, b = sbw_num_min_sz(n, READ_BYTES / (8 * m) + 1);
    construct_ws ws = {.a = malloc(b * m * sizeof(double)),
                       .l = malloc(b * m * sizeof(double)),
                       .h = malloc(b * (d ? d : 1) * sizeof(double)),
                       .b = b};
    int st = ws.a && ws.l && ws.h ? sbw_npy_seek_row(r, 0) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t row0 = 0; !st && row0 < n; row0 += b) {
        size_t nr = sbw_num_min_sz(b, n - row0);
        st = sbw_npy_read_rows(r, ws.a, nr, m);
        if (st)
            break;
        block_logits(&ws, vt, d, mu, nr, m);
        sbw_kern_log_softmax_rows(ws.l, nr, m, m, ws.l, m);
        add_error(ws.a, m, ws.l, m, nr, m, e);
        st = sbw_npy_write_rows(w, ws.l, nr, m);
    }
    free(ws.a);
    free(ws.l);
    free(ws.h);
    return st;
}

int sbw_bound_construct(const char *in_path, const char *out_path, size_t d, bool bias,
                        const sbw_reduce_opts *o, sbw_bound_construction *res)
{
    if (!regular_file(in_path))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: constructing reads the input twice: give a regular "
                         "file, not a pipe",
                         in_path);
    sbw_npy_reader *r = NULL;
    sbw_npy_writer *w = NULL;
    sbw_reduce red = {0};
    sbw_mat vt = {0};
    err_sums e = {0};
    int st = sbw_npy_open(&r, in_path);
    st = st ? st : centred_basis(r, bias, o, &red, &vt);
    size_t dd = st ? 0 : sbw_num_min_sz(d, vt.rows);
    st = st ? st : sbw_npy_create(&w, out_path, red.rows, red.cols, 2, SBW_F64);
    st = st ? st : construct_pass(r, w, &vt, dd, bias ? red.mean : NULL, &e);
    if (!st) {
        st = sbw_npy_finish(w);
        w = NULL;
    }
    if (!st)
        *res = (sbw_bound_construction){.d = dd, .err = error_of(&e)};
    sbw_npy_abort(w);
    sbw_mat_free(&vt);
    sbw_reduce_free(&red);
    sbw_npy_close(r);
    return st;
}

/* ---- sbw-bound's analysis ------------------------------------------------ */

int sbw_bound_analyse(const sbw_spectra *sp, bool bias, const char *eps_arg, sbw_bound_summary *sum,
                      double *tail, double *tail_c)
{
    sbw_reduce_variant vc = bias ? SBW_VAR_BOTH : SBW_VAR_ROWS;
    if (!sp->s[SBW_VAR_PLAIN] || !sp->s[vc])
        return SBW_ERROR(SBW_EINVAL, "the spectra of A and of its centred variant are needed");
    *sum = (sbw_bound_summary){
        .rows = sp->red.rows, .cols = sp->red.cols, .k = sp->k, .dtype = sp->red.dtype};
    int st = sbw_rank_eps(eps_arg, sp->red.dtype, sp->red.prec, &sum->eps, &sum->eps_source);
    st = st ? st
            : sbw_rank_estimate(sp->s[SBW_VAR_PLAIN], sp->k, sp->red.rows, sp->red.cols, sum->eps,
                                &sum->rank_a);
    st = st ? st : sbw_bound_dstar(sp, bias, sum->eps, &sum->rank_c);
    if (!st) {
        sbw_bound_tails(sp->s[SBW_VAR_PLAIN], sp->k, tail);
        sbw_bound_tails(sp->s[vc], sp->k, tail_c);
    }
    return st;
}

int sbw_bound_file(const char *path, bool bias, const char *eps_arg, const char *method,
                   sbw_bound_summary *sum, double *tail, double *tail_c, size_t nt)
{
    sbw_reduce_opts o = {0};
    sbw_spectra sp = {0};
    sbw_npy_reader *r = NULL;
    int st = sbw_reduce_method_parse(method, &o.method);
    st = st ? st : sbw_check_open(&r, path, SBW_SHAPE_MATRIX);
    st = st ? st : sbw_bound_spectra(r, bias, NULL, &o, &sp, NULL);
    sbw_npy_close(r);
    if (!st && nt < sp.k + 1)
        st = SBW_ERROR(SBW_EINVAL, "%s: room for %zu tail sums, %zu needed", path, nt, sp.k + 1);
    st = st ? st : sbw_bound_analyse(&sp, bias, eps_arg, sum, tail, tail_c);
    sbw_spectra_free(&sp);
    return st;
}
