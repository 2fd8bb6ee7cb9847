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
 * product overflows size_t or exceeds PTRDIFF_MAX. */
int sbw_mat_bytes(size_t rows, size_t cols, size_t size, size_t *bytes);

/* Allocates a zero-filled rows x cols matrix with ld = cols (64-byte
 * aligned).  rows or cols may be 0.  A matrix of 64 MiB or more is first
 * checked against the machine's memory (sbw_preflight_memory: refused
 * with the size and the SBW_MAX_MEMORY override).  Errors: SBW_ENOMEM
 * (also a size that overflows); SBW_EINVAL (a bad SBW_MAX_MEMORY); *m
 * untouched. */
int sbw_mat_alloc(sbw_mat *m, size_t rows, size_t cols);
int sbw_mat_f32_alloc(sbw_mat_f32 *m, size_t rows, size_t cols);

/* Grows an owned contiguous matrix (from sbw_mat_alloc) to rows rows,
 * keeping its rows and zero-filling the new ones (a new aligned buffer;
 * the old one is freed); fewer rows than it has is a no-op.  For readers
 * that fill a matrix as a stream delivers it, so a header's claim is not
 * allocated before the data arrives.  Errors: as sbw_mat_alloc; SBW_EINVAL
 * for a view; m untouched on failure. */
int sbw_mat_grow(sbw_mat *m, size_t rows);
int sbw_mat_f32_grow(sbw_mat_f32 *m, size_t rows);

/* Frees an owning matrix and zeroes the struct; no-op for views and NULL. */
void sbw_mat_free(sbw_mat *m);
void sbw_mat_f32_free(sbw_mat_f32 *m);

/* A non-owning view of data as a rows x cols matrix with leading dim ld. */
sbw_mat sbw_mat_view(double *data, size_t rows, size_t cols, size_t ld);

/* A view of rows [r0, r0 + nr) of m.  The caller keeps r0 + nr <= rows. */
sbw_mat sbw_mat_rows(const sbw_mat *m, size_t r0, size_t nr);

/* dst = src elementwise; shapes must match (SBW_ESHAPE otherwise). */
int sbw_mat_copy(sbw_mat *dst, const sbw_mat *src);

/* Conversions between double and float storage; shapes must match. */
int sbw_mat_to_float(sbw_mat_f32 *dst, const sbw_mat *src);
int sbw_mat_f32_to_double(sbw_mat *dst, const sbw_mat_f32 *src);

/* Largest |a_ij - b_ij| over two same-shaped matrices (SBW_ESHAPE if not). */
int sbw_mat_max_abs_diff(const sbw_mat *a, const sbw_mat *b, double *out);

#endif
