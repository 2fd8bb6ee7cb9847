/* sbw_lstm_ref.c -- the LSTM layer's naive twin (see sbw_lstm_ref.h).
 * Indices: t step, j sequence, k gate row in [0, 4H), m hidden unit, i input.
 * Row t*B + j of x, hs, cs, gates is sequence j at step t. */
#include "sbw_lstm_ref.h"

#include "sbw_error.h"

#include <math.h>

static int ref_check(const sbw_lstm_shape *s)
{
    if (!s || s->in == 0 || s->hid == 0 || s->batch == 0 || s->steps == 0)
        return SBW_ERROR(SBW_EINVAL, "LSTM twin: no shape or a size 0");
    return SBW_OK;
}

static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

/* Pre-activation k of sequence j at step t:
 * b_k + sum_i Wx[k][i] x_t[j][i] + sum_m Wh[k][m] h_{t-1}[j][m]. */
static double preact(const sbw_lstm_shape *s, size_t k, const double *wx, const double *wh,
                     const double *b, const double *xrow, const double *hprev)
{
    double z = b[k];
    for (size_t i = 0; i < s->in; i++)
        z += wx[k * s->in + i] * xrow[i];
    for (size_t m = 0; m < s->hid; m++)
        z += wh[k * s->hid + m] * hprev[m];
    return z;
}

int sbw_lstm_ref_forward(const sbw_lstm_shape *s, const double *wx, const double *wh,
                         const double *b, const double *x, const double *h0, const double *c0,
                         double *hs, double *cs, double *gates)
{
    int st = ref_check(s);
    if (st)
        return st;
    if (!wx || !wh || !b || !x || !h0 || !c0 || !hs || !cs || !gates)
        return SBW_ERROR(SBW_EINVAL, "LSTM twin: an array argument is NULL");
    size_t H = s->hid, B = s->batch;
    for (size_t t = 0; t < s->steps; t++)
        for (size_t j = 0; j < B; j++) {
            size_t r = t * B + j;
            const double *hp = t ? hs + (r - B) * H : h0 + j * H;
            const double *cp = t ? cs + (r - B) * H : c0 + j * H;
            double *g = gates + r * 4 * H;
            for (size_t k = 0; k < 4 * H; k++) {
                double z = preact(s, k, wx, wh, b, x + r * s->in, hp);
                g[k] = k >= 2 * H && k < 3 * H ? tanh(z) : sigmoid(z);
            }
            for (size_t m = 0; m < H; m++) {
                cs[r * H + m] = g[H + m] * cp[m] + g[m] * g[2 * H + m];
                hs[r * H + m] = g[3 * H + m] * tanh(cs[r * H + m]);
            }
        }
    return SBW_OK;
}

/* The pre-activation gradients dz = [di df dg do] (4H) of one sequence at
 * one step, from its gates g (4H), c_t, c_{t-1} and dh = dL/dh_t (H each);
 * dc (H) goes from dL/dc_t through c_{t+1} to dL/dc_{t-1}. */
static void ref_dz(size_t H, const double *g, const double *c, const double *cprev,
                   const double *dh, double *dc, double *dz)
{
    for (size_t m = 0; m < H; m++) {
        double i = g[m], f = g[H + m], gg = g[2 * H + m], o = g[3 * H + m];
        double tc = tanh(c[m]);
        double dct = dc[m] + dh[m] * o * (1.0 - tc * tc); /* dL/dc_t */
        dz[m] = dct * gg * i * (1.0 - i);
        dz[H + m] = dct * cprev[m] * f * (1.0 - f);
        dz[2 * H + m] = dct * i * (1.0 - gg * gg);
        dz[3 * H + m] = dh[m] * tc * o * (1.0 - o);
        dc[m] = dct * f;
    }
}

/* What dz of row r (sequence j at step t) gives: db += dz, dWx += dz x^T,
 * dWh += dz h_{t-1}^T, dx = Wx^T dz, and dh_{t-1} += Wh^T dz into dhs's
 * row r - B when t > 0. */
static void ref_accumulate(const sbw_lstm_shape *s, size_t r, const double *dz, const double *wx,
                           const double *wh, const double *xrow, const double *hprev, double *dhs,
                           double *dx, double *dwx, double *dwh, double *db)
{
    size_t I = s->in, H = s->hid;
    for (size_t k = 0; k < 4 * H; k++) {
        db[k] += dz[k];
        for (size_t i = 0; i < I; i++)
            dwx[k * I + i] += dz[k] * xrow[i];
        for (size_t m = 0; m < H; m++)
            dwh[k * H + m] += dz[k] * hprev[m];
    }
    for (size_t i = 0; dx && i < I; i++) {
        double v = 0.0;
        for (size_t k = 0; k < 4 * H; k++)
            v += wx[k * I + i] * dz[k];
        dx[r * I + i] = v;
    }
    for (size_t m = 0; r >= s->batch && m < H; m++) {
        double v = 0.0;
        for (size_t k = 0; k < 4 * H; k++)
            v += wh[k * H + m] * dz[k];
        dhs[(r - s->batch) * H + m] += v;
    }
}

int sbw_lstm_ref_backward(const sbw_lstm_shape *s, const double *wx, const double *wh,
                          const double *x, const double *h0, const double *c0, const double *hs,
                          const double *cs, const double *gates, double *dhs, double *dx,
                          double *dwx, double *dwh, double *db, double *work)
{
    int st = ref_check(s);
    if (st)
        return st;
    if (!wx || !wh || !x || !h0 || !c0 || !hs || !cs || !gates || !dhs || !dwx || !dwh || !db ||
        !work)
        return SBW_ERROR(SBW_EINVAL, "LSTM twin: an array argument other than dx is NULL");
    size_t H = s->hid, B = s->batch;
    double *dc = work, *dz = work + B * H; /* dc: B x H, dz: 4H */
    for (size_t q = 0; q < B * H; q++)
        dc[q] = 0.0;
    for (size_t t = s->steps; t-- > 0;)
        for (size_t j = 0; j < B; j++) {
            size_t r = t * B + j;
            const double *hp = t ? hs + (r - B) * H : h0 + j * H;
            const double *cp = t ? cs + (r - B) * H : c0 + j * H;
            ref_dz(H, gates + r * 4 * H, cs + r * H, cp, dhs + r * H, dc + j * H, dz);
            ref_accumulate(s, r, dz, wx, wh, x + r * s->in, hp, dhs, dx, dwx, dwh, db);
        }
    return SBW_OK;
}
