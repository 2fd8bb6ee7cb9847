/* sbw_lm_train_ckpt.c -- an sbw-lm train checkpoint's counters and kind,
 * and reading checkpoint folders back (see sbw_lm_train_ckpt.h). */
#include "sbw_lm_train_ckpt.h"

#include "sbw_error.h"
#include "sbw_lm_train.h"
#include "sbw_preflight.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CT(member) offsetof(sbw_lm_train_ckpt_counters, member)
const sbw_ckpt_field sbw_lm_train_ckpt_counter_table[] = {
    {"step", CT(step), SBW_CKPT_SIZE, 1, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"epoch", CT(epoch), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"pos", CT(pos), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"tokens", CT(tokens), SBW_CKPT_SIZE, 0, 1e18, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nvalid", CT(nvalid), SBW_CKPT_SIZE, 0, 1e9, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nlog", CT(nlog), SBW_CKPT_SIZE, 0, 1e12, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"avg_count", CT(avg_count), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"seconds", CT(seconds), SBW_CKPT_DOUBLE, 0, 1e12, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"head_seconds", CT(head_seconds), SBW_CKPT_DOUBLE, 0, 1e12, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"averaging", CT(averaging), SBW_CKPT_BOOL, 0, 1, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"corpus_hash", CT(hash), SBW_CKPT_U64, 0, 2e19, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"adam_t", CT(adam_t), SBW_CKPT_U64, 0, 2e19, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"run_loss", CT(run_loss), SBW_CKPT_DOUBLE, 0, 1e300, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"run_tokens", CT(run_tokens), SBW_CKPT_SIZE, 0, 1e18, 0, NULL, SBW_CKPT_SHAPES, NULL},
    /* last: checkpoints written before it lack it (sbw_lm_train_ckpt_counters_get) */
    {"offset", CT(offset), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
};

_Static_assert(sizeof sbw_lm_train_ckpt_counter_table / sizeof *sbw_lm_train_ckpt_counter_table ==
                   SBW_LM_TRAIN_CKPT_NCOUNTERS,
               "SBW_LM_TRAIN_CKPT_NCOUNTERS counts the table");

const sbw_ckpt_field sbw_lm_train_ckpt_kind_table[] = {
    {"snapshot", offsetof(sbw_lm_train_ckpt_kind, snapshot), SBW_CKPT_BOOL, 0, 1, 0, NULL,
     SBW_CKPT_SHAPES, NULL},
};

int sbw_lm_train_ckpt_counters_get(const sbw_ckpt *c, sbw_lm_train_ckpt_counters *k, size_t bptt)
{
    size_t n = SBW_LM_TRAIN_CKPT_NCOUNTERS;
    bool old = !sbw_ckpt_value(c, sbw_lm_train_ckpt_counter_table[n - 1].key);
    int st = sbw_ckpt_get(c, sbw_lm_train_ckpt_counter_table, old ? n - 1 : n, k);
    if (!st && old)
        k->offset = k->pos * bptt; /* fixed-length chunks (the caller checks the range) */
    return st;
}

int sbw_lm_train_ckpt_check_hash(const sbw_ckpt *c, uint64_t saved, uint64_t hash)
{
    if (saved != hash)
        return SBW_ERROR(SBW_EDATA,
                         "%s: the checkpoint was trained on other data (corpus fingerprint "
                         "%016" PRIx64 ", --data gives %016" PRIx64 ")",
                         sbw_ckpt_path(c), saved, hash);
    return SBW_OK;
}

int sbw_lm_train_ckpt_saved_opts(const char *dir, const sbw_lm_opts *o, sbw_lm_opts *saved)
{
    sbw_ckpt *c = NULL;
    *saved = *o;
    int st = sbw_ckpt_open(&c, dir);
    st = st ? st : sbw_lm_opts_get(c, saved);
    sbw_ckpt_close(c);
    return st;
}

/* Whether c's generation has array stem (a snapshot keeps only theta). */
static bool has_array(const sbw_ckpt *c, const char *stem)
{
    size_t r, k;
    bool yes = sbw_ckpt_array_shape(c, stem, &r, &k) == SBW_OK;
    sbw_error_clear();
    return yes;
}

/* Whether c is a snapshot (its theta is the evaluation parameters) or a
 * full checkpoint (whose mean, when averaging, is array avg). */
static int is_snapshot(const sbw_ckpt *c, bool *snap)
{
    if (!sbw_ckpt_value(c, "snapshot")) {
        *snap = !has_array(c, "state"); /* written before the row existed */
        return SBW_OK;
    }
    sbw_lm_train_ckpt_kind k = {false};
    int st = sbw_ckpt_get(c, sbw_lm_train_ckpt_kind_table, 1, &k);
    *snap = !st && k.snapshot;
    return st;
}

/* The array eval uses: theta, or avg when a full checkpoint says it is
 * averaging (required then: a missing or damaged avg is an error, never a
 * silent fall back to the last iterate). */
static int eval_stem(const sbw_ckpt *c, bool averaging, const char **stem)
{
    bool snap = false;
    int st = is_snapshot(c, &snap);
    *stem = averaging && !snap ? "avg" : "theta";
    return st;
}

int sbw_lm_train_ckpt_load(const char *dir, const sbw_corpus *corpus, sbw_lm_opts *o, sbw_lm *lm,
                           double **theta)
{
    *theta = NULL;
    sbw_ckpt *c = NULL;
    sbw_lm_train_ckpt_counters k;
    sbw_lm_opts_init(o);
    int st = sbw_ckpt_open(&c, dir);
    st = st ? st : sbw_lm_opts_get(c, o);
    st = st ? st : sbw_lm_train_ckpt_counters_get(c, &k, 1);
    st = st ? st : sbw_lm_train_ckpt_check_hash(c, k.hash, corpus->hash);
    st = st ? st : sbw_lm_setup(lm, &o->arch, corpus->nwords);
    const char *stem = "theta";
    st = st ? st : eval_stem(c, k.averaging, &stem);
    char what[160] = "";
    if (!st)
        snprintf(what, sizeof what, "the model's %zu parameters", lm->nparam);
    st = st ? st : sbw_preflight_memory(8.0 * (double)lm->nparam, what);
    double *x = st ? NULL : calloc(lm->nparam ? lm->nparam : 1, sizeof *x);
    if (!st && !x)
        st = SBW_ERROR(SBW_ENOMEM, "out of memory for %zu parameters", lm->nparam);
    if (!st && (st = sbw_ckpt_load_checked(c, stem, x, lm->nparam, 1, SBW_LM_TRAIN_PARAM_MAX)) &&
        strcmp(stem, "avg") == 0)
        st = SBW_ERROR(st, "%s (%s says NT-ASGD is averaging: eval uses those parameters)",
                       sbw_error_reason(), sbw_ckpt_path(c));
    sbw_ckpt_close(c);
    if (st)
        free(x);
    else
        *theta = x;
    return st;
}
