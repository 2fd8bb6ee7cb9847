"""sbw -- the Softmax Bottleneck Workbench from Python, on NumPy arrays.

Every function here runs the same libsbw code as the command-line tool it
names, on an array already in memory: the array is handed to libsbw
without a copy (float64 or float32, C order; anything else is copied to
float64 first), read by the tool's own reader and checker, and the numbers
come back as plain Python values, dicts and NumPy arrays.  Nothing is
computed in Python.

    import sbw
    sbw.rank(logq)["rank"]                      # sbw-rank logq.npy
    sbw.rank(logq, center=True, measures=True)  # sbw-rank --center --measures
    sbw.spectrum(logq, center=True)             # sbw-rank --spectrum FILE
    sbw.pairwise_kl(logp)                       # sbw-kl
    sbw.compare(logp, logq)                     # sbw-compare
    sbw.bound(logp, d=[8, 16, 32])              # sbw-bound --d 8,16,32
    sbw.argmax(W, bias=b)                       # sbw-argmax W.npy --bias b.npy

Matrices are N x M: rows are contexts, columns words, entries natural-log
probabilities (log-softmax outputs).  Export them in float64, with the
log-softmax recomputed in double (torch.log_softmax(logits.double(), -1)):
a float32 matrix carries float32 rounding in every entry, and its rank is
then decided at float32's eps (sbw.rank says so: eps_source).

What the tool would print as "# warning=CODE: ..." arrives as a Python
warning of class sbw.Warning with the same text; what it would refuse
("sbw-kl: logp: row 3 is not normalised ...", exit 1) raises sbw.Error
whose str() is the same line without the tool's name.  Each function
takes name=, the word used for the array in those messages (as a tool
names the file).

The library is found from $SBW_LIB, the install prefix the module sits
under, the build tree (make shared), or the dynamic linker, in that order
(sbw.LIB_PATH says which).  docs/python.md is the guide.
"""
import ctypes as C

import numpy as np

from . import _lib
from ._lib import Error, Warning, LIB_PATH  # noqa: F401 (public names)

__all__ = ["rank", "spectrum", "pairwise_kl", "compare", "bound", "argmax", "Error",
           "Warning", "LIB_PATH"]

_fn = _lib.fn
_s = _lib.s

# enum sbw_reduce_variant (sbw_reduce.h): none, rows, cols, both
_PLAIN, _ROWS, _BOTH = 0, 1, 3
_LOGP_TOL = 1e-6  # SBW_LOGP_TOL (sbw_logp.h): every tool's --tol default


def _variant(center, bias):
    return _BOTH if bias else _ROWS if center else _PLAIN


def _dptr(a):
    return a.ctypes.data_as(_lib.dptr)


def _spectra(a, name, center, bias, exp, single, method, eps, atol, measures):
    """sbw-rank's reading and analysis (sbw_spectra_rank_file): the
    singular values and the result struct."""
    a = _lib.as_input(a)
    s = np.empty(min(a.shape) if a.ndim == 2 else 1, dtype=np.float64)
    res = _lib.SpectraRankRes()
    with _lib._lock, _lib.Registered((name, a)):
        _lib.run(_fn["spectra_rank_file"], name.encode(), _variant(center, bias), exp, single,
                 method.encode(), str(eps).encode(), float(atol), measures, _dptr(s), s.size,
                 C.byref(res))
    return s, res


