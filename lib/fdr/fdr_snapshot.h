/* FDR snapshots: every thread's buffers written to a new file while the
 * writers go on (fdr_snapshot.c), and the triggers that take them: the API,
 * a signal, a crash, a slow call (fdr_triggers.c). */
#ifndef XR_FDR_SNAPSHOT_H
#define XR_FDR_SNAPSHOT_H

#include "core/common.h"
#include "xray/xray_fdr.h"

/* Why a snapshot is taken; written into the file's metadata line. */
enum xr_fdr_snapshot_kind {
  XR_SNAP_API,
  XR_SNAP_SIGNAL,
  XR_SNAP_CRASH,
  XR_SNAP_SLOW_CALL
};
struct xr_fdr_snapshot_why {
  enum xr_fdr_snapshot_kind kind;
  int signo;            /* signal and crash */
  int32_t function;     /* slow call: function id */
  uint64_t duration_us; /* slow call: how long it took */
};

/* Two sets of scratch memory (the buffer order) exist, so that a crash can
 * write while another snapshot is half done: the crash uses its own. */
enum xr_fdr_snapshot_slot { XR_SNAP_SLOT_NORMAL, XR_SNAP_SLOT_CRASH };

/* Control path (fdr_init, not a signal handler): computes the file name
 * prefix `<base><program>.<suffix>.snap` once per process. */
XR_HIDDEN void xr_fdr_snapshot_prepare(void);

/* Writes one snapshot. Async-signal-safe: system calls only (open, writev,
 * lseek, ftruncate, getrlimit, clock_gettime), no allocation, no lock, no
 * stdio (messages are formatted by hand and written raw). The caller owns
 * `slot` (no other snapshot uses it meanwhile). path may be NULL. */
XR_HIDDEN XRaySnapshotStatus xr_fdr_snapshot_write(
    const struct xr_fdr_snapshot_why *why, enum xr_fdr_snapshot_slot slot,
    char *path, size_t path_size);

/* Ends the snapshot `name` (open read-write as fd, `size` bytes, as
 * fdr_snapshot.c wrote it: one block per buffer, the largest `largest`
 * bytes): version 5 is joined per thread as the exit-time log
 * (fdr_snapshot_log.c) through `<name>.tmp` renamed over it; otherwise, or
 * when that fails, the header declares the largest block when it exceeds
 * buffer_size. scratch: the slot's scratch area, whose first max_spans
 * entries may hold the blocks. 0, or -1 with errno when the join failed
 * (the file is then as written). Async-signal-safe. */
XR_HIDDEN int xr_fdr_snapshot_finish(int fd, uint64_t size, const char *name,
                                     int version, uint64_t largest,
                                     uint8_t *scratch, size_t max_spans,
                                     uint64_t limit);

/* Control path (the JSON helper thread, or flush once it is joined: one
 * caller at a time): calls fn with the name of every file of a normal
 * snapshot (API, signal, slow call) this process finished since the last
 * call (none twice), in the order taken. Never a crash snapshot's file. */
XR_HIDDEN void xr_fdr_snapshot_each_new(void (*fn)(const char *path));
/* Fork child: new names (suffix and numbers) for the child's snapshots. */
XR_HIDDEN void xr_fdr_snapshot_names_fork_child(void);

/* The trace files of snapshots (fdr_snapjson.c), with a stream format in
 * trace_output (chrome: `<snapshot>.json`): a helper thread converts each
 * new snapshot soon after it, into the formats of outputs. start at init,
 * stop (join) at flush, both on the control path; wake is async-signal-safe
 * (sem_post) and does nothing without a helper; convert_new converts what
 * is new, on the calling thread (flush, after stop). */
XR_HIDDEN void xr_fdr_snapjson_start(unsigned outputs);
XR_HIDDEN void xr_fdr_snapjson_wake(void);
XR_HIDDEN void xr_fdr_snapjson_stop(void);
XR_HIDDEN void xr_fdr_snapjson_convert_new(void);
XR_HIDDEN void xr_fdr_snapjson_fork_child(void);

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

/* Entered around every snapshot (fdr_mode.c): true when FDR is recording;
 * while any snapshot is inside, init does not unmap the old buffers. */
XR_HIDDEN bool xr_fdr_snapshot_enter(void);
XR_HIDDEN void xr_fdr_snapshot_leave(void);
/* Fork child: no snapshot runs here (its thread does not exist). */
XR_HIDDEN void xr_fdr_snapshot_fork_child(void);

/* Triggers (fdr_triggers.c), from fdr_mode.c. */
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
/* Slow-call trigger (fdr_slow_call.c): builds the watched set from
 * snapshot_function (an id, or a name pattern through the name table) and
 * publishes it in xr_fdr_hot; 0, or -1 after a message. Nothing when
 * slow_us is 0. */
XR_HIDDEN int xr_fdr_slow_call_prepare(const struct fdr_trigger_options *o,
                                       const char *function);
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
