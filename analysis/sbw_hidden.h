/* sbw_hidden.h -- a model's hidden size recovered from its outputs
 * (sbw-rank --hidden-size; Carlini et al. 2024, "Stealing Part of a
 * Production Language Model"; Finlayson, Ren and Swayamdipta 2024, "Logits
 * of API-Protected LLMs Leak Proprietary Information").
 *
 * N full log-probability vectors of a head whose logits are W h + b (W of
 * rank D) form an N x M matrix A whose double-centred form
 * (I - 11^T/N) A (I - 11^T/M) has rank at most D: log-softmax adds a
 * multiple of 1 to each row (the row centring removes it), the bias adds
 * the same b to every row (the column centring removes it).  The hidden
 * size is where that matrix's singular values drop.  Outputs stored at a
 * lower precision carry a rounding error E with |e_ij| <= u |a_ij| + eta
 * (u the unit roundoff, eta half the smallest subnormal step), so
 * ||E||_2 <= ||E||_F <= floor = u/(1-u) ||A||_F + eta sqrt(NM) (A as
 * stored), a bound the orthogonal centring projections keep.  By Weyl's
 * inequality every exact matrix within that bound has centred rank at least
 * hidden_min = #{sigma_j > floor}: a proven lower bound.  The drop itself is
 * the largest gap log10(sigma_D / sigma_{D+1}) among the values the
 * centring leaves possible.
 */
#ifndef SBW_HIDDEN_H
#define SBW_HIDDEN_H

#include "sbw_spectra.h"
#include "sbw_table.h"

#include <stdbool.h>
#include <stddef.h>

/* The precisions an output may have been rounded to. */
typedef enum sbw_hidden_prec {
    SBW_HPREC_F64,
    SBW_HPREC_F32,
    SBW_HPREC_F16,
    SBW_HPREC_BF16,
    SBW_HPREC_N
} sbw_hidden_prec;

/* "f64", "f32", "f16", "bf16". */
const char *sbw_hidden_prec_name(sbw_hidden_prec p);

/* Parses s (one of the names above) into *p.  Errors: SBW_EINVAL
 * (reason names the value); *p untouched on failure. */
int sbw_hidden_prec_parse(const char *s, sbw_hidden_prec *p);

/* Unit roundoff u (2^-53, 2^-24, 2^-11, 2^-8) and half the smallest
 * subnormal step (eta) of p. */
double sbw_hidden_prec_unit(sbw_hidden_prec p);
double sbw_hidden_prec_eta(sbw_hidden_prec p);

/* Whether x (finite) is exactly a value of precision p (f64: always). */
bool sbw_hidden_prec_holds(sbw_hidden_prec p, double x);

/* x rounded to the nearest value of p (ties to even; beyond p's largest
 * finite value: +-infinity, as a cast does). */
double sbw_hidden_round(sbw_hidden_prec p, double x);

/* sbw_reduce_opts.round for sbw-rank --round (ctx: an sbw_hidden_prec):
 * the n values of a rounded in place. */
void sbw_hidden_round_block(void *ctx, double *a, size_t n);

/* What one pass over the stored matrix tells the floors: the sum of
 * squares of the entries, their count, the largest row and column sums of
 * squares and the largest |a_ij| (the typical floor), and which
 * precisions hold every entry (the observed precision). */
typedef struct sbw_hidden_scan {
    double sumsq;
    size_t count;
    bool holds[SBW_HPREC_N]; /* set to true by sbw_hidden_scan_init */
    double row_max, amax;    /* max_i sum_j a_ij^2, max |a_ij| */
    double *col;             /* sum_i a_ij^2 per column (allocated by the hook) */
    size_t cols;
    bool nomem; /* the column sums could not be allocated: no typical floor */
} sbw_hidden_scan;

void sbw_hidden_scan_init(sbw_hidden_scan *sc);

/* Frees the column sums; the scan is then empty (init again to reuse). */
void sbw_hidden_scan_free(sbw_hidden_scan *sc);

/* The typical rounding floor: the norm independent rounding errors e_ij,
 * uniform within +-u|a_ij|, have with high probability (Bandeira and van
 * Handel 2016: E||E|| <= (1 + e)(s_row + s_col) + C s_max sqrt(log n)):
 * u/sqrt(3) (sqrt(row_max) + sqrt(col_max)) + u amax sqrt(2 ln(N + M)),
 * plus eta (sqrt N + sqrt M).  Not a bound: a storage whose errors are
 * correlated can exceed it.  0 when the scan has no column sums. */
double sbw_hidden_typical(const sbw_hidden_scan *sc, sbw_hidden_prec p, size_t n, size_t m);

/* An sbw_reduce_hook (ctx: an sbw_hidden_scan): rows x ld entries of a,
 * row-major with leading dimension ld, added to the scan.  Never fails
 * (returns SBW_OK, so nothing is left half-done on failure). */
