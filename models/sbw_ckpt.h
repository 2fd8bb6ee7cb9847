/* sbw_ckpt.h -- checkpoint directories: settings and counters described by
 * tables (key, offset, type, range), and named float64 arrays, written as
 * one generation at a time and read back with every value checked.  The
 * module knows nothing of what it stores: sbw_fit hands it its tables and
 * arrays (so the arrow runs sbw_fit -> sbw_ckpt, never back).
 *
 * A checkpoint directory holds generation G as ckpt-G-STEM.npy files (one
 * per array) and checkpoint.tsv: "key=value" lines, the first
 * "sbw_checkpoint=<format version>", then "generation=G", then every row of
 * every table (doubles in C99 hex, so they read back bit for bit).  A new
 * generation's arrays are written first, then checkpoint.tsv is replaced
 * atomically (temporary + fsync + rename, then an fsync of the directory),
 * then the older generations' files are removed, with any temporary a
 * killed write left (only those whose process no longer exists): a crash
 * at any moment, kill -9 included, leaves a complete, consistent
 * checkpoint.
 *
 * One folder, one writer: a run that writes a checkpoint folder (sbw-fit,
 * sbw-lm train) first takes an exclusive flock(2) on its lock file
 * SBW_CKPT_LOCK_NAME, which holds the writer's process id; a second writer
 * is refused at once with the folder and that process id.  The kernel
 * releases the lock when its holder dies (kill -9 included), so a lock file
 * left behind is harmless: the next writer takes it over.
 *
 * Arrays are checked when loaded (sbw_ckpt_load_checked): a NaN, an
 * infinity or a magnitude beyond the caller's bound is a damaged
 * checkpoint (SBW_EDATA naming the file), never a number a run goes on
 * with.
 */
#ifndef SBW_CKPT_H
#define SBW_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The format written, and the oldest one read; a checkpoint of another
 * version is refused.  Version 3 (issue 28) adds sbw-lm's regulariser rows
 * (dropout_last, wdrop, alpha, beta, var_bptt, offset); the bump is there
 * so that an sbw-lm from before them, which ignores rows it does not know,
 * refuses such a checkpoint instead of resuming it without weight drop,
 * AR/TAR or variable BPTT.  A version-2 checkpoint lacks those rows and
 * reads with their defaults (off), which is how it was trained.  Version 4
 * adds sbw-lm's latent row (--latent tanh|none): an sbw-lm from before
 * it would rebuild a --latent none model with a latent layer it never
 * had; a version 2 or 3 checkpoint reads as --latent tanh, which is what
 * it was.  Version 5 adds sbw-lm's bf16 row (--precision bf16, issue
 * 27): an older sbw-lm would resume a bfloat16 run in float32. */
#define SBW_CKPT_VERSION     5
#define SBW_CKPT_VERSION_MIN 2

/* How a row's value is stored at base + off. */
typedef enum sbw_ckpt_type {
    SBW_CKPT_SIZE,   /* size_t, decimal */
    SBW_CKPT_U64,    /* uint64_t, decimal */
    SBW_CKPT_INT,    /* int, decimal (>= 0) */
    SBW_CKPT_DOUBLE, /* double, C99 hex; never NaN; +-inf only if the range reaches it */
    SBW_CKPT_BOOL,   /* bool, 0 or 1 (or name(0), name(1) when the row has names) */
    SBW_CKPT_ENUM    /* an int-sized enum, by name (the row's name function) */
} sbw_ckpt_type;

/* What a resume does with a setting. */
typedef enum sbw_ckpt_role {
    SBW_CKPT_SHAPES, /* shapes the trajectory: taken from the checkpoint */
    SBW_CKPT_FREE    /* may change on resume: the caller's value is kept */
} sbw_ckpt_role;

/* One row of a table: key in checkpoint.tsv, where the value lives, its
 * accepted range [min, max] (numbers; enums: 0..count-1 through name),
 * the default a fresh struct takes, the role on resume and the
 * command-line option that sets it (NULL: none). */
typedef struct sbw_ckpt_field {
    const char *key;
    size_t off;
    sbw_ckpt_type type;
    double min, max, dflt;
    const char *(*name)(int v); /* ENUM (and BOOL): name of value v, NULL past the last */
    sbw_ckpt_role role;
    const char *option;
} sbw_ckpt_field;

/* A table over one struct, as handed to sbw_ckpt_write. */
typedef struct sbw_ckpt_group {
    const sbw_ckpt_field *fields;
    size_t n;
    const void *base;
} sbw_ckpt_group;

