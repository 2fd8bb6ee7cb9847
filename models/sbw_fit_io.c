/* sbw_fit_io.c -- log Q export, parameters, training log, header. */
#include "sbw_fit_io.h"

#include "sbw_error.h"
#include "sbw_head_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- header --------------------------------------------------------------- */

static void grid_string(const double *x, size_t n, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at + 32 < cap; i++) {
        char num[32];
        sbw_table_format_double(x[i], num, sizeof num);
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? "," : "", num);
    }
}

/* The head's meta and its initialisation.  Errors: sbw_head_io_describe's,
 * the table's (sticky). */
static int describe_head(const sbw_fit *f, sbw_table *t)
{
    int st = sbw_head_io_describe(&f->head, t);
    size_t bound = sbw_head_rank_bound(&f->head);
    if (bound)
        sbw_table_meta_int(t, "rank_bound", (long long)bound);
    else
        sbw_table_meta_str(t, "rank_bound", "none");
    sbw_table_meta_dbl(t, "init_scale", f->opt.init_scale);
    sbw_table_meta_str(t, "init",
                       "H,W,V ~ N(0,init_scale^2); U ~ N(0,1/D); b=0; lms "
                       "u=1, c even on [-4,4], v=spacing, lambda=1; plif "
                       "slopes 1");
    return st ? st : sbw_table_status(t);
}

/* The optimiser's settings and the stopping rule as meta.  Errors: the
 * table's (sticky). */
static int describe_optimiser(const sbw_fit *f, sbw_table *t)
{
    const sbw_fit_opts *o = &f->opt;
    bool adam = o->optimizer == SBW_FIT_ADAM;
    char buf[512], rule[256];
    sbw_table_meta_str(t, "optimizer", adam ? "adam" : "lbfgs");
    sbw_table_meta_dbl(t, "lr", adam ? o->lr : NAN);
    sbw_table_meta_str(t, "lr_mode", !adam ? "line-search" : f->nlr ? "auto" : "fixed");
    if (f->nlr) {
        grid_string(f->lr_grid, f->nlr, buf, sizeof buf);
        sbw_table_meta_str(t, "lr_auto_grid", buf);
        grid_string(f->lr_kl, f->nlr, buf, sizeof buf);
        sbw_table_meta_str(t, "lr_auto_kl", buf);
        sbw_table_meta_int(t, "lr_auto_rows", (long long)o->lr_auto_rows);
        sbw_table_meta_int(t, "lr_auto_steps", (long long)o->lr_auto_steps);
    }
    sbw_table_meta_dbl(t, "beta1", o->beta1);
    sbw_table_meta_dbl(t, "beta2", o->beta2);
    sbw_table_meta_dbl(t, "eps", o->eps);
    sbw_table_meta_dbl(t, "decay", o->decay);
    sbw_table_meta_int(t, "batch", (long long)(o->batch ? o->batch : f->head.n));
    sbw_table_meta_int(t, "lbfgs_mem", (long long)(adam ? 0 : o->lbfgs_mem));
    sbw_table_meta_int(t, "steps", (long long)o->steps);
    sbw_table_meta_dbl(t, "tol", o->tol);
    sbw_table_meta_int(t, "tol_window", (long long)o->tol_window);
    if (o->tol > 0)
        snprintf(rule, sizeof rule,
                 "at most %zu steps; stop when mean KL over %zu steps improves on the previous "
                 "window by <= %g x KL%s",
                 o->steps, o->tol_window, o->tol, adam ? "" : "; or no L-BFGS decrease");
    else
        snprintf(rule, sizeof rule, "%zu steps%s", o->steps, adam ? "" : " or no L-BFGS decrease");
    sbw_table_meta_str(t, "convergence", rule);
    return sbw_table_status(t);
}

int sbw_fit_io_describe(const sbw_fit *f, sbw_table *t)
{
    const sbw_fit_opts *o = &f->opt;
    int st = describe_head(f, t);
    st = st ? st : describe_optimiser(f, t);
    if (st)
        return st;
    sbw_table_meta_str(t, "precision", sbw_fit_opts_precision(o));
    sbw_table_meta_int(t, "fit_threads", sbw_obj_threads(f->obj));
    sbw_table_meta_int(t, "block", (long long)sbw_obj_block(f->obj));
    sbw_table_meta_str(t, "parallel", o->obj.par == SBW_PASS_PAR_BLAS ? "blas" : "blocks");
    sbw_table_meta_int(t, "log_every", (long long)sbw_fit_log_every(f));
    sbw_table_meta_str(t, "checkpoint", o->checkpoint_dir ? o->checkpoint_dir : "none");
    sbw_table_meta_dbl(t, "checkpoint_every", o->checkpoint_every);
    sbw_table_meta_int(t, "resumed_at_step", (long long)f->resumed_at);
    sbw_table_meta_int(t, "steps_done", (long long)f->step);
    sbw_table_meta_str(t, "stop", sbw_fit_stop_name(f->stop));
    sbw_table_meta_dbl(t, "entropy_mean", sbw_fit_fingerprint(f->t) / (double)f->head.n);
    return sbw_table_status(t);
}

