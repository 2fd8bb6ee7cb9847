/* sbw_argmax.c -- the argmaxable words of a Softmax head: duplicates, the
 * GEMM pre-filter, then one LP per remaining word in parallel (see the
 * header). */
#include "sbw_argmax.h"

#include "sbw_argmax_cert.h"
#include "sbw_argmax_io.h"
#include "sbw_argmax_lp.h"
#include "sbw_error.h"
#include "sbw_maxprob.h"
#include "sbw_preflight.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *sbw_argmax_reason_name(sbw_argmax_reason r)
{
    static const char *const names[] = {"vertex",  "duplicate",  "dominated",
                                        "in_hull", "below_hull", "undecided"};
    return (unsigned)r <= SBW_ARGMAX_UNDECIDED ? names[r] : "?";
}

sbw_argmax_opts sbw_argmax_defaults(void)
{
    return (sbw_argmax_opts){.tol = 1e-9, .max_rounds = 100, .block = 256};
}

/* ---- stage 1: exact duplicates ------------------------------------------ */

typedef struct sort_ctx {
    const double *w;
    size_t d, ldw;
} sort_ctx;
static _Thread_local const sort_ctx *sort_by;

static int cmp_rows(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    const double *a = sort_by->w + i * sort_by->ldw, *c = sort_by->w + j * sort_by->ldw;
    for (size_t k = 0; k < sort_by->d; k++)
        if (a[k] != c[k])
            return a[k] < c[k] ? -1 : 1;
    return i < j ? -1 : i > j;
}

static bool same_row(const double *a, const double *c, size_t d)
{
    for (size_t k = 0; k < d; k++)
        if (a[k] != c[k])
            return false;
    return true;
}

/* other[i] = m when row i has no copy; else the copy with the largest bias
 * (the first such when i has it too, or the next one when that is i).
 * kind[i]: 0 unique or the single best copy, 1 duplicate, 2 dominated. */
static int find_copies(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                       size_t *other, unsigned char *kind)
{
    size_t *ord = malloc(m * sizeof *ord);
    if (!ord)
        return SBW_ERROR(SBW_ENOMEM, "argmax: no memory for %zu words", m);
    for (size_t i = 0; i < m; i++)
        ord[i] = i;
    sort_ctx ctx = {w, d, ldw};
    sort_by = &ctx;
    qsort(ord, m, sizeof *ord, cmp_rows);
    sort_by = NULL;
    for (size_t g0 = 0, g1; g0 < m; g0 = g1) {
        for (g1 = g0 + 1; g1 < m && same_row(w + ord[g0] * ldw, w + ord[g1] * ldw, d); g1++)
            ;
        size_t best = ord[g0], nbest = 0;
        for (size_t t = g0; t < g1; t++)
            if (b && b[ord[t]] > b[best])
                best = ord[t];
        for (size_t t = g0; t < g1; t++)
            nbest += !b || b[ord[t]] == b[best];
        for (size_t t = g0; t < g1; t++) {
            size_t i = ord[t];
            other[i] = m;
            kind[i] = 0;
            if (g1 - g0 == 1 || (b && b[i] == b[best] && nbest == 1))
                continue;
            kind[i] = b && b[i] < b[best] ? 2 : 1;
            other[i] = best;
            if (best == i) /* another copy with the same bias */
                for (size_t u = g0; u < g1; u++)
                    if (ord[u] != i && (!b || b[ord[u]] == b[i])) {
                        other[i] = ord[u];
                        break;
                    }
        }
    }
    free(ord);
    return SBW_OK;
}

/* ---- stage 2: the pre-filter -------------------------------------------- */

/* What the stages share: the head as stored (w, b: every certificate is
 * checked on it) and its normalised copy (wc = 2^-e W minus its mean row,
 * bc = 2^-e (b minus its largest value), each entry rounded once: what the
 * pre-filter and the LPs work on, so that a common shift of the biases or
 * of the rows, or a common scale, cannot change their numbers beyond
 * rounding), with the copy's sizes. */
