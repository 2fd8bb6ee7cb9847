/* test_lstm.c -- the LSTM layer (sbw_lstm.h): the fast float and double
 * paths against the naive twin (sbw_lstm_ref.h) on tiny odd sizes and on
 * sizes with vector remainders; the twin's backward against central
 * finite differences of its own forward; dx NULL, accumulation into the
 * parameter gradients, the state carried between chunks, saturation,
 * determinism (and the pointwise kernels bit-identical on 1 and 3 threads,
 * which carries the twin comparisons over to the threaded path) and the
 * error paths.
 *
 * Inputs are drawn in double and rounded to float, so the float path and
 * the twin see the same numbers.  Weights are N(0, (1.5/sqrt(I+H))^2), so
 * pre-activations are O(1) at every size.
 *
 * Tolerances.  A pre-activation is a sum of I+H+1 products of O(1) terms:
 * its rounding error is at most (I+H+1) eps times their size; the
 * activations add a few eps (the kernels' tanh is 1 - 2/(e^2x + 1));
 * through the recurrence the error of a step enters the next (with gain
 * below 1 in c, |Wh| in h), so over T steps we allow
 *     FWD_TOL (I+H+1) T eps.
 * Gradients are sums over the T*B rows (dW, db) or 4H gate rows (dx, dh)
 * of such quantities, so backward is allowed the same factor times
 * (1 + the largest |gradient|) and T*B more:
 *     BWD_TOL (I+H+1) T (T B) eps (1 + max |g|).
 * eps is DBL_EPSILON for double, FLT_EPSILON for float. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_lstm.h"
#include "sbw_lstm_kern.h"
#include "sbw_lstm_ref.h"
#include "sbw_rng.h"

#include <float.h>
#include <gsl/gsl_randist.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FWD_TOL 8.0
#define BWD_TOL 8.0

/* Tiny odd sizes, one where sequences are single, and two that leave
 * vector remainders over more rows (H = 37, 1031). */
static const sbw_lstm_shape sizes[] = {
    {3, 5, 2, 4, NULL}, {1, 1, 1, 1, NULL},  {4, 3, 3, 2, NULL},
    {2, 7, 1, 5, NULL}, {5, 37, 9, 3, NULL}, {6, 1031, 9, 2, NULL},
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* A layer's arrays in double: inputs (float-representable), forward
 * outputs, backward arguments. */
typedef struct lay {
    sbw_lstm_shape s;
    size_t nwx, nwh, nb, nx, nst, nrow, ng, nwork;
    double *wx, *wh, *b, *x, *h0, *c0;
    double *hs, *cs, *gates;
    double *dhs, *dx, *dwx, *dwh, *db, *work;
    double *r; /* R (T*B x H), the loss's weights: L = sum R .* hs */
} lay;

/* The same arrays in float. */
typedef struct layf {
    float *wx, *wh, *b, *x, *h0, *c0;
    float *hs, *cs, *gates;
    float *dhs, *dx, *dwx, *dwh, *db, *work;
} layf;

static double *dalloc(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof *p);
    assert_non_null(p);
    return p;
}

static float *falloc(size_t n)
{
    float *p = calloc(n ? n : 1, sizeof *p);
    assert_non_null(p);
    return p;
}

/* n values N(0, sd^2) rounded to float. */
static void gaussian(gsl_rng *g, double *x, size_t n, double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(float)gsl_ran_gaussian(g, sd);
}

static lay lay_new(sbw_lstm_shape s, uint64_t seed)
{
    lay l = {.s = s};
    l.nwx = 4 * s.hid * s.in;
    l.nwh = 4 * s.hid * s.hid;
    l.nb = 4 * s.hid;
    l.nrow = s.steps * s.batch;
    l.nx = l.nrow * s.in;
    l.nst = s.batch * s.hid;
    l.ng = l.nrow * 4 * s.hid;
    l.nwork = sbw_lstm_work_len(&s);
    l.wx = dalloc(l.nwx);
    l.wh = dalloc(l.nwh);
    l.b = dalloc(l.nb);
    l.x = dalloc(l.nx);
    l.h0 = dalloc(l.nst);
    l.c0 = dalloc(l.nst);
    l.r = dalloc(l.nrow * s.hid);
    l.hs = dalloc(l.nrow * s.hid);
    l.cs = dalloc(l.nrow * s.hid);
    l.gates = dalloc(l.ng);
    l.dhs = dalloc(l.nrow * s.hid);
    l.dx = dalloc(l.nx);
    l.dwx = dalloc(l.nwx);
    l.dwh = dalloc(l.nwh);
    l.db = dalloc(l.nb);
    l.work = dalloc(l.nwork);
    gsl_rng *g = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&g, seed, 0));
    double w = 1.5 / sqrt((double)(s.in + s.hid));
    gaussian(g, l.wx, l.nwx, w);
    gaussian(g, l.wh, l.nwh, w);
    gaussian(g, l.b, l.nb, 0.5);
    gaussian(g, l.x, l.nx, 1.0);
    gaussian(g, l.h0, l.nst, 0.5);
    gaussian(g, l.c0, l.nst, 1.0);
    gaussian(g, l.r, l.nrow * s.hid, 1.0);
    sbw_rng_free(g);
    return l;
}

