/* sbw_synth_head.c -- random Softmax heads with planted interior words
 * (see sbw_synth_head.h for the construction and why it holds). */
#include "sbw_synth_head.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_rng.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- drawing ----------------------------------------------------------------- */

/* x (d) uniform on the unit sphere: a standard Gaussian vector, normalised
 * (redrawn in the impossible case of a norm below 1e-6). */
static void unit_row(gsl_rng *r, double *x, size_t d)
{
    double s = 0;
    while (s < 1e-12) {
        s = 0;
        for (size_t k = 0; k < d; k++) {
            x[k] = gsl_ran_gaussian(r, 1.0);
            s += x[k] * x[k];
        }
    }
    s = sqrt(s);
    for (size_t k = 0; k < d; k++)
        x[k] /= s;
}

/* Word i = sum_t lam_t w_{pick_t} over d + 1 of the nb sphere words in
 * base, lam_t >= 1/(3(d+1)); its bias (if any) 0 to 0.1 below theirs.
 * pick (d + 1) and lam (d + 1) are scratch. */
static void plant_word(gsl_rng *r, sbw_synth_head *h, size_t *base, size_t nb, size_t i,
                       size_t *pick, double *lam)
{
    size_t n = h->d + 1, d = h->d;
    gsl_ran_choose(r, pick, n, base, nb, sizeof *base);
    double s = 0, bi = 0, *wi = h->w + i * d;
    for (size_t t = 0; t < n; t++)
        s += lam[t] = 0.5 + gsl_rng_uniform(r);
    for (size_t t = 0; t < n; t++) {
        lam[t] /= s;
        bi += h->b ? lam[t] * h->b[pick[t]] : 0;
    }
    for (size_t k = 0; k < d; k++) {
        double acc = 0;
        for (size_t t = 0; t < n; t++)
            acc += lam[t] * h->w[pick[t] * d + k];
        wi[k] = acc;
    }
    if (h->b)
        h->b[i] = bi - 0.1 * gsl_rng_uniform(r);
}

/* The planted positions, the sphere words in index order, then the planted
 * words in index order.  all, base (m) and pl (k) are scratch. */
static void plant_fill(gsl_rng *r, sbw_synth_head *h, size_t *all, size_t *base, size_t *pl,
                       size_t *pick, double *lam)
{
    size_t m = h->m, d = h->d, nb = 0;
    for (size_t j = 0; j < m; j++)
        all[j] = j;
    if (h->k)
        gsl_ran_choose(r, pl, h->k, all, m, sizeof *all);
    for (size_t t = 0; t < h->k; t++)
        h->planted[pl[t]] = true;
    for (size_t j = 0; j < m; j++)
        if (!h->planted[j]) {
            base[nb++] = j;
            unit_row(r, h->w + j * d, d);
            if (h->b)
                h->b[j] = gsl_ran_gaussian(r, 0.5);
        }
    for (size_t t = 0; t < h->k; t++)
        plant_word(r, h, base, nb, pl[t], pick, lam);
}

int sbw_synth_head_check(size_t m, size_t d, size_t k)
{
    size_t bytes;
    if (d < 2 || d > SBW_SYNTH_HEAD_DMAX || k > m || m - k < d + 1) /* d = 1: sphere words repeat */
        return SBW_ERROR(SBW_EINVAL,
                         "planted head: need 2 <= d <= %d and m - k >= d + 1 (m=%zu d=%zu k=%zu)",
                         SBW_SYNTH_HEAD_DMAX, m, d, k);
    if (sbw_mat_bytes(m, d, sizeof(double), &bytes))
        return SBW_ERROR(SBW_EINVAL, "planted head: m x d = %zu x %zu doubles overflows", m, d);
    return SBW_OK;
}