typedef struct run_ctx {
    const double *w, *b;
    size_t m, d, ldw;
    const sbw_argmax_opts *o;
    double *wc, *bc;          /* m x d (ld d), m (NULL without bias) */
    double scale, wmax, bmax; /* max |wc_jk| + max |bc_j|, max ||wc_j||_2, max |bc_j| */
    int exp2;                 /* the copy is 2^-exp2 times the head, translated */
    sbw_argmax_certs *certs;
} run_ctx;

static void set_h(const run_ctx *x, size_t t, const double *h, double s)
{
    if (x->certs && x->certs->h)
        for (size_t k = 0; k < x->d; k++)
            x->certs->h[t * x->d + k] = s * h[k];
}

/* Word i's row of the block: L = g Wc^T with g = wc_i; a, c scratch (m).
 * Sets out and returns true when h = s g is proven on the stored head.
 * The bound on |computed - exact| of each margin s (l_i - l_j) + (bc_i -
 * bc_j): the GEMM's 2 gamma_d s ||g|| max ||wc_j|| (Higham eq. 3.5 with
 * Cauchy-Schwarz), the four roundings of the differences, product and sum
 * (8 u of the same sizes), and the copy's own rounding (each wc_jk and
 * bc_j is within u |wc_jk|, u |bc_j| of w_jk - mean_k, b_j - max b, whose
 * differences are the stored head's): 2 u (s ||g|| max ||wc_j|| + max
 * |bc_j|, plus half a subnormal per entry where the scaling by 2^-e
 * underflowed); 4 gamma_{d+4} and 12 u cover them with room, and 2d + 8
 * smallest subnormals the underflows of the sums.  The copy is 2^-e times
 * the head translated, so its margins are 2^-e times the head's. */
static bool prefilter_word(const run_ctx *x, size_t i, const double *g, const double *l, double *a,
                           double *c, sbw_argmax_word *out, size_t t)
{
    size_t n = 0;
    double gn = cblas_dnrm2((int)x->d, g, 1);
    for (size_t j = 0; j < x->m; j++)
        if (j != i) {
            a[n] = l[i] - l[j];
            c[n++] = x->bc ? x->bc[i] - x->bc[j] : 0.0;
        }
    double s;
    if (!(gn > 0) || !sbw_argmax_cert_ray(a, x->bc ? c : NULL, n, 1.0, &s))
        return false;
    double mg = INFINITY;
    for (size_t j = 0; j < n; j++)
        mg = fmin(mg, s * a[j] + c[j]);
    double u = DBL_EPSILON / 2;
    double bound = 4 * sbw_argmax_cert_gamma(x->d + 4) * s * x->wmax * gn + 12 * u * x->bmax +
                   u * fabs(mg) + (double)(2 * x->d + 8) * DBL_TRUE_MIN +
                   4 * DBL_TRUE_MIN * (s * gn * sqrt((double)x->d) + 2);
    if (!(mg > bound * (1 + 1e-10)))
        return false;
    *out = (sbw_argmax_word){.word = i,
                             .argmaxable = 1,
                             .reason = SBW_ARGMAX_VERTEX,
                             .margin = mg,
                             .bound = bound,
                             .cert_norm = s * gn,
                             .other = x->m,
                             .stage = 1};
    set_h(x, t, g, s);
    return true;
}

/* Runs the pre-filter over the pending words pend[0..np) (indices into
 * words, ascending); keeps in pend the ones it could not prove.  Its GEMM
 * blocks are the pending words of list positions [k B, k B + B) (B =
 * o->block), not B pending words in a row: a word's row of L then depends
 * on the list's block it sits in only, which a shard's list shares with
 * the whole list's (sbw_argmax_share_block), so its numbers are the same
 * to the bit however the list was cut.  G (block x d), L (block x m), a
 * and c (m) are scratch. */
