/* sbw_argmax_cert.c -- checks of sbw-argmax's certificates, independent of
 * the LP solver (see the header for the arguments). */
#include "sbw_argmax_cert.h"

#include "sbw_error.h"

#include <float.h>
#include <gmp.h>
#include <math.h>
#include <stdlib.h>

double sbw_argmax_cert_gamma(size_t n)
{
    double nu = (double)n * (DBL_EPSILON / 2);
    return nu / (1 - nu);
}

/* ---- exact sums of products of doubles ------------------------------------ */

/* Every double is M 2^e with |M| < 2^53 an integer and e >= -1126 (frexp's
 * normalisation of the subnormals), so a product of two is an integer
 * times 2^(e1 + e2) with e1 + e2 >= -2252: acc holds the sum times
 * 2^XSHIFT, an integer. */
enum { XSHIFT = 2304 };

typedef struct xacc {
    mpz_t acc, t;
} xacc;

static void x_init(xacc *x)
{
    mpz_init(x->acc);
    mpz_init(x->t);
}

static void x_clear(xacc *x)
{
    mpz_clear(x->acc);
    mpz_clear(x->t);
}

/* acc += a c exactly (a, c finite). */
static void x_add(xacc *x, double a, double c)
{
    if (a == 0 || c == 0)
        return;
    int ea, ec;
    double fa = frexp(a, &ea), fc = frexp(c, &ec);
    mpz_set_si(x->t, (long)ldexp(fa, 53));
    mpz_mul_si(x->t, x->t, (long)ldexp(fc, 53));
    mpz_mul_2exp(x->t, x->t, (mp_bitcnt_t)((long)ea + ec - 106 + XSHIFT));
    mpz_add(x->acc, x->acc, x->t);
}

/* num / den as a double rounded towards +inf (den > 0): an upper bound,
 * equal to the value when the value is a double. */
static double q_upper(const mpz_t num, const mpz_t den)
{
    mpq_t q, v;
    mpq_init(q);
    mpq_init(v);
    mpq_set_num(q, num);
    mpq_set_den(q, den);
    mpq_canonicalize(q);
    double r = mpq_get_d(q); /* towards zero */
    if (isfinite(r)) {
        mpq_set_d(v, r);
        if (mpq_cmp(q, v) > 0)
            r = nextafter(r, INFINITY);
    } else if (r < 0) {
        r = -DBL_MAX;
    }
    mpq_clear(q);
    mpq_clear(v);
    return r;
}

/* acc / 2^XSHIFT as a double rounded towards zero (a positive value that
 * underflows to 0 becomes the smallest subnormal: still a lower bound of
 * its size and of the right sign). */
static double x_value(const xacc *x)
{
    mpq_t q;
    mpq_init(q);
    mpq_set_z(q, x->acc);
    mpq_div_2exp(q, q, XSHIFT);
    double r = mpq_get_d(q);
    mpq_clear(q);
    int s = mpz_sgn(x->acc);
    if (r == 0 && s)
        r = s > 0 ? DBL_TRUE_MIN : -DBL_TRUE_MIN;
    return r;
}

/* ---- the h certificate ---------------------------------------------------- */

/* sum_k x_k h_k + c in double, in this order (x = a - b, or a when b is
 * NULL), and a rigorous bound of its error, given g = gamma_n for n at
 * least the roundings of one term plus d (the sum's): each term
 * fl(fl(a_k - b_k) h_k) carries at most two roundings (one without b),
 * c at most one (a difference the caller formed), so the error is at most
 * g sum |exact terms| plus d + 1 underflows of half the smallest
 * subnormal; 1.01 covers the rounding of the bound itself and the
 * difference between exact and computed |terms| (valid while n u < 1e-3).
 * Infinite bound when something overflowed.  The h certificate's margin
 * (w_i - w_j).h + (b_i - b_j) takes n = d + 3, the truncation's
 * s_j = w_j.y + y_0 n = d + 1. */
static double dot_fl(const double *a, const double *b, const double *h, size_t d, double c,
                     double g, double *bound)
{
    double s = 0, abs_sum = 0;
    for (size_t k = 0; k < d; k++) {
        double t = (b ? a[k] - b[k] : a[k]) * h[k];
        s += t;
        abs_sum += fabs(t);
    }
    s += c;
    abs_sum += fabs(c);
    *bound = 1.01 * g * abs_sum + (double)(d + 1) * DBL_TRUE_MIN;
    if (!isfinite(s) || !isfinite(*bound))
        *bound = INFINITY;
    return s;
}

