/* sbw_corpus.h -- a word-level corpus for a language model: the
 * vocabulary of the training file and the three splits as word ids.
 *
 * A data directory holds train.txt, valid.txt, test.txt, or
 * ptb.train.txt, ptb.valid.txt, ptb.test.txt (Mikolov's Penn Treebank
 * split): one sentence a line, words separated by blanks (space or tab),
 * and "<eos>" appended to every line (so a line of n words is n + 1
 * tokens; an empty line is one "<eos>").  The vocabulary is every
 * distinct word of the training split (with "<eos>"), ordered by
 * frequency in the training split, most frequent first, ties by first
 * appearance: id 0 is the most frequent word.  valid and test must use
 * only vocabulary words (PTB already maps rare words to "<unk>").
 *
 * Bad data (SBW_EDATA or SBW_EIO, one line naming the file and the
 * problem): a missing split (the message names both names looked for), an
 * empty file (no words), a carriage return (CRLF text: "line L has a
 * carriage return"), bytes that are not UTF-8 (line L, byte offset), a
 * NUL byte, a UTF-8 byte-order mark at the start of a file (refused, not
 * stripped: it would otherwise be glued to the first word, and a file
 * that has one was written by a tool whose other conventions deserve a
 * look), a word in valid or test that is not in the vocabulary
 * ("FILE:L: word 'xyz' is not in the vocabulary of TRAIN", the word cut at
 * 40 bytes; sbw_error_escape shows control characters as \xNN and
 * invisible or bidirectional ones (sbw_utf8_invisible) as \u{XXXX}), an empty
 * vocabulary.
 *
 * The bytes are checked as they are read, 1 MiB at a time, so a bad byte
 * near the start of a 2 GB file fails at once; a file (or a pipe) grows
 * its buffer only after the memory preflight (sbw_preflight_memory,
 * SBW_MAX_MEMORY) allows it.
 */
#ifndef SBW_CORPUS_H
#define SBW_CORPUS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

enum sbw_corpus_split {
    SBW_CORPUS_TRAIN = 0,
    SBW_CORPUS_VALID,
    SBW_CORPUS_TEST,
    SBW_CORPUS_NSPLIT
};

typedef struct sbw_corpus {
    size_t nwords;                   /* vocabulary size M */
    char **words;                    /* (nwords) id -> word, owned */
    size_t *count;                   /* (nwords) occurrences in train, owned */
    size_t *ids[SBW_CORPUS_NSPLIT];  /* token ids of each split, owned */
    size_t len[SBW_CORPUS_NSPLIT];   /* tokens of each split */
    size_t lines[SBW_CORPUS_NSPLIT]; /* sentences (lines) of each split */
    char *path[SBW_CORPUS_NSPLIT];   /* the file each split came from, owned */
    uint64_t hash;                   /* FNV-1a 64 of the vocabulary and every split's ids: a
                                        checkpoint's fingerprint of its data */
    struct sbw_corpus_index *index;  /* word -> id lookup, private */
} sbw_corpus;

/* Name of a split: "train", "valid", "test". */
const char *sbw_corpus_split_name(enum sbw_corpus_split s);

/* Reads dir's three splits (see above).  *out is NULL on failure.
 * Errors: SBW_EIO (missing/unreadable file), SBW_EDATA (the bad data
 * above), SBW_ENOMEM.  PTB (1M tokens) loads in well under a second. */
int sbw_corpus_load(sbw_corpus **out, const char *dir);

/* sbw_corpus_load that polls *stop (NULL: never) between blocks read and
 * every 2^20 tokens split: once it is set (sbw-lm train's graceful SIGINT
 * flag), the load ends with SBW_EINTR "FILE: interrupted while reading the
 * corpus" and frees what it read.  Errors: those of sbw_corpus_load,
 * SBW_EINTR, SBW_EINVAL (no out pointer, an empty dir); *out is NULL on
 * failure. */
int sbw_corpus_load_stop(sbw_corpus **out, const char *dir, const volatile sig_atomic_t *stop);

/* Frees; NULL is a no-op. */
void sbw_corpus_free(sbw_corpus *c);

/* The id of word (NUL-terminated) into *id.  Errors: SBW_EINVAL when the
 * word is not in the vocabulary (no reason recorded is fine too: the
 * caller words the message); *id untouched on failure. */
int sbw_corpus_lookup(const sbw_corpus *c, const char *word, size_t *id);

/* Writes the vocabulary, one word a line in id order, to path ("-" is
 * stdout) through sbw_file (temporary + rename).  Errors: SBW_EIO. */
int sbw_corpus_write_vocab(const sbw_corpus *c, const char *path);

#endif
