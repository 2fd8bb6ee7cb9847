/* tool_lm.c -- sbw-lm: LSTM language models with any head of models/,
 * trained and evaluated on a word-level corpus (Penn Treebank).  The work
 * is in sbw_lm_train.c and sbw_lm_eval.c; this file parses, checks and
 * prints. */
#include "sbw.h"
#include "sbw_corpus.h"
#include "sbw_head_io.h"
#include "sbw_lm_curve.h"
#include "sbw_gradneck.h"
#include "sbw_lm_eval.h"
#include "sbw_lm_out.h"
#include "sbw_lm_train.h"
#include "sbw_preflight.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char top_help[] =
    "Usage: sbw-lm train --data DIR [options]\n"
    "       sbw-lm eval  --data DIR --ckpt DIR [options]\n"
    "       sbw-lm curves --step S --names LIST CURVE.tsv...\n"
    "       sbw-lm order --pairs LIST GRID.tsv\n"
    "Word-level LSTM language models with any head of sbw (softmax, sigsoftmax,\n"
    "moc, mos, plif, mos+plif, mixtape), trained on a corpus such as Penn Treebank, and\n"
    "their perplexity and log-probability matrices for sbw-rank and sbw-kl.\n\n"
    "  sbw-lm train --help     the model, the optimiser, checkpoints, the log\n"
    "  sbw-lm eval --help      perplexity, --logprobs, --export\n"
    "  sbw-lm curves --help    models' KLD at equal perplexity (from --curve)\n"
    "  sbw-lm order --help     whose KLD is above whose, in words\n\n"
    "Example (a small model, then the rank of its outputs):\n"
    "  sbw-lm train --data ../shared/data/ptb --d 64 --hidden 256 --epochs 1 --ckpt ck\n"
    "  sbw-lm eval --data ../shared/data/ptb --ckpt ck --tokens 2000 --logprobs - |\n"
    "      sbw-rank - --center\n";

/* ---- train --------------------------------------------------------------- */

typedef struct train_args {
    const char *data, *head, *hidden, *optim, *log, *ckpt, *preset, *latent, *precision;
    bool no_bias, no_asgd, no_dropout, dbl, resume, quick, var_bptt;
    sbw_lm_opts o;
} train_args;

static train_args TA;

static const sbw_cli_opt train_opts[] = {
    {"--data", "DIR", SBW_ARG_STRING, &TA.data, 1, 0,
     "corpus: {train,valid,test}.txt or ptb.{train,valid,test}.txt"},
    {"--head", "NAME", SBW_ARG_STRING, &TA.head, 1, 0,
     "softmax, sigsoftmax, moc, mos, plif, mos+plif, mixtape (default softmax)"},
    {"--k", "K", SBW_ARG_SIZE, &TA.o.arch.k, 1, 1e6,
     "mixture components (default 15; mixtape: its sigmoid tree's leaves, default 4)"},
    {"--knots", "N", SBW_ARG_SIZE, &TA.o.arch.knots, 1, 1e6, "PLIF intervals (default 100)"},
    {"--plif-t", "T", SBW_ARG_DOUBLE, &TA.o.arch.plif_t, 1e-9, 1e9,
     "PLIF knots on [-T, T] (default 10)"},
    {"--d", "D", SBW_ARG_SIZE, &TA.o.arch.d, 1, 1e6, "the head's dimension (default 400)"},
    {"--latent", "KIND", SBW_ARG_STRING, &TA.latent, 1, 0,
     "tanh (default: tanh(P h + p0) of size D) or none (h^L to the head)"},
    {"--emb", "E", SBW_ARG_SIZE, &TA.o.arch.emb, 1, 1e6, "embedding size (default D)"},
    {"--hidden", "LIST", SBW_ARG_STRING, &TA.hidden, 1, 0,
     "LSTM sizes, 1-3 layers (default 1150,1150,400)"},
    {"--no-bias", NULL, SBW_ARG_FLAG, &TA.no_bias, 1, 0, "no word bias in the head"},
    {"--tied", NULL, SBW_ARG_FLAG, &TA.o.arch.tied, 1, 0, "input embedding = the head's W"},
    {"--batch", "B", SBW_ARG_SIZE, &TA.o.batch, 1, 1e6, "sequences per step (default 20)"},
    {"--bptt", "T", SBW_ARG_SIZE, &TA.o.bptt, 1, 1e6, "truncated-BPTT length (default 70)"},
    {"--eval-batch", "B", SBW_ARG_SIZE, &TA.o.eval_batch, 1, 1e6,
     "columns of the validation pass (default 10)"},
    {"--train-tokens", "N", SBW_ARG_SIZE, &TA.o.train_tokens, 1, 1e15,
     "train on the first N tokens only"},
    {"--valid-tokens", "N", SBW_ARG_SIZE, &TA.o.valid_tokens, 2, 1e15,
     "validate on the first N tokens only"},
    {"--optim", "NAME", SBW_ARG_STRING, &TA.optim, 1, 0, "sgd (default) or adam"},
    {"--lr", "X", SBW_ARG_DOUBLE, &TA.o.lr, 1e-12, 1e6, "learning rate (sgd 20, adam 1e-3)"},
    {"--clip", "X", SBW_ARG_DOUBLE, &TA.o.clip, 0, 1e12, "gradient-norm clip, 0 = off (0.25)"},
    {"--wdecay", "X", SBW_ARG_DOUBLE, &TA.o.wdecay, 0, 1e3, "L2 weight decay (1.2e-6)"},
    {"--no-asgd", NULL, SBW_ARG_FLAG, &TA.no_asgd, 1, 0, "never switch SGD to averaging"},
    {"--nonmono", "N", SBW_ARG_SIZE, &TA.o.nonmono, 1, 1e6,
     "NT-ASGD patience in validations (default 5)"},
    {"--dropout-emb", "P", SBW_ARG_DOUBLE, &TA.o.drop.emb, 0, 0.99, "word dropout (0.1)"},
    {"--dropout-in", "P", SBW_ARG_DOUBLE, &TA.o.drop.in, 0, 0.99, "first layer's input (0.4)"},
    {"--dropout-layer", "P", SBW_ARG_DOUBLE, &TA.o.drop.layer, 0, 0.99,
     "each LSTM layer's output, the last's too by default (0.25)"},
    {"--dropout-last", "P", SBW_ARG_DOUBLE, &TA.o.drop.last, 0, 0.99,
     "the last LSTM layer's output (default: --dropout-layer's)"},
    {"--dropout-latent", "P", SBW_ARG_DOUBLE, &TA.o.drop.latent, 0, 0.99,
     "the latent (0.4); --latent none: the mixture's g_k"},
    {"--wdrop", "P", SBW_ARG_DOUBLE, &TA.o.drop.wdrop, 0, 0.99,
     "weight drop on each LSTM's hidden-to-hidden matrix (0)"},
    {"--alpha", "A", SBW_ARG_DOUBLE, &TA.o.drop.alpha, 0, 1e6,
     "AR: A * mean(x^2), x the last LSTM output after dropout (0)"},
    {"--beta", "B", SBW_ARG_DOUBLE, &TA.o.drop.beta, 0, 1e6,
     "TAR: B * mean((h_t - h_t-1)^2), h before dropout (0)"},
    {"--var-bptt", NULL, SBW_ARG_FLAG, &TA.var_bptt, 1, 0,
     "AWD-LSTM's random chunk lengths, lr x length/--bptt"},
    {"--no-dropout", NULL, SBW_ARG_FLAG, &TA.no_dropout, 1, 0, "all five dropouts and --wdrop 0"},
    {"--preset", "NAME", SBW_ARG_STRING, &TA.preset, 1, 0,
     "mos or awd: the paper's recipe (below); given options win"},
    {"--precision", "P", SBW_ARG_STRING, &TA.precision, 1, 0,
     "single (default), double (slow), or bf16: bfloat16 GEMM inputs (AVX-512 BF16)"},
    {"--double", NULL, SBW_ARG_FLAG, &TA.dbl, 1, 0, "the same as --precision double"},
    {"--epochs", "N", SBW_ARG_SIZE, &TA.o.epochs, 1, 1e6, "epochs (default 1)"},
    {"--max-steps", "N", SBW_ARG_SIZE, &TA.o.max_steps, 1, 1e15, "stop after N steps in all"},
    {"--log", "FILE", SBW_ARG_STRING, &TA.log, 1, 0, "training log TSV, rewritten as it grows"},
    {"--log-every", "N", SBW_ARG_SIZE, &TA.o.log_every, 1, 1e15, "steps per log row (10)"},
    {"--ckpt", "DIR", SBW_ARG_STRING, &TA.ckpt, 1, 0, "checkpoint directory"},
    {"--resume", NULL, SBW_ARG_FLAG, &TA.resume, 1, 0, "continue the run in --ckpt DIR"},
    {"--ckpt-every", "SEC", SBW_ARG_DOUBLE, &TA.o.ckpt_every, 0, 1e9,
     "seconds between checkpoints (600; 0 = end and signal only)"},
    {"--eval-every", "N", SBW_ARG_SIZE, &TA.o.eval_every, 1, 1e15,
     "keep DIR/snap-TOKENS/ every N training tokens"},
    {"--snap-epochs", NULL, SBW_ARG_FLAG, &TA.o.snap_epochs, 1, 0,
     "also keep DIR/snap-TOKENS/ at the end of every epoch"},
    {"--stop-ppl", "X", SBW_ARG_DOUBLE, &TA.o.stop_ppl, 1, 1e15,
     "stop after an epoch whose validation perplexity is <= X"},
    {"--quick", NULL, SBW_ARG_FLAG, &TA.quick, 1, 0,
     "D 16, LSTM 32, B 8, T 20, no dropout, 20k/4k tokens (tests, demos)"},
    {0}};

