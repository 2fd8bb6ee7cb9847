/* sbw_npy_hdr.h -- the .npy header as bytes (numpy/lib/format.py, NEP 1):
 * "\x93NUMPY", major, minor, a little-endian header length (2 bytes in
 * version 1, 4 in versions 2 and 3), then a Python dict literal
 * {'descr': '<f8', 'fortran_order': False, 'shape': (r, c), } padded with
 * spaces and a final newline, then the payload.
 *
 * sbw_npy_hdr_parse reads the dict into an sbw_npy_info, a pure function
 * of a buffer (sbw_npy_open reads the preamble and the dict's bytes and
 * calls it; tests/fuzz/fuzz_npy.c reaches it through sbw_npy_open);
 * sbw_npy_hdr_format writes the header sbw_npy_create puts first.
 */
#ifndef SBW_NPY_HDR_H
#define SBW_NPY_HDR_H

#include "sbw_npy.h"

#include <stddef.h>

#define SBW_NPY_HDR_MAGIC     "\x93NUMPY"
#define SBW_NPY_HDR_MAGIC_LEN 6
#define SBW_NPY_HDR_MAX       (1u << 20) /* a longer dict is refused */
#define SBW_NPY_HDR_CAP       256        /* bytes sbw_npy_hdr_format writes at most */

/* The dict text[0..len) (not NUL-terminated) of the file at path: its
 * descr, fortran_order and shape into info (descr, itemsize, dtype, swap,
 * ndim, rows, cols, fortran, data_bytes; the rest untouched).  Errors, each
 * naming path: SBW_EFORMAT (not such a dict, junk after it, a shape that
 * overflows), SBW_EDTYPE (a dtype other than f4/f8 in either byte order, a
 * structured dtype, 0-d or more than 2-d).  On failure info may hold some
 * of those fields: discard it. */
int sbw_npy_hdr_parse(const char *text, size_t len, const char *path, sbw_npy_info *info);

/* The version 1 header of a C-order rows x cols array (ndim 1: (rows,),
 * cols = 1) of dtype (SBW_F64 or SBW_F32, this machine's byte order) into
 * buf (SBW_NPY_HDR_CAP bytes), padded to a multiple of 64 bytes; returns
 * its length. */
size_t sbw_npy_hdr_format(size_t rows, size_t cols, int ndim, sbw_npy_dtype dtype,
                          unsigned char *buf);

#endif
