/* fuzz_util.h -- what the fuzz targets share: the input bytes as a file in
 * a private scratch folder (a regular file, like a user's), or as a pipe
 * (the readers' streaming path), and the folder removed at exit.
 *
 * Each target defines LLVMFuzzerTestOneInput.  Built with clang
 * -fsanitize=fuzzer it is driven by libFuzzer (make fuzz); built with the
 * normal compiler it is linked with fuzz_replay.c, which feeds it every
 * file of the seed corpus and of the regression folder (make check).
 * Library errors are expected outcomes: a target only asserts what must
 * hold whatever the bytes (the reason set on failure, shapes honoured).
 */
#ifndef SBW_FUZZ_UTIL_H
#define SBW_FUZZ_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs larger than this are not pushed through a pipe (its buffer). */
#define FUZZ_PIPE_MAX 65536u

#define FUZZ_MAX_NAMES 16

static char fuzz_dir_path[256];
static char fuzz_names[FUZZ_MAX_NAMES][64];
static size_t fuzz_nnames;

static inline void fuzz_cleanup(void)
{
    char p[sizeof fuzz_dir_path + sizeof fuzz_names[0] + 2];
    for (size_t i = 0; i < fuzz_nnames; i++) {
        snprintf(p, sizeof p, "%.255s/%.63s", fuzz_dir_path, fuzz_names[i]);
        unlink(p);
    }
    if (fuzz_dir_path[0])
        rmdir(fuzz_dir_path);
}

/* The scratch folder (created on first use, under /dev/shm when it exists,
 * else $TMPDIR or /tmp); aborts when it cannot be made. */
static inline const char *fuzz_dir(void)
{
    if (fuzz_dir_path[0])
        return fuzz_dir_path;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/sbw-fuzz.XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(fuzz_dir_path)) {
        perror("sbw fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_cleanup);
    return fuzz_dir_path;
}

/* Writes data to name in the scratch folder and puts its path in path
 * (cap bytes).  Aborts on a write error: the harness, not the parser. */
static inline void fuzz_file(const char *name, const uint8_t *data, size_t size, char *path,
                             size_t cap)
{
    snprintf(path, cap, "%s/%s", fuzz_dir(), name);
    size_t i = 0;
    while (i < fuzz_nnames && strcmp(fuzz_names[i], name) != 0)
        i++;
    if (i == fuzz_nnames && i < FUZZ_MAX_NAMES)
        snprintf(fuzz_names[fuzz_nnames++], sizeof fuzz_names[0], "%s", name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    size_t done = 0;
    while (fd >= 0 && done < size) {
        ssize_t k = write(fd, data + done, size - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        done += (size_t)k;
    }
    if (fd < 0 || done < size || close(fd) != 0) {
        perror("sbw fuzz: writing the input");
        abort();
    }
}

/* A pipe holding data with its write end closed: *fd is the read end
 * (close it after use) and path "/dev/fd/N" opens it again as a pipe.
 * Returns 0, or -1 when size exceeds FUZZ_PIPE_MAX (nothing opened). */
static inline int fuzz_pipe(const uint8_t *data, size_t size, int *fd, char *path, size_t cap)
{
    int p[2];
    if (size > FUZZ_PIPE_MAX)
        return -1;
    if (pipe(p) != 0) {
        perror("sbw fuzz: pipe");
        abort();
    }
    if (size > 0 && write(p[1], data, size) != (ssize_t)size) {
        perror("sbw fuzz: writing the pipe");
        abort();
    }
    close(p[1]);
    *fd = p[0];
    snprintf(path, cap, "/dev/fd/%d", p[0]);
    return 0;
}

/* Splits data at each FUZZ_SEP into at most max parts: part[i] and len[i]
 * (the last part runs to the end).  Returns the number of parts (>= 1).
 * Targets that read several files (a checkpoint's table and arrays, a
 * corpus's three splits) take them from one input this way. */
#define FUZZ_SEP     "\n%%\n"
#define FUZZ_SEP_LEN 4u

static inline size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len,
                                size_t max)
{
    size_t n = 0, at = 0;
    part[0] = data;
    for (size_t i = 0; n + 1 < max && i + FUZZ_SEP_LEN <= size; i++)
        if (memcmp(data + i, FUZZ_SEP, FUZZ_SEP_LEN) == 0) {
            len[n++] = i - at;
            at = i + FUZZ_SEP_LEN;
            part[n] = data + at;
            i = at - 1;
        }
    len[n] = size - at;
    return n + 1;
}

/* The bits of a double and of a float (NaN payloads and -0 compared too). */
static inline uint64_t fuzz_bits64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline uint32_t fuzz_bits32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Aborts with a message when cond fails: a property the library broke. */
#define FUZZ_REQUIRE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "sbw fuzz: %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
