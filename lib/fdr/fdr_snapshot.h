/* FDR snapshots: every thread's buffers written to a new file while the
 * writers go on (fdr_snapshot.c). The triggers that take them are in
 * fdr_triggers.h and fdr_slow_call.h, their names in fdr_snapshot_names.h,
 * their trace files in fdr_snaptrace.h. */
#ifndef XR_FDR_SNAPSHOT_H
#define XR_FDR_SNAPSHOT_H

#include "core/base/common.h"
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

/* Writes one snapshot. Async-signal-safe: system calls only (open, writev,
 * lseek, ftruncate, getrlimit, clock_gettime), no allocation, no lock, no
 * stdio (messages are formatted by hand and written raw). The caller owns
 * `slot` (no other snapshot uses it meanwhile). path may be NULL. */
XR_HIDDEN XRaySnapshotStatus xr_fdr_snapshot_write(
    const struct xr_fdr_snapshot_why *why, enum xr_fdr_snapshot_slot slot,
    char *path, size_t path_size);

#endif