def rank(logq, center=False, bias=False, measures=False, exp=False, eps="auto", atol=0.0,
         single=False, method="auto", name="logq"):
    """The numerical rank of logq (N x M), as sbw-rank prints it.

    The rank counts singular values above tsh = 0.5 sqrt(m+n+1) w0 eps
    (Numerical Recipes, the rule of the MoS paper's Tables 6/7); eps is the
    data's roundoff ("auto": float32's for a float32 array, float64's
    otherwise; or "double", "single", a number).  Beside it NumPy's rule
    (rank_numpy) and the largest gap (rank_gap).

    center=True analyses logq (I - 11^T/M), the rows centred: its rank is
    the smallest embedding size d at which a Softmax head reproduces logq
    exactly (MoS Proposition 1; d* = rank, a head of size d has rank <= d+1
    uncentred).  bias=True centres columns too (heads with a word bias).
    exp=True analyses P = exp(logq).

    Returns a dict with the tool's columns: rank, m, n, dtype, precision,
    eps, tsh, w0, w_min, rank_numpy, numpy_tol, rank_gap, gap_decades,
    rank_single; and eps_source, matrix (which variant), w0_uncentred,
    w0_threshold (the scale the thresholds multiply).  measures=True adds
    "measures": {name: {"rank", "threshold", "on", "rule"}} for every
    named measure (nr, numpy, pytorch with atol, julia, gap, eps_eff_1e-3
    /-4/-5, stable, entropy), as sbw-rank --measures.

    A cut within 1% of a singular value warns (sbw.Warning
    "rank_near_threshold: ..."), as does a float64 array holding only
    float32 values ("float32_values"): the rank then hangs on rounding.
    """
    s, r = _spectra(logq, name, center, bias, exp, single, method, eps, atol, measures)
    e = r.est
    out = {"rank": e.rank, "m": e.m, "n": e.n, "dtype": _lib.DTYPE_NAMES[r.dtype],
           "precision": _lib.DTYPE_NAMES[r.prec], "eps": e.eps, "tsh": e.tsh, "w0": e.w0,
           "w_min": e.wmin, "rank_numpy": e.rank_numpy, "numpy_tol": e.numpy_tol,
           "rank_gap": e.rank_gap, "gap_decades": e.gap_log10, "rank_single": e.rank_single,
           "eps_source": _s(r.eps_source),
           "center": _s(_fn["reduce_variant_name"](_variant(center, bias))),
           "w0_analysed": e.w0, "w0_uncentred": r.w0_uncentred, "w0_threshold": e.scale}
    if measures:
        out["measures"] = {_s(m.name): {"rank": m.rank, "threshold": m.threshold,
                                        "on": _s(m.on), "rule": _s(m.rule)} for m in r.ms}
    return out


def spectrum(logq, center=False, bias=False, exp=False, norm="max", single=False,
             method="auto", name="logq"):
    """The singular values of logq (or of its centred variant, as rank's
    center and bias) and MoS Figure 1's normalised view, as sbw-rank
    --spectrum writes them: a dict of NumPy arrays index, sigma, sigma_rel
    (sigma / sigma_0), log10_sigma (nan for an exact 0), normalised (in
    [0, 1]: norm="max" sigma/sigma_0, "minmax" (sigma - sigma_min) /
    (sigma_0 - sigma_min)) and cum_pct (the percentage of normalised
    values <= it: plot cum_pct against normalised for Figure 1), and
    "normalisation", the rule's label.  Warnings as rank's."""
    nv = C.c_int()
    with _lib._lock:
        _lib.run(_fn["rank_norm_parse"], str(norm).encode(), C.byref(nv))
    s, r = _spectra(logq, name, center, bias, exp, single, method, "auto", 0.0, False)
    k = s.size
    cols = np.empty((4, k), dtype=np.float64)
    with _lib._lock:
        _lib.run(_fn["rank_spectrum"], _dptr(s), k, nv.value, _dptr(cols[0]), _dptr(cols[1]),
                 _dptr(cols[2]), _dptr(cols[3]))
    return {"index": np.arange(k), "sigma": s, "sigma_rel": cols[0], "log10_sigma": cols[1],
            "normalised": cols[2], "cum_pct": cols[3],
            "normalisation": _s(_fn["rank_norm_label"](nv.value))}


def _logp_open(name, probs, normalize, tol):
    r = C.c_void_p()
    o = _lib.LogpOpts(bool(probs), bool(normalize), float(tol))
    _lib.run(_fn["logp_open"], C.byref(r), name.encode(), C.byref(o))
    return r