static void lay_free(lay *l)
{
    double *p[] = {l->wx,    l->wh,  l->b,  l->x,   l->h0,  l->c0, l->hs,   l->cs,
                   l->gates, l->dhs, l->dx, l->dwx, l->dwh, l->db, l->work, l->r};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
}

static float *to_f(const double *a, size_t n)
{
    float *p = falloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)a[i];
    return p;
}

static double *to_d(const float *a, size_t n)
{
    double *p = dalloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = (double)a[i];
    return p;
}

static layf layf_new(const lay *l)
{
    size_t nh = l->nrow * l->s.hid;
    layf f = {to_f(l->wx, l->nwx), to_f(l->wh, l->nwh), to_f(l->b, l->nb), to_f(l->x, l->nx),
              to_f(l->h0, l->nst), to_f(l->c0, l->nst), falloc(nh),        falloc(nh),
              falloc(l->ng),       falloc(nh),          falloc(l->nx),     falloc(l->nwx),
              falloc(l->nwh),      falloc(l->nb),       falloc(l->nwork)};
    return f;
}

static void layf_free(layf *f)
{
    float *p[] = {f->wx,    f->wh,  f->b,  f->x,   f->h0,  f->c0, f->hs,  f->cs,
                  f->gates, f->dhs, f->dx, f->dwx, f->dwh, f->db, f->work};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
}

static void fwd_d(lay *l)
{
    SBW_ASSERT_OK(
        sbw_lstm_forward_d(&l->s, l->wx, l->wh, l->b, l->x, l->h0, l->c0, l->hs, l->cs, l->gates));
}

static void fwd_ref(lay *l)
{
    SBW_ASSERT_OK(sbw_lstm_ref_forward(&l->s, l->wx, l->wh, l->b, l->x, l->h0, l->c0, l->hs, l->cs,
                                       l->gates));
}

static void fwd_f(const lay *l, layf *f)
{
    SBW_ASSERT_OK(
        sbw_lstm_forward_f(&l->s, f->wx, f->wh, f->b, f->x, f->h0, f->c0, f->hs, f->cs, f->gates));
}

/* Backward with dL/dhs = R after the forward in l; dx written unless
 * with_dx is false (then l->dx is left as it was). */
static void bwd_d(lay *l, bool with_dx)
{
    memcpy(l->dhs, l->r, l->nrow * l->s.hid * sizeof *l->dhs);
    SBW_ASSERT_OK(sbw_lstm_backward_d(&l->s, l->wx, l->wh, l->x, l->h0, l->c0, l->hs, l->cs,
                                      l->gates, l->dhs, with_dx ? l->dx : NULL, l->dwx, l->dwh,
                                      l->db, l->work));
}

static void bwd_ref(lay *l)
{
    memcpy(l->dhs, l->r, l->nrow * l->s.hid * sizeof *l->dhs);
    SBW_ASSERT_OK(sbw_lstm_ref_backward(&l->s, l->wx, l->wh, l->x, l->h0, l->c0, l->hs, l->cs,
                                        l->gates, l->dhs, l->dx, l->dwx, l->dwh, l->db, l->work));
}

static void bwd_f(const lay *l, layf *f, bool with_dx)
{
    for (size_t i = 0; i < l->nrow * l->s.hid; i++)
        f->dhs[i] = (float)l->r[i];
    SBW_ASSERT_OK(sbw_lstm_backward_f(&l->s, f->wx, f->wh, f->x, f->h0, f->c0, f->hs, f->cs,
                                      f->gates, f->dhs, with_dx ? f->dx : NULL, f->dwx, f->dwh,
                                      f->db, f->work));
}

