/* sbw_ckpt.c -- checkpoint directories from tables (see sbw_ckpt.h). */
#define _DEFAULT_SOURCE /* flock */
#include "sbw_ckpt.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_npy.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define CKPT_MAX_KEYS 160
#define CKPT_LINE     512
#define CKPT_MAX_GEN  1e15

typedef struct kv {
    char key[48];
    char val[CKPT_LINE];
} kv;

struct sbw_ckpt {
    kv e[CKPT_MAX_KEYS];
    size_t n;
    uint64_t gen;
    char dir[4096];
    char path[4200];
};

/* ---- values ---------------------------------------------------------------- */

/* Where row f lives in base (void *: the row's type says what is there). */
static void *at(void *base, const sbw_ckpt_field *f) { return (char *)base + f->off; }

static const void *at_c(const void *base, const sbw_ckpt_field *f)
{
    return (const char *)base + f->off;
}

#define AT(type, base, f)   ((type *)at((base), (f)))
#define AT_C(type, base, f) ((const type *)at_c((base), (f)))

void sbw_ckpt_defaults(const sbw_ckpt_field *table, size_t n, void *base)
{
    for (const sbw_ckpt_field *f = table; f < table + n; f++) {
        switch (f->type) {
        case SBW_CKPT_SIZE:
            *AT(size_t, base, f) = (size_t)f->dflt;
            break;
        case SBW_CKPT_U64:
            *AT(uint64_t, base, f) = (uint64_t)f->dflt;
            break;
        case SBW_CKPT_INT:
        case SBW_CKPT_ENUM:
            *AT(int, base, f) = (int)f->dflt;
            break;
        case SBW_CKPT_DOUBLE:
            *AT(double, base, f) = f->dflt;
            break;
        case SBW_CKPT_BOOL:
            *AT(bool, base, f) = f->dflt != 0;
            break;
        }
    }
}

/* Exact: C99 hex.  Human: the shortest of %.15g..%.17g that reads back. */
static void format_double(double x, bool human, char *buf, size_t cap)
{
    if (!human) {
        snprintf(buf, cap, "%a", x);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

const char *sbw_ckpt_format(const sbw_ckpt_field *f, const void *base, bool human, char *buf,
                            size_t cap)
{
    const char *name;
    switch (f->type) {
    case SBW_CKPT_SIZE:
        snprintf(buf, cap, "%zu", *AT_C(size_t, base, f));
        break;
    case SBW_CKPT_U64:
        snprintf(buf, cap, "%" PRIu64, *AT_C(uint64_t, base, f));
        break;
    case SBW_CKPT_INT:
        snprintf(buf, cap, "%d", *AT_C(int, base, f));
        break;
    case SBW_CKPT_DOUBLE:
        format_double(*AT_C(double, base, f), human, buf, cap);
        break;
    case SBW_CKPT_BOOL:
        if (f->name)
            snprintf(buf, cap, "%s", f->name(*AT_C(bool, base, f) ? 1 : 0));
        else
            snprintf(buf, cap, "%d", *AT_C(bool, base, f) ? 1 : 0);
        break;
    case SBW_CKPT_ENUM:
        name = f->name(*AT_C(int, base, f));
        snprintf(buf, cap, "%s", name ? name : "?");
        break;
    }
    return buf;
}

static size_t width(const sbw_ckpt_field *f)
{
    switch (f->type) {
    case SBW_CKPT_SIZE:
        return sizeof(size_t);
    case SBW_CKPT_U64:
        return sizeof(uint64_t);
    case SBW_CKPT_DOUBLE:
        return sizeof(double);
    case SBW_CKPT_BOOL:
        return sizeof(bool);
    default:
        return sizeof(int);
    }
}

bool sbw_ckpt_same(const sbw_ckpt_field *f, const void *a, const void *b)
{
    return memcmp((const char *)a + f->off, (const char *)b + f->off, width(f)) == 0;
}

void sbw_ckpt_copy(const sbw_ckpt_field *table, size_t n, sbw_ckpt_role role, void *dst,
                   const void *src)
{
    for (const sbw_ckpt_field *f = table; f < table + n; f++)
        if (f->role == role)
            memcpy((char *)dst + f->off, (const char *)src + f->off, width(f));
}

/* ---- parsing one value ------------------------------------------------------ */

static int bad_value(const sbw_ckpt *c, const sbw_ckpt_field *f, const char *v, const char *why)
{
    return SBW_ERROR(SBW_EFORMAT, "%s: %s=%s: %s", c->path, f->key, v, why);
}

/* An unsigned decimal written in full, within the row's range. */
static int parse_uint(const sbw_ckpt *c, const sbw_ckpt_field *f, const char *v, uint64_t *out)
{
    char *end;
    if (v[0] < '0' || v[0] > '9')
        return bad_value(c, f, v, "not an unsigned integer");
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno)
        return bad_value(c, f, v, "not an unsigned integer");
    if ((double)x < f->min || (double)x > f->max) {
        char why[96];
        snprintf(why, sizeof why, "outside [%.17g, %.17g]", f->min, f->max);
        return bad_value(c, f, v, why);
    }
    *out = (uint64_t)x;
    return SBW_OK;
}

static int parse_double(const sbw_ckpt *c, const sbw_ckpt_field *f, const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end)
        return bad_value(c, f, v, "not a number");
    if (isnan(x))
        return bad_value(c, f, v, "NaN");
    if (!(x >= f->min && x <= f->max)) {
        char why[96];
        snprintf(why, sizeof why, "outside [%.17g, %.17g]", f->min, f->max);
        return bad_value(c, f, v, why);
    }
    *out = x;
    return SBW_OK;
}