/* The same margin exactly: its sign and its value rounded towards zero. */
static double margin_exact(xacc *x, const double *wi, const double *wj, const double *h, size_t d,
                           double bi, double bj, int *sign)
{
    mpz_set_ui(x->acc, 0);
    for (size_t k = 0; k < d; k++) {
        x_add(x, wi[k], h[k]);
        x_add(x, -wj[k], h[k]);
    }
    x_add(x, bi, 1.0);
    x_add(x, -bj, 1.0);
    *sign = mpz_sgn(x->acc);
    return x_value(x);
}

void sbw_argmax_cert_h(const double *w, size_t m, size_t d, size_t ldw, const double *b, size_t i,
                       const double *h, sbw_argmax_cert_h_res *res)
{
    double g = sbw_argmax_cert_gamma(d + 3);
    bool use_fl = (double)(d + 3) * DBL_EPSILON < 1e-3;
    const double *wi = w + i * ldw;
    double bi = b ? b[i] : 0.0;
    bool have_x = false;
    xacc x;
    *res = (sbw_argmax_cert_h_res){.margin = INFINITY, .rival = i, .proven = true};
    for (size_t k = 0; k < d; k++)
        if (!isfinite(h[k]))
            res->proven = false;
    for (size_t j = 0; j < m && res->proven; j++) {
        if (j == i)
            continue;
        const double *wj = w + j * ldw;
        double bj = b ? b[j] : 0.0, bound = INFINITY;
        double v = use_fl ? dot_fl(wi, wj, h, d, bi - bj, g, &bound) : NAN;
        if (!(fabs(v) > bound)) { /* the sign is not settled: exactly */
            int sign;
            if (!have_x)
                x_init(&x);
            have_x = true;
            v = margin_exact(&x, wi, wj, h, d, bi, bj, &sign);
            bound = 0;
            res->exact++;
            res->proven = sign > 0;
        } else {
            res->proven = v > 0;
        }
        if (v < res->margin || !res->proven) {
            res->margin = v;
            res->bound = bound;
            res->rival = j;
        }
    }
    if (have_x)
        x_clear(&x);
    if (!res->proven && !isfinite(res->margin)) {
        res->margin = NAN;
        res->bound = INFINITY;
    }
}

/* ---- the lambda certificate ---------------------------------------------- */

void sbw_argmax_cert_lambda(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                            size_t i, const size_t *idx, const double *lambda, size_t k,
                            sbw_argmax_cert_l_res *res)
{
    long double sum = 0;
    res->valid = i < m && k > 0;
    res->support = 0;
    for (size_t t = 0; t < k && res->valid; t++) {
        res->valid = idx[t] < m && idx[t] != i && lambda[t] >= 0 && isfinite(lambda[t]);
        sum += lambda[t];
        res->support += lambda[t] > 0;
    }
    res->valid = res->valid && sum > 0 && isfinite((double)sum);
    if (!res->valid) {
        res->residual = res->sum_err = res->gap = res->norm1 = NAN;
        return;
    }
    res->sum_err = fabs((double)(sum - 1));
    res->norm1 = (double)sum;
    xacc s, x;
    x_init(&s);
    x_init(&x);
    for (size_t t = 0; t < k; t++)
        x_add(&s, lambda[t], 1.0); /* S = sum lambda, exactly */
    double r = 0;
    for (size_t c = 0; c < d; c++) { /* N_c = sum_t lambda_t (w_{j_t c} - w_ic) */
        mpz_set_ui(x.acc, 0);
        for (size_t t = 0; t < k; t++) {
            x_add(&x, lambda[t], w[idx[t] * ldw + c]);
            x_add(&x, -lambda[t], w[i * ldw + c]);
        }
        mpz_abs(x.acc, x.acc);
        r = fmax(r, q_upper(x.acc, s.acc));
    }
    res->residual = r;
    mpz_set_ui(x.acc, 0);
    for (size_t t = 0; t < k && b; t++) { /* gap S = sum_t lambda_t (b_i - b_{j_t}) */
        x_add(&x, lambda[t], b[i]);
        x_add(&x, -lambda[t], b[idx[t]]);
    }
    res->gap = q_upper(x.acc, s.acc);
    x_clear(&s);
    x_clear(&x);
}

