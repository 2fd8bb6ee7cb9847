/* sbw_synth_blas.c -- BLAS calls of the generators (see sbw_synth_blas.h). */
#include "sbw_synth_blas.h"

#include "sbw_blas.h"

#include <cblas.h>

void sbw_synth_blas_logits(size_t rows, size_t m, size_t r, double s, const double *h,
                           const double *w, size_t ldw, double *out, size_t ldo)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, (int)m, (int)r, s, h, (int)r, w,
                (int)ldw, 0.0, out, (int)ldo);
}

int sbw_synth_blas_serial_begin(void) { return sbw_blas_threads_push(1); }

void sbw_synth_blas_serial_end(int threads) { sbw_blas_threads_pop(threads); }
