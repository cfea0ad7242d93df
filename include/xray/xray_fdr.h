/* XRay FDR flight recorder: snapshots of the buffers while recording goes on.
 *
 * An extension of this runtime (compiler-rt has none). A snapshot writes
 * every thread's FDR buffers, as they are at that moment, to a new file
 * `<xray_logfile_base><program>.<suffix>.snap<NNNNNN>` (suffix: six letters
 * fixed for the process; N counts up from 000001, so the names sort in time
 * order; created exclusively, never overwriting). The file is an ordinary
 * FDR log (llvm-xray account, convert, fdr-dump read it); its last buffer
 * holds one custom event, a line of text that says why it was taken and
 * what was cut (docs/fdr-mode.md, "Flight recorder").
 *
 * Recording is never stopped or blocked. Records a thread may still rewrite
 * (the enters of calls that may yet be erased as short) are cut, and a
 * buffer that a thread takes over while it is being copied is left out:
 * both are counted in that line. C11 and C++. */
#ifndef XRAY_XRAY_FDR_H
#define XRAY_XRAY_FDR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  /* Written; the name is in path. */
  XRAY_SNAPSHOT_OK = 0,
  /* FDR is not recording (not initialised, or finalized): nothing written. */
  XRAY_SNAPSHOT_NOT_RECORDING = 1,
  /* Another snapshot is being written by this process: nothing written;
   * try again later. */
  XRAY_SNAPSHOT_BUSY = 2,
  /* The file could not be created or written whole (unwritable directory,
   * disk full, file size limit); a message says why. A file cut short keeps
   * its whole buffers and stays readable; with none it is removed. path
   * holds its name, or "" when none was created. Recording goes on. */
  XRAY_SNAPSHOT_FILE_ERROR = 3,
} XRaySnapshotStatus;

/* Writes a snapshot. path (may be NULL when path_size is 0) receives the
 * file's name, truncated to path_size - 1 bytes. Safe from any thread, and
 * async-signal-safe (it allocates nothing and takes no lock: a second
 * concurrent call returns XRAY_SNAPSHOT_BUSY). */
XRaySnapshotStatus __xray_fdr_snapshot(char *path, size_t path_size);

/* When shared objects are instrumented, FDR records hold dense function ids
 * (docs/fdr-mode.md, "Shared objects"); snapshots and the flushed log get
 * `<file>.map`, which names them. This writes the same map as
 * `<trace_path>.map`, for a trace made of the buffers that
 * __xray_log_process_buffers hands out: 1 written (its name in map_path,
 * which may be NULL), 0 none needed (no shared object registered, or FDR
 * never recorded in this process), -1 not written (errno says why; a
 * message at verbosity 0; an existing file is never overwritten). The map
 * is the one of FDR's last recording: every id its buffers hold. Safe from
 * any thread, and async-signal-safe. */
int __xray_fdr_object_map(const char *trace_path, char *map_path,
                          size_t map_path_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif
