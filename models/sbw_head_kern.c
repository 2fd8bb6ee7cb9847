/* sbw_head_kern.c -- sbw-fit's hot loops (built with -ffast-math: finite
 * inputs only, see sbw_head_kern.h).  Loops are written for GCC's
 * vectoriser: `omp simd` reductions, exp/log mapped to libmvec. */
#include "sbw_head_kern.h"

#include "sbw_head.h"
#include "sbw_kern.h"
#include "sbw_vexp.h"

#include <math.h>
#include <stdint.h>

/* Below this a mixture's Q_i is recomputed in the log domain. */
#define MIX_TINY 1e-250

/* First j with x[j] == v (vectorised compares over chunks of 64). */
static size_t first_index_of(const double *x, size_t n, double v)
{
    for (size_t c = 0; c < n; c += 64) {
        size_t e = n - c < 64 ? n : c + 64;
        int hit = 0;
#pragma omp simd reduction(| : hit)
        for (size_t j = c; j < e; j++)
            hit |= x[j] == v;
        for (size_t j = c; hit && j < e; j++)
            if (x[j] == v)
                return j;
    }
    return 0;
}

static double vdot(const double *x, const double *y, size_t n)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s += x[j] * y[j];
    return s;
}

/* e = exp(x - shift), returns sum e; e may alias x. */
static double exp_shift_sum(const double *x, double *e, size_t n, double shift)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++) {
        double v = exp(x[j] - shift);
        e[j] = v;
        s += v;
    }
    return s;
}

/* max z and sum p z in one pass over the row. */
static double max_dot(const double *z, const double *p, size_t m, double *dot)
{
    double mx = z[0], s = 0;
#pragma omp simd reduction(max : mx) reduction(+ : s)
    for (size_t j = 0; j < m; j++) {
        mx = z[j] > mx ? z[j] : mx;
        s += p[j] * z[j];
    }
    *dot = s;
    return mx;
}

double sbw_head_kern_softmax(double *z, const double *p, size_t m, double psum, double scale,
                             bool grad, size_t *argmax)
{
    double spz;
    double mx = max_dot(z, p, m, &spz);
    *argmax = first_index_of(z, m, mx);
    double s = grad ? exp_shift_sum(z, z, m, mx) : sbw_kern_sum_exp_shift(z, m, mx);
    double loss = (mx + log(s)) * psum - spz;
    if (grad) {
        double a = scale * psum / s;
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            z[j] = a * z[j] - scale * p[j];
    }
    return loss;
}

/* Mixture forward: e_c = exp(z_c - max z_c), S_c = sum e_c, w_c = pi_c /
 * S_c, q = sum_c w_c e_c into q, lq = log q (clamped); lse_c = log-sum-exp
 * of z_c.  Returns how many q_j fell below MIX_TINY. */
static size_t mix_forward(const double *z, size_t k, size_t m, const double *logpi, double *e,
                          double *kb, double *q, double *lq)
{
    double *w = kb, *lse = kb + k, *s = kb + 2 * k;
    for (size_t c = 0; c < k; c++) {
        double mx = sbw_kern_max(z + c * m, m);
        s[c] = exp_shift_sum(z + c * m, e + c * m, m, mx);
        lse[c] = mx + log(s[c]);
        w[c] = exp(logpi[c]) / s[c];
    }
#pragma omp simd
    for (size_t j = 0; j < m; j++)
        q[j] = w[0] * e[j];
    for (size_t c = 1; c < k; c++) {
        const double *ec = e + c * m;
        double wc = w[c];
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            q[j] += wc * ec[j];
    }
    size_t tiny = 0;
#pragma omp simd reduction(+ : tiny)
    for (size_t j = 0; j < m; j++) {
        tiny += q[j] < MIX_TINY;
        lq[j] = log(q[j] < MIX_TINY ? MIX_TINY : q[j]);
    }
    return tiny;
}

/* a_c = log pi_c + z_cj - lse_c for an underflowed entry j; returns
 * log Q_j = logsumexp_c a_c, computed in the log domain. */
static double mix_log_entry(const double *z, size_t k, size_t m, const double *logpi,
                            const double *lse, size_t j)
{
    double mx = logpi[0] + z[j] - lse[0];
    for (size_t c = 1; c < k; c++) {
        double a = logpi[c] + z[c * m + j] - lse[c];
        mx = a > mx ? a : mx;
    }
    double s = 0;
    for (size_t c = 0; c < k; c++)
        s += exp(logpi[c] + z[c * m + j] - lse[c] - mx);
    /* s >= 1: the term at the maximum is exp(0). */
    // cppcheck-suppress invalidFunctionArg
    return mx + log(s);
}

