/* sbw_rank_report.c -- sbw-rank's table from a spectrum: the rank rules,
 * thresholds, warnings, the --spectrum file and the output table, shared by
 * sbw-rank and sbw-rank-mpi (mpi/), so both say the same of the same
 * singular values. */
#include "sbw_rank_report.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_rank.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const columns[] = {
    "rank", "m",     "n",          "dtype",     "precision", "eps",         "tsh",
    "w0",   "w_min", "rank_numpy", "numpy_tol", "rank_gap",  "gap_decades", "rank_single"};
static const char *const measure_columns[] = {"measure", "rank", "threshold",
                                              "on",      "rule", "matrix"};
static const char *const spec_columns[] = {"index",       "sigma",      "sigma_rel",
                                           "log10_sigma", "normalised", "cum_pct"};

const char *sbw_rank_report_matrix_name(bool exp, sbw_reduce_variant var, bool full)
{
    static const char *const names[2][SBW_NVARIANT][2] = {
        {{"A", "A (as stored)"},
         {"A row-centred", "A (I - 11^T/M), row-centred"},
         {"A column-centred", "(I - 11^T/N) A, column-centred"},
         {"A double-centred", "(I - 11^T/N) A (I - 11^T/M), double-centred"}},
        {{"P", "P = exp(A)"},
         {"P row-centred", "P (I - 11^T/M), row-centred, P = exp(A)"},
         {"P column-centred", "(I - 11^T/N) P, column-centred, P = exp(A)"},
         {"P double-centred", "(I - 11^T/N) P (I - 11^T/M), double-centred, P = exp(A)"}}};
    return names[exp][var][full];
}

static int add_meta(sbw_table *t, const char *path, const sbw_rank_report_opts *a,
                    const sbw_spectra *sp, sbw_reduce_variant var, const char *eps_source)
{
    sbw_table_meta_str(t, "file", path);
    sbw_table_meta_str(t, "matrix", sbw_rank_report_matrix_name(a->exp, var, true));
    sbw_table_meta_str(t, "center", sbw_reduce_variant_name(var));
    sbw_table_meta_str(t, "eps_arg", a->eps);
    sbw_table_meta_str(t, "eps_source", eps_source);
    if (a->method)
        sbw_table_meta_str(t, "method", a->method);
    else
        sbw_table_meta_str(t, "method", sbw_reduce_method_name(sp->red.method));
    if (!a->method && sp->red.method == SBW_METHOD_TSQR) {
        sbw_table_meta_int(t, "block_rows", (long long)sp->red.block_rows);
        sbw_table_meta_int(t, "workers", sp->red.workers);
    }
    if (a->meta && !sbw_table_status(t))
        a->meta(t, a->meta_ctx);
    sbw_table_meta_str(t, "spectrum", a->spectrum ? a->spectrum : "");
    sbw_table_meta_dbl(t, "seconds_read", sp->seconds_read);
    sbw_table_meta_dbl(t, "seconds_svd", sp->seconds_svd);
    return sbw_table_status(t);
}

/* The two scales of the thresholds (sbw_rank_estimate_scaled): sigma_1 of
 * the analysed matrix, the one-pass bound on the uncentred one's, and the
 * larger, which every counting rule multiplies. */
static int add_scales(sbw_table *t, const sbw_rank_est *e, double w0_uncentred)
{
    sbw_table_meta_dbl(t, "w0_analysed", e->w0);
    sbw_table_meta_dbl(t, "w0_uncentred", w0_uncentred);
    sbw_table_meta_dbl(t, "w0_threshold", e->scale);
    sbw_table_meta_str(t, "threshold_rule",
                       "tsh = 0.5 sqrt(m+n+1) eps max(w0_analysed, w0_uncentred)");
    return sbw_table_status(t);
}

static int add_row(sbw_table *t, const sbw_spectra *sp, const sbw_rank_est *e)
{
    sbw_table_columns(t, columns, sizeof columns / sizeof *columns);
    sbw_table_add_row(t);
    sbw_table_set_int(t, "rank", (long long)e->rank);
    sbw_table_set_int(t, "m", (long long)e->m);
    sbw_table_set_int(t, "n", (long long)e->n);
    sbw_table_set_str(t, "dtype", sbw_npy_dtype_name(sp->red.dtype));
    sbw_table_set_str(t, "precision", sbw_npy_dtype_name(sp->red.prec));
    sbw_table_set_dbl(t, "eps", e->eps);
    sbw_table_set_dbl(t, "tsh", e->tsh);
    sbw_table_set_dbl(t, "w0", e->w0);
    sbw_table_set_dbl(t, "w_min", e->wmin);
    sbw_table_set_int(t, "rank_numpy", (long long)e->rank_numpy);
    sbw_table_set_dbl(t, "numpy_tol", e->numpy_tol);
    sbw_table_set_int(t, "rank_gap", (long long)e->rank_gap);
    sbw_table_set_dbl(t, "gap_decades", e->gap_log10);
    sbw_table_set_int(t, "rank_single", (long long)e->rank_single);
    return sbw_table_status(t);
}

