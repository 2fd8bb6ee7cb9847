/* test_npy.c -- .npy reading and writing against NumPy-made fixtures,
 * round trips, streaming, pipes, and every malformed-file path. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_npy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fixtures hold A[i][j] = (4 i + j - 5) / 8, 3 x 4 (make_fixtures.py). */
static double fixture_value(size_t i, size_t j) { return (double)(4 * (int)i + (int)j - 5) / 8.0; }

static void assert_fixture(const sbw_mat *m)
{
    assert_int_equal(m->rows, 3);
    assert_int_equal(m->cols, 4);
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++)
            SBW_ASSERT_EQ(SBW_MAT_AT(m, i, j), fixture_value(i, j));
}

static void load_fixture(const char *name, sbw_mat *m, sbw_npy_info *info)
{
    SBW_ASSERT_OK(sbw_npy_load(sbw_test_fixture(name), m, info));
}

static void test_fixture_f8_c(void **state)
{
    (void)state;
    sbw_mat m = {0};
    sbw_npy_info in;
    load_fixture("f8_c.npy", &m, &in);
    assert_fixture(&m);
    assert_int_equal(in.dtype, SBW_F64);
    assert_false(in.fortran);
    assert_false(in.swap);
    assert_int_equal(in.major, 1);
    assert_int_equal(in.ndim, 2);
    sbw_mat_free(&m);
}

/* Every layout NumPy writes reads back to the same exact values. */
static void test_fixture_layouts(void **state)
{
    (void)state;
    const char *names[] = {"f4_c.npy",    "f8_f.npy",  "f4_f.npy", "f8_be.npy",
                           "f4_be_f.npy", "f8_v2.npy", "f8_v3.npy"};
    const bool fortran[] = {false, true, true, false, true, false, false};
    const bool f4[] = {true, false, true, false, true, false, false};
    const int major[] = {1, 1, 1, 1, 1, 2, 3};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        sbw_mat m = {0};
        sbw_npy_info in;
        load_fixture(names[k], &m, &in);
        assert_fixture(&m);
        assert_int_equal(in.fortran, fortran[k]);
        assert_int_equal(in.dtype, f4[k] ? SBW_F32 : SBW_F64);
        assert_int_equal(in.major, major[k]);
        sbw_mat_free(&m);
    }
}

static void test_fixture_f32_reader(void **state)
{
    (void)state;
    const char *names[] = {"f4_c.npy", "f8_c.npy", "f4_be_f.npy"};
    for (size_t k = 0; k < 3; k++) {
        sbw_mat_f32 m = {0};
        SBW_ASSERT_OK(sbw_npy_load_f32(sbw_test_fixture(names[k]), &m, NULL));
        for (size_t i = 0; i < 3; i++)
            for (size_t j = 0; j < 4; j++)
                SBW_ASSERT_EQ(SBW_MAT_AT(&m, i, j), (float)fixture_value(i, j));
        sbw_mat_f32_free(&m);
    }
}

static void test_fixture_vector(void **state)
{
    (void)state;
    sbw_mat m = {0};
    sbw_npy_info in;
    load_fixture("vec_f8.npy", &m, &in);
    assert_int_equal(in.ndim, 1);
    assert_int_equal(m.rows, 5);
    assert_int_equal(m.cols, 1);
    for (size_t i = 0; i < 5; i++)
        SBW_ASSERT_EQ(m.data[i], (double)i / 4.0);
    sbw_mat_free(&m);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(1 << 16);
    *n = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

/* What sbw writes is byte for byte what NumPy writes (header padding too). */
static void test_writer_matches_numpy_bytes(void **state)
{
    (void)state;
    sbw_mat m = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&m, 3, 4));
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++)
            SBW_MAT_AT(&m, i, j) = fixture_value(i, j);
    const char *names[] = {"f8_c.npy", "f4_c.npy", "vec_f8.npy"};
    for (int k = 0; k < 3; k++) {
        char out[512];
        snprintf(out, sizeof out, "%s", sbw_test_path(names[k]));
        if (k < 2) {
            SBW_ASSERT_OK(sbw_npy_save(out, &m, k == 0 ? SBW_F64 : SBW_F32));
        } else {
            double v[5] = {0, 0.25, 0.5, 0.75, 1.0};
            SBW_ASSERT_OK(sbw_npy_save_vector(out, v, 5, SBW_F64));
        }
        size_t na, nb;
        unsigned char *a = slurp(out, &na), *b = slurp(sbw_test_fixture(names[k]), &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        free(a);
        free(b);
    }
    sbw_mat_free(&m);
}

