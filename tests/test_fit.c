/* test_fit.c -- whole fits on synthetic languages from sbw_synth.h:
 * softmax reaches KL ~ 0 at D = d* and stays clearly above 0 at D = d* - 1
 * (MoS Proposition 1 / Corollary 1), with and without a ones column; MoS
 * beats softmax on an LDA-like topic language; checkpoint + resume equals
 * an uninterrupted run bit for bit (Adam minibatch and L-BFGS); a NaN loss
 * stops with the step and keeps the last checkpoint, whose loss is finite
 * even when the parameters after it stay finite but overflow the logits; an
 * L-BFGS fit reports the state at its final parameters; the stopping rule;
 * --lr auto against independent refits; the float64 log Q pass. */
#include "sbw_test.h"

#include "sbw_ckpt.h"
#include "sbw_error.h"
#include "sbw_fit.h"
#include "sbw_fit_ckpt.h"
#include "sbw_fit_io.h"
#include "sbw_obj_ref.h"
#include "sbw_num.h"
#include "sbw_rng.h"
#include "sbw_synth.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sbw_target make_lowrank(size_t n, size_t m, size_t rank, bool ones, uint64_t seed)
{
    sbw_mat a;
    sbw_target t;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_synth_lowrank(&a, rank, 1.0, ones, seed));
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, false, 1e-9));
    sbw_mat_free(&a);
    return t;
}

/* Final mean KL of a double-precision L-BFGS softmax fit with D = d. */
static double lbfgs_kl(const sbw_target *t, sbw_head_model model, size_t d, size_t k, size_t steps)
{
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.model = model, o.d = d, o.k = k, o.steps = steps, o.optimizer = SBW_FIT_LBFGS;
    o.obj.single = false, o.obj.threads = 2;
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, t, &o));
    SBW_ASSERT_OK(sbw_fit_run(f));
    double kl = f->last.kl;
    sbw_fit_free(f);
    return kl;
}

/* lowrank --rank R: d* = R.  KL ~ 0 needs D >= d*; at D = d* - 1 the
 * best softmax stays a clear distance away. */
static void test_lowrank_dstar(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(240, 47, 4, false, 5);
    double at = lbfgs_kl(&t, SBW_MODEL_SOFTMAX, 4, 0, 400);
    double below = lbfgs_kl(&t, SBW_MODEL_SOFTMAX, 3, 0, 400);
    SBW_ASSERT_LT(at, 1e-6);
    SBW_ASSERT_GT(at, -1e-12);
    SBW_ASSERT_GT(below, 1e-2);
    sbw_target_free(&t);
}

/* --with-ones: the ones column is a row shift, d* = R - 1. */
static void test_lowrank_with_ones_dstar(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(240, 47, 4, true, 6);
    double at = lbfgs_kl(&t, SBW_MODEL_SOFTMAX, 3, 0, 400);
    double below = lbfgs_kl(&t, SBW_MODEL_SOFTMAX, 2, 0, 400);
    SBW_ASSERT_LT(at, 1e-6);
    SBW_ASSERT_GT(at, -1e-12);
    SBW_ASSERT_GT(below, 1e-2);
    sbw_target_free(&t);
}

/* A K-topic language: p_i = sum_k theta_ik phi_k.  MoS with K components
 * represents it; a softmax of the same D does not. */
static void test_topics_mos_beats_softmax(void **state)
{
    (void)state;
    sbw_mat a;
    sbw_target t;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, 200, 61));
    SBW_ASSERT_OK(sbw_synth_topics(&a, 3, 0.1, 7));
    SBW_ASSERT_OK(sbw_target_from_logp(&t, &a, false, 1e-9));
    double soft = lbfgs_kl(&t, SBW_MODEL_SOFTMAX, 3, 0, 400);
    double mos = lbfgs_kl(&t, SBW_MODEL_MOS, 3, 3, 400);
    SBW_ASSERT_GT(soft, 1e-3);
    SBW_ASSERT_LT(mos, 0.1 * soft);
    sbw_target_free(&t);
    sbw_mat_free(&a);
}

/* ---- checkpoints and resume ------------------------------------------------ */

