#!/usr/bin/python3
"""A random Softmax head for bench_argmax.sh: W (M x D) with entries
N(0, 1/D) and, when B_OUT is given, a bias b ~ N(0, 1).

  gen_head.py M D SEED W_OUT [B_OUT]
"""
import sys

import numpy as np


def main():
    m, d, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(seed)
    np.save(sys.argv[4], rng.normal(scale=d ** -0.5, size=(m, d)))
    if len(sys.argv) > 5:
        np.save(sys.argv[5], rng.normal(size=m))


if __name__ == "__main__":
    main()
