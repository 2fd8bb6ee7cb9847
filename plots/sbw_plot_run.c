/* sbw_plot_run.c -- write a figure's files in a hidden folder, run
 * gnuplot there, move the results into place. */
#include "sbw_plot_run.h"

#include "sbw_error.h"
#include "sbw_file.h"

#include <errno.h>
#include <fcntl.h>
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
    st =
        script ? sbw_plot_fig_write_script(f, o, stem, out.fp) : sbw_plot_fig_write_data(f, out.fp);
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

/* Runs `gnuplot script` in folder dir, its messages into dir/gnuplot.err. */
static int gnuplot(const char *dir, const char *script)
{
    pid_t pid = fork();
    if (pid < 0)
        return SBW_ERROR(SBW_EIO, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int err = chdir(dir) ? -1 : open("gnuplot.err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (null < 0 || err < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
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

static int move_all(char *const *from, char *const *to, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rename(from[i], to[i]))
            return SBW_ERROR(SBW_EIO, "%s: cannot put in place: %s", to[i], strerror(errno));
    return SBW_OK;
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
    char *stem = cat(tmp, "/", base), *gp = cat(base, ".gp", "");
    int st = stem && gp ? SBW_OK : NOMEM();
    st = st ? st : sbw_plot_run_outputs(stem, o->format, in, &n);
    st = st ? st : sbw_plot_run_outputs(name, o->format, out, &m);
    st = st ? st : write_file(f, o, in[0], base, false);
    st = st ? st : write_file(f, o, in[1], base, true);
    st = st ? st : gnuplot(tmp, gp);
    st = st ? st : nonempty(in, n);
    st = st ? st : move_all(in, out, n);
    remove_dir(tmp, in, n);
    for (size_t i = 0; i < 5; i++) {
        free(in[i]);
        free(out[i]);
    }
    free(stem);
    free(gp);
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
    char *tmpl = cat(dir, "/.", base);
    char *tmp = tmpl ? cat(tmpl, ".plot.", "XXXXXX") : NULL;
    if (!tmp)
        st = NOMEM();
    else if (!mkdtemp(tmp))
        st = SBW_ERROR(SBW_EIO, "%s: cannot create a folder beside it: %s", name, strerror(errno));
    else
        st = draw_in(f, o, tmp, base, name);
    free(tmpl);
    free(tmp);
    free(dir);
    free(base);
    return st;
}
