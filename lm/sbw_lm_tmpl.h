/* sbw_lm_tmpl.h -- the chunk pass of sbw_lm.c in one precision, written in
 * the vocabulary of core/sbw_prec.h (SBW_PREC_T, SBW_PREC_FN,
 * SBW_PREC_GEMM) and instantiated by sbw_lm.c once per precision: float
 * for training, double for gradient checks and export.  Each instance ends
 * with its table, lm_prec_f or lm_prec_d, which sbw_lm_ws_alloc picks once.
 * No include guard, not a public header.
 *
 * Shapes: N = steps * B rows, time-major (row t*B + j is sequence j at
 * step t); every matrix row-major with its width as leading dimension. */

/* The buffers of one precision (allocated by sbw_lm.c's alloc_bufs). */
typedef struct SBW_PREC_FN(lm_bufs) {
    SBW_PREC_T *wx[SBW_LM_MAX_LAYERS], *wh[SBW_LM_MAX_LAYERS], *b[SBW_LM_MAX_LAYERS];
    SBW_PREC_T *p, *p0;                   /* latent P (D x H_L), p0 (D) */
    SBW_PREC_T *x[SBW_LM_MAX_LAYERS];     /* (N, in_l) input of layer l, dropped */
    SBW_PREC_T *hs[SBW_LM_MAX_LAYERS];    /* (N, H_l) outputs */
    SBW_PREC_T *cs[SBW_LM_MAX_LAYERS];    /* (N, H_l) cells */
    SBW_PREC_T *gates[SBW_LM_MAX_LAYERS]; /* (N, 4 H_l) */
    SBW_PREC_T *xl;                    /* (N, H_L) the last output, dropped: the latent's input */
    SBW_PREC_T *lat;                   /* (N, D) tanh(xl P^T + p0) before its dropout */
    SBW_PREC_T *h0[SBW_LM_MAX_LAYERS]; /* (B, H_l) carried state */
    SBW_PREC_T *c0[SBW_LM_MAX_LAYERS];
    SBW_PREC_T *min, *mlat;                /* (B, E), (B, D) locked masks */
    SBW_PREC_T *mlay[SBW_LM_MAX_LAYERS];   /* (B, H_l) */
    SBW_PREC_T *memb;                      /* (M) the embedding's word mask */
    unsigned char *mwh[SBW_LM_MAX_LAYERS]; /* (4H_l x H_l) weight-drop keep flags (opt.wdrop) */
    SBW_PREC_T *dwx[SBW_LM_MAX_LAYERS], *dwh[SBW_LM_MAX_LAYERS], *db[SBW_LM_MAX_LAYERS];
    SBW_PREC_T *dp, *dp0; /* (D x H_L), (D) */
    SBW_PREC_T *dh;       /* (N, max width) gradient into a layer's outputs */
    SBW_PREC_T *dx;       /* (N, max width) gradient out of a layer's inputs */
    SBW_PREC_T *work;     /* sbw_lstm work of the largest layer */
} SBW_PREC_FN(lm_bufs);

