/* sbw_safet.c -- .safetensors headers (see sbw_safet.h).
 * Reference: https://github.com/huggingface/safetensors (README, "Format"). */
#include "sbw_safet.h"

#include "sbw_error.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- dtypes ------------------------------------------------------------- */

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {{"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
              {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
              {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};

static size_t dtype_size(const char *name)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return dtypes[i].size;
    return 0;
}

/* ---- one entry ---------------------------------------------------------- */

static int bad_entry(const char *path, const char *name, const char *what)
{
    return SBW_ERROR(SBW_EFORMAT, "%s: bad safetensors header: tensor '%s': %s", path, name, what);
}

/* A JSON integer in [0, SIZE_MAX] into *out. */
static bool get_size(const json_t *v, size_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (size_t)json_integer_value(v);
    return true;
}

static int parse_dtype(const json_t *obj, const char *path, sbw_safet_tensor *t)
{
    const json_t *d = json_object_get(obj, "dtype");
    if (!json_is_string(d))
        return bad_entry(path, t->name, "\"dtype\" is missing or not a string");
    const char *s = json_string_value(d);
    t->itemsize = dtype_size(s);
    if (t->itemsize == 0) {
        char what[96];
        snprintf(what, sizeof what, "unknown dtype \"%.40s\"", s);
        return bad_entry(path, t->name, what);
    }
    snprintf(t->dtype, sizeof t->dtype, "%s", s);
    return SBW_OK;
}

/* The shape, and its byte count (items x itemsize) in *bytes. */
static int parse_shape(const json_t *obj, const char *path, sbw_safet_tensor *t, size_t *bytes)
{
    const json_t *a = json_object_get(obj, "shape");
    if (!json_is_array(a))
        return bad_entry(path, t->name, "\"shape\" is missing or not an array");
    if (json_array_size(a) > SBW_SAFET_MAX_DIM)
        return bad_entry(path, t->name, "more than 16 dimensions");
    t->ndim = (int)json_array_size(a);
    size_t n = t->itemsize;
    for (int i = 0; i < t->ndim; i++) {
        if (!get_size(json_array_get(a, (size_t)i), &t->shape[i]))
            return bad_entry(path, t->name, "a shape entry is not a non-negative integer");
        if (t->shape[i] != 0 && n > SIZE_MAX / t->shape[i])
            return bad_entry(path, t->name, "the shape overflows the address space");
        n *= t->shape[i];
    }
    *bytes = n;
    return SBW_OK;
}

static int parse_offsets(const json_t *obj, const char *path, size_t data_len, size_t bytes,
                         sbw_safet_tensor *t)
{
    const json_t *a = json_object_get(obj, "data_offsets");
    if (!json_is_array(a) || json_array_size(a) != 2 ||
        !get_size(json_array_get(a, 0), &t->begin) || !get_size(json_array_get(a, 1), &t->end))
        return bad_entry(path, t->name,
                         "\"data_offsets\" is missing or not two non-negative integers");
    if (t->begin > t->end || t->end > data_len)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header: tensor '%s': data_offsets [%zu, %zu] lie "
                         "outside the %zu-byte data section",
                         path, t->name, t->begin, t->end, data_len);
    if (t->end - t->begin != bytes)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header: tensor '%s': data_offsets [%zu, %zu] hold "
                         "%zu bytes, its dtype and shape need %zu",
                         path, t->name, t->begin, t->end, t->end - t->begin, bytes);
    return SBW_OK;
}

static int parse_entry(const char *key, const json_t *obj, const char *path, size_t data_len,
                       sbw_safet_tensor *t)
{
    t->name = strdup(key);
    if (!t->name)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", path);
    if (!json_is_object(obj))
        return bad_entry(path, key, "its value is not an object");
    size_t bytes = 0;
    int st = parse_dtype(obj, path, t);
    st = st ? st : parse_shape(obj, path, t, &bytes);
    return st ? st : parse_offsets(obj, path, data_len, bytes, t);
}

/* ---- the tiling of the data section ------------------------------------- */

