# The Python binding (python/sbw, issue 30): tests/python/test_sbw.py holds
# it against the tools in $SBW_BIN on the same data (unittest; pandas tests
# skipped inside when pandas is missing).  Needs a python3 with NumPy
# (Debian: python3-numpy) and the shared library (make shared, which make
# check builds): without NumPy the suite is skipped with a note, as make
# check needs no Python.  Not under sanitizers: a Python interpreter cannot
# load an ASan-linked library without preloading the runtime.
. tests/cli/lib.sh

if ldd "$BIN/sbw-info" 2>/dev/null | grep -q libasan; then
    echo "test_python: skipped under sanitizers (make check runs it)"
    finish
fi
# The first python3 that imports NumPy: $SBW_PYTHON, then python3 on the
# PATH, then Debian's (a pyenv or venv python3 may lack python3-numpy).
py=""
for p in ${SBW_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' >/dev/null 2>&1; then
        py=$p
        break
    fi
done
if [ -z "$py" ]; then
    echo "test_python: no python3 with NumPy: skipped (apt-get install python3-numpy; scripts/deps.sh installs it)"
    finish
fi
lib=${BUILD:-build}/install/libsbw.so.0
if [ ! -f "$lib" ]; then
    bad "$lib is missing: make shared builds it (make check does)"
    finish
fi
"$py" -c 'import pandas' >/dev/null 2>&1 ||
    echo "test_python: pandas is not installed: its read_csv checks are skipped (apt-get install python3-pandas)"
SBW_LIB=$(cd "${lib%/*}" && pwd)/${lib##*/} SBW_BIN=$BIN PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} \
    "$py" -m unittest tests.python.test_sbw >"$T/log" 2>&1
st=$?
tail -n 3 "$T/log"
if [ $st = 0 ]; then ok; else
    bad "tests/python/test_sbw.py: $(grep -E '^(FAIL|ERROR):' "$T/log" | head -n 20 | tr '\n' ' ')"
    cat "$T/log" >&2
fi
finish
