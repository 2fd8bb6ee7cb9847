/* sbw_preflight.h -- the one output preflight: every tool calls it right
 * after parsing its options, before it reads a byte of data, so a run never
 * trains or computes for minutes and then fails to write, and never
 * replaces its own input.
 *
 * For each output path ("-" is stdout, and always fine alone):
 *   - it must not be the same file as an input: same device and inode
 *     (a hard link, a symbolic link, "./P.npy" for "P.npy") or, for a file
 *     that does not exist yet, the same path once its directory is resolved
 *     -- refused as a usage error (SBW_EINVAL, exit 2), the input untouched;
 *   - it must not be the same file as another output (nor two outputs both
 *     "-": stdout carries one thing) -- SBW_EINVAL, exit 2;
 *   - it must be creatable: a file's directory exists and is writable (the
 *     file is written to a temporary beside it and renamed: sbw_file.h), an
 *     existing pipe or device is writable, a directory output (--save DIR)
 *     exists as a writable directory or its parent does -- else SBW_EIO
 *     naming the path and why (exit 1).
 * An input FILE.safetensors:NAME (a tensor, sbw_safet.h) is the file
 * FILE.safetensors.
 * Pipes and devices (/dev/null, a FIFO) are never "the same file" as
 * anything: writing one twice is legitimate.  Nothing is created, opened or
 * modified: the checks are stat() and access(), so a race with another
 * process can still fail later, where the writers report it.
 */
#ifndef SBW_PREFLIGHT_H
#define SBW_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

/* One output of a tool. */
typedef struct sbw_preflight_out {
    const char *opt;  /* the option that named it, for messages: "-o", "--spectrum" */
    const char *path; /* NULL when the option was not given (skipped); "-" = stdout */
    bool dir;         /* a directory the tool creates (one level) and fills */
} sbw_preflight_out;

/* Checks outs[0..nout) against each other and against the input files
 * inputs[0..nin) (NULL entries and "-" = stdin are skipped) as described
 * above.  Returns SBW_OK; SBW_EINVAL (an output is an input or another
 * output); SBW_EIO (an output cannot be created there); SBW_ENOMEM.  The
 * reason is one line starting with the output's path.  Owns nothing. */
int sbw_preflight(const char *const *inputs, size_t nin, const sbw_preflight_out *outs,
                  size_t nout);

/* Whether paths a and b name one file or folder: the same device and inode
 * when both exist, the same resolved name (realpath of the folder, then the
 * last component) when neither does; never for pipes and devices. */
bool sbw_preflight_same(const char *a, const char *b);

/* path's folder ("." when none, "/" for "/x") into dir (dcap bytes) and its
 * last component into base (bcap bytes), trailing slashes ignored. */
void sbw_preflight_split(const char *path, char *dir, size_t dcap, char *base, size_t bcap);

/* ---- memory ---------------------------------------------------------------
 *
 * Before a large allocation a tool asks whether it can fit: a request
 * larger than the machine's physical memory (sysconf: _SC_PHYS_PAGES x
 * _SC_PAGESIZE) would only end in swapping or in the kernel's OOM killer
 * minutes later, so it is refused at once with one line naming the size.
 * The environment variable SBW_MAX_MEMORY overrides the limit for every
 * tool: a size in bytes with an optional K, M, G or T suffix (powers of
 * 1024: "512M", "64G", "1.5T"), or "any" for no limit. */

/* The limit in bytes that sbw_preflight_memory applies (INFINITY for
 * "any").  Errors: SBW_EINVAL when SBW_MAX_MEMORY is set but is not a size
 * or "any" (the reason quotes it); *limit untouched on failure. */
int sbw_preflight_memory_limit(double *limit);

/* SBW_OK when an allocation of bytes fits under the limit above; else
 * SBW_ENOMEM with "WHAT needs 3 GiB, more than this machine's 2 GiB of
 * memory (set SBW_MAX_MEMORY=SIZE or SBW_MAX_MEMORY=any to try anyway)";
 * what ("a 20000 x 20000 matrix of float64") starts the reason; a bad
 * SBW_MAX_MEMORY is SBW_EINVAL.  bytes is a double so that a size that
 * overflows size_t is still compared. */
int sbw_preflight_memory(double bytes, const char *what);

#endif
