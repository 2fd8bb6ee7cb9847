"""The Python binding (python/sbw) against the command-line tools on the
same data: each test writes arrays with numpy.save, runs the tool on the
file, parses its TSV, and holds the binding's answer on the array to it --
float64 and float32, C-ordered, strided and Fortran-ordered input; errors
as sbw.Error carrying the tool's line; warnings as sbw.Warning carrying
its "# warning=" text.  Also: every TSV the tools write reads in pandas
(pd.read_csv(f, sep='\\t', comment='#')), where pandas is installed; and
the PyTorch example of docs/python.md, run against a stand-in for torch.

Run by tests/cli/test_python.sh (SBW_BIN: the tools; PYTHONPATH: the
module; SBW_LIB or the build tree: the library)."""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
import warnings

import numpy as np

import sbw
from sbw import _lib

EPS = np.finfo(np.float64).eps
VERIFY_CLAIM = "property2"  # one quick claim: its results table
BIN = os.path.abspath(os.environ.get("SBW_BIN", "bin"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def lowrank(n, m, d, seed, bias=False):
    """log-softmax of H W^T (+ b): the row-centred rank is d (d + 1 with
    a bias), the double-centred d -- known by construction."""
    g = np.random.default_rng(seed)
    z = g.normal(size=(n, d)) @ g.normal(size=(m, d)).T
    if bias:
        z = z + 3 * g.normal(size=m)
    return log_softmax(z)


def parse_tsv(text):
    """(meta dict, warnings list, column names, rows as lists of str)."""
    meta, warns, cols, rows = {}, [], None, []
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("#"):
            k, _, v = line[1:].strip().partition("=")
            if k == "warning":
                warns.append(v)
            else:
                meta[k] = v
        elif cols is None:
            cols = line.split("\t")
        else:
            rows.append(line.split("\t"))
    return meta, warns, cols, rows


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def num(s):
    return float("nan") if s in ("nan", "") else float(s)


class Tool:
    """Runs bin/sbw-NAME; .out, .err, .rc; .tsv() parses stdout."""

    def __init__(self, name, *args):
        args = [str(a) for a in args]
        at = 1 if name == "synth" else 0  # after the kind
        p = subprocess.run([os.path.join(BIN, "sbw-" + name)] + args[:at] + ["-q"] + args[at:],
                           capture_output=True, text=True)
        self.out, self.err, self.rc = p.stdout, p.stderr, p.returncode

    def tsv(self, text=None):
        return parse_tsv(self.out if text is None else text)

    def row(self):
        meta, warns, cols, rows = self.tsv()
        return dict(zip(cols, rows[0])), meta, warns


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sbw-py-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def save(self, name, a):
        path = os.path.join(self.dir, name)
        np.save(path, a)
        return path

    def same(self, got, want, what, rtol=0.0):
        """got (binding) against want (the tool's printed text).  The tables
        print doubles with as many digits as they need to read back
        exactly, so the default demands the same bits."""
        if isinstance(got, str):
            self.assertEqual(got, want, what)
            return
        w = num(want)
        if math.isnan(w):
            self.assertTrue(math.isnan(got), "%s: %r, tool nan" % (what, got))
        elif rtol == 0.0:
            self.assertEqual(float(got), w, what)
        else:
            self.assertLessEqual(abs(float(got) - w), rtol * max(abs(w), 1e-300), what)


# ---- the numbers ----------------------------------------------------------

RANK_COLS = ["rank", "m", "n", "dtype", "precision", "eps", "tsh", "w0", "w_min", "rank_numpy",
             "numpy_tol", "rank_gap", "gap_decades", "rank_single"]


class TestRank(Base):
    def check_rank(self, arr, path, flags, **kw):
        t = Tool("rank", *(flags + [path]))
        self.assertEqual(t.rc, 0, t.err)
        row, meta, _ = t.row()
        got = sbw.rank(arr, **kw)
        for c in RANK_COLS:
            self.same(got[c], row[c], "%s %s" % (flags, c))
        for k in ("eps_source", "center", "w0_analysed", "w0_uncentred", "w0_threshold"):
            self.same(got[k], meta[k], "%s %s" % (flags, k))
        return got

    def test_rank_f64_f32(self):
        a = lowrank(50, 24, 6, 1)
        for dt in (np.float64, np.float32):
            x = a.astype(dt)
            p = self.save("a.npy", x)
            r = self.check_rank(x, p, [])
            self.check_rank(x, p, ["--center"], center=True)
            self.check_rank(x, p, ["--bias"], bias=True)
            self.assertEqual(r["dtype"], np.dtype(dt).name)
        # the truth the matrix was built with (float64 only: float32 rounding
        # is rank at float32's eps, which auto picks)
        self.assertEqual(sbw.rank(a, center=True)["rank"], 6)

    def test_tall_tsqr(self):
        a = lowrank(400, 30, 5, 2)  # N > 1.5 M: TSQR
        self.check_rank(a, self.save("t.npy", a), ["--center"], center=True)

    def test_strided_and_fortran(self):
        a = lowrank(40, 30, 4, 3)
        views = {"strided": a[:, ::2], "fortran": np.asfortranarray(a), "rows": a[::2]}
        for what, v in views.items():
            p = self.save(what + ".npy", np.ascontiguousarray(v))
            self.check_rank(v, p, ["--center"], center=True)

    def test_zero_copy(self):
        """C-ordered float64 and float32 arrays reach libsbw as they are;
        anything else is copied first."""
        a = lowrank(10, 8, 3, 4)
        for x in (a, a.astype(np.float32)):
            self.assertTrue(np.shares_memory(_lib.as_input(x), x))
        for x in (a[:, ::2], np.asfortranarray(a), a.astype(np.float16), a.astype(">f8")):
            y = _lib.as_input(x)
            self.assertFalse(np.shares_memory(y, x))
            self.assertTrue(y.flags.c_contiguous and y.dtype.isnative)

    def test_measures(self):
        a = lowrank(60, 25, 7, 5)
        p = self.save("m.npy", a)
        t = Tool("rank", "--center", "--measures", "--atol", "1e-9", p)
        self.assertEqual(t.rc, 0, t.err)
        _, _, cols, rows = t.tsv()
        got = sbw.rank(a, center=True, measures=True, atol=1e-9)["measures"]
        self.assertEqual(list(got), [r[0] for r in rows])
        for r in rows:
            m = got[r[0]]
            self.same(m["rank"], r[cols.index("rank")], r[0])
            self.same(m["threshold"], r[cols.index("threshold")], r[0] + " threshold")
            self.same(m["on"], r[cols.index("on")], r[0] + " on")
            self.same(m["rule"], r[cols.index("rule")], r[0] + " rule")

    def test_spectrum(self):
        a = lowrank(30, 20, 5, 6)
        p = self.save("s.npy", a)
        for norm in ("max", "minmax"):
            spec = os.path.join(self.dir, "spec.tsv")
            t = Tool("rank", "--center", "--norm", norm, "--spectrum", spec, p)
            self.assertEqual(t.rc, 0, t.err)
            meta, _, cols, rows = parse_tsv(read(spec))
            got = sbw.spectrum(a, center=True, norm=norm)
            self.assertEqual(got["normalisation"], meta["normalisation"])
            self.assertEqual(len(got["sigma"]), len(rows))
            for j, r in enumerate(rows):
                for c in cols:
                    self.same(got[c][j], r[cols.index(c)], "%s %s[%d]" % (norm, c, j))


class TestKlCompare(Base):
    def test_pairwise_kl(self):
        a = lowrank(80, 30, 5, 7)
        for dt in (np.float64, np.float32):
            x = a.astype(dt)
            p = self.save("k.npy", x)
            row, meta, _ = Tool("kl", p).row()
            got = sbw.pairwise_kl(x)
            for c in ("rows", "cols", "expected_pairwise_kl", "mean_entropy", "entropy_of_mean",
                      "js_spread"):
                self.same(got[c], row[c], c)
            self.same(got["max_abs_logsumexp"], meta["max_abs_logsumexp"], "lse")
            self.same(got["max_abs_logsumexp_row"], meta["max_abs_logsumexp_row"], "lse row")

    def test_probs_normalize(self):
        a = lowrank(20, 10, 3, 8)
        p = np.exp(a) * 1.01  # probabilities, off by 1%
        path = self.save("p.npy", p)
        row, _, _ = Tool("kl", "--probs", "--normalize", path).row()
        got = sbw.pairwise_kl(p, probs=True, normalize=True)
        self.same(got["expected_pairwise_kl"], row["expected_pairwise_kl"], "kl")

    def test_compare(self):
        p = lowrank(70, 26, 6, 9)
        q = lowrank(70, 26, 3, 10)
        pp, qp = self.save("p.npy", p), self.save("q.npy", q.astype(np.float32))
        per = os.path.join(self.dir, "rows.tsv")
        t = Tool("compare", "--per-row", per, pp, qp)
        self.assertEqual(t.rc, 0, t.err)
        row, _, _ = t.row()
        got = sbw.compare(p, q.astype(np.float32)[::-1][::-1], per_row=True)
        for c, v in row.items():
            self.same(got[c], v, c)
        _, _, cols, rows = parse_tsv(read(per))
        for c in cols:
            for i, r in enumerate(rows):
                self.same(got["per_row"][c][i], r[cols.index(c)], "%s[%d]" % (c, i))


class TestBoundArgmax(Base):
    def test_bound(self):
        a = lowrank(45, 20, 5, 11, bias=True)
        p = self.save("b.npy", a)
        for flags, kw in (([], {}), (["--bias"], {"bias": True})):
            t = Tool("bound", "--d", "0,3,5,6,7,20", *(flags + [p]))
            self.assertEqual(t.rc, 0, t.err)
            meta, _, cols, rows = t.tsv()
            got = sbw.bound(a, d=[0, 3, 5, 6, 7, 20], **kw)
            for i, r in enumerate(rows):
                for c in cols:
                    self.same(got[c][i], r[cols.index(c)], "%s %s[%d]" % (flags, c, i))
            for k in ("d_star", "tsh_centred", "rank_a", "norm_a", "norm_a_centred", "n", "m",
                      "dtype", "eps", "eps_source"):
                self.same(got[k], meta[k], "%s %s" % (flags, k))
        # the truth: a bias head of size 5 is exact from d* = 5 (double-centred)
        self.assertEqual(sbw.bound(a, bias=True)["d_star"], 5)

    def test_argmax(self):
        d = os.path.join(self.dir, "head")
        os.mkdir(d)
        wp, bp, pp = (os.path.join(d, f) for f in ("W.npy", "b.npy", "planted.txt"))
        t = Tool("synth", "head", "--m", 60, "--d", 4, "--k", 5, "--seed", 3, "--bias", bp,
                 "--planted", pp, "-o", wp)
        self.assertEqual(t.rc, 0, t.err)
        w, b = np.load(wp), np.load(bp)
        args = [wp, "--bias", bp]
        for x in (w, w.astype(np.float32), np.asfortranarray(w)):
            # the tool on the same head, as a C-ordered file of its dtype
            t = Tool("argmax", self.save("Wx.npy", np.ascontiguousarray(x)), *args[1:])
            self.assertEqual(t.rc, 0, t.err)
            meta, _, cols, rows = t.tsv()
            got = sbw.argmax(x, bias=b)
            self.assertEqual(len(rows), len(got["word"]))
            for i, r in enumerate(rows):
                for c in cols:
                    v = r[cols.index(c)]
                    if c == "other" and v in ("", "nan"):
                        self.assertEqual(got["other"][i], -1)
                    else:
                        self.same(got[c][i], v, "%s[%d]" % (c, i))
            for k in ("checked", "undecided", "by_duplicates", "by_prefilter", "by_lp"):
                self.same(got[k], meta[k], k)
            self.same(got["unargmaxable_count"], meta["unargmaxable"], "unargmaxable")
        # the truth: the planted words are exactly the unargmaxable ones
        planted = np.load(pp) if pp.endswith(".npy") else \
            [int(x) for x in read(pp).split() if x.isdigit()]
        self.assertEqual(len(planted), 5)
        self.assertEqual(sorted(sbw.argmax(w, bias=b)["unargmaxable"]), sorted(planted))


# ---- errors and warnings ---------------------------------------------------

class TestErrorsWarnings(Base):
    def assert_same_error(self, tool_args, call, tool):
        t = Tool(tool, *tool_args)
        self.assertEqual(t.rc, 1, t.err)
        with self.assertRaises(sbw.Error) as cm:
            call()
        self.assertEqual("sbw-%s: %s" % (tool, cm.exception), t.err.strip().splitlines()[-1])
        return cm.exception

    def test_unnormalised_row(self):
        a = lowrank(20, 10, 3, 12)
        a[4, 2] += 0.5
        p = self.save("u.npy", a)
        e = self.assert_same_error([p], lambda: sbw.pairwise_kl(a, name=p), "kl")
        self.assertEqual(e.kind, "data")
        q = self.save("q.npy", lowrank(20, 10, 3, 13))
        self.assert_same_error([q, p], lambda: sbw.compare(np.load(q), a, names=(q, p)),
                               "compare")

    def test_nan(self):
        a = lowrank(20, 10, 3, 14)
        a[3, 1] = np.nan
        p = self.save("n.npy", a)
        self.assert_same_error([p], lambda: sbw.rank(a, name=p), "rank")
        self.assert_same_error([p], lambda: sbw.bound(a, name=p), "bound")

    def test_shapes(self):
        p = self.save("p.npy", lowrank(20, 10, 3, 15))
        q = self.save("q.npy", lowrank(21, 10, 3, 15))
        e = self.assert_same_error([p, q], lambda: sbw.compare(np.load(p), np.load(q),
                                                                names=(p, q)), "compare")
        self.assertEqual(e.kind, "shape")
        w = self.save("w.npy", np.ones((1, 3)))
        self.assert_same_error([w], lambda: sbw.argmax(np.ones((1, 3)), names=(w, "b")),
                               "argmax")
        w2 = self.save("w2.npy", np.eye(3))
        b = self.save("b.npy", np.ones(4))
        self.assert_same_error([w2, "--bias", b],
                               lambda: sbw.argmax(np.eye(3), bias=np.ones(4), names=(w2, b)),
                               "argmax")
        v = self.save("v.npy", np.ones(5))
        e = self.assert_same_error([v], lambda: sbw.rank(np.ones(5), name=v), "rank")
        self.assertEqual(e.kind, "shape")
        with self.assertRaises(sbw.Error) as cm:
            sbw.rank(np.ones((2, 3, 4)), name="cube")
        self.assertEqual(cm.exception.kind, "dtype")
        self.assertIn("cube: 3 dimensions", str(cm.exception))

    def test_float32_values_warning(self):
        a = lowrank(40, 20, 4, 16).astype(np.float32).astype(np.float64)
        p = self.save("f.npy", a)
        _, _, warns = Tool("rank", p).row()
        self.assertTrue(warns and warns[0].startswith("float32_values:"), warns)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sbw.rank(a)
        self.assertEqual([str(x.message) for x in w], warns)
        self.assertTrue(all(issubclass(x.category, sbw.Warning) for x in w))
        # as an error, on request (the result is not returned)
        with warnings.catch_warnings():
            warnings.simplefilter("error", sbw.Warning)
            with self.assertRaises(sbw.Warning):
                sbw.rank(a)
        # and a clean matrix warns of nothing
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sbw.rank(lowrank(40, 20, 4, 16))
        self.assertEqual(w, [])

    def test_mean_dominated_warning(self):
        a = lowrank(40, 20, 4, 17)
        _, warns, _, _ = Tool("rank", "--measures", self.save("d.npy", a)).tsv()
        self.assertTrue(any(x.startswith("mean_dominated:") for x in warns), warns)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sbw.rank(a, measures=True)
        self.assertEqual([str(x.message) for x in w], warns)

    def test_names_left_registered(self):
        """A failed call leaves no array registered: the same name works
        again, and the library's table does not fill up."""
        a = lowrank(10, 5, 2, 18)
        a[0, 0] = np.inf
        for _ in range(40):
            with self.assertRaises(sbw.Error):
                sbw.rank(a, name="same")
        self.assertEqual(sbw.rank(lowrank(10, 5, 2, 18), name="same")["m"], 10)


# ---- pandas reads every table ----------------------------------------------

try:
    import pandas as pd
except ImportError:
    pd = None


@unittest.skipIf(pd is None, "pandas is not installed (apt-get install python3-pandas)")
class TestLayout(unittest.TestCase):
    """The mirrors' check against libsbw's layout table (sbw_layout.h): the
    real mirrors pass (the import did it too); a mirror that lost a field,
    one with two fields swapped, one of a struct libsbw does not list, and
    a wrong constant each raise ImportError naming what differs."""

    def test_real_mirrors(self):
        _lib.check_layout()

    def test_stale_mirrors(self):
        import ctypes as C
        opts = _lib.ArgmaxFileOpts._fields_
        lost = type("Lost", (C.Structure,), {"_fields_": opts[:-1]})
        swapped = type("Swapped", (C.Structure,), {"_fields_": [opts[1], opts[0]] + opts[2:]})
        cases = [({lost: "sbw_argmax_file_opts"}, {}, "13 fields in libsbw"),
                 ({lost: "sbw_argmax_file_opts"}, {}, "and 12 in the mirror"),
                 ({swapped: "sbw_argmax_file_opts"}, {}, "sbw_argmax_file_opts.vocab: at offset"),
                 ({_lib.Mat: "sbw_matrix"}, {}, "struct sbw_matrix is not one"),
                 ({}, {"SBW_COMPARE_NK": 4}, "SBW_COMPARE_NK: 3 in libsbw, 4 in the binding")]
        for mirrors, consts, want in cases:
            with self.assertRaises(ImportError) as e:
                _lib.check_layout(mirrors, consts)
            self.assertIn(want, str(e.exception))


class TestPandas(Base):
    """pd.read_csv(f, sep='\\t', comment='#') on every TSV the tools write:
    the same columns and rows as the table's own lines, every numeric
    cell the same number."""

    def read_both(self, path):
        text = read(path)
        _, _, cols, rows = parse_tsv(text)
        df = pd.read_csv(path, sep="\t", comment="#")
        self.assertEqual(list(df.columns), cols, path)
        self.assertEqual(len(df), len(rows), path)
        for j, c in enumerate(cols):
            for i, r in enumerate(rows):
                v = df[c].iloc[i]
                if r[j] == "" or r[j] == "nan":
                    self.assertTrue(pd.isna(v), "%s %s[%d]" % (path, c, i))
                elif isinstance(v, str):
                    self.assertEqual(v, r[j], "%s %s[%d]" % (path, c, i))
                else:  # pandas' default parser is not correctly rounded: seen
                    # 66 ulps off on a 17-digit 0.00276 ("round_trip" is exact)
                    w = float(r[j])
                    self.assertLessEqual(abs(float(v) - w), 1e-12 * abs(w),
                                         "%s %s[%d]" % (path, c, i))

    def run_to(self, name, tool, *args):
        path = os.path.join(self.dir, name)
        t = Tool(tool, *args)
        self.assertEqual(t.rc, 0, "%s: %s" % (tool, t.err))
        if t.out:
            write(path, t.out)
        return path

    def test_every_table(self):
        d = self.dir
        lp = self.save("lp.npy", lowrank(60, 24, 5, 19))
        lq = self.save("lq.npy", lowrank(60, 24, 3, 20))
        spec, per = os.path.join(d, "spec.tsv"), os.path.join(d, "per.tsv")
        head = os.path.join(d, "head")
        fit = os.path.join(d, "fit")
        made = [
            self.run_to("rank.tsv", "rank", "--center", "--spectrum", spec, lp), spec,
            self.run_to("measures.tsv", "rank", "--bias", "--measures", lp),
            self.run_to("kl.tsv", "kl", "--pairs", "500", lp),
            self.run_to("cmp.tsv", "compare", "--per-row", per, lp, lq), per,
            self.run_to("bound.tsv", "bound", lp),
            self.run_to("info.tsv", "info", lp),
            self.run_to("synth.tsv", "synth", "head", "--m", 30, "--d", 3, "--k", 2, "--bias",
                        head + "b.npy", "--vocab", head + "v.txt", "-o", head + "W.npy"),
            self.run_to("synthl.tsv", "synth", "topics", "--n", 40, "--m", 20,
                        "-o", os.path.join(d, "t.npy")),
        ]
        made.append(self.run_to("argmax.tsv", "argmax", head + "W.npy", "--bias",
                                head + "b.npy", "--vocab", head + "v.txt"))
        series = os.path.join(d, "series.txt")
        write(series, "a\t1\nb\t3\nc\t2\n")
        made.append(self.run_to("series.tsv", "series", series))
        made.append(self.run_to("fit.tsv", "fit", "--model", "mos", "--d", 3, "--k", 2,
                                "--steps", 20, "--log", os.path.join(d, "fitlog.tsv"), "-o",
                                os.path.join(d, "q.npy"), lp))
        made.append(os.path.join(d, "fitlog.tsv"))
        made.append(self.run_to("verify.tsv", "verify", "--only", VERIFY_CLAIM))
        checked = 0
        for p in made:
            if os.path.exists(p) and os.path.getsize(p) and \
                    read(p).lstrip()[:1] != "{":
                with self.subTest(table=os.path.basename(p)):
                    self.read_both(p)
                checked += 1
        self.assertGreaterEqual(checked, 10)


# ---- the PyTorch example of docs/python.md --------------------------------

class FakeTensor:
    """What the example touches of a torch.Tensor."""

    def __init__(self, a):
        self.a = np.asarray(a)

    def double(self):
        return FakeTensor(self.a.astype(np.float64))

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a

    def __getitem__(self, i):
        return FakeTensor(self.a[i])


def fake_torch():
    t = types.ModuleType("torch")

    class NoGrad:
        def __enter__(self):
            return self

        def __exit__(self, *e):
            return False

    t.no_grad = NoGrad
    t.log_softmax = lambda x, dim: FakeTensor(log_softmax(x.a) if dim in (-1, 1) else None)
    return t


class FakeModel:
    """A causal LM's last layer: logits = H W^T + b, H of size D, in float64."""

    def __init__(self, m, d, seed):
        g = np.random.default_rng(seed)
        self.lm_head = types.SimpleNamespace(weight=FakeTensor(g.normal(size=(m, d))),
                                             bias=FakeTensor(g.normal(size=m)))
        self.h = g.normal(size=(1, 90, d))

    def __call__(self, input_ids):
        z = self.h @ self.lm_head.weight.a.T + self.lm_head.bias.a
        return types.SimpleNamespace(logits=FakeTensor(z))

    def double(self):
        return self


class TestExample(unittest.TestCase):
    def test_docs_example(self):
        text = read(os.path.join(ROOT, "docs", "python.md"))
        code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
        lines = [x for x in code.splitlines() if x.strip() and not x.lstrip().startswith("#")]
        self.assertLessEqual(len(lines), 7, "the example is about five lines")
        D, M = 6, 40
        env = {"model": FakeModel(M, D, 21), "input_ids": None}
        saved = sys.modules.get("torch")
        sys.modules["torch"] = fake_torch()
        try:
            printed = []
            env["print"] = lambda *a: printed.append(a)
            exec(compile(code, "docs/python.md", "exec"), env)
        finally:
            if saved is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = saved
        # what the example computes, against the truth of the fake head:
        # with a bias the double-centred rank is D; a random head in general
        # position has every word on its hull (argmaxable)
        self.assertEqual(env["logq"].dtype, np.float64)
        self.assertEqual(sbw.rank(env["logq"], bias=True)["rank"], D)
        self.assertEqual(sbw.rank(env["logq"], center=True)["rank"], D + 1)
        self.assertTrue(printed, "the example prints its results")


if __name__ == "__main__":
    unittest.main(verbosity=1)
