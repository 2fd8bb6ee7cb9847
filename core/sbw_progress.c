/* sbw_progress.c -- a progress bar (terminal) or periodic lines (logs). */
#include "sbw_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double sbw_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sbw_progress_start(sbw_progress *p, const char *label, const char *unit, double total,
                        bool quiet)
{
    *p = (sbw_progress){.label = label, .unit = unit, .total = total, .quiet = quiet, .f = stderr};
    p->tty = isatty(fileno(stderr)) != 0;
    p->interval = p->tty ? 0.1 : 5.0;
    const char *every = getenv("SBW_TEST_PROGRESS"); /* the test interface (DESIGN.md) */
    if (every && strcmp(every, "1") == 0)
        p->interval = 0; /* a line at every update: short test runs show their progress */
    p->t_start = p->t_last = sbw_progress_now();
}

static void format_secs(double s, char *buf, size_t cap)
{
    if (s < 0 || s != s)
        snprintf(buf, cap, "?");
    else if (s < 100)
        snprintf(buf, cap, "%.0fs", s);
    else if (s < 6000)
        snprintf(buf, cap, "%ldm%02lds", (long)s / 60, (long)s % 60);
    else
        snprintf(buf, cap, "%.1fh", s / 3600);
}

/* What the line ends with: "ETA 4m10s" while running, "ETA 0s" on the
 * final line of finished work, "stopped" on the final line of work that
 * ended before its total (an interrupted run: no time is left to wait). */
static void format_eta(const sbw_progress *p, double rate, bool final, char *buf, size_t cap)
{
    char t[32];
    if (final) {
        snprintf(buf, cap, "%s", p->done < p->total ? "stopped" : "ETA 0s");
        return;
    }
    format_secs(rate > 0 && p->total > 0 ? (p->total - p->done) / rate : -1, t, sizeof t);
    snprintf(buf, cap, "ETA %s", t);
}

static void draw(sbw_progress *p, double now, bool final)
{
    double el = now - p->t_start, rate = el > 0 ? p->done / el : 0;
    double frac = p->total > 0 ? p->done / p->total : 0;
    char eta[48], elapsed[32];
    format_eta(p, rate, final, eta, sizeof eta);
    format_secs(el, elapsed, sizeof elapsed);
    if (p->tty) {
        char bar[31];
        int fill = (int)(frac * 30.0 + 0.5);
        for (int i = 0; i < 30; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        fprintf(p->f, "\r%s [%s] %5.1f%% %.4g %s/s %s%s%s   ", p->label, bar, 100 * frac, rate,
                p->unit, eta, p->note[0] ? " " : "", p->note);
    } else {
        fprintf(p->f, "%s: %.0f/%.0f %s (%.1f%%) %.4g %s/s elapsed %s %s%s%s\n", p->label, p->done,
                p->total, p->unit, 100 * frac, rate, p->unit, elapsed, eta, p->note[0] ? " " : "",
                p->note);
    }
    if (final && p->tty)
        fprintf(p->f, "\n");
    fflush(p->f);
    p->drawn = true;
}

void sbw_progress_note(sbw_progress *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* clang-analyzer 14 misses the va_start above (a known false positive). */
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized)
    vsnprintf(p->note, sizeof p->note, fmt, ap);
    va_end(ap);
}

void sbw_progress_update(sbw_progress *p, double done)
{
    p->done = done;
    if (p->quiet)
        return;
    double now = sbw_progress_now();
    if (now - p->t_last < p->interval)
        return;
    p->t_last = now;
    draw(p, now, false);
}

void sbw_progress_finish(sbw_progress *p)
{
    bool first = !p->finished;
    p->finished = true;
    if (p->quiet || !p->drawn || !first)
        return; /* short jobs finish silently */
    draw(p, sbw_progress_now(), true);
}

void sbw_progress_stage(void *progress, const char *what, size_t size)
{
    sbw_progress *p = progress;
    sbw_progress_finish(p);
    if (!p->quiet && size >= 2000) {
        fprintf(p->f, "%s: %s...\n", p->label, what);
        fflush(p->f);
    }
}
