/* test_head_io.c -- sbw_head_io_save, the one writer of a head's
 * parameters (sbw-fit --save, sbw-lm eval --export): the derived positive
 * values (plif_slope, lms_u, lms_v, lms_lambda) against softplus computed
 * here by brute force from the raw values, including raw values whose
 * exp overflows; every block read back bit for bit; params.tsv lists
 * exactly the .npy files of the folder with their shapes and the head's
 * meta; map.tsv, the learned map on its grid, against the naive twins
 * (sbw_head_ref_lms, sbw_head_ref_plif) fed with the brute-force positive
 * parameters, and absent for heads without a map; a missing parent, a
 * target that is a file, and a file that cannot be written fail with a
 * status and leave no params.tsv; map.tsv written again from a saved
 * folder (sbw_head_io_map_regen) is the saved one byte for byte but for
 * its command line, and a folder with a bad value, size, file or meta is
 * refused naming the file; a failed table writes nothing. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_head.h"
#include "sbw_head_io.h"
#include "sbw_head_ref.h"
#include "sbw_npy.h"
#include "sbw_tsv.h"
#include "sbw_table.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* log(1 + e^x) as written, guarded where e^x would overflow: above 35,
 * log1p(e^-x) < 6.4e-16 is below half an ulp of x, so the sum rounds to x. */
static double softplus_brute(double x) { return x > 35 ? x : log1p(exp(x)); }

/* Raw values across the range: tiny slopes, O(1), and e^x overflowing. */
static const double RAW[] = {-50, -2.5, -1e-3, 0, 0.7, 3, 36, 800, 1e4};
#define NRAW (sizeof RAW / sizeof *RAW)

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* dir/name.npy as a new array; its shape into rows, cols. */
static double *load(const char *dir, const char *name, size_t *rows, size_t *cols)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    sbw_mat m = {0};
    SBW_ASSERT_OK(sbw_npy_load(path, &m, NULL));
    *rows = m.rows;
    *cols = m.cols;
    double *x = malloc(m.rows * m.cols * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < m.rows; i++)
        memcpy(x + i * m.cols, m.data + i * m.ld, m.cols * sizeof *x);
    sbw_mat_free(&m);
    return x;
}

/* name.npy holds softplus of raw (n values) as a 1-D array. */
static void check_softplus(const char *dir, const char *name, const double *raw, size_t n)
{
    size_t rows, cols;
    double *got = load(dir, name, &rows, &cols), want[NRAW];
    SBW_ASSERT_EQ(rows, n);
    SBW_ASSERT_EQ(cols, (size_t)1);
    for (size_t i = 0; i < n; i++)
        want[i] = softplus_brute(raw[i]);
    SBW_ASSERT_CLOSE(got, want, n, 0.0, 4 * DBL_EPSILON);
    for (size_t i = 0; i < n; i++)
        SBW_ASSERT_GT(got[i], 0.0);
    free(got);
}

/* Every block of h in dir equals its slice of theta bit for bit. */
static void check_blocks(const sbw_head *h, const double *theta, const char *dir)
{
    sbw_head_block b[SBW_HEAD_MAX_BLOCKS];
    size_t nb = sbw_head_blocks(h, b);
    for (size_t i = 0; i < nb; i++) {
        size_t rows, cols;
        double *x = load(dir, b[i].name, &rows, &cols);
        SBW_ASSERT_EQ(rows, b[i].rows);
        SBW_ASSERT_EQ(cols, b[i].cols);
        assert_memory_equal(x, theta + b[i].off, rows * cols * sizeof *x);
        free(x);
    }
}

/* params.tsv lists exactly the .npy files of dir, each with its shape, and
 * carries the head's model and knots. */
