/* sbw_ledger.c -- a workspace's buffers in one list (see sbw_ledger.h). */
#include "sbw_ledger.h"

#include "sbw_error.h"
#include "sbw_mat.h"

#include <stdlib.h>
#include <string.h>

/* Room for one more pointer in the list: 0 or SBW_ENOMEM. */
static int ledger_grow(sbw_ledger *l)
{
    if (l->n < l->cap)
        return SBW_OK;
    size_t cap = l->cap ? 2 * l->cap : 64;
    void **a = realloc(l->bufs, cap * sizeof *a);
    if (!a)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (%s)", l->what ? l->what : "workspace");
    l->bufs = a, l->cap = cap;
    return SBW_OK;
}

void *sbw_ledger_alloc(sbw_ledger *l, size_t count, size_t size, int *st)
{
    if (*st)
        return NULL;
    size_t n = count ? count : 1, bytes = 0;
    if ((*st = sbw_mat_bytes(n, 1, size, &bytes)) || (*st = ledger_grow(l)))
        return NULL;
    size_t padded = bytes ? (bytes + 63) / 64 * 64 : 64; /* aligned_alloc: a multiple */
    void *p = aligned_alloc(64, padded);
    if (!p) {
        *st = SBW_ERROR(SBW_ENOMEM, "cannot allocate %.3g MB of %s (%zu x %zu bytes)",
                        (double)padded / 1e6, l->what ? l->what : "workspace", n, size);
        return NULL;
    }
    memset(p, 0, padded);
    l->bufs[l->n++] = p;
    l->bytes += (double)n * (double)size;
    return p;
}

void sbw_ledger_free(sbw_ledger *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->bufs[i]);
    free(l->bufs);
    *l = (sbw_ledger){.what = l->what};
}
