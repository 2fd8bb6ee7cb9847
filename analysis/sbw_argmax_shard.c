/* sbw_argmax_shard.c -- the merge of sbw-argmax's shard tables (see the
 * header). */
#include "sbw_argmax_shard.h"

#include "sbw_argmax_io.h"
#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_preflight.h"
#include "sbw_tsv.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sbw_argmax_shard_keys[] = {
    "tool",      "file",     "bias",        "vocab",       "m",         "d",
    "head_hash", "tol",      "max_rounds",  "lp_only",     "max_prob",  "max_prob_words",
    "prob_tol",  "shard_of", "shard_words", "shard_block", "lp_solver", "lp_solver_version",
    "scale",     NULL};

/* The fixed columns of a verdict row, in the table's order ("name" only
 * with a vocabulary). */
enum {
    C_WORD,
    C_NAME,
    C_ARGMAX,
    C_REASON,
    C_MARGIN,
    C_BOUND,
    C_NORM,
    C_SUPPORT,
    C_OTHER,
    C_STAGE,
    C_ROUNDS,
    NFIXED
};
static const char *const fixed_cols[NFIXED] = {"word",   "name",  "argmaxable", "reason",
                                               "margin", "bound", "cert_norm",  "support",
                                               "other",  "stage", "rounds"};

bool sbw_argmax_shard_parse(const char *s, size_t *i, size_t *n)
{
    char *end;
    unsigned long long a, b;
    if (!s || *s < '0' || *s > '9')
        return false;
    a = strtoull(s, &end, 10);
    if (*end != '/' || end[1] < '0' || end[1] > '9')
        return false;
    b = strtoull(end + 1, &end, 10);
    if (*end || a < 1 || a > b || b > SIZE_MAX / 2)
        return false;
    *i = (size_t)a - 1;
    *n = (size_t)b;
    return true;
}

/* The meta value key as a count (a whole number >= 0) into *v. */
static int meta_count(const sbw_tsv *t, const char *key, size_t *v)
{
    const char *s = sbw_tsv_meta(t, key);
    double x;
    if (!s || !sbw_tsv_parse(s, &x) || !(x >= 0) || x != floor(x) || x > 9e15)
        return SBW_ERROR(SBW_EDATA, "%s: '# %s=' is missing or not a count (%s)", t->path, key,
                         s ? s : "absent");
    *v = (size_t)x;
    return SBW_OK;
}

/* The meta value key as a double into *v. */
static int meta_dbl(const sbw_tsv *t, const char *key, double *v)
{
    const char *s = sbw_tsv_meta(t, key);
    if (!s || !sbw_tsv_parse(s, v))
        return SBW_ERROR(SBW_EDATA, "%s: '# %s=' is missing or not a number (%s)", t->path, key,
                         s ? s : "absent");
    return SBW_OK;
}

/* t is a shard table: "# tool=sbw-argmax" and "# shard=I/N". */
static int check_shard(const sbw_tsv *t, size_t *i, size_t *n)
{
    const char *tool = sbw_tsv_meta(t, "tool"), *sh = sbw_tsv_meta(t, "shard");
    if (!tool || strcmp(tool, "sbw-argmax") != 0)
        return SBW_ERROR(SBW_EDATA, "%s: not a table of sbw-argmax (# tool=%s)", t->path,
                         tool ? tool : "absent");
    if (!sh)
        return SBW_ERROR(SBW_EDATA,
                         "%s: not a shard table (no '# shard=' line: made without "
                         "sbw-argmax --shard I/N)",
                         t->path);
    if (!sbw_argmax_shard_parse(sh, i, n))
        return SBW_ERROR(SBW_EDATA, "%s: '# shard=%s' is not I/N with 1 <= I <= N", t->path, sh);
    return SBW_OK;
}

/* t and the first shard r are of one run: every key of
 * sbw_argmax_shard_keys equal (absent on both is equal) and the same
 * columns. */
static int check_same(const sbw_tsv *r, const sbw_tsv *t)
{
    for (size_t k = 0; sbw_argmax_shard_keys[k]; k++) {
        const char *key = sbw_argmax_shard_keys[k], *a = sbw_tsv_meta(r, key),
                   *b = sbw_tsv_meta(t, key);
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            return SBW_ERROR(SBW_EDATA,
                             "%s: %s=%s but %s has %s=%s: shards of different runs (another "
                             "head, list or setting) cannot be merged",
                             t->path, key, b ? b : "(absent)", r->path, key, a ? a : "(absent)");
    }
    bool same = r->ncol == t->ncol;
    for (size_t c = 0; same && c < r->ncol; c++)
        same = strcmp(r->col[c], t->col[c]) == 0;
    if (!same)
        return SBW_ERROR(SBW_EDATA, "%s: other columns than %s's: shards of different runs",
                         t->path, r->path);
    return SBW_OK;
}

