/* sbw_argmax_trunc.c -- basis-aware truncation: one LP per context and
 * thread, every answer certified (see the header). */
#include "sbw_argmax_trunc.h"

#include "sbw_argmax_cert.h"
#include "sbw_argmax_io.h"
#include "sbw_error.h"
#include "sbw_logp.h"
#include "sbw_preflight.h"

#include <glpk.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sbw_argmax_trunc_reason_name(sbw_argmax_trunc_reason r)
{
    static const char *const names[] = {"threshold", "farkas", "witness_exact", "witness",
                                        "undecided"};
    return (unsigned)r <= SBW_ARGMAX_TRUNC_UNDECIDED ? names[r] : "?";
}

/* What every thread reads: the head, the context's phat and its exact
 * A^T phat, the options. */
typedef struct run_x {
    const double *w;
    size_t m, d, ldw;
    const double *p;               /* m: phat of the current context */
    const sbw_argmax_cert_ctx *cc; /* its exact A^T phat */
    const sbw_argmax_trunc_opts *o;
    double scale, atol; /* max(1, max |w_jk|); tol * scale */
    int it_lim;         /* simplex iterations per solve (o->max_iter or the default) */
} run_x;

/* A thread's LP: GLPK's problem for the current context and scratch. */
typedef struct tlp {
    glp_prob *P;
    int *ind;       /* d + 2 */
    double *val;    /* d + 2 */
    double *y;      /* d + 1 */
    double *q;      /* m */
    size_t *basis;  /* m */
    size_t *up;     /* m */
    double *A;      /* (d + 1)^2: the basis columns, for the polish */
    double *rhs;    /* d + 1 */
    double *sv;     /* d + 1 */
    size_t context; /* the context P was built for (SIZE_MAX: none) */
} tlp;

static void tlp_free(tlp *L)
{
    if (L->P)
        glp_delete_prob(L->P);
    free(L->ind);
    free(L->val);
    free(L->y);
    free(L->q);
    free(L->basis);
    free(L->up);
    free(L->A);
    free(L->rhs);
    free(L->sv);
    *L = (tlp){0};
}

static int tlp_alloc(tlp *L, size_t m, size_t d)
{
    *L = (tlp){.context = SIZE_MAX};
    L->ind = malloc((d + 2) * sizeof *L->ind);
    L->val = malloc((d + 2) * sizeof *L->val);
    L->y = malloc((d + 1) * sizeof *L->y);
    L->q = malloc(m * sizeof *L->q);
    L->basis = malloc(m * sizeof *L->basis);
    L->up = malloc(m * sizeof *L->up);
    L->A = malloc((d + 1) * (d + 1) * sizeof *L->A);
    L->rhs = malloc((d + 1) * sizeof *L->rhs);
    L->sv = malloc((d + 1) * sizeof *L->sv);
    if (!L->ind || !L->val || !L->y || !L->q || !L->basis || !L->up || !L->A || !L->rhs || !L->sv) {
        tlp_free(L);
        return SBW_ERROR(SBW_ENOMEM, "truncation: no memory for an LP of %zu tokens", m);
    }
    glp_term_out(GLP_OFF); /* GLPK's messages go to stdout, the table's place */
    return SBW_OK;
}

/* Token j's column: free of q_i = 0 it is [0, sigma phat_j] (or >= 0). */
static void set_box(glp_prob *P, size_t j, double sigma, double pj)
{
    double u = sigma * pj;
    if (isinf(sigma))
        glp_set_col_bnds(P, (int)j + 1, GLP_LO, 0.0, 0.0);
    else if (u > 0 && isfinite(u))
        glp_set_col_bnds(P, (int)j + 1, GLP_DB, 0.0, u);
    else
        glp_set_col_bnds(P, (int)j + 1, u > 0 ? GLP_LO : GLP_FX, 0.0, 0.0);
}

/* Rows 1..d: w columns of A^T q, row d+1: 1^T q, each = A^T phat (long
 * double sums: only the LP sees them; the checks are exact).  Columns
 * 1..m: q; then s+ and s- per row, cost 1. */
