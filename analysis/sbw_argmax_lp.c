/* sbw_argmax_lp.c -- one word's LP by column generation with GLPK, the
 * face refinement of its h and the polish of its lambda (see the header). */
#include "sbw_argmax_lp.h"

#include "sbw_argmax_cert.h"
#include "sbw_error.h"

#include <glpk.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { REFINE_ROUNDS = 6 };

struct sbw_argmax_lp {
    size_t m, d;
    glp_prob *P;
    int *ind;          /* d + 3: GLPK's 1-based row indices of a column */
    double *val;       /* d + 3 */
    double *yd;        /* d: the dual's y */
    double *y;         /* d + 1: a refined y (and t) */
    double *h;         /* d: the certificate */
    double *v;         /* m: w_j.y + b_j t + zeta, or scores along h0 */
    double *a;         /* m: (w_i - w_j).y for the ray */
    double *c;         /* m: b_i - b_j */
    size_t *col;       /* m: word of each rival column */
    unsigned char *in; /* m: rival j is a column (1) or in the face (2) */
    size_t *idx;       /* m: lambda's words */
    double *lam;       /* m: lambda */
    size_t *face;      /* d + 2: the rivals of the refined face */
    size_t *kidx;      /* d + 2: the first LP's lambda, kept by label */
    double *klam;      /* d + 2 */
    double *A;         /* (d + 2)^2: least-squares matrix */
    double *rhs;       /* d + 2 */
    double *sv;        /* d + 2: singular values */
    size_t ncol;
    double inv; /* 1 / scale: the LP sees W / scale and b / scale */
};

double sbw_argmax_lp_bytes(size_t m, size_t d)
{
    double D = (double)d;
    return (double)m * (3 * sizeof(double) + 2 * sizeof(size_t) + sizeof(double) + 1) +
           (D + 3) * (sizeof(int) + sizeof(double)) + (2 * D + 1) * sizeof(double) +
           (D + 2) * (D + 2 + 3) * sizeof(double) + 2 * (D + 2) * sizeof(size_t) +
           D * sizeof(double);
}

void sbw_argmax_lp_free(sbw_argmax_lp *lp)
{
    if (!lp)
        return;
    if (lp->P)
        glp_delete_prob(lp->P);
    free(lp->ind);
    free(lp->val);
    free(lp->y);
    free(lp->yd);
    free(lp->kidx);
    free(lp->klam);
    free(lp->h);
    free(lp->v);
    free(lp->a);
    free(lp->c);
    free(lp->col);
    free(lp->in);
    free(lp->idx);
    free(lp->lam);
    free(lp->face);
    free(lp->A);
    free(lp->rhs);
    free(lp->sv);
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
    lp->y = malloc((d + 1) * sizeof *lp->y);
    lp->yd = malloc(d * sizeof *lp->yd);
    lp->kidx = malloc((d + 2) * sizeof *lp->kidx);
    lp->klam = malloc((d + 2) * sizeof *lp->klam);
    lp->h = malloc(d * sizeof *lp->h);
    lp->v = malloc(m * sizeof *lp->v);
    lp->a = malloc(m * sizeof *lp->a);
    lp->c = malloc(m * sizeof *lp->c);
    lp->col = malloc(m * sizeof *lp->col);
    lp->in = calloc(m, 1);
    lp->idx = malloc(m * sizeof *lp->idx);
    lp->lam = malloc(m * sizeof *lp->lam);
    lp->face = malloc((d + 2) * sizeof *lp->face);
    glp_term_out(GLP_OFF); /* GLPK's messages go to stdout, the table's place */
    lp->rhs = malloc((d + 2) * sizeof *lp->rhs);
    lp->sv = malloc((d + 2) * sizeof *lp->sv);
    if (!lp->ind || !lp->val || !lp->y || !lp->yd || !lp->kidx || !lp->klam || !lp->h || !lp->v ||
        !lp->a || !lp->c || !lp->col || !lp->in || !lp->idx || !lp->lam || !lp->face || !lp->rhs ||
        !lp->sv) {
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

static void add_rival(sbw_argmax_lp *lp, const sbw_argmax_lp_head *nh, size_t j)
{
    size_t d = lp->d;
    int c = glp_add_cols(lp->P, 1);
    for (size_t k = 0; k < d; k++) {
        lp->ind[k + 1] = (int)k + 1;
        lp->val[k + 1] = nh->w[j * nh->ldw + k] * lp->inv;
    }
    lp->ind[d + 1] = (int)d + 1;
    lp->val[d + 1] = 1.0;
    if (nh->b) {
        lp->ind[d + 2] = (int)d + 2;
        lp->val[d + 2] = nh->b[j] * lp->inv;
    }
    glp_set_mat_col(lp->P, c, (int)d + 1 + (nh->b != NULL), lp->ind, lp->val);
    glp_set_col_bnds(lp->P, c, GLP_LO, 0.0, 0.0);
    lp->col[lp->ncol++] = j;
    lp->in[j] = 1;
}

/* v_j = (w_j.y + b_j t) / scale + zeta for every word (v_i = -inf): the
 * scaled LP's dual constraint. */
static void score(sbw_argmax_lp *lp, const sbw_argmax_lp_head *nh, size_t i, const double *y,
                  double t, double zeta)
{
    for (size_t j = 0; j < lp->m; j++) {
        const double *wj = nh->w + j * nh->ldw;
        double s = nh->b ? nh->b[j] * t : 0.0;
        for (size_t k = 0; k < lp->d; k++)
            s += wj[k] * y[k];
        lp->v[j] = s * lp->inv + zeta;
    }
    lp->v[i] = -INFINITY;
}

/* Adds up to cap rivals with the largest v_j > floor that are not columns
 * yet; returns how many. */
static size_t add_best(sbw_argmax_lp *lp, const sbw_argmax_lp_head *nh, size_t cap, double floor)
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
        add_rival(lp, nh, best);
    }
    return added;
}

