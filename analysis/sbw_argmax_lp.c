/* sbw_argmax_lp.c -- one word's LP by column generation with GLPK (see the
 * header for the LP and its dual). */
#include "sbw_argmax_lp.h"

#include "sbw_argmax_cert.h"
#include "sbw_error.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sbw_argmax_lp {
    size_t m, d;
    glp_prob *P;
    int *ind;          /* d + 3: GLPK's 1-based row indices of a column */
    double *val;       /* d + 3 */
    double *y;         /* d: the dual's y */
    double *h;         /* d: the certificate */
    double *v;         /* m: w_j.y + b_j t + zeta, or scores along h0 */
    double *a;         /* m: (w_i - w_j).y for the ray */
    double *c;         /* m: b_i - b_j */
    size_t *col;       /* m: word of each rival column */
    unsigned char *in; /* m: rival j is a column */
    size_t *idx;       /* m: lambda's words */
    double *lam;       /* m: lambda */
    size_t ncol;
    double inv; /* 1 / scale: the LP sees W / scale and b / scale */
};

void sbw_argmax_lp_free(sbw_argmax_lp *lp)
{
    if (!lp)
        return;
    if (lp->P)
        glp_delete_prob(lp->P);
    free(lp->ind);
    free(lp->val);
    free(lp->y);
    free(lp->h);
    free(lp->v);
    free(lp->a);
    free(lp->c);
    free(lp->col);
    free(lp->in);
    free(lp->idx);
    free(lp->lam);
    free(lp);
}

void sbw_argmax_lp_thread_done(void) { glp_free_env(); }

int sbw_argmax_lp_alloc(sbw_argmax_lp **out, size_t m, size_t d)
{
    *out = NULL;
    if (m < 2 || d < 1 || d > (size_t)1 << 28)
        return SBW_ERROR(SBW_EINVAL, "argmax LP: need m >= 2 words and d >= 1, got %zu x %zu", m,
                         d);
    sbw_argmax_lp *lp = calloc(1, sizeof *lp);
    if (!lp)
        return SBW_ERROR(SBW_ENOMEM, "argmax LP: no memory");
    lp->m = m;
    lp->d = d;
    lp->ind = malloc((d + 3) * sizeof *lp->ind);
    lp->val = malloc((d + 3) * sizeof *lp->val);
    lp->y = malloc(d * sizeof *lp->y);
    lp->h = malloc(d * sizeof *lp->h);
    lp->v = malloc(m * sizeof *lp->v);
    lp->a = malloc(m * sizeof *lp->a);
    lp->c = malloc(m * sizeof *lp->c);
    lp->col = malloc(m * sizeof *lp->col);
    lp->in = calloc(m, 1);
    lp->idx = malloc(m * sizeof *lp->idx);
    lp->lam = malloc(m * sizeof *lp->lam);
    if (!lp->ind || !lp->val || !lp->y || !lp->h || !lp->v || !lp->a || !lp->c || !lp->col ||
        !lp->in || !lp->idx || !lp->lam) {
        sbw_argmax_lp_free(lp);
        return SBW_ERROR(SBW_ENOMEM, "argmax LP: no memory for %zu words", m);
    }
    *out = lp;
    return SBW_OK;
}

/* Rows 1..d: the w rows (= w_i); d+1: sum lambda = 1; d+2: the bias row.
 * Columns 1..2d: p, q; 2d+1: u (bias only); then the rivals. */