bool sbw_argmax_cert_ray(const double *a, const double *c, size_t n, double pref, double *s)
{
    double lo = 0, hi = INFINITY;
    for (size_t j = 0; j < n; j++) {
        double cj = c ? c[j] : 0.0;
        if (a[j] > 0)
            lo = fmax(lo, -cj / a[j]);
        else if (a[j] < 0)
            hi = fmin(hi, cj / -a[j]);
        else if (!(cj > 0))
            return false;
        if (isnan(a[j]) || isnan(cj))
            return false;
    }
    if (!(lo < hi))
        return false;
    if (pref > lo && pref < hi)
        *s = pref;
    else
        *s = isinf(hi) ? (lo > 0 ? 2 * lo : 1.0) : 0.5 * (lo + hi);
    return *s > 0 && isfinite(*s);
}

/* ---- exact convex weights on a small support ------------------------------ */

/* Row-reduces the (rows x (k + 1)) augmented matrix a (mpq, row-major)
 * in place; true when it has rank k and is consistent, with the unique
 * solution in x (k values). */
static bool q_solve(mpq_t *a, size_t rows, size_t k, mpq_t *x)
{
    size_t r = 0, n = k + 1;
    mpq_t f, g;
    mpq_init(f);
    mpq_init(g);
    for (size_t c = 0; c < k && r < rows; c++, r++) {
        size_t p = r;
        while (p < rows && mpq_sgn(a[p * n + c]) == 0)
            p++;
        if (p == rows)
            break; /* a free column: not unique */
        for (size_t t = 0; t < n && p != r; t++)
            mpq_swap(a[p * n + t], a[r * n + t]);
        for (size_t q = 0; q < rows; q++) {
            if (q == r || mpq_sgn(a[q * n + c]) == 0)
                continue;
            mpq_div(f, a[q * n + c], a[r * n + c]);
            for (size_t t = c; t < n; t++) {
                mpq_mul(g, f, a[r * n + t]);
                mpq_sub(a[q * n + t], a[q * n + t], g);
            }
        }
    }
    bool ok = r == k;
    for (size_t q = r; q < rows && ok; q++) /* the rest must read 0 = 0 */
        ok = mpq_sgn(a[q * n + k]) == 0;
    for (size_t c = 0; c < k && ok; c++)
        mpq_div(x[c], a[c * n + k], a[c * n + c]);
    mpq_clear(f);
    mpq_clear(g);
    return ok;
}

bool sbw_argmax_cert_exact_lambda(const double *w, size_t m, size_t d, size_t ldw, size_t i,
                                  const size_t *idx, size_t k, double *lambda)
{
    size_t rows = d + 1, n = k + 1;
    if (k == 0 || i >= m || (double)rows * (double)k * (double)k > 3e4)
        return false;
    mpq_t *a = malloc(rows * n * sizeof *a), *x = malloc(k * sizeof *x);
    if (!a || !x) {
        free(a);
        free(x);
        return false;
    }
    for (size_t e = 0; e < rows * n; e++)
        mpq_init(a[e]);
    for (size_t t = 0; t < k; t++)
        mpq_init(x[t]);
    for (size_t r = 0; r < d; r++) { /* exact: mpq_set_d of a finite double */
        for (size_t t = 0; t < k; t++)
            mpq_set_d(a[r * n + t], w[idx[t] * ldw + r]);
        mpq_set_d(a[r * n + k], w[i * ldw + r]);
    }
    for (size_t t = 0; t <= k; t++)
        mpq_set_ui(a[d * n + t], 1, 1);
    bool ok = q_solve(a, rows, k, x);
    mpz_t l, p;
    mpz_init_set_ui(l, 1);
    mpz_init(p);
    for (size_t t = 0; t < k && ok; t++) { /* nonnegative, common denominator */
        ok = mpq_sgn(x[t]) >= 0;
        mpz_lcm(l, l, mpq_denref(x[t]));
    }
    for (size_t t = 0; t < k && ok; t++) { /* integers below 2^53: exact doubles */
        mpz_divexact(p, l, mpq_denref(x[t]));
        mpz_mul(p, p, mpq_numref(x[t]));
        ok = mpz_sizeinbase(p, 2) <= 53;
        if (ok)
            lambda[t] = mpz_get_d(p);
    }
    mpz_clear(l);
    mpz_clear(p);
    for (size_t e = 0; e < rows * n; e++)
        mpq_clear(a[e]);
    for (size_t t = 0; t < k; t++)
        mpq_clear(x[t]);
    free(a);
    free(x);
    return ok;
}

