/* sbw_mat.h -- dense row-major matrices of double (sbw_mat) and float
 * (sbw_mat_f32), with explicit rows, cols and leading dimension.
 *
 * Element (i, j) lives at data[i * ld + j], ld >= cols.  A matrix either
 * owns its data (made by sbw_mat_alloc, released by sbw_mat_free) or is a
 * view into another matrix's data (sbw_mat_view, sbw_mat_rows): a view is
 * never freed, and must not outlive what it views.  sbw_mat_free on a view
 * or on a zeroed struct is a no-op, so `sbw_mat m = {0}; ... fail:
 * sbw_mat_free(&m);` is always safe.
 */
#ifndef SBW_MAT_H
#define SBW_MAT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sbw_mat {
    size_t rows, cols, ld;
    double *data;
    bool owner;
} sbw_mat;

typedef struct sbw_mat_f32 {
    size_t rows, cols, ld;
    float *data;
    bool owner;
} sbw_mat_f32;

#define SBW_MAT_AT(m, i, j) ((m)->data[(size_t)(i) * (m)->ld + (size_t)(j)])

/* Checked rows * cols * size: SBW_OK and *bytes set, or SBW_ENOMEM when the
 * product overflows size_t or exceeds PTRDIFF_MAX; *bytes untouched on
 * failure. */
int sbw_mat_bytes(size_t rows, size_t cols, size_t size, size_t *bytes);

/* Allocates a zero-filled rows x cols matrix with ld = cols (64-byte
 * aligned).  rows or cols may be 0.  A matrix of 64 MiB or more is first
 * checked against the machine's memory (sbw_preflight_memory: refused
 * with the size and the SBW_MAX_MEMORY override).  Errors: SBW_ENOMEM
 * (also a size that overflows); SBW_EINVAL (a bad SBW_MAX_MEMORY); *m
 * untouched on failure. */
int sbw_mat_alloc(sbw_mat *m, size_t rows, size_t cols);
int sbw_mat_f32_alloc(sbw_mat_f32 *m, size_t rows, size_t cols);

/* Grows an owned contiguous matrix (from sbw_mat_alloc) to rows rows,
 * keeping its rows and zero-filling the new ones (a new aligned buffer;
 * the old one is freed); fewer rows than it has is a no-op.  For readers
 * that fill a matrix as a stream delivers it, so a header's claim is not
 * allocated before the data arrives.  Old and new buffers are briefly both
 * held: the memory preflight counts the two.  Errors: as sbw_mat_alloc;
 * SBW_EINVAL for a view; m untouched on failure. */
int sbw_mat_grow(sbw_mat *m, size_t rows);
int sbw_mat_f32_grow(sbw_mat_f32 *m, size_t rows);

/* The one growth rule of a matrix filled as a stream delivers rows, of at
 * most limit rows (the header's claim, never allocated up front):
 *   start   sbw_mat_stream_rows: SBW_MAT_STREAM_BYTES of rows (at least 1),
 *           at most rows;
 *   grow    sbw_mat_reserve(m, need, limit): when m has fewer than need
 *           rows, to max(need, 2 * rows) capped at limit (need <= limit),
 *           so a short stream fails at its truncation having held about
 *           twice what was sent, and a full one is copied O(log) times.
 * sbw_mat_next_rows is the rule as a number (have when need <= have).
 * Errors of reserve: those of sbw_mat_grow; m untouched on failure. */
#define SBW_MAT_STREAM_BYTES ((size_t)16 << 20)
size_t sbw_mat_stream_rows(size_t rows, size_t cols, size_t size);
size_t sbw_mat_next_rows(size_t have, size_t need, size_t limit);
int sbw_mat_reserve(sbw_mat *m, size_t need, size_t limit);
int sbw_mat_f32_reserve(sbw_mat_f32 *m, size_t need, size_t limit);

/* Frees an owning matrix and zeroes the struct; no-op for views and NULL. */
void sbw_mat_free(sbw_mat *m);
void sbw_mat_f32_free(sbw_mat_f32 *m);

/* A non-owning view of data as a rows x cols matrix with leading dim ld. */
sbw_mat sbw_mat_view(double *data, size_t rows, size_t cols, size_t ld);

/* A view of rows [r0, r0 + nr) of m.  The caller keeps r0 + nr <= rows. */
sbw_mat sbw_mat_rows(const sbw_mat *m, size_t r0, size_t nr);

/* dst = src elementwise; shapes must match (SBW_ESHAPE otherwise; dst
 * untouched on failure).  dst may overlap src row for row (memmove). */
int sbw_mat_copy(sbw_mat *dst, const sbw_mat *src);

/* Conversions between double and float storage; shapes must match
 * (SBW_ESHAPE otherwise; dst untouched on failure). */
int sbw_mat_to_float(sbw_mat_f32 *dst, const sbw_mat *src);
int sbw_mat_f32_to_double(sbw_mat *dst, const sbw_mat_f32 *src);

/* Largest |a_ij - b_ij| over two same-shaped matrices (NaN when a
 * difference is NaN; SBW_ESHAPE if not, *out untouched on failure). */
int sbw_mat_max_abs_diff(const sbw_mat *a, const sbw_mat *b, double *out);

#endif
