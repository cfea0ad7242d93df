/* A crash snapshot's trace files, written in the crash handler
 * (fdr_crash_trace.c). */
#ifndef XR_FDR_CRASH_TRACE_H
#define XR_FDR_CRASH_TRACE_H

#include "core/base/common.h"

/* At FDR's init, before it records (cold path): with snapshot_on_crash,
 * a crash snapshot gets the native trace (perfetto) when outputs has it
 * and its writer may run in a signal handler; then names are kept ready
 * from the start of recording (core/names/ready_names.h) and the program's
 * name is copied now. Otherwise nothing is prepared and a crash writes no
 * trace. */
XR_HIDDEN void xr_fdr_crash_trace_prepare(unsigned outputs, bool on_crash);
/* When FDR stops recording: no crash trace, names no longer kept ready. */
XR_HIDDEN void xr_fdr_crash_trace_stop(void);
/* True when a crash snapshot gets trace files. */
XR_HIDDEN bool xr_fdr_crash_trace_wanted(void);

/* Writes the trace files of crash snapshot `snapshot` (a whole file,
 * closed), each `<snapshot><suffix>`, from the file read back. scratch:
 * room for max_spans struct xr_fdr_span (the crash slot's, free once the
 * snapshot is written). Returns the number written (their names, quoted,
 * in files), 0 when none is wanted (a version 1 snapshot included), or -1
 * with errno: files then names the one that failed, which is removed (a
 * `.part` is never left, a fault in a writer included). Async-signal-safe:
 * no allocation, no lock, no stdio; nothing is said here. A file that
 * would pass RLIMIT_FSIZE fails with EFBIG before it is written (no
 * SIGXFSZ). Run only in the crash handler (the fault signals unblocked
 * meanwhile come back to it). */
XR_HIDDEN int xr_fdr_crash_trace_write(const char *snapshot, uint8_t *scratch,
                                       size_t max_spans, char *files,
                                       size_t cap);

/* The crash handler calls this when a crash signal arrives while its own
 * crash path runs: inside the writers of a crash trace, it jumps back to
 * xr_fdr_crash_trace_write, which removes that trace and returns -1 (errno
 * EFAULT); otherwise it returns. */
XR_HIDDEN void xr_fdr_crash_trace_fault(void);

#endif
