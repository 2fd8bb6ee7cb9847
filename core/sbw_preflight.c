/* sbw_preflight.c -- outputs checked before any work (see sbw_preflight.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sbw_preflight.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_safet.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a path names, for the same-file tests. */
typedef struct ident {
    bool exists;  /* stat() succeeded */
    bool special; /* exists and is neither a regular file nor a directory */
    dev_t dev;
    ino_t ino;
    char norm[2 * PATH_MAX + 2]; /* realpath, or realpath(directory)/name when absent */
} ident;

/* Where path's last component lies, trailing slashes ignored: it is
 * path[*cut, *len). */
static void last_component(const char *path, size_t *cut, size_t *len)
{
    *len = strlen(path);
    while (*len > 1 && path[*len - 1] == '/')
        (*len)--;
    *cut = *len;
    while (*cut > 0 && path[*cut - 1] != '/')
        (*cut)--;
}

/* The directory part of path ("." when none, "/" for "/x"), trailing
 * slashes ignored, into dir (size n). */
static void dir_of(const char *path, char *dir, size_t n)
{
    size_t cut, len;
    last_component(path, &cut, &len);
    if (cut == 0)
        snprintf(dir, n, ".");
    else if (cut == 1)
        snprintf(dir, n, "/");
    else
        snprintf(dir, n, "%.*s", (int)(cut - 1), path);
}

/* The last component of path, trailing slashes ignored. */
static void base_of(const char *path, char *base, size_t n)
{
    size_t cut, len;
    last_component(path, &cut, &len);
    snprintf(base, n, "%.*s", (int)(len - cut), path + cut);
}

