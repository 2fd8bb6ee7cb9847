/* sbw_lm_chunk.h -- the chunk pass of sbw_lm.c in one precision.  Not a
 * header of its own: sbw_lm.c includes it twice, with
 *   LM_R = float,  LM_FN(x) = x##_f,  LM_GEMM = cblas_sgemm, ...
 *   LM_R = double, LM_FN(x) = x##_d,  LM_GEMM = cblas_dgemm, ...
 * so the float (training) and double (gradient checks, export) passes are
 * one text.  Shapes: N = steps * B rows, time-major (row t*B + j is
 * sequence j at step t); every matrix row-major with its width as leading
 * dimension. */

/* The buffers of one precision (allocated by sbw_lm.c's alloc_bufs). */
typedef struct LM_FN(lm_bufs) {
    LM_R *wx[SBW_LM_MAX_LAYERS], *wh[SBW_LM_MAX_LAYERS], *b[SBW_LM_MAX_LAYERS];
    LM_R *p, *p0;                   /* latent P (D x H_L), p0 (D) */
    LM_R *x[SBW_LM_MAX_LAYERS];     /* (N, in_l) input of layer l, dropped */
    LM_R *hs[SBW_LM_MAX_LAYERS];    /* (N, H_l) outputs */
    LM_R *cs[SBW_LM_MAX_LAYERS];    /* (N, H_l) cells */
    LM_R *gates[SBW_LM_MAX_LAYERS]; /* (N, 4 H_l) */
    LM_R *xl;                       /* (N, H_L) the last output, dropped: the latent's input */
    LM_R *lat;                      /* (N, D) tanh(xl P^T + p0) before its dropout */
    LM_R *h0[SBW_LM_MAX_LAYERS];    /* (B, H_l) carried state */
    LM_R *c0[SBW_LM_MAX_LAYERS];
    LM_R *min, *mlat;              /* (B, E), (B, D) locked masks */
    LM_R *mlay[SBW_LM_MAX_LAYERS]; /* (B, H_l) */
    LM_R *memb;                    /* (M) the embedding's word mask */
    LM_R *dwx[SBW_LM_MAX_LAYERS], *dwh[SBW_LM_MAX_LAYERS], *db[SBW_LM_MAX_LAYERS];
    LM_R *dp, *dp0; /* (D x H_L), (D) */
    LM_R *dh;       /* (N, max width) gradient into a layer's outputs */
    LM_R *dx;       /* (N, max width) gradient out of a layer's inputs */
    LM_R *work;     /* sbw_lstm work of the largest layer */
} LM_FN(lm_bufs);

static void LM_FN(alloc_bufs)(sbw_lm_ws *w, LM_FN(lm_bufs) * r, int *st)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, N = B * w->opt.steps, D = lm->a.d, L = lm->a.nlayers, wide = D;
    size_t z = sizeof(LM_R), hl = lm->a.hidden[L - 1], work = 0;
    for (size_t l = 0; l < L; l++) {
        size_t H = lm->a.hidden[l], in = lm->in[l];
        sbw_lstm_shape s = {in, H, B, w->opt.steps};
        r->wx[l] = ws_alloc(w, 4 * H * in, z, st);
        r->wh[l] = ws_alloc(w, 4 * H * H, z, st);
        r->b[l] = ws_alloc(w, 4 * H, z, st);
        r->dwx[l] = ws_alloc(w, 4 * H * in, z, st);
        r->dwh[l] = ws_alloc(w, 4 * H * H, z, st);
        r->db[l] = ws_alloc(w, 4 * H, z, st);
        r->x[l] = ws_alloc(w, N * in, z, st);
        r->hs[l] = ws_alloc(w, N * H, z, st);
        r->cs[l] = ws_alloc(w, N * H, z, st);
        r->gates[l] = ws_alloc(w, N * 4 * H, z, st);
        r->h0[l] = ws_alloc(w, B * H, z, st);
        r->c0[l] = ws_alloc(w, B * H, z, st);
        r->mlay[l] = ws_alloc(w, B * H, z, st);
        work = sbw_lstm_work_len(&s) > work ? sbw_lstm_work_len(&s) : work;
        wide = H > wide ? H : in > wide ? in : wide;
    }
    r->p = ws_alloc(w, D * hl, z, st);
    r->p0 = ws_alloc(w, D, z, st);
    r->dp = ws_alloc(w, D * hl, z, st);
    r->dp0 = ws_alloc(w, D, z, st);
    r->xl = ws_alloc(w, N * hl, z, st);
    r->lat = ws_alloc(w, N * D, z, st);
    r->min = ws_alloc(w, B * lm->a.emb, z, st);
    r->mlat = ws_alloc(w, B * D, z, st);
    r->memb = ws_alloc(w, lm->m, z, st);
    r->dh = ws_alloc(w, N * wide, z, st);
    r->dx = ws_alloc(w, N * wide, z, st);
    r->work = ws_alloc(w, work, z, st);
}

