#!/bin/sh
# Turns a staged `make install` (DESTDIR=ROOT PREFIX=/usr, the library in
# /usr/lib/MULTIARCH) into OUTDIR/sbw_VERSION_ARCH.deb with dpkg-deb, doing
# what debhelper would (make deb runs it; docs/DESIGN.md says why not
# debhelper): strip the binaries (dh_strip's options), gzip the man pages,
# the copyright and changelog (packaging/debian/), Depends from
# dpkg-shlibdeps, the shlibs file and ldconfig trigger of a public shared
# library, md5sums, root-owned files with Debian's modes.  Then lintian,
# when installed: an error fails, warnings are printed.  Prints the
# package's path last.
#   scripts/mkdeb.sh ROOT VERSION OUTDIR
set -eu
die() {
    echo "mkdeb.sh: $*" >&2
    exit 1
}
[ $# -eq 3 ] || die "usage: mkdeb.sh ROOT VERSION OUTDIR"
root=$1 version=$2 out=$3
pkg=packaging/debian
for c in dpkg-deb dpkg-shlibdeps dpkg-architecture strip gzip; do
    command -v $c >/dev/null 2>&1 || die "$c not found (scripts/deps.sh --deb installs it)"
done
[ -d "$root/usr/bin" ] || die "$root: no staged install (make deb makes one)"
head -n 1 $pkg/changelog | grep -q "^sbw ($version) " ||
    die "$pkg/changelog: its first entry is not version $version (core/sbw_cli.h's SBW_CLI_VERSION): add one"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
lib=$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
so=$(find "$lib" -maxdepth 1 -type f -name 'libsbw.so.*')
[ -n "$so" ] || die "$lib: no libsbw.so.*"
major=${so##*/libsbw.so.}
major=${major%%.*}

# dh_strip: symbols and debug information out of the executables and the
# shared library, debug information out of the archive.
for f in "$root"/usr/bin/*; do strip --remove-section=.comment --remove-section=.note "$f"; done
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$so"
strip --strip-debug --remove-section=.comment --remove-section=.note \
    --enable-deterministic-archives "$lib/libsbw.a"
gzip -9n "$root"/usr/share/man/man*/*
install -d "$root/usr/share/doc/sbw"
install -m 644 $pkg/copyright "$root/usr/share/doc/sbw/copyright"
gzip -9n <$pkg/changelog >"$root/usr/share/doc/sbw/changelog.gz"
# The Python module (python/sbw, staged by make install under
# usr/lib/python3/dist-packages/sbw): pure Python over libsbw.so.0 and
# NumPy, so python3 and python3-numpy join Depends below; no byte code is
# shipped (python3 compiles it where it may write).
[ -f "$root/usr/lib/python3/dist-packages/sbw/__init__.py" ] || die "$root: no Python module staged"
pydeps=", python3, python3-numpy"
find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -exec chmod 644 {} +
chmod 755 "$root"/usr/bin/*

# Depends: dpkg-shlibdeps reads a debian/control, so it runs in a scratch
# folder that has one.
abs=$(cd "$root" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbw-mkdeb-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debian"
printf 'Source: sbw\n\nPackage: sbw\nArchitecture: any\n' >"$tmp/debian/control"
set --
for f in "$abs"/usr/bin/* "$abs/${so#"$root"/}"; do set -- "$@" "-e$f"; done
deps=$(cd "$tmp" && dpkg-shlibdeps -O "$@" 2>"$tmp/shlibdeps.err" | sed -n 's/^shlibs:Depends=//p') ||
    die "dpkg-shlibdeps failed: $(cat "$tmp/shlibdeps.err")"
[ -n "$deps" ] || die "dpkg-shlibdeps gave no Depends: $(cat "$tmp/shlibdeps.err")"
deps=$deps$pydeps

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f 1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$deps/" \
    $pkg/control.in >"$root/DEBIAN/control"
echo "libsbw $major sbw (>= $version)" >"$root/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$root/DEBIAN/triggers"
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root"/DEBIAN/*

mkdir -p "$out"
deb=$out/sbw_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
if command -v lintian >/dev/null 2>&1; then
    st=0
    lintian --fail-on error --tag-display-limit 0 "$deb" >"$tmp/lintian.out" 2>&1 || st=$?
    grep -v '^running with root privileges' "$tmp/lintian.out" >"$tmp/lintian" || true
    if [ $st != 0 ]; then
        cat "$tmp/lintian" >&2
        die "lintian found errors in $deb"
    fi
    sed 's/^/lintian: /' "$tmp/lintian"
else
    echo "mkdeb.sh: lintian is not installed: $deb not checked (scripts/deps.sh --deb installs it)"
fi
echo "$deb"
