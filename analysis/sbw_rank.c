/* sbw_rank.c -- rank estimators and the normalised spectrum. */
#include "sbw_rank.h"

#include "sbw_check.h"
#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_table.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static int check_spectrum(const double *s, size_t k)
{
    if (k == 0)
        return SBW_ERROR(SBW_EINVAL, "rank: empty spectrum");
    for (size_t j = 0; j < k; j++)
        if (!(s[j] >= 0) || (j > 0 && s[j] > s[j - 1]))
            return SBW_ERROR(SBW_EINVAL, "rank: singular values not descending and >= 0 at %zu", j);
    return SBW_OK;
}

static size_t count_above(const double *s, size_t k, double t)
{
    size_t r = 0;
    while (r < k && s[r] > t)
        r++;
    return r;
}

/* The largest-log-gap rank (see sbw_rank.h) and its gap in decades. */
static size_t gap_rank(const double *s, size_t k, double floor_, double *gap)
{
    size_t best = 0;
    *gap = 0;
    for (size_t j = 1; j <= k; j++) {
        double hi = fmax(s[j - 1], floor_), lo = j < k ? fmax(s[j], floor_) : floor_;
        double g = log10(hi / lo);
        if (g > *gap) {
            *gap = g;
            best = j;
        }
    }
    return best;
}

int sbw_rank_estimate_scaled(const double *s, size_t k, size_t m, size_t n, double eps,
                             double w0_uncentred, sbw_rank_est *e)
{
    if (k != (m < n ? m : n))
        return SBW_ERROR(SBW_EINVAL, "rank: %zu singular values for a %zu x %zu matrix", k, m, n);
    if (!(eps > 0 && eps < 1))
        return SBW_ERROR(SBW_EINVAL, "rank: eps %g is not in (0, 1)", eps);
    if (!(w0_uncentred >= 0 && isfinite(w0_uncentred)))
        return SBW_ERROR(SBW_EINVAL, "rank: uncentred scale %g is not >= 0", w0_uncentred);
    int st = check_spectrum(s, k);
    if (st)
        return st;
    *e = (sbw_rank_est){.m = m, .n = n, .k = k, .eps = eps, .w0 = s[0], .wmin = s[k - 1]};
    e->scale = fmax(e->w0, w0_uncentred);
    e->tsh = 0.5 * sqrt((double)m + (double)n + 1.0) * e->scale * eps;
    e->numpy_tol = e->scale * (double)(m > n ? m : n) * eps;
    e->tsh_single = 0.5 * sqrt((double)m + (double)n + 1.0) * e->scale * FLT_EPSILON;
    if (e->w0 == 0)
        return SBW_OK; /* the zero matrix: every rank 0 */
    e->rank = count_above(s, k, e->tsh);
    e->rank_numpy = count_above(s, k, e->numpy_tol);
    e->rank_single = count_above(s, k, e->tsh_single);
    e->rank_gap = gap_rank(s, k, e->scale * eps, &e->gap_log10);
    return SBW_OK;
}

int sbw_rank_estimate(const double *s, size_t k, size_t m, size_t n, double eps, sbw_rank_est *e)
{
    return sbw_rank_estimate_scaled(s, k, m, n, eps, 0.0, e);
}

size_t sbw_rank_eps_effective(const double *s, size_t k, double e)
{
    double total = 0.0;
    for (size_t j = k; j-- > 0;)
        total += s[j] * s[j];
    if (!(total > 0))
        return 0;
    double tail = 0.0; /* sum_{j >= r} s_j^2, smallest first */
    size_t r = k;
    while (r > 0 && tail + s[r - 1] * s[r - 1] <= e * total) {
        tail += s[r - 1] * s[r - 1];
        r--;
    }
    return r;
}

bool sbw_rank_near_cut(const double *s, size_t k, double thr, double rel, size_t *j)
{
    if (!(thr > 0))
        return false;
    for (size_t i = 0; i < k; i++)
        if (fabs(s[i] - thr) <= rel * thr) {
            *j = i;
            return true;
        }
    return false;
}

