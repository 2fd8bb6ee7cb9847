#!/usr/bin/python3
"""Streams a log-probability matrix of any size into a .npy file (or '-'
for stdout) block by block, so a 6.6 GB matrix needs ~100 MB of memory.

  gen_matrix.py ROWS COLS KIND SEED OUT

KIND is 'full' (log-softmax of N(0, 2^2) logits: full rank, like a
Dirichlet language) or 'lowrank:D' (log-softmax of H W^T with H ~ N(0, 1)
and W ~ N(0, 1/D) of inner dimension D: rank D + 1, row-centred rank D --
what a Softmax language model with embedding size D produces).  Rows are
generated per block from seeds (SEED, block), so the output is the same
whatever the block size.
"""
import sys

import numpy as np

BLOCK = 1024


def log_softmax(x):
    x -= x.max(axis=1, keepdims=True)
    x -= np.log(np.exp(x).sum(axis=1, keepdims=True))
    return x


def main():
    rows, cols, kind, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], \
        int(sys.argv[4]), sys.argv[5]
    w = None
    if kind.startswith("lowrank:"):
        d = int(kind.split(":")[1])
        w = np.random.default_rng([seed, 1 << 40]).standard_normal((cols, d)) / np.sqrt(d)
    elif kind != "full":
        sys.exit("gen_matrix: KIND is full or lowrank:D")
    f = sys.stdout.buffer if out == "-" else open(out, "wb")
    np.lib.format.write_array_header_1_0(
        f, {"descr": "<f8", "fortran_order": False, "shape": (rows, cols)})
    for b, r0 in enumerate(range(0, rows, BLOCK)):
        n = min(BLOCK, rows - r0)
        rng = np.random.default_rng([seed, b])
        if w is None:
            x = 2.0 * rng.standard_normal((n, cols))
        else:
            x = rng.standard_normal((n, w.shape[1])) @ w.T
        f.write(np.ascontiguousarray(log_softmax(x), dtype="<f8").tobytes())
    f.flush()
    if f is not sys.stdout.buffer:
        f.close()


main()
