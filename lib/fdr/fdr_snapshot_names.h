/* The names of FDR snapshots (fdr_snapshot_names.c): taken by the writer
 * (fdr_snapshot.c), read back by the trace side (fdr_snaptrace.c). */
#ifndef XR_FDR_SNAPSHOT_NAMES_H
#define XR_FDR_SNAPSHOT_NAMES_H

#include "core/base/common.h"

/* Control path (fdr_init, not a signal handler): computes the file name
 * prefix `<base><program>.<suffix>.snap` once per process. */
XR_HIDDEN void xr_fdr_snapshot_prepare(void);
/* Creates the next snapshot file (O_EXCL) and writes its name into name;
 * its fd with *number set, or -1 with errno. crash: a crash snapshot, whose
 * file the trace side never reads. Async-signal-safe. */
XR_HIDDEN int xr_fdr_snapshot_open(char *name, size_t cap, uint32_t *number,
                                   bool crash);
/* A normal snapshot numbered `number` is whole (or removed): the trace side
 * may read it. Async-signal-safe. */
XR_HIDDEN void xr_fdr_snapshot_names_done(uint32_t number);
/* Control path (the trace helper thread, or flush once it is joined: one
 * caller at a time): calls fn with the name of every file of a normal
 * snapshot (API, signal, slow call) this process finished since the last
 * call (none twice), in the order taken. Never a crash snapshot's file. */
XR_HIDDEN void xr_fdr_snapshot_each_new(void (*fn)(const char *path));
/* Fork child: new names (suffix and numbers) for the child's snapshots. */
XR_HIDDEN void xr_fdr_snapshot_names_fork_child(void);

#endif
