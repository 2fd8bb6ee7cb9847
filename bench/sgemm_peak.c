/* sgemm_peak.c -- the machine's sgemm rate for bench_fit.sh: the best of
 * 5 runs of C = A B (n x n, float32, row-major) through the same OpenBLAS
 * sbw links, with the thread count given.  Prints GFLOPS and the kernel
 * set OpenBLAS chose (openblas_get_corename: OPENBLAS_CORETYPE or its own
 * detection).
 * usage: sgemm_peak N THREADS */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

char *openblas_get_corename(void);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = atoi(argv[1]), threads = atoi(argv[2]);
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    if (!a || !b || !c || n < 1)
        return 1;
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)(i % 7) / 7.0f;
        b[i] = (float)(i % 5) / 5.0f;
    }
    openblas_set_num_threads(threads);
    double best = 1e300;
    for (int r = 0; r < 6; r++) {
        double t = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f,
                    c, n);
        t = now() - t;
        if (r > 0 && t < best) /* the first run warms up */
            best = t;
    }
    printf("%.1f %s\n", 2.0 * (double)n * (double)n * (double)n / best / 1e9,
           openblas_get_corename());
    free(a), free(b), free(c);
    return 0;
}