typedef struct stopper {
    volatile sig_atomic_t flag;
    uint64_t at;
    bool poison; /* put a NaN into W instead of stopping */
} stopper;

static void stop_at(void *ctx, const sbw_fit *f)
{
    stopper *s = ctx;
    if (f->step != s->at)
        return;
    if (s->poison)
        f->theta[f->head.off_w] = NAN;
    else
        s->flag = 1;
}

static const char *fresh_dir(const char *name)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s", sbw_test_path(name));
    return dir;
}

/* Fit o to t for o.steps uninterrupted; again stopped at step `at` with a
 * checkpoint, resumed to o.steps: parameters and log equal bit for bit. */
static void check_resume(sbw_fit_opts o, const sbw_target *t, uint64_t at, double every,
                         const char *name, sbw_fit_stop want)
{
    sbw_fit *a, *b, *c;
    SBW_ASSERT_OK(sbw_fit_alloc(&a, t, &o));
    SBW_ASSERT_OK(sbw_fit_run(a));
    assert_int_equal(a->stop, want);
    stopper s = {0, at, false};
    sbw_fit_opts ob = o;
    ob.stop = &s.flag, ob.on_step = stop_at, ob.ctx = &s;
    ob.checkpoint_dir = fresh_dir(name), ob.checkpoint_every = every;
    SBW_ASSERT_OK(sbw_fit_alloc(&b, t, &ob));
    assert_int_equal(sbw_fit_run(b), SBW_EINTR);
    assert_int_equal(b->step, at);
    assert_int_equal(b->ckpt_step, at);
    sbw_fit_free(b);
    sbw_fit_opts saved;
    SBW_ASSERT_OK(sbw_fit_ckpt_resume(&c, t, ob.checkpoint_dir, &o, &saved));
    assert_int_equal(saved.obj.threads, o.obj.threads);
    assert_int_equal(c->step, at);
    SBW_ASSERT_OK(sbw_fit_run(c));
    assert_int_equal(c->step, a->step);
    assert_memory_equal(a->theta, c->theta, a->head.nparam * sizeof(double));
    assert_int_equal(a->nlog, c->nlog);
    for (size_t i = 0; i < a->nlog; i++) {
        sbw_fit_logrow x = a->log[i], y = c->log[i];
        x.seconds = y.seconds = 0;
        assert_memory_equal(&x, &y, sizeof x);
    }
    sbw_fit_free(a);
    sbw_fit_free(c);
}

static void test_resume_adam_minibatch(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(61, 29, 3, false, 8);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.model = SBW_MODEL_MOS, o.k = 2, o.d = 3, o.bias = true, o.steps = 60, o.batch = 16;
    o.tol = 1e6, o.tol_window = 6, o.lr = 0.02, o.obj.threads = 2, o.log_every = 2;
    /* a checkpoint after every step.  The rule stops when prev - now <=
     * tol * now; with tol = 1e6 it fires at its first check, step 11, unless
     * the KL fell a millionfold within one window, so the resumed run must
     * carry the window's state across the interruption at step 9 */
    check_resume(o, &t, 9, 1e-9, "ckpt_adam", SBW_FIT_TOL);
    o.model = SBW_MODEL_LMS, o.k = 3, o.batch = 0, o.obj.single = false, o.tol = 0;
    check_resume(o, &t, 14, 0, "ckpt_lms", SBW_FIT_STEPS);
    sbw_target_free(&t);
}

static void test_resume_lbfgs(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(61, 29, 3, false, 9);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.model = SBW_MODEL_PLIF, o.knots = 9, o.plif_t = 2, o.d = 2, o.steps = 25;
    o.optimizer = SBW_FIT_LBFGS, o.lbfgs_mem = 4, o.obj.threads = 2, o.obj.single = false;
    check_resume(o, &t, 11, 0, "ckpt_lbfgs", SBW_FIT_STEPS);
    sbw_target_free(&t);
}