static void build(sbw_argmax_lp *lp, const double *wi, const double *b, size_t i)
{
    size_t d = lp->d;
    int nrow = (int)d + 1 + (b != NULL);
    if (lp->P)
        glp_erase_prob(lp->P);
    else
        lp->P = glp_create_prob();
    glp_set_obj_dir(lp->P, GLP_MIN);
    glp_add_rows(lp->P, nrow);
    for (size_t k = 0; k < d; k++)
        glp_set_row_bnds(lp->P, (int)k + 1, GLP_FX, wi[k] * lp->inv, wi[k] * lp->inv);
    glp_set_row_bnds(lp->P, (int)d + 1, GLP_FX, 1.0, 1.0);
    if (b)
        glp_set_row_bnds(lp->P, (int)d + 2, GLP_LO, b[i] * lp->inv, 0.0);
    int nslack = 2 * (int)d + (b != NULL);
    glp_add_cols(lp->P, nslack);
    for (int s = 1; s <= nslack; s++) {
        int row = s <= (int)d ? s : s <= 2 * (int)d ? s - (int)d : (int)d + 2;
        lp->ind[1] = row;
        lp->val[1] = s > (int)d && s <= 2 * (int)d ? -1.0 : 1.0;
        glp_set_mat_col(lp->P, s, 1, lp->ind, lp->val);
        glp_set_col_bnds(lp->P, s, GLP_LO, 0.0, 0.0);
        glp_set_obj_coef(lp->P, s, 1.0);
    }
    lp->ncol = 0;
}

static void add_rival(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t j)
{
    size_t d = lp->d;
    int c = glp_add_cols(lp->P, 1);
    for (size_t k = 0; k < d; k++) {
        lp->ind[k + 1] = (int)k + 1;
        lp->val[k + 1] = w[j * ldw + k] * lp->inv;
    }
    lp->ind[d + 1] = (int)d + 1;
    lp->val[d + 1] = 1.0;
    if (b) {
        lp->ind[d + 2] = (int)d + 2;
        lp->val[d + 2] = b[j] * lp->inv;
    }
    glp_set_mat_col(lp->P, c, (int)d + 1 + (b != NULL), lp->ind, lp->val);
    glp_set_col_bnds(lp->P, c, GLP_LO, 0.0, 0.0);
    lp->col[lp->ncol++] = j;
    lp->in[j] = 1;
}

/* v_j = (w_j.y + b_j t) / scale + zeta for every word (v_i = -inf): the
 * scaled LP's dual constraint. */
static void score(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t i,
                  const double *y, double t, double zeta)
{
    for (size_t j = 0; j < lp->m; j++) {
        const double *wj = w + j * ldw;
        double s = b ? b[j] * t : 0.0;
        for (size_t k = 0; k < lp->d; k++)
            s += wj[k] * y[k];
        lp->v[j] = s * lp->inv + zeta;
    }
    lp->v[i] = -INFINITY;
}

/* Adds up to cap rivals with the largest v_j > floor that are not columns
 * yet; returns how many. */
static size_t add_best(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t cap,
                       double floor)
{
    size_t added = 0;
    for (; added < cap; added++) {
        size_t best = lp->m;
        double bv = floor;
        for (size_t j = 0; j < lp->m; j++)
            if (!lp->in[j] && lp->v[j] > bv) {
                bv = lp->v[j];
                best = j;
            }
        if (best == lp->m)
            break;
        add_rival(lp, w, ldw, b, best);
    }
    return added;
}

/* The h along the dual's (y, t), checked; true when it proves i. */
static bool try_h(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t i,
                  double t, sbw_argmax_lp_res *res)
{
    size_t n = 0, d = lp->d;
    const double *wi = w + i * ldw;
    double yi = 0;
    for (size_t k = 0; k < d; k++)
        yi += wi[k] * lp->y[k];
    for (size_t j = 0; j < lp->m; j++) {
        if (j == i)
            continue;
        double yj = 0;
        for (size_t k = 0; k < d; k++)
            yj += w[j * ldw + k] * lp->y[k];
        lp->a[n] = yi - yj;
        lp->c[n++] = b ? b[i] - b[j] : 0.0;
    }
    double s;
    if (!sbw_argmax_cert_ray(lp->a, b ? lp->c : NULL, n, t > 0 ? 1 / t : 1.0, &s))
        return false;
    double nrm = 0;
    for (size_t k = 0; k < d; k++) {
        lp->h[k] = s * lp->y[k];
        nrm += lp->h[k] * lp->h[k];
    }
    sbw_argmax_cert_h_res r;
    sbw_argmax_cert_h(w, lp->m, d, ldw, b, i, lp->h, &r);
    if (!(r.margin > r.bound))
        return false;
    res->verdict = 1;
    res->h = lp->h;
    res->margin = r.margin;
    res->bound = r.bound;
    res->h_norm = sqrt(nrm);
    return true;
}

