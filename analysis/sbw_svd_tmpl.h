/* sbw_svd_tmpl.h -- the singular-value path of sbw_svd.c in one precision,
 * written in the vocabulary of core/sbw_prec.h (SBW_PREC_T, SBW_PREC_FN,
 * SBW_PREC_PICK: LAPACKE's sgesdd/dgesdd, GSL's sort, the sbw_mat type)
 * and instantiated by sbw_svd.c once per precision, after its shared
 * helpers (check_dims, hooked, work_items, alloc_iwork).  No include
 * guard, not a public header.
 */

/* After the computing call of ?gesdd: info < 0 is an error; info > 0 (no
 * convergence) keeps the values LAPACK left, made non-negative and put in
 * descending order when sort (values only: vectors must keep theirs), and
 * records a warning for the output tables -- an error only when a value
 * is not finite, i.e. nothing usable came back.  After a failure s[k] is
 * unchanged (the finiteness check runs before anything is written). */
static int SBW_PREC_FN(unconverged)(lapack_int info, SBW_PREC_T *s, size_t k, bool sort)
{
    const char *routine = SBW_PREC_PICK("sgesdd", "dgesdd");
    if (info <= 0)
        return info ? sbw_blas_lapack_fail(routine, info) : SBW_OK;
    for (size_t j = 0; j < k; j++)
        if (!isfinite(s[j]))
            return sbw_blas_lapack_fail(routine, info);
    for (size_t j = 0; j < k; j++)
        s[j] = (SBW_PREC_T)fabs(s[j]);
    if (sort) {
        SBW_PREC_PICK(gsl_sort_float, gsl_sort)(s, 1, k);
        for (size_t j = 0; j < k / 2; j++) {
            SBW_PREC_T x = s[j];
            s[j] = s[k - 1 - j], s[k - 1 - j] = x;
        }
    }
    sbw_table_warn("svd_not_converged: %s did not converge (LAPACK info %d): the singular "
                   "values, and every rank or bound computed from them, may be wrong",
                   routine, (int)info);
    return SBW_OK;
}

/* Singular values of the (rows, cols) row-major a, descending, into
 * s[min(rows, cols)]: ?gesdd JOBZ='N' on the column-major view A^T (see
 * sbw_svd.h).  In place: after a failure a->data and s hold what LAPACK
 * left (unspecified); nothing stays allocated. */
static int SBW_PREC_FN(svd_values)(SBW_PREC_PICK(sbw_mat_f32, sbw_mat) * a, SBW_PREC_T *s)
{
    int st = check_dims(a->rows, a->cols, a->ld,
                        SBW_PREC_PICK("singular values (float32)", "singular values"));
    if (st)
        return st;
    /* Column-major view: A^T is cols x rows with leading dimension ld. */
    lapack_int m = (lapack_int)a->cols, n = (lapack_int)a->rows, lda = (lapack_int)a->ld;
    lapack_int *iwork = alloc_iwork(sbw_num_min_sz(a->rows, a->cols)), info;
    SBW_PREC_T q = 0, *work = NULL;
    size_t lw = 0;
    if (!iwork)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory");
    info = SBW_PREC_PICK(LAPACKE_sgesdd_work, LAPACKE_dgesdd_work)(
        LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1, &q, -1, iwork);
    st = info ? sbw_blas_lapack_fail(SBW_PREC_PICK("sgesdd", "dgesdd"), info)
              : work_items((double)q, &lw);
    if (!st && !(work = malloc(lw * sizeof *work)))
        st = SBW_ERROR(SBW_ENOMEM, "singular values: out of memory for %zu workspace items", lw);
    if (!st) {
        info = SBW_PREC_PICK(LAPACKE_sgesdd_work,
                             LAPACKE_dgesdd_work)(LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s,
                                                  NULL, 1, NULL, 1, work, (lapack_int)lw, iwork);
        st = SBW_PREC_FN(unconverged)(hooked(info), s, sbw_num_min_sz(a->rows, a->cols), true);
    }
    free(work);
    free(iwork);
    return st;
}
