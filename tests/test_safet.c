/* test_safet.c -- .safetensors: the exact F16/BF16 conversions over every
 * bit pattern (against the IEEE formulas, and the compiler's _Float16 where
 * it has one), the header parser on well-formed and malformed buffers (each
 * malformation its own reason), and tensors read through sbw_npy_open /
 * sbw_check_open as every tool reads them.  The files are written here:
 * an 8-byte little-endian length, the JSON header, the raw data. */
#include "sbw_safet.h"
#include "sbw_test.h"

#include "sbw_check.h"
#include "sbw_error.h"
#include "sbw_npy.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing test files ---------------------------------------------------- */

/* buf = 8-byte length of json, json, data[0..ndata) into out (malloc'd). */
static unsigned char *st_bytes(const char *json, const void *data, size_t ndata, size_t *len)
{
    size_t n = strlen(json);
    *len = 8 + n + ndata;
    unsigned char *b = malloc(*len ? *len : 1);
    assert_non_null(b);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)n >> (8 * i));
    /* the header's JSON is n bytes without a NUL, as the format stores it */
    // NOLINTNEXTLINE(bugprone-not-null-terminated-result)
    memcpy(b + 8, json, n);
    if (ndata)
        memcpy(b + 8 + n, data, ndata);
    return b;
}

