/* sbw_file.c -- atomic output files (temporary + rename). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sbw_file.h"

#include "sbw_error.h"
#include "sbw_signal.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

bool sbw_file_is_std(const char *path) { return path && strcmp(path, "-") == 0; }

/* ---- the cleanup table ---------------------------------------------------
 * Fixed size and static, so a signal handler can walk it: a slot is FREE,
 * BUSY (being filled or emptied: the handler skips it) or LIVE.  Slots are
 * claimed with a compare-and-swap, so threads may track at the same time. */
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

static struct track_slot {
    atomic_int state;
    sbw_file_kind kind;
    long pid;
    char name[PATH_MAX];
} track[SBW_FILE_TRACK_MAX];

/* Set by a cleanup before the tool dies: no temporary is created or
 * renamed into place after it (those threads wait for the end instead). */
static atomic_int dying_now;

int sbw_file_track(sbw_file_kind kind, const char *path, long pid, int *slot)
{
    *slot = 0;
    size_t len = path ? strlen(path) : 0;
    if (len >= PATH_MAX)
        return SBW_ERROR(SBW_EIO, "%s: name too long to track for cleanup", path);
    for (int i = 0; i < SBW_FILE_TRACK_MAX; i++) {
        int expect = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&track[i].state, &expect, SLOT_BUSY))
            continue;
        track[i].kind = kind;
        track[i].pid = pid;
        memcpy(track[i].name, path ? path : "", len + 1);
        atomic_store(&track[i].state, SLOT_LIVE);
        *slot = i + 1;
        return SBW_OK;
    }
    return SBW_ERROR(SBW_EIO, "%s: more than %d outputs open at once", path ? path : "child",
                     SBW_FILE_TRACK_MAX);
}

void sbw_file_untrack(int slot)
{
    if (slot > 0 && slot <= SBW_FILE_TRACK_MAX)
        atomic_store(&track[slot - 1].state, SLOT_FREE);
}

/* Takes every LIVE slot of one kind (so a second handler skips it) and
 * removes what it names. */
static int cleanup_kind(sbw_file_kind kind)
{
    int n = 0;
    for (int i = SBW_FILE_TRACK_MAX - 1; i >= 0; i--) {
        int expect = SLOT_LIVE;
        if (track[i].kind != kind ||
            !atomic_compare_exchange_strong(&track[i].state, &expect, SLOT_BUSY))
            continue;
        if (kind == SBW_FILE_TRACK_CHILD) {
            kill((pid_t)track[i].pid, SIGKILL);
            while (waitpid((pid_t)track[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
        } else if (kind == SBW_FILE_TRACK_DIR) {
            rmdir(track[i].name);
        } else {
            unlink(track[i].name);
        }
        atomic_store(&track[i].state, SLOT_FREE);
        n++;
    }
    return n;
}

int sbw_file_cleanup(bool dying)
{
    int saved = errno; /* a handler must leave errno as it found it */
    if (dying)
        atomic_store(&dying_now, 1);
    int n = cleanup_kind(SBW_FILE_TRACK_CHILD);
    n += cleanup_kind(SBW_FILE_TRACK_FILE);
    n += cleanup_kind(SBW_FILE_TRACK_DIR);
    errno = saved;
    return n;
}

/* ---- temporaries -------------------------------------------------------- */

/* The longest name the folder takes (NAME_MAX when it does not say). */
static size_t name_max(const char *path, size_t dirlen)
{
    char *dir = dirlen ? strndup(path, dirlen) : strdup(".");
    long n = dir ? pathconf(dir, _PC_NAME_MAX) : -1;
    free(dir);
    return n > 0 ? (size_t)n : NAME_MAX;
}

/* "dir/name" -> "dir/.name.tmp.XXXXXX", with name cut (at a UTF-8
 * character boundary) when the whole would exceed the folder's NAME_MAX;
 * NULL on allocation failure. */
static char *temp_template(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    size_t keep = strlen(base), room = name_max(path, dirlen), extra = 1 + strlen(".tmp.XXXXXX");
    if (keep + extra > room) {
        keep = room > extra ? room - extra : 0;
        while (keep > 0 && ((unsigned char)base[keep] & 0xC0) == 0x80)
            keep--; /* do not split a multi-byte character */
    }
    size_t n = dirlen + keep + extra + 1;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%.*s.tmp.XXXXXX", (int)dirlen, path, (int)keep, base);
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
    /* No signal between creating the temporary and tracking it. */
    sigset_t old;
    sbw_signal_hold(&old);
    while (atomic_load(&dying_now)) /* a cleanup has run: create nothing more */
        pause();
    int fd = mkstemp(f->tmp), e = errno, st = SBW_OK;
    if (fd >= 0 && (st = sbw_file_track(SBW_FILE_TRACK_FILE, f->tmp, 0, &f->slot)) != 0) {
        close(fd);
        unlink(f->tmp);
    }
    sbw_signal_release(&old);
    if (fd < 0)
        return SBW_ERROR(SBW_EIO, "%s: cannot create: %s", f->path, strerror(e));
    if (st)
        return st;
    /* mkstemp makes 0600; give the file what open(2) would (0666 & ~umask).
     * umask can only be read by setting it: done on the opening thread, and
     * a failed fchmod only leaves the file private. */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        e = errno;
        close(fd);
        unlink(f->tmp);
        sbw_file_untrack(f->slot);
        return SBW_ERROR(SBW_EIO, "%s: cannot open: %s", f->path, strerror(e));
    }
    sbw_signal_test_point("temp");
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
    sigset_t old; /* a signal handler runs on another thread, never inside this */
    sbw_signal_hold(&old);
    if (f->tmp) {
        if (atomic_load(&dying_now)) /* another thread cleans up and ends the tool */
            for (;;)
                pause();
        if (!st && rename(f->tmp, f->path) != 0) {
            int e = errno;
            while (atomic_load(&dying_now)) /* its temporary was just removed */
                pause();
            st = SBW_ERROR(SBW_EIO, "%s: cannot rename into place: %s", f->path, strerror(e));
        }
        if (st)
            unlink(f->tmp);
    }
    sbw_file_untrack(f->slot);
    sbw_signal_release(&old);
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
    sbw_file_untrack(f->slot);
    release(f);
}
