/* sbw_argmax_io.c -- sbw-argmax's inputs (see the header). */
#include "sbw_argmax_io.h"

#include "sbw_check.h"
#include "sbw_error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbw_argmax_io_open_w(sbw_npy_reader **r, const char *path, size_t *m, size_t *d)
{
    int st = sbw_check_open(r, path, SBW_SHAPE_MATRIX);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(*r);
    *m = in->rows;
    *d = in->cols;
    if (*m < 2) { /* in belongs to the reader */
        sbw_npy_close(*r);
        *r = NULL;
        return SBW_ERROR(SBW_ESHAPE, "%s: a head of %zu word: need at least 2 rows (one per word)",
                         path, *m);
    }
    return SBW_OK;
}

int sbw_argmax_io_read_w(sbw_npy_reader *r, const char *path, sbw_mat *out)
{
    int st = sbw_npy_read_all(r, out);
    sbw_check_bad bad = {0};
    if (!st)
        sbw_check_bad_rows(&bad, out->data, 0, out->rows, out->cols, out->ld);
    st = st ? st : sbw_check_bad_error(&bad, path, NULL);
    sbw_npy_close(r);
    if (st)
        sbw_mat_free(out);
    return st;
}

int sbw_argmax_io_read_bias(const char *path, size_t m, const char *wpath, double **out)
{
    *out = NULL;
    sbw_npy_reader *r = NULL;
    sbw_mat b = {0};
    int st = sbw_check_open(&r, path, SBW_SHAPE_VECTOR);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    if (in->rows * in->cols != m) {
        st = SBW_ERROR(SBW_ESHAPE, "%s: %zu bias values for a head of %zu words (%s)", path,
                       in->rows * in->cols, m, wpath);
        sbw_npy_close(r);
        return st;
    }
    st = sbw_argmax_io_read_w(r, path, &b); /* reads, checks finite, closes */
    double *bv = st ? NULL : malloc(m * sizeof *bv);
    if (!st && !bv)
        st = SBW_ERROR(SBW_ENOMEM, "%s: no memory for %zu biases", path, m);
    for (size_t j = 0; !st && j < m; j++)
        bv[j] = b.cols == 1 ? b.data[j * b.ld] : b.data[j];
    sbw_mat_free(&b);
    *out = bv;
    return st;
}

/* FNV-1a over n bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t k = 0; k < n; k++)
        h = (h ^ c[k]) * 1099511628211u;
    return h;
}

/* FNV-1a over v's 8 bytes, least significant first (its bytes in memory
 * on a little-endian host, so the hash is the one it always was). */
static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char c[8];
    for (int k = 0; k < 8; k++)
        c[k] = (unsigned char)(v >> (8 * k));
    return fnv(h, c, sizeof c);
}

uint64_t sbw_argmax_io_hash(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                            char *const *names)
{
    uint64_t h = fnv_u64(fnv_u64(14695981039346656037u, m), d);
    for (size_t i = 0; i < m; i++)
        h = fnv(h, w + i * ldw, d * sizeof *w);
    h = fnv(h, "b", 1 + (b == NULL));
    if (b)
        h = fnv(h, b, m * sizeof *b);
    h = fnv(h, "n", 1 + (names == NULL));
    for (size_t i = 0; names && i < m; i++)
        h = fnv(h, names[i], strlen(names[i]) + 1);
    return h;
}

void sbw_argmax_io_names_free(char **names, size_t m)
{
    for (size_t i = 0; names && i < m; i++)
        free(names[i]);
    free(names);
}

int sbw_argmax_io_read_vocab(const char *path, size_t m, char ***out)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return SBW_ERROR(SBW_EIO, "%s: cannot open the vocabulary: %s", path, strerror(errno));
    char **v = calloc(m, sizeof *v), *line = NULL;
    size_t cap = 0, n = 0;
    ssize_t len;
    int st = v ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "%s: no memory for %zu names", path, m);
    while (!st && (len = getline(&line, &cap, f)) >= 0) {
        if (memchr(line, '\0', (size_t)len))
            st = SBW_ERROR(SBW_EDATA, "%s: line %zu has a NUL byte", path, n + 1);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        for (char *p = line; *p; p++)
            if (*p == '\t')
                *p = ' ';
        if (!st && n < m && !(v[n] = strdup(line)))
            st = SBW_ERROR(SBW_ENOMEM, "%s: no memory for %zu names", path, m);
        n++;
    }
    if (!st && ferror(f))
        st = SBW_ERROR(SBW_EIO, "%s: read error: %s", path, strerror(errno));
    if (!st && n != m)
        st = SBW_ERROR(SBW_EDATA, "%s: %zu names for a head of %zu words (one per line)", path, n,
                       m);
    free(line);
    fclose(f);
    if (st) {
        sbw_argmax_io_names_free(v, m);
        v = NULL;
    }
    *out = v;
    return st;
}
