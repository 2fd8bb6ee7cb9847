/* sbw_cli.c -- option parsing and the glue between main() and libsbw. */
#include "sbw_cli.h"

#include "sbw_blas.h"

#include "sbw_error.h"
#include "sbw_rng.h"
#include "sbw_signal.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- checked numbers ---------------------------------------------------- */

static int out_of_range(const char *what, const char *s, double min, double max)
{
    return SBW_ERROR(SBW_EINVAL, "%s must be in [%g, %g], got '%s'", what, min, max, s);
}

int sbw_cli_parse_double(const char *s, const char *what, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return SBW_ERROR(SBW_EINVAL, "%s needs a finite number, got '%s'", what, s);
    if (min <= max && (v < min || v > max))
        return out_of_range(what, s, min, max);
    *out = v;
    return SBW_OK;
}

/* Integers may be written as 100000 or 1e5 (when the value is exact). */
static int parse_integer(const char *s, const char *what, double *v)
{
    char *end;
    errno = 0;
    long long ll = strtoll(s, &end, 10);
    if (end != s && *end == '\0' && errno == 0) {
        *v = (double)ll; /* values near 2^63 round up to 2^63, which no long long holds */
        return *v < 0x1p63 && ll == (long long)*v
                   ? SBW_OK
                   : SBW_ERROR(SBW_EINVAL, "%s: '%s' is too large", what, s);
    }
    double d;
    if (strspn(s, "0123456789.eE+-") != strlen(s) || sbw_cli_parse_double(s, what, 1.0, 0.0, &d) ||
        d != floor(d) || fabs(d) > 9.007e15)
        return SBW_ERROR(SBW_EINVAL, "%s needs an integer, got '%s'", what, s);
    *v = d;
    return SBW_OK;
}

int sbw_cli_parse_size(const char *s, const char *what, double min, double max, size_t *out)
{
    double v;
    int st = parse_integer(s, what, &v);
    if (st)
        return st;
    if (v < 0)
        return SBW_ERROR(SBW_EINVAL, "%s must not be negative, got '%s'", what, s);
    if (min <= max && (v < min || v > max))
        return out_of_range(what, s, min, max);
    *out = (size_t)v;
    return SBW_OK;
}

int sbw_cli_parse_long(const char *s, const char *what, double min, double max, long *out)
{
    double v;
    int st = parse_integer(s, what, &v);
    if (st)
        return st;
    if (min <= max && (v < min || v > max))
        return out_of_range(what, s, min, max);
    *out = (long)v;
    return SBW_OK;
}

int sbw_cli_parse_u64(const char *s, const char *what, uint64_t *out)
{
    char *end;
    errno = 0;
    if (s[0] == '-')
        return SBW_ERROR(SBW_EINVAL, "%s must not be negative, got '%s'", what, s);
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return SBW_ERROR(SBW_EINVAL, "%s needs an integer in [0, 2^64), got '%s'", what, s);
    *out = (uint64_t)v;
    return SBW_OK;
}

/* One list item: "a" or "a:b" or "a:b:step" (inclusive). */
static int expand_item(const char *item, const char *what, size_t **v, size_t *n, size_t *cap)
{
    char buf[64];
    size_t lo = 0, hi = 0, step = 1;
    snprintf(buf, sizeof buf, "%s", item);
    char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (c1)
        *c1 = '\0';
    if (c2)
        *c2 = '\0';
    int st = sbw_cli_parse_size(buf, what, 1, 0, &lo);
    hi = lo;
    if (!st && c1)
        st = sbw_cli_parse_size(c1 + 1, what, 1, 0, &hi);
    if (!st && c2 && (sbw_cli_parse_size(c2 + 1, what, 1, 1e15, &step) || step == 0))
        st = SBW_ERROR(SBW_EINVAL, "%s: the step of range '%s' must be an integer >= 1, got '%s'",
                       what, item, c2 + 1);
    if (!st && hi < lo)
        st = SBW_ERROR(SBW_EINVAL, "%s: range '%s' runs backwards", what, item);
    if (!st && (hi - lo) / step >= 10000000 - *n) /* refused before, not after, 1e7 entries */
        st = SBW_ERROR(SBW_EINVAL, "%s: list '%s' is too long", what, item);
    for (size_t x = lo; !st && x <= hi; x += step) {
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 16;
            size_t *p = realloc(*v, nc * sizeof *p);
            if (!p)
                return SBW_ERROR(SBW_ENOMEM, "out of memory");
            *v = p;
            *cap = nc;
        }
        (*v)[(*n)++] = x;
        if ((*n) > 10000000)
            st = SBW_ERROR(SBW_EINVAL, "%s: list '%s' is too long", what, item);
    }
    return st;
}