static double max_abs(const double *a, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fabs(a[i]) > m ? fabs(a[i]) : m;
    return m;
}

static double fwd_tol(const sbw_lstm_shape *s, double eps)
{
    return FWD_TOL * (double)(s->in + s->hid + 1) * (double)s->steps * eps;
}

static double bwd_tol(const sbw_lstm_shape *s, double eps, const double *want, size_t n)
{
    return BWD_TOL * (double)(s->in + s->hid + 1) * (double)s->steps *
           (double)(s->steps * s->batch) * eps * (1.0 + max_abs(want, n));
}

/* got (float) against want (double) within atol. */
static void close_f(const float *got, const double *want, size_t n, double atol)
{
    double *g = to_d(got, n);
    SBW_ASSERT_CLOSE(g, want, n, atol, 0.0);
    free(g);
}

/* The forward outputs of two layers of the same shape. */
static void same_forward(const lay *got, const lay *want, double atol)
{
    size_t nh = want->nrow * want->s.hid;
    SBW_ASSERT_CLOSE(got->gates, want->gates, want->ng, atol, 0.0);
    SBW_ASSERT_CLOSE(got->cs, want->cs, nh, atol, 0.0);
    SBW_ASSERT_CLOSE(got->hs, want->hs, nh, atol, 0.0);
}

/* A copy of l's inputs and R, with fresh outputs. */
static lay lay_clone(const lay *l, uint64_t seed)
{
    lay c = lay_new(l->s, seed);
    memcpy(c.wx, l->wx, l->nwx * sizeof *c.wx);
    memcpy(c.wh, l->wh, l->nwh * sizeof *c.wh);
    memcpy(c.b, l->b, l->nb * sizeof *c.b);
    memcpy(c.x, l->x, l->nx * sizeof *c.x);
    memcpy(c.h0, l->h0, l->nst * sizeof *c.h0);
    memcpy(c.c0, l->c0, l->nst * sizeof *c.c0);
    memcpy(c.r, l->r, l->nrow * l->s.hid * sizeof *c.r);
    return c;
}

static void test_forward_d_matches_twin(void **state)
{
    (void)state;
    for (size_t k = 0; k < NSIZES; k++) {
        lay fast = lay_new(sizes[k], 100 + k);
        lay ref = lay_clone(&fast, 999);
        fwd_d(&fast);
        fwd_ref(&ref);
        same_forward(&fast, &ref, fwd_tol(&sizes[k], DBL_EPSILON));
        lay_free(&fast);
        lay_free(&ref);
    }
}

static void test_forward_f_matches_twin(void **state)
{
    (void)state;
    for (size_t k = 0; k < NSIZES; k++) {
        lay l = lay_new(sizes[k], 200 + k);
        layf f = layf_new(&l);
        fwd_ref(&l);
        fwd_f(&l, &f);
        double tol = fwd_tol(&sizes[k], FLT_EPSILON);
        close_f(f.gates, l.gates, l.ng, tol);
        close_f(f.cs, l.cs, l.nrow * l.s.hid, tol);
        close_f(f.hs, l.hs, l.nrow * l.s.hid, tol);
        layf_free(&f);
        lay_free(&l);
    }
}

/* The gradients of two layers after backward (dx included). */
static void same_backward(const lay *got, const lay *want, double eps)
{
    const sbw_lstm_shape *s = &want->s;
    size_t nh = want->nrow * s->hid;
    SBW_ASSERT_CLOSE(got->dwx, want->dwx, want->nwx, bwd_tol(s, eps, want->dwx, want->nwx), 0.0);
    SBW_ASSERT_CLOSE(got->dwh, want->dwh, want->nwh, bwd_tol(s, eps, want->dwh, want->nwh), 0.0);
    SBW_ASSERT_CLOSE(got->db, want->db, want->nb, bwd_tol(s, eps, want->db, want->nb), 0.0);
    SBW_ASSERT_CLOSE(got->dx, want->dx, want->nx, bwd_tol(s, eps, want->dx, want->nx), 0.0);
    SBW_ASSERT_CLOSE(got->dhs, want->dhs, nh, bwd_tol(s, eps, want->dhs, nh), 0.0);
}