static void build(tlp *L, const run_x *x)
{
    size_t m = x->m, d = x->d;
    if (L->P)
        glp_erase_prob(L->P);
    else
        L->P = glp_create_prob();
    glp_prob *P = L->P;
    glp_set_obj_dir(P, GLP_MIN);
    glp_add_rows(P, (int)d + 1);
    for (size_t k = 0; k <= d; k++) {
        long double c = 0;
        for (size_t j = 0; j < m; j++)
            c += (long double)(k < d ? x->w[j * x->ldw + k] : 1.0) * x->p[j];
        glp_set_row_bnds(P, (int)k + 1, GLP_FX, (double)c, (double)c);
    }
    glp_add_cols(P, (int)(m + 2 * (d + 1)));
    for (size_t j = 0; j < m; j++) {
        int n = 0;
        for (size_t k = 0; k <= d; k++) {
            double a = k < d ? x->w[j * x->ldw + k] : 1.0;
            if (a != 0) {
                L->ind[++n] = (int)k + 1;
                L->val[n] = a;
            }
        }
        glp_set_mat_col(P, (int)j + 1, n, L->ind, L->val);
        set_box(P, j, x->o->sigma, x->p[j]);
    }
    for (size_t s = 0; s < 2 * (d + 1); s++) {
        int col = (int)(m + s) + 1;
        L->ind[1] = (int)(s % (d + 1)) + 1;
        L->val[1] = s <= d ? 1.0 : -1.0;
        glp_set_mat_col(P, col, 1, L->ind, L->val);
        glp_set_col_bnds(P, col, GLP_LO, 0.0, 0.0);
        glp_set_obj_coef(P, col, 1.0);
    }
    glp_scale_prob(P, GLP_SF_AUTO);
    glp_adv_basis(P, 0);
}

/* Solves from the current basis, once more from an advanced basis when
 * GLPK fails (or stops at it_lim iterations); false when it still does. */
static bool solve(glp_prob *P, int it_lim)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.it_lim = it_lim;
    int rc = glp_simplex(P, &parm);
    if (rc != 0 || glp_get_status(P) != GLP_OPT) {
        glp_adv_basis(P, 0);
        rc = glp_simplex(P, &parm);
    }
    return rc == 0 && glp_get_status(P) == GLP_OPT;
}

/* The Farkas vector y; true when it proves token i (t filled). */
static bool try_farkas(const run_x *x, size_t i, const double *y, sbw_argmax_trunc_reason why,
                       sbw_argmax_trunc_tok *t)
{
    sbw_argmax_cert_f_res r;
    sbw_argmax_cert_farkas(x->w, x->m, x->d, x->ldw, x->p, x->o->sigma, i, y, &r);
    if (!r.proven)
        return false;
    t->keep = 1;
    t->reason = why;
    t->margin = r.value;
    t->bound = r.bound;
    return true;
}

/* GLPK's q meets the constraints only to its tolerance (1e-7, relative),
 * and clipping it into its box moves it further: one least-squares step
 * on the k basic tokens (A_B^T delta = A^T phat - A^T q, LAPACK dgelsd),
 * each kept in its box.  Nothing is trusted: the exact check follows. */
static void polish(tlp *L, const run_x *x, size_t k)
{
    size_t d = x->d, r = d + 1;
    if (k == 0 || k > r)
        return;
    for (size_t row = 0; row < r; row++) {
        long double e = 0;
        for (size_t j = 0; j < x->m; j++) {
            double a = row < d ? x->w[j * x->ldw + row] : 1.0;
            e += (long double)a * (x->p[j] - L->q[j]);
        }
        L->rhs[row] = (double)e;
        for (size_t t = 0; t < k; t++)
            L->A[row * k + t] = row < d ? x->w[L->basis[t] * x->ldw + row] : 1.0;
    }
    lapack_int rank;
    if (LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int)r, (lapack_int)k, 1, L->A, (lapack_int)k,
                       L->rhs, 1, L->sv, -1.0, &rank) != 0)
        return;
    for (size_t t = 0; t < k; t++) {
        size_t j = L->basis[t];
        double q = L->q[j] + L->rhs[t], u = nextafter(x->o->sigma * x->p[j], 0.0);
        if (isfinite(q))
            L->q[j] = q < 0 ? 0.0 : q > u ? u : q;
    }
}

