#!/usr/bin/python3
"""The obvious alternative to sbw-argmax: one SciPy linprog (HiGHS) per
word over all M - 1 rivals, the convex-combination LP of Grivas et al.
2022 (their code solves it with Gurobi from Python), with the slacks
sbw-argmax uses so that it is always feasible (the plain feasibility form,
infeasible for every vertex, made HiGHS stop with "model_status is
Unknown" after two minutes on the first word of the PTB-sized head):

    minimise   sum_k (p_k + q_k) + u
    subject to sum_j lambda_j w_j + p - q = w_i,  sum_j lambda_j = 1,
               sum_j lambda_j b_j + u >= b_i      (bias only),
               lambda, p, q, u >= 0,  lambda_i = 0.

Word i is strictly argmaxable iff the optimum is > 0 (1e-9 relative to
max |W| + max |b|, the tolerance sbw-argmax's lambda certificates use).
The constraint matrix is built once; each word changes the right-hand
side and fixes lambda_i = 0 with its bounds.

  argmax_ref.py W.npy B.npy|- WORDS OUT.tsv     (WORDS: 0,5,17,...)

OUT: word argmaxable seconds (the linprog call alone), one line per word.
"""
import sys
import time

import numpy as np
from scipy.optimize import linprog


def main():
    w = np.load(sys.argv[1]).astype(np.float64)
    b = None if sys.argv[2] == "-" else np.load(sys.argv[2]).astype(np.float64).ravel()
    words = [int(x) for x in sys.argv[3].split(",")]
    m, d = w.shape
    nb = 0 if b is None else 1
    a_eq = np.zeros((d + 1, m + 2 * d + nb))
    a_eq[:d, :m] = w.T
    a_eq[:d, m:m + d] = np.eye(d)
    a_eq[:d, m + d:m + 2 * d] = -np.eye(d)
    a_eq[d, :m] = 1.0
    a_ub = None
    if b is not None:
        a_ub = np.zeros((1, m + 2 * d + 1))
        a_ub[0, :m] = -b
        a_ub[0, -1] = -1.0
    c = np.concatenate([np.zeros(m), np.ones(2 * d + nb)])
    tol = 1e-9 * (np.abs(w).max() + (0 if b is None else np.abs(b).max()))
    with open(sys.argv[4], "w") as out:
        out.write("word\targmaxable\tseconds\n")
        for i in words:
            bounds = np.zeros((m + 2 * d + nb, 2))
            bounds[:, 1] = np.inf
            bounds[i, 1] = 0.0
            rhs = np.append(w[i], 1.0)
            t0 = time.perf_counter()
            b_ub = None if b is None else np.array([-b[i]])
            r = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=rhs, bounds=bounds,
                        method="highs")
            dt = time.perf_counter() - t0
            if r.status == 0:
                ok = int(r.fun > tol)
            else:
                raise SystemExit("word %d: linprog status %d (%s)" % (i, r.status, r.message))
            out.write("%d\t%d\t%.6f\n" % (i, ok, dt))
            out.flush()


if __name__ == "__main__":
    main()
