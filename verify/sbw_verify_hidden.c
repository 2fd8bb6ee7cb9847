/* sbw_verify_hidden.c -- a Softmax head's hidden size read off its outputs
 * (sbw_verify_hidden.h). */
#include "sbw_verify_hidden.h"

#include "sbw_error.h"
#include "sbw_hidden.h"
#include "sbw_mat.h"
#include "sbw_reduce.h"
#include "sbw_synth.h"
#include "sbw_verify_util.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const char HS[] = "hidden-size";

/* The outputs of a random Softmax head with a word bias: sbw-synth's
 * lowrank language (log softmax of rank-D Gaussian logits of sd 2,
 * sbw_synth_lowrank), a word bias b ~ N(0, 1) added to every row and the
 * rows renormalised (log softmax(Z + 1 b^T): the row shift log softmax left
 * in Z cancels), then perturb * N(0, 1) added to every entry (the sabotage).
 * a is allocated here (N x M).  Errors: those of the generator, SBW_ENOMEM;
 * *a zeroed on failure. */
/* The bias's and the noise's sbw_rng streams: clear of the generator's
 * (stream g for row group g, UINT64_MAX for W). */
#define HS_STREAM_BIAS  (UINT64_C(1) << 62)
#define HS_STREAM_NOISE (HS_STREAM_BIAS + 1)

static int outputs(const sbw_verify_opts *o, size_t n, size_t m, size_t d, uint64_t seed,
                   sbw_mat *a)
{
    sbw_mat b = {0}, e = {0};
    *a = (sbw_mat){0};
    int st = sbw_mat_alloc(a, n, m);
    st = st ? st : sbw_synth_lowrank(a, d, 2.0, false, seed);
    st = st ? st : sbw_mat_alloc(&b, 1, m);
    st = st ? st : sbw_verify_util_gauss(&b, 1.0, seed, HS_STREAM_BIAS);
    if (!st && o->perturb != 0) {
        st = sbw_mat_alloc(&e, n, m);
        st = st ? st : sbw_verify_util_gauss(&e, o->perturb, seed, HS_STREAM_NOISE);
    }
    for (size_t i = 0; !st && i < n; i++)
        for (size_t j = 0; j < m; j++)
            SBW_MAT_AT(a, i, j) += SBW_MAT_AT(&b, 0, j);
    if (!st)
        sbw_verify_util_log_softmax(a, a);
    for (size_t i = 0; !st && e.data && i < n; i++)
        for (size_t j = 0; j < m; j++)
            SBW_MAT_AT(a, i, j) += SBW_MAT_AT(&e, i, j);
    sbw_mat_free(&b);
    sbw_mat_free(&e);
    if (st)
        sbw_mat_free(a);
    return st;
}

/* sbw-rank --hidden-size's estimate for the outputs a stored at precision
 * p (a is rounded to p here, then destroyed): the scan of what is stored,
 * the floor of p (the SVD's part bounded with ||A||_F >= sigma_1), the
 * double-centred spectrum (sbw_reduce's centring, rows then columns), sbw_hidden_estimate over
 * min(N-1, M-1) values. Errors: SBW_EINVAL (fewer than 2 rows or columns), SBW_ENOMEM, those of the
 * SVD and the estimate. */
static int estimate(sbw_mat *a, sbw_hidden_prec p, sbw_hidden *h)
{
    size_t n = a->rows, m = a->cols, k = n < m ? n : m;
    if (k < 2)
        return SBW_ERROR(SBW_EINVAL, "hidden-size: %zu x %zu outputs (need 2 x 2)", n, m);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++)
            SBW_MAT_AT(a, i, j) = sbw_hidden_round(p, SBW_MAT_AT(a, i, j));
    sbw_hidden_scan sc;
    sbw_hidden_scan_init(&sc);
    double *s = malloc(k * sizeof *s);
    int st = s ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "hidden-size: no memory");
    for (size_t i = 0; !st && i < n; i++)
        st = sbw_hidden_scan_hook(&sc, a->data + i * a->ld, i, 1, m);
    double w0 = sbw_verify_util_frob(a), *work = st ? NULL : malloc(m * sizeof *work);
    if (!st && !work)
        st = SBW_ERROR(SBW_ENOMEM, "hidden-size: no memory");
    if (!st) { /* (I - 11^T/N) A (I - 11^T/M) as sbw-rank --center both makes it */
        sbw_reduce_centre_rows(a);
        sbw_reduce_centre_cols(a, work);
    }
    free(work);
    st = st ? st : sbw_verify_util_svals(a, s);
    double floor = sbw_hidden_floor(&sc, p, n, m, DBL_EPSILON, w0);
    st = st ? st
            : sbw_hidden_estimate(s, k, (n < m ? n : m) - 1, floor,
                                  sbw_hidden_typical(&sc, p, n, m), h);
    sbw_hidden_scan_free(&sc);
    free(s);
    return st;
}

/* One head (N x M outputs, dimension D, from seed i): float64 and
 * bfloat16, three results each. */
static int hs_setting(const sbw_verify_opts *o, size_t n, size_t m, size_t d, unsigned i,
                      sbw_verify_list *out)
{
    uint64_t seed = sbw_verify_seed(o, HS, i);
    unsigned long long sd = (unsigned long long)seed;
    double want = (double)d + (double)o->offset;
    static const sbw_hidden_prec precs[] = {SBW_HPREC_F64, SBW_HPREC_BF16};
    int st = SBW_OK;
    for (size_t q = 0; !st && q < 2; q++) {
        sbw_hidden_prec p = precs[q];
        const char *pn = sbw_hidden_prec_name(p);
        sbw_mat a;
        sbw_hidden h;
        st = outputs(o, n, m, d, seed, &a);
        st = st ? st : estimate(&a, p, &h);
        sbw_mat_free(&a);
        if (st)
            break;
        /* float64 must be certified (every value past D within the
         * rounding); bfloat16 certified or probable (the drop where the
         * typical rounding floor cuts) */
        bool ok = h.status == SBW_HIDDEN_CERTIFIED ||
                  (p == SBW_HPREC_BF16 && h.status == SBW_HIDDEN_PROBABLE);
        char what[96];
        snprintf(what, sizeof what, "recovered hidden size, %s outputs", pn);
        st = sbw_verify_add(
            out, HS, what, (double)h.hidden, SBW_VERIFY_EQ, want,
            "softmax D=%zu bias, N=%zu M=%zu, status %s, gap %.2f decades, seed=%llu", d, n, m,
            sbw_hidden_status_name(h.status), h.gap_log10, sd);
        snprintf(what, sizeof what, "status %s (1: certified%s)", pn,
                 p == SBW_HPREC_F64 ? "" : " or probable");
        st = st ? st
                : sbw_verify_add(out, HS, what, ok ? 1.0 : 0.0, SBW_VERIFY_EQ, 1.0,
                                 "softmax D=%zu: %s, seed=%llu", d,
                                 sbw_hidden_status_name(h.status), sd);
        snprintf(what, sizeof what, "proven lower bound hidden_min, %s", pn);
        st = st ? st
                : sbw_verify_add(out, HS, what, (double)h.hidden_min, SBW_VERIFY_LE, want,
                                 "softmax D=%zu: Weyl's bound never exceeds D, seed=%llu", d, sd);
    }
    return st;
}

int sbw_verify_hidden_size(const sbw_verify_opts *o, sbw_verify_list *out)
{
    int st = hs_setting(o, 256, 64, 4, 0, out);
    if (o->full)
        st = st ? st : hs_setting(o, 1024, 256, 16, 1, out);
    return st;
}