static int parse_enum(const sbw_ckpt *c, const sbw_ckpt_field *f, const char *v, int *out)
{
    for (int i = 0; f->name(i); i++)
        if (strcmp(f->name(i), v) == 0) {
            *out = i;
            return SBW_OK;
        }
    return bad_value(c, f, v, "unknown name");
}

static const char *find(const sbw_ckpt *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->e[i].key, key) == 0)
            return c->e[i].val;
    return NULL;
}

static int get_one(const sbw_ckpt *c, const sbw_ckpt_field *f, void *base)
{
    const char *v = find(c, f->key);
    uint64_t u = 0;
    int st;
    if (!v)
        return SBW_ERROR(SBW_EFORMAT, "%s: missing key '%s'", c->path, f->key);
    switch (f->type) {
    case SBW_CKPT_DOUBLE:
        return parse_double(c, f, v, AT(double, base, f));
    case SBW_CKPT_ENUM:
        return parse_enum(c, f, v, AT(int, base, f));
    case SBW_CKPT_BOOL:
        if (f->name) {
            int b = 0;
            st = parse_enum(c, f, v, &b);
            *AT(bool, base, f) = b == 1;
            return st;
        }
        break;
    default:
        break;
    }
    if ((st = parse_uint(c, f, v, &u)))
        return st;
    if (f->type == SBW_CKPT_SIZE)
        *AT(size_t, base, f) = (size_t)u;
    else if (f->type == SBW_CKPT_U64)
        *AT(uint64_t, base, f) = u;
    else if (f->type == SBW_CKPT_INT)
        *AT(int, base, f) = (int)u;
    else if (u > 1)
        return bad_value(c, f, v, "not 0 or 1");
    else
        *AT(bool, base, f) = u == 1;
    return SBW_OK;
}

int sbw_ckpt_get(const sbw_ckpt *c, const sbw_ckpt_field *table, size_t n, void *base)
{
    int st = SBW_OK;
    for (size_t i = 0; !st && i < n; i++)
        st = get_one(c, &table[i], base);
    return st;
}

int sbw_ckpt_get_generations(const sbw_ckpt *c, const sbw_ckpt_field *table, size_t n,
                             const size_t *gen, size_t ngen, void *base)
{
    size_t later = 0;
    for (size_t g = 0; g < ngen; g++)
        later += gen[g];
    if (later > n)
        return SBW_ERROR(SBW_EINVAL, "%zu rows in later generations of a %zu-row table", later, n);
    size_t at = n - later;
    int st = sbw_ckpt_get(c, table, at, base);
    for (size_t g = 0; !st && g < ngen; at += gen[g++]) {
        if (gen[g] == 0)
            continue;
        if (sbw_ckpt_value(c, table[at].key))
            st = sbw_ckpt_get(c, table + at, gen[g], base);
        else /* written before this generation: run without it */
            sbw_ckpt_defaults(table + at, gen[g], base);
    }
    return st;
}

