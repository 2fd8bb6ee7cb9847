/* sbw_gemm.c -- float GEMMs in float32 (OpenBLAS) or with bfloat16 inputs
 * through oneDNN's matmul (see sbw_gemm.h). */
#include "sbw_gemm.h"

#include "sbw_blas.h"
#include "sbw_error.h"
#include "sbw_gemm_kern.h"

#include <dnnl.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kept copies and primitives a context holds at most; past that the least
 * recently used is dropped (a cache: dropping one costs a conversion or a
 * primitive creation, never an answer). */
#define GEMM_KEPT  64
#define GEMM_PRIMS 64

/* Conversions go parallel above this many elements. */
#define GEMM_PAR_MIN ((size_t)1 << 16)

/* A kept copy: the stored block rows x cols at base (leading dim ld) as
 * compact bfloat16 (leading dim cols).  A dropped one keeps its buffer
 * (base NULL, cap elements) for the next copy that fits: the same blocks
 * come back every chunk, and a fresh buffer of tens of MB each time cost
 * a tenth of a MoS step in page faults (perf: clear_page). */
typedef struct gemm_kept {
    const float *base;
    int rows, cols, ld;
    uint16_t *bf;
    size_t cap;
    unsigned long used;
} gemm_kept;

/* A primitive for one call shape: its key, oneDNN objects, last use. */
typedef struct gemm_prim {
    int key[9];
    float alpha, beta;
    dnnl_primitive_t p;
    dnnl_memory_t a, b, c;
    unsigned long used;
} gemm_prim;

struct sbw_gemm {
    dnnl_engine_t eng;
    dnnl_stream_t stream;
    gemm_kept kept[GEMM_KEPT];
    gemm_prim prim[GEMM_PRIMS];
    size_t nkept, nprim;
    unsigned long clock;
    uint16_t *scratch[2]; /* per-call conversions of A and B */
    size_t cap[2];        /* their lengths in elements */
    int status;
    size_t calls, converted;
};

/* ---- bfloat16 ------------------------------------------------------------- */

void sbw_gemm_bf16_round(const float *x, uint16_t *y, size_t n)
{
    size_t chunk = 4096, nc = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) num_threads(sbw_blas_threads()) if (n > GEMM_PAR_MIN)
    for (size_t c = 0; c < nc; c++) {
        size_t at = c * chunk, len = n - at < chunk ? n - at : chunk;
        sbw_gemm_kern_bf16_round(x + at, y + at, len);
    }
}

float sbw_gemm_bf16_value(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t sbw_gemm_bf16_round_ref(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    uint16_t lo = (uint16_t)(u >> 16), sign = lo & 0x8000u;
    if (isnan(x))
        return (uint16_t)(sign | 0x7fc0u | (lo & 0x7fu));
    if (isinf(x))
        return lo;
    /* lo: x cut toward zero; hi: the next bfloat16 away from zero, whose
     * value past the largest finite one is 2^128 (IEEE rounds as if the
     * exponent went on) */
    uint16_t hi = (uint16_t)(lo + 1);
    double ax = fabs((double)x), a = fabs((double)sbw_gemm_bf16_value(lo));
    double b = (hi & 0x7fffu) == 0x7f80u ? ldexp(1.0, 128) : fabs((double)sbw_gemm_bf16_value(hi));
    double below = ax - a, above = b - ax;
    if (below < above)
        return lo;
    if (above < below)
        return hi;
    return (lo & 1u) ? hi : lo;
}

/* ---- the CPU ---------------------------------------------------------------- */

static const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch ((int)isa) {
    case dnnl_cpu_isa_avx512_core_vnni:
        return "AVX-512 VNNI";
    case dnnl_cpu_isa_avx512_core:
        return "AVX-512";
    case dnnl_cpu_isa_avx2_vnni:
        return "AVX2 VNNI";
    case dnnl_cpu_isa_avx2:
        return "AVX2";
    case dnnl_cpu_isa_avx:
        return "AVX";
    default:
        return "no AVX-512";
    }
}

bool sbw_gemm_bf16_supported(char *why, size_t cap)
{
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    bool ok = ((int)isa & dnnl_cpu_isa_avx512_core_bf16) == dnnl_cpu_isa_avx512_core_bf16;
    if (!ok && why && cap)
        snprintf(why, cap,
                 "bfloat16 GEMMs need a CPU with AVX-512 BF16 (avx512_bf16 in /proc/cpuinfo); "
                 "oneDNN finds %s here (or ONEDNN_MAX_CPU_ISA lowers it)",
                 isa_name(isa));
    return ok;
}

