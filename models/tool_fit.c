/* sbw-fit: fit a Softmax-family head (softmax, sigsoftmax, moc, mos, lms,
 * plif, mos+plif, mixtape) to a language log P*, with one context embedding per row
 * and shared word embeddings, by minimising the mean cross-entropy; write
 * the fitted log Q (recomputed in float64), the parameters and the
 * training log. */
#include "sbw.h"
#include "sbw_ckpt.h"
#include "sbw_fit.h"
#include "sbw_fit_ckpt.h"
#include "sbw_fit_opts.h"
#include "sbw_fit_io.h"
#include "sbw_head_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {"model", "d",       "k",          "steps", "stop",
                                      "loss",  "kl_mean", "mode_match", "lr",    "seconds"};

static const char details[] =
    "Fits Q_j = head(h_j, W) to the rows of log P* (N x M, one context per row):\n"
    "one free h_j in R^D per context, word embeddings W (M x D) shared, by minimising\n"
    "the mean cross-entropy -1/N sum_j sum_i P*_ji log Q_ji, i.e. the mean KL(P*||Q)\n"
    "plus the entropy of P* (LMS paper, section 5.1).  Heads (z = W x + b):\n"
    "  softmax     Q = softmax(W h)\n"
    "  sigsoftmax  Q = softmax(2z - softplus(z))                   (Kanai et al. 2018)\n"
    "  moc K       Q = softmax(W sum_k pi_k g_k)                   (MoS paper 2.5)\n"
    "  mos K       Q = sum_k pi_k softmax(W g_k), pi = softmax(V h), g_k = tanh(U_k h)\n"
    "  lms K       Q = softmax(f(z)), f = sum_i v_i sigma(u_i z + c_i) [+ lambda z]\n"
    "  plif K      Q = softmax(f(z)), f piecewise linear increasing, K intervals on\n"
    "              [-T, T], slopes softplus(a_i), linear outside  (LMS paper 4)\n"
    "  mos+plif    Q = sum_k pi_k softmax(f(W g_k))\n"
    "  mixtape K   Q = softmax(sum_k pi_k W g_k), pi per word (sigmoid tree)\n"
    "Initialisation: H, W, V ~ N(0, S^2) (S = --init-scale); U ~ N(0, 1/D); b = 0;\n"
    "lms: u_i = 1, c_i evenly on [-4, 4], v_i = their spacing, lambda = 1; plif:\n"
    "every slope 1 (so it starts as softmax).  Optimisers: Adam as torch.optim.Adam\n"
    "without weight decay (--decay G is a learning-rate decay: step t uses lr*G^(t-1),\n"
    "as torch's ExponentialLR; --batch B: lazy updates of the batch's rows of H), or\n"
    "full-batch L-BFGS with a strong-Wolfe line search.  --lr auto tries\n"
    "1e-3,3e-3,1e-2,3e-2,0.1,0.3 for 100 steps on 1024 seeded contexts and keeps the\n"
    "lowest KL; the grid and its KLs are in the header (and --log's).\n"
    "--tol R stops when the mean KL of the last --tol-window steps improves on the\n"
    "previous window's by <= R times itself.  A fit that stops at --steps S while\n"
    "still improving says so: when the mean KL of the final state is lower than\n"
    "that of the last log row at or before step S - ceil(S/10) (and after\n"
    "S - 2 ceil(S/10); with sparser logs no verdict) by more than R\n"
    "times itself (R = --tol, or 0.001 when --tol is 0), the table (and --log,\n"
    "--save's params.tsv) carries '# warning=fit_still_improving: ...' (JSON: the\n"
    "\"warnings\" array, always present).\n\n"
    "Speed: contexts run in blocks (nothing N x M is formed).  --precision single:\n"
    "GEMMs, exp/log and P* in float32; double: all in float64; bf16: single with\n"
    "bfloat16 GEMM inputs (AVX-512 BF16).  Every sum is in float64.  Output log Q\n"
    "and final metrics are recomputed in float64 from the final parameters.  GEMM\n"
    "kernels: OpenBLAS's choice, or OPENBLAS_CORETYPE's (Haswell = AVX2 only).\n\n"
    "Output (stdout): one row: model, d, k, steps (done), stop (steps, tol,\n"
    "converged, signal), loss (mean cross-entropy), kl_mean, mode_match (fraction of\n"
    "contexts whose argmax Q is argmax P*) -- the last three from the float64 pass\n"
    "against the input read again --, lr, seconds.  --log FILE: step, epoch, loss,\n"
    "kl_mean, mode_match, lr, seconds every --log-every steps (training precision).\n"
    "stdout carries one stream: with -o - (or --log -) that goes to stdout and\n"
    "the table to stderr; -o - with --log - is refused.\n"
    "--save DIR: H.npy, W.npy, ..., the positive map values (plif_slope.npy, lms_u.npy,\n"
    "...), params.tsv and, for lms, plif and mos+plif, map.tsv: the learned f on a grid\n"
    "(x, f; what sbw-plot monotone DIR draws).  --map DIR alone (no LOGP.npy, no other\n"
    "option but -q) writes DIR/map.tsv again from a folder of --save or sbw-lm eval\n"
    "--export -- params.tsv's meta and the positive values, each checked (size, finite,\n"
    "> 0) -- the same bytes as the save wrote but its # command= line; nothing else is\n"
    "read or written, so a folder saved before map.tsv existed can be drawn again.\n"
    "Checkpoints: every --checkpoint-every seconds and on SIGINT/SIGTERM into\n"
    "--checkpoint DIR (default FILE.ckpt beside -o FILE, removed after success);\n"
    "--resume DIR continues bit for bit (same --threads).  A NaN loss stops the fit\n"
    "(exit 1) naming the step.\n\n"
    "Examples:\n"
    "  sbw-synth lowrank --n 2000 --m 500 --rank 8 -o P.npy\n"
    "  sbw-fit P.npy --model softmax --d 8 --steps 2000 --lr auto -o Q.npy\n"
    "  sbw-fit P.npy --model mos --k 10 --d 20 --log train.tsv --save params/\n"
    "  sbw-fit P.npy --model lms --k 10 --d 20 --dry-run\n"
    "  sbw-fit --map params/\n";

