/* sbw_logp.c -- reading and checking rows of log-probabilities (see
 * sbw_logp.h). */
#include "sbw_logp.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_kern.h"
#include "sbw_num.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sbw_logp_reader {
    sbw_npy_reader *npy;
    const sbw_npy_info *info;
    sbw_logp_opts opts;
    bool seekable;
    double max_abs_lse;
    size_t worst_row;
};

static bool is_regular(const char *path)
{
    struct stat st;
    return !sbw_file_is_std(path) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int sbw_logp_open(sbw_logp_reader **out, const char *path, const sbw_logp_opts *opts)
{
    *out = NULL;
    if (!(opts->tol > 0.0 && opts->tol <= 1.0))
        return SBW_ERROR(SBW_EINVAL, "normalisation tolerance must be in (0, 1], got %g",
                         opts->tol);
    sbw_logp_reader *r = calloc(1, sizeof *r);
    if (!r)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = sbw_npy_open(&r->npy, path);
    if (st) {
        free(r);
        return st;
    }
    r->info = sbw_npy_reader_info(r->npy);
    r->opts = *opts;
    r->seekable = sbw_npy_reader_in_memory(r->npy) || is_regular(path);
    st = sbw_check_shape(r->info, path, SBW_SHAPE_MATRIX);
    if (st) {
        sbw_logp_close(r);
        return st;
    }
    *out = r;
    return SBW_OK;
}

int sbw_logp_reopen(const sbw_logp_reader *r, sbw_logp_reader **out)
{
    *out = NULL;
    if (!r->seekable)
        return SBW_ERROR(SBW_EINVAL, "%s: stdin or a pipe cannot be read twice", sbw_logp_path(r));
    return sbw_logp_open(out, sbw_logp_path(r), &r->opts);
}

void sbw_logp_close(sbw_logp_reader *r)
{
    if (!r)
        return;
    sbw_npy_close(r->npy);
    free(r);
}

const sbw_npy_info *sbw_logp_info(const sbw_logp_reader *r) { return r->info; }

const char *sbw_logp_path(const sbw_logp_reader *r) { return sbw_npy_reader_path(r->npy); }

bool sbw_logp_seekable(const sbw_logp_reader *r) { return r->seekable; }

void sbw_logp_stats(const sbw_logp_reader *r, double *max_abs_lse, size_t *worst_row)
{
    *max_abs_lse = r->max_abs_lse;
    *worst_row = r->worst_row;
}

static void note_lse(sbw_logp_reader *r, double abs_lse, size_t row)
{
    if (abs_lse > r->max_abs_lse || (abs_lse == r->max_abs_lse && row < r->worst_row)) {
        r->max_abs_lse = abs_lse;
        r->worst_row = row;
    }
}

/* ---- per-row checks ----------------------------------------------------- */

/* The message for the first non-finite entry of row (x, already logged). */
static int nonfinite_error(const sbw_logp_reader *r, size_t row, const double *x, size_t n)
{
    size_t first;
    sbw_num_count_nonfinite(x, n, NULL, NULL, NULL, &first);
    return sbw_check_entry_error(sbw_logp_path(r), row, first, x[first], r->opts.probs);
}

/* Probabilities to logs; refuses negative entries (NaN passes through to
 * the finiteness test). */
static int log_of_probs(const sbw_logp_reader *r, size_t row, double *x, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (x[j] < 0.0)
            return SBW_ERROR(SBW_EDATA,
                             "%s: row %zu, column %zu (0-based) is %g, not a probability "
                             "(log-probabilities? then drop --probs)",
                             sbw_logp_path(r), row, j, x[j]);
        x[j] = log(x[j]);
    }
    return SBW_OK;
}

/* Converts, tests finiteness (unless the caller defers it and nothing here
 * needs finite input) and renormalises one row. */