/* The whole gradient in the log domain (when some Q_j underflowed):
 * r_cj = exp(log pi_c + z_cj - lse_c - lq_j), R_c = sum_j p_j r_cj,
 * dz_cj = scale (exp(z_cj - lse_c) R_c - p_j r_cj), in place over z. */
static void mix_grad_log(double *z, size_t k, size_t m, const double *logpi, const double *lse,
                         const double *lq, const double *p, double *r, double scale)
{
    for (size_t c = 0; c < k; c++) {
        const double *zc = z + c * m;
        double s = 0, a = logpi[c] - lse[c];
#pragma omp simd reduction(+ : s)
        for (size_t j = 0; j < m; j++)
            s += p[j] * exp(a + zc[j] - lq[j]);
        r[c] = s;
    }
    for (size_t c = 0; c < k; c++) {
        double *zc = z + c * m, a = logpi[c] - lse[c], rc = r[c];
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            zc[j] = scale * (exp(zc[j] - lse[c]) * rc - p[j] * exp(a + zc[j] - lq[j]));
    }
}

/* u_j = p_j / q_j into q, then R_c = w_c sum_j e_cj u_j into r. */
static void mix_rsum(size_t k, size_t m, const double *p, const double *e, const double *w,
                     double *q, double *r)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++)
        q[j] = p[j] / q[j];
    for (size_t c = 0; c < k; c++)
        r[c] = w[c] * vdot(e + c * m, q, m);
}

/* dz_cj = scale e_cj (R_c / S_c - w_c u_j), u in q; e is (K, M). */
static void mix_dz(double *dz, size_t k, size_t m, const double *e, const double *kb,
                   const double *u, double scale)
{
    const double *w = kb, *s = kb + 2 * k, *r = kb + 3 * k;
    for (size_t c = 0; c < k; c++) {
        const double *ec = e + c * m;
        double *dc = dz + c * m;
        double a = scale * r[c] / s[c], b = scale * w[c];
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            dc[j] = ec[j] * (a - b * u[j]);
    }
}

double sbw_head_kern_mixture(double *z, size_t k, size_t m, const double *logpi, const double *p,
                             double psum, double scale, bool grad, double *e, double *kbuf,
                             double *lq, double *dalpha, size_t *argmax)
{
    double *q = e + k * m, *lse = kbuf + k, *r = kbuf + 3 * k;
    size_t tiny = mix_forward(z, k, m, logpi, e, kbuf, q, lq);
    for (size_t j = 0; tiny && j < m; j++)
        if (q[j] < MIX_TINY)
            lq[j] = mix_log_entry(z, k, m, logpi, lse, j);
    double loss = -vdot(p, lq, m);
    *argmax = first_index_of(lq, m, sbw_kern_max(lq, m));
    if (!grad)
        return loss;
    if (tiny) {
        mix_grad_log(z, k, m, logpi, lse, lq, p, r, scale);
    } else {
        mix_rsum(k, m, p, e, kbuf, q, r);
        mix_dz(z, k, m, e, kbuf, q, scale);
    }
    for (size_t c = 0; c < k; c++)
        dalpha[c] = scale * (exp(logpi[c]) * psum - r[c]);
    return loss;
}

/* ---- Mixtape's sigmoid-tree gates ---------------------------------------- */