typedef struct tool_args {
    const char *model, *optimizer, *precision, *parallel, *lr, *k, *knots;
    const char *log, *save, *init, *checkpoint, *resume, *map;
    size_t log_every;
    double norm_tol;
    bool dry_run;
} tool_args;

static void on_step(void *ctx, const sbw_fit *f) { sbw_progress_update(ctx, (double)f->step); }

/* ---- options ------------------------------------------------------------- */

static int pick(const sbw_cli *cli, const char *what, const char *val, const char *const *names,
                int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(val, names[i]) == 0) {
            *out = i;
            return 0;
        }
    return sbw_cli_usage_error(cli, "unknown %s '%s'", what, val);
}

/* K and the PLIF intervals from --k / --knots (strings: absent = default). */
static int parse_k(const sbw_cli *cli, const tool_args *a, sbw_fit_opts *o)
{
    size_t k = o->model == SBW_MODEL_MIXTAPE ? 4 : 10, knots = 1000;
    if (a->k && sbw_cli_parse_size(a->k, "--k", 1, 1e7, &k))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (a->knots && sbw_cli_parse_size(a->knots, "--knots", 1, 1e8, &knots))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (o->model == SBW_MODEL_PLIF && a->k && a->knots)
        return sbw_cli_usage_error(cli, "plif: give its intervals with --k or --knots, not both");
    o->k = k;
    o->knots = o->model == SBW_MODEL_PLIF && a->k ? k : knots;
    return 0;
}

static int parse_choices(const sbw_cli *cli, const tool_args *a, sbw_fit_opts *o)
{
    static const char *const opts[] = {"adam", "lbfgs"};
    static const char *const prec[] = {"single", "double", "bf16"};
    static const char *const par[] = {"blocks", "blas"};
    int v = 0;
    if (sbw_head_model_parse(a->model, &o->model))
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    if (pick(cli, "optimizer", a->optimizer, opts, 2, &v))
        return SBW_EXIT_USAGE;
    o->optimizer = (sbw_fit_opts_optimizer)v;
    if (pick(cli, "precision", a->precision, prec, 3, &v))
        return SBW_EXIT_USAGE;
    o->obj.single = v != 1;
    o->obj.bf16 = v == 2;
    if (pick(cli, "parallel scheme", a->parallel, par, 2, &v))
        return SBW_EXIT_USAGE;
    o->obj.par = (sbw_pass_par)v;
    o->lr_auto = strcmp(a->lr, "auto") == 0;
    if (!o->lr_auto && sbw_cli_parse_double(a->lr, "--lr", 1e-12, 1e6, &o->lr))
        return sbw_cli_usage_error(cli, "%s (or 'auto')", sbw_error_reason());
    return parse_k(cli, a, o);
}