static void check_listing(const char *dir, const char *model, size_t knots)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    sbw_tsv t;
    size_t cf, cr, cc;
    SBW_ASSERT_OK(sbw_tsv_read(&t, path));
    assert_string_equal(sbw_tsv_meta(&t, "model"), model);
    SBW_ASSERT_EQ(strtoul(sbw_tsv_meta(&t, "knots"), NULL, 10), (unsigned long)knots);
    SBW_ASSERT_OK(sbw_tsv_need(&t, "file", &cf));
    SBW_ASSERT_OK(sbw_tsv_need(&t, "rows", &cr));
    SBW_ASSERT_OK(sbw_tsv_need(&t, "cols", &cc));
    for (size_t i = 0; i < t.nrow; i++) {
        double r, c;
        sbw_npy_info in;
        sbw_mat m = {0};
        snprintf(path, sizeof path, "%s/%s", dir, sbw_tsv_str(&t, i, cf));
        SBW_ASSERT_OK(sbw_npy_load(path, &m, &in));
        SBW_ASSERT_OK(sbw_tsv_num(&t, i, cr, &r));
        SBW_ASSERT_OK(sbw_tsv_num(&t, i, cc, &c));
        SBW_ASSERT_EQ((double)in.rows, r);
        SBW_ASSERT_EQ((double)in.cols, c);
        SBW_ASSERT_EQ(in.ndim, c == 1 ? 1 : 2);
        sbw_mat_free(&m);
    }
    size_t npy = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        npy += len > 4 && strcmp(e->d_name + len - 4, ".npy") == 0;
    }
    closedir(d);
    SBW_ASSERT_EQ(npy, t.nrow);
    sbw_tsv_free(&t);
}

static int save(const sbw_head *h, const double *theta, const char *dir)
{
    sbw_table *t = NULL;
    SBW_ASSERT_OK(sbw_table_alloc(&t, "test_head_io", NULL, false));
    int st = sbw_head_io_save(h, theta, dir, t);
    sbw_table_free(t);
    return st;
}

/* Whether v holds x exactly. */
static bool holds(const double *v, size_t n, double x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* dir/map.tsv: the caller's and the head's meta, columns x and f, x
 * strictly ascending over [-span, span] through both ends and the default
 * view's ends +-view, every one of the given knots on it (x = knot to 2
 * ulps), and f = the naive twin's f(x) at every x, to tol(x) = 16 eps
 * times the size of f's summands at x (mag0 + mag1 |x|).  The twin is
 * fed with u, v, c, lambda (k units) for LMS, else with the slopes s
 * (kn intervals on [-t, t]). */
typedef struct map_want {
    const char *model;
    double span, view, mag0, mag1;
    const double *u, *v, *c, *s;
    double lambda, t;
    size_t k, kn;
} map_want;

static void check_map(const char *dir, const map_want *w)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/map.tsv", dir);
    sbw_tsv t;
    SBW_ASSERT_OK(sbw_tsv_read(&t, path));
    assert_string_equal(sbw_tsv_meta(&t, "tool"), "test_head_io");
    assert_string_equal(sbw_tsv_meta(&t, "model"), w->model);
    assert_non_null(sbw_tsv_meta(&t, "grid"));
    size_t n = t.nrow, xc, fc;
    SBW_ASSERT_OK(sbw_tsv_need(&t, "x", &xc));
    SBW_ASSERT_OK(sbw_tsv_need(&t, "f", &fc));
    SBW_ASSERT_GE(n, (size_t)SBW_HEAD_IO_MAP_N); /* knots on the grid appear once */
    SBW_ASSERT_LE(n, SBW_HEAD_IO_MAP_N + (w->kn ? w->kn + 1 : 0));
    double *x = malloc(4 * n * sizeof *x);
    double *sig = malloc((2 * w->k + 1) * n * sizeof *sig),
           *cum = malloc((w->kn + 1) * sizeof *cum);
    assert_true(x && sig && cum);
    double *f = x + n, *want = f + n, *fp = want + n;
    for (size_t i = 0; i < n; i++) {
        SBW_ASSERT_OK(sbw_tsv_num(&t, i, xc, &x[i]));
        SBW_ASSERT_OK(sbw_tsv_num(&t, i, fc, &f[i]));
        if (i)
            SBW_ASSERT_LT(x[i - 1], x[i]);
    }
    SBW_ASSERT_EQ(x[0], -w->span);
    SBW_ASSERT_EQ(x[n - 1], w->span);
    assert_true(holds(x, n, -w->view) && holds(x, n, w->view) && holds(x, n, 0.0));
    for (size_t j = 0; w->kn && j <= w->kn; j++) {
        double knot = -w->t + 2 * w->t * (double)j / (double)w->kn, best = INFINITY;
        for (size_t i = 0; i < n; i++)
            best = fmin(best, fabs(x[i] - knot));
        SBW_ASSERT_LE(best, 2 * DBL_EPSILON * w->t);
    }
    if (w->kn) {
        double delta = 2 * w->t / (double)w->kn;
        cum[0] = 0;
        for (size_t j = 1; j < w->kn; j++)
            cum[j] = cum[j - 1] + delta * w->s[j - 1];
        sbw_head_ref_plif(x, want, fp, n, w->s, cum, w->kn, w->t);
    } else {
        sbw_head_ref_lms(x, want, fp, sig, n, w->u, w->v, w->c, w->k, w->lambda);
    }
    for (size_t i = 0; i < n; i++)
        SBW_ASSERT_NEAR(f[i], want[i], 16 * DBL_EPSILON * (w->mag0 + w->mag1 * fabs(x[i])));
    free(x);
    free(sig);
    free(cum);
    sbw_tsv_free(&t);
}

