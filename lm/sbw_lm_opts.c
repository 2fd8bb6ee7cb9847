/* sbw_lm_opts.c -- the table of an sbw-lm run's settings (see sbw_lm_opts.h). */
#include "sbw_lm_opts.h"

#include "sbw_fit_opts.h"

#include "sbw_rng.h"

#include <string.h>

_Static_assert(sizeof(sbw_head_model) == sizeof(int), "sbw_head_model is int-sized");
_Static_assert(sizeof(sbw_lm_opts_optimizer) == sizeof(int), "the optimizer enum is int-sized");

const char *sbw_lm_opts_optimizer_name(int v)
{
    static const char *const names[] = {"sgd", "adam"};
    return v >= 0 && v < 2 ? names[v] : NULL;
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
};

const size_t sbw_lm_opts_nrows = sizeof sbw_lm_opts_table / sizeof *sbw_lm_opts_table;

void sbw_lm_opts_init(sbw_lm_opts *o)
{
    memset(o, 0, sizeof *o);
    sbw_ckpt_defaults(sbw_lm_opts_table, sbw_lm_opts_nrows, o);
}

const char *sbw_lm_opts_note(const sbw_lm_opts *o, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *p = o->quick ? strstr(o->quick, opt) : NULL; p; p = strstr(p + 1, opt))
        if ((p == o->quick || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return " (set by --quick)";
    return "";
}
