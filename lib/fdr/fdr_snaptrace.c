/* The trace files of snapshots (every stream format trace_output names:
 * chrome's `.json`, perfetto's `.pftrace`), soon after each.
 *
 * A snapshot runs where nothing may allocate (a signal handler, the
 * async-signal-safe API, a slow call's exit); converting it loads the name
 * table and reads /proc for thread names. So one helper thread does it:
 * - it exists only while FDR is initialised with a stream format on:
 *   created at init (never in a signal context), joined at flush;
 * - a snapshot wakes it with sem_post (async-signal-safe, never blocks);
 * - it converts every snapshot finished since its last pass
 *   (xr_fdr_snapshot_each_new), and flush, after joining it, converts what
 *   is left the same way: one mechanism, and one caller at a time, so each
 *   file has one writer;
 * - it blocks every signal (created with all of them blocked: the program's
 *   signals go to the program's threads) and never records: its
 *   xr_in_handler stays set, so an event on it would be dropped (it calls
 *   nothing instrumented; a thread without a buffer takes the full path,
 *   which checks the guard).
 * A fork child has no helper (only the forking thread survives): its
 * snapshots get their files at its flush. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "core/clock/clock.h"
#include "core/base/report.h"
#include "core/thread/thread.h"
#include "export/thread_names.h"
#include "export/trace_formats.h"
#include "fdr/fdr_export.h"
#include "fdr/fdr_snaptrace.h"
#include "fdr/fdr_snapshot_names.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

static sem_t wake;
static bool wake_ready;  /* sem_init done: once per process, never destroyed */
static int armed;        /* atomic: a helper of this process listens */
static int stopping;     /* atomic: the helper's next wake ends it */
static pthread_t helper;
static bool running;     /* control path only: helper is joinable */
static unsigned outputs; /* XR_TRACE_OUT_*, set at start */

static void convert_one(const char *path) {
  static char files[2 * PATH_MAX]; /* the helper thread's only */
  if (xr_fdr_file_write_streams(path, outputs, xr_clock.frequency_hz) == 0) {
    xr_trace_outputs_files(outputs, path, files, sizeof files);
    xr_report(XR_INFO, "xray-fdr: snapshot '%s' also as %s", path, files);
  }
}

void xr_fdr_snaptrace_convert_new(void) {
  xr_fdr_snapshot_each_new(convert_one);
}

static void *helper_main(void *arg) {
  (void)arg;
  (void)xr_guard_enter(); /* for good: the helper records nothing */
  for (;;) {
    if (sem_wait(&wake) != 0) {
      if (errno == EINTR)
        continue;
      return NULL; /* cannot wait: flush converts everything */
    }
    if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
      return NULL; /* flush converts the rest */
    xr_fdr_snaptrace_convert_new();
  }
}

void xr_fdr_snaptrace_start(unsigned trace_outputs) {
  outputs = trace_outputs; /* flush's convert_new uses it, helper or not */
  if (running)
    return;
  if (!wake_ready) {
    if (sem_init(&wake, 0, 0) != 0) {
      xr_report(XR_ERROR, "xray-fdr: no snapshot trace thread (sem_init: %s); "
                          "snapshots get their trace files at flush",
                strerror(errno));
      return;
    }
    wake_ready = true;
  }
  __atomic_store_n(&stopping, 0, __ATOMIC_RELAXED);
  int rc = xr_thread_start_own(helper_main, NULL, &helper);
  if (rc != 0) {
    xr_report(XR_ERROR, "xray-fdr: no snapshot trace thread (%s); snapshots "
                        "get their trace files at flush",
              strerror(rc));
    return;
  }
  pthread_setname_np(helper, "xray-snaptrace");
  running = true;
  __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
}

void xr_fdr_snaptrace_wake(void) {
  /* A post after stop (a snapshot that saw armed just before) only makes
   * the next helper look once for nothing. */
  if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
    sem_post(&wake);
}

void xr_fdr_snaptrace_stop(void) {
  if (!running)
    return;
  __atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
  sem_post(&wake);
  pthread_join(helper, NULL); /* it finishes the file it is writing */
  running = false;
}

void xr_fdr_snaptrace_fork_child(void) {
  __atomic_store_n(&armed, 0, __ATOMIC_RELAXED);
  running = false; /* the parent's thread; nothing to join here */
  /* It may have been reading thread names when the parent forked: that
   * lock would wait for ever here. (A name table it was loading is reset
   * by core's own fork hook, objects.c, in every child.) */
  xr_thread_names_after_fork();
}