/* A checkpoint of other data is refused; a damaged one too. */
static void test_resume_errors(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(40, 20, 2, false, 10), u = make_lowrank(40, 20, 2, false, 11);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.d = 2, o.steps = 5, o.obj.threads = 1;
    o.checkpoint_dir = fresh_dir("ckpt_err"), o.checkpoint_every = 1e-9;
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, &t, &o));
    SBW_ASSERT_OK(sbw_fit_run(f));
    sbw_fit_free(f);
    assert_int_equal(sbw_fit_ckpt_resume(&f, &u, o.checkpoint_dir, &o, NULL), SBW_EDATA);
    assert_null(f);
    assert_int_equal(sbw_fit_ckpt_resume(&f, &t, sbw_test_path("nothing_here"), &o, NULL), SBW_EIO);
    char path[600];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", o.checkpoint_dir);
    FILE *fp = fopen(path, "a");
    fputs("garbage line without equals\n", fp);
    fclose(fp);
    assert_int_equal(sbw_fit_ckpt_resume(&f, &t, o.checkpoint_dir, &o, NULL), SBW_EFORMAT);
    sbw_target_free(&t);
    sbw_target_free(&u);
}

/* ---- the settings table ---------------------------------------------------- */

/* A value for row f unlike its default, inside its range, a double with
 * its whole significand in use. */
static void odd_value(const sbw_ckpt_field *f, void *base)
{
    char *p = (char *)base + f->off;
    int last = 0;
    double x = f->min + ((f->max < 1e6 ? f->max : 1e6) - f->min) / 3;
    switch (f->type) {
    case SBW_CKPT_SIZE:
        *(size_t *)p = (size_t)f->max - ((size_t)f->max - 1 == (size_t)f->dflt ? 0 : 1);
        break;
    case SBW_CKPT_U64:
        *(uint64_t *)p = f->max > 1.8e19 ? UINT64_MAX - 3 : (uint64_t)f->max - 1;
        break;
    case SBW_CKPT_INT:
        *(int *)p = (int)f->max - 1;
        break;
    case SBW_CKPT_DOUBLE: {
        double v = x == f->dflt ? nextafter(x, f->max) : x;
        memcpy(p, &v, sizeof v);
        break;
    }
    case SBW_CKPT_BOOL:
        *(bool *)p = f->dflt == 0;
        break;
    case SBW_CKPT_ENUM:
        while (f->name(last + 1))
            last++;
        *(int *)p = last == (int)f->dflt ? 0 : last;
        break;
    }
}

/* Every row of the table written and read back gives the same bits, the
 * doubles written in C99 hex; sbw_fit_opts_init gives each row its
 * default. */
static void test_ckpt_table_round_trip(void **state)
{
    (void)state;
    const sbw_ckpt_field *t = sbw_fit_opts_table;
    size_t n = sbw_fit_opts_nrows;
    sbw_fit_opts dflt, a, b;
    sbw_fit_opts_init(&dflt);
    sbw_fit_opts_init(&a);
    for (size_t i = 0; i < n; i++) {
        odd_value(&t[i], &a);
        if (sbw_ckpt_same(&t[i], &a, &dflt))
            fail_msg("row %s: the test value equals the default", t[i].key);
    }
    const char *dir = fresh_dir("ckpt_table");
    const sbw_ckpt_group g = {t, n, &a};
    SBW_ASSERT_OK(sbw_ckpt_write(dir, 7, &g, 1, NULL, 0));
    sbw_ckpt *c;
    SBW_ASSERT_OK(sbw_ckpt_open(&c, dir));
    assert_int_equal(sbw_ckpt_generation(c), 7);
    sbw_fit_opts_init(&b);
    SBW_ASSERT_OK(sbw_ckpt_get(c, t, n, &b));
    sbw_ckpt_close(c);
    char path[600], text[8192] = "", line[128];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", dir);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    size_t len = fread(text, 1, sizeof text - 1, fp);
    text[len] = '\0';
    fclose(fp);
    for (size_t i = 0; i < n; i++) {
        char wa[64], wb[64];
        if (!sbw_ckpt_same(&t[i], &a, &b))
            fail_msg("row %s: wrote %s, read %s", t[i].key,
                     sbw_ckpt_format(&t[i], &a, false, wa, sizeof wa),
                     sbw_ckpt_format(&t[i], &b, false, wb, sizeof wb));
        if (t[i].type == SBW_CKPT_DOUBLE) {
            double v;
            memcpy(&v, (const char *)&a + t[i].off, sizeof v);
            snprintf(line, sizeof line, "\n%s=%a\n", t[i].key, v);
            if (!strstr(text, line))
                fail_msg("row %s: '%s' not in checkpoint.tsv", t[i].key, line + 1);
        }
    }
    sbw_ckpt_remove(dir);
}

