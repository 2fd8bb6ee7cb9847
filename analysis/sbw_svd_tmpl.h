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

/* ?gesdd's optimal workspace (JOBZ='N') for a (rows, cols) matrix, in
 * items, by its own query (lwork = -1: no array is read) on the
 * column-major view A^T; the shape as check_dims's.  *lw is what every
 * values call passes as lwork, whatever the caller's buffer holds, so the
 * allocating and the _work paths run the same blocking (the same bits). */
static int SBW_PREC_FN(values_lwork)(size_t rows, size_t cols, size_t ld, size_t *lw)
{
    int st =
        check_dims(rows, cols, ld, SBW_PREC_PICK("singular values (float32)", "singular values"));
    if (st)
        return st;
    SBW_PREC_T q = 0, dummy[1] = {0};
    lapack_int idummy[1] = {0};
    lapack_int info = SBW_PREC_PICK(LAPACKE_sgesdd_work, LAPACKE_dgesdd_work)(
        LAPACK_COL_MAJOR, 'N', (lapack_int)cols, (lapack_int)rows, dummy, (lapack_int)ld, dummy,
        NULL, 1, NULL, 1, &q, -1, idummy);
    return info ? sbw_blas_lapack_fail(SBW_PREC_PICK("sgesdd", "dgesdd"), info)
                : work_items((double)q, lw);
}

/* Bytes of the values workspace of a (rows, cols) matrix: lw items of
 * ?gesdd's work, then its 8 min(rows, cols) integers. */
static int SBW_PREC_FN(values_work_size)(size_t rows, size_t cols, size_t *bytes)
{
    size_t lw = 0;
    int st = SBW_PREC_FN(values_lwork)(rows, cols, cols, &lw);
    if (st)
        return st;
    size_t k = sbw_num_min_sz(rows, cols);
    if (lw > (SIZE_MAX - 8 * k * sizeof(lapack_int)) / sizeof(SBW_PREC_T))
        return SBW_ERROR(SBW_ENOMEM, "singular values: workspace of %zu items overflows", lw);
    *bytes = lw * sizeof(SBW_PREC_T) + 8 * k * sizeof(lapack_int);
    return SBW_OK;
}

/* Singular values of the (rows, cols) row-major a, descending, into
 * s[min(rows, cols)]: ?gesdd JOBZ='N' on the column-major view A^T (see
 * sbw_svd.h), in the caller's workspace work (bytes of it, at least
 * values_work_size's for a's shape; suitably aligned for SBW_PREC_T).
 * Allocates nothing.  In place: after a failure before the computing call
 * (shape, query, a workspace too small: SBW_EINVAL) a->data and s are
 * untouched; after it they hold what LAPACK left (unspecified); work's
 * contents are unspecified either way. */
static int SBW_PREC_FN(svd_values_work)(SBW_PREC_PICK(sbw_mat_f32, sbw_mat) * a, SBW_PREC_T *s,
                                        void *work, size_t bytes)
{
    size_t lw = 0, k = sbw_num_min_sz(a->rows, a->cols);
    int st = SBW_PREC_FN(values_lwork)(a->rows, a->cols, a->ld, &lw);
    if (st)
        return st;
    if (!work || bytes / sizeof(SBW_PREC_T) < lw ||
        (bytes - lw * sizeof(SBW_PREC_T)) / sizeof(lapack_int) < 8 * k)
        return SBW_ERROR(SBW_EINVAL, "singular values: workspace of %zu bytes is too small", bytes);
    SBW_PREC_T *w = work;
    lapack_int *iwork = (lapack_int *)(w + lw);
    lapack_int m = (lapack_int)a->cols, n = (lapack_int)a->rows, lda = (lapack_int)a->ld;
    lapack_int info = SBW_PREC_PICK(LAPACKE_sgesdd_work, LAPACKE_dgesdd_work)(
        LAPACK_COL_MAJOR, 'N', m, n, a->data, lda, s, NULL, 1, NULL, 1, w, (lapack_int)lw, iwork);
    return SBW_PREC_FN(unconverged)(hooked(info), s, k, true);
}

/* The same allocating its workspace (the thin wrapper of sbw_svd.h).  In
 * place: after a failure a->data and s are untouched up to the computing
 * call, then hold what LAPACK left (unspecified); nothing stays
 * allocated. */
static int SBW_PREC_FN(svd_values)(SBW_PREC_PICK(sbw_mat_f32, sbw_mat) * a, SBW_PREC_T *s)
{
    size_t bytes = 0;
    int st = SBW_PREC_FN(values_work_size)(a->rows, a->cols, &bytes);
    if (st)
        return st;
    void *work = malloc(bytes);
    if (!work)
        return SBW_ERROR(SBW_ENOMEM, "singular values: out of memory for %zu workspace bytes",
                         bytes);
    st = SBW_PREC_FN(svd_values_work)(a, s, work, bytes);
    free(work);
    return st;
}