/* ---- the h certificate ---------------------------------------------------- */

/* The h along the direction y (d values) of the normalised head, scaled on
 * its ray (preferring 1 / t), checked on the stored head; true when it
 * proves i.  Leaves the margins a_j s + c_j in lp->v (rivals in order). */
static bool try_ray(sbw_argmax_lp *lp, const sbw_argmax_lp_head *oh, const sbw_argmax_lp_head *nh,
                    size_t i, const double *y, double t, sbw_argmax_lp_res *res)
{
    size_t n = 0, d = lp->d;
    const double *wi = nh->w + i * nh->ldw;
    double yi = 0;
    for (size_t k = 0; k < d; k++)
        yi += wi[k] * y[k];
    for (size_t j = 0; j < lp->m; j++) {
        if (j == i)
            continue;
        double yj = 0;
        for (size_t k = 0; k < d; k++)
            yj += nh->w[j * nh->ldw + k] * y[k];
        lp->a[n] = yi - yj;
        lp->c[n++] = nh->b ? nh->b[i] - nh->b[j] : 0.0;
    }
    double s;
    if (!sbw_argmax_cert_ray(lp->a, nh->b ? lp->c : NULL, n, t > 0 ? 1 / t : 1.0, &s))
        return false;
    double nrm = 0;
    for (size_t k = 0; k < d; k++) {
        lp->h[k] = s * y[k];
        nrm += lp->h[k] * lp->h[k];
    }
    sbw_argmax_cert_h_res r;
    sbw_argmax_cert_h(oh->w, lp->m, d, oh->ldw, oh->b, i, lp->h, &r);
    if (!r.proven)
        return false;
    res->verdict = 1;
    res->h = lp->h;
    res->margin = r.margin;
    res->bound = r.bound;
    res->h_norm = sqrt(nrm);
    return true;
}

/* The (d + 2)^2 least-squares matrix, allocated on first use (only words
 * near the boundary need it); false when there is no memory for it (the
 * refinement and the polish are then skipped, never the verdict). */
static bool ls_matrix(sbw_argmax_lp *lp)
{
    if (!lp->A)
        lp->A = malloc((lp->d + 2) * (lp->d + 2) * sizeof *lp->A);
    return lp->A != NULL;
}

