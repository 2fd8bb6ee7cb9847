/* sbw_layout.h -- the memory layout of the public structs that the Python
 * binding (python/sbw/_lib.py) mirrors with ctypes: each struct's size and
 * field count, each field's offset by name, and the constants that size
 * the mirrors' arrays.  The binding checks every mirror against the library
 * it loaded when it is imported, so that a field added, removed, reordered
 * or retyped in a header fails the import naming the struct and the field,
 * instead of reading garbage (a mirror once lagged sbw_argmax_file_opts by
 * two fields and read them as garbage).  A struct or field listed here is
 * part of the binding's contract: change the mirror with it.
 */
#ifndef SBW_LAYOUT_H
#define SBW_LAYOUT_H

#include <stddef.h>

/* sizeof(type) into *size and the number of its fields (all of them, in
 * the order of the header) into *nfields, for type named as in C
 * ("sbw_rank_est").  SBW_EINVAL naming type when it is not one the binding
 * mirrors; *size and *nfields untouched on failure. */
int sbw_layout_size(const char *type, size_t *size, size_t *nfields);

/* offsetof(type, field) into *offset.  SBW_EINVAL naming both when type
 * has no such field listed (or is not a mirrored struct); *offset
 * untouched on failure. */
int sbw_layout_offset(const char *type, const char *field, size_t *offset);

/* The value of a constant the mirrors use (SBW_RANK_NMEASURES,
 * SBW_COMPARE_NK, SBW_F64, SBW_F32, SBW_F16, SBW_BF16) into *value.
 * SBW_EINVAL naming it when it is not one of them; *value untouched on
 * failure. */
int sbw_layout_const(const char *name, long long *value);

/* The name of type's i-th field (0-based, in header order), or NULL past
 * the last one or for a type not mirrored: for callers that walk a struct
 * (the binding's check, tests/test_layout.c). */
const char *sbw_layout_field(const char *type, size_t i);

/* sizeof the field of type named field; 0 when not listed. */
size_t sbw_layout_field_size(const char *type, const char *field);

#endif