/* ---- the context ------------------------------------------------------------ */

int sbw_gemm_alloc(sbw_gemm **out)
{
    char why[256];
    *out = NULL;
    if (!sbw_gemm_bf16_supported(why, sizeof why))
        return SBW_ERROR(SBW_EINVAL, "%s", why);
    sbw_gemm *g = calloc(1, sizeof *g);
    if (!g)
        return SBW_ERROR(SBW_ENOMEM, "bfloat16 GEMM context: out of memory");
    if (dnnl_engine_create(&g->eng, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&g->stream, g->eng, dnnl_stream_default_flags) != dnnl_success) {
        sbw_gemm_free(g);
        return SBW_ERROR(SBW_ENUMERIC, "oneDNN could not make its CPU engine");
    }
    *out = g;
    return SBW_OK;
}

static void prim_drop(gemm_prim *p)
{
    dnnl_primitive_destroy(p->p);
    dnnl_memory_destroy(p->a);
    dnnl_memory_destroy(p->b);
    dnnl_memory_destroy(p->c);
    memset(p, 0, sizeof *p);
}

void sbw_gemm_free(sbw_gemm *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nkept; i++)
        free(g->kept[i].bf);
    for (size_t i = 0; i < g->nprim; i++)
        prim_drop(&g->prim[i]);
    free(g->scratch[0]);
    free(g->scratch[1]);
    if (g->stream)
        dnnl_stream_destroy(g->stream);
    if (g->eng)
        dnnl_engine_destroy(g->eng);
    free(g);
}

void sbw_gemm_forget(sbw_gemm *g, const float *base)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nkept; i++)
        if (!base || g->kept[i].base == base)
            g->kept[i].base = NULL; /* its buffer stays for reuse */
}

int sbw_gemm_status(sbw_gemm *g)
{
    if (!g)
        return SBW_OK;
    int st = g->status;
    g->status = SBW_OK;
    return st;
}

void sbw_gemm_counts(const sbw_gemm *g, size_t *calls, size_t *converted)
{
    *calls = g ? g->calls : 0;
    *converted = g ? g->converted : 0;
}

/* Records the context's first failure; returns NULL for the caller's
 * convenience. */
static void *fail(sbw_gemm *g, int status, const char *what)
{
    if (!g->status)
        g->status = SBW_ERROR(status, "bfloat16 GEMM: %s", what);
    return NULL;
}

/* ---- operands ---------------------------------------------------------------- */

/* The stored block rows x cols at x (leading dim ld) into dst as compact
 * bfloat16 rows. */
static void convert_block(const float *x, int rows, int cols, int ld, uint16_t *dst)
{
    size_t r = (size_t)rows, c = (size_t)cols;
#pragma omp parallel for schedule(static) num_threads(sbw_blas_threads()) if (r * c > GEMM_PAR_MIN)
    for (size_t i = 0; i < r; i++)
        sbw_gemm_kern_bf16_round(x + i * (size_t)ld, dst + i * c, c);
}

/* The kept copy holding the stored block rows x cols at x (leading dim
 * ld), as a pointer into it with its leading dim in *ldbf; NULL if none. */
static const uint16_t *kept_find(sbw_gemm *g, const float *x, int rows, int cols, int ld, int *ldbf)
{
    uintptr_t at = (uintptr_t)x;
    for (size_t i = 0; i < g->nkept; i++) {
        gemm_kept *e = &g->kept[i];
        uintptr_t base = (uintptr_t)e->base;
        if (!e->base || e->ld != ld || at < base || (at - base) % sizeof(float))
            continue;
        size_t off = (at - base) / sizeof(float), r0 = off / (size_t)ld, c0 = off % (size_t)ld;
        if (r0 + (size_t)rows > (size_t)e->rows || c0 + (size_t)cols > (size_t)e->cols)
            continue;
        e->used = ++g->clock;
        *ldbf = e->cols;
        return e->bf + r0 * (size_t)e->cols + c0;
    }
    return NULL;
}

/* The slot for a new kept copy of len elements: the smallest free buffer
 * that holds it, else a new slot, else a free one (or, all in use, the
 * least recently used), its buffer grown to len.  NULL with the status
 * recorded when memory runs out. */
