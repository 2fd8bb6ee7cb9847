/* sbw_npy.c -- streamed .npy reading and writing.
 *
 * Format: "\x93NUMPY", major, minor, a little-endian header length (2 bytes
 * in version 1, 4 in versions 2 and 3), then a Python dict literal
 * {'descr': '<f8', 'fortran_order': False, 'shape': (r, c), } padded with
 * spaces and a final newline, then the payload.
 * Reference: numpy/lib/format.py (NEP 1).
 */
#include "sbw_npy.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_safet.h"
#include "sbw_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPY_MAGIC      "\x93NUMPY"
#define NPY_MAGIC_LEN  6
#define NPY_MAX_HEADER (1u << 20)
#define HOST_LITTLE    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

struct sbw_npy_reader {
    int fd;
    bool own_fd;
    bool seekable;
    char *path;
    sbw_npy_info info;
    size_t next_row;
    unsigned char *stage; /* staging buffer for conversions, grown on demand */
    size_t stage_cap;
    unsigned char *whole; /* Fortran-order payload from a pipe, read at open */
};

struct sbw_npy_writer {
    sbw_file file;
    size_t rows, cols, written;
    sbw_npy_dtype dtype;
    unsigned char *stage;
    size_t stage_cap;
};

const char *sbw_npy_dtype_name(sbw_npy_dtype t)
{
    switch (t) {
    case SBW_F32:
        return "float32";
    case SBW_F16:
        return "float16";
    case SBW_BF16:
        return "bfloat16";
    default:
        return "float64";
    }
}

/* ---- low-level reads ---------------------------------------------------- */

/* Reads up to n bytes, retrying short reads and EINTR; *got is the count
 * (less than n only at end of file).  SBW_EIO on a read error. */
static int read_full(int fd, void *buf, size_t n, size_t *got, const char *path)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = read(fd, (unsigned char *)buf + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return SBW_ERROR(SBW_EIO, "%s: read failed: %s", path, strerror(errno));
        if (k == 0)
            break;
        done += (size_t)k;
    }
    *got = done;
    return SBW_OK;
}

