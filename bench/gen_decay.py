#!/usr/bin/python3
"""Streams an N x M matrix with a decaying spectrum into a .npy file
block by block (memory: one block and the factors), for bench_rank_rand.sh.

  gen_decay.py ROWS COLS DTYPE SEED OUT

A = H diag(d) W^T / sqrt(M) + 1e-3 G: H (N x D) and W (M x D) standard
Gaussian, D = min(N, M, 2000) components with d_j = (j + 1)^-1 (a power
law, the slow decay of log-probability spectra), plus a full-rank Gaussian
noise floor G.  DTYPE is f4 or f8.  Rows come from seeds (SEED, block), so
the file does not depend on the block size.
"""
import sys

import numpy as np

BLOCK = 1024


def main():
    rows, cols, dt, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], \
        int(sys.argv[4]), sys.argv[5]
    if dt not in ("f4", "f8"):
        sys.exit("gen_decay: DTYPE is f4 or f8")
    d = min(rows, cols, 2000)
    w = np.random.default_rng([seed, 1 << 40]).standard_normal((cols, d))
    w *= (1.0 / np.arange(1, d + 1)) / np.sqrt(cols)
    with open(out, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "<" + dt, "fortran_order": False, "shape": (rows, cols)})
        for b, r0 in enumerate(range(0, rows, BLOCK)):
            n = min(BLOCK, rows - r0)
            rng = np.random.default_rng([seed, b])
            x = rng.standard_normal((n, d)) @ w.T + 1e-3 * rng.standard_normal((n, cols))
            f.write(np.ascontiguousarray(x, dtype="<" + dt).tobytes())


main()
