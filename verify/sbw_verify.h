/* sbw_verify.h -- the papers' claims as checks that can fail: the registry
 * (name, one-line statement, source, what would make the check fail, the
 * function that runs it), the settings of a run, and the result type.
 *
 * Each claim runs on generated matrices (synth), fitted heads (models) and
 * spectra (analysis), for a few sizes and seeds, and appends one result per
 * setting: the quantity measured, its value, the relation it must satisfy
 * against a limit (a tolerance or a bound), and whether it did.
 *
 * Sabotage.  A check that cannot fail proves nothing, so every run takes
 * knobs that break it on purpose (tests/test_verify.c turns each claim's
 * knob and sees it FAIL): the zero/one defaults leave the checks as stated;
 * the registry's `breaks` line says which knob breaks which claim.
 *
 * Sources: MoS = Yang, Dai, Salakhutdinov, Cohen 2018, "Breaking the
 * Softmax Bottleneck"; LMS = Ganea, Gelly, Becigneul, Severyn 2019,
 * "Breaking the Softmax Bottleneck via Learnable Monotonic Pointwise
 * Non-linearities".
 */
#ifndef SBW_VERIFY_H
#define SBW_VERIFY_H

#include "sbw_progress.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a run is sized and (for the tests) broken. */
typedef struct sbw_verify_opts {
    uint64_t seed; /* every generated matrix derives from it (printed per setting) */
    bool full;     /* larger sizes and more samples */
    int threads;   /* for fits; 0 = every core */
    /* sabotage knobs (defaults: 1, 0, 0, 0, 0) */
    double tol_scale;   /* every tolerance and numerical-rank threshold times this */
    double perturb;     /* size of a deliberate perturbation of what is checked */
    double bound_shift; /* lower bounds times (1 + bound_shift), matched sides shifted by it */
    long offset;        /* added to the claim's critical integer (a rank, a dimension) */
    size_t fit_steps;   /* 0: each fit's own step limit; else every optimisation stops here */
} sbw_verify_opts;

/* The defaults: seed SBW_RNG_DEFAULT_SEED, quick sizes, nothing broken. */
void sbw_verify_opts_init(sbw_verify_opts *o);

typedef enum sbw_verify_rel {
    SBW_VERIFY_LE = 0, /* measured <= limit */
    SBW_VERIFY_LT,
    SBW_VERIFY_GE,
    SBW_VERIFY_GT,
    SBW_VERIFY_EQ /* exact equality (ranks, counts) */
} sbw_verify_rel;

/* "<=", "<", ">=", ">", "==". */
const char *sbw_verify_rel_name(sbw_verify_rel rel);

/* One claim at one setting. */
typedef struct sbw_verify_result {
    const char *claim;  /* the registry's name (static) */
    char setting[192];  /* sizes, seed, what was varied */
    char quantity[96];  /* what was measured */
    double value;       /* measured */
    sbw_verify_rel rel; /* value rel limit must hold */
    double limit;       /* tolerance or bound */
    bool pass;
} sbw_verify_result;

/* A growing list of results. */
typedef struct sbw_verify_list {
    sbw_verify_result *r;
    size_t n, cap;
} sbw_verify_list;

/* Appends a result, pass = (value rel limit) (NaN never passes).  The
 * setting is printf-formatted (truncated to fit).  Errors: SBW_ENOMEM; the
 * list is unchanged on failure. */
int sbw_verify_add(sbw_verify_list *l, const char *claim, const char *quantity, double value,
                   sbw_verify_rel rel, double limit, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Frees the results; the list is zeroed. */
void sbw_verify_list_free(sbw_verify_list *l);

/* A claim's checks: append results for every setting to out.  Errors
 * (a failed computation, SBW_ENOMEM) are statuses with reasons; a claim
 * that does not hold is a result with pass = false, not an error.  On
 * failure out keeps the results appended before it (a valid list). */
typedef int (*sbw_verify_fn)(const sbw_verify_opts *o, sbw_verify_list *out);

typedef struct sbw_verify_claim {
    const char *name;      /* "property1", for --only */
    const char *statement; /* one line */
    const char *source;    /* paper, item, section */
    const char *fails;     /* what would make the check fail (the report prints it) */
    const char *breaks;    /* the sabotage knob that breaks it in tests/test_verify.c */
    sbw_verify_fn run;
} sbw_verify_claim;

/* The registry, in the order. */
extern const sbw_verify_claim sbw_verify_claims[];
extern const size_t sbw_verify_nclaims;

/* The claim called name, or NULL. */
const sbw_verify_claim *sbw_verify_find(const char *name);

/* "property1, property2, ..." (static). */
const char *sbw_verify_names(void);

/* Parses a comma list of claim names into sel[sbw_verify_nclaims] (all
 * false first).  NULL or "" selects every claim.  Errors: SBW_EINVAL
 * naming the unknown claim and listing the valid names; on failure sel
 * holds the claims named before the unknown one. */
int sbw_verify_select(const char *list, bool *sel);

/* Runs claim c with o, appending to out; progress (may be NULL) is
 * advanced by one when it is done (also on failure).  Errors: those of the
 * claim; on failure out keeps the results appended before it. */
int sbw_verify_run(const sbw_verify_claim *c, const sbw_verify_opts *o, sbw_verify_list *out,
                   sbw_progress *progress);

/* Whether every result of claim name in l passed (and there is one). */
bool sbw_verify_claim_passed(const sbw_verify_list *l, const char *name);

/* The seed of setting i of claim name: o->seed mixed (sbw_rng_mix) with a
 * hash of the name and i, so each setting draws independently and
 * reproducibly, and --only does not change a claim's numbers. */
uint64_t sbw_verify_seed(const sbw_verify_opts *o, const char *name, unsigned i);

#endif