/* Least squares min ||A x - rhs|| (A: rows x cols, row-major in lp->A,
 * ld cols), the minimum-norm solution into lp->rhs; false on failure. */
static bool lstsq(sbw_argmax_lp *lp, size_t rows, size_t cols)
{
    lapack_int rank;
    lapack_int info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, (lapack_int)rows, (lapack_int)cols, 1, lp->A,
                                     (lapack_int)cols, lp->rhs, 1, lp->sv, -1.0, &rank);
    if (info != 0)
        return false;
    for (size_t k = 0; k < cols; k++)
        if (!isfinite(lp->rhs[k]))
            return false;
    return true;
}

/* Adds rival j to the face (when there is room). */
static void face_add(sbw_argmax_lp *lp, size_t *nf, size_t j)
{
    if (*nf < lp->d + 2 && lp->in[j] != 2) {
        lp->face[(*nf)++] = j;
        lp->in[j] = 2;
    }
}

/* The rival j != i not yet on the face with the largest lp->a[j] above
 * floor, or lp->m when there is none. */
static size_t best_rival(const sbw_argmax_lp *lp, size_t i, double floor)
{
    size_t best = lp->m;
    for (size_t j = 0; j < lp->m; j++)
        if (lp->in[j] != 2 && j != i && lp->a[j] > floor) {
            floor = lp->a[j];
            best = j;
        }
    return best;
}

/* The h of the face that lambda's support (and, with use_dual, the rivals
 * the dual in lp->v binds) spans: (w_i - w_j).y + (b_i - b_j) t = 1 on
 * the face's rivals, least squares, then the rivals that still beat i
 * join the face; true when an h is proven. */
static bool refine_h(sbw_argmax_lp *lp, const sbw_argmax_lp_head *oh, const sbw_argmax_lp_head *nh,
                     size_t i, bool use_dual, sbw_argmax_lp_res *res)
{
    size_t d = lp->d, nf = 0, cols = d + (nh->b != NULL);
    const double *wi = nh->w + i * nh->ldw;
    bool ok = false;
    if (!ls_matrix(lp))
        return false;
    size_t first = 2 * d + (nh->b != NULL);
    for (size_t c = 0; c < lp->ncol; c++) /* lambda's support */
        if (glp_get_col_prim(lp->P, (int)(first + c) + 1) > 0)
            face_add(lp, &nf, lp->col[c]);
    for (size_t j = 0; j < lp->m; j++) /* then the binding rivals, largest first */
        lp->a[j] = lp->v[j];
    while (use_dual && nf < d + 2) {
        size_t best = best_rival(lp, i, -1e-7);
        if (best == lp->m)
            break;
        face_add(lp, &nf, best);
    }
    for (int round = 0; round < REFINE_ROUNDS && nf > 0 && !ok; round++) {
        size_t rows = nf > cols ? nf : cols;
        memset(lp->A, 0, rows * cols * sizeof *lp->A);
        memset(lp->rhs, 0, rows * sizeof *lp->rhs);
        for (size_t f = 0; f < nf; f++) {
            const double *wj = nh->w + lp->face[f] * nh->ldw;
            for (size_t k = 0; k < d; k++)
                lp->A[f * cols + k] = (wi[k] - wj[k]) * lp->inv;
            if (nh->b)
                lp->A[f * cols + d] = (nh->b[i] - nh->b[lp->face[f]]) * lp->inv;
            lp->rhs[f] = 1.0;
        }
        if (!lstsq(lp, rows, cols))
            break;
        double t = nh->b ? lp->rhs[d] : 0.0;
        memcpy(lp->y, lp->rhs, d * sizeof *lp->y);
        if (try_ray(lp, oh, nh, i, lp->y, t, res)) {
            ok = true;
            break;
        }
        /* the rivals that beat i along y join the face, the worst first */
        double tp = nh->b && t > 0 ? t : 0.0, vi = nh->b ? nh->b[i] * tp : 0.0;
        score(lp, nh, i, lp->y, tp, 0.0);
        for (size_t k = 0; k < d; k++)
            vi += wi[k] * lp->y[k];
        for (size_t j = 0; j < lp->m; j++)
            lp->a[j] = lp->v[j] - vi * lp->inv;
        size_t added = 0;
        for (; nf < d + 2; added++) {
            size_t best = best_rival(lp, i, -1e-12);
            if (best == lp->m)
                break;
            face_add(lp, &nf, best);
        }
        if (!added)
            break;
    }
    for (size_t f = 0; f < nf; f++) /* back to "column or not" */
        lp->in[lp->face[f]] = 0;
    for (size_t c = 0; c < lp->ncol; c++)
        lp->in[lp->col[c]] = 1;
    return ok;
}

