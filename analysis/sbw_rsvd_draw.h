/* sbw_rsvd_draw.h -- the Gaussian test matrices of the randomized range
 * finder (sbw_rsvd.h), drawn reproducibly from (seed, column): a
 * translation unit of its own because GSL's headers and OpenBLAS's cblas.h
 * declare the same CBLAS names. */
#ifndef SBW_RSVD_DRAW_H
#define SBW_RSVD_DRAW_H

#include <stddef.h>
#include <stdint.h>

/* x (m x c, column-major, leading dimension m) with N(0, 1) entries (GSL's
 * ziggurat), column j from sbw_rng stream stream0 + j of seed, drawn in
 * row order: a column does not depend on c, nor on the other columns.
 * Errors: SBW_ENOMEM; x partly written on failure (discard it). */
int sbw_rsvd_draw(double *x, size_t m, size_t c, uint64_t seed, uint64_t stream0);

#endif