static const char train_details[] =
    "The model: embedding -> 1-3 LSTM layers -> latent tanh(P h + p0) of size D\n"
    "-> the head, with a word bias unless --no-bias (MoS paper section 3).\n"
    "--latent none: the last layer's h feeds the head (MoS's code, AWD-LSTM):\n"
    "g_k = tanh(U_k h + c_k), pi = softmax(V h), --dropout-latent on g_k; a\n"
    "softmax head needs h's width = --d.\n"
    "Training: truncated BPTT over --batch columns of the training text, SGD\n"
    "with gradient-norm clipping that switches to averaged SGD when validation\n"
    "stalls (AWD-LSTM's NT-ASGD), or Adam; AWD-style dropout.  Deterministic:\n"
    "the same seed and --threads give the same bits, and a run stopped by\n"
    "SIGINT/SIGTERM writes its checkpoint and exits 130; --resume continues it\n"
    "bit for bit.  One run writes a --ckpt folder at a time: a second one (or an\n"
    "sbw-fit) exits 1 naming the process holding the folder's lock.  A run that\n"
    "diverges (a perplexity that overflows, a parameter beyond 1e15) stops with\n"
    "exit 1 naming the step; its checkpoint stays the last good one; one whose\n"
    "last validation perplexity exceeds the vocabulary size (worse than a\n"
    "uniform guess) ends with warning worse_than_uniform.  --log and\n"
    "--ckpt may not be (or hold) the corpus's files: exit 2 before any work.\n"
    "--precision bf16: the LSTM's, the latent's and the head's GEMMs take\n"
    "bfloat16 inputs (rounded to nearest even) and accumulate in float32 through\n"
    "oneDNN; weights, optimiser state, pointwise work and the loss stay float32\n"
    "or double, and validation runs in float32.  It needs AVX-512 BF16\n"
    "(avx512_bf16 in /proc/cpuinfo): elsewhere exit 2, no emulation.  A run\n"
    "resumes bit for bit on the same CPU and --threads.\n\n"
    "Output (stdout): one row: head, d, k, params, steps, epochs, tokens, seconds,\n"
    "tokens_per_s, train_ppl (last log interval), valid_ppl (last epoch), stop.\n"
    "--log: step epoch tokens seconds lr loss ppl valid_ppl head_seconds (valid_ppl\n"
    "on epoch rows, nan elsewhere); plot it with sbw-plot train.  loss and ppl\n"
    "are the cross-entropy alone: AR and TAR change the gradient, not the log\n"
    "(as AWD-LSTM's raw_loss).\n\n"
    "Regularisation (AWD-LSTM; MoS's code): --wdrop drops entries of each\n"
    "layer's Wh (one mask per chunk, kept ones x 1/(1-P)); --alpha's AR acts on\n"
    "the last LSTM layer's output after --dropout-last (the latent's input),\n"
    "--beta's TAR on that output before it, consecutive steps within a chunk;\n"
    "--var-bptt draws each chunk's length: BPTT w.p. 0.95 else BPTT/2, plus\n"
    "N(0, 5), truncated, in [5, BPTT + 40], and scales lr by length/BPTT.\n"
    "The locked dropouts (one mask per sequence and feature for a chunk) and\n"
    "the word dropout (whole rows of E) are AWD-LSTM's kinds.\n\n"
    "Example: sbw-lm train --data ../shared/data/ptb --head mos --k 15 --d 280 \\\n"
    "           --hidden 960,960,620 --batch 12 --ckpt /var/tmp/mos --log mos.tsv\n";