/* sigma(x) without overflowing exp (this file never meets Inf). */
static inline double gate_sigmoid(double x)
{
    double e = exp(-fabs(x));
    return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

/* Word x's gammas (K-1) into gam: its own gate logits or the shared ones. */
static inline void gate_gammas(const double *gl, size_t ldg, const double *s, const double *gb,
                               size_t nf, size_t k, size_t x, const double *shared, double *gam)
{
    size_t kg = k - 1;
    for (size_t j = 0; j < kg; j++)
        gam[j] = x < nf ? gate_sigmoid(gl[x * ldg + j] + s[j] + gb[x * kg + j]) : shared[j];
}

/* The tree's path products P (2K - 1 nodes, heap order): P[0] = 1, node
 * n's children 2n+1 and 2n+2 get P[n] gamma_n and P[n] (1 - gamma_n);
 * leaf k is node K - 1 + k, its value pi_k. */
static inline void gate_tree(const double *gam, size_t k, double *P)
{
    P[0] = 1.0;
    for (size_t n = 0; n + 1 < k; n++) {
        P[2 * n + 1] = P[n] * gam[n];
        P[2 * n + 2] = P[n] * (1.0 - gam[n]);
    }
}

/* The tree's backward: A's leaves (A[K-1+k]) hold dL/dpi_k; each internal
 * node, children first, gets A[n] = gamma_n A[2n+1] + (1 - gamma_n)
 * A[2n+2] and dl[n] = P[n] (A[2n+1] - A[2n+2]) gamma_n (1 - gamma_n),
 * the gradient of its gate logit. */
static inline void gate_tree_back(const double *gam, size_t k, const double *P, double *A,
                                  double *dl)
{
    for (size_t i = 1; i < k; i++) { /* internal nodes K - 2 down to 0: none when K = 1 */
        size_t n = k - 1 - i;
        double g = gam[n], l = A[2 * n + 1], r = A[2 * n + 2];
        dl[n] = P[n] * (l - r) * g * (1.0 - g);
        A[n] = g * l + (1.0 - g) * r;
    }
}

/* The shared gammas sigma(s_j) (K-1). */
static void gate_shared(const double *s, size_t k, double *shared)
{
    for (size_t j = 0; j + 1 < k; j++)
        shared[j] = gate_sigmoid(s[j]);
}

void sbw_head_kern_mixtape(const double *z, size_t k, size_t m, double *gl, size_t ldg,
                           const double *s, const double *gb, size_t nf, double *y)
{
    double shared[SBW_HEAD_MIXTAPE_KMAX], gam[SBW_HEAD_MIXTAPE_KMAX], P[2 * SBW_HEAD_MIXTAPE_KMAX];
    gate_shared(s, k, shared);
    for (size_t x = 0; x < m; x++) {
        gate_gammas(gl, ldg, s, gb, nf, k, x, shared, gam);
        gate_tree(gam, k, P);
        double acc = 0;
        for (size_t c = 0; c < k; c++)
            acc += P[k - 1 + c] * z[c * m + x];
        y[x] = acc;
        for (size_t j = 0; x < nf && j + 1 < k; j++)
            gl[x * ldg + j] = gam[j];
    }
}

void sbw_head_kern_mixtape_back(double *z, size_t k, size_t m, double *gl, size_t ldg,
                                const double *s, size_t nf, const double *dy, double *ds)
{
    double shared[SBW_HEAD_MIXTAPE_KMAX], gam[SBW_HEAD_MIXTAPE_KMAX], dl[SBW_HEAD_MIXTAPE_KMAX];
    double P[2 * SBW_HEAD_MIXTAPE_KMAX], A[2 * SBW_HEAD_MIXTAPE_KMAX];
    gate_shared(s, k, shared);
    for (size_t j = 0; j + 1 < k; j++)
        ds[j] = 0;
    for (size_t x = 0; x < m; x++) {
        for (size_t j = 0; j + 1 < k; j++)
            gam[j] = x < nf ? gl[x * ldg + j] : shared[j];
        gate_tree(gam, k, P);
        for (size_t c = 0; c < k; c++) {
            A[k - 1 + c] = dy[x] * z[c * m + x];
            z[c * m + x] = P[k - 1 + c] * dy[x];
        }
        gate_tree_back(gam, k, P, A, dl);
        for (size_t j = 0; j + 1 < k; j++) {
            ds[j] += dl[j];
            if (x < nf)
                gl[x * ldg + j] = dl[j];
        }
    }
}

void sbw_head_kern_mixtape_f(const float *z, size_t k, size_t m, double *gl, size_t ldg,
                             const double *s, const double *gb, size_t nf, float *y)
{
    double shared[SBW_HEAD_MIXTAPE_KMAX], gam[SBW_HEAD_MIXTAPE_KMAX], P[2 * SBW_HEAD_MIXTAPE_KMAX];
    gate_shared(s, k, shared);
    for (size_t x = 0; x < m; x++) {
        gate_gammas(gl, ldg, s, gb, nf, k, x, shared, gam);
        gate_tree(gam, k, P);
        double acc = 0;
        for (size_t c = 0; c < k; c++)
            acc += P[k - 1 + c] * (double)z[c * m + x];
        y[x] = (float)acc;
        for (size_t j = 0; x < nf && j + 1 < k; j++)
            gl[x * ldg + j] = gam[j];
    }
}

void sbw_head_kern_mixtape_back_f(float *z, size_t k, size_t m, double *gl, size_t ldg,
                                  const double *s, size_t nf, const float *dy, double *ds)
{
    double shared[SBW_HEAD_MIXTAPE_KMAX], gam[SBW_HEAD_MIXTAPE_KMAX], dl[SBW_HEAD_MIXTAPE_KMAX];
    double P[2 * SBW_HEAD_MIXTAPE_KMAX], A[2 * SBW_HEAD_MIXTAPE_KMAX];
    gate_shared(s, k, shared);
    for (size_t j = 0; j + 1 < k; j++)
        ds[j] = 0;
    for (size_t x = 0; x < m; x++) {
        for (size_t j = 0; j + 1 < k; j++)
            gam[j] = x < nf ? gl[x * ldg + j] : shared[j];
        gate_tree(gam, k, P);
        for (size_t c = 0; c < k; c++) {
            A[k - 1 + c] = (double)dy[x] * (double)z[c * m + x];
            z[c * m + x] = (float)(P[k - 1 + c] * (double)dy[x]);
        }
        gate_tree_back(gam, k, P, A, dl);
        for (size_t j = 0; j + 1 < k; j++) {
            ds[j] += dl[j];
            if (x < nf)
                gl[x * ldg + j] = dl[j];
        }
    }
}

void sbw_head_kern_ss(const double *z, double *y, double *fp, size_t m)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++) {
        double x = z[j], e = exp(-fabs(x)), inv = 1.0 / (1.0 + e);
        double sig = x >= 0 ? inv : e * inv; /* sigma(x) */
        y[j] = (x >= 0 ? x : 2.0 * x) - log1p(e);
        fp[j] = 2.0 - sig;
    }
}

