"""Counts for bench_synth.sh, the same check on both sides' files: -inf
entries, NaN entries, and rows whose |logsumexp| exceeds 1e-8 (the file is
read in chunks through a memory map).

usage: synth_count.py FILE.npy   ->   "NEGINF NAN BADROWS"
"""
import sys

import numpy as np


def main():
    a = np.load(sys.argv[1], mmap_mode="r")
    neginf = nan = bad = 0
    for i in range(0, a.shape[0], 1000):
        x = np.asarray(a[i:i + 1000])
        neginf += int(np.isneginf(x).sum())
        nan += int(np.isnan(x).sum())
        mx = x.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            lse = (mx + np.log(np.exp(x - mx).sum(axis=1, keepdims=True))).ravel()
        bad += int((~(np.abs(lse) <= 1e-8)).sum())
    print(neginf, nan, bad)


if __name__ == "__main__":
    main()
