/* fuzz_ckpt.c -- the checkpoint reader of models/sbw_ckpt on fuzzed files:
 * the input is checkpoint.tsv, then (after a line "%%") the .npy of the
 * array "theta" of the generation the table names.  The table is read
 * with sbw_ckpt_open, then every row of sbw-fit's settings, sbw-lm's
 * settings and a table with one row of every type (ranges reaching
 * +-inf, a named bool, an enum) through sbw_ckpt_get; the array's shape
 * and, when small, its values through sbw_ckpt_array_shape/_load.
 *
 * The array is also read through sbw_ckpt_load_checked with a finite
 * bound (sbw-lm's SBW_LM_TRAIN_PARAM_MAX), and sbw-lm's eval loader
 * (sbw_lm_train_ckpt_load) reads the whole folder against a fixed two-word
 * corpus.
 *
 * Properties: a failure leaves a reason; the generation is in [1, 1e15];
 * a value read lies in its row's range (doubles never NaN); a loaded
 * array has the shape its header claims; the checked load succeeds
 * exactly when the plain one does and every value is finite and within
 * the bound; parameters sbw_lm_train_ckpt_load returns are finite and within
 * SBW_LM_TRAIN_PARAM_MAX.
 */
#include "fuzz_util.h"

#include "sbw_ckpt.h"
#include "sbw_error.h"
#include "sbw_fit_opts.h"
#include "sbw_lm_opts.h"
#include "sbw_lm_train.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#define CAP 4096

typedef struct every {
    size_t z;
    uint64_t u;
    int i;
    double d, inf;
    bool b, nb;
    int e;
} every;

static const char *colour(int v)
{
    static const char *const names[] = {"red", "green", "blue"};
    return v >= 0 && v < 3 ? names[v] : NULL;
}

static const char *onoff(int v) { return v == 0 ? "off" : v == 1 ? "on" : NULL; }