/* --measures: one row per named measure (sbw_rank_measures).  Errors: the
 * table's (sticky; rows stop being added once one call failed). */
static int add_measures(sbw_table *t, const sbw_spectra *sp, const sbw_rank_est *e,
                        const sbw_rank_measure *ms, const char *matrix)
{
    sbw_table_meta_int(t, "m", (long long)e->m);
    sbw_table_meta_int(t, "n", (long long)e->n);
    sbw_table_meta_str(t, "dtype", sbw_npy_dtype_name(sp->red.dtype));
    sbw_table_meta_str(t, "precision", sbw_npy_dtype_name(sp->red.prec));
    sbw_table_meta_dbl(t, "eps", e->eps);
    sbw_table_meta_dbl(t, "w0", e->w0);
    sbw_table_meta_dbl(t, "w_min", e->wmin);
    sbw_table_columns(t, measure_columns, 6);
    for (size_t i = 0; i < SBW_RANK_NMEASURES && !sbw_table_status(t); i++) {
        sbw_table_add_row(t);
        sbw_table_set_str(t, "measure", ms[i].name);
        sbw_table_set_dbl(t, "rank", ms[i].rank);
        sbw_table_set_dbl(t, "threshold", ms[i].threshold);
        sbw_table_set_str(t, "on", ms[i].on);
        sbw_table_set_str(t, "rule", ms[i].rule);
        sbw_table_set_str(t, "matrix", matrix);
    }
    return sbw_table_status(t);
}

/* The spectrum table: the main table's meta plus the normalisation. */
static int write_spectrum(const char *out, const sbw_cli_common *c, const char *path,
                          const sbw_rank_report_opts *a, const sbw_spectra *sp,
                          sbw_reduce_variant var, const char *eps_source, const sbw_rank_est *e,
                          sbw_rank_norm norm)
{
    const double *s = sp->s[var];
    size_t k = sp->k;
    double *v = malloc(4 * k * sizeof *v); /* rel, lg, normalised, cum_pct */
    sbw_table *t = NULL;
    int st = v ? sbw_table_alloc(&t, a->tool, c, false) : SBW_ERROR(SBW_ENOMEM, "no memory");
    st = st ? st : add_meta(t, path, a, sp, var, eps_source);
    st = st ? st : add_scales(t, e, sp->w0_uncentred[var]);
    st = st ? st : sbw_table_meta_str(t, "normalisation", sbw_rank_norm_label(norm));
    st = st ? st : sbw_rank_spectrum(s, k, norm, v, v + k, v + 2 * k, v + 3 * k);
    if (!st) {
        sbw_table_columns(t, spec_columns, 6);
        for (size_t j = 0; j < k && !sbw_table_status(t); j++) {
            sbw_table_add_row(t);
            sbw_table_set_int(t, "index", (long long)j);
            sbw_table_set_dbl(t, "sigma", s[j]);
            sbw_table_set_dbl(t, "sigma_rel", v[j]);
            sbw_table_set_dbl(t, "log10_sigma", v[k + j]);
            sbw_table_set_dbl(t, "normalised", v[2 * k + j]);
            sbw_table_set_dbl(t, "cum_pct", v[3 * k + j]);
        }
        st = sbw_table_write(t, out, false); /* the table's kept failure, if any */
    }
    sbw_table_free(t);
    free(v);
    return st;
}

int sbw_rank_report(const char *path, const sbw_rank_report_opts *a, const sbw_cli_common *c,
                    const sbw_spectra *sp)
{
    /* the ranks, every measure and the warnings: one library call, which
     * the Python binding's sbw.rank makes too */
    sbw_spectra_rank_res rr = {0};
    sbw_rank_norm norm = SBW_NORM_MAX;
    sbw_table *t = NULL;
    sbw_reduce_variant var = a->var;
    double w0u = sp->w0_uncentred[var];
    int st = sbw_rank_norm_parse(a->norm, &norm);
    st = st ? st : sbw_spectra_rank(sp, var, a->eps, a->atol, a->measures, &rr);
    if (!st && a->spectrum)
        st = write_spectrum(a->spectrum, c, path, a, sp, var, rr.eps_source, &rr.est, norm);
    st = st ? st : sbw_table_alloc(&t, a->tool, c, false);
    st = st ? st : add_meta(t, path, a, sp, var, rr.eps_source);
    st = st ? st : add_scales(t, &rr.est, w0u);
    if (a->measures)
        st = st ? st : sbw_table_meta_dbl(t, "atol", a->atol);
    if (a->extra)
        st = st ? st : a->extra(t, a->extra_ctx, sp, var, &rr.est);
    st = st ? st
            : (a->measures ? add_measures(t, sp, &rr.est, rr.ms,
                                          sbw_rank_report_matrix_name(a->exp, var, false))
                           : add_row(t, sp, &rr.est));
    st = st ? st : sbw_table_print(t, a->table, c->json);
    sbw_table_free(t);
    return st;
}