/* train_details and the presets' values (filled by run_train). */
static char train_help[4096];

static const sbw_cli train_cli = {"sbw-lm train",
                                  "--data DIR",
                                  "Train an LSTM language model with any head.",
                                  train_help,
                                  train_opts,
                                  0,
                                  0,
                                  SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED};

static bool given(const sbw_cli_common *c, const char *name)
{
    return sbw_cli_given(&train_cli, c, name);
}

/* The options --quick set (sbw_lm_opts.quick: messages say so). */
static char quick_set[512];

static bool given_opt(void *ctx, const char *opt) { return given(ctx, opt); }

/* An option the chosen head or optimiser would ignore is a usage error
 * naming it (sbw_cli_check_applies; checked on a fresh run: --resume takes
 * the checkpoint's). */
static int check_applies(const sbw_cli_common *c, const sbw_lm_opts *o)
{
    sbw_head_model m = o->arch.model;
    bool mix = m == SBW_MODEL_MOC || m == SBW_MODEL_MOS || m == SBW_MODEL_MOS_PLIF ||
               m == SBW_MODEL_MIXTAPE;
    bool plif = m == SBW_MODEL_PLIF || m == SBW_MODEL_MOS_PLIF;
    bool sgd = o->optimizer != SBW_LM_ADAM;
    char head[64];
    snprintf(head, sizeof head, "--head %s", sbw_head_model_name(m));
    const char *plif_only = "only plif and mos+plif have PLIF intervals";
    const char *sgd_only = "it is SGD's switch to averaging (NT-ASGD)";
    const sbw_cli_applies rows[] = {
        {"--k", mix, head, "it sets the components of moc, mos, mos+plif and mixtape"},
        {"--knots", plif, head, plif_only},
        {"--plif-t", plif, head, plif_only},
        {"--dropout-latent", sbw_lm_latent_drops(&o->arch), "--latent none",
         "only a mixture's g_k is dropped there"},
        {"--no-asgd", sgd, "--optim adam", sgd_only},
        {"--nonmono", sgd, "--optim adam", sgd_only},
    };
    return sbw_cli_check_applies(&train_cli, c, rows, sizeof rows / sizeof *rows);
}

/* --data, --preset, --head and --optim into TA.o. */
static int resolve_choices(const sbw_cli_common *c)
{
    sbw_lm_opts *o = &TA.o;
    int st = TA.data ? SBW_OK : SBW_ERROR(SBW_EINVAL, "--data DIR is required");
    st = st || !TA.preset ? st : sbw_lm_opts_preset(o, TA.preset, given_opt, (void *)c);
    st = st || !TA.head ? st : sbw_head_model_parse(TA.head, &o->arch.model);
    if (!st && o->arch.model == SBW_MODEL_LMS)
        st = SBW_ERROR(SBW_EINVAL, "--head lms: not offered by sbw-lm (use plif)");
    st = st || !TA.latent ? st : sbw_lm_latent_parse(TA.latent, &o->arch.latent);
    if (!st && TA.optim) {
        if (strcmp(TA.optim, "sgd") == 0 || strcmp(TA.optim, "adam") == 0)
            o->optimizer = strcmp(TA.optim, "adam") == 0 ? SBW_LM_ADAM : SBW_LM_SGD;
        else
            st = SBW_ERROR(SBW_EINVAL, "--optim '%s': sgd or adam", TA.optim);
    }
    return st;
}

/* The other names, flags and dependent defaults into TA.o. */
static int resolve_train(const sbw_cli_common *c)
{
    sbw_lm_opts *o = &TA.o;
    int st = !TA.hidden ? SBW_OK : sbw_lm_opts_hidden(TA.hidden, &o->arch);
    if (!st && TA.quick)
        sbw_lm_opts_quick(o, given_opt, (void *)c, quick_set, sizeof quick_set);
    if (st)
        return st;
    if (o->optimizer == SBW_LM_ADAM && !given(c, "--lr"))
        o->lr = 1e-3;
    if (!given(c, "--emb"))
        o->arch.emb = o->arch.d;
    if (o->arch.model == SBW_MODEL_MIXTAPE && !given(c, "--k"))
        o->arch.k = 4; /* the paper's sigmoid tree */
    o->arch.bias = !TA.no_bias;
    o->asgd = !TA.no_asgd;
    if (TA.precision && strcmp(TA.precision, "single") != 0 &&
        strcmp(TA.precision, "double") != 0 && strcmp(TA.precision, "bf16") != 0)
        return SBW_ERROR(SBW_EINVAL, "--precision '%s': single, double or bf16", TA.precision);
    if (TA.precision && TA.dbl && strcmp(TA.precision, "double") != 0)
        return SBW_ERROR(SBW_EINVAL, "--double and --precision %s disagree", TA.precision);
    o->single = !TA.dbl && !(TA.precision && strcmp(TA.precision, "double") == 0);
    o->bf16 = TA.precision && strcmp(TA.precision, "bf16") == 0;
    o->var_bptt = o->var_bptt || TA.var_bptt;
    if (TA.no_dropout || !sbw_lm_latent_drops(&o->arch)) /* only 0 was given (check_applies) */
        o->drop.latent = 0;
    if (TA.no_dropout)
        o->drop.emb = o->drop.in = o->drop.layer = o->drop.last = o->drop.wdrop = 0;
    o->seed = c->seed;
    o->threads = sbw_cli_threads(c->threads);
    o->quiet = c->quiet;
    o->ckpt_dir = TA.ckpt;
    if ((TA.resume || o->eval_every || o->snap_epochs) && !TA.ckpt)
        return SBW_ERROR(SBW_EINVAL, "%s needs --ckpt DIR",
                         TA.resume       ? "--resume"
                         : o->eval_every ? "--eval-every"
                                         : "--snap-epochs");
    return SBW_OK;
}

typedef struct given_ctx {
    const sbw_cli_common *c;
} given_ctx;

static bool row_given(void *vctx, const sbw_ckpt_field *row)
{
    const given_ctx *g = vctx;
    if (TA.no_dropout && (strncmp(row->key, "dropout_", 8) == 0 || strcmp(row->key, "wdrop") == 0))
        return true;
    return row->option && given(g->c, row->option);
}

