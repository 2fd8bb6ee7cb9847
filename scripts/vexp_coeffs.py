#!/usr/bin/env python3
"""Coefficients of the polynomials in core/sbw_vexp.h.

exp(r) = 1 + r P(r) on |r| <= ln2/2, P by Chebyshev interpolation of
(e^r - 1)/r in 50-digit arithmetic (mpmath, Debian's python3-mpmath; a
developer tool, not needed to build or test): degree 10 for sbw_vexp
(double), degree 5 for sbw_vexpf (float).  Prints the coefficients as C hex
literals, highest degree first, and the worst relative error of 1 + r P(r)
after rounding them to the working precision, over a fine grid, in ulps of
that precision.

    python3 scripts/vexp_coeffs.py
"""
import struct

import mpmath as mp

mp.mp.dps = 50
HALF_LN2 = mp.log(2) / 2


def expm1_over_r(r):
    return (mp.exp(r) - 1) / r if r != 0 else mp.mpf(1)


def to_float32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def fit(ncoef, rounding, bits):
    # a hair wider than the reduced range, so its ends are interpolated too
    span = [-HALF_LN2 * mp.mpf("1.001"), HALF_LN2 * mp.mpf("1.001")]
    coef = [rounding(c) for c in mp.chebyfit(expm1_over_r, span, ncoef)]
    worst = mp.mpf(0)
    for i in range(4001):
        r = -HALF_LN2 + 2 * HALF_LN2 * i / 4000
        p = mp.mpf(0)
        for c in coef:
            p = p * r + mp.mpf(c)
        worst = max(worst, abs((1 + r * p) / mp.exp(r) - 1))
    for c in coef:
        print("    " + c.hex())
    print("    worst relative error %s = %s ulp" % (mp.nstr(worst, 3), mp.nstr(worst * 2**bits, 3)))


def main():
    print("sbw_vexp (double, degree 10):")
    fit(11, float, 52)
    print("sbw_vexpf (float, degree 5):")
    fit(6, to_float32, 23)


if __name__ == "__main__":
    main()
