/* sbw_lstm.h -- one LSTM layer over a chunk of T time steps of B
 * sequences (truncated BPTT), in float (the training path) and double (the
 * gradient-check and export path); the same code for both.
 *
 * Cell (Hochreiter & Schmidhuber 1997, with the forget gate; PyTorch's
 * gate order and single bias):
 *   [i f g o] = x_t Wx^T + h_{t-1} Wh^T + b           (4H pre-activations)
 *   i, f, o = sigma(.), g = tanh(.)
 *   c_t = f * c_{t-1} + i * g,   h_t = o * tanh(c_t)
 *
 * Layout: everything row-major and time-major: row t*B + j of x, hs, cs,
 * gates is sequence j at step t.  Parameters of a layer:
 *   wx (4H x I), wh (4H x H), b (4H): rows [0,H) gate i, [H,2H) f,
 *   [2H,3H) g, [3H,4H) o.
 *
 * How it runs: the input part of every step as one GEMM
 * (T*B x I) x (I x 4H) up front; per step one GEMM h_{t-1} Wh^T (B x 4H)
 * and a fused pointwise stage (sbw_lstm_kern).  Backward walks the steps
 * in reverse with one GEMM per step for dh_{t-1} = dgates_t Wh, then
 * three GEMMs over the whole chunk: dWx += dG^T X, dWh += dG^T H_{prev},
 * dx = dG Wx.  BLAS threads are whatever the process set (OpenBLAS);
 * the pointwise stages run OpenMP over rows, static schedule, so results
 * are deterministic for a given thread count.
 */
#ifndef SBW_LSTM_H
#define SBW_LSTM_H

#include <stddef.h>

struct sbw_gemm;

typedef struct sbw_lstm_shape {
    size_t in;    /* input size I >= 1 */
    size_t hid;   /* hidden size H >= 1 */
    size_t batch; /* sequences B >= 1 */
    size_t steps; /* time steps T >= 1 */
    /* The float calls' GEMMs: NULL runs them in float32 (OpenBLAS); a
     * bfloat16 context (core/sbw_gemm.h, borrowed) runs them with
     * bfloat16 inputs.  Forward keeps the copies of x, Wx, Wh (and
     * backward of hs) there for the chunk, and drops them when the next
     * forward begins; backward's dz copy is dropped before it returns.
     * The double calls ignore it. */
    struct sbw_gemm *gemm;
} sbw_lstm_shape;

/* Elements (of the call's type) of the workspace sbw_lstm_backward_* needs. */
size_t sbw_lstm_work_len(const sbw_lstm_shape *s);

/* Forward over the chunk.
 *   x (T*B x I), h0, c0 (B x H): the state carried in (read only);
 *   out: hs (T*B x H) the outputs h_t, cs (T*B x H) the cells c_t,
 *   gates (T*B x 4H) the activated gates [i f g o] (kept for backward).
 * The state to carry into the next chunk is the last B rows of hs and cs.
 * Errors: SBW_EINVAL (a size 0, a GEMM dimension beyond INT_MAX), found
 * before anything is written: the outputs are untouched on failure; with
 * a bfloat16 context, its failure (sbw_gemm_status: memory, oneDNN),
 * after which the outputs are unspecified. */
int sbw_lstm_forward_f(const sbw_lstm_shape *s, const float *wx, const float *wh, const float *b,
                       const float *x, const float *h0, const float *c0, float *hs, float *cs,
                       float *gates);
int sbw_lstm_forward_d(const sbw_lstm_shape *s, const double *wx, const double *wh, const double *b,
                       const double *x, const double *h0, const double *c0, double *hs, double *cs,
                       double *gates);

/* Backward over the chunk after forward with the same arguments.
 *   dhs (T*B x H): in, dL/dh_t from the layers above; clobbered (the
 *   recurrent gradient is added into it).  No gradient enters from beyond
 *   the chunk (truncated BPTT) and none is returned for h0, c0.
 *   out: dx (T*B x I) overwritten with dL/dx (NULL: not formed);
 *   dwx, dwh, db accumulated (+=) with the parameter gradients;
 *   work: sbw_lstm_work_len(s) elements, caller-owned scratch.
 * Errors: as forward; on failure nothing is written or accumulated,
 * but for a bfloat16 context's failure, which leaves them unspecified. */
int sbw_lstm_backward_f(const sbw_lstm_shape *s, const float *wx, const float *wh, const float *x,
                        const float *h0, const float *c0, const float *hs, const float *cs,
                        const float *gates, float *dhs, float *dx, float *dwx, float *dwh,
                        float *db, float *work);
int sbw_lstm_backward_d(const sbw_lstm_shape *s, const double *wx, const double *wh,
                        const double *x, const double *h0, const double *c0, const double *hs,
                        const double *cs, const double *gates, double *dhs, double *dx, double *dwx,
                        double *dwh, double *db, double *work);

#endif
