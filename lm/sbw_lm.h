/* sbw_lm.h -- a word-level LSTM language model with any head of models/:
 * its architecture, where each parameter lives in one flat vector theta,
 * initialisation, and the forward/backward pass over one minibatch chunk.
 * Training (sbw_lm_train.h) and evaluation (sbw_lm_eval.h) drive it.
 *
 * The network (MoS paper section 3 and its code; AWD-LSTM, Merity et al.
 * 2018, for the regularisers):
 *   x_t = E[w_t]                    word embedding (M x E), or the head's
 *                                   W when tied (E = D)
 *   h^1..h^L = LSTM layers          sbw_lstm.h, sizes hidden[0..L-1]
 *   l_t = tanh(P h^L_t + p0)        the latent (D), P (D x H_L), p0 (D)
 *   Q_t = head(l_t)                 sbw_head.h / sbw_pass.h, N = 0
 * That is --latent tanh (the default).  --latent none (the MoS code's and
 * AWD-LSTM's own networks) has no P, p0: the head's context is h^L_t
 * after its dropout, of width C = H_L (sbw_head_set_context), a
 * context-mixing head with the component bias (MoS code: latent =
 * tanh(Linear(H_L, K D, bias)(h)), prior = Linear(H_L, K, no bias)(h)),
 * a head that takes logits from h itself (softmax, sigsoftmax, lms, plif)
 * with H_L = D (AWD-LSTM: logits = W h + b).
 * Dropout (training only, scaled by 1/(1-p) so evaluation needs none):
 * emb drops whole words of E for a chunk (Gal & Ghahramani 2016);
 * in, layer, latent are "locked" masks, one per sequence and feature for
 * the whole chunk, on the first layer's input, on each LSTM layer's
 * output (the last one's with its own probability when last >= 0), and on
 * the latent -- with --latent none on the head's component vectors g_k
 * instead (K D features per sequence, the MoS code's dropoutl; a head
 * without them takes no latent dropout); weight drop, AR and TAR:
 * sbw_lm_dropout below.
 *
 * theta layout (doubles): [ E (M*E; absent when tied) | per layer l:
 * Wx_l (4H_l x I_l), Wh_l (4H_l x H_l), b_l (4H_l) | P (D x H_L) | p0 (D)
 * | the head's nshared block (W, b, U, V, U_bias, map) ]; P and p0 have
 * length 0 with --latent none.
 *
 * Precision: single runs the LSTM, the latent and the head's GEMMs in
 * float (parameters converted per chunk from the double theta), double runs
 * everything in double (gradient checks, exported log-probabilities).
 * bf16 is single with those GEMMs' inputs rounded to bfloat16 and their
 * products accumulated in float (core/sbw_gemm.h); the pointwise work,
 * the loss and every reduction are single's.  Gradients are always
 * returned in double.
 */
#ifndef SBW_LM_H
#define SBW_LM_H

#include "sbw_head.h"
#include "sbw_pass.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBW_LM_MAX_LAYERS 3

/* The random part of a mixture head's starting component maps (sbw_lm_init). */
#define SBW_LM_MIX_NOISE 0.5

/* Between the last LSTM layer and the head (see above). */
typedef enum sbw_lm_latent_kind { SBW_LM_LATENT_TANH = 0, SBW_LM_LATENT_NONE } sbw_lm_latent_kind;

/* "tanh", "none"; NULL past the last. */
const char *sbw_lm_latent_name(int v);

/* --latent's name into *kind.  Errors: SBW_EINVAL naming the value and
 * the choices; *kind untouched on failure. */
int sbw_lm_latent_parse(const char *name, sbw_lm_latent_kind *kind);

/* What a model is: every member shapes theta. */
typedef struct sbw_lm_arch sbw_lm_arch;
struct sbw_lm_arch {
    sbw_head_model model; /* the head */
    size_t k, knots;      /* components (moc, mos, mos+plif); PLIF intervals */
    double plif_t;        /* PLIF knots span [-T, T] */
    bool bias;            /* word bias */
    size_t d;             /* the head's dimension (latent size) */
    size_t emb;           /* embedding size E (= d when tied) */
    size_t nlayers;       /* 1..SBW_LM_MAX_LAYERS */
    size_t hidden[SBW_LM_MAX_LAYERS];
    bool tied;                 /* the embedding is the head's W */
    sbw_lm_latent_kind latent; /* tanh(P h + p0) of size D, or none (h^L itself) */
};

/* Whether a's --dropout-latent has something to drop: the tanh latent, or
 * with --latent none a context-mixing head's g_k (moc, mos, mos+plif). */
bool sbw_lm_latent_drops(const sbw_lm_arch *a);

