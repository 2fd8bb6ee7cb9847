/* sbw_optim.c -- Adam and L-BFGS (see sbw_optim.h for the sources). */
#include "sbw_optim.h"

#include "sbw_error.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- Adam ----------------------------------------------------------------- */

int sbw_optim_adam_alloc(sbw_optim_adam *a, size_t n, double lr, double beta1, double beta2,
                         double eps, double decay)
{
    *a = (sbw_optim_adam){0};
    if (!(lr > 0 && isfinite(lr)))
        return SBW_ERROR(SBW_EINVAL, "--lr must be > 0, got %g", lr);
    if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1))
        return SBW_ERROR(SBW_EINVAL, "Adam betas must be in [0, 1), got %g and %g", beta1, beta2);
    if (!(eps >= 0 && isfinite(eps)))
        return SBW_ERROR(SBW_EINVAL, "Adam eps must be >= 0, got %g", eps);
    if (!(decay > 0 && decay <= 1))
        return SBW_ERROR(SBW_EINVAL, "--decay must be in (0, 1], got %g", decay);
    a->m = calloc(n ? n : 1, sizeof *a->m);
    a->v = calloc(n ? n : 1, sizeof *a->v);
    if (!a->m || !a->v) {
        sbw_optim_adam_free(a);
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate Adam's moments (%zu parameters)", n);
    }
    a->lr = lr, a->beta1 = beta1, a->beta2 = beta2, a->eps = eps, a->decay = decay, a->n = n;
    return SBW_OK;
}

void sbw_optim_adam_free(sbw_optim_adam *a)
{
    if (!a)
        return;
    free(a->m);
    free(a->v);
    *a = (sbw_optim_adam){0};
}

double sbw_optim_adam_lr(const sbw_optim_adam *a) { return a->lr * pow(a->decay, (double)a->t); }

/* The update of x[off, off+len); step = lr_t / bc1, rbc2 = 1/sqrt(bc2). */
static void adam_range(sbw_optim_adam *a, double *x, const double *g, size_t off, size_t len,
                       double step, double rbc2)
{
    double b1 = a->beta1, b2 = a->beta2, eps = a->eps;
    double *m = a->m + off, *v = a->v + off;
    x += off;
    g += off;
#pragma omp parallel for simd schedule(static) if (len > 65536)
    for (size_t i = 0; i < len; i++) {
        m[i] = b1 * m[i] + (1 - b1) * g[i];
        v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
        x[i] -= step * m[i] / (sqrt(v[i]) * rbc2 + eps);
    }
}

void sbw_optim_adam_step(sbw_optim_adam *a, double *x, const double *grad,
                         const sbw_optim_range *ranges, size_t nranges)
{
    double lr = sbw_optim_adam_lr(a);
    a->t++;
    double bc1 = 1 - pow(a->beta1, (double)a->t), bc2 = 1 - pow(a->beta2, (double)a->t);
    double step = lr / bc1, rbc2 = 1 / sqrt(bc2);
    if (!ranges) {
        adam_range(a, x, grad, 0, a->n, step, rbc2);
        return;
    }
    for (size_t r = 0; r < nranges; r++)
        adam_range(a, x, grad, ranges[r].off, ranges[r].len, step, rbc2);
}

/* ---- L-BFGS ---------------------------------------------------------------- */

int sbw_optim_lbfgs_alloc(sbw_optim_lbfgs *l, size_t n, size_t mem)
{
    *l = (sbw_optim_lbfgs){.n = n, .mem = mem};
    if (mem < 1)
        return SBW_ERROR(SBW_EINVAL, "L-BFGS needs a history of >= 1 pair");
    if (n && mem > SIZE_MAX / 8 / n)
        return SBW_ERROR(SBW_ENOMEM, "L-BFGS history %zu x %zu is too large", mem, n);
    l->s = malloc(mem * n * sizeof *l->s + 1);
    l->y = malloc(mem * n * sizeof *l->y + 1);
    l->rho = calloc(mem, sizeof *l->rho);
    l->alpha = calloc(mem, sizeof *l->alpha);
    l->d = malloc(n * sizeof *l->d + 1);
    l->xt = malloc(n * sizeof *l->xt + 1);
    l->gt = malloc(n * sizeof *l->gt + 1);
    if (l->s && l->y && l->rho && l->alpha && l->d && l->xt && l->gt)
        return SBW_OK;
    sbw_optim_lbfgs_free(l);
    return SBW_ERROR(SBW_ENOMEM, "cannot allocate L-BFGS history (%.3g GB)",
                     2.0 * (double)mem * (double)n * 8 / 1e9);
}