/* A table read in generations: a checkpoint written with the first w rows
 * reads them back, and each later generation it lacks takes its rows'
 * defaults, a generation present its written values; more rows in the
 * generations than in the table is refused. */
static void test_ckpt_generations(void **state)
{
    (void)state;
    const sbw_ckpt_field *t = sbw_fit_opts_table;
    size_t n = sbw_fit_opts_nrows, gen[] = {2, 1}; /* the last three rows: two generations */
    sbw_fit_opts dflt, a, b;
    sbw_fit_opts_init(&dflt);
    sbw_fit_opts_init(&a);
    for (size_t i = 0; i < n; i++)
        odd_value(&t[i], &a);
    for (size_t w = n - 3; w <= n; w += 2) { /* before both generations; with the first */
        const char *dir = fresh_dir("ckpt_gen");
        const sbw_ckpt_group g = {t, w, &a};
        SBW_ASSERT_OK(sbw_ckpt_write(dir, 1, &g, 1, NULL, 0));
        sbw_ckpt *c;
        SBW_ASSERT_OK(sbw_ckpt_open(&c, dir));
        sbw_fit_opts_init(&b);
        odd_value(&t[n - 1], &b); /* not the default: a missed reset shows */
        SBW_ASSERT_OK(sbw_ckpt_get_generations(c, t, n, gen, 2, &b));
        for (size_t i = 0; i < n; i++)
            if (!sbw_ckpt_same(&t[i], i < w ? &a : &dflt, &b))
                fail_msg("%zu rows written: row %s is not its %s", w, t[i].key,
                         i < w ? "written value" : "default");
        size_t too_many[] = {n, 1};
        assert_int_equal(sbw_ckpt_get_generations(c, t, n, too_many, 2, &b), SBW_EINVAL);
        sbw_ckpt_close(c);
        sbw_ckpt_remove(dir);
    }
}

/* Replaces the line "key=..." of text (a checkpoint.tsv) by "key=value"
 * and writes the result to path. */
static void write_edited(const char *path, const char *text, const char *key, const char *value)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    size_t klen = strlen(key);
    bool found = false;
    for (const char *p = text; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
        if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
            fprintf(fp, "%s=%s\n", key, value);
            found = true;
        } else {
            fwrite(p, 1, n, fp);
        }
        p += n;
    }
    fclose(fp);
    if (!found)
        fail_msg("key %s not in the checkpoint", key);
}

/* Each out-of-range value of a hand-edited checkpoint.tsv is refused
 * (SBW_EFORMAT) with a reason that names it; the untouched checkpoint
 * resumes. */
