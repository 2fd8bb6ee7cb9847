/* malloc0_null.c -- a malloc whose malloc(0) returns NULL, as C11
 * (7.22.3) allows and some C libraries do (glibc's returns a pointer).
 * Linked into the suites the Makefile names with -Wl,--wrap=malloc: every
 * call to malloc from their objects and libsbw.a's comes here, so code
 * that takes a size-0 request's NULL for a lack of memory fails there as
 * it would on such a libc. */
#include <stddef.h>

void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);

/* malloc(n), but NULL for n = 0. */
void *__wrap_malloc(size_t n) { return n ? __real_malloc(n) : NULL; }
