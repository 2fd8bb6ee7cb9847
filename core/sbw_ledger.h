/* sbw_ledger.h -- the buffers of one workspace in one list: each zeroed
 * and 64-byte aligned, all freed together, and the bytes they took.  The
 * head pass (models/sbw_pass) and the language model (lm/sbw_lm) build
 * their workspaces with it, one call per buffer, checking the status once
 * at the end.
 */
#ifndef SBW_LEDGER_H
#define SBW_LEDGER_H

#include <stddef.h>

typedef struct sbw_ledger {
    const char *what; /* names the workspace in an out-of-memory message */
    void **bufs;      /* every buffer given, for sbw_ledger_free */
    size_t n, cap;
    double bytes; /* sum of max(count, 1) * size over the buffers given */
} sbw_ledger;

/* A zeroed, 64-byte aligned buffer of count elements of size bytes (count
 * 0 gives one element, so the pointer is never NULL on success), owned by
 * the ledger.  Does nothing and returns NULL once *st is set; on failure
 * sets *st (SBW_ENOMEM, also when count * size overflows) and returns
 * NULL, the ledger still holding every earlier buffer. */
void *sbw_ledger_alloc(sbw_ledger *l, size_t count, size_t size, int *st);

/* Frees every buffer and the list; the ledger is then empty (what kept)
 * and may be used again.  NULL is a no-op. */
void sbw_ledger_free(sbw_ledger *l);

#endif
