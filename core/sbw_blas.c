/* sbw_blas.c -- re-executing on the right OpenBLAS kernels, OpenBLAS's
 * thread count, LAPACK failures (see sbw_blas.h). */
#include "sbw_blas.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *openblas_get_corename(void); /* OpenBLAS's own; not in every cblas.h */

/* OpenBLAS's kernel sets older than AVX. */
static int generic_core(const char *core)
{
    static const char *const old[] = {"Prescott", "Core2",     "Penryn",    "Dunnington",
                                      "Nehalem",  "Atom",      "Northwood", "Banias",
                                      "Katmai",   "Coppermine"};
    for (size_t i = 0; i < sizeof old / sizeof *old; i++)
        if (strcmp(core, old[i]) == 0)
            return 1;
    return 0;
}

void sbw_blas_tune(char **argv)
{
    const char *off = getenv("SBW_BLAS_TUNE");
    if (getenv("OPENBLAS_CORETYPE") || (off && strcmp(off, "0") == 0))
        return;
    const char *core = openblas_get_corename();
    if (!core || !generic_core(core))
        return;
    __builtin_cpu_init();
    const char *want = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        want = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        want = "Haswell";
    if (!want || setenv("OPENBLAS_CORETYPE", want, 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    unsetenv("OPENBLAS_CORETYPE"); /* exec failed: carry on as we are */
}

int sbw_blas_threads(void) { return openblas_get_num_threads(); }

int sbw_blas_threads_push(int n)
{
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(n);
    return saved;
}

void sbw_blas_threads_pop(int saved) { openblas_set_num_threads(saved); }