/* The buffers into w->bufs (allocated, zeroed); *st as sbw_ledger_alloc. */
static void SBW_PREC_FN(alloc_bufs)(sbw_lm_ws *w, int *st)
{
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, N = B * w->opt.steps, D = lm->a.d, L = lm->a.nlayers, wide = D;
    size_t z = sizeof(SBW_PREC_T), hl = lm->a.hidden[L - 1], work = 0;
    for (size_t l = 0; l < L; l++) {
        size_t H = lm->a.hidden[l], in = lm->in[l];
        sbw_lstm_shape s = {in, H, B, w->opt.steps, NULL};
        r->wx[l] = sbw_ledger_alloc(&w->ledger, 4 * H * in, z, st);
        r->wh[l] = sbw_ledger_alloc(&w->ledger, 4 * H * H, z, st);
        r->b[l] = sbw_ledger_alloc(&w->ledger, 4 * H, z, st);
        r->dwx[l] = sbw_ledger_alloc(&w->ledger, 4 * H * in, z, st);
        r->dwh[l] = sbw_ledger_alloc(&w->ledger, 4 * H * H, z, st);
        r->db[l] = sbw_ledger_alloc(&w->ledger, 4 * H, z, st);
        r->x[l] = sbw_ledger_alloc(&w->ledger, N * in, z, st);
        r->hs[l] = sbw_ledger_alloc(&w->ledger, N * H, z, st);
        r->cs[l] = sbw_ledger_alloc(&w->ledger, N * H, z, st);
        r->gates[l] = sbw_ledger_alloc(&w->ledger, N * 4 * H, z, st);
        r->h0[l] = sbw_ledger_alloc(&w->ledger, B * H, z, st);
        r->c0[l] = sbw_ledger_alloc(&w->ledger, B * H, z, st);
        r->mlay[l] = sbw_ledger_alloc(&w->ledger, B * H, z, st);
        if (w->opt.wdrop)
            r->mwh[l] = sbw_ledger_alloc(&w->ledger, 4 * H * H, 1, st);
        work = sbw_lstm_work_len(&s) > work ? sbw_lstm_work_len(&s) : work;
        wide = H > wide ? H : in > wide ? in : wide;
    }
    r->p = sbw_ledger_alloc(&w->ledger, D * hl, z, st);
    r->p0 = sbw_ledger_alloc(&w->ledger, D, z, st);
    r->dp = sbw_ledger_alloc(&w->ledger, D * hl, z, st);
    r->dp0 = sbw_ledger_alloc(&w->ledger, D, z, st);
    r->xl = sbw_ledger_alloc(&w->ledger, N * hl, z, st);
    r->lat = sbw_ledger_alloc(&w->ledger, N * D, z, st);
    r->min = sbw_ledger_alloc(&w->ledger, B * lm->a.emb, z, st);
    r->mlat = sbw_ledger_alloc(&w->ledger, B * D, z, st);
    r->memb = sbw_ledger_alloc(&w->ledger, lm->m, z, st);
    r->dh = sbw_ledger_alloc(&w->ledger, N * wide, z, st);
    r->dx = sbw_ledger_alloc(&w->ledger, N * wide, z, st);
    r->work = sbw_ledger_alloc(&w->ledger, work, z, st);
}

static void SBW_PREC_FN(from_double)(SBW_PREC_T *dst, const double *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (SBW_PREC_T)src[i];
}

static void SBW_PREC_FN(to_double)(double *dst, const SBW_PREC_T *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (double)src[i];
}

/* Wh with its weight-drop mask: dst = (T)src * keep where mask[i], else
 * 0 (keep = (T)(1/(1-p)), as the locked masks scale). */
static void SBW_PREC_FN(from_double_dropped)(SBW_PREC_T *dst, const double *src,
                                             const unsigned char *mask, SBW_PREC_T keep, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = mask[i] ? (SBW_PREC_T)src[i] * keep : 0;
}

/* The network's parameters from theta in this precision; each Wh through
 * its weight-drop mask when wkeep > 0 (the step drops weights). */
static void SBW_PREC_FN(load_params)(const sbw_lm *lm, SBW_PREC_FN(lm_bufs) * r,
                                     const double *theta, SBW_PREC_T wkeep)
{
    for (size_t l = 0; l < lm->a.nlayers; l++) {
        size_t H = lm->a.hidden[l], in = lm->in[l];
        SBW_PREC_FN(from_double)(r->wx[l], theta + lm->off_wx[l], 4 * H * in);
        if (wkeep > 0)
            SBW_PREC_FN(from_double_dropped)
        (r->wh[l], theta + lm->off_wh[l], r->mwh[l], wkeep, 4 * H * H);
        else SBW_PREC_FN(from_double)(r->wh[l], theta + lm->off_wh[l], 4 * H * H);
        SBW_PREC_FN(from_double)(r->b[l], theta + lm->off_b[l], 4 * H);
    }
    SBW_PREC_FN(from_double)(r->p, theta + lm->off_p, lm->off_p0 - lm->off_p); /* 0: none */
    SBW_PREC_FN(from_double)(r->p0, theta + lm->off_p0, lm->off_head - lm->off_p0);
}

/* A locked mask (B x n): 1/(1-p) with probability 1-p, else 0; all ones
 * when p = 0 or rng is NULL. */
static void SBW_PREC_FN(draw_mask)(gsl_rng *rng, double p, SBW_PREC_T *mask, size_t len)
{
    SBW_PREC_T keep = (SBW_PREC_T)(1.0 / (1.0 - p));
    for (size_t i = 0; i < len; i++)
        mask[i] = (!rng || p == 0 || gsl_rng_uniform(rng) >= p) ? (rng && p > 0 ? keep : 1) : 0;
}