void sbw_head_kern_map_back(const double *dy, const double *fp, double *dz, size_t m)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++)
        dz[j] = dy[j] * fp[j];
}

/* One hidden unit of the LMS map: y += v sigma(u z + b), fp += v u sigma',
 * sigma and sigma' stored in s and ds. */
static void lms_unit(const double *z, double *y, double *fp, double *s, double *ds, size_t m,
                     double u, double v, double b)
{
    double vu = v * u;
#pragma omp simd
    for (size_t j = 0; j < m; j++) {
        double t = u * z[j] + b, e = exp(-fabs(t)), inv = 1.0 / (1.0 + e);
        double sig = t >= 0 ? inv : e * inv, d = e * inv * inv;
        s[j] = sig;
        ds[j] = d;
        y[j] += v * sig;
        fp[j] += vu * d;
    }
}

void sbw_head_kern_lms(const double *z, double *y, double *fp, double *sig, size_t m,
                       const double *u, const double *v, const double *b, size_t k, double lambda)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++) {
        y[j] = lambda * z[j];
        fp[j] = lambda;
    }
    for (size_t c = 0; c < k; c++)
        lms_unit(z, y, fp, sig + 2 * c * m, sig + (2 * c + 1) * m, m, u[c], v[c], b[c]);
}

void sbw_head_kern_lms_back(const double *z, const double *g, const double *sig, size_t m,
                            const double *v, size_t k, double *gu, double *gv, double *gb,
                            double *glambda)
{
    for (size_t c = 0; c < k; c++) {
        const double *s = sig + 2 * c * m, *ds = sig + (2 * c + 1) * m;
        double a = 0, bsum = 0, usum = 0;
#pragma omp simd reduction(+ : a, bsum, usum)
        for (size_t j = 0; j < m; j++) {
            double gd = g[j] * ds[j];
            a += g[j] * s[j];
            bsum += gd;
            usum += gd * z[j];
        }
        gv[c] += a;
        gb[c] += v[c] * bsum;
        gu[c] += v[c] * usum;
    }
    if (glambda)
        *glambda += vdot(g, z, m);
}

/* The PLIF interval of x: floor((x + T) / delta) clamped to [0, K-1]. */
static inline size_t plif_index(double x, double t, double inv_delta, double kmax)
{
    double f = (x + t) * inv_delta;
    f = f < 0 ? 0 : f;
    f = f > kmax ? kmax : f;
    return (size_t)f;
}