/* A named array of rows x cols doubles (row-major). */
typedef struct sbw_ckpt_array {
    const char *stem; /* [a-z0-9_]+ */
    const double *x;
    size_t rows, cols;
} sbw_ckpt_array;

/* A checkpoint.tsv read back (opaque). */
typedef struct sbw_ckpt sbw_ckpt;

/* Sets every row of table to its default (enums, bools, sizes from dflt);
 * other members of base are left alone. */
void sbw_ckpt_defaults(const sbw_ckpt_field *table, size_t n, void *base);

/* The value of row f in base as text: exact (hex doubles, as written) or,
 * with human, "%.17g" doubles.  Returns buf. */
const char *sbw_ckpt_format(const sbw_ckpt_field *f, const void *base, bool human, char *buf,
                            size_t cap);

/* True when row f holds the same bits in a and b. */
bool sbw_ckpt_same(const sbw_ckpt_field *f, const void *a, const void *b);

/* Copies the rows of table with the given role from src to dst. */
void sbw_ckpt_copy(const sbw_ckpt_field *table, size_t n, sbw_ckpt_role role, void *dst,
                   const void *src);

/* Creates dir if it does not exist (one level).  Errors: SBW_EIO. */
int sbw_ckpt_mkdir(const char *dir);

/* Writes generation gen into dir (created if needed): the arrays, then
 * checkpoint.tsv with every row of the groups, then removes every other
 * generation's files.  Errors: SBW_EIO, SBW_ENOMEM; the previous
 * checkpoint stays intact on failure. */
int sbw_ckpt_write(const char *dir, uint64_t gen, const sbw_ckpt_group *groups, size_t ngroups,
                   const sbw_ckpt_array *arrays, size_t narrays);

/* Reads dir/checkpoint.tsv: every line "key=value", the format version
 * SBW_CKPT_VERSION_MIN to SBW_CKPT_VERSION, a generation in [1, 1e15].  Errors: SBW_EIO (no such
 * file), SBW_EFORMAT (malformed, unknown version), SBW_ENOMEM.  *c is NULL
 * on failure. */
int sbw_ckpt_open(sbw_ckpt **c, const char *dir);

/* Frees; NULL is a no-op. */
/* For the writer that resumes from c: removes every checkpoint file of the
 * folder but c's generation, and every temporary (a kill -9 during a write
 * leaves a partial generation and temporaries that only a later write would
 * sweep).  Never call it from a reader: a run writing the folder would lose
 * the generation it is writing. */
int sbw_ckpt_tidy(const sbw_ckpt *c);

void sbw_ckpt_close(sbw_ckpt *c);

/* The generation c names. */
uint64_t sbw_ckpt_generation(const sbw_ckpt *c);

/* Reads every row of table from c into base, each checked: present, a
 * number of its type written in full (no sign on integers), inside its
 * range, an enum name known to the row.  Errors: SBW_EFORMAT naming the
 * file, key and value; on failure base may be partly written (the rows
 * before the bad one): discard it. */
int sbw_ckpt_get(const sbw_ckpt *c, const sbw_ckpt_field *table, size_t n, void *base);

/* Reads a table whose last rows came in later versions of the format, in
 * ngen generations of gen[0], gen[1], ... rows (in table order, at its
 * end): the first n - sum(gen) rows as sbw_ckpt_get does, then each
 * generation's rows when c has its first key, else their defaults (a
 * checkpoint written before that generation runs without it).  Errors and
 * a partly written base on failure as sbw_ckpt_get; SBW_EINVAL when the
 * generations hold more than n rows. */
int sbw_ckpt_get_generations(const sbw_ckpt *c, const sbw_ckpt_field *table, size_t n,
                             const size_t *gen, size_t ngen, void *base);

/* The shape of array stem of c's generation, from its header alone.
 * Errors: those of sbw_npy_open; *rows and *cols untouched on failure. */
int sbw_ckpt_array_shape(const sbw_ckpt *c, const char *stem, size_t *rows, size_t *cols);

/* Loads array stem of c's generation into x, which holds rows x cols
 * doubles.  Errors: SBW_EIO, SBW_EFORMAT (other shape, truncated),
 * SBW_EDTYPE.  On failure x is untouched (open and shape errors) or holds
 * part of the array (read errors): discard it. */
int sbw_ckpt_load(const sbw_ckpt *c, const char *stem, double *x, size_t rows, size_t cols);

