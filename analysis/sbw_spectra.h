/* sbw_spectra.h -- the singular values of a .npy matrix and of its centred
 * variants (sbw_reduce.h), read once from a file or a pipe: LAPACK gesdd
 * on the matrix or on its TSQR triangle, in the reduction's precision.
 */
#ifndef SBW_SPECTRA_H
#define SBW_SPECTRA_H

#include "sbw_rank.h"
#include "sbw_reduce.h"

#include <stdbool.h>
#include <stddef.h>

/* Singular values of variant v, descending, into s[min(N, M)], in the
 * reduction's precision.  Errors: those of sbw_reduce_matrix and the SVD
 * (sbw_svd_values), SBW_ENOMEM.  steal: as for sbw_reduce_matrix (with
 * it, red's buffer is gone even on failure).  On failure s is untouched
 * or holds what LAPACK left (unspecified): discard it. */
int sbw_spectra_values(sbw_reduce *red, sbw_reduce_variant v, bool steal, double *s);

/* Singular values of several variants of one matrix. */
typedef struct sbw_spectra {
    sbw_reduce red;                    /* what was read; red.x/xf released */
    size_t k;                          /* min(N, M) */
    double *s[SBW_NVARIANT];           /* k values each, descending; NULL if not wanted */
    double w0_uncentred[SBW_NVARIANT]; /* sbw_reduce_uncentred_w0 of each wanted variant:
                                        * the roundoff scale of its rank */
    double seconds_read;               /* reading + reduction */
    double seconds_svd;                /* the final SVDs */
} sbw_spectra;

/* Reads r once and computes the spectra of every variant v whose bit
 * (1u << v) is set in want.  Errors: those of sbw_reduce_read and
 * sbw_spectra_values; SBW_EINVAL for want == 0.  *sp zeroed on failure. */
int sbw_spectra_compute(sbw_npy_reader *r, const sbw_reduce_opts *o, unsigned want,
                        sbw_spectra *sp);

/* Variant v of sp from sp->red: sp->s[v] allocated (sp->k values) and
 * filled by sbw_spectra_values, and sp->w0_uncentred[v] set, so that every
 * spectrum carries the roundoff scale its rank needs.  sp->k must be set.
 * Errors: those of sbw_spectra_values, SBW_ENOMEM.  On failure sp->s[v]
 * (NULL, or allocated with unspecified values) stays owned by sp
 * (sbw_spectra_free) and must not be read. */
int sbw_spectra_variant(sbw_spectra *sp, sbw_reduce_variant v, bool steal);

void sbw_spectra_free(sbw_spectra *sp);

/* sbw-rank's reading of path ("-": stdin; FILE.safetensors:NAME): opened
 * through the one input checker (sbw_check_open, a matrix), then
 * sbw_spectra_compute with o (its progress and stage members replaced:
 * rows read, then the SVDs announced, on stderr as label unless quiet).
 * Errors: those of sbw_check_open and sbw_spectra_compute; *sp zeroed on
 * failure. */
int sbw_spectra_file(const char *path, const sbw_reduce_opts *o, unsigned want, const char *label,
                     bool quiet, sbw_spectra *sp);

/* The warnings on variant v of sp that only the whole reading can give
 * (sbw_table_warn): a float64 file of float32 values read at an eps below
 * FLT_EPSILON ("float32_values": it looks full rank from its own
 * rounding), and, when energy (the energy measures are printed) and v is
 * the plain matrix, row means holding more than half of ||A||_F^2
 * ("mean_dominated": those measures then describe the mean). */
void sbw_spectra_warn_data(const sbw_spectra *sp, sbw_reduce_variant v, double eps, bool energy);

/* What sbw-rank reports of one variant of a reading (its table without
 * --method randomized; the Python binding's sbw.rank). */
typedef struct sbw_spectra_rank_res {
    size_t rows, cols, k;      /* m, n and min(m, n) of the analysed matrix */
    sbw_npy_dtype dtype, prec; /* of the data and of the computation */
    double eps;
    const char *eps_source;                  /* static (sbw_rank_eps) */
    double w0_uncentred;                     /* the roundoff scale of a centred rank */
    sbw_rank_est est;                        /* NR, NumPy, gap, float32 ranks */
    sbw_rank_measure ms[SBW_RANK_NMEASURES]; /* every named measure */
} sbw_spectra_rank_res;

/* sbw-rank's analysis of variant v of sp: eps from eps_arg (sbw_rank_eps:
 * "auto", "double", "single", a number) and the reading's dtypes, the
 * estimators and every named measure at the scale of the uncentred matrix
 * (sbw_rank_estimate_scaled, sbw_rank_measures_scaled, PyTorch's atol),
 * and the warnings sbw-rank prints (sbw_table_warn): a cut within 1% of
 * the spectrum for the measures shown (all of them with all_measures,
 * else nr and numpy), and sbw_spectra_warn_data's.  Errors: those of
 * sbw_rank_eps, sbw_rank_estimate_scaled and sbw_rank_measures_scaled
 * (SBW_EINVAL), SBW_EINVAL when variant v was not computed.  *out is
 * unspecified on failure. */
int sbw_spectra_rank(const sbw_spectra *sp, sbw_reduce_variant v, const char *eps_arg, double atol,
                     bool all_measures, sbw_spectra_rank_res *out);

/* sbw-rank on path without --method randomized, in one call (the Python
 * binding, on a registered array: sbw_npy_mem_add): sbw_spectra_file
 * (quiet; method "auto", "direct" or "tsqr"; exp, single as --exp,
 * --single; TSQR's block and workers at their defaults), then
 * sbw_spectra_rank; the k = min(m, n) singular values, descending, into
 * s[0..ns).  Errors: those of sbw_reduce_method_parse, sbw_spectra_file and
 * sbw_spectra_rank; SBW_EINVAL when ns < k.  On failure s and *out are
 * unspecified; nothing stays allocated or open. */
int sbw_spectra_rank_file(const char *path, sbw_reduce_variant v, bool exp, bool single,
                          const char *method, const char *eps_arg, double atol, bool all_measures,
                          double *s, size_t ns, sbw_spectra_rank_res *out);

/* Tells o->stage (if any) that the SVDs of red start. */
void sbw_spectra_stage(const sbw_reduce_opts *o, const sbw_reduce *red, int nsvd);

#endif
