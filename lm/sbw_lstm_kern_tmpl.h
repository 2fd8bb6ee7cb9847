/* sbw_lstm_kern_tmpl.h -- the body of sbw_lstm_kern.c in one precision,
 * written in the vocabulary of core/sbw_prec.h (SBW_PREC_T, SBW_PREC_FN,
 * SBW_PREC_VEXP) and instantiated by sbw_lstm_kern.c once per precision.
 * No include guard, not a public header.
 */

/* sigma(x) = 1 / (1 + e^-x): e^-x is clamped by SBW_PREC_VEXP (to e^88 in
 * float, e^709 in double), so large |x| gives exactly 0 or 1, never Inf/NaN. */
#pragma omp declare simd notinbranch
static inline SBW_PREC_T SBW_PREC_FN(sigm)(SBW_PREC_T x)
{
    return (SBW_PREC_T)1 / ((SBW_PREC_T)1 + SBW_PREC_VEXP(-x));
}

/* tanh x = 1 - 2 / (e^2x + 1), the exp clamped as above: exactly -1 or 1
 * for large |x|; near 0 its absolute error is a few eps (cancellation in
 * 1 - ...), which is what an activation needs. */
#pragma omp declare simd notinbranch
static inline SBW_PREC_T SBW_PREC_FN(tanh)(SBW_PREC_T x)
{
    return (SBW_PREC_T)1 - (SBW_PREC_T)2 / (SBW_PREC_VEXP(x + x) + (SBW_PREC_T)1);
}

void SBW_PREC_FN(sbw_lstm_kern_forward)(size_t rows, size_t hid, const SBW_PREC_T *b,
                                        const SBW_PREC_T *cprev, SBW_PREC_T *z, SBW_PREC_T *c,
                                        SBW_PREC_T *h, int threads)
{
    const SBW_PREC_T *bi = b, *bf = b + hid, *bg = b + 2 * hid, *bo = b + 3 * hid;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads > 1 ? threads : 1) if (threads > 1 && rows * hid >= SBW_LSTM_KERN_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        SBW_PREC_T *zi = z + r * 4 * hid, *zf = zi + hid, *zg = zf + hid, *zo = zg + hid;
        const SBW_PREC_T *cp = cprev + r * hid;
        SBW_PREC_T *cr = c + r * hid, *hr = h + r * hid;
#pragma omp simd
        for (size_t m = 0; m < hid; m++) {
            SBW_PREC_T i = SBW_PREC_FN(sigm)(zi[m] + bi[m]);
            SBW_PREC_T f = SBW_PREC_FN(sigm)(zf[m] + bf[m]);
            SBW_PREC_T g = SBW_PREC_FN(tanh)(zg[m] + bg[m]);
            SBW_PREC_T o = SBW_PREC_FN(sigm)(zo[m] + bo[m]);
            SBW_PREC_T cm = f * cp[m] + i * g;
            zi[m] = i;
            zf[m] = f;
            zg[m] = g;
            zo[m] = o;
            cr[m] = cm;
            hr[m] = o * SBW_PREC_FN(tanh)(cm);
        }
    }
}

/* With tc = tanh(c_t) and dc_t = dc_in + dh o (1 - tc^2):
 *   di = dc_t g i (1 - i),  df = dc_t c_{t-1} f (1 - f),
 *   dg = dc_t i (1 - g^2),  do = dh tc o (1 - o),  dc_out = dc_t f. */
void SBW_PREC_FN(sbw_lstm_kern_backward)(size_t rows, size_t hid, const SBW_PREC_T *gates,
                                         const SBW_PREC_T *c, const SBW_PREC_T *cprev,
                                         const SBW_PREC_T *dh, SBW_PREC_T *dc, SBW_PREC_T *dz,
                                         int threads)
{
    const SBW_PREC_T one = 1;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads > 1 ? threads : 1) if (threads > 1 && rows * hid >= SBW_LSTM_KERN_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        const SBW_PREC_T *gi = gates + r * 4 * hid, *gf = gi + hid, *gg = gf + hid, *go = gg + hid;
        SBW_PREC_T *di = dz + r * 4 * hid, *df = di + hid, *dg = df + hid, *dout = dg + hid;
        const SBW_PREC_T *cr = c + r * hid, *cp = cprev + r * hid, *dhr = dh + r * hid;
        SBW_PREC_T *dcr = dc + r * hid;
#pragma omp simd
        for (size_t m = 0; m < hid; m++) {
            SBW_PREC_T i = gi[m], f = gf[m], g = gg[m], o = go[m];
            SBW_PREC_T tc = SBW_PREC_FN(tanh)(cr[m]);
            SBW_PREC_T dcm = dcr[m] + dhr[m] * o * (one - tc * tc);
            di[m] = dcm * g * i * (one - i);
            df[m] = dcm * cp[m] * f * (one - f);
            dg[m] = dcm * i * (one - g * g);
            dout[m] = dhr[m] * tc * o * (one - o);
            dcr[m] = dcm * f;
        }
    }
}

void SBW_PREC_FN(sbw_lstm_kern_colsum)(size_t rows, size_t cols, const SBW_PREC_T *a,
                                       SBW_PREC_T *sum, int threads)
{
#pragma omp parallel for schedule(static) num_threads(                                             \
    threads > 1 ? threads : 1) if (threads > 1 && rows * cols >= SBW_LSTM_KERN_PAR_MIN)
    for (size_t k0 = 0; k0 < cols; k0 += SBW_LSTM_KERN_COLS) {
        size_t k1 = cols - k0 < SBW_LSTM_KERN_COLS ? cols : k0 + SBW_LSTM_KERN_COLS;
        for (size_t r = 0; r < rows; r++) {
            const SBW_PREC_T *ar = a + r * cols;
#pragma omp simd
            for (size_t k = k0; k < k1; k++)
                sum[k] += ar[k];
        }
    }
}
