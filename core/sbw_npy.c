/* sbw_npy.c -- streamed .npy reading and writing: the reader (open,
 * rows, views, whole files) and the writer.  The header's bytes are
 * sbw_npy_hdr's (the format is described there), a .safetensors
 * tensor's description sbw_npy_safet's.  Reading and writing share this
 * file because their public names (sbw_npy_open, sbw_npy_create, ...) are
 * the module's own prefix (scripts/check-prefix.sh).
 */
#include "sbw_npy.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_npy_hdr.h"
#include "sbw_npy_safet.h"
#include "sbw_safet.h"
#include "sbw_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOST_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

struct sbw_npy_reader {
    int fd;
    bool own_fd;
    bool seekable;
    char *path;
    sbw_npy_info info;
    size_t next_row;
    unsigned char *stage; /* staging buffer for conversions, grown on demand */
    size_t stage_cap;
    unsigned char *whole;     /* Fortran-order payload from a pipe, read at open */
    const unsigned char *mem; /* a registered array's C-order payload (not owned) */
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
    if (got < 10 || memcmp(pre, SBW_NPY_HDR_MAGIC, SBW_NPY_HDR_MAGIC_LEN) != 0)
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
    if (*hlen > SBW_NPY_HDR_MAX)
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
    if (!st)
        st = sbw_npy_hdr_parse(text, hlen, r->path, &r->info);
    free(text);
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
    return sbw_npy_safet_info(spec, file, name, &r->info);
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

/* ---- arrays in memory, opened by name ----------------------------------- */

/* The registered arrays: a small fixed table under one lock.  An entry
 * holds the caller's pointer, never a copy. */
enum { MEM_SLOTS = 16 };
typedef struct mem_entry {
    char *name; /* NULL: a free slot */
    const void *data;
    size_t rows, cols;
    sbw_npy_dtype dtype;
    int ndim;
} mem_entry;
static mem_entry mem_table[MEM_SLOTS];
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;

/* The slot registered under name, or -1.  Call with mem_lock held. */
static int mem_find(const char *name)
{
    for (int i = 0; i < MEM_SLOTS; i++)
        if (mem_table[i].name && strcmp(mem_table[i].name, name) == 0)
            return i;
    return -1;
}

static int mem_check(const char *name, const void *data, sbw_npy_dtype dtype, size_t rows,
                     size_t cols, int ndim)
{
    size_t bytes;
    if (!name || !*name)
        return SBW_ERROR(SBW_EINVAL, "an array in memory needs a name");
    if (dtype != SBW_F64 && dtype != SBW_F32)
        return SBW_ERROR(SBW_EDTYPE, "%s: an array in memory is float64 or float32", name);
    if (ndim != 1 && ndim != 2)
        return SBW_ERROR(SBW_EDTYPE, "%s: %d dimensions; sbw reads 1-D and 2-D arrays", name, ndim);
    if (ndim == 1 && cols != 1)
        return SBW_ERROR(SBW_EINVAL, "%s: a 1-d array has one column", name);
    int st = sbw_mat_bytes(rows, cols, dtype == SBW_F64 ? 8 : 4, &bytes);
    if (!st && bytes && !data)
        st = SBW_ERROR(SBW_EINVAL, "%s: no data for %zu x %zu values", name, rows, cols);
    return st;
}

int sbw_npy_mem_add(const char *name, const void *data, sbw_npy_dtype dtype, size_t rows,
                    size_t cols, int ndim)
{
    int st = mem_check(name, data, dtype, rows, cols, ndim);
    if (st)
        return st;
    char *copy = strdup(name);
    if (!copy)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    pthread_mutex_lock(&mem_lock);
    int slot = mem_find(name);
    for (int i = 0; slot < 0 && i < MEM_SLOTS; i++)
        if (!mem_table[i].name) {
            mem_table[i] = (mem_entry){copy, data, rows, cols, dtype, ndim};
            copy = NULL;
            break;
        }
    pthread_mutex_unlock(&mem_lock);
    if (copy) {
        free(copy);
        return slot >= 0
                   ? SBW_ERROR(SBW_EINVAL, "%s: an array of that name is registered", name)
                   : SBW_ERROR(SBW_ENOMEM, "%s: %d arrays are registered already", name, MEM_SLOTS);
    }
    return SBW_OK;
}

int sbw_npy_mem_remove(const char *name)
{
    pthread_mutex_lock(&mem_lock);
    int slot = name ? mem_find(name) : -1;
    char *old = slot >= 0 ? mem_table[slot].name : NULL;
    if (slot >= 0)
        mem_table[slot] = (mem_entry){0};
    pthread_mutex_unlock(&mem_lock);
    free(old);
    return slot >= 0 ? SBW_OK
                     : SBW_ERROR(SBW_EINVAL, "%s: no array of that name is registered",
                                 name ? name : "(null)");
}

/* A registered array as r's payload: *found false when path names none. */
static int open_mem(sbw_npy_reader *r, const char *path, bool *found)
{
    pthread_mutex_lock(&mem_lock);
    int slot = mem_find(path);
    mem_entry e = slot >= 0 ? mem_table[slot] : (mem_entry){0};
    pthread_mutex_unlock(&mem_lock);
    *found = slot >= 0;
    if (!*found)
        return SBW_OK;
    if (!(r->path = strdup(path)))
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    size_t isz = e.dtype == SBW_F64 ? 8 : 4;
    r->mem = e.data ? e.data : (const void *)"";
    r->info = (sbw_npy_info){.dtype = e.dtype,
                             .itemsize = isz,
                             .ndim = e.ndim,
                             .rows = e.rows,
                             .cols = e.cols,
                             .data_bytes = e.rows * e.cols * isz};
    snprintf(r->info.descr, sizeof r->info.descr, "%c%c%zu", HOST_LITTLE ? '<' : '>', 'f', isz);
    return SBW_OK;
}

int sbw_npy_open(sbw_npy_reader **out, const char *path)
{
    *out = NULL;
    sbw_npy_reader *r = calloc(1, sizeof *r);
    if (!r)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    r->fd = -1;
    bool mem = false;
    int st = open_mem(r, path, &mem);
    st = st || mem ? st : open_any(r, path);
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
bool sbw_npy_reader_seekable(const sbw_npy_reader *r) { return r->seekable || r->whole || r->mem; }
bool sbw_npy_reader_in_memory(const sbw_npy_reader *r) { return r->mem != NULL; }

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

/* One stored item as a double: byte order, float32/16 and bfloat16
 * converted exactly.  The naive twin of convert_rows' fast paths, and the
 * path of every layout they do not take. */
/* One stored float32 item, in either byte order, as the float itself (a
 * signalling NaN kept as stored, as a row copy keeps it). */
static float load_f32(const unsigned char *p, bool swap)
{
    unsigned char b[4];
    for (size_t k = 0; k < 4; k++)
        b[k] = swap ? p[3 - k] : p[k];
    float f;
    memcpy(&f, b, 4);
    return f;
}

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
    return (double)load_f32(b, false); /* b is in this machine's order */
}

/* Rows [0, nr) of raw (item strides rs, cs; items as in) as doubles into
 * dst, row i at dst + i*ld.  Native float32 and float64 rows stored
 * contiguously (cs = 1) are converted a row at a time in a loop the
 * compiler vectorizes (a 20,000 x 10,000 float32 file spent half of
 * sbw-rank --method randomized's time item by item); every other layout
 * goes item by item through load_item, the naive twin, whose values the
 * fast path equals bit for bit (test_npy: test_fast_conversion). */
static void convert_rows(const sbw_npy_info *in, const unsigned char *raw, size_t rs, size_t cs,
                         size_t nr, double *dst, size_t ld)
{
    size_t m = in->cols, isz = in->itemsize;
    bool row_major = cs == 1 && !in->swap;
    for (size_t i = 0; i < nr; i++) {
        const unsigned char *row = raw + i * rs * isz;
        double *d = dst + i * ld;
        if (row_major && in->dtype == SBW_F32) {
            for (size_t j = 0; j < m; j++) {
                float f;
                memcpy(&f, row + 4 * j, 4);
                d[j] = (double)f;
            }
        } else if (row_major && in->dtype == SBW_F64) {
            memcpy(d, row, 8 * m);
        } else {
            for (size_t j = 0; j < m; j++)
                d[j] = load_item(row + j * cs * isz, isz, in->swap, in->dtype);
        }
    }
}

/* convert_rows into floats (a float64 item rounded to nearest): native
 * float32 rows copied, other float32 items through load_f32 (bits kept,
 * as the copy keeps them), every other layout through load_item. */
static void convert_rows_f32(const sbw_npy_info *in, const unsigned char *raw, size_t rs, size_t cs,
                             size_t nr, float *dst, size_t ld)
{
    size_t m = in->cols, isz = in->itemsize;
    for (size_t i = 0; i < nr; i++) {
        const unsigned char *row = raw + i * rs * isz;
        float *d = dst + i * ld;
        if (cs == 1 && !in->swap && in->dtype == SBW_F32)
            memcpy(d, row, 4 * m);
        else if (in->dtype == SBW_F32)
            for (size_t j = 0; j < m; j++)
                d[j] = load_f32(row + j * cs * isz, in->swap);
        else
            for (size_t j = 0; j < m; j++)
                d[j] = (float)load_item(row + j * cs * isz, isz, in->swap, in->dtype);
    }
}

/* Raw items of rows [row0, row0 + nr) into r->stage.  *rs, *cs are the item
 * strides of (i, j) in the returned buffer. */
static int fetch_raw(sbw_npy_reader *r, size_t nr, const unsigned char **raw, size_t *rs,
                     size_t *cs)
{
    const sbw_npy_info *in = &r->info;
    size_t bytes = nr * in->cols * in->itemsize, got;
    if (r->mem) {
        *raw = r->mem + r->next_row * in->cols * in->itemsize;
        *rs = in->cols;
        *cs = 1;
        return SBW_OK;
    }
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
    if (r->mem) {
        memcpy(dst, r->mem + r->next_row * in->cols * 8, bytes);
        return SBW_OK;
    }
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
    bool stream = !r->seekable && !r->whole && !r->mem && !r->info.safetensors;
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
        size_t rs, cs;
        st = fetch_raw(r, nr, &raw, &rs, &cs);
        if (!st)
            convert_rows(&r->info, raw, rs, cs, nr, dst, ld);
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
    size_t rs, cs;
    st = fetch_raw(r, nr, &raw, &rs, &cs);
    if (!st) {
        convert_rows_f32(&r->info, raw, rs, cs, nr, dst, ld);
        r->next_row += nr;
    }
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
    if (r->seekable || r->whole || r->mem) {
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

/* Opens path, reads all of it into m (an sbw_mat_f32 when f32, else an
 * sbw_mat: sbw_npy_read_all or _f32, m untouched on failure), copies the
 * header into *info when given, closes. */
static int load(const char *path, bool f32, void *m, sbw_npy_info *info)
{
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, path);
    if (st)
        return st;
    st = f32 ? sbw_npy_read_all_f32(r, m) : sbw_npy_read_all(r, m);
    if (!st && info)
        *info = *sbw_npy_reader_info(r);
    sbw_npy_close(r);
    return st;
}

int sbw_npy_load(const char *path, sbw_mat *m, sbw_npy_info *info)
{
    return load(path, false, m, info);
}

int sbw_npy_load_f32(const char *path, sbw_mat_f32 *m, sbw_npy_info *info)
{
    return load(path, true, m, info);
}

/* ---- writing ------------------------------------------------------------ */

/* The header (sbw_npy_hdr_format), written first. */
static int write_header(sbw_npy_writer *w, int ndim)
{
    unsigned char buf[SBW_NPY_HDR_CAP];
    size_t n = sbw_npy_hdr_format(w->rows, w->cols, ndim, w->dtype, buf);
    return sbw_file_write(&w->file, buf, n);
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