def pairwise_kl(logp, probs=False, normalize=False, tol=_LOGP_TOL, name="logp"):
    """How distinct the rows of logp (T x M, one next-token distribution
    per context) are: the expected KL divergence over the T(T-1) ordered
    pairs of rows, exactly, in one pass (MoS Table 11), as sbw-kl prints
    it.  Returns a dict: rows, cols, expected_pairwise_kl, mean_entropy,
    entropy_of_mean, js_spread (entropy_of_mean - mean_entropy, the
    Jensen-Shannon spread), max_abs_logsumexp and its row; nats.

    Rows must be finite and normalised (|logsumexp(row)| <= tol), else
    sbw.Error names the row; normalize=True renormalises them instead;
    probs=True reads probabilities rather than log-probabilities."""
    a = _lib.as_input(logp)
    e = _lib.KlExact()
    sel = _lib.LogpSel()
    lse, worst = C.c_double(), C.c_size_t()
    with _lib._lock, _lib.Registered((name, a)):
        r = _logp_open(name, probs, normalize, tol)
        try:
            _fn["logp_sel_range"](C.byref(sel), 0, a.shape[0])
            _lib.run(_fn["kl_exact_file"], r, C.byref(sel), C.byref(_lib.KlOpts()), None,
                     C.byref(e))
            _fn["logp_stats"](r, C.byref(lse), C.byref(worst))
        finally:
            _fn["logp_close"](r)
    return {"rows": e.rows, "cols": e.cols, "expected_pairwise_kl": e.expected_kl,
            "mean_entropy": e.mean_entropy, "entropy_of_mean": e.entropy_of_mean,
            "js_spread": e.js_spread, "max_abs_logsumexp": lse.value,
            "max_abs_logsumexp_row": worst.value}


_COMPARE_SUM = ["rows", "cols", "kl_mean", "kl_median", "cross_entropy", "entropy", "perplexity",
                "mode_match", "mode_matches", "ties_p", "ties_q"]


def compare(logp, logq, probs=False, normalize=False, tol=_LOGP_TOL, per_row=False,
            names=("logp", "logq")):
    """How close the model's distributions logq are to the true logp, row
    by row (the same context in row i of both; N x M each), as sbw-compare
    prints it: a dict of kl_mean, kl_median, cross_entropy, entropy,
    perplexity (nats; exp(cross_entropy)), mode_match (share of rows whose
    argmax agrees, LMS eq. 10) and mode_matches, ties_p, ties_q,
    top1/top5/top10_overlap, rank_mean, rank_median (of P's mode under Q),
    frob_rms (||logp - logq||_F / sqrt(N)), max_row_err and its row,
    max_abs_err.  per_row=True adds "per_row", a dict of NumPy arrays with
    the columns of sbw-compare --per-row (row, kl, cross_entropy, entropy,
    mode_p, mode_q, mode_match, tie_p, tie_q, rank, top1/5/10_overlap,
    row_err, max_abs_err).  Checks, probs and normalize as pairwise_kl."""
    p = _lib.as_input(logp)
    q = _lib.as_input(logq)
    n, m = p.shape if p.ndim == 2 else (1, 1)  # else refused by libsbw below
    rows = (_lib.CompareRow * max(n, 1))()
    sm = _lib.CompareSummary()
    with _lib._lock, _lib.Registered((names[0], p), (names[1], q)):
        rp = rq = None
        try:
            rp = _logp_open(names[0], probs, normalize, tol)
            rq = _logp_open(names[1], probs, normalize, tol)
            _lib.run(_fn["compare_files"], rp, rq, 0, None, rows)
            _lib.run(_fn["compare_summarize"], rows, n, m, C.byref(sm))
        finally:
            _fn["logp_close"](rp)
            _fn["logp_close"](rq)
    out = {k: getattr(sm, k) for k in _COMPARE_SUM}
    for i in range(_lib.COMPARE_NK):
        out["top%d_overlap" % _fn["compare_k"](i)] = sm.top_overlap[i]
    out.update(rank_mean=sm.rank_mean, rank_median=sm.rank_median, frob_rms=sm.frob_rms,
               max_row_err=sm.max_row_err, max_row_err_row=sm.max_row_err_row,
               max_abs_err=sm.max_abs_err)
    if per_row:
        out["per_row"] = _compare_rows(rows, n, m)
    return out