/* Clamps y, computed on interval i, to [cum[i], cum[i+1]] (no lower bound
 * on the first interval, no upper on the last, which extend linearly).
 * Rounding alone lets cum[i-1] + s (z - knot) land above cum[i] just left
 * of a knot (or a z the index puts right of the knot fall below it), so
 * the computed map could invert two logits an ulp apart; clamped, it is
 * non-decreasing in z whatever the rounding: each piece is (fl is
 * monotone, s >= 0), the index is, and pieces meet at the cum values. */
static inline double plif_clamp(double y, const double *cum, size_t i, size_t k)
{
    y = i > 0 && y < cum[i] ? cum[i] : y;
    return i + 1 < k && y > cum[i + 1] ? cum[i + 1] : y;
}

void sbw_head_kern_plif(const double *z, double *y, double *fp, size_t m, const double *s,
                        const double *cum, size_t k, double t)
{
    double delta = 2.0 * t / (double)k, inv = (double)k / (2.0 * t), kmax = (double)(k - 1);
    for (size_t j = 0; j < m; j++) {
        size_t i = plif_index(z[j], t, inv, kmax);
        double knot = -t + delta * (double)i;
        y[j] = plif_clamp(cum[i] + s[i] * (z[j] - knot), cum, i, k);
        fp[j] = s[i];
    }
}

void sbw_head_kern_plif_back(const double *z, const double *g, size_t m, size_t k, double t,
                             double *gsum, double *gx)
{
    double delta = 2.0 * t / (double)k, inv = (double)k / (2.0 * t), kmax = (double)(k - 1);
    for (size_t j = 0; j < m; j++) {
        size_t i = plif_index(z[j], t, inv, kmax);
        double knot = -t + delta * (double)i;
        gsum[i] += g[j];
        gx[i] += g[j] * (z[j] - knot);
    }
}

void sbw_head_kern_f2d(const float *x, double *y, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        y[j] = (double)x[j];
}

void sbw_head_kern_d2f(const double *x, float *y, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        y[j] = (float)x[j];
}

void sbw_head_kern_colsum(const double *x, size_t rows, size_t m, size_t ld, double *acc)
{
    for (size_t i = 0; i < rows; i++) {
        const double *xi = x + i * ld;
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            acc[j] += xi[j];
    }
}

/* acc (n) += w x (n), float x summed into double. */
static void axpy_f2d(double w, const float *x, double *acc, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        acc[j] += w * (double)x[j];
}

void sbw_head_kern_add_f2d(const float *x, double *y, size_t n) { axpy_f2d(1.0, x, y, n); }

void sbw_head_kern_tanh(double *x, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        x[j] = tanh(x[j]);
}

void sbw_head_kern_tanh_back(const double *g, double *dg, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        dg[j] *= 1.0 - g[j] * g[j];
}

void sbw_head_kern_axpy(double a, const double *x, double *y, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        y[j] += a * x[j];
}

/* ---- float twins ----------------------------------------------------------- */

#define MIX_TINY_F 1e-30f

static float vmax_f(const float *x, size_t n)
{
    float mx = x[0];
#pragma omp simd reduction(max : mx)
    for (size_t j = 1; j < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    return mx;
}

static double vdot_f(const float *x, const float *y, size_t n)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++)
        s += (double)x[j] * (double)y[j];
    return s;
}

static double exp_shift_sum_f(const float *x, float *e, size_t n, float shift)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < n; j++) {
        float v = expf(x[j] - shift);
        e[j] = v;
        s += (double)v;
    }
    return s;
}

/* Returns sum_j exp(z_j - shift) and sets *dot = sum_j p_j z_j and *first
 * = the first j with z_j == shift (m when none); with store, z is
 * overwritten in place by exp(z - shift).  The pass that streams P from
 * memory also does the exps (inline, so nothing is stored and re-read) and
 * finds the argmax, so the loads hide behind the arithmetic.  m < 2^32 - 1
 * (sbw_head refuses wider). */