void sbw_optim_lbfgs_free(sbw_optim_lbfgs *l)
{
    if (!l)
        return;
    free(l->s), free(l->y), free(l->rho), free(l->alpha);
    free(l->d), free(l->xt), free(l->gt);
    *l = (sbw_optim_lbfgs){0};
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* d = -H g by the two-loop recursion over the stored pairs. */
static void lbfgs_direction(sbw_optim_lbfgs *l, const double *g)
{
    size_t n = l->n, mem = l->mem;
    double *q = l->d;
    memcpy(q, g, n * sizeof *q);
    for (size_t j = 0; j < l->count; j++) {
        size_t i = (l->head + mem - 1 - j) % mem; /* newest first */
        l->alpha[i] = l->rho[i] * dot(l->s + i * n, q, n);
        for (size_t e = 0; e < n; e++)
            q[e] -= l->alpha[i] * l->y[i * n + e];
    }
    if (l->count) {
        size_t i = (l->head + mem - 1) % mem;
        double gamma = 1.0 / (l->rho[i] * dot(l->y + i * n, l->y + i * n, n));
        for (size_t e = 0; e < n; e++)
            q[e] *= gamma;
    }
    for (size_t j = l->count; j-- > 0;) {
        size_t i = (l->head + mem - 1 - j) % mem; /* oldest first */
        double beta = l->rho[i] * dot(l->y + i * n, q, n);
        for (size_t e = 0; e < n; e++)
            q[e] += (l->alpha[i] - beta) * l->s[i * n + e];
    }
    for (size_t e = 0; e < n; e++)
        q[e] = -q[e];
}

/* A point on the search line: step a, phi(a), phi'(a). */
typedef struct ls_point {
    double a, f, df;
} ls_point;

typedef struct ls_ctx {
    sbw_optim_lbfgs *l;
    const double *x;
    sbw_optim_fn fn;
    void *ctx;
    double f0, df0;
    int evals;
} ls_ctx;

/* Evaluates phi at a into p (trial point and gradient in l->xt, l->gt). */
static int ls_eval(ls_ctx *c, double a, ls_point *p)
{
    sbw_optim_lbfgs *l = c->l;
    for (size_t e = 0; e < l->n; e++)
        l->xt[e] = c->x[e] + a * l->d[e];
    l->nfev++;
    c->evals++;
    p->a = a;
    int st = c->fn(c->ctx, l->xt, &p->f, l->gt);
    p->df = dot(l->gt, l->d, l->n);
    if (!st && !(isfinite(p->f) && isfinite(p->df)))
        p->f = INFINITY, p->df = NAN; /* treat as "too far": the search backs off */
    return st;
}

/* Minimiser of the cubic through lo and hi (N&W 3.59), safeguarded into
 * the middle 80% of the interval; bisection when the cubic is unusable. */
static double ls_cubic(const ls_point *lo, const ls_point *hi)
{
    double d1 = lo->df + hi->df - 3 * (lo->f - hi->f) / (lo->a - hi->a);
    double rad = d1 * d1 - lo->df * hi->df, mid = 0.5 * (lo->a + hi->a);
    if (!(rad >= 0) || !isfinite(hi->f) || !isfinite(hi->df))
        return mid;
    double d2 = (hi->a > lo->a ? 1 : -1) * sqrt(rad);
    double a = hi->a - (hi->a - lo->a) * (hi->df + d2 - d1) / (hi->df - lo->df + 2 * d2);
    double w = fabs(hi->a - lo->a), left = fmin(lo->a, hi->a) + 0.1 * w;
    double right = fmax(lo->a, hi->a) - 0.1 * w;
    return isfinite(a) && a >= left && a <= right ? a : mid;
}

#define LS_C1      1e-4
#define LS_C2      0.9
#define LS_MAXEVAL 25

static bool armijo_fails(const ls_ctx *c, const ls_point *p)
{
    return !(p->f <= c->f0 + LS_C1 * p->a * c->df0);
}

static bool curvature_ok(const ls_ctx *c, const ls_point *p)
{
    return fabs(p->df) <= -LS_C2 * c->df0;
}

/* Alg. 3.6: *acc = 1 when the last evaluated point (in xt, gt) is
 * accepted, with that point in *out; 0 when none was found. */
static int ls_zoom(ls_ctx *c, ls_point lo, ls_point hi, ls_point *out, int *acc)
{
    *acc = 0;
    while (c->evals < LS_MAXEVAL) {
        int st = ls_eval(c, ls_cubic(&lo, &hi), out);
        if (st)
            return st;
        if (armijo_fails(c, out) || out->f >= lo.f) {
            hi = *out;
            continue;
        }
        if (curvature_ok(c, out)) {
            *acc = 1;
            return SBW_OK;
        }
        if (out->df * (hi.a - lo.a) >= 0)
            hi = lo;
        lo = *out;
    }
    /* out of evaluations: settle for lo when it decreased f */
    if (lo.a > 0 && lo.f < c->f0) {
        int st = ls_eval(c, lo.a, out);
        *acc = !st && out->f == lo.f;
        return st;
    }
    return SBW_OK;
}

/* Alg. 3.5 from step a1. */
static int line_search(ls_ctx *c, double a1, ls_point *out, int *acc)
{
    ls_point prev = {0, c->f0, c->df0};
    *acc = 0;
    for (int i = 0; c->evals < LS_MAXEVAL; i++) {
        int st = ls_eval(c, a1, out);
        if (st)
            return st;
        if (armijo_fails(c, out) || (i > 0 && out->f >= prev.f))
            return ls_zoom(c, prev, *out, out, acc);
        if (curvature_ok(c, out)) {
            *acc = 1;
            return SBW_OK;
        }
        if (out->df >= 0)
            return ls_zoom(c, *out, prev, out, acc);
        prev = *out;
        a1 *= 4;
    }
    return SBW_OK;
}

/* Records the pair (s, y) = (a d, g_new - g_old) when y's > 0 (the slot
 * written may hold the oldest pair, so it is checked first). */
static void lbfgs_remember(sbw_optim_lbfgs *l, double a, const double *gold)
{
    size_t n = l->n;
    double ys = 0;
    for (size_t e = 0; e < n; e++)
        ys += (a * l->d[e]) * (l->gt[e] - gold[e]);
    if (!(ys > 0 && isfinite(ys)))
        return;
    double *s = l->s + l->head * n, *y = l->y + l->head * n;
    for (size_t e = 0; e < n; e++) {
        s[e] = a * l->d[e];
        y[e] = l->gt[e] - gold[e];
    }
    l->rho[l->head] = 1 / ys;
    l->head = (l->head + 1) % l->mem;
    l->count += l->count < l->mem;
}

int sbw_optim_lbfgs_iter(sbw_optim_lbfgs *l, double *x, double *f, double *g, sbw_optim_fn fn,
                         void *ctx)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt)
            l->count = 0; /* the quasi-Newton direction failed: steepest descent */
        lbfgs_direction(l, g);
        ls_ctx c = {l, x, fn, ctx, *f, dot(g, l->d, l->n), 0};
        if (!(c.df0 < 0) && l->count) { /* not a descent direction: restart */
            l->count = 0;
            lbfgs_direction(l, g);
            c.df0 = dot(g, l->d, l->n);
        }
        if (!(c.df0 < 0))
            return SBW_ERROR(SBW_ENUMERIC, "L-BFGS: the gradient vanished");
        ls_point p;
        int acc = 0, st = line_search(&c, l->count ? 1.0 : 1.0 / sqrt(-c.df0), &p, &acc);
        if (st)
            return st;
        if (!acc)
            continue;
        lbfgs_remember(l, p.a, g);
        memcpy(x, l->xt, l->n * sizeof *x);
        memcpy(g, l->gt, l->n * sizeof *g);
        *f = p.f;
        l->iter++;
        return SBW_OK;
    }
    return SBW_ERROR(SBW_ENUMERIC, "L-BFGS line search found no decrease (converged to "
                                   "roundoff, or the objective is not smooth here)");
}
