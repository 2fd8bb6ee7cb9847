#!/bin/sh
# Every public function that can change a caller's object says what is left
# after a failure (docs/DESIGN.md, "Conventions": errors).  As far as a
# script can tell: every function declared in a header of FOLDER... (not a
# *_tmpl.h) that returns int (a status) and takes a pointer to something
# non-const (an object it may change, a buffer or out-parameter it writes,
# a FILE, a workspace) has a comment that says so, with "on failure",
# "after a failure" or "on error" (any case) in it.  The comment is the
# one directly above the declaration (functions declared together under
# one comment share it) or, where the module documents its functions in
# the .c file instead, the one directly above the definition.  Whether
# what the comment says is true is for the reader and the tests; the
# script only finds a function that says nothing.  One line per miss
# (FILE:LINE: NAME), exit 1 if any.
# Usage: scripts/check-contracts.sh FOLDER...
set -u
[ $# -ge 1 ] || { echo "usage: scripts/check-contracts.sh FOLDER..." >&2; exit 2; }
command -v ctags >/dev/null || { echo "check-contracts: ctags (universal-ctags) not installed" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
hdrs=$(find "$@" -name '*.h' ! -name '*_tmpl.h' -type f | LC_ALL=C sort)
srcs=$(find "$@" -name '*.c' -type f | LC_ALL=C sort)
[ -n "$hdrs" ] || { echo "check-contracts: no headers under $*" >&2; exit 2; }
# "name<TAB>file<TAB>line<TAB>return type<TAB>signature" of the prototypes
# and of the definitions (kind p in headers, f in sources).
# shellcheck disable=SC2086
ctags -x --c-kinds=p --language-force=C --_xformat='%N	%F	%n	%{typeref}	%S' $hdrs \
    >"$tmp/protos" || exit 2
# shellcheck disable=SC2086
[ -z "$srcs" ] || ctags -x --c-kinds=f --language-force=C --_xformat='%N	%F	%n' $srcs \
    >"$tmp/defs" || exit 2
[ -f "$tmp/defs" ] || : >"$tmp/defs"
# The candidates: an int return and a parameter that points at something
# non-const (a '*' whose pointee is not const: not "const T *", not
# "T *const *").
awk -F'\t' '$4 == "typename:int" {
        s = $5; sub(/^\(/, "", s); sub(/\)$/, "", s)
        n = split(s, p, ",")
        for (i = 1; i <= n; i++) {
            q = p[i]; sub(/^ +/, "", q)
            stars = gsub(/\*/, "*", q)
            if (stars == 0) continue
            pointee = q; sub(/\*[^*]*$/, "", pointee); sub(/ +$/, "", pointee)
            if (pointee ~ /(^| )const$/ || (stars == 1 && q ~ /^const /)) continue
            print $1 "\t" $2 "\t" $3; break
        }
    }' "$tmp/protos" >"$tmp/cand"
# The comment ending nearest above LINE of FILE, when only declarations
# (or blank lines) stand between: its text, flattened.  Prints nothing if
# another comment-less function body ('}' at the start of a line) or a
# preprocessor guard stands between.
comment_above() { # FILE LINE
    awk -v want="$2" '
        NR < want { line[NR] = $0 }
        NR == want {
            for (i = want - 1; i >= 1; i--) {
                if (line[i] ~ /\*\/[ \t]*$/) break
                if (line[i] ~ /^(}[ \t]*$|#(if|else|endif|include))/) exit
            }
            if (i < 1) exit
            for (j = i; j >= 1; j--) {
                t = line[j]; sub(/^[ \t]*\*+[ \t]*/, "", t)
                out = t " " out
                if (line[j] ~ /\/\*/) break
            }
            gsub(/[ \t]+/, " ", out)
            print out
            exit
        }' "$1"
}
says() { grep -Eiq 'on failure|after a failure|on error'; }
bad=0
while IFS='	' read -r name file line; do
    if comment_above "$file" "$line" | says; then continue; fi
    # the definition's comment, where the module documents in its .c
    found=0
    while IFS='	' read -r dn dfile dline; do
        [ "$dn" = "$name" ] || continue
        if comment_above "$dfile" "$dline" | says; then found=1; fi
    done <"$tmp/defs"
    [ "$found" -eq 1 ] && continue
    echo "check-contracts: $file:$line: $name changes a caller's object but no comment says what is left on failure"
    bad=1
done <"$tmp/cand"
exit "$bad"