typedef struct sbw_lm {
    sbw_lm_arch a;
    size_t m;                         /* vocabulary */
    sbw_head head;                    /* N = 0; context width head.c: D, or H_L (--latent none) */
    size_t in[SBW_LM_MAX_LAYERS];     /* input size of each layer */
    size_t off_emb;                   /* E, or the head's W when tied */
    size_t off_wx[SBW_LM_MAX_LAYERS]; /* Wx_l */
    size_t off_wh[SBW_LM_MAX_LAYERS]; /* Wh_l */
    size_t off_b[SBW_LM_MAX_LAYERS];  /* b_l */
    size_t off_p, off_p0, off_head;   /* latent P, p0; the head's block */
    size_t nparam;                    /* doubles in theta */
} sbw_lm;

/* The training-only regularisation of a step (AWD-LSTM, Merity et al.
 * 2018; MoS's code): dropout probabilities, each in [0, 1), and the
 * activation regularisers' weights.
 *   emb, in, layer, latent  as above; last < 0: the last LSTM layer's
 *           output takes layer's probability, else last (MoS's and
 *           AWD-LSTM's "dropout", 0.4, beside "dropouth" between layers).
 *   wdrop   weight drop (DropConnect) on each layer's Wh: one mask of
 *           4H_l x H_l entries per chunk, kept entries scaled by
 *           1/(1-wdrop) (AWD-LSTM's WeightDrop: F.dropout on the raw
 *           weight); the gradient reaches the raw Wh through the mask.
 *   alpha   AR: alpha * mean over the chunk's N x H_L entries of xl^2,
 *           xl = the last LSTM layer's output after its dropout (the
 *           latent's input; AWD: dropped_rnn_hs[-1]).
 *   beta    TAR: beta * mean over (T-1) x B x H_L entries of
 *           (h^L_t - h^L_{t-1})^2, the last LSTM layer's output before
 *           dropout, within the chunk (0 when T = 1; AWD: rnn_hs[-1]).
 * AR and TAR enter the gradient only: the loss sbw_lm_loss reports is the
 * cross-entropy (AWD logs raw_loss); sbw_lm_ws_reg gives their values. */
typedef struct sbw_lm_dropout {
    double emb, in, layer, latent;
    double last; /* < 0: as layer */
    double wdrop, alpha, beta;
} sbw_lm_dropout;

/* Checks the architecture and lays out theta for a vocabulary of m words.
 * Errors (SBW_EINVAL, naming the option): m < 2, nlayers outside 1..3, a
 * size 0, tied with emb != d, d > m, the head's own checks
 * (sbw_head_setup), --latent none with a head that takes its logits from
 * h itself and H_L != D, a parameter count that overflows.  On failure *lm is
 * zeroed or holds part of the layout: set it up again before use. */
int sbw_lm_setup(sbw_lm *lm, const sbw_lm_arch *a, size_t m);

/* Documented initialisation of theta (lm->nparam), deterministic in seed:
 * E ~ U(-0.1, 0.1) (AWD-LSTM); Wx_l, Wh_l, b_l ~ U(-1/sqrt(H_l),
 * 1/sqrt(H_l)) (PyTorch's LSTM); P ~ U(-1/sqrt(H_L), 1/sqrt(H_L)), p0 = 0;
 * the head by sbw_head_init with scale 0.1 (W, V ~ N(0, 0.01), U ~ N(0,
 * 1/D), b = 0, maps at the identity-like start), then for MoC and MoS each
 * component map U_k = I + SBW_LM_MIX_NOISE G_k, G_k ~ N(0, 1/D): a mixture
 * starts near a Softmax head and leaves the unigram plateau as fast.
 * --latent none initialises the head as the MoS code does (its
 * init_weights and PyTorch's Linear default): W (the tied embedding) ~
 * U(-0.1, 0.1), U_k and V ~ U(-1/sqrt(C), 1/sqrt(C)) with C = H_L, the
 * component bias and b 0; the LSTM as above.
 * Errors: SBW_ENOMEM (a generator); on failure theta holds part of the
 * initialisation: discard it. */
int sbw_lm_init(const sbw_lm *lm, double *theta, uint64_t seed);

/* Parameters that are weights (decayed) rather than biases: every block
 * but the biases b_l, p0, the head's b and its component bias.  mask[i] =
 * 1 for a weight. */
void sbw_lm_decay_mask(const sbw_lm *lm, unsigned char *mask);

/* One chunk of T steps of B sequences: workspace, carried state, masks. */
typedef struct sbw_lm_ws sbw_lm_ws;

typedef struct sbw_lm_ws_opts {
    size_t batch, steps; /* B, T: the largest chunk the workspace takes */
    bool single;         /* float LSTM, latent and head GEMMs */
    int threads;         /* 0: omp_get_max_threads() */
    size_t block;        /* head block (0: automatic) */
    /* for messages: the option that gave B ("--eval-batch"; NULL: "--batch"),
     * and what follows each value in a message (" (set by --quick)"; NULL:
     * nothing) */
    const char *batch_opt, *batch_note, *steps_note;
    bool wdrop; /* the workspace holds weight-drop masks (sbw_lm_dropout.wdrop > 0) */
    bool bf16;  /* with single: the GEMMs take bfloat16 inputs (core/sbw_gemm.h;
                 * refused without AVX-512 BF16) */
} sbw_lm_ws_opts;

