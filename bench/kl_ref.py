#!/usr/bin/python3
"""NumPy side of bench/bench_kl.sh.

  kl_ref.py make OUT.npy T M ALPHA SEED   log-Dirichlet(ALPHA) rows, float64
  kl_ref.py makeq P.npy OUT.npy SIGMA SEED  a model Q: log P + noise, renormalised
  kl_ref.py sampled P.npy S SEED          the MoS paper's sampled estimator of the
                                          expected pairwise KL (S ordered pairs
                                          c != c'); prints "mean se"
  kl_ref.py compare P.npy Q.npy           mean KL(P||Q) and mode-match rate
"""
import sys
import numpy as np


def header(f, t, m):
    np.lib.format.write_array_header_1_0(
        f, {"descr": "<f8", "fortran_order": False, "shape": (t, m)})


def lognorm(a):
    a -= a.max(axis=1, keepdims=True)
    a -= np.log(np.exp(a).sum(axis=1, keepdims=True))
    return a


def make(out, t, m, alpha, seed):
    rng = np.random.default_rng(seed)
    with open(out, "wb") as f:
        header(f, t, m)
        for i in range(0, t, 1000):
            n = min(1000, t - i)
            g = np.log(rng.gamma(alpha + 1.0, size=(n, m))) + np.log(rng.random((n, m))) / alpha
            f.write(lognorm(g).astype("<f8").tobytes())


def makeq(src, out, sigma, seed):
    rng = np.random.default_rng(seed)
    p = np.load(src, mmap_mode="r")
    t, m = p.shape
    with open(out, "wb") as f:
        header(f, t, m)
        for i in range(0, t, 1000):
            q = np.array(p[i:i + 1000]) + sigma * rng.standard_normal((min(1000, t - i), m))
            f.write(lognorm(q).astype("<f8").tobytes())


def sampled(path, s, seed):
    logp = np.load(path)
    t = logp.shape[0]
    rng = np.random.default_rng(seed)
    a = rng.integers(0, t, s)
    b = rng.integers(0, t - 1, s)
    b += b >= a
    kl = np.empty(s)
    for k in range(0, s, 1000):
        la, lb = logp[a[k:k + 1000]], logp[b[k:k + 1000]]
        kl[k:k + 1000] = (np.exp(la) * (la - lb)).sum(axis=1)
    print("%.17g %.17g" % (kl.mean(), kl.std(ddof=1) / np.sqrt(s)))


def compare(pp, qp):
    p, q = np.load(pp, mmap_mode="r"), np.load(qp, mmap_mode="r")
    kl, match = 0.0, 0
    for i in range(0, p.shape[0], 1000):
        lp, lq = np.array(p[i:i + 1000]), np.array(q[i:i + 1000])
        kl += (np.exp(lp) * (lp - lq)).sum()
        match += int((lp.argmax(axis=1) == lq.argmax(axis=1)).sum())
    print("%.17g %.17g" % (kl / p.shape[0], match / p.shape[0]))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "make":
        make(args[0], int(args[1]), int(args[2]), float(args[3]), int(args[4]))
    elif cmd == "makeq":
        makeq(args[0], args[1], float(args[2]), int(args[3]))
    elif cmd == "sampled":
        sampled(args[0], int(args[1]), int(args[2]))
    elif cmd == "compare":
        compare(args[0], args[1])
    else:
        sys.exit("unknown command " + cmd)