static int prepare_row(sbw_logp_reader *r, size_t row, double *x, bool test_finite)
{
    size_t n = r->info->cols;
    int st = r->opts.probs ? log_of_probs(r, row, x, n) : SBW_OK;
    if (st)
        return st;
    test_finite = test_finite || r->opts.probs || r->opts.normalize;
    if (test_finite && !sbw_check_all_finite(x, n))
        return nonfinite_error(r, row, x, n);
    if (r->opts.normalize && !r->opts.probs &&
        sbw_check_looks_like_probs(x, n, r->info->dtype, r->opts.tol))
        return SBW_ERROR(SBW_EDATA,
                         "%s: row %zu (0-based) looks like probabilities (entries in [0, 1] "
                         "summing to 1): --normalize renormalises log-probabilities; pass --probs",
                         sbw_logp_path(r), row);
    if (r->opts.normalize && n > 0) {
        double lse = sbw_kern_logsumexp(x, n);
        note_lse(r, fabs(lse), row);
        for (size_t j = 0; j < n; j++)
            x[j] -= lse;
    }
    return SBW_OK;
}

/* ---- reading ------------------------------------------------------------ */

static int read_run(sbw_logp_reader *r, size_t row, size_t nr, double *dst)
{
    int st = SBW_OK;
    if (sbw_npy_reader_row(r->npy) != row)
        st = sbw_npy_seek_row(r->npy, row);
    return st ? st : sbw_npy_read_rows(r->npy, dst, nr, r->info->cols);
}

static int read_rows(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr, double *dst,
                     bool test_finite)
{
    size_t m = r->info->cols;
    if (k0 > s->n || nr > s->n - k0)
        return SBW_ERROR(SBW_EINVAL, "%s: rows %zu..%zu are past the %zu selected",
                         sbw_logp_path(r), k0, k0 + nr, s->n);
    int st = SBW_OK;
    if (!s->list) {
        st = read_run(r, s->begin + k0, nr, dst);
    } else {
        for (size_t i = 0; i < nr && !st;) {
            size_t run = 1, row = s->list[k0 + i];
            while (i + run < nr && s->list[k0 + i + run] == row + run)
                run++;
            st = read_run(r, row, run, dst + i * m);
            i += run;
        }
    }
    for (size_t i = 0; i < nr && !st; i++)
        st = prepare_row(r, sbw_logp_sel_row(s, k0 + i), dst + i * m, test_finite);
    return st;
}

int sbw_logp_read(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr, double *dst)
{
    return read_rows(r, s, k0, nr, dst, true);
}

int sbw_logp_read_deferred(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                           double *dst)
{
    return read_rows(r, s, k0, nr, dst, false);
}

bool sbw_logp_view(const sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                   sbw_npy_view *v)
{
    if (s->list || r->opts.probs || r->opts.normalize || k0 > s->n || nr > s->n - k0)
        return false;
    return sbw_npy_view_rows(r->npy, s->begin + k0, nr, v);
}

int sbw_logp_check_finite(const sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                          const double *rows)
{
    size_t m = r->info->cols;
    for (size_t i = 0; i < nr; i++)
        if (!sbw_check_all_finite(rows + i * m, m))
            return nonfinite_error(r, sbw_logp_sel_row(s, k0 + i), rows + i * m, m);
    return SBW_OK;
}

/* The failure of a row (x, file row row) whose |logsumexp| exceeded the
 * caller's tol: a row of a float32 file may still be within its rounding
 * (sbw_check_row_tol), and then passes with SBW_OK. */
static int unnormalised(sbw_logp_reader *r, size_t row, const double *x)
{
    size_t n = r->info->cols;
    double lse = sbw_num_logsumexp(x, n);
    double tol = sbw_check_row_tol(r->info->dtype, r->opts.tol, sbw_check_amax(x, n));
    if (fabs(lse) <= tol) {
        note_lse(r, fabs(lse), row);
        return SBW_OK;
    }
    if (r->opts.probs)
        return SBW_ERROR(SBW_EDATA,
                         "%s: row %zu (0-based) sums to %.17g, not 1: |log of the sum| = "
                         "%.3g > tol %g (--normalize renormalises rows deliberately)",
                         sbw_logp_path(r), row, exp(lse), fabs(lse), tol);
    return sbw_check_unnormalised(sbw_logp_path(r), row, x, n, lse, tol,
                                  "its entries look like probabilities: pass --probs",
                                  "--normalize renormalises rows deliberately");
}

