/* sbw_file.h -- output files that never appear half-written.
 *
 * A regular file (or a new name) is written to a temporary file beside the
 * target, ".NAME.tmp.PID.XXXXXX" (PID: the writing process's), and renamed
 * over the target by sbw_file_commit() once its data are on disk (fsync),
 * so a crash, a power loss or an error leaves either the old file or
 * nothing under the final name (a kill -9 can leave the temporary itself
 * behind: the next sbw_file_create of NAME removes those of processes that
 * no longer exist, and never a live one's).  "-" means stdout; other
 * non-regular targets (pipes, /dev/null, /dev/full) are written directly.
 * Every write, flush and close is checked, so ENOSPC surfaces as SBW_EIO
 * with the path and errno.
 * When ".NAME.tmp.PID.XXXXXX" would be longer than the folder's NAME_MAX,
 * the temporary is ".PREFIX.tmp.PID.XXXXXX" with NAME cut to fit, so any
 * legal output name can be written.
 *
 * Every temporary is also in a fixed table that a signal handler can walk
 * (sbw_file_cleanup, async-signal-safe): SIGINT, SIGTERM, SIGHUP and a
 * SIGBUS in a mapped read remove them before the tool dies (sbw_signal.h).
 * Other things to remove on a signal -- the folder sbw-plot draws in, a
 * child process -- are registered by hand with sbw_file_track.
 */
#ifndef SBW_FILE_H
#define SBW_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct sbw_file {
    FILE *fp;   /* write through this (or sbw_file_write) */
    char *path; /* the final name, owned copy */
    char *tmp;  /* the temporary name, or NULL when written directly */
    bool is_stdout;
    int slot; /* the temporary's entry in the cleanup table + 1; 0 = none */
} sbw_file;

/* Opens path for writing as described above, first removing the leftover
 * temporaries of path whose process is gone (kill(PID, 0) fails with
 * ESRCH; only regular files named exactly as above).  On failure *f is
 * zeroed and nothing is created.  Errors: SBW_EINVAL (empty path), SBW_EIO, SBW_ENOMEM. */
int sbw_file_create(sbw_file *f, const char *path);

/* fwrite of bytes with the error checked (SBW_EIO naming the path).  On
 * failure part of buf may have reached the temporary: the file is good
 * only for sbw_file_abort. */
int sbw_file_write(sbw_file *f, const void *buf, size_t bytes);

/* Flushes and closes, then renames the temporary over the final name.  On
 * failure (any) the temporary is removed, the final name untouched and
 * SBW_EIO returned.  *f is zeroed either way (stdout is flushed, not
 * closed). */
int sbw_file_commit(sbw_file *f);

/* Closes and removes the temporary; the final name is untouched.  Safe on a
 * zeroed or already committed struct. */
void sbw_file_abort(sbw_file *f);

/* True when path is "-" (stdin/stdout). */
bool sbw_file_is_std(const char *path);

/* What sbw_file_cleanup removes: a file (unlink), an empty folder (rmdir,
 * after every file), a child process (SIGKILL and reaped, before the files
 * it may be writing are removed). */
typedef enum sbw_file_kind {
    SBW_FILE_TRACK_FILE,
    SBW_FILE_TRACK_DIR,
    SBW_FILE_TRACK_CHILD
} sbw_file_kind;

/* Entries of the cleanup table: enough for every temporary a tool has open
 * at once. */
#define SBW_FILE_TRACK_MAX 64

/* Adds path (a copy; at most PATH_MAX - 1 bytes) or child pid to the
 * cleanup table; *slot (> 0) is what sbw_file_untrack takes.  Thread-safe.
 * For something that does not exist yet (a name written later); what is
 * created first and tracked after goes through _reserve and _set below.
 * Errors: SBW_EIO when the table is full or the name too long (nothing
 * added, *slot = 0 on failure).  sbw_file_create tracks its temporaries
 * itself. */
int sbw_file_track(sbw_file_kind kind, const char *path, long pid, int *slot);

/* Tracking what must exist before its name is known (mkstemp, mkdtemp,
 * fork), with signals held in the calling thread (sbw_signal_hold) from
 * the reserve to the set:
 *     reserve -> create -> set (or cancel when the creation failed).
 * The reserved entry is BUSY: a dying cleanup on another thread waits for
 * it (at most 100 ms) rather than skip it.  path is what the entry will
 * name, for the length check and the messages (NULL for a child).
 * Once a cleanup that ends the tool has begun (sbw_file_dying), reserve
 * waits for the end instead of returning, and set removes what it was
 * given (SIGKILL and reap, unlink, rmdir) and waits for the end.
 * Errors of reserve: as sbw_file_track (*slot = 0 on failure). */
int sbw_file_track_reserve(const char *path, int *slot);

/* Fills a reserved entry and makes it LIVE.  path no longer than the one
 * given to reserve.  Errors: SBW_EIO when path is too long (the entry is
 * given back; the caller removes what it created), SBW_EINVAL for a slot
 * that is not one. */
int sbw_file_track_set(int slot, sbw_file_kind kind, const char *path, long pid);

/* Gives back a reserved entry whose thing was not created; 0 is a no-op. */
void sbw_file_track_cancel(int slot);

/* Removes a LIVE entry (the file itself is left alone); 0 is a no-op.  An
 * entry a cleanup is emptying is waited for, never taken from it. */
void sbw_file_untrack(int slot);

/* For signal handlers (async-signal-safe, no allocation, no locks): kills
 * and reaps every tracked child, unlinks every tracked file, then removes
 * every tracked folder, and empties the table.  Returns how many entries
 * it handled.  dying: the caller ends the process next; from then on
 * sbw_file_commit on any other thread renames nothing and waits for the
 * end, so no output appears under its final name once a signal has been
 * taken (one whose rename had already begun may complete).  A dying
 * cleanup also waits (at most 100 ms) for entries other threads are
 * filling, and a second dying cleanup (a signal taken on another thread
 * meanwhile) waits for the first to end the tool.  The thread calling it
 * must not take a stop signal meanwhile (inside a handler, or held). */
int sbw_file_cleanup(bool dying);

/* True once a cleanup that ends the tool has begun: a thread about to put
 * an output in place waits for the end instead (sbw_file_commit does). */
bool sbw_file_dying(void);

/* How many bytes of name (a file name, no slash) to keep so that they and
 * extra more bytes fit the NAME_MAX of folder dir (pathconf; NAME_MAX when
 * it does not say; "" or NULL is "."): all of name when it fits, else cut
 * at a UTF-8 character boundary (looking back at most three bytes: a name
 * that is not UTF-8 there is cut where it reaches the limit); 0 when extra
 * alone fills the limit. */
size_t sbw_file_fit_name(const char *dir, const char *name, size_t extra);

#endif
