#!/usr/bin/python3
"""PyTorch reference for bench_lm.sh: the language model sbw-lm trains,
written the way a PyTorch user would, in float32 on torch.set_num_threads(2).

  embedding (M x E) -> LSTM layers (one nn.LSTM per layer, gates i f g o)
  -> latent h = tanh(P x + p0) (H_last -> D) -> head:
     softmax: logits = W h + b (W: M x D), cross-entropy;
     mos K:   pi = softmax(V h) (V: K x D), g_k = tanh(U_k h) (U_k: D x D),
              log Q = logsumexp_k(log pi_k + log_softmax(W g_k + b)),
              loss = -mean log Q[target].
Truncated BPTT over --bptt steps on --batch columns of the batchified PTB
training ids (hidden state carried and detached between chunks), SGD with
gradient-norm clipping and weight decay as sbw-lm's defaults, dropout off.
The vocabulary is ordered as sbw-lm orders it (frequency in train
descending, ties by first appearance); M = 10000 on PTB.

usage: ref_lm_torch.py --data DIR --head softmax|mos [--k K] --d D --emb E
                       --hidden LIST --batch B --bptt T --steps S [--head-only]
  --steps S      timed steps, after 2 warm-up steps
  --autocast     run forward and loss under torch.autocast("cpu",
                 dtype=torch.bfloat16): PyTorch's mixed precision, bfloat16
                 GEMMs with float32 master weights (the counterpart of
                 sbw-lm --precision bf16)
  --head-only    time only the head: forward + backward (dX and the
                 parameters' gradients) on a fixed (B*T x D) input and
                 random targets, no optimiser step, so that the head's GEMM
                 rate can be compared with the machine's sgemm peak
Prints one line of JSON.  Training: tokens_per_s (median over the timed
steps of B*T / step time), sec_per_step (median), loss (of the last step).
Head only: head_sec (median seconds of forward + backward), head_gflops
(the head's GEMM flops / head_sec), with the GEMM flops of one pass
  softmax: 6*N*D*M;  mos: 6*N*K*D*M + 6*N*K*D*D + 6*N*K*D   (N = B*T),
i.e. forward, dX and dW of every product (logits, U, V).
"""
import argparse
import collections
import json
import os
import time

import numpy as np
import torch

F = torch.nn.functional
WARMUP = 2


def read_ids(data):
    """Training ids (int64 tensor) and M, sbw-lm's vocabulary order."""
    path = os.path.join(data, "ptb.train.txt")
    if not os.path.exists(path):
        path = os.path.join(data, "train.txt")
    with open(path, encoding="utf-8") as f:
        words = [w for line in f for w in line.split() + ["<eos>"]]
    count = collections.Counter(words)
    first = {}
    for i, w in enumerate(words):
        first.setdefault(w, i)
    vocab = sorted(count, key=lambda w: (-count[w], first[w]))
    index = {w: i for i, w in enumerate(vocab)}
    return torch.tensor([index[w] for w in words], dtype=torch.int64), len(vocab)


class Head(torch.nn.Module):
    """Softmax or MoS head over D-dimensional latents; returns the mean NLL."""

    def __init__(self, kind, m, d, k):
        super().__init__()
        self.kind, self.k, self.d = kind, k, d
        self.W = torch.nn.Linear(d, m)  # W: M x D, bias b: M
        if kind == "mos":
            self.V = torch.nn.Linear(d, k, bias=False)  # K x D
            self.U = torch.nn.Linear(d, k * d, bias=False)  # U_k = rows k*D..k*D+D-1

    def forward(self, h, target):
        if self.kind == "softmax":
            return F.cross_entropy(self.W(h), target)
        n = h.shape[0]
        logpi = F.log_softmax(self.V(h), dim=1)  # N x K
        g = torch.tanh(self.U(h)).view(n, self.k, self.d)  # N x K x D
        lsm = F.log_softmax(self.W(g), dim=2)  # N x K x M
        picked = lsm.gather(2, target.view(n, 1, 1).expand(n, self.k, 1)).squeeze(2)
        return -torch.logsumexp(logpi + picked, dim=1).mean()

    def gemm_flops(self, n, m):
        if self.kind == "softmax":
            return 6.0 * n * self.d * m
        k, d = self.k, self.d
        return 6.0 * n * k * d * m + 6.0 * n * k * d * d + 6.0 * n * k * d


