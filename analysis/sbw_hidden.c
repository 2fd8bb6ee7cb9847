/* sbw_hidden.c -- a model's hidden size from the drop in the centred
 * spectrum of its outputs, with the rounding floor of their precision
 * (sbw_hidden.h). */
#include "sbw_hidden.h"

#include "sbw_error.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Significand bits (with the implicit one), the smallest normal exponent
 * e (2^e) and the largest finite value of each precision. */
static const struct {
    const char *name;
    int bits, emin;
    double max;
} precs[SBW_HPREC_N] = {
    {"f64", 53, -1022, DBL_MAX},
    {"f32", 24, -126, FLT_MAX},
    {"f16", 11, -14, 65504.0},
    {"bf16", 8, -126, 0x1.fep127},
};

const char *sbw_hidden_prec_name(sbw_hidden_prec p) { return precs[p].name; }

int sbw_hidden_prec_parse(const char *s, sbw_hidden_prec *p)
{
    for (int i = 0; i < SBW_HPREC_N; i++)
        if (strcmp(s, precs[i].name) == 0) {
            *p = (sbw_hidden_prec)i;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "'%s' is not a precision (f64, f32, f16, bf16)", s);
}

double sbw_hidden_prec_unit(sbw_hidden_prec p) { return ldexp(1.0, -precs[p].bits); }

double sbw_hidden_prec_eta(sbw_hidden_prec p) { return ldexp(1.0, precs[p].emin - precs[p].bits); }

bool sbw_hidden_prec_holds(sbw_hidden_prec p, double x)
{
    double ax = fabs(x);
    if (p == SBW_HPREC_F64 || ax == 0)
        return true;
    if (!(ax <= precs[p].max))
        return false;
    int e;
    double f = frexp(ax, &e); /* ax = f 2^e, f in [0.5, 1): 2^(e-1) <= ax */
    double scaled = e - 1 >= precs[p].emin ? ldexp(f, precs[p].bits)
                                           : ldexp(ax, precs[p].bits - 1 - precs[p].emin);
    return scaled == floor(scaled);
}

double sbw_hidden_round(sbw_hidden_prec p, double x)
{
    double ax = fabs(x);
    if (p == SBW_HPREC_F64 || ax == 0 || !isfinite(x))
        return x;
    int e;
    (void)frexp(ax, &e); /* 2^(e-1) <= ax < 2^e */
    int q = (e - 1 >= precs[p].emin ? e - 1 : precs[p].emin) - (precs[p].bits - 1);
    double r = ldexp(nearbyint(ldexp(ax, -q)), q); /* the default mode: ties to even */
    if (r > precs[p].max)
        r = INFINITY; /* past the largest finite value's rounding boundary */
    return copysign(r, x);
}

void sbw_hidden_round_block(void *ctx, double *a, size_t n)
{
    sbw_hidden_prec p = *(const sbw_hidden_prec *)ctx;
    for (size_t i = 0; i < n; i++)
        a[i] = sbw_hidden_round(p, a[i]);
}

void sbw_hidden_scan_init(sbw_hidden_scan *sc)
{
    *sc = (sbw_hidden_scan){0};
    for (int i = 0; i < SBW_HPREC_N; i++)
        sc->holds[i] = true;
}

void sbw_hidden_scan_free(sbw_hidden_scan *sc)
{
    free(sc->col);
    sbw_hidden_scan_init(sc);
}

int sbw_hidden_scan_hook(void *ctx, const double *a, size_t row0, size_t rows, size_t ld)
{
    sbw_hidden_scan *sc = ctx;
    (void)row0;
    if (!sc->col && !sc->nomem) {
        sc->col = calloc(ld, sizeof *sc->col);
        sc->cols = ld;
        sc->nomem = !sc->col;
    }
    for (size_t i = 0; i < rows; i++) {
        double rs = 0;
        for (size_t j = 0; j < ld; j++) {
            double x = a[i * ld + j];
            rs += x * x;
            sc->amax = fmax(sc->amax, fabs(x));
            if (sc->col)
                sc->col[j] += x * x;
            for (int p = SBW_HPREC_F32; p < SBW_HPREC_N; p++)
                if (sc->holds[p] && !sbw_hidden_prec_holds((sbw_hidden_prec)p, x))
                    sc->holds[p] = false;
        }
        sc->sumsq += rs;
        sc->row_max = fmax(sc->row_max, rs);
    }
    sc->count += rows * ld;
    return SBW_OK;
}

sbw_hidden_prec sbw_hidden_scan_observed(const sbw_hidden_scan *sc)
{
    static const sbw_hidden_prec coarse_first[] = {SBW_HPREC_BF16, SBW_HPREC_F16, SBW_HPREC_F32};
    for (size_t i = 0; i < 3; i++)
        if (sc->holds[coarse_first[i]])
            return coarse_first[i];
    return SBW_HPREC_F64;
}

