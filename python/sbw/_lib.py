"""libsbw through ctypes: finding the library, the C structs the binding
reads, and the one wrapper every call goes through (arrays registered by
name, sbw's warnings collected, its status turned into an exception).

Nothing here computes: every number comes from libsbw.  The structs below
mirror the public headers named beside each (include/sbw/ when installed);
a change there is a change here.
"""
import ctypes as C
import glob
import os
import threading
import warnings

import numpy as np

# ---- finding libsbw.so.0 ------------------------------------------------

SONAME = "libsbw.so.0"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """Where libsbw is looked for, in order (docs/python.md):
    1. $SBW_LIB, a path to the library, when set: an explicit choice wins
       (a build under test, a sanitizer build, a library elsewhere);
    2. beside the prefix the module is installed under: the module in
       PREFIX/lib/python3/dist-packages/sbw finds PREFIX/lib/libsbw.so.0 or
       PREFIX/lib/MULTIARCH/libsbw.so.0 (make install, the .deb);
    3. the build tree the module sits in: python/sbw -> build/install/
       (make shared);
    4. the dynamic linker's own search (ldconfig, LD_LIBRARY_PATH)."""
    env = os.environ.get("SBW_LIB")
    if env:
        return [env], True
    libdir = os.path.normpath(os.path.join(_HERE, "..", "..", ".."))
    found = [os.path.join(libdir, SONAME)]
    found += sorted(glob.glob(os.path.join(libdir, "*", SONAME)))
    found.append(os.path.normpath(os.path.join(_HERE, "..", "..", "build", "install", SONAME)))
    found.append(SONAME)
    return found, False


def _load():
    paths, explicit = _candidates()
    if explicit:
        try:
            return C.CDLL(paths[0]), paths[0]
        except OSError as e:
            raise ImportError("sbw: SBW_LIB=%s cannot be loaded: %s" % (paths[0], e)) from None
    tried = []
    for p in paths:
        if p != SONAME and not os.path.exists(p):
            tried.append(p)
            continue
        try:
            return C.CDLL(p), p
        except OSError as e:
            tried.append("%s (%s)" % (p, e))
    raise ImportError("sbw: libsbw not found; looked for " + ", ".join(tried) +
                      ". Build it (make shared), install it (make install), or set SBW_LIB")


lib, LIB_PATH = _load()

# ---- C types ---------------------------------------------------------------

size_t = C.c_size_t
dbl = C.c_double
cstr = C.c_char_p
dptr = C.POINTER(C.c_double)

# enum sbw_npy_dtype (sbw_npy.h)
F64, F32 = 0, 1
DTYPE_NAMES = {0: "float64", 1: "float32", 2: "float16", 3: "bfloat16"}


class RankEst(C.Structure):  # sbw_rank_est (sbw_rank.h)
    _fields_ = [("m", size_t), ("n", size_t), ("k", size_t), ("eps", dbl), ("w0", dbl),
                ("wmin", dbl), ("scale", dbl), ("tsh", dbl), ("rank", size_t),
                ("numpy_tol", dbl), ("rank_numpy", size_t), ("rank_gap", size_t),
                ("gap_log10", dbl), ("tsh_single", dbl), ("rank_single", size_t)]


NMEASURES = 10  # SBW_RANK_NMEASURES


class RankMeasure(C.Structure):  # sbw_rank_measure (sbw_rank.h)
    _fields_ = [("name", cstr), ("rank", dbl), ("threshold", dbl), ("on", cstr), ("rule", cstr)]


class SpectraRankRes(C.Structure):  # sbw_spectra_rank_res (sbw_spectra.h)
    _fields_ = [("rows", size_t), ("cols", size_t), ("k", size_t), ("dtype", C.c_int),
                ("prec", C.c_int), ("eps", dbl), ("eps_source", cstr), ("w0_uncentred", dbl),
                ("est", RankEst), ("ms", RankMeasure * NMEASURES)]


class BoundSummary(C.Structure):  # sbw_bound_summary (sbw_bound.h)
    _fields_ = [("rows", size_t), ("cols", size_t), ("k", size_t), ("dtype", C.c_int),
                ("eps", dbl), ("eps_source", cstr), ("rank_a", RankEst), ("rank_c", RankEst)]


class LogpOpts(C.Structure):  # sbw_logp_opts (sbw_logp.h)
    _fields_ = [("probs", C.c_bool), ("normalize", C.c_bool), ("tol", dbl)]


class LogpSel(C.Structure):  # sbw_logp_sel (sbw_logp.h)
    _fields_ = [("begin", size_t), ("end", size_t), ("n", size_t),
                ("list", C.POINTER(size_t))]


