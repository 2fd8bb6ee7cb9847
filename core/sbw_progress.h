/* sbw_progress.h -- progress of long work on stderr.
 *
 * On a terminal: a bar redrawn in place at most 10 times a second, with
 * the rate and the estimated time left.  Otherwise (a log file, CI): one
 * line every few seconds.  Silent when quiet.  Call sbw_progress_update
 * from one thread (the one that owns p); it is cheap enough for every row
 * block.
 */
#ifndef SBW_PROGRESS_H
#define SBW_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct sbw_progress {
    const char *label; /* "sbw-synth: rows" */
    const char *unit;  /* "rows" */
    double total;      /* 0 when unknown */
    double done;
    double t_start, t_last;
    bool quiet, tty, drawn, finished;
    double interval; /* seconds between lines when not a terminal */
    FILE *f;
    char note[96]; /* shown after the ETA ("train ppl 123.4"); "" for none */
} sbw_progress;

/* Starts reporting; total may be 0 (unknown). */
void sbw_progress_start(sbw_progress *p, const char *label, const char *unit, double total,
                        bool quiet);

/* Records that done units (cumulative) are finished; draws when due. */
void sbw_progress_update(sbw_progress *p, double done);

/* Sets the note shown after the ETA (printf-style; truncated to 95 bytes). */
void sbw_progress_note(sbw_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Draws the final state and ends the line; later calls do nothing. */
void sbw_progress_finish(sbw_progress *p);

/* Ends the bar and announces a stage that reports no progress of its own
 * (a LAPACK call, say): "LABEL: what..." on stderr unless quiet or the
 * stage is small (size < 2000).  progress is an sbw_progress *; the
 * signature fits stage callbacks void (*)(void *, const char *, size_t). */
void sbw_progress_stage(void *progress, const char *what, size_t size);

/* Seconds on the monotonic clock. */
double sbw_progress_now(void);

#endif
