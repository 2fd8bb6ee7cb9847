/* sbw_rsvd_rank.h -- what a top-K spectrum (sbw_rsvd.h) can honestly
 * decide of sbw-rank's named measures (sbw_rank.h), each with its status
 * and bounds.
 *
 * From the sketch's values s_j of B and their intervals [lo_j, hi_j]
 * (sbw_rsvd_bounds: they hold with probability at least
 * 1 - SBW_RSVD_FAILURE), the exact ||A||_F^2, and the scale of the
 * entries' roundoff (w0 = max(sigma_1, the uncentred bound), as
 * sbw_rank_estimate_scaled), for j < K:
 *
 *   counting rules (nr, numpy, pytorch, julia): a threshold c eps w0, so
 *     itself an interval [thr_lo, thr_hi] from sigma_1's.  lower = #{lo_j >
 *     thr_hi}.  When every value past the K-th is known to lie at or below
 *     thr_lo -- K = min(N, M), or the (K+1)-th value's upper bound (from
 *     the oversampled sketch) is <= thr_lo -- the rank is decided within
 *     [lower, #{hi_j > thr_lo}] ("estimated", the point value counting
 *     the s_j); otherwise it is "at_least" lower (at least K when the K-th
 *     value clears the threshold).
 *   eps_eff_e: the smallest r with tail(r) = ||A||_F^2 - sum_{j<r}
 *     sigma_j^2 <= e ||A||_F^2, decided when the tail computed from the
 *     lo_j already falls below e within K ("estimated", between the r of
 *     the hi_j and the r of the lo_j); else "at_least" (K + 1 when even
 *     the hi_j leave too much beyond K).
 *   stable: ||A||_F^2 / sigma_1^2, "estimated" in [F^2/hi_0^2, F^2/lo_0^2].
 *   gap, entropy: they need the whole spectrum: "undecided" (NAN).
 */
#ifndef SBW_RSVD_RANK_H
#define SBW_RSVD_RANK_H

#include "sbw_rank.h"
#include "sbw_rsvd.h"

typedef struct sbw_rsvd_rank {
    const char *name;   /* sbw_rank_measures' names, in its order (static) */
    double rank;        /* the point value; for "at_least" the lower bound; NAN if undecided */
    const char *status; /* "estimated", "at_least" or "undecided" (static) */
    double lower;       /* a lower bound (NAN if undecided) */
    double upper;       /* an upper bound (NAN unless estimated) */
    double threshold;   /* the cut at the point values: a sigma, a tail fraction; NAN */
    const char *on;     /* "sigma", "tail_energy" or "none" (static) */
    const char *rule;   /* the rule in one line (static) */
} sbw_rsvd_rank;

/* out[SBW_RANK_NMEASURES] for the sketch rs (sbw_rsvd_run's), at roundoff
 * eps in (0, 1), PyTorch's atol >= 0.  Errors: SBW_EINVAL (eps, atol, an
 * empty sketch); out untouched on failure. */
int sbw_rsvd_rank_measures(const sbw_rsvd *rs, double eps, double atol, sbw_rsvd_rank *out);

#endif