/* ---- files of a directory ---------------------------------------------------- */

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

/* A name sbw_ckpt_write makes: checkpoint.tsv (*gen = 0) or
 * ckpt-DIGITS-STEM.npy (its generation into *gen). */
static bool ckpt_file(const char *name, uint64_t *gen)
{
    *gen = 0;
    if (strcmp(name, "checkpoint.tsv") == 0)
        return true;
    if (strncmp(name, "ckpt-", 5) != 0)
        return false;
    const char *p = name + 5;
    size_t digits = strspn(p, "0123456789"), len = strlen(p);
    *gen = strtoull(p, NULL, 10);
    return digits > 0 && p[digits] == '-' && len > digits + 5 && strcmp(p + len - 4, ".npy") == 0 &&
           *gen > 0;
}

bool sbw_ckpt_owns_name(const char *name)
{
    uint64_t gen;
    return ckpt_file(name, &gen) || strcmp(name, SBW_CKPT_LOCK_NAME) == 0;
}

/* The process id in a temporary's name "....tmp.PID.XXXXXX" (sbw_file's
 * names); 0 when the name does not end that way. */
static long temp_owner(const char *name)
{
    const char *t = NULL;
    for (const char *p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp."))
        t = p;
    if (!t)
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(t + 5, &end, 10);
    if (errno || pid <= 0 || *end != '.' || strlen(end + 1) != 6)
        return 0;
    return pid;
}

/* A temporary that a write of those files left when it was killed (kill -9
 * gives it no chance to remove it): ".checkpoint.tsv.tmp.PID.XXXXXX" or
 * ".ckpt-G-STEM.npy.tmp.PID.XXXXXX" (sbw_file's names), whose process PID
 * no longer exists: a live process's temporaries (this one's, or another
 * writer's that the folder's lock should have kept out) are never touched. */
static bool ckpt_temporary(const char *name)
{
    if (!((strncmp(name, ".checkpoint.tsv.tmp.", 20) == 0 || strncmp(name, ".ckpt-", 6) == 0) &&
          strstr(name, ".tmp.") != NULL))
        return false;
    long pid = temp_owner(name);
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the checkpoint files of dir except generation keep's (keep 0:
 * all of them, checkpoint.tsv included), and every temporary of theirs. */
static int sweep(const char *dir, uint64_t keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return SBW_ERROR(SBW_EIO, "%s: cannot list: %s", dir, strerror(errno));
    struct dirent *e;
    char path[4400];
    uint64_t gen;
    while ((e = readdir(d)) != NULL) {
        bool temp = ckpt_temporary(e->d_name);
        if (!temp && (!ckpt_file(e->d_name, &gen) || (keep && (gen == keep || gen == 0))))
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
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", dir);
    return access(path, F_OK) == 0;
}

static void array_path(char *buf, size_t cap, const char *dir, uint64_t gen, const char *stem)
{
    snprintf(buf, cap, "%s/ckpt-%" PRIu64 "-%s.npy", dir, gen, stem);
}

/* ---- writing ------------------------------------------------------------------- */

static int save_arrays(const char *dir, uint64_t gen, const sbw_ckpt_array *a, size_t n)
{
    char path[4400];
    int st = SBW_OK;
    for (size_t i = 0; !st && i < n; i++) {
        array_path(path, sizeof path, dir, gen, a[i].stem);
        sbw_mat v = sbw_mat_view((double *)a[i].x, a[i].rows, a[i].cols, a[i].cols);
        st = a[i].cols == 1 ? sbw_npy_save_vector(path, a[i].x, a[i].rows, SBW_F64)
                            : sbw_npy_save(path, &v, SBW_F64);
    }
    return st;
}

static void put_groups(FILE *fp, uint64_t gen, const sbw_ckpt_group *g, size_t ng)
{
    char val[CKPT_LINE];
    fprintf(fp, "sbw_checkpoint=%d\ngeneration=%" PRIu64 "\n", SBW_CKPT_VERSION, gen);
    for (size_t i = 0; i < ng; i++)
        for (const sbw_ckpt_field *f = g[i].fields; f < g[i].fields + g[i].n; f++)
            fprintf(fp, "%s=%s\n", f->key, sbw_ckpt_format(f, g[i].base, false, val, sizeof val));
}

/* fsync of the directory itself: the rename that made the new generation
 * current is on disk before the older generation's files go. */
static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return SBW_ERROR(SBW_EIO, "%s: cannot open the directory: %s", dir, strerror(errno));
    int rc = fsync(fd);
    int err = errno;
    close(fd);
    if (rc != 0 && err != EINVAL) /* some file systems cannot sync a directory */
        return SBW_ERROR(SBW_EIO, "%s: fsync failed: %s", dir, strerror(err));
    return SBW_OK;
}

static void remove_generation(const char *dir, uint64_t gen, const sbw_ckpt_array *a, size_t n)
{
    char path[4400];
    for (size_t i = 0; i < n; i++) {
        array_path(path, sizeof path, dir, gen, a[i].stem);
        unlink(path); /* absent files are fine */
    }
}

int sbw_ckpt_write(const char *dir, uint64_t gen, const sbw_ckpt_group *groups, size_t ngroups,
                   const sbw_ckpt_array *arrays, size_t narrays)
{
    int st = sbw_ckpt_mkdir(dir);
    st = st ? st : save_arrays(dir, gen, arrays, narrays);
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint.tsv", dir);
    sbw_file file = {0};
    st = st ? st : sbw_file_create(&file, path);
    if (!st) {
        put_groups(file.fp, gen, groups, ngroups);
        st = sbw_file_commit(&file);
    }
    if (st) {
        remove_generation(dir, gen, arrays, narrays);
        return st;
    }
    /* gen is current now: a failed directory sync keeps both generations
     * (either may be the one on disk after a power loss) */
    if ((st = sync_dir(dir)) != SBW_OK)
        return st;
    sweep(dir, gen); /* the previous generation, and any left by an earlier fit */
    return SBW_OK;
}

/* ---- reading --------------------------------------------------------------------- */

static int read_lines(sbw_ckpt *c, FILE *fp)
{
    char line[CKPT_LINE + 64];
    while (fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (!eq || eq == line || (size_t)(eq - line) >= sizeof c->e[0].key ||
            strlen(eq + 1) >= sizeof c->e[0].val || c->n == CKPT_MAX_KEYS)
            return SBW_ERROR(SBW_EFORMAT, "%s: malformed line '%.40s'", c->path, line);
        size_t klen = (size_t)(eq - line);
        memcpy(c->e[c->n].key, line, klen);
        c->e[c->n].key[klen] = '\0';
        snprintf(c->e[c->n].val, sizeof c->e[0].val, "%s", eq + 1);
        c->n++;
    }
    return SBW_OK;
}

static int read_file(sbw_ckpt *c)
{
    FILE *fp = fopen(c->path, "r");
    if (!fp)
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s (not a checkpoint directory?)", c->path,
                         strerror(errno));
    int st = read_lines(c, fp);
    fclose(fp);
    return st;
}

