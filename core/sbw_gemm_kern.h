/* sbw_gemm_kern.h -- sbw_gemm's hot loop: float32 to bfloat16, round to
 * nearest even, a row at a time.
 *
 * Compiled with -O3 -march=native (Makefile: *_kern.c), where the loop is
 * branch-free integer work that vectorises (AVX-512: 16 floats a step).
 * It is bit arithmetic only, so -ffast-math changes nothing and every
 * input, NaN and infinity included, has its exact bfloat16: the naive
 * twin is sbw_gemm_bf16_round_ref (sbw_gemm.h), which decides each value
 * in double arithmetic; test_gemm compares the two on the edge cases and
 * on 2 million random bit patterns.
 */
#ifndef SBW_GEMM_KERN_H
#define SBW_GEMM_KERN_H

#include <stddef.h>
#include <stdint.h>

/* y[i] = x[i] rounded to bfloat16 (nearest, ties to even; a NaN made
 * quiet with its sign and top payload bits kept), i < n.  x and y must
 * not overlap.  Cannot fail. */
void sbw_gemm_kern_bf16_round(const float *restrict x, uint16_t *restrict y, size_t n);

#endif
