/* sbw_head_io.c -- a head's blocks, derived values and params.tsv. */
#include "sbw_head_io.h"

#include "sbw_ckpt.h"
#include "sbw_error.h"
#include "sbw_mat.h"
#include "sbw_npy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sbw_head_io_describe(const sbw_head *h, sbw_table *t)
{
    int st = sbw_table_meta_str(t, "model", sbw_head_model_name(h->model));
    st = st ? st : sbw_table_meta_int(t, "n", (long long)h->n);
    st = st ? st : sbw_table_meta_int(t, "m", (long long)h->m);
    st = st ? st : sbw_table_meta_int(t, "d", (long long)h->d);
    st = st ? st : sbw_table_meta_int(t, "k", (long long)h->k);
    st = st ? st : sbw_table_meta_int(t, "knots", (long long)h->knots);
    st = st ? st : sbw_table_meta_dbl(t, "plif_t", h->knots ? h->plif_t : NAN);
    st = st ? st : sbw_table_meta_bool(t, "bias", h->bias);
    st = st ? st : sbw_table_meta_bool(t, "linear", h->linear);
    return st ? st : sbw_table_meta_int(t, "parameters", (long long)h->nparam);
}

/* dir/name.npy as float64: a 1-column block as a 1-D array. */
static int save_block(const char *dir, const char *name, const double *x, size_t rows, size_t cols)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    if (cols == 1)
        return sbw_npy_save_vector(path, x, rows, SBW_F64);
    sbw_mat v = sbw_mat_view((double *)x, rows, cols, cols);
    return sbw_npy_save(path, &v, SBW_F64);
}

/* The file and its row of params.tsv. */
static int save_listed(const char *dir, sbw_table *t, const char *name, const double *x,
                       size_t rows, size_t cols, const char *meaning)
{
    char file[96];
    snprintf(file, sizeof file, "%s.npy", name);
    int st = save_block(dir, name, x, rows, cols);
    st = st ? st : sbw_table_add_row(t);
    st = st ? st : sbw_table_set_str(t, "name", name);
    st = st ? st : sbw_table_set_str(t, "file", file);
    st = st ? st : sbw_table_set_int(t, "rows", (long long)rows);
    st = st ? st : sbw_table_set_int(t, "cols", (long long)cols);
    return st ? st : sbw_table_set_str(t, "meaning", meaning);
}

/* The positive values behind the raw LMS and PLIF parameters. */
static int save_derived(const sbw_head *h, const double *theta, const char *dir, sbw_table *t)
{
    size_t k = h->k ? h->k : 1, kn = h->knots ? h->knots : 1;
    double *buf = malloc((3 * k + 2 * kn) * sizeof *buf), lambda = 0;
    if (!buf)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    double *u = buf, *v = buf + k, *c = buf + 2 * k, *s = buf + 3 * k, *cum = s + kn;
    sbw_head_map_params(h, theta, u, v, c, &lambda, s, cum);
    int st = SBW_OK;
    if (h->model == SBW_MODEL_LMS) {
        st = save_listed(dir, t, "lms_u", u, h->k, 1, "LMS slopes u_i = softplus(lms_u_raw)");
        st = st ? st
                : save_listed(dir, t, "lms_v", v, h->k, 1, "LMS weights v_i = softplus(lms_v_raw)");
    }
    if (!st && h->linear)
        st = save_listed(dir, t, "lms_lambda", &lambda, 1, 1, "LMS linear slope lambda");
    if (!st && h->knots)
        st = save_listed(dir, t, "plif_slope", s, h->knots, 1, "PLIF slopes s_i > 0");
    free(buf);
    return st;
}

/* A params.tsv left by an earlier save would list files this one may not
 * finish: it goes before anything is written. */
static int remove_listing(const char *path)
{
    if (unlink(path) == 0 || errno == ENOENT)
        return SBW_OK;
    return SBW_ERROR(SBW_EIO, "%s: cannot remove the old listing: %s", path, strerror(errno));
}

int sbw_head_io_save(const sbw_head *h, const double *theta, const char *dir, sbw_table *t)
{
    static const char *const cols[] = {"name", "file", "rows", "cols", "meaning"};
    sbw_head_block b[SBW_HEAD_MAX_BLOCKS];
    size_t nb = sbw_head_blocks(h, b);
    char path[4096];
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    int st = sbw_ckpt_mkdir(dir);
    st = st ? st : remove_listing(path);
    st = st ? st : sbw_head_io_describe(h, t);
    st = st ? st : sbw_table_columns(t, cols, 5);
    for (size_t i = 0; !st && i < nb; i++)
        st = save_listed(dir, t, b[i].name, theta + b[i].off, b[i].rows, b[i].cols, b[i].meaning);
    st = st ? st : save_derived(h, theta, dir, t);
    return st ? st : sbw_table_write(t, path, false);
}
