/* sbw_mat.c -- dense row-major matrices. */
#include "sbw_mat.h"

#include "sbw_error.h"
#include "sbw_preflight.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SBW_MAT_ALIGN 64

int sbw_mat_bytes(size_t rows, size_t cols, size_t size, size_t *bytes)
{
    if (cols != 0 && rows > SIZE_MAX / cols)
        return SBW_ERROR(SBW_ENOMEM, "matrix %zu x %zu overflows size_t", rows, cols);
    size_t n = rows * cols;
    if (size != 0 && n > (size_t)PTRDIFF_MAX / size)
        return SBW_ERROR(SBW_ENOMEM, "matrix %zu x %zu of %zu-byte items is too large", rows, cols,
                         size);
    *bytes = n * size;
    return SBW_OK;
}

/* aligned_alloc needs a size that is a multiple of the alignment. */
static void *alloc_zeroed(size_t bytes)
{
    size_t padded = (bytes + SBW_MAT_ALIGN - 1) / SBW_MAT_ALIGN * SBW_MAT_ALIGN;
    if (padded == 0)
        padded = SBW_MAT_ALIGN;
    void *p = aligned_alloc(SBW_MAT_ALIGN, padded);
    if (p)
        memset(p, 0, padded);
    return p;
}

/* The memory preflight of a rows x cols matrix of items of size bytes. */
static int check_memory(size_t rows, size_t cols, size_t size)
{
    char what[96];
    double bytes = (double)rows * (double)cols * (double)size;
    if (bytes < (double)(64u << 20))
        return SBW_OK; /* not worth a sysconf */
    snprintf(what, sizeof what, "a %zu x %zu matrix of %s", rows, cols,
             size == sizeof(double) ? "float64" : "float32");
    return sbw_preflight_memory(bytes, what);
}

/* The body of sbw_mat_alloc and sbw_mat_f32_alloc: a zeroed, aligned
 * buffer of rows x cols items of size bytes in *data, after the size and
 * memory checks; *data untouched on failure. */
static int alloc_items(void **data, size_t rows, size_t cols, size_t size)
{
    size_t bytes = 0;
    int st = sbw_mat_bytes(rows, cols, size, &bytes);
    st = st ? st : check_memory(rows, cols, size);
    if (st)
        return st;
    void *p = alloc_zeroed(bytes);
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate %zu x %zu %s (%.3g GB)", rows, cols,
                         size == sizeof(double) ? "doubles" : "floats", (double)bytes / 1e9);
    *data = p;
    return SBW_OK;
}

int sbw_mat_alloc(sbw_mat *m, size_t rows, size_t cols)
{
    void *data = NULL;
    int st = alloc_items(&data, rows, cols, sizeof(double));
    if (!st)
        *m = (sbw_mat){.rows = rows, .cols = cols, .ld = cols, .data = data, .owner = true};
    return st;
}

int sbw_mat_f32_alloc(sbw_mat_f32 *m, size_t rows, size_t cols)
{
    void *data = NULL;
    int st = alloc_items(&data, rows, cols, sizeof(float));
    if (!st)
        *m = (sbw_mat_f32){.rows = rows, .cols = cols, .ld = cols, .data = data, .owner = true};
    return st;
}

/* A bigger aligned buffer for an owned, contiguous matrix: the old rows
 * copied, the new ones zero.  Until the copy is done both buffers are
 * live, so the memory preflight counts old + new. */
static int grow_rows(void **data, size_t old_rows, size_t rows, size_t cols, size_t size)
{
    size_t bytes = 0, old_bytes = old_rows * cols * size;
    int st = sbw_mat_bytes(rows, cols, size, &bytes);
    if (!st && (double)old_bytes + (double)bytes >= (double)(64u << 20)) {
        char what[128];
        snprintf(what, sizeof what, "growing a %zu x %zu matrix of %s to %zu rows (old and new)",
                 old_rows, cols, size == sizeof(double) ? "float64" : "float32", rows);
        st = sbw_preflight_memory((double)old_bytes + (double)bytes, what);
    }
    if (st)
        return st;
    void *p = alloc_zeroed(bytes);
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "cannot grow a matrix to %zu x %zu (%.3g GB)", rows, cols,
                         (double)bytes / 1e9);
    if (old_bytes)
        memcpy(p, *data, old_bytes);
    free(*data);
    *data = p;
    return SBW_OK;
}

/* The body of sbw_mat_grow and sbw_mat_f32_grow: *data and *nrows of an
 * owned matrix of items of size bytes, updated only on success. */
static int grow_owned(void **data, size_t *nrows, size_t cols, size_t ld, bool owner, size_t rows,
                      size_t size)
{
    if (rows <= *nrows)
        return SBW_OK;
    if (!owner || ld != cols)
        return SBW_ERROR(SBW_EINVAL, "only an owned contiguous matrix can grow");
    int st = grow_rows(data, *nrows, rows, cols, size);
    if (!st)
        *nrows = rows;
    return st;
}