static const sbw_ckpt_field every_table[] = {
    {"z", offsetof(every, z), SBW_CKPT_SIZE, 0, 1e12, 0, NULL, SBW_CKPT_SHAPES, "--z"},
    {"u", offsetof(every, u), SBW_CKPT_U64, 0, 1.8e19, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"i", offsetof(every, i), SBW_CKPT_INT, 0, 1e6, 0, NULL, SBW_CKPT_FREE, "--i"},
    {"d", offsetof(every, d), SBW_CKPT_DOUBLE, -1, 1, 0, NULL, SBW_CKPT_SHAPES, "--d"},
    {"inf", offsetof(every, inf), SBW_CKPT_DOUBLE, -INFINITY, INFINITY, 0, NULL, SBW_CKPT_FREE,
     NULL},
    {"b", offsetof(every, b), SBW_CKPT_BOOL, 0, 1, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nb", offsetof(every, nb), SBW_CKPT_BOOL, 0, 1, 0, onoff, SBW_CKPT_SHAPES, NULL},
    {"e", offsetof(every, e), SBW_CKPT_ENUM, 0, 2, 0, colour, SBW_CKPT_SHAPES, "--e"},
};

static double x[CAP];

static void fuzz_tables(const sbw_ckpt *c)
{
    every v;
    if (sbw_ckpt_get(c, every_table, sizeof every_table / sizeof *every_table, &v) == SBW_OK) {
        FUZZ_REQUIRE(v.z <= (size_t)1e12 && v.i >= 0 && v.i <= 1000000);
        FUZZ_REQUIRE(v.d >= -1 && v.d <= 1 && !isnan(v.inf) && v.e >= 0 && v.e <= 2);
        char buf[128];
        for (size_t k = 0; k < sizeof every_table / sizeof *every_table; k++)
            FUZZ_REQUIRE(sbw_ckpt_format(&every_table[k], &v, k & 1, buf, sizeof buf) == buf);
    } else {
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
    }
    sbw_fit_opts fo;
    sbw_fit_opts_init(&fo);
    if (sbw_ckpt_get(c, sbw_fit_opts_table, sbw_fit_opts_nrows, &fo) != SBW_OK)
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
    sbw_lm_opts lo;
    sbw_lm_opts_init(&lo);
    if (sbw_ckpt_get(c, sbw_lm_opts_table, sbw_lm_opts_nrows, &lo) != SBW_OK)
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
}

static void fuzz_array(const sbw_ckpt *c, const uint8_t *npy, size_t n)
{
    char name[64], path[512];
    snprintf(name, sizeof name, "ckpt-%" PRIu64 "-theta.npy", sbw_ckpt_generation(c));
    fuzz_file(name, npy, n, path, sizeof path);
    size_t rows = 0, cols = 0;
    if (sbw_ckpt_array_shape(c, "theta", &rows, &cols) == SBW_OK) {
        if (cols > 0 && rows <= CAP / cols) {
            FUZZ_REQUIRE(sbw_ckpt_load(c, "theta", x, rows, cols) == SBW_OK);
            bool good = true;
            for (size_t i = 0; i < rows * cols; i++)
                good = good && isfinite(x[i]) && fabs(x[i]) <= SBW_LM_TRAIN_PARAM_MAX;
            int st = sbw_ckpt_load_checked(c, "theta", x, rows, cols, SBW_LM_TRAIN_PARAM_MAX);
            FUZZ_REQUIRE((st == SBW_OK) == good);
            FUZZ_REQUIRE(st == SBW_OK || st == SBW_EDATA);
        }
        if (cols > 0 && rows + 1 <= CAP / cols)
            FUZZ_REQUIRE(sbw_ckpt_load(c, "theta", x, rows + 1, cols) != SBW_OK);
    } else {
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
    }
    unlink(path);
}

/* sbw-lm's eval loader on the folder, its theta the fuzzed array (the
 * checkpoint's generation's), against a corpus of two words. */
static void fuzz_lm_load(const uint8_t *npy, size_t n)
{
    static sbw_corpus corpus;
    static char *words[2] = {"a", "<eos>"};
    setenv("SBW_MAX_MEMORY", "64M", 1); /* a fuzzed model size is refused, not allocated */
    corpus.nwords = 2;
    corpus.words = words;
    sbw_ckpt *c = NULL;
    if (sbw_ckpt_open(&c, fuzz_dir()) != SBW_OK)
        return;
    char name[64], path[512], avg[512];
    snprintf(name, sizeof name, "ckpt-%" PRIu64 "-theta.npy", sbw_ckpt_generation(c));
    fuzz_file(name, npy, n, path, sizeof path);
    snprintf(name, sizeof name, "ckpt-%" PRIu64 "-avg.npy", sbw_ckpt_generation(c));
    fuzz_file(name, npy, n, avg, sizeof avg);
    sbw_ckpt_close(c);
    corpus.hash = 0;
    sbw_lm_opts o;
    sbw_lm lm;
    double *theta = NULL;
    if (sbw_lm_train_ckpt_load(fuzz_dir(), &corpus, &o, &lm, &theta) == SBW_OK) {
        for (size_t i = 0; i < lm.nparam; i++)
            FUZZ_REQUIRE(isfinite(theta[i]) && fabs(theta[i]) <= SBW_LM_TRAIN_PARAM_MAX);
    } else {
        FUZZ_REQUIRE(theta == NULL && sbw_error_reason()[0] != '\0');
    }
    free(theta);
    unlink(path);
    unlink(avg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[2] = {0};
    size_t len[2] = {0};
    size_t n = fuzz_split(data, size, part, len, 2);
    char path[512];
    fuzz_file("checkpoint.tsv", part[0], len[0], path, sizeof path);
    sbw_ckpt *c = NULL;
    int st = sbw_ckpt_open(&c, fuzz_dir());
    if (st) {
        FUZZ_REQUIRE(c == NULL && sbw_error_reason()[0] != '\0');
        return 0;
    }
    FUZZ_REQUIRE(sbw_ckpt_generation(c) >= 1 && sbw_ckpt_generation(c) <= (uint64_t)1e15);
    fuzz_tables(c);
    if (n == 2)
        fuzz_array(c, part[1], len[1]);
    sbw_ckpt_close(c);
    if (n == 2)
        fuzz_lm_load(part[1], len[1]);
    return 0;
}