int sbw_cli_parse_size_list(const char *s, const char *what, size_t **out, size_t *n)
{
    size_t *v = NULL, cnt = 0, cap = 0;
    int st = SBW_OK;
    const char *p = s;
    while (!st) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item) {
            st = SBW_ERROR(SBW_EINVAL, "%s: bad list '%s'", what, s);
            break;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        st = expand_item(item, what, &v, &cnt, &cap);
        if (!comma)
            break;
        p = comma + 1;
    }
    if (st) {
        free(v);
        return st;
    }
    *out = v;
    *n = cnt;
    return SBW_OK;
}

/* ---- help and usage ----------------------------------------------------- */

static void print_usage_line(const sbw_cli *cli, FILE *f)
{
    fprintf(f, "Usage: %s [options]%s%s\n", cli->tool, cli->usage ? " " : "",
            cli->usage ? cli->usage : "");
}

/* A starting value outside the option's range means "no default" (the
 * option is required, or its absence means something the help explains). */
static bool outside_range(const sbw_cli_opt *o, double v)
{
    return o->min <= o->max && (v < o->min || v > o->max);
}

static void format_default(const sbw_cli_opt *o, char *buf, size_t cap)
{
    buf[0] = '\0';
    if ((o->type == SBW_ARG_SIZE && outside_range(o, (double)*(size_t *)o->dst)) ||
        (o->type == SBW_ARG_LONG && outside_range(o, (double)*(long *)o->dst)) ||
        (o->type == SBW_ARG_DOUBLE && outside_range(o, *(double *)o->dst)))
        return;
    switch (o->type) {
    case SBW_ARG_SIZE:
        snprintf(buf, cap, " [%zu]", *(size_t *)o->dst);
        break;
    case SBW_ARG_LONG:
        snprintf(buf, cap, " [%ld]", *(long *)o->dst);
        break;
    case SBW_ARG_DOUBLE:
        snprintf(buf, cap, " [%g]", *(double *)o->dst);
        break;
    case SBW_ARG_U64:
        snprintf(buf, cap, " [%llu]", (unsigned long long)*(uint64_t *)o->dst);
        break;
    case SBW_ARG_STRING:
        if (*(const char **)o->dst)
            snprintf(buf, cap, " [%s]", *(const char **)o->dst);
        break;
    case SBW_ARG_FLAG:
        break;
    }
}

static void print_opt(FILE *f, const char *name, const char *metavar, const char *help,
                      const char *dflt)
{
    char left[64];
    snprintf(left, sizeof left, "%s%s%s", name, metavar ? " " : "", metavar ? metavar : "");
    if (strlen(left) < 22)
        fprintf(f, "  %-22s %s%s\n", left, help, dflt);
    else
        fprintf(f, "  %s\n  %-22s %s%s\n", left, "", help, dflt);
}

static void print_help(const sbw_cli *cli)
{
    print_usage_line(cli, stdout);
    printf("%s\n\nOptions:\n", cli->summary);
    char dflt[96];
    for (const sbw_cli_opt *o = cli->opts; o && o->name; o++) {
        format_default(o, dflt, sizeof dflt);
        print_opt(stdout, o->name, o->metavar, o->help, dflt);
    }
    if (cli->common & SBW_CLI_OUTPUT)
        print_opt(stdout, "-o, --output", "FILE", "write the result to FILE ('-' = stdout)", "");
    if (cli->common & SBW_CLI_SEED)
        printf("  %-22s random seed [%llu]\n", "--seed S",
               (unsigned long long)SBW_RNG_DEFAULT_SEED);
    if (cli->common & SBW_CLI_THREADS)
        print_opt(stdout, "--threads", "N", "threads for BLAS and OpenMP (0 = all cores)", " [0]");
    if (cli->common & SBW_CLI_JSON)
        print_opt(stdout, "--json", NULL, "print the result as one JSON object", "");
    print_opt(stdout, "-q, --quiet", NULL, "no progress or notes on stderr", "");
    print_opt(stdout, "-h, --help", NULL, "show this help", "");
    print_opt(stdout, "--version", NULL, "show the version and the BLAS in use", "");
    if (cli->details)
        printf("\n%s", cli->details);
    printf("\nExit status: 0 ok, 1 bad data or failed computation, 2 bad usage.\n");
}

int sbw_cli_usage_error(const sbw_cli *cli, const char *fmt, ...)
{
    va_list ap;
    char raw[1024], msg[1024];
    va_start(ap, fmt);
    /* va_start is just above: clang-analyzer's valist checker misreads
     * glibc's va_list here (as in sbw_error.c). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    sbw_error_escape(raw, msg, sizeof msg); /* an argument may hold control characters */
    fprintf(stderr, "%s: %s\n", cli->tool, msg);
    print_usage_line(cli, stderr);
    fprintf(stderr, "Try '%s --help' for more information.\n", cli->tool);
    return SBW_EXIT_USAGE;
}

