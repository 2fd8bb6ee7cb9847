/* sbw_corpus.c -- a word-level corpus: the training vocabulary and the
 * three splits as word ids (see sbw_corpus.h).
 *
 * Each file is read whole, checked byte by byte (CR, NUL, UTF-8 as in
 * The Unicode Standard, Table 3-7: no overlongs, surrogates or code points above
 * U+10FFFF), which also counts its lines and words so the id array is
 * allocated once, then split into words.  Word -> id is a small
 * open-addressing table (FNV-1a 64, linear probing, load <= 1/2) whose
 * keys are the vocabulary's own strings.  A literal "<eos>" in the text is
 * the end-of-sentence word itself.
 */
#include "sbw_corpus.h"

#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_preflight.h"
#include "sbw_utf8.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EOS         "<eos>"
#define WORD_SHOWN  40 /* bytes of a word quoted in a message */
#define SHOWN_CAP   (4 * WORD_SHOWN + 8)
#define FNV_OFFSET  14695981039346656037ULL
#define FNV_PRIME   1099511628211ULL
#define INDEX_START 1024              /* slots of a new table */
#define READ_BLOCK  ((size_t)1 << 20) /* bytes read (and checked) at a time */

struct sbw_corpus_index {
    size_t cap;   /* slots, a power of two, more than twice the words */
    size_t *slot; /* (cap) id + 1, 0 when empty */
    size_t wcap;  /* capacity of words/count while the vocabulary grows */
};

typedef struct text_stats {
    size_t lines; /* lines (a last line without '\n' counts) */
    size_t words; /* blank-separated words */
} text_stats;

static const char *const split_names[SBW_CORPUS_NSPLIT] = {"train", "valid", "test"};

const char *sbw_corpus_split_name(enum sbw_corpus_split s)
{
    return (unsigned)s < SBW_CORPUS_NSPLIT ? split_names[s] : "?";
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= FNV_PRIME;
    }
    return h;
}

/* v as 8 little-endian bytes, so the hash does not depend on the host. */
static uint64_t fnv1a_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
    return fnv1a(h, b, sizeof b);
}

static bool is_blank(unsigned char ch) { return ch == ' ' || ch == '\t'; }

static bool stopped(const volatile sig_atomic_t *stop) { return stop && *stop; }

static int interrupted(const char *path)
{
    return SBW_ERROR(SBW_EINTR, "%s: interrupted while reading the corpus", path);
}

/* Length of the well-formed UTF-8 character at b (n bytes left), 0 when
 * ill formed or cut by n; ASCII without a call. */
static size_t utf8_len(const unsigned char *b, size_t n)
{
    uint32_t cp;
    return b[0] < 0x80 ? 1 : sbw_utf8_decode_n((const char *)b, n, &cp);
}

/* w (len bytes) for a message, into out (SHOWN_CAP bytes): backslash and
 * quote escaped, cut after WORD_SHOWN bytes (on a character boundary) with
 * "...".  Control, invisible and bidirectional characters and ill-formed
 * bytes are left to sbw_error_escape, which every reason goes through. */
