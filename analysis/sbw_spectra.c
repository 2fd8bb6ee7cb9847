/* sbw_spectra.c -- the singular values of the plain and centred variants
 * of a .npy matrix, from its one-pass reduction (sbw_reduce.h). */
#include "sbw_spectra.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_num.h"
#include "sbw_svd.h"
#include "sbw_table.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The direct float32 path: the variant in float, sgesdd. */
static int values_direct_f32(sbw_reduce *red, sbw_reduce_variant v, bool steal, double *s)
{
    sbw_mat_f32 a = {0};
    size_t k = sbw_num_min_sz(red->xf.rows, red->xf.cols);
    float *sf = malloc(k * sizeof *sf);
    int st = sf ? sbw_reduce_matrix_f32(red, v, steal, &a) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    st = st ? st : sbw_svd_values_f32(&a, sf);
    for (size_t i = 0; !st && i < k; i++)
        s[i] = (double)sf[i];
    sbw_mat_f32_free(&a);
    free(sf);
    return st;
}

/* Singular values of a in the given precision; s has min(rows, cols).  In
 * float32, a is converted and released first (peak: the float copy). */
static int values_in(sbw_mat *a, sbw_npy_dtype prec, double *s)
{
    if (prec == SBW_F64)
        return sbw_svd_values(a, s);
    sbw_mat_f32 f = {0};
    size_t k = sbw_num_min_sz(a->rows, a->cols);
    float *sf = malloc((k ? k : 1) * sizeof *sf);
    int st = sf ? sbw_mat_f32_alloc(&f, a->rows, a->cols) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st)
        st = sbw_mat_to_float(&f, a);
    sbw_mat_free(a);
    if (!st)
        st = sbw_svd_values_f32(&f, sf);
    for (size_t i = 0; !st && i < k; i++)
        s[i] = (double)sf[i];
    sbw_mat_f32_free(&f);
    free(sf);
    return st;
}

int sbw_spectra_values(sbw_reduce *red, sbw_reduce_variant v, bool steal, double *s)
{
    if (red->xf.data)
        return values_direct_f32(red, v, steal, s);
    sbw_mat a = {0};
    int st = sbw_reduce_matrix(red, v, steal, &a);
    size_t k = sbw_num_min_sz(red->rows, red->cols), ka = sbw_num_min_sz(a.rows, a.cols);
    double *tmp = NULL;
    if (!st && ka != k && !(tmp = malloc((ka ? ka : 1) * sizeof *tmp)))
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st)
        st = values_in(&a, red->prec, tmp ? tmp : s);
    if (!st && tmp)
        memcpy(s, tmp, k * sizeof *s); /* R of a wide matrix: the first N values */
    free(tmp);
    sbw_mat_free(&a);
    return st;
}

/* ---- several spectra in one pass ------------------------------------------ */

void sbw_spectra_free(sbw_spectra *sp)
{
    if (!sp)
        return;
    sbw_reduce_free(&sp->red);
    for (int v = 0; v < SBW_NVARIANT; v++)
        free(sp->s[v]);
    *sp = (sbw_spectra){0};
}

void sbw_spectra_stage(const sbw_reduce_opts *o, const sbw_reduce *red, int nsvd)
{
    if (!o->stage || (!red->x.data && !red->xf.data))
        return;
    size_t r = red->xf.data ? red->xf.rows : red->x.rows;
    size_t c = red->xf.data ? red->xf.cols : red->x.cols;
    char what[160];
    snprintf(what, sizeof what, "%d SVD%s of the %zu x %zu %s", nsvd, nsvd > 1 ? "s" : "", r, c,
             red->method == SBW_METHOD_TSQR ? "TSQR factor" : "matrix");
    o->stage(o->stage_ctx, what, sbw_num_min_sz(r, c));
}

int sbw_spectra_variant(sbw_spectra *sp, sbw_reduce_variant v, bool steal)
{
    if (!(sp->s[v] = malloc(sp->k * sizeof(double))))
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = sbw_spectra_values(&sp->red, v, steal, sp->s[v]);
    if (!st)
        sp->w0_uncentred[v] = sbw_reduce_uncentred_w0(&sp->red, v, sp->s[v][0]);
    return st;
}

int sbw_spectra_compute(sbw_npy_reader *r, const sbw_reduce_opts *o, unsigned want, sbw_spectra *sp)
{
    *sp = (sbw_spectra){0};
    if (want == 0 || want >= (1u << SBW_NVARIANT))
        return SBW_ERROR(SBW_EINVAL, "spectra: no variant asked for (want = %u)", want);
    bool cols = (want & ((1u << SBW_VAR_COLS) | (1u << SBW_VAR_BOTH))) != 0;
    double t0 = sbw_progress_now();
    int st = sbw_reduce_read(r, o, cols, &sp->red), last = 0;
    double t1 = sbw_progress_now();
    sp->k = sbw_num_min_sz(sp->red.rows, sp->red.cols);
    int nsvd = 0;
    for (int v = 0; v < SBW_NVARIANT; v++)
        if (want & (1u << v)) {
            last = v;
            nsvd++;
        }
    if (!st)
        sbw_spectra_stage(o, &sp->red, nsvd);
    for (int v = 0; !st && v < SBW_NVARIANT; v++) {
        if (!(want & (1u << v)))
            continue;
        st = sbw_spectra_variant(sp, (sbw_reduce_variant)v, v == last);
    }
    sbw_mat_free(&sp->red.x);
    sbw_mat_f32_free(&sp->red.xf);
    sp->seconds_read = t1 - t0;
    sp->seconds_svd = sbw_progress_now() - t1;
    if (st)
        sbw_spectra_free(sp);
    return st;
}