/* Every shard once: slot[s] the table of shard s + 1 (n of nshards). */
static int check_cover(const sbw_tsv *t, size_t n, size_t nshards, size_t *slot)
{
    for (size_t s = 0; s < nshards; s++)
        slot[s] = n;
    for (size_t k = 0; k < n; k++) {
        size_t i, nn;
        int st = check_shard(&t[k], &i, &nn);
        if (st)
            return st;
        if (nn != nshards)
            return SBW_ERROR(SBW_EDATA, "%s: shard %zu/%zu, but %s is one of %zu shards", t[k].path,
                             i + 1, nn, t[0].path, nshards);
        if (slot[i] < n)
            return SBW_ERROR(SBW_EDATA, "%s: shard %zu/%zu again (also %s)", t[k].path, i + 1,
                             nshards, t[slot[i]].path);
        slot[i] = k;
    }
    for (size_t s = 0; s < nshards; s++)
        if (slot[s] == n)
            return SBW_ERROR(SBW_EDATA,
                             "shard %zu/%zu is missing (%zu of the %zu shard tables given)", s + 1,
                             nshards, n, nshards);
    return SBW_OK;
}

/* A cell as a whole number in [0, max]. */
static int cell_count(const sbw_tsv *t, size_t row, size_t col, double max, size_t *v)
{
    double x;
    int st = sbw_tsv_num(t, row, col, &x);
    if (!st && !(x >= 0 && x <= max && x == floor(x)))
        st = SBW_ERROR(SBW_EDATA, "%s: row %zu, %s: '%s' is not a whole number in 0..%.0f", t->path,
                       row + 1, t->col[col], sbw_tsv_str(t, row, col), max);
    if (!st)
        *v = (size_t)x;
    return st;
}

/* The index of s in names[0..n), or n. */
static size_t name_index(const char *s, const char *const *names, size_t n)
{
    size_t k = 0;
    while (k < n && strcmp(s, names[k]) != 0)
        k++;
    return k;
}

/* Row `row` of shard t into *w (the word `want`; col: the fixed columns'
 * indices, C_NAME's only with names). */
static int read_word(const sbw_tsv *t, size_t row, const size_t *col, size_t m, size_t want,
                     sbw_argmax_word *w)
{
    static const char *const stages[] = {"dup", "prefilter", "lp"};
    const char *reasons[SBW_ARGMAX_UNDECIDED + 1];
    for (int r = 0; r <= SBW_ARGMAX_UNDECIDED; r++)
        reasons[r] = sbw_argmax_reason_name((sbw_argmax_reason)r);
    size_t a, rounds, other;
    int st = cell_count(t, row, col[C_WORD], (double)m - 1, &w->word);
    if (!st && w->word != want)
        st = SBW_ERROR(SBW_EDATA, "%s: row %zu is word %zu, the list's is %zu (a damaged shard)",
                       t->path, row + 1, w->word, want);
    const char *ar = st ? "" : sbw_tsv_str(t, row, col[C_ARGMAX]);
    a = strcmp(ar, "-1") == 0 ? 2 : name_index(ar, (const char *const[]){"0", "1"}, 2);
    size_t re = name_index(sbw_tsv_str(t, row, col[C_REASON]), reasons, SBW_ARGMAX_UNDECIDED + 1);
    size_t sg = name_index(sbw_tsv_str(t, row, col[C_STAGE]), stages, 3);
    if (!st && (a > 2 || re > SBW_ARGMAX_UNDECIDED || sg > 2))
        st = SBW_ERROR(SBW_EDATA, "%s: row %zu: argmaxable '%s', reason '%s' or stage '%s' unknown",
                       t->path, row + 1, ar, sbw_tsv_str(t, row, col[C_REASON]),
                       sbw_tsv_str(t, row, col[C_STAGE]));
    st = st ? st : sbw_tsv_num(t, row, col[C_MARGIN], &w->margin);
    st = st ? st : sbw_tsv_num(t, row, col[C_BOUND], &w->bound);
    st = st ? st : sbw_tsv_num(t, row, col[C_NORM], &w->cert_norm);
    st = st ? st : cell_count(t, row, col[C_SUPPORT], 9e15, &w->support);
    st = st ? st : cell_count(t, row, col[C_ROUNDS], 2147483647.0, &rounds);
    if (!st && strcmp(sbw_tsv_str(t, row, col[C_OTHER]), "nan") == 0)
        other = m;
    else
        st = st ? st : cell_count(t, row, col[C_OTHER], (double)m - 1, &other);
    if (st)
        return st;
    w->argmaxable = a == 2 ? -1 : (int)a;
    w->reason = (sbw_argmax_reason)re;
    w->stage = (int)sg;
    w->rounds = (int)rounds;
    w->other = other;
    return SBW_OK;
}