static void fill_pattern(sbw_mat *m, double scale)
{
    for (size_t i = 0; i < m->rows; i++)
        for (size_t j = 0; j < m->cols; j++)
            SBW_MAT_AT(m, i, j) = scale * sin((double)(i * 131 + j * 7 + 1)) / (double)(j + 1);
}

/* Blocks of uneven sizes in, other blocks out: the same matrix. */
static void test_stream_roundtrip(void **state)
{
    (void)state;
    const size_t rows = 37, cols = 11;
    sbw_mat a = {0}, b = {0};
    SBW_ASSERT_OK(sbw_mat_alloc(&a, rows, cols));
    SBW_ASSERT_OK(sbw_mat_alloc(&b, rows, cols));
    fill_pattern(&a, 3.0);
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("stream.npy"));
    sbw_npy_writer *w;
    SBW_ASSERT_OK(sbw_npy_create(&w, path, rows, cols, 2, SBW_F64));
    for (size_t r = 0, k = 1; r < rows; r += k, k = k % 5 + 2) {
        size_t nr = r + k > rows ? rows - r : k;
        SBW_ASSERT_OK(sbw_npy_write_rows(w, a.data + r * cols, nr, cols));
    }
    SBW_ASSERT_OK(sbw_npy_finish(w));
    sbw_npy_reader *r;
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    for (size_t row = 0; row < rows; row += 8) {
        size_t nr = row + 8 > rows ? rows - row : 8;
        SBW_ASSERT_OK(sbw_npy_read_rows(r, b.data + row * cols, nr, cols));
    }
    assert_int_equal(sbw_npy_read_rows(r, b.data, 1, cols), SBW_EINVAL);
    SBW_ASSERT_CLOSE(b.data, a.data, rows * cols, 0.0, 0.0);
    /* random access on a regular file */
    assert_true(sbw_npy_reader_seekable(r));
    SBW_ASSERT_OK(sbw_npy_seek_row(r, 20));
    SBW_ASSERT_OK(sbw_npy_read_rows(r, b.data, 1, cols));
    SBW_ASSERT_CLOSE(b.data, a.data + 20 * cols, cols, 0.0, 0.0);
    assert_int_equal(sbw_npy_seek_row(r, rows + 1), SBW_EINVAL);
    sbw_npy_close(r);
    sbw_mat_free(&a);
    sbw_mat_free(&b);
}

/* float32 files hold the float rounding of the doubles; ld > cols works. */
static void test_f32_roundtrip_with_ld(void **state)
{
    (void)state;
    const size_t rows = 5, cols = 3, ld = 7;
    double src[5 * 7], got[5 * 7];
    for (size_t k = 0; k < rows * ld; k++)
        src[k] = 1.0 / (double)(k + 3);
    const char *path = sbw_test_path("f32.npy");
    sbw_npy_writer *w;
    SBW_ASSERT_OK(sbw_npy_create(&w, path, rows, cols, 2, SBW_F32));
    SBW_ASSERT_OK(sbw_npy_write_rows(w, src, rows, ld));
    SBW_ASSERT_OK(sbw_npy_finish(w));
    sbw_npy_reader *r;
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    assert_int_equal(sbw_npy_reader_info(r)->dtype, SBW_F32);
    SBW_ASSERT_OK(sbw_npy_read_rows(r, got, rows, ld));
    sbw_npy_close(r);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            SBW_ASSERT_EQ(got[i * ld + j], (double)(float)src[i * ld + j]);
}

/* ---- malformed files ---------------------------------------------------- */

