/* sbw_rsvd_draw.c -- Gaussian sketch and test matrices for sbw_rsvd. */
#include "sbw_rsvd_draw.h"

#include "sbw_rng.h"

#include <gsl/gsl_randist.h>

int sbw_rsvd_draw(double *x, size_t m, size_t c, uint64_t seed, uint64_t stream0)
{
    gsl_rng *g = NULL;
    int st = sbw_rng_alloc(&g, seed, stream0);
    for (size_t j = 0; !st && j < c; j++) {
        sbw_rng_reseed(g, seed, stream0 + j);
        for (size_t i = 0; i < m; i++)
            x[j * m + i] = gsl_ran_gaussian_ziggurat(g, 1.0);
    }
    sbw_rng_free(g);
    return st;
}