static double exp_sum_dot_f(float *z, const float *p, bool store, size_t m, float shift,
                            double *dot, size_t *first)
{
    double s = 0, d = 0;
    uint32_t at = UINT32_MAX;
    if (store) {
#pragma omp simd reduction(+ : s, d) reduction(min : at)
        for (size_t j = 0; j < m; j++) {
            float zj = z[j], v = sbw_vexpf(zj - shift);
            uint32_t hit = zj == shift ? (uint32_t)j : UINT32_MAX;
            at = hit < at ? hit : at;
            d += (double)(p[j] * zj);
            z[j] = v;
            s += (double)v;
        }
    } else {
#pragma omp simd reduction(+ : s, d) reduction(min : at)
        for (size_t j = 0; j < m; j++) {
            uint32_t hit = z[j] == shift ? (uint32_t)j : UINT32_MAX;
            at = hit < at ? hit : at;
            d += (double)(p[j] * z[j]);
            s += (double)sbw_vexpf(z[j] - shift);
        }
    }
    *dot = d;
    *first = at == UINT32_MAX ? m : at;
    return s;
}

double sbw_head_kern_softmax_f(float *z, const float *p, size_t m, double psum, double scale,
                               bool grad, size_t *argmax)
{
    double spz;
    float mx = vmax_f(z, m);
    double s = exp_sum_dot_f(z, p, grad, m, mx, &spz, argmax);
    double loss = ((double)mx + log(s)) * psum - spz;
    if (grad) {
        float a = (float)(scale * psum / s), b = (float)scale;
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            z[j] = a * z[j] - b * p[j];
    }
    return loss;
}

/* Words per chunk of the float mixture's double sums: the chunk's Q (2 kB
 * of doubles) stays in L1 while the K rows of e stream through it. */
#define MIX_CHUNK 256

/* q (n) = sum_c w_c e_c (n words of each row of e, leading dim m), summed
 * in double. */
static void mix_q_chunk_f(const float *e, size_t k, size_t m, const double *w, size_t n, double *q)
{
    double w0 = w[0];
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        q[j] = w0 * (double)e[j];
    for (size_t c = 1; c < k; c++)
        axpy_f2d(w[c], e + c * m, q, n);
}

/* lq = log q (double, q clamped at MIX_TINY_F) and u = p / q (float), u_j =
 * -1 marking q_j < MIX_TINY_F; all (n).  Returns how many were marked. */
static size_t mix_log_chunk_f(const double *q, const float *p, size_t n, double *lq, float *u)
{
    size_t tiny = 0;
#pragma omp simd reduction(+ : tiny)
    for (size_t j = 0; j < n; j++) {
        int small = q[j] < (double)MIX_TINY_F;
        double qj = small ? (double)MIX_TINY_F : q[j];
        tiny += (size_t)small;
        lq[j] = log(qj);
        u[j] = small ? -1.0f : (float)((double)p[j] / qj);
    }
    return tiny;
}

/* As mix_forward with float storage: e_c = expf(z_c - max z_c) (float, (K,
 * M)); kb (double) holds w, lse, S.  Q_j = sum_c w_c e_cj is summed in
 * double a chunk of words at a time, lq = log Q in double (M), and u = p /
 * Q in float (M), -1 where Q_j < MIX_TINY_F.  Returns how many are. */
static size_t mix_forward_f(const float *z, size_t k, size_t m, const double *logpi, const float *p,
                            float *e, double *kb, float *u, double *lq)
{
    double *w = kb, *lse = kb + k, *s = kb + 2 * k, q[MIX_CHUNK];
    for (size_t c = 0; c < k; c++) {
        float mx = vmax_f(z + c * m, m);
        s[c] = exp_shift_sum_f(z + c * m, e + c * m, m, mx);
        lse[c] = (double)mx + log(s[c]);
        w[c] = exp(logpi[c]) / s[c];
    }
    size_t tiny = 0;
    for (size_t j0 = 0; j0 < m; j0 += MIX_CHUNK) {
        size_t n = m - j0 < MIX_CHUNK ? m - j0 : MIX_CHUNK;
        mix_q_chunk_f(e + j0, k, m, w, n, q);
        tiny += mix_log_chunk_f(q, p + j0, n, lq + j0, u + j0);
    }
    return tiny;
}

static double mix_log_entry_f(const float *z, size_t k, size_t m, const double *logpi,
                              const double *lse, size_t j)
{
    double mx = logpi[0] + (double)z[j] - lse[0];
    for (size_t c = 1; c < k; c++) {
        double a = logpi[c] + (double)z[c * m + j] - lse[c];
        mx = a > mx ? a : mx;
    }
    double s = 0;
    for (size_t c = 0; c < k; c++)
        s += exp(logpi[c] + (double)z[c * m + j] - lse[c] - mx);
    /* s >= 1: the term at the maximum is exp(0). */
    // cppcheck-suppress invalidFunctionArg
    return mx + log(s);
}