static size_t prefilter(const run_ctx *x, const size_t *words, size_t *pend, size_t np,
                        sbw_argmax_word *out, double *G, double *L, double *a, double *c)
{
    size_t keep = 0, B = x->o->block, nb;
    for (size_t p0 = 0; p0 < np; p0 += nb) {
        size_t blk = pend[p0] / B;
        for (nb = 0; p0 + nb < np && pend[p0 + nb] / B == blk; nb++)
            memcpy(G + nb * x->d, x->wc + words[pend[p0 + nb]] * x->d, x->d * sizeof *G);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)x->m, (int)x->d, 1.0, G,
                    (int)x->d, x->wc, (int)x->d, 0.0, L, (int)x->m);
        for (size_t r = 0; r < nb; r++) {
            size_t t = pend[p0 + r];
            if (!prefilter_word(x, words[t], G + r * x->d, L + r * x->m, a, c, &out[t], t))
                pend[keep++] = t;
        }
    }
    return keep;
}

/* ---- stage 3: the LPs ----------------------------------------------------- */

static void lp_result(const run_ctx *x, size_t i, size_t t, const sbw_argmax_lp_res *r,
                      sbw_argmax_word *out)
{
    *out = (sbw_argmax_word){.word = i,
                             .argmaxable = r->verdict,
                             .other = x->m,
                             .stage = 2,
                             .rounds = r->rounds,
                             .margin = NAN,
                             .bound = NAN,
                             .cert_norm = NAN,
                             .reason = SBW_ARGMAX_UNDECIDED};
    if (r->verdict == 1) {
        out->reason = SBW_ARGMAX_VERTEX;
        out->margin = r->margin;
        out->bound = r->bound;
        out->cert_norm = r->h_norm;
        set_h(x, t, r->h, 1.0);
    } else if (r->verdict == 0) {
        out->reason = r->below ? SBW_ARGMAX_BELOW : SBW_ARGMAX_IN_HULL;
        out->margin = r->gap;
        out->bound = r->residual;
        out->cert_norm = 1.0;
        out->support = r->support;
        sbw_argmax_certs *cs = x->certs;
        if (cs && cs->idx && cs->lambda && cs->k) {
            size_t k = r->k < cs->cap ? r->k : cs->cap;
            for (size_t u = 0; u < k; u++) {
                cs->idx[t * cs->cap + u] = r->idx[u];
                cs->lambda[t * cs->cap + u] = r->lambda[u];
            }
            cs->k[t] = k;
        }
    }
}

/* One thread's share of the LP words; returns the first failed word's
 * status (its word in *bad). */
static int lp_words(const run_ctx *x, const size_t *words, const size_t *pend, size_t np,
                    sbw_argmax_word *out, size_t *bad)
{
    sbw_argmax_lp *lp = NULL;
    int st = sbw_argmax_lp_alloc(&lp, x->m, x->d);
    sbw_argmax_lp_head oh = {x->w, x->b, x->ldw}, nh = {x->wc, x->bc, x->d};
    *bad = SIZE_MAX;
#pragma omp for schedule(dynamic, 1)
    for (size_t p = 0; p < np; p++) {
        if (st)
            continue;
        size_t t = pend[p], i = words[t];
        sbw_argmax_lp_res r;
        st = sbw_argmax_lp_word(lp, &oh, &nh, i, x->wc + i * x->d, x->o->tol, x->scale, x->exp2,
                                x->o->max_rounds, &r);
        if (st == SBW_ENUMERIC) { /* GLPK gave up: no certificate, undecided */
            st = SBW_OK;
            r.verdict = -1;
        }
        if (st)
            *bad = i;
        else
            lp_result(x, i, t, &r, &out[t]);
    }
    sbw_argmax_lp_free(lp);
    sbw_argmax_lp_thread_done();
    return st;
}

/* ---- the run -------------------------------------------------------------- */

/* The normalised copy (wc, bc) and its sizes; mean (d) scratch.  First
 * every value is multiplied by 2^-e (e: the exponent of the largest |w_jk|
 * or |b_j|; exact but for values that become subnormal), so nothing
 * overflows below; then the mean row is subtracted (the mean is any
 * vector: every row moves by the same one) and the largest bias (exactly
 * 0 for its word, so the words that can win keep biases near 0).  x->scale
 * is the copy's max |wc_jk| + max |bc_j|, the LP's unit. */
