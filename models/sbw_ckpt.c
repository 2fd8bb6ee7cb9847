/* sbw_ckpt.c -- checkpoint write and resume (see sbw_ckpt.h). */
#include "sbw_ckpt.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_npy.h"
#include "sbw_progress.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define CKPT_MAX_KEYS 160
#define CKPT_LINE     512

int sbw_ckpt_mkdir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
        struct stat sb;
        if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
            return SBW_OK;
        return SBW_ERROR(SBW_EIO, "%s: exists and is not a directory", dir);
    }
    return SBW_ERROR(SBW_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
}

/* A name sbw_ckpt_write makes: checkpoint.tsv or STEM-DIGITS.npy (its
 * generation into *gen, 0 for checkpoint.tsv). */
static bool ckpt_file(const char *name, uint64_t *gen)
{
    static const char *const stems[] = {"theta-",   "adam_m-",    "adam_v-", "lbfgs_s-",
                                        "lbfgs_y-", "lbfgs_rho-", "log-"};
    *gen = 0;
    if (strcmp(name, "checkpoint.tsv") == 0)
        return true;
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        size_t n = strlen(stems[i]);
        if (strncmp(name, stems[i], n) != 0)
            continue;
        const char *p = name + n;
        size_t digits = strspn(p, "0123456789");
        *gen = strtoull(p, NULL, 10);
        return digits > 0 && strcmp(p + digits, ".npy") == 0;
    }
    return false;
}

/* Removes the checkpoint files of dir except generation keep's (keep 0:
 * all of them, checkpoint.tsv included). */
static int sweep(const char *dir, uint64_t keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return SBW_ERROR(SBW_EIO, "%s: cannot list: %s", dir, strerror(errno));
    struct dirent *e;
    char path[4096];
    uint64_t gen;
    while ((e = readdir(d)) != NULL) {
        if (!ckpt_file(e->d_name, &gen) || (keep && (gen == keep || gen == 0)))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    return SBW_OK;
}

int sbw_ckpt_remove(const char *dir)
{
    int st = sweep(dir, 0);
    if (!st)
        rmdir(dir); /* fails, harmlessly, when other files remain */
    return st;
}

bool sbw_ckpt_exists(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", dir);
    return access(path, F_OK) == 0;
}

double sbw_ckpt_fingerprint(const sbw_target *t)
{
    double s = 0;
    for (size_t i = 0; i < t->n; i++)
        s += t->ent[i];
    return s;
}

static void file_name(char *buf, size_t cap, const char *dir, const char *stem, uint64_t gen)
{
    snprintf(buf, cap, "%s/%s-%" PRIu64 ".npy", dir, stem, gen);
}

/* ---- key=value text ------------------------------------------------------- */

typedef struct kv {
    char key[48];
    char val[CKPT_LINE];
} kv;

typedef struct kvset {
    kv e[CKPT_MAX_KEYS];
    size_t n;
    const char *path;
} kvset;

static void put(FILE *fp, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(FILE *fp, const char *key, const char *fmt, ...)
{
    va_list ap;
    fprintf(fp, "%s=", key);
    va_start(ap, fmt);
    vfprintf(fp, fmt, ap);
    va_end(ap);
    fputc('\n', fp);
}

static void put_u(FILE *fp, const char *key, uint64_t v) { put(fp, key, "%" PRIu64, v); }

static void put_d(FILE *fp, const char *key, double v) { put(fp, key, "%a", v); }

static const char *find(const kvset *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->e[i].key, key) == 0)
            return s->e[i].val;
    return NULL;
}

static int get_u(const kvset *s, const char *key, uint64_t *out)
{
    const char *v = find(s, key);
    char *end;
    if (!v)
        return SBW_ERROR(SBW_EFORMAT, "%s: missing key '%s'", s->path, key);
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (end == v || *end || errno)
        return SBW_ERROR(SBW_EFORMAT, "%s: bad value '%s' for '%s'", s->path, v, key);
    *out = (uint64_t)x;
    return SBW_OK;
}

