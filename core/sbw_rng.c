/* sbw_rng.c -- seeded GSL generators and per-block streams. */
#include "sbw_rng.h"

#include "sbw_error.h"

uint64_t sbw_rng_mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* MurmurHash3's 32-bit finaliser: a bijection of uint32_t. */
static uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

/* MT19937 takes a 32-bit seed (gsl_rng_set keeps the low 32 bits), so a
 * hash of (seed, stream) truncated to 32 bits would give two of k streams
 * the same sequence with probability ~ k^2 / 2^33 -- about one pair among
 * the 1e5 one-row blocks of a 1e5 x 1e5 language.  Instead the seed is a
 * bijection of (base(seed) + stream) mod 2^32: the first 2^32 streams of
 * one seed never share a sequence (GSL maps seed 0 to its default 4357, so
 * the two streams landing on 0 and 4357 do). */
static unsigned long stream_seed(uint64_t seed, uint64_t stream)
{
    uint32_t base = (uint32_t)(sbw_rng_mix(seed) >> 32);
    return (unsigned long)fmix32(base + (uint32_t)stream);
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
