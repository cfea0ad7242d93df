/* FDR snapshot triggers (fdr_triggers.c): the API, a signal, a crash, and
 * the normal slot's owner they and the slow-call trigger share. */
#ifndef XR_FDR_TRIGGERS_H
#define XR_FDR_TRIGGERS_H

#include "core/base/common.h"

/* The normal slot's owner: a try-lock (never waits) taken by the API, the
 * signal trigger and the slow-call trigger. */
XR_HIDDEN bool xr_fdr_snapshot_trylock(void);
XR_HIDDEN void xr_fdr_snapshot_unlock(void);
/* A signal trigger that found the lock taken leaves its snapshot here (at
 * most one is owed); the owner takes it before it lets go
 * (xr_fdr_snapshot_drain). */
XR_HIDDEN void xr_fdr_snapshot_defer_signal(int signo);
/* Takes every deferred signal snapshot; called with the lock not held. */
XR_HIDDEN void xr_fdr_snapshot_drain(void);

/* Fork child: no snapshot runs here (its thread does not exist). */
XR_HIDDEN void xr_fdr_triggers_fork_child(void);

/* What fdr_mode.c asks of the triggers, from its options. */
struct fdr_trigger_options {
  int signo;          /* snapshot_signal, 0 = none */
  bool on_crash;      /* snapshot_on_crash */
  int32_t slow_us;    /* snapshot_if_slower_than_us, 0 = off */
  int32_t slow_function; /* snapshot_function, id; 0 = any */
  int32_t min_interval_ms;
};
/* Parses a signal name (SIGUSR2, USR2) or number; 0 and a message for one
 * that cannot trigger snapshots. */
XR_HIDDEN int xr_fdr_parse_signal(const char *text);
/* After init: installs the handlers the options ask for. */
XR_HIDDEN void xr_fdr_triggers_install(const struct fdr_trigger_options *o);
/* At finalize: gives each signal back its previous disposition (when ours is
 * still installed). */
XR_HIDDEN void xr_fdr_triggers_remove(void);
/* A thread's first event, with crash snapshots on: gives it an alternate
 * signal stack (so a stack overflow is caught) unless it has one. */
XR_HIDDEN void xr_fdr_triggers_thread_start(void);
XR_HIDDEN void xr_fdr_triggers_thread_exit(void);

#endif