/* The format version and the generation. */
static int read_header(sbw_ckpt *c)
{
    const char *v = find(c, "sbw_checkpoint");
    if (!v)
        return SBW_ERROR(SBW_EFORMAT, "%s: no format version (key 'sbw_checkpoint')", c->path);
    bool known = false;
    for (int k = SBW_CKPT_VERSION_MIN; k <= SBW_CKPT_VERSION; k++) {
        char want[16];
        snprintf(want, sizeof want, "%d", k);
        known = known || strcmp(v, want) == 0;
    }
    if (!known)
        return SBW_ERROR(SBW_EFORMAT,
                         "%s: sbw_checkpoint=%s: unknown checkpoint format version (this sbw "
                         "reads versions %d to %d)",
                         c->path, v, SBW_CKPT_VERSION_MIN, SBW_CKPT_VERSION);
    const sbw_ckpt_field gen = {"generation", 0, SBW_CKPT_U64, 1, CKPT_MAX_GEN, 0, NULL, 0, NULL};
    return sbw_ckpt_get(c, &gen, 1, &c->gen);
}

int sbw_ckpt_open(sbw_ckpt **out, const char *dir)
{
    *out = NULL;
    sbw_ckpt *c = calloc(1, sizeof *c);
    if (!c)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    snprintf(c->path, sizeof c->path, "%s/checkpoint.tsv", dir);
    int st = read_file(c);
    st = st ? st : read_header(c);
    if (st) {
        free(c);
        return st;
    }
    *out = c;
    return SBW_OK;
}

