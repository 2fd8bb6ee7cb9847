/* sbw_file.c -- atomic output files (temporary + rename). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sbw_file.h"

#include "sbw_error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool sbw_file_is_std(const char *path) { return path && strcmp(path, "-") == 0; }

/* "dir/name" -> "dir/.name.tmp.XXXXXX"; NULL on allocation failure. */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t n = dirlen + 1 + strlen(base) + sizeof ".tmp.XXXXXX";
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.tmp.XXXXXX", (int)dirlen, path, base);
    return t;
}

/* The name to replace: a symbolic link to an existing file is followed, so
 * the rename replaces the file it points to, not the link. */
static char *final_name(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        char *real = realpath(path, NULL);
        if (real)
            return real;
    }
    return strdup(path);
}

/* Regular files and names that do not exist yet go through a temporary. */
static bool wants_temp(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return true;
    return S_ISREG(sb.st_mode);
}

static int open_temp(sbw_file *f)
{
    f->tmp = temp_template(f->path);
    if (!f->tmp)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", f->path);
    int fd = mkstemp(f->tmp);
    if (fd < 0)
        return SBW_ERROR(SBW_EIO, "%s: cannot create: %s", f->path, strerror(errno));
    /* mkstemp makes 0600; give the file what open(2) would (0666 & ~umask).
     * umask can only be read by setting it: done on the opening thread, and
     * a failed fchmod only leaves the file private. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s", f->path, strerror(e));
    }
    return SBW_OK;
}

int sbw_file_create(sbw_file *f, const char *path)
{
    *f = (sbw_file){0};
    if (!path || !*path)
        return SBW_ERROR(SBW_EINVAL, "empty output file name");
    f->path = final_name(path);
    if (!f->path)
        return SBW_ERROR(SBW_ENOMEM, "out of memory");
    int st = SBW_OK;
    if (sbw_file_is_std(path)) {
        f->fp = stdout;
        f->is_stdout = true;
    } else if (wants_temp(f->path)) {
        st = open_temp(f);
    } else {
        f->fp = fopen(f->path, "wb");
        if (!f->fp)
            st = SBW_ERROR(SBW_EIO, "%s: cannot open for writing: %s", path, strerror(errno));
    }
    if (st) {
        free(f->tmp);
        free(f->path);
        *f = (sbw_file){0};
    }
    return st;
}

int sbw_file_write(sbw_file *f, const void *buf, size_t bytes)
{
    if (bytes && fwrite(buf, 1, bytes, f->fp) != bytes)
        return SBW_ERROR(SBW_EIO, "%s: write failed: %s", f->path, strerror(errno));
    return SBW_OK;
}

static void release(sbw_file *f)
{
    free(f->tmp);
    free(f->path);
    *f = (sbw_file){0};
}

int sbw_file_commit(sbw_file *f)
{
    if (!f->fp)
        return SBW_ERROR(SBW_EINVAL, "commit of a file that is not open");
    int st = SBW_OK;
    if (fflush(f->fp) != 0 || ferror(f->fp))
        st = SBW_ERROR(SBW_EIO, "%s: write failed: %s", f->path, strerror(errno));
    /* the data reach the disk before the name does: after a power loss the
     * final name holds the old file or the whole new one, never a hole */
    if (!st && f->tmp && fsync(fileno(f->fp)) != 0)
        st = SBW_ERROR(SBW_EIO, "%s: fsync failed: %s", f->path, strerror(errno));
    if (!f->is_stdout && fclose(f->fp) != 0 && !st)
        st = SBW_ERROR(SBW_EIO, "%s: close failed: %s", f->path, strerror(errno));
    f->fp = NULL;
    if (f->tmp) {
        if (!st && rename(f->tmp, f->path) != 0)
            st = SBW_ERROR(SBW_EIO, "%s: cannot rename into place: %s", f->path, strerror(errno));
        if (st)
            unlink(f->tmp);
    }
    release(f);
    return st;
}

void sbw_file_abort(sbw_file *f)
{
    if (!f)
        return;
    if (f->fp && !f->is_stdout)
        fclose(f->fp);
    if (f->fp && f->is_stdout)
        fflush(stdout);
    if (f->tmp)
        unlink(f->tmp);
    release(f);
}