def _compare_rows(rows, n, m):
    r = np.frombuffer(rows, dtype=np.dtype(_lib.CompareRow), count=n)
    pr = {"row": np.arange(n)}
    for k in ("kl", "cross_entropy", "entropy"):
        pr[k] = r[k].copy()
    pr["mode_p"], pr["mode_q"] = r["mode_p"].astype(np.int64), r["mode_q"].astype(np.int64)
    pr["mode_match"] = (r["mode_p"] == r["mode_q"]).astype(np.int64)
    pr["tie_p"], pr["tie_q"] = r["tie_p"].astype(np.int64), r["tie_q"].astype(np.int64)
    pr["rank"] = r["rank"].astype(np.int64)
    for i in range(_lib.COMPARE_NK):
        k = _fn["compare_k"](i)
        # sbw-compare's own column: |top-k(P) & top-k(Q)| / min(k, M)
        pr["top%d_overlap" % k] = r["overlap"][:, i] / float(min(k, m))
    pr["row_err"], pr["max_abs_err"] = r["row_err"].copy(), r["max_abs"].copy()
    return pr


def bound(logp, d=None, bias=False, eps="auto", method="auto", name="logp"):
    """How well a Softmax head of dimension d can fit logp (N x M), as
    sbw-bound prints it (Frobenius norms): for each d in d (an int or a
    list; all of 0..min(N, M) when None), lms_bound, LMS Theorem 1's
    Eckart-Young bound (log Q has rank <= d + 1), and shift_bound, the
    shift-aware bound from the row-centred matrix (0 exactly from d* on);
    bias=True for heads with a word bias (double centring).  Returns a
    dict: the arrays d, lms_bound, shift_bound, and d_star, tsh_centred,
    rank_a, norm_a, norm_a_centred, n, m, dtype, eps, eps_source."""
    a = _lib.as_input(logp)
    k = min(a.shape) if a.ndim == 2 else 1
    tails = np.empty((2, k + 1), dtype=np.float64)
    sm = _lib.BoundSummary()
    with _lib._lock, _lib.Registered((name, a)):
        _lib.run(_fn["bound_file"], name.encode(), bias, str(eps).encode(), method.encode(),
                 C.byref(sm), _dptr(tails[0]), _dptr(tails[1]), k + 1)
    ds = np.arange(k + 1) if d is None else np.atleast_1d(np.asarray(d, dtype=np.int64))
    if ds.ndim != 1 or (ds < 0).any():
        raise ValueError("d: dimensions are integers >= 0")
    t, tc = _dptr(tails[0]), _dptr(tails[1])
    lms = np.array([_fn["bound_lms"](t, k, int(x), bias) for x in ds], dtype=np.float64)
    shift = np.array([_fn["bound_shift"](tc, k, int(x)) for x in ds], dtype=np.float64)
    return {"d": ds, "lms_bound": lms, "shift_bound": shift, "d_star": sm.rank_c.rank,
            "tsh_centred": sm.rank_c.tsh, "rank_a": sm.rank_a.rank,
            "norm_a": _fn["bound_shift"](t, k, 0), "norm_a_centred": _fn["bound_shift"](tc, k, 0),
            "n": sm.rows, "m": sm.cols, "dtype": _lib.DTYPE_NAMES[sm.dtype], "eps": sm.eps,
            "eps_source": _s(sm.eps_source)}