static const char *write_bytes(const char *name, const void *buf, size_t n)
{
    const char *path = sbw_test_path(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
    return path;
}

/* A v1 file with the given dict and payload bytes. */
static const char *write_npy(const char *name, const char *dict, size_t payload)
{
    unsigned char buf[4096] = "\x93NUMPY\x01\x00";
    size_t len = strlen(dict);
    size_t total = (10 + len + 1 + 63) / 64 * 64;
    buf[8] = (unsigned char)((total - 10) & 0xff);
    buf[9] = (unsigned char)((total - 10) >> 8);
    /* the header is bytes, not a string: no terminator after the dict */
    // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
    memcpy(buf + 10, dict, len);
    memset(buf + 10 + len, ' ', total - 10 - len - 1);
    buf[total - 1] = '\n';
    memset(buf + total, 0, payload);
    return write_bytes(name, buf, total + payload);
}

/* ---- the fast float32/float64 row conversion ---------------------------- */

/* A v1 .npy of the given dict with payload bytes data[0, n). */
static const char *write_npy_data(const char *name, const char *dict, const void *data, size_t n)
{
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    unsigned char *buf = calloc(total + n, 1);
    assert_non_null(buf);
    /* the header is bytes, not a string: no terminator after either copy */
    // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)((total - 10) & 0xff);
    buf[9] = (unsigned char)((total - 10) >> 8);
    // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
    memcpy(buf + 10, dict, len);
    memset(buf + 10 + len, ' ', total - 10 - len - 1);
    buf[total - 1] = '\n';
    memcpy(buf + total, data, n);
    const char *path = write_bytes(name, buf, total + n);
    free(buf);
    return path;
}

/* Reads path (NR x NC, float32 items) in blocks of 5 rows with a leading
 * dimension NC + 3, as doubles and as floats, and compares every item bit
 * for bit with the brute-force conversion of want (row-major floats). */
enum { CONV_NR = 37, CONV_NC = 53, CONV_LD = CONV_NC + 3, CONV_N = CONV_NR * CONV_NC };
static void expect_converted(const char *path, const double *wantd, const float *wantf)
{
    static double d[5 * CONV_LD];
    static float f[5 * CONV_LD];
    sbw_npy_reader *r, *rf;
    SBW_ASSERT_OK(sbw_npy_open(&r, path));
    SBW_ASSERT_OK(sbw_npy_open(&rf, path));
    for (size_t i0 = 0; i0 < CONV_NR; i0 += 5) {
        size_t nr = CONV_NR - i0 < 5 ? CONV_NR - i0 : 5;
        SBW_ASSERT_OK(sbw_npy_read_rows(r, d, nr, CONV_LD));
        SBW_ASSERT_OK(sbw_npy_read_rows_f32(rf, f, nr, CONV_LD));
        for (size_t i = 0; i < nr; i++)
            for (size_t j = 0; j < CONV_NC; j++) {
                size_t k = (i0 + i) * CONV_NC + j;
                /* bits, not values: NaN payloads and -0 must match too */
                // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
                if (memcmp(&d[i * CONV_LD + j], &wantd[k], 8) != 0 ||
                    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
                    memcmp(&f[i * CONV_LD + j], &wantf[k], 4) != 0)
                    fail_msg("%s: item (%zu, %zu) read as %.17g / %.9g, stored %.17g", path, i0 + i,
                             j, d[i * CONV_LD + j], (double)f[i * CONV_LD + j], wantd[k]);
            }
    }
    sbw_npy_close(r);
    sbw_npy_close(rf);
}

/* Writes the CONV_N items of size isz at src (row-major) as NAME_c.npy
 * (this machine's byte order), NAME_swap.npy (the other) and NAME_f.npy
 * (Fortran order), descr kind 'f', and expects each to read as wantd /
 * wantf. */
static void write_and_expect(const char *name, const void *src, size_t isz, const double *wantd,
                             const float *wantf)
{
    static unsigned char buf[8 * CONV_N];
    const unsigned char *a = src;
    uint16_t one = 1;
    unsigned char lo;
    memcpy(&lo, &one, 1);
    char nat = lo ? '<' : '>', oth = lo ? '>' : '<', dict[128], file[64];
    const char *order[] = {"False", "False", "True"}, *tail[] = {"c", "swap", "f"};
    for (size_t v = 0; v < 3; v++) {
        for (size_t i = 0; i < CONV_NR; i++)
            for (size_t j = 0; j < CONV_NC; j++) {
                size_t from = i * CONV_NC + j, to = v == 2 ? j * CONV_NR + i : from;
                for (size_t b = 0; b < isz; b++)
                    buf[to * isz + b] = a[from * isz + (v == 1 ? isz - 1 - b : b)];
            }
        snprintf(dict, sizeof dict, "{'descr': '%cf%zu', 'fortran_order': %s, 'shape': (%d, %d), }",
                 v == 1 ? oth : nat, isz, order[v], CONV_NR, CONV_NC);
        snprintf(file, sizeof file, "%s_%s.npy", name, tail[v]);
        expect_converted(write_npy_data(file, dict, buf, isz * CONV_N), wantd, wantf);
    }
}

/* The row-at-a-time conversion of native float32 rows and the float64
 * row copy give bit for bit what the item-by-item twin gives: the same
 * values, with infinities, a quiet and a signalling NaN, -0, subnormals
 * and the extremes, read from the native C-order file (fast path), its
 * byte-swapped and Fortran-order twins (item by item), in blocks with a
 * leading dimension (so that a float64 file does not take the direct
 * read), as doubles and as floats. */
static void test_fast_conversion(void **state)
{
    (void)state;
    static float a[CONV_N], af[CONV_N];
    static double ad[CONV_N], b[CONV_N], bd[CONV_N];
    static float bf[CONV_N];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t k = 0; k < CONV_N; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b[k] = (double)(int64_t)x / 9.2e18 * pow(10.0, (double)(x % 9) - 4.0);
        a[k] = (float)b[k];
    }
    uint32_t snan32 = 0x7f800001u;
    uint64_t snan64 = 0x7ff0000000000001u;
    const float fs[] = {INFINITY, -INFINITY, NAN, -0.0f, 1e-45f, -1.17e-38f, 3.4028235e38f};
    const double ds[] = {
        INFINITY, -INFINITY, NAN, -0.0, 4.9e-324, -2.2e-308, 1.7976931348623157e308};
    for (size_t k = 0; k < 7; k++) {
        a[k * 101] = fs[k];
        b[k * 101] = ds[k];
    }
    memcpy(&a[777], &snan32, 4);
    memcpy(&b[777], &snan64, 8);
    for (size_t k = 0; k < CONV_N; k++) {
        ad[k] = (double)a[k]; /* what a float32 item is as a double */
        af[k] = a[k];
        bd[k] = b[k];
        bf[k] = (float)b[k]; /* a float64 item rounded to a float */
    }
    write_and_expect("conv4", a, 4, ad, af);
    write_and_expect("conv8", b, 8, bd, bf);
}