/* The merge's state: the tables in shard order and the list. */
typedef struct merge_ctx {
    const sbw_tsv *t;    /* the tables as given */
    const size_t *slot;  /* slot[s]: the table of shard s */
    size_t nshards, len; /* the list's length */
    size_t block;        /* the share's unit (sbw_argmax_share_block) */
    size_t *list;        /* its words, NULL for 0..m-1 */
    size_t col[NFIXED];  /* the fixed columns' indices (same in every shard) */
} merge_ctx;

/* The fixed columns and the ladder's (p_max_R*, p_upper_R* pairs after
 * them) of the first shard, and the list of "# shard_words=". */
static int merge_layout(merge_ctx *x, sbw_argmax_shard_merged *out)
{
    const sbw_tsv *r = &x->t[0];
    bool names = *out->vocab != '\0';
    size_t nf = 0;
    for (int c = 0; c < NFIXED; c++) {
        if (c == C_NAME && !names)
            continue;
        int st = sbw_tsv_need(r, fixed_cols[c], &x->col[c]);
        if (st)
            return st;
        nf++;
    }
    out->nr = r->ncol - nf;
    for (size_t k = 0; k < out->nr; k++)
        if (strncmp(r->col[nf + k], k % 2 ? "p_upper_R" : "p_max_R", k % 2 ? 9 : 7) != 0)
            return SBW_ERROR(SBW_EDATA, "%s: column '%s' is not one of sbw-argmax's", r->path,
                             r->col[nf + k]);
    if ((out->nr % 2) || (out->nr > 0) != (out->max_prob != NULL))
        return SBW_ERROR(SBW_EDATA, "%s: the --max-prob columns do not match '# max_prob='",
                         r->path);
    out->nr /= 2;
    const char *ws = sbw_tsv_meta(r, "shard_words");
    if (strcmp(ws, "all") == 0)
        return out->res.list_len == out->res.w.rows
                   ? SBW_OK
                   : SBW_ERROR(SBW_EDATA, "%s: shard_of=%zu for all %zu words", r->path,
                               out->res.list_len, out->res.w.rows);
    size_t n;
    if (sbw_cli_parse_size_list(ws, "shard_words", &x->list, &n))
        return SBW_ERROR(SBW_EDATA, "%s: %s", r->path, sbw_error_reason());
    if (n != x->len)
        return SBW_ERROR(SBW_EDATA, "%s: shard_words lists %zu words, shard_of=%zu", r->path, n,
                         x->len);
    return SBW_OK;
}

/* The rows of shard s into out's arrays at its share's positions
 * (sbw_argmax_share_pos). */
static int merge_rows(const merge_ctx *x, size_t s, sbw_argmax_shard_merged *out)
{
    const sbw_tsv *t = &x->t[x->slot[s]];
    sbw_argmax_file_res *r = &out->res;
    size_t m = r->w.rows, nr = out->nr;
    size_t nf = t->ncol - 2 * nr;
    for (size_t k = 0; k < t->nrow; k++) {
        size_t p = sbw_argmax_share_pos(s, x->nshards, x->block, k);
        size_t word = x->list ? x->list[p] : p;
        int st = read_word(t, k, x->col, m, word, &r->out[p]);
        if (!st && r->names && !r->names[word] &&
            !(r->names[word] = strdup(sbw_tsv_str(t, k, x->col[C_NAME]))))
            st = SBW_ERROR(SBW_ENOMEM, "no memory for the names");
        for (size_t j = 0; !st && j < nr; j++) {
            st = sbw_tsv_num(t, k, nf + 2 * j, &r->pm[p * nr + j]);
            st = st ? st : sbw_tsv_num(t, k, nf + 2 * j + 1, &r->pu[p * nr + j]);
        }
        if (st)
            return st;
    }
    return SBW_OK;
}