/* Weight drop's keep flags (n): 1 with probability 1-p. */
static void SBW_PREC_FN(draw_keep)(gsl_rng *rng, double p, unsigned char *keep, size_t n)
{
    for (size_t i = 0; i < n; i++)
        keep[i] = gsl_rng_uniform(rng) >= p;
}

/* Every mask of the chunk (drop NULL or rng NULL: all ones, no weight
 * drop): the locked masks in their original order, then (wdrop > 0) each
 * layer's weight-drop flags, so runs without weight drop draw the same
 * masks as before it existed.  w->wkeep: the kept weights' scale (0: no
 * weight drop this step). */
static void SBW_PREC_FN(draw_masks)(sbw_lm_ws *w, gsl_rng *rng, const sbw_lm_dropout *drop)
{
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, L = lm->a.nlayers;
    sbw_lm_dropout none = {0}, p = drop ? *drop : none;
    SBW_PREC_FN(draw_mask)(rng, p.emb, r->memb, lm->m);
    SBW_PREC_FN(draw_mask)(rng, p.in, r->min, B * lm->a.emb);
    for (size_t l = 0; l < L; l++)
        SBW_PREC_FN(draw_mask)
    (rng, l + 1 == L && p.last >= 0 ? p.last : p.layer, r->mlay[l], B * lm->a.hidden[l]);
    w->gmasked = drops_g(lm) && rng && p.latent > 0; /* --latent none: on g_k, K D wide */
    if (w->gmasked)
        draw_gmask(rng, p.latent, w->gmask, B * lm->head.k * lm->a.d);
    else
        SBW_PREC_FN(draw_mask)(rng, p.latent, r->mlat, B * lm->a.d);
    w->wkeep = 0;
    if (rng && p.wdrop > 0) {
        for (size_t l = 0; l < L; l++)
            SBW_PREC_FN(draw_keep)(rng, p.wdrop, r->mwh[l], 4 * lm->a.hidden[l] * lm->a.hidden[l]);
        w->wkeep = (double)(SBW_PREC_T)(1.0 / (1.0 - p.wdrop));
    }
}

/* x_0 = E[w] * memb[w] * min (row t*B + j uses min's row j). */
static void SBW_PREC_FN(embed)(const sbw_lm *lm, SBW_PREC_FN(lm_bufs) * r, const double *theta,
                               const size_t *ids, size_t N, size_t B, int nt)
{
    size_t E = lm->a.emb;
    const double *emb = theta + lm->off_emb;
#pragma omp parallel for schedule(static) num_threads(nt) if (N * E > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        const double *e = emb + ids[i] * E;
        const SBW_PREC_T *mk = r->min + (i % B) * E;
        SBW_PREC_T s = r->memb[ids[i]], *x = r->x[0] + i * E;
        for (size_t c = 0; c < E; c++)
            x[c] = (SBW_PREC_T)e[c] * s * mk[c];
    }
}

/* dst (N x n) = src (N x n) * mask (row i uses mask row i % B). */
static void SBW_PREC_FN(apply_mask)(SBW_PREC_T *dst, const SBW_PREC_T *src, const SBW_PREC_T *mask,
                                    size_t N, size_t B, size_t n, int nt)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (N * n > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        const SBW_PREC_T *mk = mask + (i % B) * n, *s = src + i * n;
        SBW_PREC_T *d = dst + i * n;
        for (size_t c = 0; c < n; c++)
            d[c] = s[c] * mk[c];
    }
}

/* The forward pass of ch (masks drawn): theta in this precision, the
 * embedding, every LSTM layer, the latent, and H (double, N x D, leading
 * dim D) = lat * mlat for the head; with --latent none H (N x H_L) = xl. */
