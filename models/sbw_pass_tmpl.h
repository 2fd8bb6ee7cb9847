/* sbw_pass_tmpl.h -- the per-context work of sbw_pass.c in one precision:
 * the logits GEMM, each context's bias, map, normalisation, loss and
 * gradient in place in the block's logits (the head kernels,
 * sbw_head_kern.h), and the backward GEMMs.  Written in the vocabulary of
 * core/sbw_prec.h and instantiated by sbw_pass.c once per precision; each
 * instance ends with its table, pass_prec_f or pass_prec_d, which
 * sbw_pass_ws_alloc picks once.  Single: float GEMMs and float pointwise
 * work on the block's float logits (the struct fields ending in f), every
 * sum in double; double: everything in double.  No include guard, not a
 * public header.
 */

/* The target row of position pos in this precision: a row of P* (converted
 * into w's scratch row when stored in the other precision) or the one-hot
 * row of w, whose 1 is set here and cleared by target_clear. */
static const SBW_PREC_T *SBW_PREC_FN(target)(const sbw_pass_target *tg, pass_rows *w, size_t pos,
                                             size_t m)
{
    SBW_PREC_T *oh = w->SBW_PREC_PICK(ohf, oh), *row = w->SBW_PREC_PICK(pf, p);
    if (tg->ids) {
        oh[tg->ids[pos]] = 1;
        return oh;
    }
    const sbw_target *t = tg->p;
    size_t r = target_row(tg, pos);
    if (t->SBW_PREC_PICK(pf, pd))
        return t->SBW_PREC_PICK(pf, pd) + r * m;
    SBW_PREC_PICK(sbw_head_kern_d2f, sbw_head_kern_f2d)(t->SBW_PREC_PICK(pd, pf) + r * m, row, m);
    return row;
}

static void SBW_PREC_FN(target_clear)(const sbw_pass_target *tg, pass_rows *w, size_t pos)
{
    if (tg->ids)
        w->SBW_PREC_PICK(ohf, oh)[tg->ids[pos]] = 0;
}

/* Z = X W^T for the block's nb * nx context vectors (single: X converted
 * to float first). */
static void SBW_PREC_FN(logits_gemm)(const sbw_pass_ws *o, const pass_call *c, pass_block *b,
                                     size_t nb)
{
    int rows = (int)(nb * o->nx), m = (int)o->h.m, d = (int)o->h.d;
#if SBW_PREC_SINGLE
    (void)c; /* W is o->wf, converted by params_f */
    sbw_head_kern_d2f(b->xd, b->xf, nb * o->nx * o->h.d);
#endif
    SBW_PREC_GEMM_FORGET(b->gemm, b->SBW_PREC_PICK(xf, xd)); /* the last block's */
    SBW_PREC_GEMM(b->gemm, SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, rows, m, d,
                  1, b->SBW_PREC_PICK(xf, xd), d, SBW_PREC_PICK(o->wf, c->theta + o->h.off_w), d, 0,
                  b->SBW_PREC_PICK(zf, zd), m);
}

/* y = f(z) for the context's nx logit rows; returns y (z itself when the
 * map is the identity). */
static SBW_PREC_T *SBW_PREC_FN(map_forward)(const sbw_pass_ws *o, pass_rows *w, SBW_PREC_T *z)
{
    size_t m = o->h.m;
    for (size_t c = 0; c < o->nx; c++) {
        SBW_PREC_T *zc = z + c * m, *yc = w->SBW_PREC_PICK(yf, y) + c * m;
        SBW_PREC_T *fc = w->SBW_PREC_PICK(fpf, fp) + c * m;
        switch (o->h.map) {
        case SBW_MAP_IDENTITY:
            return z;
        case SBW_MAP_SS:
            SBW_PREC_PICK(sbw_head_kern_ss_f, sbw_head_kern_ss)(zc, yc, fc, m);
            break;
        case SBW_MAP_LMS:
            SBW_PREC_PICK(sbw_head_kern_lms_f, sbw_head_kern_lms)
            (zc, yc, fc, w->SBW_PREC_PICK(sigf, sig), m, o->SBW_PREC_PICK(uf, u),
             o->SBW_PREC_PICK(vf, v), o->SBW_PREC_PICK(cf, c), o->h.k,
             o->SBW_PREC_PICK(lambdaf, lambda));
            break;
        case SBW_MAP_PLIF:
            SBW_PREC_PICK(sbw_head_kern_plif_f, sbw_head_kern_plif)
            (zc, yc, fc, m, o->SBW_PREC_PICK(sf, s), o->SBW_PREC_PICK(cumf, cum), o->h.knots,
             o->h.plif_t);
            break;
        }
    }
    return w->SBW_PREC_PICK(yf, y);
}