static gemm_kept *kept_slot(sbw_gemm *g, size_t len)
{
    gemm_kept *best = NULL, *old = NULL;
    for (size_t i = 0; i < g->nkept; i++) {
        gemm_kept *e = &g->kept[i];
        if (!e->base && e->cap >= len && (!best || e->cap < best->cap))
            best = e;
        if (!old || (!e->base && old->base) || (!e->base == !old->base && e->used < old->used))
            old = e; /* a free slot first, else the least recently used */
    }
    gemm_kept *e = best ? best : g->nkept < GEMM_KEPT ? &g->kept[g->nkept++] : old;
    e->base = NULL;
    if (e->cap < len) {
        free(e->bf);
        e->bf = malloc(len * sizeof *e->bf);
        e->cap = e->bf ? len : 0;
        if (!e->bf)
            return fail(g, SBW_ENOMEM, "out of memory for an operand's copy");
    }
    return e;
}

/* A new kept copy of the stored block; NULL with the status recorded on
 * failure. */
static const uint16_t *kept_add(sbw_gemm *g, const float *x, int rows, int cols, int ld, int *ldbf)
{
    gemm_kept *e = kept_slot(g, (size_t)rows * (size_t)cols);
    if (!e)
        return NULL;
    convert_block(x, rows, cols, ld, e->bf);
    e->base = x, e->rows = rows, e->cols = cols, e->ld = ld, e->used = ++g->clock;
    g->converted++;
    *ldbf = cols;
    return e->bf;
}

/* op(X) (rows_op x cols_op, stored transposed when trans) as bfloat16:
 * a kept copy, a new one when keep, else a conversion into scratch
 * slot which.  Its leading dim into *ldbf; NULL on failure. */
static const uint16_t *operand(sbw_gemm *g, bool keep, bool trans, int rows_op, int cols_op,
                               const float *x, int ld, int which, int *ldbf)
{
    int rows = trans ? cols_op : rows_op, cols = trans ? rows_op : cols_op;
    const uint16_t *bf = kept_find(g, x, rows, cols, ld, ldbf);
    if (bf)
        return bf;
    if (keep)
        return kept_add(g, x, rows, cols, ld, ldbf);
    size_t len = (size_t)rows * (size_t)cols;
    if (len > g->cap[which]) {
        free(g->scratch[which]);
        g->scratch[which] = malloc(len * sizeof(uint16_t));
        g->cap[which] = g->scratch[which] ? len : 0;
        if (!g->scratch[which])
            return fail(g, SBW_ENOMEM, "out of memory for an operand's conversion");
    }
    convert_block(x, rows, cols, ld, g->scratch[which]);
    g->converted++;
    *ldbf = cols;
    return g->scratch[which];
}

/* ---- primitives ----------------------------------------------------------- */

/* A 2-D descriptor dims r x c with strides (s0, s1). */
static dnnl_status_t desc(dnnl_memory_desc_t *d, int r, int c, dnnl_data_type_t t, int s0, int s1)
{
    dnnl_dims_t dims = {r, c}, strides = {s0, s1};
    return dnnl_memory_desc_init_by_strides(d, 2, dims, t, strides);
}

/* Makes primitive p for its key (ta, tb, m, n, k, lda, ldb, ldc, _)
 * with alpha as output scale and beta as a sum post-op. */
static dnnl_status_t prim_make(sbw_gemm *g, gemm_prim *p)
{
    const int *q = p->key;
    dnnl_memory_desc_t a, b, c;
    dnnl_status_t s = desc(&a, q[2], q[4], dnnl_bf16, q[0] ? 1 : q[5], q[0] ? q[5] : 1);
    s = s ? s : desc(&b, q[4], q[3], dnnl_bf16, q[1] ? 1 : q[6], q[1] ? q[6] : 1);
    s = s ? s : desc(&c, q[2], q[3], dnnl_f32, q[7], 1);
    dnnl_matmul_desc_t md;
    s = s ? s : dnnl_matmul_desc_init(&md, &a, &b, NULL, &c);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    s = s ? s : dnnl_primitive_attr_create(&attr);
    if (!s && p->alpha != 1.0f)
        s = dnnl_primitive_attr_set_output_scales(attr, 1, 0, &p->alpha);
    if (!s && p->beta != 0.0f) {
        s = dnnl_post_ops_create(&po);
        s = s ? s : dnnl_post_ops_append_sum(po, p->beta);
        s = s ? s : dnnl_primitive_attr_set_post_ops(attr, po);
    }
    dnnl_primitive_desc_t pd = NULL;
    s = s ? s : dnnl_primitive_desc_create(&pd, &md, attr, g->eng, NULL);
    s = s ? s : dnnl_primitive_create(&p->p, pd);
    s = s ? s : dnnl_memory_create(&p->a, &a, g->eng, DNNL_MEMORY_NONE);
    s = s ? s : dnnl_memory_create(&p->b, &b, g->eng, DNNL_MEMORY_NONE);
    s = s ? s : dnnl_memory_create(&p->c, &c, g->eng, DNNL_MEMORY_NONE);
    dnnl_primitive_desc_destroy(pd);
    dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(attr);
    return s;
}