static int by_begin(const void *a, const void *b)
{
    const sbw_safet_tensor *x = *(const sbw_safet_tensor *const *)a;
    const sbw_safet_tensor *y = *(const sbw_safet_tensor *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static int check_gap(const char *path, size_t at, size_t next, const char *after,
                     const char *before)
{
    if (next < at)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header: tensors '%s' and '%s' overlap (byte %zu "
                         "of the data section is in both)",
                         path, after, before, next);
    if (next > at)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header: bytes [%zu, %zu) of the data section "
                         "(before tensor '%s') belong to no tensor",
                         path, at, next, before);
    return SBW_OK;
}

static int check_tiling(const sbw_safet_header *h, const char *path)
{
    /* an array of pointers to tensors: sizeof *order is a pointer's size */
    // NOLINTNEXTLINE(bugprone-sizeof-expression)
    const sbw_safet_tensor **order = malloc((h->count ? h->count : 1) * sizeof *order);
    if (!order)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < h->count; i++)
        order[i] = &h->t[i];
    // NOLINTNEXTLINE(bugprone-sizeof-expression)
    qsort(order, h->count, sizeof *order, by_begin);
    size_t at = 0;
    int st = SBW_OK;
    for (size_t i = 0; i < h->count && !st; i++) {
        st = check_gap(path, at, order[i]->begin, i ? order[i - 1]->name : "", order[i]->name);
        at = order[i]->end;
    }
    if (!st && at != h->data_len)
        st = SBW_ERROR(SBW_EFORMAT,
                       "%s: bad safetensors header: the last %zu bytes of the data section "
                       "belong to no tensor",
                       path, h->data_len - at);
    free(order);
    return st;
}

/* ---- the header --------------------------------------------------------- */

static int check_length(const unsigned char *buf, size_t len, uint64_t file_size, const char *path,
                        sbw_safet_header *h)
{
    if (file_size < 8 || len < 8)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: not a safetensors file: %llu bytes, shorter than the 8-byte "
                         "header length",
                         path, (unsigned long long)file_size);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | buf[i];
    if (n > SBW_SAFET_MAX_HEADER)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header length %llu (more than the format's "
                         "100 MB limit: not a safetensors file?)",
                         path, (unsigned long long)n);
    if (n > file_size - 8)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header length %llu: the file has only %llu bytes "
                         "after it (truncated?)",
                         path, (unsigned long long)n, (unsigned long long)(file_size - 8));
    if (len - 8 < n)
        return SBW_ERROR(SBW_EINVAL, "%s: %zu bytes given, the header needs %llu", path, len,
                         (unsigned long long)(n + 8));
    h->header_len = (size_t)n;
    h->data_offset = 8 + (size_t)n;
    h->data_len = (size_t)(file_size - 8 - n);
    return SBW_OK;
}

static int load_json(const unsigned char *buf, const char *path, const sbw_safet_header *h,
                     json_t **root)
{
    json_error_t err;
    *root = json_loadb((const char *)buf + 8, h->header_len, JSON_REJECT_DUPLICATES, &err);
    if (!*root)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: bad safetensors header: invalid JSON: %s (line %d, column %d)", path,
                         err.text, err.line, err.column);
    if (!json_is_object(*root))
        return SBW_ERROR(SBW_EFORMAT, "%s: bad safetensors header: the JSON is not an object",
                         path);
    return SBW_OK;
}

static int parse_entries(const json_t *root, const char *path, sbw_safet_header *h)
{
    size_t n = json_object_size(root);
    h->t = calloc(n ? n : 1, sizeof *h->t);
    if (!h->t)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", path);
    const char *key;
    json_t *val;
    int st = SBW_OK;
    json_object_foreach((json_t *)root, key, val)
    {
        if (st)
            break;
        if (strcmp(key, "__metadata__") == 0) {
            if (!json_is_object(val))
                st = SBW_ERROR(SBW_EFORMAT,
                               "%s: bad safetensors header: \"__metadata__\" is not an object",
                               path);
            continue;
        }
        st = parse_entry(key, val, path, h->data_len, &h->t[h->count++]);
    }
    return st;
}

int sbw_safet_parse(const unsigned char *buf, size_t len, uint64_t file_size, const char *path,
                    sbw_safet_header *h)
{
    *h = (sbw_safet_header){0};
    json_t *root = NULL;
    int st = check_length(buf, len, file_size, path, h);
    st = st ? st : load_json(buf, path, h, &root);
    st = st ? st : parse_entries(root, path, h);
    st = st ? st : check_tiling(h, path);
    json_decref(root);
    if (st)
        sbw_safet_header_free(h);
    return st;
}