/* z := f'(z) dy, with the map's parameter gradients accumulated (double). */
static void SBW_PREC_FN(map_backward)(const sbw_pass_ws *o, pass_rows *w, SBW_PREC_T *z,
                                      const SBW_PREC_T *dy)
{
    size_t m = o->h.m, k = o->h.k;
    if (o->h.map == SBW_MAP_IDENTITY)
        return;
    for (size_t c = 0; c < o->nx; c++) {
        SBW_PREC_T *zc = z + c * m;
        const SBW_PREC_T *gc = dy + c * m;
        if (o->h.map == SBW_MAP_LMS)
            SBW_PREC_PICK(sbw_head_kern_lms_back_f, sbw_head_kern_lms_back)
        (zc, gc, w->SBW_PREC_PICK(sigf, sig), m, o->v, k, w->gmap, w->gmap + k, w->gmap + 2 * k,
         o->h.linear ? w->gmap + 3 * k : NULL);
        if (o->h.map == SBW_MAP_PLIF)
            SBW_PREC_PICK(sbw_head_kern_plif_back_f, sbw_head_kern_plif_back)
        (zc, gc, m, o->h.knots, o->h.plif_t, w->gmap, w->gmap + o->h.knots);
        SBW_PREC_PICK(sbw_head_kern_map_back_f, sbw_head_kern_map_back)
        (gc, w->SBW_PREC_PICK(fpf, fp) + c * m, zc, m);
    }
}

/* The forward pass of one context at block position i (call position
 * pos), in place in the block's logits: bias, map, normalise, and the
 * loss against the row's target with row sum psum (a zero row when the
 * call has no target: the loss is then unused), the gradient (Q - P)
 * written over the mapped logits when grad; the next context's P* row is
 * prefetched meanwhile.  Returns the loss; *y is the mapped logits (z
 * itself for the identity map), *am the first argmax. */
static double SBW_PREC_FN(row_forward)(sbw_pass_ws *o, const pass_call *c, pass_block *b,
                                       pass_rows *w, size_t i, size_t pos, double psum, bool grad,
                                       SBW_PREC_T **y, size_t *am)
{
    size_t m = o->h.m, k = o->h.k;
    SBW_PREC_T *z = b->SBW_PREC_PICK(zf, zd) + i * o->nx * m;
    double loss;
    for (size_t j = 0; o->h.bias && j < o->nx; j++)
        SBW_PREC_PICK(sbw_head_kern_add_f(o->bf, z + j * m, m),
                      sbw_head_kern_axpy(1.0, c->theta + o->h.off_b, z + j * m, m));
    const sbw_target *t = c->tg ? c->tg->p : NULL;
    if (t && t->SBW_PREC_PICK(pf, pd) && pos + 1 < c->nrows)
        prefetch_row(t->SBW_PREC_PICK(pf, pd) + target_row(c->tg, pos + 1) * m,
                     m * sizeof(SBW_PREC_T));
    if (o->h.vgate) { /* mixtape: one row of gated logits, then one softmax */
        *y = w->SBW_PREC_PICK(yf, y);
        SBW_PREC_PICK(sbw_head_kern_mixtape_f, sbw_head_kern_mixtape)
        (z, k, m, o->kg ? b->gl + i * o->kg : NULL, o->ldg, b->logpi + i * k,
         c->theta + o->h.off_gb, o->h.nfreq, *y);
    } else {
        *y = SBW_PREC_FN(map_forward)(o, w, z);
    }
    const SBW_PREC_T *p = c->tg ? SBW_PREC_FN(target)(c->tg, w, pos, m) : w->SBW_PREC_PICK(ohf, oh);
    if (o->h.mixture)
        loss = SBW_PREC_PICK(sbw_head_kern_mixture_f, sbw_head_kern_mixture)(
            *y, k, m, b->logpi + i * k, p, psum, c->scale, grad, w->SBW_PREC_PICK(ef, e), w->kbuf,
            w->lq, grad ? b->dalpha + i * k : NULL, am);
    else
        loss = SBW_PREC_PICK(sbw_head_kern_softmax_f, sbw_head_kern_softmax)(*y, p, m, psum,
                                                                             c->scale, grad, am);
    if (c->tg)
        SBW_PREC_FN(target_clear)(c->tg, w, pos);
    return loss;
}

/* Training: the forward pass of one context, then the map's backward and
 * the bias gradient (double) in place in the block. */
static void SBW_PREC_FN(rows_train)(sbw_pass_ws *o, const pass_call *c, pass_block *b, pass_rows *w,
                                    size_t i, size_t pos)
{
    size_t m = o->h.m, am = 0, mode;
    bool grad = c->dH != NULL;
    SBW_PREC_T *z = b->SBW_PREC_PICK(zf, zd) + i * o->nx * m, *y;
    double ent, psum;
    target_consts(c->tg, pos, &psum, &ent, &mode);
    double loss = SBW_PREC_FN(row_forward)(o, c, b, w, i, pos, psum, grad, &y, &am); /* sets am */
    add_result(w, loss, ent, am, mode);
    if (!grad)
        return;
    if (o->h.vgate)
        SBW_PREC_PICK(sbw_head_kern_mixtape_back_f, sbw_head_kern_mixtape_back)
    (z, o->h.k, m, o->kg ? b->gl + i * o->kg : NULL, o->ldg, b->logpi + i * o->h.k, o->h.nfreq, y,
     b->dalpha + i * o->h.k);
    SBW_PREC_FN(map_backward)(o, w, z, y);
    for (size_t j = 0; o->h.bias && j < o->nx; j++)
        SBW_PREC_PICK(sbw_head_kern_add_f2d(z + j * m, w->db, m),
                      sbw_head_kern_axpy(1.0, z + j * m, w->db, m));
}