/* ---- truncation: Farkas certificates and witnesses ------------------------ */

/* Products of up to four doubles, each M 2^(e - 53) with e >= -1073, are
 * integers times 2^-4504 or finer: accumulators of the truncation checks
 * hold their sums times 2^TSHIFT, exactly. */
enum { TSHIFT = 4608 };

/* acc += sign * prod f[0..n) * 2^TSHIFT exactly (n <= 4, every f finite). */
static void t_add(mpz_t acc, mpz_t t, const double *f, int n, int sign)
{
    long e = TSHIFT;
    mpz_set_si(t, sign);
    for (int k = 0; k < n; k++) {
        if (f[k] == 0)
            return;
        int ek;
        double fr = frexp(f[k], &ek);
        mpz_mul_si(t, t, (long)ldexp(fr, 53));
        e += ek - 53;
    }
    mpz_mul_2exp(t, t, (mp_bitcnt_t)e);
    mpz_add(acc, acc, t);
}

/* acc / 2^TSHIFT rounded towards zero (a nonzero value that underflows
 * becomes the smallest subnormal of its sign). */
static double t_value(const mpz_t acc)
{
    mpq_t q;
    mpq_init(q);
    mpq_set_z(q, acc);
    mpq_div_2exp(q, q, TSHIFT);
    double r = mpq_get_d(q);
    mpq_clear(q);
    if (r == 0 && mpz_sgn(acc))
        r = mpz_sgn(acc) > 0 ? DBL_TRUE_MIN : -DBL_TRUE_MIN;
    return r;
}

/* |acc| / 2^TSHIFT rounded up. */
static double t_abs_upper(const mpz_t acc)
{
    mpz_t a, den;
    mpz_init(a);
    mpz_init_set_ui(den, 1);
    mpz_abs(a, acc);
    mpz_mul_2exp(den, den, TSHIFT);
    double r = mpz_sgn(a) ? q_upper(a, den) : 0.0;
    mpz_clear(a);
    mpz_clear(den);
    return r;
}

/* g(y) in double with a rigorous bound (see the header); false when the
 * bound cannot settle the answer (then the exact evaluation decides). */
static bool farkas_fl(const double *w, size_t m, size_t d, size_t ldw, const double *p,
                      double sigma, size_t i, const double *y, sbw_argmax_cert_f_res *res)
{
    const double u = DBL_EPSILON / 2, gd = sbw_argmax_cert_gamma(d + 1);
    bool inf = isinf(sigma);
    double G = 0, T = 0, E = 0, L = inf ? 1.0 : fmax(1.0, sigma - 1);
    if ((double)(m + d + 4) * DBL_EPSILON >= 1e-3)
        return false;
    for (size_t j = 0; j < m; j++) {
        double e, s = dot_fl(w + j * ldw, NULL, y, d, y[d], gd, &e), phi = s;
        if (j != i && inf && !(s <= -e))
            return false; /* the sign of s_j is not settled: exactly */
        if (j != i && !inf && s > 0)
            phi = s - sigma * s;
        double t = p[j] * phi;
        G += t;
        T += fabs(t);
        E += p[j] * ((j == i ? 1.0 : L) * e + 3 * u * (inf ? 1.0 : sigma + 1) * fabs(s));
    }
    double B = 1.01 * (E + sbw_argmax_cert_gamma(m + 1) * T) + 2 * (double)m * DBL_TRUE_MIN;
    if (!isfinite(G) || !isfinite(B) || !(fabs(G) > B))
        return false;
    *res = (sbw_argmax_cert_f_res){.value = G, .bound = B, .proven = G > 0};
    return true;
}

