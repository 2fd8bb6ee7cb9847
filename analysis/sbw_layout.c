/* sbw_layout.c -- the mirrored structs' layout, by name (sbw_layout.h). */
#include "sbw_layout.h"

#include "sbw_argmax.h"
#include "sbw_bound.h"
#include "sbw_compare.h"
#include "sbw_error.h"
#include "sbw_kl.h"
#include "sbw_logp.h"
#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_rank.h"
#include "sbw_spectra.h"

#include <string.h>

typedef struct layout_field {
    const char *type, *field;
    size_t offset, size;
} layout_field;

/* Every field of every mirrored struct, in header order: a struct's fields
 * listed here are all of its fields (tests/test_layout.c checks that no
 * field of 8 bytes or more can hide between or after them). */
#define F(T, f)                                                                                    \
    {                                                                                              \
#T, #f, offsetof(T, f), sizeof(((T *)0)->f)                                                \
    }
static const layout_field fields[] = {
    /* sbw_rank_est (sbw_rank.h) */
    F(sbw_rank_est, m),
    F(sbw_rank_est, n),
    F(sbw_rank_est, k),
    F(sbw_rank_est, eps),
    F(sbw_rank_est, w0),
    F(sbw_rank_est, wmin),
    F(sbw_rank_est, scale),
    F(sbw_rank_est, tsh),
    F(sbw_rank_est, rank),
    F(sbw_rank_est, numpy_tol),
    F(sbw_rank_est, rank_numpy),
    F(sbw_rank_est, rank_gap),
    F(sbw_rank_est, gap_log10),
    F(sbw_rank_est, tsh_single),
    F(sbw_rank_est, rank_single),
    /* sbw_rank_measure (sbw_rank.h) */
    F(sbw_rank_measure, name),
    F(sbw_rank_measure, rank),
    F(sbw_rank_measure, threshold),
    F(sbw_rank_measure, on),
    F(sbw_rank_measure, rule),
    /* sbw_spectra_rank_res (sbw_spectra.h) */
    F(sbw_spectra_rank_res, rows),
    F(sbw_spectra_rank_res, cols),
    F(sbw_spectra_rank_res, k),
    F(sbw_spectra_rank_res, dtype),
    F(sbw_spectra_rank_res, prec),
    F(sbw_spectra_rank_res, eps),
    F(sbw_spectra_rank_res, eps_source),
    F(sbw_spectra_rank_res, w0_uncentred),
    F(sbw_spectra_rank_res, est),
    F(sbw_spectra_rank_res, ms),
    /* sbw_bound_summary (sbw_bound.h) */
    F(sbw_bound_summary, rows),
    F(sbw_bound_summary, cols),
    F(sbw_bound_summary, k),
    F(sbw_bound_summary, dtype),
    F(sbw_bound_summary, eps),
    F(sbw_bound_summary, eps_source),
    F(sbw_bound_summary, rank_a),
    F(sbw_bound_summary, rank_c),
    /* sbw_logp_opts (sbw_logp.h) */
    F(sbw_logp_opts, probs),
    F(sbw_logp_opts, normalize),
    F(sbw_logp_opts, tol),
    /* sbw_logp_sel (sbw_logp.h) */
    F(sbw_logp_sel, begin),
    F(sbw_logp_sel, end),
    F(sbw_logp_sel, n),
    F(sbw_logp_sel, list),
    /* sbw_kl_opts (sbw_kl.h) */
    F(sbw_kl_opts, threads),
    F(sbw_kl_opts, group),
    F(sbw_kl_opts, chunk),
    /* sbw_kl_exact (sbw_kl.h) */
    F(sbw_kl_exact, rows),
    F(sbw_kl_exact, cols),
    F(sbw_kl_exact, expected_kl),
    F(sbw_kl_exact, mean_entropy),
    F(sbw_kl_exact, entropy_of_mean),
    F(sbw_kl_exact, js_spread),
    /* sbw_compare_row (sbw_compare.h) */
    F(sbw_compare_row, kl),
    F(sbw_compare_row, cross_entropy),
    F(sbw_compare_row, entropy),
    F(sbw_compare_row, row_err),
    F(sbw_compare_row, max_abs),
    F(sbw_compare_row, mode_p),
    F(sbw_compare_row, mode_q),
    F(sbw_compare_row, rank),
    F(sbw_compare_row, tie_p),
    F(sbw_compare_row, tie_q),
    F(sbw_compare_row, overlap),
    /* sbw_compare_summary (sbw_compare.h) */
    F(sbw_compare_summary, rows),
    F(sbw_compare_summary, cols),
    F(sbw_compare_summary, kl_mean),
    F(sbw_compare_summary, kl_median),
    F(sbw_compare_summary, cross_entropy),
    F(sbw_compare_summary, entropy),
    F(sbw_compare_summary, perplexity),
    F(sbw_compare_summary, mode_match),
    F(sbw_compare_summary, mode_matches),
    F(sbw_compare_summary, ties_p),
    F(sbw_compare_summary, ties_q),
    F(sbw_compare_summary, top_overlap),
    F(sbw_compare_summary, rank_mean),
    F(sbw_compare_summary, rank_median),
    F(sbw_compare_summary, frob_rms),
    F(sbw_compare_summary, max_row_err),
    F(sbw_compare_summary, max_row_err_row),
    F(sbw_compare_summary, max_abs_err),
    /* sbw_mat (sbw_mat.h) */
    F(sbw_mat, rows),
    F(sbw_mat, cols),
    F(sbw_mat, ld),
    F(sbw_mat, data),
    F(sbw_mat, owner),
    /* sbw_argmax_opts (sbw_argmax.h) */
    F(sbw_argmax_opts, tol),
    F(sbw_argmax_opts, max_rounds),
    F(sbw_argmax_opts, block),
    F(sbw_argmax_opts, no_prefilter),
    /* sbw_argmax_word (sbw_argmax.h) */
    F(sbw_argmax_word, word),
    F(sbw_argmax_word, argmaxable),
    F(sbw_argmax_word, reason),
    F(sbw_argmax_word, margin),
    F(sbw_argmax_word, bound),
    F(sbw_argmax_word, cert_norm),
    F(sbw_argmax_word, support),
    F(sbw_argmax_word, other),
    F(sbw_argmax_word, stage),
    F(sbw_argmax_word, rounds),
    /* sbw_argmax_summary (sbw_argmax.h) */
    F(sbw_argmax_summary, checked),
    F(sbw_argmax_summary, argmaxable),
    F(sbw_argmax_summary, unargmaxable),
    F(sbw_argmax_summary, undecided),
    F(sbw_argmax_summary, by_duplicates),
    F(sbw_argmax_summary, by_prefilter),
    F(sbw_argmax_summary, by_lp),
    F(sbw_argmax_summary, lp_rounds),
    F(sbw_argmax_summary, scale),
    F(sbw_argmax_summary, seconds_prefilter),
    F(sbw_argmax_summary, seconds_lp),
    /* sbw_argmax_file_opts (sbw_argmax.h) */
    F(sbw_argmax_file_opts, bias),
    F(sbw_argmax_file_opts, vocab),
    F(sbw_argmax_file_opts, words),
    F(sbw_argmax_file_opts, nwords),
    F(sbw_argmax_file_opts, run),
    F(sbw_argmax_file_opts, radii),
    F(sbw_argmax_file_opts, nr),
    F(sbw_argmax_file_opts, max_prob_all),
    F(sbw_argmax_file_opts, prob_tol),
    F(sbw_argmax_file_opts, max_prob_iters),
    F(sbw_argmax_file_opts, quiet),
    F(sbw_argmax_file_opts, shard),
    F(sbw_argmax_file_opts, nshards),
    /* sbw_argmax_file_res (sbw_argmax.h) */
    F(sbw_argmax_file_res, w),
    F(sbw_argmax_file_res, b),
    F(sbw_argmax_file_res, names),
    F(sbw_argmax_file_res, nwords),
    F(sbw_argmax_file_res, out), // NOLINT(bugprone-sizeof-expression): a pointer's size, on purpose
    F(sbw_argmax_file_res, sum),
    F(sbw_argmax_file_res, pm),
    F(sbw_argmax_file_res, pu),
    F(sbw_argmax_file_res, unconverged),
    F(sbw_argmax_file_res, list_len),
    F(sbw_argmax_file_res, hash),
};
#undef F