/* ---- options that do not apply ---------------------------------------------- */

/* An option given on the command line that the chosen model or optimiser
 * would ignore is a usage error naming it and why (sbw_cli_check_applies);
 * so is --init-scale 0 from scratch, which would not train. */
static int check_applies(const sbw_cli *cli, const sbw_cli_common *c, const sbw_fit_opts *o)
{
    sbw_head_model mo = o->model;
    bool plif = mo == SBW_MODEL_PLIF || mo == SBW_MODEL_MOS_PLIF;
    bool uses_k = plif || mo == SBW_MODEL_MOC || mo == SBW_MODEL_MOS || mo == SBW_MODEL_LMS ||
                  mo == SBW_MODEL_MIXTAPE;
    bool adam = o->optimizer == SBW_FIT_ADAM;
    const char *model = sbw_head_model_name(mo);
    const char *adam_only = "it is a setting of Adam (L-BFGS takes its steps by line search)";
    const sbw_cli_applies rows[] = {
        {"--k", uses_k, model,
         "it sets the components of moc, mos, mos+plif and mixtape, the hidden units of lms, the "
         "intervals of plif"},
        {"--knots", plif, model, "only plif and mos+plif have PLIF intervals"},
        {"--plif-t", plif, model, "only plif and mos+plif have PLIF knots"},
        {"--lr", adam, "lbfgs", adam_only},
        {"--beta1", adam, "lbfgs", adam_only},
        {"--beta2", adam, "lbfgs", adam_only},
        {"--adam-eps", adam, "lbfgs", adam_only},
        {"--decay", adam, "lbfgs", adam_only},
        {"--lbfgs-mem", !adam, "adam", "it is the history of --optimizer lbfgs"},
    };
    int st = sbw_cli_check_applies(cli, c, rows, sizeof rows / sizeof *rows);
    if (st)
        return st;
    if (o->init_scale == 0 && sbw_cli_given(cli, c, "--init-scale") &&
        !sbw_cli_given(cli, c, "--init"))
        return sbw_cli_usage_error(cli, "--init-scale 0 starts H and W at zero, where their "
                                        "gradients vanish: nothing would train (give S > 0)");
    return 0;
}

/* ---- dry run --------------------------------------------------------------- */

static int plan_row(sbw_table *t, const char *item, double bytes)
{
    sbw_table_add_row(t);
    sbw_table_set_str(t, "item", item);
    sbw_table_set_dbl(t, "bytes", bytes);
    sbw_table_set_dbl(t, "gib", bytes / 1073741824.0);
    return sbw_table_status(t);
}

/* The memory the fit will take, item by item, from the input's header. */
static int plan(const sbw_fit_opts *o, size_t n, size_t m, double items[6])
{
    sbw_head h;
    int st =
        sbw_head_setup(&h, o->model, n, m, o->d, o->k, o->knots, o->plif_t, o->bias, o->linear);
    if (st)
        return st;
    double np = (double)h.nparam,
           opt = o->optimizer == SBW_FIT_ADAM ? 16 * np : (16 * (double)o->lbfgs_mem + 24) * np;
    sbw_obj_opts d64 = o->obj;
    d64.single = d64.bf16 = false, d64.block = 0;
    double w64 = sbw_obj_workspace_bytes(&h, &d64);
    double chunk = (double)sbw_obj_auto_block(&h, &d64) * (double)o->obj.threads * 16 * (double)m;
    double all[] = {sbw_target_bytes(n, m, o->obj.single), 16 * np,     opt,
                    sbw_obj_workspace_bytes(&h, &o->obj),  w64 + chunk, 8 << 20};
    memcpy(items, all, sizeof all);
    return SBW_OK;
}

/* --dry-run's table: the plan's items and their total as rows of t.  A
 * failure of the plan leaves t untouched; after the table's, t has failed
 * (sticky) and the status is its first failure. */
