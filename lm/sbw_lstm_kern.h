/* sbw_lstm_kern.h -- the fused pointwise stages of one LSTM step
 * (sbw_lstm.c runs the GEMMs around them), float and double.
 *
 * Compiled with -O3 -march=native -ffast-math (Makefile rule for *_kern.c):
 * inputs must be finite, nothing here tests for NaN or Inf.  exp is the
 * inline sbw_vexp/sbw_vexpf (core/sbw_vexp.h), clamped, so the sigmoid
 * 1/(1 + e^-x) and tanh x = 1 - 2/(e^2x + 1) saturate to exact 0, 1, -1 for
 * large |x| and never overflow.  Rows run OpenMP, static schedule, on
 * `threads` threads (1 or less: the calling thread alone; small calls run
 * there too); each output element is computed by one thread from the same
 * inputs whatever the team, so the results do not depend on the thread
 * count.  The twin is sbw_lstm_ref.c (whole passes, in double, libm).
 *
 * Gate layout as in sbw_lstm.h: a row of 4H holds [i f g o], H each.
 */
#ifndef SBW_LSTM_KERN_H
#define SBW_LSTM_KERN_H

#include <stddef.h>

/* Forward stage of one step for `rows` sequences of hidden size hid.
 *   z (rows x 4H): in, x_t Wx^T + h_{t-1} Wh^T (no bias); out, the
 *     activated gates [sigma(i) sigma(f) tanh(g) sigma(o)] of z + b;
 *   b (4H) the bias; cprev (rows x H) c_{t-1};
 *   out: c (rows x H) c_t, h (rows x H) h_t.  c, h must not alias cprev. */
void sbw_lstm_kern_forward_f(size_t rows, size_t hid, const float *b, const float *cprev, float *z,
                             float *c, float *h, int threads);
void sbw_lstm_kern_forward_d(size_t rows, size_t hid, const double *b, const double *cprev,
                             double *z, double *c, double *h, int threads);

/* Backward stage of one step.
 *   gates (rows x 4H) the activated gates of the step, c (rows x H) c_t,
 *   cprev (rows x H) c_{t-1}, dh (rows x H) dL/dh_t (everything above and
 *   the recurrent part);
 *   dc (rows x H): in, dL/dc_t through c_{t+1} (zero at the chunk's end);
 *     out, dL/dc_{t-1} through c_t;
 *   out: dz (rows x 4H) dL/d(pre-activations) [di df dg do]. */
void sbw_lstm_kern_backward_f(size_t rows, size_t hid, const float *gates, const float *c,
                              const float *cprev, const float *dh, float *dc, float *dz,
                              int threads);
void sbw_lstm_kern_backward_d(size_t rows, size_t hid, const double *gates, const double *c,
                              const double *cprev, const double *dh, double *dc, double *dz,
                              int threads);

/* sum[k] += sum_r a[r][k] for a (rows x cols), rows in order (the bias
 * gradient); columns split over OpenMP threads, so no thread dependence. */
void sbw_lstm_kern_colsum_f(size_t rows, size_t cols, const float *a, float *sum, int threads);
void sbw_lstm_kern_colsum_d(size_t rows, size_t cols, const double *a, double *sum, int threads);

#endif
