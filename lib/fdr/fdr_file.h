/* The finalized buffers as a file (fdr_file.c). Control path, after
 * finalize. */
#ifndef XR_FDR_FILE_H
#define XR_FDR_FILE_H

#include "core/base/common.h"
#include "xray/xray_log_interface.h"

/* At finalize, once no writer can take a buffer: the file header and the
 * empty buffer written when no buffer holds data. */
XR_HIDDEN void xr_fdr_file_prepare(uint64_t buffer_size);
/* __xray_log_process_buffers's iterator: the header, then every kept
 * buffer framed for the file; nothing unless FDR is finalized. */
XR_HIDDEN XRayBuffer xr_fdr_iterator(XRayBuffer previous);
/* Writes the log (and the trace files beside it, as `outputs` (XR_TRACE_OUT_*)
 * ask); failures are reported, never returned. */
XR_HIDDEN void xr_fdr_file_write(unsigned outputs);
/* True when some kept buffer holds a function record. */
XR_HIDDEN bool xr_fdr_file_has_function_record(void);

#endif