static void test_backward_d_matches_twin(void **state)
{
    (void)state;
    for (size_t k = 0; k < NSIZES; k++) {
        lay fast = lay_new(sizes[k], 300 + k);
        lay ref = lay_clone(&fast, 999);
        fwd_d(&fast);
        fwd_ref(&ref);
        bwd_d(&fast, true);
        bwd_ref(&ref);
        same_backward(&fast, &ref, DBL_EPSILON);
        lay_free(&fast);
        lay_free(&ref);
    }
}

static void test_backward_f_matches_twin(void **state)
{
    (void)state;
    for (size_t k = 0; k < NSIZES; k++) {
        lay l = lay_new(sizes[k], 400 + k);
        layf f = layf_new(&l);
        fwd_ref(&l);
        bwd_ref(&l);
        fwd_f(&l, &f);
        bwd_f(&l, &f, true);
        lay got = lay_clone(&l, 999);
        free(got.dwx);
        free(got.dwh);
        free(got.db);
        free(got.dx);
        free(got.dhs);
        got.dwx = to_d(f.dwx, l.nwx);
        got.dwh = to_d(f.dwh, l.nwh);
        got.db = to_d(f.db, l.nb);
        got.dx = to_d(f.dx, l.nx);
        got.dhs = to_d(f.dhs, l.nrow * l.s.hid);
        same_backward(&got, &l, FLT_EPSILON);
        lay_free(&got);
        layf_free(&f);
        lay_free(&l);
    }
}

/* L = sum R .* hs by the twin's forward (into l's outputs). */
static double twin_loss(lay *l)
{
    fwd_ref(l);
    double L = 0.0;
    for (size_t i = 0; i < l->nrow * l->s.hid; i++)
        L += l->r[i] * l->hs[i];
    return L;
}

/* Central differences of L in each entry of p (n), against g. */
static void fd_check(lay *l, double *p, size_t n, const double *g)
{
    const double h = 1e-5;
    for (size_t i = 0; i < n; i++) {
        double keep = p[i];
        p[i] = keep + h;
        double lp = twin_loss(l);
        p[i] = keep - h;
        double lm = twin_loss(l);
        p[i] = keep;
        double fd = (lp - lm) / (2.0 * h);
        /* truncation h^2 |L'''| / 6 and rounding eps |L| / h, both under
         * 1e-8 here (|L| < 100, O(1) derivatives) */
        SBW_ASSERT_NEAR(g[i], fd, 1e-7 * (1.0 + fabs(fd)));
    }
}

static void test_twin_backward_matches_fd(void **state)
{
    (void)state;
    static const sbw_lstm_shape fd_sizes[] = {
        {3, 5, 2, 4, NULL}, {1, 1, 1, 1, NULL}, {4, 3, 3, 2, NULL}, {2, 2, 3, 3, NULL}};
    for (size_t k = 0; k < sizeof fd_sizes / sizeof fd_sizes[0]; k++) {
        lay l = lay_new(fd_sizes[k], 500 + k);
        fwd_ref(&l);
        bwd_ref(&l);
        double *g[] = {dalloc(l.nwx), dalloc(l.nwh), dalloc(l.nb), dalloc(l.nx)};
        memcpy(g[0], l.dwx, l.nwx * sizeof *g[0]);
        memcpy(g[1], l.dwh, l.nwh * sizeof *g[1]);
        memcpy(g[2], l.db, l.nb * sizeof *g[2]);
        memcpy(g[3], l.dx, l.nx * sizeof *g[3]);
        fd_check(&l, l.wx, l.nwx, g[0]);
        fd_check(&l, l.wh, l.nwh, g[1]);
        fd_check(&l, l.b, l.nb, g[2]);
        fd_check(&l, l.x, l.nx, g[3]);
        for (size_t i = 0; i < 4; i++)
            free(g[i]);
        lay_free(&l);
    }
}

/* Bit equality of two double or float arrays. */
static void same_bits(const void *a, const void *b, size_t bytes)
{
    assert_memory_equal(a, b, bytes);
}

/* dx = NULL: no dx, and every other output bit-identical to a call with
 * dx (dx's GEMM is the last and reads only dz). */
