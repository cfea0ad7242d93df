/* Basic mode's log file and recording switch (basic_writer.c). The writer
 * uses nothing of the handlers or the glue: the lean handlers read the
 * switch, the glue (basic_mode.c) drives the file. */
#ifndef XR_BASIC_WRITER_H
#define XR_BASIC_WRITER_H

#include "basic/basic_records.h"
#include "core/base/common.h"

/* Recording generation: even and non-zero while the mode records, odd when
 * stopped (1 before the first init). A thread records only while its own
 * epoch equals it; its epoch is 0 until set up, so an odd value or a new
 * generation sends it to the slow path (set-up or drop). */
XR_HIDDEN extern volatile uint32_t xr_basic_epoch;
/* Stops recording in every thread (finalize, or the writer failed). */
XR_HIDDEN void xr_basic_stop_recording(void);

/* Creates the log file and writes its header, if not yet open (at init, so
 * that "Log file in" comes when compiler-rt prints it). Returns 0, or -1
 * after reporting the failure and stopping recording. */
XR_HIDDEN int xr_basic_writer_open(void);
/* Appends `count` records as one O_APPEND write, opening the file first if
 * needed. Thread-safe. On failure reports it once, stops recording and
 * returns -1; later calls return -1 at once. */
XR_HIDDEN int xr_basic_writer_append(const struct xr_basic_record *records,
                                     size_t count);
/* Closes the file (if open), first removing it when this process created it
 * and it holds no record (reported at verbosity >= 1). */
XR_HIDDEN void xr_basic_writer_close(void);
/* Forgets a failure (at init). */
XR_HIDDEN void xr_basic_writer_reset(void);
/* In the forking thread, before fork: marks an open file as shared. */
XR_HIDDEN void xr_basic_writer_before_fork(void);
/* In a fork child: resets the lock; keeps the parent's descriptor, so the
 * child appends to the parent's file (and never removes it). */
XR_HIDDEN void xr_basic_writer_after_fork(void);
/* In a fork child whose mode dropped another thread's transition: closes
 * the child's copy of the descriptor (the file is left as it is, the
 * parent's), so a later init opens a file of the child's own. */
XR_HIDDEN void xr_basic_writer_forget(void);
/* Records this process wrote to the current/last file, and its path ("" if
 * none or removed). */
XR_HIDDEN uint64_t xr_basic_writer_records(void);
/* The same, read under the writer's lock (from another thread). */
XR_HIDDEN uint64_t xr_basic_writer_records_locked(void);
XR_HIDDEN const char *xr_basic_writer_path(void);

#endif
