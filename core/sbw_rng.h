/* sbw_rng.h -- GSL random number generators with explicit, reproducible
 * seeding, and independent streams for parallel blocks.
 *
 * A stream is identified by (seed, stream index): block b of a parallel
 * generator draws from stream b, so output is byte-identical whatever the
 * thread count.  The generator's 32-bit seed is a bijection of
 * (SplitMix64(seed) + stream) mod 2^32, so the first 2^32 streams of one
 * seed are distinct sequences.
 * The generator is GSL's MT19937 (gsl_rng_mt19937).
 */
#ifndef SBW_RNG_H
#define SBW_RNG_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

/* The seed used when the user gives none; printed in every output header. */
#define SBW_RNG_DEFAULT_SEED UINT64_C(20180101)

/* Allocates a generator for (seed, stream).  Errors: SBW_ENOMEM; *r is NULL
 * on failure. */
int sbw_rng_alloc(gsl_rng **r, uint64_t seed, uint64_t stream);

/* Re-seeds an existing generator to (seed, stream). */
void sbw_rng_reseed(gsl_rng *r, uint64_t seed, uint64_t stream);

/* Frees; NULL is a no-op. */
void sbw_rng_free(gsl_rng *r);

/* SplitMix64 finaliser of x (Steele, Lea, Flood 2014): a bijective mixer. */
uint64_t sbw_rng_mix(uint64_t x);

#endif