typedef struct layout_type {
    const char *type;
    size_t size;
} layout_type;

#define T(t)                                                                                       \
    {                                                                                              \
#t, sizeof(t)                                                                              \
    }
static const layout_type types[] = {
    T(sbw_rank_est),
    T(sbw_rank_measure),
    T(sbw_spectra_rank_res),
    T(sbw_bound_summary),
    T(sbw_logp_opts),
    T(sbw_logp_sel),
    T(sbw_kl_opts),
    T(sbw_kl_exact),
    T(sbw_compare_row),
    T(sbw_compare_summary),
    T(sbw_mat),
    T(sbw_argmax_opts),
    T(sbw_argmax_word),
    T(sbw_argmax_summary),
    T(sbw_argmax_file_opts),
    T(sbw_argmax_file_res),
};
#undef T

static const struct {
    const char *name;
    long long value;
} consts[] = {
    {"SBW_RANK_NMEASURES", SBW_RANK_NMEASURES},
    {"SBW_COMPARE_NK", SBW_COMPARE_NK},
    {"SBW_F64", SBW_F64},
    {"SBW_F32", SBW_F32},
    {"SBW_F16", SBW_F16},
    {"SBW_BF16", SBW_BF16},
};

int sbw_layout_size(const char *type, size_t *size, size_t *nfields)
{
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcmp(types[i].type, type)) {
            size_t n = 0;
            for (size_t j = 0; j < sizeof fields / sizeof *fields; j++)
                n += !strcmp(fields[j].type, type);
            *size = types[i].size;
            *nfields = n;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "struct %s is not one the Python binding mirrors", type);
}

int sbw_layout_offset(const char *type, const char *field, size_t *offset)
{
    for (size_t j = 0; j < sizeof fields / sizeof *fields; j++)
        if (!strcmp(fields[j].type, type) && !strcmp(fields[j].field, field)) {
            *offset = fields[j].offset;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "struct %s has no field %s (among those the binding mirrors)",
                     type, field);
}

size_t sbw_layout_field_size(const char *type, const char *field)
{
    for (size_t j = 0; j < sizeof fields / sizeof *fields; j++)
        if (!strcmp(fields[j].type, type) && !strcmp(fields[j].field, field))
            return fields[j].size;
    return 0;
}

const char *sbw_layout_field(const char *type, size_t i)
{
    for (size_t j = 0; j < sizeof fields / sizeof *fields; j++)
        if (!strcmp(fields[j].type, type) && i-- == 0)
            return fields[j].field;
    return NULL;
}

int sbw_layout_const(const char *name, long long *value)
{
    for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
        if (!strcmp(consts[i].name, name)) {
            *value = consts[i].value;
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EINVAL, "constant %s is not one the Python binding mirrors", name);
}