static int dry_run(sbw_table *t, const sbw_fit_opts *o, size_t n, size_t m)
{
    static const char *const cols[] = {"item", "bytes", "gib"};
    double items[6];
    int st = plan(o, n, m, items);
    if (st)
        return st;
    const char *names[] = {o->obj.single ? "P* (float32)" : "P* (float64)",
                           "parameters + gradient",
                           o->optimizer == SBW_FIT_ADAM ? "Adam moments" : "L-BFGS history",
                           "objective workspace",
                           "final float64 pass",
                           "input read buffer"};
    double total = 0;
    sbw_table_columns(t, cols, 3);
    for (size_t i = 0; i < 6; i++) {
        plan_row(t, names[i], items[i]);
        total += items[i];
    }
    plan_row(t, "total", total);
    return sbw_table_status(t);
}

/* ---- the run ----------------------------------------------------------------- */

typedef struct run {
    const sbw_cli *cli;
    sbw_cli_common c;
    tool_args a;
    sbw_fit_opts o;
    sbw_npy_reader *in;
    sbw_target t;
    sbw_fit *f;
    sbw_table *tab;
    char ckpt[4096];
    bool ckpt_auto;      /* the default FILE.ckpt: removed after success */
    sbw_ckpt_lock *lock; /* the checkpoint folder's: one writer at a time */
    FILE *table;         /* stdout, or stderr when -o - or --log - */
} run;

/* The checkpoint directory: --checkpoint, else --resume's, else FILE.ckpt
 * beside -o FILE. */
static void choose_checkpoint(run *r)
{
    const char *dir = r->a.checkpoint ? r->a.checkpoint : r->a.resume;
    if (dir) {
        snprintf(r->ckpt, sizeof r->ckpt, "%s", dir);
    } else if (r->c.output && !sbw_file_is_std(r->c.output)) {
        snprintf(r->ckpt, sizeof r->ckpt, "%s.ckpt", r->c.output);
        r->ckpt_auto = true;
    }
    r->o.checkpoint_dir = r->ckpt[0] ? r->ckpt : NULL;
    if (r->o.checkpoint_dir && !r->a.resume && !r->a.dry_run && !r->c.quiet &&
        sbw_ckpt_exists(r->ckpt))
        fprintf(stderr,
                "sbw-fit: note: %s holds a checkpoint of an earlier fit; this fit "
                "starts afresh and will replace it (to continue that one instead: "
                "--resume %s)\n",
                r->ckpt, r->ckpt);
}

/* Every output checked before any work: creatable, and none of them the
 * input P* (or the --init parameters) or another output. */
static int preflight(const run *r)
{
    const char *in[] = {r->c.args[0], r->a.init};
    const sbw_preflight_out out[] = {{"-o", r->c.output, false},
                                     {"--log", r->a.log, false},
                                     {"--save", r->a.save, true},
                                     {"--checkpoint", r->o.checkpoint_dir, true}};
    return sbw_preflight(in, 2, out, r->a.dry_run ? 0 : 4);
}

static int load_target(run *r)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r->in);
    sbw_progress p;
    sbw_progress_start(&p, "sbw-fit: reading", "rows", (double)in->rows, r->c.quiet);
    int st = sbw_target_load(&r->t, r->in, r->o.obj.single, r->a.norm_tol, &p);
    sbw_progress_finish(&p);
    return st;
}

/* Whether the command line set row explicitly (--lr auto sets lr_auto,
 * not lr; plif takes its intervals from --k too). */
static bool row_given(void *ctx, const sbw_ckpt_field *row)
{
    const run *r = ctx;
    bool plif = r->o.model == SBW_MODEL_PLIF;
    if (!row->option)
        return false;
    if (strcmp(row->key, "lr") == 0)
        return sbw_cli_given(r->cli, &r->c, "--lr") && !r->o.lr_auto;
    if (plif && strcmp(row->key, "k") == 0)
        return false;
    if (plif && strcmp(row->key, "knots") == 0 && sbw_cli_given(r->cli, &r->c, "--k"))
        return true;
    return sbw_cli_given(r->cli, &r->c, row->option);
}

/* --resume: refuses (exit 2, sbw_ckpt_resume_check) when an option given
 * on the command line contradicts a setting the checkpoint fixes; exit 1
 * when the checkpoint cannot be read or holds values out of range. */
static int check_resume(run *r)
{
    sbw_fit_opts saved;
    int st = sbw_fit_ckpt_saved_opts(r->a.resume, &r->o, &saved);
    if (st)
        return sbw_cli_fail("sbw-fit", st == SBW_EINVAL ? SBW_EFORMAT : st);
    st = sbw_ckpt_resume_check(sbw_fit_opts_table, sbw_fit_opts_nrows, &r->o, &saved, row_given, r,
                               r->a.resume);
    return st ? sbw_cli_fail("sbw-fit", st) : SBW_EXIT_OK;
}

