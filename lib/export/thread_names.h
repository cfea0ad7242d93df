/* Names of threads that exited before the flush, for the readable views
 * (a thread's name is in /proc only while it lives). Cold path: the modes
 * call xr_thread_names_remember from their thread-exit hooks only when a
 * view that shows names was asked for. */
#ifndef XR_EXPORT_THREAD_NAMES_H
#define XR_EXPORT_THREAD_NAMES_H

#include "core/base/common.h"

/* Notes the calling thread's name (prctl PR_GET_NAME). The table holds the
 * last 4096 threads; older ones lose their names (the view shows the tid). */
XR_HIDDEN void xr_thread_names_remember(void);
/* The remembered name of (pid, tid) copied to buf[16], or NULL. */
XR_HIDDEN const char *xr_thread_names_find(int32_t pid, int32_t tid,
                                           char buf[16]);
/* Fork child: frees the table's lock (its holder did not survive). */
XR_HIDDEN void xr_thread_names_after_fork(void);

#endif
