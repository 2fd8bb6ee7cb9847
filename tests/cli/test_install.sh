# CLI checks of `make install` (a dry run of a full rebuild, -n -B: nothing
# is built or copied, every command is printed): it
# ships the tools, a library without the naive twins (*_ref.o) and only the
# public headers -- no twin header (*_ref.h) and no template header
# (*_tmpl.h, sbw_prec.h).
. tests/cli/lib.sh

make -n -B --no-print-directory install DESTDIR="$T/root" >"$T/plan" 2>"$T/err"
expect_eq "$?" 0 "make -n install"
grep -E '^install -m 644 .*\.h( |$)' "$T/plan" | tr ' ' '\n' | grep -E '\.h$' >"$T/headers"
expect_grep 'core/sbw_table\.h' "$T/headers" "a public header is installed"
expect_grep 'models/sbw_pass\.h' "$T/headers" "the head API is installed"
if grep -Eq '_ref\.h$|_tmpl\.h$|sbw_prec\.h$' "$T/headers"; then
    bad "twin or template headers installed: $(grep -E '_ref\.h$|_tmpl\.h$|sbw_prec\.h$' "$T/headers" | tr '\n' ' ')"
else ok; fi
lib=$(grep -E '^install -m 644 .*libsbw\.a' "$T/plan" | awk '{print $4}')
expect_eq "${lib##*/}" "libsbw.a" "the library is installed"
# The archive it installs is made from the objects without the twins.
grep -E " rcs [^ ]*/install/libsbw\.a " "$T/plan" >"$T/ar"
expect_lines 1 "$T/ar" "the installed library is archived"
if grep -q '_ref\.o' "$T/ar"; then bad "the installed library holds twins"; else ok; fi
finish
