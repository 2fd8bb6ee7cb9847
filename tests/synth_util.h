/* synth_util.h -- what the suites of synth/ share (header-only, static):
 * a long-double logsumexp oracle, byte equality of matrices, finiteness,
 * and parameters of a small generator run. */
#ifndef SYNTH_UTIL_H
#define SYNTH_UTIL_H

#include "sbw_test.h"

#include "sbw_synth.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const double EPS = DBL_EPSILON;

/* logsumexp in long double: an oracle whose own error is far below eps. */
static inline long double lse_accurate_l(const double *x, size_t n)
{
    long double mx = -INFINITY, s = 0;
    for (size_t j = 0; j < n; j++)
        mx = x[j] > mx ? x[j] : mx;
    for (size_t j = 0; j < n; j++)
        s += expl((long double)x[j] - mx);
    /* s >= 1 for n >= 1: the maximum contributes expl(0) */
    // cppcheck-suppress invalidFunctionArg
    return mx + logl(s);
}

static inline double lse_accurate(const double *x, size_t n)
{
    return (double)lse_accurate_l(x, n);
}

static inline double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t j = 0; j < n; j++)
        m = fabs(x[j]) > m ? fabs(x[j]) : m;
    return m;
}

static inline bool all_finite(const sbw_mat *a)
{
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++)
            if (!isfinite(SBW_MAT_AT(a, i, j)))
                return false;
    return true;
}

static inline bool same_bytes(const sbw_mat *a, const sbw_mat *b)
{
    if (a->rows != b->rows || a->cols != b->cols)
        return false;
    for (size_t i = 0; i < a->rows; i++)
        if (memcmp(a->data + i * a->ld, b->data + i * b->ld, a->cols * sizeof(double)) != 0)
            return false;
    return true;
}

static inline sbw_synth_params params(sbw_synth_kind kind, size_t n, size_t m, uint64_t seed)
{
    sbw_synth_params p;
    sbw_synth_params_init(&p, kind, n, m);
    p.seed = seed;
    p.rank = 3;
    p.k = 4;
    return p;
}

#endif
