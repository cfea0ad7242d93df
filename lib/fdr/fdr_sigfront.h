/* Our crash handler in front of the program's own (fdr_sigfront.c): while
 * snapshot_on_crash is on, the program's sigaction() and signal() record
 * its action instead of replacing ours, and a crash runs that action after
 * the snapshot, as the kernel would have. */
#ifndef XR_FDR_SIGFRONT_H
#define XR_FDR_SIGFRONT_H

#include "core/base/common.h"

#include <signal.h>

/* The libc sigaction (or a sanitizer's, when one intercepts it), never the
 * interposer: every call the runtime itself makes. */
XR_HIDDEN int xr_sigfront_next(int signo, const struct sigaction *act,
                               struct sigaction *old);

/* Control path. Puts `ours` in front of signo: the current action becomes
 * the program's (returned in prog), ours goes to the kernel (unless the
 * program ignores the signal: an ignored signal stays with the kernel).
 * 0, or -1 with errno. */
XR_HIDDEN int xr_sigfront_take(int signo, const struct sigaction *ours,
                               struct sigaction *prog);
/* Control path: the program's action back to the kernel (when ours is still
 * there), and its sigaction() calls pass straight through again. */
XR_HIDDEN void xr_sigfront_release(int signo);

/* Signal handler side (async-signal-safe). The program's action now. */
XR_HIDDEN void xr_sigfront_program(int signo, struct sigaction *prog);
/* Runs the program's handler `prog` as the kernel would have delivered it:
 * SA_SIGINFO or not, its sa_mask (plus signo unless SA_NODEFER) over the
 * interrupted mask, SA_RESETHAND. Returns when the handler does. */
XR_HIDDEN void xr_sigfront_run(int signo, const struct sigaction *prog,
                               siginfo_t *info, void *context);
/* The program's action (SIG_DFL or SIG_IGN) goes to the kernel now: the
 * crash goes on without us. */
XR_HIDDEN void xr_sigfront_give_back(int signo);

/* An action whose handler is a function (not SIG_DFL or SIG_IGN); one
 * that ignores the signal. */
XR_HIDDEN bool xr_sigfront_is_function(const struct sigaction *a);
XR_HIDDEN bool xr_sigfront_is_ignore(const struct sigaction *a);

/* Fork child: a lock another thread held at the fork is free. */
XR_HIDDEN void xr_sigfront_fork_child(void);

/* A crash signal's name ("SIGSEGV"), or "signal". */
XR_HIDDEN const char *xr_fdr_signal_name(int signo);

#endif