static void identify(const char *path, ident *id)
{
    struct stat sb;
    *id = (ident){0};
    if (stat(path, &sb) == 0) {
        id->exists = true;
        id->special = !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
        id->dev = sb.st_dev;
        id->ino = sb.st_ino;
    }
    char dir[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
    if (id->exists && realpath(path, real)) {
        snprintf(id->norm, sizeof id->norm, "%s", real);
        return;
    }
    dir_of(path, dir, sizeof dir);
    base_of(path, base, sizeof base);
    if (realpath(dir, real))
        snprintf(id->norm, sizeof id->norm, "%s/%s", strcmp(real, "/") ? real : "", base);
    else
        snprintf(id->norm, sizeof id->norm, "%s", path);
}

/* True when a and b are one file (never for pipes and devices). */
static bool same_file(const ident *a, const ident *b)
{
    if (a->special || b->special)
        return false;
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return a->exists == b->exists && strcmp(a->norm, b->norm) == 0;
}

bool sbw_preflight_same(const char *a, const char *b)
{
    ident ia, ib;
    identify(a, &ia);
    identify(b, &ib);
    return same_file(&ia, &ib);
}

void sbw_preflight_split(const char *path, char *dir, size_t dcap, char *base, size_t bcap)
{
    dir_of(path, dir, dcap);
    base_of(path, base, bcap);
}

/* SBW_OK when dir exists as a directory this process may create files in. */
static int writable_dir(const char *dir, const sbw_preflight_out *o)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return SBW_ERROR(SBW_EIO, "%s: cannot create %s there: %s: %s", o->path, o->opt, dir,
                         strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return SBW_ERROR(SBW_EIO, "%s: cannot create %s there: %s is not a directory", o->path,
                         o->opt, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return SBW_ERROR(SBW_EIO, "%s: cannot create %s there: directory %s: %s", o->path, o->opt,
                         dir, strerror(errno));
    return SBW_OK;
}

/* SBW_OK when the output o can be written (see sbw_preflight.h). */
static int creatable(const sbw_preflight_out *o)
{
    struct stat sb;
    char dir[PATH_MAX];
    if (stat(o->path, &sb) != 0) {
        dir_of(o->path, dir, sizeof dir);
        return writable_dir(dir, o);
    }
    if (o->dir)
        return writable_dir(o->path, o);
    if (S_ISDIR(sb.st_mode))
        return SBW_ERROR(SBW_EIO, "%s: cannot write %s: it is a directory", o->path, o->opt);
    if (!S_ISREG(sb.st_mode)) /* a pipe or a device is written directly */
        return access(o->path, W_OK) == 0 ? SBW_OK
                                          : SBW_ERROR(SBW_EIO, "%s: cannot write %s: %s", o->path,
                                                      o->opt, strerror(errno));
    dir_of(o->path, dir, sizeof dir); /* replaced through a temporary beside it */
    return writable_dir(dir, o);
}

/* An output against the inputs. */
static int against_inputs(const sbw_preflight_out *o, const ident *oid, const char *const *inputs,
                          size_t nin)
{
    for (size_t i = 0; i < nin; i++) {
        if (!inputs[i] || sbw_file_is_std(inputs[i]))
            continue;
        ident in;
        char file[PATH_MAX];
        const char *tensor; /* an input FILE.safetensors:NAME is the file FILE.safetensors */
        identify(sbw_safet_split(inputs[i], file, sizeof file, &tensor) ? file : inputs[i], &in);
        if (same_file(oid, &in))
            return SBW_ERROR(SBW_EINVAL,
                             "%s: %s is the input %s (the same file): refusing to overwrite it; "
                             "write the output elsewhere",
                             o->path, o->opt, inputs[i]);
    }
    return SBW_OK;
}

/* Output k against outputs 0..k-1. */
static int against_outputs(const sbw_preflight_out *outs, size_t k, const ident *ids)
{
    const sbw_preflight_out *o = &outs[k];
    for (size_t j = 0; j < k; j++) {
        const sbw_preflight_out *p = &outs[j];
        if (!p->path)
            continue;
        bool std = sbw_file_is_std(o->path) && sbw_file_is_std(p->path);
        if (std ||
            (!sbw_file_is_std(o->path) && !sbw_file_is_std(p->path) && same_file(&ids[k], &ids[j])))
            return SBW_ERROR(SBW_EINVAL, "%s: %s and %s name the same %s: give each its own",
                             o->path, p->opt, o->opt, std ? "stream (stdout)" : "file");
    }
    return SBW_OK;
}

int sbw_preflight(const char *const *inputs, size_t nin, const sbw_preflight_out *outs, size_t nout)
{
    ident *ids = calloc(nout ? nout : 1, sizeof *ids);
    if (!ids)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = SBW_OK;
    for (size_t k = 0; k < nout && !st; k++) {
        const sbw_preflight_out *o = &outs[k];
        if (!o->path)
            continue;
        if (!sbw_file_is_std(o->path)) {
            identify(o->path, &ids[k]);
            st = against_inputs(o, &ids[k], inputs, nin);
        }
        st = st ? st : against_outputs(outs, k, ids);
    }
    for (size_t k = 0; k < nout && !st; k++)
        if (outs[k].path && !sbw_file_is_std(outs[k].path))
            st = creatable(&outs[k]);
    free(ids);
    return st;
}

/* ---- memory ------------------------------------------------------------- */

/* "512M", "64G", "1.5T", "1000000" -> bytes; false when s is not one. */
static bool parse_memory_size(const char *s, double *bytes)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !(v > 0) || v > 1e30)
        return false;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, *end) : NULL;
    if (*end && (!u || end[1] != '\0'))
        return false;
    for (const char *k = units; u && k <= u; k++)
        v *= 1024.0;
    *bytes = v;
    return true;
}

int sbw_preflight_memory_limit(double *limit)
{
    const char *env = getenv("SBW_MAX_MEMORY");
    if (env && strcmp(env, "any") == 0) {
        *limit = INFINITY;
        return SBW_OK;
    }
    if (env)
        return parse_memory_size(env, limit)
                   ? SBW_OK
                   : SBW_ERROR(SBW_EINVAL,
                               "SBW_MAX_MEMORY must be a size (e.g. 512M, 64G) or 'any', got '%s'",
                               env);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *limit = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    return SBW_OK;
}

int sbw_preflight_memory(double bytes, const char *what)
{
    double limit;
    int st = sbw_preflight_memory_limit(&limit);
    if (st || !(bytes > limit))
        return st;
    bool env = getenv("SBW_MAX_MEMORY") != NULL;
    return SBW_ERROR(SBW_ENOMEM,
                     "%s needs %.3g GiB, more than %s %.3g GiB of memory (set SBW_MAX_MEMORY=SIZE "
                     "or SBW_MAX_MEMORY=any to try anyway)",
                     what, bytes / 1073741824.0, env ? "SBW_MAX_MEMORY's" : "this machine's",
                     limit / 1073741824.0);
}
