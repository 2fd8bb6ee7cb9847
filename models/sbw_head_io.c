/* sbw_head_io.c -- a head's blocks, derived values, map.tsv and params.tsv. */
#include "sbw_head_io.h"

#include "sbw_ckpt.h"
#include "sbw_error.h"
#include "sbw_head_kern.h"
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
    sbw_table_meta_str(t, "model", sbw_head_model_name(h->model));
    sbw_table_meta_int(t, "n", (long long)h->n);
    sbw_table_meta_int(t, "m", (long long)h->m);
    sbw_table_meta_int(t, "d", (long long)h->d);
    sbw_table_meta_int(t, "k", (long long)h->k);
    sbw_table_meta_int(t, "knots", (long long)h->knots);
    sbw_table_meta_dbl(t, "plif_t", h->knots ? h->plif_t : NAN);
    sbw_table_meta_bool(t, "bias", h->bias);
    sbw_table_meta_bool(t, "linear", h->linear);
    sbw_table_meta_int(t, "parameters", (long long)h->nparam);
    return sbw_table_status(t);
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

/* The file and its row of params.tsv.  After a failure of the file, t is
 * untouched (no row); after the table's, the file is written and t has
 * failed (sticky) with a partial row. */
static int save_listed(const char *dir, sbw_table *t, const char *name, const double *x,
                       size_t rows, size_t cols, const char *meaning)
{
    char file[96];
    snprintf(file, sizeof file, "%s.npy", name);
    int st = save_block(dir, name, x, rows, cols);
    if (st)
        return st;
    sbw_table_add_row(t);
    sbw_table_set_str(t, "name", name);
    sbw_table_set_str(t, "file", file);
    sbw_table_set_int(t, "rows", (long long)rows);
    sbw_table_set_int(t, "cols", (long long)cols);
    sbw_table_set_str(t, "meaning", meaning);
    return sbw_table_status(t);
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

size_t sbw_head_io_map_points(const sbw_head *h)
{
    return h->map == SBW_MAP_LMS    ? SBW_HEAD_IO_MAP_N
           : h->map == SBW_MAP_PLIF ? SBW_HEAD_IO_MAP_N + h->knots + 1
                                    : 0;
}

/* The grid of sbw_head_io_map_eval (see the header) into x; its length. */
static size_t map_grid(const sbw_head *h, double *x)
{
    size_t n = SBW_HEAD_IO_MAP_N, kn = h->map == SBW_MAP_PLIF ? h->knots : 0, o = 0, j = 0;
    double t = h->plif_t, span = kn ? SBW_HEAD_IO_MAP_PLIF_X * t : SBW_HEAD_IO_MAP_LMS_X;
    for (size_t i = 0; i < n; i++) {
        double g = span * (2.0 * (double)i / (double)(n - 1) - 1.0);
        for (; kn && j <= kn; j++) { /* the knots before g */
            double knot = j == kn ? t : -t + 2 * t * (double)j / (double)kn;
            if (knot >= g)
                break;
            x[o++] = knot;
        }
        if (kn && j <= kn && (j == kn ? t : -t + 2 * t * (double)j / (double)kn) == g)
            j++; /* a knot on the grid: once */
        x[o++] = g;
    }
    return o;
}

int sbw_head_io_map_eval(const sbw_head *h, const double *theta, double *x, double *y, size_t *n)
{
    size_t k = h->k, kn = h->knots;
    if (!sbw_head_io_map_points(h))
        return SBW_ERROR(SBW_EINVAL, "%s head: no learned monotone map",
                         sbw_head_model_name(h->model));
    *n = map_grid(h, x);
    size_t len = h->map == SBW_MAP_LMS ? 3 * k + *n + 2 * k * *n : 2 * kn + *n;
    double *buf = malloc(len * sizeof *buf), lambda = 0;
    if (!buf)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (h->map == SBW_MAP_LMS) {
        double *u = buf, *v = u + k, *c = v + k, *fp = c + k, *sig = fp + *n;
        sbw_head_map_params(h, theta, u, v, c, &lambda, NULL, NULL);
        sbw_head_kern_lms(x, y, fp, sig, *n, u, v, c, k, lambda);
    } else {
        double *s = buf, *cum = s + kn, *fp = cum + kn;
        sbw_head_map_params(h, theta, NULL, NULL, NULL, NULL, s, cum);
        sbw_head_kern_plif(x, y, fp, *n, s, cum, kn, h->plif_t);
    }
    free(buf);
    return SBW_OK;
}

/* dir/map.tsv: the learned map on its grid under t's meta, the head's and
 * the grid's.  The map's table is checked before the map is evaluated
 * and by sbw_table_write: after any failure no map.tsv is written and t
 * is unchanged. */
static int save_map(const sbw_head *h, const double *theta, const char *dir, const sbw_table *t)
{
    static const char *const cols[] = {"x", "f"};
    size_t n = sbw_head_io_map_points(h);
    double *x = malloc(2 * n * sizeof *x), *y = x ? x + n : NULL;
    char grid[160];
    snprintf(grid, sizeof grid,
             "%d points evenly spaced on [-%s, %s]%s (f is linear between points where it is "
             "piecewise linear)",
             SBW_HEAD_IO_MAP_N, h->map == SBW_MAP_LMS ? "20" : "4T",
             h->map == SBW_MAP_LMS ? "20" : "4T",
             h->map == SBW_MAP_LMS ? "" : " and the K + 1 knots");
    sbw_table *m = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/map.tsv", dir);
    int st = x ? sbw_table_alloc(&m, "sbw_head_io", NULL, false)
               : SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (!st) {
        sbw_table_meta_copy(m, t);
        sbw_head_io_describe(h, m);
        sbw_table_meta_str(m, "map",
                           h->map == SBW_MAP_LMS
                               ? "f(x) = sum_i v_i sigma(u_i x + c_i) + lambda x (lambda = 0 "
                                 "without --linear; the constant of LMS eq. 14 cancels)"
                               : "f piecewise linear, slopes s_i on K equal intervals of "
                                 "[-T, T], f(-T) = 0, extended with the end slopes");
        sbw_table_meta_str(m, "grid", grid);
        sbw_table_columns(m, cols, 2);
        st = sbw_table_status(m);
    }
    st = st ? st : sbw_head_io_map_eval(h, theta, x, y, &n);
    if (!st) {
        for (size_t i = 0; i < n; i++) {
            sbw_table_add_row(m);
            sbw_table_set_dbl(m, "x", x[i]);
            sbw_table_set_dbl(m, "f", y[i]);
        }
        st = sbw_table_write(m, path, false);
    }
    sbw_table_free(m);
    free(x);
    return st;
}

/* A params.tsv left by an earlier save would list files this one may not
 * finish: it goes before anything is written. */
static int remove_listing(const char *path, const char *what)
{
    if (unlink(path) == 0 || errno == ENOENT)
        return SBW_OK;
    return SBW_ERROR(SBW_EIO, "%s: cannot remove the old %s: %s", path, what, strerror(errno));
}

int sbw_head_io_save(const sbw_head *h, const double *theta, const char *dir, sbw_table *t)
{
    static const char *const cols[] = {"name", "file", "rows", "cols", "meaning"};
    sbw_head_block b[SBW_HEAD_MAX_BLOCKS];
    size_t nb = sbw_head_blocks(h, b);
    char path[4096], map[4096];
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    snprintf(map, sizeof map, "%s/map.tsv", dir);
    int st = sbw_ckpt_mkdir(dir);
    st = st ? st : remove_listing(path, "listing");
    st = st ? st : remove_listing(map, "map"); /* a head without a map leaves none behind */
    if (st)
        return st;
    sbw_head_io_describe(h, t);
    sbw_table_columns(t, cols, 5);
    st = sbw_table_status(t);
    for (size_t i = 0; !st && i < nb; i++)
        st = save_listed(dir, t, b[i].name, theta + b[i].off, b[i].rows, b[i].cols, b[i].meaning);
    st = st ? st : save_derived(h, theta, dir, t);
    if (!st && sbw_head_io_map_points(h))
        st = save_map(h, theta, dir, t);
    return st ? st : sbw_table_write(t, path, false);
}
