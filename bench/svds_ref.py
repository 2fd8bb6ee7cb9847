#!/usr/bin/python3
"""The SciPy reference for bench_rank_rand.sh: the top K singular values
the way a SciPy user gets them, scipy.sparse.linalg.svds (ARPACK's
implicitly restarted Lanczos on A^T A, its default solver, tol=0: to
machine precision) on the matrix as np.load returns it (float32 stays
float32, as svds then computes), without singular vectors.

  svds_ref.py IN.npy K OUT.txt

Writes the K values, descending, one per line.  (scikit-learn's
randomized_svd, the other reference a user might reach for, is not used:
scikit-learn is not installed with the bench's Debian packages.)
"""
import sys

import numpy as np
from scipy.sparse.linalg import svds


def main():
    path, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    a = np.load(path)
    s = svds(a, k=k, return_singular_vectors=False, random_state=1)
    np.savetxt(out, np.sort(s)[::-1], fmt="%.17g")


main()
