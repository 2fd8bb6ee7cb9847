#!/bin/sh
# scripts/check-defs.sh (make lint): a function made by token pasting, or
# defined with its name first on the line, is reported until a defines:
# line (or the return type beside the name) lets grep find it.  Needs
# ctags and nm (make lint's tools): without ctags the checks are skipped.
. tests/cli/lib.sh
if ! command -v ctags >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
    echo "test_check_defs: ctags or nm not installed, skipped"
    finish
fi
CC=${CC:-cc}
mkdir -p "$T/src" "$T/build"
cat >"$T/src/tmpl.h" <<'C'
static int PASTE(twice)(int a) { return 2 * a; }
C
write_src() { # $1: the line above the instance; $2: "int" alone or "int a_plain(int a)"
    cat >"$T/src/a.c" <<C
$1
#define PASTE(x) x##_f
#include "tmpl.h"
#undef PASTE
#define PASTE(x) x##_d
#include "tmpl.h"
int a_plain(int a);
int a_entry(int a);
int a_entry(int a) { return twice_f(a) + twice_d(a) + a_plain(a); }
$2
C
    cat >>"$T/src/a.c" <<'C'
{
    return a;
}
C
    "$CC" -c -O0 -I"$T/src" "$T/src/a.c" -o "$T/build/a.o"
}
write_src "" "int
a_plain(int a)"
expect_exit 1 "a pasted name without defines: fails" scripts/check-defs.sh "$T/build" "$T/src"
expect_grep "'twice_f\(' finds no definition" "$T/out" "the pasted name is named"
expect_grep "'a_plain\(' finds no definition" "$T/out" "a definition with the name first is named"
if grep -q "a_entry" "$T/out"; then bad "a_entry is found at its definition"; else ok; fi
write_src "/* defines: twice_f(), twice_d() */" "int a_plain(int a)"
expect_exit 0 "defines: line and return type on the name's line pass" scripts/check-defs.sh "$T/build" "$T/src"
expect_exit 2 "usage" scripts/check-defs.sh "$T/build"
finish
