"""NumPy reference for bench_synth.sh: N Dirichlet(alpha) rows over M words
with numpy.random.Generator.dirichlet, then np.log and np.save -- what a
NumPy user writes to get the same log-probability matrix as sbw-synth.

usage: synth_ref.py N M ALPHA SEED OUT.npy
"""
import sys

import numpy as np


def main():
    n, m, alpha, seed, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(m, alpha), size=n)
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    np.save(out, logp)


if __name__ == "__main__":
    main()
