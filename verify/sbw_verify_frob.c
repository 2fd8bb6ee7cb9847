/* sbw_verify_frob.c -- a head fitted to log P* in the Frobenius norm by
 * GSL's BFGS2 (the independent side of LMS Theorem 1's check). */
#include "sbw_verify_frob.h"

#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_verify_util.h"

#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdlib.h>

/* The problem: A (n x m), the rank d, the shift, scratch for L (n x m). */
typedef struct frob_problem {
    const sbw_mat *a;
    size_t n, m, d;
    sbw_verify_frob_shift shift;
    double *l;
} frob_problem;

/* The number of parameters: H, W, and c when the shift is free. */
static size_t frob_nparams(const frob_problem *pb)
{
    size_t k = (pb->n + pb->m) * pb->d;
    return pb->shift == SBW_VERIFY_FROB_FREE ? k + pb->n : k;
}

/* L = H W^T + c 1^T (c free, or -logsumexp of each row) from x
 * into pb->l; then R = L - A into pb->l.  Returns 0.5 ||R||_F^2. */
static double frob_residual(const frob_problem *pb, const double *x)
{
    size_t n = pb->n, m = pb->m, d = pb->d;
    const double *h = x, *w = x + n * d, *c = w + m * d;
    double f = 0;
    for (size_t i = 0; i < n; i++) {
        double *li = pb->l + i * m;
        for (size_t j = 0; j < m; j++) {
            double z = 0;
            for (size_t k = 0; k < d; k++)
                z += h[i * d + k] * w[j * d + k];
            li[j] = z;
        }
        double shift = pb->shift == SBW_VERIFY_FROB_FREE ? c[i] : -sbw_num_logsumexp(li, m);
        for (size_t j = 0; j < m; j++) {
            li[j] += shift - SBW_MAT_AT(pb->a, i, j);
            f += 0.5 * li[j] * li[j];
        }
    }
    return f;
}

/* The gradient of 0.5 ||R||_F^2 into g, R in pb->l (frob_residual first)
 * and the parameters x: with G = dR/dZ (G = R for a free shift, whose own
 * gradient is R's row sums; G = R - softmax(L) rowsum(R) for Softmax, L
 * = R + A), dH = G W, dW = G^T H.  Overwrites pb->l
 * with G. */
static void frob_gradient(const frob_problem *pb, const double *x, double *g)
{
    size_t n = pb->n, m = pb->m, d = pb->d;
    const double *h = x, *w = x + n * d;
    double *gh = g, *gw = g + n * d, *gc = gw + m * d;
    for (size_t k = 0; k < frob_nparams(pb); k++)
        g[k] = 0;
    for (size_t i = 0; i < n; i++) {
        double *ri = pb->l + i * m, s = 0;
        for (size_t j = 0; j < m; j++)
            s += ri[j];
        if (pb->shift == SBW_VERIFY_FROB_FREE)
            gc[i] = s;
        else
            for (size_t j = 0; j < m; j++) /* log Q_ij = R_ij + A_ij */
                ri[j] -= exp(ri[j] + SBW_MAT_AT(pb->a, i, j)) * s;
        for (size_t j = 0; j < m; j++) {
            for (size_t k = 0; k < d; k++) {
                gh[i * d + k] += ri[j] * w[j * d + k];
                gw[j * d + k] += ri[j] * h[i * d + k];
            }
        }
    }
}

static double frob_f(const gsl_vector *x, void *ctx) { return frob_residual(ctx, x->data); }
static void frob_df(const gsl_vector *x, void *ctx, gsl_vector *g)
{
    frob_residual(ctx, x->data);
    frob_gradient(ctx, x->data, g->data);
}
static void frob_fdf(const gsl_vector *x, void *ctx, double *f, gsl_vector *g)
{
    *f = frob_residual(ctx, x->data);
    frob_gradient(ctx, x->data, g->data);
}

/* The random start: H, W ~ N(0, 0.1^2) from seed, c = 0.  Errors:
 * SBW_ENOMEM. */
static int frob_start(const frob_problem *pb, uint64_t seed, gsl_vector *x)
{
    sbw_mat hw = {0};
    int st = sbw_mat_alloc(&hw, pb->n + pb->m, pb->d);
    st = st ? st : sbw_verify_util_gauss(&hw, 0.1, seed, 7);
    gsl_vector_set_zero(x);
    for (size_t k = 0; !st && k < hw.rows * hw.cols; k++)
        x->data[k] = hw.data[k];
    sbw_mat_free(&hw);
    return st;
}

int sbw_verify_frob_fit(const sbw_mat *a, size_t d, sbw_verify_frob_shift shift, size_t iters,
                        uint64_t seed, double *err)
{
    frob_problem pb = {.a = a, .n = a->rows, .m = a->cols, .d = d, .shift = shift};
    *err = NAN;
    if (d == 0 || pb.n == 0 || pb.m == 0)
        return SBW_ERROR(SBW_EINVAL, "Frobenius fit: d = %zu on a %zu x %zu matrix", d, pb.n, pb.m);
    size_t np = frob_nparams(&pb);
    pb.l = malloc(pb.n * pb.m * sizeof *pb.l);
    gsl_vector *x = gsl_vector_alloc(np);
    gsl_multimin_fdfminimizer *s =
        gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, np);
    int st = pb.l && x && s ? frob_start(&pb, seed, x)
                            : SBW_ERROR(SBW_ENOMEM, "no memory for a Frobenius fit");
    if (!st) {
        gsl_multimin_function_fdf fn = {frob_f, frob_df, frob_fdf, np, &pb};
        double gtol = 1e-10 * sbw_verify_util_frob(a);
        gsl_multimin_fdfminimizer_set(s, &fn, x, 0.1, 0.1);
        for (size_t it = 0; it < iters; it++) {
            if (gsl_multimin_fdfminimizer_iterate(s) != GSL_SUCCESS)
                break; /* no further progress: converged to roundoff */
            if (gsl_multimin_test_gradient(s->gradient, gtol) == GSL_SUCCESS)
                break;
        }
        *err = sqrt(2 * frob_residual(&pb, s->x->data));
    }
    free(pb.l);
    gsl_vector_free(x);
    gsl_multimin_fdfminimizer_free(s);
    return st;
}