static void escape_word(const char *w, size_t len, char *out)
{
    const unsigned char *b = (const unsigned char *)w;
    size_t i = 0, o = 0;
    while (i < len) {
        size_t n = utf8_len(b + i, len - i);
        n = n ? n : 1;
        if (i + n > WORD_SHOWN)
            break;
        if (b[i] == '\\' || b[i] == '\'')
            out[o++] = '\\';
        memcpy(out + o, w + i, n);
        o += n;
        i += n;
    }
    if (i < len) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* The slot of w (len bytes, no NUL inside): the one holding it, or the
 * empty one where it would go. */
static size_t *index_slot(const struct sbw_corpus_index *ix, char *const *words, const char *w,
                          size_t len)
{
    size_t mask = ix->cap - 1;
    size_t i = (size_t)fnv1a(FNV_OFFSET, w, len) & mask;
    while (ix->slot[i]) {
        const char *k = words[ix->slot[i] - 1];
        if (strncmp(k, w, len) == 0 && k[len] == '\0')
            break;
        i = (i + 1) & mask;
    }
    return &ix->slot[i];
}

/* Rebuilds the table with cap slots (a power of two > 2 nwords) for the
 * first nwords words, id = position. */
static int index_rebuild(struct sbw_corpus_index *ix, char *const *words, size_t nwords, size_t cap)
{
    size_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return SBW_ERROR(SBW_ENOMEM, "corpus: out of memory for a table of %zu words", nwords);
    free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    for (size_t id = 0; id < nwords; id++)
        *index_slot(ix, words, words[id], strlen(words[id])) = id + 1;
    return SBW_OK;
}

/* Room for one more word in c->words and c->count. */
static int vocab_reserve(sbw_corpus *c)
{
    struct sbw_corpus_index *ix = c->index;
    if (c->nwords < ix->wcap)
        return SBW_OK;
    size_t cap = ix->wcap ? 2 * ix->wcap : INDEX_START / 2;
    if (cap > SIZE_MAX / sizeof(char *))
        return SBW_ERROR(SBW_ENOMEM, "corpus: vocabulary too large");
    char **words = realloc(c->words, cap * sizeof *words);
    if (!words)
        return SBW_ERROR(SBW_ENOMEM, "corpus: out of memory for %zu words", cap);
    c->words = words;
    size_t *count = realloc(c->count, cap * sizeof *count);
    if (!count)
        return SBW_ERROR(SBW_ENOMEM, "corpus: out of memory for %zu words", cap);
    c->count = count;
    ix->wcap = cap;
    return SBW_OK;
}

/* Counts w (len bytes) in the training split, adding it when new; its
 * (provisional, first-appearance) id into *id. */
static int vocab_add(sbw_corpus *c, const char *w, size_t len, size_t *id)
{
    struct sbw_corpus_index *ix = c->index;
    size_t *slot = index_slot(ix, c->words, w, len);
    if (*slot) {
        *id = *slot - 1;
        /* A filled slot holds a word of c->words/c->count; the analyzer
         * cannot see that a calloc'd table starts empty. */
        // NOLINTNEXTLINE(clang-analyzer-core.NullDereference)
        c->count[*id]++;
        return SBW_OK;
    }
    int st = vocab_reserve(c);
    char *copy = st ? NULL : malloc(len + 1);
    if (!st && !copy)
        st = SBW_ERROR(SBW_ENOMEM, "corpus: out of memory");
    if (st)
        return st;
    memcpy(copy, w, len);
    copy[len] = '\0';
    c->words[c->nwords] = copy;
    c->count[c->nwords] = 1;
    *slot = c->nwords + 1;
    *id = c->nwords++;
    if (2 * c->nwords >= ix->cap)
        st = index_rebuild(ix, c->words, c->nwords, 2 * ix->cap);
    return st;
}

/* One token of split s on line `line` into *id: counted into the
 * vocabulary (train) or looked up in it (valid, test). */
static int add_token(sbw_corpus *c, enum sbw_corpus_split s, const char *w, size_t len, size_t line,
                     size_t *id)
{
    if (s == SBW_CORPUS_TRAIN)
        return vocab_add(c, w, len, id);
    size_t slot = *index_slot(c->index, c->words, w, len);
    if (slot) {
        *id = slot - 1;
        return SBW_OK;
    }
    char shown[SHOWN_CAP];
    escape_word(w, len, shown);
    return SBW_ERROR(SBW_EDATA, "%s:%zu: word '%s' is not in the vocabulary of %s", c->path[s],
                     line, shown, c->path[SBW_CORPUS_TRAIN]);
}

/* Where the check of a text stands: it runs on each block as it arrives
 * (text_check_more), so bad bytes near the start fail at once. */
typedef struct text_check {
    size_t pos;   /* bytes checked */
    size_t line;  /* the current line, from 1 */
    size_t start; /* offset of the current line */
    size_t words; /* blank-separated words so far */
    bool in_word;
} text_check;

/* Bytes of the sequence that lead byte c starts (0: c cannot start one). */
static size_t lead_len(unsigned char c)
{
    return c < 0x80                 ? 1
           : c >= 0xC2 && c <= 0xDF ? 2
           : c >= 0xE0 && c <= 0xEF ? 3
           : c >= 0xF0 && c <= 0xF4 ? 4
                                    : 0;
}

/* Checks the bytes of b (the n read so far) from tc->pos on: no CR, no NUL,
 * UTF-8, no byte-order mark at the start; counts lines and words.  Without
 * eof a sequence cut by the end of what was read waits for the next call. */
static int text_check_more(const char *path, const unsigned char *b, size_t n, bool eof,
                           text_check *tc)
{
    size_t i = tc->pos;
    while (i < n) {
        size_t need = lead_len(b[i]);
        if (need > 1 && i + need > n && !eof)
            break; /* the rest of the character is still to come */
        size_t len = b[i] == '\n' ? 1 : utf8_len(b + i, n - i);
        if (b[i] == '\r')
            return SBW_ERROR(SBW_EDATA,
                             "%s: line %zu has a carriage return (CRLF text? dos2unix converts it)",
                             path, tc->line);
        if (b[i] == '\0')
            return SBW_ERROR(SBW_EDATA, "%s: line %zu has a NUL byte (byte %zu of the line)", path,
                             tc->line, i - tc->start + 1);
        if (!len)
            return SBW_ERROR(SBW_EDATA, "%s: line %zu is not UTF-8: byte 0x%02x at byte offset %zu",
                             path, tc->line, b[i], i);
        if (i == 0 && len == 3 && memcmp(b, "\xef\xbb\xbf", 3) == 0)
            return SBW_ERROR(SBW_EDATA,
                             "%s: starts with a byte-order mark (U+FEFF), which would become part "
                             "of the first word; save the file as UTF-8 without one",
                             path);
        if (b[i] == '\n') {
            tc->line++;
            tc->start = i + 1;
        }
        bool word = b[i] != '\n' && !is_blank(b[i]);
        tc->words += word && !tc->in_word;
        tc->in_word = word;
        i += len;
    }
    tc->pos = i;
    return SBW_OK;
}

/* The lines and words of a text checked to its end (n bytes); a text
 * without words is refused. */
static int text_check_end(const char *path, const unsigned char *b, size_t n, const text_check *tc,
                          text_stats *ts)
{
    ts->lines = tc->line - (n == 0 || b[n - 1] == '\n');
    ts->words = tc->words;
    if (!tc->words)
        return SBW_ERROR(SBW_EDATA, "%s: empty file (no words)", path);
    return SBW_OK;
}

/* Splits the checked text b (n bytes) of split s into ids, "<eos>" after
 * every line. */
static int tokenize(sbw_corpus *c, enum sbw_corpus_split s, const char *b, size_t n,
                    const text_stats *ts, const volatile sig_atomic_t *stop)
{
    size_t ntok = ts->words + ts->lines;
    size_t *ids = ntok <= SIZE_MAX / sizeof *ids ? malloc(ntok * sizeof *ids) : NULL;
    if (!ids)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory for %zu tokens", c->path[s], ntok);
    c->ids[s] = ids;
    c->lines[s] = ts->lines;
    size_t k = 0, line = 1;
    int st = SBW_OK;
    for (size_t i = 0; i < n && !st;) {
        size_t j = i;
        if (b[i] == '\n') {
            st = add_token(c, s, EOS, strlen(EOS), line++, &ids[k++]);
            j = i + 1;
        } else if (is_blank((unsigned char)b[i])) {
            j = i + 1;
        } else {
            while (j < n && b[j] != '\n' && !is_blank((unsigned char)b[j]))
                j++;
            st = add_token(c, s, b + i, j - i, line, &ids[k++]);
        }
        i = j;
        if (!st && (k & 0xFFFFF) == 0 && stopped(stop)) /* every 2^20 tokens */
            st = interrupted(c->path[s]);
    }
    if (!st && b[n - 1] != '\n')
        st = add_token(c, s, EOS, strlen(EOS), line, &ids[k++]);
    c->len[s] = k;
    return st;
}

typedef struct rank_key {
    size_t count, first; /* train count, provisional id = order of first appearance */
} rank_key;

static int by_count(const void *pa, const void *pb)
{
    const rank_key *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count < b->count ? 1 : -1;
    return (a->first > b->first) - (a->first < b->first);
}

/* Renumbers the vocabulary by train frequency, most frequent first, ties
 * by first appearance; the train ids and the table follow. */
static int vocab_sort(sbw_corpus *c)
{
    size_t m = c->nwords;
    rank_key *key = malloc(m * sizeof *key);
    size_t *new_id = malloc(m * sizeof *new_id);
    char **words = malloc(m * sizeof *words);
    int st = key && new_id && words ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "corpus: out of memory");
    if (!st) {
        for (size_t i = 0; i < m; i++)
            key[i] = (rank_key){c->count[i], i};
        qsort(key, m, sizeof *key, by_count);
        for (size_t i = 0; i < m; i++) {
            words[i] = c->words[key[i].first];
            c->count[i] = key[i].count;
            new_id[key[i].first] = i;
        }
        memcpy(c->words, words, m * sizeof *words);
        for (size_t t = 0; t < c->len[SBW_CORPUS_TRAIN]; t++)
            c->ids[SBW_CORPUS_TRAIN][t] = new_id[c->ids[SBW_CORPUS_TRAIN][t]];
        for (size_t k = 0; k < c->index->cap; k++)
            if (c->index->slot[k])
                c->index->slot[k] = new_id[c->index->slot[k] - 1] + 1;
    }
    free(key);
    free(new_id);
    free(words);
    return st;
}

