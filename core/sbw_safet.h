/* sbw_safet.h -- the .safetensors format: the header parsed and validated,
 * tensors looked up by name, and the exact F16/BF16 -> float conversions.
 *
 * Format (huggingface/safetensors, docs "Format"): an 8-byte little-endian
 * unsigned N, then N bytes of UTF-8 JSON -- an object mapping each tensor
 * name to {"dtype": "F32", "shape": [r, c], "data_offsets": [begin, end]},
 * plus an optional "__metadata__" object of strings -- padded with spaces,
 * then the data section: little-endian C-order payloads, begin/end being
 * byte offsets into it.  As in the reference reader, the payloads must
 * tile the data section exactly: no overlap, no hole, nothing after.
 *
 * The JSON is parsed by Jansson (docs/DESIGN.md, "Dependencies and why"),
 * never by hand.  sbw_safet_parse is a pure function of a byte buffer (no
 * I/O, no global state beyond the error reason), so it can be fuzzed.
 *
 * A tensor is named on a command line as FILE.safetensors:NAME; sbw_npy_open
 * accepts that wherever a .npy path goes (sbw_npy.h), so every tool reads it.
 */
#ifndef SBW_SAFET_H
#define SBW_SAFET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest header accepted (the reference reader's limit, 100 MB). */
#define SBW_SAFET_MAX_HEADER ((uint64_t)100000000)

/* Most dimensions a tensor may have. */
#define SBW_SAFET_MAX_DIM 16

typedef struct sbw_safet_tensor {
    char *name;                      /* owned by the header */
    char dtype[12];                  /* as written: "F32", "BF16", "I64", ... */
    size_t itemsize;                 /* bytes per item (1 for BOOL and F8_*) */
    int ndim;                        /* 0 for a scalar */
    size_t shape[SBW_SAFET_MAX_DIM]; /* the first ndim entries */
    size_t begin, end;               /* byte offsets into the data section */
} sbw_safet_tensor;

typedef struct sbw_safet_header {
    size_t header_len;  /* N */
    size_t data_offset; /* 8 + N: where the data section starts in the file */
    size_t data_len;    /* bytes in the data section */
    size_t count;
    sbw_safet_tensor *t; /* count tensors in the header's order */
} sbw_safet_header;

/* Parses the header of a .safetensors file of file_size bytes whose first
 * len bytes are buf (len >= min(file_size, 8 + N) suffices: the data section
 * is not read).  Checks: the length (>= 8 bytes, N <= SBW_SAFET_MAX_HEADER,
 * 8 + N <= file_size), the JSON (an object, no duplicate keys), each entry
 * (dtype one of the format's, shape non-negative integers, data_offsets two
 * integers begin <= end <= data section, end - begin = items x itemsize),
 * and the tiling (no overlap, no hole, no trailing bytes).  On failure:
 * SBW_EFORMAT with one line starting with path (Jansson's message with its
 * line and column for JSON errors), SBW_ENOMEM; *h is zeroed.  Free with
 * sbw_safet_header_free. */
int sbw_safet_parse(const unsigned char *buf, size_t len, uint64_t file_size, const char *path,
                    sbw_safet_header *h);

/* Reads the header of the file at path (a regular file) and parses it with
 * sbw_safet_parse.  Errors: SBW_EIO (cannot open, read, not a regular
 * file), those of sbw_safet_parse.  Free *h with sbw_safet_header_free;
 * on failure *h is zeroed (nothing to free). */
int sbw_safet_load(const char *path, sbw_safet_header *h);

/* Frees what sbw_safet_parse allocated and zeroes *h; a zeroed header is a
 * no-op. */
void sbw_safet_header_free(sbw_safet_header *h);

/* The tensor called name, or NULL. */
const sbw_safet_tensor *sbw_safet_find(const sbw_safet_header *h, const char *name);

/* "[50257, 768]" into buf (cap bytes, truncated with "..." if short). */
void sbw_safet_shape_str(const sbw_safet_tensor *t, char *buf, size_t cap);

/* True when spec names a tensor, FILE.safetensors:NAME (the first
 * ".safetensors:" splits it): the file part is copied to file (cap bytes;
 * false if it does not fit) and *name points into spec after the ':'. */
bool sbw_safet_split(const char *spec, char *file, size_t cap, const char **name);

/* True when path ends in ".safetensors" (a whole file, no tensor named). */
bool sbw_safet_is_file(const char *path);

/* Exact conversions of IEEE binary16 and bfloat16 bit patterns to float:
 * normals, subnormals, +-0, +-inf and NaN (payload kept, as far as float
 * holds it) each go to the float of the same value. */
float sbw_safet_f16_to_f32(uint16_t bits);
float sbw_safet_bf16_to_f32(uint16_t bits);

#endif