static void expect_open_error(const char *path, int status, const char *phrase)
{
    sbw_npy_reader *r = (sbw_npy_reader *)1;
    int st = sbw_npy_open(&r, path);
    if (st != status || !strstr(sbw_error_reason(), phrase) || !strstr(sbw_error_reason(), path))
        print_error("%s: status %d (want %d), reason '%s' (want '%s' and the path)\n", path, st,
                    status, sbw_error_reason(), phrase);
    assert_int_equal(st, status);
    assert_non_null(strstr(sbw_error_reason(), phrase));
    assert_non_null(strstr(sbw_error_reason(), path));
    assert_null(r);
}

static void test_bad_magic_and_version(void **state)
{
    (void)state;
    expect_open_error(write_bytes("magic.npy", "PK\x03\x04 not numpy at all", 22), SBW_EFORMAT,
                      "bad magic");
    expect_open_error(write_bytes("short.npy", "\x93NUM", 4), SBW_EFORMAT, "bad magic");
    expect_open_error(write_bytes("empty.npy", "", 0), SBW_EFORMAT, "bad magic");
    expect_open_error(write_bytes("v9.npy", "\x93NUMPY\x09\x00\x10\x00{}", 12), SBW_EFORMAT,
                      "version 9.0");
    expect_open_error(write_bytes("hlen.npy", "\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12), SBW_EFORMAT,
                      "header length");
    expect_open_error(write_bytes("trunch.npy", "\x93NUMPY\x01\x00\x40\x00{'descr'", 18),
                      SBW_EFORMAT, "truncated .npy header");
    expect_open_error(sbw_test_path("does-not-exist.npy"), SBW_EIO, "cannot open");
}

static void test_bad_header_dict(void **state)
{
    (void)state;
    const char *missing = "{'descr': '<f8', 'shape': (2, 2), }";
    expect_open_error(write_npy("nofo.npy", missing, 32), SBW_EFORMAT, "missing");
    const char *extra = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), 'x': 1}";
    expect_open_error(write_npy("extra.npy", extra, 32), SBW_EFORMAT, "unexpected key 'x'");
    const char *notdict = "['descr', '<f8']";
    expect_open_error(write_npy("list.npy", notdict, 32), SBW_EFORMAT, "not a dict");
    const char *badbool = "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2, 2), }";
    expect_open_error(write_npy("bool.npy", badbool, 32), SBW_EFORMAT, "fortran_order");
    const char *badshape = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, -2), }";
    expect_open_error(write_npy("neg.npy", badshape, 32), SBW_EFORMAT, "shape entry");
    const char *unterminated = "{'descr': '<f8, 'fortran_order': False, 'shape': (2, 2), }";
    expect_open_error(write_npy("quote.npy", unterminated, 32), SBW_EFORMAT, "bad .npy header");
}