/* dir/name, malloc'd; NULL when out of memory. */
static char *join(const char *dir, const char *name)
{
    size_t d = strlen(dir);
    bool slash = d > 0 && dir[d - 1] == '/';
    size_t n = d + 1 + strlen(name) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", dir, slash ? "" : "/", name);
    return p;
}

/* Opens split s of dir: NAME.txt, else ptb.NAME.txt; c->path[s] is the
 * one opened. */
static int open_split(sbw_corpus *c, const char *dir, enum sbw_corpus_split s, FILE **fp)
{
    char plain[32], ptb[32];
    snprintf(plain, sizeof plain, "%s.txt", split_names[s]);
    snprintf(ptb, sizeof ptb, "ptb.%s.txt", split_names[s]);
    char *a = join(dir, plain), *b = join(dir, ptb);
    int st = a && b ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "%s: out of memory", dir);
    int err = 0;
    if (!st) {
        *fp = fopen(a, "rb");
        err = errno;
        if (!*fp && err == ENOENT) {
            char *t = a; /* a holds the name opened (or tried last) */
            a = b;
            b = t;
            *fp = fopen(a, "rb");
            err = errno;
        }
    }
    if (!st && !*fp && err == ENOENT)
        st = SBW_ERROR(SBW_EIO, "%s: no %s split: neither %s nor %s exists", dir, split_names[s],
                       plain, ptb);
    else if (!st && !*fp)
        st = SBW_ERROR(SBW_EIO, "%s: cannot open: %s", a, strerror(err));
    if (!st) {
        c->path[s] = a;
        a = NULL;
    }
    free(a);
    free(b);
    return st;
}

