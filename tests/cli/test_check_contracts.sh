#!/bin/sh
# scripts/check-contracts.sh (make lint): a public function that returns a
# status and takes a pointer to something non-const must say in its
# comment (above the declaration, or above the definition) what is left on
# failure; const-only and void functions are not asked.  Needs ctags (make
# lint's tool): without it the checks are skipped.
. tests/cli/lib.sh
if ! command -v ctags >/dev/null 2>&1; then
    echo "test_check_contracts: ctags not installed, skipped"
    finish
fi
mkdir -p "$T/src"
cat >"$T/src/a.h" <<'C'
#include <stddef.h>
typedef struct a_thing {
    int n;
} a_thing;

/* Grows t by n.  Errors: A_ENOMEM. */
int a_grow(a_thing *t, size_t n);

/* Reads t; changes nothing. */
int a_count(const a_thing *t, const char *const *names);

/* Clears t; never fails. */
void a_clear(a_thing *t);

/* Parses s into *out.  Errors: A_EINVAL; *out untouched on
 * failure. */
int a_parse(const char *s, size_t *out);
int a_parse_both(const char *s, size_t *out, size_t *more);

#include <stdio.h>
int a_documented_in_c(a_thing *t);
int a_undocumented(FILE *f);
C
cat >"$T/src/a.c" <<'C'
#include "a.h"
int a_grow(a_thing *t, size_t n) { t->n += (int)n; return 0; }
int a_count(const a_thing *t, const char *const *names) { (void)names; return t->n; }
void a_clear(a_thing *t) { t->n = 0; }
int a_parse(const char *s, size_t *out) { *out = (size_t)*s; return 0; }
int a_parse_both(const char *s, size_t *out, size_t *more) { *out = *more = (size_t)*s; return 0; }

/* Sets t; after a failure t is as it was. */
int a_documented_in_c(a_thing *t)
{
    t->n = 1;
    return 0;
}

/* Writes to f. */
int a_undocumented(FILE *f) { return fputs("x", f); }
C
expect_exit 1 "a contract-less function fails" scripts/check-contracts.sh "$T/src"
expect_grep "a\.h:7: a_grow changes a caller's object" "$T/out" "the function and its line are named"
expect_grep "a\.h:22: a_undocumented changes" "$T/out" "a FILE * writer without a contract is named"
expect_lines 2 "$T/out" "only those two (const, void, grouped and .c-documented pass)"
sed 's|/\* Grows t by n.  Errors: A_ENOMEM. \*/|/* Grows t by n.  Errors: A_ENOMEM; on failure t is unchanged. */|' \
    "$T/src/a.h" >"$T/src/a.h.new" && mv "$T/src/a.h.new" "$T/src/a.h"
sed 's|/\* Writes to f. \*/|/* Writes to f; on error f holds part of it. */|' "$T/src/a.c" >"$T/src/a.c.new" &&
    mv "$T/src/a.c.new" "$T/src/a.c"
expect_exit 0 "with their contracts they pass" scripts/check-contracts.sh "$T/src"
expect_exit 2 "usage" scripts/check-contracts.sh
finish
