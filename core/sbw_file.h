/* sbw_file.h -- output files that never appear half-written.
 *
 * A regular file (or a new name) is written to a temporary file beside the
 * target, ".NAME.tmp.XXXXXX", and renamed over the target by
 * sbw_file_commit() once its data are on disk (fsync), so a crash, a
 * power loss or an error leaves either the old file or nothing under the
 * final name (a kill -9 can leave the temporary itself behind).  "-" means
 * stdout; other non-regular targets (pipes, /dev/null, /dev/full) are
 * written directly.  Every write, flush and close is checked, so ENOSPC
 * surfaces as SBW_EIO with the path and errno.
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
} sbw_file;

/* Opens path for writing as described above.  On failure *f is zeroed and
 * nothing is created.  Errors: SBW_EINVAL (empty path), SBW_EIO, SBW_ENOMEM. */
int sbw_file_create(sbw_file *f, const char *path);

/* fwrite of bytes with the error checked (SBW_EIO naming the path). */
int sbw_file_write(sbw_file *f, const void *buf, size_t bytes);

/* Flushes and closes, then renames the temporary over the final name.  On
 * any failure the temporary is removed and SBW_EIO returned.  *f is zeroed
 * either way (stdout is flushed, not closed). */
int sbw_file_commit(sbw_file *f);

/* Closes and removes the temporary; the final name is untouched.  Safe on a
 * zeroed or already committed struct. */
void sbw_file_abort(sbw_file *f);

/* True when path is "-" (stdin/stdout). */
bool sbw_file_is_std(const char *path);

#endif
