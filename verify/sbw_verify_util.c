/* sbw_verify_util.c -- shared numerical helpers of the claims. */
#include "sbw_verify_util.h"

#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_rank.h"
#include "sbw_reduce.h"
#include "sbw_rng.h"
#include "sbw_svd.h"

#include <gsl/gsl_randist.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int sbw_verify_util_svals(const sbw_mat *a, double *s)
{
    sbw_mat c = {0};
    int st = sbw_mat_alloc(&c, a->rows, a->cols);
    st = st ? st : sbw_mat_copy(&c, a);
    st = st ? st : sbw_svd_values(&c, s);
    sbw_mat_free(&c);
    return st;
}

/* The workspace of the rank rule, carved from the caller's bytes: A's
 * copy (64-byte aligned, as sbw_mat_alloc's), its k singular values, then
 * sbw_svd_values_work's part (aligned again). */
#define RANK_ALIGN ((size_t)64)

static size_t round_up(size_t n) { return (n + RANK_ALIGN - 1) / RANK_ALIGN * RANK_ALIGN; }

int sbw_verify_util_rank_work_size(size_t rows, size_t cols, size_t *bytes)
{
    size_t mat = 0, svd = 0, k = sbw_num_min_sz(rows, cols);
    int st = sbw_mat_bytes(rows, cols, sizeof(double), &mat);
    st = st ? st : sbw_svd_values_work_size(rows, cols, &svd);
    if (!st && (mat > SIZE_MAX / 4 || svd > SIZE_MAX / 4 || k > SIZE_MAX / 32))
        st = SBW_ERROR(SBW_ENOMEM, "rank of %zu x %zu: workspace size overflows", rows, cols);
    if (!st)
        *bytes = RANK_ALIGN + round_up(mat) + round_up(k * sizeof(double)) + svd;
    return st;
}

int sbw_verify_util_rank_work(const sbw_mat *a, double eps, double scale, bool numpy, void *work,
                              size_t bytes, size_t *rank)
{
    size_t need = 0, k = sbw_num_min_sz(a->rows, a->cols);
    int st = sbw_verify_util_rank_work_size(a->rows, a->cols, &need);
    if (st)
        return st;
    if (!work || bytes < need)
        return SBW_ERROR(SBW_EINVAL, "rank: workspace of %zu bytes, %zu needed", bytes, need);
    uintptr_t p = ((uintptr_t)work + RANK_ALIGN - 1) / RANK_ALIGN * RANK_ALIGN;
    sbw_mat c = sbw_mat_view((double *)p, a->rows, a->cols, a->cols);
    double *s = (double *)(p + round_up(a->rows * a->cols * sizeof(double)));
    unsigned char *svd = (unsigned char *)s + round_up(k * sizeof(double));
    size_t svd_bytes = bytes - (size_t)(svd - (unsigned char *)work);
    sbw_rank_est e;
    st = sbw_mat_copy(&c, a);
    st = st ? st : sbw_svd_values_work(&c, s, svd, svd_bytes);
    st = st ? st : sbw_rank_estimate(s, k, a->rows, a->cols, numpy ? DBL_EPSILON : eps, &e);
    if (!st) {
        double tsh = (numpy ? e.numpy_tol : e.tsh) * scale;
        size_t r = 0;
        while (r < k && s[r] > tsh)
            r++;
        *rank = e.w0 > 0 ? r : 0;
    }
    return st;
}

/* The allocating form: the size query, one malloc, the _work call. */
static int rank_rule(const sbw_mat *a, double eps, double scale, bool numpy, size_t *rank)
{
    size_t bytes = 0;
    int st = sbw_verify_util_rank_work_size(a->rows, a->cols, &bytes);
    if (st)
        return st;
    void *work = malloc(bytes);
    if (!work)
        return SBW_ERROR(SBW_ENOMEM, "rank of %zu x %zu: no memory for %zu bytes", a->rows, a->cols,
                         bytes);
    st = sbw_verify_util_rank_work(a, eps, scale, numpy, work, bytes, rank);
    free(work);
    return st;
}

int sbw_verify_util_rank(const sbw_mat *a, double eps, double scale, size_t *rank)
{
    return rank_rule(a, eps, scale, false, rank);
}

int sbw_verify_util_rank_numpy(const sbw_mat *a, double scale, size_t *rank)
{
    return rank_rule(a, DBL_EPSILON, scale, true, rank);
}

int sbw_verify_util_gauss(sbw_mat *a, double sd, uint64_t seed, uint64_t stream)
{
    gsl_rng *r = NULL;
    int st = sbw_rng_alloc(&r, seed, stream);
    if (st)
        return st;
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++)
            SBW_MAT_AT(a, i, j) = gsl_ran_gaussian_ziggurat(r, sd);
    sbw_rng_free(r);
    return SBW_OK;
}

double sbw_verify_util_maxabs(const sbw_mat *a)
{
    double m = 0;
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++)
            m = fmax(m, fabs(SBW_MAT_AT(a, i, j)));
    return m;
}

