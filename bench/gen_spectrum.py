#!/usr/bin/python3
"""Streams an N x M float32 matrix of KNOWN singular values into a .npy
file, row block by row block (memory: a few blocks, never the matrix), for
bench_rank_big.sh.

  gen_spectrum.py ROWS COLS OUT.npy SIGMA.txt

A = U diag(s) V^T with s_j = 1 / (j + 1), j < D = min(N, M) (a power law
over the whole spectrum: the slow decay of log-probability matrices), U
the first D columns of the orthonormal DCT-II matrix of order N transposed
(U[i, j] = C_N[j, i]) and V likewise of order M.  Both have orthonormal
columns, so the singular values of A are s exactly.  Row i of A is
C_M^T (s o C_N[:D, i]) padded with zeros: two fast transforms per row
(scipy.fft), about N M log M flops in all instead of the 2 N D M of a
product of random factors -- a minute or two for 50,000 x 50,000.
A Gaussian range finder's results depend only on s, not on U and V (its
test matrix's law is invariant under rotations), so a DCT basis tests the
randomized method as well as random factors would.  Each row and each
column is multiplied by a random sign (seeded: the file is reproducible),
which keeps U and V orthonormal and spreads the DCT's constant vector, so
that the row and column means are small as in a random matrix rather than
holding s_0^2 of ||A||_F^2.

The file holds A rounded to float32, whose singular values differ from s
by at most ||fl(A) - A||_2 <= ||fl(A) - A||_F = delta (Weyl), summed in
float64 in the same pass; the transforms' own float64 rounding (relative
1e-15) is allowed for by adding 1e-12 ||A||_F.  SIGMA.txt gets, once
the matrix is written, a line "# delta=DELTA" and s_j, one per line,
j < D.  The .npy is written with
plain writes after numpy's header (not through a memory map, whose dirty
pages would count in this process's RSS).
"""
import sys

import numpy as np
import scipy.fft

BLOCK_BYTES = 32 << 20  # float64 bytes of one block of rows


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: gen_spectrum.py ROWS COLS OUT.npy SIGMA.txt")
    rows, cols, out, sig = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    if rows < 1 or cols < 1:
        sys.exit("gen_spectrum: ROWS and COLS must be positive")
    d = min(rows, cols)
    s = 1.0 / np.arange(1, d + 1)
    block = max(1, BLOCK_BYTES // (8 * max(rows, cols)))
    rng = np.random.default_rng(1)
    rsign = rng.choice([-1.0, 1.0], size=rows)
    csign = rng.choice([-1.0, 1.0], size=cols)
    delta2 = 0.0
    with open(out, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<f4", "fortran_order": False, "shape": (rows, cols)})
        for r0 in range(0, rows, block):
            n = min(block, rows - r0)
            e = np.zeros((n, rows))
            e[np.arange(n), r0 + np.arange(n)] = 1.0
            u = scipy.fft.dct(e, type=2, norm="ortho", axis=1, workers=-1)  # C_N[:, i]
            y = np.zeros((n, cols))
            y[:, :d] = u[:, :d] * s
            y *= rsign[r0:r0 + n, None]
            x = scipy.fft.idct(y, type=2, norm="ortho", axis=1, workers=-1)  # C_M^T y
            x *= csign
            x32 = x.astype("<f4")
            delta2 += float(np.sum((x32 - x) ** 2))
            f.write(x32.tobytes())
    fro = float(np.sqrt(np.sum(s * s)))
    delta = np.sqrt(delta2) + 1e-12 * fro
    np.savetxt(sig, s, fmt="%.17g", header="delta=%.17g" % delta, comments="# ")


main()