static void LM_FN(from_double)(LM_R *dst, const double *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (LM_R)src[i];
}

static void LM_FN(to_double)(double *dst, const LM_R *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (double)src[i];
}

/* The network's parameters from theta in this precision. */
static void LM_FN(load_params)(const sbw_lm *lm, LM_FN(lm_bufs) * r, const double *theta)
{
    for (size_t l = 0; l < lm->a.nlayers; l++) {
        size_t H = lm->a.hidden[l], in = lm->in[l];
        LM_FN(from_double)(r->wx[l], theta + lm->off_wx[l], 4 * H * in);
        LM_FN(from_double)(r->wh[l], theta + lm->off_wh[l], 4 * H * H);
        LM_FN(from_double)(r->b[l], theta + lm->off_b[l], 4 * H);
    }
    LM_FN(from_double)(r->p, theta + lm->off_p, lm->a.d * lm->a.hidden[lm->a.nlayers - 1]);
    LM_FN(from_double)(r->p0, theta + lm->off_p0, lm->a.d);
}

/* A locked mask (B x n): 1/(1-p) with probability 1-p, else 0; all ones
 * when p = 0 or rng is NULL. */
static void LM_FN(draw_mask)(gsl_rng *rng, double p, LM_R *mask, size_t len)
{
    LM_R keep = (LM_R)(1.0 / (1.0 - p));
    for (size_t i = 0; i < len; i++)
        mask[i] = (!rng || p == 0 || gsl_rng_uniform(rng) >= p) ? (rng && p > 0 ? keep : 1) : 0;
}

static void LM_FN(draw_masks)(const sbw_lm_ws *w, LM_FN(lm_bufs) * r, gsl_rng *rng,
                              const sbw_lm_dropout *drop)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch;
    sbw_lm_dropout none = {0, 0, 0, 0}, p = drop ? *drop : none;
    LM_FN(draw_mask)(rng, p.emb, r->memb, lm->m);
    LM_FN(draw_mask)(rng, p.in, r->min, B * lm->a.emb);
    for (size_t l = 0; l < lm->a.nlayers; l++)
        LM_FN(draw_mask)(rng, p.layer, r->mlay[l], B * lm->a.hidden[l]);
    LM_FN(draw_mask)(rng, p.latent, r->mlat, B * lm->a.d);
}

/* x_0 = E[w] * memb[w] * min (row t*B + j uses min's row j). */
static void LM_FN(embed)(const sbw_lm *lm, LM_FN(lm_bufs) * r, const double *theta,
                         const size_t *ids, size_t N, size_t B, int nt)
{
    size_t E = lm->a.emb;
    const double *emb = theta + lm->off_emb;
#pragma omp parallel for schedule(static) num_threads(nt) if (N * E > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        const double *e = emb + ids[i] * E;
        const LM_R *mk = r->min + (i % B) * E;
        LM_R s = r->memb[ids[i]], *x = r->x[0] + i * E;
        for (size_t c = 0; c < E; c++)
            x[c] = (LM_R)e[c] * s * mk[c];
    }
}

/* dst (N x n) = src (N x n) * mask (row i uses mask row i % B). */
static void LM_FN(apply_mask)(LM_R *dst, const LM_R *src, const LM_R *mask, size_t N, size_t B,
                              size_t n, int nt)
{
#pragma omp parallel for schedule(static) num_threads(nt) if (N * n > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        const LM_R *mk = mask + (i % B) * n, *s = src + i * n;
        LM_R *d = dst + i * n;
        for (size_t c = 0; c < n; c++)
            d[c] = s[c] * mk[c];
    }
}