int sbw_hidden_scan_hook(void *ctx, const double *a, size_t row0, size_t rows, size_t ld);

/* The coarsest precision holding every entry scanned (f64 if none
 * coarser does; of f16 and bf16, bf16's larger u when both hold). */
sbw_hidden_prec sbw_hidden_scan_observed(const sbw_hidden_scan *sc);

/* The gaps a decided drop needs: the largest at least HIDDEN_GAP_MIN
 * decades and at least HIDDEN_MARGIN times the largest other gap. */
#define SBW_HIDDEN_GAP_MIN 0.6
#define SBW_HIDDEN_MARGIN  3.0
/* A decided drop whose tail lies above the floor (clear, not certified),
 * and a probable one, also need this many values past it: with one, a gap among N - 1
 * signal values (N <= D + 1) would pass for the drop. */
#define SBW_HIDDEN_TAIL_MIN 2

/* The verdict (status names in sbw_hidden_status_name). */
typedef enum sbw_hidden_status {
    SBW_HIDDEN_CERTIFIED, /* a decided drop at exactly hidden_min */
    SBW_HIDDEN_CLEAR,     /* a decided drop elsewhere: noise above the rounding */
    SBW_HIDDEN_PROBABLE,  /* no decided drop, but the largest gap is where the typical
                           * rounding floor cuts, with the values above at twice it */
    SBW_HIDDEN_NO_DROP,   /* no gap passes the rule */
    SBW_HIDDEN_TOO_FEW    /* every possible value above the floor: N too small or full rank */
} sbw_hidden_status;

const char *sbw_hidden_status_name(sbw_hidden_status s);

typedef struct sbw_hidden {
    sbw_hidden_prec prec; /* the precision the floor is for */
    double floor;         /* the rounding bound above, plus the SVD's own error */
    double typical;       /* the typical rounding floor (0: none) */
    size_t rmax;          /* values the centring leaves possible */
    size_t hidden_min;    /* #{sigma_j > floor}, j < rmax: the proven lower bound */
    size_t hidden;        /* D: the largest gap's index (count of values above it) */
    double ratio;         /* sigma_D / sigma_{D+1} (values floored, see .c) */
    double gap_log10;     /* log10 of ratio */
    double next_log10;    /* the largest other gap, log10 */
    size_t next_at;       /* where it is */
    double margin;        /* gap_log10 / next_log10 (inf when next is 0) */
    sbw_hidden_status status;
} sbw_hidden;

/* The hidden size from the spectrum s[k] (descending) of the centred
 * matrix: rmax of its values can be non-zero (min(N-1, M-1) for the
 * double-centred matrix, min(N, M-1) for the row-centred one), floor as
 * above (sbw_hidden_floor), typical the typical floor (sbw_hidden_typical;
 * 0: none).  Errors: SBW_EINVAL (rmax > k, rmax < 2, floor
 * not finite or negative, s not descending and finite); *h untouched on
 * failure. */
int sbw_hidden_estimate(const double *s, size_t k, size_t rmax, double floor, double typical,
                        sbw_hidden *h);

/* The floor for outputs of precision p scanned by sc (N x M entries),
 * whose centred spectrum was computed with roundoff eps_svd from a matrix
 * whose largest uncentred singular value is at most w0_scale:
 * u/(1-u) ||A||_F + eta sqrt(NM) + 0.5 sqrt(N+M+1) eps_svd w0_scale. */
double sbw_hidden_floor(const sbw_hidden_scan *sc, sbw_hidden_prec p, size_t n, size_t m,
                        double eps_svd, double w0_scale);

/* The hidden size from variant v (SBW_VAR_BOTH or SBW_VAR_ROWS) of sp,
 * the outputs scanned by sc (sbw_hidden_scan_hook on the same reading),
 * at precision p: the floor (sbw_hidden_floor, the SVD's eps from
 * sp->red.prec, w0 the larger of sigma_1 and sp->w0_uncentred[v]), rmax
 * (min(N-1, M-1) or min(N, M-1)), then sbw_hidden_estimate; h->prec = p.
 * Errors: SBW_EINVAL (another variant, or its spectrum not computed),
 * those of sbw_hidden_estimate; *h untouched on failure. */
int sbw_hidden_of(const sbw_spectra *sp, sbw_reduce_variant v, const sbw_hidden_scan *sc,
                  sbw_hidden_prec p, sbw_hidden *h);

/* The result as # hidden_* meta lines of t, the confidence statement
 * (hidden_rule, hidden_confidence) in words, and the warning
 * (sbw_table_warn) of a result that decides nothing.  Errors: the
 * table's (sticky: t keeps, on failure, the first error and the lines
 * added before it). */
int sbw_hidden_table(sbw_table *t, const sbw_hidden *h, const char *prec_source);

#endif
