/* fuzz_replay.c -- a main() for a fuzz target built without libFuzzer:
 * feeds every file named on the command line (a folder: every file in
 * it) to LLVMFuzzerTestOneInput, one at a time, so make check and make
 * asan replay the seed corpus and every kept reproducer with the normal
 * compiler.  Prints one line per folder and exits 1 if an argument cannot
 * be read (a crash aborts it, as under libFuzzer).
 *
 * What the library prints on behalf of a tool (help, usage errors) goes to
 * /dev/null unless SBW_FUZZ_VERBOSE is set; sanitizer reports and the name
 * of the input that failed still reach the real stderr.
 */
#include "fuzz_util.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

/* The sanitizer runtime's, when linked in (make asan); weak otherwise. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static int err_fd = 2;
static char failed_msg[4200]; /* written before each input: a handler only write()s */
static size_t failed_len;

static void say_input(void)
{
    ssize_t k = write(err_fd, failed_msg, failed_len);
    (void)k;
}

static void on_abort(int sig)
{
    say_input();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Stdout and stderr to /dev/null, the real stderr kept for reports. */
static void quiet(void)
{
    int null = open("/dev/null", O_WRONLY);
    int keep = dup(2);
    if (null < 0 || keep < 0)
        return;
    fflush(stdout);
    err_fd = keep;
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)keep);
    dup2(null, 1);
    dup2(null, 2);
    close(null);
}

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        dprintf(err_fd, "fuzz replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *p = realloc(buf, cap * 2);
        if (!p) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = p;
        cap *= 2;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        dprintf(err_fd, "fuzz replay: %s: cannot read\n", path);
        free(buf);
        return -1;
    }
    int k = snprintf(failed_msg, sizeof failed_msg,
                     "fuzz replay: failed on %s (rerun it with SBW_FUZZ_VERBOSE=1)\n", path);
    failed_len = k < 0 ? 0 : (size_t)k < sizeof failed_msg ? (size_t)k : sizeof failed_msg - 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir in name order; *count gets how many. */
static int replay_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return replay_file(dir) == 0 ? (*count = 1, 0) : -1;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char **p = e->d_name[0] == '.' ? names : realloc(names, (n + 1) * sizeof *names);
        if (e->d_name[0] == '.' || !p)
            continue;
        names = p;
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (names[n])
            sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    int st = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode)) {
            st |= replay_file(names[i]);
            ++*count;
        }
        free(names[i]);
    }
    free(names);
    return st;
}

int main(int argc, char **argv)
{
    int st = 0, out = dup(1);
    if (!getenv("SBW_FUZZ_VERBOSE"))
        quiet();
    signal(SIGABRT, on_abort);
    signal(SIGSEGV, on_abort);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(say_input);
    for (int i = 1; i < argc; i++) {
        size_t count = 0;
        st |= replay_dir(argv[i], &count);
        dprintf(out < 0 ? 1 : out, "%s: %zu inputs replayed\n", argv[i], count);
    }
    return st ? 1 : 0;
}