/* g(y) exactly: s_j exactly, then phat_j s_j and sigma phat_j s_j as sums
 * of products of three and four doubles. */
static void farkas_exact(const double *w, size_t m, size_t d, size_t ldw, const double *p,
                         double sigma, size_t i, const double *y, sbw_argmax_cert_f_res *res)
{
    bool inf = isinf(sigma);
    mpz_t g, s, t;
    mpz_init(g);
    mpz_init(s);
    mpz_init(t);
    *res = (sbw_argmax_cert_f_res){.exact = true, .proven = true};
    for (size_t j = 0; j < m && res->proven; j++) {
        const double *wj = w + j * ldw;
        mpz_set_ui(s, 0);
        for (size_t k = 0; k < d; k++)
            t_add(s, t, (double[]){wj[k], y[k]}, 2, 1);
        t_add(s, t, &y[d], 1, 1);
        int sg = mpz_sgn(s);
        if (j != i && inf && sg > 0)
            res->proven = false;
        int drop = j != i && !inf && sg > 0; /* also - sigma phat_j s_j */
        for (size_t k = 0; k <= d && res->proven; k++) {
            double wk = k < d ? wj[k] : 1.0;
            t_add(g, t, (double[]){p[j], wk, y[k]}, 3, 1);
            if (drop)
                t_add(g, t, (double[]){sigma, p[j], wk, y[k]}, 4, -1);
        }
    }
    if (res->proven) {
        res->proven = mpz_sgn(g) > 0;
        res->value = t_value(g);
    } else {
        res->value = NAN;
    }
    mpz_clear(g);
    mpz_clear(s);
    mpz_clear(t);
}

void sbw_argmax_cert_farkas(const double *w, size_t m, size_t d, size_t ldw, const double *phat,
                            double sigma, size_t i, const double *y, sbw_argmax_cert_f_res *res)
{
    *res = (sbw_argmax_cert_f_res){.value = NAN, .bound = INFINITY};
    if (i >= m || !(sigma >= 1))
        return;
    for (size_t k = 0; k <= d; k++)
        if (!isfinite(y[k]))
            return;
    if (!farkas_fl(w, m, d, ldw, phat, sigma, i, y, res))
        farkas_exact(w, m, d, ldw, phat, sigma, i, y, res);
}

struct sbw_argmax_cert_ctx {
    const double *w, *p;
    size_t m, d, ldw;
    mpz_t *c; /* d + 1: A^T phat times 2^TSHIFT */
};

int sbw_argmax_cert_ctx_alloc(sbw_argmax_cert_ctx **out, const double *w, size_t m, size_t d,
                              size_t ldw, const double *phat)
{
    *out = NULL;
    sbw_argmax_cert_ctx *c = calloc(1, sizeof *c);
    mpz_t *acc = c ? malloc((d + 1) * sizeof *acc) : NULL;
    if (!acc) {
        free(c);
        return SBW_ERROR(SBW_ENOMEM, "truncation: no memory for a certificate context");
    }
    *c = (sbw_argmax_cert_ctx){.w = w, .p = phat, .m = m, .d = d, .ldw = ldw, .c = acc};
    mpz_t t;
    mpz_init(t);
    for (size_t k = 0; k <= d; k++) {
        mpz_init(acc[k]);
        for (size_t j = 0; j < m; j++)
            t_add(acc[k], t, (double[]){k < d ? w[j * ldw + k] : 1.0, phat[j]}, 2, 1);
    }
    mpz_clear(t);
    *out = c;
    return SBW_OK;
}

void sbw_argmax_cert_ctx_free(sbw_argmax_cert_ctx *c)
{
    if (!c)
        return;
    for (size_t k = 0; k <= c->d; k++)
        mpz_clear(c->c[k]);
    free(c->c);
    free(c);
}

/* 0 <= q <= sigma phat_j, exactly. */
static bool in_box(double q, double sigma, double pj, mpz_t a, mpz_t t)
{
    if (!(q >= 0) || !isfinite(q))
        return false;
    if (isinf(sigma) || q <= sigma * pj * (1 - 4 * DBL_EPSILON))
        return true;
    mpz_set_ui(a, 0);
    t_add(a, t, &q, 1, 1);
    t_add(a, t, (double[]){sigma, pj}, 2, -1);
    return mpz_sgn(a) <= 0;
}