static void test_dx_null(void **state)
{
    (void)state;
    const sbw_lstm_shape *s = &sizes[4];
    lay a = lay_new(*s, 600);
    lay b = lay_clone(&a, 999);
    fwd_d(&a);
    fwd_d(&b);
    bwd_d(&a, true);
    for (size_t i = 0; i < b.nx; i++)
        b.dx[i] = 7.0;
    bwd_d(&b, false);
    for (size_t i = 0; i < b.nx; i++)
        SBW_ASSERT_EQ(b.dx[i], 7.0);
    same_bits(a.dwx, b.dwx, a.nwx * sizeof *a.dwx);
    same_bits(a.dwh, b.dwh, a.nwh * sizeof *a.dwh);
    same_bits(a.db, b.db, a.nb * sizeof *a.db);
    same_bits(a.dhs, b.dhs, a.nrow * s->hid * sizeof *a.dhs);

    layf fa = layf_new(&a), fb = layf_new(&a);
    fwd_f(&a, &fa);
    fwd_f(&a, &fb);
    bwd_f(&a, &fa, true);
    bwd_f(&a, &fb, false);
    for (size_t i = 0; i < a.nx; i++)
        SBW_ASSERT_EQ(fb.dx[i], 0.0f);
    same_bits(fa.dwx, fb.dwx, a.nwx * sizeof *fa.dwx);
    same_bits(fa.dwh, fb.dwh, a.nwh * sizeof *fa.dwh);
    same_bits(fa.db, fb.db, a.nb * sizeof *fa.db);
    layf_free(&fa);
    layf_free(&fb);
    lay_free(&a);
    lay_free(&b);
}

/* dwx, dwh, db are accumulated: starting from D gives D + the gradient
 * from zero (up to one rounding of the sum). */
static void test_accumulates(void **state)
{
    (void)state;
    const sbw_lstm_shape *s = &sizes[0];
    lay z = lay_new(*s, 700);
    lay a = lay_clone(&z, 701); /* a's gradients start at random D */
    gsl_rng *g = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&g, 702, 0));
    gaussian(g, a.dwx, a.nwx, 1.0);
    gaussian(g, a.dwh, a.nwh, 1.0);
    gaussian(g, a.db, a.nb, 1.0);
    sbw_rng_free(g);
    double *d0[] = {dalloc(a.nwx), dalloc(a.nwh), dalloc(a.nb)};
    memcpy(d0[0], a.dwx, a.nwx * sizeof *a.dwx);
    memcpy(d0[1], a.dwh, a.nwh * sizeof *a.dwh);
    memcpy(d0[2], a.db, a.nb * sizeof *a.db);
    layf fz = layf_new(&z), fa = layf_new(&a);
    for (size_t i = 0; i < a.nwx; i++)
        fa.dwx[i] = (float)a.dwx[i];
    for (size_t i = 0; i < a.nwh; i++)
        fa.dwh[i] = (float)a.dwh[i];
    for (size_t i = 0; i < a.nb; i++)
        fa.db[i] = (float)a.db[i];
    fwd_d(&z);
    fwd_d(&a);
    bwd_d(&z, true);
    bwd_d(&a, true);
    fwd_f(&z, &fz);
    fwd_f(&z, &fa);
    bwd_f(&z, &fz, true);
    bwd_f(&z, &fa, true);
    double *want[] = {z.dwx, z.dwh, z.db}, *got[] = {a.dwx, a.dwh, a.db};
    float *wantf[] = {fz.dwx, fz.dwh, fz.db}, *gotf[] = {fa.dwx, fa.dwh, fa.db};
    size_t n[] = {z.nwx, z.nwh, z.nb};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < n[k]; i++) {
            double w = d0[k][i] + want[k][i], wf = d0[k][i] + (double)wantf[k][i];
            SBW_ASSERT_NEAR(got[k][i], w, 4 * DBL_EPSILON * (fabs(d0[k][i]) + fabs(want[k][i])));
            SBW_ASSERT_NEAR((double)gotf[k][i], wf,
                            4 * FLT_EPSILON * (fabs(d0[k][i]) + fabs((double)wantf[k][i])));
        }
    for (size_t k = 0; k < 3; k++)
        free(d0[k]);
    layf_free(&fz);
    layf_free(&fa);
    lay_free(&z);
    lay_free(&a);
}

/* Forward over T steps equals two chunks of T/2, the second started from
 * the first's last B rows of hs and cs (double and float). */