static int pread_full(int fd, void *buf, size_t n, size_t off, const char *path)
{
    size_t done = 0;
    while (done < n) {
        ssize_t k = pread(fd, (unsigned char *)buf + done, n - done, (off_t)(off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return SBW_ERROR(SBW_EIO, "%s: read failed: %s", path, strerror(errno));
        if (k == 0)
            return SBW_ERROR(SBW_EFORMAT, "%s: truncated: payload ends at byte %zu", path,
                             off + done);
        done += (size_t)k;
    }
    return SBW_OK;
}

static int grow(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return SBW_OK;
    unsigned char *p = realloc(*buf, need);
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate a %zu-byte read buffer", need);
    *buf = p;
    *cap = need;
    return SBW_OK;
}

/* ---- header dict parser ------------------------------------------------- */

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

/* ---- header validation -------------------------------------------------- */

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

static uint32_t le_u32(const unsigned char *b, size_t n)
{
    uint32_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = (v << 8) | b[i];
    return v;
}

static int read_preamble(sbw_npy_reader *r, size_t *hlen)
{
    unsigned char pre[12];
    size_t got;
    int st = read_full(r->fd, pre, 10, &got, r->path);
    if (st)
        return st;
    if (got < 10 || memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return SBW_ERROR(SBW_EFORMAT, "%s: not a .npy file (bad magic)", r->path);
    r->info.major = pre[6];
    r->info.minor = pre[7];
    if (pre[6] < 1 || pre[6] > 3)
        return SBW_ERROR(SBW_EFORMAT, "%s: unsupported .npy version %d.%d", r->path, pre[6],
                         pre[7]);
    size_t lenbytes = pre[6] == 1 ? 2 : 4;
    if (lenbytes == 4) {
        st = read_full(r->fd, pre + 10, 2, &got, r->path);
        if (st)
            return st;
        if (got < 2)
            return SBW_ERROR(SBW_EFORMAT, "%s: truncated .npy preamble", r->path);
    }
    *hlen = le_u32(pre + 8, lenbytes);
    r->info.data_offset = 8 + lenbytes + *hlen;
    if (*hlen > NPY_MAX_HEADER)
        return SBW_ERROR(SBW_EFORMAT, "%s: implausible .npy header length %zu", r->path, *hlen);
    return SBW_OK;
}

static int read_header(sbw_npy_reader *r)
{
    size_t hlen = 0, got = 0;
    int st = read_preamble(r, &hlen);
    if (st)
        return st;
    char *text = malloc(hlen + 1);
    if (!text)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", r->path);
    st = read_full(r->fd, text, hlen, &got, r->path);
    if (!st && got < hlen)
        st = SBW_ERROR(SBW_EFORMAT, "%s: truncated .npy header", r->path);
    header_fields h = {0};
    if (!st)
        st = parse_dict(text, hlen, r->path, &h);
    free(text);
    if (!st)
        st = set_dtype(&r->info, h.descr, r->path);
    if (!st)
        st = set_shape(&r->info, &h, r->path);
    return st;
}

static int check_payload_size(sbw_npy_reader *r)
{
    struct stat sb;
    if (fstat(r->fd, &sb) != 0)
        return SBW_ERROR(SBW_EIO, "%s: stat failed: %s", r->path, strerror(errno));
    size_t have = (size_t)sb.st_size - r->info.data_offset;
    if ((size_t)sb.st_size < r->info.data_offset || have < r->info.data_bytes)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: truncated: shape (%zu, %zu) of %s needs %zu payload bytes, "
                         "file has %zu",
                         r->path, r->info.rows, r->info.cols, r->info.descr, r->info.data_bytes,
                         (size_t)sb.st_size < r->info.data_offset ? 0 : have);
    if (have > r->info.data_bytes)
        return SBW_ERROR(SBW_EFORMAT, "%s: %zu bytes after the payload of shape (%zu, %zu)",
                         r->path, have - r->info.data_bytes, r->info.rows, r->info.cols);
    return SBW_OK;
}

/* After the last row of a stream: anything more is refused, as
 * check_payload_size refuses it in a regular file. */
static int check_stream_end(sbw_npy_reader *r)
{
    unsigned char extra[4096];
    size_t got = 0, total = 0;
    int st;
    do { /* count a little of what follows, for the message */
        st = read_full(r->fd, extra, sizeof extra, &got, r->path);
        total += got;
    } while (!st && got == sizeof extra && total < ((size_t)1 << 20));
    if (st || total == 0)
        return st;
    return SBW_ERROR(SBW_EFORMAT, "%s: %s%zu bytes after the payload of shape (%zu, %zu)", r->path,
                     total >= ((size_t)1 << 20) ? "at least " : "", total, r->info.rows,
                     r->info.cols);
}

/* A Fortran-order payload cannot be streamed by rows from a pipe: it is
 * buffered whole, the buffer grown as the bytes arrive (at most doubling),
 * so a header that claims gigabytes over a short stream fails at its
 * truncation having held about what was sent. */
static int slurp_payload(sbw_npy_reader *r)
{
    size_t need = r->info.data_bytes, have = 0, cap = 0, got = 0;
    int st = SBW_OK;
    do {
        size_t want = cap ? (cap < need - cap ? 2 * cap : need) : (need < 65536 ? need : 65536);
        st = grow(&r->whole, &cap, want ? want : 1);
        st = st ? st : read_full(r->fd, r->whole + have, want - have, &got, r->path);
        have += st ? 0 : got;
    } while (!st && have < need && have == cap);
    if (!st && have < need)
        st = SBW_ERROR(SBW_EFORMAT, "%s: truncated: payload ends after %zu of %zu bytes", r->path,
                       have, need);
    return st ? st : check_stream_end(r);
}

static int open_fd(sbw_npy_reader *r, const char *path)
{
    if (sbw_file_is_std(path)) {
        r->fd = STDIN_FILENO;
        r->path = strdup("<stdin>");
    } else {
        r->fd = open(path, O_RDONLY);
        r->own_fd = r->fd >= 0;
        r->path = strdup(path);
        if (r->fd < 0)
            return SBW_ERROR(SBW_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    if (!r->path)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    struct stat sb;
    if (fstat(r->fd, &sb) != 0)
        return SBW_ERROR(SBW_EIO, "%s: stat failed: %s", path, strerror(errno));
    r->seekable = S_ISREG(sb.st_mode);
    if (S_ISDIR(sb.st_mode))
        return SBW_ERROR(SBW_EIO, "%s: is a directory", path);
    return SBW_OK;
}

/* ---- a tensor of a .safetensors file ------------------------------------ */

static int safet_dtype(sbw_npy_info *in, const sbw_safet_tensor *t, const char *spec)
{
    static const struct {
        const char *name;
        sbw_npy_dtype dtype;
    } map[] = {{"F64", SBW_F64}, {"F32", SBW_F32}, {"F16", SBW_F16}, {"BF16", SBW_BF16}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(t->dtype, map[i].name) == 0) {
            in->dtype = map[i].dtype;
            memcpy(in->descr, map[i].name, strlen(map[i].name) + 1);
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EDTYPE,
                     "%s: unsupported dtype %s (sbw reads safetensors F32, F16, BF16 and F64)",
                     spec, t->dtype);
}

static int safet_info(sbw_npy_info *in, const sbw_safet_header *h, const sbw_safet_tensor *t,
                      const char *spec)
{
    char shape[96];
    sbw_safet_shape_str(t, shape, sizeof shape);
    int st = safet_dtype(in, t, spec);
    if (!st && (t->ndim == 0 || t->ndim > 2))
        st = SBW_ERROR(SBW_EDTYPE, "%s: %d-d tensor (shape %s) is not supported (need 1-d or 2-d)",
                       spec, t->ndim, shape);
    if (st)
        return st;
    in->itemsize = t->itemsize;
    in->swap = !HOST_LITTLE;
    in->ndim = t->ndim;
    in->rows = t->shape[0];
    in->cols = t->ndim == 2 ? t->shape[1] : 1;
    in->data_offset = h->data_offset + t->begin;
    in->data_bytes = t->end - t->begin;
    in->safetensors = true;
    return SBW_OK;
}

static int safet_missing(const sbw_safet_header *h, const char *file, const char *name)
{
    char list[160] = "";
    size_t at = 0;
    for (size_t i = 0; i < h->count && i < 4 && at < sizeof list; i++) {
        int n = snprintf(list + at, sizeof list - at, "%s'%.40s'", i ? ", " : "", h->t[i].name);
        at += n > 0 ? (size_t)n : 0;
    }
    return SBW_ERROR(SBW_EFORMAT,
                     "%s: no tensor named '%s' (it holds %zu: %s%s; sbw-info %s lists them)", file,
                     name, h->count, list, h->count > 4 ? ", ..." : "", file);
}

static int open_safet(sbw_npy_reader *r, const char *spec, const char *file, const char *name)
{
    int st = open_fd(r, file);
    if (st)
        return st;
    char *p = strdup(spec);
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    free(r->path);
    r->path = p;
    if (!r->seekable)
        return SBW_ERROR(SBW_EIO, "%s: a .safetensors file must be a regular file (not a pipe)",
                         file);
    if (!*name)
        return SBW_ERROR(SBW_EINVAL, "%s: no tensor name after ':' (FILE.safetensors:NAME)", spec);
    sbw_safet_header h;
    st = sbw_safet_load(file, &h);
    if (st)
        return st;
    const sbw_safet_tensor *t = sbw_safet_find(&h, name);
    st = t ? safet_info(&r->info, &h, t, spec) : safet_missing(&h, file, name);
    sbw_safet_header_free(&h);
    return st;
}

/* Opens a .npy file or a FILE.safetensors:NAME tensor. */
static int open_any(sbw_npy_reader *r, const char *path)
{
    char file[PATH_MAX];
    const char *name;
    if (sbw_safet_split(path, file, sizeof file, &name))
        return open_safet(r, path, file, name);
    if (sbw_safet_is_file(path))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: a .safetensors file holds named tensors: read one as %s:NAME "
                         "(sbw-info %s lists them)",
                         path, path, path);
    int st = open_fd(r, path);
    if (!st)
        st = read_header(r);
    if (!st && r->seekable)
        st = check_payload_size(r);
    return st;
}

int sbw_npy_open(sbw_npy_reader **out, const char *path)
{
    *out = NULL;
    sbw_npy_reader *r = calloc(1, sizeof *r);
    if (!r)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    r->fd = -1;
    int st = open_any(r, path);
    if (!st && !r->seekable && r->info.fortran)
        st = slurp_payload(r);
    if (st) {
        sbw_npy_close(r);
        return st;
    }
    if (r->seekable)
        posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    *out = r;
    return SBW_OK;
}

const sbw_npy_info *sbw_npy_reader_info(const sbw_npy_reader *r) { return &r->info; }
const char *sbw_npy_reader_path(const sbw_npy_reader *r) { return r->path; }
size_t sbw_npy_reader_row(const sbw_npy_reader *r) { return r->next_row; }
bool sbw_npy_reader_seekable(const sbw_npy_reader *r) { return r->seekable || r->whole; }

void sbw_npy_close(sbw_npy_reader *r)
{
    if (!r)
        return;
    if (r->own_fd)
        close(r->fd);
    free(r->path);
    free(r->stage);
    free(r->whole);
    free(r);
}

/* ---- row reading -------------------------------------------------------- */

static double load_item(const unsigned char *p, size_t itemsize, bool swap, sbw_npy_dtype dtype)
{
    unsigned char b[8] = {0};
    for (size_t k = 0; k < itemsize; k++)
        b[k] = swap ? p[itemsize - 1 - k] : p[k];
    if (itemsize == 8) {
        double d;
        memcpy(&d, b, 8);
        return d;
    }
    if (itemsize == 2) { /* safetensors F16 / BF16, converted exactly */
        uint16_t u;
        memcpy(&u, b, 2);
        return (double)(dtype == SBW_BF16 ? sbw_safet_bf16_to_f32(u) : sbw_safet_f16_to_f32(u));
    }
    float f;
    memcpy(&f, b, 4);
    return (double)f;
}

/* Raw items of rows [row0, row0 + nr) into r->stage.  *rs, *cs are the item
 * strides of (i, j) in the returned buffer. */
static int fetch_raw(sbw_npy_reader *r, size_t nr, const unsigned char **raw, size_t *rs,
                     size_t *cs)
{
    const sbw_npy_info *in = &r->info;
    size_t bytes = nr * in->cols * in->itemsize, got;
    if (r->whole) {
        *raw = r->whole + r->next_row * in->itemsize;
        *rs = 1;
        *cs = in->rows;
        return SBW_OK;
    }
    int st = grow(&r->stage, &r->stage_cap, bytes);
    if (st)
        return st;
    *raw = r->stage;
    *rs = in->fortran ? 1 : in->cols;
    *cs = in->fortran ? nr : 1;
    if (in->fortran) {
        for (size_t j = 0; j < in->cols && !st; j++)
            st = pread_full(r->fd, r->stage + j * nr * in->itemsize, nr * in->itemsize,
                            in->data_offset + (j * in->rows + r->next_row) * in->itemsize, r->path);
        return st;
    }
    if (r->seekable)
        return pread_full(r->fd, r->stage, bytes,
                          in->data_offset + r->next_row * in->cols * in->itemsize, r->path);
    st = read_full(r->fd, r->stage, bytes, &got, r->path);
    if (!st && got < bytes)
        st = SBW_ERROR(SBW_EFORMAT, "%s: truncated: stream ended in row %zu of %zu", r->path,
                       r->next_row + got / (in->cols * in->itemsize), in->rows);
    return st;
}

static int check_read(const sbw_npy_reader *r, size_t nr, size_t ld)
{
    if (nr > r->info.rows - r->next_row)
        return SBW_ERROR(SBW_EINVAL, "%s: read of %zu rows past row %zu of %zu", r->path, nr,
                         r->next_row, r->info.rows);
    if (ld < r->info.cols)
        return SBW_ERROR(SBW_EINVAL, "leading dimension %zu < %zu columns", ld, r->info.cols);
    return SBW_OK;
}

/* Fast path: native float64 C-order rows read straight into dst. */
static bool direct_ok(const sbw_npy_reader *r, size_t ld)
{
    const sbw_npy_info *in = &r->info;
    return in->dtype == SBW_F64 && !in->swap && !in->fortran && ld == in->cols && !r->whole;
}

static int read_direct(sbw_npy_reader *r, size_t nr, double *dst)
{
    const sbw_npy_info *in = &r->info;
    size_t bytes = nr * in->cols * 8, got;
    if (r->seekable)
        return pread_full(r->fd, dst, bytes, in->data_offset + r->next_row * in->cols * 8, r->path);
    int st = read_full(r->fd, dst, bytes, &got, r->path);
    if (!st && got < bytes)
        st = SBW_ERROR(SBW_EFORMAT, "%s: truncated: stream ended in row %zu of %zu", r->path,
                       r->next_row + got / (in->cols * 8), in->rows);
    return st;
}

/* A stream read to its last row must end there. */
static int check_rows_end(sbw_npy_reader *r)
{
    bool stream = !r->seekable && !r->whole && !r->info.safetensors;
    return stream && r->next_row == r->info.rows ? check_stream_end(r) : SBW_OK;
}

int sbw_npy_read_rows(sbw_npy_reader *r, double *dst, size_t nr, size_t ld)
{
    int st = check_read(r, nr, ld);
    if (st || nr == 0)
        return st;
    if (direct_ok(r, ld)) {
        st = read_direct(r, nr, dst);
    } else {
        const unsigned char *raw;
        size_t rs, cs, isz = r->info.itemsize;
        st = fetch_raw(r, nr, &raw, &rs, &cs);
        for (size_t i = 0; i < nr && !st; i++)
            for (size_t j = 0; j < r->info.cols; j++)
                dst[i * ld + j] =
                    load_item(raw + (i * rs + j * cs) * isz, isz, r->info.swap, r->info.dtype);
    }
    if (!st)
        r->next_row += nr;
    return st ? st : check_rows_end(r);
}

int sbw_npy_read_rows_f32(sbw_npy_reader *r, float *dst, size_t nr, size_t ld)
{
    int st = check_read(r, nr, ld);
    if (st || nr == 0)
        return st;
    const unsigned char *raw;
    size_t rs, cs, isz = r->info.itemsize;
    st = fetch_raw(r, nr, &raw, &rs, &cs);
    for (size_t i = 0; i < nr && !st; i++)
        for (size_t j = 0; j < r->info.cols; j++)
            dst[i * ld + j] =
                (float)load_item(raw + (i * rs + j * cs) * isz, isz, r->info.swap, r->info.dtype);
    if (!st)
        r->next_row += nr;
    return st ? st : check_rows_end(r);
}

static int skip_stream(sbw_npy_reader *r, size_t nrows)
{
    size_t rowbytes = r->info.cols * r->info.itemsize, got;
    size_t chunk = nrows < 64 ? nrows : 64;
    int st = grow(&r->stage, &r->stage_cap, chunk * rowbytes);
    while (!st && nrows > 0) {
        size_t k = nrows < chunk ? nrows : chunk;
        st = read_full(r->fd, r->stage, k * rowbytes, &got, r->path);
        if (!st && got < k * rowbytes)
            st = SBW_ERROR(SBW_EFORMAT, "%s: truncated: stream ended in row %zu of %zu", r->path,
                           r->next_row, r->info.rows);
        if (!st) {
            r->next_row += k;
            nrows -= k;
        }
    }
    return st ? st : check_rows_end(r);
}

bool sbw_npy_view_rows(const sbw_npy_reader *r, size_t row, size_t nr, sbw_npy_view *v)
{
    const sbw_npy_info *in = &r->info;
    bool plain = r->seekable && !r->whole && in->dtype == SBW_F64 && !in->swap && !in->fortran &&
                 in->data_offset % sizeof(double) == 0;
    if (!plain || nr == 0 || row > in->rows || nr > in->rows - row)
        return false;
    long page = sysconf(_SC_PAGESIZE);
    size_t off = in->data_offset + row * in->cols * sizeof(double);
    size_t start = page > 0 ? off / (size_t)page * (size_t)page : off;
    size_t len = off - start + nr * in->cols * sizeof(double);
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, r->fd, (off_t)start);
    if (map == MAP_FAILED)
        return false;
    int slot = sbw_signal_map_add(map, len, r->path); /* SIGBUS there: one line, exit 1 */
    if (!slot) {
        munmap(map, len);
        return false;
    }
    const double *base = map; /* off - start is a multiple of 8: both terms are */
    *v = (sbw_npy_view){
        .map = map, .len = len, .rows = base + (off - start) / sizeof(double), .slot = slot};
    sbw_signal_test_point("map");
    return true;
}

void sbw_npy_view_release(sbw_npy_view *v)
{
    sbw_signal_map_remove(v->slot);
    if (v->map)
        munmap(v->map, v->len);
    *v = (sbw_npy_view){0};
}

int sbw_npy_seek_row(sbw_npy_reader *r, size_t row)
{
    if (row > r->info.rows)
        return SBW_ERROR(SBW_EINVAL, "%s: row %zu is past the last row (%zu rows)", r->path, row,
                         r->info.rows);
    if (r->seekable || r->whole) {
        r->next_row = row;
        return SBW_OK;
    }
    if (row < r->next_row)
        return SBW_ERROR(SBW_EINVAL, "%s: cannot move backwards in a pipe", r->path);
    return skip_stream(r, row - r->next_row);
}

/* ---- whole-file loading ------------------------------------------------- */

/* What sbw_npy_read_all and _f32 fill: exactly one of d and f is set. */
typedef struct read_all_dst {
    sbw_mat *d;
    sbw_mat_f32 *f;
} read_all_dst;

static int all_reserve(read_all_dst m, size_t need, size_t limit)
{
    return m.d ? sbw_mat_reserve(m.d, need, limit) : sbw_mat_f32_reserve(m.f, need, limit);
}

/* Rows [done, rows of m) from r into m. */
static int all_read(sbw_npy_reader *r, read_all_dst m, size_t done)
{
    size_t cols = r->info.cols;
    return m.d ? sbw_npy_read_rows(r, m.d->data + done * cols, m.d->rows - done, cols)
               : sbw_npy_read_rows_f32(r, m.f->data + done * cols, m.f->rows - done, cols);
}

/* The one body of sbw_npy_read_all and _f32: a file's rows at once, a
 * stream's as they arrive (sbw_mat_stream_rows, then sbw_mat_reserve), so
 * a header's claim is never allocated before its data is there. */
static int read_all(sbw_npy_reader *r, read_all_dst m)
{
    size_t n = r->info.rows - r->next_row, cols = r->info.cols, done = 0;
    size_t size = m.d ? sizeof(double) : sizeof(float);
    size_t cap = sbw_npy_reader_seekable(r) ? n : sbw_mat_stream_rows(n, cols, size);
    int st = m.d ? sbw_mat_alloc(m.d, cap, cols) : sbw_mat_f32_alloc(m.f, cap, cols);
    if (st)
        return st;
    while (!st && done < n) {
        st = all_reserve(m, done + 1, n);
        st = st ? st : all_read(r, m, done);
        done = m.d ? m.d->rows : m.f->rows;
    }
    if (!st && n == 0) /* no rows read: a stream must still end here */
        st = check_rows_end(r);
    if (st && m.d)
        sbw_mat_free(m.d);
    else if (st)
        sbw_mat_f32_free(m.f);
    return st;
}

int sbw_npy_read_all(sbw_npy_reader *r, sbw_mat *m)
{
    sbw_mat tmp = {0};
    int st = read_all(r, (read_all_dst){.d = &tmp});
    if (!st)
        *m = tmp;
    return st;
}

int sbw_npy_read_all_f32(sbw_npy_reader *r, sbw_mat_f32 *m)
{
    sbw_mat_f32 tmp = {0};
    int st = read_all(r, (read_all_dst){.f = &tmp});
    if (!st)
        *m = tmp;
    return st;
}

int sbw_npy_load(const char *path, sbw_mat *m, sbw_npy_info *info)
{
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, path);
    if (st)
        return st;
    st = sbw_npy_read_all(r, m);
    if (!st && info)
        *info = *sbw_npy_reader_info(r);
    sbw_npy_close(r);
    return st;
}

int sbw_npy_load_f32(const char *path, sbw_mat_f32 *m, sbw_npy_info *info)
{
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, path);
    if (st)
        return st;
    st = sbw_npy_read_all_f32(r, m);
    if (!st && info)
        *info = *sbw_npy_reader_info(r);
    sbw_npy_close(r);
    return st;
}