/* The exact witness of the LP's basis (k basic tokens in L->basis, k_up
 * at their upper bound in L->up); true when it passes (t filled). */
static bool exact_witness(tlp *L, const run_x *x, size_t i, size_t k, size_t k_up,
                          sbw_argmax_trunc_tok *t)
{
    if (!sbw_argmax_cert_witness_exact(x->cc, x->o->sigma, i, L->basis, k, L->up, k_up))
        return false;
    t->keep = 0;
    t->reason = SBW_ARGMAX_TRUNC_EXACT;
    t->residual = 0;
    t->support = k + k_up;
    return true;
}

/* The LP's primal as a witness: the double q (clipped to its box) within
 * atol, or exact from its basis when small; true when one passes. */
static bool try_witness(tlp *L, const run_x *x, size_t i, sbw_argmax_trunc_tok *t)
{
    size_t k = 0, k_up = 0;
    for (size_t j = 0; j < x->m; j++) {
        int stat = glp_get_col_stat(L->P, (int)j + 1);
        if (j != i && stat == GLP_BS)
            L->basis[k++] = j;
        else if (j != i && stat == GLP_NU)
            L->up[k_up++] = j;
        /* below the bound exactly: one ulp under its rounded product */
        double q = fmax(0.0, glp_get_col_prim(L->P, (int)j + 1));
        double u = nextafter(x->o->sigma * x->p[j], 0.0);
        L->q[j] = j == i ? 0.0 : q > u ? u : q;
    }
    /* the double q first (O(k d) exact additions), the rational solve
     * (much slower) when it fails or only exact witnesses count */
    bool exact_first = x->o->tol == 0;
    if (exact_first && exact_witness(L, x, i, k, k_up, t))
        return true;
    sbw_argmax_cert_w_res r;
    sbw_argmax_cert_witness(x->cc, x->o->sigma, i, L->q, &r);
    if (!(r.valid && r.residual <= x->atol)) {
        polish(L, x, k);
        sbw_argmax_cert_witness(x->cc, x->o->sigma, i, L->q, &r);
    }
    if (r.valid && r.residual <= x->atol) {
        t->keep = 0;
        t->reason = r.residual == 0 ? SBW_ARGMAX_TRUNC_EXACT : SBW_ARGMAX_TRUNC_WITNESS;
        t->residual = r.residual;
        t->support = r.support;
        return true;
    }
    return !exact_first && exact_witness(L, x, i, k, k_up, t);
}

/* Without a bound (sigma = inf) a Farkas y needs s_j = a_j.y <= 0 for
 * every j != i exactly, which the LP's dual meets only to its tolerance:
 * lower y[d] (every s_j) by the largest s_j and a margin, at a cost of
 * that much of g (1^T phat = 1). */
static void push_down(const run_x *x, size_t i, double *y)
{
    double smax = -INFINITY, ysum = 0;
    for (size_t k = 0; k <= x->d; k++)
        ysum += fabs(y[k]) * (k < x->d ? x->scale : 1.0);
    for (size_t j = 0; j < x->m; j++) {
        if (j == i)
            continue;
        double s = y[x->d];
        for (size_t k = 0; k < x->d; k++)
            s += x->w[j * x->ldw + k] * y[k];
        smax = fmax(smax, s);
    }
    double margin = 1e-12 * (1 + ysum);
    if (smax > -margin)
        y[x->d] -= smax + margin;
}

/* The LP just solved (q_i = 0): its dual as a Farkas vector, its primal
 * as a witness (the dual first when the optimum is positive). */