static void mix_grad_log_f(float *z, size_t k, size_t m, const double *logpi, const double *lse,
                           const double *lq, const float *p, double *r, double scale)
{
    for (size_t c = 0; c < k; c++) {
        const float *zc = z + c * m;
        double s = 0, a = logpi[c] - lse[c];
        for (size_t j = 0; j < m; j++)
            s += (double)p[j] * exp(a + (double)zc[j] - lq[j]);
        r[c] = s;
    }
    for (size_t c = 0; c < k; c++) {
        float *zc = z + c * m;
        double a = logpi[c] - lse[c];
        for (size_t j = 0; j < m; j++) {
            double zj = (double)zc[j];
            zc[j] = (float)(scale * (exp(zj - lse[c]) * r[c] - (double)p[j] * exp(a + zj - lq[j])));
        }
    }
}

/* R_c = w_c sum_j e_cj u_j (double sums), then dz_cj = scale e_cj (R_c /
 * S_c - w_c u_j) in place over z; e is (K, M), u (M). */
static void mix_grad_f(float *z, size_t k, size_t m, const float *e, const float *u, double *kb,
                       double scale)
{
    const double *w = kb, *s = kb + 2 * k;
    double *r = kb + 3 * k;
    for (size_t c = 0; c < k; c++)
        r[c] = w[c] * vdot_f(e + c * m, u, m);
    for (size_t c = 0; c < k; c++) {
        const float *ec = e + c * m;
        float *zc = z + c * m;
        float a = (float)(scale * r[c] / s[c]), b = (float)(scale * w[c]);
#pragma omp simd
        for (size_t j = 0; j < m; j++)
            zc[j] = ec[j] * (a - b * u[j]);
    }
}

/* -sum_j p_j lq_j, float p, double lq. */
static double neg_dot_fd(const float *p, const double *lq, size_t m)
{
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (size_t j = 0; j < m; j++)
        s -= (double)p[j] * lq[j];
    return s;
}

double sbw_head_kern_mixture_f(float *z, size_t k, size_t m, const double *logpi, const float *p,
                               double psum, double scale, bool grad, float *e, double *kbuf,
                               double *lq, double *dalpha, size_t *argmax)
{
    float *u = e + k * m;
    double *lse = kbuf + k, *r = kbuf + 3 * k;
    size_t tiny = mix_forward_f(z, k, m, logpi, p, e, kbuf, u, lq);
    for (size_t j = 0; tiny && j < m; j++)
        if (u[j] < 0)
            lq[j] = mix_log_entry_f(z, k, m, logpi, lse, j);
    double loss = neg_dot_fd(p, lq, m);
    *argmax = first_index_of(lq, m, sbw_kern_max(lq, m));
    if (!grad)
        return loss;
    if (tiny)
        mix_grad_log_f(z, k, m, logpi, lse, lq, p, r, scale);
    else
        mix_grad_f(z, k, m, e, u, kbuf, scale);
    for (size_t c = 0; c < k; c++)
        dalpha[c] = scale * (exp(logpi[c]) * psum - r[c]);
    return loss;
}

void sbw_head_kern_ss_f(const float *z, float *y, float *fp, size_t m)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++) {
        float x = z[j], e = expf(-fabsf(x)), inv = 1.0f / (1.0f + e);
        float sig = x >= 0 ? inv : e * inv;
        y[j] = (x >= 0 ? x : 2.0f * x) - log1pf(e);
        fp[j] = 2.0f - sig;
    }
}

void sbw_head_kern_map_back_f(const float *dy, const float *fp, float *dz, size_t m)
{
#pragma omp simd
    for (size_t j = 0; j < m; j++)
        dz[j] = dy[j] * fp[j];
}

/* Words per chunk of the float LMS map: the chunk's double sums of f and
 * f' (4 kB) and its rows of sigma, sigma' stay in L1 across the K units. */
#define LMS_CHUNK 256

