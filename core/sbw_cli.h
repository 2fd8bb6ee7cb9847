/* sbw_cli.h -- what every sbw tool's main() shares: option parsing with
 * checked numbers, --help/--version/--quiet/--json/--threads/--seed/-o,
 * thread setup, and turning a failed status into a message + exit code.
 *
 * This module and sbw_progress are the only parts of libsbw that write to
 * the terminal, and they do so only on behalf of main().
 *
 * Exit codes: 0 ok, 1 bad data or a failed computation, 2 bad usage.
 */
#ifndef SBW_CLI_H
#define SBW_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SBW_CLI_VERSION "0.1.0"

enum { SBW_EXIT_OK = 0, SBW_EXIT_DATA = 1, SBW_EXIT_USAGE = 2, SBW_EXIT_INTR = 130 };

/* sbw_cli_parse() returns this after printing --help or --version. */
#define SBW_CLI_DONE (-1)

typedef enum sbw_cli_arg_type {
    SBW_ARG_FLAG,   /* bool *, set to true */
    SBW_ARG_SIZE,   /* size_t *, integer >= 0 ("1e5" accepted when exact) */
    SBW_ARG_LONG,   /* long * */
    SBW_ARG_DOUBLE, /* double *, finite */
    SBW_ARG_STRING, /* const char ** */
    SBW_ARG_U64     /* uint64_t * */
} sbw_cli_arg_type;

typedef struct sbw_cli_opt {
    const char *name;    /* "--alpha" */
    const char *metavar; /* "A"; NULL for flags */
    sbw_cli_arg_type type;
    void *dst;
    double min, max; /* inclusive range for numbers; none when min > max */
    const char *help;
} sbw_cli_opt;

/* Which common options a tool takes, besides --help --version --quiet. */
enum {
    SBW_CLI_OUTPUT = 1u << 0,  /* -o FILE */
    SBW_CLI_JSON = 1u << 1,    /* --json */
    SBW_CLI_THREADS = 1u << 2, /* --threads N */
    SBW_CLI_SEED = 1u << 3     /* --seed S */
};

typedef struct sbw_cli {
    const char *tool;        /* "sbw-info" (or "sbw-synth dirichlet") */
    const char *usage;       /* what follows "[options]": "FILE.npy" */
    const char *summary;     /* one line */
    const char *details;     /* printed after the options by --help: output, examples */
    const sbw_cli_opt *opts; /* the tool's own options, ended by a {0} entry */
    int min_args, max_args;
    unsigned common;
} sbw_cli;

/* Options per tool whose presence sbw_cli_given can report. */
#define SBW_CLI_MAX_OPTS 64

typedef struct sbw_cli_common {
    bool quiet, json;
    long threads;       /* 0: every core */
    const char *output; /* -o FILE, NULL when absent */
    uint64_t seed;      /* SBW_RNG_DEFAULT_SEED unless --seed */
    bool seed_given;
    bool given[SBW_CLI_MAX_OPTS]; /* given[i]: the tool's opts[i] was on the command line */
    char **args;                  /* positional arguments (into argv) */
    int nargs;
    char cmdline[1024]; /* the command as typed, for output headers */
} sbw_cli_common;

/* Parses argv[1..argc) against cli's options and the common ones, filling
 * the opts' dst and *c (which it initialises first).  Returns 0 to go on,
 * SBW_CLI_DONE after printing help or version (exit 0), or SBW_EXIT_USAGE
 * after printing the problem and the usage line on stderr.  "--name=value"
 * and "--name value" both work; "--" ends options.  On failure (and after
 * help) the opts' dst and *c hold what was parsed before the problem:
 * the tool exits with the status, using none of it. */
int sbw_cli_parse(const sbw_cli *cli, int argc, char **argv, sbw_cli_common *c);

/* True when the option called name ("--d", or the common "--seed") was
 * given on the command line, as opposed to keeping its starting value. */
bool sbw_cli_given(const sbw_cli *cli, const sbw_cli_common *c, const char *name);

/* Prints "TOOL: message" and the usage line on stderr; returns 2. */
int sbw_cli_usage_error(const sbw_cli *cli, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An option that applies only under some of a tool's choices (a head, an
 * optimiser): a table of these, one row per option, says which the
 * chosen settings would ignore. */