static void certify(tlp *L, const run_x *x, size_t i, sbw_argmax_trunc_tok *t)
{
    t->lp_obj = glp_get_obj_val(L->P);
    for (size_t k = 0; k <= x->d; k++)
        L->y[k] = glp_get_row_dual(L->P, (int)k + 1);
    if (isinf(x->o->sigma))
        push_down(x, i, L->y);
    bool dual_first = t->lp_obj > 0;
    if (!(dual_first && try_farkas(x, i, L->y, SBW_ARGMAX_TRUNC_FARKAS, t)) &&
        !try_witness(L, x, i, t) && !dual_first)
        (void)try_farkas(x, i, L->y, SBW_ARGMAX_TRUNC_FARKAS, t);
}

/* Token i of the current context: the threshold's y, then the LP with
 * q_i = 0 and both of its certificates (the dual first when the optimum
 * is positive); t is undecided when none passes. */
static void decide(tlp *L, const run_x *x, size_t c, size_t i, sbw_argmax_trunc_tok *t)
{
    *t = (sbw_argmax_trunc_tok){.context = c,
                                .token = i,
                                .keep = -1,
                                .reason = SBW_ARGMAX_TRUNC_UNDECIDED,
                                .margin = NAN,
                                .bound = NAN,
                                .residual = NAN,
                                .lp_obj = NAN};
    size_t d = x->d;
    if (!isinf(x->o->sigma)) {
        memset(L->y, 0, (d + 1) * sizeof *L->y);
        L->y[d] = 1;
        if (try_farkas(x, i, L->y, SBW_ARGMAX_TRUNC_THRESHOLD, t))
            return;
    }
    if (L->context != c) {
        build(L, x);
        L->context = c;
    }
    glp_set_col_bnds(L->P, (int)i + 1, GLP_FX, 0.0, 0.0);
    /* from the warm basis, then once from a fresh one when neither
     * certificate passed (an ill-conditioned basis leaves q off its
     * constraints by more than the tolerance) */
    for (int round = 0; round < 2 && t->keep < 0; round++) {
        if (round)
            glp_adv_basis(L->P, 0);
        if (solve(L->P, x->it_lim))
            certify(L, x, i, t);
    }
    set_box(L->P, i, x->o->sigma, x->p[i]);
}

static int check_args(size_t m, size_t d, size_t ldw, size_t n, size_t ldl, const size_t *tokens,
                      size_t ntok, const sbw_argmax_trunc_opts *o)
{
    if (m < 2 || d < 1 || ldw < d || ldl < m || m > INT32_MAX / 2 || d > INT32_MAX / 4)
        return SBW_ERROR(SBW_EINVAL,
                         "truncation: need a head of >= 2 tokens and >= 1 dimension, got %zu x %zu",
                         m, d);
    if (!tokens && ntok != m)
        return SBW_ERROR(SBW_EINVAL, "truncation: %zu tokens asked of a head of %zu", ntok, m);
    for (size_t t = 0; tokens && t < ntok; t++)
        if (tokens[t] >= m)
            return SBW_ERROR(SBW_EINVAL, "truncation: token %zu is out of range (the head has %zu)",
                             tokens[t], m);
    if (!(o->sigma >= 1) || !(o->tol >= 0) || n == 0)
        return SBW_ERROR(SBW_EINVAL, "truncation: bad options (sigma %g, tol %g, %zu contexts)",
                         o->sigma, o->tol, n);
    return SBW_OK;
}

/* phat = exp(logp row) and its exact A^T phat; false (st set) on failure. */
static int context_setup(run_x *x, const double *row, double *p, sbw_argmax_cert_ctx **cc)
{
    for (size_t j = 0; j < x->m; j++)
        p[j] = exp(row[j]);
    x->p = p;
    int st = sbw_argmax_cert_ctx_alloc(cc, x->w, x->m, x->d, x->ldw, p);
    x->cc = *cc;
    return st;
}

static void summarise(const sbw_argmax_trunc_tok *out, size_t n, sbw_argmax_trunc_summary *s)
{
    for (size_t t = 0; t < n; t++) {
        s->checked++;
        s->keep += out[t].keep == 1;
        s->may_drop += out[t].keep == 0;
        s->undecided += out[t].keep < 0;
        s->by_threshold += out[t].reason == SBW_ARGMAX_TRUNC_THRESHOLD;
        s->by_lp += out[t].reason != SBW_ARGMAX_TRUNC_THRESHOLD;
        s->exact_witnesses += out[t].reason == SBW_ARGMAX_TRUNC_EXACT;
        s->lp_solves += isnan(out[t].lp_obj) ? 0u : 1u;
    }
}

