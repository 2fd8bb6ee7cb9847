/* sbw_lstm_tmpl.h -- the body of sbw_lstm.c in one precision, written in
 * the vocabulary of core/sbw_prec.h (SBW_PREC_T, SBW_PREC_FN, SBW_PREC_GEMM)
 * and instantiated by sbw_lstm.c once per precision; the shared helpers
 * (lstm_dims, lstm_check) come before the first instance.  No include
 * guard, not a public header.
 */

/* One step forward: gates_t += h_{t-1} Wh^T (B x 4H), then the pointwise
 * stage writes the activated gates, c_t and h_t.  The state in is h0, c0
 * at t = 0 and the previous rows of hs, cs after. */
static void SBW_PREC_FN(step_forward)(const lstm_dims *d, size_t t, const SBW_PREC_T *wh,
                                      const SBW_PREC_T *b, const SBW_PREC_T *h0,
                                      const SBW_PREC_T *c0, SBW_PREC_T *hs, SBW_PREC_T *cs,
                                      SBW_PREC_T *gates)
{
    size_t blk = d->batch * d->hid;
    const SBW_PREC_T *hp = t ? hs + (t - 1) * blk : h0;
    const SBW_PREC_T *cp = t ? cs + (t - 1) * blk : c0;
    SBW_PREC_T *z = gates + t * d->batch * d->g4;
    SBW_PREC_GEMM(d->g, SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, d->ib, d->ig4, d->ih,
                  (SBW_PREC_T)1, hp, d->ih, wh, d->ih, (SBW_PREC_T)1, z, d->ig4);
    SBW_PREC_FN(sbw_lstm_kern_forward)
    (d->batch, d->hid, b, cp, z, cs + t * blk, hs + t * blk, d->kthreads);
}

/* Forward over the chunk (sbw_lstm.h): the input part of every step as one
 * GEMM, gates = X Wx^T ((T*B x I) x (I x 4H)), then the steps in order. */
int SBW_PREC_FN(sbw_lstm_forward)(const sbw_lstm_shape *s, const SBW_PREC_T *wx,
                                  const SBW_PREC_T *wh, const SBW_PREC_T *b, const SBW_PREC_T *x,
                                  const SBW_PREC_T *h0, const SBW_PREC_T *c0, SBW_PREC_T *hs,
                                  SBW_PREC_T *cs, SBW_PREC_T *gates)
{
    lstm_dims d;
    int st = lstm_check(s, &d);
    if (st)
        return st;
    if (!wx || !wh || !b || !x || !h0 || !c0 || !hs || !cs || !gates)
        return SBW_ERROR(SBW_EINVAL, "LSTM forward: an array argument is NULL");
    /* new weights and inputs: drop the copies the last chunk kept of them */
    SBW_PREC_GEMM_FORGET(d.g, x);
    SBW_PREC_GEMM_FORGET(d.g, wx);
    SBW_PREC_GEMM_FORGET(d.g, wh);
    SBW_PREC_GEMM_FORGET(d.g, hs);
    SBW_PREC_GEMM(d.g, SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, d.irows, d.ig4,
                  d.iin, (SBW_PREC_T)1, x, d.iin, wx, d.iin, (SBW_PREC_T)0, gates, d.ig4);
    for (size_t t = 0; t < d.steps; t++)
        SBW_PREC_FN(step_forward)(&d, t, wh, b, h0, c0, hs, cs, gates);
    return SBW_PREC_GEMM_STATUS(d.g);
}

/* One step backward: the pointwise stage turns dh_t (dhs's rows t, the
 * recurrent part already added) and the dc carry into dz_t (dz's rows t)
 * and the next carry; then dh_{t-1} += dz_t Wh ((B x 4H) x (4H x H)) into
 * dhs's rows t-1 (nothing for t = 0: no gradient for h0). */
static void SBW_PREC_FN(step_backward)(const lstm_dims *d, size_t t, const SBW_PREC_T *wh,
                                       const SBW_PREC_T *c0, const SBW_PREC_T *cs,
                                       const SBW_PREC_T *gates, SBW_PREC_T *dhs, SBW_PREC_T *dc,
                                       SBW_PREC_T *dz)
{
    size_t blk = d->batch * d->hid, gblk = d->batch * d->g4;
    const SBW_PREC_T *cp = t ? cs + (t - 1) * blk : c0;
    SBW_PREC_T *dzt = dz + t * gblk;
    SBW_PREC_FN(sbw_lstm_kern_backward)
    (d->batch, d->hid, gates + t * gblk, cs + t * blk, cp, dhs + t * blk, dc, dzt, d->kthreads);
    if (t > 0)
        SBW_PREC_GEMM(d->g, SBW_GEMM_KEEP_B, CblasNoTrans, CblasNoTrans, d->ib, d->ih, d->ig4,
                      (SBW_PREC_T)1, dzt, d->ig4, wh, d->ih, (SBW_PREC_T)1, dhs + (t - 1) * blk,
                      d->ih);
}