double sbw_hidden_floor(const sbw_hidden_scan *sc, sbw_hidden_prec p, size_t n, size_t m,
                        double eps_svd, double w0_scale)
{
    double u = sbw_hidden_prec_unit(p);
    double nm = (double)n * (double)m;
    return u / (1 - u) * sqrt(sc->sumsq) + sbw_hidden_prec_eta(p) * sqrt(nm) +
           0.5 * sqrt((double)n + (double)m + 1) * eps_svd * w0_scale;
}

double sbw_hidden_typical(const sbw_hidden_scan *sc, sbw_hidden_prec p, size_t n, size_t m)
{
    if (!sc->col)
        return 0;
    double col_max = 0, u = sbw_hidden_prec_unit(p);
    for (size_t j = 0; j < sc->cols; j++)
        col_max = fmax(col_max, sc->col[j]);
    return u / sqrt(3.0) * (sqrt(sc->row_max) + sqrt(col_max)) +
           u * sc->amax * sqrt(2 * log((double)n + (double)m)) +
           sbw_hidden_prec_eta(p) * (sqrt((double)n) + sqrt((double)m));
}

const char *sbw_hidden_status_name(sbw_hidden_status s)
{
    static const char *const names[] = {"certified", "clear", "probable", "no_drop",
                                        "too_few_queries"};
    return names[s];
}

/* s[k] descending, finite, non-negative. */
static bool descending(const double *s, size_t k)
{
    for (size_t j = 0; j < k; j++)
        if (!isfinite(s[j]) || s[j] < 0 || (j > 0 && s[j] > s[j - 1]))
            return false;
    return true;
}

/* The log10 gap between values j - 1 and j (0-based), both floored at
 * lo > 0 so that an exact zero gives a finite gap. */
static double gap_at(const double *s, size_t j, double lo)
{
    return log10(fmax(s[j - 1], lo) / fmax(s[j], lo));
}

int sbw_hidden_estimate(const double *s, size_t k, size_t rmax, double floor, double typical,
                        sbw_hidden *h)
{
    if (rmax > k || rmax < 2 || !isfinite(floor) || floor < 0 || !(typical >= 0) ||
        !isfinite(typical) || !descending(s, k))
        return SBW_ERROR(SBW_EINVAL,
                         "hidden size: needs a descending spectrum of at least 2 possible "
                         "values and a finite floor (k %zu, rmax %zu)",
                         k, rmax);
    /* values floored 60 binary orders below sigma_1 (and at DBL_MIN): an
     * exact zero then ends a gap of at most 18 decades, not infinity */
    double lo = fmax(s[0] * 0x1p-60, DBL_MIN);
    sbw_hidden r = {.floor = floor, .typical = typical, .rmax = rmax};
    while (r.hidden_min < rmax && s[r.hidden_min] > floor)
        r.hidden_min++;
    size_t best = 1;
    for (size_t j = 2; j < rmax; j++) /* gaps between values j-1 and j, 0-based, j < rmax */
        if (gap_at(s, j, lo) > gap_at(s, best, lo))
            best = j;
    r.hidden = best;
    r.gap_log10 = gap_at(s, best, lo);
    r.ratio = pow(10, r.gap_log10);
    r.next_log10 = 0;
    r.next_at = 0;
    for (size_t j = 1; j < rmax; j++)
        if (j != best && gap_at(s, j, lo) >= r.next_log10) {
            r.next_log10 = gap_at(s, j, lo);
            r.next_at = j;
        }
    r.margin = r.next_log10 > 0 ? r.gap_log10 / r.next_log10 : INFINITY;
    bool decided = s[0] > 0 && r.gap_log10 >= SBW_HIDDEN_GAP_MIN && r.margin >= SBW_HIDDEN_MARGIN;
    if (decided && r.hidden == r.hidden_min)
        r.status = SBW_HIDDEN_CERTIFIED;
    else if (decided && rmax - r.hidden >= SBW_HIDDEN_TAIL_MIN)
        r.status = SBW_HIDDEN_CLEAR;
    else if (typical > 0 && r.gap_log10 >= SBW_HIDDEN_GAP_MIN && s[r.hidden] <= typical &&
             s[r.hidden - 1] > 2 * typical && rmax - r.hidden >= SBW_HIDDEN_TAIL_MIN)
        r.status = SBW_HIDDEN_PROBABLE;
    else
        r.status = r.hidden_min == rmax ? SBW_HIDDEN_TOO_FEW : SBW_HIDDEN_NO_DROP;
    *h = r;
    return SBW_OK;
}

