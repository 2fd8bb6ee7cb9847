#!/usr/bin/python3
"""PyTorch reference for bench_fit.sh: the same head, loss, Adam and initial
parameters as sbw-fit, with autograd for the gradients, in float32 on
torch.set_num_threads(2).

usage: ref_fit_torch.py LOGP.npy INIT_DIR MODEL K STEPS LR
  LOGP.npy  the language, log P* (N x M)
  INIT_DIR  parameters written by `sbw-fit --steps 0 --save INIT_DIR` (so both
            sides start from identical values: H, W, and U, V or lms_*)
  MODEL     softmax, mos or lms (no bias, no --linear)
Prints one line of JSON: seconds per Adam step (median over steps after two
warm-up steps), the training loss of the last step, and the mean KL(P*||Q)
of the final parameters computed in float64.
"""
import json
import sys
import time

import numpy as np
import torch

F = torch.nn.functional


def load(d, name):
    return torch.from_numpy(np.load(f"{d}/{name}.npy").astype(np.float32))


def log_q(model, p, k):
    """log Q (N x M) of the head, as sbw-fit defines it (sbw_head.h)."""
    H, W = p["H"], p["W"]
    if model == "softmax":
        return F.log_softmax(H @ W.T, dim=1)
    if model == "mos":
        d = H.shape[1]
        U = p["U"].reshape(k, d, d)                      # U_k rows k*D..k*D+D-1
        logpi = F.log_softmax(H @ p["V"].T, dim=1)        # N x K
        G = torch.tanh(torch.einsum("kij,nj->nki", U, H))  # N x K x D
        lq = F.log_softmax(G @ W.T, dim=2)                # N x K x M
        return torch.logsumexp(lq + logpi[:, :, None], dim=1)
    if model == "lms":
        z = H @ W.T                                        # N x M
        u, v = F.softplus(p["lms_u_raw"]), F.softplus(p["lms_v_raw"])
        f = (torch.sigmoid(z[:, :, None] * u + p["lms_c"]) * v).sum(dim=2)
        return F.log_softmax(f, dim=1)
    raise SystemExit(f"unknown model {model}")


def main():
    path, init, model, k, steps, lr = sys.argv[1:7]
    k, steps, lr = int(k), int(steps), float(lr)
    torch.set_num_threads(2)
    logp = np.load(path)
    P = torch.from_numpy(np.exp(logp).astype(np.float32))
    names = {"softmax": ["H", "W"], "mos": ["H", "W", "U", "V"],
             "lms": ["H", "W", "lms_u_raw", "lms_v_raw", "lms_c"]}[model]
    p = {n: load(init, n).requires_grad_() for n in names}
    opt = torch.optim.Adam(p.values(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    times, loss = [], float("nan")
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        lossv = -(P * log_q(model, p, k)).sum(dim=1).mean()
        lossv.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        loss = lossv.item()
    with torch.no_grad():
        p64 = {n: t.detach().double() for n, t in p.items()}
        lq = log_q(model, p64, k).numpy()
    kl = float(np.mean(np.sum(np.exp(logp) * (logp - lq), axis=1)))
    body = times[2:] if len(times) > 2 else times
    print(json.dumps({"sec_per_step": float(np.median(body)), "loss": loss, "kl": kl,
                      "steps": steps, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
