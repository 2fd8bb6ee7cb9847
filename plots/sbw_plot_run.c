/* sbw_plot_run.c -- write a figure's files in a hidden folder, run
 * gnuplot there, move the results into place. */
#include "sbw_plot_run.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_plot_script.h"
#include "sbw_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOMEM() SBW_ERROR(SBW_ENOMEM, "out of memory")

static char *cat(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

int sbw_plot_run_outputs(const char *name, sbw_plot_fig_format fmt, char **out, size_t *n)
{
    const char *ext[5] = {".dat", ".gp", NULL, NULL, NULL};
    size_t k = 2;
    if (fmt == SBW_PLOT_TEX) {
        ext[k++] = ".pdf";
        ext[k++] = ".tex";
    } else {
        ext[k++] = fmt == SBW_PLOT_PNG ? ".png" : fmt == SBW_PLOT_PDF ? ".pdf" : ".svg";
    }
    for (size_t i = 0; i < k; i++)
        if (!(out[i] = cat(name, ext[i], ""))) {
            while (i-- > 0) {
                free(out[i]);
                out[i] = NULL;
            }
            return NOMEM();
        }
    *n = k;
    return SBW_OK;
}

/* The folder part of name ("." when none) and its last component. */
static int split_name(const char *name, char **dir, char **base)
{
    const char *slash = strrchr(name, '/');
    *dir = slash ? strndup(name, slash == name ? 1 : (size_t)(slash - name)) : strdup(".");
    *base = strdup(slash ? slash + 1 : name);
    if (!*dir || !*base) {
        free(*dir);
        free(*base);
        return NOMEM();
    }
    if (!**base) {
        free(*dir);
        free(*base);
        return SBW_ERROR(SBW_EINVAL, "-o %s: a name is needed after the folder", name);
    }
    return SBW_OK;
}

static int write_file(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *path,
                      const char *stem, bool script)
{
    sbw_file out;
    int st = sbw_file_create(&out, path);
    if (st)
        return st;
    st = script ? sbw_plot_script_write(f, o, stem, out.fp) : sbw_plot_fig_write_data(f, out.fp);
    if (st) {
        sbw_file_abort(&out);
        return st;
    }
    return sbw_file_commit(&out);
}

/* The first line of gnuplot's messages that says something. */
static void first_message(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strspn(line, " \t^") < strlen(line)) {
            snprintf(buf, cap, "%s", line + strspn(line, " \t"));
            break;
        }
    }
    fclose(f);
}

/* The child's side: messages into dir/gnuplot.err, then gnuplot. */
static void exec_gnuplot(const char *dir, const char *script, const sigset_t *old)
{
    sbw_signal_child(); /* a signal before the exec: no cleanup of our files */
    sbw_signal_release(old);
    int null = open("/dev/null", O_RDWR);
    int err = chdir(dir) ? -1 : open("gnuplot.err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (null < 0 || err < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(127);
}

/* Forks gnuplot with its cleanup entry reserved before the fork and filled
 * after it (signals held): killed with the tool whichever thread takes the
 * signal.  *pid and *slot for the caller. */
static int start_gnuplot(const char *dir, const char *script, pid_t *pid, int *slot)
{
    sigset_t old;
    sbw_signal_hold(&old);
    int st = sbw_file_track_reserve(NULL, slot);
    *pid = st ? -1 : fork();
    if (*pid == 0)
        exec_gnuplot(dir, script, &old);
    int e = errno;
    if (!st && *pid < 0) {
        sbw_file_track_cancel(*slot);
        *slot = 0;
        st = SBW_ERROR(SBW_EIO, "cannot start gnuplot: %s", strerror(e));
    } else if (!st) { /* no name: cannot fail */
        (void)sbw_file_track_set(*slot, SBW_FILE_TRACK_CHILD, NULL, (long)*pid);
    }
    sbw_signal_release(&old);
    return st;
}

/* Runs `gnuplot script` in folder dir, its messages into dir/gnuplot.err. */
static int gnuplot(const char *dir, const char *script)
{
    pid_t pid;
    int slot, st = start_gnuplot(dir, script, &pid, &slot);
    if (st)
        return st;
    siginfo_t si; /* wait without reaping: a tracked pid stays this child's */
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
        if (errno != EINTR) {
            sbw_file_untrack(slot);
            return SBW_ERROR(SBW_EIO, "waiting for gnuplot: %s", strerror(errno));
        }
    sbw_file_untrack(slot);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return SBW_ERROR(SBW_EIO, "waiting for gnuplot: %s", strerror(errno));
    char *errpath = cat(dir, "/gnuplot.err", ""), msg[400] = "";
    if (errpath)
        first_message(errpath, msg, sizeof msg);
    free(errpath);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return SBW_ERROR(SBW_EIO, "gnuplot not found: install gnuplot (scripts/deps.sh does)");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return SBW_ERROR(SBW_EIO, "gnuplot failed on %s: %s", script, msg[0] ? msg : "no message");
    if (msg[0])
        return SBW_ERROR(SBW_EIO, "gnuplot warned on %s: %s", script, msg);
    return SBW_OK;
}

/* Checks that every file exists and is not empty. */
static int nonempty(char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) || sb.st_size == 0)
            return SBW_ERROR(SBW_EIO, "gnuplot left %s %s", paths[i],
                             errno == ENOENT ? "unwritten" : "empty");
    }
    return SBW_OK;
}