/* PLIF and MoS+PLIF: plif_slope = softplus(plif_slope_raw). */
static void test_plif_slopes(void **state)
{
    (void)state;
    static const sbw_head_model models[] = {SBW_MODEL_PLIF, SBW_MODEL_MOS_PLIF};
    for (size_t j = 0; j < 2; j++) {
        sbw_head h;
        SBW_ASSERT_OK(sbw_head_setup(&h, models[j], 3, 7, 2, 2, NRAW, 2.5, j == 0, false));
        double *theta = malloc(h.nparam * sizeof *theta);
        assert_non_null(theta);
        SBW_ASSERT_OK(sbw_head_init(&h, theta, 11 + j, 0.5));
        memcpy(theta + h.off_plif, RAW, sizeof RAW);
        const char *dir = sbw_test_path(j ? "mosplif" : "plif");
        SBW_ASSERT_OK(save(&h, theta, dir));
        check_softplus(dir, "plif_slope", RAW, NRAW);
        check_blocks(&h, theta, dir);
        check_listing(dir, sbw_head_model_name(models[j]), NRAW);
        double s[NRAW], mag0 = 0, mag1 = 0;
        const size_t nraw = NRAW;
        for (size_t i = 0; i < nraw; i++) {
            s[i] = softplus_brute(RAW[i]);
            mag0 += s[i] * 2 * 2.5 / (double)nraw;
            mag1 = fmax(mag1, s[i]);
        }
        check_map(dir, &(map_want){.model = sbw_head_model_name(models[j]),
                                   .span = 4 * 2.5,
                                   .view = 1.25 * 2.5,
                                   .mag0 = mag0,
                                   .mag1 = mag1,
                                   .s = s,
                                   .t = 2.5,
                                   .kn = NRAW});
        free(theta);
    }
}

/* LMS with the linear term: lms_u, lms_v, lms_lambda = softplus of the raw
 * blocks; lms_c is written as is. */
