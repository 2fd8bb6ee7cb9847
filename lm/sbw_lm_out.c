/* sbw_lm_out.c -- sbw-lm's output preflight and its export folder (see
 * sbw_lm_out.h). */
#define _GNU_SOURCE /* renameat2 */
#include "sbw_lm_out.h"

#include "sbw_ckpt.h"
#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_head_io.h"
#include "sbw_preflight.h"
#include "sbw_signal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUT_MAX_FILES (SBW_HEAD_MAX_BLOCKS + 7) /* what an export can write */

/* ---- preflight ---------------------------------------------------------------- */

static const char *const split_files[] = {"train.txt",     "valid.txt",     "test.txt",
                                          "ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"};
#define NSPLIT_FILES (sizeof split_files / sizeof *split_files)

static bool split_name(const char *base)
{
    for (size_t i = 0; i < NSPLIT_FILES; i++)
        if (strcmp(base, split_files[i]) == 0)
            return true;
    return false;
}

typedef struct names {
    char **p;
    size_t n, cap;
} names;

static int names_add(names *v, const char *dir, const char *base)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 16;
        char **p = realloc(v->p, cap * sizeof *p);
        if (!p)
            return SBW_ERROR(SBW_ENOMEM, "out of memory");
        v->p = p, v->cap = cap;
    }
    size_t len = strlen(dir) + strlen(base) + 2;
    if (!(v->p[v->n] = malloc(len)))
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    snprintf(v->p[v->n++], len, "%s/%s", dir, base);
    return SBW_OK;
}

static void names_free(names *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->p[i]);
    free(v->p);
}

/* The files a run reads or owns in data and ckpt: every corpus name, the
 * checkpoint's table and lock, the arrays there now. */
static int inputs(const char *data, const char *ckpt, names *v)
{
    int st = SBW_OK;
    for (size_t i = 0; data && !st && i < NSPLIT_FILES; i++)
        st = names_add(v, data, split_files[i]);
    if (!ckpt || st)
        return st;
    st = names_add(v, ckpt, "checkpoint.tsv");
    st = st ? st : names_add(v, ckpt, SBW_CKPT_LOCK_NAME);
    DIR *d = opendir(ckpt);
    for (struct dirent *e; !st && d && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, "ckpt-", 5) == 0 && sbw_ckpt_owns_name(e->d_name))
            st = names_add(v, ckpt, e->d_name);
    if (d)
        closedir(d);
    return st;
}

/* A folder output that is the corpus's or (not the run's own) the
 * checkpoint's folder. */
static int check_folder(const char *data, const char *ckpt, const sbw_preflight_out *o)
{
    if (data && sbw_preflight_same(o->path, data))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: %s is the --data folder %s, which holds the corpus: give it a "
                         "folder of its own",
                         o->path, o->opt, data);
    if (ckpt && strcmp(o->opt, "--ckpt") != 0 && sbw_preflight_same(o->path, ckpt))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: %s is the --ckpt folder %s, which holds the checkpoint's files: give "
                         "it a folder of its own",
                         o->path, o->opt, ckpt);
    return SBW_OK;
}

/* A file output named as a corpus file in data or a checkpoint file in
 * ckpt. */
static int check_file(const char *data, const char *ckpt, const sbw_preflight_out *o)
{
    char dir[PATH_MAX], base[NAME_MAX + 1];
    sbw_preflight_split(o->path, dir, sizeof dir, base, sizeof base);
    if (data && split_name(base) && sbw_preflight_same(dir, data))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: %s would be the corpus file %s of --data %s (the corpus reader "
                         "takes that name for a split): write it elsewhere",
                         o->path, o->opt, base, data);
    if (ckpt && sbw_ckpt_owns_name(base) && sbw_preflight_same(dir, ckpt))
        return SBW_ERROR(SBW_EINVAL,
                         "%s: %s would be the checkpoint's own file %s in --ckpt %s (replaced and "
                         "removed as the run writes): write it elsewhere",
                         o->path, o->opt, base, ckpt);
    return SBW_OK;
}

int sbw_lm_out_preflight(const char *data, const char *ckpt, const sbw_preflight_out *outs,
                         size_t nout)
{
    names v = {0};
    int st = SBW_OK;
    for (size_t k = 0; !st && k < nout; k++) { /* names first: a folder yet to be made too */
        const sbw_preflight_out *o = &outs[k];
        if (o->path && !sbw_file_is_std(o->path))
            st = o->dir ? check_folder(data, ckpt, o) : check_file(data, ckpt, o);
    }
    st = st ? st : inputs(data, ckpt, &v);
    st = st ? st : sbw_preflight((const char *const *)v.p, v.n, outs, nout);
    names_free(&v);
    return st;
}

/* ---- the export folder ----------------------------------------------------------- */

/* A name an export writes: *.npy, params.tsv, map.tsv, vocab.txt. */
static bool export_name(const char *name)
{
    size_t n = strlen(name);
    return strcmp(name, "params.tsv") == 0 || strcmp(name, "map.tsv") == 0 ||
           strcmp(name, "vocab.txt") == 0 || (n > 4 && strcmp(name + n - 4, ".npy") == 0);
}

int sbw_lm_out_export_check(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return SBW_OK; /* absent, or not a folder: sbw_preflight says so */
    DIR *d = opendir(dir);
    if (!d)
        return SBW_ERROR(SBW_EIO, "%s: cannot list the --export folder: %s", dir, strerror(errno));
    int st = SBW_OK;
    char path[PATH_MAX + NAME_MAX + 2];
    for (struct dirent *e; !st && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!export_name(e->d_name) || lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            st = SBW_ERROR(SBW_EINVAL,
                           "%s: the --export folder holds %s, which an export does not write "
                           "(an export replaces the whole folder): give a new or empty folder",
                           dir, e->d_name);
    }
    closedir(d);
    return st;
}