int sbw_cli_check_applies(const sbw_cli *cli, const sbw_cli_common *c, const sbw_cli_applies *rows,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!rows[i].applies && sbw_cli_given(cli, c, rows[i].opt))
            return sbw_cli_usage_error(cli, "%s does not apply to %s: %s", rows[i].opt,
                                       rows[i].choice, rows[i].why);
    return 0;
}

int sbw_cli_fail(const char *tool, int status)
{
    const char *why = sbw_error_reason();
    fprintf(stderr, "%s: %s\n", tool, *why ? why : sbw_error_string(status));
    return status == SBW_EINVAL  ? SBW_EXIT_USAGE
           : status == SBW_EINTR ? SBW_EXIT_INTR
                                 : SBW_EXIT_DATA;
}

/* ---- parsing ------------------------------------------------------------ */

static int store(const sbw_cli *cli, const sbw_cli_opt *o, const char *val)
{
    int st = SBW_OK;
    switch (o->type) {
    case SBW_ARG_FLAG:
        *(bool *)o->dst = true;
        break;
    case SBW_ARG_SIZE:
        st = sbw_cli_parse_size(val, o->name, o->min, o->max, o->dst);
        break;
    case SBW_ARG_LONG:
        st = sbw_cli_parse_long(val, o->name, o->min, o->max, o->dst);
        break;
    case SBW_ARG_DOUBLE:
        st = sbw_cli_parse_double(val, o->name, o->min, o->max, o->dst);
        break;
    case SBW_ARG_U64:
        st = sbw_cli_parse_u64(val, o->name, o->dst);
        break;
    case SBW_ARG_STRING:
        *(const char **)o->dst = val;
        break;
    }
    if (st)
        return sbw_cli_usage_error(cli, "%s", sbw_error_reason());
    return SBW_OK;
}

static const sbw_cli_opt common_opts[] = {
    {"--json", NULL, SBW_ARG_FLAG, NULL, 1, 0, NULL},
    {"--threads", "N", SBW_ARG_LONG, NULL, 0, 4096, NULL},
    {"--seed", "S", SBW_ARG_U64, NULL, 1, 0, NULL},
    {"--output", "FILE", SBW_ARG_STRING, NULL, 1, 0, NULL},
    {"--quiet", NULL, SBW_ARG_FLAG, NULL, 1, 0, NULL},
};

/* The common option called name (with -o and -q as aliases), bound to c,
 * or NULL when the tool does not take it. */
static bool find_common(const sbw_cli *cli, const char *name, sbw_cli_common *c, sbw_cli_opt *o)
{
    if (strcmp(name, "-o") == 0)
        name = "--output";
    if (strcmp(name, "-q") == 0)
        name = "--quiet";
    void *dst[] = {&c->json, &c->threads, &c->seed, &c->output, &c->quiet};
    unsigned need[] = {SBW_CLI_JSON, SBW_CLI_THREADS, SBW_CLI_SEED, SBW_CLI_OUTPUT, 0};
    for (size_t i = 0; i < sizeof common_opts / sizeof *common_opts; i++) {
        if (strcmp(name, common_opts[i].name) != 0)
            continue;
        if (need[i] && !(cli->common & need[i]))
            return false;
        *o = common_opts[i];
        o->dst = dst[i];
        if (dst[i] == &c->seed)
            c->seed_given = true;
        return true;
    }
    return false;
}

static bool find_opt(const sbw_cli *cli, const char *name, sbw_cli_common *c, sbw_cli_opt *o)
{
    for (const sbw_cli_opt *p = cli->opts; p && p->name; p++)
        if (strcmp(p->name, name) == 0) {
            *o = *p;
            if (p - cli->opts < SBW_CLI_MAX_OPTS)
                c->given[p - cli->opts] = true;
            return true;
        }
    return find_common(cli, name, c, o);
}

bool sbw_cli_given(const sbw_cli *cli, const sbw_cli_common *c, const char *name)
{
    if (strcmp(name, "--seed") == 0)
        return c->seed_given;
    for (const sbw_cli_opt *p = cli->opts; p && p->name && p - cli->opts < SBW_CLI_MAX_OPTS; p++)
        if (strcmp(p->name, name) == 0)
            return c->given[p - cli->opts];
    return false;
}

