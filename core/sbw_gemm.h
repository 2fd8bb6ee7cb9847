/* sbw_gemm.h -- the float GEMMs of the training paths (the LSTM, the
 * latent, a head's logits and backward) in float32 through OpenBLAS, or
 * with bfloat16 inputs through oneDNN's matmul: A and B rounded to
 * bfloat16 (round to nearest even), products accumulated and C written in
 * float32.  Everything else of a step (master weights, optimiser state,
 * the pointwise work, the loss, every reduction) stays in float or double;
 * evaluation, exports and analysis never come here.
 *
 * Why oneDNN (Debian's libdnnl-dev): it drives the AVX-512 BF16 dot
 * products (vdpbf16ps) with its brgemm kernels, at about twice the float32
 * rate (bench/bench_gemm_peak); Debian's OpenBLAS 0.3.21 is built without
 * its sbgemm (no BUILD_BFLOAT16), and a kernel of sbw's own would be a
 * fork of either.  The bfloat16 conversion is sbw's own loop
 * (sbw_gemm_bf16_round, beside its naive twin): oneDNN 2.6's float32
 * matmul ignores fpmath_mode bf16 (measured: it stays float32), so the
 * inputs must arrive as bfloat16.
 *
 * Operands kept: converting an operand costs about as much memory traffic
 * as a pass over it, so an operand used by many GEMMs (a weight matrix in
 * every time step, the layer input that forward and backward both read)
 * is converted once when the caller flags it SBW_GEMM_KEEP_A or _B: the
 * context keeps its bfloat16 copy, and any later call whose operand lies
 * inside that stored block (the same leading dimension, the rows and
 * columns within it) reads the copy.  The caller promises that a kept
 * block's floats do not change until sbw_gemm_forget drops it; that is the
 * whole contract, and the one way to get a stale answer.
 *
 * Determinism: oneDNN's matmul on the CPU splits the work by the thread
 * count and the shapes only, and reduces over K in a fixed order (no
 * atomics), so for a given machine (kernel set), thread count and shape a
 * call gives the same bits every time; a primitive is made for one
 * thread count and is remade when OpenBLAS's count (which this module
 * follows) changes.
 *
 * One context per thread that calls it: a context is not thread-safe.
 */
#ifndef SBW_GEMM_H
#define SBW_GEMM_H

#include <cblas.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBW_GEMM_KEEP_A 1u /* keep A's bfloat16 copy (see above) */
#define SBW_GEMM_KEEP_B 2u

typedef struct sbw_gemm sbw_gemm;

/* Whether this CPU runs oneDNN's bfloat16 matmul in hardware (AVX-512
 * BF16, as oneDNN reports it: ONEDNN_MAX_CPU_ISA lowers it).  When not,
 * a one-line reason naming the instruction set found goes into why (cap
 * bytes; may be NULL). */
bool sbw_gemm_bf16_supported(char *why, size_t cap);

/* A bfloat16 context.  Errors: SBW_EINVAL when the CPU lacks AVX-512
 * BF16 (the reason says so: sbw refuses rather than emulate, which would
 * be slower than float32), SBW_ENOMEM, SBW_ENUMERIC (oneDNN refused to
 * make its engine).  *g is NULL on failure. */
int sbw_gemm_alloc(sbw_gemm **g);

/* Frees the context, its kept copies and its primitives; NULL is a no-op. */
void sbw_gemm_free(sbw_gemm *g);

/* Drops the kept copy whose block starts at base (NULL: every kept copy),
 * after which those floats may change.  g NULL is a no-op. */
void sbw_gemm_forget(sbw_gemm *g, const float *base);

/* C = alpha op(A) op(B) + beta C, row-major, cblas_sgemm's arguments
 * after the order.  g NULL: cblas_sgemm itself.  Otherwise A and B enter
 * rounded to bfloat16, with keep (SBW_GEMM_KEEP_A | _B | 0) as above; a
 * call with m, n or k 0 goes to cblas_sgemm.  A failure (memory for a
 * copy, oneDNN) is recorded in the context and leaves C untouched; every
 * later call is then a no-op until sbw_gemm_status is read, so a caller
 * checks once per pass rather than per call. */
void sbw_gemm_f(sbw_gemm *g, unsigned keep, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n,
                int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                float *C, int ldc);

/* The first failure since the last call (its reason recorded then, as
 * SBW_ERROR does), clearing it; SBW_OK for none or g NULL.  Never fails
 * itself: on failure of a GEMM it only reports it. */
int sbw_gemm_status(sbw_gemm *g);

/* Calls that ran on oneDNN, and operand conversions done (kept copies
 * made and per-call conversions), since the context was made: for tests
 * and progress notes. */
void sbw_gemm_counts(const sbw_gemm *g, size_t *calls, size_t *converted);

/* y[i] = the bfloat16 bits of x[i] rounded to nearest, ties to even; a
 * NaN stays a NaN (quiet, its sign kept), infinities stay, a finite value
 * beyond bfloat16's largest rounds to infinity as IEEE rounding does.
 * Runs OpenMP threads over large n.  The fast kernel. */
void sbw_gemm_bf16_round(const float *x, uint16_t *y, size_t n);

/* The naive twin of sbw_gemm_bf16_round for one value: the nearer of the
 * two bfloat16 values around x by exact double arithmetic, ties to the
 * one with an even last bit. */
uint16_t sbw_gemm_bf16_round_ref(float x);

/* The float a bfloat16 pattern stands for (exact). */
float sbw_gemm_bf16_value(uint16_t bits);

#endif
