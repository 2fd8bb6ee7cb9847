/* sbw_npy.h -- NumPy .npy files: read versions 1-3, write version 1 (2 when
 * the header needs it), float64 and float32, both byte orders read, C and
 * Fortran order read, C order written, 1-D and 2-D shapes.
 *
 * Reading is streamed: sbw_npy_read_rows() hands out the next block of
 * rows, converted to double or float, so a matrix larger than RAM (or one
 * arriving through a pipe) is walked block by block with memory for one
 * block.  Regular files are read with pread() and can be repositioned with
 * sbw_npy_seek_row(); a Fortran-order file from a pipe is buffered whole
 * (it cannot be streamed by rows).  Writing is streamed too, through
 * sbw_file (temporary + rename for regular files, "-" for stdout).
 *
 * A 1-D array of n items reads as an n x 1 matrix (info.ndim == 1).
 *
 * A tensor of a .safetensors file, named FILE.safetensors:NAME, opens here
 * too (sbw_safet.h parses the header): F64, F32, F16 and BF16, 1-D or 2-D,
 * read by rows like a little-endian C-order .npy payload, F16/BF16 converted
 * exactly.  So every tool that reads a matrix reads one.
 */
#ifndef SBW_NPY_H
#define SBW_NPY_H

#include "sbw_mat.h"

#include <stdbool.h>
#include <stddef.h>

/* SBW_F16 and SBW_BF16 come only from .safetensors tensors (read, never
 * written); they are read as float, and their eps is the format's own. */
typedef enum sbw_npy_dtype { SBW_F64 = 0, SBW_F32 = 1, SBW_F16 = 2, SBW_BF16 = 3 } sbw_npy_dtype;

typedef struct sbw_npy_info {
    int major, minor;    /* format version */
    char descr[8];       /* as written: "<f8", ">f4", ...; "F32", "BF16", ... */
    sbw_npy_dtype dtype; /* SBW_F64 or SBW_F32 (or a safetensors' F16, BF16) */
    size_t itemsize;     /* 8, 4 (or 2) */
    bool swap;           /* stored byte order differs from this machine's */
    bool fortran;        /* column-major payload */
    int ndim;            /* 1 or 2 */
    size_t rows, cols;   /* 2-D: the shape; 1-D (n,): n x 1 */
    size_t data_offset;  /* bytes before the payload */
    size_t data_bytes;   /* rows * cols * itemsize */
    bool safetensors;    /* a tensor of a .safetensors file (major = minor = 0) */
} sbw_npy_info;

typedef struct sbw_npy_reader sbw_npy_reader;
typedef struct sbw_npy_writer sbw_npy_writer;

/* "float64" / "float32" / "float16" / "bfloat16" */
const char *sbw_npy_dtype_name(sbw_npy_dtype t);

/* Opens path ("-" for stdin) and parses and validates the header; for a
 * regular file also checks that the payload has exactly rows*cols*itemsize
 * bytes.  path may be FILE.safetensors:NAME (a regular file), whose header
 * sbw_safet_parse validates; a bare FILE.safetensors is refused with the
 * hint to name a tensor.  Errors: SBW_EIO (cannot open/read), SBW_EFORMAT
 * (bad magic, header, shape, size; a malformed safetensors header; no
 * tensor of that name), SBW_EDTYPE (dtype other than f4/f8 -- or F64, F32,
 * F16, BF16 -- 0-d or >2-d), SBW_ENOMEM.  Every reason starts with the
 * path.  *r is NULL on failure. */
int sbw_npy_open(sbw_npy_reader **r, const char *path);

/* The parsed header of an open reader (valid until sbw_npy_close). */
const sbw_npy_info *sbw_npy_reader_info(const sbw_npy_reader *r);

/* The path the reader was opened with. */
const char *sbw_npy_reader_path(const sbw_npy_reader *r);

/* Reads the next nr rows into dst (nr x cols, leading dimension ld >= cols),
 * converting to double (or float).  Errors: SBW_EINVAL (nr beyond the last
 * row, ld < cols), SBW_EFORMAT (payload ends early: truncated; or bytes
 * after the payload of a stream), SBW_EIO.  On failure: after SBW_EINVAL
 * nothing has changed; after any other error dst may hold part of the rows
 * (discard them) and the reader, whose stream may have been consumed past
 * its recorded row, is good only for sbw_npy_close. */
int sbw_npy_read_rows(sbw_npy_reader *r, double *dst, size_t nr, size_t ld);
int sbw_npy_read_rows_f32(sbw_npy_reader *r, float *dst, size_t nr, size_t ld);

/* Index of the next row sbw_npy_read_rows will return. */
size_t sbw_npy_reader_row(const sbw_npy_reader *r);

/* True when the reader can move backwards (a regular file, or a Fortran-
 * order payload buffered whole): tools that need a second pass over their
 * input check this first instead of failing at the end of the first. */
bool sbw_npy_reader_seekable(const sbw_npy_reader *r);

/* Moves to row (0 <= row <= rows).  Regular files only; a pipe that is
 * asked to move backwards gives SBW_EINVAL (forward moves skip data).  On
 * failure: SBW_EINVAL changes nothing; a forward skip that fails
 * (SBW_EIO, SBW_EFORMAT) leaves the reader good only for sbw_npy_close. */
int sbw_npy_seek_row(sbw_npy_reader *r, size_t row);

/* A read-only view of rows [row, row + nr) mapped from the page cache
 * instead of copied (mmap): rows points at the first row, leading
 * dimension cols. */
typedef struct sbw_npy_view {
    void *map;
    size_t len;
    const double *rows;
    int slot; /* its entry in sbw_signal's table of mapped views */
} sbw_npy_view;