static int make_fit(run *r)
{
    if (r->a.resume) {
        sbw_fit_opts saved;
        int st = sbw_fit_ckpt_resume(&r->f, &r->t, r->a.resume, &r->o, &saved);
        if (!st && saved.obj.threads != r->o.obj.threads && !r->c.quiet)
            fprintf(stderr,
                    "sbw-fit: note: the checkpoint ran on %d thread(s), this run on %d: "
                    "the result may differ in the last bits from an uninterrupted run\n",
                    saved.obj.threads, r->o.obj.threads);
        return st;
    }
    int st = sbw_fit_alloc(&r->f, &r->t, &r->o);
    if (!st && r->a.init)
        st = sbw_fit_io_load(r->f, r->a.init);
    return st;
}

static int fit(run *r)
{
    sbw_progress p;
    sbw_progress_start(&p, "sbw-fit", "steps", (double)r->o.steps, r->c.quiet);
    /* make_fit succeeded, so sbw_fit_alloc set r->f (not visible to the analyzer) */
    // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
    r->f->opt.on_step = on_step;
    r->f->opt.ctx = &p;
    sbw_progress_update(&p, (double)r->f->step);
    int st = sbw_fit_run(r->f);
    sbw_progress_finish(&p);
    r->f->opt.on_step = NULL;
    return st;
}

/* --log: the fit's settings and its log rows, checked once by
 * sbw_table_write; after a failure nothing is left under the log's name
 * and r is unchanged. */
static int write_log(run *r)
{
    if (!r->a.log || !r->f)
        return SBW_OK;
    sbw_table *t = NULL;
    int st = sbw_table_alloc(&t, "sbw-fit", &r->c, true);
    if (!st) {
        sbw_table_meta_str(t, "input", r->c.args[0]);
        sbw_fit_io_describe(r->f, t);
        sbw_fit_io_log_table(r->f, t);
        st = sbw_table_write(t, r->a.log, false);
    }
    sbw_table_free(t);
    return st;
}

/* The fit_still_improving warning (sbw_fit_still_improving), for every
 * table written from here on. */
static void warn_improving(const sbw_fit *f)
{
    sbw_fit_logrow a, b;
    if (sbw_fit_still_improving(f, &a, &b))
        sbw_table_warn("fit_still_improving: stopped by --steps %zu while the mean KL was still "
                       "falling: %.6g at step %.0f, %.6g at step %.0f (%.3g%% lower); more steps "
                       "would lower it",
                       f->opt.steps, a.kl, a.step, b.kl, b.step, 100 * (a.kl - b.kl) / a.kl);
}

/* Everything after a successful fit: float64 log Q, parameters, table.
 * A failure of log Q skips the parameters and leaves r->tab untouched;
 * one of the parameters (the .npy written before it stay) leaves r->tab
 * untouched; after the table's, r->tab has failed (sticky) and the
 * status is its first failure. */
static int outputs(run *r)
{
    warn_improving(r->f);
    sbw_obj_result res;
    sbw_progress p;
    bool seekable = !sbw_file_is_std(r->c.args[0]);
    sbw_progress_start(&p, "sbw-fit: log Q", "rows", (double)r->t.n, r->c.quiet);
    int st = sbw_fit_io_logq(r->f, r->c.output, seekable ? r->in : NULL, &res, &p);
    sbw_progress_finish(&p);
    if (!st && r->a.save) {
        sbw_table *t = NULL;
        st = sbw_table_alloc(&t, "sbw-fit", &r->c, true);
        st = st ? st : sbw_fit_io_save(r->f, r->a.save, t);
        sbw_table_free(t);
    }
    if (st)
        return st;
    const sbw_fit *f = r->f;
    sbw_table_meta_str(r->tab, "input", r->c.args[0]);
    sbw_fit_io_describe(f, r->tab);
    sbw_table_columns(r->tab, columns, sizeof columns / sizeof *columns);
    sbw_table_add_row(r->tab);
    sbw_table_set_str(r->tab, "model", sbw_head_model_name(f->head.model));
    sbw_table_set_int(r->tab, "d", (long long)f->head.d);
    sbw_table_set_int(r->tab, "k", (long long)(f->head.k ? f->head.k : f->head.knots));
    sbw_table_set_int(r->tab, "steps", (long long)f->step);
    sbw_table_set_str(r->tab, "stop", sbw_fit_stop_name(f->stop));
    sbw_table_set_dbl(r->tab, "loss", res.loss);
    sbw_table_set_dbl(r->tab, "kl_mean", res.kl);
    sbw_table_set_dbl(r->tab, "mode_match", res.mode_match);
    sbw_table_set_dbl(r->tab, "lr", f->opt.optimizer == SBW_FIT_ADAM ? f->opt.lr : NAN);
    sbw_table_set_dbl(r->tab, "seconds", sbw_fit_seconds(f));
    return sbw_table_status(r->tab);
}