static void record_cmdline(sbw_cli_common *c, int argc, char **argv)
{
    size_t n = 0;
    c->cmdline[0] = '\0';
    for (int i = 0; i < argc && n + 1 < sizeof c->cmdline; i++) {
        int k = snprintf(c->cmdline + n, sizeof c->cmdline - n, "%s%s", i ? " " : "", argv[i]);
        if (k < 0)
            break;
        n += (size_t)k;
    }
}

/* Handles argv[*i], an option; advances *i past its value. */
static int parse_option(const sbw_cli *cli, int argc, char **argv, int *i, sbw_cli_common *c)
{
    char name[64];
    const char *arg = argv[*i], *val = NULL, *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len >= sizeof name)
        return sbw_cli_usage_error(cli, "unknown option '%s'", arg);
    memcpy(name, arg, len);
    name[len] = '\0';
    sbw_cli_opt o;
    if (!find_opt(cli, name, c, &o))
        return sbw_cli_usage_error(cli, "unknown option '%s'", name);
    if (o.type == SBW_ARG_FLAG && eq)
        return sbw_cli_usage_error(cli, "option '%s' takes no value", name);
    if (o.type != SBW_ARG_FLAG) {
        val = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!val)
            return sbw_cli_usage_error(cli, "option '%s' needs a value (%s)", name, o.metavar);
    }
    return store(cli, &o, val);
}

static int check_nargs(const sbw_cli *cli, const sbw_cli_common *c)
{
    if (c->nargs < cli->min_args)
        return sbw_cli_usage_error(cli, "missing argument: %s", cli->usage ? cli->usage : "");
    if (c->nargs > cli->max_args)
        return sbw_cli_usage_error(cli, "unexpected argument '%s'", c->args[cli->max_args]);
    return SBW_OK;
}

int sbw_cli_parse(const sbw_cli *cli, int argc, char **argv, sbw_cli_common *c)
{
    *c = (sbw_cli_common){.seed = SBW_RNG_DEFAULT_SEED};
    sbw_signal_install(cli->tool);
    record_cmdline(c, argc, argv);
    c->args = argv + argc; /* positionals are gathered at the end of argv */
    int npos = 0, st;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            print_help(cli);
            return SBW_CLI_DONE;
        }
        if (!options_done && strcmp(a, "--version") == 0) {
            printf("%s (sbw) %s\n%s\n", cli->tool, SBW_CLI_VERSION, sbw_cli_blas());
            return SBW_CLI_DONE;
        }
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (!options_done && a[0] == '-' && a[1] != '\0') {
            if ((st = parse_option(cli, argc, argv, &i, c)) != 0)
                return st;
        } else {
            argv[npos++] = argv[i]; /* compact positionals to the front */
        }
    }
    c->args = argv;
    c->nargs = npos;
    return check_nargs(cli, c);
}

/* ---- environment -------------------------------------------------------- */

int sbw_cli_threads(long threads)
{
    int n = threads > 0 ? (int)threads : omp_get_num_procs();
    omp_set_num_threads(n);
    sbw_blas_threads_push(n); /* for the whole run: never popped */
    return n;
}

int sbw_cli_one_stream(const sbw_cli *cli, const sbw_cli_stream *data, size_t n,
                       const char *table_opt, const char *table_path, FILE **table)
{
    const char *first = NULL, *second = NULL;
    for (size_t i = 0; i < n && !second; i++) {
        if (!data[i].path || strcmp(data[i].path, "-") != 0)
            continue;
        if (first)
            second = data[i].opt;
        else
            first = data[i].opt;
    }
    bool table_too = first && !second && table_path && strcmp(table_path, "-") == 0;
    if (second || table_too) {
        const char *other = second ? second : table_opt ? table_opt : "-o";
        fprintf(stderr,
                "%s: %s - and %s -%s both claim stdout, the same stream: give one of them a "
                "file name\n",
                cli->tool, first, other, second ? "" : " (the table)");
        return SBW_EXIT_USAGE;
    }
    *table = first ? stderr : stdout;
    return SBW_EXIT_OK;
}

void sbw_cli_name_command(sbw_cli_common *c, const char *prefix)
{
    char cmd[sizeof c->cmdline];
    int k = snprintf(cmd, sizeof cmd, "%s ", prefix);
    size_t n = k > 0 && (size_t)k < sizeof cmd ? (size_t)k : 0;
    memcpy(cmd + n, c->cmdline, sizeof cmd - n); /* cut: the last n bytes */
    cmd[sizeof cmd - 1] = '\0';
    memcpy(c->cmdline, cmd, sizeof cmd);
}

volatile sig_atomic_t *sbw_cli_catch_stop(void) { return sbw_signal_graceful(); }

const char *sbw_cli_blas(void)
{
    const char *cfg = openblas_get_config();
    return cfg ? cfg : "unknown BLAS";
}