/* The path of c's checkpoint.tsv (for messages). */
const char *sbw_ckpt_path(const sbw_ckpt *c);

/* The raw text of key in c's checkpoint.tsv, or NULL when it has none (for
 * a key that only some checkpoints carry; sbw_ckpt_get checks values). */
const char *sbw_ckpt_value(const sbw_ckpt *c, const char *key);

/* SBW_OK when every one of x[0..n) (read from array stem of c) is finite and
 * at most maxabs in magnitude; else SBW_EDATA naming the array's file, the
 * value's position and the value. */
int sbw_ckpt_check_values(const sbw_ckpt *c, const char *stem, const double *x, size_t n,
                          double maxabs);

/* sbw_ckpt_load, then sbw_ckpt_check_values with maxabs (INFINITY: only
 * finiteness).  Errors: those of both; on failure x holds what
 * sbw_ckpt_load left or the whole array with its bad value: discard it. */
int sbw_ckpt_load_checked(const sbw_ckpt *c, const char *stem, double *x, size_t rows, size_t cols,
                          double maxabs);

/* True for a name that a checkpoint folder's writer makes, replaces or
 * removes: checkpoint.tsv, ckpt-G-STEM.npy, the lock file.  An output of
 * the same run must not be one of these in its checkpoint folder. */
bool sbw_ckpt_owns_name(const char *name);

/* The lock file of a checkpoint folder (see above). */
#define SBW_CKPT_LOCK_NAME ".sbw-lock"

/* A folder's writer lock (opaque). */
typedef struct sbw_ckpt_lock sbw_ckpt_lock;

/* Creates dir if needed (one level) and takes its exclusive lock, writing
 * this process's id into the lock file; the lock is held until
 * sbw_ckpt_lock_release or the process ends; the lock file (and the
 * folder, when the lock made it) is in sbw_file's cleanup table, so a
 * signal that ends the tool removes it (the folder only if still empty).
 * Never waits.  Errors: SBW_EIO
 * (held by another process: "DIR: the checkpoint folder is in use by
 * process PID ..."; the folder or the lock file cannot be made),
 * SBW_ENOMEM.  *out is NULL on failure, and a folder it created is removed
 * again. */
int sbw_ckpt_lock_take(sbw_ckpt_lock **out, const char *dir);

/* Removes the lock file and releases the lock; then removes the folder when
 * it is empty and either rmdir_empty or the lock created it.  NULL is a
 * no-op. */
void sbw_ckpt_lock_release(sbw_ckpt_lock *l, bool rmdir_empty);

/* Removes a checkpoint directory: the files sbw_ckpt_write makes (any
 * generation, checkpoint.tsv), then the directory if that left it empty.
 * Other files are never touched.  Errors: SBW_EIO (cannot list dir). */
int sbw_ckpt_remove(const char *dir);

/* True when dir holds a checkpoint (a checkpoint.tsv). */
bool sbw_ckpt_exists(const char *dir);

/* Writes into buf (cap bytes) the rows of table that shape the trajectory
 * and for which given(ctx, row) is true yet hold different values in asked
 * (the command line) and saved (a checkpoint), as "--d 20 given, 10 in the
 * checkpoint; ..."; returns how many there are (0: none; buf is then ""). */
size_t sbw_ckpt_conflicts(const sbw_ckpt_field *table, size_t nrows, const void *asked,
                          const void *saved, bool (*given)(void *ctx, const sbw_ckpt_field *row),
                          void *ctx, char *buf, size_t cap);

/* The one --resume conflict check of every tool that resumes (sbw-fit,
 * sbw-lm train): walks table (sbw_fit_opts_table, sbw_lm_opts_table) as
 * sbw_ckpt_conflicts does and, when a given option contradicts a setting
 * the checkpoint in dir fixes, fails with SBW_EINVAL (bad usage: exit 2
 * through sbw_cli_fail, one line, no usage line: the command is well
 * formed, it asks what the checkpoint cannot give) and the reason
 * "--resume DIR: the command line contradicts the checkpoint (drop these
 * options or start afresh): --d 5 given, 4 in the checkpoint; ...".
 * SBW_OK when nothing conflicts.  Changes nothing, on failure either (ctx
 * is only handed to given). */
int sbw_ckpt_resume_check(const sbw_ckpt_field *table, size_t nrows, const void *asked,
                          const void *saved, bool (*given)(void *ctx, const sbw_ckpt_field *row),
                          void *ctx, const char *dir);

#endif