int sbw_fit_io_log_table(const sbw_fit *f, sbw_table *t)
{
    static const char *const cols[] = {"step",       "epoch", "loss",   "kl_mean",
                                       "mode_match", "lr",    "seconds"};
    sbw_table_columns(t, cols, 7);
    for (size_t i = 0; i < f->nlog; i++) {
        const sbw_fit_logrow *r = &f->log[i];
        sbw_table_add_row(t);
        sbw_table_set_int(t, "step", (long long)r->step);
        sbw_table_set_int(t, "epoch", (long long)r->epoch);
        sbw_table_set_dbl(t, "loss", r->loss);
        sbw_table_set_dbl(t, "kl_mean", r->kl);
        sbw_table_set_dbl(t, "mode_match", r->mode_match);
        sbw_table_set_dbl(t, "lr", r->lr);
        sbw_table_set_dbl(t, "seconds", r->seconds);
    }
    return sbw_table_status(t);
}

/* ---- log Q ---------------------------------------------------------------- */

typedef struct logq_pass {
    sbw_obj *o;
    double *lq, *lp;
    size_t chunk;
    sbw_npy_writer *w;
} logq_pass;

static int logq_setup(const sbw_fit *f, const char *out, logq_pass *p)
{
    sbw_obj_opts oo = f->opt.obj;
    oo.single = oo.bf16 = false; /* float64 from the final parameters */
    oo.block = 0;
    int st = sbw_obj_alloc(&p->o, &f->head, f->t, &oo);
    if (st)
        return st;
    size_t m = f->head.m, chunk = sbw_obj_block(p->o) * (size_t)sbw_obj_threads(p->o);
    p->chunk = chunk < f->head.n ? chunk : f->head.n;
    p->lq = malloc(p->chunk * m * sizeof *p->lq);
    p->lp = malloc(p->chunk * m * sizeof *p->lp);
    if (!p->lq || !p->lp)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (log Q pass)");
    return out ? sbw_npy_create(&p->w, out, f->head.n, m, 2, SBW_F64) : SBW_OK;
}

int sbw_fit_io_logq(const sbw_fit *f, const char *out, sbw_npy_reader *exact, sbw_obj_result *res,
                    sbw_progress *progress)
{
    logq_pass p = {0};
    size_t n = f->head.n, m = f->head.m;
    double loss = 0, kl = 0, hits = 0;
    int st = logq_setup(f, out, &p);
    if (!st && exact)
        st = sbw_npy_seek_row(exact, 0);
    for (size_t r0 = 0; !st && r0 < n; r0 += p.chunk) {
        size_t nr = n - r0 < p.chunk ? n - r0 : p.chunk;
        sbw_obj_result part = {0};
        if (exact)
            st = sbw_npy_read_rows(exact, p.lp, nr, m);
        st = st ? st : sbw_obj_logq(p.o, f->theta, r0, nr, p.lq, exact ? p.lp : NULL, &part);
        st = st ? st : (p.w ? sbw_npy_write_rows(p.w, p.lq, nr, m) : SBW_OK);
        loss += part.loss * (double)nr;
        kl += part.kl * (double)nr;
        hits += part.mode_match * (double)nr;
        if (progress)
            sbw_progress_update(progress, (double)(r0 + nr));
    }
    if (p.w)
        st = st ? (sbw_npy_abort(p.w), st) : sbw_npy_finish(p.w);
    sbw_obj_free(p.o);
    free(p.lq);
    free(p.lp);
    if (!st)
        *res = (sbw_obj_result){loss / (double)n, kl / (double)n, hits / (double)n, n};
    return st;
}

/* ---- parameters ------------------------------------------------------------ */

int sbw_fit_io_save(const sbw_fit *f, const char *dir, sbw_table *t)
{
    int st = sbw_fit_io_describe(f, t); /* the head's meta first, in the fit's order */
    return st ? st : sbw_head_io_save(&f->head, f->theta, dir, t);
}

int sbw_fit_io_load(sbw_fit *f, const char *dir)
{
    sbw_head_block b[SBW_HEAD_MAX_BLOCKS];
    size_t nb = sbw_head_blocks(&f->head, b);
    int st = SBW_OK;
    for (size_t i = 0; !st && i < nb; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.npy", dir, b[i].name);
        sbw_npy_reader *r;
        if ((st = sbw_npy_open(&r, path)))
            break;
        const sbw_npy_info *in = sbw_npy_reader_info(r);
        if (in->rows != b[i].rows || in->cols != b[i].cols)
            st = SBW_ERROR(SBW_EFORMAT, "%s: shape %zu x %zu, the head needs %zu x %zu", path,
                           in->rows, in->cols, b[i].rows, b[i].cols);
        st = st ? st : sbw_npy_read_rows(r, f->theta + b[i].off, b[i].rows, b[i].cols);
        sbw_npy_close(r);
    }
    return st;
}
