/* sbw_file.c -- atomic output files (temporary + rename). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "sbw_file.h"

#include "sbw_error.h"
#include "sbw_signal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool sbw_file_is_std(const char *path) { return path && strcmp(path, "-") == 0; }

/* ---- the cleanup table ---------------------------------------------------
 * Fixed size and static, so a signal handler can walk it: a slot is FREE,
 * BUSY or LIVE.  A slot is BUSY while its owner fills it (reserved before
 * the thing it names exists) or while a cleanup empties it (an untrack
 * waits for it then); a dying cleanup waits (bounded) for BUSY slots
 * before the tool dies.  Slots are claimed only by compare-and-swap
 * (sequentially consistent, as every access here), so threads may track
 * at the same time as each other and as a handler on another thread. */
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };
enum { BUSY_WAIT_MS = 1000 }; /* how long a dying cleanup waits for BUSY slots */

static struct track_slot {
    atomic_int state;
    sbw_file_kind kind;
    long pid;
    char name[PATH_MAX];
} track[SBW_FILE_TRACK_MAX];

/* Set by a cleanup before the tool dies: no temporary is created or
 * renamed into place after it (those threads wait for the end instead). */
static atomic_int dying_now;

/* Taken by the first dying cleanup: a second one (a signal on another
 * thread) waits for the first to end the tool. */
static atomic_int cleaning;

/* The tool is about to die on another thread (or this one, from a
 * handler): wait for it, creating and renaming nothing more. */
static void wait_for_end(void)
{
    for (;;)
        pause();
}

bool sbw_file_dying(void) { return atomic_load(&dying_now) != 0; }

static bool valid_slot(int slot) { return slot > 0 && slot <= SBW_FILE_TRACK_MAX; }

/* Kills and reaps the child, or removes the file or folder, of a slot the
 * caller has claimed (BUSY). */
static void remove_entry(const struct track_slot *s)
{
    if (s->kind == SBW_FILE_TRACK_CHILD) {
        kill((pid_t)s->pid, SIGKILL);
        while (waitpid((pid_t)s->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    } else if (s->kind == SBW_FILE_TRACK_DIR) {
        rmdir(s->name);
    } else {
        unlink(s->name);
    }
}

/* The table's cleanup as sbw_signal runs it: the tool dies next. */
static void cleanup_dying(void) { (void)sbw_file_cleanup(true); }

int sbw_file_track_reserve(const char *path, int *slot)
{
    *slot = 0;
    sbw_signal_set_cleanup(cleanup_dying); /* before any entry exists */
    if (path && strlen(path) >= PATH_MAX)
        return SBW_ERROR(SBW_EIO, "%s: name too long to track for cleanup", path);
    for (int i = 0; i < SBW_FILE_TRACK_MAX; i++) {
        int expect = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&track[i].state, &expect, SLOT_BUSY))
            continue;
        if (atomic_load(&dying_now)) { /* the cleanup may have passed this slot */
            atomic_store(&track[i].state, SLOT_FREE);
            wait_for_end();
        }
        *slot = i + 1;
        return SBW_OK;
    }
    return SBW_ERROR(SBW_EIO, "%s: more than %d outputs open at once", path ? path : "child",
                     SBW_FILE_TRACK_MAX);
}

int sbw_file_track_set(int slot, sbw_file_kind kind, const char *path, long pid)
{
    if (!valid_slot(slot))
        return SBW_ERROR(SBW_EINVAL, "slot %d is not an entry of the cleanup table", slot);
    struct track_slot *s = &track[slot - 1];
    size_t len = path ? strlen(path) : 0;
    if (len >= PATH_MAX) {
        atomic_store(&s->state, SLOT_FREE);
        return SBW_ERROR(SBW_EIO, "%s: name too long to track for cleanup", path);
    }
    s->kind = kind;
    s->pid = pid;
    memcpy(s->name, path ? path : "", len + 1);
    atomic_store(&s->state, SLOT_LIVE);
    if (atomic_load(&dying_now)) { /* a cleanup that began meanwhile may be over */
        int expect = SLOT_LIVE;
        if (atomic_compare_exchange_strong(&s->state, &expect, SLOT_BUSY)) {
            remove_entry(s);
            atomic_store(&s->state, SLOT_FREE);
        }
        wait_for_end();
    }
    return SBW_OK;
}