/* One hidden unit over n words: s = sigma(u z + b), ds = sigma' (float). */
static void lms_unit_f(const float *z, float *s, float *ds, size_t n, float u, float b)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++) {
        float t = u * z[j] + b, e = expf(-fabsf(t)), inv = 1.0f / (1.0f + e);
        s[j] = t >= 0 ? inv : e * inv;
        ds[j] = e * inv * inv;
    }
}

/* f = lambda z + sum_c v_c sigma_c and f' = lambda + sum_c v_c u_c
 * sigma'_c summed in double, a chunk of words at a time: each unit's
 * sigma, sigma' are computed in float and stored, then added into the
 * chunk's double sums from L1.  Converting from memory is the cheap way:
 * at K = 10, M = 1000 the map costs 22% more than with float sums, where
 * converting in the unit loop's registers cost 45-60%; an Adam step of
 * lms K=10 about 3% more. */
void sbw_head_kern_lms_f(const float *z, float *y, float *fp, float *sig, size_t m, const float *u,
                         const float *v, const float *b, size_t k, float lambda)
{
    double ya[LMS_CHUNK], fa[LMS_CHUNK], ld = (double)lambda;
    for (size_t j0 = 0; j0 < m; j0 += LMS_CHUNK) {
        size_t n = m - j0 < LMS_CHUNK ? m - j0 : LMS_CHUNK;
#pragma omp simd
        for (size_t j = 0; j < n; j++) {
            ya[j] = ld * (double)z[j0 + j];
            fa[j] = ld;
        }
        for (size_t c = 0; c < k; c++) {
            float *s = sig + 2 * c * m + j0, *ds = s + m;
            lms_unit_f(z + j0, s, ds, n, u[c], b[c]);
            axpy_f2d((double)v[c], s, ya, n);
            axpy_f2d((double)v[c] * (double)u[c], ds, fa, n);
        }
#pragma omp simd
        for (size_t j = 0; j < n; j++) {
            y[j0 + j] = (float)ya[j];
            fp[j0 + j] = (float)fa[j];
        }
    }
}

void sbw_head_kern_lms_back_f(const float *z, const float *g, const float *sig, size_t m,
                              const double *v, size_t k, double *gu, double *gv, double *gb,
                              double *glambda)
{
    for (size_t c = 0; c < k; c++) {
        const float *s = sig + 2 * c * m, *ds = sig + (2 * c + 1) * m;
        double a = 0, bsum = 0, usum = 0;
#pragma omp simd reduction(+ : a, bsum, usum)
        for (size_t j = 0; j < m; j++) {
            float gd = g[j] * ds[j];
            a += (double)(g[j] * s[j]);
            bsum += (double)gd;
            usum += (double)(gd * z[j]);
        }
        gv[c] += a;
        gb[c] += v[c] * bsum;
        gu[c] += v[c] * usum;
    }
    if (glambda)
        *glambda += vdot_f(g, z, m);
}

/* plif_clamp in float (the same argument makes the float map monotone). */
static inline float plif_clamp_f(float y, const float *cum, size_t i, size_t k)
{
    y = i > 0 && y < cum[i] ? cum[i] : y;
    return i + 1 < k && y > cum[i + 1] ? cum[i + 1] : y;
}

void sbw_head_kern_plif_f(const float *z, float *y, float *fp, size_t m, const float *s,
                          const float *cum, size_t k, double t)
{
    double delta = 2.0 * t / (double)k, inv = (double)k / (2.0 * t), kmax = (double)(k - 1);
    for (size_t j = 0; j < m; j++) {
        size_t i = plif_index((double)z[j], t, inv, kmax);
        float knot = (float)(-t + delta * (double)i);
        y[j] = plif_clamp_f(cum[i] + s[i] * (z[j] - knot), cum, i, k);
        fp[j] = s[i];
    }
}

void sbw_head_kern_plif_back_f(const float *z, const float *g, size_t m, size_t k, double t,
                               double *gsum, double *gx)
{
    double delta = 2.0 * t / (double)k, inv = (double)k / (2.0 * t), kmax = (double)(k - 1);
    for (size_t j = 0; j < m; j++) {
        size_t i = plif_index((double)z[j], t, inv, kmax);
        double knot = -t + delta * (double)i;
        gsum[i] += (double)g[j];
        gx[i] += (double)g[j] * ((double)z[j] - knot);
    }
}

void sbw_head_kern_add_f(const float *x, float *y, size_t n)
{
#pragma omp simd
    for (size_t j = 0; j < n; j++)
        y[j] += x[j];
}