/* --resume: the checkpoint's settings, refusing given ones that differ. */
static int take_saved(const sbw_cli_common *c)
{
    sbw_lm_opts saved;
    int st = sbw_lm_train_ckpt_saved_opts(TA.ckpt, &TA.o, &saved);
    if (st)
        return st;
    given_ctx g = {c};
    st = sbw_ckpt_resume_check(sbw_lm_opts_table, sbw_lm_opts_nrows, &TA.o, &saved, row_given, &g,
                               TA.ckpt);
    if (st)
        return st;
    for (size_t i = 0; i < sbw_lm_opts_nrows; i++) { /* free rows: the given ones */
        const sbw_ckpt_field *f = &sbw_lm_opts_table[i];
        bool threads = strcmp(f->key, "threads") == 0 && c->threads != 0;
        if (f->role == SBW_CKPT_FREE && (row_given(&g, f) || threads))
            sbw_ckpt_copy(f, 1, SBW_CKPT_FREE, &saved, &TA.o);
    }
    TA.o = saved;
    return SBW_OK;
}

/* The training summary as one row on stdout.  The table is built by
 * plain sticky calls and checked once by sbw_table_print: after any
 * failure (the model's sizes, the allocation, the table) nothing is
 * printed and the status is the first failure. */
static int train_table(const sbw_cli_common *c, const sbw_corpus *corpus,
                       const sbw_lm_train_result *r)
{
    static const char *const cols[] = {
        "head",      "d",         "k",      "rank_bound", "params",
        "steps",     "epochs",    "tokens", "seconds",    "tokens_per_s",
        "train_ppl", "valid_ppl", "stop"};
    sbw_lm lm;
    sbw_table *t = NULL;
    int st = sbw_lm_setup(&lm, &TA.o.arch, corpus->nwords);
    st = st ? st : sbw_table_alloc(&t, "sbw-lm train", c, true);
    if (st)
        return st;
    char hid[64];
    int at = 0;
    for (size_t l = 0; l < TA.o.arch.nlayers && at >= 0 && (size_t)at < sizeof hid; l++)
        at +=
            snprintf(hid + at, sizeof hid - (size_t)at, "%s%zu", l ? "," : "", TA.o.arch.hidden[l]);
    sbw_table_meta_str(t, "data", TA.data);
    sbw_table_meta_int(t, "vocab", (long long)corpus->nwords);
    sbw_table_meta_str(t, "hidden", hid);
    sbw_table_meta_str(t, "precision", sbw_lm_opts_precision(&TA.o));
    if (TA.o.arch.latent != SBW_LM_LATENT_TANH) /* the default's header as it was */
        sbw_table_meta_str(t, "latent", sbw_lm_latent_name(TA.o.arch.latent));
    sbw_table_meta_bool(t, "averaging", r->averaging);
    sbw_table_columns(t, cols, sizeof cols / sizeof *cols);
    sbw_table_add_row(t);
    sbw_table_set_str(t, "head", sbw_head_model_name(TA.o.arch.model));
    sbw_table_set_int(t, "d", (long long)TA.o.arch.d);
    sbw_table_set_int(t, "k", (long long)(lm.head.k));
    size_t bound = sbw_head_rank_bound(&lm.head);
    if (bound)
        sbw_table_set_int(t, "rank_bound", (long long)bound);
    else
        sbw_table_set_str(t, "rank_bound", "none");
    sbw_table_set_int(t, "params", (long long)lm.nparam);
    sbw_table_set_int(t, "steps", (long long)r->steps);
    sbw_table_set_int(t, "epochs", (long long)r->epochs);
    sbw_table_set_int(t, "tokens", (long long)r->tokens);
    sbw_table_set_dbl(t, "seconds", r->seconds);
    sbw_table_set_dbl(t, "tokens_per_s", r->tokens_per_s);
    sbw_table_set_dbl(t, "train_ppl", r->train_ppl);
    sbw_table_set_dbl(t, "valid_ppl", r->valid_ppl);
    sbw_table_set_str(t, "stop", r->stop);
    st = sbw_table_print(t, stdout, c->json);
    sbw_table_free(t);
    return st;
}

/* The failure st reported; a reason that names an option whose value
 * --quick set, without saying so, gets "(--d 16 from --quick)". */
static int fail_train(int st)
{
    char note[256] = "";
    const char *why = sbw_error_reason();
    const sbw_lm_opts *o = &TA.o;
    struct {
        const char *opt;
        size_t v;
    } q[] = {{"--d", o->arch.d},
             {"--batch", o->batch},
             {"--bptt", o->bptt},
             {"--train-tokens", o->train_tokens},
             {"--valid-tokens", o->valid_tokens},
             {"--k", o->arch.k},
             {"--knots", o->arch.knots},
             {"--eval-batch", o->eval_batch},
             {"--hidden", o->arch.hidden[0]}};
    for (size_t i = 0; TA.quick && !strstr(why, "--quick") && i < sizeof q / sizeof *q; i++) {
        const char *at = strstr(why, q[i].opt);
        size_t n = strlen(q[i].opt), len = strlen(note);
        bool word = at && (at[n] == ' ' || at[n] == ':' || at[n] == '\0');
        if (word && *sbw_lm_opts_note(o, q[i].opt))
            snprintf(note + len, sizeof note - len, "%s%s %zu", len ? ", " : "", q[i].opt, q[i].v);
    }
    if (note[0])
        st = SBW_ERROR(st, "%s (%s from --quick)", why, note);
    return sbw_cli_fail("sbw-lm train", st);
}