/* Renames every file into place with signals held: all of them or none. */
static int move_all(char *const *from, char *const *to, size_t n)
{
    sigset_t old;
    sbw_signal_hold(&old);
    while (sbw_file_dying()) /* a signal was taken: nothing goes into place */
        pause();
    int st = SBW_OK;
    for (size_t i = 0; i < n && !st; i++)
        if (rename(from[i], to[i]))
            st = SBW_ERROR(SBW_EIO, "%s: cannot put in place: %s", to[i], strerror(errno));
    sbw_signal_release(&old);
    return st;
}

/* What a signal removes while the figure is drawn: the files in the
 * folder (gnuplot.err too); slots[0..n] get the entries. */
static int track_files(const char *tmp, char *const *files, size_t n, int *slots)
{
    char *err = cat(tmp, "/gnuplot.err", "");
    int st = err ? sbw_file_track(SBW_FILE_TRACK_FILE, err, 0, &slots[n]) : NOMEM();
    for (size_t i = 0; i < n && !st; i++)
        st = sbw_file_track(SBW_FILE_TRACK_FILE, files[i], 0, &slots[i]);
    free(err);
    return st;
}

static void remove_dir(const char *tmp, char *const *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        unlink(files[i]);
    char *err = cat(tmp, "/gnuplot.err", "");
    if (err)
        unlink(err);
    free(err);
    rmdir(tmp);
}

/* Draws f inside tmp (files named base.*) and moves them to name.*. */
static int draw_in(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *tmp,
                   const char *base, const char *name)
{
    char *in[5] = {0}, *out[5] = {0};
    size_t n = 0, m = 0;
    /* "./NAME.gp": gnuplot would read a NAME beginning with '-' as an option */
    char *stem = cat(tmp, "/", base), *gp = cat("./", base, ".gp");
    int st = stem && gp ? SBW_OK : NOMEM();
    st = st ? st : sbw_plot_run_outputs(stem, o->format, in, &n);
    st = st ? st : sbw_plot_run_outputs(name, o->format, out, &m);
    int slots[6] = {0};
    st = st ? st : track_files(tmp, in, n, slots);
    st = st ? st : write_file(f, o, in[0], base, false);
    st = st ? st : write_file(f, o, in[1], base, true);
    st = st ? st : gnuplot(tmp, gp);
    st = st ? st : nonempty(in, n);
    st = st ? st : move_all(in, out, n);
    remove_dir(tmp, in, n);
    for (size_t i = 0; i < 6; i++)
        sbw_file_untrack(slots[i]);
    for (size_t i = 0; i < 5; i++) {
        free(in[i]);
        free(out[i]);
    }
    free(stem);
    free(gp);
    return st;
}

/* The hidden folder to draw in, "DIR/.BASE.plot.XXXXXX" with BASE cut to
 * fit the folder's NAME_MAX (a legal figure name never fails for its
 * folder's sake), created and tracked: its cleanup entry is reserved
 * before mkdtemp and filled after it, signals held.  *tmp for the caller
 * to free (NULL on failure). */
static int make_folder(const char *name, const char *dir, const char *base, char **tmp, int *slot)
{
    size_t extra = strlen("..plot.XXXXXX"), keep = sbw_file_fit_name(dir, base, extra);
    size_t n = strlen(dir) + 1 + keep + extra + 1; /* DIR / .BASE.plot.XXXXXX NUL */
    *tmp = malloc(n);
    if (!*tmp)
        return NOMEM();
    snprintf(*tmp, n, "%s/.%.*s.plot.XXXXXX", dir, (int)keep, base);
    sigset_t old;
    sbw_signal_hold(&old);
    int st = sbw_file_track_reserve(*tmp, slot);
    if (!st && !mkdtemp(*tmp)) {
        st = SBW_ERROR(SBW_EIO, "%s: cannot create a folder beside it: %s", name, strerror(errno));
        sbw_file_track_cancel(*slot);
        *slot = 0;
    } else if (!st && (st = sbw_file_track_set(*slot, SBW_FILE_TRACK_DIR, *tmp, 0)) != 0) {
        rmdir(*tmp);
    }
    sbw_signal_release(&old);
    if (st) {
        free(*tmp);
        *tmp = NULL;
    }
    return st;
}

int sbw_plot_run(const sbw_plot_fig *f, const sbw_plot_fig_opts *o, const char *name)
{
    int st = sbw_plot_fig_check(f, o);
    if (st)
        return st;
    char *dir, *base;
    if ((st = split_name(name, &dir, &base)) != 0)
        return st;
    char *tmp;
    int slot = 0;
    st = make_folder(name, dir, base, &tmp, &slot);
    if (!st)
        st = draw_in(f, o, tmp, base, name);
    sbw_file_untrack(slot);
    free(tmp);
    free(dir);
    free(base);
    return st;
}
