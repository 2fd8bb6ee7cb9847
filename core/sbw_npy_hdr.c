/* sbw_npy_hdr.c -- the .npy header dict parsed and validated, and the
 * header a writer puts first (sbw_npy_hdr.h). */
#include "sbw_npy_hdr.h"

#include "sbw_error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define HOST_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

typedef struct lexer {
    const char *p, *end;
    const char *path;
} lexer;

static int bad_header(const lexer *lx, const char *what)
{
    return SBW_ERROR(SBW_EFORMAT, "%s: bad .npy header: %s", lx->path, what);
}

static void skip_ws(lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\n'))
        lx->p++;
}

static bool accept(lexer *lx, char c)
{
    skip_ws(lx);
    if (lx->p < lx->end && *lx->p == c) {
        lx->p++;
        return true;
    }
    return false;
}

static int parse_string(lexer *lx, char *out, size_t cap)
{
    skip_ws(lx);
    if (lx->p >= lx->end || (*lx->p != '\'' && *lx->p != '"'))
        return bad_header(lx, "expected a quoted string");
    char q = *lx->p++;
    size_t n = 0;
    while (lx->p < lx->end && *lx->p != q) {
        if (n + 1 >= cap)
            return bad_header(lx, "string too long");
        out[n++] = *lx->p++;
    }
    if (lx->p >= lx->end)
        return bad_header(lx, "unterminated string");
    lx->p++;
    out[n] = '\0';
    return SBW_OK;
}

static int parse_bool(lexer *lx, bool *out)
{
    skip_ws(lx);
    size_t left = (size_t)(lx->end - lx->p);
    if (left >= 4 && memcmp(lx->p, "True", 4) == 0) {
        lx->p += 4;
        *out = true;
    } else if (left >= 5 && memcmp(lx->p, "False", 5) == 0) {
        lx->p += 5;
        *out = false;
    } else {
        return bad_header(lx, "fortran_order is not True or False");
    }
    return SBW_OK;
}

static int parse_dim(lexer *lx, size_t *out)
{
    skip_ws(lx);
    if (lx->p >= lx->end || *lx->p < '0' || *lx->p > '9')
        return bad_header(lx, "shape entry is not a non-negative integer");
    size_t v = 0;
    while (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9') {
        size_t dig = (size_t)(*lx->p++ - '0');
        if (v > (SIZE_MAX - dig) / 10)
            return bad_header(lx, "shape entry overflows");
        v = v * 10 + dig;
    }
    if (lx->p < lx->end && *lx->p == 'L')
        lx->p++;
    *out = v;
    return SBW_OK;
}

/* "(a, b)", "(n,)" or "()"; ndim counts entries (up to 32 are parsed). */
static int parse_shape(lexer *lx, size_t shape[2], int *ndim)
{
    if (!accept(lx, '('))
        return bad_header(lx, "shape is not a tuple");
    int n = 0;
    while (!accept(lx, ')')) {
        size_t d = 0;
        int st = parse_dim(lx, &d);
        if (st)
            return st;
        if (n < 2)
            shape[n] = d;
        if (++n > 32)
            return bad_header(lx, "too many dimensions");
        if (!accept(lx, ',')) {
            if (!accept(lx, ')'))
                return bad_header(lx, "shape tuple is not closed");
            break;
        }
    }
    *ndim = n;
    return SBW_OK;
}

typedef struct header_fields {
    char descr[32];
    bool fortran;
    size_t shape[2];
    int ndim;
} header_fields;

static int parse_entry(lexer *lx, header_fields *h, unsigned *seen)
{
    char key[32];
    int st = parse_string(lx, key, sizeof key);
    if (st)
        return st;
    if (!accept(lx, ':'))
        return bad_header(lx, "expected ':' after a key");
    if (strcmp(key, "descr") == 0) {
        *seen |= 1u;
        skip_ws(lx);
        if (lx->p < lx->end && *lx->p == '[')
            return SBW_ERROR(SBW_EDTYPE, "%s: structured dtypes are not supported", lx->path);
        return parse_string(lx, h->descr, sizeof h->descr);
    }
    if (strcmp(key, "fortran_order") == 0) {
        *seen |= 2u;
        return parse_bool(lx, &h->fortran);
    }
    if (strcmp(key, "shape") == 0) {
        *seen |= 4u;
        return parse_shape(lx, h->shape, &h->ndim);
    }
    return SBW_ERROR(SBW_EFORMAT, "%s: bad .npy header: unexpected key '%s'", lx->path, key);
}