static void test_state_carry(void **state)
{
    (void)state;
    const sbw_lstm_shape full = {5, 37, 9, 6, NULL};
    sbw_lstm_shape half = full;
    half.steps = full.steps / 2;
    lay l = lay_new(full, 800);
    layf f = layf_new(&l);
    fwd_d(&l);
    fwd_f(&l, &f);
    size_t hrows = half.steps * half.batch, nh = hrows * full.hid, ng = hrows * 4 * full.hid;
    double *hs = dalloc(2 * nh), *cs = dalloc(2 * nh), *gt = dalloc(2 * ng);
    float *hsf = falloc(2 * nh), *csf = falloc(2 * nh), *gtf = falloc(2 * ng);
    for (size_t c = 0; c < 2; c++) {
        const double *x = l.x + c * hrows * full.in;
        const double *h0 = c ? hs + nh - l.nst : l.h0, *c0 = c ? cs + nh - l.nst : l.c0;
        SBW_ASSERT_OK(sbw_lstm_forward_d(&half, l.wx, l.wh, l.b, x, h0, c0, hs + c * nh,
                                         cs + c * nh, gt + c * ng));
        const float *h0f = c ? hsf + nh - l.nst : f.h0, *c0f = c ? csf + nh - l.nst : f.c0;
        SBW_ASSERT_OK(sbw_lstm_forward_f(&half, f.wx, f.wh, f.b, f.x + c * hrows * full.in, h0f,
                                         c0f, hsf + c * nh, csf + c * nh, gtf + c * ng));
    }
    double tol = fwd_tol(&full, DBL_EPSILON), tolf = fwd_tol(&full, FLT_EPSILON);
    SBW_ASSERT_CLOSE(hs, l.hs, 2 * nh, tol, 0.0);
    SBW_ASSERT_CLOSE(cs, l.cs, 2 * nh, tol, 0.0);
    SBW_ASSERT_CLOSE(gt, l.gates, 2 * ng, tol, 0.0);
    double *lf = to_d(f.hs, 2 * nh);
    close_f(hsf, lf, 2 * nh, tolf);
    free(lf);
    lf = to_d(f.cs, 2 * nh);
    close_f(csf, lf, 2 * nh, tolf);
    free(lf);
    lf = to_d(f.gates, 2 * ng);
    close_f(gtf, lf, 2 * ng, tolf);
    free(lf);
    free(hs);
    free(cs);
    free(gt);
    free(hsf);
    free(csf);
    free(gtf);
    layf_free(&f);
    lay_free(&l);
}

static bool all_finite(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return false;
    return true;
}

/* Pre-activations near +-amp (the bias +-amp with random signs, the weights
 * as usual): every output finite, the gates saturated to 0/1 (and g to
 * -1/1) within eps, the fast paths equal to the twin, the gradients finite
 * and equal to the twin's (in float too: exp(amp) overflows float there). */
static void saturated(double amp)
{
    const sbw_lstm_shape *s = &sizes[4];
    lay l = lay_new(*s, 900);
    for (size_t k = 0; k < l.nb; k++)
        l.b[k] = (k * 7 + 3) % 5 < 2 ? -amp : amp;
    lay fast = lay_clone(&l, 999);
    layf f = layf_new(&l);
    fwd_ref(&l);
    bwd_ref(&l);
    fwd_d(&fast);
    bwd_d(&fast, true);
    fwd_f(&l, &f);
    bwd_f(&l, &f, true);
    double *gf = to_d(f.gates, l.ng), *hf = to_d(f.hs, l.nrow * s->hid);
    assert_true(all_finite(fast.gates, l.ng) && all_finite(gf, l.ng));
    assert_true(all_finite(fast.hs, l.nrow * s->hid) && all_finite(hf, l.nrow * s->hid));
    for (size_t r = 0; r < l.nrow; r++)
        for (size_t k = 0; k < l.nb; k++) {
            bool g = k >= 2 * s->hid && k < 3 * s->hid;
            double want = l.b[k] > 0 ? 1.0 : g ? -1.0 : 0.0;
            SBW_ASSERT_NEAR(fast.gates[r * l.nb + k], want, 2 * DBL_EPSILON);
            SBW_ASSERT_NEAR(gf[r * l.nb + k], want, 2 * FLT_EPSILON);
        }
    same_forward(&fast, &l, fwd_tol(s, DBL_EPSILON));
    same_backward(&fast, &l, DBL_EPSILON);
    double *dwf = to_d(f.dwh, l.nwh), *dxf = to_d(f.dx, l.nx);
    assert_true(all_finite(dwf, l.nwh) && all_finite(dxf, l.nx));
    SBW_ASSERT_CLOSE(dwf, l.dwh, l.nwh, bwd_tol(s, FLT_EPSILON, l.dwh, l.nwh), 0.0);
    SBW_ASSERT_CLOSE(dxf, l.dx, l.nx, bwd_tol(s, FLT_EPSILON, l.dx, l.nx), 0.0);
    free(dwf);
    free(dxf);
    free(gf);
    free(hf);
    layf_free(&f);
    lay_free(&fast);
    lay_free(&l);
}