/* Allocates a workspace for lm and opts (the head pass's too).  The
 * carried state starts at zero.  Errors: SBW_EINVAL (naming
 * opts->batch_opt and --bptt; bf16 on a CPU without AVX-512 BF16),
 * SBW_ENOMEM.  *ws is NULL on failure
 * (nothing allocated). */
int sbw_lm_ws_alloc(sbw_lm_ws **ws, const sbw_lm *lm, const sbw_lm_ws_opts *opts);

/* The checks of sbw_lm_ws_alloc on opts alone (B, T >= 1; a chunk's gate
 * rows below 2^31 entries), for a caller that asks the memory preflight
 * before allocating: a usage error comes first.  Errors: SBW_EINVAL. */
int sbw_lm_ws_check(const sbw_lm *lm, const sbw_lm_ws_opts *opts);

/* Bytes sbw_lm_ws_alloc takes for lm and opts (the chunk's buffers in
 * the chosen precision, H and dH, the head pass's workspace), for the
 * memory preflight; +inf when the count overflows. */
double sbw_lm_ws_bytes(const sbw_lm *lm, const sbw_lm_ws_opts *opts);

/* Bytes the workspace allocated itself, the head pass's workspace
 * (sbw_pass_ws_bytes) added: what sbw_lm_ws_bytes predicts. */
double sbw_lm_ws_allocated(const sbw_lm_ws *ws);
void sbw_lm_ws_free(sbw_lm_ws *ws);

/* The options and the model the workspace was made for. */
sbw_lm_ws_opts sbw_lm_ws_options(const sbw_lm_ws *ws);
const sbw_lm *sbw_lm_ws_model(const sbw_lm_ws *ws);

/* Zeroes the carried state of every sequence. */
void sbw_lm_ws_reset(sbw_lm_ws *ws);

/* The carried state as doubles (for checkpoints): layer l's h then c,
 * B x H_l each, concatenated over layers; sbw_lm_state_len doubles. */
size_t sbw_lm_state_len(const sbw_lm_ws *ws);
void sbw_lm_state_get(const sbw_lm_ws *ws, double *state);
void sbw_lm_state_set(sbw_lm_ws *ws, const double *state);

/* Cumulative wall seconds spent inside the head pass. */
double sbw_lm_ws_head_seconds(const sbw_lm_ws *ws);

/* A chunk: inputs x and targets y (steps x batch word ids, time-major:
 * entry t*B + j is sequence j at step t), with steps <= the workspace's T
 * and batch == its B. */
typedef struct sbw_lm_chunk {
    const size_t *x, *y;
    size_t steps;
} sbw_lm_chunk;

/* Training step's loss and gradient: the mean cross-entropy over the
 * chunk's steps*B targets into res; grad (nparam) overwritten with its
 * gradient.  Dropout masks come from (seed, stream) through sbw_rng, so a
 * step is a pure function of its arguments and the carried state, which
 * is advanced to the chunk's last step.  drop NULL: no dropout, no AR or
 * TAR.  The gradient is that of the loss plus AR and TAR; with drop->wdrop
 * > 0 the workspace must have been made with opts.wdrop.
 * Errors: SBW_EINVAL (ids >= M, steps 0 or > T, weight drop without the
 * workspace's masks), the pass's.  On failure: after the chunk's checks
 * nothing has changed; a later error (the layers' or the pass's) leaves
 * res and grad unspecified and the carried state not advanced. */
int sbw_lm_loss(sbw_lm_ws *ws, const double *theta, const sbw_lm_chunk *ch,
                const sbw_lm_dropout *drop, uint64_t seed, uint64_t stream, sbw_pass_result *res,
                double *grad);

/* The AR and TAR terms (sbw_lm_dropout.alpha, .beta) of the last
 * sbw_lm_loss, each 0 when its weight is 0 or drop was NULL. */
void sbw_lm_ws_reg(const sbw_lm_ws *ws, double *ar, double *tar);

/* Evaluation forward (no dropout): the head's context (the latent l_t, or
 * h^L_t with --latent none) of every step of the chunk into lat (steps*B
 * x C, leading dim C = lm->head.c, time-major), advancing the
 * carried state.  Only ch->x is read.  Errors: as sbw_lm_loss; on failure
 * lat is untouched or unspecified and the carried state not advanced. */
int sbw_lm_latent(sbw_lm_ws *ws, const double *theta, const sbw_lm_chunk *ch, double *lat);

/* The head pass of the workspace (for log Q of latent rows). */
sbw_pass_ws *sbw_lm_ws_pass(sbw_lm_ws *ws);

#endif
