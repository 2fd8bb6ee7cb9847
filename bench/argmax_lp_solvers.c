/* argmax_lp_solvers.c -- GLPK against COIN-OR CLP on sbw-argmax's LP (the
 * restricted convex-combination LP of analysis/sbw_argmax_lp.h: d + 2 rows,
 * the 2d + 1 slacks, the d + 2 rivals that score highest along
 * h0 = w_i - mean(w) as columns), the same LP for each word, solved from
 * scratch by each solver; prints per word the seconds and optimum of
 * each (the optima must agree).  Used by bench_argmax.sh to pick the LP
 * library (docs/DESIGN.md, "Dependencies and why").
 *
 *   argmax_lp_solvers W.npy B.npy|- WORDS     (WORDS: 0,5,17,...)
 * Build: cc -O2 -Icore bench/argmax_lp_solvers.c build/libsbw.a \
 *          -I/usr/include/coin -lClp -lCoinUtils -lglpk -lgsl -llapacke -lopenblas -lm -fopenmp
 */
#include "sbw_npy.h"

#include <Clp_C_Interface.h>
#include <glpk.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lp {
    int nrow, ncol;
    double *a; /* dense, column-major nrow x ncol */
    double *cost, *rlo, *rup;
} lp;

/* The LP of word i with rivals riv[0..k). */
static void build(const sbw_mat *w, const double *b, size_t i, const size_t *riv, size_t k, lp *p)
{
    int d = (int)w->cols, nb = b != NULL;
    p->nrow = d + 1 + nb;
    p->ncol = 2 * d + nb + (int)k;
    p->a = calloc((size_t)p->nrow * (size_t)p->ncol, sizeof *p->a);
    p->cost = calloc((size_t)p->ncol, sizeof *p->cost);
    p->rlo = malloc((size_t)p->nrow * sizeof *p->rlo);
    p->rup = malloc((size_t)p->nrow * sizeof *p->rup);
    for (int r = 0; r < d; r++) {
        p->a[(size_t)r * (size_t)p->nrow + (size_t)r] = 1;
        p->a[(size_t)(d + r) * (size_t)p->nrow + (size_t)r] = -1;
        p->rlo[r] = p->rup[r] = SBW_MAT_AT(w, i, r);
    }
    p->rlo[d] = p->rup[d] = 1;
    if (nb) {
        p->a[(size_t)(2 * d) * (size_t)p->nrow + (size_t)(d + 1)] = 1;
        p->rlo[d + 1] = b[i];
        p->rup[d + 1] = INFINITY;
    }
    for (int s = 0; s < 2 * d + nb; s++)
        p->cost[s] = 1;
    for (size_t t = 0; t < k; t++) {
        double *col = p->a + (size_t)(2 * d + nb + (int)t) * (size_t)p->nrow;
        for (int r = 0; r < d; r++)
            col[r] = SBW_MAT_AT(w, riv[t], r);
        col[d] = 1;
        if (nb)
            col[d + 1] = b[riv[t]];
    }
}

static double solve_glpk(const lp *p, double *obj)
{
    double t0 = omp_get_wtime();
    glp_prob *P = glp_create_prob();
    glp_set_obj_dir(P, GLP_MIN);
    glp_add_rows(P, p->nrow);
    for (int r = 0; r < p->nrow; r++)
        glp_set_row_bnds(P, r + 1, isinf(p->rup[r]) ? GLP_LO : GLP_FX, p->rlo[r], p->rup[r]);
    glp_add_cols(P, p->ncol);
    int *ind = malloc((size_t)(p->nrow + 1) * sizeof *ind);
    double *val = malloc((size_t)(p->nrow + 1) * sizeof *val);
    for (int c = 0; c < p->ncol; c++) {
        int n = 0;
        for (int r = 0; r < p->nrow; r++)
            if (p->a[(size_t)c * (size_t)p->nrow + (size_t)r] != 0) {
                ind[++n] = r + 1;
                val[n] = p->a[(size_t)c * (size_t)p->nrow + (size_t)r];
            }
        glp_set_mat_col(P, c + 1, n, ind, val);
        glp_set_col_bnds(P, c + 1, GLP_LO, 0, 0);
        glp_set_obj_coef(P, c + 1, p->cost[c]);
    }
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    glp_simplex(P, &parm);
    *obj = glp_get_status(P) == GLP_OPT ? glp_get_obj_val(P) : NAN;
    glp_delete_prob(P);
    free(ind);
    free(val);
    return omp_get_wtime() - t0;
}

