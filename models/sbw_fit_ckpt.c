/* sbw_fit_ckpt.c -- a fit's checkpoints: its state written through
 * sbw_ckpt, and a fit continued from one with every value checked
 * (sbw_fit_ckpt.h). */
#include "sbw_fit_ckpt.h"

#include "sbw_ckpt.h"
#include "sbw_error.h"
#include "sbw_progress.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(member) offsetof(sbw_fit, member)
#define U64(key, member)                                                                           \
    {                                                                                              \
        key, AT(member), SBW_CKPT_U64, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL                     \
    }
#define DBL(key, member, lo, hi)                                                                   \
    {                                                                                              \
        key, AT(member), SBW_CKPT_DOUBLE, lo, hi, 0, NULL, SBW_CKPT_SHAPES, NULL                   \
    }
#define GRID(i) DBL("lr_grid_" #i, lr_grid[i], 0, 1e6), DBL("lr_kl_" #i, lr_kl[i], -1e300, INFINITY)

/* The data a checkpoint was made from (the fingerprint: its own row). */
static const sbw_ckpt_field data_rows[] = {
    {"n", AT(head.n), SBW_CKPT_SIZE, 1, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"m", AT(head.m), SBW_CKPT_SIZE, 1, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL}};

/* Where the fit is; cross-checked by check_counters. */
static const sbw_ckpt_field counter_rows[] = {
    U64("step", step),
    U64("epoch", epoch),
    U64("pos", pos),
    U64("adam_t", adam.t),
    {"lbfgs_count", AT(lbfgs.count), SBW_CKPT_SIZE, 0, 1000, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"lbfgs_head", AT(lbfgs.head), SBW_CKPT_SIZE, 0, 999, 0, NULL, SBW_CKPT_SHAPES, NULL},
    U64("lbfgs_iter", lbfgs.iter),
    U64("lbfgs_nfev", lbfgs.nfev),
    DBL("win_sum", win_sum, -1e300, 1e300),
    DBL("win_prev", win_prev, -1e300, 1e300),
    U64("win_n", win_n),
    {"have_prev", AT(have_prev), SBW_CKPT_BOOL, 0, 1, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nlog", AT(nlog), SBW_CKPT_SIZE, 0, 1e15, 0, NULL, SBW_CKPT_SHAPES, NULL},
    {"nlr", AT(nlr), SBW_CKPT_SIZE, 0, SBW_FIT_LR_GRID, 0, NULL, SBW_CKPT_SHAPES, NULL},
    GRID(0),
    GRID(1),
    GRID(2),
    GRID(3),
    GRID(4),
    GRID(5)};
_Static_assert(SBW_FIT_LR_GRID == 6, "one GRID row per --lr auto grid point");

/* Rows over a lone double (offset 0). */
static const sbw_ckpt_field fingerprint_row = {
    "fingerprint", 0, SBW_CKPT_DOUBLE, -1e300, 1e300, 0, NULL, SBW_CKPT_SHAPES, NULL};
static const sbw_ckpt_field elapsed_row = {"elapsed", 0,    SBW_CKPT_DOUBLE, 0,   1e300,
                                           0,         NULL, SBW_CKPT_SHAPES, NULL};

#define NROWS(a) (sizeof(a) / sizeof *(a))

/* The arrays of f's state (theta, the optimiser's, the log) into a (at
 * least 5); their count. */
static size_t state_arrays(const sbw_fit *f, sbw_ckpt_array *a)
{
    static const double none[7];
    size_t n = f->head.nparam, mem = f->lbfgs.mem, k = 0;
    a[k++] = (sbw_ckpt_array){"theta", f->theta, n, 1};
    if (f->opt.optimizer == SBW_FIT_ADAM) {
        a[k++] = (sbw_ckpt_array){"adam_m", f->adam.m, n, 1};
        a[k++] = (sbw_ckpt_array){"adam_v", f->adam.v, n, 1};
    } else {
        a[k++] = (sbw_ckpt_array){"lbfgs_s", f->lbfgs.s, mem, n};
        a[k++] = (sbw_ckpt_array){"lbfgs_y", f->lbfgs.y, mem, n};
        a[k++] = (sbw_ckpt_array){"lbfgs_rho", f->lbfgs.rho, mem, 1};
    }
    const double *log = f->nlog ? &f->log[0].step : none;
    a[k++] = (sbw_ckpt_array){"log", log, f->nlog ? f->nlog : 1, 7};
    return k;
}

int sbw_fit_ckpt_write(sbw_fit *f, const char *dir)
{
    sbw_fit_opts o = f->opt; /* with the automatic choices resolved */
    o.obj.block = sbw_obj_block(f->obj);
    o.obj.threads = sbw_obj_threads(f->obj);
    o.log_every = sbw_fit_log_every(f);
    double fp = sbw_fit_fingerprint(f->t), elapsed = sbw_fit_seconds(f);
    const sbw_ckpt_group g[] = {{sbw_fit_opts_table, sbw_fit_opts_nrows, &o},
                                {data_rows, NROWS(data_rows), f},
                                {&fingerprint_row, 1, &fp},
                                {counter_rows, NROWS(counter_rows), f},
                                {&elapsed_row, 1, &elapsed}};
    sbw_ckpt_array a[5];
    size_t na = state_arrays(f, a);
    uint64_t gen = f->ckpt_gen + 1;
    int st = sbw_ckpt_write(dir, gen, g, NROWS(g), a, na);
    if (st)
        return st;
    f->ckpt_gen = gen;
    f->ckpt_step = f->step;
    return SBW_OK;
}

int sbw_fit_ckpt_saved_opts(const char *dir, const sbw_fit_opts *opts, sbw_fit_opts *saved)
{
    sbw_ckpt *c;
    int st = sbw_ckpt_open(&c, dir);
    if (st)
        return st;
    *saved = *opts;
    st = sbw_fit_opts_get(c, saved);
    sbw_ckpt_close(c);
    return st;
}

static int check_data(const sbw_ckpt *c, const sbw_target *t, const char *dir)
{
    sbw_fit probe = {0};
    double fp = 0;
    int st = sbw_ckpt_get(c, data_rows, NROWS(data_rows), &probe);
    st = st ? st : sbw_ckpt_get(c, &fingerprint_row, 1, &fp);
    if (st)
        return st;
    if (probe.head.n != t->n || probe.head.m != t->m)
        return SBW_ERROR(SBW_EDATA, "%s: the checkpoint is for %zu x %zu data, P* is %zu x %zu",
                         dir, probe.head.n, probe.head.m, t->n, t->m);
    if (fp != sbw_fit_fingerprint(t))
        return SBW_ERROR(SBW_EDATA, "%s: the checkpoint was made from different P* data", dir);
    return SBW_OK;
}

/* Array stem of the checkpoint must be rows x cols. */
static int check_shape(const sbw_ckpt *c, const char *stem, size_t rows, size_t cols)
{
    size_t r = 0, k = 0;
    int st = sbw_ckpt_array_shape(c, stem, &r, &k);
    if (!st && (r != rows || k != cols))
        st = SBW_ERROR(SBW_EFORMAT, "%s: array %s is %zu x %zu, the settings need %zu x %zu",
                       sbw_ckpt_path(c), stem, r, k, rows, cols);
    return st;
}

/* The checkpoint's head on this data, its block, and the shapes of the
 * arrays it needs, checked before anything is allocated. */
static int check_sizes(const sbw_ckpt *c, const sbw_target *t, const sbw_fit_opts *o)
{
    sbw_head h;
    if (sbw_head_setup(&h, o->model, t->n, t->m, o->d, o->k, o->knots, o->plif_t, o->bias,
                       o->linear)) {
        char why[256];
        snprintf(why, sizeof why, "%s", sbw_error_reason());
        return SBW_ERROR(SBW_EFORMAT, "%s: its settings make no head for %zu x %zu data: %s",
                         sbw_ckpt_path(c), t->n, t->m, why);
    }
    if (o->obj.block < 1 || o->obj.block > t->n)
        return SBW_ERROR(SBW_EFORMAT, "%s: block=%zu: outside [1, N = %zu]", sbw_ckpt_path(c),
                         o->obj.block, t->n);
    size_t n = h.nparam, mem = o->lbfgs_mem;
    int st = check_shape(c, "theta", n, 1);
    if (o->optimizer == SBW_FIT_ADAM) {
        st = st ? st : check_shape(c, "adam_m", n, 1);
        return st ? st : check_shape(c, "adam_v", n, 1);
    }
    st = st ? st : check_shape(c, "lbfgs_s", mem, n);
    st = st ? st : check_shape(c, "lbfgs_y", mem, n);
    return st ? st : check_shape(c, "lbfgs_rho", mem, 1);
}

static int bad_counter(const sbw_ckpt *c, const char *key, uint64_t v, const char *why,
                       uint64_t limit)
{
    return SBW_ERROR(SBW_EFORMAT, "%s: %s=%llu: %s %llu", sbw_ckpt_path(c), key,
                     (unsigned long long)v, why, (unsigned long long)limit);
}

/* The counters p read from c against each other and the settings o. */
static int check_counters(const sbw_ckpt *c, const sbw_fit *p, const sbw_fit_opts *o, size_t n)
{
    uint64_t every = o->log_every ? o->log_every : 1, mem = o->lbfgs_mem;
    if (p->step > o->steps)
        return bad_counter(c, "step", p->step, "beyond the checkpointed run's steps", o->steps);
    if (p->epoch > p->step)
        return bad_counter(c, "epoch", p->epoch, "exceeds step", p->step);
    if (p->adam.t > p->step)
        return bad_counter(c, "adam_t", p->adam.t, "exceeds step", p->step);
    if (p->pos > n)
        return bad_counter(c, "pos", p->pos, "exceeds N", n);
    if (p->lbfgs.count > mem)
        return bad_counter(c, "lbfgs_count", p->lbfgs.count, "exceeds lbfgs_mem", mem);
    if (p->lbfgs.head >= (mem ? mem : 1))
        return bad_counter(c, "lbfgs_head", p->lbfgs.head, "not below lbfgs_mem", mem);
    if (p->win_n > o->tol_window)
        return bad_counter(c, "win_n", p->win_n, "exceeds tol_window", o->tol_window);
    if (p->nlog > p->step / every + 2)
        return bad_counter(c, "nlog", p->nlog, "log rows; at most", p->step / every + 2);
    return p->nlog ? check_shape(c, "log", p->nlog, 7) : SBW_OK;
}

/* The settings, sizes and counters of c, all checked; *o the settings
 * to resume with. */
static int resume_check(const sbw_ckpt *c, const sbw_target *t, const char *dir,
                        const sbw_fit_opts *opts, sbw_fit_opts *saved, sbw_fit_opts *o)
{
    sbw_fit probe = {0};
    *saved = *opts;
    int st = check_data(c, t, dir);
    st = st ? st : sbw_fit_opts_get(c, saved);
    *o = *opts;
    sbw_ckpt_copy(sbw_fit_opts_table, sbw_fit_opts_nrows, SBW_CKPT_SHAPES, o, saved);
    o->lr_auto = false; /* the grid already chose o->lr */
    st = st ? st : check_sizes(c, t, o);
    st = st ? st : sbw_ckpt_get(c, counter_rows, NROWS(counter_rows), &probe);
    if (!st) {
        sbw_fit_opts run = *saved; /* the checkpointed run's steps */
        run.tol_window = run.tol > 0 ? run.tol_window : 0;
        st = check_counters(c, &probe, &run, t->n);
    }
    return st;
}

/* f's counters and arrays from c. */
static int resume_state(const sbw_ckpt *c, sbw_fit *f)
{
    size_t n = f->head.nparam, mem = f->lbfgs.mem;
    int st = sbw_ckpt_get(c, counter_rows, NROWS(counter_rows), f);
    st = st ? st : sbw_ckpt_get(c, &elapsed_row, 1, &f->elapsed0);
    /* parameters and optimiser state finite, or the file is named: a fit
     * never resumes from values no good step could have written */
    st = st ? st : sbw_ckpt_load_checked(c, "theta", f->theta, n, 1, INFINITY);
    if (f->opt.optimizer == SBW_FIT_ADAM) {
        st = st ? st : sbw_ckpt_load_checked(c, "adam_m", f->adam.m, n, 1, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "adam_v", f->adam.v, n, 1, INFINITY);
    } else {
        st = st ? st : sbw_ckpt_load_checked(c, "lbfgs_s", f->lbfgs.s, mem, n, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "lbfgs_y", f->lbfgs.y, mem, n, INFINITY);
        st = st ? st : sbw_ckpt_load_checked(c, "lbfgs_rho", f->lbfgs.rho, mem, 1, INFINITY);
    }
    size_t nlog = f->nlog;
    f->nlog = 0;
    if (st || nlog == 0)
        return st;
    f->log = malloc(nlog * sizeof *f->log);
    if (!f->log)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (training log)");
    f->nlog = f->caplog = nlog;
    return sbw_ckpt_load(c, "log", &f->log[0].step, nlog, 7);
}

int sbw_fit_ckpt_resume(sbw_fit **out, const sbw_target *t, const char *dir,
                        const sbw_fit_opts *opts, sbw_fit_opts *saved)
{
    *out = NULL;
    sbw_ckpt *c = NULL;
    sbw_fit *f = NULL;
    sbw_fit_opts o, s;
    int st = sbw_ckpt_open(&c, dir);
    st = st ? st : resume_check(c, t, dir, opts, &s, &o);
    st = st ? st : sbw_fit_alloc(&f, t, &o);
    st = st ? st : resume_state(c, f);
    st = st ? st : sbw_ckpt_tidy(c);
    uint64_t gen = c ? sbw_ckpt_generation(c) : 0;
    sbw_ckpt_close(c);
    if (st) {
        sbw_fit_free(f);
        return st;
    }
    f->ckpt_gen = gen;
    f->ckpt_step = f->resumed_at = f->step;
    f->t_start = f->t_ckpt = sbw_progress_now();
    if (saved)
        *saved = s;
    *out = f;
    return SBW_OK;
}