static int run_train(int argc, char **argv)
{
    sbw_cli_common c;
    sbw_lm_opts_init(&TA.o);
    TA.o.ckpt_every = 600;
    size_t at = (size_t)snprintf(train_help, sizeof train_help, "%s\n", train_details);
    sbw_lm_opts_preset_help(train_help + at, sizeof train_help - at);
    int st = sbw_cli_parse(&train_cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    sbw_cli_name_command(&c, "sbw-lm");
    if (TA.log && sbw_file_is_std(TA.log)) /* stdout carries the table */
        return sbw_cli_usage_error(&train_cli, "--log -: the log is rewritten as it grows, "
                                               "so it needs a file name");
    sbw_error_gsl_quiet();
    st = resolve_choices(&c);
    if (!st && !TA.resume && (st = check_applies(&c, &TA.o)))
        return st; /* reported, with the usage hint */
    st = st ? st : resolve_train(&c);
    sbw_preflight_out outs[] = {{"--log", TA.log, false}, {"--ckpt", TA.ckpt, true}};
    st = st ? st : sbw_lm_out_preflight(TA.data, TA.ckpt, outs, 2);
    sbw_ckpt_lock *lock = NULL; /* one writer per checkpoint folder */
    st = st || !TA.ckpt ? st : sbw_ckpt_lock_take(&lock, TA.ckpt);
    if (!st && TA.ckpt && !TA.resume && sbw_ckpt_exists(TA.ckpt))
        st = SBW_ERROR(SBW_EINVAL, "--ckpt %s holds a checkpoint: --resume continues it", TA.ckpt);
    if (!st && TA.resume && !(st = take_saved(&c)))
        TA.o.threads = sbw_cli_threads(TA.o.threads); /* the checkpoint's, unless given */
    if (st) {
        sbw_ckpt_lock_release(lock, false);
        return fail_train(st);
    }
    TA.o.stop = sbw_cli_catch_stop();
    sbw_corpus *corpus = NULL;
    sbw_lm_train_result r;
    st = sbw_corpus_load_stop(&corpus, TA.data, TA.o.stop);
    st = st ? st : sbw_lm_train(corpus, &TA.o, TA.resume, TA.log, c.cmdline, &r);
    if (!st) /* saved and no more polling: a stop asked since takes effect now */
        sbw_signal_graceful_end();
    st = st ? st : train_table(&c, corpus, &r);
    sbw_corpus_free(corpus);
    sbw_ckpt_lock_release(lock, false);
    return st ? fail_train(st) : SBW_EXIT_OK;
}

/* ---- eval ---------------------------------------------------------------- */

typedef struct eval_args {
    const char *data, *ckpt, *split, *logprobs, *export;
    const char *gradneck; /* --gradneck FILE */
    size_t tokens, eval_batch, bptt;
    bool single;
    FILE *table; /* stdout, or stderr when --logprobs - */
} eval_args;

static eval_args EA = {.eval_batch = 10};

static const sbw_cli_opt eval_opts[] = {
    {"--data", "DIR", SBW_ARG_STRING, &EA.data, 1, 0, "the corpus the model was trained on"},
    {"--ckpt", "DIR", SBW_ARG_STRING, &EA.ckpt, 1, 0, "a checkpoint or snap-TOKENS directory"},
    {"--split", "NAME", SBW_ARG_STRING, &EA.split, 1, 0, "valid or test (default test)"},
    {"--logprobs", "FILE", SBW_ARG_STRING, &EA.logprobs, 1, 0,
     "write the T x M log Q (float64 .npy, float32 with --single; - = stdout)"},
    {"--tokens", "T", SBW_ARG_SIZE, &EA.tokens, 1, 1e15,
     "score (and export) the first T predictions only (default all)"},
    {"--export", "DIR", SBW_ARG_STRING, &EA.export, 1, 0,
     "write the head's parameters (.npy), params.tsv and vocab.txt"},
    {"--eval-batch", "B", SBW_ARG_SIZE, &EA.eval_batch, 1, 1e6,
     "columns the text is cut into (default 10; 1 = one pass)"},
    {"--bptt", "T", SBW_ARG_SIZE, &EA.bptt, 1, 1e6, "steps per chunk (default: training's)"},
    {"--gradneck", "FILE", SBW_ARG_STRING, &EA.gradneck, 1, 0,
     "the gradient bottleneck per prediction (TSV; - = stdout)"},
    {"--single", NULL, SBW_ARG_FLAG, &EA.single, 1, 0,
     "a float32 forward pass (faster; --logprobs then writes float32)"},
    {0}};

static const char eval_details[] =
    "Perplexity of the model in --ckpt on a split, computed in double from its\n"
    "parameters (the averaged ones when NT-ASGD switched).  The split is cut into\n"
    "--eval-batch contiguous columns, each starting from a zero state (see\n"
    "docs/DESIGN.md); every output names B.\n\n"
    "--logprobs writes the log-probability matrix of the first T predictions\n"
    "(row i: log Q(. | tokens 0..i) over the M words), streamed in row blocks\n"
    "so it pipes into sbw-rank - and sbw-kl - without holding T x M.  A Softmax\n"
    "head's matrix has rank D+2 with a word bias and D+1 without; the perplexity\n"
    "printed with --logprobs is exp of the mean -log Q at the observed tokens of\n"
    "exactly those rows.  stdout carries one stream: with --logprobs - the\n"
    "matrix goes to stdout and the table to stderr.\n\n"
    "--single runs the network and the head's logits in float32 and writes\n"
    "--logprobs as float32 (each row normalised in double, then stored):\n"
    "the matrix a float32 implementation exports, which sbw-rank reads at\n"
    "float32's eps (how Parthiban et al. 2021 measured ranks).  Beside the\n"
    "float64 matrix's rank at float32's eps (sbw-rank --eps single) it shows\n"
    "what the float32 arithmetic itself changes; the model's own rank is the\n"
    "float64 matrix's.\n\n"
    "--export DIR writes the head's parameters as sbw-fit --save does: one\n"
    "float64 .npy per block (W, b, U, V, plif_slope_raw), the positive PLIF\n"
    "slopes softplus(raw) as plif_slope.npy, params.tsv listing every .npy\n"
    "(name, file, rows, cols, meaning) under the head's meta (model, d, k,\n"
    "knots, plif_t, ...) and this command, and vocab.txt (row i of W is line\n"
    "i's word); with --tokens 1 the evaluation beside it takes no time.\n"
    "DIR appears whole or not at all (written beside it, then renamed), and an\n"
    "earlier export there is replaced whole; a DIR holding other files is refused.\n"
    "`sbw-plot monotone DIR` draws a plif or mos+plif head's learned f from\n"
    "it (LMS Figure 4): a straight f would keep the rank of log Q at most\n"
    "D + 2, a bending one is held to no such bound.\n\n"
    "--gradneck FILE (Godey and Artzi 2026, the LM head as a gradient\n"
    "bottleneck): for each of the first T predictions, the share of the\n"
    "logit-space gradient g = q - e_next that the head passes back to its\n"
    "context h: passed = ||P g|| / ||g||, P the projector onto the range of\n"
    "C1 d(log q)/dh, C1 = I - 11^T/M (logits are defined up to a shift);\n"
    "suppressed = 1 - passed (the paper reports 95-99%).  A Softmax head's\n"
    "range is C1 W, one map for every context; for every other head it is\n"
    "each context's own Jacobian: in closed form for sigsoftmax, LMS, PLIF,\n"
    "MoC and MoS (seconds a prediction at PTB's size), from M head passes per\n"
    "prediction for MoS+PLIF and Mixtape (about a minute at PTB's size: use\n"
    "--tokens).  FILE: position word passed\n"
    "suppressed, its header and the table's the summary (gradneck_mean, _sd,\n"
    "_q05 ... _q95 of passed, gradneck_suppressed_mean).  Not with --logprobs.\n\n"
    "Output: one row: split, tokens, eval_batch, nll, ppl, precision.\n\n"
    "Examples: sbw-lm eval --data ../shared/data/ptb --ckpt ck --tokens 20000 \\\n"
    "            --logprobs - | sbw-rank - --center\n"
    "          sbw-lm eval --data ../shared/data/ptb --ckpt ck --tokens 1 \\\n"
    "            --export f/ -q && sbw-plot monotone f/ -o plif-f\n";

static const sbw_cli eval_cli = {"sbw-lm eval",
                                 "--data DIR --ckpt DIR",
                                 "Perplexity and log-probabilities of a trained model.",
                                 eval_details,
                                 eval_opts,
                                 0,
                                 0,
                                 SBW_CLI_JSON | SBW_CLI_THREADS};

/* The vocabulary and the head's parameters with params.tsv (under this
 * command's meta and the checkpoint's name) as the folder dir, whole or
 * not at all (sbw_lm_out_export).  A failed table (checked before the
 * export) writes nothing. */
static int export_head(const sbw_cli_common *c, const char *dir, const sbw_lm *lm,
                       const double *theta, const sbw_corpus *corpus)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-lm eval", c, false);
    if (!st) {
        sbw_table_meta_str(t, "ckpt", EA.ckpt);
        sbw_table_meta_str(t, "vocab", "vocab.txt");
        st = sbw_table_status(t);
    }
    st = st ? st : sbw_lm_out_export(dir, lm, theta, corpus, t);
    sbw_table_free(t);
    return st;
}