/* The parameter gradients and dx from all the steps' dz (T*B x 4H) at once:
 * db += column sums, dWx += dZ^T X, dWh += dZ^T [h0; hs rows 0..T-2] (two
 * GEMMs, h0 not being beside hs), dx = dZ Wx. */
static void SBW_PREC_FN(chunk_gradients)(const lstm_dims *d, const SBW_PREC_T *wx,
                                         const SBW_PREC_T *x, const SBW_PREC_T *h0,
                                         const SBW_PREC_T *hs, const SBW_PREC_T *dz, SBW_PREC_T *dx,
                                         SBW_PREC_T *dwx, SBW_PREC_T *dwh, SBW_PREC_T *db)
{
    unsigned both = SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B;
    SBW_PREC_FN(sbw_lstm_kern_colsum)(d->rows, d->g4, dz, db, d->kthreads);
    SBW_PREC_GEMM(d->g, both, CblasTrans, CblasNoTrans, d->ig4, d->iin, d->irows, (SBW_PREC_T)1, dz,
                  d->ig4, x, d->iin, (SBW_PREC_T)1, dwx, d->iin);
    SBW_PREC_GEMM(d->g, SBW_GEMM_KEEP_A, CblasTrans, CblasNoTrans, d->ig4, d->ih, d->ib,
                  (SBW_PREC_T)1, dz, d->ig4, h0, d->ih, (SBW_PREC_T)1, dwh, d->ih);
    if (d->steps > 1)
        SBW_PREC_GEMM(d->g, both, CblasTrans, CblasNoTrans, d->ig4, d->ih, d->irows - d->ib,
                      (SBW_PREC_T)1, dz + d->batch * d->g4, d->ig4, hs, d->ih, (SBW_PREC_T)1, dwh,
                      d->ih);
    if (dx)
        SBW_PREC_GEMM(d->g, both, CblasNoTrans, CblasNoTrans, d->irows, d->iin, d->ig4,
                      (SBW_PREC_T)1, dz, d->ig4, wx, d->iin, (SBW_PREC_T)0, dx, d->iin);
}

/* Backward over the chunk (sbw_lstm.h).  work holds dz (T*B x 4H) and the
 * dc carry (B x H), which starts at zero (truncated BPTT). */
int SBW_PREC_FN(sbw_lstm_backward)(const sbw_lstm_shape *s, const SBW_PREC_T *wx,
                                   const SBW_PREC_T *wh, const SBW_PREC_T *x, const SBW_PREC_T *h0,
                                   const SBW_PREC_T *c0, const SBW_PREC_T *hs, const SBW_PREC_T *cs,
                                   const SBW_PREC_T *gates, SBW_PREC_T *dhs, SBW_PREC_T *dx,
                                   SBW_PREC_T *dwx, SBW_PREC_T *dwh, SBW_PREC_T *db,
                                   SBW_PREC_T *work)
{
    lstm_dims d;
    int st = lstm_check(s, &d);
    if (st)
        return st;
    if (!wx || !wh || !x || !h0 || !c0 || !hs || !cs || !gates || !dhs || !dwx || !dwh || !db ||
        !work)
        return SBW_ERROR(SBW_EINVAL, "LSTM backward: an array argument other than dx is NULL");
    SBW_PREC_T *dz = work, *dc = work + d.rows * d.g4;
    memset(dc, 0, d.batch * d.hid * sizeof *dc);
    for (size_t t = d.steps; t-- > 0;)
        SBW_PREC_FN(step_backward)(&d, t, wh, c0, cs, gates, dhs, dc, dz);
    SBW_PREC_FN(chunk_gradients)(&d, wx, x, h0, hs, dz, dx, dwx, dwh, db);
    SBW_PREC_GEMM_FORGET(d.g, dz); /* work is the caller's to reuse */
    return SBW_PREC_GEMM_STATUS(d.g);
}