static void test_lms_values(void **state)
{
    (void)state;
    const size_t k = 4;
    static const double ur[] = {-30, -0.5, 2, 40}, vr[] = {0.3, -5, 37, 710}, lr = -1.5;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_LMS, 0, 6, 3, k, 0, 0, true, true));
    double *theta = malloc(h.nparam * sizeof *theta);
    assert_non_null(theta);
    SBW_ASSERT_OK(sbw_head_init(&h, theta, 5, 0.5));
    memcpy(theta + h.off_lms, ur, sizeof ur);
    memcpy(theta + h.off_lms + k, vr, sizeof vr);
    theta[h.off_lms + 3 * k] = lr;
    const char *dir = sbw_test_path("lms");
    SBW_ASSERT_OK(save(&h, theta, dir));
    check_softplus(dir, "lms_u", ur, k);
    check_softplus(dir, "lms_v", vr, k);
    check_softplus(dir, "lms_lambda", &lr, 1);
    check_blocks(&h, theta, dir);
    check_listing(dir, "lms", 0);
    double u[4], v[4], mag0 = 0;
    for (size_t i = 0; i < k; i++) {
        u[i] = softplus_brute(ur[i]);
        v[i] = softplus_brute(vr[i]);
        mag0 += v[i];
    }
    check_map(dir, &(map_want){.model = "lms",
                               .span = 20,
                               .view = 10,
                               .mag0 = mag0,
                               .mag1 = softplus_brute(lr),
                               .u = u,
                               .v = v,
                               .c = theta + h.off_lms + 2 * k,
                               .lambda = softplus_brute(lr),
                               .k = k});
    /* a head without a learned map saved over it leaves no map.tsv */
    char map[1024];
    snprintf(map, sizeof map, "%s/map.tsv", dir);
    assert_true(exists(map));
    sbw_head sm;
    SBW_ASSERT_OK(sbw_head_setup(&sm, SBW_MODEL_MOS, 0, 6, 3, 2, 0, 0, true, false));
    double *th2 = calloc(sm.nparam, sizeof *th2);
    assert_non_null(th2);
    SBW_ASSERT_OK(save(&sm, th2, dir));
    assert_false(exists(map));
    free(th2);
    free(theta);
}

/* A missing parent and a path that is a file: a status and its reason, no
 * params.tsv. */
static void test_bad_dir(void **state)
{
    (void)state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_PLIF, 0, 5, 2, 0, 3, 1.0, false, false));
    double theta[64] = {0};
    assert_true(h.nparam <= 64);
    char dir[600], path[700];
    snprintf(dir, sizeof dir, "%s", sbw_test_path("no-such-parent/out"));
    SBW_ASSERT_EQ(save(&h, theta, dir), SBW_EIO);
    assert_non_null(strstr(sbw_error_reason(), "no-such-parent/out"));
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    assert_false(exists(path));

    snprintf(dir, sizeof dir, "%s", sbw_test_path("a-file"));
    FILE *f = fopen(dir, "w");
    assert_non_null(f);
    fclose(f);
    SBW_ASSERT_EQ(save(&h, theta, dir), SBW_EIO);
    assert_non_null(strstr(sbw_error_reason(), "not a directory"));
}

/* A file that cannot be written (a directory stands where plif_slope.npy
 * goes; root ignores permissions, not this) fails after the raw blocks:
 * the params.tsv an earlier save left is gone and no new one appears. */
static void test_unwritable_file(void **state)
{
    (void)state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_PLIF, 0, 5, 2, 0, 3, 1.0, true, false));
    double theta[64] = {0};
    assert_true(h.nparam <= 64);
    char dir[600], path[700], blocker[700];
    snprintf(dir, sizeof dir, "%s", sbw_test_path("blocked"));
    SBW_ASSERT_OK(save(&h, theta, dir));
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    assert_true(exists(path));
    snprintf(blocker, sizeof blocker, "%s/plif_slope.npy", dir);
    assert_int_equal(unlink(blocker), 0);
    assert_int_equal(mkdir(blocker, 0777), 0);
    int st = save(&h, theta, dir);
    SBW_ASSERT_NE(st, SBW_OK);
    assert_non_null(strstr(sbw_error_reason(), "plif_slope.npy"));
    assert_false(exists(path));
    rmdir(blocker);
}

/* The whole text of path as a new string. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    for (int c; (c = fgetc(f)) != EOF;)
        fputc(c, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* want and got are the same lines, except that got's "# command=" line is
 * "# command=" cmd (want's any). */
static void assert_same_but_command(const char *want, const char *got, const char *cmd)
{
    size_t seen = 0, lines = 0;
    while (*want && *got) {
        size_t lw = strcspn(want, "\n"), lg = strcspn(got, "\n");
        if (strncmp(want, "# command=", 10) == 0) {
            assert_true(strncmp(got, "# command=", 10) == 0);
            SBW_ASSERT_EQ(lg, 10 + strlen(cmd));
            assert_true(memcmp(got + 10, cmd, strlen(cmd)) == 0);
            seen++;
        } else {
            SBW_ASSERT_EQ(lw, lg);
            assert_true(memcmp(want, got, lw) == 0);
        }
        want += lw + (want[lw] == '\n');
        got += lg + (got[lg] == '\n');
        lines++;
    }
    SBW_ASSERT_EQ(*want, '\0');
    SBW_ASSERT_EQ(*got, '\0');
    SBW_ASSERT_EQ(seen, (size_t)1);
    SBW_ASSERT_GT(lines, (size_t)SBW_HEAD_IO_MAP_N);
}

