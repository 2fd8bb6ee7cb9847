/* sbw_svd_ref.c -- the brute-force twin of sbw_svd: singular values by
 * one-sided Jacobi rotations in long double (see sbw_svd_ref.h). */
#include "sbw_svd_ref.h"

#include "sbw_error.h"

#include <float.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#define JACOBI_SWEEPS 100

/* The twin works in long double (x87 extended: 64-bit significand) so that
 * its own roundoff, about len * 1e-19 relative, is far below what the
 * tests resolve: differences from it measure the fast path's error. */
typedef long double ldouble;

static ldouble dotl(const ldouble *x, const ldouble *y, size_t n)
{
    ldouble acc = 0;
    for (size_t i = 0; i < n; i++)
        acc += x[i] * y[i];
    return acc;
}

/* Orthogonalises columns p and q of the working matrix (Hestenes' rotation,
 * Demmel & Veselic 1992 eq. 4.2); returns whether it rotated.  Columns
 * below tiny (the roundoff of the whole matrix) are zeros: rotating them
 * against a large column only reshuffles rounding noise, forever. */
static bool jacobi_pair(ldouble *wp, ldouble *wq, size_t len, ldouble tol, ldouble tiny)
{
    ldouble alpha = dotl(wp, wp, len), beta = dotl(wq, wq, len), gamma = dotl(wp, wq, len);
    if (gamma == 0 || fabsl(gamma) <= tol * sqrtl(alpha) * sqrtl(beta) || alpha <= tiny ||
        beta <= tiny)
        return false;
    ldouble zeta = (beta - alpha) / (2 * gamma);
    ldouble t = (zeta >= 0 ? 1 : -1) / (fabsl(zeta) + sqrtl(1 + zeta * zeta));
    ldouble c = 1 / sqrtl(1 + t * t), sn = c * t;
    for (size_t i = 0; i < len; i++) {
        ldouble x = wp[i], y = wq[i];
        wp[i] = c * x - sn * y;
        wq[i] = sn * x + c * y;
    }
    return true;
}

/* Sweeps until no pair rotates; the column norms are the singular values. */
static int jacobi_sweeps(ldouble *w, size_t len, size_t nc, double *s)
{
    ldouble tol = (ldouble)len * LDBL_EPSILON, frob2 = dotl(w, w, len * nc);
    ldouble tiny = frob2 * tol * tol;
    int sweep;
    for (sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
        bool rotated = false;
        for (size_t p = 0; p + 1 < nc; p++)
            for (size_t q = p + 1; q < nc; q++)
                rotated |= jacobi_pair(w + p * len, w + q * len, len, tol, tiny);
        if (!rotated)
            break;
    }
    for (size_t c = 0; c < nc; c++)
        s[c] = (double)sqrtl(dotl(w + c * len, w + c * len, len));
    if (sweep == JACOBI_SWEEPS)
        return SBW_ERROR(SBW_ENUMERIC, "jacobi: no convergence in %d sweeps", JACOBI_SWEEPS);
    return SBW_OK;
}

int sbw_svd_ref_jacobi(const sbw_mat *a, double *s)
{
    if (a->rows == 0 || a->cols == 0)
        return SBW_ERROR(SBW_ESHAPE, "jacobi: empty matrix (%zu x %zu)", a->rows, a->cols);
    bool tr = a->rows < a->cols; /* work on the columns of the taller of A, A^T */
    size_t len = tr ? a->cols : a->rows, nc = tr ? a->rows : a->cols, bytes;
    if (sbw_mat_bytes(len, nc, sizeof(ldouble), &bytes))
        return SBW_ERROR(SBW_ENOMEM, "jacobi: %zu x %zu is too large", a->rows, a->cols);
    ldouble *w = malloc(bytes);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "jacobi: out of memory");
    for (size_t c = 0; c < nc; c++)
        for (size_t i = 0; i < len; i++)
            w[c * len + i] = tr ? SBW_MAT_AT(a, c, i) : SBW_MAT_AT(a, i, c);
    int st = jacobi_sweeps(w, len, nc, s);
    free(w);
    if (st)
        return st;
    gsl_sort(s, 1, nc);
    for (size_t i = 0; i < nc / 2; i++) {
        double t = s[i];
        s[i] = s[nc - 1 - i];
        s[nc - 1 - i] = t;
    }
    return SBW_OK;
}