static int SBW_PREC_FN(forward)(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch,
                                double *H)
{
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, N = ch->steps * B, L = lm->a.nlayers, D = lm->a.d;
    size_t hl = lm->a.hidden[L - 1];
    int nt = w->nt;
    SBW_PREC_FN(load_params)(lm, r, theta, (SBW_PREC_T)w->wkeep);
    SBW_PREC_FN(embed)(lm, r, theta, ch->x, N, B, nt);
    int st = SBW_OK;
    for (size_t l = 0; !st && l < L; l++) {
        size_t Hh = lm->a.hidden[l];
        sbw_lstm_shape s = {lm->in[l], Hh, B, ch->steps, w->gemm};
        st = SBW_PREC_FN(sbw_lstm_forward)(&s, r->wx[l], r->wh[l], r->b[l], r->x[l], r->h0[l],
                                           r->c0[l], r->hs[l], r->cs[l], r->gates[l]);
        SBW_PREC_FN(apply_mask)
        (l + 1 < L ? r->x[l + 1] : r->xl, r->hs[l], r->mlay[l], N, B, Hh, nt);
    }
    if (st)
        return st;
    if (lm->a.latent == SBW_LM_LATENT_NONE) {
        SBW_PREC_FN(to_double)(H, r->xl, N * hl);
        return SBW_OK;
    }
    SBW_PREC_GEMM_FORGET(w->gemm, r->xl); /* new inputs and weights */
    SBW_PREC_GEMM_FORGET(w->gemm, r->p);
    SBW_PREC_GEMM(w->gemm, SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B, CblasNoTrans, CblasTrans, (int)N,
                  (int)D, (int)hl, 1, r->xl, (int)hl, r->p, (int)hl, 0, r->lat, (int)D);
    st = SBW_PREC_GEMM_STATUS(w->gemm);
    if (st)
        return st;
#pragma omp parallel for schedule(static) num_threads(nt) if (N * D > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        SBW_PREC_T *z = r->lat + i * D;
        const SBW_PREC_T *mk = r->mlat + (i % B) * D;
        for (size_t c = 0; c < D; c++) {
            double t = tanh((double)z[c] + (double)r->p0[c]);
            z[c] = (SBW_PREC_T)t;
            H[i * D + c] = (double)z[c] * (double)mk[c];
        }
    }
    return SBW_OK;
}

/* The state to carry: the last step's rows of each layer's h and c. */
static void SBW_PREC_FN(carry)(sbw_lm_ws *w, size_t steps)
{
    const sbw_lm *lm = &w->lm;
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    size_t B = w->opt.batch;
    for (size_t l = 0; l < lm->a.nlayers; l++) {
        size_t n = B * lm->a.hidden[l], at = (steps - 1) * n;
        memcpy(r->h0[l], r->hs[l] + at, n * sizeof(SBW_PREC_T));
        memcpy(r->c0[l], r->cs[l] + at, n * sizeof(SBW_PREC_T));
    }
}

/* Through the latent: dz = dH * mlat * (1 - lat^2); dP = dz^T xl,
 * dp0 = column sums of dz; r->dh (N x H_L) = (dz P) * mlay[L-1].  With
 * --latent none: r->dh = dH * mlay[L-1]. */
static void SBW_PREC_FN(latent_back)(sbw_lm_ws *w, SBW_PREC_FN(lm_bufs) * r, const double *dH,
                                     size_t N)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, D = lm->a.d, L = lm->a.nlayers, hl = lm->a.hidden[L - 1];
    SBW_PREC_T *dz = r->dx; /* (N, D) */
    int nt = w->nt;
    if (lm->a.latent == SBW_LM_LATENT_NONE) { /* dH is the gradient of xl (N x H_L) */
        SBW_PREC_FN(from_double)(r->dh, dH, N * hl);
        SBW_PREC_FN(apply_mask)(r->dh, r->dh, r->mlay[L - 1], N, B, hl, nt);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(nt) if (N * D > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        const SBW_PREC_T *z = r->lat + i * D, *mk = r->mlat + (i % B) * D;
        for (size_t c = 0; c < D; c++)
            dz[i * D + c] =
                (SBW_PREC_T)(dH[i * D + c] * (double)mk[c] * (1.0 - (double)z[c] * (double)z[c]));
    }
    SBW_PREC_GEMM(w->gemm, SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B, CblasTrans, CblasNoTrans, (int)D,
                  (int)hl, (int)N, 1, dz, (int)D, r->xl, (int)hl, 0, r->dp, (int)hl);
    for (size_t c = 0; c < D; c++) {
        double s = 0;
        for (size_t i = 0; i < N; i++)
            s += (double)dz[i * D + c];
        r->dp0[c] = (SBW_PREC_T)s;
    }
    SBW_PREC_GEMM(w->gemm, SBW_GEMM_KEEP_A | SBW_GEMM_KEEP_B, CblasNoTrans, CblasNoTrans, (int)N,
                  (int)hl, (int)D, 1, dz, (int)D, r->p, (int)hl, 0, r->dh, (int)hl);
    SBW_PREC_GEMM_FORGET(w->gemm, dz); /* r->dx is the layers' scratch next */
    SBW_PREC_FN(apply_mask)(r->dh, r->dh, r->mlay[L - 1], N, B, hl, nt);
}

