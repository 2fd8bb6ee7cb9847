/* fuzz_argmax_merge.c -- sbw-argmax --merge (analysis/sbw_argmax_shard):
 * the input is up to 4 shard tables separated by "%%" lines, merged in
 * the order given and in the reverse order.
 *
 * Properties: a failure leaves a reason and nothing in the result; the two
 * orders both fail or give the same answers; a merge that succeeds has
 * one answer per listed word, each word below M, each field in its range,
 * a name for every listed word when the shards name them, and a summary
 * that adds up (checked = the list's length = argmaxable + unargmaxable
 * + undecided = the sum of the stages).
 */
#include "fuzz_util.h"

#include "sbw_argmax_shard.h"
#include "sbw_error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SHARDS = 4 };

/* Two words' answers are the same (doubles by their bits: NaN too). */
static bool same_word(const sbw_argmax_word *a, const sbw_argmax_word *b)
{
    return a->word == b->word && a->argmaxable == b->argmaxable && a->reason == b->reason &&
           fuzz_bits64(a->margin) == fuzz_bits64(b->margin) &&
           fuzz_bits64(a->bound) == fuzz_bits64(b->bound) &&
           fuzz_bits64(a->cert_norm) == fuzz_bits64(b->cert_norm) && a->support == b->support &&
           a->other == b->other && a->stage == b->stage && a->rounds == b->rounds;
}

static void check_merged(const sbw_argmax_shard_merged *g)
{
    const sbw_argmax_file_res *r = &g->res;
    const sbw_argmax_summary *s = &r->sum;
    size_t m = r->w.rows;
    FUZZ_REQUIRE(r->nwords == r->list_len && s->checked == r->nwords);
    FUZZ_REQUIRE(s->argmaxable + s->unargmaxable + s->undecided == s->checked);
    FUZZ_REQUIRE(s->by_duplicates + s->by_prefilter + s->by_lp == s->checked);
    FUZZ_REQUIRE(g->file && g->bias && g->vocab && (g->nr > 0) == (g->max_prob != NULL));
    for (size_t t = 0; t < r->nwords; t++) {
        const sbw_argmax_word *w = &r->out[t];
        FUZZ_REQUIRE(w->word < m && w->other <= m && w->stage >= 0 && w->stage <= 2);
        FUZZ_REQUIRE(w->argmaxable >= -1 && w->argmaxable <= 1 && w->rounds >= 0);
        FUZZ_REQUIRE((int)w->reason >= 0 && w->reason <= SBW_ARGMAX_UNDECIDED);
        FUZZ_REQUIRE(!*g->vocab || (r->names && r->names[w->word]));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[MAX_SHARDS] = {0};
    size_t len[MAX_SHARDS] = {0};
    size_t n = fuzz_split(data, size, part, len, MAX_SHARDS);
    if (n == 0)
        n = 1;
    char path[MAX_SHARDS][512], *fwd[MAX_SHARDS], *rev[MAX_SHARDS];
    for (size_t k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "shard%zu.tsv", k);
        fuzz_file(name, len[k] ? part[k] : data, len[k] ? len[k] : (n == 1 ? size : 0), path[k],
                  sizeof path[k]);
        fwd[k] = path[k];
        rev[n - 1 - k] = path[k];
    }
    setenv("SBW_MAX_MEMORY", "64M", 1); /* a fuzzed head size is refused, not allocated */
    sbw_argmax_shard_merged a, b;
    int sa = sbw_argmax_shard_merge(fwd, n, &a);
    if (sa)
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0' && !a.res.out && !a.file);
    int sb = sbw_argmax_shard_merge(rev, n, &b);
    if (sb)
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0' && !b.res.out && !b.file);
    FUZZ_REQUIRE((sa == 0) == (sb == 0));
    if (!sa) {
        check_merged(&a);
        FUZZ_REQUIRE(a.res.nwords == b.res.nwords);
        for (size_t t = 0; t < a.res.nwords; t++)
            FUZZ_REQUIRE(same_word(&a.res.out[t], &b.res.out[t]));
    }
    sbw_argmax_shard_merged_free(&a);
    sbw_argmax_shard_merged_free(&b);
    return 0;
}