_STAGES = ["dup", "prefilter", "lp"]  # sbw-argmax's stage column


def argmax(W, bias=None, words=None, tol=1e-9, max_rounds=100, lp_only=False,
           names=("W", "b")):
    """Which words a Softmax head can never predict, as sbw-argmax prints
    it.  W is the head's output matrix (M words x D, e.g.
    model.lm_head.weight), bias its M biases (or None); word i is
    argmaxable when some context h makes (W h + b)_i the strict maximum.
    Every answer carries a certificate checked on the head as given
    (a context h, or convex weights lambda showing the word is inside the
    others' hull).  words: the words to decide (all when None).

    Returns a dict: "unargmaxable", the list of words never predicted;
    per word the NumPy arrays word, argmaxable (1, 0, or -1 undecided),
    margin, bound, cert_norm, support, other (-1 when none), rounds, and
    the lists reason ("vertex", "duplicate", "dominated", "in_hull",
    "below_hull", "undecided") and stage ("dup", "prefilter", "lp"); and
    m, d, scale, checked, argmaxable_count, unargmaxable_count, undecided,
    by_duplicates, by_prefilter, by_lp, lp_rounds.  Undecided words warn
    ("argmax_undecided"), as in the tool."""
    w = _lib.as_input(W)
    b = None if bias is None else _lib.as_input(bias)
    sel = None if words is None else np.ascontiguousarray(words, dtype=np.uintp)
    o = _lib.ArgmaxFileOpts()
    o.bias = None if b is None else names[1].encode()
    o.run = _fn["argmax_defaults"]()
    o.run.tol, o.run.max_rounds, o.run.no_prefilter = float(tol), int(max_rounds), bool(lp_only)
    if sel is not None:
        o.words = sel.ctypes.data_as(C.POINTER(C.c_size_t))
        o.nwords = sel.size
    o.quiet = True
    res = _lib.ArgmaxFileRes()
    with _lib._lock, _lib.Registered((names[0], w), (names[1], b)):
        try:
            _lib.run(_fn["argmax_file"], names[0].encode(), C.byref(o), C.byref(res))
            out = _argmax_result(res)
        finally:
            _fn["argmax_file_free"](C.byref(res))
    if out["undecided"]:
        # sbw-argmax's own warning (tool_argmax.c, warn_incomplete)
        import warnings
        warnings.warn("argmax_undecided: %d word(s) got no certificate either way (numerical "
                      "trouble): argmaxable -1, neither answer is established"
                      % out["undecided"], Warning, stacklevel=2)
    return out


def _argmax_result(res):
    n, m = res.nwords, res.w.rows
    words = [res.out[i] for i in range(n)]
    am = np.array([x.argmaxable for x in words], dtype=np.int64)
    sm = res.sum
    return {"word": np.array([x.word for x in words], dtype=np.int64), "argmaxable": am,
            "reason": [_s(_fn["argmax_reason_name"](x.reason)) for x in words],
            "margin": np.array([x.margin for x in words]),
            "bound": np.array([x.bound for x in words]),
            "cert_norm": np.array([x.cert_norm for x in words]),
            "support": np.array([x.support for x in words], dtype=np.int64),
            "other": np.array([x.other if x.other < m else -1 for x in words], dtype=np.int64),
            "stage": [_STAGES[x.stage] for x in words],
            "rounds": np.array([x.rounds for x in words], dtype=np.int64),
            "unargmaxable": [x.word for x in words if x.argmaxable == 0],
            "m": m, "d": res.w.cols, "scale": sm.scale, "checked": sm.checked,
            "argmaxable_count": sm.argmaxable, "unargmaxable_count": sm.unargmaxable,
            "undecided": sm.undecided, "by_duplicates": sm.by_duplicates,
            "by_prefilter": sm.by_prefilter, "by_lp": sm.by_lp, "lp_rounds": sm.lp_rounds}