/* AR and TAR (sbw_lm.h: sbw_lm_dropout) of the chunk's N = T*B rows of
 * the last layer (H_L wide): their values into w->ar, w->tar, their
 * gradients added to r->dh (with respect to h^L, before its dropout):
 * AR's 2 alpha xl mlay / (N H_L), TAR's 2 beta (d_t - d_{t+1}) /
 * ((T-1) B H_L), d_t = h_t - h_{t-1} for 1 <= t < T, else 0.  Serial and
 * in this order, so the bits do not depend on threads. */
static void SBW_PREC_FN(reg_back)(sbw_lm_ws *w, SBW_PREC_FN(lm_bufs) * r, size_t T)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, L = lm->a.nlayers, H = lm->a.hidden[L - 1], N = T * B;
    const SBW_PREC_T *hs = r->hs[L - 1], *mk = r->mlay[L - 1];
    double ss = 0, ca = 2 * w->alpha / ((double)N * (double)H);
    w->ar = 0, w->tar = 0;
    if (w->alpha > 0) {
        for (size_t i = 0; i < N; i++)
            for (size_t c = 0; c < H; c++) {
                double x = (double)r->xl[i * H + c];
                ss += x * x;
                r->dh[i * H + c] += (SBW_PREC_T)(ca * x * (double)mk[(i % B) * H + c]);
            }
        w->ar = w->alpha * ss / ((double)N * (double)H);
    }
    if (w->beta <= 0 || T < 2)
        return;
    double ct = 2 * w->beta / ((double)(N - B) * (double)H);
    ss = 0;
    for (size_t i = B; i < N; i++) /* row i at step >= 1 and row i - B one step before */
        for (size_t c = 0; c < H; c++) {
            double d = (double)hs[i * H + c] - (double)hs[(i - B) * H + c];
            ss += d * d;
            r->dh[i * H + c] += (SBW_PREC_T)(ct * d);
            r->dh[(i - B) * H + c] -= (SBW_PREC_T)(ct * d);
        }
    w->tar = w->beta * ss / ((double)(N - B) * (double)H);
}

/* Wh's gradient into g: through the weight-drop mask when wkeep > 0
 * (g = dWh_eff * wkeep where kept, else 0). */
