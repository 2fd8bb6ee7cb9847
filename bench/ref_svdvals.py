#!/usr/bin/python3
"""The reference for bench_rank.sh: what a NumPy/SciPy user runs to get
the singular values of a saved matrix.

  ref_svdvals.py IN.npy OUT.npy

np.load + scipy.linalg.svdvals (LAPACK gesdd, values only, same OpenBLAS
as sbw), then np.save of the values for the agreement check.
"""
import sys

import numpy as np
import scipy.linalg

a = np.load(sys.argv[1])
np.save(sys.argv[2], scipy.linalg.svdvals(a))
