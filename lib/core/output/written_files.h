/* The last files the runtime created, for the control socket (lib/control)
 * to answer "which files did that write?". A small ring of absolute paths;
 * noting is async-signal-safe and lock-free (a snapshot signal handler
 * creates files too), reading copies entries out under a per-slot sequence
 * check. Cold path only: one note per file created. */
#ifndef XR_WRITTEN_FILES_H
#define XR_WRITTEN_FILES_H

#include "core/base/common.h"

#define XR_WRITTEN_RING 32
#define XR_WRITTEN_PATH_MAX 1024

/* Notes that `path` was created (relative paths are made absolute against
 * the current directory now, as the file was just opened against it). */
XR_HIDDEN void xr_written_note(const char *path);

/* How many files were noted so far (the sequence number of the next). */
XR_HIDDEN uint64_t xr_written_count(void);

/* Copies the path of note number `seq` (0-based) into out[cap]. Returns
 * false when it fell out of the ring, is being written right now, or does
 * not exist yet. */
XR_HIDDEN bool xr_written_get(uint64_t seq, char *out, size_t cap);

#endif