static int get_z(const kvset *s, const char *key, size_t *out)
{
    uint64_t x = 0;
    int st = get_u(s, key, &x);
    *out = (size_t)x;
    return st;
}

static int get_b(const kvset *s, const char *key, bool *out)
{
    uint64_t x = 0;
    int st = get_u(s, key, &x);
    *out = x != 0;
    return st;
}

static int get_d(const kvset *s, const char *key, double *out)
{
    const char *v = find(s, key);
    char *end;
    if (!v)
        return SBW_ERROR(SBW_EFORMAT, "%s: missing key '%s'", s->path, key);
    *out = strtod(v, &end);
    if (end == v || *end)
        return SBW_ERROR(SBW_EFORMAT, "%s: bad value '%s' for '%s'", s->path, v, key);
    return SBW_OK;
}

static int read_kv(kvset *s, const char *path)
{
    FILE *fp = fopen(path, "r");
    s->n = 0;
    s->path = path;
    if (!fp)
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s (not a checkpoint directory?)", path,
                         strerror(errno));
    char line[CKPT_LINE + 64];
    int st = SBW_OK;
    while (!st && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq || eq == line || (size_t)(eq - line) >= sizeof s->e[0].key ||
            s->n == CKPT_MAX_KEYS) {
            st = SBW_ERROR(SBW_EFORMAT, "%s: malformed line '%.40s'", path, line);
            break;
        }
        size_t klen = (size_t)(eq - line);
        memcpy(s->e[s->n].key, line, klen);
        s->e[s->n].key[klen] = '\0';
        snprintf(s->e[s->n].val, sizeof s->e[0].val, "%s", eq + 1);
        s->n++;
    }
    fclose(fp);
    return st;
}

/* ---- writing -------------------------------------------------------------- */

static void put_settings(FILE *fp, const sbw_fit *f)
{
    const sbw_fit_opts *o = &f->opt;
    const sbw_head *h = &f->head;
    put(fp, "model", "%s", sbw_head_model_name(h->model));
    put_u(fp, "n", h->n), put_u(fp, "m", h->m), put_u(fp, "d", h->d);
    put_u(fp, "k", o->k), put_u(fp, "knots", o->knots), put_d(fp, "plif_t", o->plif_t);
    put_u(fp, "bias", h->bias), put_u(fp, "linear", h->linear);
    put_d(fp, "init_scale", o->init_scale), put_u(fp, "seed", o->seed);
    put(fp, "optimizer", "%s", o->optimizer == SBW_FIT_ADAM ? "adam" : "lbfgs");
    put_d(fp, "lr", o->lr), put_d(fp, "beta1", o->beta1), put_d(fp, "beta2", o->beta2);
    put_d(fp, "eps", o->eps), put_d(fp, "decay", o->decay), put_u(fp, "batch", o->batch);
    put_d(fp, "tol", o->tol), put_u(fp, "tol_window", o->tol_window);
    put_u(fp, "lbfgs_mem", o->lbfgs_mem), put_u(fp, "lr_auto", o->lr_auto);
    put_u(fp, "lr_auto_rows", o->lr_auto_rows), put_u(fp, "lr_auto_steps", o->lr_auto_steps);
    put_u(fp, "single", o->obj.single), put_u(fp, "threads", (uint64_t)sbw_obj_threads(f->obj));
    put_u(fp, "block", sbw_obj_block(f->obj)), put_u(fp, "par", o->obj.par);
    put_u(fp, "log_every", sbw_fit_log_every(f)), put_u(fp, "steps", o->steps);
    put_d(fp, "fingerprint", sbw_ckpt_fingerprint(f->t));
    put_u(fp, "nlr", f->nlr);
    for (size_t i = 0; i < f->nlr; i++) {
        char key[32];
        snprintf(key, sizeof key, "lr_grid_%zu", i);
        put_d(fp, key, f->lr_grid[i]);
        snprintf(key, sizeof key, "lr_kl_%zu", i);
        put_d(fp, key, f->lr_kl[i]);
    }
}

