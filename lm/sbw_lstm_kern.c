/* sbw_lstm_kern.c -- the LSTM's fused pointwise stages (see
 * sbw_lstm_kern.h; built with -ffast-math: finite inputs only).  The body
 * is sbw_lstm_kern_tmpl.h, instantiated once per precision (core/sbw_prec.h). */
#include "sbw_lstm_kern.h"

#include "sbw_vexp.h"

#include <stddef.h>

/* Below this many elements a call runs on one thread: about 1 ms of work
 * (3-4 ns an element), the least that pays for an OpenMP region when the
 * other cores are busy (sbw_lstm.c: lstm_kern_threads).  An LSTM step at
 * B=20, H=1150 is 23000 elements, so per-step stages run serially and
 * the chunk's column sums (T*B x 4H) in parallel.  Results are the same
 * either way. */
#define SBW_LSTM_KERN_PAR_MIN ((size_t)1 << 18)
/* Columns per task of the column sums (a few KB of sums kept in cache). */
#define SBW_LSTM_KERN_COLS ((size_t)512)

/* defines: sigm_f(), tanh_f(), sbw_lstm_kern_forward_f(), sbw_lstm_kern_backward_f() */
/* defines: sbw_lstm_kern_colsum_f() */
#define SBW_PREC 32
#include "sbw_prec.h"
#include "sbw_lstm_kern_tmpl.h"

/* defines: sigm_d(), tanh_d(), sbw_lstm_kern_forward_d(), sbw_lstm_kern_backward_d() */
/* defines: sbw_lstm_kern_colsum_d() */
#define SBW_PREC 64
#include "sbw_prec.h"
#include "sbw_lstm_kern_tmpl.h"
