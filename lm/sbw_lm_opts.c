/* sbw_lm_opts.c -- the table of an sbw-lm run's settings (see sbw_lm_opts.h). */
#include "sbw_lm_opts.h"

#include "sbw_fit_opts.h"

#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_rng.h"

#include <stdio.h>
#include <stdlib.h>

#include <string.h>

_Static_assert(sizeof(sbw_head_model) == sizeof(int), "sbw_head_model is int-sized");
_Static_assert(sizeof(sbw_lm_opts_optimizer) == sizeof(int), "the optimizer enum is int-sized");

const char *sbw_lm_opts_optimizer_name(int v)
{
    static const char *const names[] = {"sgd", "adam"};
    return v >= 0 && v < 2 ? names[v] : NULL;
}

const char *sbw_lm_opts_precision(const sbw_lm_opts *o)
{
    return !o->single ? "double" : o->bf16 ? "bf16" : "single";
}

#define AT(member) offsetof(sbw_lm_opts, member)
#define SHAPES     SBW_CKPT_SHAPES
#define FREE       SBW_CKPT_FREE

/* key, offset, type, min, max, default, enum names, role, option. */
const sbw_ckpt_field sbw_lm_opts_table[] = {
    {"model", AT(arch.model), SBW_CKPT_ENUM, 0, SBW_NMODEL - 1, SBW_MODEL_SOFTMAX,
     sbw_fit_opts_model_name, SHAPES, "--head"},
    {"k", AT(arch.k), SBW_CKPT_SIZE, 1, 1e6, 15, NULL, SHAPES, "--k"},
    {"knots", AT(arch.knots), SBW_CKPT_SIZE, 1, 1e6, 100, NULL, SHAPES, "--knots"},
    {"plif_t", AT(arch.plif_t), SBW_CKPT_DOUBLE, 1e-9, 1e9, 10, NULL, SHAPES, "--plif-t"},
    {"bias", AT(arch.bias), SBW_CKPT_BOOL, 0, 1, 1, NULL, SHAPES, "--no-bias"},
    {"d", AT(arch.d), SBW_CKPT_SIZE, 1, 1e6, 400, NULL, SHAPES, "--d"},
    {"emb", AT(arch.emb), SBW_CKPT_SIZE, 0, 1e6, 0, NULL, SHAPES, "--emb"},
    {"layers", AT(arch.nlayers), SBW_CKPT_SIZE, 1, SBW_LM_MAX_LAYERS, 3, NULL, SHAPES, "--hidden"},
    {"hidden1", AT(arch.hidden[0]), SBW_CKPT_SIZE, 0, 1e6, 1150, NULL, SHAPES, "--hidden"},
    {"hidden2", AT(arch.hidden[1]), SBW_CKPT_SIZE, 0, 1e6, 1150, NULL, SHAPES, "--hidden"},
    {"hidden3", AT(arch.hidden[2]), SBW_CKPT_SIZE, 0, 1e6, 400, NULL, SHAPES, "--hidden"},
    {"tied", AT(arch.tied), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--tied"},
    {"batch", AT(batch), SBW_CKPT_SIZE, 1, 1e6, 20, NULL, SHAPES, "--batch"},
    {"bptt", AT(bptt), SBW_CKPT_SIZE, 1, 1e6, 70, NULL, SHAPES, "--bptt"},
    {"eval_batch", AT(eval_batch), SBW_CKPT_SIZE, 1, 1e6, 10, NULL, SHAPES, "--eval-batch"},
    {"train_tokens", AT(train_tokens), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SHAPES, "--train-tokens"},
    {"valid_tokens", AT(valid_tokens), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SHAPES, "--valid-tokens"},
    {"seed", AT(seed), SBW_CKPT_U64, 0, 2e19, (double)SBW_RNG_DEFAULT_SEED, NULL, SHAPES, "--seed"},
    {"optimizer", AT(optimizer), SBW_CKPT_ENUM, 0, 1, SBW_LM_SGD, sbw_lm_opts_optimizer_name,
     SHAPES, "--optim"},
    {"lr", AT(lr), SBW_CKPT_DOUBLE, 1e-12, 1e6, 20, NULL, SHAPES, "--lr"},
    {"clip", AT(clip), SBW_CKPT_DOUBLE, 0, 1e12, 0.25, NULL, SHAPES, "--clip"},
    {"wdecay", AT(wdecay), SBW_CKPT_DOUBLE, 0, 1e3, 1.2e-6, NULL, SHAPES, "--wdecay"},
    {"beta1", AT(beta1), SBW_CKPT_DOUBLE, 0, 0.999999999, 0.9, NULL, SHAPES, NULL},
    {"beta2", AT(beta2), SBW_CKPT_DOUBLE, 0, 0.999999999, 0.999, NULL, SHAPES, NULL},
    {"eps", AT(eps), SBW_CKPT_DOUBLE, 0, 1, 1e-8, NULL, SHAPES, NULL},
    {"asgd", AT(asgd), SBW_CKPT_BOOL, 0, 1, 1, NULL, SHAPES, "--no-asgd"},
    {"nonmono", AT(nonmono), SBW_CKPT_SIZE, 1, 1e6, 5, NULL, SHAPES, "--nonmono"},
    {"dropout_emb", AT(drop.emb), SBW_CKPT_DOUBLE, 0, 0.99, 0.1, NULL, SHAPES, "--dropout-emb"},
    {"dropout_in", AT(drop.in), SBW_CKPT_DOUBLE, 0, 0.99, 0.4, NULL, SHAPES, "--dropout-in"},
    {"dropout_layer", AT(drop.layer), SBW_CKPT_DOUBLE, 0, 0.99, 0.25, NULL, SHAPES,
     "--dropout-layer"},
    {"dropout_latent", AT(drop.latent), SBW_CKPT_DOUBLE, 0, 0.99, 0.4, NULL, SHAPES,
     "--dropout-latent"},
    {"precision", AT(single), SBW_CKPT_BOOL, 0, 1, 1, sbw_fit_opts_precision_name, SHAPES,
     "--double"},
    {"epochs", AT(epochs), SBW_CKPT_SIZE, 1, 1e6, 1, NULL, FREE, "--epochs"},
    {"max_steps", AT(max_steps), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, FREE, "--max-steps"},
    {"log_every", AT(log_every), SBW_CKPT_SIZE, 1, 1e15, 10, NULL, FREE, "--log-every"},
    {"eval_every", AT(eval_every), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, FREE, "--eval-every"},
    {"ckpt_every", AT(ckpt_every), SBW_CKPT_DOUBLE, 0, 1e9, 600, NULL, FREE, "--ckpt-every"},
    {"threads", AT(threads), SBW_CKPT_INT, 0, 4096, 0, NULL, FREE, "--threads"},
    /* issue 28's rows, last: a checkpoint written before them has none and
     * reads as these defaults, which are the behaviour it was trained with */
    {"dropout_last", AT(drop.last), SBW_CKPT_DOUBLE, -1, 0.99, -1, NULL, SHAPES, "--dropout-last"},
    {"wdrop", AT(drop.wdrop), SBW_CKPT_DOUBLE, 0, 0.99, 0, NULL, SHAPES, "--wdrop"},
    {"alpha", AT(drop.alpha), SBW_CKPT_DOUBLE, 0, 1e6, 0, NULL, SHAPES, "--alpha"},
    {"beta", AT(drop.beta), SBW_CKPT_DOUBLE, 0, 1e6, 0, NULL, SHAPES, "--beta"},
    {"var_bptt", AT(var_bptt), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--var-bptt"},
    /* the architecture's latent (issue 28, later): absent from older
     * checkpoints, which were all trained with tanh */
    {"latent", AT(arch.latent), SBW_CKPT_ENUM, 0, 1, SBW_LM_LATENT_TANH, sbw_lm_latent_name, SHAPES,
     "--latent"},
    /* when a run keeps snapshots and stops (issue 28's long runs) */
    {"snap_epochs", AT(snap_epochs), SBW_CKPT_BOOL, 0, 1, 0, NULL, FREE, "--snap-epochs"},
    {"stop_ppl", AT(stop_ppl), SBW_CKPT_DOUBLE, 0, 1e15, 0, NULL, FREE, "--stop-ppl"},
    /* issue 27: bfloat16 GEMM inputs; older checkpoints trained without */
    {"bf16", AT(bf16), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--precision"},
};

const size_t sbw_lm_opts_nrows = sizeof sbw_lm_opts_table / sizeof *sbw_lm_opts_table;

void sbw_lm_opts_init(sbw_lm_opts *o)
{
    memset(o, 0, sizeof *o);
    sbw_ckpt_defaults(sbw_lm_opts_table, sbw_lm_opts_nrows, o);
}

int sbw_lm_opts_get(const sbw_ckpt *c, sbw_lm_opts *o)
{
    static const size_t gen[] = {SBW_LM_OPTS_NEW, SBW_LM_OPTS_LATENT, SBW_LM_OPTS_STOP,
                                 SBW_LM_OPTS_BF16};
    return sbw_ckpt_get_generations(c, sbw_lm_opts_table, sbw_lm_opts_nrows, gen,
                                    sizeof gen / sizeof *gen, o);
}

int sbw_lm_opts_hidden(const char *s, sbw_lm_arch *a)
{
    size_t *v = NULL, n = 0;
    int st = sbw_cli_parse_size_list(s, "--hidden", &v, &n);
    if (!st && (n < 1 || n > SBW_LM_MAX_LAYERS))
        st = SBW_ERROR(SBW_EINVAL, "--hidden %s: %zu layers; sbw-lm takes 1 to %d", s, n,
                       SBW_LM_MAX_LAYERS);
    for (size_t i = 0; !st && i < n; i++)
        if (v[i] < 1 || v[i] > 1000000)
            st = SBW_ERROR(SBW_EINVAL, "--hidden %s: sizes must be in [1, 1e6]", s);
    if (!st) {
        a->nlayers = n;
        for (size_t i = 0; i < SBW_LM_MAX_LAYERS; i++)
            a->hidden[i] = i < n ? v[i] : 0;
    }
    free(v);
    return st;
}

const char *sbw_lm_opts_note(const sbw_lm_opts *o, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = o->quick ? strstr(o->quick, opt) : NULL; p; p = strstr(p + 1, opt))
        if ((p == o->quick || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return " (set by --quick)";
    return "";
}

void sbw_lm_opts_quick(sbw_lm_opts *o, sbw_lm_opts_given given, void *ctx, char *note, size_t cap)
{
    struct {
        const char *opt;
        size_t *dst, v;
    } q[] = {{"--d", &o->arch.d, 16},
             {"--batch", &o->batch, 8},
             {"--bptt", &o->bptt, 20},
             {"--train-tokens", &o->train_tokens, 20000},
             {"--valid-tokens", &o->valid_tokens, 4000},
             {"--k", &o->arch.k, 3},
             {"--knots", &o->arch.knots, 20},
             {"--log-every", &o->log_every, 5},
             {"--eval-batch", &o->eval_batch, 4}};
    size_t at = 0;
    note[0] = '\0';
    for (size_t i = 0; i <= sizeof q / sizeof *q; i++) {
        const char *opt = i < sizeof q / sizeof *q ? q[i].opt : "--hidden";
        if (given(ctx, opt))
            continue;
        if (i < sizeof q / sizeof *q)
            *q[i].dst = q[i].v;
        else /* --latent none with a softmax-like head: its one layer D wide */
            o->arch.nlayers = 1, o->arch.hidden[0] = sbw_lm_latent_drops(&o->arch) ? 32 : o->arch.d;
        int k = snprintf(note + at, cap - at, "%s%s", at ? " " : "", opt);
        at += k > 0 && (size_t)k < cap - at ? (size_t)k : 0;
    }
    o->quick = note;
    struct {
        const char *opt;
        double *dst;
    } p[] = {{"--dropout-emb", &o->drop.emb},
             {"--dropout-in", &o->drop.in},
             {"--dropout-layer", &o->drop.layer},
             {"--dropout-latent", &o->drop.latent}};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) /* a tiny model underfits already */
        if (!given(ctx, p[i].opt))
            *p[i].dst = 0;
    if (!given(ctx, "--dropout-last"))
        o->drop.last = -1; /* as --dropout-layer (a preset's 0.4 too) */
}

/* The papers' recipes (sbw_lm_opts.h: sbw_lm_opts_preset). */
typedef struct lm_preset {
    const char *name, *what;
    sbw_head_model model;
    sbw_lm_latent_kind latent;
    size_t k, d, nlayers, hidden[SBW_LM_MAX_LAYERS], batch;
    double lr;
    sbw_lm_dropout drop;
} lm_preset;

static const lm_preset presets[] = {
    {"mos",
     "MoS (Yang et al. 2018; zihangdai/mos, PTB)",
     SBW_MODEL_MOS,
     SBW_LM_LATENT_NONE,
     15,
     280,
     3,
     {960, 960, 620},
     12,
     20,
     {.emb = 0.1,
      .in = 0.4,
      .layer = 0.225,
      .last = 0.4,
      .latent = 0.29,
      .wdrop = 0.5,
      .alpha = 2,
      .beta = 1}},
    {"awd",
     "AWD-LSTM (Merity et al. 2018; salesforce/awd-lstm-lm, PTB)",
     SBW_MODEL_SOFTMAX,
     SBW_LM_LATENT_NONE,
     15,
     400,
     3,
     {1150, 1150, 400},
     20,
     30,
     {.emb = 0.1,
      .in = 0.4,
      .layer = 0.25,
      .last = 0.4,
      .latent = 0,
      .wdrop = 0.5,
      .alpha = 2,
      .beta = 1}},
};
#define NPRESETS (sizeof presets / sizeof *presets)

int sbw_lm_opts_preset(sbw_lm_opts *o, const char *name, sbw_lm_opts_given given, void *ctx)
{
    const lm_preset *p = NULL;
    for (size_t i = 0; i < NPRESETS; i++)
        p = strcmp(presets[i].name, name) == 0 ? &presets[i] : p;
    if (!p)
        return SBW_ERROR(SBW_EINVAL, "--preset '%s': mos or awd", name);
#define SET(opt, lhs, v)                                                                           \
    do {                                                                                           \
        if (!given(ctx, opt))                                                                      \
            (lhs) = (v);                                                                           \
    } while (0)
    SET("--head", o->arch.model, p->model);
    SET("--k", o->arch.k, p->k);
    SET("--latent", o->arch.latent, p->latent);
    SET("--d", o->arch.d, p->d);
    if (!given(ctx, "--hidden")) {
        o->arch.nlayers = p->nlayers;
        memcpy(o->arch.hidden, p->hidden, sizeof o->arch.hidden);
    }
    o->arch.tied = true; /* --tied is a flag: the papers' models are all tied */
    SET("--batch", o->batch, p->batch);
    SET("--bptt", o->bptt, 70);
    SET("--lr", o->lr, p->lr);
    SET("--clip", o->clip, 0.25);
    SET("--wdecay", o->wdecay, 1.2e-6);
    SET("--nonmono", o->nonmono, 5);
    SET("--dropout-emb", o->drop.emb, p->drop.emb);
    SET("--dropout-in", o->drop.in, p->drop.in);
    SET("--dropout-layer", o->drop.layer, p->drop.layer);
    SET("--dropout-last", o->drop.last, p->drop.last);
    SET("--dropout-latent", o->drop.latent, p->drop.latent);
    SET("--wdrop", o->drop.wdrop, p->drop.wdrop);
    SET("--alpha", o->drop.alpha, p->drop.alpha);
    SET("--beta", o->drop.beta, p->drop.beta);
    o->var_bptt = true; /* a flag too */
#undef SET
    return SBW_OK;
}

void sbw_lm_opts_preset_help(char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NPRESETS && at < cap; i++) {
        const lm_preset *p = &presets[i];
        int k =
            snprintf(buf + at, cap - at,
                     "--preset %s: %s:\n  --head %s%s%.0zu --latent %s --d %zu\n  --hidden "
                     "%zu,%zu,%zu --tied --batch %zu --bptt 70 --var-bptt\n  --lr %g --clip "
                     "0.25 --wdecay 1.2e-6 --nonmono 5 --dropout-emb %g --dropout-in %g\n  "
                     "--dropout-layer %g --dropout-last %g --dropout-latent %g --wdrop %g "
                     "--alpha %g --beta %g\n",
                     p->name, p->what, sbw_head_model_name(p->model),
                     p->model == SBW_MODEL_MOS ? " --k " : "", p->model == SBW_MODEL_MOS ? p->k : 0,
                     sbw_lm_latent_name(p->latent), p->d, p->hidden[0], p->hidden[1], p->hidden[2],
                     p->batch, p->lr, p->drop.emb, p->drop.in, p->drop.layer, p->drop.last,
                     p->drop.latent, p->drop.wdrop, p->drop.alpha, p->drop.beta);
        at += k > 0 ? (size_t)k : 0;
    }
}