static void normalise(run_ctx *x, double *mean)
{
    double amax = 0, bmax = -INFINITY, big = 0;
    for (size_t j = 0; j < x->m; j++) {
        for (size_t k = 0; k < x->d; k++)
            big = fmax(big, fabs(x->w[j * x->ldw + k]));
        if (x->b)
            big = fmax(big, fabs(x->b[j]));
    }
    x->exp2 = big > 0 && isfinite(big) ? ilogb(big) : 0;
    double f = ldexp(1.0, -x->exp2); /* a normal power of two: x * f == ldexp(x, -e) */
    bool mul = x->exp2 > -1000 && x->exp2 < 1000;
    memset(mean, 0, x->d * sizeof *mean);
    for (size_t j = 0; j < x->m; j++)
        for (size_t k = 0; k < x->d; k++)
            mean[k] += (mul ? x->w[j * x->ldw + k] * f : ldexp(x->w[j * x->ldw + k], -x->exp2)) /
                       (double)x->m;
    x->wmax = x->bmax = 0;
    for (size_t j = 0; j < x->m; j++) {
        double s = 0;
        for (size_t k = 0; k < x->d; k++) {
            double v = x->wc[j * x->d + k] =
                (mul ? x->w[j * x->ldw + k] * f : ldexp(x->w[j * x->ldw + k], -x->exp2)) - mean[k];
            s += v * v;
            amax = fmax(amax, fabs(v));
        }
        x->wmax = fmax(x->wmax, sqrt(s));
        if (x->b)
            bmax = fmax(bmax, x->b[j]);
    }
    for (size_t j = 0; x->bc && j < x->m; j++) {
        x->bc[j] = (mul ? x->b[j] * f : ldexp(x->b[j], -x->exp2)) -
                   (mul ? bmax * f : ldexp(bmax, -x->exp2));
        x->bmax = fmax(x->bmax, fabs(x->bc[j]));
    }
    x->scale = amax + x->bmax;
    if (!(x->scale > 0) || !isfinite(x->scale))
        x->scale = 1;
}

/* Stage 1 for the checked words; the rest go to pend (returns how many). */
static size_t copies(const run_ctx *x, const size_t *words, size_t n, const size_t *other,
                     const unsigned char *kind, sbw_argmax_word *out, size_t *pend)
{
    size_t np = 0;
    for (size_t t = 0; t < n; t++) {
        size_t i = words[t];
        if (!kind[i]) {
            pend[np++] = t;
            continue;
        }
        double gap = x->b ? x->b[i] - x->b[other[i]] : 0.0; /* exact or -inf-ward: < 0 */
        out[t] =
            (sbw_argmax_word){.word = i,
                              .argmaxable = 0,
                              .reason = kind[i] == 2 ? SBW_ARGMAX_DOMINATED : SBW_ARGMAX_DUPLICATE,
                              .margin = gap,
                              .bound = 0,
                              .cert_norm = 1,
                              .support = 1,
                              .other = other[i]};
        sbw_argmax_certs *cs = x->certs;
        if (cs && cs->idx && cs->lambda && cs->k && cs->cap) {
            cs->idx[t * cs->cap] = other[i];
            cs->lambda[t * cs->cap] = 1.0;
            cs->k[t] = 1;
        }
    }
    return np;
}

void sbw_argmax_summary_add(sbw_argmax_summary *s, const sbw_argmax_word *w)
{
    s->argmaxable += w->argmaxable == 1;
    s->unargmaxable += w->argmaxable == 0;
    s->undecided += w->argmaxable < 0;
    s->by_duplicates += w->stage == 0;
    s->by_prefilter += w->stage == 1;
    s->by_lp += w->stage == 2;
    s->lp_rounds += (size_t)w->rounds;
    s->checked++;
}

static void summarise(const sbw_argmax_word *out, size_t n, sbw_argmax_summary *s)
{
    s->checked = 0;
    for (size_t t = 0; t < n; t++)
        sbw_argmax_summary_add(s, &out[t]);
}

