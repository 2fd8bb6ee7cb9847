/* sbw_synth_blas.h -- the BLAS calls of the generators, in a file of their
 * own because OpenBLAS's <cblas.h> and GSL's gsl_cblas.h (which
 * gsl_randist.h brings in) cannot be included together. */
#ifndef SBW_SYNTH_BLAS_H
#define SBW_SYNTH_BLAS_H

#include <stddef.h>

/* out (rows x m, leading dim ldo) = s * H W^T with H (rows x r, dense) and
 * W (m x r, leading dim ldw): cblas_dgemm. */
void sbw_synth_blas_logits(size_t rows, size_t m, size_t r, double s, const double *h,
                           const double *w, size_t ldw, double *out, size_t ldo);

/* Switches OpenBLAS to one thread and returns the previous count;
 * sbw_synth_blas_serial_end restores it.  The generators call dgemm from
 * their own OpenMP threads on fixed-shape panels, and OpenBLAS's internal
 * split of a call depends on its thread count and changes the rounding of
 * edge tiles; one thread per call keeps the output byte-identical for any
 * --threads (and avoids oversubscription).  Process-wide: a caller running
 * other BLAS work concurrently sees one BLAS thread meanwhile. */
int sbw_synth_blas_serial_begin(void);
void sbw_synth_blas_serial_end(int threads);

#endif