int sbw_argmax_trunc_run(const double *w, size_t m, size_t d, size_t ldw, const double *logp,
                         size_t n, size_t ldl, const size_t *tokens, size_t ntok,
                         const sbw_argmax_trunc_opts *o, sbw_argmax_trunc_tok *out,
                         sbw_argmax_trunc_summary *sum)
{
    memset(sum, 0, sizeof *sum);
    int st = check_args(m, d, ldw, n, ldl, tokens, ntok, o);
    if (st)
        return st;
    double scale = 1;
    for (size_t j = 0; j < m; j++)
        for (size_t k = 0; k < d; k++)
            scale = fmax(scale, fabs(w[j * ldw + k]));
    size_t it = o->max_iter ? o->max_iter : SBW_ARGMAX_TRUNC_ITER * (m + 2 * (d + 1));
    run_x x = {.w = w,
               .m = m,
               .d = d,
               .ldw = ldw,
               .o = o,
               .scale = scale,
               .atol = o->tol * scale,
               .it_lim = it > INT_MAX ? INT_MAX : (int)it};
    double *p = malloc(m * sizeof *p), t0 = omp_get_wtime();
    sbw_argmax_cert_ctx *cc = NULL;
    size_t done = 0; /* pairs decided, for o->progress */
    if (!p)
        return SBW_ERROR(SBW_ENOMEM, "truncation: no memory for %zu tokens", m);
#pragma omp parallel
    {
        tlp L;
        int ts = tlp_alloc(&L, m, d);
#pragma omp critical(sbw_argmax_trunc)
        st = st ? st : ts;
        for (size_t c = 0; c < n; c++) {
#pragma omp barrier
#pragma omp single
            {
                sbw_argmax_cert_ctx_free(cc);
                cc = NULL;
                st = st ? st : context_setup(&x, logp + c * ldl, p, &cc);
            }
            if (st)
                break; /* every thread sees the same st after the barrier */
#pragma omp for schedule(static)
            for (size_t t = 0; t < ntok; t++) {
                decide(&L, &x, c, tokens ? tokens[t] : t, &out[c * ntok + t]);
#pragma omp critical(sbw_argmax_trunc_progress)
                if (o->progress)
                    sbw_progress_update(o->progress, (double)++done);
            }
        }
        tlp_free(&L);
        glp_free_env();
    }
    sbw_argmax_cert_ctx_free(cc);
    free(p);
    sum->contexts = n;
    sum->scale = scale;
    sum->seconds = omp_get_wtime() - t0;
    if (!st)
        summarise(out, n * ntok, sum);
    return st;
}

/* ---- sbw-argmax --truncation on files ------------------------------------- */

/* W, the outputs, the answers, and per thread GLPK's problem (about 48
 * bytes a nonzero: m (d + 1) of them) and the scratch, against the
 * machine's memory. */
static int file_preflight(const char *wpath, size_t m, size_t d, size_t n, size_t ntok)
{
    double M = (double)m, D = (double)d, T = omp_get_max_threads();
    double bytes = M * D * 8 + (double)n * M * 8 + (double)n * (double)ntok * 120 + M * 8 +
                   (D + 1) * 600 + T * (M * (D + 1) * 48 + M * 32 + (M + 2 * D) * 200);
    char what[512];
    snprintf(what, sizeof what,
             "%s: sbw-argmax --truncation with this %zu x %zu head and %zu output(s) (%d LP(s))",
             wpath, m, d, n, omp_get_max_threads());
    return sbw_preflight_memory(bytes, what);
}

/* The outputs: N x M log-probabilities, each entry finite, each row
 * normalised (sbw_logp's checks and messages). */