/* Removes the default checkpoint directory after a successful fit. */
static void drop_auto_checkpoint(run *r)
{
    if (r->ckpt_auto && r->f->ckpt_gen && sbw_ckpt_remove(r->ckpt) && !r->c.quiet)
        fprintf(stderr, "sbw-fit: note: could not remove %s: %s\n", r->ckpt, sbw_error_reason());
}

/* --dry-run: the settings as meta, then the plan (dry_run).  A failed
 * meta skips the plan; after any failure r->tab may have failed (sticky)
 * with part of the meta and rows. */
static int do_dry_run(run *r)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r->in);
    sbw_table *t = r->tab;
    sbw_table_meta_str(t, "input", r->c.args[0]);
    sbw_table_meta_str(t, "model", sbw_head_model_name(r->o.model));
    sbw_table_meta_int(t, "n", (long long)in->rows);
    sbw_table_meta_int(t, "m", (long long)in->cols);
    sbw_table_meta_int(t, "d", (long long)r->o.d);
    sbw_table_meta_str(t, "precision", sbw_fit_opts_precision(&r->o));
    sbw_table_meta_str(t, "optimizer", r->o.optimizer == SBW_FIT_ADAM ? "adam" : "lbfgs");
    int st = sbw_table_status(t);
    return st ? st : dry_run(t, &r->o, in->rows, in->cols);
}

/* More PLIF intervals than the matrix has entries (and than the default)
 * buy nothing but memory: a usage error.  Then the whole plan (--dry-run's
 * total) against the machine's memory. */
static int check_size(const run *r)
{
    const sbw_npy_info *in = sbw_npy_reader_info(r->in);
    const sbw_fit_opts *o = &r->o;
    double entries = (double)in->rows * (double)in->cols;
    bool plif = o->model == SBW_MODEL_PLIF || o->model == SBW_MODEL_MOS_PLIF;
    if (plif && (double)o->knots > entries && o->knots > 1000)
        return SBW_ERROR(SBW_EINVAL,
                         "%s: %zu PLIF intervals for a %zu x %zu matrix: more intervals than "
                         "logits (at most max(1000, N x M) = %.0f)",
                         r->c.args[0], o->knots, in->rows, in->cols,
                         entries > 1000 ? entries : 1000);
    double items[6], total = 0;
    int st = plan(o, in->rows, in->cols, items);
    for (int i = 0; !st && i < 6; i++)
        total += items[i];
    return st ? st : sbw_preflight_memory(total, "the fit (see --dry-run)");
}

static int do_fit(run *r)
{
    int st = check_size(r);
    st = st ? st : load_target(r);
    st = st ? st : make_fit(r);
    st = st ? st : fit(r);
    if (st) {
        int st2 = write_log(r); /* what happened up to the failure */
        if (st2 && !r->c.quiet)
            fprintf(stderr, "sbw-fit: could not write the log: %s\n", sbw_error_reason());
        return st;
    }
    sbw_signal_graceful_end(); /* no more polling: a signal now stops the writing */
    st = outputs(r);
    st = st ? st : write_log(r);
    if (!st)
        drop_auto_checkpoint(r);
    return st;
}

/* --map DIR: map.tsv written again from the folder (sbw_head_io_map_regen)
 * and nothing else; LOGP.npy or any other option but -q (which a fit would
 * use and this ignores) is a usage error naming it. */
