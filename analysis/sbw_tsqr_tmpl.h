/* sbw_tsqr_tmpl.h -- the block transpose of sbw_tsqr.c in one precision,
 * written in the vocabulary of core/sbw_prec.h (SBW_PREC_T, SBW_PREC_FN)
 * and instantiated by sbw_tsqr.c once per precision (TILE comes before
 * the first instance).  No include guard, not a public header.
 */

/* dst[j * ldd + i] = src[i * lds + j] - mu[j] (mu may be NULL; the
 * difference in double, then rounded to dst's precision), tiled so both
 * sides stay in cache. */
static void SBW_PREC_FN(transpose)(const double *src, size_t rows, size_t n, size_t lds,
                                   const double *mu, SBW_PREC_T *dst, size_t ldd)
{
    for (size_t i0 = 0; i0 < rows; i0 += TILE)
        for (size_t j0 = 0; j0 < n; j0 += TILE) {
            size_t i1 = sbw_num_min_sz(rows, i0 + TILE), j1 = sbw_num_min_sz(n, j0 + TILE);
            for (size_t i = i0; i < i1; i++)
                for (size_t j = j0; j < j1; j++)
                    dst[j * ldd + i] = (SBW_PREC_T)(src[i * lds + j] - (mu ? mu[j] : 0.0));
        }
}