int sbw_ckpt_tidy(const sbw_ckpt *c) { return sweep(c->dir, c->gen); }

void sbw_ckpt_close(sbw_ckpt *c) { free(c); }

uint64_t sbw_ckpt_generation(const sbw_ckpt *c) { return c->gen; }

const char *sbw_ckpt_path(const sbw_ckpt *c) { return c->path; }

/* Opens array stem of c's generation; its file name into path (cap
 * bytes), for messages.  Errors: those of sbw_npy_open (*r unset). */
static int open_array(const sbw_ckpt *c, const char *stem, char *path, size_t cap,
                      sbw_npy_reader **r)
{
    array_path(path, cap, c->dir, c->gen, stem);
    return sbw_npy_open(r, path);
}

int sbw_ckpt_array_shape(const sbw_ckpt *c, const char *stem, size_t *rows, size_t *cols)
{
    char path[4400];
    sbw_npy_reader *r;
    int st = open_array(c, stem, path, sizeof path, &r);
    if (st)
        return st;
    *rows = sbw_npy_reader_info(r)->rows;
    *cols = sbw_npy_reader_info(r)->cols;
    sbw_npy_close(r);
    return SBW_OK;
}

int sbw_ckpt_load(const sbw_ckpt *c, const char *stem, double *x, size_t rows, size_t cols)
{
    char path[4400];
    sbw_npy_reader *r;
    int st = open_array(c, stem, path, sizeof path, &r);
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

size_t sbw_ckpt_conflicts(const sbw_ckpt_field *table, size_t nrows, const void *asked,
                          const void *saved, bool (*given)(void *ctx, const sbw_ckpt_field *row),
                          void *ctx, char *buf, size_t cap)
{
    size_t n = 0, at = 0;
    char a[64], s[64];
    buf[0] = '\0';
    for (const sbw_ckpt_field *f = table; f < table + nrows; f++) {
        if (f->role != SBW_CKPT_SHAPES || !given(ctx, f) || sbw_ckpt_same(f, asked, saved))
            continue;
        sbw_ckpt_format(f, asked, true, a, sizeof a);
        sbw_ckpt_format(f, saved, true, s, sizeof s);
        const char *opt = f->option ? f->option : f->key;
        bool plain = f->option && strcmp(f->option + 2, f->key) == 0;
        int k =
            snprintf(buf + at, cap - at, "%s%s%s%s%s %s given, %s in the checkpoint", n ? "; " : "",
                     opt, plain ? "" : " (", plain ? "" : f->key, plain ? "" : ")", a, s);
        if (k > 0 && (size_t)k < cap - at)
            at += (size_t)k;
        n++;
    }
    return n;
}

int sbw_ckpt_resume_check(const sbw_ckpt_field *table, size_t nrows, const void *asked,
                          const void *saved, bool (*given)(void *ctx, const sbw_ckpt_field *row),
                          void *ctx, const char *dir)
{
    char buf[2048];
    if (sbw_ckpt_conflicts(table, nrows, asked, saved, given, ctx, buf, sizeof buf) == 0)
        return SBW_OK;
    return SBW_ERROR(SBW_EINVAL,
                     "--resume %s: the command line contradicts the checkpoint (drop these "
                     "options or start afresh): %s",
                     dir, buf);
}

const char *sbw_ckpt_value(const sbw_ckpt *c, const char *key) { return find(c, key); }

/* ---- checked arrays --------------------------------------------------------------- */

int sbw_ckpt_check_values(const sbw_ckpt *c, const char *stem, const double *x, size_t n,
                          double maxabs)
{
    char path[4400];
    array_path(path, sizeof path, c->dir, c->gen, stem);
    for (size_t i = 0; i < n; i++) {
        if (isfinite(x[i]) && fabs(x[i]) <= maxabs)
            continue;
        if (!isfinite(x[i]))
            return SBW_ERROR(SBW_EDATA, "%s: value %zu of %zu is %g: the checkpoint is damaged",
                             path, i + 1, n, x[i]);
        return SBW_ERROR(SBW_EDATA,
                         "%s: value %zu of %zu is %.17g, beyond the %g any trained model stays "
                         "within: the checkpoint is damaged or its run diverged",
                         path, i + 1, n, x[i], maxabs);
    }
    return SBW_OK;
}

int sbw_ckpt_load_checked(const sbw_ckpt *c, const char *stem, double *x, size_t rows, size_t cols,
                          double maxabs)
{
    int st = sbw_ckpt_load(c, stem, x, rows, cols);
    return st ? st : sbw_ckpt_check_values(c, stem, x, rows * cols, maxabs);
}

/* ---- one writer per folder ---------------------------------------------------------- */

struct sbw_ckpt_lock {
    int fd;
    bool created;            /* the folder did not exist before the lock */
    int file_slot, dir_slot; /* sbw_file's cleanup entries (0: none) */
    char dir[4096];
    char path[4200];
};

/* The process id written in the lock file fd (0 when unreadable). */
static long lock_holder(int fd)
{
    char buf[32];
    ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
    if (k <= 0)
        return 0;
    buf[k] = '\0';
    long pid = strtol(buf, NULL, 10);
    return pid > 0 ? pid : 0;
}

/* One attempt: opens (creating) l->path and takes the lock without
 * waiting.  *again when the file was replaced meanwhile (a releasing
 * holder unlinked it): the caller tries once more. */
static int lock_once(struct sbw_ckpt_lock *l, bool *again)
{
    *again = false;
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return SBW_ERROR(SBW_EIO, "%s: cannot create the lock file %s: %s", l->dir,
                         SBW_CKPT_LOCK_NAME, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int err = errno;
        long pid = lock_holder(fd);
        close(fd);
        if (err != EWOULDBLOCK)
            return SBW_ERROR(SBW_EIO, "%s: cannot lock the checkpoint folder: %s", l->dir,
                             strerror(err));
        char who[64] = "another process";
        if (pid)
            snprintf(who, sizeof who, "process %ld", pid);
        return SBW_ERROR(SBW_EIO,
                         "%s: the checkpoint folder is in use by %s (a run writing it holds "
                         "its lock); wait for that run to end or give another folder",
                         l->dir, who);
    }
    struct stat a, b;
    if (fstat(fd, &a) != 0 || stat(l->path, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        close(fd);
        *again = true;
        return SBW_OK;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        int err = errno;
        close(fd);
        return SBW_ERROR(SBW_EIO, "%s: cannot write the lock file %s: %s", l->dir,
                         SBW_CKPT_LOCK_NAME, strerror(err));
    }
    l->fd = fd;
    return SBW_OK;
}

int sbw_ckpt_lock_take(sbw_ckpt_lock **out, const char *dir)
{
    *out = NULL;
    struct sbw_ckpt_lock *l = calloc(1, sizeof *l);
    if (!l)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    l->fd = -1;
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    snprintf(l->path, sizeof l->path, "%s/%s", dir, SBW_CKPT_LOCK_NAME);
    struct stat sb;
    l->created = stat(dir, &sb) != 0;
    int st = sbw_ckpt_mkdir(dir);
    bool again = true;
    for (int tries = 0; !st && again && tries < 100; tries++)
        st = lock_once(l, &again);
    if (!st && l->fd < 0)
        st = SBW_ERROR(SBW_EIO, "%s: the lock file %s keeps being replaced", dir,
                       SBW_CKPT_LOCK_NAME);
    /* a signal that ends the process removes the lock file, and the folder
     * when the lock made it and nothing was written there */
    st = st ? st : sbw_file_track(SBW_FILE_TRACK_FILE, l->path, 0, &l->file_slot);
    if (!st && l->created)
        st = sbw_file_track(SBW_FILE_TRACK_DIR, l->dir, 0, &l->dir_slot);
    if (st) {
        sbw_file_untrack(l->file_slot);
        if (l->fd >= 0) {
            unlink(l->path);
            close(l->fd);
        }
        if (l->created)
            rmdir(dir);
        free(l);
        return st;
    }
    *out = l;
    return SBW_OK;
}

void sbw_ckpt_lock_release(sbw_ckpt_lock *l, bool rmdir_empty)
{
    if (!l)
        return;
    sbw_file_untrack(l->file_slot);
    sbw_file_untrack(l->dir_slot);
    unlink(l->path); /* still held: a waiting opener finds the file gone and retries */
    close(l->fd);
    if (rmdir_empty || l->created)
        rmdir(l->dir); /* fails, harmlessly, when the folder holds anything */
    free(l);
}