/* Saves h at theta into dir as a tool would (a command, more meta, a
 * warning), keeps map.tsv's text, removes it with the raw blocks (as an
 * old folder holds only params.tsv and the derived values), regenerates
 * it (warnings forgotten first, as in a new process) and compares. */
static void check_regen(const sbw_head *h, const double *theta, const char *dir)
{
    sbw_table *t = NULL;
    char map[1024], path[1024];
    SBW_ASSERT_OK(sbw_table_alloc(&t, "test_head_io", NULL, false));
    SBW_ASSERT_OK(sbw_table_meta_str(t, "command", "sbw-fit P.npy --save x\twith a tab"));
    SBW_ASSERT_OK(sbw_table_meta_str(t, "ckpt", "/some/where"));
    sbw_table_warn("fit_still_improving: a test warning");
    SBW_ASSERT_OK(sbw_head_io_save(h, theta, dir, t));
    sbw_table_free(t);
    sbw_table_warn_clear();
    snprintf(map, sizeof map, "%s/map.tsv", dir);
    char *want = slurp(map);
    assert_non_null(strstr(want, "# warning=fit_still_improving: a test warning\n"));
    sbw_head_block b[SBW_HEAD_MAX_BLOCKS];
    size_t nb = sbw_head_blocks(h, b);
    for (size_t i = 0; i < nb; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, b[i].name);
        if (strcmp(b[i].name, "lms_c") != 0)
            assert_int_equal(unlink(path), 0);
    }
    assert_int_equal(unlink(map), 0);
    SBW_ASSERT_OK(sbw_head_io_map_regen(dir, "sbw-fit --map DIR"));
    char *got = slurp(map);
    assert_same_but_command(want, got, "sbw-fit --map DIR");
    free(got);
    sbw_table_warn_clear();
    SBW_ASSERT_OK(sbw_head_io_map_regen(dir, NULL)); /* NULL: params.tsv's command, every byte */
    got = slurp(map);
    assert_string_equal(got, want);
    sbw_table_warn_clear();
    free(got);
    free(want);
}

/* map.tsv regenerated from a saved folder is the saved one but for its
 * command line: PLIF (knots on and off the grid), MoS+PLIF with contexts,
 * LMS with and without the linear term, raw values whose softplus
 * overflows or nearly vanishes. */
static void test_map_regen(void **state)
{
    (void)state;
    static const struct {
        size_t n, k, knots;
        double t;
        sbw_head_model model;
        bool bias, linear;
    } heads[] = {{0, 0, NRAW, 2.5, SBW_MODEL_PLIF, true, false},
                 {0, 0, 100, 10, SBW_MODEL_PLIF, false, false},
                 {3, 2, NRAW, 0.7, SBW_MODEL_MOS_PLIF, true, false},
                 {0, 4, 0, 0, SBW_MODEL_LMS, true, true},
                 {2, NRAW, 0, 0, SBW_MODEL_LMS, false, false}};
    for (size_t j = 0; j < sizeof heads / sizeof *heads; j++) {
        sbw_head h;
        SBW_ASSERT_OK(sbw_head_setup(&h, heads[j].model, heads[j].n, 9, 2, heads[j].k,
                                     heads[j].knots, heads[j].t, heads[j].bias, heads[j].linear));
        double *theta = malloc(h.nparam * sizeof *theta);
        assert_non_null(theta);
        SBW_ASSERT_OK(sbw_head_init(&h, theta, 31 + j, 0.5));
        for (size_t i = 0; i < h.knots; i++)
            theta[h.off_plif + i] = RAW[i % NRAW] + 0.01 * (double)i;
        for (size_t i = 0; i < h.lms_len; i++)
            theta[h.off_lms + i] = RAW[(3 * i) % NRAW] / 3;
        char name[32];
        snprintf(name, sizeof name, "regen%zu", j);
        check_regen(&h, theta, sbw_test_path(name));
        free(theta);
    }
}