/* Room for more bytes in *buf (capacity *cap, len used): doubled, the
 * new size asked of the memory preflight first. */
static int grow(char **buf, size_t *cap, const char *path)
{
    if (*cap > SIZE_MAX / 2)
        return SBW_ERROR(SBW_ENOMEM, "%s: too large to read", path);
    char what[96];
    snprintf(what, sizeof what, "reading a corpus file");
    int st = sbw_preflight_memory(2.0 * (double)*cap, what);
    if (st)
        return SBW_ERROR(st, "%s: %s", path, sbw_error_reason());
    char *g = realloc(*buf, 2 * *cap);
    if (!g)
        return SBW_ERROR(SBW_ENOMEM, "%s: out of memory reading the file", path);
    *buf = g;
    *cap *= 2;
    return SBW_OK;
}

/* The whole of fd (named path) into *buf (malloc'd) and *n, READ_BLOCK
 * bytes at a time, each block checked as it arrives (text_check_more) and
 * the stop flag polled between blocks (a read cut by a signal is retried
 * unless the flag is set). */
static int read_checked(int fd, const char *path, const volatile sig_atomic_t *stop, char **buf,
                        size_t *n, text_check *tc)
{
    struct stat sb;
    size_t cap = 1 << 16, len = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
        (unsigned long long)sb.st_size < SIZE_MAX / 2)
        cap = (size_t)sb.st_size + 1; /* a regular file: one allocation (+1 to see its end) */
    int st = sbw_preflight_memory((double)cap, "reading a corpus file");
    if (st)
        return SBW_ERROR(st, "%s: %s", path, sbw_error_reason());
    char *b = malloc(cap);
    st = b ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "%s: out of memory reading the file", path);
    for (bool eof = false; !st && !eof;) {
        if (len == cap && (st = grow(&b, &cap, path)) != SBW_OK)
            break;
        size_t want = cap - len < READ_BLOCK ? cap - len : READ_BLOCK;
        ssize_t got = read(fd, b + len, want);
        if (got < 0 && errno != EINTR)
            st = SBW_ERROR(SBW_EIO, "%s: read failed: %s", path, strerror(errno));
        len += got > 0 ? (size_t)got : 0;
        eof = got == 0;
        st = st ? st : text_check_more(path, (const unsigned char *)b, len, eof, tc);
        if (!st && stopped(stop))
            st = interrupted(path);
    }
    if (st) {
        free(b);
        return st;
    }
    *buf = b;
    *n = len;
    return SBW_OK;
}

