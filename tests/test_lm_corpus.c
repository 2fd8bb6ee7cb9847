/* test_lm_corpus.c -- the word-level corpus reader (lm/sbw_corpus):
 * vocabulary order and ids against hand-derived values and a brute-force
 * twin, <eos> and blank lines, both file naming schemes, every bad-data
 * path with its message, lookups, the vocabulary file, the hash, and real
 * PTB when it is present. */
#include "sbw_test.h"

#include "sbw_corpus.h"
#include "sbw_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A fresh directory for one test's corpus (inside the suite's temporary
 * directory, removed at exit). */
static void fresh_dir(char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", sbw_test_path("corpus-XXXXXX"));
    assert_non_null(mkdtemp(dir));
}

static void put_bytes(const char *dir, const char *name, const char *text, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void put(const char *dir, const char *name, const char *text)
{
    put_bytes(dir, name, text, strlen(text));
}

/* A directory holding train/valid/test (plain names). */
static void make_corpus(char *dir, size_t cap, const char *train, const char *valid,
                        const char *test)
{
    fresh_dir(dir, cap);
    put(dir, "train.txt", train);
    put(dir, "valid.txt", valid);
    put(dir, "test.txt", test);
}

static void assert_ids(const sbw_corpus *c, enum sbw_corpus_split s, const size_t *want, size_t n)
{
    SBW_ASSERT_EQ(c->len[s], n);
    for (size_t i = 0; i < n; i++)
        if (c->ids[s][i] != want[i])
            fail_msg("%s token %zu: id %zu, want %zu", sbw_corpus_split_name(s), i, c->ids[s][i],
                     want[i]);
}

static void assert_words(const sbw_corpus *c, const char *const *want, size_t n)
{
    SBW_ASSERT_EQ(c->nwords, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(c->words[i], want[i]);
}

/* Loading dir fails with status st and a reason holding each of the
 * NULL-terminated strings. */
static void expect_fail(const char *dir, int st, const char *const *parts)
{
    sbw_corpus *c = (sbw_corpus *)&c; /* anything but NULL */
    assert_int_equal(sbw_corpus_load(&c, dir), st);
    assert_null(c);
    for (; *parts; parts++)
        if (!strstr(sbw_error_reason(), *parts))
            fail_msg("reason \"%s\" lacks \"%s\"", sbw_error_reason(), *parts);
}

/* Hand-derived: train "q p r / p q r r" has r 3, q 2, p 2, <eos> 2; the
 * ties go by first appearance (q, p, then <eos> at the end of line 1), so
 * the ids are r 0, q 1, p 2, <eos> 3 -- not alphabetical ("<" < "p"). */
static void test_order_and_ids(void **state)
{
    (void)state;
    char dir[600];
    make_corpus(dir, sizeof dir, "q p r\np q r r\n", "r q\n", "p\np\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    const char *words[] = {"r", "q", "p", "<eos>"};
    assert_words(c, words, 4);
    const size_t count[] = {3, 2, 2, 2};
    for (size_t i = 0; i < 4; i++)
        SBW_ASSERT_EQ(c->count[i], count[i]);
    const size_t train[] = {1, 2, 0, 3, 2, 1, 0, 0, 3};
    const size_t valid[] = {0, 1, 3};
    const size_t test[] = {2, 3, 2, 3};
    assert_ids(c, SBW_CORPUS_TRAIN, train, 9);
    assert_ids(c, SBW_CORPUS_VALID, valid, 3);
    assert_ids(c, SBW_CORPUS_TEST, test, 4);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_TRAIN], (size_t)2);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_VALID], (size_t)1);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_TEST], (size_t)2);
    assert_string_equal(sbw_corpus_split_name(SBW_CORPUS_TRAIN), "train");
    assert_string_equal(sbw_corpus_split_name(SBW_CORPUS_VALID), "valid");
    assert_string_equal(sbw_corpus_split_name(SBW_CORPUS_TEST), "test");
    sbw_corpus_free(c);
    sbw_corpus_free(NULL);
}

/* Blanks are spaces and tabs (runs, leading, trailing); an empty or
 * blank line is one <eos>; a last line without '\n' still ends with one.
 * Train " a\t b " / "" / "  " / "b" / " a": a b E E E b E a E, so
 * <eos> 5, a 2, b 2 (a first): ids <eos> 0, a 1, b 2. */