static void test_saturation(void **state)
{
    (void)state;
    saturated(100.0);
    saturated(1000.0);
}

/* Two calls with the same arguments give the same bits (sizes that run
 * the kernels threaded). */
static void test_deterministic(void **state)
{
    (void)state;
    const sbw_lstm_shape *s = &sizes[5];
    lay a = lay_new(*s, 1000);
    lay b = lay_clone(&a, 999);
    fwd_d(&a);
    fwd_d(&b);
    bwd_d(&a, true);
    bwd_d(&b, true);
    size_t nh = a.nrow * s->hid;
    same_bits(a.gates, b.gates, a.ng * sizeof *a.gates);
    same_bits(a.hs, b.hs, nh * sizeof *a.hs);
    same_bits(a.cs, b.cs, nh * sizeof *a.cs);
    same_bits(a.dwx, b.dwx, a.nwx * sizeof *a.dwx);
    same_bits(a.dwh, b.dwh, a.nwh * sizeof *a.dwh);
    same_bits(a.db, b.db, a.nb * sizeof *a.db);
    same_bits(a.dx, b.dx, a.nx * sizeof *a.dx);
    layf fa = layf_new(&a), fb = layf_new(&a);
    fwd_f(&a, &fa);
    fwd_f(&a, &fb);
    bwd_f(&a, &fa, true);
    bwd_f(&a, &fb, true);
    same_bits(fa.gates, fb.gates, a.ng * sizeof *fa.gates);
    same_bits(fa.hs, fb.hs, nh * sizeof *fa.hs);
    same_bits(fa.dwx, fb.dwx, a.nwx * sizeof *fa.dwx);
    same_bits(fa.dwh, fb.dwh, a.nwh * sizeof *fa.dwh);
    same_bits(fa.db, fb.db, a.nb * sizeof *fa.db);
    same_bits(fa.dx, fb.dx, a.nx * sizeof *fa.dx);
    layf_free(&fa);
    layf_free(&fb);
    lay_free(&a);
    lay_free(&b);
}

/* One kernel stage run on 1 and on 3 threads (arrays a -> b), in double
 * and float; sizes above the kernels' parallel threshold (2^18 elements). */
#define KR ((size_t)64)
#define KH ((size_t)4099)
static void kern_run(const double *in, double *out, float *outf, int threads)
{
    /* in: z (KR x 4KH) | b (4KH) | cprev, c, dh, dc (KR x KH each) */
    size_t nz = KR * 4 * KH, ns = KR * KH, nb = 4 * KH, n = 2 * nz + nb + 4 * ns;
    memcpy(out, in, (nz + nb + 4 * ns) * sizeof *out);
    for (size_t i = 0; i < nz + nb + 4 * ns; i++)
        outf[i] = (float)in[i];
    double *z = out, *b = z + nz, *cp = b + nb, *c = cp + ns, *h = c + ns, *dc = h + ns;
    double *dz = dc + ns;
    float *zf = outf, *bf = zf + nz, *cpf = bf + nb, *cf = cpf + ns, *hf = cf + ns, *dcf = hf + ns;
    float *dzf = dcf + ns;
    assert_true(dz + nz == out + n);
    sbw_lstm_kern_forward_d(KR, KH, b, cp, z, c, h, threads);
    sbw_lstm_kern_backward_d(KR, KH, z, c, cp, h, dc, dz, threads);
    sbw_lstm_kern_colsum_d(KR, 4 * KH, dz, b, threads);
    sbw_lstm_kern_forward_f(KR, KH, bf, cpf, zf, cf, hf, threads);
    sbw_lstm_kern_backward_f(KR, KH, zf, cf, cpf, hf, dcf, dzf, threads);
    sbw_lstm_kern_colsum_f(KR, 4 * KH, dzf, bf, threads);
}

