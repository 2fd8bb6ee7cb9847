# make deb (issue 30): the package holds the tools, the library (shared
# with its links, static), the headers, sbw.pc, the man pages and the
# completion; lintian finds no error (make deb fails on one); extracted
# with dpkg-deb -x, its tools run (rank(A_c) = R for sbw-synth lowrank
# --rank R: the synthetic language's known d*) and a program builds against
# its library with pkg-config.  Skipped, with a note, where dpkg-dev or
# lintian is missing (scripts/deps.sh --deb installs them; .ci/run does).
. tests/cli/lib.sh

if ldd "$BIN/sbw-info" 2>/dev/null | grep -q libasan; then
    echo "test_deb: skipped under sanitizers (packaging is checked by make check)"
    finish
fi
for c in dpkg-deb dpkg-shlibdeps dpkg-architecture lintian; do
    if ! command -v $c >/dev/null 2>&1; then
        echo "test_deb: skipped: $c is not installed (scripts/deps.sh --deb installs it)"
        finish
    fi
done
make -s --no-print-directory -j2 deb >"$T/log" 2>&1
expect_eq "$?" 0 "make deb: $(tail -n 8 "$T/log")"
deb=$(tail -n 1 "$T/log")
[ -f "$deb" ] && ok || {
    bad "make deb printed no package: $(tail -n 3 "$T/log")"
    finish
}
if grep -q '^lintian: E:' "$T/log"; then bad "lintian errors: $(grep '^lintian: E:' "$T/log")"; else ok; fi
grep '^lintian: ' "$T/log" >&2

dpkg-deb -f "$deb" Package Depends >"$T/fields"
expect_grep '^Package: sbw$' "$T/fields" "the package's name"
expect_grep '^Depends: .*libopenblas0.*' "$T/fields" "Depends from dpkg-shlibdeps"
expect_grep '^Depends: .*, python3, python3-numpy$' "$T/fields" "the Python module's Depends"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$T/list"
for f in usr/bin/sbw-rank usr/bin/sbw-lm "usr/lib/$ma/libsbw.so.0.1.0" "usr/lib/$ma/libsbw.so.0" \
    "usr/lib/$ma/libsbw.so" "usr/lib/$ma/libsbw.a" "usr/lib/$ma/pkgconfig/sbw.pc" \
    usr/include/sbw/sbw.h usr/include/sbw/sbw_pass.h usr/share/man/man1/sbw-rank.1.gz \
    usr/share/man/man7/sbw.7.gz usr/share/bash-completion/completions/sbw-rank \
    usr/share/doc/sbw/copyright usr/share/doc/sbw/changelog.gz \
    usr/lib/python3/dist-packages/sbw/__init__.py usr/lib/python3/dist-packages/sbw/_lib.py; do
    grep -qx "\./$f" "$T/list" && ok || bad "$f is not in the package"
done
if grep -Eq '_ref\.h$|_tmpl\.h$|_kern\.h$' "$T/list"; then bad "the package holds private headers"; else ok; fi

X=$T/x
dpkg-deb -x "$deb" "$X"
expect_eq "$?" 0 "dpkg-deb -x"
expect_exit 0 "the package's sbw-synth" "$X/usr/bin/sbw-synth" lowrank --n 60 --m 40 --rank 5 -o "$T/p.npy"
expect_exit 0 "the package's sbw-rank" "$X/usr/bin/sbw-rank" --center "$T/p.npy"
expect_eq "$(tsv_field "$T/out" rank)" 5 "d* of a rank-5 lowrank language, by the packaged tools"
# The packaged Python module finds the packaged library (in the multiarch
# folder) and gives the packaged tool's rank (where NumPy is installed).
if /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
    (cd "$T" && env -u SBW_LIB PYTHONPATH="$X/usr/lib/python3/dist-packages" /usr/bin/python3 -c 'import sbw, numpy
print(sbw.LIB_PATH)
print(sbw.rank(numpy.load("p.npy"), center=True)["rank"])') >"$T/py" 2>&1
    expect_eq "$(sed -n 1p "$T/py")" "$X/usr/lib/$ma/libsbw.so.0" "the packaged module loads the packaged library: $(tail -n 3 "$T/py")"
    expect_eq "$(sed -n 2p "$T/py")" 5 "and its rank is the packaged tool's"
else
    echo "test_deb: python3-numpy is not installed: the packaged module's import is not checked"
fi
LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$X/usr/share/man/man1/sbw-rank.1.gz" >"$T/man" 2>&1
expect_grep '^       --center' "$T/man" "the packaged sbw-rank(1) renders"

cat >"$T/prog.c" <<'EOF'
#include <sbw.h>
int main(void)
{
    return sbw_error_reason() == NULL;
}
EOF
export PKG_CONFIG_SYSROOT_DIR="$X" PKG_CONFIG_PATH="$X/usr/lib/$ma/pkgconfig"
(cd "$T" && ${CC:-cc} -Wall -o prog prog.c $(pkg-config --cflags --libs sbw)) >"$T/cc" 2>&1
expect_eq "$?" 0 "a program builds against the packaged library: $(head -c 300 "$T/cc")"
LD_LIBRARY_PATH="$X/usr/lib/$ma" "$T/prog"
expect_eq "$?" 0 "and runs with it"
finish
