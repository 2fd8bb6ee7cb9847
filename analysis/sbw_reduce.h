/* sbw_reduce.h -- a .npy matrix read once (from a file or a pipe) and
 * reduced to what the singular values of it and of its centred variants
 * need; row and column centring.  The values themselves: sbw_spectra.h.
 *
 * A is N x M (contexts x words).  The variants:
 *   plain  A
 *   rows   A (I - 11^T/M)                   row-centred: its rank is the
 *          smallest d for which a Softmax head reproduces A (MoS Prop. 1)
 *   cols   (I - 11^T/N) A                   column-centred
 *   both   (I - 11^T/N) A (I - 11^T/M)      double-centred: the same for a
 *          head with a word bias (logits H W^T + 1 b^T)
 *
 * Reading reduces the matrix to something with the same singular values:
 *   direct  the whole matrix in memory (N x M): LAPACK gesdd on it, after
 *           centring (two passes: the second removes what rounding left
 *           of the first, so the centred matrix is exact at its own scale);
 *   tsqr    (tall matrices, N > 1.5 M) a streaming TSQR (sbw_tsqr.h) of the
 *           rows b_i = [a_i - m_i 1 | sqrt(M) m_i] (m_i the row mean), with
 *           the column centring folded into the stream when a cols/both
 *           variant is wanted; memory one block of rows plus the (M+1)^2
 *           triangle R per worker, however large N is.  Deterministic:
 *           block b goes to worker b mod W, blocks are read in file order
 *           and the triangles merged in worker order, so a file or a pipe
 *           gives the same bits on every run for a given W.
 * From R every variant follows without another pass: B = [A_c | sqrt(M) m]
 * has B B^T = A A^T (as A_c 1 = 0), so sigma(A) = sigma(R); B's first M
 * columns are the row-centred A_c, whose factor is R's first M columns; and
 * the uncentred Gram is the column-centred one plus N mu mu^T, so sigma of
 * the uncentred matrix is sigma([R_c; sqrt(N) mu^T]).  Centring the rows
 * before the QR keeps the rounding of the centred variants at the scale of
 * the centred values (log-probabilities have row means far larger than
 * their spread).
 *
 * Every entry is checked: NaN or Inf anywhere makes the call fail with
 * SBW_EDATA, the counts and the first position (after the whole input has
 * been read, so the counts are complete).
 */
#ifndef SBW_REDUCE_H
#define SBW_REDUCE_H

#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum sbw_reduce_variant {
    SBW_VAR_PLAIN = 0,
    SBW_VAR_ROWS = 1, /* bit 0: centre rows */
    SBW_VAR_COLS = 2, /* bit 1: centre columns */
    SBW_VAR_BOTH = 3,
    SBW_NVARIANT = 4
} sbw_reduce_variant;

/* "none", "rows", "cols", "both" */
const char *sbw_reduce_variant_name(sbw_reduce_variant v);

typedef enum sbw_reduce_method {
    SBW_METHOD_AUTO = 0,
    SBW_METHOD_DIRECT,
    SBW_METHOD_TSQR
} sbw_reduce_method;

/* "auto", "direct", "tsqr"; and back (SBW_EINVAL naming the choices; *m
 * untouched on failure). */
const char *sbw_reduce_method_name(sbw_reduce_method m);
int sbw_reduce_method_parse(const char *s, sbw_reduce_method *m);

/* Called with each block of rows as read from the file (converted to
 * double, before any transformation), in file order, each row once:
 * rows [row0, row0 + rows) of the file, (rows, M) with leading dimension
 * ld.  A non-zero return (an SBW_E* status with its reason set) stops the
 * computation with that status.  Calls are serialised. */
typedef int (*sbw_reduce_hook)(void *ctx, const double *a, size_t row0, size_t rows, size_t ld);

/* Called once reading is done and the SVDs start (they report no
 * progress): what is being decomposed, and its smaller dimension. */
typedef void (*sbw_reduce_stage_fn)(void *ctx, const char *what, size_t k);

typedef struct sbw_reduce_opts {
    bool exp;                 /* analyse P = exp(A) instead of A */
    bool single;              /* compute in float32 (sgesdd, stpqrt) */
    sbw_reduce_method method; /* AUTO: tsqr when N > 1.5 M, else direct */
    size_t block_rows;        /* rows per TSQR block; 0: 16 MB of rows, >= 512 */
    int workers;              /* TSQR workers; 0: the BLAS thread count */
    sbw_reduce_hook hook;     /* may be NULL */
    void *hook_ctx;
    /* may be NULL: called on each block of n values as read, before the
     * hook and any transformation, to replace them in place (sbw-rank
     * --round: the values an API storing a lower precision returns) */
    void (*round)(void *ctx, double *a, size_t n);
    void *round_ctx;
    sbw_progress *progress;    /* rows read; may be NULL */
    sbw_reduce_stage_fn stage; /* may be NULL */
    void *stage_ctx;
} sbw_reduce_opts;

