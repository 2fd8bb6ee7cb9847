/* sbw_kl_matrix.c -- pairwise KL matrix by blocked GEMM (see
 * sbw_kl_matrix.h). */
#include "sbw_kl_matrix.h"

#include "sbw_error.h"
#include "sbw_kl_kern.h"

#include <cblas.h>
#include <stdlib.h>

int sbw_kl_matrix_block(const sbw_mat *l, size_t i0, size_t nb, double *pws, double *out)
{
    size_t t = l->rows, m = l->cols;
    if (i0 > t || nb > t - i0)
        return SBW_ERROR(SBW_EINVAL, "KL matrix rows %zu..%zu are past the %zu rows", i0, i0 + nb,
                         t);
    if (nb == 0 || t == 0)
        return SBW_OK;
    double *h = malloc(nb * sizeof *h);
    if (!h)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t i = 0; i < nb; i++)
        sbw_kl_kern_exp(l->data + (i0 + i) * l->ld, pws + i * m, m, &h[i]);
    /* out = P_block (log P)^T, then out = h 1^T - out. */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)nb, (int)t, (int)m, 1.0, pws, (int)m,
                l->data, (int)l->ld, 0.0, out, (int)t);
    for (size_t i = 0; i < nb; i++) {
        double *row = out + i * t;
        for (size_t j = 0; j < t; j++)
            row[j] = h[i] - row[j];
        row[i0 + i] = 0.0;
    }
    free(h);
    return SBW_OK;
}

/* Rows per block: about 32 MB of output plus workspace. */
static size_t block_rows(size_t t, size_t m)
{
    size_t nb = ((size_t)4 << 20) / (t + m + 1);
    nb = nb ? nb : 1;
    return nb < t ? nb : t;
}

static int check_blas_size(size_t t, size_t m)
{
    if (t > (size_t)0x7fffffff || m > (size_t)0x7fffffff)
        return SBW_ERROR(SBW_ESHAPE, "KL matrix: %zu x %zu is beyond BLAS's int sizes", t, m);
    return SBW_OK;
}

int sbw_kl_matrix_mat(const sbw_mat *l, sbw_mat *out)
{
    size_t t = l->rows, m = l->cols, nb = block_rows(t, m);
    sbw_mat k = {0};
    int st = check_blas_size(t, m);
    if (!st)
        st = sbw_mat_alloc(&k, t, t);
    size_t nw = nb * m;
    double *pws = st ? NULL : malloc((nw ? nw : 1) * sizeof *pws);
    if (!st && !pws)
        st = SBW_ERROR(SBW_ENOMEM, "out of memory");
    for (size_t i0 = 0; i0 < t && !st; i0 += nb) {
        size_t n = t - i0 < nb ? t - i0 : nb;
        st = sbw_kl_matrix_block(l, i0, n, pws, k.data + i0 * k.ld);
    }
    free(pws);
    if (st)
        sbw_mat_free(&k);
    else
        *out = k;
    return st;
}

/* The selected rows, read and checked (finite, normalised), as a new
 * n x cols matrix. */
static int load_rows(sbw_logp_reader *r, const sbw_logp_sel *s, sbw_mat *l)
{
    size_t m = sbw_logp_info(r)->cols;
    double *p = malloc((m ? m : 1) * sizeof *p), plogp;
    int st = p ? sbw_mat_alloc(l, s->n, m) : SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st)
        st = sbw_logp_read(r, s, 0, s->n, l->data);
    for (size_t i = 0; i < s->n && !st; i++) {
        double sum = sbw_kl_kern_exp(l->data + i * l->ld, p, m, &plogp);
        st = sbw_logp_check_sums(r, s, i, 1, l->data + i * l->ld, &sum);
    }
    free(p);
    if (st)
        sbw_mat_free(l);
    return st;
}

static int write_blocks(const sbw_mat *l, sbw_npy_writer *w, sbw_progress *pg)
{
    size_t t = l->rows, m = l->cols, nb = block_rows(t, m);
    double *pws = malloc((nb * m + 1) * sizeof *pws), *out = malloc((nb * t + 1) * sizeof *out);
    int st = pws && out ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "cannot allocate a %zu-row block", nb);
    for (size_t i0 = 0; i0 < t && !st; i0 += nb) {
        size_t n = t - i0 < nb ? t - i0 : nb;
        st = sbw_kl_matrix_block(l, i0, n, pws, out);
        if (!st)
            st = sbw_npy_write_rows(w, out, n, t);
        if (!st && pg)
            sbw_progress_update(pg, (double)(i0 + n));
    }
    free(pws);
    free(out);
    return st;
}

int sbw_kl_matrix_file(sbw_logp_reader *r, const sbw_logp_sel *s, const char *path,
                       sbw_progress *pg)
{
    if (!sbw_logp_seekable(r))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: the KL matrix needs random access; stdin or a pipe "
                         "cannot do it (save it to a file)",
                         sbw_logp_path(r));
    sbw_mat l = {0};
    sbw_npy_writer *w = NULL;
    int st = check_blas_size(s->n, sbw_logp_info(r)->cols);
    if (!st)
        st = load_rows(r, s, &l);
    if (!st)
        st = sbw_npy_create(&w, path, s->n, s->n, 2, SBW_F64);
    if (!st)
        st = write_blocks(&l, w, pg);
    if (st)
        sbw_npy_abort(w);
    else
        st = sbw_npy_finish(w);
    sbw_mat_free(&l);
    return st;
}
