/* sbw_lstm_tmpl.h -- the body of sbw_lstm.c for one element type, so that
 * the float and double layers are written once.  Not a public header:
 * sbw_lstm.c includes it once per type after defining
 *   LSTM_T        the element type (float or double)
 *   LSTM_FN(n)    the name n of this type's function (n##_f or n##_d)
 *   LSTM_GEMM     the row-major CBLAS GEMM of that type (cblas_sgemm or
 *                 cblas_dgemm)
 * and undefines them afterwards; the shared helpers (lstm_dims,
 * lstm_check) come before the first inclusion.  No include guard.
 */

/* One step forward: gates_t += h_{t-1} Wh^T (B x 4H), then the pointwise
 * stage writes the activated gates, c_t and h_t.  The state in is h0, c0
 * at t = 0 and the previous rows of hs, cs after. */
static void LSTM_FN(step_forward)(const lstm_dims *d, size_t t, const LSTM_T *wh, const LSTM_T *b,
                                  const LSTM_T *h0, const LSTM_T *c0, LSTM_T *hs, LSTM_T *cs,
                                  LSTM_T *gates)
{
    size_t blk = d->batch * d->hid;
    const LSTM_T *hp = t ? hs + (t - 1) * blk : h0;
    const LSTM_T *cp = t ? cs + (t - 1) * blk : c0;
    LSTM_T *z = gates + t * d->batch * d->g4;
    LSTM_GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, d->ib, d->ig4, d->ih, (LSTM_T)1, hp, d->ih,
              wh, d->ih, (LSTM_T)1, z, d->ig4);
    LSTM_FN(sbw_lstm_kern_forward)
    (d->batch, d->hid, b, cp, z, cs + t * blk, hs + t * blk, d->kthreads);
}

/* Forward over the chunk (sbw_lstm.h): the input part of every step as one
 * GEMM, gates = X Wx^T ((T*B x I) x (I x 4H)), then the steps in order. */
int LSTM_FN(sbw_lstm_forward)(const sbw_lstm_shape *s, const LSTM_T *wx, const LSTM_T *wh,
                              const LSTM_T *b, const LSTM_T *x, const LSTM_T *h0, const LSTM_T *c0,
                              LSTM_T *hs, LSTM_T *cs, LSTM_T *gates)
{
    lstm_dims d;
    int st = lstm_check(s, &d);
    if (st)
        return st;
    if (!wx || !wh || !b || !x || !h0 || !c0 || !hs || !cs || !gates)
        return SBW_ERROR(SBW_EINVAL, "LSTM forward: an array argument is NULL");
    LSTM_GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, d.irows, d.ig4, d.iin, (LSTM_T)1, x, d.iin,
              wx, d.iin, (LSTM_T)0, gates, d.ig4);
    for (size_t t = 0; t < d.steps; t++)
        LSTM_FN(step_forward)(&d, t, wh, b, h0, c0, hs, cs, gates);
    return SBW_OK;
}

/* One step backward: the pointwise stage turns dh_t (dhs's rows t, the
 * recurrent part already added) and the dc carry into dz_t (dz's rows t)
 * and the next carry; then dh_{t-1} += dz_t Wh ((B x 4H) x (4H x H)) into
 * dhs's rows t-1 (nothing for t = 0: no gradient for h0). */
static void LSTM_FN(step_backward)(const lstm_dims *d, size_t t, const LSTM_T *wh, const LSTM_T *c0,
                                   const LSTM_T *cs, const LSTM_T *gates, LSTM_T *dhs, LSTM_T *dc,
                                   LSTM_T *dz)
{
    size_t blk = d->batch * d->hid, gblk = d->batch * d->g4;
    const LSTM_T *cp = t ? cs + (t - 1) * blk : c0;
    LSTM_T *dzt = dz + t * gblk;
    LSTM_FN(sbw_lstm_kern_backward)
    (d->batch, d->hid, gates + t * gblk, cs + t * blk, cp, dhs + t * blk, dc, dzt, d->kthreads);
    if (t > 0)
        LSTM_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, d->ib, d->ih, d->ig4, (LSTM_T)1, dzt,
                  d->ig4, wh, d->ih, (LSTM_T)1, dhs + (t - 1) * blk, d->ih);
}

/* The parameter gradients and dx from all the steps' dz (T*B x 4H) at once:
 * db += column sums, dWx += dZ^T X, dWh += dZ^T [h0; hs rows 0..T-2] (two
 * GEMMs, h0 not being beside hs), dx = dZ Wx. */
static void LSTM_FN(chunk_gradients)(const lstm_dims *d, const LSTM_T *wx, const LSTM_T *x,
                                     const LSTM_T *h0, const LSTM_T *hs, const LSTM_T *dz,
                                     LSTM_T *dx, LSTM_T *dwx, LSTM_T *dwh, LSTM_T *db)
{
    LSTM_FN(sbw_lstm_kern_colsum)(d->rows, d->g4, dz, db, d->kthreads);
    LSTM_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, d->ig4, d->iin, d->irows, (LSTM_T)1, dz,
              d->ig4, x, d->iin, (LSTM_T)1, dwx, d->iin);
    LSTM_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, d->ig4, d->ih, d->ib, (LSTM_T)1, dz, d->ig4,
              h0, d->ih, (LSTM_T)1, dwh, d->ih);
    if (d->steps > 1)
        LSTM_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, d->ig4, d->ih, d->irows - d->ib,
                  (LSTM_T)1, dz + d->batch * d->g4, d->ig4, hs, d->ih, (LSTM_T)1, dwh, d->ih);
    if (dx)
        LSTM_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, d->irows, d->iin, d->ig4, (LSTM_T)1,
                  dz, d->ig4, wx, d->iin, (LSTM_T)0, dx, d->iin);
}

/* Backward over the chunk (sbw_lstm.h).  work holds dz (T*B x 4H) and the
 * dc carry (B x H), which starts at zero (truncated BPTT). */
int LSTM_FN(sbw_lstm_backward)(const sbw_lstm_shape *s, const LSTM_T *wx, const LSTM_T *wh,
                               const LSTM_T *x, const LSTM_T *h0, const LSTM_T *c0,
                               const LSTM_T *hs, const LSTM_T *cs, const LSTM_T *gates, LSTM_T *dhs,
                               LSTM_T *dx, LSTM_T *dwx, LSTM_T *dwh, LSTM_T *db, LSTM_T *work)
{
    lstm_dims d;
    int st = lstm_check(s, &d);
    if (st)
        return st;
    if (!wx || !wh || !x || !h0 || !c0 || !hs || !cs || !gates || !dhs || !dwx || !dwh || !db ||
        !work)
        return SBW_ERROR(SBW_EINVAL, "LSTM backward: an array argument other than dx is NULL");
    LSTM_T *dz = work, *dc = work + d.rows * d.g4;
    memset(dc, 0, d.batch * d.hid * sizeof *dc);
    for (size_t t = d.steps; t-- > 0;)
        LSTM_FN(step_backward)(&d, t, wh, c0, cs, gates, dhs, dc, dz);
    LSTM_FN(chunk_gradients)(&d, wx, x, h0, hs, dz, dx, dwx, dwh, db);
    return SBW_OK;
}