/* ---- the lambda certificate ----------------------------------------------- */

/* lambda[0..k) on idx re-solved by least squares on its support: sum_t
 * lambda_t [w_t; 1; b_t] = [w_i; 1; beta] on the normalised head, beta the
 * bias lambda reaches now (GLPK's lambda is feasible only to its
 * tolerance); false when the result is not nonnegative.  Uses A, rhs. */
static bool polish(sbw_argmax_lp *lp, const sbw_argmax_lp_head *nh, size_t i, size_t k)
{
    size_t d = lp->d, rows = d + 1 + (nh->b != NULL);
    if (k == 0 || k > d + 2 || !ls_matrix(lp))
        return false;
    size_t R = rows > k ? rows : k;
    memset(lp->A, 0, R * k * sizeof *lp->A);
    memset(lp->rhs, 0, R * sizeof *lp->rhs);
    for (size_t r = 0; r < d; r++) {
        for (size_t t = 0; t < k; t++)
            lp->A[r * k + t] = nh->w[lp->idx[t] * nh->ldw + r];
        lp->rhs[r] = nh->w[i * nh->ldw + r];
    }
    double beta = 0, sum = 0;
    for (size_t t = 0; t < k; t++) {
        lp->A[d * k + t] = 1.0;
        sum += lp->lam[t];
        beta += lp->lam[t] * (nh->b ? nh->b[lp->idx[t]] : 0.0);
    }
    lp->rhs[d] = 1.0;
    if (nh->b) {
        for (size_t t = 0; t < k; t++)
            lp->A[(d + 1) * k + t] = nh->b[lp->idx[t]];
        lp->rhs[d + 1] = beta / sum;
    }
    if (!lstsq(lp, R, k))
        return false;
    for (size_t t = 0; t < k; t++)
        if (!(lp->rhs[t] >= 0))
            return false;
    memcpy(lp->lam, lp->rhs, k * sizeof *lp->lam);
    return true;
}

/* Checks lambda[0..k) on idx against atol; true when it passes (res
 * filled). */
static bool check_lambda(sbw_argmax_lp *lp, const sbw_argmax_lp_head *oh, size_t i, size_t k,
                         double atol, sbw_argmax_lp_res *res)
{
    sbw_argmax_cert_l_res r;
    sbw_argmax_cert_lambda(oh->w, lp->m, lp->d, oh->ldw, oh->b, i, lp->idx, lp->lam, k, &r);
    if (!r.valid || !(r.residual <= atol) || !(r.gap <= atol))
        return false;
    res->verdict = 0;
    res->idx = lp->idx;
    res->lambda = lp->lam;
    res->k = k;
    res->support = r.support;
    res->residual = r.residual;
    res->gap = r.gap;
    res->below = r.gap < -atol;
    return true;
}

/* lambda from the primal, polished, else as GLPK gave it, checked on the
 * stored head; true when it passes tol (atol = tol * scale). */
static bool try_lambda(sbw_argmax_lp *lp, const sbw_argmax_lp_head *oh,
                       const sbw_argmax_lp_head *nh, size_t i, double atol, sbw_argmax_lp_res *res)
{
    size_t k = 0, first = 2 * lp->d + (oh->b != NULL);
    for (size_t c = 0; c < lp->ncol; c++) {
        double x = glp_get_col_prim(lp->P, (int)(first + c) + 1);
        if (x > 0) {
            lp->idx[k] = lp->col[c];
            lp->lam[k++] = x;
        }
    }
    memcpy(lp->a, lp->lam, k * sizeof *lp->a);
    /* exact weights when the support is small: a proof with residual 0 */
    if (sbw_argmax_cert_exact_lambda(oh->w, lp->m, lp->d, oh->ldw, i, lp->idx, k, lp->lam) &&
        check_lambda(lp, oh, i, k, atol, res))
        return true;
    memcpy(lp->lam, lp->a, k * sizeof *lp->lam);
    if (polish(lp, nh, i, k) && check_lambda(lp, oh, i, k, atol, res))
        return true;
    memcpy(lp->lam, lp->a, k * sizeof *lp->lam);
    return check_lambda(lp, oh, i, k, atol, res);
}

