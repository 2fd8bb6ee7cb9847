/* sbw_npy_safet.h -- the bridge from a .safetensors tensor to the .npy
 * reader: FILE.safetensors:NAME described as an sbw_npy_info (its dtype
 * F64, F32, F16 or BF16, 1-D or 2-D, little-endian C order, the payload's
 * offset and size in FILE), so that sbw_npy_open reads it by rows like a
 * .npy payload.  The header itself is sbw_safet's (parsed by Jansson,
 * validated there).
 */
#ifndef SBW_NPY_SAFET_H
#define SBW_NPY_SAFET_H

#include "sbw_npy.h"

/* The tensor name of file (spec is the name the user gave,
 * FILE.safetensors:NAME, for the messages) into info (dtype, descr,
 * itemsize, swap, ndim, rows, cols, data_offset, data_bytes, safetensors).
 * Errors: SBW_EINVAL (an empty name), SBW_EFORMAT (a malformed header, no
 * tensor of that name: the message lists up to four), SBW_EDTYPE (another
 * dtype, 0-d or more than 2-d), those of sbw_safet_load.  On failure info
 * may hold some of those fields (discard it); nothing stays allocated. */
int sbw_npy_safet_info(const char *spec, const char *file, const char *name, sbw_npy_info *info);

#endif