void sbw_file_track_cancel(int slot)
{
    if (valid_slot(slot))
        atomic_store(&track[slot - 1].state, SLOT_FREE);
}

int sbw_file_track(sbw_file_kind kind, const char *path, long pid, int *slot)
{
    sigset_t old; /* no handler on this thread while its entry is BUSY */
    sbw_signal_hold(&old);
    int st = sbw_file_track_reserve(path, slot);
    if (!st && (st = sbw_file_track_set(*slot, kind, path, pid)) != 0)
        *slot = 0;
    sbw_signal_release(&old);
    return st;
}

/* A nap of 1 ms (async-signal-safe). */
static void nap(void)
{
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
}

void sbw_file_untrack(int slot)
{
    if (!valid_slot(slot))
        return;
    atomic_int *state = &track[slot - 1].state;
    for (;;) { /* a cleanup holding it (BUSY) gives it back FREE: never steal it */
        int expect = SLOT_LIVE;
        if (atomic_compare_exchange_strong(state, &expect, SLOT_FREE) || expect == SLOT_FREE)
            return;
        nap();
    }
}

/* Claims every LIVE slot, keeps those of one kind (so a second cleanup
 * skips them: the kind is read only once the slot is claimed) and removes
 * what they name. */
static int cleanup_kind(sbw_file_kind kind)
{
    int n = 0;
    for (int i = SBW_FILE_TRACK_MAX - 1; i >= 0; i--) {
        int expect = SLOT_LIVE;
        if (!atomic_compare_exchange_strong(&track[i].state, &expect, SLOT_BUSY))
            continue;
        if (track[i].kind != kind) {
            atomic_store(&track[i].state, SLOT_LIVE);
            continue;
        }
        remove_entry(&track[i]);
        atomic_store(&track[i].state, SLOT_FREE);
        n++;
    }
    return n;
}

static int cleanup_pass(void)
{
    int n = cleanup_kind(SBW_FILE_TRACK_CHILD);
    n += cleanup_kind(SBW_FILE_TRACK_FILE);
    return n + cleanup_kind(SBW_FILE_TRACK_DIR);
}

static bool any_busy(void)
{
    for (int i = 0; i < SBW_FILE_TRACK_MAX; i++)
        if (atomic_load(&track[i].state) == SLOT_BUSY)
            return true;
    return false;
}

int sbw_file_cleanup(bool dying)
{
    int saved = errno; /* a handler must leave errno as it found it */
    if (dying && atomic_exchange(&cleaning, 1))
        wait_for_end(); /* a cleanup on another thread ends the tool */
    if (dying)
        atomic_store(&dying_now, 1);
    int n = cleanup_pass();
    /* Slots another thread is filling (its temporary may exist already):
     * they turn LIVE in microseconds; wait for them, at most BUSY_WAIT_MS (1 s: a loaded machine
     * can pause the filling thread that long). */
    for (int naps = 0; dying && naps < BUSY_WAIT_MS && any_busy(); naps++) {
        nap();
        n += cleanup_pass();
    }
    errno = saved;
    return n;
}

/* ---- temporaries -------------------------------------------------------- */

/* The longest name folder dir takes (NAME_MAX when it does not say). */
static size_t name_max(const char *dir)
{
    long n = pathconf(dir && *dir ? dir : ".", _PC_NAME_MAX);
    return n > 0 ? (size_t)n : NAME_MAX;
}

