/* sbw_blas.h -- the OpenBLAS kernel set and thread count a tool runs
 * with, and LAPACK's info codes as sbw statuses.
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

#include "sbw_error.h"

/* Called first in every tool's main with its argv: when OpenBLAS chose a
 * pre-AVX kernel set ("Prescott", "Core2", "Nehalem", ...) although the CPU
 * has AVX-512 (SkylakeX kernels) or AVX2 + FMA (Haswell kernels), and
 * neither OPENBLAS_CORETYPE nor SBW_BLAS_TUNE=0 is in the environment, sets
 * OPENBLAS_CORETYPE and re-executes /proc/self/exe with argv (nothing has
 * been read or written yet, so the user sees one run).  Returns only when
 * no re-execution is wanted or it failed (the run then continues on the
 * kernels it has). */
void sbw_blas_tune(char **argv);

/* OpenBLAS's thread count now (process-wide). */
int sbw_blas_threads(void);

/* Sets OpenBLAS's thread count to n (process-wide) and returns the count it
 * replaces, which sbw_blas_threads_pop(saved) restores.  Pairs nest: a
 * caller that runs BLAS from its own OpenMP threads pushes 1 around the
 * parallel region (one BLAS thread per call: no oversubscription, and
 * OpenBLAS's split of a call, hence its rounding, no longer depends on the
 * thread count), and pops on every path out.  A caller running other BLAS
 * work concurrently sees the pushed count meanwhile.  Never fails. */
int sbw_blas_threads_push(int n);
void sbw_blas_threads_pop(int saved);

/* The status for a LAPACK routine's nonzero info, with its reason:
 * SBW_EINVAL "ROUTINE: argument K had an illegal value" for info = -K,
 * SBW_ENUMERIC "ROUTINE: failed to converge (info N)" for info = N > 0.
 * Inline, so that a static analyser sees the status is never SBW_OK. */
static inline int sbw_blas_lapack_fail(const char *routine, long info)
{
    if (info < 0)
        return SBW_ERROR(SBW_EINVAL, "%s: argument %ld had an illegal value", routine, -info);
    return SBW_ERROR(SBW_ENUMERIC, "%s: failed to converge (info %ld)", routine, info);
}

#endif