static void test_ckpt_range_checks(void **state)
{
    (void)state;
    static const char *const cases[][3] = {
        /* key, value, expected in the reason */
        {"sbw_checkpoint", "1", "sbw_checkpoint=1: unknown checkpoint format version"},
        {"sbw_checkpoint", "x", "sbw_checkpoint=x: unknown checkpoint format version"},
        {"sbw_checkpoint", "6", "sbw_checkpoint=6: unknown checkpoint format version"},
        {"step", "-1", "step=-1: not an unsigned integer"},
        {"step", "5000000000000000", "step=5000000000000000: outside"},
        {"step", "6", "step=6: beyond the checkpointed run's steps 5"},
        {"epoch", "5", "epoch=5: exceeds step 4"},
        {"adam_t", "9", "adam_t=9: exceeds step 4"},
        {"pos", "41", "pos=41: exceeds N 40"},
        {"nlog", "1000000000000", "nlog=1000000000000: log rows; at most 4"},
        {"generation", "0", "generation=0: outside"},
        {"d", "30", "--d 30 exceeds the vocabulary size M = 20"},
        {"d", "10000000000", "d=10000000000: outside [1, 1000000000]"},
        {"knots", "1000000000", "knots=1000000000: outside"},
        {"d", "3", "array theta is 120 x 1, the settings need 180 x 1"},
        {"block", "41", "block=41: outside [1, N = 40]"},
        {"lbfgs_mem", "100000", "lbfgs_mem=100000: outside [1, 1000]"},
        {"lr", "nan", "lr=nan: NaN"},
        {"lr", "inf", "lr=inf: outside"},
        {"init_scale", "-0x1p+0", "init_scale=-0x1p+0: outside"},
        {"win_sum", "-nan", "win_sum=-nan: NaN"},
        {"elapsed", "-1", "elapsed=-1: outside"},
        {"fingerprint", "inf", "fingerprint=inf: outside"},
        {"model", "transformer", "model=transformer: unknown name"},
        {"optimizer", "sgd", "optimizer=sgd: unknown name"},
        {"precision", "half", "precision=half: unknown name"},
        {"bias", "2", "bias=2: outside [0, 1]"},
        {"threads", "100000", "threads=100000: outside"}};
    sbw_target t = make_lowrank(40, 20, 2, false, 10);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.d = 2, o.steps = 5, o.obj.threads = 1, o.log_every = 2;
    stopper s = {0, 4, false};
    o.stop = &s.flag, o.on_step = stop_at, o.ctx = &s;
    o.checkpoint_dir = fresh_dir("ckpt_range"), o.checkpoint_every = 1e9;
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, &t, &o));
    assert_int_equal(sbw_fit_run(f), SBW_EINTR); /* the checkpoint of step 4 */
    sbw_fit_free(f);
    o.stop = NULL, o.on_step = NULL;
    char path[600], text[8192];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", o.checkpoint_dir);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    text[fread(text, 1, sizeof text - 1, fp)] = '\0';
    fclose(fp);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_edited(path, text, cases[i][0], cases[i][1]);
        int st = sbw_fit_ckpt_resume(&f, &t, o.checkpoint_dir, &o, NULL);
        if (st != SBW_EFORMAT || !strstr(sbw_error_reason(), cases[i][2]))
            fail_msg("%s=%s: status %d, reason '%s'; want SBW_EFORMAT and '%s'", cases[i][0],
                     cases[i][1], st, sbw_error_reason(), cases[i][2]);
        assert_null(f);
    }
    /* written as the current version; the one before it (no rows were
     * removed since) still reads */
    char cur[32];
    snprintf(cur, sizeof cur, "sbw_checkpoint=%d\n", SBW_CKPT_VERSION);
    assert_non_null(strstr(text, cur));
    assert_true(SBW_CKPT_VERSION_MIN < SBW_CKPT_VERSION);
    write_edited(path, text, "sbw_checkpoint", "2");
    SBW_ASSERT_OK(sbw_fit_ckpt_resume(&f, &t, o.checkpoint_dir, &o, NULL));
    assert_int_equal(f->step, 4);
    sbw_fit_free(f);
    write_edited(path, text, "step", "4");
    SBW_ASSERT_OK(sbw_fit_ckpt_resume(&f, &t, o.checkpoint_dir, &o, NULL));
    assert_int_equal(f->step, 4);
    sbw_fit_free(f);
    sbw_target_free(&t);
}

/* Runs o, whose on_step hook spoils the parameters after step 5 (with a
 * checkpoint due every step): the fit must stop naming step 5 and keep
 * step 4's checkpoint (and, with params_finite, stop with every parameter
 * still finite).  Returns the fit resumed from that checkpoint. */
static sbw_fit *diverge_at_5(const sbw_target *t, sbw_fit_opts o, bool params_finite)
{
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, t, &o));
    assert_int_equal(sbw_fit_run(f), SBW_ENUMERIC);
    assert_int_equal(f->stop, SBW_FIT_NAN);
    assert_non_null(strstr(sbw_error_reason(), "at step 5"));
    assert_non_null(strstr(sbw_error_reason(), "(step 4)"));
    for (size_t i = 0; params_finite && i < f->head.nparam; i++)
        assert_true(isfinite(f->theta[i]));
    sbw_fit_free(f);
    o.on_step = NULL;
    SBW_ASSERT_OK(sbw_fit_ckpt_resume(&f, t, o.checkpoint_dir, &o, NULL));
    assert_int_equal(f->step, 4);
    return f;
}