/* The primitive for the call's key (made, the least recently used one
 * dropped when full); NULL with the status recorded on failure. */
static gemm_prim *prim_get(sbw_gemm *g, const int key[9], float alpha, float beta)
{
    for (size_t i = 0; i < g->nprim; i++) {
        gemm_prim *p = &g->prim[i];
        if (!memcmp(p->key, key, sizeof p->key) && p->alpha == alpha && p->beta == beta) {
            p->used = ++g->clock;
            return p;
        }
    }
    size_t at = g->nprim;
    if (at == GEMM_PRIMS) {
        at = 0;
        for (size_t i = 1; i < g->nprim; i++)
            at = g->prim[i].used < g->prim[at].used ? i : at;
        prim_drop(&g->prim[at]);
    } else
        g->nprim++;
    gemm_prim *p = &g->prim[at];
    memcpy(p->key, key, sizeof p->key);
    p->alpha = alpha, p->beta = beta, p->used = ++g->clock;
    if (prim_make(g, p) != dnnl_success) {
        prim_drop(p);
        g->prim[at] = g->prim[--g->nprim];
        memset(&g->prim[g->nprim], 0, sizeof g->prim[g->nprim]);
        return fail(g, SBW_ENUMERIC, "oneDNN refused the matmul");
    }
    return p;
}

/* ---- the call ------------------------------------------------------------- */

/* Runs p on the operands (oneDNN's OpenMP threads set by the caller). */
static void prim_run(sbw_gemm *g, gemm_prim *p, const uint16_t *a, const uint16_t *b, float *c)
{
    dnnl_status_t s = dnnl_memory_set_data_handle(p->a, (void *)(uintptr_t)a);
    s = s ? s : dnnl_memory_set_data_handle(p->b, (void *)(uintptr_t)b);
    s = s ? s : dnnl_memory_set_data_handle(p->c, c);
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, p->a}, {DNNL_ARG_WEIGHTS, p->b}, {DNNL_ARG_DST, p->c}};
    s = s ? s : dnnl_primitive_execute(p->p, g->stream, 3, args);
    s = s ? s : dnnl_stream_wait(g->stream);
    if (s != dnnl_success)
        fail(g, SBW_ENUMERIC, "oneDNN failed to run the matmul");
}

void sbw_gemm_f(sbw_gemm *g, unsigned keep, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n,
                int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                float *C, int ldc)
{
    if (!g || m == 0 || n == 0 || k == 0) {
        cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    if (g->status)
        return;
    bool tra = ta != CblasNoTrans, trb = tb != CblasNoTrans;
    int la = 0, lb = 0, nt = sbw_blas_threads();
    const uint16_t *a = operand(g, keep & SBW_GEMM_KEEP_A, tra, m, k, A, lda, 0, &la);
    const uint16_t *b = a ? operand(g, keep & SBW_GEMM_KEEP_B, trb, k, n, B, ldb, 1, &lb) : NULL;
    if (!b)
        return;
    int key[9] = {tra, trb, m, n, k, la, lb, ldc, nt};
    /* oneDNN blocks for the OpenMP count a primitive is made with, and
     * runs it with the count in force: OpenBLAS's, for both */
    int saved = omp_get_max_threads();
    omp_set_num_threads(nt);
    gemm_prim *p = prim_get(g, key, alpha, beta);
    if (p)
        prim_run(g, p, a, b, C);
    omp_set_num_threads(saved);
    g->calls += p != NULL;
}