static int map_only(const sbw_cli *cli, const sbw_cli_common *c, const char *dir)
{
    static const char why[] = "--map DIR only writes DIR/map.tsv from DIR's params.tsv and "
                              ".npy files";
    if (c->nargs > 0)
        return sbw_cli_usage_error(cli, "unexpected argument '%s': %s", c->args[0], why);
    for (size_t i = 0; i < SBW_CLI_MAX_OPTS && cli->opts[i].name; i++)
        if (c->given[i] && strcmp(cli->opts[i].name, "--map") != 0)
            return sbw_cli_usage_error(cli, "%s does not apply to --map: %s", cli->opts[i].name,
                                       why);
    const char *common = c->output       ? "-o"
                         : c->json       ? "--json"
                         : c->seed_given ? "--seed"
                         : c->threads    ? "--threads"
                                         : NULL;
    if (common)
        return sbw_cli_usage_error(cli, "%s does not apply to --map: %s", common, why);
    int st = sbw_head_io_map_regen(dir, c->cmdline);
    return st ? sbw_cli_fail("sbw-fit", st) : SBW_EXIT_OK;
}

/* The run's state: file-scope so that the option table can point into it;
 * main() fills in sbw_fit_opts_init's defaults before parsing. */
static run R = {.a = {.model = "softmax",
                      .optimizer = "adam",
                      .precision = "single",
                      .parallel = "blocks",
                      .lr = "0.01",
                      .norm_tol = SBW_CHECK_TOL}};

static const sbw_cli_opt opts[] = {
    {"--model", "NAME", SBW_ARG_STRING, &R.a.model, 1, 0,
     "softmax, sigsoftmax, moc, mos, lms, plif, mos+plif or mixtape"},
    {"--d", "D", SBW_ARG_SIZE, &R.o.d, 1, 1e9, "embedding size (1 <= D <= M)"},
    {"--k", "K", SBW_ARG_STRING, &R.a.k, 1, 0,
     "components (moc, mos, mos+plif [10]; mixtape [4]) or hidden units (lms) [10]; plif: "
     "intervals [1000]"},
    {"--knots", "K", SBW_ARG_STRING, &R.a.knots, 1, 0, "PLIF intervals (plif, mos+plif) [1000]"},
    {"--plif-t", "T", SBW_ARG_DOUBLE, &R.o.plif_t, 1e-9, 1e9, "PLIF knots span [-T, T]"},
    {"--bias", NULL, SBW_ARG_FLAG, &R.o.bias, 1, 0, "learn a word bias b (M)"},
    {"--linear", NULL, SBW_ARG_FLAG, &R.o.linear, 1, 0, "lms: add a linear term lambda z > 0"},
    {"--init-scale", "S", SBW_ARG_DOUBLE, &R.o.init_scale, 0, 1e6, "std of H, W, V at start"},
    {"--init", "DIR", SBW_ARG_STRING, &R.a.init, 1, 0, "start from parameters of --save DIR"},
    {"--optimizer", "NAME", SBW_ARG_STRING, &R.a.optimizer, 1, 0, "adam or lbfgs"},
    {"--lr", "X|auto", SBW_ARG_STRING, &R.a.lr, 1, 0, "Adam learning rate, or auto"},
    {"--beta1", "B", SBW_ARG_DOUBLE, &R.o.beta1, 0, 0.999999999, "Adam beta1"},
    {"--beta2", "B", SBW_ARG_DOUBLE, &R.o.beta2, 0, 0.999999999, "Adam beta2"},
    {"--adam-eps", "E", SBW_ARG_DOUBLE, &R.o.eps, 0, 1, "Adam epsilon"},
    {"--decay", "G", SBW_ARG_DOUBLE, &R.o.decay, 1e-12, 1,
     "multiplicative learning-rate decay (not weight decay): step t uses lr * G^(t-1)"},
    {"--batch", "B", SBW_ARG_SIZE, &R.o.batch, 0, 1e15, "contexts per Adam step (0 = all)"},
    {"--steps", "S", SBW_ARG_SIZE, &R.o.steps, 0, 1e15, "at most S updates"},
    {"--tol", "R", SBW_ARG_DOUBLE, &R.o.tol, 0, 1, "relative-improvement stop (0 = off)"},
    {"--tol-window", "W", SBW_ARG_SIZE, &R.o.tol_window, 1, 1e15, "steps per --tol window"},
    {"--lbfgs-mem", "L", SBW_ARG_SIZE, &R.o.lbfgs_mem, 1, 1000, "L-BFGS history pairs"},
    {"--precision", "P", SBW_ARG_STRING, &R.a.precision, 1, 0,
     "single (float32 GEMMs, exp/log, P*), double, or bf16 (bfloat16 GEMM inputs)"},
    {"--parallel", "SCHEME", SBW_ARG_STRING, &R.a.parallel, 1, 0,
     "blocks (OpenMP over blocks) or blas (threaded BLAS)"},
    {"--block", "B", SBW_ARG_SIZE, &R.o.obj.block, 0, 1e9, "contexts per block (0 = auto)"},
    {"--log", "FILE", SBW_ARG_STRING, &R.a.log, 1, 0, "write the training log (TSV)"},
    {"--log-every", "K", SBW_ARG_SIZE, &R.o.log_every, 0, 1e15,
     "steps between log rows (0: 10, or one epoch with --batch)"},
    {"--save", "DIR", SBW_ARG_STRING, &R.a.save, 1, 0, "write the parameters (.npy)"},
    {"--checkpoint", "DIR", SBW_ARG_STRING, &R.a.checkpoint, 1, 0, "checkpoint directory"},
    {"--checkpoint-every", "SEC", SBW_ARG_DOUBLE, &R.o.checkpoint_every, 0, 1e9,
     "seconds between checkpoints (0 = only on a signal)"},
    {"--resume", "DIR", SBW_ARG_STRING, &R.a.resume, 1, 0, "continue from a checkpoint"},
    {"--dry-run", NULL, SBW_ARG_FLAG, &R.a.dry_run, 1, 0, "print the memory plan and stop"},
    {"--map", "DIR", SBW_ARG_STRING, &R.a.map, 1, 0,
     "only write DIR/map.tsv again from a --save or --export folder"},
    {"--norm-tol", "TOL", SBW_ARG_DOUBLE, &R.a.norm_tol, 0, 1,
     "largest |logsumexp| of a row of log P*"},
    {0}};

