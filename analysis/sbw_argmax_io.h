/* sbw_argmax_io.h -- what sbw-argmax reads: the head W (an M x D .npy, one
 * row per word, M >= 2), its biases b (M values, any 1-D or M x 1 / 1 x M
 * .npy) and the word names of --vocab (one per line, exactly M lines),
 * each value checked finite, each failure one reason naming the file.
 * W is opened first and read after the caller has seen its shape (the
 * memory preflight), so nothing large is allocated for a head that will
 * be refused.  tests/fuzz/fuzz_argmax.c drives these with arbitrary bytes
 * and the heads they give through sbw_argmax_run. */
#ifndef SBW_ARGMAX_IO_H
#define SBW_ARGMAX_IO_H

#include "sbw_mat.h"
#include "sbw_npy.h"

#include <stddef.h>
#include <stdint.h>

/* Opens W at path ("-": stdin) and checks its shape: a matrix of >= 2
 * rows; *m, *d its shape.  Errors: those of sbw_check_open, SBW_ESHAPE.
 * On failure *r is NULL (nothing open); *m and *d may hold a refused
 * shape. */
int sbw_argmax_io_open_w(sbw_npy_reader **r, const char *path, size_t *m, size_t *d);

/* Reads the open r (of path) whole into out (caller frees with
 * sbw_mat_free), checks every value finite, closes r (also on failure). */
int sbw_argmax_io_read_w(sbw_npy_reader *r, const char *path, sbw_mat *out);

/* The m biases at path (W's path wpath for the message) into a new array
 * *b (free()).  Errors: a vector of another length (SBW_ESHAPE), non-finite
 * values (SBW_EDATA), the reader's.  *b is NULL on failure (nothing
 * allocated). */
int sbw_argmax_io_read_bias(const char *path, size_t m, const char *wpath, double **b);

/* The m names at path, one a line ('\n' or "\r\n" ends a line, a tab
 * becomes a space; the bytes are kept as they are, UTF-8 or not: the
 * table writers escape them) into *names (sbw_argmax_io_names_free).
 * Errors: SBW_EIO, SBW_EDATA (another number of lines, a NUL byte), SBW_ENOMEM.
 * *names is NULL on failure (nothing allocated). */
int sbw_argmax_io_read_vocab(const char *path, size_t m, char ***names);

/* A 64-bit FNV-1a hash of the head as read: m, d, the m x d values of w
 * (leading dimension ldw), the m biases (b NULL: none) and the m names
 * (NULL: none), each value's bytes, each name with its end.  What a merge
 * of sbw-argmax --shard tables compares to refuse shards of different
 * heads (an accident, not an adversary: FNV is no cryptographic hash). */
uint64_t sbw_argmax_io_hash(const double *w, size_t m, size_t d, size_t ldw, const double *b,
                            char *const *names);

/* Frees m names (NULL is fine). */
void sbw_argmax_io_names_free(char **names, size_t m);

#endif