static void put_state(FILE *fp, const sbw_fit *f, uint64_t gen)
{
    put_u(fp, "step", f->step), put_u(fp, "epoch", f->epoch), put_u(fp, "pos", f->pos);
    put_u(fp, "adam_t", f->adam.t), put_u(fp, "lbfgs_count", f->lbfgs.count);
    put_u(fp, "lbfgs_head", f->lbfgs.head), put_u(fp, "lbfgs_iter", f->lbfgs.iter);
    put_u(fp, "lbfgs_nfev", f->lbfgs.nfev), put_d(fp, "win_sum", f->win_sum);
    put_d(fp, "win_prev", f->win_prev), put_u(fp, "win_n", f->win_n);
    put_u(fp, "have_prev", f->have_prev), put_u(fp, "nlog", f->nlog);
    put_d(fp, "elapsed", sbw_fit_seconds(f)), put_u(fp, "generation", gen);
}

static int save_vec(const char *dir, const char *stem, uint64_t gen, const double *x, size_t n)
{
    char path[4096];
    file_name(path, sizeof path, dir, stem, gen);
    return sbw_npy_save_vector(path, x, n, SBW_F64);
}

static int save_mat(const char *dir, const char *stem, uint64_t gen, double *x, size_t rows,
                    size_t cols)
{
    char path[4096];
    file_name(path, sizeof path, dir, stem, gen);
    sbw_mat v = sbw_mat_view(x, rows, cols, cols);
    return sbw_npy_save(path, &v, SBW_F64);
}

static int save_arrays(const sbw_fit *f, const char *dir, uint64_t gen)
{
    size_t n = f->head.nparam, mem = f->lbfgs.mem;
    int st = save_vec(dir, "theta", gen, f->theta, n);
    if (f->opt.optimizer == SBW_FIT_ADAM) {
        st = st ? st : save_vec(dir, "adam_m", gen, f->adam.m, n);
        st = st ? st : save_vec(dir, "adam_v", gen, f->adam.v, n);
    } else {
        st = st ? st : save_mat(dir, "lbfgs_s", gen, f->lbfgs.s, mem, n);
        st = st ? st : save_mat(dir, "lbfgs_y", gen, f->lbfgs.y, mem, n);
        st = st ? st : save_vec(dir, "lbfgs_rho", gen, f->lbfgs.rho, mem);
    }
    static const double none[7];
    double *log = f->nlog ? &f->log[0].step : (double *)none;
    return st ? st : save_mat(dir, "log", gen, log, f->nlog ? f->nlog : 1, 7);
}

static void remove_generation(const char *dir, uint64_t gen)
{
    static const char *const stems[] = {"theta",   "adam_m",    "adam_v", "lbfgs_s",
                                        "lbfgs_y", "lbfgs_rho", "log"};
    char path[4096];
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        file_name(path, sizeof path, dir, stems[i], gen);
        unlink(path); /* absent files are fine */
    }
}

int sbw_ckpt_write(sbw_fit *f, const char *dir)
{
    int st = sbw_ckpt_mkdir(dir);
    uint64_t gen = f->ckpt_gen + 1;
    st = st ? st : save_arrays(f, dir, gen);
    char path[4096];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", dir);
    sbw_file file = {0};
    st = st ? st : sbw_file_create(&file, path);
    if (st) {
        remove_generation(dir, gen);
        return st;
    }
    put(file.fp, "sbw_checkpoint", "%d", 1);
    put_settings(file.fp, f);
    put_state(file.fp, f, gen);
    if ((st = sbw_file_commit(&file))) {
        remove_generation(dir, gen);
        return st;
    }
    sweep(dir, gen); /* the previous generation, and any left by an earlier fit */
    f->ckpt_gen = gen;
    f->ckpt_step = f->step;
    return SBW_OK;
}

/* ---- resuming ------------------------------------------------------------- */

