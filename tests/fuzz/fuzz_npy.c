/* fuzz_npy.c -- the .npy reader (core/sbw_npy) on fuzzed bytes, from a
 * regular file and from a pipe, read as float64 and as float32, by blocks,
 * after a seek and through a mapped view; then the log-probability checks
 * of analysis/sbw_logp (logs, probabilities, renormalised), which use the
 * shared checker core/sbw_check.  (sbw-plot's spectrum kind read a .npy of
 * singular values here until it drew sbw-rank's table only.)
 *
 * Properties beyond "no crash, no leak, no undefined behaviour":
 * a failure always leaves a reason; an open header describes its payload
 * (data_bytes = rows x cols x itemsize; a regular file has exactly that
 * many bytes after data_offset), so every row of it reads back; the
 * float32 read is the float64 read rounded; a mapped view and a pipe give
 * the same numbers as the file; no refusal is an allocation failure.
 */
#include "fuzz_util.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_logp.h"
#include "sbw_npy.h"

#include <math.h>
#include <string.h>

/* Items read per input at most (the payload of a small input is small;
 * a header may claim more only for a pipe, which then ends early). */
#define CAP (1u << 14)

static double a64[CAP], b64[CAP], sums[CAP];
static float a32[CAP];

/* Rows to read: all of them when they fit in CAP, else as many as fit. */
static size_t rows_to_read(const sbw_npy_info *in)
{
    if (in->cols == 0 || in->cols > CAP)
        return 0;
    return in->rows < CAP / in->cols ? in->rows : CAP / in->cols;
}

/* A refusal with its reason; never SBW_ENOMEM: an input of a few KB
 * must not make the reader allocate what it cannot (a header's claim is
 * not trusted before the bytes arrive). */
static void require_reason(int st)
{
    FUZZ_REQUIRE(st != SBW_OK && st != SBW_ENOMEM);
    FUZZ_REQUIRE(sbw_error_reason()[0] != '\0');
}

/* Reads n rows as float64 into dst in blocks of 1, 2, 3, ... rows. */
static int read_blocks(sbw_npy_reader *r, size_t n, size_t cols, double *dst)
{
    int st = SBW_OK;
    for (size_t i = 0, b = 1; i < n && !st; i += b, b = b % 3 + 1) {
        if (b > n - i)
            b = n - i;
        st = sbw_npy_read_rows(r, dst + i * cols, b, cols);
    }
    return st;
}

static void check_info(const sbw_npy_info *in, size_t size, int regular)
{
    FUZZ_REQUIRE(in->ndim == 1 || in->ndim == 2);
    FUZZ_REQUIRE(in->itemsize == 4 || in->itemsize == 8);
    FUZZ_REQUIRE(in->ndim == 2 || in->cols == 1);
    FUZZ_REQUIRE(in->cols == 0 || in->rows <= SIZE_MAX / in->cols / in->itemsize);
    FUZZ_REQUIRE(in->data_bytes == in->rows * in->cols * in->itemsize);
    if (regular)
        FUZZ_REQUIRE(in->data_offset + in->data_bytes == size);
}

/* The file path: every row reads, float32 and a view agree.  Returns the
 * number of items left in a64 (0 when the open failed). */
static size_t fuzz_file_reads(const char *path, size_t size)
{
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, path);
    if (st) {
        require_reason(st);
        FUZZ_REQUIRE(r == NULL);
        return 0;
    }
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    check_info(in, size, 1);
    size_t n = rows_to_read(in), cols = in->cols;
    FUZZ_REQUIRE(read_blocks(r, n, cols, a64) == SBW_OK);
    FUZZ_REQUIRE(sbw_npy_reader_row(r) == n);
    FUZZ_REQUIRE(sbw_npy_seek_row(r, 0) == SBW_OK);
    FUZZ_REQUIRE(n == 0 || sbw_npy_read_rows_f32(r, a32, n, cols) == SBW_OK);
    for (size_t k = 0; k < n * cols; k++) {
        float f = (float)a64[k];
        FUZZ_REQUIRE(fuzz_bits32(f) == fuzz_bits32(a32[k]));
    }
    sbw_npy_view v;
    if (n > 0 && sbw_npy_view_rows(r, 0, n, &v)) {
        FUZZ_REQUIRE(memcmp(v.rows, a64, n * cols * sizeof(double)) == 0);
        sbw_npy_view_release(&v);
    }
    if (n > 0 && n < in->rows)
        require_reason(sbw_npy_read_rows(r, a64, in->rows, cols)); /* past the end */
    sbw_npy_close(r);
    return n * cols;
}

/* The pipe path: the header parses as from the file; rows read until the
 * stream ends, and those read equal the file's. */
static void fuzz_pipe_reads(const uint8_t *data, size_t size, size_t file_items)
{
    char path[64];
    int fd;
    if (fuzz_pipe(data, size, &fd, path, sizeof path) != 0)
        return;
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, path);
    if (st) {
        require_reason(st);
    } else {
        const sbw_npy_info *in = sbw_npy_reader_info(r);
        check_info(in, size, 0);
        size_t n = rows_to_read(in), cols = in->cols;
        st = read_blocks(r, n, cols, b64);
        if (st)
            require_reason(st);
        for (size_t k = 0; !st && k < n * cols && k < file_items; k++)
            FUZZ_REQUIRE(fuzz_bits64(a64[k]) == fuzz_bits64(b64[k]));
        sbw_npy_close(r);
    }
    close(fd);
}

/* Rows of log-probabilities (or probabilities, or renormalised) through
 * the checker; opts come from the input's length so a corpus file meets
 * each. */
static void fuzz_logp(const char *path, size_t size)
{
    sbw_logp_opts o = {.probs = size & 1u, .normalize = (size & 2u) != 0, .tol = SBW_LOGP_TOL};
    sbw_logp_reader *r = NULL;
    int st = sbw_logp_open(&r, path, &o);
    if (st) {
        require_reason(st);
        return;
    }
    const sbw_npy_info *in = sbw_logp_info(r);
    size_t n = rows_to_read(in), cols = in->cols;
    sbw_logp_sel s;
    sbw_logp_sel_range(&s, 0, n);
    for (size_t i = 0; i < n && !st; i++) {
        st = sbw_logp_read(r, &s, i, 1, a64);
        double sum = 0;
        for (size_t j = 0; !st && j < cols; j++)
            sum += exp(a64[j]);
        sums[0] = sum;
        st = st ? st : sbw_logp_check_sums(r, &s, i, 1, a64, sums);
    }
    if (st)
        require_reason(st);
    sbw_logp_sel_free(&s);
    sbw_logp_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    fuzz_file("in.npy", data, size, path, sizeof path);
    size_t items = fuzz_file_reads(path, size);
    fuzz_pipe_reads(data, size, items);
    fuzz_logp(path, size);
    sbw_npy_reader *r = NULL;
    if (sbw_check_open(&r, path, SBW_SHAPE_MATRIX) == SBW_OK)
        sbw_npy_close(r);
    return 0;
}