/* Reads, checks and splits one file of dir into split s. */
static int load_split(sbw_corpus *c, const char *dir, enum sbw_corpus_split s,
                      const volatile sig_atomic_t *stop)
{
    FILE *fp = NULL;
    char *buf = NULL;
    size_t n = 0;
    text_stats ts = {0};
    text_check tc = {.line = 1};
    int st = open_split(c, dir, s, &fp);
    st = st ? st : read_checked(fileno(fp), c->path[s], stop, &buf, &n, &tc);
    if (fp)
        fclose(fp);
    st = st ? st : text_check_end(c->path[s], (const unsigned char *)buf, n, &tc, &ts);
    st = st ? st : tokenize(c, s, buf, n, &ts, stop);
    free(buf);
    if (!st && s == SBW_CORPUS_TRAIN && c->nwords < 2)
        st = SBW_ERROR(SBW_EDATA, "%s: empty vocabulary: no word but %s", c->path[s], EOS);
    if (!st && s == SBW_CORPUS_TRAIN)
        st = vocab_sort(c);
    return st;
}

/* FNV-1a 64 of the vocabulary size, every word with a NUL after it, and
 * each split's length and ids (as 8 little-endian bytes each). */
static uint64_t corpus_hash(const sbw_corpus *c)
{
    uint64_t h = fnv1a_u64(FNV_OFFSET, c->nwords);
    for (size_t i = 0; i < c->nwords; i++)
        h = fnv1a(h, c->words[i], strlen(c->words[i]) + 1);
    for (int s = 0; s < SBW_CORPUS_NSPLIT; s++) {
        h = fnv1a_u64(h, c->len[s]);
        for (size_t t = 0; t < c->len[s]; t++)
            h = fnv1a_u64(h, c->ids[s][t]);
    }
    return h;
}

int sbw_corpus_load(sbw_corpus **out, const char *dir)
{
    return sbw_corpus_load_stop(out, dir, NULL);
}

int sbw_corpus_load_stop(sbw_corpus **out, const char *dir, const volatile sig_atomic_t *stop)
{
    if (!out)
        return SBW_ERROR(SBW_EINVAL, "corpus: no output pointer");
    *out = NULL;
    if (!dir || !*dir)
        return SBW_ERROR(SBW_EINVAL, "corpus: empty data directory name");
    sbw_corpus *c = calloc(1, sizeof *c);
    if (c)
        c->index = calloc(1, sizeof *c->index);
    int st = c && c->index ? SBW_OK : SBW_ERROR(SBW_ENOMEM, "corpus: out of memory");
    st = st ? st : index_rebuild(c->index, NULL, 0, INDEX_START);
    for (int s = 0; s < SBW_CORPUS_NSPLIT; s++)
        st = st ? st : load_split(c, dir, (enum sbw_corpus_split)s, stop);
    if (st) {
        sbw_corpus_free(c);
        return st;
    }
    c->hash = corpus_hash(c);
    *out = c;
    return SBW_OK;
}

void sbw_corpus_free(sbw_corpus *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->words && i < c->nwords; i++)
        free(c->words[i]);
    free(c->words);
    free(c->count);
    for (int s = 0; s < SBW_CORPUS_NSPLIT; s++) {
        free(c->ids[s]);
        free(c->path[s]);
    }
    if (c->index)
        free(c->index->slot);
    free(c->index);
    free(c);
}

int sbw_corpus_lookup(const sbw_corpus *c, const char *word, size_t *id)
{
    if (!c || !c->index || !word || !id)
        return SBW_ERROR(SBW_EINVAL, "corpus lookup: NULL argument");
    size_t len = strlen(word);
    size_t slot = *index_slot(c->index, c->words, word, len);
    if (!slot) {
        char shown[SHOWN_CAP];
        escape_word(word, len, shown);
        return SBW_ERROR(SBW_EINVAL, "word '%s' is not in the vocabulary", shown);
    }
    *id = slot - 1;
    return SBW_OK;
}

int sbw_corpus_write_vocab(const sbw_corpus *c, const char *path)
{
    if (!c || !path)
        return SBW_ERROR(SBW_EINVAL, "corpus: NULL argument to write_vocab");
    sbw_file f;
    int st = sbw_file_create(&f, path);
    for (size_t i = 0; !st && i < c->nwords; i++) {
        st = sbw_file_write(&f, c->words[i], strlen(c->words[i]));
        st = st ? st : sbw_file_write(&f, "\n", 1);
    }
    if (st) {
        sbw_file_abort(&f);
        return st;
    }
    return sbw_file_commit(&f);
}
