/* sbw_lstm_ref.h -- the naive twin of the LSTM layer (sbw_lstm.h): plain
 * loops in double straight from the cell's equations, libm's exp and tanh,
 * no BLAS, no threads.  A test oracle: slow, never called by production
 * code.
 *
 * Same signatures and contracts as sbw_lstm_forward_d / _backward_d (the
 * gates, hs, cs it writes are the same quantities; backward accumulates
 * into dwx, dwh, db, overwrites dx unless NULL, clobbers dhs with the
 * recurrent gradient, and uses at most sbw_lstm_work_len(s) elements of
 * work).  Backward computes every gradient step by step, inside the time
 * loop, instead of by the fast path's chunk-wide GEMMs.
 * Errors: SBW_EINVAL for a size 0 or a NULL array (dx excepted), checked
 * before anything is written.
 */
#ifndef SBW_LSTM_REF_H
#define SBW_LSTM_REF_H

#include "sbw_lstm.h"

/* The contracts of sbw_lstm_forward_d / _backward_d (above for the
 * errors); on failure nothing is written or accumulated. */
int sbw_lstm_ref_forward(const sbw_lstm_shape *s, const double *wx, const double *wh,
                         const double *b, const double *x, const double *h0, const double *c0,
                         double *hs, double *cs, double *gates);
int sbw_lstm_ref_backward(const sbw_lstm_shape *s, const double *wx, const double *wh,
                          const double *x, const double *h0, const double *c0, const double *hs,
                          const double *cs, const double *gates, double *dhs, double *dx,
                          double *dwx, double *dwh, double *db, double *work);

#endif