/* The matrix reduced to what its singular values need (see above). */
typedef struct sbw_reduce {
    const char *path;         /* the reader's path, for messages */
    size_t rows, cols;        /* N, M of the analysed matrix */
    sbw_npy_dtype dtype;      /* of the file */
    sbw_npy_dtype prec;       /* of the computation */
    sbw_reduce_method method; /* DIRECT or TSQR, as used */
    size_t block_rows;        /* TSQR: rows per block */
    int workers;              /* TSQR: workers used */
    bool cols_centred;        /* TSQR: x is the factor of the column-centred matrix */
    sbw_mat x;                /* DIRECT (float64): the matrix; TSQR: R ((M+1)^2) */
    sbw_mat_f32 xf;           /* DIRECT (float32): the matrix */
    double *mean;             /* M column means of the analysed matrix */
    double *mean_b;           /* TSQR with centring: the M + 1 column means of B */
    double rowmean_sq;        /* sum_i M m_i^2 = ||m 1^T||_F^2, m_i the row means */
    bool f32_values;          /* a float64 file whose every entry is a float32 value
                               * (one at least with float32's full 24-bit
                               * significand: not short exact numbers) */
} sbw_reduce;

/* Reads the rest of r (from row 0) and reduces it.  center_cols: the cols
 * and both variants will be wanted (TSQR then centres in the stream).
 * Errors: SBW_ESHAPE (1-D or empty input), SBW_EDATA (NaN/Inf), those of
 * sbw_npy_read_rows, SBW_ENOMEM, SBW_ENUMERIC, or the hook's.  *red is
 * zeroed on failure. */
int sbw_reduce_read(sbw_npy_reader *r, const sbw_reduce_opts *o, bool center_cols, sbw_reduce *red);

void sbw_reduce_free(sbw_reduce *red);

/* The matrix whose singular values are those of variant v, as a new
 * double matrix *out (caller frees): (N x M) in the direct case; from R
 * (M+1 or M+2 rows, M+1 columns, or its first M columns with ld M+1).  steal: take red's buffer
 * instead of copying it (red must not be used for another variant afterwards).  Errors: SBW_EINVAL
 * (a cols variant from a TSQR reduction made without center_cols; a direct float32 reduction, which
 * sbw_reduce_matrix_f32 handles), SBW_ENOMEM.  On failure *out is zeroed
 * (nothing to free) and red is unchanged. */
int sbw_reduce_matrix(sbw_reduce *red, sbw_reduce_variant v, bool steal, sbw_mat *out);

/* A lower bound on sigma_1 of the analysed matrix before centring, from
 * what the pass kept, given w0 = sigma_1 of variant v: with P_M = I -
 * 11^T/M, A = A P_M + m 1^T and A P_M = (I - 11^T/N) A P_M + 1 mu_c^T, each
 * sum orthogonal (m the row means, mu_c the column means of the
 * row-centred matrix; mu those of A for cols), so
 *   none  w0
 *   rows  max(w0, sqrt(M) ||m||)
 *   cols  max(w0, sqrt(N) ||mu||)
 *   both  max(w0, sqrt(M) ||m||, sqrt(N) ||mu_c||)
 * and sigma_1(A) lies between it and sqrt(3) times it (sqrt(2) for one
 * centring).  It is the roundoff scale of a centred variant: entries
 * stored with relative errors eps |a_ij| carry an error E whose norm the
 * NR rule puts at the uncentred matrix's scale, and centring (orthogonal
 * projections) does not shrink it (sbw_rank_estimate_scaled). */
double sbw_reduce_uncentred_w0(const sbw_reduce *red, sbw_reduce_variant v, double w0);

/* Subtracts each row's mean from a in place, in two passes (the mean, then
 * the mean of what rounding left of row - mean: the centred row sums to
 * zero at the scale of the centred values, so no rank-one row constant of
 * eps |a| survives to pass a rank threshold).  Never fails; a is always
 * fully centred. */
void sbw_reduce_centre_rows(sbw_mat *a);

/* Subtracts each column's mean from a in place, in two passes like the
 * rows (the means, summed into work, a->cols doubles the caller owns; then
 * what rounding left of them): the column centring of --center both
 * (after sbw_reduce_centre_rows).  Never fails. */
void sbw_reduce_centre_cols(sbw_mat *a, double *work);

/* The mean of row[0..m) as the centring computes it (two passes: the
 * mean, then the mean of what rounding left), and the centring of one
 * row in place, returning that mean: what sbw_reduce_centre_rows does to
 * each row, for readers that centre a block at a time (sbw_rsvd).  Never
 * fail. */
double sbw_reduce_row_mean(const double *row, size_t m);
double sbw_reduce_centre_row(double *row, size_t m);

/* Whether a float64 file holds only float32 values (f32_values above):
 * zero-initialise, scan every entry as read (before any transformation),
 * then ask sbw_reduce_f32_values with the file's dtype.  The scan gives
 * up at the first entry that is not a float32 value. */
typedef struct sbw_reduce_f32scan {
    bool not_f32;  /* some entry is not a float32 value */
    bool f32_full; /* some entry uses float32's full 24-bit significand */
} sbw_reduce_f32scan;

void sbw_reduce_scan_f32(sbw_reduce_f32scan *s, const double *a, size_t n);
bool sbw_reduce_f32_values(const sbw_reduce_f32scan *s, sbw_npy_dtype dtype);

/* The same for a direct float32 reduction: variant v as a new float
 * matrix *out (N x M, caller frees with sbw_mat_f32_free), centred in double
 * accumulation.  Errors: SBW_EINVAL (not a direct float32 reduction, or
 * released), SBW_ENOMEM.  On failure *out is zeroed; with steal red's
 * float32 buffer is then gone (freed), without it red is unchanged. */
int sbw_reduce_matrix_f32(sbw_reduce *red, sbw_reduce_variant v, bool steal, sbw_mat_f32 *out);

#endif