static int check_args(size_t m, size_t d, size_t ldw, const size_t *words, size_t n,
                      const sbw_argmax_opts *o)
{
    if (m < 2 || d < 1 || ldw < d || m > INT32_MAX || ldw > INT32_MAX)
        return SBW_ERROR(SBW_EINVAL,
                         "argmax: need a head of >= 2 words and >= 1 dimension "
                         "(and < 2^31), got %zu x %zu",
                         m, d);
    if (!words && n != m)
        return SBW_ERROR(SBW_EINVAL, "argmax: %zu words asked of a head of %zu", n, m);
    for (size_t t = 0; words && t < n; t++)
        if (words[t] >= m)
            return SBW_ERROR(SBW_EINVAL, "argmax: word %zu is out of range (the head has %zu)",
                             words[t], m);
    if (!(o->tol >= 0) || o->max_rounds < 1 || o->block < 1)
        return SBW_ERROR(SBW_EINVAL, "argmax: bad options (tol %g, rounds %d, block %zu)", o->tol,
                         o->max_rounds, o->block);
    return SBW_OK;
}

/* Stage 3 over the words still pending, in parallel. */
static int lp_stage(const run_ctx *x, const size_t *words, const size_t *pend, size_t np,
                    sbw_argmax_word *out)
{
    int st = SBW_OK;
    size_t bad = SIZE_MAX;
#pragma omp parallel if (np > 1)
    {
        size_t mine;
        int s = lp_words(x, words, pend, np, out, &mine);
#pragma omp critical(sbw_argmax_lp)
        if (s && (!st || mine < bad)) {
            st = s;
            bad = mine;
        }
    }
    if (st == SBW_ENOMEM)
        return SBW_ERROR(st, "argmax: no memory for the LP of %zu words", x->m);
    return st ? SBW_ERROR(st, "argmax: the LP solver (GLPK) failed on word %zu", bad) : SBW_OK;
}

double sbw_argmax_bytes(size_t m, size_t d, size_t nwords, bool bias, const sbw_argmax_opts *o,
                        int threads)
{
    double M = (double)m, D = (double)d, B = (double)(o->block < nwords ? o->block : nwords);
    double T = threads > 0 ? threads : omp_get_max_threads(), R = D + 2;
    double rivals = fmin(M, 4 * R); /* columns: about 3 D in practice (docs/DESIGN.md) */
    double mine = M * D * 8 + (bias ? M * 8 : 0) + (B * D + B * M + 2 * M + D) * 8 +
                  M * (2 * sizeof(size_t) + 1) + (double)nwords * sizeof(size_t);
    /* GLPK: ~64 bytes per nonzero, row and column, its LU about 4 R^2
     * doubles; dgelsd: about 12 R^2 doubles */
    double per = sbw_argmax_lp_bytes(m, d) + 64 * (rivals * R + 2 * D + 1 + rivals + 2 * D + R) +
                 16 * R * R * 8;
    return mine + T * per;
}

int sbw_argmax_run(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                   const size_t *words, size_t nwords, const sbw_argmax_opts *o,
                   sbw_argmax_word *out, sbw_argmax_certs *certs, sbw_argmax_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    int st = check_args(m, d, ldw, words, nwords, o);
    if (st)
        return st;
    run_ctx x = {.w = w, .b = b, .m = m, .d = d, .ldw = ldw, .o = o, .certs = certs};
    size_t B = o->block < nwords ? o->block : nwords;
    size_t *all = words ? NULL : calloc(m, sizeof *all), *other = malloc(m * sizeof *other);
    /* + 1: nwords may be 0 (a list of no words), and malloc(0) may
     * return NULL, which is no lack of memory */
    size_t *pend = malloc((nwords + 1) * sizeof *pend);
    unsigned char *kind = calloc(m, 1);
    double *G = malloc((B * d + B * m + 2 * m + d) * sizeof *G);
    x.wc = malloc(m * d * sizeof *x.wc);
    x.bc = b ? malloc(m * sizeof *x.bc) : NULL;
    if ((!words && !all) || !other || !pend || !kind || !G || !x.wc || (b && !x.bc))
        st = SBW_ERROR(SBW_ENOMEM, "argmax: no memory for a head of %zu x %zu", m, d);
    for (size_t i = 0; all && i < m; i++)
        all[i] = i;
    const size_t *wd = words ? words : all;
    st = st ? st : find_copies(w, m, d, ldw, b, other, kind);
    if (!st) {
        normalise(&x, G + B * d + B * m + 2 * m);
        size_t np = copies(&x, wd, nwords, other, kind, out, pend);
        double t0 = omp_get_wtime();
        if (!o->no_prefilter)
            np = prefilter(&x, wd, pend, np, out, G, G + B * d, G + B * d + B * m,
                           G + B * d + B * m + m);
        double t1 = omp_get_wtime();
        st = lp_stage(&x, wd, pend, np, out);
        sum->seconds_prefilter = t1 - t0;
        sum->seconds_lp = omp_get_wtime() - t1;
        summarise(out, nwords, sum);
        sum->scale = ldexp(x.scale, x.exp2);
    }
    free(all);
    free(other);
    free(pend);
    free(kind);
    free(G);
    free(x.wc);
    free(x.bc);
    return st;
}