bool sbw_rank_near_tail(const double *s, size_t k, double e, double rel, size_t *r, double *frac)
{
    double total = 0.0, tail = 0.0;
    for (size_t j = k; j-- > 0;)
        total += s[j] * s[j];
    if (!(total > 0) || !(e > 0))
        return false;
    for (size_t q = k; q-- > 0;) { /* tail = sum_{j >= q} s_j^2, smallest first */
        tail += s[q] * s[q];
        if (fabs(tail / total - e) <= rel * e) {
            *r = q;
            *frac = tail / total;
            return true;
        }
    }
    return false;
}

/* The warning for measure m if its cut is within rel of the spectrum. */
static bool warn_measure(const double *s, size_t k, const sbw_rank_measure *m, double rel)
{
    size_t j = 0;
    double frac = 0;
    if (strcmp(m->on, "sigma") == 0 && strcmp(m->name, "gap") != 0 &&
        sbw_rank_near_cut(s, k, m->threshold, rel, &j)) {
        sbw_table_warn("rank_near_threshold: %s rank %g: its threshold %.6g is within %g%% of "
                       "singular value %zu (%.6g), so roundoff can move the rank by one",
                       m->name, m->rank, m->threshold, 100 * rel, j + 1, s[j]);
        return true;
    }
    if (strcmp(m->on, "tail_energy") == 0 &&
        sbw_rank_near_tail(s, k, m->threshold, rel, &j, &frac)) {
        sbw_table_warn("rank_near_threshold: %s rank %g: the energy fraction beyond the first "
                       "%zu values (%.6g) is within %g%% of its threshold %g, so roundoff can move "
                       "the rank by one",
                       m->name, m->rank, j, frac, 100 * rel, m->threshold);
        return true;
    }
    return false;
}

size_t sbw_rank_warn_near(const double *s, size_t k, const sbw_rank_measure *ms, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += warn_measure(s, k, &ms[i], SBW_RANK_NEAR);
    return w;
}

double sbw_rank_stable(const double *s, size_t k)
{
    if (k == 0 || !(s[0] > 0))
        return 0.0;
    double sum = 0.0;
    for (size_t j = k; j-- > 0;)
        sum += (s[j] / s[0]) * (s[j] / s[0]);
    return sum;
}

double sbw_rank_entropy(const double *s, size_t k)
{
    double l1 = 0.0, h = 0.0;
    for (size_t j = k; j-- > 0;)
        l1 += s[j];
    if (!(l1 > 0))
        return 0.0;
    for (size_t j = 0; j < k; j++) {
        double p = s[j] / l1;
        if (p > 0)
            h -= p * log(p);
    }
    return exp(h);
}

static sbw_rank_measure count_rule(const char *name, const double *s, size_t k, double t,
                                   const char *rule)
{
    return (sbw_rank_measure){name, (double)count_above(s, k, t), t, "sigma", rule};
}

int sbw_rank_measures_scaled(const double *s, size_t k, size_t m, size_t n, double eps, double atol,
                             double w0_uncentred, sbw_rank_measure *out)
{
    sbw_rank_est e;
    if (!(atol >= 0))
        return SBW_ERROR(SBW_EINVAL, "rank: atol %g is negative", atol);
    int st = sbw_rank_estimate_scaled(s, k, m, n, eps, w0_uncentred, &e);
    if (st)
        return st;
    double big = (double)(m > n ? m : n), small = (double)k;
    double rtol = atol > 0 ? 0.0 : big * eps;
    static const double effs[3] = {1e-3, 1e-4, 1e-5};
    static const char *const eff_names[3] = {"eps_eff_1e-3", "eps_eff_1e-4", "eps_eff_1e-5"};
    out[0] = count_rule("nr", s, k, e.tsh, "w > 0.5 sqrt(m+n+1) w0 eps (Numerical Recipes)");
    out[1] = count_rule("numpy", s, k, e.numpy_tol, "w > w0 max(m,n) eps (numpy matrix_rank)");
    out[2] = count_rule("pytorch", s, k, fmax(atol, rtol * e.scale),
                        "w > max(atol, rtol w0), rtol = max(m,n) eps or 0 if atol > 0 "
                        "(torch.linalg.matrix_rank)");
    out[3] = count_rule("julia", s, k, small * eps * e.scale,
                        "w > min(m,n) eps w0 (Julia LinearAlgebra.rank)");
    out[4] = (sbw_rank_measure){"gap", (double)e.rank_gap, e.scale * eps, "sigma",
                                "largest log10(w_{r-1}/w_r), values floored at w0 eps"};
    for (int i = 0; i < 3; i++)
        out[5 + i] = (sbw_rank_measure){eff_names[i], (double)sbw_rank_eps_effective(s, k, effs[i]),
                                        effs[i], "tail_energy",
                                        "smallest r: sum_{j>=r} w_j^2 <= e sum w_j^2 "
                                        "(Parthiban et al. 2021)"};
    out[8] = (sbw_rank_measure){"stable", sbw_rank_stable(s, k), NAN, "none",
                                "||A||_F^2 / w0^2 (stable rank)"};
    out[9] = (sbw_rank_measure){"entropy", sbw_rank_entropy(s, k), NAN, "none",
                                "exp(H(w / sum w)) (Roy & Vetterli 2007)"};
    return SBW_OK;
}