/* After '}' the format allows only space padding and the final '\n'; NumPy
 * (ast.literal_eval) rejects "{...} xyz", and so must we.  The NumPy-made
 * fixtures (padded with spaces, ending in '\n') still parse: test_fixture_*. */
static void test_header_tail(void **state)
{
    (void)state;
    const char *junk = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), } xyz";
    expect_open_error(write_npy("junk.npy", junk, 32), SBW_EFORMAT, "after the closing '}'");
    const char *two = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }{}";
    expect_open_error(write_npy("two.npy", two, 32), SBW_EFORMAT, "after the closing '}'");
    const char *comma = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)},";
    expect_open_error(write_npy("comma.npy", comma, 32), SBW_EFORMAT, "after the closing '}'");
    /* a newline before the padding is not the final newline */
    const char *early = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\n";
    expect_open_error(write_npy("early.npy", early, 32), SBW_EFORMAT, "after the closing '}'");
    /* no padding at all: '}' then the final '\n' (write_npy adds it) */
    const char *tight = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
    sbw_npy_reader *r;
    SBW_ASSERT_OK(sbw_npy_open(&r, write_npy("tight.npy", tight, 32)));
    assert_int_equal(sbw_npy_reader_info(r)->rows, 2);
    sbw_npy_close(r);
}

static void test_unsupported_dtypes_and_dims(void **state)
{
    (void)state;
    expect_open_error(sbw_test_fixture("i8.npy"), SBW_EDTYPE, "'<i8'");
    expect_open_error(sbw_test_fixture("c16.npy"), SBW_EDTYPE, "'<c16'");
    expect_open_error(sbw_test_fixture("f8_3d.npy"), SBW_EDTYPE, "3-d");
    expect_open_error(sbw_test_fixture("f8_0d.npy"), SBW_EDTYPE, "0-d");
    const char *structured = "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,), }";
    expect_open_error(write_npy("struct.npy", structured, 16), SBW_EDTYPE, "structured");
}

static void test_payload_size(void **state)
{
    (void)state;
    const char *d = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
    expect_open_error(write_npy("trunc.npy", d, 47), SBW_EFORMAT, "truncated");
    expect_open_error(write_npy("trail.npy", d, 49), SBW_EFORMAT, "1 bytes after the payload");
    const char *huge = "{'descr': '<f8', 'fortran_order': False, 'shape': "
                       "(4611686018427387904, 4611686018427387904), }";
    expect_open_error(write_npy("huge.npy", huge, 8), SBW_EFORMAT, "overflows");
    const char *over = "{'descr': '<f8', 'fortran_order': False, 'shape': "
                       "(99999999999999999999999, 2), }";
    expect_open_error(write_npy("over.npy", over, 8), SBW_EFORMAT, "overflows");
    /* Zero rows is a valid, empty matrix. */
    const char *zero = "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }";
    sbw_npy_reader *r;
    SBW_ASSERT_OK(sbw_npy_open(&r, write_npy("zero.npy", zero, 0)));
    assert_int_equal(sbw_npy_reader_info(r)->rows, 0);
    sbw_npy_close(r);
}

/* ---- pipes -------------------------------------------------------------- */