static double solve_clp(const lp *p, int how, double *obj)
{
    double t0 = omp_get_wtime();
    int n = 0;
    int *start = malloc((size_t)(p->ncol + 1) * sizeof *start);
    int *idx = malloc((size_t)p->nrow * (size_t)p->ncol * sizeof *idx);
    double *val = malloc((size_t)p->nrow * (size_t)p->ncol * sizeof *val);
    double *clo = calloc((size_t)p->ncol, sizeof *clo),
           *cup = malloc((size_t)p->ncol * sizeof *cup);
    double *rup = malloc((size_t)p->nrow * sizeof *rup);
    for (int c = 0; c < p->ncol; c++) {
        start[c] = n;
        cup[c] = 1e300;
        for (int r = 0; r < p->nrow; r++)
            if (p->a[(size_t)c * (size_t)p->nrow + (size_t)r] != 0) {
                idx[n] = r;
                val[n++] = p->a[(size_t)c * (size_t)p->nrow + (size_t)r];
            }
    }
    start[p->ncol] = n;
    for (int r = 0; r < p->nrow; r++)
        rup[r] = isinf(p->rup[r]) ? 1e300 : p->rup[r];
    Clp_Simplex *m = Clp_newModel();
    Clp_setLogLevel(m, 0);
    Clp_loadProblem(m, p->ncol, p->nrow, start, idx, val, clo, cup, p->cost, p->rlo, rup);
    int rc = how == 0 ? Clp_initialSolve(m) : how == 1 ? Clp_dual(m, 0) : Clp_primal(m, 0);
    *obj = rc == 0 && Clp_status(m) == 0 ? Clp_objectiveValue(m) : NAN;
    Clp_deleteModel(m);
    free(start);
    free(idx);
    free(val);
    free(clo);
    free(cup);
    free(rup);
    return omp_get_wtime() - t0;
}

/* The k rivals of word i with the largest w_j.g + b_j, g = w_i - mean. */
static void rivals(const sbw_mat *w, const double *b, const double *mean, size_t i, size_t *riv,
                   size_t k)
{
    size_t m = w->rows, d = w->cols;
    double *s = malloc(m * sizeof *s);
    for (size_t j = 0; j < m; j++) {
        s[j] = b ? b[j] : 0;
        for (size_t c = 0; c < d; c++)
            s[j] += SBW_MAT_AT(w, j, c) * (SBW_MAT_AT(w, i, c) - mean[c]);
    }
    s[i] = -INFINITY;
    for (size_t t = 0; t < k; t++) {
        size_t best = 0;
        for (size_t j = 1; j < m; j++)
            if (s[j] > s[best])
                best = j;
        riv[t] = best;
        s[best] = -INFINITY;
    }
    free(s);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: argmax_lp_solvers W.npy B.npy|- WORDS\n");
        return 2;
    }
    sbw_mat w = {0}, bm = {0};
    sbw_npy_info info;
    if (sbw_npy_load(argv[1], &w, &info) ||
        (strcmp(argv[2], "-") && sbw_npy_load(argv[2], &bm, &info))) {
        fprintf(stderr, "cannot read the head\n");
        return 1;
    }
    const double *b = bm.data;
    size_t d = w.cols, k = d + 2;
    double *mean = calloc(d, sizeof *mean);
    for (size_t j = 0; j < w.rows; j++)
        for (size_t c = 0; c < d; c++)
            mean[c] += SBW_MAT_AT(&w, j, c) / (double)w.rows;
    size_t *riv = malloc(k * sizeof *riv);
    printf("word\tglpk_s\tglpk_obj\tclp_auto_s\tclp_auto_obj\tclp_dual_s\tclp_dual_obj\tclp_primal_"
           "s\tclp_primal_obj\n");
    for (char *tok = strtok(argv[3], ","); tok; tok = strtok(NULL, ",")) {
        size_t i = strtoul(tok, NULL, 10);
        lp p;
        rivals(&w, b, mean, i, riv, k);
        build(&w, b, i, riv, k, &p);
        double o[4], t[4];
        t[0] = solve_glpk(&p, &o[0]);
        for (int h = 0; h < 3; h++)
            t[h + 1] = solve_clp(&p, h, &o[h + 1]);
        printf("%zu", i);
        for (int s = 0; s < 4; s++)
            printf("\t%.4f\t%.10g", t[s], o[s]);
        printf("\n");
        fflush(stdout);
        free(p.a);
        free(p.cost);
        free(p.rlo);
        free(p.rup);
    }
    free(riv);
    free(mean);
    sbw_mat_free(&w);
    sbw_mat_free(&bm);
    return 0;
}