void sbw_argmax_cert_witness(const sbw_argmax_cert_ctx *c, double sigma, size_t i, const double *q,
                             sbw_argmax_cert_w_res *res)
{
    *res = (sbw_argmax_cert_w_res){.residual = NAN, .valid = i < c->m && q[i] == 0};
    mpz_t a, t;
    mpz_init(a);
    mpz_init(t);
    for (size_t j = 0; j < c->m && res->valid; j++) {
        res->valid = in_box(q[j], sigma, c->p[j], a, t);
        res->support += q[j] > 0;
    }
    double r = 0;
    for (size_t k = 0; k <= c->d && res->valid; k++) {
        mpz_neg(a, c->c[k]);
        for (size_t j = 0; j < c->m; j++)
            if (q[j] != 0)
                t_add(a, t, (double[]){k < c->d ? c->w[j * c->ldw + k] : 1.0, q[j]}, 2, 1);
        r = fmax(r, t_abs_upper(a));
    }
    if (res->valid)
        res->residual = r;
    mpz_clear(a);
    mpz_clear(t);
}

/* The rational system of an exact witness: column t of a is a_{basis_t},
 * the last column A^T phat - sigma sum_{up} a_j phat_j. */
static void witness_system(const sbw_argmax_cert_ctx *c, double sigma, const size_t *basis,
                           size_t k, const size_t *up, size_t k_up, mpq_t *a)
{
    size_t n = k + 1;
    mpz_t r, t;
    mpz_init(r);
    mpz_init(t);
    for (size_t row = 0; row <= c->d; row++) {
        for (size_t s = 0; s < k; s++)
            mpq_set_d(a[row * n + s], row < c->d ? c->w[basis[s] * c->ldw + row] : 1.0);
        mpz_set(r, c->c[row]);
        for (size_t s = 0; s < k_up; s++) {
            double wk = row < c->d ? c->w[up[s] * c->ldw + row] : 1.0;
            t_add(r, t, (double[]){sigma, c->p[up[s]], wk}, 3, -1);
        }
        mpq_set_z(a[row * n + k], r);
        mpq_div_2exp(a[row * n + k], a[row * n + k], TSHIFT);
    }
    mpz_clear(r);
    mpz_clear(t);
}

bool sbw_argmax_cert_witness_exact(const sbw_argmax_cert_ctx *c, double sigma, size_t i,
                                   const size_t *basis, size_t k, const size_t *up, size_t k_up)
{
    size_t rows = c->d + 1, n = k + 1;
    if (k == 0 || (double)rows * (double)k * (double)k > 3e4 || (double)k_up * (double)rows > 1e6 ||
        (k_up && isinf(sigma)))
        return false;
    for (size_t s = 0; s < k; s++)
        if (basis[s] >= c->m || basis[s] == i)
            return false;
    for (size_t s = 0; s < k_up; s++)
        if (up[s] >= c->m || up[s] == i)
            return false;
    mpq_t *a = malloc(rows * n * sizeof *a), *x = malloc(k * sizeof *x), hi;
    if (!a || !x) {
        free(a);
        free(x);
        return false;
    }
    for (size_t e = 0; e < rows * n; e++)
        mpq_init(a[e]);
    for (size_t s = 0; s < k; s++)
        mpq_init(x[s]);
    mpq_init(hi);
    witness_system(c, sigma, basis, k, up, k_up, a);
    bool ok = q_solve(a, rows, k, x);
    for (size_t s = 0; s < k && ok; s++) {
        ok = mpq_sgn(x[s]) >= 0;
        if (ok && !isinf(sigma)) { /* x_s <= sigma phat_j, exactly */
            mpq_set_d(hi, sigma);
            mpq_t pj;
            mpq_init(pj);
            mpq_set_d(pj, c->p[basis[s]]);
            mpq_mul(hi, hi, pj);
            mpq_clear(pj);
            ok = mpq_cmp(x[s], hi) <= 0;
        }
    }
    for (size_t e = 0; e < rows * n; e++)
        mpq_clear(a[e]);
    for (size_t s = 0; s < k; s++)
        mpq_clear(x[s]);
    mpq_clear(hi);
    free(a);
    free(x);
    return ok;
}
