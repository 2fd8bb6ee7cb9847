/* sbw_reduce_tmpl.h -- the centring of sbw_reduce.c in one precision,
 * written in the vocabulary of core/sbw_prec.h (SBW_PREC_T, SBW_PREC_FN,
 * SBW_PREC_PICK) and instantiated by sbw_reduce.c once per precision.
 * Means and sums are in double in both.  No include guard, not a public
 * header.
 */

/* The mean of row[0..m) in two passes: *mu, then *mu2 the mean of what
 * rounding left of row - mu (so row - mu - mu2 sums to zero at the scale
 * of the centred values, not of the mean). */
static void SBW_PREC_FN(row_mean)(const SBW_PREC_T *row, size_t m, double *mu, double *mu2)
{
    double s = 0, s2 = 0;
    for (size_t j = 0; j < m; j++)
        s += row[j];
    s /= (double)m;
    for (size_t j = 0; j < m; j++)
        s2 += row[j] - s;
    *mu = s;
    *mu2 = s2 / (double)m;
}

/* Subtracts the mean from row[0..m) (row_mean's two parts, one after the
 * other, in double); returns the mean. */
static double SBW_PREC_FN(centre_row)(SBW_PREC_T *row, size_t m)
{
    double mu, mu2;
    SBW_PREC_FN(row_mean)(row, m, &mu, &mu2);
    for (size_t j = 0; j < m; j++)
        row[j] = (SBW_PREC_T)(row[j] - mu - mu2);
    return mu + mu2;
}

/* Every row of a centred in place. */
static void SBW_PREC_FN(centre_rows)(SBW_PREC_PICK(sbw_mat_f32, sbw_mat) * a)
{
    for (size_t i = 0; i < a->rows; i++)
        SBW_PREC_FN(centre_row)(a->data + i * a->ld, a->cols);
}

/* Column centring in place, in two passes: subtract the column means
 * (summed into work, a->cols doubles), then what rounding left of them. */
static void SBW_PREC_FN(centre_cols)(SBW_PREC_PICK(sbw_mat_f32, sbw_mat) * a, double *work)
{
    for (int pass = 0; pass < 2; pass++) {
        memset(work, 0, a->cols * sizeof *work);
        for (size_t i = 0; i < a->rows; i++)
            for (size_t j = 0; j < a->cols; j++)
                work[j] += a->data[i * a->ld + j];
        for (size_t i = 0; i < a->rows; i++)
            for (size_t j = 0; j < a->cols; j++) {
                SBW_PREC_T *x = a->data + i * a->ld + j;
                *x = (SBW_PREC_T)(*x - work[j] / (double)a->rows);
            }
    }
}
