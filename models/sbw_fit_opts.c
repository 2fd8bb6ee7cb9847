/* sbw_fit_opts.c -- the table of a fit's settings (see sbw_fit_opts.h). */
#include "sbw_fit_opts.h"

#include "sbw_rng.h"

#include <stdio.h>
#include <string.h>

/* Enums are stored and read through int. */
_Static_assert(sizeof(sbw_head_model) == sizeof(int), "sbw_head_model is int-sized");
_Static_assert(sizeof(sbw_fit_opts_optimizer) == sizeof(int),
               "sbw_fit_opts_optimizer is int-sized");
_Static_assert(sizeof(sbw_pass_par) == sizeof(int), "sbw_pass_par is int-sized");

const char *sbw_fit_opts_model_name(int v)
{
    return v >= 0 && v < SBW_NMODEL ? sbw_head_model_name((sbw_head_model)v) : NULL;
}

static const char *optimizer_name(int v)
{
    static const char *const names[] = {"adam", "lbfgs"};
    return v >= 0 && v < 2 ? names[v] : NULL;
}

static const char *par_name(int v)
{
    static const char *const names[] = {"blocks", "blas"};
    return v >= 0 && v < 2 ? names[v] : NULL;
}

const char *sbw_fit_opts_precision_name(int v)
{
    static const char *const names[] = {"double", "single"};
    return v >= 0 && v < 2 ? names[v] : NULL;
}

const char *sbw_fit_opts_precision(const sbw_fit_opts *o)
{
    return !o->obj.single ? "double" : o->obj.bf16 ? "bf16" : "single";
}

#define AT(member) offsetof(sbw_fit_opts, member)
#define SHAPES     SBW_CKPT_SHAPES
#define FREE       SBW_CKPT_FREE

/* key, offset, type, min, max, default, enum names, role, option.  The
 * ranges are the command line's; a checkpoint outside them is refused. */
const sbw_ckpt_field sbw_fit_opts_table[] = {
    {"model", AT(model), SBW_CKPT_ENUM, 0, SBW_NMODEL - 1, SBW_MODEL_SOFTMAX,
     sbw_fit_opts_model_name, SHAPES, "--model"},
    {"d", AT(d), SBW_CKPT_SIZE, 1, 1e9, 10, NULL, SHAPES, "--d"},
    {"k", AT(k), SBW_CKPT_SIZE, 1, 1e7, 10, NULL, SHAPES, "--k"},
    {"knots", AT(knots), SBW_CKPT_SIZE, 1, 1e8, 1000, NULL, SHAPES, "--knots"},
    {"plif_t", AT(plif_t), SBW_CKPT_DOUBLE, 1e-9, 1e9, 10, NULL, SHAPES, "--plif-t"},
    {"bias", AT(bias), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--bias"},
    {"linear", AT(linear), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--linear"},
    {"init_scale", AT(init_scale), SBW_CKPT_DOUBLE, 0, 1e6, 0.1, NULL, SHAPES, "--init-scale"},
    {"seed", AT(seed), SBW_CKPT_U64, 0, 2e19, (double)SBW_RNG_DEFAULT_SEED, NULL, SHAPES, "--seed"},
    {"optimizer", AT(optimizer), SBW_CKPT_ENUM, 0, 1, SBW_FIT_ADAM, optimizer_name, SHAPES,
     "--optimizer"},
    {"lr", AT(lr), SBW_CKPT_DOUBLE, 1e-12, 1e6, 0.01, NULL, SHAPES, "--lr"},
    {"lr_auto", AT(lr_auto), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--lr"},
    {"lr_auto_rows", AT(lr_auto_rows), SBW_CKPT_SIZE, 1, 1e15, 1024, NULL, SHAPES, NULL},
    {"lr_auto_steps", AT(lr_auto_steps), SBW_CKPT_SIZE, 1, 1e15, 100, NULL, SHAPES, NULL},
    {"beta1", AT(beta1), SBW_CKPT_DOUBLE, 0, 0.999999999, 0.9, NULL, SHAPES, "--beta1"},
    {"beta2", AT(beta2), SBW_CKPT_DOUBLE, 0, 0.999999999, 0.999, NULL, SHAPES, "--beta2"},
    {"eps", AT(eps), SBW_CKPT_DOUBLE, 0, 1, 1e-8, NULL, SHAPES, "--adam-eps"},
    {"decay", AT(decay), SBW_CKPT_DOUBLE, 1e-12, 1, 1, NULL, SHAPES, "--decay"},
    {"batch", AT(batch), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SHAPES, "--batch"},
    {"tol", AT(tol), SBW_CKPT_DOUBLE, 0, 1e300, 0, NULL, SHAPES, "--tol"},
    {"tol_window", AT(tol_window), SBW_CKPT_SIZE, 1, 1e15, 100, NULL, SHAPES, "--tol-window"},
    {"lbfgs_mem", AT(lbfgs_mem), SBW_CKPT_SIZE, 1, 1000, 10, NULL, SHAPES, "--lbfgs-mem"},
    {"precision", AT(obj.single), SBW_CKPT_BOOL, 0, 1, 1, sbw_fit_opts_precision_name, SHAPES,
     "--precision"},
    {"block", AT(obj.block), SBW_CKPT_SIZE, 0, 1e9, 0, NULL, SHAPES, "--block"},
    {"par", AT(obj.par), SBW_CKPT_ENUM, 0, 1, SBW_PASS_PAR_BLOCKS, par_name, SHAPES, "--parallel"},
    {"log_every", AT(log_every), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SHAPES, "--log-every"},
    {"steps", AT(steps), SBW_CKPT_SIZE, 0, 1e15, 1000, NULL, FREE, "--steps"},
    {"threads", AT(obj.threads), SBW_CKPT_INT, 0, 4096, 0, NULL, FREE, "--threads"},
    {"checkpoint_every", AT(checkpoint_every), SBW_CKPT_DOUBLE, 0, 1e9, 0, NULL, FREE,
     "--checkpoint-every"},
    /* issue 27, last: a checkpoint written before it trained without */
    {"bf16", AT(obj.bf16), SBW_CKPT_BOOL, 0, 1, 0, NULL, SHAPES, "--precision"},
};

const size_t sbw_fit_opts_nrows = sizeof sbw_fit_opts_table / sizeof *sbw_fit_opts_table;

void sbw_fit_opts_init(sbw_fit_opts *o)
{
    *o = (sbw_fit_opts){0};
    sbw_ckpt_defaults(sbw_fit_opts_table, sbw_fit_opts_nrows, o);
}

int sbw_fit_opts_get(const sbw_ckpt *c, sbw_fit_opts *o)
{
    static const size_t gen[] = {1}; /* bf16, the last row, came in format 5 */
    return sbw_ckpt_get_generations(c, sbw_fit_opts_table, sbw_fit_opts_nrows, gen, 1, o);
}

const sbw_ckpt_field *sbw_fit_opts_row(const char *key)
{
    for (size_t i = 0; i < sbw_fit_opts_nrows; i++)
        if (strcmp(sbw_fit_opts_table[i].key, key) == 0)
            return &sbw_fit_opts_table[i];
    return NULL;
}