/* The trajectory-defining settings from the checkpoint over opts. */
static int get_settings(const kvset *s, sbw_fit_opts *o)
{
    const char *model = find(s, "model"), *opt = find(s, "optimizer");
    if (!model || !opt)
        return SBW_ERROR(SBW_EFORMAT, "%s: missing model or optimizer", s->path);
    if (sbw_head_model_parse(model, &o->model))
        return SBW_ERROR(SBW_EFORMAT, "%s: unknown model '%s'", s->path, model);
    o->optimizer = strcmp(opt, "lbfgs") == 0 ? SBW_FIT_LBFGS : SBW_FIT_ADAM;
    uint64_t par = 0;
    int st = get_z(s, "d", &o->d);
    st = st ? st : get_z(s, "k", &o->k);
    st = st ? st : get_z(s, "knots", &o->knots);
    st = st ? st : get_d(s, "plif_t", &o->plif_t);
    st = st ? st : get_b(s, "bias", &o->bias);
    st = st ? st : get_b(s, "linear", &o->linear);
    st = st ? st : get_d(s, "init_scale", &o->init_scale);
    st = st ? st : get_u(s, "seed", &o->seed);
    st = st ? st : get_d(s, "lr", &o->lr);
    st = st ? st : get_d(s, "beta1", &o->beta1);
    st = st ? st : get_d(s, "beta2", &o->beta2);
    st = st ? st : get_d(s, "eps", &o->eps);
    st = st ? st : get_d(s, "decay", &o->decay);
    st = st ? st : get_z(s, "batch", &o->batch);
    st = st ? st : get_d(s, "tol", &o->tol);
    st = st ? st : get_z(s, "tol_window", &o->tol_window);
    st = st ? st : get_z(s, "lbfgs_mem", &o->lbfgs_mem);
    st = st ? st : get_z(s, "lr_auto_rows", &o->lr_auto_rows);
    st = st ? st : get_z(s, "lr_auto_steps", &o->lr_auto_steps);
    st = st ? st : get_b(s, "single", &o->obj.single);
    st = st ? st : get_z(s, "block", &o->obj.block);
    st = st ? st : get_u(s, "par", &par);
    st = st ? st : get_z(s, "log_every", &o->log_every);
    o->obj.par = par ? SBW_PASS_PAR_BLAS : SBW_PASS_PAR_BLOCKS;
    o->lr_auto = false; /* the grid already chose o->lr */
    return st;
}

static int check_data(const kvset *s, const sbw_target *t, const char *dir)
{
    uint64_t n = 0, m = 0;
    double fp = 0;
    int st = get_u(s, "n", &n);
    st = st ? st : get_u(s, "m", &m);
    st = st ? st : get_d(s, "fingerprint", &fp);
    if (st)
        return st;
    if (n != t->n || m != t->m)
        return SBW_ERROR(SBW_EDATA, "%s: the checkpoint is for %llu x %llu data, P* is %zu x %zu",
                         dir, (unsigned long long)n, (unsigned long long)m, t->n, t->m);
    if (fp != sbw_ckpt_fingerprint(t))
        return SBW_ERROR(SBW_EDATA, "%s: the checkpoint was made from different P* data", dir);
    return SBW_OK;
}

/* Loads dir/stem-gen.npy into x, which must hold rows x cols doubles. */
static int load_into(const char *dir, const char *stem, uint64_t gen, double *x, size_t rows,
                     size_t cols)
{
    char path[4096];
    file_name(path, sizeof path, dir, stem, gen);
    sbw_npy_reader *r;
    int st = sbw_npy_open(&r, path);
    if (st)
        return st;
    const sbw_npy_info *in = sbw_npy_reader_info(r);
    if (in->rows != rows || in->cols != cols)
        st = SBW_ERROR(SBW_EFORMAT, "%s: shape %zu x %zu, expected %zu x %zu", path, in->rows,
                       in->cols, rows, cols);
    st = st ? st : sbw_npy_read_rows(r, x, rows, cols);
    sbw_npy_close(r);
    return st;
}