/* params.tsv with CRLF line ends and a blank line among its meta (as an
 * editor on another system may leave it) reads as the LF original: the
 * regenerated map.tsv is the saved one byte for byte (read through
 * core/sbw_tsv, which strips '\r'; the hand-written reader before it took
 * "plif\r" for the model and refused the folder). */
static void test_map_regen_crlf(void **state)
{
    (void)state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_PLIF, 0, 5, 2, 0, 4, 1.5, true, false));
    double theta[64];
    assert_true(h.nparam <= 64);
    SBW_ASSERT_OK(sbw_head_init(&h, theta, 7, 0.5));
    const char *dir = sbw_test_path("regen_crlf");
    sbw_table *t = NULL;
    SBW_ASSERT_OK(sbw_table_alloc(&t, "test_head_io", NULL, false));
    SBW_ASSERT_OK(sbw_table_meta_str(t, "command", "sbw-fit P.npy --save x"));
    SBW_ASSERT_OK(sbw_head_io_save(&h, theta, dir, t));
    sbw_table_free(t);
    char map[1024], params[1024];
    snprintf(map, sizeof map, "%s/map.tsv", dir);
    snprintf(params, sizeof params, "%s/params.tsv", dir);
    char *want = slurp(map), *lf = slurp(params);
    FILE *f = fopen(params, "w");
    assert_non_null(f);
    for (const char *c = lf; *c; c++) {
        if (*c == '\n')
            fputc('\r', f);
        fputc(*c, f);
        if (*c == '\n' && c - lf < 40 && strchr(c + 1, '\n') && c[1] == '#')
            fputs("\r\n", f); /* a blank line early in the meta */
    }
    assert_int_equal(fclose(f), 0);
    SBW_ASSERT_OK(sbw_head_io_map_regen(dir, NULL));
    char *got = slurp(map);
    assert_string_equal(got, want);
    sbw_table_warn_clear();
    free(got);
    free(lf);
    free(want);
}

/* Writes n float64 values as dir/name.npy (1-D). */
static void put(const char *dir, const char *name, const double *x, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    SBW_ASSERT_OK(sbw_npy_save_vector(path, x, n, SBW_F64));
}

/* Rewrites dir/params.tsv with every occurrence of from replaced by to. */
static void edit_params(const char *dir, const char *from, const char *to)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    char *text = slurp(path), *at = strstr(text, from);
    assert_non_null(at);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    fclose(f);
    free(text);
}

/* Each bad folder: the status, a reason naming the file, no map.tsv. */
static void expect_bad(const char *dir, int status, const char *file, const char *words)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/map.tsv", dir);
    unlink(map);
    SBW_ASSERT_EQ(sbw_head_io_map_regen(dir, "cmd"), status);
    assert_non_null(strstr(sbw_error_reason(), file));
    assert_non_null(strstr(sbw_error_reason(), words));
    assert_false(exists(map));
}

/* A slope that is 0, negative or NaN, a c_i that is infinite, a file of
 * another size, a missing file, a head without a map, a parameter count
 * that does not match, a missing head key: refused, naming the file. */
