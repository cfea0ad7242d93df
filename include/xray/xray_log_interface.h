/* XRay logging modes: registration, selection, init/finalize/flush, and
 * in-memory access to a mode's buffers.
 *
 * Drop-in compatible with compiler-rt's <xray/xray_log_interface.h>.
 * Built-in modes: "xray-basic", "xray-fdr", "xray-profiling".
 * SPDX-License-Identifier: MIT */
#ifndef XRAY_XRAY_LOG_INTERFACE_H
#define XRAY_XRAY_LOG_INTERFACE_H

#include "xray/xray_interface.h"
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* States of a mode; what log_init and log_finalize return. */
enum XRayLogInitStatus {
  XRAY_LOG_UNINITIALIZED = 0,
  XRAY_LOG_INITIALIZING = 1,
  XRAY_LOG_INITIALIZED = 2,
  XRAY_LOG_FINALIZING = 3,
  XRAY_LOG_FINALIZED = 4
};

/* What flushing returns. */
enum XRayLogFlushStatus {
  XRAY_LOG_NOT_FLUSHING = 0,
  XRAY_LOG_FLUSHING = 1,
  XRAY_LOG_FLUSHED = 2
};

/* What registration and selection return. */
enum XRayLogRegisterStatus {
  XRAY_REGISTRATION_OK = 0,
  XRAY_DUPLICATE_MODE = 1,  /* a mode of that name is already registered */
  XRAY_MODE_NOT_FOUND = 2,  /* no mode of that name */
  XRAY_INCOMPLETE_IMPL = 3  /* a function pointer of the impl is NULL */
};

#ifndef __cplusplus
typedef enum XRayLogInitStatus XRayLogInitStatus;
typedef enum XRayLogFlushStatus XRayLogFlushStatus;
typedef enum XRayLogRegisterStatus XRayLogRegisterStatus;
#endif

/* A logging mode: four functions, all required.
 * - log_init(buffer_size, max_buffers, args, args_size): start the mode;
 *   __xray_log_init_mode passes (0, 0, config string, 0).
 * - log_finalize(): stop recording, make the data ready to flush.
 * - handle_arg0(id, type): the entry/exit handler installed for the mode.
 * - flush_log(): write or release what was recorded. */
struct XRayLogImpl {
  XRayLogInitStatus (*log_init)(size_t, size_t, void *, size_t);
  XRayLogInitStatus (*log_finalize)(void);
  void (*handle_arg0)(int32_t, XRayEntryType);
  XRayLogFlushStatus (*flush_log)(void);
};
#ifndef __cplusplus
typedef struct XRayLogImpl XRayLogImpl;
#endif

/* Installs Impl as the current implementation (its handle_arg0 as the
 * handler) without a name. An Impl with any NULL member instead removes the
 * current implementation, the current mode and the handlers. */
void __xray_set_log_impl(XRayLogImpl Impl);

/* Registers a mode under a name (copied). Returns XRAY_REGISTRATION_OK,
 * XRAY_DUPLICATE_MODE, or XRAY_INCOMPLETE_IMPL for a NULL member or name. */
XRayLogRegisterStatus __xray_log_register_mode(const char *Mode,
                                               XRayLogImpl Impl);

/* Makes the named mode current. A user mode's handle_arg0 becomes the handler
 * at once; a built-in mode installs its handlers when initialised, so a mode
 * that is only selected costs nothing per event. Returns
 * XRAY_REGISTRATION_OK or XRAY_MODE_NOT_FOUND. */
XRayLogRegisterStatus __xray_log_select_mode(const char *Mode);

/* Name of the current mode, or NULL when none is selected. */
const char *__xray_log_get_current_mode(void);

/* Removes the current implementation and the entry/exit and arg1 handlers. */
void __xray_remove_log_impl(void);

/* Forwards all four arguments to the current implementation's log_init.
 * Returns its status, or XRAY_LOG_UNINITIALIZED without an implementation. */
XRayLogInitStatus __xray_log_init(size_t BufferSize, size_t MaxBuffers,
                                  void *Args, size_t ArgsSize);

/* Initialises the named mode with a config string (`name=value` pairs, as in
 * its XRAY_<MODE>_OPTIONS variable, which it reads first). Unlike
 * compiler-rt, a registered mode that is not yet selected is selected first.
 * Returns the mode's status, or XRAY_LOG_UNINITIALIZED when Mode is unknown
 * or Config is NULL. */
XRayLogInitStatus __xray_log_init_mode(const char *Mode, const char *Config);

/* Like __xray_log_init_mode, for configs of ConfigSize bytes (passed as
 * args_size to log_init). Built-in modes read Config as a string of at most
 * ConfigSize bytes. */
XRayLogInitStatus __xray_log_init_mode_bin(const char *Mode,
                                           const char *Config,
                                           size_t ConfigSize);

/* Stops recording in the current mode. Returns its status (XRAY_LOG_FINALIZED
 * when done), or XRAY_LOG_UNINITIALIZED without an implementation. */
XRayLogInitStatus __xray_log_finalize(void);

/* Writes the current mode's data out (normally to a file). Returns
 * XRAY_LOG_FLUSHED, XRAY_LOG_NOT_FLUSHING when the mode is not finalized or
 * there is no implementation. */
XRayLogFlushStatus __xray_log_flushLog(void);

/* A buffer of a mode's data handed out in memory. */
struct XRayBuffer {
  const void *Data;
  size_t Size;
};
#ifndef __cplusplus
typedef struct XRayBuffer XRayBuffer;
#endif

/* Sets the iterator __xray_log_process_buffers walks: called first with
 * {NULL, 0}, then with the previous buffer, until it returns Data == NULL.
 * Modes set it themselves at init. */
void __xray_log_set_buffer_iterator(XRayBuffer (*Iterator)(XRayBuffer));

/* Restores the iterator that yields nothing. */
void __xray_log_remove_buffer_iterator(void);

/* Calls Processor(mode name, buffer) for each buffer of the current mode
 * (after finalize; the mode's header first). Returns XRAY_LOG_FLUSHED, or
 * XRAY_LOG_NOT_FLUSHING without an implementation. */
XRayLogFlushStatus __xray_log_process_buffers(void (*Processor)(const char *,
                                                                XRayBuffer));

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XRAY_XRAY_LOG_INTERFACE_H */