/* ---- writing ------------------------------------------------------------ */

/* The header: preamble + dict padded with spaces and '\n' to a multiple of
 * 64 bytes.  Version 1 unless the dict needs more than 65535 bytes. */
static int write_header(sbw_npy_writer *w, int ndim)
{
    char dict[160], shape[64];
    if (ndim == 1)
        snprintf(shape, sizeof shape, "(%zu,)", w->rows);
    else
        snprintf(shape, sizeof shape, "(%zu, %zu)", w->rows, w->cols);
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': %s, }",
                     HOST_LITTLE ? '<' : '>', w->dtype == SBW_F64 ? "f8" : "f4", shape);
    size_t pre = 10, dictlen = (size_t)n;
    size_t total = (pre + dictlen + 1 + 63) / 64 * 64;
    unsigned char buf[256];
    memcpy(buf, NPY_MAGIC, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    size_t hlen = total - pre;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + pre, dict, dictlen);
    memset(buf + pre + dictlen, ' ', total - pre - dictlen - 1);
    buf[total - 1] = '\n';
    return sbw_file_write(&w->file, buf, total);
}

int sbw_npy_create(sbw_npy_writer **out, const char *path, size_t rows, size_t cols, int ndim,
                   sbw_npy_dtype dtype)
{
    *out = NULL;
    size_t bytes = 0;
    if (ndim != 1 && ndim != 2)
        return SBW_ERROR(SBW_EINVAL, "%s: ndim must be 1 or 2", path);
    if (ndim == 1 && cols != 1)
        return SBW_ERROR(SBW_EINVAL, "%s: a 1-d array has one column", path);
    int st = sbw_mat_bytes(rows, cols, dtype == SBW_F64 ? 8 : 4, &bytes);
    if (st)
        return st;
    sbw_npy_writer *w = calloc(1, sizeof *w);
    if (!w)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    *w = (sbw_npy_writer){.rows = rows, .cols = cols, .dtype = dtype};
    st = sbw_file_create(&w->file, path);
    if (st) {
        free(w);
        return st;
    }
    st = write_header(w, ndim);
    if (st) {
        sbw_npy_abort(w);
        return st;
    }
    *out = w;
    return SBW_OK;
}