/* ---- sbw-argmax's whole run on files ------------------------------------ */

/* Every copy the run holds, against the machine's memory (SBW_MAX_MEMORY):
 * W and b as read (b twice while it is converted), the answers, what
 * sbw_argmax_run allocates (sbw_argmax_bytes), the names of --vocab (the
 * file's size plus a pointer and malloc's overhead per line), the
 * ladder's scratch and results, and the caller's table (about 32 bytes a
 * cell). */
static int file_preflight(const char *path, size_t m, size_t d, const sbw_argmax_file_opts *o)
{
    double M = (double)m, D = (double)d, n = (double)(o->words ? o->nwords : m);
    double nr = (double)o->nr, vocab = 0;
    struct stat sb;
    if (o->vocab && stat(o->vocab, &sb) == 0)
        vocab = (double)sb.st_size + 40 * M;
    sbw_argmax_opts def = sbw_argmax_defaults();
    double bytes = M * D * 8 + (o->bias ? 2 * M * 8 : 0) + (n + 1) * sizeof(sbw_argmax_word) +
                   sbw_argmax_bytes(m, d, (size_t)n, o->bias != NULL, &def, 0) + vocab +
                   (nr > 0 ? ((double)sbw_maxprob_ws_size(m, d) + D) * 8 + 2 * n * nr * 8 : 0) +
                   n * (11 + 2 * nr) * 32;
    char what[512];
    snprintf(what, sizeof what,
             "%s: sbw-argmax on this %zu x %zu head (W, its normalised copy, %d LP workspace(s)%s)",
             strcmp(path, "-") == 0 ? "<stdin>" : path, m, d, omp_get_max_threads(),
             nr > 0 ? ", --max-prob" : "");
    return sbw_preflight_memory(bytes, what);
}

/* W, b and the names, after the memory preflight. */
static int file_read(const char *path, const sbw_argmax_file_opts *o, sbw_argmax_file_res *res)
{
    sbw_npy_reader *r = NULL;
    size_t m, d;
    int st = sbw_argmax_io_open_w(&r, path, &m, &d);
    if (st)
        return st;
    if ((st = file_preflight(path, m, d, o)) != 0) {
        sbw_npy_close(r);
        return st;
    }
    st = sbw_argmax_io_read_w(r, path, &res->w);
    st = st || !o->bias ? st : sbw_argmax_io_read_bias(o->bias, m, path, &res->b);
    return st || !o->vocab ? st : sbw_argmax_io_read_vocab(o->vocab, m, &res->names);
}

/* The ladder for the words it asks for: every one with max_prob_all, else
 * the unargmaxable. */
static int file_ladder(const sbw_argmax_file_opts *o, sbw_argmax_file_res *res)
{
    size_t n = res->nwords, *words = malloc((n + 1) * sizeof *words);
    bool *want = malloc((n + 1) * sizeof *want);
    res->pm = malloc((n * o->nr + 1) * sizeof *res->pm);
    res->pu = malloc((n * o->nr + 1) * sizeof *res->pu);
    int st = words && want && res->pm && res->pu
                 ? SBW_OK
                 : SBW_ERROR(SBW_ENOMEM, "no memory for --max-prob");
    for (size_t t = 0; !st && t < n; t++) {
        words[t] = res->out[t].word;
        want[t] = o->max_prob_all || res->out[t].argmaxable == 0;
    }
    sbw_maxprob_ladder l = {
        o->radii, o->nr, o->prob_tol, o->max_prob_iters, "sbw-argmax: --max-prob", o->quiet};
    st = st ? st
            : sbw_maxprob_words(res->w.data, res->w.rows, res->w.cols, res->w.ld, res->b, words,
                                want, n, &l, res->pm, res->pu, &res->unconverged);
    free(words);
    free(want);
    return st;
}

