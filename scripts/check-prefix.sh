#!/bin/sh
# Each file exports only its own prefix (docs/DESIGN.md,
# "Conventions": names).  For every FOLDER/sbw_X.c built into BUILD/FOLDER/sbw_X.o:
#   - every global symbol the object defines (nm --defined-only -g) is
#     sbw_X or starts with sbw_X_ (an OpenMP named critical section,
#     .gomp_critical_user_NAME, counts as NAME);
#   - in FOLDER/sbw_X.h, every struct/enum/union tag and typedef name is
#     sbw_X or sbw_X_*, and every macro SBW_X or SBW_X_* (X upper-cased).
# Enumeration constants are not checked (SBW_OK, SBW_F64, ... are shared).
# One line per violation, exit 1 if any.
# Usage: scripts/check-prefix.sh BUILD FOLDER...
set -u
[ $# -ge 1 ] || { echo "usage: scripts/check-prefix.sh BUILD FOLDER..." >&2; exit 2; }
build=$1
shift
bad=0
ok_name() { # $1 = name, $2 = prefix
    case "$1" in "$2" | "$2"_*) return 0 ;; *) return 1 ;; esac
}
for d in "$@"; do
    [ -d "$d" ] || continue
    for c in "$d"/sbw_*.c; do
        [ -f "$c" ] || continue
        x=$(basename "$c" .c)
        o="$build/$d/$x.o"
        if [ ! -f "$o" ]; then
            echo "check-prefix: $o missing (build first: make $o)"
            bad=1
            continue
        fi
        for s in $(nm --defined-only -g "$o" | awk '{print $3}' | sed 's/^\.gomp_critical_user_//'); do
            ok_name "$s" "$x" || { echo "$c: exports $s, not $x or ${x}_*"; bad=1; }
        done
    done
    for h in "$d"/sbw_*.h; do
        [ -f "$h" ] || continue
        x=$(basename "$h" .h)
        X=$(echo "$x" | tr '[:lower:]' '[:upper:]')
        # tags and typedef names: "struct T {", "typedef ... T;", "} T;" after a typedef
        types=$(sed -n -e 's/^[[:space:]]*\(typedef[[:space:]]\+\)\{0,1\}\(struct\|enum\|union\)[[:space:]]\+\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*{.*/\3/p' \
            -e 's/^typedef[^;(]*[[:space:]*]\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*;.*/\1/p' \
            -e 's/^typedef[^;]*(\*\([A-Za-z_][A-Za-z0-9_]*\))[[:space:]]*(.*/\1/p' \
            -e 's/^}[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*;.*/\1/p' "$h")
        for t in $(echo "$types" | sort -u); do
            ok_name "$t" "$x" || { echo "$h: type $t, not $x or ${x}_*"; bad=1; }
        done
        for m in $(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\+\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$h"); do
            ok_name "$m" "$X" || { echo "$h: macro $m, not $X or ${X}_*"; bad=1; }
        done
    done
done
exit $bad