static int eval_split(enum sbw_corpus_split *s)
{
    const char *n = EA.split ? EA.split : "test";
    if (strcmp(n, "valid") != 0 && strcmp(n, "test") != 0)
        return SBW_ERROR(SBW_EINVAL, "--split '%s': valid or test", n);
    *s = strcmp(n, "valid") == 0 ? SBW_CORPUS_VALID : SBW_CORPUS_TEST;
    return SBW_OK;
}

/* The gradient bottleneck's summary and definition as meta lines of t
 * (its errors sticky). */
static void gradneck_meta(sbw_table *t, const sbw_gradneck_summary *g, bool single_map)
{
    sbw_table_meta_str(t, "gradneck", EA.gradneck);
    sbw_gradneck_meta(t, g, single_map);
}

/* --gradneck's table: one row per prediction (position, the next word,
 * passed, suppressed) under the summary, written whole to EA.gradneck. */
static int gradneck_table(const sbw_cli_common *c, const size_t *next, const double *passed,
                          const sbw_gradneck_summary *g, bool single_map)
{
    static const char *const cols[] = {"position", "word", "passed", "suppressed"};
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-lm eval", c, false);
    if (!st) {
        sbw_table_meta_str(t, "ckpt", EA.ckpt);
        gradneck_meta(t, g, single_map);
        sbw_table_columns(t, cols, sizeof cols / sizeof *cols);
        for (size_t i = 0; i < g->n && !sbw_table_status(t); i++) {
            sbw_table_add_row(t);
            sbw_table_set_int(t, "position", (long long)i);
            sbw_table_set_int(t, "word", (long long)next[i]);
            sbw_table_set_dbl(t, "passed", passed[i]);
            sbw_table_set_dbl(t, "suppressed", 1 - passed[i]);
        }
        st = sbw_table_write(t, EA.gradneck, false);
    }
    sbw_table_free(t);
    return st;
}

/* --gradneck: the shares, their summary, the table. */
static int evaluate_gradneck(const sbw_cli_common *c, sbw_lm_ws *ws, const double *theta,
                             const size_t *ids, size_t rows, sbw_progress *p, sbw_lm_eval_result *r,
                             sbw_gradneck_summary *g, bool *single_map)
{
    double *passed = malloc(rows * sizeof *passed);
    int st = passed ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "out of memory for %zu shares", rows);
    st = st ? st : sbw_lm_eval_gradneck(ws, theta, ids, rows, p, passed, single_map, r);
    st = st ? st : sbw_gradneck_summarise(passed, rows, g);
    st = st ? st : gradneck_table(c, ids + 1, passed, g, *single_map);
    free(passed);
    return st;
}

/* The evaluation as one row on EA.table, checked once by
 * sbw_table_print: after a failure nothing is printed. */
static int eval_table(const sbw_cli_common *c, const char *split, const sbw_lm_eval_result *r,
                      const sbw_gradneck_summary *g, bool single_map)
{
    static const char *const cols[] = {"split", "tokens", "eval_batch", "nll", "ppl", "precision"};
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-lm eval", c, false);
    if (!st) {
        sbw_table_meta_str(t, "ckpt", EA.ckpt);
        if (g)
            gradneck_meta(t, g, single_map);
        sbw_table_columns(t, cols, sizeof cols / sizeof *cols);
        sbw_table_add_row(t);
        sbw_table_set_str(t, "split", split);
        sbw_table_set_int(t, "tokens", (long long)r->tokens);
        sbw_table_set_int(t, "eval_batch", (long long)EA.eval_batch);
        sbw_table_set_dbl(t, "nll", r->nll);
        sbw_table_set_dbl(t, "ppl", r->ppl);
        sbw_table_set_str(t, "precision", EA.single ? "single" : "double");
        st = sbw_table_print(t, EA.table, c->json);
    }
    sbw_table_free(t);
    return st;
}

