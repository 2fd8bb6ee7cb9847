/* sbw_kl_pairs.c -- sampled pairwise KL (see sbw_kl_pairs.h). */
#include "sbw_kl_pairs.h"

#include "sbw_error.h"
#include "sbw_kl_kern.h"
#include "sbw_rng.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

int sbw_kl_pairs_draw(size_t n, size_t npairs, uint64_t seed, size_t *a, size_t *b)
{
    if (n < 2)
        return SBW_ERROR(SBW_EINVAL, "sampling pairs needs at least 2 rows, got %zu", n);
    gsl_rng *rng;
    int st = sbw_rng_alloc(&rng, seed, 1);
    if (st)
        return st;
    if ((n - 1) > gsl_rng_max(rng) - gsl_rng_min(rng)) {
        sbw_rng_free(rng);
        return SBW_ERROR(SBW_EINVAL, "cannot sample pairs among %zu rows (too many)", n);
    }
    for (size_t k = 0; k < npairs; k++) {
        a[k] = (size_t)gsl_rng_uniform_int(rng, (unsigned long)n);
        b[k] = (size_t)gsl_rng_uniform_int(rng, (unsigned long)(n - 1));
        b[k] += b[k] >= a[k];
    }
    sbw_rng_free(rng);
    return SBW_OK;
}

static int check_indices(const size_t *a, const size_t *b, size_t npairs, size_t n)
{
    for (size_t k = 0; k < npairs; k++)
        if (a[k] >= n || b[k] >= n)
            return SBW_ERROR(SBW_EINVAL, "pair %zu = (%zu, %zu) is out of range (%zu rows)", k,
                             a[k], b[k], n);
    return SBW_OK;
}

int sbw_kl_pairs_mat(const sbw_mat *l, const size_t *a, const size_t *b, size_t npairs, double *kl)
{
    int st = check_indices(a, b, npairs, l->rows);
    if (st)
        return st;
    double *p = malloc((l->cols ? l->cols : 1) * sizeof *p), plogp;
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t k = 0; k < npairs; k++) {
        const double *la = l->data + a[k] * l->ld, *lb = l->data + b[k] * l->ld;
        sbw_kl_kern_exp(la, p, l->cols, &plogp);
        kl[k] = sbw_kl_kern_pair(p, la, lb, l->cols);
    }
    free(p);
    return SBW_OK;
}

/* ---- from a file -------------------------------------------------------- */

typedef struct pair_ref {
    size_t a, b, k;
} pair_ref;

static int cmp_pair(const void *x, const void *y)
{
    const pair_ref *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->k > q->k) - (p->k < q->k);
}

typedef struct pair_work {
    double *la, *pa, *lb; /* cols each */
    size_t cur_a, cur_b;
} pair_work;

/* One stretch of the sorted pairs, with one reader. */
static int run_pairs(sbw_logp_reader *r, const sbw_logp_sel *s, const pair_ref *ref, size_t n,
                     pair_work *w, double *kl)
{
    size_t m = sbw_logp_info(r)->cols;
    int st = SBW_OK;
    w->cur_a = w->cur_b = SIZE_MAX;
    for (size_t i = 0; i < n && !st; i++) {
        if (ref[i].a != w->cur_a) {
            double plogp, sum;
            st = sbw_logp_read(r, s, ref[i].a, 1, w->la);
            if (!st)
                sum = sbw_kl_kern_exp(w->la, w->pa, m, &plogp);
            if (!st)
                st = sbw_logp_check_sums(r, s, ref[i].a, 1, w->la, &sum);
            w->cur_a = ref[i].a;
        }
        if (!st && ref[i].b != w->cur_b) {
            st = sbw_logp_read(r, s, ref[i].b, 1, w->lb);
            w->cur_b = ref[i].b;
        }
        if (!st)
            kl[ref[i].k] = sbw_kl_kern_pair(w->pa, w->la, w->lb, m);
    }
    return st;
}

static int sorted_refs(const size_t *a, const size_t *b, size_t npairs, pair_ref **out)
{
    pair_ref *ref = malloc((npairs ? npairs : 1) * sizeof *ref);
    if (!ref)
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate %zu pairs", npairs);
    for (size_t k = 0; k < npairs; k++)
        ref[k] = (pair_ref){a[k], b[k], k};
    qsort(ref, npairs, sizeof *ref, cmp_pair);
    *out = ref;
    return SBW_OK;
}