class LM(torch.nn.Module):
    def __init__(self, m, emb, hidden, d, head, k):
        super().__init__()
        self.emb = torch.nn.Embedding(m, emb)
        sizes = [emb] + hidden
        self.rnns = torch.nn.ModuleList(
            torch.nn.LSTM(sizes[i], sizes[i + 1]) for i in range(len(hidden)))
        self.latent = torch.nn.Linear(hidden[-1], d)  # P: D x H_last, p0: D
        self.head = Head(head, m, d, k)

    def forward(self, x, y, state):
        """x, y: T x B ids; state: one (h, c) per layer.  Mean NLL, new state."""
        out, new = self.emb(x), []
        for rnn, s in zip(self.rnns, state):
            out, s = rnn(out, s)
            new.append(s)
        h = torch.tanh(self.latent(out)).view(-1, self.head.d)
        return self.head(h, y.reshape(-1)), new


def median(v):
    return float(np.median(v))


def train(a, ids, m):
    hidden = [int(s) for s in a.hidden.split(",")]
    model = LM(m, a.emb, hidden, a.d, a.head, a.k)
    torch.nn.init.uniform_(model.emb.weight, -0.1, 0.1)  # the rest: PyTorch's defaults
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, weight_decay=a.wdecay)
    nb = ids.numel() // a.batch
    data = ids[: nb * a.batch].view(a.batch, nb).t().contiguous()  # rows: time
    need = (a.steps + WARMUP) * a.bptt + 1
    if need > nb:
        raise SystemExit(f"ref_lm_torch: {a.steps + WARMUP} steps need {need} rows, have {nb}")
    state = [(torch.zeros(1, a.batch, h), torch.zeros(1, a.batch, h)) for h in hidden]
    times, loss = [], float("nan")
    for step in range(a.steps + WARMUP):
        t0 = time.perf_counter()
        i = step * a.bptt
        x, y = data[i : i + a.bptt], data[i + 1 : i + 1 + a.bptt]
        state = [(h.detach(), c.detach()) for h, c in state]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.autocast):
            lossv, state = model(x, y, state)
        state = [(h.float(), c.float()) for h, c in state]
        lossv.backward()
        if a.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
        opt.step()
        loss = lossv.item()
        times.append(time.perf_counter() - t0)
    body = times[WARMUP:]
    tokens = a.batch * a.bptt
    return {"tokens_per_s": median([tokens / t for t in body]), "sec_per_step": median(body),
            "loss": loss}


def head_only(a, m):
    n = a.batch * a.bptt
    head = Head(a.head, m, a.d, a.k)
    gen = torch.Generator().manual_seed(a.seed)
    x = torch.tanh(torch.randn(n, a.d, generator=gen)).requires_grad_()
    target = torch.randint(0, m, (n,), generator=gen)
    times, loss = [], float("nan")
    for _ in range(a.steps + WARMUP):
        t0 = time.perf_counter()
        head.zero_grad(set_to_none=True)
        x.grad = None
        lossv = head(x, target)
        lossv.backward()
        loss = lossv.item()
        times.append(time.perf_counter() - t0)
    sec = median(times[WARMUP:])
    return {"head_sec": sec, "head_gflops": head.gemm_flops(n, m) / sec / 1e9,
            "gemm_flops": head.gemm_flops(n, m), "loss": loss}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--head", choices=["softmax", "mos"], default="softmax")
    ap.add_argument("--k", type=int, default=15)
    ap.add_argument("--d", type=int, default=400)
    ap.add_argument("--emb", type=int)
    ap.add_argument("--hidden", default="1150")
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--bptt", type=int, default=70)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--lr", type=float, default=20.0)
    ap.add_argument("--clip", type=float, default=0.25)
    ap.add_argument("--wdecay", type=float, default=1.2e-6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--head-only", action="store_true")
    ap.add_argument("--autocast", action="store_true")
    a = ap.parse_args()
    if a.emb is None:
        a.emb = a.d
    if a.head == "softmax":
        a.k = 1
    torch.set_num_threads(2)
    torch.manual_seed(a.seed)
    ids, m = read_ids(a.data)
    res = head_only(a, m) if a.head_only else train(a, ids, m)
    res.update({"head": a.head, "k": a.k, "d": a.d, "emb": a.emb, "hidden": a.hidden,
                "batch": a.batch, "bptt": a.bptt, "m": m, "steps": a.steps,
                "torch": torch.__version__, "autocast": a.autocast})
    print(json.dumps(res))


if __name__ == "__main__":
    main()