static void test_kernels_thread_invariant(void **state)
{
    (void)state;
    size_t n = 2 * KR * 4 * KH + 4 * KH + 4 * KR * KH;
    double *in = dalloc(n), *a = dalloc(n), *b = dalloc(n);
    float *af = falloc(n), *bf = falloc(n);
    gsl_rng *g = NULL;
    SBW_ASSERT_OK(sbw_rng_alloc(&g, 1200, 0));
    gaussian(g, in, n, 2.0);
    sbw_rng_free(g);
    kern_run(in, a, af, 1);
    kern_run(in, b, bf, 3);
    same_bits(a, b, n * sizeof *a);
    same_bits(af, bf, n * sizeof *af);
    free(in);
    free(a);
    free(b);
    free(af);
    free(bf);
}

/* Every entry point with shape s fails with SBW_EINVAL (the arrays are
 * big enough for the tiny shape and never read). */
static void all_fail(const sbw_lstm_shape *s, lay *l, layf *f)
{
    assert_int_equal(sbw_lstm_work_len(s), 0);
    assert_int_equal(
        sbw_lstm_forward_d(s, l->wx, l->wh, l->b, l->x, l->h0, l->c0, l->hs, l->cs, l->gates),
        SBW_EINVAL);
    assert_int_equal(
        sbw_lstm_forward_f(s, f->wx, f->wh, f->b, f->x, f->h0, f->c0, f->hs, f->cs, f->gates),
        SBW_EINVAL);
    assert_int_equal(sbw_lstm_backward_d(s, l->wx, l->wh, l->x, l->h0, l->c0, l->hs, l->cs,
                                         l->gates, l->dhs, l->dx, l->dwx, l->dwh, l->db, l->work),
                     SBW_EINVAL);
    assert_int_equal(sbw_lstm_backward_f(s, f->wx, f->wh, f->x, f->h0, f->c0, f->hs, f->cs,
                                         f->gates, f->dhs, f->dx, f->dwx, f->dwh, f->db, f->work),
                     SBW_EINVAL);
    assert_true(strlen(sbw_error_reason()) > 0);
}

static void test_errors(void **state)
{
    (void)state;
    lay l = lay_new(sizes[1], 1100);
    layf f = layf_new(&l);
    for (size_t k = 0; k < 4; k++) { /* each size 0 in turn */
        sbw_lstm_shape s = sizes[1];
        size_t *field[] = {&s.in, &s.hid, &s.batch, &s.steps};
        *field[k] = 0;
        all_fail(&s, &l, &f);
        assert_int_equal(
            sbw_lstm_ref_forward(&s, l.wx, l.wh, l.b, l.x, l.h0, l.c0, l.hs, l.cs, l.gates),
            SBW_EINVAL);
        assert_int_equal(sbw_lstm_ref_backward(&s, l.wx, l.wh, l.x, l.h0, l.c0, l.hs, l.cs, l.gates,
                                               l.dhs, l.dx, l.dwx, l.dwh, l.db, l.work),
                         SBW_EINVAL);
    }
    const size_t big = (size_t)INT_MAX + 1;
    const sbw_lstm_shape beyond[] = {{big, 1, 1, 1, NULL},
                                     {1, big / 4 + 1, 1, 1, NULL},
                                     {1, 1, big / 2 + 1, 2, NULL},
                                     {1, 1, 1, big, NULL}};
    for (size_t k = 0; k < sizeof beyond / sizeof beyond[0]; k++)
        all_fail(&beyond[k], &l, &f);
    all_fail(NULL, &l, &f);
    assert_int_equal(
        sbw_lstm_forward_d(&l.s, l.wx, NULL, l.b, l.x, l.h0, l.c0, l.hs, l.cs, l.gates),
        SBW_EINVAL);
    assert_int_equal(sbw_lstm_backward_f(&l.s, f.wx, f.wh, f.x, f.h0, f.c0, f.hs, f.cs, f.gates,
                                         f.dhs, f.dx, f.dwx, f.dwh, f.db, NULL),
                     SBW_EINVAL);
    layf_free(&f);
    lay_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_d_matches_twin),
        cmocka_unit_test(test_forward_f_matches_twin),
        cmocka_unit_test(test_backward_d_matches_twin),
        cmocka_unit_test(test_backward_f_matches_twin),
        cmocka_unit_test(test_twin_backward_matches_fd),
        cmocka_unit_test(test_dx_null),
        cmocka_unit_test(test_accumulates),
        cmocka_unit_test(test_state_carry),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_kernels_thread_invariant),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