static void SBW_PREC_FN(wh_grad)(double *g, const SBW_PREC_T *dwh, const unsigned char *mask,
                                 double wkeep, size_t n)
{
    if (wkeep <= 0) {
        SBW_PREC_FN(to_double)(g, dwh, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        g[i] = mask[i] ? (double)dwh[i] * wkeep : 0.0;
}

/* The embedding's gradient into g (M x E, zeroed here unless tied, when
 * it is the head's dW and is added to). */
static void SBW_PREC_FN(embed_back)(const sbw_lm *lm, SBW_PREC_FN(lm_bufs) * r, const size_t *ids,
                                    size_t N, size_t B, double *g)
{
    size_t E = lm->a.emb;
    if (!lm->a.tied)
        memset(g, 0, lm->m * E * sizeof *g);
    for (size_t i = 0; i < N; i++) { /* serial: rows of g repeat */
        const SBW_PREC_T *mk = r->min + (i % B) * E, *dx = r->dx + i * E;
        double s = (double)r->memb[ids[i]], *gi = g + ids[i] * E;
        for (size_t c = 0; c < E; c++)
            gi[c] += (double)dx[c] * (double)mk[c] * s;
    }
}

/* Backward after forward and the head pass: dH (N x D) is the head's
 * gradient with respect to H; every block of grad but the head's is
 * overwritten (the embedding added to the head's W when tied). */
static int SBW_PREC_FN(backward)(sbw_lm_ws *w, const double *theta, const sbw_lm_chunk *ch,
                                 const double *dH, double *grad)
{
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, N = ch->steps * B, L = lm->a.nlayers;
    SBW_PREC_FN(latent_back)(w, r, dH, N);
    SBW_PREC_FN(reg_back)(w, r, ch->steps);
    SBW_PREC_FN(to_double)(grad + lm->off_p, r->dp, lm->off_p0 - lm->off_p); /* 0: none */
    SBW_PREC_FN(to_double)(grad + lm->off_p0, r->dp0, lm->off_head - lm->off_p0);
    int st = SBW_PREC_GEMM_STATUS(w->gemm); /* the latent's */
    for (size_t l = L; !st && l-- > 0;) {
        size_t Hh = lm->a.hidden[l], in = lm->in[l];
        sbw_lstm_shape s = {in, Hh, B, ch->steps, w->gemm};
        memset(r->dwx[l], 0, 4 * Hh * in * sizeof(SBW_PREC_T));
        memset(r->dwh[l], 0, 4 * Hh * Hh * sizeof(SBW_PREC_T));
        memset(r->db[l], 0, 4 * Hh * sizeof(SBW_PREC_T));
        st = SBW_PREC_FN(sbw_lstm_backward)(&s, r->wx[l], r->wh[l], r->x[l], r->h0[l], r->c0[l],
                                            r->hs[l], r->cs[l], r->gates[l], r->dh, r->dx,
                                            r->dwx[l], r->dwh[l], r->db[l], r->work);
        SBW_PREC_FN(to_double)(grad + lm->off_wx[l], r->dwx[l], 4 * Hh * in);
        SBW_PREC_FN(wh_grad)(grad + lm->off_wh[l], r->dwh[l], r->mwh[l], w->wkeep, 4 * Hh * Hh);
        SBW_PREC_FN(to_double)(grad + lm->off_b[l], r->db[l], 4 * Hh);
        if (l > 0)
            SBW_PREC_FN(apply_mask)(r->dh, r->dx, r->mlay[l - 1], N, B, in, w->nt);
    }
    (void)theta;
    if (!st)
        SBW_PREC_FN(embed_back)(lm, r, ch->x, N, B, grad + lm->off_emb);
    return st;
}

/* The carried state as doubles (layer by layer, h then c) and back. */
static void SBW_PREC_FN(state_get)(const sbw_lm_ws *w, double *s)
{
    const SBW_PREC_FN(lm_bufs) *r = w->bufs;
    for (size_t l = 0; l < w->lm.a.nlayers; l++) {
        size_t n = w->opt.batch * w->lm.a.hidden[l];
        SBW_PREC_FN(to_double)(s, r->h0[l], n);
        SBW_PREC_FN(to_double)(s + n, r->c0[l], n);
        s += 2 * n;
    }
}

static void SBW_PREC_FN(state_set)(sbw_lm_ws *w, const double *s)
{
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    for (size_t l = 0; l < w->lm.a.nlayers; l++) {
        size_t n = w->opt.batch * w->lm.a.hidden[l];
        SBW_PREC_FN(from_double)(r->h0[l], s, n);
        SBW_PREC_FN(from_double)(r->c0[l], s + n, n);
        s += 2 * n;
    }
}

static void SBW_PREC_FN(state_reset)(sbw_lm_ws *w)
{
    SBW_PREC_FN(lm_bufs) *r = w->bufs;
    for (size_t l = 0; l < w->lm.a.nlayers; l++) {
        size_t n = w->opt.batch * w->lm.a.hidden[l];
        memset(r->h0[l], 0, n * sizeof(SBW_PREC_T));
        memset(r->c0[l], 0, n * sizeof(SBW_PREC_T));
    }
}

/* This precision's table (sbw_lm.c: lm_prec). */
static const lm_prec SBW_PREC_FN(lm_prec) = {.bufs_size = sizeof(SBW_PREC_FN(lm_bufs)),
                                             .alloc_bufs = SBW_PREC_FN(alloc_bufs),
                                             .draw_masks = SBW_PREC_FN(draw_masks),
                                             .forward = SBW_PREC_FN(forward),
                                             .backward = SBW_PREC_FN(backward),
                                             .carry = SBW_PREC_FN(carry),
                                             .state_get = SBW_PREC_FN(state_get),
                                             .state_set = SBW_PREC_FN(state_set),
                                             .state_reset = SBW_PREC_FN(state_reset)};