static void test_eos_and_blank_lines(void **state)
{
    (void)state;
    char dir[600];
    make_corpus(dir, sizeof dir, " a\t b \n\n  \nb\n a", "b\n\n", "a");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    const char *words[] = {"<eos>", "a", "b"};
    assert_words(c, words, 3);
    const size_t train[] = {1, 2, 0, 0, 0, 2, 0, 1, 0};
    const size_t valid[] = {2, 0, 0};
    const size_t test[] = {1, 0};
    assert_ids(c, SBW_CORPUS_TRAIN, train, 9);
    assert_ids(c, SBW_CORPUS_VALID, valid, 3);
    assert_ids(c, SBW_CORPUS_TEST, test, 2);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_TRAIN], (size_t)5);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_VALID], (size_t)2);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_TEST], (size_t)1);
    sbw_corpus_free(c);
}

/* UTF-8 words (2-, 3- and 4-byte, the edges U+D7FF, U+E000, U+10FFFF) are
 * words like any other; other control characters are not blanks. */
static void test_utf8_words(void **state)
{
    (void)state;
    char dir[600];
    const char *train = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e\n"
                        "\xed\x9f\xbf \xee\x80\x80 \xf4\x8f\xbf\xbf x\x0by\n";
    make_corpus(dir, sizeof dir, train, "\xe2\x82\xac\n", "x\x0by\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    /* all once but <eos> (twice): <eos>, then the words in order */
    const char *words[] = {"<eos>",        "caf\xc3\xa9",  "\xe2\x82\xac",     "\xf0\x9d\x84\x9e",
                           "\xed\x9f\xbf", "\xee\x80\x80", "\xf4\x8f\xbf\xbf", "x\x0by"};
    assert_words(c, words, 8);
    const size_t valid[] = {2, 0}, test[] = {7, 0};
    assert_ids(c, SBW_CORPUS_VALID, valid, 2);
    assert_ids(c, SBW_CORPUS_TEST, test, 2);
    sbw_corpus_free(c);
}

/* ptb.NAME.txt is found when NAME.txt is not; NAME.txt wins when both are
 * there; each split is looked up on its own. */
static void test_naming_schemes(void **state)
{
    (void)state;
    char dir[600], want[700];
    fresh_dir(dir, sizeof dir);
    put(dir, "ptb.train.txt", "a b\n");
    put(dir, "ptb.valid.txt", "a\n");
    put(dir, "ptb.test.txt", "b\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    const char *names[] = {"ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"};
    for (int s = 0; s < SBW_CORPUS_NSPLIT; s++) {
        snprintf(want, sizeof want, "%s/%s", dir, names[s]);
        assert_string_equal(c->path[s], want);
    }
    sbw_corpus_free(c);
    put(dir, "test.txt", "a a\n");
    size_t slash = strlen(dir);
    dir[slash] = '/'; /* a trailing slash is not doubled */
    dir[slash + 1] = '\0';
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    snprintf(want, sizeof want, "%stest.txt", dir);
    assert_string_equal(c->path[SBW_CORPUS_TEST], want);
    SBW_ASSERT_EQ(c->len[SBW_CORPUS_TEST], (size_t)3);
    sbw_corpus_free(c);
}

/* A missing split names both names looked for; an unreadable one (a
 * directory) is SBW_EIO too; bad arguments are SBW_EINVAL. */
static void test_missing_files(void **state)
{
    (void)state;
    char dir[600];
    fresh_dir(dir, sizeof dir);
    put(dir, "valid.txt", "a\n");
    put(dir, "test.txt", "a\n");
    expect_fail(dir, SBW_EIO,
                (const char *[]){dir, "no train split", "train.txt", "ptb.train.txt", NULL});
    put(dir, "ptb.train.txt", "a\n");
    char sub[700];
    snprintf(sub, sizeof sub, "%s/test.txt", dir);
    assert_int_equal(unlink(sub), 0);
    expect_fail(dir, SBW_EIO, (const char *[]){"no test split", "test.txt", "ptb.test.txt", NULL});
    assert_int_equal(mkdir(sub, 0755), 0);
    expect_fail(dir, SBW_EIO, (const char *[]){sub, "read failed", NULL});
    expect_fail("/no/such/dir", SBW_EIO, (const char *[]){"/no/such/dir", "train.txt", NULL});
    sbw_corpus *c = NULL;
    assert_int_equal(sbw_corpus_load(&c, ""), SBW_EINVAL);
    assert_int_equal(sbw_corpus_load(&c, NULL), SBW_EINVAL);
    assert_int_equal(sbw_corpus_load(NULL, dir), SBW_EINVAL);
}

/* train.txt with bad bytes at line 2; the reason names the file, the line
 * and the problem. */
static void expect_bad_train(const char *bytes, size_t n, const char *what)
{
    char dir[600], path[700];
    fresh_dir(dir, sizeof dir);
    put_bytes(dir, "train.txt", bytes, n);
    put(dir, "valid.txt", "a\n");
    put(dir, "test.txt", "a\n");
    snprintf(path, sizeof path, "%s/train.txt", dir);
    expect_fail(dir, SBW_EDATA, (const char *[]){path, "line 2", what, NULL});
}

static void test_bad_bytes(void **state)
{
    (void)state;
    expect_bad_train("a\nb\r\n", 5, "carriage return");
    expect_bad_train("a\nb\0c\n", 6, "NUL byte");
    expect_bad_train("a\nb\xc0\x80\n", 6, "not UTF-8");         /* overlong NUL */
    expect_bad_train("a\nb\xc1\xbf\n", 6, "not UTF-8");         /* overlong 2-byte */
    expect_bad_train("a\nb\xe0\x80\xaf\n", 7, "not UTF-8");     /* overlong 3-byte */
    expect_bad_train("a\nb\xf0\x8f\xbf\xbf\n", 8, "not UTF-8"); /* overlong 4-byte */
    expect_bad_train("a\nb\xed\xa0\x80\n", 7, "not UTF-8");     /* surrogate U+D800 */
    expect_bad_train("a\nb\xed\xbf\xbf\n", 7, "not UTF-8");     /* surrogate U+DFFF */
    expect_bad_train("a\nb\xf4\x90\x80\x80\n", 8, "not UTF-8"); /* U+110000 */
    expect_bad_train("a\nb\xf5\x80\x80\x80\n", 8, "not UTF-8"); /* lead F5 */
    expect_bad_train("a\nb\xff\n", 4, "not UTF-8");
    expect_bad_train("a\nb\x80\n", 4, "not UTF-8");                 /* lone continuation */
    expect_bad_train("a\nb\xc3 x\n", 6, "not UTF-8");               /* cut by a blank */
    expect_bad_train("a\nb\xe2\x82", 5, "not UTF-8");               /* cut by the end */
    expect_bad_train("a\nb\xe2\x82\xac\x80\n", 8, "byte offset 6"); /* after a good one */
}

/* A byte-order mark at the start of a file is refused, naming the file
 * (it would otherwise be glued to the first word); one inside the text is a
 * character like any other. */
static void test_bom(void **state)
{
    (void)state;
    char dir[600], path[700];
    make_corpus(dir, sizeof dir,
                "\xef\xbb\xbf"
                "a b\n",
                "a\n", "b\n");
    snprintf(path, sizeof path, "%s/train.txt", dir);
    expect_fail(dir, SBW_EDATA, (const char *[]){path, "starts with a byte-order mark", NULL});
    make_corpus(dir, sizeof dir, "a b\n", "a\n",
                "\xef\xbb\xbf"
                "b\n");
    snprintf(path, sizeof path, "%s/test.txt", dir);
    expect_fail(dir, SBW_EDATA, (const char *[]){path, "starts with a byte-order mark", NULL});
    make_corpus(dir, sizeof dir, "a b\xef\xbb\xbf\n", "a\n", "b\xef\xbb\xbf\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    size_t id;
    SBW_ASSERT_OK(sbw_corpus_lookup(c, "b\xef\xbb\xbf", &id));
    sbw_corpus_free(c);
}

/* Text read 1 MiB at a time: a character cut by a block's end is whole
 * once the next block arrives (never "not UTF-8"), and a bad byte past
 * the first block is reported with its own line and offset. */
static void test_blocks(void **state)
{
    (void)state;
    size_t mib = (size_t)1 << 20, n = 2 * mib + 64;
    char *t = malloc(n);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++)
        t[i] = (char)(i % 4 == 3 ? '\n' : i % 2 ? ' ' : 'a'); /* "a a\n" repeated */
    size_t at = mib - 2; /* "x€y" with € cut after its first byte */
    static const char cut[7] = {' ', 'x', '\xe2', '\x82', '\xac', 'y', ' '};
    memcpy(t + at - 1, cut, sizeof cut);
    t[n - 1] = '\n';
    char dir[600], path[700];
    fresh_dir(dir, sizeof dir);
    put_bytes(dir, "train.txt", t, n);
    put(dir, "valid.txt", "a\n");
    put(dir, "test.txt", "x\xe2\x82\xacy\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    size_t id;
    SBW_ASSERT_OK(sbw_corpus_lookup(c, "x\xe2\x82\xacy", &id));
    sbw_corpus_free(c);
    size_t bad = mib + (size_t)4 * 1000 + 1; /* inside line (mib + 4001) / 4 + 1 */
    char *u = malloc(n);
    assert_non_null(u);
    for (size_t i = 0; i < n; i++)
        u[i] = (char)(i % 4 == 3 ? '\n' : i % 2 ? ' ' : 'a');
    u[bad] = '\0';
    put_bytes(dir, "train.txt", u, n);
    snprintf(path, sizeof path, "%s/train.txt", dir);
    char line[64];
    snprintf(line, sizeof line, "line %zu has a NUL byte (byte %zu of the line)", bad / 4 + 1,
             bad % 4 + 1);
    expect_fail(dir, SBW_EDATA, (const char *[]){path, line, NULL});
    free(t);
    free(u);
}

/* A stop flag already set ends the load at once with SBW_EINTR naming the
 * file being read; nothing is returned. */
static void test_stop(void **state)
{
    (void)state;
    char dir[600];
    make_corpus(dir, sizeof dir, "a b\n", "a\n", "b\n");
    volatile sig_atomic_t stop = 2;
    sbw_corpus *c = (sbw_corpus *)1;
    assert_int_equal(sbw_corpus_load_stop(&c, dir, &stop), SBW_EINTR);
    assert_null(c);
    assert_non_null(strstr(sbw_error_reason(), "train.txt: interrupted while reading the corpus"));
    stop = 0;
    SBW_ASSERT_OK(sbw_corpus_load_stop(&c, dir, &stop));
    sbw_corpus_free(c);
}

/* An empty train/valid/test (no bytes, or blank lines only) and a
 * vocabulary of nothing but <eos>. */
static void test_empty(void **state)
{
    (void)state;
    const char *empties[] = {"", "\n\n", " \t\n"};
    const char *names[] = {"train.txt", "valid.txt", "test.txt"};
    char dir[600], path[700];
    for (int s = 0; s < 3; s++)
        for (int e = 0; e < 3; e++) {
            make_corpus(dir, sizeof dir, "a\n", "a\n", "a\n");
            put(dir, names[s], empties[e]);
            snprintf(path, sizeof path, "%s/%s", dir, names[s]);
            expect_fail(dir, SBW_EDATA, (const char *[]){path, "empty file", NULL});
        }
    make_corpus(dir, sizeof dir, "<eos>\n<eos> <eos>\n", "a\n", "a\n");
    snprintf(path, sizeof path, "%s/train.txt", dir);
    expect_fail(dir, SBW_EDATA, (const char *[]){path, "empty vocabulary", NULL});
    /* a literal <eos> is the end-of-sentence word: once written + 2 lines */
    make_corpus(dir, sizeof dir, "a <eos>\nb\n", "<eos>\n", "a\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    const char *words[] = {"<eos>", "a", "b"};
    assert_words(c, words, 3);
    SBW_ASSERT_EQ(c->count[0], (size_t)3);
    sbw_corpus_free(c);
}

/* Exact message for a word of valid/test outside the vocabulary: file and
 * line, the word escaped and cut at 40 bytes, the training file. */
static void expect_oov(const char *valid, const char *test, const char *bad_name, size_t line,
                       const char *shown)
{
    char dir[600], want[1600];
    make_corpus(dir, sizeof dir, "a b\nc\n", valid, test);
    snprintf(want, sizeof want, "%s/%s:%zu: word '%s' is not in the vocabulary of %s/train.txt",
             dir, bad_name, line, shown, dir);
    sbw_corpus *c = NULL;
    assert_int_equal(sbw_corpus_load(&c, dir), SBW_EDATA);
    assert_null(c);
    assert_string_equal(sbw_error_reason(), want);
}

static void test_oov(void **state)
{
    (void)state;
    expect_oov("a\nb zz c\n", "a\n", "valid.txt", 2, "zz");
    expect_oov("a\n", "a\n\n\nA\n", "test.txt", 4, "A");
    expect_oov("x\x01y\x1f\x7f\n", "a\n", "valid.txt", 1, "x\\x01y\\x1f\\x7f");
    expect_oov("it's\\\n", "a\n", "valid.txt", 1, "it\\'s\\\\");
    expect_oov("\xc2\x85z\n", "a\n", "valid.txt", 1, "\\u{0085}z"); /* C1 control NEL */
    /* 45 bytes: the first 40 and "..." */
    expect_oov("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS\n", "a\n", "valid.txt", 1,
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN...");
    /* 39 ASCII bytes then a 2-byte character: cut before it, not inside */
    expect_oov("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM\xc3\xa9\n", "a\n", "valid.txt", 1,
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM...");
    /* invisible and bidirectional characters shown as \\u{XXXX} (sbw_error_escape) */
    expect_oov("w\xe2\x80\x8bx\n", "a\n", "valid.txt", 1, "w\\u{200B}x"); /* zero-width space */
    expect_oov("\xe2\x80\xae"
               "cba\n",
               "a\n", "valid.txt", 1, "\\u{202E}cba");                     /* RLO */
    expect_oov("a\n\xef\xbb\xbfq\n", "a\n", "valid.txt", 2, "\\u{FEFF}q"); /* BOM inside */
    expect_oov("\xe2\x81\xa6x\xe2\x81\xa9\n", "a\n", "valid.txt", 1,
               "\\u{2066}x\\u{2069}"); /* isolate */
    /* exactly 40 bytes: not cut */
    expect_oov("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN\n", "a\n", "valid.txt", 1,
               "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN");
}

/* Every word finds its id; near misses do not. */
static void test_lookup(void **state)
{
    (void)state;
    char dir[600];
    make_corpus(dir, sizeof dir, "ab a abc\nb\n", "a\n", "a\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    size_t id = 99;
    for (size_t i = 0; i < c->nwords; i++) {
        SBW_ASSERT_OK(sbw_corpus_lookup(c, c->words[i], &id));
        SBW_ASSERT_EQ(id, i);
    }
    const char *miss[] = {"", "abcd", "A", "a ", " a", "<eos", "<eos> ", "\xc3\xa9"};
    for (size_t i = 0; i < sizeof miss / sizeof *miss; i++) {
        id = 99;
        assert_int_equal(sbw_corpus_lookup(c, miss[i], &id), SBW_EINVAL);
        SBW_ASSERT_EQ(id, (size_t)99);
    }
    assert_non_null(strstr(sbw_error_reason(), "not in the vocabulary"));
    assert_int_equal(sbw_corpus_lookup(NULL, "a", &id), SBW_EINVAL);
    assert_int_equal(sbw_corpus_lookup(c, NULL, &id), SBW_EINVAL);
    assert_int_equal(sbw_corpus_lookup(c, "a", NULL), SBW_EINVAL);
    sbw_corpus_free(c);
}

/* A small deterministic generator (LCG, Numerical Recipes' constants). */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Brute-force twin of the vocabulary: distinct tokens by linear search in
 * order of first appearance, then a stable insertion sort by count. */
typedef struct naive_word {
    char text[16];
    size_t count, first;
} naive_word;

static size_t naive_find(const naive_word *w, size_t n, const char *t)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(w[i].text, t) == 0)
            return i;
    return n;
}

static size_t naive_vocab(const char *const *tok, size_t ntok, naive_word *w)
{
    size_t n = 0;
    for (size_t t = 0; t < ntok; t++) {
        size_t i = naive_find(w, n, tok[t]);
        if (i == n) {
            snprintf(w[n].text, sizeof w[n].text, "%s", tok[t]);
            w[n].count = 0;
            w[n].first = t;
            n++;
        }
        w[i].count++;
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && w[j - 1].count < w[j].count; j--) {
            naive_word tmp = w[j];
            w[j] = w[j - 1];
            w[j - 1] = tmp;
        }
    return n;
}

/* A random text of nline lines over a Zipf-ish vocabulary of up to nvoc
 * words ("w0", "w1", ...), written to path and returned as tokens (with
 * "<eos>"); the token strings live in store (16 bytes each). */
static size_t random_text(const char *path, uint32_t *seed, size_t nline, size_t nvoc, char *store,
                          size_t cap)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    size_t ntok = 0;
    for (size_t l = 0; l < nline; l++) {
        size_t nw = lcg(seed) % 7; /* 0..6 words: some empty lines */
        for (size_t k = 0; k <= nw; k++) {
            assert_true(ntok < cap);
            char *t = store + 16 * ntok++;
            if (k == nw) {
                strcpy(t, "<eos>");
                break;
            }
            size_t r = lcg(seed) % nvoc;
            snprintf(t, 16, "w%u", (unsigned)(r * r / nvoc)); /* small ids more likely */
            fprintf(f, "%s%s", k ? (lcg(seed) % 2 ? " " : "\t ") : "", t);
        }
        fputc('\n', f);
    }
    assert_int_equal(fclose(f), 0);
    return ntok;
}

/* The loader against the brute-force twin on random texts, many ties and
 * enough words to make the table grow several times. */
static void test_against_twin(void **state)
{
    (void)state;
    enum { CAP = 80000 }; /* at most 8,000 lines of at most 7 tokens */
    char *store = malloc(16 * (size_t)CAP);
    const char **tok = malloc(CAP * sizeof *tok);
    naive_word *w = malloc(CAP * sizeof *w);
    assert_true(store && tok && w);
    uint32_t seed = 12345;
    const size_t nvoc[] = {3, 50, 3000};
    for (int rep = 0; rep < 3; rep++) {
        char dir[600], path[700];
        fresh_dir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/train.txt", dir);
        size_t ntok = random_text(path, &seed, 2000 + 3000 * (size_t)rep, nvoc[rep], store, CAP);
        put(dir, "valid.txt", "w0\n");
        put(dir, "test.txt", "w0\n");
        for (size_t t = 0; t < ntok; t++)
            tok[t] = store + 16 * t;
        size_t n = naive_vocab(tok, ntok, w);
        sbw_corpus *c = NULL;
        SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
        SBW_ASSERT_EQ(c->nwords, n);
        SBW_ASSERT_EQ(c->len[SBW_CORPUS_TRAIN], ntok);
        for (size_t i = 0; i < n; i++) {
            assert_string_equal(c->words[i], w[i].text);
            SBW_ASSERT_EQ(c->count[i], w[i].count);
        }
        for (size_t t = 0; t < ntok; t++)
            assert_string_equal(c->words[c->ids[SBW_CORPUS_TRAIN][t]], tok[t]);
        sbw_corpus_free(c);
    }
    free(store);
    free(tok);
    free(w);
}

static void read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The vocabulary file is one word a line in id order; a bad path fails. */
static void test_write_vocab(void **state)
{
    (void)state;
    char dir[600], path[700], buf[256];
    make_corpus(dir, sizeof dir, "z y\ny x \xc3\xa9\n", "x\n", "y\n");
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    SBW_ASSERT_OK(sbw_corpus_write_vocab(c, path));
    read_text(path, buf, sizeof buf);
    /* y 2, <eos> 2 (y first), then z, x, é once each in order */
    assert_string_equal(buf, "y\n<eos>\nz\nx\n\xc3\xa9\n");
    size_t id = 0, i = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"), i++) {
        SBW_ASSERT_OK(sbw_corpus_lookup(c, line, &id));
        SBW_ASSERT_EQ(id, i);
    }
    SBW_ASSERT_EQ(i, c->nwords);
    snprintf(path, sizeof path, "%s/no/such/vocab.txt", dir);
    assert_int_equal(sbw_corpus_write_vocab(c, path), SBW_EIO);
    assert_non_null(strstr(sbw_error_reason(), path));
    assert_int_equal(sbw_corpus_write_vocab(c, "/dev/full"), SBW_EIO);
    sbw_corpus_free(c);
}

static uint64_t hash_of(const char *train, const char *valid, const char *test)
{
    char dir[600];
    make_corpus(dir, sizeof dir, train, valid, test);
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    uint64_t h = c->hash;
    sbw_corpus_free(c);
    return h;
}

/* The same data gives the same hash (in another directory, with other
 * blanks); one token changed, moved or re-split changes it. */
static void test_hash(void **state)
{
    (void)state;
    uint64_t h = hash_of("a b c\nb c\n", "a b\n", "c\n");
    SBW_ASSERT_EQ(hash_of("a b c\nb c\n", "a b\n", "c\n"), h);
    SBW_ASSERT_EQ(hash_of("a  b\tc\nb c", "a b\n", "c"), h);
    SBW_ASSERT_NE(hash_of("a b c\nb c\n", "a c\n", "c\n"), h); /* one valid token */
    SBW_ASSERT_NE(hash_of("a b c\nb c\n", "a b\n", "b\n"), h); /* one test token */
    SBW_ASSERT_NE(hash_of("a b c\nb c\n", "b a\n", "c\n"), h); /* order */
    /* the same ids in a row, only the valid/test boundary moved */
    uint64_t h2 = hash_of("a b c\nb c\n", "a\nb\n", "c\n");
    SBW_ASSERT_NE(hash_of("a b c\nb c\n", "a\n", "b\nc\n"), h2);
    SBW_ASSERT_NE(hash_of("a b d\nb d\n", "a b\n", "d\n"), h);   /* a word renamed */
    SBW_ASSERT_NE(hash_of("a b c\nb c\n", "a b\n\n", "c\n"), h); /* one more <eos> */
}

/* Real PTB (Mikolov's split), when present ($SBW_PTB or
 * /work/shared/data/ptb).  Expected sizes: wc -w + wc -l of each file
 * (887,521 + 42,068; 70,390 + 3,370; 78,669 + 3,761) and the 10,000-word
 * vocabulary the split is known for; the three most frequent words from
 * `tr ' ' '\n' | sort | uniq -c | sort -rn` (the 50,770, <unk> 45,020,
 * <eos> = 42,068 lines). */
static void test_ptb(void **state)
{
    (void)state;
    const char *dir = getenv("SBW_PTB");
    if (!dir || !*dir)
        dir = "/work/shared/data/ptb";
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        print_message("PTB not found at %s (set SBW_PTB): skipped\n", dir);
        skip();
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sbw_corpus *c = NULL;
    SBW_ASSERT_OK(sbw_corpus_load(&c, dir));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    print_message("PTB loaded in %.3f s\n", sec);
    SBW_ASSERT_LT(sec, 5.0); /* well under 1 s when idle; loose for a loaded machine or ASan */
    SBW_ASSERT_EQ(c->nwords, (size_t)10000);
    SBW_ASSERT_EQ(c->len[SBW_CORPUS_TRAIN], (size_t)929589);
    SBW_ASSERT_EQ(c->len[SBW_CORPUS_VALID], (size_t)73760);
    SBW_ASSERT_EQ(c->len[SBW_CORPUS_TEST], (size_t)82430);
    SBW_ASSERT_EQ(c->lines[SBW_CORPUS_TRAIN], (size_t)42068);
    assert_string_equal(c->words[0], "the");
    assert_string_equal(c->words[1], "<unk>");
    assert_string_equal(c->words[2], "<eos>");
    SBW_ASSERT_EQ(c->count[0], (size_t)50770);
    SBW_ASSERT_EQ(c->count[2], (size_t)42068);
    size_t total = 0;
    for (size_t i = 0; i < c->nwords; i++) {
        total += c->count[i];
        if (i)
            SBW_ASSERT_LE(c->count[i], c->count[i - 1]);
    }
    SBW_ASSERT_EQ(total, c->len[SBW_CORPUS_TRAIN]);
    sbw_corpus_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_ids), cmocka_unit_test(test_eos_and_blank_lines),
        cmocka_unit_test(test_utf8_words),    cmocka_unit_test(test_naming_schemes),
        cmocka_unit_test(test_missing_files), cmocka_unit_test(test_bad_bytes),
        cmocka_unit_test(test_empty),         cmocka_unit_test(test_oov),
        cmocka_unit_test(test_lookup),        cmocka_unit_test(test_against_twin),
        cmocka_unit_test(test_write_vocab),   cmocka_unit_test(test_hash),
        cmocka_unit_test(test_ptb),           cmocka_unit_test(test_bom),
        cmocka_unit_test(test_blocks),        cmocka_unit_test(test_stop),
    };
    return cmocka_run_group_tests_name("lm_corpus", tests, NULL, NULL);
}
