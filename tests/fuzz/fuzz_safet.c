/* fuzz_safet.c -- the .safetensors reader on fuzzed files: the header
 * (core/sbw_safet: length, JSON by Jansson, dtypes, shapes, offsets, the
 * tiling of the data section) parsed from the whole buffer and from a
 * buffer cut short, loaded from a file, and each of its first tensors
 * opened as FILE.safetensors:NAME through core/sbw_npy and read as
 * float64 and float32 (F16/BF16 converted); every pair of input bytes is
 * also converted as F16 and BF16 and compared with a plain oracle.
 *
 * Properties: a failure leaves a reason and a zeroed header; a header
 * parsed from a buffer and loaded from the file agree; every tensor lies
 * inside the data section with end - begin = items x itemsize; a tensor
 * that opens reads every row, and its float32 read is the float64 one
 * rounded; the conversions are exact.
 */
#include "fuzz_util.h"

#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_safet.h"

#include <math.h>

#define CAP (1u << 12)

static double a64[CAP];
static float a32[CAP];

/* binary16 by its definition: (-1)^s 2^(e-15) (1 + m/1024), subnormals
 * 2^-14 m/1024. */
static double f16_oracle(uint16_t u)
{
    int s = u >> 15, e = (u >> 10) & 31, m = u & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

/* bfloat16 is the top half of a binary32. */
static double bf16_oracle(uint16_t u)
{
    int s = u >> 15, e = (u >> 7) & 255, m = u & 127;
    double v = e == 0 ? ldexp(m, -133) : e == 255 ? (m ? NAN : INFINITY) : ldexp(128 + m, e - 134);
    return s ? -v : v;
}

static void check_convert(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i + 1 < size && i < 64; i += 2) {
        uint16_t u = (uint16_t)(data[i] | data[i + 1] << 8);
        double h = (double)sbw_safet_f16_to_f32(u), b = (double)sbw_safet_bf16_to_f32(u);
        double ho = f16_oracle(u), bo = bf16_oracle(u);
        FUZZ_REQUIRE(isnan(ho) ? isnan(h) : h == ho && signbit(h) == signbit(ho));
        FUZZ_REQUIRE(isnan(bo) ? isnan(b) : b == bo && signbit(b) == signbit(bo));
    }
}

static void check_header(const sbw_safet_header *h, size_t size)
{
    FUZZ_REQUIRE(h->data_offset == 8 + h->header_len && h->data_offset + h->data_len == size);
    for (size_t i = 0; i < h->count; i++) {
        const sbw_safet_tensor *t = &h->t[i];
        size_t items = 1;
        for (int k = 0; k < t->ndim; k++)
            items *= t->shape[k];
        FUZZ_REQUIRE(t->begin <= t->end && t->end <= h->data_len);
        FUZZ_REQUIRE(t->end - t->begin == items * t->itemsize);
        FUZZ_REQUIRE(sbw_safet_find(h, t->name) != NULL);
        char shape[24];
        sbw_safet_shape_str(t, shape, sizeof shape);
        FUZZ_REQUIRE(strlen(shape) < sizeof shape);
    }
}

/* FILE.safetensors:NAME through the .npy reader, every row read. */
static void read_tensor(const char *file, const char *name)
{
    char spec[1024];
    if ((size_t)snprintf(spec, sizeof spec, "%s:%s", file, name) >= sizeof spec)
        return;
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, spec);
    if (st) {
        FUZZ_REQUIRE(r == NULL && sbw_error_reason()[0] != '\0');
        return;
    }
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    FUZZ_REQUIRE(in->data_bytes == in->rows * in->cols * in->itemsize);
    if (in->cols > 0 && in->rows <= CAP / in->cols) {
        FUZZ_REQUIRE(sbw_npy_read_rows(r, a64, in->rows, in->cols) == SBW_OK);
        FUZZ_REQUIRE(sbw_npy_seek_row(r, 0) == SBW_OK);
        FUZZ_REQUIRE(sbw_npy_read_rows_f32(r, a32, in->rows, in->cols) == SBW_OK);
        for (size_t k = 0; k < in->rows * in->cols; k++) {
            float f = (float)a64[k];
            FUZZ_REQUIRE(isnan(f) ? isnan(a32[k]) : fuzz_bits32(f) == fuzz_bits32(a32[k]));
        }
    }
    sbw_npy_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_convert(data, size);
    sbw_safet_header h, g;
    int st = sbw_safet_parse(data, size, size, "in.safetensors", &h);
    if (st)
        FUZZ_REQUIRE(h.count == 0 && h.t == NULL && sbw_error_reason()[0] != '\0');
    else
        check_header(&h, size);
    /* a buffer shorter than the header says (a copy of exactly that many
     * bytes, so a read past it is caught): refused, never read past */
    unsigned char *half = malloc(size / 2 ? size / 2 : 1);
    FUZZ_REQUIRE(half != NULL);
    memcpy(half, data, size / 2);
    if (sbw_safet_parse(half, size / 2, size, "in.safetensors", &g) == SBW_OK)
        sbw_safet_header_free(&g);
    free(half);
    char path[512];
    fuzz_file("in.safetensors", data, size, path, sizeof path);
    int lt = sbw_safet_load(path, &g);
    FUZZ_REQUIRE((lt == SBW_OK) == (st == SBW_OK));
    if (!lt) {
        FUZZ_REQUIRE(g.count == h.count);
        for (size_t i = 0; i < g.count && i < 4; i++)
            read_tensor(path, g.t[i].name);
        sbw_safet_header_free(&g);
    }
    sbw_safet_header_free(&h);
    return 0;
}