/* The forward pass of ch (masks drawn): every layer, the latent, and
 * H (double, N x D, leading dim D) = lat * mlat for the head. */
static int LM_FN(forward)(sbw_lm_ws *w, LM_FN(lm_bufs) * r, const double *theta,
                          const sbw_lm_chunk *ch, double *H)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, N = ch->steps * B, L = lm->a.nlayers, D = lm->a.d;
    size_t hl = lm->a.hidden[L - 1];
    int nt = w->nt;
    LM_FN(embed)(lm, r, theta, ch->x, N, B, nt);
    int st = SBW_OK;
    for (size_t l = 0; !st && l < L; l++) {
        size_t Hh = lm->a.hidden[l];
        sbw_lstm_shape s = {lm->in[l], Hh, B, ch->steps};
        st = LM_LSTM_FWD(&s, r->wx[l], r->wh[l], r->b[l], r->x[l], r->h0[l], r->c0[l], r->hs[l],
                         r->cs[l], r->gates[l]);
        LM_FN(apply_mask)(l + 1 < L ? r->x[l + 1] : r->xl, r->hs[l], r->mlay[l], N, B, Hh, nt);
    }
    if (st)
        return st;
    LM_GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)N, (int)D, (int)hl, 1, r->xl, (int)hl,
            r->p, (int)hl, 0, r->lat, (int)D);
#pragma omp parallel for schedule(static) num_threads(nt) if (N * D > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        LM_R *z = r->lat + i * D;
        const LM_R *mk = r->mlat + (i % B) * D;
        for (size_t c = 0; c < D; c++) {
            double t = tanh((double)z[c] + (double)r->p0[c]);
            z[c] = (LM_R)t;
            H[i * D + c] = (double)z[c] * (double)mk[c];
        }
    }
    return SBW_OK;
}

/* The state to carry: the last step's rows of each layer's h and c. */
static void LM_FN(carry)(const sbw_lm *lm, LM_FN(lm_bufs) * r, size_t B, size_t steps)
{
    for (size_t l = 0; l < lm->a.nlayers; l++) {
        size_t n = B * lm->a.hidden[l], at = (steps - 1) * n;
        memcpy(r->h0[l], r->hs[l] + at, n * sizeof(LM_R));
        memcpy(r->c0[l], r->cs[l] + at, n * sizeof(LM_R));
    }
}

/* Through the latent: dz = dH * mlat * (1 - lat^2); dP = dz^T xl,
 * dp0 = column sums of dz; r->dh (N x H_L) = (dz P) * mlay[L-1]. */
static void LM_FN(latent_back)(sbw_lm_ws *w, LM_FN(lm_bufs) * r, const double *dH, size_t N)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, D = lm->a.d, L = lm->a.nlayers, hl = lm->a.hidden[L - 1];
    LM_R *dz = r->dx; /* (N, D) */
    int nt = w->nt;
#pragma omp parallel for schedule(static) num_threads(nt) if (N * D > LM_PAR_MIN)
    for (size_t i = 0; i < N; i++) {
        const LM_R *z = r->lat + i * D, *mk = r->mlat + (i % B) * D;
        for (size_t c = 0; c < D; c++)
            dz[i * D + c] =
                (LM_R)(dH[i * D + c] * (double)mk[c] * (1.0 - (double)z[c] * (double)z[c]));
    }
    LM_GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)D, (int)hl, (int)N, 1, dz, (int)D, r->xl,
            (int)hl, 0, r->dp, (int)hl);
    for (size_t c = 0; c < D; c++) {
        double s = 0;
        for (size_t i = 0; i < N; i++)
            s += (double)dz[i * D + c];
        r->dp0[c] = (LM_R)s;
    }
    LM_GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)N, (int)hl, (int)D, 1, dz, (int)D, r->p,
            (int)hl, 0, r->dh, (int)hl);
    LM_FN(apply_mask)(r->dh, r->dh, r->mlay[L - 1], N, B, hl, nt);
}

/* The embedding's gradient into g (M x E, zeroed here unless tied, when
 * it is the head's dW and is added to). */