/* Perplexity, or the exported matrix and its perplexity. */
static int evaluate(const sbw_cli_common *c, const sbw_corpus *corpus, enum sbw_corpus_split s,
                    const sbw_lm *lm, const sbw_lm_opts *o, const double *theta)
{
    sbw_lm_ws_opts wo = {EA.eval_batch,
                         EA.bptt ? EA.bptt : o->bptt,
                         EA.single,
                         sbw_cli_threads(c->threads),
                         0,
                         "--eval-batch",
                         NULL,
                         EA.bptt ? NULL : " (the checkpoint's)",
                         false,
                         false};
    size_t n = corpus->len[s], rows = EA.tokens && EA.tokens < n - 1 ? EA.tokens : n - 1;
    sbw_lm_ws *ws = NULL;
    sbw_npy_writer *w = NULL;
    sbw_progress p;
    sbw_lm_eval_result r;
    sbw_gradneck_summary g;
    bool single_map = false;
    char what[160];
    snprintf(what, sizeof what, "evaluating %zu tokens%s (--eval-batch %zu)", rows,
             EA.logprobs ? " with their latents for --logprobs" : "", EA.eval_batch);
    int st = sbw_lm_ws_check(lm, &wo);
    st = st ? st
            : sbw_preflight_memory(sbw_lm_eval_bytes(lm, &wo, rows, EA.logprobs || EA.gradneck),
                                   what);
    st = st ? st : sbw_lm_ws_alloc(&ws, lm, &wo);
    sbw_progress_start(&p, "sbw-lm eval", "tokens", (double)rows, c->quiet);
    if (!st && EA.gradneck) {
        st = evaluate_gradneck(c, ws, theta, corpus->ids[s], rows, &p, &r, &g, &single_map);
    } else if (!st && EA.logprobs) {
        st = sbw_npy_create(&w, EA.logprobs, rows, lm->m, 2, EA.single ? SBW_F32 : SBW_F64);
        st = st ? st : sbw_lm_eval_logprobs(ws, theta, corpus->ids[s], rows, w, &p, &r);
        if (st)
            sbw_npy_abort(w); /* NULL-safe; the temporary is removed */
        else
            st = sbw_npy_finish(w); /* frees w whatever happens */
    } else if (!st) {
        st = sbw_lm_eval_nll(ws, theta, corpus->ids[s], rows + 1, &p, &r);
    }
    sbw_progress_finish(&p);
    sbw_lm_ws_free(ws);
    return st ? st
              : eval_table(c, sbw_corpus_split_name(s), &r, EA.gradneck ? &g : NULL, single_map);
}

static int run_eval(int argc, char **argv)
{
    sbw_cli_common c;
    int st = sbw_cli_parse(&eval_cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    sbw_cli_name_command(&c, "sbw-lm");
    const sbw_cli_stream data[] = {{"--logprobs", EA.logprobs}, {"--gradneck", EA.gradneck}};
    if ((st = sbw_cli_one_stream(&eval_cli, data, 2, NULL, NULL, &EA.table)) != 0)
        return st;
    if (EA.gradneck && EA.logprobs)
        return sbw_cli_usage_error(&eval_cli, "--gradneck and --logprobs: one at a time");
    sbw_error_gsl_quiet();
    enum sbw_corpus_split s;
    st = EA.data && EA.ckpt ? SBW_OK
                            : SBW_ERROR(SBW_EINVAL, "--data DIR and --ckpt DIR are required");
    st = st ? st : eval_split(&s);
    sbw_preflight_out outs[] = {{"--logprobs", EA.logprobs, false},
                                {"--export", EA.export, true},
                                {"--gradneck", EA.gradneck, false}};
    st = st ? st : sbw_lm_out_preflight(EA.data, EA.ckpt, outs, 3);
    st = st || !EA.export ? st : sbw_lm_out_export_check(EA.export);
    if (st)
        return sbw_cli_fail("sbw-lm eval", st);
    sbw_cli_threads(c.threads); /* before any table records '# threads=' */
    sbw_corpus *corpus = NULL;
    sbw_lm_opts o;
    sbw_lm lm;
    double *theta = NULL;
    st = sbw_corpus_load(&corpus, EA.data);
    st = st ? st : sbw_lm_train_ckpt_load(EA.ckpt, corpus, &o, &lm, &theta);
    st = st || !EA.export ? st : export_head(&c, EA.export, &lm, theta, corpus);
    st = st ? st : evaluate(&c, corpus, s, &lm, &o, theta);
    free(theta);
    sbw_corpus_free(corpus);
    return st ? sbw_cli_fail("sbw-lm eval", st) : SBW_EXIT_OK;
}

/* ---- curves and order ----------------------------------------------------- */

static struct {
    double step;
    const char *names, *pairs, *labels;
    bool tsv;
} CA;

static const sbw_cli_opt curves_opts[] = {
    {"--step", "S", SBW_ARG_DOUBLE, &CA.step, 1e-9, 1e15, "grid spacing in perplexity (required)"},
    {"--names", "LIST", SBW_ARG_STRING, &CA.names, 1, 0,
     "one column name per CURVE, comma-separated (required)"},
    {0}};

static const char curves_details[] =
    "Each CURVE.tsv is one model's KLD along training (experiments/ptb/run.sh\n"
    "writes it from the --eval-every snapshots: sbw-lm eval --logprobs - |\n"
    "sbw-kl -): '#' lines, a header, then rows with valid_ppl and\n"
    "expected_pairwise_kl (other columns ignored; rows in any order).  Its points are sorted by "
    "perplexity and\n"
    "its KLD interpolated linearly in log perplexity onto one grid shared by\n"
    "all: p0, p0 + S, ... up to the largest perplexity of any curve, p0 the\n"
    "first multiple of S at or above the smallest.  Outside a model's own\n"
    "measured range its value is nan: nothing is extrapolated, so two models\n"
    "are compared only where both were measured (sbw-lm order).\n\n"
    "Output: a table ppl, then one column per --names entry; values %.4f.\n"
    "A value that is not a finite number, a perplexity <= 0 or a missing\n"
    "column is refused naming the file and line (exit 1).\n\n"
    "Example: sbw-lm curves --step 10 --names softmax,mos sm/curve.tsv \\\n"
    "            mos/curve.tsv -o kld-at-ppl.tsv\n";

static const sbw_cli curves_cli = {"sbw-lm curves",
                                   "--step S --names LIST CURVE.tsv...",
                                   "Several models' KLD on one grid of perplexities.",
                                   curves_details,
                                   curves_opts,
                                   1,
                                   1 << 20,
                                   SBW_CLI_OUTPUT | SBW_CLI_JSON};

/* Splits s at sep into a new array of new strings (*out: one allocation,
 * the strings after the pointers). */
static int split_list(const char *s, char sep, char ***out, size_t *n)
{
    size_t k = 1, len = strlen(s);
    for (const char *p = s; *p; p++)
        k += *p == sep;
    char **v = malloc(k * sizeof *v + len + 1);
    if (!v)
        return SBW_ERROR(SBW_ENOMEM, "a list of %zu", k);
    char *d = memcpy((char *)(v + k), s, len + 1);
    for (size_t i = 0; i < k; i++) {
        v[i] = d;
        d += strcspn(d, (char[]){sep, 0});
        *d++ = '\0';
    }
    *out = v;
    *n = k;
    return SBW_OK;
}

/* The grid table of the m curves (names nm) under c's meta, written. */
static int curves_table(const sbw_cli_common *c, const sbw_lm_curve *cv, char **nm, size_t m)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-lm curves", c, false);
    st = st ? st : sbw_lm_curve_table_fill(t, cv, nm, m, CA.step);
    st = st ? st : sbw_table_write(t, c->output ? c->output : "-", c->json);
    sbw_table_free(t);
    return st;
}