/* NaN in the parameters after step 5: the fit stops saying so, and the
 * last checkpoint (step 4: NaN parameters are never saved) stays. */
static void test_nan_stops_keeps_checkpoint(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(40, 20, 2, false, 12);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    stopper s = {0, 5, true};
    o.d = 2, o.steps = 50, o.obj.threads = 1, o.on_step = stop_at, o.ctx = &s;
    o.checkpoint_dir = fresh_dir("ckpt_nan"), o.checkpoint_every = 1e-9;
    sbw_fit *f = diverge_at_5(&t, o, false);
    assert_true(isfinite(f->theta[f->head.off_w]));
    sbw_fit_free(f);
    sbw_target_free(&t);
}

static void scale_w_at(void *ctx, const sbw_fit *f)
{
    const stopper *s = ctx;
    if (f->step != s->at)
        return;
    for (size_t i = 0; i < f->head.m * f->head.d; i++)
        f->theta[f->head.off_w + i] *= 1e200;
}

/* A real divergence: after step 5, W is scaled by 1e200.  The parameters
 * stay finite (so a check of the parameters alone passes) but the float32
 * logits overflow.  The fit stops naming step 5, and the checkpoint kept is
 * step 4's, whose loss is finite. */
static void test_overflow_keeps_good_checkpoint(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(40, 20, 2, false, 17);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    stopper s = {0, 5, false};
    o.d = 2, o.steps = 50, o.obj.threads = 1, o.on_step = scale_w_at, o.ctx = &s;
    o.checkpoint_dir = fresh_dir("ckpt_overflow"), o.checkpoint_every = 1e-9;
    assert_true(o.obj.single);
    sbw_fit *f = diverge_at_5(&t, o, true);
    sbw_obj_result res;
    SBW_ASSERT_OK(sbw_obj_eval(f->obj, f->theta, NULL, 0, &res, NULL));
    assert_true(isfinite(res.loss) && isfinite(res.kl));
    sbw_fit_free(f);
    sbw_target_free(&t);
}

/* ---- what a finished fit reports ---------------------------------------------- */

/* After L-BFGS stops (converged: its last line search rejected every
 * trial; or out of steps), f->last and the last log row are the objective
 * at the final parameters: a fresh evaluation there equals them bit for
 * bit (same objective, same threads, deterministic). */
static void check_lbfgs_final(sbw_fit_opts o, const sbw_target *t, sbw_fit_stop want)
{
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, t, &o));
    SBW_ASSERT_OK(sbw_fit_run(f));
    assert_int_equal(f->stop, want);
    sbw_obj_result res;
    SBW_ASSERT_OK(sbw_obj_eval(f->obj, f->theta, NULL, 0, &res, NULL));
    assert_memory_equal(&res.loss, &f->last.loss, sizeof res.loss);
    assert_memory_equal(&res.kl, &f->last.kl, sizeof res.kl);
    assert_memory_equal(&res.mode_match, &f->last.mode_match, sizeof res.mode_match);
    const sbw_fit_logrow *row = &f->log[f->nlog - 1];
    SBW_ASSERT_EQ(row->step, (double)f->step);
    SBW_ASSERT_EQ(row->loss, res.loss);
    SBW_ASSERT_EQ(row->kl, res.kl);
    sbw_fit_free(f);
}

static void test_lbfgs_reports_final_state(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(60, 23, 3, false, 18);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.d = 3, o.steps = 5000, o.optimizer = SBW_FIT_LBFGS, o.obj.single = false;
    o.obj.threads = 2;
    check_lbfgs_final(o, &t, SBW_FIT_CONVERGED);
    o.obj.single = true;
    check_lbfgs_final(o, &t, SBW_FIT_CONVERGED);
    o.steps = 7;
    check_lbfgs_final(o, &t, SBW_FIT_STEPS);
    sbw_target_free(&t);
}

/* ---- stopping rule, --lr auto, the float64 pass ------------------------------ */