static int check_write(const sbw_npy_writer *w, size_t nr, size_t ld)
{
    if (nr > w->rows - w->written)
        return SBW_ERROR(SBW_EINVAL, "%s: writing %zu rows past row %zu of %zu", w->file.path, nr,
                         w->written, w->rows);
    if (ld < w->cols)
        return SBW_ERROR(SBW_EINVAL, "leading dimension %zu < %zu columns", ld, w->cols);
    return SBW_OK;
}

int sbw_npy_write_rows(sbw_npy_writer *w, const double *src, size_t nr, size_t ld)
{
    int st = check_write(w, nr, ld);
    if (st)
        return st;
    if (w->dtype == SBW_F64 && ld == w->cols) {
        st = sbw_file_write(&w->file, src, nr * w->cols * sizeof(double));
    } else if (w->dtype == SBW_F64) {
        for (size_t i = 0; i < nr && !st; i++)
            st = sbw_file_write(&w->file, src + i * ld, w->cols * sizeof(double));
    } else {
        st = grow(&w->stage, &w->stage_cap, w->cols * sizeof(float));
        float *row = (float *)(void *)w->stage;
        for (size_t i = 0; i < nr && !st; i++) {
            for (size_t j = 0; j < w->cols; j++)
                row[j] = (float)src[i * ld + j];
            st = sbw_file_write(&w->file, row, w->cols * sizeof(float));
        }
    }
    if (!st)
        w->written += nr;
    return st;
}

