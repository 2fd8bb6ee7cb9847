/* sbw_lstm.c -- one LSTM layer over a chunk (sbw_lstm.h): the GEMMs
 * through CBLAS (row-major) around the fused pointwise stages of
 * sbw_lstm_kern.c.  The float and double versions are one body,
 * sbw_lstm_tmpl.h, included once per type. */
#include "sbw_lstm.h"

#include "sbw_error.h"
#include "sbw_lstm_kern.h"

#include <cblas.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

/* The checked sizes of a call: as size_t for indexing and as int for BLAS
 * (every GEMM dimension and leading dimension is one of the int ones). */
typedef struct lstm_dims {
    size_t in, hid, batch, steps, rows, g4; /* rows = T*B, g4 = 4H */
    int iin, ih, ib, irows, ig4;
} lstm_dims;

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
    *d = (lstm_dims){s->in,      s->hid,      s->batch,      s->steps,  rows,   g4,
                     (int)s->in, (int)s->hid, (int)s->batch, (int)rows, (int)g4};
    return SBW_OK;
}

size_t sbw_lstm_work_len(const sbw_lstm_shape *s)
{
    lstm_dims d;
    if (lstm_check(s, &d))
        return 0;
    return d.rows * d.g4 + d.batch * d.hid;
}

#define LSTM_T     float
#define LSTM_FN(n) n##_f
#define LSTM_GEMM  cblas_sgemm
#include "sbw_lstm_tmpl.h"
#undef LSTM_T
#undef LSTM_FN
#undef LSTM_GEMM

#define LSTM_T     double
#define LSTM_FN(n) n##_d
#define LSTM_GEMM  cblas_dgemm
#include "sbw_lstm_tmpl.h"
#undef LSTM_T
#undef LSTM_FN
#undef LSTM_GEMM