static const char *st_write(const char *name, const char *json, const void *data, size_t ndata)
{
    size_t len;
    unsigned char *b = st_bytes(json, data, ndata, &len);
    const char *path = sbw_test_path(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(b);
    return path;
}

/* Parses json + ndata zero bytes; returns the status, the header freed. */
static int parse_json(const char *json, size_t ndata)
{
    unsigned char zero[64] = {0};
    size_t len;
    unsigned char *b = st_bytes(json, zero, ndata, &len);
    sbw_safet_header h;
    int st = sbw_safet_parse(b, len, len, "t.safetensors", &h);
    if (!st)
        sbw_safet_header_free(&h);
    free(b);
    return st;
}

/* ---- conversions ----------------------------------------------------------- */

/* The value of a binary floating-point pattern with ebits exponent bits and
 * mbits fraction bits, by the IEEE 754 formulas (NaN for an all-ones
 * exponent with a non-zero fraction). */
static double ieee_value(unsigned bits, int ebits, int mbits)
{
    unsigned sign = bits >> (ebits + mbits), e = (bits >> mbits) & ((1u << ebits) - 1);
    unsigned m = bits & ((1u << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1;
    double v;
    if (e == (1u << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - mbits);
    else
        v = ldexp(1.0 + ldexp((double)m, -mbits), (int)e - bias);
    return sign ? -v : v;
}

static void check_pattern(float got, double want, unsigned bits, const char *what)
{
    if (isnan(want)) {
        if (!isnan(got))
            fail_msg("%s 0x%04x: got %a, want NaN", what, bits, (double)got);
        return;
    }
    if ((double)got != want || !signbit(got) != !signbit(want))
        fail_msg("%s 0x%04x: got %a, want %a", what, bits, (double)got, want);
}

static void test_f16_every_pattern(void **state)
{
    (void)state;
    for (unsigned b = 0; b < 65536; b++)
        check_pattern(sbw_safet_f16_to_f32((uint16_t)b), ieee_value(b, 5, 10), b, "F16");
#ifdef __FLT16_MANT_DIG__
    for (unsigned b = 0; b < 65536; b++) { /* the compiler's own conversion */
        uint16_t u = (uint16_t)b;
        __extension__ _Float16 h; /* a GCC/Clang extension: no pedantic warning */
        memcpy(&h, &u, 2);
        check_pattern(sbw_safet_f16_to_f32(u), (double)h, b, "F16 vs _Float16");
    }
#endif
    /* the classes by name */
    SBW_ASSERT_EQ(sbw_safet_f16_to_f32(0x3c00), 1.0f);
    SBW_ASSERT_EQ(sbw_safet_f16_to_f32(0x0001), 0x1p-24f); /* smallest subnormal */
    SBW_ASSERT_EQ(sbw_safet_f16_to_f32(0x03ff), 1023 * 0x1p-24f);
    SBW_ASSERT_EQ(sbw_safet_f16_to_f32(0x7bff), 65504.0f);
    assert_true(signbit(sbw_safet_f16_to_f32(0x8000)) && sbw_safet_f16_to_f32(0x8000) == 0);
    SBW_ASSERT_EQ(sbw_safet_f16_to_f32(0xfc00), -INFINITY);
    assert_true(isnan(sbw_safet_f16_to_f32(0x7e00)) && isnan(sbw_safet_f16_to_f32(0xfc01)));
}

static void test_bf16_every_pattern(void **state)
{
    (void)state;
    for (unsigned b = 0; b < 65536; b++)
        check_pattern(sbw_safet_bf16_to_f32((uint16_t)b), ieee_value(b, 8, 7), b, "BF16");
    SBW_ASSERT_EQ(sbw_safet_bf16_to_f32(0x3f80), 1.0f);
    SBW_ASSERT_EQ(sbw_safet_bf16_to_f32(0x0001), 0x1p-133f); /* smallest subnormal */
    SBW_ASSERT_EQ(sbw_safet_bf16_to_f32(0x7f80), INFINITY);
    assert_true(isnan(sbw_safet_bf16_to_f32(0xffc0)));
}

/* ---- the parser ------------------------------------------------------------ */

static void test_parse_good(void **state)
{
    (void)state;
    const char *json =
        "{\"__metadata__\": {\"format\": \"pt\"},"
        " \"b\": {\"dtype\": \"BF16\", \"shape\": [3], \"data_offsets\": [24, 30]},"
        " \"a\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 24]},"
        " \"s\": {\"dtype\": \"I64\", \"shape\": [], \"data_offsets\": [30, 38]},"
        " \"e\": {\"dtype\": \"F16\", \"shape\": [0, 4], \"data_offsets\": [38, 38]}}"
        "    ";
    unsigned char zero[38] = {0};
    size_t len;
    unsigned char *b = st_bytes(json, zero, sizeof zero, &len);
    sbw_safet_header h;
    SBW_ASSERT_OK(sbw_safet_parse(b, len, len, "g.safetensors", &h));
    SBW_ASSERT_EQ(h.count, 4);
    SBW_ASSERT_EQ(h.data_offset, 8 + strlen(json));
    SBW_ASSERT_EQ(h.data_len, 38);
    const sbw_safet_tensor *a = sbw_safet_find(&h, "a"), *s = sbw_safet_find(&h, "s");
    assert_non_null(a);
    assert_non_null(s);
    assert_null(sbw_safet_find(&h, "c"));
    assert_string_equal(a->dtype, "F32");
    SBW_ASSERT_EQ(a->ndim, 2);
    SBW_ASSERT_EQ(a->shape[0], 2);
    SBW_ASSERT_EQ(a->shape[1], 3);
    SBW_ASSERT_EQ(a->begin, 0);
    SBW_ASSERT_EQ(a->end, 24);
    SBW_ASSERT_EQ(s->ndim, 0);
    assert_string_equal(h.t[0].name, "b"); /* the header's order */
    char shape[32];
    sbw_safet_shape_str(a, shape, sizeof shape);
    assert_string_equal(shape, "[2, 3]");
    sbw_safet_shape_str(s, shape, sizeof shape);
    assert_string_equal(shape, "[]");
    sbw_safet_header_free(&h);
    free(b);
}

typedef struct bad_case {
    const char *json;
    size_t ndata;
    const char *reason; /* a piece of the one-line reason */
} bad_case;

static void test_parse_malformed(void **state)
{
    (void)state;
    const bad_case cases[] = {
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}", 8,
         "invalid JSON"},
        {"[1, 2]", 0, "not an object"},
        {"{\"a\": 1}", 0, "not an object"},
        {"{\"a\": {\"dtype\": \"F33\", \"shape\": [2], \"data_offsets\": [0, 8]}}", 8,
         "unknown dtype \"F33\""},
        {"{\"a\": {\"dtype\": 4, \"shape\": [2], \"data_offsets\": [0, 8]}}", 8, "dtype"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [-2], \"data_offsets\": [0, 8]}}", 8,
         "non-negative"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2.0], \"data_offsets\": [0, 8]}}", 8,
         "non-negative"},
        {"{\"a\": {\"dtype\": \"F32\", \"data_offsets\": [0, 8]}}", 8, "\"shape\""},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 16]}}", 8,
         "outside the 8-byte data section"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 0]}}", 8, "outside"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0]}}", 8, "data_offsets"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}", 8, "need 12"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
         " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [4, 12]}}",
         12, "overlap"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", 8,
         "belong to no tensor"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}", 8,
         "last 4 bytes"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
         " \"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
         8, "duplicate"},
        {"{\"__metadata__\": 3}", 0, "__metadata__"},
        {"{\"a\": {\"dtype\": \"F32\", \"shape\": [4611686018427387904, 4], "
         "\"data_offsets\": [0, 8]}}",
         8, "overflows"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int st = parse_json(cases[i].json, cases[i].ndata);
        if (st != SBW_EFORMAT || !strstr(sbw_error_reason(), cases[i].reason) ||
            !strstr(sbw_error_reason(), "t.safetensors: ") || strchr(sbw_error_reason(), '\n'))
            fail_msg("case %zu (%s): status %d, reason '%s', want '%s'", i, cases[i].json, st,
                     sbw_error_reason(), cases[i].reason);
    }
}