static int get_counters(const kvset *s, sbw_fit *f, uint64_t *gen, size_t *nlog)
{
    uint64_t count = 0, head = 0;
    int st = get_u(s, "step", &f->step);
    st = st ? st : get_u(s, "epoch", &f->epoch);
    st = st ? st : get_u(s, "pos", &f->pos);
    st = st ? st : get_u(s, "adam_t", &f->adam.t);
    st = st ? st : get_u(s, "lbfgs_count", &count);
    st = st ? st : get_u(s, "lbfgs_head", &head);
    st = st ? st : get_u(s, "lbfgs_iter", &f->lbfgs.iter);
    st = st ? st : get_u(s, "lbfgs_nfev", &f->lbfgs.nfev);
    st = st ? st : get_d(s, "win_sum", &f->win_sum);
    st = st ? st : get_d(s, "win_prev", &f->win_prev);
    st = st ? st : get_u(s, "win_n", &f->win_n);
    st = st ? st : get_b(s, "have_prev", &f->have_prev);
    st = st ? st : get_z(s, "nlog", nlog);
    st = st ? st : get_d(s, "elapsed", &f->elapsed0);
    st = st ? st : get_u(s, "generation", gen);
    st = st ? st : get_z(s, "nlr", &f->nlr);
    if (!st && (count > f->lbfgs.mem || head >= (f->lbfgs.mem ? f->lbfgs.mem : 1) ||
                f->nlr > SBW_FIT_LR_GRID || f->pos > f->head.n))
        st = SBW_ERROR(SBW_EFORMAT, "%s: inconsistent counters", s->path);
    f->lbfgs.count = (size_t)count;
    f->lbfgs.head = (size_t)head;
    for (size_t i = 0; !st && i < f->nlr; i++) {
        char key[32];
        snprintf(key, sizeof key, "lr_grid_%zu", i);
        st = get_d(s, key, &f->lr_grid[i]);
        snprintf(key, sizeof key, "lr_kl_%zu", i);
        st = st ? st : get_d(s, key, &f->lr_kl[i]);
    }
    return st;
}

static int load_arrays(sbw_fit *f, const char *dir, uint64_t gen, size_t nlog)
{
    size_t n = f->head.nparam, mem = f->lbfgs.mem;
    int st = load_into(dir, "theta", gen, f->theta, n, 1);
    if (f->opt.optimizer == SBW_FIT_ADAM) {
        st = st ? st : load_into(dir, "adam_m", gen, f->adam.m, n, 1);
        st = st ? st : load_into(dir, "adam_v", gen, f->adam.v, n, 1);
    } else {
        st = st ? st : load_into(dir, "lbfgs_s", gen, f->lbfgs.s, mem, n);
        st = st ? st : load_into(dir, "lbfgs_y", gen, f->lbfgs.y, mem, n);
        st = st ? st : load_into(dir, "lbfgs_rho", gen, f->lbfgs.rho, mem, 1);
    }
    if (st || nlog == 0)
        return st;
    f->log = malloc(nlog * sizeof *f->log);
    if (!f->log)
        return SBW_ERROR(SBW_ENOMEM, "out of memory (training log)");
    f->nlog = f->caplog = nlog;
    return load_into(dir, "log", gen, &f->log[0].step, nlog, 7);
}

int sbw_ckpt_resume(sbw_fit **out, const sbw_target *t, const char *dir, const sbw_fit_opts *opts,
                    int *threads_saved)
{
    *out = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", dir);
    kvset *s = malloc(sizeof *s);
    if (!s)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    sbw_fit_opts o = *opts;
    uint64_t gen = 0, threads = 0;
    size_t nlog = 0;
    sbw_fit *f = NULL;
    int st = read_kv(s, path);
    st = st ? st : check_data(s, t, dir);
    st = st ? st : get_settings(s, &o);
    st = st ? st : get_u(s, "threads", &threads);
    st = st ? st : sbw_fit_alloc(&f, t, &o);
    st = st ? st : get_counters(s, f, &gen, &nlog);
    st = st ? st : load_arrays(f, dir, gen, nlog);
    free(s);
    if (st) {
        sbw_fit_free(f);
        return st;
    }
    f->ckpt_gen = gen;
    f->ckpt_step = f->resumed_at = f->step;
    f->t_start = f->t_ckpt = sbw_progress_now();
    if (threads_saved)
        *threads_saved = (int)threads;
    *out = f;
    return SBW_OK;
}