/* Maps rows [row, row + nr) of a regular file whose payload is native-
 * endian C-order float64 into *v; false (v untouched, nothing recorded)
 * when the file is not of that kind or mmap fails, and the caller reads
 * instead.  Does not move the reader, which must outlive the view.  A file
 * that shrinks while the view lives raises SIGBUS on reading: the handler
 * (sbw_signal.h) prints "TOOL: FILE: truncated while reading ..." and
 * exits 1.  Release with sbw_npy_view_release. */
bool sbw_npy_view_rows(const sbw_npy_reader *r, size_t row, size_t nr, sbw_npy_view *v);
void sbw_npy_view_release(sbw_npy_view *v);

/* Closes and frees; NULL is a no-op. */
void sbw_npy_close(sbw_npy_reader *r);

/* Arrays in memory, opened by name (the Python binding, python/sbw): while
 * an array is registered under name, sbw_npy_open(name) -- and so every
 * reader of a tool's input (sbw_check_open, sbw_logp_open, the argmax and
 * bound readers) -- reads it instead of a file, through the same row
 * readers, conversions, checks and messages (which name it as they would
 * name a file).  data is rows x cols items of dtype (SBW_F64 or SBW_F32),
 * C order, this machine's byte order; ndim 1 means shape (rows,) and cols
 * 1.  The table holds the caller's pointer, not a copy: data must stay
 * valid and unchanged until sbw_npy_mem_remove and until every reader
 * opened on it is closed; readers are then seekable and reopenable
 * (sbw_npy_reader_in_memory).  At most 16 names at once.  Tools register
 * nothing, so a path on their command line is always a file.
 * Errors: SBW_EINVAL (an empty name, a name already registered, data NULL
 * for a non-empty array, ndim 1 with cols != 1), SBW_EDTYPE (another
 * dtype, ndim not 1 or 2), SBW_ENOMEM (the table is full), sbw_mat_bytes'
 * overflow.  Nothing is registered on failure. */
int sbw_npy_mem_add(const char *name, const void *data, sbw_npy_dtype dtype, size_t rows,
                    size_t cols, int ndim);

/* Forgets name (its readers must be closed already).  SBW_EINVAL when no
 * array of that name is registered. */
int sbw_npy_mem_remove(const char *name);

/* True when r reads a registered array (sbw_npy_mem_add). */
bool sbw_npy_reader_in_memory(const sbw_npy_reader *r);

/* The rows from the reader's position to the end as a new matrix (caller
 * frees with sbw_mat_free / sbw_mat_f32_free; *m untouched on failure).
 * From a stream (a pipe) the matrix grows as the rows arrive, so a header
 * that claims more than is sent fails at the truncation without having
 * allocated its claim; from a regular file (whose size open checked) it
 * is allocated at once (the growth rule: sbw_mat_reserve).  A stream is
 * held to its end also with no rows to read (bytes after an empty payload:
 * SBW_EFORMAT).  Errors: sbw_mat_alloc's and sbw_mat_grow's (including the
 * memory preflight), sbw_npy_read_rows'. */
int sbw_npy_read_all(sbw_npy_reader *r, sbw_mat *m);
int sbw_npy_read_all_f32(sbw_npy_reader *r, sbw_mat_f32 *m);

/* Whole-file helpers: a new rows x cols matrix (caller frees with
 * sbw_mat_free / sbw_mat_f32_free); info may be NULL.  Errors: those of
 * sbw_npy_open and sbw_npy_read_all; on failure *m and *info are untouched
 * and nothing stays open or allocated. */
int sbw_npy_load(const char *path, sbw_mat *m, sbw_npy_info *info);
int sbw_npy_load_f32(const char *path, sbw_mat_f32 *m, sbw_npy_info *info);

/* Starts a C-order 2-D file of rows x cols items of dtype at path ("-" for
 * stdout) and writes its header.  ndim 1 writes shape (rows,) and needs
 * cols == 1.  *w is NULL on failure and nothing is left behind. */
int sbw_npy_create(sbw_npy_writer **w, const char *path, size_t rows, size_t cols, int ndim,
                   sbw_npy_dtype dtype);

/* Appends nr rows from src (nr x cols, leading dimension ld), converting
 * to the file's dtype.  Writing more rows than declared is SBW_EINVAL.
 * Errors: SBW_EINVAL (rows, ld < cols: nothing written), SBW_EIO,
 * SBW_ENOMEM.  On failure the rows may be written in part: the writer is
 * good only for sbw_npy_abort (sbw_npy_finish would fail on the row
 * count); nothing appears under the final name either way. */
int sbw_npy_write_rows(sbw_npy_writer *w, const double *src, size_t nr, size_t ld);
int sbw_npy_write_rows_f32(sbw_npy_writer *w, const float *src, size_t nr, size_t ld);

/* Completes the file: checks that every declared row was written, flushes,
 * closes and renames into place.  Frees w whatever happens; on failure the
 * temporary is removed and the final name untouched. */
int sbw_npy_finish(sbw_npy_writer *w);

/* Abandons the file (temporary removed) and frees w; NULL is a no-op. */
void sbw_npy_abort(sbw_npy_writer *w);

/* One-call writers for a matrix and for a vector of n doubles (shape (n,)).
 * Errors: those of sbw_npy_create, _write_rows and _finish; on failure
 * nothing is left under path nor a temporary beside it. */
int sbw_npy_save(const char *path, const sbw_mat *m, sbw_npy_dtype dtype);
int sbw_npy_save_f32(const char *path, const sbw_mat_f32 *m);
int sbw_npy_save_vector(const char *path, const double *v, size_t n, sbw_npy_dtype dtype);

#endif