/* Solves the restricted LP and reads the dual into yd, t, zeta. */
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
        lp->yd[k] = glp_get_row_dual(lp->P, (int)k + 1);
    *zeta = glp_get_row_dual(lp->P, (int)lp->d + 1);
    *t = has_b ? fmax(0.0, glp_get_row_dual(lp->P, (int)lp->d + 2)) : 0.0;
    *obj = glp_get_obj_val(lp->P);
    return SBW_OK;
}

/* ---- the label: the height of the upper hull above w_i ---------------- */

/* The second LP: maximise sum_j lambda_j b_j subject to sum_j lambda_j w_j
 * = w_i, sum lambda = 1 (the slacks fixed at 0, the bias row free), by
 * column generation (rival j enters when its reduced cost -b_j / scale -
 * w_j.y / scale - zeta is negative, i.e. v_j > 0 below).  Its optimum is
 * the height of the upper hull above w_i (/ scale) into *height; lp->v
 * keeps minus the reduced costs (0 on the face above w_i, < 0 elsewhere).
 * False when GLPK fails (w_i outside the hull in w, say). */
static bool phase2(sbw_argmax_lp *lp, const sbw_argmax_lp_head *nh, size_t i, int max_rounds,
                   double *height)
{
    size_t d = lp->d;
    int first = 2 * (int)d + 1;
    for (int s = 1; s <= first; s++) {
        glp_set_col_bnds(lp->P, s, GLP_FX, 0.0, 0.0);
        glp_set_obj_coef(lp->P, s, 0.0);
    }
    glp_set_row_bnds(lp->P, (int)d + 2, GLP_FR, 0.0, 0.0);
    for (size_t c = 0; c < lp->ncol; c++)
        glp_set_obj_coef(lp->P, first + (int)c + 1, -nh->b[lp->col[c]] * lp->inv);
    for (int round = 0; round < max_rounds; round++) {
        glp_smcp parm;
        glp_init_smcp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        if (glp_simplex(lp->P, &parm) != 0 || glp_get_status(lp->P) != GLP_OPT)
            return false;
        *height = -glp_get_obj_val(lp->P);
        for (size_t k = 0; k < d; k++)
            lp->y[k] = glp_get_row_dual(lp->P, (int)k + 1);
        score(lp, nh, i, lp->y, 0.0, glp_get_row_dual(lp->P, (int)d + 1));
        for (size_t j = 0; j < lp->m; j++)
            lp->v[j] += nh->b[j] * lp->inv;
        size_t before = lp->ncol;
        if (!add_best(lp, nh, d + 2, 1e-9))
            return isfinite(*height);
        for (size_t c = before; c < lp->ncol; c++)
            glp_set_obj_coef(lp->P, first + (int)c + 1, -nh->b[lp->col[c]] * lp->inv);
    }
    return false;
}

/* Back to the first LP (slacks free with cost 1, the bias row >= b_i, no
 * cost on the rivals). */
static void phase1(sbw_argmax_lp *lp, const sbw_argmax_lp_head *nh, size_t i)
{
    size_t d = lp->d;
    int first = 2 * (int)d + 1;
    for (int s = 1; s <= first; s++) {
        glp_set_col_bnds(lp->P, s, GLP_LO, 0.0, 0.0);
        glp_set_obj_coef(lp->P, s, 1.0);
    }
    glp_set_row_bnds(lp->P, (int)d + 2, GLP_LO, nh->b[i] * lp->inv, 0.0);
    for (size_t c = 0; c < lp->ncol; c++)
        glp_set_obj_coef(lp->P, first + (int)c + 1, 0.0);
}