static void test_tol_stops_early(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(80, 31, 3, false, 13);
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.d = 2, o.steps = 1000000, o.tol = 1e-3, o.tol_window = 25, o.lr = 0.05;
    o.obj.threads = 1;
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, &t, &o));
    SBW_ASSERT_OK(sbw_fit_run(f));
    assert_int_equal(f->stop, SBW_FIT_TOL);
    SBW_ASSERT_LT(f->step, 1000000);
    SBW_ASSERT_GE(f->step, 50);
    /* it stopped at the end of a window whose mean barely improved */
    assert_int_equal((f->step + 1) % 25, 0);
    sbw_fit_free(f);
    sbw_target_free(&t);
}

/* --lr auto's subsample, built here from its documented recipe (sbw_fit.h):
 * the first want of a shuffle of 0..n-1 from stream SBW_FIT_STREAM_LR_AUTO,
 * sorted. */
static size_t *auto_subsample(size_t n, size_t want, uint64_t seed)
{
    size_t *p = malloc(n * sizeof *p);
    gsl_rng *r;
    assert_non_null(p);
    SBW_ASSERT_OK(sbw_rng_alloc(&r, seed, SBW_FIT_STREAM_LR_AUTO));
    for (size_t i = 0; i < n; i++)
        p[i] = i;
    gsl_ran_shuffle(r, p, n, sizeof *p);
    sbw_rng_free(r);
    for (size_t i = 1; i < want; i++) /* insertion sort of the first want */
        for (size_t j = i; j > 0 && p[j - 1] > p[j]; j--) {
            size_t x = p[j];
            p[j] = p[j - 1], p[j - 1] = x;
        }
    return p;
}

/* A fixed-lr fit of sub for o.lr_auto_steps steps from theta0 (the full
 * fit's initial parameters: the shared part and the rows of H in rows);
 * its final mean KL. */
static double refit_kl(const sbw_target *sub, const size_t *rows, const double *theta0,
                       sbw_fit_opts o, double lr)
{
    o.lr_auto = false, o.lr = lr, o.steps = o.lr_auto_steps;
    sbw_fit *g;
    SBW_ASSERT_OK(sbw_fit_alloc(&g, sub, &o));
    size_t d = g->head.d;
    memcpy(g->theta, theta0, g->head.nshared * sizeof *theta0);
    for (size_t i = 0; i < sub->n; i++)
        memcpy(g->theta + g->head.off_h + i * d, theta0 + g->head.off_h + rows[i] * d,
               d * sizeof *theta0);
    SBW_ASSERT_OK(sbw_fit_run(g));
    double kl = g->last.kl;
    sbw_fit_free(g);
    return kl;
}

/* Final mean KL of a fit of t with o (no --lr auto) at lr. */
static double fixed_lr_kl(const sbw_target *t, sbw_fit_opts o, double lr)
{
    o.lr_auto = false, o.lr = lr;
    sbw_fit *g;
    SBW_ASSERT_OK(sbw_fit_alloc(&g, t, &o));
    SBW_ASSERT_OK(sbw_fit_run(g));
    double kl = g->last.kl;
    sbw_fit_free(g);
    return kl;
}

/* Every grid point's KL equals an independent refit of that point, the
 * chosen rate is the argmin, and after the same steps on all the data the
 * chosen rate beats a poor fixed one. */
static void test_lr_auto(void **state)
{
    (void)state;
    sbw_target t = make_lowrank(90, 31, 3, false, 14), sub;
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.d = 3, o.lr_auto = true, o.lr_auto_rows = 50, o.lr_auto_steps = 30, o.obj.threads = 2;
    o.steps = 40;
    sbw_fit *f;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, &t, &o));
    assert_int_equal(f->nlr, SBW_FIT_LR_GRID);
    double *theta0 = malloc(f->head.nparam * sizeof *theta0);
    assert_non_null(theta0);
    SBW_ASSERT_OK(sbw_head_init(&f->head, theta0, o.seed, o.init_scale));
    assert_memory_equal(f->theta, theta0, f->head.nparam * sizeof *theta0); /* untouched */
    size_t *rows = auto_subsample(t.n, o.lr_auto_rows, o.seed);
    SBW_ASSERT_OK(sbw_target_subset(&sub, &t, rows, o.lr_auto_rows));
    size_t best = 0;
    for (size_t i = 0; i < f->nlr; i++) {
        double kl = refit_kl(&sub, rows, theta0, o, f->lr_grid[i]);
        assert_memory_equal(&kl, &f->lr_kl[i], sizeof kl);
        best = f->lr_kl[i] < f->lr_kl[best] ? i : best;
    }
    assert_true(isfinite(f->lr_kl[best]));
    SBW_ASSERT_EQ(f->opt.lr, f->lr_grid[best]);
    SBW_ASSERT_EQ(f->adam.lr, f->opt.lr);
    assert_int_equal(f->step, 0);
    SBW_ASSERT_OK(sbw_fit_run(f));
    SBW_ASSERT_NE(f->opt.lr, 1e-3);
    SBW_ASSERT_EQ(f->step, 40);
    SBW_ASSERT_LT(f->last.kl, fixed_lr_kl(&t, o, 1e-3));
    free(rows);
    free(theta0);
    sbw_target_free(&sub);
    sbw_fit_free(f);
    sbw_target_free(&t);
}