static int run_curves(int argc, char **argv)
{
    sbw_cli_common c;
    int st = sbw_cli_parse(&curves_cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    sbw_cli_name_command(&c, "sbw-lm");
    if (!sbw_cli_given(&curves_cli, &c, "--step") || !CA.names)
        return sbw_cli_usage_error(&curves_cli, "--step S and --names LIST are required");
    char **nm = NULL;
    size_t m = 0;
    if ((st = split_list(CA.names, ',', &nm, &m)) != 0)
        return sbw_cli_fail("sbw-lm curves", st);
    for (size_t j = 0; j < m; j++)
        for (const char *q = nm[j]; *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                m = 0; /* a tab or newline would break the table's header */
    if (m != (size_t)c.nargs) {
        free(nm);
        return sbw_cli_usage_error(&curves_cli,
                                   m ? "--names gives %zu names for %d curves"
                                     : "--names: a name with a control character",
                                   m, c.nargs);
    }
    sbw_lm_curve *cv = calloc(m ? m : 1, sizeof *cv);
    st = cv ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "%zu curves", m);
    for (size_t j = 0; j < m && !st; j++)
        st = sbw_lm_curve_read(&cv[j], c.args[j]);
    st = st ? st : curves_table(&c, cv, nm, m);
    for (size_t j = 0; cv && j < m; j++)
        sbw_lm_curve_free(&cv[j]);
    free(cv);
    free(nm);
    return st ? sbw_cli_fail("sbw-lm curves", st) : SBW_EXIT_OK;
}

static const sbw_cli_opt order_opts[] = {
    {"--pairs", "LIST", SBW_ARG_STRING, &CA.pairs, 1, 0,
     "A:B,... the order to test, highest first (required)"},
    {"--labels", "LIST", SBW_ARG_STRING, &CA.labels, 1, 0,
     "NAME=Label,... names to print instead of column names"},
    {"--tsv", NULL, SBW_ARG_FLAG, &CA.tsv, 1, 0, "a table, one row per pair, instead of words"},
    {0}};

static const char order_details[] =
    "GRID.tsv is a table of sbw-lm curves.  For each pair A:B, at the grid\n"
    "points where neither column is nan, d = A - B (from the values as the\n"
    "table prints them); one markdown line says whether A is above B at all\n"
    "of them (with the smallest and largest d), below at all of them, or\n"
    "above at some, and between which points the sign changes; or that no\n"
    "perplexity was measured for both (a column missing or all nan).  Then\n"
    "whether the whole chain holds: it does not when any pair is measured\n"
    "and not above everywhere; it cannot be read when, short of that, a\n"
    "pair has no common point.  Output: text on stdout.\n\n"
    "--tsv writes the same as a table (for recipes): a, b, common, above,\n"
    "ppl_from, ppl_to, d_min, d_max, sign_changes and order (above, below,\n"
    "mixed or none), and the meta line '# chain=' holds, broken or\n"
    "incomplete.  --labels does not apply to it.\n\n"
    "Example: sbw-lm order --pairs mos:moc,moc:softmax \\\n"
    "            --labels mos=MoS,moc=MoC,softmax=Softmax kld-at-ppl.tsv\n";

static const sbw_cli order_cli = {"sbw-lm order",
                                  "--pairs LIST GRID.tsv",
                                  "Whose KLD is above whose at equal perplexity, in words.",
                                  order_details,
                                  order_opts,
                                  1,
                                  1,
                                  0};

/* The order of the np pairs on grid g as a table on stdout, under c's meta. */
static int order_table(const sbw_cli_common *c, const sbw_lm_curve_table *g, char **pairs,
                       size_t np)
{
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-lm order", c, false);
    st = st ? st : sbw_lm_curve_order_fill(t, g, pairs, np);
    st = st ? st : sbw_table_write(t, "-", false);
    sbw_table_free(t);
    return st;
}

static int run_order(int argc, char **argv)
{
    sbw_cli_common c;
    int st = sbw_cli_parse(&order_cli, argc, argv, &c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    sbw_cli_name_command(&c, "sbw-lm");
    if (!CA.pairs)
        return sbw_cli_usage_error(&order_cli, "--pairs LIST is required");
    char **pr = NULL, **lb = NULL;
    size_t np = 0, nl = 0;
    sbw_lm_curve_table t;
    st = split_list(CA.pairs, ',', &pr, &np);
    st = st || !CA.labels ? st : split_list(CA.labels, ',', &lb, &nl);
    st = st ? st : sbw_lm_curve_table_read(&t, c.args[0]);
    if (!st) {
        st = CA.tsv ? order_table(&c, &t, pr, np)
                    : sbw_lm_curve_order_print(stdout, &t, pr, np, lb, nl);
        sbw_lm_curve_table_free(&t);
    }
    free(pr);
    free(lb);
    return st ? sbw_cli_fail("sbw-lm order", st) : SBW_EXIT_OK;
}

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    const char *cmd = argc > 1 ? argv[1] : "";
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(top_help, stdout);
        return SBW_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("sbw-lm (sbw) %s\n%s\n", SBW_CLI_VERSION, sbw_cli_blas());
        return SBW_EXIT_OK;
    }
    if (strcmp(cmd, "train") == 0)
        return run_train(argc - 1, argv + 1);
    if (strcmp(cmd, "eval") == 0)
        return run_eval(argc - 1, argv + 1);
    if (strcmp(cmd, "curves") == 0)
        return run_curves(argc - 1, argv + 1);
    if (strcmp(cmd, "order") == 0)
        return run_order(argc - 1, argv + 1);
    char name[256];
    sbw_error_escape(cmd, name, sizeof name);
    fprintf(
        stderr,
        "sbw-lm: %s '%s'\nUsage: sbw-lm train|eval|curves|order [options]\nTry 'sbw-lm --help'.\n",
        *cmd ? "unknown command" : "missing command", name);
    return SBW_EXIT_USAGE;
}