/* A word the first LP puts in the hull (to its tolerance), with a bias:
 * the height of the upper hull above it decides.  Near it (within tol),
 * the face above w_i gives an h when i sticks out of it; else that face's
 * lambda is the certificate and the height the label.  When the second
 * LP fails, the first LP's face and lambda (labelled by its own gap).  Returns a
 * GLPK failure; res->verdict stays -1 when nothing passed. */
static int near_with_bias(sbw_argmax_lp *lp, const sbw_argmax_lp_head *oh,
                          const sbw_argmax_lp_head *nh, size_t i, double tol, double atol,
                          int max_rounds, sbw_argmax_lp_res *res)
{
    double height = NAN;
    if (phase2(lp, nh, i, max_rounds, &height)) {
        double above = height - nh->b[i] * lp->inv;
        if (above <= tol + 1e-7 && refine_h(lp, oh, nh, i, true, res))
            return SBW_OK;
        if (try_lambda(lp, oh, nh, i, atol, res)) {
            res->below = above > tol;
            return SBW_OK;
        }
    }
    phase1(lp, nh, i);
    double t, zeta, obj;
    int st = solve(lp, true, i, &t, &zeta, &obj);
    if (st)
        return st;
    score(lp, nh, i, lp->yd, t, zeta); /* the first LP's face, then its lambda */
    if (!refine_h(lp, oh, nh, i, true, res))
        (void)try_lambda(lp, oh, nh, i, atol, res);
    return SBW_OK;
}

int sbw_argmax_lp_word(sbw_argmax_lp *lp, const sbw_argmax_lp_head *oh,
                       const sbw_argmax_lp_head *nh, size_t i, const double *h0, double tol,
                       double scale, int exp2, int max_rounds, sbw_argmax_lp_res *res)
{
    memset(res, 0, sizeof *res);
    res->verdict = -1;
    res->margin = res->residual = res->gap = NAN;
    memset(lp->in, 0, lp->m);
    lp->inv = scale > 0 && isfinite(scale) ? 1 / scale : 1.0;
    build(lp, nh->w + i * nh->ldw, nh->b, i);
    score(lp, nh, i, h0, nh->b ? 1.0 : 0.0, 0.0);
    add_best(lp, nh, lp->d + 2, -INFINITY);
    double atol = ldexp(tol * scale, exp2);
    int st = SBW_OK;
    for (int round = 0; round < max_rounds && res->verdict < 0 && !st; round++) {
        double t, zeta, obj;
        st = solve(lp, nh->b != NULL, i, &t, &zeta, &obj);
        res->rounds = round + 1;
        res->columns = lp->ncol;
        if (st)
            break;
        if (try_ray(lp, oh, nh, i, lp->yd, t, res))
            break;
        score(lp, nh, i, lp->yd, t, zeta);
        double ymax = t;
        for (size_t k = 0; k < lp->d; k++)
            ymax = fmax(ymax, fabs(lp->yd[k]));
        size_t k = 0, first = 2 * lp->d + (nh->b != NULL);
        for (size_t c = 0; c < lp->ncol; c++)
            k += glp_get_col_prim(lp->P, (int)(first + c) + 1) > 0;
        bool near = obj <= tol + 1e-7;
        if (near && nh->b) {
            st = near_with_bias(lp, oh, nh, i, tol, atol, max_rounds, res);
            if (st || res->verdict >= 0)
                break;
        } else if (near) {
            /* near the boundary (the dual points at a face, or lambda lies
             * on one): the face's h before any lambda */
            if ((ymax > 1e-9 || k <= lp->d) && refine_h(lp, oh, nh, i, ymax > 1e-9, res))
                break;
            if (try_lambda(lp, oh, nh, i, atol, res))
                break;
        }
        score(lp, nh, i, lp->yd, t, zeta);
        /* a rival whose dual constraint fails; near-ties too when the LP
         * stalls at a margin the check cannot prove */
        if (!add_best(lp, nh, lp->d + 2, 0.0) && !add_best(lp, nh, lp->d + 2, -tol - 1e-9))
            break;
    }
    return st;
}