class KlOpts(C.Structure):  # sbw_kl_opts (sbw_kl.h)
    _fields_ = [("threads", C.c_int), ("group", size_t), ("chunk", size_t)]


class KlExact(C.Structure):  # sbw_kl_exact (sbw_kl.h)
    _fields_ = [("rows", size_t), ("cols", size_t), ("expected_kl", dbl),
                ("mean_entropy", dbl), ("entropy_of_mean", dbl), ("js_spread", dbl)]


COMPARE_NK = 3  # SBW_COMPARE_NK: top-1, 5, 10


class CompareRow(C.Structure):  # sbw_compare_row (sbw_compare.h)
    _fields_ = [("kl", dbl), ("cross_entropy", dbl), ("entropy", dbl), ("row_err", dbl),
                ("max_abs", dbl), ("mode_p", size_t), ("mode_q", size_t), ("rank", size_t),
                ("tie_p", C.c_ubyte), ("tie_q", C.c_ubyte),
                ("overlap", C.c_ubyte * COMPARE_NK)]


class CompareSummary(C.Structure):  # sbw_compare_summary (sbw_compare.h)
    _fields_ = [("rows", size_t), ("cols", size_t), ("kl_mean", dbl), ("kl_median", dbl),
                ("cross_entropy", dbl), ("entropy", dbl), ("perplexity", dbl),
                ("mode_match", dbl), ("mode_matches", size_t), ("ties_p", size_t),
                ("ties_q", size_t), ("top_overlap", dbl * COMPARE_NK), ("rank_mean", dbl),
                ("rank_median", dbl), ("frob_rms", dbl), ("max_row_err", dbl),
                ("max_row_err_row", size_t), ("max_abs_err", dbl)]


class Mat(C.Structure):  # sbw_mat (sbw_mat.h)
    _fields_ = [("rows", size_t), ("cols", size_t), ("ld", size_t), ("data", dptr),
                ("owner", C.c_bool)]


class ArgmaxOpts(C.Structure):  # sbw_argmax_opts (sbw_argmax.h)
    _fields_ = [("tol", dbl), ("max_rounds", C.c_int), ("block", size_t),
                ("no_prefilter", C.c_bool)]


class ArgmaxWord(C.Structure):  # sbw_argmax_word (sbw_argmax.h)
    _fields_ = [("word", size_t), ("argmaxable", C.c_int), ("reason", C.c_int),
                ("margin", dbl), ("bound", dbl), ("cert_norm", dbl), ("support", size_t),
                ("other", size_t), ("stage", C.c_int), ("rounds", C.c_int)]


class ArgmaxSummary(C.Structure):  # sbw_argmax_summary (sbw_argmax.h)
    _fields_ = [("checked", size_t), ("argmaxable", size_t), ("unargmaxable", size_t),
                ("undecided", size_t), ("by_duplicates", size_t), ("by_prefilter", size_t),
                ("by_lp", size_t), ("lp_rounds", size_t), ("scale", dbl),
                ("seconds_prefilter", dbl), ("seconds_lp", dbl)]


class ArgmaxFileOpts(C.Structure):  # sbw_argmax_file_opts (sbw_argmax.h)
    _fields_ = [("bias", cstr), ("vocab", cstr), ("words", C.POINTER(size_t)),
                ("nwords", size_t), ("run", ArgmaxOpts), ("radii", dptr), ("nr", size_t),
                ("max_prob_all", C.c_bool), ("prob_tol", dbl), ("max_prob_iters", C.c_int),
                ("quiet", C.c_bool), ("shard", size_t), ("nshards", size_t)]