int main(int argc, char **argv)
{
    sbw_blas_tune(argv);
    run *r = &R;
    sbw_fit_opts_init(&r->o);
    r->o.checkpoint_every = 600;
    const sbw_cli cli = {"sbw-fit",
                         "LOGP.npy | --map DIR",
                         "Fit a Softmax-family head to a language.",
                         details,
                         opts,
                         0,
                         1,
                         SBW_CLI_OUTPUT | SBW_CLI_JSON | SBW_CLI_THREADS | SBW_CLI_SEED};
    int st = sbw_cli_parse(&cli, argc, argv, &r->c);
    if (st)
        return st == SBW_CLI_DONE ? SBW_EXIT_OK : st;
    if (r->a.map)
        return map_only(&cli, &r->c, r->a.map);
    if (r->c.nargs < 1)
        return sbw_cli_usage_error(&cli, "missing argument: LOGP.npy (or --map DIR alone)");
    if ((st = parse_choices(&cli, &r->a, &r->o)))
        return st;
    const sbw_cli_stream data[] = {{"-o", r->c.output}, {"--log", r->a.log}};
    if ((st = sbw_cli_one_stream(&cli, data, 2, NULL, NULL, &r->table)) != 0)
        return st;
    if (!r->a.resume && (st = check_applies(&cli, &r->c, &r->o)))
        return st;
    sbw_error_gsl_quiet();
    r->o.obj.threads = sbw_cli_threads(r->c.threads);
    r->o.seed = r->c.seed;
    r->cli = &cli;
    if (r->a.resume && (st = check_resume(r)))
        return st;
    r->o.stop = sbw_cli_catch_stop();
    choose_checkpoint(r);
    if ((st = preflight(r)) != 0)
        return sbw_cli_fail("sbw-fit", st);
    if (r->o.checkpoint_dir && !r->a.dry_run &&
        (st = sbw_ckpt_lock_take(&r->lock, r->o.checkpoint_dir)) != 0)
        return sbw_cli_fail("sbw-fit", st);
    st = sbw_table_alloc(&r->tab, "sbw-fit", &r->c, true);
    st = st ? st : sbw_check_open(&r->in, r->c.args[0], SBW_SHAPE_MATRIX);
    st = st ? st : r->a.dry_run ? do_dry_run(r) : do_fit(r);
    st = st ? st : sbw_table_print(r->tab, r->table, r->c.json);
    sbw_table_free(r->tab);
    sbw_fit_free(r->f);
    sbw_target_free(&r->t);
    sbw_npy_close(r->in);
    sbw_ckpt_lock_release(r->lock, r->ckpt_auto); /* an emptied FILE.ckpt goes too */
    return st ? sbw_cli_fail("sbw-fit", st) : SBW_EXIT_OK;
}
