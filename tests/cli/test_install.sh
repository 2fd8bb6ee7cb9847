# `make install` into a staging root (DESTDIR) under a prefix that is not
# the root's (issue 30): the tools, libsbw.a and libsbw.so with its soname
# and links, only the public headers, an sbw.pc that names the prefix (not
# the staging root) and with which a small C program builds and runs,
# against the shared library and statically; man pages and completion for
# every tool; then `make uninstall` leaves the prefix empty.  The make it
# runs inherits make check's variables (BUILD, BIN) through MAKEFLAGS.
. tests/cli/lib.sh

if ldd "$BIN/sbw-info" 2>/dev/null | grep -q libasan; then
    echo "test_install: skipped under sanitizers (packaging is checked by make check)"
    finish
fi
for c in pkg-config readelf nm ar; do
    command -v $c >/dev/null || {
        bad "$c is missing (scripts/deps.sh installs it)"
        finish
    }
done
R=$T/root P=/opt/sbw-test
make -s --no-print-directory install DESTDIR="$R" PREFIX=$P >"$T/log" 2>&1
expect_eq "$?" 0 "make install: $(tail -n 5 "$T/log")"

# Tools, man pages, completion: one of each per tool.
for t in "$BIN"/sbw-*; do
    n=${t##*/}
    [ -x "$R$P/bin/$n" ] && ok || bad "$n not installed"
    [ -s "$R$P/share/man/man1/$n.1" ] && ok || bad "no man page for $n"
    [ -s "$R$P/share/bash-completion/completions/$n" ] && ok || bad "no completion for $n"
done
[ -s "$R$P/share/man/man7/sbw.7" ] && ok || bad "no sbw(7)"

# Headers: exactly the public ones (DESIGN.md: not the twins', templates',
# kernels'), and together they compile from the installed folder alone,
# with the compiler's default language (gnu17) and with -std=c11 and the
# POSIX.1-2008 declarations the build uses (sigset_t, off_t).
dirs=$(sed -n 's/^SRCDIRS := //p' Makefile)
for d in $dirs; do ls "$d"/*.h; done | sed 's|.*/||' |
    grep -Ev '_ref\.h$|_tmpl\.h$|_kern\.h$|^sbw_prec\.h$|^sbw_vexp\.h$' | sort >"$T/want_h"
ls "$R$P/include/sbw" | sort >"$T/got_h"
if cmp -s "$T/want_h" "$T/got_h"; then ok; else bad "installed headers differ: $(diff "$T/want_h" "$T/got_h" | tr '\n' ' ')"; fi
if grep -Eq '_ref\.h$|_tmpl\.h$|_kern\.h$|^sbw_prec\.h$|^sbw_vexp\.h$' "$T/got_h"; then
    bad "a twin, template or kernel header is installed"
else ok; fi
sed 's/.*/#include <&>/' "$T/got_h" >"$T/all.c"
echo 'int main(void) { return 0; }' >>"$T/all.c"
export PKG_CONFIG_SYSROOT_DIR="$R"
PKG_CONFIG_PATH="$R$P/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
cflags=$(pkg-config --cflags sbw)
expect_eq "$?" 0 "pkg-config --cflags sbw"
(cd "$T" && ${CC:-cc} -fsyntax-only $cflags all.c) >"$T/cc" 2>&1
expect_eq "$?" 0 "every installed header compiles from include/sbw alone: $(head -c 400 "$T/cc")"
(cd "$T" && ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -fsyntax-only $cflags all.c) >"$T/cc" 2>&1
expect_eq "$?" 0 "the same with -std=c11 -D_POSIX_C_SOURCE=200809L: $(head -c 400 "$T/cc")"

# The libraries: soname and links; no twin in either; the .so exports
# only the sbw_ prefix (and the OpenMP critical sections named after it).
L=$R$P/lib
expect_eq "$(readlink "$L/libsbw.so")" libsbw.so.0 "libsbw.so -> libsbw.so.0"
expect_eq "$(readlink "$L/libsbw.so.0")" libsbw.so.0.1.0 "libsbw.so.0 -> libsbw.so.0.1.0"
soname=$(readelf -d "$L/libsbw.so.0.1.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
expect_eq "$soname" libsbw.so.0 "the soname"
if ar t "$L/libsbw.a" | grep -q '_ref\.o$'; then bad "libsbw.a holds twins"; else ok; fi
nm -D --defined-only "$L/libsbw.so.0.1.0" | awk '{ print $NF }' |
    grep -Ev '^sbw_|^\.gomp_critical_user_sbw_' >"$T/foreign"
expect_lines 0 "$T/foreign" "libsbw.so exports only sbw_ names"
if nm -D --defined-only "$L/libsbw.so.0.1.0" | grep -q '_ref_'; then bad "libsbw.so exports twins"; else ok; fi

# sbw.pc names the prefix, never the staging root.
expect_grep "^prefix=$P\$" "$L/pkgconfig/sbw.pc" "sbw.pc's prefix"
if grep -q "$T" "$L/pkgconfig/sbw.pc"; then bad "sbw.pc holds the staging root"; else ok; fi

# A program that knows only pkg-config: the rank of a 6 x 4 matrix made as
# the sum of two outer products (rank 2 by construction).
cat >"$T/prog.c" <<'EOF'
#include <sbw.h>
#include <sbw_rank.h>
#include <sbw_svd.h>
int main(void)
{
    sbw_mat a = {0};
    double s[4];
    sbw_rank_est e;
    int st = sbw_mat_alloc(&a, 6, 4);
    for (size_t i = 0; !st && i < 6; i++)
        for (size_t j = 0; j < 4; j++)
            a.data[i * a.ld + j] = (double)((i + 1) * (j + 2)) + (double)(i % 2) * (3.0 - (double)j);
    st = st ? st : sbw_svd_values(&a, s);
    st = st ? st : sbw_rank_estimate(s, 4, 6, 4, 0x1p-52, &e);
    sbw_mat_free(&a);
    if (st) return fprintf(stderr, "prog: %s\n", sbw_error_reason()), 1;
    printf("%zu\n", e.rank);
    return 0;
}
EOF
(cd "$T" && ${CC:-cc} -Wall -Werror -o prog_shared prog.c $(pkg-config --cflags --libs sbw)) >"$T/cc" 2>&1
expect_eq "$?" 0 "build against libsbw.so: $(head -c 400 "$T/cc")"
readelf -d "$T/prog_shared" | grep NEEDED >"$T/needed"
expect_grep 'libsbw\.so\.0\]' "$T/needed" "the program needs libsbw.so.0"
expect_eq "$(LD_LIBRARY_PATH=$L "$T/prog_shared")" 2 "the rank, through libsbw.so"
libs=$(pkg-config --static --libs sbw | sed 's/-lsbw\( \|$\)/-l:libsbw.a /')
(cd "$T" && ${CC:-cc} -Wall -Werror -o prog_static prog.c $(pkg-config --cflags sbw) $libs) >"$T/cc" 2>&1
expect_eq "$?" 0 "build against libsbw.a with pkg-config --static: $(head -c 400 "$T/cc")"
readelf -d "$T/prog_static" | grep NEEDED >"$T/needed"
if grep -q libsbw "$T/needed"; then bad "the static program needs libsbw.so"; else ok; fi
expect_eq "$("$T/prog_static")" 2 "the rank, through libsbw.a"

# The installed tools run (they carry the library inside).
expect_exit 0 "installed sbw-info --version" "$R$P/bin/sbw-info" --version
expect_grep '^sbw-info \(sbw\) ' "$T/out" "its version line"

# The Python module, from the installed tree alone: it finds the installed
# libsbw.so.0 beside its prefix (not the build tree's, not $SBW_LIB) and
# gives the installed sbw-rank's rank.  Skipped with a note without a
# python3 that has NumPy.  Importing it writes __pycache__, which
# uninstall must remove too.
PYD=$R$P/lib/python3/dist-packages
[ -f "$PYD/sbw/__init__.py" ] && [ -f "$PYD/sbw/_lib.py" ] && ok || bad "the Python module is not installed in $PYD/sbw"
py=""
for p in ${SBW_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' >/dev/null 2>&1; then
        py=$p
        break
    fi
done
if [ -n "$py" ]; then
    "$R$P/bin/sbw-synth" lowrank -q --n 60 --m 40 --rank 5 --seed 4 -o "$T/l.npy" >/dev/null
    "$R$P/bin/sbw-rank" -q --center "$T/l.npy" >"$T/rank.tsv"
    want=$(tsv_field "$T/rank.tsv" rank)
    (cd "$T" && env -u SBW_LIB PYTHONPATH="$PYD" "$py" -c 'import sbw, numpy
print(sbw.LIB_PATH)
print(sbw.rank(numpy.load("l.npy"), center=True)["rank"])') >"$T/py" 2>&1
    expect_eq "$(sed -n 1p "$T/py")" "$L/libsbw.so.0" "the installed module loads the installed library: $(tail -n 3 "$T/py")"
    expect_eq "$(sed -n 2p "$T/py")" "$want" "the installed module's rank is the installed sbw-rank's"
    expect_eq "$want" 5 "d* of a rank-5 lowrank language"
else
    echo "test_install: no python3 with NumPy: the installed module's import is not checked (apt-get install python3-numpy)"
fi

make -s --no-print-directory uninstall DESTDIR="$R" PREFIX=$P >"$T/log" 2>&1
expect_eq "$?" 0 "make uninstall: $(tail -n 5 "$T/log")"
find "$R$P" -mindepth 1 >"$T/left"
expect_lines 0 "$T/left" "make uninstall leaves the prefix empty"
[ -d "$R$P" ] && ok || bad "make uninstall removed the prefix itself"
finish