int sbw_mat_grow(sbw_mat *m, size_t rows)
{
    void *p = m->data;
    int st = grow_owned(&p, &m->rows, m->cols, m->ld, m->owner, rows, sizeof(double));
    m->data = p;
    return st;
}

int sbw_mat_f32_grow(sbw_mat_f32 *m, size_t rows)
{
    void *p = m->data;
    int st = grow_owned(&p, &m->rows, m->cols, m->ld, m->owner, rows, sizeof(float));
    m->data = p;
    return st;
}

size_t sbw_mat_stream_rows(size_t rows, size_t cols, size_t size)
{
    size_t row = cols * size, r0 = row ? SBW_MAT_STREAM_BYTES / row : rows;
    r0 = r0 ? r0 : 1;
    return r0 < rows ? r0 : rows;
}

size_t sbw_mat_next_rows(size_t have, size_t need, size_t limit)
{
    if (need <= have)
        return have;
    limit = limit > need ? limit : need; /* a need past the limit still gets its rows */
    size_t next = have < limit - have ? 2 * have : limit; /* doubling, capped */
    next = next > need ? next : need;
    return next < limit ? next : limit;
}

int sbw_mat_reserve(sbw_mat *m, size_t need, size_t limit)
{
    return sbw_mat_grow(m, sbw_mat_next_rows(m->rows, need, limit));
}

int sbw_mat_f32_reserve(sbw_mat_f32 *m, size_t need, size_t limit)
{
    return sbw_mat_f32_grow(m, sbw_mat_next_rows(m->rows, need, limit));
}

void sbw_mat_free(sbw_mat *m)
{
    if (!m)
        return;
    if (m->owner)
        free(m->data);
    *m = (sbw_mat){0};
}

void sbw_mat_f32_free(sbw_mat_f32 *m)
{
    if (!m)
        return;
    if (m->owner)
        free(m->data);
    *m = (sbw_mat_f32){0};
}

sbw_mat sbw_mat_view(double *data, size_t rows, size_t cols, size_t ld)
{
    return (sbw_mat){.rows = rows, .cols = cols, .ld = ld, .data = data, .owner = false};
}

sbw_mat sbw_mat_rows(const sbw_mat *m, size_t r0, size_t nr)
{
    return sbw_mat_view(m->data + r0 * m->ld, nr, m->cols, m->ld);
}

static int check_same_shape(size_t r1, size_t c1, size_t r2, size_t c2)
{
    if (r1 != r2 || c1 != c2)
        return SBW_ERROR(SBW_ESHAPE, "shapes differ: %zu x %zu vs %zu x %zu", r1, c1, r2, c2);
    return SBW_OK;
}

int sbw_mat_copy(sbw_mat *dst, const sbw_mat *src)
{
    int st = check_same_shape(dst->rows, dst->cols, src->rows, src->cols);
    if (st)
        return st;
    for (size_t i = 0; i < src->rows; i++)
        memmove(dst->data + i * dst->ld, src->data + i * src->ld, src->cols * sizeof(double));
    return SBW_OK;
}

int sbw_mat_to_float(sbw_mat_f32 *dst, const sbw_mat *src)
{
    int st = check_same_shape(dst->rows, dst->cols, src->rows, src->cols);
    if (st)
        return st;
    for (size_t i = 0; i < src->rows; i++)
        for (size_t j = 0; j < src->cols; j++)
            SBW_MAT_AT(dst, i, j) = (float)SBW_MAT_AT(src, i, j);
    return SBW_OK;
}

int sbw_mat_f32_to_double(sbw_mat *dst, const sbw_mat_f32 *src)
{
    int st = check_same_shape(dst->rows, dst->cols, src->rows, src->cols);
    if (st)
        return st;
    for (size_t i = 0; i < src->rows; i++)
        for (size_t j = 0; j < src->cols; j++)
            SBW_MAT_AT(dst, i, j) = (double)SBW_MAT_AT(src, i, j);
    return SBW_OK;
}

int sbw_mat_max_abs_diff(const sbw_mat *a, const sbw_mat *b, double *out)
{
    int st = check_same_shape(a->rows, a->cols, b->rows, b->cols);
    if (st)
        return st;
    double mx = 0.0;
    for (size_t i = 0; i < a->rows; i++)
        for (size_t j = 0; j < a->cols; j++) {
            double d = fabs(SBW_MAT_AT(a, i, j) - SBW_MAT_AT(b, i, j));
            if (d > mx || isnan(d))
                mx = d;
        }
    *out = mx;
    return SBW_OK;
}
