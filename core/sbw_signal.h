/* sbw_signal.h -- what a tool does when a signal arrives.
 *
 * SIGINT, SIGTERM (and SIGHUP and SIGPIPE, unless ignored when the tool
 * started, as under nohup): the registered cleanup runs (sbw_file's:
 * every tracked temporary is removed, sbw_signal_set_cleanup) and the tool dies of the same signal,
 * so the shell sees 130, 143 (129, 141: a reader of stdout that went away). In the graceful mode of
 * a long run (sbw_signal_graceful: sbw-fit, sbw-lm) the first such signal only sets a flag that the
 * run polls; it then saves its work and ends with SBW_EINTR (exit 130); a second signal cleans up
 * and dies at once.  SIGPIPE is never graceful.
 *
 * SIGBUS at an address inside a mapped view (sbw_signal_map_add: a file
 * that shrank while it was mapped) prints one line, "TOOL: FILE: truncated
 * while reading (the file shrank while it was mapped)" (FILE's control
 * characters escaped as \xNN, as in every error reason), removes the
 * temporaries and exits 1.  Any other SIGBUS takes its default action.
 * A signal may be taken by any thread (OpenMP and OpenBLAS workers too):
 * the cleanup waits for entries being filled, and a second signal on
 * another thread waits for the first to end the tool (sbw_file.h).
 *
 * Everything here is process-wide; the handlers only use async-signal-safe
 * calls on fixed tables (no allocation, no locks).
 */
#ifndef SBW_SIGNAL_H
#define SBW_SIGNAL_H

#include <signal.h>
#include <stddef.h>

/* Registers fn as the cleanup every handler above runs before the tool
 * dies (sbw_file registers its table's, sbw_file_cleanup(true), when it
 * first tracks a temporary; this module knows nothing of files).  fn must
 * be async-signal-safe.  One per process: a later call replaces it; NULL
 * unregisters.  Thread-safe. */
void sbw_signal_set_cleanup(void (*fn)(void));

/* Installs the handlers above.  tool names the program in messages (the
 * pointer is kept: a string literal or argv).  Called by sbw_cli_parse, so
 * every tool has them; calling it again only changes the name. */
void sbw_signal_install(const char *tool);

/* Switches SIGINT/SIGTERM/SIGHUP to the graceful mode described above and
 * returns the flag the first signal sets (to its number; one per process). */
volatile sig_atomic_t *sbw_signal_graceful(void);

/* Leaves the graceful mode once the run stops polling (sbw-fit before it
 * writes its outputs): a signal that came since the last poll takes effect
 * now -- temporaries removed, the tool dies of it -- and later ones at
 * once, so no output is committed after a stop was asked for. */
void sbw_signal_graceful_end(void);

/* Views of mapped files: [addr, addr + len) is a mapping of path (copied,
 * control characters escaped, cut at PATH_MAX bytes).  Returns a slot > 0
 * for sbw_signal_map_remove, or 0 when the table is full: the caller then
 * reads the file instead of mapping it.  Thread-safe; installs the SIGBUS
 * handler the first time. */
int sbw_signal_map_add(const void *addr, size_t len, const char *path);

/* Forgets a view before it is unmapped; 0 is a no-op. */
void sbw_signal_map_remove(int slot);

/* Holds SIGINT, SIGTERM and SIGHUP in the calling thread (the old mask in
 * *old) around a step that must not be cut in two -- creating a temporary
 * and tracking it, renaming several files into place; sbw_signal_release
 * restores the mask, and a signal that came meanwhile is handled then. */
void sbw_signal_hold(sigset_t *old);
void sbw_signal_release(const sigset_t *old);

/* In a child between fork and exec: the stop signals this module catches
 * go back to their default action (ignored ones stay ignored), so a signal
 * before the exec kills the child without its copy of the cleanup table
 * removing the parent's temporaries. */
void sbw_signal_child(void);

/* Test hook (the test interface: docs/DESIGN.md): when the environment has
 * SBW_TEST_STOP=point, the first call with that point stops the process
 * (SIGSTOP), so a test can send a signal or shrink a file at a known moment
 * and then SIGCONT it; once continued, the caller waits 0.2 s, so that a
 * signal sent meanwhile is handled (on whichever thread takes it) before the
 * tool goes on.  Points: "temp" (a temporary output was just created), "map"
 * (a view was just mapped). */
void sbw_signal_test_point(const char *point);

#endif