/* Removes what an export wrote in dir (after an exchange: the earlier
 * one), then dir itself when that empties it. */
static void remove_export(const char *dir)
{
    DIR *d = opendir(dir);
    char path[PATH_MAX + NAME_MAX + 2];
    struct stat sb;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (export_name(e->d_name) && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The temporary folder beside dir, made and tracked (its cleanup entry
 * reserved before mkdtemp, signals held). */
static int make_temp(const char *dir, char *tmp, size_t cap, int *slot)
{
    char parent[PATH_MAX], base[NAME_MAX + 1];
    sbw_preflight_split(dir, parent, sizeof parent, base, sizeof base);
    size_t extra = strlen("..export.XXXXXX"), keep = sbw_file_fit_name(parent, base, extra);
    int k = snprintf(tmp, cap, "%s/.%.*s.export.XXXXXX", parent, (int)keep, base);
    if (k < 0 || (size_t)k >= cap)
        return SBW_ERROR(SBW_EINVAL, "%s: the folder name is too long", dir);
    sigset_t old;
    sbw_signal_hold(&old);
    int st = sbw_file_track_reserve(tmp, slot);
    if (!st && !mkdtemp(tmp)) {
        st = SBW_ERROR(SBW_EIO, "%s: cannot create a folder beside it: %s", dir, strerror(errno));
        sbw_file_track_cancel(*slot);
        *slot = 0;
    } else if (!st && (st = sbw_file_track_set(*slot, SBW_FILE_TRACK_DIR, tmp, 0)) != 0) {
        rmdir(tmp);
        *slot = 0;
    }
    sbw_signal_release(&old);
    return st;
}

/* Tracks every file an export of lm may write in tmp (slots[0..*n)), so
 * that a signal empties the folder before removing it. */
static int track_files(const sbw_lm *lm, const char *tmp, int *slots, size_t *n)
{
    static const char *const extra[] = {"vocab.txt", "params.tsv",     "map.tsv",       "lms_u.npy",
                                        "lms_v.npy", "lms_lambda.npy", "plif_slope.npy"};
    sbw_head_block b[SBW_HEAD_MAX_BLOCKS];
    size_t nb = sbw_head_blocks(&lm->head, b);
    char path[PATH_MAX + NAME_MAX + 2];
    int st = SBW_OK;
    *n = 0;
    for (size_t i = 0; !st && i < nb + sizeof extra / sizeof *extra; i++) {
        if (i < nb)
            snprintf(path, sizeof path, "%s/%s.npy", tmp, b[i].name);
        else
            snprintf(path, sizeof path, "%s/%s", tmp, extra[i - nb]);
        st = sbw_file_track(SBW_FILE_TRACK_FILE, path, 0, &slots[(*n)++]);
    }
    return st;
}

/* tmp becomes dir: renamed onto it (absent or empty), else exchanged with
 * the earlier export there (or moved aside first where the file system
 * cannot exchange), which is then removed.  Signals held throughout. */
static int put_in_place(const char *tmp, const char *dir)
{
    sigset_t old;
    sbw_signal_hold(&old);
    while (sbw_file_dying()) /* a signal was taken: nothing goes into place */
        pause();
    int st = SBW_OK;
    if (rename(tmp, dir) == 0) {
        sbw_signal_release(&old);
        return SBW_OK;
    }
    if (errno != ENOTEMPTY && errno != EEXIST) {
        st = SBW_ERROR(SBW_EIO, "%s: cannot put the export in place: %s", dir, strerror(errno));
    } else if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        remove_export(tmp); /* the earlier export, now at tmp */
    } else {
        char aside[PATH_MAX + 16];
        snprintf(aside, sizeof aside, "%s.old", tmp);
        if (rename(dir, aside) != 0) {
            st = SBW_ERROR(SBW_EIO, "%s: cannot put the export in place: %s", dir, strerror(errno));
        } else if (rename(tmp, dir) != 0) {
            st = SBW_ERROR(SBW_EIO, "%s: cannot put the export in place: %s", dir, strerror(errno));
            rename(aside, dir); /* the earlier export stays where it was */
        } else {
            remove_export(aside);
        }
    }
    sbw_signal_release(&old);
    return st;
}

int sbw_lm_out_export(const char *dir, const sbw_lm *lm, const double *theta,
                      const sbw_corpus *corpus, sbw_table *t)
{
    char tmp[PATH_MAX], path[PATH_MAX + 16];
    int dslot = 0, slots[OUT_MAX_FILES] = {0};
    size_t nslots = 0;
    int st = make_temp(dir, tmp, sizeof tmp, &dslot);
    st = st ? st : track_files(lm, tmp, slots, &nslots);
    snprintf(path, sizeof path, "%s/vocab.txt", tmp);
    st = st ? st : sbw_corpus_write_vocab(corpus, path);
    st = st ? st : sbw_head_io_save(&lm->head, theta + lm->off_head, tmp, t);
    st = st ? st : put_in_place(tmp, dir);
    if (st && dslot)
        remove_export(tmp);
    for (size_t i = 0; i < nslots; i++)
        sbw_file_untrack(slots[i]);
    sbw_file_untrack(dslot);
    return st;
}