int sbw_logp_check_sums(sbw_logp_reader *r, const sbw_logp_sel *s, size_t k0, size_t nr,
                        const double *rows, const double *sums)
{
    for (size_t i = 0; i < nr; i++) {
        double a = fabs(log(sums[i]));
        size_t row = sbw_logp_sel_row(s, k0 + i);
        int st = a <= r->opts.tol ? SBW_OK : unnormalised(r, row, rows + i * r->info->cols);
        if (st)
            return st;
        if (!r->opts.normalize)
            note_lse(r, a, row);
    }
    return SBW_OK;
}

/* ---- selections --------------------------------------------------------- */

void sbw_logp_sel_range(sbw_logp_sel *s, size_t begin, size_t end)
{
    *s = (sbw_logp_sel){.begin = begin, .end = end, .n = end - begin};
}

int sbw_logp_sel_sample(sbw_logp_sel *s, size_t begin, size_t end, size_t k, uint64_t seed)
{
    size_t n = end - begin;
    if (k > n)
        return SBW_ERROR(SBW_EINVAL, "cannot sample %zu distinct rows from %zu", k, n);
    size_t *src = malloc((n ? n : 1) * sizeof *src);
    size_t *dst = malloc((k ? k : 1) * sizeof *dst);
    gsl_rng *rng = NULL;
    int st = (src && dst) ? sbw_rng_alloc(&rng, seed, 0) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st) {
        for (size_t i = 0; i < n; i++)
            src[i] = begin + i;
        if (k > 0)
            gsl_ran_choose(rng, dst, k, src, n, sizeof *src);
        *s = (sbw_logp_sel){.begin = begin, .end = end, .n = k, .list = dst};
        dst = NULL;
    }
    sbw_rng_free(rng);
    free(src);
    free(dst);
    return st;
}

void sbw_logp_sel_free(sbw_logp_sel *s)
{
    free(s->list);
    *s = (sbw_logp_sel){0};
}

size_t sbw_logp_sel_row(const sbw_logp_sel *s, size_t k)
{
    return s->list ? s->list[k] : s->begin + k;
}

/* ---- parallel workers --------------------------------------------------- */

int sbw_logp_team_open(sbw_logp_reader *r, int want, sbw_logp_reader ***team, int *n)
{
    int k = want > 0 ? want : omp_get_max_threads();
    if (!r->seekable || k < 1)
        k = 1;
    sbw_logp_reader **t = calloc((size_t)k, sizeof(sbw_logp_reader *));
    if (!t)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    t[0] = r;
    for (int i = 1; i < k; i++) {
        int st = sbw_logp_reopen(r, &t[i]);
        if (st) {
            sbw_logp_team_close(t, i);
            return st;
        }
    }
    *team = t;
    *n = k;
    return SBW_OK;
}

void sbw_logp_team_close(sbw_logp_reader **team, int n)
{
    if (!team)
        return;
    for (int i = 1; i < n; i++) {
        note_lse(team[0], team[i]->max_abs_lse, team[i]->worst_row);
        sbw_logp_close(team[i]);
    }
    free(team);
}

void sbw_logp_fail_init(sbw_logp_fail *f)
{
    *f = (sbw_logp_fail){.status = SBW_OK, .order = SIZE_MAX};
}

void sbw_logp_fail_note(sbw_logp_fail *f, int status, size_t order)
{
#pragma omp critical(sbw_logp_fail)
    {
        if (order < f->order) {
            f->status = status;
            snprintf(f->reason, sizeof f->reason, "%s", sbw_error_reason());
#pragma omp atomic write
            f->order = order;
        }
    }
}

bool sbw_logp_fail_skip(sbw_logp_fail *f, size_t order)
{
    size_t o;
#pragma omp atomic read
    o = f->order;
    return o < order;
}

int sbw_logp_fail_raise(const sbw_logp_fail *f)
{
    if (f->order == SIZE_MAX)
        return SBW_OK;
    return sbw_error_set(f->status, __FILE__, __LINE__, "%s", f->reason);
}