int sbw_npy_write_rows_f32(sbw_npy_writer *w, const float *src, size_t nr, size_t ld)
{
    int st = check_write(w, nr, ld);
    if (st)
        return st;
    if (w->dtype == SBW_F32) {
        for (size_t i = 0; i < nr && !st; i++)
            st = sbw_file_write(&w->file, src + i * ld, w->cols * sizeof(float));
    } else {
        st = grow(&w->stage, &w->stage_cap, w->cols * sizeof(double));
        double *row = (double *)(void *)w->stage;
        for (size_t i = 0; i < nr && !st; i++) {
            for (size_t j = 0; j < w->cols; j++)
                row[j] = (double)src[i * ld + j];
            st = sbw_file_write(&w->file, row, w->cols * sizeof(double));
        }
    }
    if (!st)
        w->written += nr;
    return st;
}

int sbw_npy_finish(sbw_npy_writer *w)
{
    int st = SBW_OK;
    if (w->written != w->rows) {
        st = SBW_ERROR(SBW_EINVAL, "%s: only %zu of %zu rows were written", w->file.path,
                       w->written, w->rows);
        sbw_file_abort(&w->file);
    } else {
        st = sbw_file_commit(&w->file);
    }
    free(w->stage);
    free(w);
    return st;
}

void sbw_npy_abort(sbw_npy_writer *w)
{
    if (!w)
        return;
    sbw_file_abort(&w->file);
    free(w->stage);
    free(w);
}

