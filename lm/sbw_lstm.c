/* sbw_lstm.c -- one LSTM layer over a chunk (sbw_lstm.h): the GEMMs
 * through CBLAS (row-major; float ones through sbw_gemm) around the fused pointwise stages of
 * sbw_lstm_kern.c.  The float and double versions are one body,
 * sbw_lstm_tmpl.h, instantiated once per precision (core/sbw_prec.h). */
#include "sbw_lstm.h"

#include "sbw_blas.h"
#include "sbw_error.h"
#include "sbw_gemm.h"
#include "sbw_lstm_kern.h"

#include <cblas.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

/* The checked sizes of a call: as size_t for indexing and as int for BLAS
 * (every GEMM dimension and leading dimension is one of the int ones);
 * and the pointwise stages' thread count. */
typedef struct lstm_dims {
    size_t in, hid, batch, steps, rows, g4; /* rows = T*B, g4 = 4H */
    int iin, ih, ib, irows, ig4;
    int kthreads;
    sbw_gemm *g; /* the shape's bfloat16 context (float calls), or NULL */
} lstm_dims;

/* Threads for the pointwise stages: 1 when BLAS is multithreaded (its
 * workers spin on the cores after each GEMM, and an OpenMP region right
 * after one waited ~10 ms for a core, 70 times a chunk, against ~0.05 ms
 * of pointwise work per step at I=400, H=1150, B=20), else OpenMP's count;
 * the kernels go parallel only for calls big enough to pay for a region
 * (SBW_LSTM_KERN_PAR_MIN), so at these sizes only the bias's column sums
 * do.  Rough timings of forward + backward on the shared 2-core machine
 * (float, OPENBLAS_CORETYPE=SkylakeX): OpenMP every step ~1970 ms with
 * 2 BLAS threads, ~2230 ms with 1; stages serial ~1000 ms with 2 BLAS
 * threads, ~630 ms all on one thread. */
static int lstm_kern_threads(void) { return sbw_blas_threads() > 1 ? 1 : omp_get_max_threads(); }

/* Every size >= 1, every GEMM dimension (I, H, 4H, B, T*B) within int and
 * the workspace's element count within size_t. */
static int lstm_check(const sbw_lstm_shape *s, lstm_dims *d)
{
    if (!s)
        return SBW_ERROR(SBW_EINVAL, "LSTM: no shape given");
    if (s->in == 0 || s->hid == 0 || s->batch == 0 || s->steps == 0)
        return SBW_ERROR(SBW_EINVAL, "LSTM: sizes must be >= 1, got I=%zu H=%zu B=%zu T=%zu", s->in,
                         s->hid, s->batch, s->steps);
    size_t lim = (size_t)INT_MAX;
    if (s->in > lim || s->hid > lim / 4 || s->batch > lim / s->steps)
        return SBW_ERROR(SBW_EINVAL,
                         "LSTM: I=%zu, 4H=4*%zu or T*B=%zu*%zu is beyond BLAS's int range", s->in,
                         s->hid, s->steps, s->batch);
    size_t rows = s->steps * s->batch, g4 = 4 * s->hid;
    if (rows > (SIZE_MAX - s->batch * s->hid) / g4)
        return SBW_ERROR(SBW_EINVAL, "LSTM: T*B=%zu rows of 4H=%zu overflow a size", rows, g4);
    *d = (lstm_dims){.in = s->in,
                     .hid = s->hid,
                     .batch = s->batch,
                     .steps = s->steps,
                     .rows = rows,
                     .g4 = g4,
                     .iin = (int)s->in,
                     .ih = (int)s->hid,
                     .ib = (int)s->batch,
                     .irows = (int)rows,
                     .ig4 = (int)g4,
                     .kthreads = lstm_kern_threads(),
                     .g = s->gemm};
    return SBW_OK;
}

size_t sbw_lstm_work_len(const sbw_lstm_shape *s)
{
    lstm_dims d;
    if (lstm_check(s, &d))
        return 0;
    return d.rows * d.g4 + d.batch * d.hid;
}

/* defines: step_forward_f(), sbw_lstm_forward_f(), step_backward_f(), chunk_gradients_f() */
/* defines: sbw_lstm_backward_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_lstm_tmpl.h"

/* defines: step_forward_d(), sbw_lstm_forward_d(), step_backward_d(), chunk_gradients_d() */
/* defines: sbw_lstm_backward_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_lstm_tmpl.h"