/* The length: too short a file, a length past the end, an absurd length. */
static void test_parse_bad_length(void **state)
{
    (void)state;
    const unsigned char four[4] = {1, 0, 0, 0};
    sbw_safet_header h;
    SBW_ASSERT_EQ(sbw_safet_parse(four, 4, 4, "t.safetensors", &h), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "shorter than the 8-byte"));
    size_t len;
    unsigned char *b = st_bytes("{}", NULL, 0, &len);
    b[0] = 200; /* 200 header bytes in a 10-byte file */
    SBW_ASSERT_EQ(sbw_safet_parse(b, len, len, "t.safetensors", &h), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "bad safetensors header length 200"));
    b[7] = 0x40; /* about 4.6e18 */
    SBW_ASSERT_EQ(sbw_safet_parse(b, len, len, "t.safetensors", &h), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "100 MB"));
    b[0] = 2;
    b[7] = 0;
    SBW_ASSERT_OK(sbw_safet_parse(b, len, len, "t.safetensors", &h)); /* "{}": no tensors */
    SBW_ASSERT_EQ(h.count, 0);
    sbw_safet_header_free(&h);
    free(b);
}

static void test_split(void **state)
{
    (void)state;
    char file[64];
    const char *name = NULL;
    assert_true(sbw_safet_split("d/m.safetensors:lm_head.weight", file, sizeof file, &name));
    assert_string_equal(file, "d/m.safetensors");
    assert_string_equal(name, "lm_head.weight");
    assert_true(sbw_safet_split("m.safetensors:a:b", file, sizeof file, &name));
    assert_string_equal(name, "a:b");
    assert_false(sbw_safet_split("m.npy", file, sizeof file, &name));
    assert_false(sbw_safet_split("m.safetensors", file, sizeof file, &name));
    assert_false(sbw_safet_split("m.safetensors:x", file, 4, &name)); /* does not fit */
    assert_true(sbw_safet_is_file("m.safetensors"));
    assert_false(sbw_safet_is_file(".safetensors"));
    assert_false(sbw_safet_is_file("m.safetensors:x"));
}

/* ---- tensors read as every tool reads them ---------------------------------- */