size_t sbw_argmax_share_block(size_t len, size_t block)
{
    size_t b = len / SBW_ARGMAX_SHARE_BLOCKS;
    b = b < block ? b : block;
    return b ? b : 1;
}

size_t sbw_argmax_share_pos(size_t s, size_t n, size_t b, size_t k)
{
    return (s + (k / b) * n) * b + k % b;
}

size_t sbw_argmax_share_count(size_t s, size_t n, size_t b, size_t len)
{
    size_t nb = (len + b - 1) / b;
    if (s >= nb)
        return 0;
    size_t count = (nb - s + n - 1) / n * b;
    return (nb - 1) % n == s ? count - (nb * b - len) : count;
}

/* The words of the shard's share (o->nshards > 0) into *out (free()): the
 * list (o->words, or 0..m-1) in blocks of b positions, shard taking
 * blocks shard, shard + nshards, ...; *n their count.  Errors: SBW_EINVAL
 * (more shards than blocks), SBW_ENOMEM. */
static int file_share(const sbw_argmax_file_opts *o, size_t m, size_t b, size_t **out, size_t *n)
{
    size_t all = o->words ? o->nwords : m, nb = (all + b - 1) / b;
    if (o->shard >= o->nshards || o->nshards > nb)
        return SBW_ERROR(SBW_EINVAL,
                         "--shard %zu/%zu: the %zu word(s) to check make %zu block(s) of %zu, "
                         "a shard takes whole blocks: give 1 <= I <= N <= %zu",
                         o->shard + 1, o->nshards, all, nb, b, nb);
    size_t k = sbw_argmax_share_count(o->shard, o->nshards, b, all);
    size_t *w = malloc((k + 1) * sizeof *w);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "no memory for the shard's words");
    for (size_t j = 0; j < k; j++) {
        size_t t = sbw_argmax_share_pos(o->shard, o->nshards, b, j);
        w[j] = o->words ? o->words[t] : t;
    }
    *out = w;
    *n = k;
    return SBW_OK;
}

int sbw_argmax_file(const char *path, const sbw_argmax_file_opts *o, sbw_argmax_file_res *res)
{
    *res = (sbw_argmax_file_res){0};
    int st = file_read(path, o, res);
    size_t m = res->w.rows, *share = NULL;
    for (size_t t = 0; !st && o->words && t < o->nwords; t++)
        if (o->words[t] >= m)
            st = SBW_ERROR(SBW_EINVAL, "--words: word %zu is out of range (%s has %zu words)",
                           o->words[t], path, m);
    res->list_len = res->nwords = o->words ? o->nwords : m;
    const size_t *words = o->words;
    sbw_argmax_opts run = o->run; /* blocks of the whole list's, sharded or not */
    run.block = sbw_argmax_share_block(res->list_len, o->run.block);
    if (!st && o->nshards) {
        st = file_share(o, m, run.block, &share, &res->nwords);
        words = share;
        res->hash = sbw_argmax_io_hash(res->w.data, m, res->w.cols, res->w.ld, res->b, res->names);
    }
    if (!st && !(res->out = calloc(res->nwords + 1, sizeof *res->out)))
        st = SBW_ERROR(SBW_ENOMEM, "no memory for %zu words", res->nwords);
    st = st ? st
            : sbw_argmax_run(res->w.data, m, res->w.cols, res->w.ld, res->b, words, res->nwords,
                             &run, res->out, NULL, &res->sum);
    free(share);
    return st || !o->nr ? st : file_ladder(o, res);
}

void sbw_argmax_file_free(sbw_argmax_file_res *res)
{
    sbw_argmax_io_names_free(res->names, res->w.rows);
    sbw_mat_free(&res->w);
    free(res->b);
    free(res->out);
    free(res->pm);
    free(res->pu);
    *res = (sbw_argmax_file_res){0};
}