typedef struct sbw_cli_applies {
    const char *opt;    /* "--knots" */
    bool applies;       /* under the chosen settings */
    const char *choice; /* what it does not apply to: "mos", "--head mos" */
    const char *why;    /* "only plif and mos+plif have PLIF intervals" */
} sbw_cli_applies;

/* The first of rows[0..n) whose option was given (sbw_cli_given) though it
 * does not apply is a usage error: prints "TOOL: OPT does not apply to
 * CHOICE: WHY" and the usage hint as sbw_cli_usage_error does, and returns
 * SBW_EXIT_USAGE (a run that silently dropped a setting would report
 * results the user did not ask for).  Returns 0 when none. */
int sbw_cli_check_applies(const sbw_cli *cli, const sbw_cli_common *c, const sbw_cli_applies *rows,
                          size_t n);

/* Prints the last library error as "TOOL: reason" on stderr and returns the
 * exit code for status: 2 for SBW_EINVAL, 130 for SBW_EINTR (stopped by a
 * signal), 1 otherwise. */
int sbw_cli_fail(const char *tool, int status);

/* One output of a tool that is not its results table: a binary .npy or a
 * second table (--spectrum, --per-row, --log, --probs, --matrix). */
typedef struct sbw_cli_stream {
    const char *opt;  /* "--matrix", "-o" */
    const char *path; /* NULL when not given; "-" = stdout */
} sbw_cli_stream;

/* The one-stream rule, the same in every tool: stdout carries at most one
 * stream.  data[0..n) are the tool's data outputs; table_opt and
 * table_path say where its results table goes (an option such as "-o" and
 * its value; both NULL when the table has no option: stdout).  When a data
 * output is "-", the table goes to stderr.  Two data outputs on "-", or one
 * and the table sent to "-" explicitly, are a usage error: one line on
 * stderr naming both options, returns SBW_EXIT_USAGE.  Otherwise returns 0
 * and sets *table to the stream for the table (stdout or stderr) -- unless
 * the table goes to a file, which the tool writes itself.  On failure
 * *table is untouched. */
int sbw_cli_one_stream(const sbw_cli *cli, const sbw_cli_stream *data, size_t n,
                       const char *table_opt, const char *table_path, FILE **table);

/* Puts "PREFIX " before c->cmdline (cut at the end when it overflows): the
 * command line of a tool with subcommands, whose parse saw argv from the
 * subcommand on ("sbw-synth", "sbw-lm"). */
void sbw_cli_name_command(sbw_cli_common *c, const char *prefix);

/* Catches SIGINT and SIGTERM (and SIGHUP) gracefully for a long run: the
 * first sets the returned flag (the run polls it, saves its work and ends
 * with SBW_EINTR, exit 130); a second signal removes the temporaries and
 * kills at once.  One flag per process (sbw_signal_graceful).  Without
 * this, sbw_cli_parse has already set every tool to remove its
 * temporaries and die of the signal (exit 130/143; sbw_signal.h). */
volatile sig_atomic_t *sbw_cli_catch_stop(void);

/* Sets the OpenBLAS and OpenMP thread counts (0 = every core) and returns
 * the count in use. */
int sbw_cli_threads(long threads);

/* OpenBLAS's configuration string ("OpenBLAS 0.3.21 DYNAMIC_ARCH ..."). */
const char *sbw_cli_blas(void);

/* Checked conversions used by the parser, exposed for tools and tests:
 * the whole string must be a number in [min, max] (no range if min > max).
 * Return SBW_OK or SBW_EINVAL with a reason naming what; *out untouched on
 * failure. */
int sbw_cli_parse_size(const char *s, const char *what, double min, double max, size_t *out);
int sbw_cli_parse_long(const char *s, const char *what, double min, double max, long *out);
int sbw_cli_parse_double(const char *s, const char *what, double min, double max, double *out);
int sbw_cli_parse_u64(const char *s, const char *what, uint64_t *out);

/* Parses a comma list of sizes and ranges "1,2,5:10" / "2:100:2" into a
 * new array (caller frees).  Errors: SBW_EINVAL, SBW_ENOMEM; *out and *n
 * untouched and nothing allocated on failure. */
int sbw_cli_parse_size_list(const char *s, const char *what, size_t **out, size_t *n);

#endif