/* Reads n bytes at the start of f into buf (SBW_EIO on a short read). */
static int read_start(FILE *f, unsigned char *buf, size_t n, const char *path)
{
    if (fread(buf, 1, n, f) != n)
        return SBW_ERROR(SBW_EIO, "%s: read failed%s%s", path, ferror(f) ? ": " : " (short read)",
                         ferror(f) ? strerror(errno) : "");
    return SBW_OK;
}

static int load_open(FILE *f, const char *path, sbw_safet_header *h)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0)
        return SBW_ERROR(SBW_EIO, "%s: stat failed: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return SBW_ERROR(SBW_EIO, "%s: a .safetensors file must be a regular file (not a pipe)",
                         path);
    size_t size = (size_t)sb.st_size, have = size < 8 ? size : 8;
    unsigned char pre[8] = {0};
    int st = read_start(f, pre, have, path);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = (n << 8) | pre[i];
    if (st || size < 8 || n > SBW_SAFET_MAX_HEADER || n > size - 8)
        return st ? st : sbw_safet_parse(pre, have, size, path, h); /* it says what is wrong */
    unsigned char *buf = malloc(8 + (size_t)n);
    if (!buf)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", path);
    memcpy(buf, pre, 8);
    st = read_start(f, buf + 8, (size_t)n, path);
    st = st ? st : sbw_safet_parse(buf, 8 + (size_t)n, size, path, h);
    free(buf);
    return st;
}

int sbw_safet_load(const char *path, sbw_safet_header *h)
{
    *h = (sbw_safet_header){0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s", path, strerror(errno));
    int st = load_open(f, path, h);
    fclose(f);
    return st;
}

void sbw_safet_header_free(sbw_safet_header *h)
{
    for (size_t i = 0; h->t && i < h->count; i++)
        free(h->t[i].name);
    free(h->t);
    *h = (sbw_safet_header){0};
}

const sbw_safet_tensor *sbw_safet_find(const sbw_safet_header *h, const char *name)
{
    for (size_t i = 0; i < h->count; i++)
        if (strcmp(h->t[i].name, name) == 0)
            return &h->t[i];
    return NULL;
}

void sbw_safet_shape_str(const sbw_safet_tensor *t, char *buf, size_t cap)
{
    size_t at = 0;
    int n = snprintf(buf, cap, "[");
    for (int i = 0; i < t->ndim && n >= 0 && (at += (size_t)n) < cap; i++)
        n = snprintf(buf + at, cap - at, "%s%zu", i ? ", " : "", t->shape[i]);
    if (n >= 0 && (at += (size_t)n) < cap)
        n = snprintf(buf + at, cap - at, "]");
    if ((n < 0 || at + (size_t)n >= cap) && cap >= 4)
        memcpy(buf + cap - 4, "...", 4);
}

/* ---- names on the command line ------------------------------------------ */

#define SUFFIX ".safetensors"

bool sbw_safet_split(const char *spec, char *file, size_t cap, const char **name)
{
    const char *at = strstr(spec, SUFFIX ":");
    if (!at)
        return false;
    size_t n = (size_t)(at - spec) + strlen(SUFFIX);
    if (n + 1 > cap)
        return false;
    memcpy(file, spec, n);
    file[n] = '\0';
    *name = spec + n + 1;
    return true;
}

bool sbw_safet_is_file(const char *path)
{
    size_t n = strlen(path), s = strlen(SUFFIX);
    return n > s && strcmp(path + n - s, SUFFIX) == 0;
}

/* ---- half-precision conversions ----------------------------------------- */

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float sbw_safet_f16_to_f32(uint16_t bits)
{
    uint32_t sign = (uint32_t)(bits & 0x8000u) << 16;
    uint32_t exp = (bits >> 10) & 0x1fu, man = bits & 0x3ffu;
    if (exp == 0x1f) /* inf (man 0) or NaN: payload moves to the top */
        return from_bits(sign | 0x7f800000u | (man << 13));
    if (exp != 0) /* normal: rebias 15 -> 127 */
        return from_bits(sign | ((exp + 112u) << 23) | (man << 13));
    /* zero or subnormal: man x 2^-24, exact in float (man < 2^10) */
    float v = ldexpf((float)man, -24);
    return sign ? -v : v;
}

float sbw_safet_bf16_to_f32(uint16_t bits) { return from_bits((uint32_t)bits << 16); }
