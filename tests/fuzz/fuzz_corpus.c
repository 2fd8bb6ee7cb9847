/* fuzz_corpus.c -- the word-level corpus reader of lm/sbw_corpus (PTB
 * text: train, valid, test) on fuzzed text: the input is train.txt, then
 * after a line "%%" valid.txt, then after another test.txt; a split the
 * input lacks is absent from the folder (the missing-file path).  Then
 * every word is looked up and the vocabulary written out.
 *
 * Properties: a failure leaves a reason; a corpus read has at least two
 * words ("<eos>" and one more), ids below the vocabulary size, counts
 * that sum to the training split's length and never increase along the
 * vocabulary (most frequent first), every word found again at its own
 * id, at least one token per line in each split; no split read starts
 * with a byte-order mark, holds a NUL or a CR; a load whose stop flag is
 * already set fails with SBW_EINTR and returns nothing.
 */
#include "fuzz_util.h"

#include "sbw_corpus.h"
#include "sbw_error.h"

static void check_corpus(const sbw_corpus *c)
{
    FUZZ_REQUIRE(c->nwords >= 2);
    size_t total = 0;
    for (size_t i = 0; i < c->nwords; i++) {
        size_t id = c->nwords;
        FUZZ_REQUIRE(sbw_corpus_lookup(c, c->words[i], &id) == SBW_OK && id == i);
        FUZZ_REQUIRE(i == 0 || c->count[i] <= c->count[i - 1]);
        total += c->count[i];
    }
    FUZZ_REQUIRE(total == c->len[SBW_CORPUS_TRAIN]);
    for (int s = 0; s < SBW_CORPUS_NSPLIT; s++) {
        FUZZ_REQUIRE(c->len[s] >= c->lines[s]);
        for (size_t k = 0; k < c->len[s]; k++)
            FUZZ_REQUIRE(c->ids[s][k] < c->nwords);
    }
    size_t id;
    if (sbw_corpus_lookup(c, "no such\tword", &id) == SBW_OK)
        FUZZ_REQUIRE(0);
    char path[512];
    fuzz_file("vocab.txt", (const uint8_t *)"", 0, path, sizeof path);
    FUZZ_REQUIRE(sbw_corpus_write_vocab(c, path) == SBW_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[SBW_CORPUS_NSPLIT] = {"train.txt", "valid.txt", "test.txt"};
    const uint8_t *part[SBW_CORPUS_NSPLIT] = {0};
    size_t len[SBW_CORPUS_NSPLIT] = {0};
    size_t n = fuzz_split(data, size, part, len, SBW_CORPUS_NSPLIT);
    char path[512];
    for (size_t s = 0; s < SBW_CORPUS_NSPLIT; s++) {
        fuzz_file(names[s], s < n ? part[s] : data, s < n ? len[s] : 0, path, sizeof path);
        if (s >= n)
            unlink(path);
    }
    sbw_corpus *c = NULL;
    int st = sbw_corpus_load(&c, fuzz_dir());
    if (st) {
        FUZZ_REQUIRE(c == NULL && sbw_error_reason()[0] != '\0');
        return 0;
    }
    check_corpus(c);
    sbw_corpus_free(c);
    for (size_t s = 0; s < n && s < SBW_CORPUS_NSPLIT; s++) {
        FUZZ_REQUIRE(!(len[s] >= 3 && memcmp(part[s], "\xef\xbb\xbf", 3) == 0));
        FUZZ_REQUIRE(!memchr(part[s], '\0', len[s]) && !memchr(part[s], '\r', len[s]));
    }
    volatile sig_atomic_t stop = 1;
    c = (sbw_corpus *)&stop;
    FUZZ_REQUIRE(sbw_corpus_load_stop(&c, fuzz_dir(), &stop) == SBW_EINTR && c == NULL);
    return 0;
}
