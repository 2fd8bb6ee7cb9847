/* sbw_head_io.c -- a head's blocks, derived values, map.tsv and params.tsv. */
#include "sbw_head_io.h"

#include "sbw_ckpt.h"
#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_head_kern.h"
#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_tsv.h"

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
    if (h->c != h->d || h->cbias) { /* only then: every default head's listing is unchanged */
        sbw_table_meta_int(t, "c", (long long)h->c);
        sbw_table_meta_bool(t, "cbias", h->cbias);
    }
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

/* The learned map's positive parameters (sbw_head_map_params's u, v, c,
 * lambda, s, cum), in one buffer: u, v, c hold max(k, 1) doubles, s and
 * cum max(knots, 1). */
typedef struct map_par {
    double *u, *v, *c, *s, *cum, lambda;
} map_par;

static int par_alloc(const sbw_head *h, map_par *p)
{
    size_t k = h->k ? h->k : 1, kn = h->knots ? h->knots : 1;
    double *buf = malloc((3 * k + 2 * kn) * sizeof *buf);
    if (!buf)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    p->u = buf;
    p->v = buf + k;
    p->c = buf + 2 * k;
    p->s = buf + 3 * k;
    p->cum = buf + 3 * k + kn;
    p->lambda = 0;
    return SBW_OK;
}

static void par_free(map_par *p) { free(p->u); }

/* The positive values behind the raw LMS and PLIF parameters. */
static int save_derived(const sbw_head *h, const map_par *p, const char *dir, sbw_table *t)
{
    int st = SBW_OK;
    if (h->model == SBW_MODEL_LMS) {
        st = save_listed(dir, t, "lms_u", p->u, h->k, 1, "LMS slopes u_i = softplus(lms_u_raw)");
        st = st ? st
                : save_listed(dir, t, "lms_v", p->v, h->k, 1,
                              "LMS weights v_i = softplus(lms_v_raw)");
    }
    if (!st && h->linear)
        st = save_listed(dir, t, "lms_lambda", &p->lambda, 1, 1, "LMS linear slope lambda");
    if (!st && h->knots)
        st = save_listed(dir, t, "plif_slope", p->s, h->knots, 1, "PLIF slopes s_i > 0");
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

/* sbw_head_io_map_eval from the positive parameters p. */
static int map_eval_par(const sbw_head *h, const map_par *p, double *x, double *y, size_t *n)
{
    size_t k = h->k;
    *n = map_grid(h, x);
    size_t len = h->map == SBW_MAP_LMS ? *n + 2 * k * *n : *n;
    double *fp = malloc(len * sizeof *fp);
    if (!fp)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    if (h->map == SBW_MAP_LMS)
        sbw_head_kern_lms(x, y, fp, fp + *n, *n, p->u, p->v, p->c, k, p->lambda);
    else
        sbw_head_kern_plif(x, y, fp, *n, p->s, p->cum, h->knots, h->plif_t);
    free(fp);
    return SBW_OK;
}

int sbw_head_io_map_eval(const sbw_head *h, const double *theta, double *x, double *y, size_t *n)
{
    if (!sbw_head_io_map_points(h))
        return SBW_ERROR(SBW_EINVAL, "%s head: no learned monotone map",
                         sbw_head_model_name(h->model));
    map_par p;
    int st = par_alloc(h, &p);
    if (st)
        return st;
    sbw_head_map_params(h, theta, p.u, p.v, p.c, &p.lambda, p.s, p.cum);
    st = map_eval_par(h, &p, x, y, n);
    par_free(&p);
    return st;
}

/* dir/map.tsv: the learned map on its grid under t's meta, the head's and
 * the grid's.  The map's table is checked before the map is evaluated
 * and by sbw_table_write: after any failure no map.tsv is written and t
 * is unchanged. */
static int save_map(const sbw_head *h, const map_par *p, const char *dir, const sbw_table *t)
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
    st = st ? st : map_eval_par(h, p, x, y, &n);
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
    map_par p;
    int st = par_alloc(h, &p);
    if (st)
        return st;
    sbw_head_map_params(h, theta, p.u, p.v, p.c, &p.lambda, p.s, p.cum);
    st = sbw_ckpt_mkdir(dir);
    st = st ? st : remove_listing(path, "listing");
    st = st ? st : remove_listing(map, "map"); /* a head without a map leaves none behind */
    if (st) {
        par_free(&p);
        return st;
    }
    sbw_head_io_describe(h, t);
    sbw_table_columns(t, cols, 5);
    st = sbw_table_status(t);
    for (size_t i = 0; !st && i < nb; i++)
        st = save_listed(dir, t, b[i].name, theta + b[i].off, b[i].rows, b[i].cols, b[i].meaning);
    st = st ? st : save_derived(h, &p, dir, t);
    if (!st && sbw_head_io_map_points(h))
        st = save_map(h, &p, dir, t);
    par_free(&p);
    return st ? st : sbw_table_write(t, path, false);
}

