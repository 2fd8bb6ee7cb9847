#!/usr/bin/python3
"""The NumPy reference for bench_rank_rand.sh: the same randomized range
finder a NumPy user writes (Halko, Martinsson and Tropp 2011, Algorithm
4.4 with re-orthonormalisation, then Algorithm 5.1), no SciPy or
scikit-learn, on the matrix loaded whole and promoted to float64.

  rsvd_ref.py IN.npy K P Q OUT.txt

Writes the top K singular values of B = Q^T A, one per line.
"""
import sys

import numpy as np


def main():
    path, k, p, q, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        int(sys.argv[4]), sys.argv[5]
    a = np.load(path).astype(np.float64)
    l = min(k + p, min(a.shape))
    omega = np.random.default_rng(1).standard_normal((a.shape[1], l))
    y, _ = np.linalg.qr(a @ omega)
    for _ in range(q):
        z, _ = np.linalg.qr(a.T @ y)
        y, _ = np.linalg.qr(a @ z)
    s = np.linalg.svd(y.T @ a, compute_uv=False)
    np.savetxt(out, s[:k], fmt="%.17g")


main()