/* The summary: each shard's counts checked against its rows (a summary
 * that does not match them is a damaged shard), the counts of every row,
 * the seconds and --max-prob's unconverged pairs summed over the shards,
 * the common scale. */
static int merge_sum(const merge_ctx *x, sbw_argmax_shard_merged *out)
{
    static const char *const keys[] = {"checked",   "argmaxable",    "unargmaxable",
                                       "undecided", "by_duplicates", "by_prefilter",
                                       "by_lp",     "lp_rounds"};
    sbw_argmax_summary *s = &out->res.sum;
    int st = meta_dbl(&x->t[0], "scale", &s->scale);
    for (size_t k = 0; !st && k < x->nshards; k++) {
        const sbw_tsv *t = &x->t[x->slot[k]];
        sbw_argmax_summary mine = {0};
        for (size_t j = 0; j < sbw_argmax_share_count(k, x->nshards, x->block, x->len); j++)
            sbw_argmax_summary_add(&mine,
                                   &out->res.out[sbw_argmax_share_pos(k, x->nshards, x->block, j)]);
        const size_t f[] = {mine.checked,   mine.argmaxable,    mine.unargmaxable,
                            mine.undecided, mine.by_duplicates, mine.by_prefilter,
                            mine.by_lp,     mine.lp_rounds};
        double a, b;
        size_t v;
        for (size_t j = 0; !st && j < sizeof keys / sizeof *keys; j++)
            if (!(st = meta_count(t, keys[j], &v)) && v != f[j])
                st = SBW_ERROR(SBW_EDATA, "%s: '# %s=%zu' but its rows make %zu: a damaged shard",
                               t->path, keys[j], v, f[j]);
        st = st ? st : meta_dbl(t, "seconds_prefilter", &a);
        st = st ? st : meta_dbl(t, "seconds_lp", &b);
        if (!st && out->max_prob && !(st = meta_count(t, "max_prob_unconverged", &v)))
            out->res.unconverged += v;
        if (!st) {
            s->seconds_prefilter += a;
            s->seconds_lp += b;
        }
    }
    for (size_t p = 0; !st && p < x->len; p++)
        sbw_argmax_summary_add(s, &out->res.out[p]);
    return st;
}

/* The settings of the first shard (checked the same in all). */
static int merge_settings(const sbw_tsv *r, sbw_argmax_shard_merged *out)
{
    static const char *const need[] = {"file",     "bias",        "vocab",     "scale",
                                       "shard_of", "shard_words", "head_hash", "shard_block"};
    for (size_t k = 0; k < sizeof need / sizeof *need; k++)
        if (!sbw_tsv_meta(r, need[k]))
            return SBW_ERROR(SBW_EDATA, "%s: no '# %s=' line: not a whole shard table", r->path,
                             need[k]);
    const char *mp = sbw_tsv_meta(r, "max_prob"), *mw = sbw_tsv_meta(r, "max_prob_words");
    size_t m, d;
    int st = meta_count(r, "m", &m);
    st = st ? st : meta_count(r, "d", &d);
    st = st ? st : meta_count(r, "shard_of", &out->res.list_len);
    st = st ? st : meta_dbl(r, "tol", &out->tol);
    if (!st && mp)
        st = meta_dbl(r, "prob_tol", &out->prob_tol);
    if (!st && (m < 2 || m > INT32_MAX || d < 1))
        st = SBW_ERROR(SBW_EDATA, "%s: a head of %zu x %zu is not one sbw-argmax reads", r->path, m,
                       d);
    if (st)
        return st;
    out->res.w.rows = m;
    out->res.w.cols = d;
    out->res.nwords = out->res.list_len;
    out->max_prob_all = mw && strcmp(mw, "all") == 0;
    out->file = strdup(sbw_tsv_meta(r, "file"));
    out->bias = strdup(sbw_tsv_meta(r, "bias"));
    out->vocab = strdup(sbw_tsv_meta(r, "vocab"));
    out->max_prob = mp ? strdup(mp) : NULL;
    if (!out->file || !out->bias || !out->vocab || (mp && !out->max_prob))
        return SBW_ERROR(SBW_ENOMEM, "no memory");
    return SBW_OK;
}

/* The arrays of the merged answers, after the memory preflight of their
 * sum (the names' array has an entry per word of the head). */
