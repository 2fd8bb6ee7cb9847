#!/bin/sh
# Every function defined in the code base is found by grep at its
# definition (docs/DESIGN.md, "Conventions": names): for every function
# NAME, `grep -rn 'NAME(' --include='*.[ch]' FOLDER...` must show either
# the line that defines it (return type and name on one line, as the style
# asks) or a `/* defines: NAME(), ... */` line above the template
# instantiation that generates it (core/sbw_prec.h).
#
# Which functions exist, from three sources:
#   1. ctags (Universal Ctags, --c-kinds=f) over every .c and .h: the
#      written definitions, static and global, including static inline
#      functions the compiler inlined away; each with its file and line;
#   2. nm --defined-only of every object under BUILD (T/t/W symbols, so
#      global AND static functions the compiler kept; GCC's clones
#      NAME.part.N, NAME.constprop.N, NAME._omp_fn.N, NAME.cold and the vector variants
#      _ZGV..._NAME of "omp declare simd" count as NAME): catches names
#      made by token pasting, which no text shows;
#   3. the templates: a definition ctags reports under a macro name
#      (`static int SBW_FN(forward)(...)`, any all-capitals MACRO(word))
#      generates word_f and word_d, the code base's one suffix rule, also
#      when the compiler inlined both away.
# A name passes when one of grep's hits for "NAME(" is its ctags
# definition line with something before the name on that line (the
# return type), or a line holding "defines:" and "NAME()".  Names that
# only the build's libraries bring (main, compiler helpers) are not
# special-cased: main is defined in the tools and found like any other.
# One line per miss, exit 1 if any.
# Usage: scripts/check-defs.sh BUILD FOLDER...
set -u
[ $# -ge 2 ] || { echo "usage: scripts/check-defs.sh BUILD FOLDER..." >&2; exit 2; }
build=$1
shift
command -v ctags >/dev/null || { echo "check-defs: ctags (universal-ctags) not installed" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
files=$(find "$@" -name '*.[ch]' -type f | LC_ALL=C sort)
[ -n "$files" ] || { echo "check-defs: no sources under $*" >&2; exit 2; }
# 1 and 3: "name file line" of every written definition; pasted names.
# shellcheck disable=SC2086
ctags -x --c-kinds=f --language-force=C $files >"$tmp/ctags" || exit 2
awk '{ print $1, $4, $3 }' "$tmp/ctags" >"$tmp/defs"
awk '$1 ~ /^[A-Z][A-Z0-9_]*$/ {
        t = substr($0, index($0, $1 "("))
        if (match(t, /^[A-Z][A-Z0-9_]*\([a-z_][a-z0-9_]*\)\(/)) {
            w = substr(t, index(t, "(") + 1); w = substr(w, 1, index(w, ")") - 1)
            print w "_f"; print w "_d"
        }
    }' "$tmp/ctags" >"$tmp/pasted"
# 2: the objects' function symbols.
find "$build" -name '*.o' -type f -exec nm --defined-only {} + 2>/dev/null |
    awk 'NF == 3 && $2 ~ /^[TtWw]$/ { n = $3; sub(/^_ZGV[a-z][MN][0-9]+[a-z0-9]*_/, "", n); sub(/\..*/, "", n); if (n != "") print n }' \
        >"$tmp/nm"
# Every name to find (C identifiers only; the defs' macro names too).
cat "$tmp/defs" | awk '{ print $1 }' | cat - "$tmp/pasted" "$tmp/nm" |
    grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | LC_ALL=C sort -u >"$tmp/names"
# Every "NAME(" occurrence: "file line NAME" (what grep -rn 'NAME(' shows).
# shellcheck disable=SC2086
grep -noE '[A-Za-z_][A-Za-z0-9_]*\(' $files /dev/null |
    awk -F: '{ n = $3; sub(/\($/, "", n); print $1, $2, n }' >"$tmp/calls"
# The defines: lines' names.
# shellcheck disable=SC2086
grep -h 'defines:' $files /dev/null | grep -oE '[A-Za-z_][A-Za-z0-9_]*\(\)' |
    sed 's/()$//' | LC_ALL=C sort -u >"$tmp/declared"
# A definition line counts when the name is not the line's first word.
awk -v ctags="$tmp/ctags" -v calls="$tmp/calls" -v declared="$tmp/declared" '
    BEGIN {
        while ((getline l < ctags) > 0) {
            split(l, f, " ")
            text = substr(l, index(l, f[4]) + length(f[4]) + 1)
            sub(/^[ \t]+/, "", text)
            if (index(text, f[1] "(") > 1) def[f[4] " " f[3] " " f[1]] = 1
        }
        while ((getline l < calls) > 0) {
            split(l, f, " ")
            if ((f[1] " " f[2] " " f[3]) in def) found[f[3]] = 1
        }
        while ((getline l < declared) > 0) found[l] = 1
    }
    !($1 in found) { print "check-defs: grep -rn '\''" $1 "('\'' finds no definition line or defines: line"; bad = 1 }
    END { exit bad }' "$tmp/names"