/* ---- map.tsv again from a saved folder ------------------------------------ */

/* The head's meta keys of params.tsv (sbw_head_io_describe), in order. */
enum {
    HM_MODEL,
    HM_N,
    HM_M,
    HM_D,
    HM_K,
    HM_KNOTS,
    HM_PLIF_T,
    HM_BIAS,
    HM_LINEAR,
    HM_PARAMS,
    HM_C, /* optional from here: written for C != D or a component bias */
    HM_CBIAS,
    HM_COUNT
};
#define HM_REQUIRED HM_C
static const char *const head_keys[HM_COUNT] = {
    "model", "n", "m", "d", "k", "knots", "plif_t", "bias", "linear", "parameters", "c", "cbias"};

/* The "# key=value" lines of path (params.tsv) up to its column header
 * (read by sbw_tsv): every one but warning= into t as a string (a later one
 * with the same key replaces it), each warning recorded again
 * (sbw_table_warn), and the head's keys copied into hm (strings the caller
 * frees).  Errors: SBW_EIO, SBW_ENOMEM, SBW_EFORMAT (a "#" line that is not
 * "# key=value", a head key missing, a header sbw_tsv refuses). */
static int read_meta(const char *path, sbw_table *t, char *hm[HM_COUNT])
{
    sbw_tsv in;
    int st = sbw_tsv_open(&in, path);
    if (st)
        return st;
    if (in.comment_line)
        st = SBW_ERROR(SBW_EFORMAT, "%s: line %zu is not a '# key=value' line", path,
                       in.comment_line);
    for (size_t m = 0; !st && m < in.nmeta; m++) {
        const char *key = in.key[m], *value = in.val[m];
        if (strcmp(key, "warning") == 0) {
            sbw_table_warn("%s", value);
            continue;
        }
        st = sbw_table_meta_str(t, key, value);
        for (size_t i = 0; !st && i < HM_COUNT; i++)
            if (strcmp(key, head_keys[i]) == 0) {
                free(hm[i]);
                if (!(hm[i] = strdup(value)))
                    st = SBW_ERROR(SBW_ENOMEM, "out of memory");
            }
    }
    for (size_t i = 0; !st && i < HM_REQUIRED; i++)
        if (!hm[i])
            st = SBW_ERROR(SBW_EFORMAT,
                           "%s: no '# %s=' line (not the params.tsv of sbw-fit --save or "
                           "sbw-lm eval --export)",
                           path, head_keys[i]);
    sbw_tsv_free(&in);
    return st;
}

/* "true" or "false" into *b; false for anything else. */
static bool parse_bool(const char *s, bool *b)
{
    *b = strcmp(s, "true") == 0;
    return *b || strcmp(s, "false") == 0;
}

/* The head params.tsv's meta describes (hm: read_meta's strings), its
 * parameter count checked.  Errors: SBW_EFORMAT naming path and the key
 * (a value that does not parse or a head sbw_head_setup refuses). */