int sbw_synth_head_plant(sbw_synth_head *h, size_t m, size_t d, size_t k, bool bias, uint64_t seed)
{
    *h = (sbw_synth_head){.m = m, .d = d, .k = k};
    int st = sbw_synth_head_check(m, d, k);
    if (st) {
        *h = (sbw_synth_head){0};
        return st;
    }
    gsl_rng *r = NULL;
    size_t *all = malloc(m * sizeof *all), *base = malloc(m * sizeof *base);
    size_t *pl = malloc((k + 1) * sizeof *pl), *pick = malloc((d + 1) * sizeof *pick);
    double *lam = malloc((d + 1) * sizeof *lam);
    h->w = calloc(m * d, sizeof *h->w);
    h->b = bias ? calloc(m, sizeof *h->b) : NULL;
    h->planted = calloc(m, sizeof *h->planted);
    st = all && base && pl && pick && lam && h->w && h->planted && (h->b || !bias)
             ? SBW_OK
             : SBW_ERROR(SBW_ENOMEM, "no memory for a %zu x %zu head", m, d);
    st = st ? st : sbw_rng_alloc(&r, seed, 0);
    if (!st)
        plant_fill(r, h, all, base, pl, pick, lam);
    sbw_rng_free(r);
    free(all), free(base), free(pl), free(pick), free(lam);
    if (st)
        sbw_synth_head_free(h);
    return st;
}

void sbw_synth_head_free(sbw_synth_head *h)
{
    free(h->w);
    free(h->b);
    free(h->planted);
    *h = (sbw_synth_head){0};
}

/* ---- writing ----------------------------------------------------------------- */

/* The text files of a head, open under their temporaries. */
typedef struct head_out {
    sbw_npy_writer *w, *b;
    sbw_file planted, vocab;
} head_out;

/* fprintf of one line into f, its error checked. */
static int text_line(sbw_file *f, const char *prefix, size_t j)
{
    if (fprintf(f->fp, "%s%zu\n", prefix, j) < 0)
        return SBW_ERROR(SBW_EIO, "%s: write failed", f->path);
    return SBW_OK;
}

/* Opens every file given in p and writes its contents (nothing committed). */
static int head_fill(head_out *o, const sbw_synth_head *h, const sbw_synth_head_paths *p)
{
    int st = sbw_npy_create(&o->w, p->w, h->m, h->d, 2, SBW_F64);
    st = st ? st : sbw_npy_write_rows(o->w, h->w, h->m, h->d);
    if (!st && p->b) {
        st = sbw_npy_create(&o->b, p->b, h->m, 1, 1, SBW_F64);
        st = st ? st : sbw_npy_write_rows(o->b, h->b, h->m, 1);
    }
    if (!st && p->planted) {
        st = sbw_file_create(&o->planted, p->planted);
        for (size_t j = 0; !st && j < h->m; j++)
            st = h->planted[j] ? text_line(&o->planted, "", j) : SBW_OK;
    }
    if (!st && p->vocab) {
        st = sbw_file_create(&o->vocab, p->vocab);
        for (size_t j = 0; !st && j < h->m; j++)
            st = text_line(&o->vocab, h->planted[j] ? "in" : "v", j);
    }
    return st;
}

/* Removes path when it is a regular file (never stdout, a FIFO or a device). */
static void unlink_regular(const char *path)
{
    struct stat sb;
    if (path && !sbw_file_is_std(path) && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        unlink(path);
}

/* Commits planted, vocab, b, then W; a failed commit removes the files
 * committed before it. */
static int head_commit(head_out *o, const sbw_synth_head_paths *p)
{
    int st = SBW_OK, done = 0;
    if (p->planted)
        st = sbw_file_commit(&o->planted);
    done += !st;
    if (!st && p->vocab)
        st = sbw_file_commit(&o->vocab);
    done += !st;
    if (!st && p->b)
        st = sbw_npy_finish(o->b);
    o->b = NULL;
    done += !st;
    st = st ? st : sbw_npy_finish(o->w);
    o->w = NULL;
    if (st) {
        const char *committed[] = {p->planted, p->vocab, p->b};
        for (int i = 0; i < done && i < 3; i++)
            unlink_regular(committed[i]);
    }
    return st;
}

int sbw_synth_head_write(const sbw_synth_head *h, const sbw_synth_head_paths *p)
{
    if (!p->w)
        return SBW_ERROR(SBW_EINVAL, "planted head: no path for W");
    if (p->b && !h->b)
        return SBW_ERROR(SBW_EINVAL, "%s: the head has no bias to write", p->b);
    head_out o = {0};
    int st = head_fill(&o, h, p);
    st = st ? st : head_commit(&o, p);
    sbw_npy_abort(o.w);
    sbw_npy_abort(o.b);
    sbw_file_abort(&o.planted);
    sbw_file_abort(&o.vocab);
    return st;
}
