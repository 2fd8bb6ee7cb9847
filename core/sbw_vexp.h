/* sbw_vexp.h -- exp(x) in double as inline, branch-free code that GCC
 * vectorises inside a caller's loop.
 *
 * Why not libm/libmvec: a loop that calls the vector exp() cannot keep
 * anything in vector registers across the call (the ABI makes them all
 * caller-saved), so a kernel that needs exp and several running sums has to
 * store exp's results and read them back in a second loop.  The pairwise-KL
 * pass is that kernel, and there the second loop and the call overhead cost
 * as much as exp itself.  With exp inline, one loop does it all.
 *
 * Method (Cody & Waite, as in every libm): x = k ln2 + r with k = rint(x /
 * ln2), ln2 split in two so that k * LN2_HI is exact for |k| < 2^11, and
 * |r| <= ln2 / 2; exp(r) = 1 + r P(r), P of degree 10 fitted to (e^r - 1)/r
 * on that interval by Chebyshev interpolation in 50-digit arithmetic
 * (scripts/vexp_coeffs.py), whose error after rounding the coefficients to
 * double is below 0.1 ulp; then exp(x) = 2^k exp(r) with 2^k built in the
 * exponent field.
 *
 * Accuracy: within 2 ulp of glibc's exp wherever exp(x) >= 2^-1022 (normal
 * and the top of the subnormal range: x >= -708.7); below that (k < -1022)
 * the result is 0, an absolute error under 2.3e-308, which for
 * log-probabilities is a probability no sum can see.  x > 709 gives
 * exp(709).  tests/test_vexp.c checks all of it.  NaN in gives a number
 * out: callers test finiteness themselves.
 */
#ifndef SBW_VEXP_H
#define SBW_VEXP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* 2^n for -1022 <= n <= 1023, by building the exponent field. */
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
    x = x > -746.0 ? x : -746.0; /* also NaN: keeps the conversion below defined */
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
    double y = q * sbw_vexp_pow2((int64_t)k);
    return k < -1022.0 ? 0.0 : y;
}

#endif