static void LM_FN(embed_back)(const sbw_lm *lm, LM_FN(lm_bufs) * r, const size_t *ids, size_t N,
                              size_t B, double *g)
{
    size_t E = lm->a.emb;
    if (!lm->a.tied)
        memset(g, 0, lm->m * E * sizeof *g);
    for (size_t i = 0; i < N; i++) { /* serial: rows of g repeat */
        const LM_R *mk = r->min + (i % B) * E, *dx = r->dx + i * E;
        double s = (double)r->memb[ids[i]], *gi = g + ids[i] * E;
        for (size_t c = 0; c < E; c++)
            gi[c] += (double)dx[c] * (double)mk[c] * s;
    }
}

/* Backward after forward and the head pass: dH (N x D) is the head's
 * gradient with respect to H; every block of grad but the head's is
 * overwritten (the embedding added to the head's W when tied). */
static int LM_FN(backward)(sbw_lm_ws *w, LM_FN(lm_bufs) * r, const double *theta,
                           const sbw_lm_chunk *ch, const double *dH, double *grad)
{
    const sbw_lm *lm = &w->lm;
    size_t B = w->opt.batch, N = ch->steps * B, L = lm->a.nlayers, D = lm->a.d;
    size_t hl = lm->a.hidden[L - 1];
    LM_FN(latent_back)(w, r, dH, N);
    LM_FN(to_double)(grad + lm->off_p, r->dp, D * hl);
    LM_FN(to_double)(grad + lm->off_p0, r->dp0, D);
    int st = SBW_OK;
    for (size_t l = L; !st && l-- > 0;) {
        size_t Hh = lm->a.hidden[l], in = lm->in[l];
        sbw_lstm_shape s = {in, Hh, B, ch->steps};
        memset(r->dwx[l], 0, 4 * Hh * in * sizeof(LM_R));
        memset(r->dwh[l], 0, 4 * Hh * Hh * sizeof(LM_R));
        memset(r->db[l], 0, 4 * Hh * sizeof(LM_R));
        st = LM_LSTM_BWD(&s, r->wx[l], r->wh[l], r->x[l], r->h0[l], r->c0[l], r->hs[l], r->cs[l],
                         r->gates[l], r->dh, r->dx, r->dwx[l], r->dwh[l], r->db[l], r->work);
        LM_FN(to_double)(grad + lm->off_wx[l], r->dwx[l], 4 * Hh * in);
        LM_FN(to_double)(grad + lm->off_wh[l], r->dwh[l], 4 * Hh * Hh);
        LM_FN(to_double)(grad + lm->off_b[l], r->db[l], 4 * Hh);
        if (l > 0)
            LM_FN(apply_mask)(r->dh, r->dx, r->mlay[l - 1], N, B, in, w->nt);
    }
    (void)theta;
    if (!st)
        LM_FN(embed_back)(lm, r, ch->x, N, B, grad + lm->off_emb);
    return st;
}

/* The carried state as doubles (layer by layer, h then c) and back. */
static void LM_FN(state_get)(const sbw_lm_ws *w, const LM_FN(lm_bufs) * r, double *s)
{
    for (size_t l = 0; l < w->lm.a.nlayers; l++) {
        size_t n = w->opt.batch * w->lm.a.hidden[l];
        LM_FN(to_double)(s, r->h0[l], n);
        LM_FN(to_double)(s + n, r->c0[l], n);
        s += 2 * n;
    }
}

static void LM_FN(state_set)(sbw_lm_ws *w, LM_FN(lm_bufs) * r, const double *s)
{
    for (size_t l = 0; l < w->lm.a.nlayers; l++) {
        size_t n = w->opt.batch * w->lm.a.hidden[l];
        LM_FN(from_double)(r->h0[l], s, n);
        LM_FN(from_double)(r->c0[l], s + n, n);
        s += 2 * n;
    }
}

static void LM_FN(state_reset)(sbw_lm_ws *w, LM_FN(lm_bufs) * r)
{
    for (size_t l = 0; l < w->lm.a.nlayers; l++) {
        size_t n = w->opt.batch * w->lm.a.hidden[l];
        memset(r->h0[l], 0, n * sizeof(LM_R));
        memset(r->c0[l], 0, n * sizeof(LM_R));
    }
}