/* lambda from the primal, checked; true when it proves i unargmaxable. */
static bool try_lambda(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t i,
                       double tol, sbw_argmax_lp_res *res)
{
    size_t k = 0, first = 2 * lp->d + (b != NULL);
    for (size_t c = 0; c < lp->ncol; c++) {
        double x = glp_get_col_prim(lp->P, (int)(first + c) + 1);
        if (x > 0) {
            lp->idx[k] = lp->col[c];
            lp->lam[k++] = x;
        }
    }
    sbw_argmax_cert_l_res r;
    sbw_argmax_cert_lambda(w, lp->m, lp->d, ldw, b, i, lp->idx, lp->lam, k, &r);
    if (!r.valid || !(r.residual <= tol) || !(r.gap <= tol))
        return false;
    res->verdict = 0;
    res->idx = lp->idx;
    res->lambda = lp->lam;
    res->k = k;
    res->support = r.support;
    res->residual = r.residual;
    res->gap = r.gap;
    return true;
}

/* Solves the restricted LP and reads the dual into y, t, zeta. */
static int solve(sbw_argmax_lp *lp, bool has_b, size_t i, double *t, double *zeta, double *obj)
{
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    int rc = glp_simplex(lp->P, &parm);
    if (rc == GLP_EFAIL || rc == GLP_ESING || rc == GLP_ECOND || rc == GLP_EBADB) {
        glp_adv_basis(lp->P, 0);
        rc = glp_simplex(lp->P, &parm);
    }
    if (rc != 0 || glp_get_status(lp->P) != GLP_OPT)
        return SBW_ERROR(SBW_ENUMERIC, "argmax LP: GLPK failed on word %zu (code %d, status %d)", i,
                         rc, glp_get_status(lp->P));
    for (size_t k = 0; k < lp->d; k++)
        lp->y[k] = glp_get_row_dual(lp->P, (int)k + 1);
    *zeta = glp_get_row_dual(lp->P, (int)lp->d + 1);
    *t = has_b ? fmax(0.0, glp_get_row_dual(lp->P, (int)lp->d + 2)) : 0.0;
    *obj = glp_get_obj_val(lp->P);
    return SBW_OK;
}

int sbw_argmax_lp_word(sbw_argmax_lp *lp, const double *w, size_t ldw, const double *b, size_t i,
                       const double *h0, double tol, double scale, int max_rounds,
                       sbw_argmax_lp_res *res)
{
    memset(res, 0, sizeof *res);
    res->verdict = -1;
    res->margin = res->residual = res->gap = NAN;
    memset(lp->in, 0, lp->m);
    lp->inv = scale > 0 && isfinite(scale) ? 1 / scale : 1.0;
    build(lp, w + i * ldw, b, i);
    score(lp, w, ldw, b, i, h0, b ? 1.0 : 0.0, 0.0);
    add_best(lp, w, ldw, b, lp->d + 2, -INFINITY);
    double atol = tol * scale;
    int st = SBW_OK;
    for (int round = 0; round < max_rounds && res->verdict < 0 && !st; round++) {
        double t, zeta, obj;
        st = solve(lp, b != NULL, i, &t, &zeta, &obj);
        res->rounds = round + 1;
        res->columns = lp->ncol;
        if (st)
            break;
        if (obj <= tol && try_lambda(lp, w, ldw, b, i, atol, res))
            break;
        if (try_h(lp, w, ldw, b, i, t, res))
            break;
        score(lp, w, ldw, b, i, lp->y, t, zeta);
        /* a rival whose dual constraint fails; near-ties too when the LP
         * stalls at a margin the check cannot prove */
        if (!add_best(lp, w, ldw, b, lp->d + 2, 0.0) &&
            !add_best(lp, w, ldw, b, lp->d + 2, -tol - 1e-9))
            break;
    }
    return st;
}
