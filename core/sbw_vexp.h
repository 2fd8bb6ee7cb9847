/* sbw_vexp.h -- exp(x) in double (sbw_vexp) and float (sbw_vexpf) as
 * inline, branch-free code that GCC vectorises inside a caller's loop.
 *
 * Why not libm/libmvec: a loop that calls the vector exp() cannot keep
 * anything in vector registers across the call (the ABI makes them all
 * caller-saved), so a kernel that needs exp and several running sums has to
 * store exp's results and read them back in a second loop.  The pairwise-KL
 * pass is that kernel, and there the second loop and the call overhead cost
 * as much as exp itself.  With exp inline, one loop does it all (the
 * softmax fit's float loop likewise).
 *
 * Method (Cody & Waite, as in every libm): x = k ln2 + r with k = rint(x /
 * ln2), ln2 split in two so that k * LN2_HI is exact for |k| < 2^11, and
 * |r| <= ln2 / 2; exp(r) = 1 + r P(r), P of degree 10 fitted to (e^r - 1)/r
 * on that interval by Chebyshev interpolation in 50-digit arithmetic
 * (scripts/vexp_coeffs.py), whose error after rounding the coefficients to
 * double is below 0.1 ulp; then exp(x) = 2^k exp(r) with 2^k built in the
 * exponent field.
 *
 * Accuracy: within 2 ulp of glibc's exp while k >= -1022, i.e. for
 * x >= -1022.5 ln2 = -708.74 (the results there are normal, or subnormal
 * just under 2^-1022 and still correctly scaled); below that the result is
 * 0, an absolute error under DBL_MIN = 2.2e-308, which for
 * log-probabilities is a probability no sum can see.  x > 709 gives
 * exp(709), -inf gives 0.  tests/test_vexp.c checks all of it (1 ulp is the
 * worst it has met).  NaN in: the result is unspecified (under -ffast-math
 * the clamps need not stop it), so callers reject NaN themselves, as the
 * KL and compare kernels do from the bits (sbw_vexp_missing_exp).
 */
#ifndef SBW_VEXP_H
#define SBW_VEXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The exponent bits x lacks: 0 exactly when x is NaN or +-inf (all of them
 * set).  Read from the bits because the kernels are built with
 * -ffinite-math-only, under which isfinite() may be folded to true; a
 * min-reduction of it over a row is 0 iff the row holds a non-finite entry
 * (one andn and one min per vector). */
static inline uint64_t sbw_vexp_missing_exp(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return ~u & ((uint64_t)0x7ff << 52);
}

/* 2^n for -1022 <= n <= 1023, by building the exponent field, and 0 for
 * n = -1023 (a zero exponent field). */
static inline double sbw_vexp_pow2(int64_t n)
{
    uint64_t bits = (uint64_t)(n + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

#pragma omp declare simd notinbranch
static inline double sbw_vexp(double x)
{
    x = x > -746.0 ? x : -746.0; /* keeps the conversion below in range */
    x = x < 709.0 ? x : 709.0;
    double k = rint(x * 0x1.71547652b82fep0);    /* x / ln 2 */
    double r = fma(-k, 0x1.62e42fee00000p-1, x); /* ln2, high 32 bits */
    r = fma(-k, 0x1.a39ef35793c76p-33, r);       /* ln2 - high part */
    double q = 0x1.af4e554377204p-26;            /* P(r), from r^10 down */
    q = fma(q, r, 0x1.28a321f9f0475p-22);
    q = fma(q, r, 0x1.71de01fdbf9cap-19);
    q = fma(q, r, 0x1.a019a60cd99d3p-16);
    q = fma(q, r, 0x1.a01a01abf85abp-13);
    q = fma(q, r, 0x1.6c16c17f6130bp-10);
    q = fma(q, r, 0x1.11111111100bep-7);
    q = fma(q, r, 0x1.5555555552043p-5);
    q = fma(q, r, 0x1.5555555555557p-3);
    q = fma(q, r, 0x1.0000000000005p-1);
    q = fma(q, r, 1.0);
    q = fma(q, r, 1.0); /* 1 + r P(r) */
    int64_t n = (int64_t)k;
    return q * sbw_vexp_pow2(n < -1023 ? -1023 : n); /* 2^-1023 is built as 0 */
}

/* 2^n for -126 <= n <= 127, and 0 for n = -127 (a zero exponent field). */
static inline float sbw_vexpf_pow2(int32_t n)
{
    uint32_t bits = (uint32_t)(n + 127) << 23;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* expf(x) in single precision, the same method with a degree-5 P (6
 * coefficients, error after rounding to float under 0.1 ulp): within 2 ulp of
 * the correctly rounded value for k >= -126 (x >= -87.68), 0 below (an
 * absolute error under FLT_MIN), expf(88) above 88; NaN as for sbw_vexp.
 * Not monotone to the last ulp. */
#pragma omp declare simd notinbranch
static inline float sbw_vexpf(float x)
{
    x = x > -104.0f ? x : -104.0f;
    x = x < 88.0f ? x : 88.0f;
    float k = rintf(x * 0x1.715476p0f);    /* x / ln 2 */
    float r = fmaf(-k, 0x1.62e400p-1f, x); /* ln2, high 16 bits */
    r = fmaf(-k, 0x1.7f7d1cp-20f, r);      /* ln2 - high part */
    float q = 0x1.6d43b0p-10f;             /* P(r), from r^5 down */
    q = fmaf(q, r, 0x1.123e1cp-7f);
    q = fmaf(q, r, 0x1.5554e8p-5f);
    q = fmaf(q, r, 0x1.55547cp-3f);
    q = fmaf(q, r, 0.5f);
    q = fmaf(q, r, 1.0f);
    q = fmaf(q, r, 1.0f); /* 1 + r P(r) */
    int32_t n = (int32_t)k;
    return q * sbw_vexpf_pow2(n < -127 ? -127 : n);
}

#endif