int sbw_hidden_of(const sbw_spectra *sp, sbw_reduce_variant v, const sbw_hidden_scan *sc,
                  sbw_hidden_prec p, sbw_hidden *h)
{
    size_t n = sp->red.rows, m = sp->red.cols;
    if ((v != SBW_VAR_BOTH && v != SBW_VAR_ROWS) || !sp->s[v] || n < 2 || m < 2)
        return SBW_ERROR(SBW_EINVAL, "hidden size: needs the spectrum of a centred matrix of at "
                                     "least 2 x 2");
    const double *s = sp->s[v];
    double eps_svd = sp->red.prec == SBW_F32 ? FLT_EPSILON : DBL_EPSILON;
    double fl = sbw_hidden_floor(sc, p, n, m, eps_svd, fmax(s[0], sp->w0_uncentred[v]));
    double ty = sbw_hidden_typical(sc, p, n, m);
    if (ty > 0) /* the SVD's own roundoff, as in the floor */
        ty += 0.5 * sqrt((double)n + (double)m + 1) * eps_svd * fmax(s[0], sp->w0_uncentred[v]);
    size_t rmax = v == SBW_VAR_BOTH ? (n < m ? n : m) - 1 : (n < m - 1 ? n : m - 1);
    int st = sbw_hidden_estimate(s, sp->k, rmax, fl, ty, h);
    if (!st)
        h->prec = p;
    return st;
}

static const char hidden_rule[] =
    "D = the largest gap log10(sigma_D/sigma_{D+1}) among the rmax values the centring leaves "
    "possible; a drop is decided when that gap is >= 0.6 decades and >= 3 times the largest "
    "other gap (hidden_margin) and, unless it is certified, has >= 2 values past it; "
    "hidden_min = #{sigma_j > hidden_floor}, hidden_floor = "
    "u/(1-u) ||A||_F + eta sqrt(NM) + 0.5 sqrt(N+M+1) eps_svd w0: the rounding of the "
    "stored outputs to hidden_precision (unit roundoff u, half-subnormal eta) and the SVD's; "
    "probable: otherwise, when the largest gap (>= 0.6 decades, >= 2 values past it) has "
    "sigma_{D+1} <= "
    "hidden_typical_floor < sigma_D / 2, that floor the norm independent uniform rounding errors "
    "have with high probability (u/sqrt3 (max row norm + max column norm) + u max|a| "
    "sqrt(2 ln(N+M)), Bandeira and van Handel 2016)";

/* The confidence statement of h in words. */
static const char *confidence(const sbw_hidden *h)
{
    switch (h->status) {
    case SBW_HIDDEN_CERTIFIED:
        return "decided drop at hidden_min: every exact matrix within the rounding bound has "
               "centred rank >= D (Weyl), and every value past D lies within that bound";
    case SBW_HIDDEN_CLEAR:
        return "decided drop, but the values past D lie above the rounding bound (noise beyond "
               "the storage precision): D is the gap rule's, hidden_min the proven lower bound";
    case SBW_HIDDEN_PROBABLE:
        return "no drop passes the gap rule, but the largest gap (>= 0.6 decades) is where the "
               "typical rounding floor cuts: the values past D within it, those up to D above "
               "twice it; a storage with correlated errors could fake this";
    case SBW_HIDDEN_NO_DROP:
        return "no decided drop: the spectrum decays without a gap (a high-rank head such as "
               "MoS or PLIF, or noise as large as the signal); hidden_size is not a hidden size";
    default:
        return "every value the centring leaves possible lies above the rounding bound and "
               "no gap is decided: N is too small (N - 1 <= D) or the outputs are full rank";
    }
}

int sbw_hidden_table(sbw_table *t, const sbw_hidden *h, const char *prec_source)
{
    bool decided = h->status <= SBW_HIDDEN_PROBABLE;
    sbw_table_meta_int(t, "hidden_size", decided ? (long long)h->hidden : -1);
    sbw_table_meta_str(t, "hidden_status", sbw_hidden_status_name(h->status));
    sbw_table_meta_int(t, "hidden_largest_gap_at", (long long)h->hidden);
    sbw_table_meta_int(t, "hidden_min", (long long)h->hidden_min);
    sbw_table_meta_int(t, "hidden_rmax", (long long)h->rmax);
    sbw_table_meta_dbl(t, "hidden_ratio", h->ratio);
    sbw_table_meta_dbl(t, "hidden_gap_log10", h->gap_log10);
    sbw_table_meta_dbl(t, "hidden_next_gap_log10", h->next_log10);
    sbw_table_meta_int(t, "hidden_next_gap_at", (long long)h->next_at);
    sbw_table_meta_dbl(t, "hidden_margin", h->margin);
    sbw_table_meta_str(t, "hidden_precision", sbw_hidden_prec_name(h->prec));
    sbw_table_meta_str(t, "hidden_precision_source", prec_source);
    sbw_table_meta_dbl(t, "hidden_floor", h->floor);
    sbw_table_meta_dbl(t, "hidden_typical_floor", h->typical);
    sbw_table_meta_str(t, "hidden_rule", hidden_rule);
    sbw_table_meta_str(t, "hidden_confidence", confidence(h));
    if (!decided)
        sbw_table_warn("hidden_%s: %s (largest gap %.3g decades at %zu, next %.3g at %zu)",
                       sbw_hidden_status_name(h->status), confidence(h), h->gap_log10, h->hidden,
                       h->next_log10, h->next_at);
    return sbw_table_status(t);
}