int sbw_rank_measures(const double *s, size_t k, size_t m, size_t n, double eps, double atol,
                      sbw_rank_measure *out)
{
    return sbw_rank_measures_scaled(s, k, m, n, eps, atol, 0.0, out);
}

int sbw_rank_eps(const char *arg, sbw_npy_dtype data, sbw_npy_dtype prec, double *eps,
                 const char **source)
{
    if (!arg || strcmp(arg, "auto") == 0) {
        double ed = sbw_check_eps(data), ep = sbw_check_eps(prec);
        *eps = fmax(ed, ep);
        *source = data == SBW_F32    ? "float32 data"
                  : data == SBW_F16  ? "float16 data"
                  : data == SBW_BF16 ? "bfloat16 data"
                  : ep > ed          ? "float32 computation"
                                     : "float64 data";
        return SBW_OK;
    }
    *source = "--eps";
    if (strcmp(arg, "double") == 0) {
        *eps = DBL_EPSILON;
        return SBW_OK;
    }
    if (strcmp(arg, "single") == 0) {
        *eps = FLT_EPSILON;
        return SBW_OK;
    }
    int st = sbw_cli_parse_double(arg, "--eps", 0, 1, eps);
    if (!st && !(*eps > 0 && *eps < 1))
        st = SBW_ERROR(SBW_EINVAL, "--eps: %s is not in (0, 1)", arg);
    if (st)
        return SBW_ERROR(SBW_EINVAL,
                         "--eps: '%s' is not auto, double, single or a number in (0, 1)", arg);
    return SBW_OK;
}

const char *sbw_rank_norm_label(sbw_rank_norm norm)
{
    return norm == SBW_NORM_MINMAX ? "(sigma-sigma_min)/(sigma0-sigma_min)" : "sigma/sigma0";
}

int sbw_rank_norm_parse(const char *s, sbw_rank_norm *norm)
{
    if (strcmp(s, "max") == 0)
        *norm = SBW_NORM_MAX;
    else if (strcmp(s, "minmax") == 0)
        *norm = SBW_NORM_MINMAX;
    else
        return SBW_ERROR(SBW_EINVAL, "--norm: '%s' is not max or minmax", s);
    return SBW_OK;
}

int sbw_rank_normalise(const double *s, size_t k, sbw_rank_norm norm, double *v, double *cum)
{
    if (k == 0)
        return SBW_ERROR(SBW_EINVAL, "normalise: empty spectrum");
    double lo = norm == SBW_NORM_MINMAX ? s[k - 1] : 0.0, span = s[0] - lo;
    for (size_t j = 0; j < k; j++)
        v[j] = span > 0 ? (s[j] - lo) / span : (s[0] > 0 ? 1.0 : 0.0);
    /* Descending order: #{i : v_i <= v_j} = k - (first index holding v_j). */
    size_t first = 0;
    for (size_t j = 0; j < k; j++) {
        if (j > 0 && v[j] != v[j - 1])
            first = j;
        cum[j] = 100.0 * (double)(k - first) / (double)k;
    }
    return SBW_OK;
}

int sbw_rank_spectrum(const double *s, size_t k, sbw_rank_norm norm, double *rel, double *lg,
                      double *v, double *cum)
{
    int st = sbw_rank_normalise(s, k, norm, v, cum);
    for (size_t j = 0; !st && j < k; j++) {
        rel[j] = s[0] > 0 ? s[j] / s[0] : 0.0;
        lg[j] = s[j] > 0 ? log10(s[j]) : NAN; /* log10 of an exact 0 is undefined */
    }
    return st;
}