/* After the dict's '}': only the format's padding, spaces and one final
 * '\n' (NumPy's reader rejects anything else, e.g. "{...} xyz"). */
static int check_tail(const lexer *lx)
{
    const char *q = lx->p;
    while (q < lx->end && *q == ' ')
        q++;
    if (q < lx->end && *q == '\n')
        q++;
    if (q != lx->end)
        return bad_header(lx, "junk after the closing '}'");
    return SBW_OK;
}

static int parse_dict(const char *text, size_t len, const char *path, header_fields *h)
{
    lexer lx = {.p = text, .end = text + len, .path = path};
    unsigned seen = 0;
    if (!accept(&lx, '{'))
        return bad_header(&lx, "not a dict");
    while (!accept(&lx, '}')) {
        int st = parse_entry(&lx, h, &seen);
        if (st)
            return st;
        if (!accept(&lx, ',')) {
            if (!accept(&lx, '}'))
                return bad_header(&lx, "expected ',' or '}'");
            break;
        }
    }
    if (seen != 7u)
        return bad_header(&lx, "missing descr, fortran_order or shape");
    return check_tail(&lx);
}

static int set_dtype(sbw_npy_info *info, const char *descr, const char *path)
{
    size_t n = strlen(descr);
    bool order_ok = n == 3 && strchr("<>=|", descr[0]);
    if (!order_ok || descr[1] != 'f' || (descr[2] != '4' && descr[2] != '8'))
        return SBW_ERROR(SBW_EDTYPE,
                         "%s: unsupported dtype '%s' (sbw reads float64 '<f8' and float32 "
                         "'<f4', either byte order)",
                         path, descr);
    bool big = descr[0] == '>';
    bool little = descr[0] == '<';
    memcpy(info->descr, descr, 4); /* 3 characters and the NUL (a copy gcc -O1 can see fits) */
    info->itemsize = descr[2] == '8' ? 8 : 4;
    info->dtype = descr[2] == '8' ? SBW_F64 : SBW_F32;
    info->swap = HOST_LITTLE ? big : little;
    return SBW_OK;
}

static int set_shape(sbw_npy_info *info, const header_fields *h, const char *path)
{
    if (h->ndim == 0 || h->ndim > 2)
        return SBW_ERROR(SBW_EDTYPE, "%s: %d-d arrays are not supported (need 1-d or 2-d)", path,
                         h->ndim);
    info->ndim = h->ndim;
    info->rows = h->shape[0];
    info->cols = h->ndim == 2 ? h->shape[1] : 1;
    info->fortran = h->fortran && h->ndim == 2;
    size_t bytes = 0;
    if (sbw_mat_bytes(info->rows, info->cols, info->itemsize, &bytes))
        return SBW_ERROR(SBW_EFORMAT, "%s: shape (%zu, %zu) overflows the address space", path,
                         info->rows, info->cols);
    info->data_bytes = bytes;
    return SBW_OK;
}

int sbw_npy_hdr_parse(const char *text, size_t len, const char *path, sbw_npy_info *info)
{
    header_fields h = {0};
    int st = parse_dict(text, len, path, &h);
    st = st ? st : set_dtype(info, h.descr, path);
    return st ? st : set_shape(info, &h, path);
}

size_t sbw_npy_hdr_format(size_t rows, size_t cols, int ndim, sbw_npy_dtype dtype,
                          unsigned char *buf)
{
    char dict[160], shape[64];
    if (ndim == 1)
        snprintf(shape, sizeof shape, "(%zu,)", rows);
    else
        snprintf(shape, sizeof shape, "(%zu, %zu)", rows, cols);
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': %s, }",
                     HOST_LITTLE ? '<' : '>', dtype == SBW_F64 ? "f8" : "f4", shape);
    size_t pre = 10, dictlen = (size_t)n;
    size_t total = (pre + dictlen + 1 + 63) / 64 * 64;
    memcpy(buf, SBW_NPY_HDR_MAGIC, SBW_NPY_HDR_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    size_t hlen = total - pre;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + pre, dict, dictlen);
    memset(buf + pre + dictlen, ' ', total - pre - dictlen - 1);
    buf[total - 1] = '\n';
    return total;
}