size_t sbw_file_fit_name(const char *dir, const char *name, size_t extra)
{
    size_t keep = strlen(name), room = name_max(dir);
    if (keep + extra <= room)
        return keep;
    keep = room > extra ? room - extra : 0;
    /* back to the first byte of a character: a UTF-8 character has at most
     * three continuation bytes (more are not UTF-8: cut anywhere) */
    for (int back = 0; back < 3 && keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80; back++)
        keep--;
    if (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
        keep += 3;
    return keep;
}

/* Digits kept free for the PID in a temporary's name: any pid_t, so every
 * process cuts a long name at the same place and finds the others'. */
enum { PID_DIGITS = 10 };

/* "dir/name" -> "dir/.name.tmp.PID.XXXXXX" (PID: this process's), with
 * name cut to fit the folder (sbw_file_fit_name, room kept for any PID);
 * NULL on allocation failure.  *stem: the length of "dir/.name.tmp.",
 * which every temporary of this name starts with. */
static char *temp_template(const char *path, size_t *stem)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    char tail[48];
    snprintf(tail, sizeof tail, ".tmp.%ld.XXXXXX", (long)getpid());
    size_t extra = 1 + strlen(".tmp.") + PID_DIGITS + strlen(".XXXXXX");
    char *dir = strndup(path, dirlen);
    if (!dir)
        return NULL;
    size_t keep = sbw_file_fit_name(dir, base, extra), n = dirlen + 1 + keep + strlen(tail) + 1;
    free(dir);
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%.*s%s", (int)dirlen, path, (int)keep, base, tail);
    *stem = dirlen + 1 + keep + strlen(".tmp.");
    return t;
}

/* The PID in a temporary's name: name is exactly prefix (".name.tmp."),
 * a process id in decimal, '.' and the six letters or digits of mkstemp;
 * 0 when it is anything else. */
static long temp_pid(const char *name, const char *prefix, size_t plen)
{
    if (strncmp(name, prefix, plen) != 0 || name[plen] < '1' || name[plen] > '9')
        return 0;
    const char *p = name + plen;
    long pid = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((pid = pid * 10 + (*p - '0')) > INT_MAX)
            return 0;
    if (*p++ != '.')
        return 0;
    for (int i = 0; i < 6; i++, p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return 0;
    return *p == '\0' ? pid : 0;
}

/* What a process killed while writing (kill -9, a crash) left beside the
 * target of tmpl: removes every regular file named as a temporary of the
 * same name (stem bytes of tmpl, then PID.XXXXXX) whose process no longer
 * exists.  Ours and any other live process's are kept, and so is a PID
 * that cannot be asked about (EPERM: alive).  Best effort: a folder that
 * cannot be listed is left as it is. */
static void remove_stale(const char *tmpl, size_t stem)
{
    const char *slash = strrchr(tmpl, '/');
    size_t dirlen = slash ? (size_t)(slash - tmpl) + 1 : 0;
    char *dir = dirlen ? strndup(tmpl, dirlen) : strdup(".");
    DIR *d = dir ? opendir(dir) : NULL;
    long self = (long)getpid();
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        long pid = temp_pid(e->d_name, tmpl + dirlen, stem - dirlen);
        if (pid == 0 || pid == self || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        size_t n = dirlen + strlen(e->d_name) + 1;
        char *path = malloc(n);
        struct stat sb;
        if (path)
            snprintf(path, n, "%.*s%s", (int)dirlen, tmpl, e->d_name);
        if (path && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            unlink(path);
        free(path);
    }
    if (d)
        closedir(d);
    free(dir);
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

/* mkstemp with its cleanup entry reserved first and filled once the file
 * exists, signals held meanwhile: a signal taken on any other thread either
 * finds the entry or waits for it.  The descriptor, or -1 (status in *st). */
static int make_tracked(sbw_file *f, int *st)
{
    sigset_t old;
    sbw_signal_hold(&old);
    *st = sbw_file_track_reserve(f->tmp, &f->slot);
    int fd = *st ? -1 : mkstemp(f->tmp), e = errno;
    if (!*st && fd < 0) {
        sbw_file_track_cancel(f->slot);
        f->slot = 0;
        *st = SBW_ERROR(SBW_EIO, "%s: cannot create: %s", f->path, strerror(e));
    } else if (!*st && (*st = sbw_file_track_set(f->slot, SBW_FILE_TRACK_FILE, f->tmp, 0)) != 0) {
        f->slot = 0;
        close(fd);
        unlink(f->tmp);
        fd = -1;
    }
    sbw_signal_release(&old);
    return fd;
}

static int open_temp(sbw_file *f)
{
    size_t stem = 0;
    f->tmp = temp_template(f->path, &stem);
    if (!f->tmp)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory", f->path);
    remove_stale(f->tmp, stem);
    int st, fd = make_tracked(f, &st);
    if (fd < 0)
        return st;
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
            wait_for_end();
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