static int read_logp(sbw_logp_reader *r, sbw_mat *out)
{
    const sbw_npy_info *in = sbw_logp_info(r);
    sbw_logp_sel sel;
    sbw_logp_sel_range(&sel, 0, in->rows);
    int st = sbw_mat_alloc(out, in->rows, in->cols);
    double *sums = st ? NULL : malloc(in->rows * sizeof *sums);
    if (!st && !sums)
        st = SBW_ERROR(SBW_ENOMEM, "%s: no memory for %zu rows", sbw_logp_path(r), in->rows);
    st = st ? st : sbw_logp_read(r, &sel, 0, in->rows, out->data);
    for (size_t i = 0; !st && i < in->rows; i++) {
        sums[i] = 0;
        for (size_t j = 0; j < in->cols; j++)
            sums[i] += exp(out->data[i * out->ld + j]);
    }
    st = st ? st : sbw_logp_check_sums(r, &sel, 0, in->rows, out->data, sums);
    free(sums);
    return st;
}

/* W and the outputs opened, their shapes checked against each other and
 * the memory preflight, then both read. */
static int file_read(const char *wpath, const sbw_argmax_trunc_file_opts *o,
                     sbw_argmax_trunc_file_res *res)
{
    sbw_npy_reader *r = NULL;
    sbw_logp_reader *lr = NULL;
    size_t m, d;
    int st = sbw_argmax_io_open_w(&r, wpath, &m, &d);
    sbw_logp_opts lo = {.tol = SBW_LOGP_TOL, .normalize = o->normalize};
    st = st ? st : sbw_logp_open(&lr, o->logp, &lo);
    const sbw_npy_info *in = st ? NULL : sbw_logp_info(lr);
    if (!st && in->cols != m)
        st = SBW_ERROR(SBW_ESHAPE, "%s: rows of %zu tokens for a head of %zu (%s)", o->logp,
                       in->cols, m, wpath);
    st = st ? st : file_preflight(wpath, m, d, in->rows, o->tokens ? o->ntok : m);
    if (!st) {
        st = sbw_argmax_io_read_w(r, wpath, &res->w);
        r = NULL; /* closed by the reader */
    }
    st = st ? st : read_logp(lr, &res->logp);
    if (!st) /* lr is open */
        sbw_logp_stats(lr, &res->max_abs_lse, &(size_t){0});
    if (r)
        sbw_npy_close(r);
    sbw_logp_close(lr);
    return st || !o->vocab ? st : sbw_argmax_io_read_vocab(o->vocab, m, &res->names);
}

int sbw_argmax_trunc_file(const char *wpath, const sbw_argmax_trunc_file_opts *o,
                          sbw_argmax_trunc_file_res *res)
{
    *res = (sbw_argmax_trunc_file_res){0};
    int st = file_read(wpath, o, res);
    size_t m = res->w.rows, n = res->logp.rows;
    for (size_t t = 0; !st && o->tokens && t < o->ntok; t++)
        if (o->tokens[t] >= m)
            st = SBW_ERROR(SBW_EINVAL, "--words: token %zu is out of range (%s has %zu tokens)",
                           o->tokens[t], wpath, m);
    res->ntok = o->tokens ? o->ntok : m;
    if (!st && !(res->out = calloc(n * res->ntok + 1, sizeof *res->out)))
        st = SBW_ERROR(SBW_ENOMEM, "no memory for %zu x %zu answers", n, res->ntok);
    if (st)
        return st;
    sbw_progress pg;
    sbw_argmax_trunc_opts run = o->run;
    run.progress = &pg;
    sbw_progress_start(&pg, "sbw-argmax: --truncation", "pairs", (double)(n * res->ntok), o->quiet);
    st = sbw_argmax_trunc_run(res->w.data, m, res->w.cols, res->w.ld, res->logp.data, n,
                              res->logp.ld, o->tokens, res->ntok, &run, res->out, &res->sum);
    sbw_progress_finish(&pg);
    return st;
}

void sbw_argmax_trunc_file_free(sbw_argmax_trunc_file_res *res)
{
    sbw_argmax_io_names_free(res->names, res->w.rows);
    sbw_mat_free(&res->w);
    sbw_mat_free(&res->logp);
    free(res->out);
    *res = (sbw_argmax_trunc_file_res){0};
}
