/* sbw_lstm_kern_tmpl.h -- the body of sbw_lstm_kern.c for one element
 * type, so that the float and double kernels are written once.  Not a
 * public header: sbw_lstm_kern.c includes it once per type after defining
 *   LSTM_T        the element type (float or double)
 *   LSTM_FN(n)    the name n of this type's function (n##_f or n##_d)
 *   LSTM_EXP      the inline exp of that type (sbw_vexpf or sbw_vexp)
 * and undefines them afterwards.  No include guard, on purpose.
 */

/* sigma(x) = 1 / (1 + e^-x): e^-x is clamped by LSTM_EXP (to e^88 in float,
 * e^709 in double), so large |x| gives exactly 0 or 1, never Inf/NaN. */
#pragma omp declare simd notinbranch
static inline LSTM_T LSTM_FN(sigm)(LSTM_T x) { return (LSTM_T)1 / ((LSTM_T)1 + LSTM_EXP(-x)); }

/* tanh x = 1 - 2 / (e^2x + 1), the exp clamped as above: exactly -1 or 1
 * for large |x|; near 0 its absolute error is a few eps (cancellation in
 * 1 - ...), which is what an activation needs. */
#pragma omp declare simd notinbranch
static inline LSTM_T LSTM_FN(tanh)(LSTM_T x)
{
    return (LSTM_T)1 - (LSTM_T)2 / (LSTM_EXP(x + x) + (LSTM_T)1);
}

void LSTM_FN(sbw_lstm_kern_forward)(size_t rows, size_t hid, const LSTM_T *b, const LSTM_T *cprev,
                                    LSTM_T *z, LSTM_T *c, LSTM_T *h, int threads)
{
    const LSTM_T *bi = b, *bf = b + hid, *bg = b + 2 * hid, *bo = b + 3 * hid;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads > 1 ? threads : 1) if (threads > 1 && rows * hid >= SBW_LSTM_KERN_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        LSTM_T *zi = z + r * 4 * hid, *zf = zi + hid, *zg = zf + hid, *zo = zg + hid;
        const LSTM_T *cp = cprev + r * hid;
        LSTM_T *cr = c + r * hid, *hr = h + r * hid;
#pragma omp simd
        for (size_t m = 0; m < hid; m++) {
            LSTM_T i = LSTM_FN(sigm)(zi[m] + bi[m]);
            LSTM_T f = LSTM_FN(sigm)(zf[m] + bf[m]);
            LSTM_T g = LSTM_FN(tanh)(zg[m] + bg[m]);
            LSTM_T o = LSTM_FN(sigm)(zo[m] + bo[m]);
            LSTM_T cm = f * cp[m] + i * g;
            zi[m] = i;
            zf[m] = f;
            zg[m] = g;
            zo[m] = o;
            cr[m] = cm;
            hr[m] = o * LSTM_FN(tanh)(cm);
        }
    }
}

/* With tc = tanh(c_t) and dc_t = dc_in + dh o (1 - tc^2):
 *   di = dc_t g i (1 - i),  df = dc_t c_{t-1} f (1 - f),
 *   dg = dc_t i (1 - g^2),  do = dh tc o (1 - o),  dc_out = dc_t f. */
void LSTM_FN(sbw_lstm_kern_backward)(size_t rows, size_t hid, const LSTM_T *gates, const LSTM_T *c,
                                     const LSTM_T *cprev, const LSTM_T *dh, LSTM_T *dc, LSTM_T *dz,
                                     int threads)
{
    const LSTM_T one = 1;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads > 1 ? threads : 1) if (threads > 1 && rows * hid >= SBW_LSTM_KERN_PAR_MIN)
    for (size_t r = 0; r < rows; r++) {
        const LSTM_T *gi = gates + r * 4 * hid, *gf = gi + hid, *gg = gf + hid, *go = gg + hid;
        LSTM_T *di = dz + r * 4 * hid, *df = di + hid, *dg = df + hid, *dout = dg + hid;
        const LSTM_T *cr = c + r * hid, *cp = cprev + r * hid, *dhr = dh + r * hid;
        LSTM_T *dcr = dc + r * hid;
#pragma omp simd
        for (size_t m = 0; m < hid; m++) {
            LSTM_T i = gi[m], f = gf[m], g = gg[m], o = go[m];
            LSTM_T tc = LSTM_FN(tanh)(cr[m]);
            LSTM_T dcm = dcr[m] + dhr[m] * o * (one - tc * tc);
            di[m] = dcm * g * i * (one - i);
            df[m] = dcm * cp[m] * f * (one - f);
            dg[m] = dcm * i * (one - g * g);
            dout[m] = dhr[m] * tc * o * (one - o);
            dcr[m] = dcm * f;
        }
    }
}

void LSTM_FN(sbw_lstm_kern_colsum)(size_t rows, size_t cols, const LSTM_T *a, LSTM_T *sum,
                                   int threads)
{
#pragma omp parallel for schedule(static) num_threads(                                             \
    threads > 1 ? threads : 1) if (threads > 1 && rows * cols >= SBW_LSTM_KERN_PAR_MIN)
    for (size_t k0 = 0; k0 < cols; k0 += SBW_LSTM_KERN_COLS) {
        size_t k1 = cols - k0 < SBW_LSTM_KERN_COLS ? cols : k0 + SBW_LSTM_KERN_COLS;
        for (size_t r = 0; r < rows; r++) {
            const LSTM_T *ar = a + r * cols;
#pragma omp simd
            for (size_t k = k0; k < k1; k++)
                sum[k] += ar[k];
        }
    }
}
