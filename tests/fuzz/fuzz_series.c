/* fuzz_series.c -- sbw-series' reader and verdicts (analysis/sbw_series) on
 * fuzzed bytes: the bytes read as "VALUE" / "LABEL<TAB>VALUE" lines, then
 * summarised, counted against a value of their own and ordered both ways.
 *
 * Properties: a failure leaves a reason and an empty series; a series read
 * has n >= 1 finite values and a label each; min <= every value <= max,
 * ups + downs <= n - 1, the trend word agrees with ups and downs;
 * below + equal + above = n; each order is a permutation, sorted, with
 * equal values in input order.
 */
#include "fuzz_util.h"

#include "sbw_error.h"
#include "sbw_series.h"

#include <math.h>
#include <string.h>

static void check_order(const sbw_series *s, bool desc)
{
    size_t *idx = malloc((2 * s->n + 1) * sizeof *idx);
    FUZZ_REQUIRE(idx != NULL);
    sbw_series_order(s->value, s->n, desc, idx, idx + s->n);
    for (size_t i = 1; i < s->n; i++) {
        double a = s->value[idx[i - 1]], b = s->value[idx[i]];
        FUZZ_REQUIRE(desc ? a >= b : a <= b);
        FUZZ_REQUIRE(a != b || idx[i - 1] < idx[i]);
    }
    free(idx);
}

static void check_series(const sbw_series *s)
{
    sbw_series_summary r;
    FUZZ_REQUIRE(sbw_series_summarise(s->value, s->n, &r) == SBW_OK);
    for (size_t i = 0; i < s->n; i++) {
        FUZZ_REQUIRE(isfinite(s->value[i]) && s->label[i] != NULL && s->label[i][0] != '\0');
        FUZZ_REQUIRE(r.min <= s->value[i] && s->value[i] <= r.max);
    }
    FUZZ_REQUIRE(r.ups + r.downs <= s->n - 1);
    const char *t = sbw_series_trend_name(r.trend);
    if (s->n == 1)
        FUZZ_REQUIRE(strcmp(t, "none") == 0);
    else if (r.ups && r.downs)
        FUZZ_REQUIRE(strcmp(t, "mixed") == 0);
    else if (!r.ups && !r.downs)
        FUZZ_REQUIRE(strcmp(t, "constant") == 0);
    size_t below, equal, above, first;
    sbw_series_against(s->value, s->n, s->value[s->n / 2], &below, &equal, &above, &first);
    FUZZ_REQUIRE(below + equal + above == s->n && equal >= 1 && first <= s->n / 2);
    check_order(s, true);
    check_order(s, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t empty[1];
    /* fmemopen needs a size: an empty input is one byte, consumed first */
    FILE *f = fmemopen(size ? (void *)data : (void *)empty, size ? size : 1, "r");
    FUZZ_REQUIRE(f != NULL);
    if (size == 0)
        (void)fgetc(f);
    sbw_series s;
    int st = sbw_series_read(&s, f, "fuzz");
    fclose(f);
    if (st) {
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0' && s.n == 0 && s.label == NULL);
        return 0;
    }
    check_series(&s);
    sbw_series_free(&s);
    return 0;
}