/* Reads fixture `name` through a FIFO (limit bytes of it) into m. */
static int read_through_fifo_extra(const char *name, size_t limit, size_t extra, sbw_mat *m,
                                   size_t seek_to)
{
    static int counter;
    char fname[64];
    snprintf(fname, sizeof fname, "fifo%d", counter++);
    char fifo[512]; /* sbw_test_path's buffer is reused */
    snprintf(fifo, sizeof fifo, "%s", sbw_test_path(fname));
    sbw_test_feeder *f = sbw_test_feed_start(fifo, sbw_test_fixture(name), limit, extra);
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, fifo);
    if (!st) {
        const sbw_npy_info *in = sbw_npy_reader_info(r);
        assert_int_equal(sbw_npy_reader_seekable(r), in->fortran); /* only if buffered */
        st = sbw_mat_alloc(m, in->rows, in->cols);
        if (!st && seek_to)
            st = sbw_npy_seek_row(r, seek_to);
        for (size_t i = seek_to; i < in->rows && !st; i++)
            st = sbw_npy_read_rows(r, m->data + i * m->ld, 1, m->ld);
        if (!st && seek_to)
            assert_int_equal(sbw_npy_seek_row(r, 0), SBW_EINVAL);
        sbw_npy_close(r);
    }
    int fed = sbw_test_feed_join(f);
    assert_true(fed == 0 || (fed == EPIPE && st != SBW_OK));
    return st;
}

static int read_through_fifo(const char *name, size_t limit, sbw_mat *m, size_t seek_to)
{
    return read_through_fifo_extra(name, limit, 0, m, seek_to);
}

/* A mapped view of f8 C-order rows sees the exact values, at every start
 * row (the payload offset is not page-aligned); every other layout, and
 * rows past the end, are refused so the caller reads instead. */
static void test_view_rows(void **state)
{
    (void)state;
    sbw_npy_reader *r;
    SBW_ASSERT_OK(sbw_npy_open(&r, sbw_test_fixture("f8_c.npy")));
    for (size_t row = 0; row < 3; row++)
        for (size_t nr = 1; row + nr <= 3; nr++) {
            sbw_npy_view v;
            assert_true(sbw_npy_view_rows(r, row, nr, &v));
            for (size_t i = 0; i < nr; i++)
                for (size_t j = 0; j < 4; j++)
                    SBW_ASSERT_EQ(v.rows[i * 4 + j], fixture_value(row + i, j));
            sbw_npy_view_release(&v);
            assert_null(v.map);
        }
    sbw_npy_view v = {0};
    assert_false(sbw_npy_view_rows(r, 2, 2, &v));
    assert_false(sbw_npy_view_rows(r, 0, 0, &v));
    assert_null(v.map);
    assert_int_equal(sbw_npy_reader_row(r), 0); /* the reader did not move */
    sbw_npy_close(r);
    const char *other[] = {"f4_c.npy", "f8_f.npy", "f8_be.npy"};
    for (size_t k = 0; k < 3; k++) {
        SBW_ASSERT_OK(sbw_npy_open(&r, sbw_test_fixture(other[k])));
        assert_false(sbw_npy_view_rows(r, 0, 1, &v));
        sbw_npy_close(r);
    }
}

static void test_pipe_reading(void **state)
{
    (void)state;
    const char *names[] = {"f8_c.npy", "f4_be_f.npy", "f8_f.npy"};
    for (int k = 0; k < 3; k++) {
        sbw_mat m = {0};
        SBW_ASSERT_OK(read_through_fifo(names[k], SIZE_MAX, &m, 0));
        assert_fixture(&m);
        sbw_mat_free(&m);
    }
    sbw_mat m = {0};
    SBW_ASSERT_OK(read_through_fifo("f8_c.npy", SIZE_MAX, &m, 2)); /* skip forward */
    for (size_t j = 0; j < 4; j++)
        SBW_ASSERT_EQ(SBW_MAT_AT(&m, 2, j), fixture_value(2, j));
    sbw_mat_free(&m);
    /* A stream cut inside row 1 is reported as truncated. */
    assert_int_equal(read_through_fifo("f8_c.npy", 128 + 40, &m, 0), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "truncated"));
    sbw_mat_free(&m);
    assert_int_equal(read_through_fifo("f8_f.npy", 128 + 40, &m, 0), SBW_EFORMAT);
    sbw_mat_free(&m);
    /* Bytes after the payload are refused from a pipe as from a file,
     * streamed (C order, the direct and the converting path) or buffered
     * (Fortran order), also when the rows were skipped to the end. */
    const char *layouts[] = {"f8_c.npy", "f4_be_f.npy", "f8_f.npy", "f8_be.npy"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(read_through_fifo_extra(layouts[k], SIZE_MAX, 3, &m, 0), SBW_EFORMAT);
        assert_non_null(strstr(sbw_error_reason(), ": 3 bytes after the payload of shape (3, 4)"));
        sbw_mat_free(&m);
    }
    assert_int_equal(read_through_fifo_extra("f8_c.npy", SIZE_MAX, 5000, &m, 3), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), ": 5000 bytes after the payload"));
    sbw_mat_free(&m);
}