static void test_read_tensors(void **state)
{
    (void)state;
    /* W: F32 2 x 3; h: F16 [5] (1, -2, smallest subnormal, -0, 65504);
     * g: BF16 2 x 2 (1, -0.5, 3, smallest normal); d: F64 [1] */
    unsigned char data[64] = {0};
    const float w[6] = {1, -2, 0.25f, 3.5f, -1e-3f, 7};
    const uint16_t h[5] = {0x3c00, 0xc000, 0x0001, 0x8000, 0x7bff};
    const uint16_t g[4] = {0x3f80, 0xbf00, 0x4040, 0x0080};
    const double d = -0.1;
    memcpy(data, w, 24); /* this machine is little-endian, as the format */
    memcpy(data + 24, h, 10);
    memcpy(data + 34, g, 8);
    memcpy(data + 42, &d, 8);
    const char *json =
        "{\"W\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 24]},"
        " \"h\": {\"dtype\": \"F16\", \"shape\": [5], \"data_offsets\": [24, 34]},"
        " \"g\": {\"dtype\": \"BF16\", \"shape\": [2, 2], \"data_offsets\": [34, 42]},"
        " \"d\": {\"dtype\": \"F64\", \"shape\": [1, 1], \"data_offsets\": [42, 50]},"
        " \"i\": {\"dtype\": \"I32\", \"shape\": [1, 1], \"data_offsets\": [50, 54]},"
        " \"t\": {\"dtype\": \"F32\", \"shape\": [1, 1, 1], \"data_offsets\": [54, 58]}}";
    const char *path = st_write("r.safetensors", json, data, 58);
    char spec[512];
    sbw_mat m = {0};
    sbw_npy_info in;
    snprintf(spec, sizeof spec, "%s:W", path);
    SBW_ASSERT_OK(sbw_npy_load(spec, &m, &in));
    double want_w[6];
    for (int i = 0; i < 6; i++)
        want_w[i] = (double)w[i];
    SBW_ASSERT_CLOSE(m.data, want_w, 6, 0, 0);
    SBW_ASSERT_EQ(in.rows, 2);
    SBW_ASSERT_EQ(in.cols, 3);
    SBW_ASSERT_EQ(in.dtype, SBW_F32);
    assert_true(in.safetensors);
    sbw_mat_free(&m);
    snprintf(spec, sizeof spec, "%s:h", path);
    SBW_ASSERT_OK(sbw_npy_load(spec, &m, &in));
    const double want_h[5] = {1, -2, 0x1p-24, -0.0, 65504};
    SBW_ASSERT_CLOSE(m.data, want_h, 5, 0, 0);
    assert_true(signbit(m.data[3]));
    SBW_ASSERT_EQ(in.ndim, 1);
    SBW_ASSERT_EQ(in.dtype, SBW_F16);
    SBW_ASSERT_EQ(sbw_check_eps(in.dtype), 0x1p-10);
    sbw_mat_free(&m);
    snprintf(spec, sizeof spec, "%s:g", path);
    sbw_mat_f32 mf = {0};
    SBW_ASSERT_OK(sbw_npy_load_f32(spec, &mf, &in));
    const float want_g[4] = {1, -0.5f, 3, 0x1p-126f};
    for (int i = 0; i < 4; i++)
        SBW_ASSERT_EQ(mf.data[i], want_g[i]);
    SBW_ASSERT_EQ(in.dtype, SBW_BF16);
    assert_string_equal(sbw_npy_dtype_name(in.dtype), "bfloat16");
    sbw_mat_f32_free(&mf);
    snprintf(spec, sizeof spec, "%s:d", path);
    SBW_ASSERT_OK(sbw_npy_load(spec, &m, &in));
    SBW_ASSERT_EQ(m.data[0], -0.1);
    sbw_mat_free(&m);
    /* the checker: a 1-D tensor is not a matrix; the errors of the rest */
    sbw_npy_reader *r = NULL;
    snprintf(spec, sizeof spec, "%s:h", path);
    SBW_ASSERT_EQ(sbw_check_open(&r, spec, SBW_SHAPE_MATRIX), SBW_ESHAPE);
    snprintf(spec, sizeof spec, "%s:i", path);
    SBW_ASSERT_EQ(sbw_check_open(&r, spec, SBW_SHAPE_MATRIX), SBW_EDTYPE);
    assert_non_null(strstr(sbw_error_reason(), "unsupported dtype I32"));
    snprintf(spec, sizeof spec, "%s:t", path);
    SBW_ASSERT_EQ(sbw_check_open(&r, spec, SBW_SHAPE_MATRIX), SBW_EDTYPE);
    assert_non_null(strstr(sbw_error_reason(), "3-d tensor (shape [1, 1, 1])"));
    snprintf(spec, sizeof spec, "%s:nope", path);
    SBW_ASSERT_EQ(sbw_check_open(&r, spec, SBW_SHAPE_MATRIX), SBW_EFORMAT);
    assert_non_null(strstr(sbw_error_reason(), "no tensor named 'nope' (it holds 6: 'W', 'h'"));
    snprintf(spec, sizeof spec, "%s:", path);
    SBW_ASSERT_EQ(sbw_check_open(&r, spec, SBW_SHAPE_MATRIX), SBW_EINVAL);
    SBW_ASSERT_EQ(sbw_check_open(&r, path, SBW_SHAPE_MATRIX), SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), ":NAME"));
    assert_null(r);
}

/* Row-by-row reads and seeks of a tensor that is not first in the file. */
static void test_read_rows_seek(void **state)
{
    (void)state;
    uint16_t data[2 + 12];
    data[0] = data[1] = 0;
    for (int i = 0; i < 12; i++)
        data[2 + i] = (uint16_t)(0x3c00 + i); /* 1, 1 + 2^-10, ... */
    const char *json =
        "{\"z\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [0, 4]},"
        " \"A\": {\"dtype\": \"F16\", \"shape\": [4, 3], \"data_offsets\": [4, 28]}}";
    const char *path = st_write("rows.safetensors", json, data, sizeof data);
    char spec[512];
    snprintf(spec, sizeof spec, "%s:A", path);
    sbw_npy_reader *r = NULL;
    double row[3];
    SBW_ASSERT_OK(sbw_check_open(&r, spec, SBW_SHAPE_MATRIX));
    assert_true(sbw_npy_reader_seekable(r));
    SBW_ASSERT_OK(sbw_npy_seek_row(r, 2));
    SBW_ASSERT_OK(sbw_npy_read_rows(r, row, 1, 3));
    for (int j = 0; j < 3; j++)
        SBW_ASSERT_EQ(row[j], 1 + (6 + j) * 0x1p-10);
    assert_string_equal(sbw_npy_reader_path(r), spec);
    sbw_npy_close(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_every_pattern), cmocka_unit_test(test_bf16_every_pattern),
        cmocka_unit_test(test_parse_good),        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_parse_bad_length),  cmocka_unit_test(test_split),
        cmocka_unit_test(test_read_tensors),      cmocka_unit_test(test_read_rows_seek),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
