#!/usr/bin/python3
"""The obvious alternative to sbw-argmax --truncation: the basis-aware
truncation program of Finlayson et al. 2024 (their code states it in
cvxpy) as one SciPy linprog (HiGHS) per (context, token), a feasibility
problem:

    find q  with  W^T q = W^T phat,  1^T q = 1^T phat,  q_i = 0,
                  0 <= q_j <= sigma phat_j          (sigma = inf: q >= 0)

Token i may be zero (keep 0) when HiGHS finds q, must be kept (keep 1)
when it reports the program infeasible; anything else stops the run.

  trunc_ref.py gen M D N SEED W_OUT LOGP_OUT
      a head W (M x D, entries N(0, 1/D)) and N outputs log softmax(W h),
      h ~ N(0, 4 I) (peaked rows, as a trained model's)
  trunc_ref.py W.npy LOGP.npy SIGMA TOKENS OUT.tsv   (TOKENS: 0,5,17,...)

OUT: context token keep seconds (the linprog call alone).
"""
import sys
import time

import numpy as np
from scipy.optimize import linprog


def gen(m, d, n, seed, w_out, l_out):
    rng = np.random.default_rng(seed)
    w = rng.normal(scale=d ** -0.5, size=(m, d))
    z = rng.normal(scale=2.0, size=(n, d)) @ w.T
    z -= z.max(axis=1, keepdims=True)
    l = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    np.save(w_out, w)
    np.save(l_out, l)


def main():
    if sys.argv[1] == "gen":
        a = sys.argv[2:]
        gen(int(a[0]), int(a[1]), int(a[2]), int(a[3]), a[4], a[5])
        return
    w = np.load(sys.argv[1]).astype(np.float64)
    logp = np.load(sys.argv[2]).astype(np.float64)
    sigma = float(sys.argv[3])
    tokens = [int(x) for x in sys.argv[4].split(",")]
    m, d = w.shape
    a_eq = np.vstack([w.T, np.ones((1, m))])
    c = np.zeros(m)
    with open(sys.argv[5], "w") as out:
        out.write("context\ttoken\tkeep\tseconds\n")
        for ctx in range(logp.shape[0]):
            p = np.exp(logp[ctx])
            rhs = a_eq @ p
            for i in tokens:
                bounds = np.zeros((m, 2))
                bounds[:, 1] = np.inf if np.isinf(sigma) else sigma * p
                bounds[i, 1] = 0.0
                t0 = time.perf_counter()
                r = linprog(c, A_eq=a_eq, b_eq=rhs, bounds=bounds, method="highs")
                dt = time.perf_counter() - t0
                if r.status not in (0, 2):
                    raise SystemExit("context %d token %d: linprog status %d (%s)"
                                     % (ctx, i, r.status, r.message))
                out.write("%d\t%d\t%d\t%.6f\n" % (ctx, i, int(r.status == 2), dt))
                out.flush()


if __name__ == "__main__":
    main()