class ArgmaxFileRes(C.Structure):  # sbw_argmax_file_res (sbw_argmax.h)
    _fields_ = [("w", Mat), ("b", dptr), ("names", C.POINTER(cstr)), ("nwords", size_t),
                ("out", C.POINTER(ArgmaxWord)), ("sum", ArgmaxSummary), ("pm", dptr),
                ("pu", dptr), ("unconverged", size_t), ("list_len", size_t),
                ("hash", C.c_uint64)]


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = C.POINTER
fn = {
    "error_reason": _fn("sbw_error_reason", cstr),
    "error_clear": _fn("sbw_error_clear", None),
    "error_gsl_quiet": _fn("sbw_error_gsl_quiet", None),
    "warn_count": _fn("sbw_table_warn_count", size_t),
    "warning": _fn("sbw_table_warning", cstr, size_t),
    "warn_clear": _fn("sbw_table_warn_clear", None),
    "mem_add": _fn("sbw_npy_mem_add", C.c_int, cstr, C.c_void_p, C.c_int, size_t, size_t,
                   C.c_int),
    "mem_remove": _fn("sbw_npy_mem_remove", C.c_int, cstr),
    "spectra_rank_file": _fn("sbw_spectra_rank_file", C.c_int, cstr, C.c_int, C.c_bool,
                             C.c_bool, cstr, cstr, dbl, C.c_bool, dptr, size_t,
                             P(SpectraRankRes)),
    "rank_norm_parse": _fn("sbw_rank_norm_parse", C.c_int, cstr, P(C.c_int)),
    "rank_norm_label": _fn("sbw_rank_norm_label", cstr, C.c_int),
    "rank_spectrum": _fn("sbw_rank_spectrum", C.c_int, dptr, size_t, C.c_int, dptr, dptr, dptr,
                         dptr),
    "bound_file": _fn("sbw_bound_file", C.c_int, cstr, C.c_bool, cstr, cstr, P(BoundSummary),
                      dptr, dptr, size_t),
    "bound_lms": _fn("sbw_bound_lms", dbl, dptr, size_t, size_t, C.c_bool),
    "bound_shift": _fn("sbw_bound_shift", dbl, dptr, size_t, size_t),
    "logp_open": _fn("sbw_logp_open", C.c_int, P(C.c_void_p), cstr, P(LogpOpts)),
    "logp_close": _fn("sbw_logp_close", None, C.c_void_p),
    "logp_sel_range": _fn("sbw_logp_sel_range", None, P(LogpSel), size_t, size_t),
    "logp_stats": _fn("sbw_logp_stats", None, C.c_void_p, dptr, P(size_t)),
    "kl_exact_file": _fn("sbw_kl_exact_file", C.c_int, C.c_void_p, P(LogpSel), P(KlOpts),
                         C.c_void_p, P(KlExact)),
    "compare_files": _fn("sbw_compare_files", C.c_int, C.c_void_p, C.c_void_p, C.c_int,
                         C.c_void_p, P(CompareRow)),
    "compare_summarize": _fn("sbw_compare_summarize", C.c_int, P(CompareRow), size_t, size_t,
                             P(CompareSummary)),
    "compare_k": _fn("sbw_compare_k", size_t, size_t),
    "argmax_defaults": _fn("sbw_argmax_defaults", ArgmaxOpts),
    "argmax_file": _fn("sbw_argmax_file", C.c_int, cstr, P(ArgmaxFileOpts), P(ArgmaxFileRes)),
    "argmax_file_free": _fn("sbw_argmax_file_free", None, P(ArgmaxFileRes)),
    "argmax_reason_name": _fn("sbw_argmax_reason_name", cstr, C.c_int),
    "reduce_variant_name": _fn("sbw_reduce_variant_name", cstr, C.c_int),
}
fn["error_gsl_quiet"]()  # as every tool: GSL reports, never aborts


# ---- the mirrors checked against the library loaded ---------------------------

MIRRORS = {
    RankEst: "sbw_rank_est", RankMeasure: "sbw_rank_measure",
    SpectraRankRes: "sbw_spectra_rank_res", BoundSummary: "sbw_bound_summary",
    LogpOpts: "sbw_logp_opts", LogpSel: "sbw_logp_sel", KlOpts: "sbw_kl_opts",
    KlExact: "sbw_kl_exact", CompareRow: "sbw_compare_row",
    CompareSummary: "sbw_compare_summary", Mat: "sbw_mat", ArgmaxOpts: "sbw_argmax_opts",
    ArgmaxWord: "sbw_argmax_word", ArgmaxSummary: "sbw_argmax_summary",
    ArgmaxFileOpts: "sbw_argmax_file_opts", ArgmaxFileRes: "sbw_argmax_file_res",
}
CONSTANTS = {"SBW_RANK_NMEASURES": NMEASURES, "SBW_COMPARE_NK": COMPARE_NK, "SBW_F64": F64,
             "SBW_F32": F32, "SBW_F16": 2, "SBW_BF16": 3}