/* A version 1.0 header for shape (rows, cols) in order fortran, then
 * payload bytes of zeros: a file whose header may lie about its size. */
static void write_lying_npy(const char *path, size_t rows, size_t cols, bool fortran,
                            size_t payload)
{
    char dict[160];
    int len =
        snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': %s, 'shape': (%zu, %zu), }",
                 fortran ? "True" : "False", rows, cols);
    size_t hlen = ((size_t)len + 11 + 63) / 64 * 64 - 10;
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)(hlen & 0xff), f);
    fputc((int)(hlen >> 8), f);
    fputs(dict, f);
    for (size_t k = (size_t)len; k + 1 < hlen; k++)
        fputc(' ', f);
    fputc('\n', f);
    static const unsigned char zeros[65536];
    for (size_t k = 0; k < payload; k += sizeof zeros)
        fwrite(zeros, 1, payload - k < sizeof zeros ? payload - k : sizeof zeros, f);
    fclose(f);
}

/* Reads the file at path through a FIFO with sbw_npy_read_all. */
static int read_all_through_fifo(const char *path, sbw_mat *m)
{
    char fifo[512];
    snprintf(fifo, sizeof fifo, "%s", sbw_test_path("fifo_all"));
    sbw_test_feeder *f = sbw_test_feed_start(fifo, path, SIZE_MAX, 0);
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, fifo);
    st = st ? st : sbw_npy_read_all(r, m);
    sbw_npy_close(r);
    int fed = sbw_test_feed_join(f);
    assert_true(fed == 0 || (fed == EPIPE && st != SBW_OK));
    return st;
}

/* A pipe whose header claims 4e8 entries (3.2 GB) and sends 8,000 bytes is
 * "truncated", not "out of memory": the reader grows its matrix as the rows
 * arrive.  SBW_MAX_MEMORY = 256M makes an allocation of the claim fail, so
 * a reader that trusted the header fails this test on any machine.  A pipe
 * that sends everything it claims reads back whole across several growths
 * (16 MiB start: 5,000 rows of 1,000 doubles need two). */
static void test_pipe_header_claims(void **state)
{
    (void)state;
    char path[512]; /* sbw_test_path's buffer is reused */
    snprintf(path, sizeof path, "%s", sbw_test_path("lying.npy"));
    setenv("SBW_MAX_MEMORY", "256M", 1);
    for (int fortran = 0; fortran < 2; fortran++) {
        write_lying_npy(path, 20000, 20000, fortran, 8000);
        sbw_mat m = {0};
        assert_int_equal(read_all_through_fifo(path, &m), SBW_EFORMAT);
        assert_non_null(strstr(sbw_error_reason(), "truncated"));
        assert_null(m.data);
    }
    /* the preflight still refuses what a regular file really holds */
    write_lying_npy(path, 20000, 2000, false, (size_t)20000 * 2000 * 8);
    sbw_mat m = {0};
    assert_int_equal(sbw_npy_load(path, &m, NULL), SBW_ENOMEM);
    assert_non_null(strstr(sbw_error_reason(), "SBW_MAX_MEMORY"));
    unsetenv("SBW_MAX_MEMORY");
    write_lying_npy(path, 5000, 1000, false, (size_t)5000 * 1000 * 8);
    SBW_ASSERT_OK(read_all_through_fifo(path, &m));
    SBW_ASSERT_EQ(m.rows, 5000);
    SBW_ASSERT_EQ(m.cols, 1000);
    for (size_t i = 0; i < m.rows * m.cols; i++)
        if (m.data[i] != 0.0)
            fail_msg("entry %zu is %g, want 0", i, m.data[i]);
    sbw_mat_free(&m);
    unlink(path);
}