int sbw_npy_save(const char *path, const sbw_mat *m, sbw_npy_dtype dtype)
{
    sbw_npy_writer *w;
    int st = sbw_npy_create(&w, path, m->rows, m->cols, 2, dtype);
    if (st)
        return st;
    st = sbw_npy_write_rows(w, m->data, m->rows, m->ld);
    if (st) {
        sbw_npy_abort(w);
        return st;
    }
    return sbw_npy_finish(w);
}

int sbw_npy_save_f32(const char *path, const sbw_mat_f32 *m)
{
    sbw_npy_writer *w;
    int st = sbw_npy_create(&w, path, m->rows, m->cols, 2, SBW_F32);
    if (st)
        return st;
    st = sbw_npy_write_rows_f32(w, m->data, m->rows, m->ld);
    if (st) {
        sbw_npy_abort(w);
        return st;
    }
    return sbw_npy_finish(w);
}

int sbw_npy_save_vector(const char *path, const double *v, size_t n, sbw_npy_dtype dtype)
{
    sbw_npy_writer *w;
    int st = sbw_npy_create(&w, path, n, 1, 1, dtype);
    if (st)
        return st;
    st = sbw_npy_write_rows(w, v, n, 1);
    if (st) {
        sbw_npy_abort(w);
        return st;
    }
    return sbw_npy_finish(w);
}