def check_layout(mirrors=None, constants=None):
    """Every mirror's size, field count and field offsets, and the constants,
    against libsbw's own (analysis/sbw_layout.h): a header changed without
    its mirror raises ImportError naming the struct and the field, instead
    of the binding reading garbage.  mirrors: {class: C name} (MIRRORS)."""
    lay_size = _fn("sbw_layout_size", C.c_int, cstr, P(size_t), P(size_t))
    lay_off = _fn("sbw_layout_offset", C.c_int, cstr, cstr, P(size_t))
    lay_const = _fn("sbw_layout_const", C.c_int, cstr, P(C.c_longlong))
    bad = []
    for cls, name in (MIRRORS if mirrors is None else mirrors).items():
        size, nf = size_t(), size_t()
        if lay_size(name.encode(), C.byref(size), C.byref(nf)):
            bad.append(s(fn["error_reason"]()))
            continue
        if C.sizeof(cls) != size.value or len(cls._fields_) != nf.value:
            bad.append("%s: %d bytes and %d fields in libsbw, %d and %d in the mirror"
                       % (name, size.value, nf.value, C.sizeof(cls), len(cls._fields_)))
        for field, _ in cls._fields_:
            off = size_t()
            if lay_off(name.encode(), field.encode(), C.byref(off)):
                bad.append(s(fn["error_reason"]()))
            elif getattr(cls, field).offset != off.value:
                bad.append("%s.%s: at offset %d in libsbw, %d in the mirror"
                           % (name, field, off.value, getattr(cls, field).offset))
    for cname, value in (CONSTANTS if constants is None else constants).items():
        v = C.c_longlong()
        if lay_const(cname.encode(), C.byref(v)) or v.value != value:
            bad.append("%s: %s in libsbw, %d in the binding" % (cname, v.value, value))
    if bad:
        raise ImportError("sbw: the binding's structs do not match %s (rebuild or reinstall "
                          "both together): %s" % (LIB_PATH, "; ".join(bad)))



def s(b):
    """A C string as str (None stays None)."""
    return None if b is None else b.decode("utf-8", "replace")


# ---- errors and warnings ---------------------------------------------------

# enum sbw_status (sbw_error.h), in order from SBW_OK = 0
STATUS = ["ok", "invalid", "nomem", "io", "format", "dtype", "shape", "data", "numeric", "intr"]


class Error(Exception):
    """An sbw error: str(e) is the one-line reason the tool prints after
    its name ("sbw-rank: <reason>"); e.status is sbw's status code and
    e.kind its name ("data", "shape", "invalid", ...)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status
        self.kind = STATUS[status] if 0 <= status < len(STATUS) else str(status)


class Warning(UserWarning):  # noqa: A001 (sbw.Warning, as sbw.Error)
    """A result that may not be trusted, as sbw-TOOL's "# warning=" lines:
    the text is "CODE: explanation"."""


# One call at a time: sbw's warnings are process-wide and registered names
# must not collide (sbw is parallel inside each call).
_lock = threading.RLock()


def check(status):
    if status:
        raise Error(s(fn["error_reason"]()) or STATUS[status], status)


def run(call, *args):
    """call(*args) -> status; raises Error, and turns the warnings sbw
    recorded during the call into Python warnings (after the call, so a
    warning filter set to "error" still sees a complete result fail)."""
    fn["error_clear"]()
    fn["warn_clear"]()
    st = call(*args)
    texts = [s(fn["warning"](i)) for i in range(fn["warn_count"]())]
    fn["warn_clear"]()
    check(st)
    for t in texts:
        warnings.warn(t, Warning, stacklevel=_caller_level())


def _caller_level():
    """The stacklevel of the first frame outside this package (warnings
    point at the user's line)."""
    import sys
    f, level = sys._getframe(1), 1
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _HERE:
        f, level = f.f_back, level + 1
    return level


# ---- arrays as sbw inputs ---------------------------------------------------

def as_input(a):
    """a as an array sbw reads without copying: float64 or float32, C order,
    native byte order.  Anything else (another dtype, a strided view,
    Fortran order, a list) is converted to float64 (a copy); float16 and
    bfloat16 tensors are for files (FILE.safetensors:NAME), not arrays.
    Shapes are libsbw's to judge (a vector where a matrix belongs is
    refused with the tool's message)."""
    x = np.asarray(a)
    if x.dtype not in (np.float64, np.float32) or not x.dtype.isnative:
        x = x.astype(np.float64 if x.dtype != np.float32 else np.float32)
    return np.ascontiguousarray(x)


class Registered:
    """Arrays registered by name for one call (sbw_npy_mem_add): sbw opens
    each name as it opens a file, so the call takes the tool's path from
    the first byte read (checks, conversions, messages naming the array)."""

    def __init__(self, *named):
        self.named = [(n, a) for n, a in named if a is not None]
        self.done = []

    def __enter__(self):
        try:
            for name, a in self.named:
                # 0-d and 3-d and more: passed as they are, for libsbw's refusal
                rows = a.shape[0] if a.ndim else 1
                cols = a.shape[1] if a.ndim == 2 else 1
                dt = F64 if a.dtype == np.float64 else F32
                check(fn["mem_add"](name.encode(), a.ctypes.data_as(C.c_void_p), dt, rows, cols,
                                    a.ndim))
                self.done.append(name)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        for name in self.done:
            fn["mem_remove"](name.encode())
        return False


check_layout()  # at import: a stale mirror fails here, not in a result
