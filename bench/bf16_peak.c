/* bf16_peak.c -- the machine's bfloat16 GEMM rate for bench_lm.sh and
 * bench_fit.sh, the counterpart of sgemm_peak.c: the best of 5 runs (after
 * a warm-up) of C = A B (n x n, bfloat16 inputs, float32 output,
 * row-major) through oneDNN's matmul, the library sbw-lm --precision bf16
 * uses, with the thread count given.  Prints GFLOPS and the implementation
 * oneDNN chose (brg:avx512_core_bf16 on a CPU with AVX-512 BF16); prints
 * "none" and exits 3 on a CPU without AVX-512 BF16, where oneDNN would
 * emulate.
 * usage: bf16_peak N THREADS */
#include <dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CK(x)                                                                                      \
    do {                                                                                           \
        if ((x) != dnnl_success) {                                                                 \
            fprintf(stderr, "bf16_peak: %s failed\n", #x);                                        \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int n = atoi(argv[1]), threads = atoi(argv[2]);
    if (n < 1 || threads < 1)
        return 2;
    int isa = (int)dnnl_get_effective_cpu_isa();
    if ((isa & dnnl_cpu_isa_avx512_core_bf16) != dnnl_cpu_isa_avx512_core_bf16) {
        printf("none\n");
        return 3;
    }
    omp_set_num_threads(threads);
    dnnl_engine_t eng;
    dnnl_stream_t st;
    CK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
    dnnl_memory_desc_t a, b, c;
    dnnl_dims_t dims = {n, n};
    CK(dnnl_memory_desc_init_by_tag(&a, 2, dims, dnnl_bf16, dnnl_ab));
    CK(dnnl_memory_desc_init_by_tag(&b, 2, dims, dnnl_bf16, dnnl_ab));
    CK(dnnl_memory_desc_init_by_tag(&c, 2, dims, dnnl_f32, dnnl_ab));
    dnnl_matmul_desc_t md;
    CK(dnnl_matmul_desc_init(&md, &a, &b, NULL, &c));
    dnnl_primitive_desc_t pd;
    CK(dnnl_primitive_desc_create(&pd, &md, NULL, eng, NULL));
    const char *impl = "?";
    CK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    dnnl_primitive_t p;
    CK(dnnl_primitive_create(&p, pd));
    dnnl_memory_t ma, mb, mc;
    CK(dnnl_memory_create(&ma, &a, eng, DNNL_MEMORY_ALLOCATE));
    CK(dnnl_memory_create(&mb, &b, eng, DNNL_MEMORY_ALLOCATE));
    CK(dnnl_memory_create(&mc, &c, eng, DNNL_MEMORY_ALLOCATE));
    unsigned short *pa, *pb;
    CK(dnnl_memory_get_data_handle(ma, (void **)&pa));
    CK(dnnl_memory_get_data_handle(mb, (void **)&pb));
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) { /* bfloat16 of k/7 and k/5 */
        pa[i] = (unsigned short)(0x3e00u + (i % 7) * 16u);
        pb[i] = (unsigned short)(0x3e00u + (i % 5) * 16u);
    }
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
    double best = 1e300;
    for (int r = 0; r < 6; r++) {
        double t = now();
        CK(dnnl_primitive_execute(p, st, 3, args));
        CK(dnnl_stream_wait(st));
        t = now() - t;
        if (r > 0 && t < best) /* the first run warms up */
            best = t;
    }
    printf("%.1f %s\n", 2.0 * (double)n * (double)n * (double)n / best / 1e9, impl);
    dnnl_memory_destroy(ma), dnnl_memory_destroy(mb), dnnl_memory_destroy(mc);
    dnnl_primitive_destroy(p), dnnl_primitive_desc_destroy(pd);
    dnnl_stream_destroy(st), dnnl_engine_destroy(eng);
    return 0;
}
