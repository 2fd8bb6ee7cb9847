/* sbw_rng.c -- seeded GSL generators and per-block streams. */
#include "sbw_rng.h"

#include "sbw_err.h"

uint64_t sbw_rng_mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* MT19937 takes a 32-bit seed; 0 selects GSL's default, so avoid it. */
static unsigned long stream_seed(uint64_t seed, uint64_t stream)
{
    uint64_t h = sbw_rng_mix(sbw_rng_mix(seed) ^ stream);
    unsigned long s = (unsigned long)(h & 0xffffffffu);
    return s ? s : 1;
}

int sbw_rng_alloc(gsl_rng **r, uint64_t seed, uint64_t stream)
{
    *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!*r)
        return SBW_ERROR(SBW_ENOMEM, "cannot allocate a random number generator");
    gsl_rng_set(*r, stream_seed(seed, stream));
    return SBW_OK;
}

void sbw_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream)
{
    gsl_rng_set(r, stream_seed(seed, stream));
}

void sbw_rng_free(gsl_rng *r)
{
    if (r)
        gsl_rng_free(r);
}