/* Export: log Q of one context into the call's lq (normalised in double,
 * single converting its mapped logits first), and its metrics when the
 * call has a target. */
static void SBW_PREC_FN(rows_logq)(sbw_pass_ws *o, const pass_call *c, pass_block *b, pass_rows *w,
                                   size_t i, size_t pos)
{
    size_t m = o->h.m, am = 0, mode = 0;
    double *out = c->lq + pos * c->ldq, ent = 0, psum = 1;
    SBW_PREC_T *y;
    if (c->tg)
        target_consts(c->tg, pos, &psum, &ent, &mode);
    double loss = SBW_PREC_FN(row_forward)(o, c, b, w, i, pos, psum, false, &y, &am);
    if (o->h.mixture) {
        memcpy(out, w->lq, m * sizeof *out);
    } else {
#if SBW_PREC_SINGLE
        sbw_head_kern_f2d(y, out, m);
        sbw_kern_log_softmax_rows(out, 1, m, m, out, m);
#else
        sbw_kern_log_softmax_rows(y, 1, m, m, out, m);
#endif
    }
    logq_result(c, w, pos, out, m, loss, ent, am, mode);
}

/* dX = dZ W (into the double dxd) and dW += dZ^T X (single: float GEMMs,
 * bfloat16 inputs with the block's context, summed into the double
 * accumulators). */
static void SBW_PREC_FN(backward_gemm)(const sbw_pass_ws *o, const pass_call *c, pass_block *b,
                                       size_t nb)
{
    int rows = (int)(nb * o->nx), m = (int)o->h.m, d = (int)o->h.d;
#if SBW_PREC_SINGLE
    (void)c;
    unsigned both = SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B;
    sbw_gemm_f(b->gemm, both, CblasNoTrans, CblasNoTrans, rows, d, m, 1.0f, b->zf, m, o->wf, d,
               0.0f, b->dxf, d);
    sbw_head_kern_f2d(b->dxf, b->dxd, (size_t)rows * (size_t)d);
    sbw_gemm_f(b->gemm, both, CblasTrans, CblasNoTrans, m, d, rows, 1.0f, b->zf, m, b->xf, d, 0.0f,
               b->dwf, d);
    sbw_gemm_forget(b->gemm, b->zf); /* the next block's logits go there */
    sbw_head_kern_add_f2d(b->dwf, b->dw, (size_t)m * (size_t)d);
#else
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, d, m, 1.0, b->zd, m,
                c->theta + o->h.off_w, d, 0.0, b->dxd, d);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, d, rows, 1.0, b->zd, m, b->xd, d, 1.0,
                b->dw, d);
#endif
}

/* The call's parameters in this precision's forms (single: float copies of
 * W, b and the map's constrained values; double reads theta and the
 * double values directly). */
static void SBW_PREC_FN(params)(sbw_pass_ws *o, const double *theta)
{
#if SBW_PREC_SINGLE
    const sbw_head *h = &o->h;
    for (int i = 0; i < o->nblockws; i++) { /* W and U change: drop their bfloat16 copies */
        sbw_gemm_forget(o->blocks[i].gemm, o->wf);
        if (h->context_mix) /* mixf is NULL otherwise, which would drop every copy */
            sbw_gemm_forget(o->blocks[i].gemm, o->mixf);
    }
    sbw_head_kern_d2f(theta + h->off_w, o->wf, h->m * h->d);
    if (h->context_mix)
        sbw_head_kern_d2f(theta + h->off_u, o->mixf, h->k * h->d * h->c);
    if (h->bias)
        sbw_head_kern_d2f(theta + h->off_b, o->bf, h->m);
    size_t k = h->model == SBW_MODEL_LMS ? h->k : 0;
    sbw_head_kern_d2f(o->u, o->uf, k);
    sbw_head_kern_d2f(o->v, o->vf, k);
    sbw_head_kern_d2f(o->c, o->cf, k);
    sbw_head_kern_d2f(o->s, o->sf, h->knots);
    sbw_head_kern_d2f(o->cum, o->cumf, h->knots);
    o->lambdaf = (float)o->lambda;
#else
    (void)o, (void)theta;
#endif
}

/* This precision's table (sbw_pass.c: pass_prec). */
static const pass_prec SBW_PREC_FN(pass_prec) = {.params = SBW_PREC_FN(params),
                                                 .logits = SBW_PREC_FN(logits_gemm),
                                                 .train = SBW_PREC_FN(rows_train),
                                                 .logq = SBW_PREC_FN(rows_logq),
                                                 .backward = SBW_PREC_FN(backward_gemm)};
