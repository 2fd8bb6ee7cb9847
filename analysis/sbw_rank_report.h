/* sbw_rank_report.h -- sbw-rank's output from the singular values of the
 * analysed matrix: the rank rules and thresholds (sbw_rank), the warnings
 * (near a threshold, the data's own: sbw_spectra_warn_data), the --spectrum
 * file and the table (one row, or one per measure with --measures).  The
 * one place a spectrum becomes sbw-rank's answer: sbw-rank calls it after
 * sbw_spectra_file, sbw-rank-mpi (mpi/) after ScaLAPACK's SVD, so the same
 * singular values give the same table.
 */
#ifndef SBW_RANK_REPORT_H
#define SBW_RANK_REPORT_H

#include "sbw_cli.h"
#include "sbw_rank.h"
#include "sbw_reduce.h"
#include "sbw_spectra.h"
#include "sbw_table.h"

#include <stdbool.h>
#include <stdio.h>

/* What the tables say and where they go (sbw-rank's options). */
typedef struct sbw_rank_report_opts {
    const char *tool;       /* the tables' tool= ("sbw-rank") */
    sbw_reduce_variant var; /* the variant analysed: sp->s[var] */
    bool exp;               /* --exp: the matrix is P = exp(A) */
    bool measures;          /* --measures: one row per named measure */
    double atol;            /* --atol (PyTorch's rule) */
    const char *eps;        /* --eps: auto, double, single or a number */
    const char *norm;       /* --norm: max, minmax */
    const char *spectrum;   /* --spectrum FILE ("-": stdout), or NULL */
    FILE *table;            /* where the table is printed */
    const char *method;     /* the header's method=; NULL: the reduction's
                             * (with block_rows and workers for tsqr) */
    /* more header lines after method= (both tables), or NULL; a failure
     * is the table's (sticky) */
    void (*meta)(sbw_table *t, void *ctx);
    void *meta_ctx;
    /* more header lines after the threshold scales, from the analysed
     * spectrum and its estimators (sbw-rank's --hidden-size, --decay), or
     * NULL; its error ends the report */
    int (*extra)(sbw_table *t, void *ctx, const sbw_spectra *sp, sbw_reduce_variant var,
                 const sbw_rank_est *e);
    void *extra_ctx;
} sbw_rank_report_opts;

/* The analysed matrix, in full (the header's matrix=) or short (the
 * measures' matrix column). */
const char *sbw_rank_report_matrix_name(bool exp, sbw_reduce_variant var, bool full);

/* The rank of sp->s[o->var] (sp->k values, descending, with
 * sp->w0_uncentred, sp->red's rows, cols, dtype, prec, rowmean_sq,
 * f32_values and method), its warnings, the --spectrum file (written
 * whole or not at all) and the table printed to o->table (JSON with
 * c->json).  path names the input in the headers.  Errors: SBW_EINVAL (a
 * bad --eps or --norm), SBW_ENOMEM, SBW_EIO (an output that cannot be
 * written), the table's. */
int sbw_rank_report(const char *path, const sbw_rank_report_opts *o, const sbw_cli_common *c,
                    const sbw_spectra *sp);

#endif