double sbw_verify_util_frob(const sbw_mat *a)
{
    double s = 0;
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++)
            s += SBW_MAT_AT(a, i, j) * SBW_MAT_AT(a, i, j);
    return sqrt(s);
}

double sbw_verify_util_row_spread(const sbw_mat *x, const sbw_mat *y)
{
    double worst = 0;
    for (size_t i = 0; i < x->rows; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < x->cols; j++) {
            double d = SBW_MAT_AT(x, i, j) - SBW_MAT_AT(y, i, j);
            lo = fmin(lo, d);
            hi = fmax(hi, d);
        }
        worst = fmax(worst, hi - lo);
    }
    return worst;
}

/* logits = A_c V_d V_d^T given A_c (N x M) and vt (k x M), through
 * H = A_c V_d (N x d); plain loops (the claims' matrices are small). */
static int project(const sbw_mat *ac, const sbw_mat *vt, size_t d, sbw_mat *logits)
{
    sbw_mat h = {0};
    int st = sbw_mat_alloc(&h, ac->rows, d ? d : 1);
    st = st ? st : sbw_mat_alloc(logits, ac->rows, ac->cols);
    for (size_t i = 0; !st && i < ac->rows; i++) {
        for (size_t k = 0; k < d; k++) {
            double s = 0;
            for (size_t j = 0; j < ac->cols; j++)
                s += SBW_MAT_AT(ac, i, j) * SBW_MAT_AT(vt, k, j);
            SBW_MAT_AT(&h, i, k) = s;
        }
        for (size_t j = 0; j < ac->cols; j++) {
            double s = 0;
            for (size_t k = 0; k < d; k++)
                s += SBW_MAT_AT(&h, i, k) * SBW_MAT_AT(vt, k, j);
            SBW_MAT_AT(logits, i, j) = s;
        }
    }
    sbw_mat_free(&h);
    return st;
}

int sbw_verify_util_truncate(const sbw_mat *a, size_t d, sbw_mat *logits, double *sc)
{
    size_t k = a->rows < a->cols ? a->rows : a->cols;
    sbw_mat ac = {0}, work = {0}, vt = {0};
    double *s = malloc(k * sizeof *s);
    *logits = (sbw_mat){0};
    int st = s ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : sbw_mat_alloc(&ac, a->rows, a->cols);
    st = st ? st : sbw_mat_copy(&ac, a);
    if (!st)
        sbw_reduce_centre_rows(&ac);
    st = st ? st : sbw_mat_alloc(&work, a->rows, a->cols);
    st = st ? st : sbw_mat_copy(&work, &ac);
    st = st ? st : sbw_svd_right(&work, s, &vt);
    st = st ? st : project(&ac, &vt, d < k ? d : k, logits);
    if (!st && sc)
        for (size_t i = 0; i < k; i++)
            sc[i] = s[i];
    if (st)
        sbw_mat_free(logits);
    sbw_mat_free(&ac);
    sbw_mat_free(&work);
    sbw_mat_free(&vt);
    free(s);
    return st;
}

void sbw_verify_util_log_softmax(const sbw_mat *x, sbw_mat *y)
{
    for (size_t i = 0; i < x->rows; i++)
        sbw_num_log_softmax(x->data + i * x->ld, y->data + i * y->ld, x->cols);
}

static void fit_opts(const sbw_verify_util_fit_args *a, sbw_fit_opts *o)
{
    sbw_fit_opts_init(o);
    o->model = a->model, o->d = a->d, o->bias = a->bias, o->seed = a->seed;
    if (a->k)
        o->k = a->k;
    if (a->knots)
        o->knots = a->knots;
    o->steps = a->fit_steps ? a->fit_steps : a->steps;
    o->optimizer = a->adam ? SBW_FIT_ADAM : SBW_FIT_LBFGS;
    o->lr = 0.03;
    o->obj.single = false;
    o->obj.threads = a->threads;
}

int sbw_verify_util_fit(const sbw_mat *logp, const sbw_verify_util_fit_args *a, sbw_target *t,
                        sbw_fit **f, sbw_mat *logq, double *kl)
{
    sbw_fit_opts o;
    sbw_obj_result res;
    fit_opts(a, &o);
    *logq = (sbw_mat){0};
    *f = NULL;
    int st = sbw_target_from_logp(t, logp, false, 1e-9);
    st = st ? st : sbw_fit_alloc(f, t, &o);
    st = st ? st : sbw_fit_run(*f);
    st = st ? st : sbw_mat_alloc(logq, logp->rows, logp->cols);
    st =
        st ? st : sbw_obj_logq((*f)->obj, (*f)->theta, 0, logp->rows, logq->data, logp->data, &res);
    if (!st)
        *kl = res.kl;
    if (st) {
        sbw_mat_free(logq);
        sbw_fit_free(*f);
        *f = NULL;
        sbw_target_free(t);
    }
    return st;
}