static void works_free(pair_work *w, int n)
{
    for (int i = 0; w && i < n; i++)
        free(w[i].la);
    free(w);
}

static int works_alloc(pair_work **out, int n, size_t m)
{
    if (n < 1)
        return SBW_ERROR(SBW_EINVAL, "no workers");
    pair_work *w = calloc((size_t)n, sizeof *w);
    int st = w ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (int i = 0; i < n && !st; i++) {
        w[i].la = malloc(3 * m * sizeof *w[i].la);
        if (!w[i].la)
            st = SBW_ERROR(SBW_ENOMEM, "out of memory");
        else {
            w[i].pa = w[i].la + m;
            w[i].lb = w[i].la + 2 * m;
        }
    }
    if (st) {
        works_free(w, n);
        return st;
    }
    *out = w;
    return SBW_OK;
}

enum { PAIRS_STRETCH = 512 };

static int parallel_pairs(sbw_logp_reader **team, int nteam, const sbw_logp_sel *s,
                          const pair_ref *ref, size_t npairs, pair_work *w, sbw_progress *pg,
                          double *kl)
{
    sbw_logp_fail fail;
    sbw_logp_fail_init(&fail);
    size_t nstretch = (npairs + PAIRS_STRETCH - 1) / PAIRS_STRETCH, done = 0;
#pragma omp parallel for num_threads(nteam) schedule(dynamic, 1)
    for (size_t c = 0; c < nstretch; c++) {
        int t = omp_get_thread_num();
        size_t k0 = c * PAIRS_STRETCH,
               n = npairs - k0 < PAIRS_STRETCH ? npairs - k0 : PAIRS_STRETCH;
        if (sbw_logp_fail_skip(&fail, c))
            continue;
        int st = run_pairs(team[t], s, ref + k0, n, &w[t], kl);
        if (st)
            sbw_logp_fail_note(&fail, st, c);
#pragma omp critical(sbw_kl_pairs_progress)
        {
            done += n;
            if (pg)
                sbw_progress_update(pg, (double)done);
        }
    }
    return sbw_logp_fail_raise(&fail);
}

int sbw_kl_pairs_file(sbw_logp_reader *r, const sbw_logp_sel *s, const size_t *a, const size_t *b,
                      size_t npairs, int threads, sbw_progress *pg, double *kl)
{
    if (!sbw_logp_seekable(r))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: sampling pairs needs random access; stdin or a pipe "
                         "cannot do it (save it to a file)",
                         sbw_logp_path(r));
    int st = check_indices(a, b, npairs, s->n), nteam = 0;
    pair_ref *ref = NULL;
    pair_work *w = NULL;
    sbw_logp_reader **team = NULL;
    if (!st)
        st = sorted_refs(a, b, npairs, &ref);
    if (!st)
        st = sbw_logp_team_open(r, threads, &team, &nteam);
    if (!st)
        st = works_alloc(&w, nteam, sbw_logp_info(r)->cols);
    if (!st)
        st = parallel_pairs(team, nteam, s, ref, npairs, w, pg, kl);
    works_free(w, nteam);
    sbw_logp_team_close(team, nteam);
    free(ref);
    return st;
}

/* ---- summary ------------------------------------------------------------ */

int sbw_kl_pairs_stats(const double *kl, size_t n, sbw_kl_pairs_sample *out)
{
    if (n == 0)
        return SBW_ERROR(SBW_EINVAL, "no sampled pairs to summarise");
    double *v = malloc(n * sizeof *v);
    if (!v)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    memcpy(v, kl, n * sizeof *v);
    gsl_sort(v, 1, n);
    sbw_kl_pairs_sample s = {.n = n, .mean = gsl_stats_mean(v, 1, n)};
    s.sd = s.se = s.ci_lo = s.ci_hi = NAN;
    if (n >= 2) {
        s.sd = gsl_stats_sd_m(v, 1, n, s.mean);
        s.se = s.sd / sqrt((double)n);
        double t = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1));
        s.ci_lo = s.mean - t * s.se;
        s.ci_hi = s.mean + t * s.se;
    }
    s.min = v[0];
    s.max = v[n - 1];
    s.q05 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.05);
    s.q25 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.25);
    s.median = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.5);
    s.q75 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.75);
    s.q95 = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.95);
    free(v);
    *out = s;
    return SBW_OK;
}