/* ---- writer failure paths ----------------------------------------------- */

static bool dir_has_temp(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '\\.tmp\\.'", dir);
    return system(cmd) == 0;
}

static void test_writer_failures(void **state)
{
    (void)state;
    double row[4] = {1, 2, 3, 4};
    sbw_npy_writer *w;
    /* Too few rows: error, nothing under the final name, no temporary. */
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("short-write.npy"));
    SBW_ASSERT_OK(sbw_npy_create(&w, path, 3, 4, 2, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_write_rows(w, row, 1, 4));
    assert_int_equal(sbw_npy_write_rows(w, row, 3, 4), SBW_EINVAL);
    assert_int_equal(sbw_npy_finish(w), SBW_EINVAL);
    assert_int_equal(access(path, F_OK), -1);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", sbw_test_path(""));
    assert_false(dir_has_temp(dir));
    /* ENOSPC on a device is reported at finish. */
    SBW_ASSERT_OK(sbw_npy_create(&w, "/dev/full", 1, 4, 2, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_write_rows(w, row, 1, 4));
    assert_int_equal(sbw_npy_finish(w), SBW_EIO);
    assert_non_null(strstr(sbw_error_reason(), "/dev/full"));
    /* Non-regular targets are written directly. */
    SBW_ASSERT_OK(sbw_npy_create(&w, "/dev/null", 1, 4, 2, SBW_F32));
    SBW_ASSERT_OK(sbw_npy_write_rows(w, row, 1, 4));
    SBW_ASSERT_OK(sbw_npy_finish(w));
    /* A directory that does not exist. */
    assert_int_equal(sbw_npy_create(&w, "/nonexistent-dir/x.npy", 1, 4, 2, SBW_F64), SBW_EIO);
    assert_null(w);
    assert_int_equal(sbw_npy_create(&w, path, 2, 2, 1, SBW_F64), SBW_EINVAL);
}

/* An aborted rewrite leaves the old file intact. */
static void test_abort_keeps_old_file(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s", sbw_test_path("keep.npy"));
    double v[3] = {1, 2, 3};
    SBW_ASSERT_OK(sbw_npy_save_vector(path, v, 3, SBW_F64));
    sbw_npy_writer *w;
    SBW_ASSERT_OK(sbw_npy_create(&w, path, 5, 1, 1, SBW_F64));
    SBW_ASSERT_OK(sbw_npy_write_rows(w, v, 2, 1));
    sbw_npy_abort(w);
    sbw_mat m = {0};
    SBW_ASSERT_OK(sbw_npy_load(path, &m, NULL));
    assert_int_equal(m.rows, 3);
    SBW_ASSERT_CLOSE(m.data, v, 3, 0.0, 0.0);
    sbw_mat_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_f8_c),
        cmocka_unit_test(test_fixture_layouts),
        cmocka_unit_test(test_fixture_f32_reader),
        cmocka_unit_test(test_fixture_vector),
        cmocka_unit_test(test_fast_conversion),
        cmocka_unit_test(test_writer_matches_numpy_bytes),
        cmocka_unit_test(test_stream_roundtrip),
        cmocka_unit_test(test_f32_roundtrip_with_ld),
        cmocka_unit_test(test_bad_magic_and_version),
        cmocka_unit_test(test_bad_header_dict),
        cmocka_unit_test(test_header_tail),
        cmocka_unit_test(test_unsupported_dtypes_and_dims),
        cmocka_unit_test(test_payload_size),
        cmocka_unit_test(test_view_rows),
        cmocka_unit_test(test_pipe_reading),
        cmocka_unit_test(test_pipe_header_claims),
        cmocka_unit_test(test_writer_failures),
        cmocka_unit_test(test_abort_keeps_old_file),
    };
    return cmocka_run_group_tests_name("npy", tests, NULL, NULL);
}
