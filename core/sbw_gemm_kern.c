/* sbw_gemm_kern.c -- float32 to bfloat16 rounding (see sbw_gemm_kern.h). */
#include "sbw_gemm_kern.h"

#include <string.h>

/* Adding 0x7fff plus the kept part's last bit carries into the kept part
 * exactly when the cut part is above half, or at half with an odd kept
 * part; a NaN takes its quiet bit instead (adding could carry it into
 * infinity).  Both results are formed and one selected, so the loop has
 * no branch and vectorises. */
void sbw_gemm_kern_bf16_round(const float *restrict x, uint16_t *restrict y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, x + i, sizeof u);
        uint32_t near = u + 0x7fffu + ((u >> 16) & 1u), quiet = u | 0x400000u;
        y[i] = (uint16_t)(((u & 0x7fffffffu) > 0x7f800000u ? quiet : near) >> 16);
    }
}