/* A single-precision fit's log Q is written from float64 recomputation:
 * it matches the naive double log Q to rounding, and its metrics are taken
 * against the file's exact log P*. */
static void test_logq_float64(void **state)
{
    (void)state;
    size_t n = 37, m = 23;
    sbw_mat a, q;
    SBW_ASSERT_OK(sbw_mat_alloc(&a, n, m));
    SBW_ASSERT_OK(sbw_synth_dirichlet(&a, 0.5, 15));
    const char *pin = sbw_test_path("P.npy");
    char in[600], out[600];
    snprintf(in, sizeof in, "%s", pin);
    snprintf(out, sizeof out, "%s", sbw_test_path("Q.npy"));
    SBW_ASSERT_OK(sbw_npy_save(in, &a, SBW_F64));
    sbw_npy_reader *r;
    sbw_target t;
    SBW_ASSERT_OK(sbw_npy_open(&r, in));
    SBW_ASSERT_OK(sbw_target_load(&t, r, true, 1e-9, NULL));
    sbw_fit_opts o;
    sbw_fit_opts_init(&o);
    o.model = SBW_MODEL_MOS, o.k = 2, o.d = 3, o.steps = 20, o.obj.threads = 2;
    sbw_fit *f;
    sbw_obj_result res;
    SBW_ASSERT_OK(sbw_fit_alloc(&f, &t, &o));
    SBW_ASSERT_OK(sbw_fit_run(f));
    SBW_ASSERT_OK(sbw_fit_io_logq(f, out, r, &res, NULL));
    SBW_ASSERT_OK(sbw_npy_load(out, &q, NULL));
    double *ref = malloc(m * sizeof *ref), kl = 0;
    for (size_t i = 0; i < n; i++) {
        SBW_ASSERT_OK(sbw_obj_ref_logq(&f->head, f->theta, i, ref));
        SBW_ASSERT_CLOSE(q.data + i * m, ref, m, 1e-13, 1e-13);
        kl += sbw_num_kl(a.data + i * m, ref, m);
    }
    SBW_ASSERT_NEAR(res.kl, kl / (double)n, 1e-13);
    free(ref);
    sbw_mat_free(&q);
    sbw_fit_free(f);
    sbw_target_free(&t);
    sbw_npy_close(r);
    sbw_mat_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lowrank_dstar),
        cmocka_unit_test(test_lowrank_with_ones_dstar),
        cmocka_unit_test(test_topics_mos_beats_softmax),
        cmocka_unit_test(test_resume_adam_minibatch),
        cmocka_unit_test(test_resume_lbfgs),
        cmocka_unit_test(test_resume_errors),
        cmocka_unit_test(test_ckpt_table_round_trip),
        cmocka_unit_test(test_ckpt_generations),
        cmocka_unit_test(test_ckpt_range_checks),
        cmocka_unit_test(test_nan_stops_keeps_checkpoint),
        cmocka_unit_test(test_overflow_keeps_good_checkpoint),
        cmocka_unit_test(test_lbfgs_reports_final_state),
        cmocka_unit_test(test_tol_stops_early),
        cmocka_unit_test(test_lr_auto),
        cmocka_unit_test(test_logq_float64),
    };
    return cmocka_run_group_tests_name("fit", tests, NULL, NULL);
}