static int head_from_meta(const char *path, char *const hm[HM_COUNT], sbw_head *h)
{
    static const int sizes[] = {HM_N, HM_M, HM_D, HM_K, HM_KNOTS, HM_PARAMS};
    size_t v[HM_COUNT] = {0};
    double t = NAN;
    bool bias, linear, cbias = false;
    sbw_head_model model;
    char why[512];
    int st = sbw_head_model_parse(hm[HM_MODEL], &model);
    for (size_t i = 0; !st && i < sizeof sizes / sizeof *sizes; i++)
        st = sbw_cli_parse_size(hm[sizes[i]], head_keys[sizes[i]], 0, 1e18, &v[sizes[i]]);
    if (!st && v[HM_KNOTS])
        st = sbw_cli_parse_double(hm[HM_PLIF_T], "plif_t", 0, 1e9, &t);
    if (!st && !parse_bool(hm[HM_BIAS], &bias))
        st = SBW_ERROR(SBW_EINVAL, "bias must be true or false, got '%s'", hm[HM_BIAS]);
    if (!st && !parse_bool(hm[HM_LINEAR], &linear))
        st = SBW_ERROR(SBW_EINVAL, "linear must be true or false, got '%s'", hm[HM_LINEAR]);
    if (!st && hm[HM_C])
        st = sbw_cli_parse_size(hm[HM_C], "c", 1, 1e18, &v[HM_C]);
    if (!st && hm[HM_CBIAS] && !parse_bool(hm[HM_CBIAS], &cbias))
        st = SBW_ERROR(SBW_EINVAL, "cbias must be true or false, got '%s'", hm[HM_CBIAS]);
    st = st ? st
            : sbw_head_setup(h, model, v[HM_N], v[HM_M], v[HM_D], v[HM_K], v[HM_KNOTS], t, bias,
                             linear);
    st = st ? st : sbw_head_set_context(h, v[HM_C], cbias);
    if (!st && h->nparam != v[HM_PARAMS])
        st = SBW_ERROR(SBW_EINVAL, "parameters=%zu, but the head it describes has %zu",
                       v[HM_PARAMS], h->nparam);
    if (!st)
        return SBW_OK;
    snprintf(why, sizeof why, "%s", sbw_error_reason());
    return SBW_ERROR(SBW_EFORMAT, "%s: %s", path, why);
}

/* dir/name.npy: n values into x, each finite and, when positive, > 0
 * (what: the rule, for the message; sizes: the meta that sets n). */
static int read_values(const char *dir, const char *name, double *x, size_t n, bool positive,
                       const char *what, const char *sizes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, path);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    if (in->rows != n || in->cols != 1)
        st = SBW_ERROR(SBW_ESHAPE,
                       "%s: shape %zu x %zu, but params.tsv's head (%s) needs %zu values", path,
                       in->rows, in->cols, sizes, n);
    st = st ? st : sbw_npy_read_rows(r, x, n, 1);
    sbw_npy_close(r);
    for (size_t i = 0; !st && i < n; i++)
        if (!isfinite(x[i]) || (positive && !(x[i] > 0)))
            st = SBW_ERROR(SBW_EDATA, "%s: entry %zu is %g, but %s", path, i, x[i], what);
    return st;
}

/* The positive parameters of h from dir's .npy files (sbw_head_io_save's
 * derived values and lms_c), checked; cum from the slopes. */
static int read_par(const sbw_head *h, const char *dir, map_par *p)
{
    char sizes[64];
    int st = SBW_OK;
    if (h->map == SBW_MAP_LMS) {
        snprintf(sizes, sizeof sizes, "k=%zu", h->k);
        st = read_values(dir, "lms_u", p->u, h->k, true, "LMS slopes u_i = softplus(raw) are > 0",
                         sizes);
        st = st ? st
                : read_values(dir, "lms_v", p->v, h->k, true,
                              "LMS weights v_i = softplus(raw) are > 0", sizes);
        st = st ? st : read_values(dir, "lms_c", p->c, h->k, false, "c_i must be finite", sizes);
        if (!st && h->linear)
            st = read_values(dir, "lms_lambda", &p->lambda, 1, true,
                             "lambda = softplus(raw) is > 0", "linear=true");
        return st;
    }
    snprintf(sizes, sizeof sizes, "knots=%zu", h->knots);
    st = read_values(dir, "plif_slope", p->s, h->knots, true,
                     "PLIF slopes s_i = softplus(raw) are > 0", sizes);
    if (!st)
        sbw_head_plif_cum(h, p->s, p->cum);
    return st;
}

int sbw_head_io_map_regen(const char *dir, const char *command)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    char *hm[HM_COUNT] = {0};
    sbw_table *t = NULL;
    sbw_head h;
    map_par p = {0};
    int st = sbw_table_alloc(&t, "sbw_head_io", NULL, false);
    st = st ? st : read_meta(path, t, hm);
    st = st ? st : head_from_meta(path, hm, &h);
    if (!st && !sbw_head_io_map_points(&h))
        st = SBW_ERROR(SBW_EDATA,
                       "%s: a %s head has no learned monotone map (map.tsv is for lms, plif "
                       "and mos+plif)",
                       path, sbw_head_model_name(h.model));
    st = st ? st : par_alloc(&h, &p);
    st = st ? st : read_par(&h, dir, &p);
    if (!st && command)
        st = sbw_table_meta_str(t, "command", command);
    st = st ? st : save_map(&h, &p, dir, t);
    par_free(&p);
    for (size_t i = 0; i < HM_COUNT; i++)
        free(hm[i]);
    sbw_table_free(t);
    return st;
}