static void test_map_regen_bad(void **state)
{
    (void)state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_PLIF, 0, 5, 2, 0, 3, 1.0, false, false));
    double theta[64] = {0}, s[3] = {1, 0, 2};
    assert_true(h.nparam <= 64);
    const char *dir = sbw_test_path("regen_bad");
    SBW_ASSERT_OK(save(&h, theta, dir));
    put(dir, "plif_slope", s, 3);
    expect_bad(dir, SBW_EDATA, "plif_slope.npy", "entry 1 is 0");
    s[1] = -1;
    put(dir, "plif_slope", s, 3);
    expect_bad(dir, SBW_EDATA, "plif_slope.npy", "entry 1 is -1");
    s[1] = NAN;
    put(dir, "plif_slope", s, 3);
    expect_bad(dir, SBW_EDATA, "plif_slope.npy", "entry 1 is nan");
    put(dir, "plif_slope", s, 2);
    expect_bad(dir, SBW_ESHAPE, "plif_slope.npy", "knots=3");
    char path[1024];
    snprintf(path, sizeof path, "%s/plif_slope.npy", dir);
    unlink(path);
    expect_bad(dir, SBW_EIO, "plif_slope.npy", "cannot open");
    s[1] = 1;
    put(dir, "plif_slope", s, 3);
    SBW_ASSERT_OK(sbw_head_io_map_regen(dir, "cmd")); /* the folder is good again */
    edit_params(dir, "# parameters=", "# parameters=1");
    expect_bad(dir, SBW_EFORMAT, "params.tsv", "parameters=1");
    edit_params(dir, "# parameters=1", "# params=");
    expect_bad(dir, SBW_EFORMAT, "params.tsv", "no '# parameters=' line");
    snprintf(path, sizeof path, "%s/params.tsv", dir);
    unlink(path);
    expect_bad(dir, SBW_EIO, "params.tsv", "cannot open");

    sbw_head l;
    SBW_ASSERT_OK(sbw_head_setup(&l, SBW_MODEL_LMS, 0, 5, 2, 2, 0, 0, false, true));
    assert_true(l.nparam <= 64);
    double c[2] = {0, INFINITY};
    SBW_ASSERT_OK(save(&l, theta, dir));
    put(dir, "lms_c", c, 2);
    expect_bad(dir, SBW_EDATA, "lms_c.npy", "entry 1 is inf");
    c[1] = 0;
    put(dir, "lms_c", c, 2);
    put(dir, "lms_lambda", c, 1);
    expect_bad(dir, SBW_EDATA, "lms_lambda.npy", "entry 0 is 0");

    sbw_head m;
    SBW_ASSERT_OK(sbw_head_setup(&m, SBW_MODEL_MOS, 0, 5, 2, 2, 0, 0, false, false));
    double *th = calloc(m.nparam, sizeof *th);
    assert_non_null(th);
    SBW_ASSERT_OK(save(&m, th, dir));
    expect_bad(dir, SBW_EDATA, "params.tsv", "a mos head has no learned monotone map");
    free(th);
}

/* A table that fails (sticky) in sbw_head_io_save, here because it has a
 * row already, stops the save before any file: the table's failure is
 * returned with its reason and the folder stays empty (no .npy, no
 * map.tsv, no params.tsv).  Checks that the table is checked before the
 * first block is written. */
static void test_failed_table(void **state)
{
    (void)state;
    sbw_head h;
    SBW_ASSERT_OK(sbw_head_setup(&h, SBW_MODEL_PLIF, 0, 5, 2, 0, 3, 1.0, true, false));
    double theta[64] = {0};
    assert_true(h.nparam <= 64);
    static const char *const cols[] = {"x"};
    sbw_table *t = NULL;
    SBW_ASSERT_OK(sbw_table_alloc(&t, "test_head_io", NULL, false));
    SBW_ASSERT_OK(sbw_table_columns(t, cols, 1));
    SBW_ASSERT_OK(sbw_table_add_row(t));
    char dir[600];
    snprintf(dir, sizeof dir, "%s", sbw_test_path("failed-table"));
    SBW_ASSERT_EQ(sbw_head_io_save(&h, theta, dir, t), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "columns must be declared before rows"));
    SBW_ASSERT_EQ(sbw_table_status(t), SBW_EINVAL);
    sbw_table_free(t);
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    SBW_ASSERT_EQ(n, (size_t)0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plif_slopes),    cmocka_unit_test(test_lms_values),
        cmocka_unit_test(test_bad_dir),        cmocka_unit_test(test_unwritable_file),
        cmocka_unit_test(test_map_regen),      cmocka_unit_test(test_map_regen_bad),
        cmocka_unit_test(test_map_regen_crlf), cmocka_unit_test(test_failed_table),
    };
    return cmocka_run_group_tests_name("head_io", tests, NULL, NULL);
}