/* ---- sbw-rank's reading and its warnings ---------------------------------- */

int sbw_spectra_file(const char *path, const sbw_reduce_opts *o, unsigned want, const char *label,
                     bool quiet, sbw_spectra *sp)
{
    *sp = (sbw_spectra){0};
    sbw_npy_reader *r = NULL;
    int st = sbw_check_open(&r, path, SBW_SHAPE_MATRIX);
    if (st)
        return st;
    sbw_reduce_opts ro = *o;
    sbw_progress p;
    sbw_progress_start(&p, label, "rows", (double)sbw_npy_reader_info(r)->rows, quiet);
    ro.progress = &p;
    ro.stage = sbw_progress_stage; /* closes the bar, notes the silent SVDs */
    ro.stage_ctx = &p;
    st = sbw_spectra_compute(r, &ro, want, sp);
    sbw_progress_finish(&p);
    sbw_npy_close(r);
    return st;
}

void sbw_spectra_warn_data(const sbw_spectra *sp, sbw_reduce_variant v, double eps, bool energy)
{
    if (sp->red.f32_values && eps < FLT_EPSILON)
        sbw_table_warn("float32_values: every entry of this float64 file is a float32 value "
                       "(an export rounded to float32 and cast back), so its own rounding makes "
                       "it look full rank at eps %g: use --eps single, or recompute "
                       "log-softmax in float64 from logits formed in float64",
                       eps);
    double fro2 = 0;
    for (size_t j = sp->k; j-- > 0;)
        fro2 += sp->s[v][j] * sp->s[v][j];
    if (energy && v == SBW_VAR_PLAIN && fro2 > 0 && sp->red.rowmean_sq > 0.5 * fro2)
        sbw_table_warn("mean_dominated: the row means hold %.4g%% of ||A||_F^2, so the energy "
                       "measures (eps_eff, stable, entropy) describe the mean: --center (or "
                       "--bias) gives them for the centred matrix",
                       100 * fmin(1.0, sp->red.rowmean_sq / fro2));
}

int sbw_spectra_rank(const sbw_spectra *sp, sbw_reduce_variant v, const char *eps_arg, double atol,
                     bool all_measures, sbw_spectra_rank_res *out)
{
    if ((unsigned)v >= SBW_NVARIANT || !sp->s[v])
        return SBW_ERROR(SBW_EINVAL, "the spectrum of variant %s was not computed",
                         (unsigned)v < SBW_NVARIANT ? sbw_reduce_variant_name(v) : "?");
    const double *s = sp->s[v];
    size_t m = sp->red.rows, n = sp->red.cols;
    *out = (sbw_spectra_rank_res){.rows = m,
                                  .cols = n,
                                  .k = sp->k,
                                  .dtype = sp->red.dtype,
                                  .prec = sp->red.prec,
                                  .w0_uncentred = sp->w0_uncentred[v]};
    int st = sbw_rank_eps(eps_arg, sp->red.dtype, sp->red.prec, &out->eps, &out->eps_source);
    st = st ? st : sbw_rank_estimate_scaled(s, sp->k, m, n, out->eps, out->w0_uncentred, &out->est);
    st = st ? st
            : sbw_rank_measures_scaled(s, sp->k, m, n, out->eps, atol, out->w0_uncentred, out->ms);
    if (!st) {
        sbw_rank_warn_near(s, sp->k, out->ms, all_measures ? SBW_RANK_NMEASURES : 2);
        sbw_spectra_warn_data(sp, v, out->eps, all_measures);
    }
    return st;
}

int sbw_spectra_rank_file(const char *path, sbw_reduce_variant v, bool exp, bool single,
                          const char *method, const char *eps_arg, double atol, bool all_measures,
                          double *s, size_t ns, sbw_spectra_rank_res *out)
{
    sbw_reduce_opts o = {.exp = exp, .single = single};
    sbw_spectra sp = {0};
    if ((unsigned)v >= SBW_NVARIANT)
        return SBW_ERROR(SBW_EINVAL, "no centring variant %u", (unsigned)v);
    int st = sbw_reduce_method_parse(method, &o.method);
    st = st ? st : sbw_spectra_file(path, &o, 1u << v, "sbw-rank", true, &sp);
    if (!st && ns < sp.k)
        st =
            SBW_ERROR(SBW_EINVAL, "%s: room for %zu singular values, %zu computed", path, ns, sp.k);
    st = st ? st : sbw_spectra_rank(&sp, v, eps_arg, atol, all_measures, out);
    if (!st)
        memcpy(s, sp.s[v], sp.k * sizeof *s);
    sbw_spectra_free(&sp);
    return st;
}
