/* sbw_blas.h -- the OpenBLAS kernel set a tool runs with.
 *
 * OpenBLAS picks its GEMM kernels from the CPU at load time.  A build
 * older than the CPU (Debian 12's 0.3.21 on a Sapphire Rapids Xeon, say)
 * does not recognise it and falls back to its generic Prescott (SSE3)
 * kernels: on the 2-core AVX-512 machine sbw is developed on, sgemm runs at
 * 65 GFLOPS instead of 310 with OPENBLAS_CORETYPE=SkylakeX
 * (bench/sgemm_peak.c).  The kernel set can only be chosen before the
 * library loads, through that variable, so a tool that finds itself on the
 * fallback re-executes itself once with it set.
 */
#ifndef SBW_BLAS_H
#define SBW_BLAS_H

/* Called first in every tool's main with its argv: when OpenBLAS chose a
 * pre-AVX kernel set ("Prescott", "Core2", "Nehalem", ...) although the CPU
 * has AVX-512 (SkylakeX kernels) or AVX2 + FMA (Haswell kernels), and
 * neither OPENBLAS_CORETYPE nor SBW_BLAS_TUNE=0 is in the environment, sets
 * OPENBLAS_CORETYPE and re-executes /proc/self/exe with argv (nothing has
 * been read or written yet, so the user sees one run).  Returns only when
 * no re-execution is wanted or it failed (the run then continues on the
 * kernels it has). */
void sbw_blas_tune(char **argv);

#endif