static int merge_alloc(sbw_argmax_shard_merged *out)
{
    sbw_argmax_file_res *r = &out->res;
    size_t n = r->list_len, nr = out->nr;
    double bytes = (double)(n + 1) * (double)sizeof *r->out + 16.0 * (double)n * (double)nr +
                   (*out->vocab ? 8.0 * (double)r->w.rows : 0);
    char what[160];
    snprintf(what, sizeof what, "the merge of %zu words of a %zu-word head", n, r->w.rows);
    int st = sbw_preflight_memory(bytes, what);
    if (st)
        return st;
    r->out = calloc(n + 1, sizeof *r->out);
    r->names = *out->vocab ? calloc(r->w.rows, sizeof *r->names) : NULL;
    r->pm = nr ? malloc((n * nr + 1) * sizeof *r->pm) : NULL;
    r->pu = nr ? malloc((n * nr + 1) * sizeof *r->pu) : NULL;
    if (!r->out || (*out->vocab && !r->names) || (nr && (!r->pm || !r->pu)))
        return SBW_ERROR(SBW_ENOMEM, "no memory for the merge of %zu words", n);
    return SBW_OK;
}

/* Everything after the tables are read: coverage, sameness, the rows. */
static int merge_tables(const sbw_tsv *t, size_t n, sbw_argmax_shard_merged *out)
{
    size_t i, nshards;
    int st = check_shard(&t[0], &i, &nshards);
    size_t *slot = st ? NULL : malloc(nshards * sizeof *slot);
    if (!st && !slot)
        st = SBW_ERROR(SBW_ENOMEM, "no memory for %zu shards", nshards);
    st = st ? st : check_cover(t, n, nshards, slot);
    for (size_t k = 1; !st && k < n; k++)
        st = check_same(&t[0], &t[k]);
    merge_ctx x = {.t = t, .slot = slot, .nshards = nshards};
    st = st ? st : merge_settings(&t[0], out);
    x.len = out->res.list_len;
    st = st ? st : meta_count(&t[0], "shard_block", &x.block);
    if (!st && (x.block < 1 || x.block != sbw_argmax_share_block(x.len, x.block)))
        st = SBW_ERROR(SBW_EDATA, "%s: shard_block=%zu is not a block of a list of %zu words",
                       t[0].path, x.block, x.len);
    if (!st && (x.len + x.block - 1) / x.block < nshards)
        st = SBW_ERROR(SBW_EDATA, "%s: %zu shards of %zu words in blocks of %zu", t[0].path,
                       nshards, x.len, x.block);
    st = st ? st : merge_layout(&x, out);
    for (size_t k = 0; !st && k < nshards; k++) { /* before any array of the list's length */
        const sbw_tsv *tk = &t[slot[k]];
        size_t want = sbw_argmax_share_count(k, nshards, x.block, x.len);
        if (tk->nrow != want)
            st = SBW_ERROR(SBW_EDATA, "%s: %zu rows, shard %zu/%zu of %zu words has %zu", tk->path,
                           tk->nrow, k + 1, nshards, x.len, want);
    }
    st = st ? st : merge_alloc(out);
    for (size_t s = 0; !st && s < nshards; s++)
        st = merge_rows(&x, s, out);
    st = st ? st : merge_sum(&x, out);
    free(x.list);
    free(slot);
    return st;
}

int sbw_argmax_shard_merge(char *const *paths, size_t n, sbw_argmax_shard_merged *out)
{
    *out = (sbw_argmax_shard_merged){0};
    if (n == 0)
        return SBW_ERROR(SBW_EINVAL, "merge: no shard tables");
    sbw_tsv *t = calloc(n, sizeof *t);
    int st = t ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "no memory for %zu tables", n);
    for (size_t k = 0; !st && k < n; k++)
        st = sbw_tsv_read(&t[k], paths[k]);
    st = st ? st : merge_tables(t, n, out);
    for (size_t k = 0; t && k < n; k++)
        sbw_tsv_free(&t[k]);
    free(t);
    if (st)
        sbw_argmax_shard_merged_free(out);
    return st;
}

void sbw_argmax_shard_merged_free(sbw_argmax_shard_merged *m)
{
    sbw_argmax_file_free(&m->res);
    free(m->file);
    free(m->bias);
    free(m->vocab);
    free(m->max_prob);
    *m = (sbw_argmax_shard_merged){0};
}
